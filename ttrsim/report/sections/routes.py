"""The report's route claims part: claim rates and rounds per city pair
with the board maps, double and triple routes, and blocking (the statistics of
``ttrsim.report.routes``; they need the turn log; the per-track numbers go to
the CSV). Every function writes one
section from its computed frames ``t`` (name -> DataFrame, None if it failed).
"""
from __future__ import annotations

import polars as pl

from .. import charts
from ..blocks import interval, num, pct, signed
from ..boardmap import board_map
from ..context import Context

__all__ = ["without_turn_log", "route_contention", "blocking"]


def without_turn_log(ctx: Context) -> str | None:
    """The note written instead of the part when the results have no turn log."""
    if ctx.res.has_turns:
        return None
    return ("Skipped: these results have no turn log, which the route claims need. Run the experiment "
            "with `log: true` (or `ttrsim run FILE --log`) to get claim rates, claim rounds, claimers, "
            "the board maps and blocking.")


def route_contention(ctx: Context, t: dict):
    """Per city pair (most claimed first, with its top claimer), the board maps, the most claimed pairs,
    and the double and triple routes; the per-track numbers go to the CSV."""
    pairs, res = t["route_pairs"], ctx.res
    if pairs is None:
        return ctx.failed("route_pairs")
    doc = ctx.doc
    doc.p("Per route (a city pair: the tracks of a double or triple route together, since which twin a player "
          "takes says more about its tie-breaks than about the board): the share of games in which it was "
          "claimed, the round of its first claim (a round is one turn per player, round 1 the first; median "
          "and quartiles), for double and triple routes how often more than one track and every track was "
          "taken, and the strategy that claimed it most. The numbers per track are in "
          f"[{ctx.csv('route_contention')}]({ctx.csv('route_contention')}).")
    columns = [
        ("route", lambda r: str(r["pair"]), False),
        ("tracks", lambda r: num(r["tracks"], 0), True),
        ("claimed", lambda r: pct(r["claim_rate"], 1), True),
        ("median round", lambda r: num(r["median_round"], 0), True),
        ("quartiles", lambda r: interval(r["q25_round"], r["q75_round"], percent=False, digits=0)
         if r.get("q25_round") is not None else "-", True),
        ("2+ tracks", lambda r: pct(r["multi_rate"], 1) if r.get("multi_rate") is not None else "", True),
        ("most often by", lambda r: f"{r['top_claimer']} ({pct(r['top_share'], 0)})"
         if r.get("top_claimer") is not None else "-", False)]
    ctx.table("route_pairs", pairs, columns, max_rows=25, sort_note=", most claimed first")
    for p in ctx.chart_points():
        d = ctx.per_point(pairs, p)
        ctx.chart(f"board_claim_rate{ctx.suffix(p)}",
                  board_map(res.map, d, "claim_rate", subtitle=ctx.point_label(p) or None),
                  ctx.caption("The board with every route coloured (and widened) by how often any of its "
                              "tracks was claimed", p))
        ctx.chart(f"board_claim_round{ctx.suffix(p)}",
                  board_map(res.map, d, "median_round", subtitle=ctx.point_label(p) or None),
                  ctx.caption("The board with every route coloured by the median round of its first claim "
                              "(dark: early)", p))
        ctx.chart(f"route_claims{ctx.suffix(p)}",
                  charts.route_claim_rates(d, top=25, subtitle=ctx.point_label(p) or None),
                  ctx.caption("The 25 most claimed routes: claim rate (any track) and the round of the first "
                              "claim (median, quartiles)", p))
    multi = pairs.filter(pl.col("multi_rate").is_not_null())
    if multi.height:
        doc.h(3, "Double and triple routes")
        doc.p("How often more than one track, and every track, of a parallel group was taken in a game (with "
              f"{res.players} players; `lock_parallel_max_players` closes the parallels at small tables).")
        columns = [
            ("route", lambda r: str(r["pair"]), False),
            ("tracks", lambda r: num(r["tracks"], 0), True),
            ("any track", lambda r: pct(r["claim_rate"], 1), True),
            ("2+ tracks", lambda r: pct(r["multi_rate"], 1), True)]
        if multi["tracks"].max() > 2:
            columns.append(("every track", lambda r: pct(r["all_rate"], 1), True))
        ctx.table("route_pairs", multi.sort(["point", "multi_rate"], descending=[False, True]), columns, max_rows=20,
                  sort_note=", most often 2+ tracks first")
    if t["route_claimers"] is not None:
        doc.p(f"Which strategies claim each track: [{ctx.csv('route_claimers')}]"
              f"({ctx.csv('route_claimers')}) (claims and share per track and strategy).")


def blocking(ctx: Context, t: dict):
    bl = t["blocking"]
    if bl is None:
        return ctx.failed("blocking")
    exact = bl["blocking_rate"].null_count() < bl.height
    ctx.doc.p("A claim *blocks* when its route lies on a shortest path (empty board) between the ends of a "
              "ticket another player held and had not completed yet at that moment. "
              + ("The tickets table records the turn each ticket was completed, so *blocking rate* counts "
                 "exactly; the bounds beside it count only tickets that ended uncompleted (low) and every held "
                 "ticket, completed or not (high). Highest first. A central route lies on many paths, so a rate "
                 "alone does not say that a strategy blocks on purpose: *against another deal* compares the "
                 "claims (those whose track was still free there, the share given) with the same claims (route, "
                 "turn, seat) against the tickets the other seats held in another deal with the same seating, "
                 "and gives the excess with its 95% interval over seed blocks. Even a strategy that ignores its "
                 "opponents (`long_route`) shows a small excess: a claim on another seat's path keeps that "
                 "ticket open longer."
                 if exact else
                 "**These results do not record when a ticket was completed** (written before ttrsim did), so "
                 "only the bounds are known: tickets that ended uncompleted (low) and every held ticket (high)."))
    columns = [
        ("strategy", lambda r: str(r["strategy"]), False),
        ("claims", lambda r: num(r["claims"], 0), True)]
    if exact:
        columns += [("blocking claims", lambda r: num(r["blocking_claims"], 0), True),
                    ("blocking rate", lambda r: pct(r["blocking_rate"], 1), True)]
    columns += [("bounds", lambda r: interval(r["blocking_rate_low"], r["blocking_rate_high"]), True)]
    if exact:
        columns += [("against another deal", _against, True)]
    ctx.table("blocking", bl, columns)
    for p in ctx.chart_points():
        ctx.chart(f"blocking{ctx.suffix(p)}",
                  charts.blocking(ctx.per_point(bl, p), colours=ctx.colours, subtitle=ctx.point_label(p) or None),
                  ctx.caption("Share of each strategy's claims that took a route on another player's open "
                              "ticket path" + (" (bars), with the bounds (whiskers); labels: the excess over the same "
                                                 "claims on another deal" if exact else
                                               " (between the bounds)"), p))


def _against(r: dict) -> str:
    """'33.8% vs 32.1%: +1.8 pp [+0.6, +2.9] (71% of claims)', '-' without a baseline."""
    if r.get("excess") is None:
        return "-"
    span = ("" if r["excess_low"] is None else
            f" [{signed(100 * r['excess_low'], 1)}, {signed(100 * r['excess_high'], 1)}]")
    return (f"{pct(r['paired_rate'], 1)} vs {pct(r['baseline_rate'], 1)}: {signed(100 * r['excess'], 1)} pp{span} "
            f"({pct(r['paired_claims'] / r['claims'], 0)} of claims)")
