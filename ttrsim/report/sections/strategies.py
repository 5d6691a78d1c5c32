"""The report's strategy comparison: win rates, head to head, ratings, seat
advantage, score composition and distributions, game length and end reasons
(the statistics of ``ttrsim.report.strategies``; which section computes which
is listed in ``ttrsim.report.contents``). Every function writes one section
from its computed frames ``t`` (name -> DataFrame, None if it failed).
"""
from __future__ import annotations

import polars as pl

from .. import charts
from ..blocks import Table, interval, num, pct, signed
from ..context import Context
from ..dataset import Results

__all__ = ["per_point_charts_note", "win_rates", "head_to_head", "ratings", "seat_advantage", "score_composition",
           "score_distributions", "game_length_distribution", "game_length", "end_reason_text"]


def per_point_charts_note(ctx: Context, t: dict):
    """In a long sweep: which points get their own charts."""
    if ctx.sweep and len(ctx.chart_points()) < len(ctx.point_ids):
        ctx.doc.note(f"Per-point charts are drawn for points {', '.join(map(str, ctx.chart_points()))} of "
                     f"{len(ctx.point_ids)}; every table (and CSV) covers all points, and the balance charts "
                     "under [Sweeps](#sweeps) show every point.")


def win_rates(ctx: Context, t: dict):
    win, players = t["win_rates"], ctx.res.players
    if win is None:
        return ctx.failed("win_rates")
    ctx.doc.p(f"Win rate per strategy with its 95% interval; a fair share at {players}-player tables is "
              f"{1 / players:.1%}. Shared wins count as fractions (1/k each).")
    columns = [
        ("strategy", lambda r: str(r["strategy"]), False),
        ("games", lambda r: num(r["games"], 0), True),
        ("wins", lambda r: num(r["wins"], 1), True),
        ("win rate", lambda r: pct(r["win_rate"]), True),
        ("95% interval", lambda r: interval(r["low"], r["high"]), True),
        ("mean score", lambda r: num(r.get("mean_score"), 1), True)]
    ctx.table("win_rates", win, columns)
    for p in ctx.chart_points():
        ctx.chart(f"win_rates{ctx.suffix(p)}",
                  charts.win_rates(ctx.per_point(win, p), players=players, colours=ctx.colours,
                                   subtitle=ctx.point_label(p) or None),
                  ctx.caption("Win rate per strategy (bars) with 95% intervals over seed blocks "
                              "(whiskers); dashed line: the fair share", p))


def head_to_head(ctx: Context, t: dict):
    h2h = t["head_to_head"]
    if h2h is None:
        return ctx.failed("head_to_head")
    ctx.doc.p("Among the games where both sat at the table: how often the row strategy finished ahead of "
              "the column strategy (ties count half). Row vs column and column vs row add up to 100%.")
    for p in ctx.point_ids:
        d = ctx.per_point(h2h, p)
        if d.height == 0 or (ctx.sweep and p not in ctx.chart_points()):
            continue
        ctx.point_heading(p)
        names = [lab for lab in ctx.res.labels if lab in set(d["strategy"].to_list())]
        cell = {(r["strategy"], r["opponent"]): r for r in d.iter_rows(named=True)}
        rows = [[a] + [("-" if a == b else (pct(cell[(a, b)]["win_rate"], 0) +
                                             f" [{pct(cell[(a, b)]['low'], 0)}-"
                                             f"{pct(cell[(a, b)]['high'], 0)}]"
                                             if (a, b) in cell else "-")) for b in names] for a in names]
        ctx.doc.table(Table(["row vs column"] + names, rows, set(range(1, len(names) + 1)),
                            f"Win rate of the row strategy against the column strategy [95% interval]; "
                            f"table: [{ctx.csv('head_to_head')}]({ctx.csv('head_to_head')})."))
        ctx.chart(f"head_to_head{ctx.suffix(p)}",
                  charts.head_to_head(d, subtitle=ctx.point_label(p) or None),
                  ctx.caption("Head-to-head matrix: the row strategy's rate of finishing ahead of the "
                              "column strategy in the games both played", p))


def ratings(ctx: Context, t: dict):
    rat = t["ratings"]
    if rat is None:
        return ctx.failed("ratings")
    ctx.doc.p("Bradley-Terry ratings over every pair of seats of every game (finishing order; ties half a "
              "win), on an Elo-like scale with mean 0: a difference of 191 points means finishing ahead "
              "3 times out of 4.")
    columns = [
        ("strategy", lambda r: str(r["strategy"]), False),
        ("rating", lambda r: signed(r["rating"], 0), True),
        ("95% interval", lambda r: interval(r["low"], r["high"], percent=False, digits=0), True)]
    ctx.table("ratings", rat, columns)
    for p in ctx.chart_points():
        ctx.chart(f"ratings{ctx.suffix(p)}",
                  charts.ratings(ctx.per_point(rat, p), colours=ctx.colours, subtitle=ctx.point_label(p) or None),
                  ctx.caption("Bradley-Terry rating per strategy (Elo-like points, mean 0) with 95% "
                              "intervals", p))


def seat_advantage(ctx: Context, t: dict):
    seat = t["seat_advantage"]
    if seat is None:
        return ctx.failed("seat_advantage")
    ctx.doc.p("Win rate per seat (seat 1 takes the first turn), whatever strategy sat there. With a rotated "
              "line-up every strategy sits in every seat equally often, so seats are compared fairly.")
    columns = [
        ("seat", lambda r: f"seat {int(r['seat']) + 1}", False),
        ("games", lambda r: num(r["games"], 0), True),
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
                                  "stalled, capped)", p))
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
