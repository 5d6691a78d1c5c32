"""The report's Europe part (rule sets with stations, tunnels or ferries, R8):
station value, tunnel outcomes and ferry use, the last two also on the board
map (the statistics of ``ttrsim.report.europe``). Every function writes one
section from its computed frames ``t`` (name -> DataFrame, None if it failed).
"""
from __future__ import annotations

from ..blocks import num, pct
from ..boardmap import board_map
from ..context import Context
from ..europe import europe_points

__all__ = ["has_europe", "station_value", "tunnel_outcomes", "ferry_use"]


def has_europe(ctx: Context) -> bool:
    """Whether any sweep point has stations, tunnels or ferries (the part is left out otherwise)."""
    try:
        return bool(europe_points(ctx.res))
    except Exception:
        return False


def station_value(ctx: Context, t: dict):
    """Stations built, used and kept, and the tickets they rescued, per strategy."""
    sv = t["station_value"]
    if sv is None:
        return ctx.failed("station_value")
    if sv.height == 0:
        return ctx.doc.p("No station rules in these games.")
    ctx.doc.p("Per strategy, means per player and game (R8.4, R8.5): stations *built*; *used*: built "
              "stations whose borrowed route counts for the owner's tickets at the end (the engine picks the "
              "routes with the best ticket score and, of those, the fewest stations borrowing one); *kept*: stations never built, worth their points; *tickets rescued*: "
              "tickets complete only thanks to a borrowed route.")
    columns = [
        ("strategy", lambda r: str(r["strategy"]), False),
        ("games", lambda r: num(r["games"], 0), True),
        ("built", lambda r: num(r["stations_built"], 2), True),
        ("used", lambda r: num(r["stations_used"], 2), True),
        ("used / built", lambda r: pct(r["used_share"], 1), True),
        ("kept", lambda r: num(r["stations_kept"], 2), True),
        ("points for kept", lambda r: num(r["station_points"], 1), True),
        ("tickets rescued", lambda r: num(r["tickets_rescued"], 3), True)]
    ctx.table("station_value", sv, columns)

def tunnel_outcomes(ctx: Context, t: dict):
    """How often tunnels asked for extra cards and were given up; the board map of give-ups."""
    to, tr = t["tunnel_outcomes"], t["tunnel_routes"]
    if to is None:
        return ctx.failed("tunnel_outcomes")
    ctx.doc.p("Tunnel claims announced per strategy (R8.3): how often the turned-over cards asked for extra "
              "cards, how many when they did, and how often the tunnel was given up (of all attempts, and of "
              "those asked for extra cards).")
    columns = [
        ("strategy", lambda r: str(r["strategy"]), False),
        ("attempts", lambda r: num(r["attempts"], 0), True),
        ("per game", lambda r: num(r["per_game"], 2), True),
        ("asked extra", lambda r: pct(r["extra_share"], 1), True),
        ("extra cards when asked", lambda r: num(r["mean_extra"], 2), True),
        ("given up", lambda r: pct(r["given_up_share"], 1), True),
        ("given up when asked", lambda r: pct(r["given_up_when_asked"], 1), True)]
    ctx.table("tunnel_outcomes", to, columns)
    if tr is None:
        return ctx.failed("tunnel_routes")
    for p in ctx.chart_points():
        d = ctx.per_point(tr, p)
        if d.height:
            ctx.chart(f"board_tunnels_given_up{ctx.suffix(p)}",
                      board_map(ctx.res.map, d, "given_up_rate", subtitle=ctx.point_label(p) or None),
                      ctx.caption("The tunnels coloured by the share of their claims given up (other routes "
                                  "dotted)", p))


def ferry_use(ctx: Context, t: dict):
    """Ferry claims per strategy and the ferries' claim rates on the board map."""
    fu, fr = t["ferry_use"], t["ferry_routes"]
    if fu is None:
        return ctx.failed("ferry_use")
    ctx.doc.p("Ferry claims per player and game and the locomotives paid on them (R8.2: at least the "
              "ferry's printed locomotives).")
    columns = [
        ("strategy", lambda r: str(r["strategy"]), False),
        ("ferry claims", lambda r: num(r["ferry_claims"], 2), True),
        ("locomotives per claim", lambda r: num(r["mean_locomotives"], 2), True)]
    ctx.table("ferry_use", fu, columns)
    if fr is None:
        return ctx.failed("ferry_routes")
    for p in ctx.chart_points():
        d = ctx.per_point(fr, p)
        if d.height:
            ctx.chart(f"board_ferries{ctx.suffix(p)}",
                      board_map(ctx.res.map, d, "claim_rate", subtitle=ctx.point_label(p) or None,
                                title="Ferry claim rate"),
                      ctx.caption("The ferries coloured (and widened) by how often they were claimed (other "
                                  "routes dotted)", p))
