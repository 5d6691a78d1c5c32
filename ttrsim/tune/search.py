"""The tune's method: best-response stages of successive halving over
candidate parameter sets, each evaluation a normal results folder.

A *stage* draws candidates around the incumbent (:func:`candidates`) and
plays each as ONE seat against ``players - 1`` seats of the incumbent, seat-
rotated (an experiment with ``seating: rotate``: the candidate sits in every
seat of every deal). Every candidate of a stage plays the same deals (the
stage's experiment seed: common random numbers). Successive halving: every
candidate gets a few seed blocks, the better half (by mean win share) is kept
and its folders are grown to more games (the same experiment run again with
more ``games``: the earlier games unchanged), until one is left. It replaces
the incumbent when the lower end of its 95% interval over seed blocks
(:func:`ttrsim.results.stats.block_interval`) is above the fair share
``1/players`` plus the margin; a stage that finds none ends the tune (the
incumbent is stable), and so does the budget or the last stage.

Everything here depends only on the tune's config and the games, and every
game only on its experiment's seed and number: the same tune gives the same
trace whatever the workers, and a resumed tune replays its decisions over the
folders already played (:func:`ttrsim.experiment.runner.run_experiment` finds
them complete, or finishes them).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from ttrsim.experiment.seating import block_seed
from ttrsim.results.reader import Results
from ttrsim.results.stats import block_interval

from .config import MIN_BLOCKS, TuneConfig, _rounds

SIGMA = 0.2             # perturbation scale in range-normalised space (a range is 1), at stage 1
SIGMA_DECAY = 0.75      # ... times this at every later stage
UNIFORM_SHARE = 4       # one candidate in this many is a uniform sample of the ranges (at least one)


def stage_seed(cfg: TuneConfig, stage: int) -> int:
    """The experiment seed of stage ``stage`` (1, 2, ...); 0 is the final head-to-head's."""
    return block_seed(cfg.seed, stage)


def value_of(cfg: TuneConfig, name: str, x: float):
    """The parameter value at normalised position ``x`` in [0, 1] (an integer range stays integers)."""
    _, lo, hi, integer = next(f for f in cfg.fit if f[0] == name)
    v = lo + min(max(x, 0.0), 1.0) * (hi - lo)
    return int(round(v)) if integer else round(float(v), 6)


def position(cfg: TuneConfig, params: dict) -> np.ndarray:
    return np.array([(params[n] - lo) / (hi - lo) for n, lo, hi, _ in cfg.fit], np.float64)


def candidates(cfg: TuneConfig, stage: int, incumbent: dict) -> list[dict]:
    """The challengers of ``stage``: perturbations of the incumbent (normal, in
    range-normalised space, clipped to the ranges) and a few uniform samples,
    from an RNG seeded by (tune seed, stage); each distinct and none equal to
    the incumbent (fewer when a small integer range has no more). Each is
    ``{"id": "c01", "kind": "perturb"|"uniform", "params": {...}}``."""
    rng = np.random.default_rng([cfg.seed, stage, 31])
    n = cfg.candidates
    n_uniform = max(1, n // UNIFORM_SHARE) if n > 1 else 0
    sigma = SIGMA * SIGMA_DECAY ** (stage - 1)
    x0 = position(cfg, incumbent)
    seen = {tuple(incumbent[f[0]] for f in cfg.fit)}
    out = []
    for _attempt in range(50 * n):
        if len(out) == n:
            break
        uniform = len(out) >= n - n_uniform
        x = rng.uniform(0, 1, len(x0)) if uniform else x0 + rng.normal(0, sigma, len(x0))
        params = {f[0]: value_of(cfg, f[0], xi) for f, xi in zip(cfg.fit, x)}
        key = tuple(params.values())
        if key in seen:
            continue
        seen.add(key)
        out.append({"id": f"c{len(out) + 1:02d}", "kind": "uniform" if uniform else "perturb", "params": params})
    return out


# a style measure (ttrsim.tune.config.STYLE_MEASURES) as an expression over the players table
_MEASURES = {
    "tickets_kept": pl.col("tickets_completed").cast(pl.Float64) + pl.col("tickets_failed").cast(pl.Float64),
    "tickets_completed": pl.col("tickets_completed").cast(pl.Float64),
    "tickets_failed": pl.col("tickets_failed").cast(pl.Float64),
    "longest_path": pl.col("longest_path").cast(pl.Float64),
    "route_points": pl.col("routes").cast(pl.Float64),
}


@dataclass
class Score:
    """A candidate's win share over its games, with the 95% interval over seed
    blocks, and its style measures (mean per game; only in a tune with a style)."""
    games: int
    win_share: float
    low: float
    high: float
    style: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        out = {"games": self.games, "win_share": round(self.win_share, 6), "low": round(self.low, 6),
               "high": round(self.high, 6)}
        if self.style:
            out["style"] = {m: round(v, 4) for m, v in self.style.items()}
        return out


def in_style(cfg: TuneConfig, measures: dict) -> bool:
    """Whether style measures (mean per game) lie inside the tune's style bounds (True without a style)."""
    return all((lo is None or measures[m] >= lo) and (hi is None or measures[m] <= hi) for m, lo, hi in cfg.style)


def _seats(res: Results, labels, blocks: int):
    return res.scan("players").filter(pl.col("strategy").cast(pl.String).is_in(list(labels))
                                      & (pl.col("block") < blocks))


def score(path, label: str, blocks: int, style=()) -> Score:
    """The win share of entrant ``label`` over the first ``blocks`` seed
    blocks of the results folder ``path``: per block its summed win shares
    over its games (the rotations of one deal), the ratio over blocks and its
    block interval; with ``style`` (measure names), its mean of each."""
    res = Results.open(path)
    sums = (_seats(res, [label], blocks)
            .group_by("block").agg(pl.col("win_share").cast(pl.Float64).sum().alias("w"),
                                   pl.len().cast(pl.Float64).alias("n"))
            .sort("block").collect())
    w, n = sums["w"].to_numpy()[:, None], sums["n"].to_numpy()[:, None]
    lo, hi = block_interval(w, n)
    return Score(games=int(n.sum()), win_share=float(w.sum() / n.sum()), low=float(lo[0]), high=float(hi[0]),
                 style=style_measures(res, [label], blocks, style))


def style_measures(res: Results, labels, blocks: int, style) -> dict:
    """The mean per game of each style measure over the seats of ``labels`` in the first ``blocks`` blocks."""
    if not style:
        return {}
    row = _seats(res, labels, blocks).select([_MEASURES[m].mean().alias(m) for m in style]).collect().row(0)
    return dict(zip(style, row))


@dataclass
class Plan:
    """The budget of one stage: games per candidate after each round of halving."""
    rounds: list = field(default_factory=list)     # [(survivors, games per survivor after the round)]

    @property
    def games(self) -> int:
        total, before = 0, 0
        for n, g in self.rounds:
            total += n * (g - before)
            before = g
        return total


def stage_plan(cfg: TuneConfig, n: int, budget: int) -> Plan | None:
    """Successive halving of ``n`` candidates in ``budget`` games: ``R`` rounds
    (halving to one), each with an equal share of the budget split over its
    survivors, in whole seed blocks (at least :data:`MIN_BLOCKS` in the first
    round, one later). None when the budget cannot pay the first round."""
    P, R = cfg.block_size, _rounds(n)
    plan, alive, games = Plan(), n, 0
    for r in range(R):
        blocks = max(MIN_BLOCKS if r == 0 else 1, budget // R // (alive * P))
        games += blocks * P
        plan.rounds.append((alive, games))
        alive = math.ceil(alive / 2)
    if plan.games > budget:
        return None
    return plan
