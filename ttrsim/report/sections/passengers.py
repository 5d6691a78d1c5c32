"""The report's passengers part (maps with passengers, i.e. Germany): majority
outcomes, passenger points and decisive majorities, passengers against routes
(the statistics of ``ttrsim.report.passengers``). Every function writes one
section from its computed frames ``t`` (name -> DataFrame, None if it failed).
"""
from __future__ import annotations

from .. import charts
from ..blocks import Table, num, pct
from ..context import Context

__all__ = ["has_passengers", "majority_outcomes", "passenger_points", "passengers_vs_routes"]


def has_passengers(ctx: Context) -> bool:
    """Whether the results' map has passengers (the part is left out otherwise)."""
    try:
        return int(ctx.res.map.passengers.sum()) > 0
    except Exception:
        return False


def majority_outcomes(ctx: Context, t: dict):
    """Per point, a colour x outcome table of shares and its stacked chart."""
    maj = t["majority_outcomes"]
    if maj is None:
        return ctx.failed("majority_outcomes")
    ctx.doc.p("Per passenger colour, how the majority was decided at the end of the game (R6.7). Eligible "
              "players hold at least one passenger of the colour (everyone when passenger_zero_scores is on). "
              "*Single winner*: one player has the most and one the second most; *tie for first*: two or more "
              "share the most (all score first, nobody second); *tie for second*: one has the most and two or "
              "more share the second most; *no second*: one has the most and no other player is eligible; "
              "*nobody*: no eligible player.")
    for p, d in ctx.point_frames(maj):
        outcomes = list(dict.fromkeys(d["outcome"].to_list()))
        colours = list(dict.fromkeys(d["colour"].to_list()))
        cell = {(r["colour"], r["outcome"]): r["share"] for r in d.iter_rows(named=True)}
        rows = [[c] + [pct(cell.get((c, o)), 1) for o in outcomes] for c in colours]
        ctx.doc.table(Table(["colour"] + outcomes, rows, set(range(1, len(outcomes) + 1)),
                            f"Share of games; table: [{ctx.csv('majority_outcomes')}]"
                            f"({ctx.csv('majority_outcomes')})."))
        ctx.chart(f"passenger_outcomes{ctx.suffix(p)}",
                  charts.passenger_outcomes(d, subtitle=ctx.point_label(p) or None),
                  ctx.caption("Majority outcome per passenger colour (stacked share of games)", p))


def passenger_points(ctx: Context, t: dict):
    """How often passenger points changed the winners, then the points per strategy."""
    pts, dec = t["passenger_points"], t["passenger_decisive"]
    if dec is not None:
        for r in ctx.sweep_cols(dec).iter_rows(named=True):
            where = f" at {ctx.point_label(r['point'])}" if ctx.sweep else ""
            ctx.doc.p(f"Passenger points changed who won in **{num(r['changed'], 0)} of {num(r['games'], 0)} "
                      f"games ({pct(r['share'], 1)})**{where}: the winners would differ if every player lost "
                      "their passenger points.")
    else:
        ctx.failed("passenger_decisive")
    if pts is None:
        return ctx.failed("passenger_points")
    columns = [
        ("strategy", lambda r: str(r["strategy"]), False),
        ("games", lambda r: num(r["games"], 0), True),
        ("passengers", lambda r: num(r["mean_passengers"], 1), True),
        ("passenger points", lambda r: num(r["mean_passenger_points"], 1), True),
        ("share of score", lambda r: pct(r["share_of_total"], 1), True)]
    ctx.table("passenger_points", pts, columns)
    for p in ctx.chart_points():
        ctx.chart(f"passenger_points{ctx.suffix(p)}",
                  charts.passenger_points(ctx.per_point(pts, p), colours=ctx.colours,
                                          subtitle=ctx.point_label(p) or None),
                  ctx.caption("Mean passenger majority points per strategy and game", p))


def passengers_vs_routes(ctx: Context, t: dict):
    """Passengers against routes claimed and trains used; with the turn log, passengers by routes claimed."""
    pvr, pbr = t["passengers_vs_routes"], t["passengers_by_routes"]
    if pvr is None:
        return ctx.failed("passengers_vs_routes")
    columns = [
        ("strategy", lambda r: str(r["strategy"]), False),
        ("passengers", lambda r: num(r["mean_passengers"], 1), True),
        ("routes claimed", lambda r: num(r.get("mean_routes_claimed"), 1), True),
        ("corr. with routes", lambda r: num(r.get("corr_routes"), 2), True),
        ("trains used", lambda r: num(r.get("mean_trains_used"), 1), True),
        ("corr. with trains", lambda r: num(r.get("corr_trains"), 2), True)]
    ctx.doc.p("Passengers collected against routes claimed and trains used, per strategy (means per player "
              "and game; *corr.* = Pearson correlation over the strategy's seat-games).")
    ctx.table("passengers_vs_routes", pvr, columns)
    for p in ctx.chart_points():
        ctx.chart(f"passengers_vs_routes{ctx.suffix(p)}",
                  charts.passengers_vs_routes(ctx.per_point(pvr, p), colours=ctx.colours,
                                              subtitle=ctx.point_label(p) or None),
                  ctx.caption("Mean passengers collected against mean routes claimed, per strategy", p))
        if pbr is not None and ctx.per_point(pbr, p).height:
            ctx.chart(f"passengers_by_routes{ctx.suffix(p)}",
                      charts.passengers_by_routes(ctx.per_point(pbr, p), colours=ctx.colours,
                                                  subtitle=ctx.point_label(p) or None),
                      ctx.caption("Mean passengers collected by the number of routes the player "
                                  "claimed, one line per strategy", p))
