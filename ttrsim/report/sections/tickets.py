"""The report's tickets part: per ticket and per deck (the statistics of
``ttrsim.report.tickets``). Every function writes one section from its
computed frames ``t`` (name -> DataFrame, None if it failed).
"""
from __future__ import annotations

from .. import charts
from ..blocks import num, pct, signed
from ..context import Context

__all__ = ["ticket_value", "ticket_decks"]


def ticket_value(ctx: Context, t: dict):
    """Per ticket (sorted by lift), with the completion and points-against-path charts."""
    tv = t["ticket_value"]
    if tv is None:
        return ctx.failed("ticket_value")
    ctx.doc.p("Per destination ticket: how often it was offered and kept, how often a kept ticket was "
              "completed, the mean net points it brought when kept (what it scored if completed, minus what it "
              "lost if not; *points* is its printed value), and the win rate of the players who kept it "
              "against their strategy's overall win rate "
              "(*lift*, in percentage points, with its 95% interval over seed blocks; positive = its keepers win "
              "more than they usually do). Highest lift first. *Path* is the shortest route between its ends on "
              "the empty board, in trains. The lift is an association, and selection drives it: a seat keeps a "
              "ticket its deal fits (a planner keeps a long ticket only then), and such a seat may win anyway; "
              "it is not what the ticket would do for a seat given it. An intervention study measures that, on "
              "the same deals played both ways (`intervene:` in an experiment file, e.g. "
              "`study_ticket_values_usa4.yaml`).")
    tvs = tv.sort(["point", "lift"], descending=[False, True], nulls_last=True)
    columns = [
        ("ticket", lambda r: f"{r['from']} - {r['to']}", False),
        ("points", lambda r: num(r["points"], 0), True),
        ("path", lambda r: num(r.get("shortest_path"), 0), True),
        ("decks", lambda r: str(r.get("decks") or ""), False),
        ("offered", lambda r: num(r["offered"], 0), True),
        ("keep", lambda r: pct(r["keep_rate"], 0), True),
        ("completed", lambda r: pct(r["completion_rate"], 0), True),
        ("net points", lambda r: signed(r["mean_net_points"], 1), True),
        ("win rate kept", lambda r: pct(r["win_rate_kept"], 1), True),
        ("lift", lambda r: signed(100 * r["lift"], 1) + " pp" if r.get("lift") is not None else "-", True),
        ("95% interval", lambda r: f"[{signed(100 * r['lift_low'], 1)}, {signed(100 * r['lift_high'], 1)}]"
         if r.get("lift_low") is not None else "-", True)]
    ctx.table("ticket_value", tvs, columns, sort_note=", sorted by lift")
    for p in ctx.chart_points():
        d = ctx.per_point(tv, p)
        offers = int(d["offered"].sum()) if d.height else 0
        ctx.chart(f"ticket_completion{ctx.suffix(p)}",
                  charts.ticket_completion(d, subtitle=ctx.point_label(p) or None),
                  ctx.caption("Completion rate of each kept ticket against its points (labels: the "
                              "ticket's ends; dot size: times kept; colour: keep rate)", p,
                              f", {offers:,} ticket offers"))
        ctx.chart(f"ticket_points_vs_path{ctx.suffix(p)}",
                  charts.ticket_points_vs_path(d, subtitle=ctx.point_label(p) or None),
                  ctx.caption("Ticket points against the shortest path between its ends on the empty "
                              "board (colour: completion rate)", p))


def ticket_decks(ctx: Context, t: dict):
    decks = t["ticket_decks"]
    if decks is None:
        return ctx.failed("ticket_decks")
    ctx.doc.p("The same by deck tag (a ticket with several tags counts in each).")
    columns = [
        ("deck", lambda r: str(r["deck"]), False),
        ("tickets", lambda r: num(r["tickets"], 0), True),
        ("offered", lambda r: num(r["offered"], 0), True),
        ("keep rate", lambda r: pct(r["keep_rate"]), True),
        ("completion rate", lambda r: pct(r["completion_rate"]), True),
        ("net points when kept", lambda r: signed(r["mean_net_points"], 1), True)]
    ctx.table("ticket_decks", decks, columns)
    for p in ctx.chart_points():
        ctx.chart(f"ticket_decks{ctx.suffix(p)}",
                  charts.ticket_decks(ctx.per_point(decks, p), subtitle=ctx.point_label(p) or None),
                  ctx.caption("Keep rate and completion rate per ticket deck (bars) and the mean net "
                              "points of a kept ticket (diamonds)", p))
