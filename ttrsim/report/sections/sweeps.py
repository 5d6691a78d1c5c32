"""The report's sweeps part (experiments with a ``sweep``): the points and
their values, and the balance charts (win rate, mean score and seat win rate
against each swept key; from ``ttrsim.report.sweeps.swept_win_rates`` and the
score and seat tables of the strategy comparison).
"""
from __future__ import annotations

import polars as pl

from .. import charts
from ..blocks import make_table, num, slug
from ..context import Context

__all__ = ["has_sweep", "sweep_balance", "preset_value"]


def has_sweep(ctx: Context) -> bool:
    return bool(ctx.sweep)


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


def preset_value(res, key: str):
    """The value a swept rule parameter has in the experiment's rules without the sweep (the preset
    and the file's rule_overrides, as the folder records them), to mark on the balance charts; None
    for strategy parameters."""
    if not key.startswith("rules.") or res.base_rules is None:
        return None
    value = res.base_rules.params().get(key.split(".", 1)[1])
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
