"""Statistics of an intervention study (an experiment with ``intervene:``):
the paired effects of every arm against the control on the same deals
(:mod:`ttrsim.results.effects`), shaped for the report.

These are **effects**: each arm changes one thing and plays the control's
deals, seatings and strategy streams, so a difference is caused by the change.

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4, "seed": 1,
...                        "intervene": {"offer_ticket": ["Boston-Miami"], "seat": 0},
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> from ttrsim.report import Results
>>> ticket_offers(Results.open(path)).select("arm", "points", "kept").rows()
[('offer Boston-Miami', 12, 1.0)]
>>> tmp.cleanup()
"""
from __future__ import annotations

import polars as pl

from ttrsim.results.effects import OFFERED, WIDE, intervention, offer_uptake, paired_effects, wide_effects

from .dataset import Results

__all__ = ["has_intervention", "intervention_effects", "ticket_offers"]

def has_intervention(res: Results) -> bool:
    return intervention(Results.open(res)) is not None


def intervention_effects(res: Results) -> pl.DataFrame:
    """One row per arm and unit (the offered seat, each seat ``seat k``, each
    strategy label): point, arm, unit, games, blocks, then per measure (win,
    score, tickets) its effect, low, high and p_holm (Holm over the arms, per
    unit and measure; :func:`ttrsim.results.effects.wide_effects`)."""
    wide = wide_effects(paired_effects(Results.open(res)))
    return wide.select("point", "arm", "unit", "games", "blocks", *[f"{name}_{c}" for name in WIDE.values()
                                                                     for c in ("effect", "low", "high", "p_holm")])


def ticket_offers(res: Results) -> pl.DataFrame:
    """An ``offer_ticket`` study, one row per ticket offered: arm, ticket (id),
    points (printed), kept and completed (shares of the arm's games: how often
    the offered seat kept it and completed it), control_kept (how often the
    seat had and kept it anyway in the control), then the offered seat's
    effects (:func:`intervention_effects`). Empty for other folders."""
    res = Results.open(res)
    iv = intervention(res)
    if iv is None or iv.get("kind") != "offer_ticket":
        return pl.DataFrame()
    up = offer_uptake(res).select("arm", "ticket", "points", "kept", "completed", "control_kept")
    eff = intervention_effects(res).filter(pl.col("unit") == OFFERED).drop("unit")
    return up.join(eff, on="arm").sort("point")
