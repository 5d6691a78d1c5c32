"""The report's route contention part: claim rates and rounds per track with
the board maps, double and triple routes, and blocking (the statistics of
``ttrsim.report.routes``; they need the turn log). Every function writes one
section from its computed frames ``t`` (name -> DataFrame, None if it failed).
"""
from __future__ import annotations

import polars as pl

from .. import charts
from ..blocks import interval, num, pct
from ..boardmap import board_map
from ..context import Context

__all__ = ["without_turn_log", "route_contention", "blocking"]


def without_turn_log(ctx: Context) -> str | None:
    """The note written instead of the part when the results have no turn log."""
    if ctx.res.has_turns:
        return None
    return ("Skipped: these results have no turn log, which route contention needs. Run the experiment "
            "with `log: true` (or `ttrsim run FILE --log`) to get claim rates, claim rounds, claimers, "
            "the board maps and blocking.")


def route_contention(ctx: Context, t: dict):
    """Per track (most claimed first, with its top claimer), the board maps, the most claimed tracks,
    and the double and triple routes."""
    rc, cl, res = t["route_contention"], t["route_claimers"], ctx.res
    if rc is None:
        return ctx.failed("route_contention")
    doc = ctx.doc
    doc.p("Per route (each track of a double or triple route separately): the share of games it was "
          "claimed, the round it was claimed in (a round is one turn per player; median and quartiles), "
          "and for double and triple routes how often more than one of its tracks was taken.")
    rcs = rc.sort(["point", "claim_rate"], descending=[False, True], nulls_last=True)
    columns = [
        ("route", lambda r: str(r["label"]), False),
        ("claimed", lambda r: pct(r["claim_rate"], 1), True),
        ("median round", lambda r: num(r["median_turn"], 0), True),
        ("quartiles", lambda r: interval(r["q25_turn"], r["q75_turn"], percent=False, digits=0)
         if r.get("q25_turn") is not None else "-", True),
        ("2+ tracks taken", lambda r: pct(r["group_multi_rate"], 1)
         if r.get("group_multi_rate") is not None else "", True)]
    if cl is not None and cl.height:
        top = (cl.sort(["point", "route", "share"], descending=[False, False, True])
               .group_by(["point", "route"], maintain_order=True).first()
               .select("point", "route", pl.col("strategy").alias("top_claimer"), pl.col("share").alias("top_share")))
        rcs = rcs.join(top, on=["point", "route"], how="left")
        columns.append(("most often by", lambda r: f"{r['top_claimer']} ({pct(r['top_share'], 0)})"
                     if r.get("top_claimer") is not None else "-", False))
    ctx.table("route_contention", rcs, columns, max_rows=25, sort_note=", most claimed first")
    for p in ctx.chart_points():
        d = ctx.per_point(rc, p)
        claims = int(d["claims"].sum()) if d.height else 0
        ctx.chart(f"board_claim_rate{ctx.suffix(p)}",
                  board_map(res.map, d, "claim_rate", subtitle=ctx.point_label(p) or None),
                  ctx.caption("The board with every track coloured (and widened) by how often it was "
                              "claimed; tracks of double routes drawn side by side", p, f", {claims:,} claims"))
        ctx.chart(f"board_claim_round{ctx.suffix(p)}",
                  board_map(res.map, d, "median_turn", subtitle=ctx.point_label(p) or None),
                  ctx.caption("The board with every track coloured by the median round it was claimed "
                              "in (dark: early)", p))
        ctx.chart(f"route_claims{ctx.suffix(p)}",
                  charts.route_claim_rates(d, top=25, subtitle=ctx.point_label(p) or None),
                  ctx.caption("The 25 most claimed tracks: claim rate and claim round (median, "
                              "quartiles)", p))
    multi = rc.filter(pl.col("group_multi_rate").is_not_null())
    if multi.height:
        g = (multi.group_by(["point", "group"]).agg(
                pl.col("from").first(), pl.col("to").first(), pl.col("length").first(),
                pl.col("route").count().alias("tracks_listed"),
                pl.col("group_multi_rate").first(), pl.col("claim_rate").sum().alias("tracks_per_game"))
             .sort(["point", "group_multi_rate"], descending=[False, True]))
        doc.h(3, "Double and triple routes")
        doc.p("How often more than one track of a parallel group was taken in a game (with "
              f"{res.players} players; `lock_parallel_max_players` closes the parallels at small tables).")
        columns = [
            ("route", lambda r: f"{r['from']} - {r['to']} ({r['length']})", False),
            ("tracks", lambda r: num(r["tracks_listed"], 0), True),
            ("2+ tracks taken", lambda r: pct(r["group_multi_rate"], 1), True),
            ("tracks taken per game", lambda r: num(r["tracks_per_game"], 2), True)]
        ctx.table("route_contention", g, columns, max_rows=20, sort_note=", most contested first")
    if cl is not None:
        doc.p(f"Which strategies claim each route: [{ctx.csv('route_claimers')}]"
              f"({ctx.csv('route_claimers')}) (claims and share per route and strategy).")


def blocking(ctx: Context, t: dict):
    bl = t["blocking"]
    if bl is None:
        return ctx.failed("blocking")
    ctx.doc.p("A claim *blocks* when its route lies on a shortest path (empty board) between the ends of a "
              "ticket another player kept before the claim. *Blocking* counts only tickets that ended "
              "uncompleted (a lower bound); *any* counts every such held ticket (an upper bound).")
    columns = [
        ("strategy", lambda r: str(r["strategy"]), False),
        ("claims", lambda r: num(r["claims"], 0), True),
        ("blocking claims", lambda r: num(r["blocking_claims"], 0), True),
        ("blocking rate", lambda r: pct(r["blocking_rate"], 1), True)]
    if "blocking_rate_any" in bl.columns:
        columns.append(("rate (any)", lambda r: pct(r["blocking_rate_any"], 1), True))
    ctx.table("blocking", bl, columns)
    for p in ctx.chart_points():
        ctx.chart(f"blocking{ctx.suffix(p)}",
                  charts.blocking(ctx.per_point(bl, p), colours=ctx.colours, subtitle=ctx.point_label(p) or None),
                  ctx.caption("Share of each strategy's claims that took a route on another player's "
                              "open (later failed) ticket path", p))
