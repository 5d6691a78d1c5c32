"""The report's strategy comparison: win rates, head to head, ratings, seat
advantage, score composition, how each strategy plays (its profile), score
distributions, game length and end reasons (the statistics of
``ttrsim.report.strategies``; which section computes which is listed in
``ttrsim.report.contents``). The texts follow the seating design: what it
balances and what it confounds. Every function writes one section
from its computed frames ``t`` (name -> DataFrame, None if it failed).
"""
from __future__ import annotations

from collections import Counter

import polars as pl

from ttrsim.results.stats import player_keys
from ttrsim.results.summary import design_text, notes, summary_from_tables

from .. import charts
from ..blocks import Table, interval, num, pct, signed
from ..context import Context
from ..dataset import Results
from ..strategies import PROFILE

__all__ = ["per_point_charts_note", "win_rates", "head_to_head", "ratings", "seat_advantage", "seat_text",
           "score_composition", "profile", "score_distributions", "game_length_distribution", "game_length",
           "end_reason_text"]


def per_point_charts_note(ctx: Context, t: dict):
    """In a long sweep: which points get their own charts."""
    if ctx.sweep and len(ctx.chart_points()) < len(ctx.point_ids):
        ctx.doc.note(f"Per-point charts are drawn for points {', '.join(map(str, ctx.chart_points()))} of "
                     f"{len(ctx.point_ids)}; every table (and CSV) covers all points, and the balance charts "
                     "under [Sweeps](#sweeps) show every point.")


def win_rates(ctx: Context, t: dict):
    """The win rates, ranked, with what the seating design controls and the notes of the run summary."""
    win, players = t["win_rates"], ctx.res.players
    if win is None:
        return ctx.failed("win_rates")
    ctx.doc.p(f"Win rate per strategy with its 95% interval, highest first; a fair share at {players}-player "
              f"tables is {pct(1 / players)}. Shared wins count as fractions (1/k each). "
              f"{design_text(ctx.res)}")
    rows = summary_from_tables(ctx.res)
    for p in ctx.point_ids:
        lines = notes([r for r in rows if r["point"] == p])
        if lines:
            ctx.doc.note((f"{ctx.point_label(p)}: " if ctx.sweep else "") + " ".join(lines))
    columns = [
        ("strategy", lambda r: str(r["strategy"]), False),
        ("games", lambda r: num(r["distinct"], 0), True),
        ("wins", lambda r: num(r["wins"], 1), True),
        ("win rate", lambda r: pct(r["win_rate"]), True),
        ("95% interval", lambda r: "by design" if r.get("fixed") else interval(r["low"], r["high"]), True),
        ("mean score", lambda r: num(r.get("mean_score"), 1), True)]
    ctx.table("win_rates", win, columns)
    pooled = t.get("player_win_rates")
    if pooled is not None and not (pooled["seats"] > 1).any():
        ctx.doc.p(f"Each label is its own player here (no strategy sits under two labels with the same "
                  f"parameters): [{ctx.csv('player_win_rates')}]({ctx.csv('player_win_rates')}) repeats the "
                  "table by player.")
    elif pooled is not None:
        ctx.doc.p("**One player under several labels, pooled**: entrants that play the same strategy with the "
                  "same parameters are one player; its rate counts all its seats, its interval their seed blocks "
                  "(the key findings compare players, not labels).")
        ctx.table("player_win_rates", pooled, [
            ("player", lambda r: str(r["player"]), False),
            ("labels", lambda r: str(r["labels"]), False),
            ("games", lambda r: num(r["distinct"], 0), True),
            ("win rate", lambda r: pct(r["win_rate"]), True),
            ("95% interval", lambda r: interval(r["low"], r["high"]), True),
            ("mean score", lambda r: num(r.get("mean_score"), 1), True)])
    for p in ctx.chart_points():
        ctx.chart(f"win_rates{ctx.suffix(p)}",
                  charts.win_rates(ctx.per_point(win, p), players=players, colours=ctx.colours,
                                   subtitle=ctx.point_label(p) or None),
                  ctx.caption("Win rate per strategy (bars) with 95% intervals over seed blocks "
                              "(whiskers); dashed line: the fair share", p))


def _pooled(ctx: Context, t: dict, name: str) -> pl.DataFrame | None:
    """The player table ``name`` (its ``player`` column as ``strategy``) when a player
    sits under several labels and there are two players or more; else None (the labels are the players)."""
    pooled, df = ctx.tables.get("player_win_rates"), t.get(name)
    if pooled is None or df is None or not df.height or not (pooled["seats"] > 1).any():
        return None
    return df.rename({"player": "strategy"})


def _pooled_note(ctx: Context, t: dict, label_table: str) -> str:
    """What the section shows: players pooled, with the labels' table as seat detail, or the labels, with the
    link to the (same, or empty) table by player."""
    players = "player_" + label_table
    if _pooled(ctx, t, players) is None:
        same = ("the same: each label is its own player here" if len(set(player_keys(ctx.res, ctx.point_ids[0]))) > 1
                else "empty: one player")
        return f"By player: [{ctx.csv(players)}]({ctx.csv(players)}) ({same})."
    return ("**One player under several labels, pooled** (as in the win rates): the labels of one player count "
            "as that player, every pair of seats of two players counts (n: seat pairs), and a player's labels "
            f"against each other are left out. Per label (the seat detail): [{ctx.csv(label_table)}]"
            f"({ctx.csv(label_table)}).")


def head_to_head(ctx: Context, t: dict):
    """Per point a matrix (strategies in win-rate order) of finished-ahead rates with intervals, and its heat map;
    over players when a player sits under several labels."""
    h2h = t["head_to_head"]
    if h2h is None:
        return ctx.failed("head_to_head")
    ctx.doc.p("Among the games where both sat at the table: how often the row strategy **finished ahead of** "
              "the column strategy (ties count half). This is not a win rate: finishing third ahead of the "
              "fourth counts too. Row vs column and column vs row add up to 100%." + _fixed_caveat(ctx)
              + _one_player_caveat(ctx))
    pooled = _pooled(ctx, t, "player_head_to_head")
    ctx.doc.p(_pooled_note(ctx, t, "head_to_head"))
    d_all, name = (h2h, "head_to_head") if pooled is None else (pooled, "player_head_to_head")
    by_design = _by_design(ctx)[1] if pooled is None else set()
    for p, d in ctx.point_frames(d_all):
        names = list(dict.fromkeys(d["strategy"].to_list()))
        cell = {(r["strategy"], r["opponent"]): r for r in d.iter_rows(named=True)}
        same_n = d["games"].n_unique() == 1
        def text(a, b):
            r = cell.get((a, b))
            if a == b or r is None:
                return "-"
            if (p, a, b) in by_design:
                return "50% by design"
            return f"{pct(r['ahead_rate'])} {interval(r['low'], r['high'])}" + ("" if same_n else
                                                                                 f" (n={num(r['games'], 0)})")
        rows = [[a] + [text(a, b) for b in names] for a in names]
        n = (" n: the pairs of seats (a game with two labels of a player counts twice)." if pooled is not None
             else f" Each pair met in {num(d['games'][0], 0)} games." if same_n else " n: the games both played.")
        ctx.doc.table(Table(["row finished ahead of column"] + names, rows, set(range(1, len(names) + 1)),
                            f"Share of the games both played in which the row strategy finished ahead of the "
                            f"column strategy [95% interval].{n} Table: [{ctx.csv(name)}]({ctx.csv(name)})."))
        ctx.chart(f"head_to_head{ctx.suffix(p)}",
                  charts.head_to_head(d, subtitle=ctx.point_label(p) or None),
                  ctx.caption("Head to head: how often the row strategy finished ahead of the column strategy "
                              "in the games both played, with its 95% interval and the number of those games", p))


def ratings(ctx: Context, t: dict):
    """Bradley-Terry ratings, over players when a player sits under several labels, and how far they miss the
    pair rates."""
    rat = t["ratings"]
    if rat is None:
        return ctx.failed("ratings")
    pooled = _pooled(ctx, t, "player_ratings")
    pairs = ctx.tables.get("head_to_head") if pooled is None else _pooled(ctx, ctx.tables, "player_head_to_head")
    ctx.doc.p("Bradley-Terry ratings over every pair of seats of every game (finishing order; ties half a "
              "win), on an Elo-like scale with mean 0, highest first: a difference of 191 points means finishing "
              "ahead 3 times out of 4." + _fixed_caveat(ctx) + _one_player_caveat(ctx)
              + _model_fit(rat if pooled is None else pooled, pairs))
    ctx.doc.p(_pooled_note(ctx, t, "ratings"))
    fixed = _by_design(ctx)[0] if pooled is None else set()
    by_design = lambda r: (r["point"], r["strategy"]) in fixed  # noqa: E731
    columns = [
        ("strategy", lambda r: str(r["strategy"]), False),
        ("rating", lambda r: "0 by design" if by_design(r) else signed(r["rating"], 0), True),
        ("95% interval", lambda r: "by design" if by_design(r) else
         interval(r["low"], r["high"], percent=False, digits=0), True)]
    name, shown = ("ratings", rat) if pooled is None else ("player_ratings", pooled)
    ctx.table(name, shown, columns)
    for p in ctx.chart_points():
        ctx.chart(f"ratings{ctx.suffix(p)}",
                  charts.ratings(ctx.per_point(shown, p), colours=ctx.colours, subtitle=ctx.point_label(p) or None),
                  ctx.caption("Bradley-Terry rating per strategy (Elo-like points, mean 0) with 95% "
                              "intervals", p))


def _by_design(ctx: Context) -> tuple[set, set]:
    """(point, label) whose every game is a copy in a rotation of identical players
    (the win rate's ``fixed``: its rating is 0 by construction), and (point, label,
    label) pairs of them whose ahead rate is 50% by construction: over the block's
    seatings each pair of their seats occurs both ways round (in a rotation of
    four, the labels two seats apart; the neighbours' rate measures who sits
    after whom)."""
    win = ctx.tables.get("win_rates")
    if win is None or "fixed" not in win.columns:
        return set(), set()
    fixed = {(r["point"], r["strategy"]) for r in win.filter(pl.col("fixed")).iter_rows(named=True)}
    seat_of = [{e: s for s, e in enumerate(seating)} for seating in ctx.res.seatings]
    index = {lab: i for i, lab in enumerate(ctx.res.labels)}

    def symmetric(a, b):
        i, j = index[a], index[b]
        return Counter((x.get(i), x.get(j)) for x in seat_of) == Counter((x.get(j), x.get(i)) for x in seat_of)
    pairs = {(p, a, b) for p, a in fixed for q, b in fixed if p == q and a != b and symmetric(a, b)}
    return fixed, pairs


def _fixed_caveat(ctx: Context) -> str:
    if ctx.res.manifest["config"].get("seating") != "fixed" or len(set(player_keys(ctx.res, ctx.point_ids[0]))) == 1:
        return ""
    return (" **Seating `fixed`: each strategy keeps its seat, so these numbers compare seats as much as "
            "strategies** (a strategy in the first seat is helped by it).")


def _one_player_caveat(ctx: Context) -> str:
    if len(set(player_keys(ctx.res, ctx.point_ids[0]))) != 1 or len(ctx.res.labels) < 2:
        return ""
    return (" **One strategy under every label: these numbers compare seats, not strategies** (which label sits "
            "after which).")


def _model_fit(rat: pl.DataFrame, h2h: pl.DataFrame | None) -> str:
    """How far the ratings' predicted pair rates miss the observed head-to-head rates."""
    if h2h is None or not h2h.height:
        return ""
    r = {(x["point"], x["strategy"]): x["rating"] for x in rat.iter_rows(named=True)}
    miss = []
    for x in h2h.iter_rows(named=True):
        a, b = r.get((x["point"], x["strategy"])), r.get((x["point"], x["opponent"]))
        if a is not None and b is not None and x["strategy"] != x["opponent"]:
            miss.append((abs(1 / (1 + 10 ** ((b - a) / 400)) - x["ahead_rate"]), x))
    if not miss:
        return ""
    worst, x = max(miss, key=lambda m: m[0])
    return (f" The model fits the pairs it summarises to within {signed(100 * worst, 1).lstrip('+')} percentage "
            f"points (largest miss: `{x['strategy']}` against `{x['opponent']}`, observed "
            f"{pct(x['ahead_rate'])}); a larger miss means the pair rates are not one ranking.")


def seat_text(res) -> str:
    """What the seat table measures under the experiment's seating design."""
    seating = res.manifest["config"].get("seating")
    if seating == "fixed":
        if len({k for k in player_keys(res, res.point_ids[0])}) == 1:
            return ("The same strategy sits in every seat (seating `fixed`, a new deal every game), so the "
                    "differences between seats are the seats' own: turn order, not strategy.")
        return ("**Seating `fixed`: every strategy always sits in the same seat, so this table mixes seat and "
                "strategy** (a strong strategy makes its seat look strong). It does not measure the seats; "
                "run with `seating: rotate` for that.")
    return ("Every strategy sits in every seat equally often on the same deals (seating "
            f"`{seating}`), so a seat's win rate is the seat's, averaged over the strategies of the line-up.")


def seat_advantage(ctx: Context, t: dict):
    seat = t["seat_advantage"]
    if seat is None:
        return ctx.failed("seat_advantage")
    ctx.doc.p("Win rate per seat (seat 1 takes the first turn), whatever strategy sat there. " + seat_text(ctx.res))
    columns = [
        ("seat", lambda r: f"seat {int(r['seat'])}", False),
        ("games", lambda r: num(r["distinct"], 0), True),
        ("win rate", lambda r: pct(r["win_rate"]), True),
        ("95% interval", lambda r: interval(r["low"], r["high"]), True),
        ("vs fair", lambda r: signed(100 * (r["win_rate"] - r["fair"]), 1) + " pp"
         if r.get("win_rate") is not None and r.get("fair") is not None else "-", True),
        ("mean score", lambda r: num(r.get("mean_score"), 1), True)]
    ctx.table("seat_advantage", seat, columns)
    for p in ctx.chart_points():
        ctx.chart(f"seat_advantage{ctx.suffix(p)}",
                  charts.seat_advantage(ctx.per_point(seat, p), subtitle=ctx.point_label(p) or None),
                  ctx.caption("Win rate per seat with 95% intervals; dashed line: the fair share", p))


def score_composition(ctx: Context, t: dict):
    comp = t["score_components"]
    if comp is None:
        return ctx.failed("score_components")
    ctx.doc.p("Mean final score per strategy and where the points come from (all means per game; "
              "failed tickets are subtracted).")
    cols = [c for c, _, _ in charts.COMPONENTS if c in comp.columns and comp[c].fill_null(0).abs().sum() > 0]
    names = {c: text for c, text, _ in charts.COMPONENTS}
    columns = [
        ("strategy", lambda r: str(r["strategy"]), False),
        ("games", lambda r: num(r["games"], 0), True),
        ("total", lambda r: num(r["total"], 1), True),
        ("sd", lambda r: num(r.get("sd_total"), 1), True)] + [
        (names[c] if c != "tickets_lost" else "tickets failed (-)", (lambda r, c=c: num(r[c], 1)), True)
        for c in cols]
    ctx.table("score_components", comp, columns)
    for p in ctx.chart_points():
        ctx.chart(f"score_components{ctx.suffix(p)}",
                  charts.score_components(ctx.per_point(comp, p), subtitle=ctx.point_label(p) or None),
                  ctx.caption("Mean score per strategy split into its components (stacked; failed "
                              "tickets below zero); diamonds: mean total", p))


def profile(ctx: Context, t: dict):
    """How each strategy plays: measures in rows, strategies (ranked) in columns, and the small-multiples chart."""
    prof = t["strategy_profile"]
    if prof is None:
        return ctx.failed("strategy_profile")
    ctx.doc.p("How each strategy plays, per player and game: its tickets, points, paths, bonuses, turns and "
              "trains left (mean, and the 10th to 90th percentile of its games), so a reader can judge whether "
              "the players behind this study play like the players they care about. *Winning score*: its final "
              "score in the games it won; a bonus row: the share of its games in which it got the bonus.")
    what = {m: (text, unit) for m, text, unit in PROFILE}
    for p, d in ctx.point_frames(prof):
        names = list(dict.fromkeys(d["strategy"].to_list()))
        cell = {(r["measure"], r["strategy"]): r for r in d.iter_rows(named=True)}

        def text(r):
            if r is None or r["mean"] is None:
                return "-"
            if r["unit"] == "share":
                return pct(r["mean"])
            return f"{num(r['mean'], 1)} ({num(r['p10'], 0)} to {num(r['p90'], 0)})"
        measures = list(dict.fromkeys(d["measure"].to_list()))
        rows = [[f"{what[m][0]} ({'% of games' if what[m][1] == 'share' else what[m][1]})"]
                + [text(cell.get((m, s))) for s in names] for m in measures]
        ctx.doc.table(Table(["per player and game"] + names, rows, set(range(1, len(names) + 1)),
                            "Mean (10th to 90th percentile) over the strategy's games; net ticket points: "
                            "completed minus failed; strategies by win rate. "
                            f"Table (with medians and the games counted): [{ctx.csv('strategy_profile')}]"
                            f"({ctx.csv('strategy_profile')})."))
        ctx.chart(f"strategy_profile{ctx.suffix(p)}",
                  charts.strategy_profile(d, colours=ctx.colours, subtitle=ctx.point_label(p) or None),
                  ctx.caption("How each strategy plays: per measure, each strategy's 10th to 90th percentile "
                              "over its games (bar), median (tick) and mean (dot); bonuses: share of games won", p))


def score_distributions(ctx: Context, t: dict):
    hist = t["score_histogram"]
    if hist is None:
        return ctx.failed("score_histogram")
    ctx.doc.p(f"Final scores per strategy in bins of 5 points (table: [{ctx.csv('score_histogram')}]"
              f"({ctx.csv('score_histogram')})).")
    for p in ctx.chart_points():
        ctx.chart(f"score_distribution{ctx.suffix(p)}",
                  charts.score_distribution(ctx.per_point(hist, p), colours=ctx.colours,
                                            subtitle=ctx.point_label(p) or None),
                  ctx.caption("Distribution of final scores per strategy (share of its games per "
                              "5-point bin)", p))


def game_length_distribution(res: Results) -> pl.DataFrame:
    """point, turns, end, games: games per length and end reason (for the game length chart)."""
    return (res.scan("games").group_by("point", "turns", pl.col("end").cast(pl.String))
            .agg(pl.len().cast(pl.Int64).alias("games")).sort("point", "turns", "end").collect())


def game_length(ctx: Context, t: dict):
    """Game length and end reasons: two tables, and per point a length histogram and the end reasons."""
    glen, dist, ends = t["game_length"], t["game_length_distribution"], t["end_reasons"]
    if glen is None:
        ctx.failed("game_length")
    else:
        columns = [
            ("games", lambda r: num(r["games"], 0), True),
            ("mean turns", lambda r: num(r["mean_turns"], 1), True),
            ("median", lambda r: num(r["median_turns"], 0), True),
            ("10th pct", lambda r: num(r["p10_turns"], 0), True),
            ("90th pct", lambda r: num(r["p90_turns"], 0), True),
            ("turns per player", lambda r: num(r["mean_turns_per_player"], 1), True)]
        ctx.doc.p("Game length in turns, all seats together (a round is one turn per player).")
        ctx.table("game_length", glen, columns)
    if ends is None:
        ctx.failed("end_reasons")
    else:
        end_reason_text(ctx, ends)
        columns = [
            ("end", lambda r: str(r["end"]), False),
            ("games", lambda r: num(r["games"], 0), True),
            ("share", lambda r: pct(r["share"], 2), True)]
        ctx.table("end_reasons", ends, columns)
    for p in ctx.chart_points():
        if dist is not None:
            ctx.chart(f"game_length{ctx.suffix(p)}",
                      charts.game_length(ctx.per_point(dist, p), players=ctx.res.players,
                                         subtitle=ctx.point_label(p) or None),
                      ctx.caption("Distribution of game length in turns, stacked by end reason (normal, "
                                  "stalled, capped); the counts: "
                                  f"[{ctx.csv('game_length_distribution')}]({ctx.csv('game_length_distribution')})",
                                  p))
        if ends is not None:
            ctx.chart(f"end_reasons{ctx.suffix(p)}",
                      charts.end_reasons(ctx.per_point(ends, p), subtitle=ctx.point_label(p) or None),
                      ctx.caption("Games per end reason on a log scale (so a few stalled or capped games "
                                  "stay visible)", p))


def end_reason_text(ctx: Context, ends: pl.DataFrame):
    """How many games ended normally, stalled or were capped: a note when any did not end normally."""
    d = ends.with_columns(pl.col("end").cast(pl.String)).group_by("end").agg(pl.col("games").sum())
    counts = dict(zip(d["end"].to_list(), d["games"].to_list()))
    total = sum(counts.values()) or 1
    odd = {e: counts.get(e, 0) for e in ("stalled", "capped")}
    text = (f"Of {total:,} games, {counts.get('normal', 0):,} ended normally (R6.1), "
            f"**{odd['stalled']:,} stalled** ({odd['stalled'] / total:.2%}: nobody could act, R6.2) and "
            f"**{odd['capped']:,} were capped** ({odd['capped'] / total:.2%}: the turn limit, R6.2).")
    if odd["stalled"] or odd["capped"]:
        ctx.doc.note(text + " Stalled and capped games are scored as they stand and included in every "
                            "statistic.")
    else:
        ctx.doc.p(text)
