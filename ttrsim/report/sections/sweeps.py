"""The report's sweeps part (experiments with a ``sweep``): the points and
their values, and the balance charts (win rate, mean score and seat win rate
against each swept key; from ``ttrsim.report.sweeps.swept_win_rates`` and the
score and seat tables of the strategy comparison); then whether the play
changes across the sweep at all (``ttrsim.report.sweeps.play_changes``).
"""
from __future__ import annotations

import polars as pl

from .. import charts
from ..blocks import make_table, num, pct, signed, slug
from ..context import Context

__all__ = ["has_sweep", "sweep_balance", "play_changes", "play_change_line", "sweep_effects", "effect_line",
           "effect_span", "preset_value"]


def has_sweep(ctx: Context) -> bool:
    """A sweep other than an intervention's arms (the intervention part shows those)."""
    return any(k != "arm" for k in ctx.sweep)


def sweep_balance(ctx: Context, t: dict):
    """The points table, then per swept key the balance charts of win rate, mean score and seat win rate."""
    doc, res = ctx.doc, ctx.res
    doc.p(f"The experiment swept {', '.join(f'`{k}`' for k in ctx.sweep)} over {len(ctx.point_ids)} "
          "points; every point plays the same seeds. Every table above has a `point` column with the "
          "swept values next to it (and so do the CSV files).")
    pt = ctx.points
    columns = [("point", lambda r: str(r["point"]), True)] + \
           [(k, (lambda r, k=k: str(r[k])), False) for k in ctx.sweep] + \
           [("games", lambda r: num(ctx.games.get(int(r["point"]), 0), 0), True)]
    doc.table(make_table(pt, columns, csv=ctx.csv("points")))
    ctx.tables["points"] = pt
    swr = t["swept_win_rates"]
    if swr is None:
        return ctx.failed("swept_win_rates")
    per_point = ctx.games_text(ctx.point_ids[0]) if ctx.point_ids else "0 games"
    ref = {key: preset_value(res, key) for key in ctx.sweep}
    for key in ctx.sweep:
        ctx.chart(f"balance_win_rate_{slug(key.split('.')[-1])}",
                  charts.balance_lines(swr, key, "win_rate", colours=ctx.colours, fair=1 / res.players,
                                       reference=ref[key]),
                  f"Balance: each strategy's win rate (line) with its 95% interval (band) against "
                  f"`{key}`; dashed: the fair share; dotted: the rule set's own value. "
                  f"From {per_point} per point, {res.n_games:,} in all.")
    comp = ctx.tables.get("score_components")
    if comp is not None and comp.height:
        d = comp.join(ctx.points, on="point", how="left")
        for key in ctx.sweep:
            ctx.chart(f"balance_score_{slug(key.split('.')[-1])}",
                      charts.balance_lines(d.rename({"total": "mean_score"}).drop(
                          [c for c in ("low", "high") if c in d.columns]), key, "mean_score",
                          colours=ctx.colours, percent=False, ylabel="mean final score (points)",
                          title=f"Mean score against {key.split('.')[-1]}", reference=ref[key]),
                      f"Each strategy's mean final score against `{key}`. From {per_point} per point.")
    seat = ctx.tables.get("seat_advantage")
    if seat is not None and seat.height:
        d = (seat.with_columns(pl.format("seat {}", pl.col("seat")).alias("strategy"))
             .join(ctx.points, on="point", how="left"))
        for key in ctx.sweep:
            ctx.chart(f"balance_seat_{slug(key.split('.')[-1])}",
                      charts.balance_lines(d, key, "win_rate", fair=1 / res.players, reference=ref[key],
                                           title=f"Seat advantage against {key.split('.')[-1]}"),
                      f"Win rate per seat (line) with its 95% interval (band) against `{key}`; dashed: the "
                      f"fair share. From {per_point} per point.")
    doc.p(f"Win rates by point: [{ctx.csv('swept_win_rates')}]({ctx.csv('swept_win_rates')}).")


def play_changes(ctx: Context, t: dict):
    """Whether the players play differently across the sweep: the share of
    seat-games that differ from the first point's, per point."""
    pc = t["play_changes"]
    if pc is None:
        return ctx.failed("play_changes")
    what = "the actions of every turn (the turn log), " if ctx.res.has_turns else ""
    ctx.doc.p(play_change_line(ctx) or "")
    ctx.doc.p("Each seat-game is compared with the same deal, seating and seat at the first point: its play is "
              f"{what}the tickets offered to it (with the turn) and kept, and its trains, cards, longest path, "
              "stations, passengers and tickets completed and failed at the end; never a score, which the "
              "swept rules change by themselves. Where no seat-game differs, no seated strategy reads the "
              "swept value, and the balance charts above re-score the same games: they measure the rule's "
              "arithmetic, not how players would respond to it.")
    columns = [("point", lambda r: str(r["point"]), True)] + \
        [(k, (lambda r, k=k: str(r[k])), False) for k in ctx.sweep] + \
        [("seat-games", lambda r: num(r["seat_games"], 0), True),
         ("play differs", lambda r: f"{num(r['differ'], 0)} ({pct(r['differ_share'])})", True),
         ("winner's tickets completed", lambda r: num(r["winner_tickets"], 2), True),
         ("ticket draws per player", lambda r: num(r["ticket_draws"], 2), True)]
    ctx.doc.table(make_table(pc, columns, csv=ctx.csv("play_changes")))
    refitted(ctx)


def refitted(ctx: Context):
    """With ``refit``: which entrants were re-fitted before each point played, and their fitted values."""
    fits, entries = ctx.res.manifest.get("refits"), ctx.res.manifest["config"].get("refit")
    if not fits or not entries:
        return
    labels = [e["label"] for e in entries]
    ctx.doc.p(f"**Re-fitted play**: before each point played, {', '.join(f'`{x}`' for x in labels)} "
              f"{'was' if len(labels) == 1 else 'were'} re-fitted by the strategy tuner (self-play under the "
              "point's rules; `ttrsim tune`, docs/tune.md), so every point seats players fitted to its rules, not "
              "one parameter set across all of them. Each fit is an estimate from its own games (its folder "
              "holds the trace): values that differ between points by less than a fit's resolution may be noise.")
    cols = [(f"{x}.{k}", x, k) for x, e in zip(labels, entries) for k in e["fit"]]
    rows = pl.DataFrame({"point": [ctx.point_label(i) for i in range(len(fits))],
                         "fit games": [sum(f[x]["games"] for x in labels) for f in fits],
                         **{c: [f[x]["params"][k] for f in fits] for c, x, k in cols}})
    columns = [("point", lambda r: r["point"], False), ("fit games", lambda r: num(r["fit games"], 0), True)] + \
        [(c, (lambda r, c=c: f"{r[c]:g}"), True) for c, _, _ in cols]
    ctx.doc.table(make_table(rows, columns))


def play_change_line(ctx: Context) -> str | None:
    """One sentence: how many seat-games differ between the first and the last
    point (None without the statistic)."""
    pc = ctx.tables.get("play_changes")
    if pc is None or pc.height < 2:
        return None
    first, last = pc.row(0, named=True), pc.row(pc.height - 1, named=True)
    if not last["seat_games"]:
        return None
    between = f"{ctx.point_label(first['point'])} and {ctx.point_label(last['point'])}"
    if not last["differ"]:
        return (f"**Play does not change across the sweep**: all {num(last['seat_games'], 0)} seat-games play "
                f"the same at {between}; no seated strategy reads the swept value, so the balance charts "
                "re-score identical games.")
    return (f"**Play changes across the sweep** in {pct(last['differ_share'])} of "
            f"{num(last['seat_games'], 0)} seat-games between {between} (the same deals).")


def sweep_effects(ctx: Context, t: dict):
    """The paired effect of each point against the first, per strategy."""
    eff = t["sweep_effects"]
    if eff is None:
        return ctx.failed("sweep_effects")
    first = ctx.point_label(ctx.point_ids[0]) if ctx.point_ids else ""
    ctx.doc.p("What moving from the first point (" + first + ") to each other point **does** to each strategy: "
              "the same deals are played at every point, so every seat-game is compared with the same deal, "
              "seating and seat at the first point, and the differences are averaged per seed block (the "
              "independent unit), with a 95% interval over the blocks. This is an effect of the swept values, "
              "everything else being equal by design, on these strategies as they play (where the play does not "
              "change, the effect is the rule's arithmetic on the same games). The adjusted p-value counts every "
              "point and strategy of the table (Holm).")
    line = effect_line(ctx)
    if line:
        ctx.doc.p(line)
    columns = [("point", lambda r: str(r["point"]), True)] + \
        [(k, (lambda r, k=k: str(r[k])), False) for k in ctx.sweep] + \
        [("strategy", lambda r: str(r["strategy"]), False),
         ("blocks", lambda r: num(r["blocks"], 0), True),
         ("win rate effect", lambda r: f"{signed(100 * r['win_effect'], 1)} pp", True),
         ("95% interval", lambda r: effect_span(r, "win", 100), True),
         ("adjusted p", lambda r: "-" if r["win_p_holm"] is None else f"{r['win_p_holm']:.3f}", True),
         ("score effect", lambda r: f"{signed(r['score_effect'], 1)} {effect_span(r, 'score', 1)}", True),
         ("tickets completed", lambda r: signed(r["tickets_effect"], 2), True)]
    ctx.doc.table(make_table(eff, columns, csv=ctx.csv("sweep_effects")))


def effect_span(r: dict, name: str, scale: float) -> str:
    """'[low, high]' of an effect, '-' without one (a single seed block)."""
    lo, hi = r[f"{name}_low"], r[f"{name}_high"]
    return "-" if lo is None or hi is None else f"[{signed(scale * lo, 1)}, {signed(scale * hi, 1)}]"


def effect_line(ctx: Context) -> str | None:
    """One sentence: the largest win-rate effect that survives Holm's correction, or that none does."""
    eff = ctx.tables.get("sweep_effects")
    if eff is None or not eff.height:
        return None
    m = eff["win_p_holm"].drop_nulls().len()
    sig = eff.filter(pl.col("win_p_holm") < 0.05)
    if not sig.height:
        return (f"**No detectable effect of the sweep on any win rate**: none of the {m} paired effects "
                "(points x strategies, against the first point) survives Holm's correction at 5%.")
    r = sig.sort(pl.col("win_effect").abs(), descending=True).row(0, named=True)
    return (f"**Largest effect of the sweep**: from {ctx.point_label(ctx.point_ids[0])} to "
            f"{ctx.point_label(r['point'])}, `{r['strategy']}`'s win rate changes by "
            f"{signed(100 * r['win_effect'], 1)} pp {effect_span(r, 'win', 100)} on the same deals (adjusted p "
            f"{r['win_p_holm']:.3f}, "
            f"{sig.height} of {m} paired effects significant after Holm's correction).")


def preset_value(res, key: str):
    """The value a swept rule parameter has in the experiment's rules without the sweep (the preset
    and the file's rule_overrides, as the folder records them), to mark on the balance charts; None
    for strategy parameters."""
    if not key.startswith("rules.") or res.base_rules is None:
        return None
    value = res.base_rules.params().get(key.split(".", 1)[1])
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
