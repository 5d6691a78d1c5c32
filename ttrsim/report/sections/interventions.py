"""The report's intervention part: what was changed and on which deals, the
effects of every arm, and for a ticket study each ticket's causal value (the
statistics of ``ttrsim.report.interventions``)."""
from __future__ import annotations

import polars as pl

from ttrsim.results.effects import OFFERED, intervention

from .. import charts
from ..blocks import make_table, num, pct, signed
from ..context import Context
from ..interventions import has_intervention
from .sweeps import effect_span

__all__ = ["shown", "overview", "effects", "ticket_values", "finding_line"]


def shown(ctx: Context) -> bool:
    return has_intervention(ctx.res)


def _change(iv: dict) -> str:
    if iv["kind"] == "offer_ticket":
        return (f"one ticket offered at setup to seat {iv['seat'] + 1} in place of one of its dealt tickets"
                + (" and kept by force" if iv["kept"] else " (the seat still chooses what to keep)") + " (R9.1)")
    if iv["kind"] == "remove_route":
        return "one route removed from the board (R9.2)"
    if iv["kind"] == "change_route":
        return "one route printed at another length or colour (R9.3)"
    return f"`{iv['key']}` set to another value"


def _adj(r: dict, name: str) -> str:
    p = r[f"{name}_p_holm"]
    return "-" if p is None or p != p else "< 0.001" if p < 0.001 else f"{p:.3f}"


def overview(ctx: Context, t: dict):
    iv = intervention(ctx.res)
    arms = [a for a in iv["arms"] if a != "control"]
    eff = t.get("intervention_effects")
    blocks = int(eff["blocks"].max()) if eff is not None and eff.height else 0
    ctx.doc.p(f"This experiment is an **intervention study**: {len(arms)} arm{'s' * (len(arms) > 1)}, each with "
              f"{_change(iv)}, against the unchanged arm `control`. Every arm plays the control's deals "
              f"({num(blocks, 0)} seed blocks), seatings and strategy streams (common random numbers), so game n "
              "of an arm and game n of the control differ only through the change and what the players do "
              "about it. The numbers below are **effects** of the change (paired differences, arm minus "
              "control, averaged over the deals, with a 95% interval over the seed blocks), not associations. "
              + (f"Where one arm is picked among several, its p-value is Holm-adjusted over the {len(arms)} arms."
                 if len(arms) > 1 else ""))


def effects(ctx: Context, t: dict):
    eff = ctx.tables.get("intervention_effects")
    if eff is None:
        return ctx.failed("intervention_effects")
    iv = intervention(ctx.res)
    keep = [OFFERED] if iv.get("seat") is not None else \
        [u for u in eff["unit"].unique(maintain_order=True).to_list() if u != OFFERED]
    rows = eff.filter(pl.col("unit").is_in(keep))
    ctx.doc.p("Per arm and " + ("the offered seat" if keep == [OFFERED] else "seat and strategy") +
              ": the change of the win share (percentage points), of the final score and of the tickets "
              "completed, against the control on the same deals.")
    columns = [("arm", lambda r: str(r["arm"]), False), ("unit", lambda r: str(r["unit"]), False),
               ("games", lambda r: num(r["games"], 0), True),
               ("win share", lambda r: f"{signed(100 * r['win_effect'], 1)} pp", True),
               ("95% interval", lambda r: effect_span(r, "win", 100), True),
               ("adjusted p", lambda r: _adj(r, "win"), True),
               ("score", lambda r: f"{signed(r['score_effect'], 2)} {effect_span(r, 'score', 1)}", True),
               ("tickets completed", lambda r: signed(r["tickets_effect"], 2), True)]
    ctx.doc.table(make_table(rows, columns, max_rows=80, csv=ctx.csv("intervention_effects"),
                             sort_note=", in arm order"))


def ticket_values(ctx: Context, t: dict):
    tv = t["ticket_offers"]
    if tv is None:
        return ctx.failed("ticket_offers")
    if not tv.height:
        return ctx.doc.p("No ticket is offered in this study (a ticket's causal value needs `intervene: "
                         "{offer_ticket: ...}`).")
    ctx.doc.p("Each ticket's **causal value**: what offering it to the seat (in place of one of the tickets it "
              "was dealt) changes in that seat's score and win share, on the same deals. A ticket whose printed "
              "points price it like the rest of the deck changes nothing on average (effect 0): a positive "
              "effect means its points are generous for what it costs to complete, a negative one that they "
              "are stingy. *Kept* and *completed*: how often the seat kept it and completed it in its arm.")
    line = ticket_line(tv)
    if line:
        ctx.doc.p(line)
    columns = [("ticket", lambda r: str(r["arm"]).split(" ", 1)[1], False),
               ("points", lambda r: num(r["points"], 0), True),
               ("kept", lambda r: pct(r["kept"], 0), True), ("completed", lambda r: pct(r["completed"], 0), True),
               ("score effect", lambda r: signed(r["score_effect"], 2), True),
               ("95% interval", lambda r: effect_span(r, "score", 1), True),
               ("adjusted p", lambda r: _adj(r, "score"), True),
               ("win share", lambda r: f"{signed(100 * r['win_effect'], 1)} pp {effect_span(r, 'win', 100)}", True)]
    ctx.doc.table(make_table(tv.sort("points", "arm"), columns, max_rows=80, csv=ctx.csv("ticket_offers"),
                             sort_note=", by points"))
    ctx.chart("ticket_causal_value", charts.tickets.causal_value(tv),
              ctx.caption("Causal value of each ticket against its printed points (score effect of offering it, "
                          "95% interval)", None))


def ticket_line(tv: pl.DataFrame) -> str | None:
    """The tickets whose causal value differs from 0 after Holm over every ticket, or that none does."""
    if tv is None or not tv.height:
        return None
    n = tv.height
    tickets = f"{n} ticket{'s' * (n > 1)} offered"
    sig = tv.filter(pl.col("score_p_holm") < 0.05).sort("score_effect", descending=True)
    if not sig.height:
        return (f"**No ticket stands out**: no ticket's causal value differs from 0 after Holm's correction over "
                f"the {tickets} (5%).")
    names = ", ".join(f"{r['arm'].split(' ', 1)[1]} ({signed(r['score_effect'], 1)} points)"
                      for r in sig.iter_rows(named=True))
    return (f"**Tickets priced off their value** ({sig.height} of the {tickets}, Holm-adjusted p < 0.05 over all "
            f"{n}): {names}.")


def finding_line(ctx: Context) -> str | None:
    """The key finding of an intervention study."""
    if not shown(ctx):
        return None
    line = ticket_line(ctx.tables.get("ticket_offers"))
    if line:
        return line
    eff = ctx.tables.get("intervention_effects")
    if eff is None or not eff.height:
        return None
    eff = eff.filter(pl.col("unit").str.starts_with("seat ") | (pl.col("unit") == OFFERED))
    n = eff["arm"].n_unique()
    sig = eff.filter(pl.col("win_p_holm") < 0.05)
    if not sig.height:
        return (f"**No arm changes a seat's win rate detectably**: no effect survives Holm's correction over the "
                f"{n} arm{'s' * (n > 1)} (5%).")
    r = sig.sort(pl.col("win_effect").abs(), descending=True).row(0, named=True)
    return (f"**Largest effect of the intervention**: `{r['arm']}` changes {r['unit']}'s win rate by "
            f"{signed(100 * r['win_effect'], 1)} pp {effect_span(r, 'win', 100)} on the same deals (Holm-adjusted p "
            f"{_adj(r, 'win')} over {n} arm{'s' * (n > 1)}).")
