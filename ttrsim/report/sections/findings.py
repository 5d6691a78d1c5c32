"""The report's key findings: a short list written from the numbers of the
sections once they are computed (``ctx.tables``), each line linking to its
section. A line states only what its intervals support, and a "most" or
"least" picked among many counts the number compared: its p-value is adjusted
by Holm's method over that family (:func:`ttrsim.results.stats.holm`) and
the line says so ("picked from 30 tickets; Holm-adjusted"), or says that
nothing stands out.

In a sweep, first whether the play changes across it at all
(:func:`~ttrsim.report.sections.sweeps.play_change_line`) and its largest
paired effect. Then lines, per sweep point drawn (every point without a
sweep): distinct games when games replay one another; the strongest strategy
(labels of one player pooled) when its margin over every other survives Holm;
the seat advantage (Holm over the seats); the tickets whose keepers win most
above and below their usual rate (Holm over the tickets; an association); the
most claimed routes (a description); passenger majorities (maps with
passengers); in-game ticket draws. An experiment over planner styles
(``styles:``) first says whether the strongest strategy and the seat advantage
hold in every style or depend on it (:func:`_across_styles`).
"""
from __future__ import annotations

import polars as pl

from ttrsim.results.stats import player_keys

from ..blocks import Bullets, interval, num, pct, signed
from ..context import Context
from . import interventions, sweeps

__all__ = ["findings", "finding_lines", "ALPHA"]

ALPHA = 0.05    # the family-wise error rate of a "most" finding picked among many (Holm)


def findings(ctx: Context) -> list:
    """The key findings as document blocks (a heading and a list), to go right after the header."""
    lines = [line for line in (interventions.finding_line(ctx), sweeps.play_change_line(ctx), sweeps.effect_line(ctx),
                                *_across_styles(ctx)) if line]
    for p in ctx.chart_points() or ctx.point_ids:
        at = finding_lines(ctx, p)
        lines += [f"*{ctx.point_label(p)}*: {x}" for x in at] if ctx.sweep else at
    if not lines:
        lines = ["Nothing could be computed: see *Problems* at the end."]
    return [ctx.doc.heading(2, "Key findings"), Bullets(lines)]


def _link(ctx: Context, title: str) -> str:
    """' ([title](#anchor))' for the first heading of that title, '' if the report has none."""
    h = next((h for h in ctx.doc.headings((2, 3)) if h.text == title), None)
    return f" ([{title.lower()}](#{h.anchor}))" if h else ""


def _rows(ctx: Context, name: str, p: int) -> list[dict]:
    df = ctx.tables.get(name)
    if df is None or "point" not in df.columns:
        return []
    return df.filter(pl.col("point") == p).to_dicts()


def finding_lines(ctx: Context, p: int) -> list[str]:
    """The findings of sweep point ``p`` (sentences with Markdown marks and section links)."""
    out = []
    if ctx.distinct.get(p, 0) != ctx.games.get(p, 0):
        out.append(f"**{num(ctx.distinct[p], 0)} distinct games** of {num(ctx.games[p], 0)} played: the others "
                   "replay a game of their seed block (the same deal with the same strategy in every seat); every "
                   "rate counts a distinct game once." + _link(ctx, "Win rates"))
    for line in (_strongest(ctx, p), _seats(ctx, p), *_tickets(ctx, p), _routes(ctx, p), _passengers(ctx, p),
                 _ticket_draws(ctx, p)):
        if line:
            out.append(line)
    return out


def _across_styles(ctx: Context) -> list[str]:
    """Over the points of a ``styles:`` experiment (with no other sweep key, or
    per value of the others): whether the strongest strategy is the same in
    every style, and whether a seat advantage is detected in every style, in
    none, or in some (each style's own Holm-adjusted tests, as in its point's lines)."""
    if "style" not in ctx.sweep:
        return []
    out = []
    others = [k for k in ctx.sweep if k != "style"]
    for _, group in ctx.points.group_by(others or [pl.lit(0).alias("_")], maintain_order=True):
        where = "".join(f", {k.split('.')[-1]}={group[k][0]}" for k in others)
        styles = dict(zip(group["style"], group["point"]))
        best = {s: _told_apart(_rows(ctx, "player_win_rates", p)) for s, p in styles.items()}
        if None not in best.values() and len(set(best.values())) == 1:
            out.append(f"**In every style** ({', '.join(styles)}{where}) the strongest strategy is "
                       f"`{next(iter(best.values()))}` (each style's margins, Holm-adjusted).")
        else:
            each = "; ".join(f"{s}: " + (f"`{b}`" if b else "none told apart") for s, b in best.items())
            out.append(f"**The strongest strategy depends on the style** ({each}{where}).")
        seats = {s: _rows(ctx, "seat_advantage", p) for s, p in styles.items()}
        if not _fixed_seating(ctx) and any(seats.values()):
            some = [s for s, rows in seats.items() if any(_detected(r["p_holm"]) for r in rows)]
            text = ("detected in every style" if len(some) == len(seats) else "detected in no style" if not some
                    else f"detected in {', '.join(some)} only")
            out.append(f"**Seat advantage across styles{where}**: {text} (each seat against the fair share, "
                       "Holm-adjusted over the seats).")
    return out


def _told_apart(pooled: list[dict]) -> str | None:
    """The first player of pooled win-rate rows (highest first) when its margin over
    every other survives Holm's correction."""
    if len(pooled) < 2 or not all(_detected(r["behind_p_holm"]) for r in pooled[1:]):
        return None
    return pooled[0]["player"]


def _detected(p_holm) -> bool:
    return p_holm is not None and p_holm < ALPHA


def _picked(m: int, nouns: str) -> str:
    """How a "most" was picked: e.g. 'picked from 30 tickets'."""
    return f"picked from {m} {nouns}"


def _adjusted(p: float | None, at_most: bool = False, what: str = "adjusted") -> str:
    """'adjusted p = 0.03', 'adjusted p < 0.001'; ``at_most``: 'adjusted p at most 0.03'."""
    if p is None:
        return "no p-value: a single seed block"
    if p < 0.001:
        return f"{what} p < 0.001"
    return f"{what} p {'at most' if at_most else '='} " + (f"{p:.3f}" if p < 0.01 else f"{p:.2f}")


def _one_player(ctx: Context, p: int) -> bool:
    return len(set(player_keys(ctx.res, p))) == 1


def _fixed_seating(ctx: Context) -> bool:
    return ctx.res.manifest["config"].get("seating") == "fixed"


def _strongest(ctx: Context, p: int) -> str | None:
    if _one_player(ctx, p):
        return ("**One strategy in every seat**: this experiment compares seats, not strategies"
                + _link(ctx, "Seat advantage") + ".")
    win = [dict(r, strategy=r["player"]) for r in _rows(ctx, "player_win_rates", p)]
    if len(win) < 2:
        return None
    a, b = win[0], win[1]
    rate = lambda r: f"{pct(r['win_rate'])} {interval(r['low'], r['high'])}"  # noqa: E731
    family = _picked(len(win), "strategies")
    caveat = " (seating `fixed`: each rate includes its seat's advantage)" if _fixed_seating(ctx) else ""
    margin = f"{signed(100 * b['behind'], 1)} pp " + (
        f"[{signed(100 * b['behind_low'], 1)}, {signed(100 * b['behind_high'], 1)}]"
        if b["behind_low"] is not None else "(no interval)")
    close = [r for r in win[1:] if not _detected(r["behind_p_holm"])]
    if not close:
        worst = _adjusted(max(r["behind_p_holm"] for r in win[1:]), True, "Holm-adjusted")
        text = (f"**Strongest strategy: `{a['strategy']}`**, winning {rate(a)} of its games against {rate(b)} for "
                f"`{b['strategy']}`, the next best: a margin of {margin} ({family}; {worst} against each of the "
                f"{len(win) - 1} others){caveat}")
    else:
        names = ", ".join(f"`{r['strategy']}`" for r in close)
        text = (f"**`{a['strategy']}` is not told apart from {names}**" if len(close) > 1 else
                f"**`{a['strategy']}` and `{b['strategy']}` are not told apart**")
        text += (f": {rate(a)} against {rate(b)} for `{b['strategy']}`, a margin of {margin} ({family}; "
                 f"{_adjusted(b['behind_p_holm'], what='Holm-adjusted')}){caveat}")
    text += "".join(f"; `{r['player']}` pools {r['seats']} labels ({r['labels']})" for r in win if r["seats"] > 1)
    h2h = next((r for r in _rows(ctx, "player_head_to_head", p) if r["player"] == a["strategy"]
                and r["opponent"] == b["strategy"]), None)
    if h2h is not None and (h2h["low"] > 0.5 or h2h["high"] < 0.5):
        text += (f"; `{a['strategy']}` finishes ahead of `{b['strategy']}` in {pct(h2h['ahead_rate'])} "
                 f"{interval(h2h['low'], h2h['high'])} of their meetings at a table")
    return text + "." + _link(ctx, "Win rates")


def _seats(ctx: Context, p: int) -> str | None:
    seats = _rows(ctx, "seat_advantage", p)
    if not seats:
        return None
    link = _link(ctx, "Seat advantage")
    if _fixed_seating(ctx) and not _one_player(ctx, p):
        return ("**Seat advantage not measured**: with seating `fixed` each strategy keeps its seat, so seat and "
                "strategy effects are confounded." + link)
    fair = seats[0]["fair"]
    family = _picked(len(seats), "seats") + "; Holm-adjusted"
    first = seats[0]

    def rate(r):
        return f"{pct(r['win_rate'])} {interval(r['low'], r['high'])}"

    def judged(r):
        return _adjusted(r["p_holm"]) + ("" if _detected(r["p_holm"]) else ": not detectably different")
    if not any(_detected(r["p_holm"]) for r in seats):
        return (f"**No seat advantage detected** ({family}): no seat's win rate differs detectably from the fair "
                f"{pct(fair)} (seat 1, which plays first: {rate(first)}, {_adjusted(first['p_holm'])})." + link)
    best = max(seats, key=lambda r: r["win_rate"])
    worst = min(seats, key=lambda r: r["win_rate"])
    text = (f"**Seat advantage** ({family}): seat 1 (plays first) wins {rate(first)} against a fair {pct(fair)} "
            f"({judged(first)})")
    if best is not first:
        text += f"; seat {best['seat']} wins most, {rate(best)} ({judged(best)})"
    text += f"; seat {worst['seat']} wins least, {rate(worst)} ({judged(worst)})"
    return text + "." + link


SELECTION = ("an association, which selection drives: a seat keeps a ticket its deal fits, and such a seat may "
             "win anyway, so it is not the ticket's causal value; an intervention study measures that "
             "(`intervene:` in an experiment file, e.g. `study_ticket_values_usa4.yaml`)")


def _tickets(ctx: Context, p: int) -> list[str]:
    tested = [r for r in _rows(ctx, "ticket_value", p) if r.get("lift_p_holm") is not None]
    if not tested:
        return []
    link = _link(ctx, "Tickets")
    family = _picked(len(tested), "tickets") + "; Holm-adjusted"
    up = [r for r in tested if _detected(r["lift_p_holm"]) and r["lift"] > 0]
    down = [r for r in tested if _detected(r["lift_p_holm"]) and r["lift"] < 0]

    def say(r):
        return (f"**{r['from']} - {r['to']}** ({r['points']} points), {signed(100 * r['lift'])} pp "
                f"[{signed(100 * r['lift_low'])}, {signed(100 * r['lift_high'])}] (kept {num(r['kept'], 0)} times, "
                f"completed {pct(r['completion_rate'], 0)}, {_adjusted(r['lift_p_holm'])})")
    if not up and not down:
        top = max(tested, key=lambda r: abs(r["lift"]))
        return [f"**No ticket stands out** ({family}): no ticket's keepers win detectably more or less than their "
                f"usual rate (the largest lift, {top['from']} - {top['to']}, {signed(100 * top['lift'])} pp, has "
                f"an {_adjusted(top['lift_p_holm'])})." + link]
    said = []
    if up:
        said.append("most above, " + say(max(up, key=lambda r: r["lift"])))
    if down:
        said.append("most below, " + say(min(down, key=lambda r: r["lift"])))
    return [f"**Tickets whose keepers win more or less than their usual rate** ({family}; "
            f"{len(up) + len(down)} of {len(tested)} differ): " + "; ".join(said) + f". This is {SELECTION}."
            + link]


def _routes(ctx: Context, p: int) -> str | None:
    link = _link(ctx, "Route claims")
    if not ctx.res.has_turns:
        return "**Route claims not measured**: they need the turn log (`log: true`)." + link
    pairs = _rows(ctx, "route_pairs", p)
    if not pairs:
        return None
    top = sorted(pairs, key=lambda r: -r["claim_rate"])[:3]
    text = (f"**Most claimed routes** (the highest claim rates of {len(pairs)} city pairs, a description: claimed, "
            "not necessarily contested): " + ", ".join(
                f"{_pair(r)} claimed in {pct(r['claim_rate'], 0)} of games (first claim: median round "
                f"{num(r['median_round'], 0)})" for r in top))
    multi = [r for r in pairs if r.get("multi_rate") is not None]
    if multi:
        m = max(multi, key=lambda r: r["multi_rate"])
        text += (f"; of the double and triple routes, {_pair(m)} most often has 2+ tracks taken "
                 f"({pct(m['multi_rate'], 0)})")
    return text + "." + link


def _pair(r: dict) -> str:
    n = int(r["length"])
    return f"{r['from']} - {r['to']} ({n} train{'s' if n != 1 else ''})"


def _passengers(ctx: Context, p: int) -> str | None:
    dec = _rows(ctx, "passenger_decisive", p)
    if not dec:
        return None
    d = dec[0]
    pts = _rows(ctx, "passenger_points", p)
    text = (f"**Passenger majorities** changed who won in {pct(d['share'])} of games ({num(d['changed'], 0)} of "
            f"{num(d['games'], 0)}: the winners differ once everyone's passenger points are taken off)")
    if pts:
        text += (f"; `{pts[0]['strategy']}` scores most from them: {num(pts[0]['mean_passenger_points'], 1)} "
                 f"points a game, {pct(pts[0]['share_of_total'], 0)} of its score")
    return text + "." + _link(ctx, "Passengers")


def _ticket_draws(ctx: Context, p: int) -> str | None:
    prof = [r for r in _rows(ctx, "strategy_profile", p) if r["measure"] == "ticket_draws"]
    if not prof:
        return None
    return ("**Ticket draws during the game**, per player and game: "
            + ", ".join(f"`{r['strategy']}` {num(r['mean'], 2)}" for r in prof) + "."
            + _link(ctx, "How each strategy plays"))
