"""The rule tune's method: a sequential search over one integer rule
parameter for the value where a balance target holds (``docs/tune.md``
"The method" of "Tuning a rule to a balance target").

*The measure.* At a candidate value the lineup plays seed blocks (one deal
played once per rotation of the seats). Per block the target's quantity
``q`` (:data:`~ttrsim.tune.rule_config.TARGETS`: a difference of two win
rates, a win rate, the first seat's advantage) is the mean over the block's
games; its estimate is the mean over blocks with a 95% normal interval over
blocks, as the paired sweep effects of the report. Every value plays the same
seed blocks (the tune seed): common random numbers, so two values' estimates
share the luck of the deals.

*Sequential stopping.* A value is looked at after ``min_games``, then at
double the games each time, up to ``max_games`` (:func:`schedule`). It stops
at the first look whose 95% interval lies within ``target +- tolerance``
(met), or whose interval widened for the number of looks (:func:`side_z`)
excludes the target (above or below: its side is known), else at
``max_games`` (undecided: its side is the estimate's).

*The search.* Both ends of the range first; when the estimates lie on the
same side of the target, no value in the range reaches it and the closest
one is reported. Otherwise the range brackets the target and each next value
is the linear interpolation of the bracket's estimates (regula falsi), kept
in the middle half of the bracket (:func:`next_value`), until a value meets
the target, the bracket holds no value between its ends, or the budget cannot
pay a first look.

:class:`RuleSearch` runs the method over an ``evaluate(value, games)``
function, so it can be driven by a planted response (the tests) as well as by
games (:mod:`ttrsim.tune.rule_run`). With ``refit``, ``prepare(value)``
re-fits the entrants before a value's first look and returns its games and
record; a value is started only when the budget can pay ``refit_budget`` and
a first look. Every decision depends only on the looks, and every look only
on the tune's config: the same tune gives the same trace.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import polars as pl

from ttrsim.data.rules import get_rules
from ttrsim.results.reader import Results
from ttrsim.results.stats import Z95

from .rule_config import RuleTuneConfig

# why the search stopped (tune.json's ``stopped``)
MET = "met"
ONE_SIDE = "no value in the range reaches the target: its estimate is on one side of it at both ends"
ADJACENT = "the target lies between two adjacent values and neither meets it"
BUDGET = "budget"


@dataclass(frozen=True)
class Look:
    """The target's quantity at one value over its first ``games`` games:
    the estimate and its 95% interval over seed blocks."""
    games: int
    estimate: float
    low: float
    high: float

    def to_json(self) -> dict:
        return {"games": self.games, "estimate": round(self.estimate, 6), "low": round(self.low, 6),
                "high": round(self.high, 6)}


def look_of(q: np.ndarray, players: int) -> Look:
    """The :class:`Look` of the per-block quantities ``q`` (blocks of ``players`` games)."""
    nb = len(q)
    m = float(np.mean(q))
    half = Z95 * float(np.std(q, ddof=1)) / math.sqrt(nb) if nb > 1 else math.inf
    return Look(games=nb * players, estimate=m, low=m - half, high=m + half)


def block_quantity(path, cfg: RuleTuneConfig, value: int, blocks: int) -> np.ndarray:
    """The target's quantity per seed block (the first ``blocks``) of the results folder ``path``."""
    kind, labels, _ = cfg.target
    rows = Results.open(path).scan("players").filter(pl.col("block") < blocks)
    if kind == "seat_advantage":
        first = get_rules(cfg.rules, {**cfg.rule_overrides, cfg.param: value}).first_seat % cfg.players
        parts = [rows.filter(pl.col("seat") == first)]
    else:
        parts = [rows.filter(pl.col("strategy").cast(pl.String) == label) for label in labels]
    means = [p.group_by("block").agg(pl.col("win_share").cast(pl.Float64).mean().alias("x")).sort("block")
             .collect()["x"].to_numpy() for p in parts]
    if kind == "equal":
        return means[0] - means[1]
    return means[0] - 1 / cfg.players if kind == "seat_advantage" else means[0]


def schedule(cfg: RuleTuneConfig) -> list[int]:
    """The games of a value's looks: ``min_games``, doubled each time, up to ``max_games``."""
    out = [cfg.min_games]
    while out[-1] < cfg.max_games:
        out.append(min(2 * out[-1], cfg.max_games))
    return out


def side_z(cfg: RuleTuneConfig) -> float:
    """The normal quantile of a side decision: the two-sided 5% shared by the
    schedule's looks (Bonferroni), so that a value whose quantity is on the
    goal is sent to one side at most 5% of the time over all its looks (at
    95% per look, 8 looks would do it about 25% of the time).

    >>> from ttrsim.tune import load_tune
    >>> cfg = load_tune({"name": "t", "players": 2, "lineup": ["planner", "long_route"], "budget": 200_000,
    ...                  "fit_rules": {"globetrotter_points": [0, 40]}, "target": {"seat_advantage": 0},
    ...                  "min_games": 400, "max_games": 51_200})
    >>> len(schedule(cfg)), round(side_z(cfg), 3)
    (8, 2.734)
    """
    return NormalDist().inv_cdf(1 - 0.025 / len(schedule(cfg)))


def verdict(look: Look, goal: float, tolerance: float, z: float = Z95) -> str | None:
    """``met`` (the 95% interval within ``goal +- tolerance``), ``above`` /
    ``below`` (the interval at ``z`` excludes the goal), None (play more)."""
    if goal - tolerance <= look.low and look.high <= goal + tolerance:
        return "met"
    half = (look.high - look.low) / 2 * z / Z95
    if look.estimate - half > goal:
        return "above"
    if look.estimate + half < goal:
        return "below"
    return None


def next_value(a: int, da: float, b: int, db: float) -> int:
    """The next value inside the bracket ``a < b`` whose estimates minus the goal
    are ``da`` and ``db`` (opposite signs): the linear interpolation's root,
    kept in the middle half of the bracket (a noisy estimate cannot pin it to
    an end; the bracket shrinks by a quarter at least), rounded.

    >>> next_value(0, -4.0, 80, 2.0), next_value(0, -0.1, 80, 9.9), next_value(3, 1.0, 5, -1.0)
    (53, 20, 4)
    """
    x = a + (b - a) * da / (da - db) if da != db else (a + b) / 2
    quarter = (b - a) / 4
    x = min(max(x, a + quarter), b - quarter)
    return min(max(math.floor(x + 0.5), a + 1), b - 1)


class RuleSearch:
    """The search over ``evaluate(value, games) -> Look`` (the first ``games``
    games at ``value``: an evaluation grows). ``evaluations`` is the record's
    list, one entry per value in the order evaluated, with every look;
    ``on_look(entry)`` is called after each look; ``prepare(value) ->
    (games, refit record)`` before a value's first (with ``cfg.refit``).
    :meth:`run` returns ``(chosen entry, why it stopped)``."""

    def __init__(self, cfg: RuleTuneConfig, evaluate, on_look=lambda entry: None, evaluations=None, prepare=None):
        self.cfg, self.evaluate, self.on_look, self.prepare = cfg, evaluate, on_look, prepare
        self.goal, self.z = cfg.target[2], side_z(cfg)
        self.evaluations = [] if evaluations is None else evaluations
        self.games = 0

    def side(self, entry: dict) -> int:
        return 1 if entry["estimate"] > self.goal else -1

    def measure(self, value: int) -> dict | None:
        """Look at ``value`` until it is decided, at ``max_games`` or at the end of
        the budget; None when the budget cannot pay its first look."""
        cfg, played = self.cfg, 0
        if cfg.budget - self.games < cfg.refit_budget + cfg.min_games:
            return None
        entry = {"value": value}
        if cfg.refit:
            spent, entry["refit"] = self.prepare(value)
            self.games += spent
        entry.update(looks=[], verdict=None)
        for games in schedule(cfg):
            games = min(games, played + (cfg.budget - self.games) // cfg.block_size * cfg.block_size)
            if games < cfg.min_games or games <= played:
                break
            look = self.evaluate(value, games)
            self.games += games - played
            played = games
            decided = verdict(look, self.goal, cfg.tolerance, self.z)
            if not entry["looks"]:
                self.evaluations.append(entry)
            entry.update(look.to_json(), verdict=decided or ("undecided" if games >= cfg.max_games else "more"))
            entry["looks"].append({**look.to_json(), "verdict": entry["verdict"]})
            self.on_look(entry)
            if decided:
                break
        if not entry["looks"]:
            return None
        if entry["verdict"] == "more":          # the budget ran out before a verdict
            entry["verdict"] = entry["looks"][-1]["verdict"] = "undecided"
        return entry

    def run(self) -> tuple[dict, str]:
        a, b = self.cfg.low, self.cfg.high
        ends = []
        for value in (a, b):
            e = self.measure(value)
            if e is None or e["verdict"] == "met":
                return (self.closest(), BUDGET) if e is None else (e, MET)
            ends.append(e)
        ea, eb = ends
        if self.side(ea) == self.side(eb):
            return self.closest(), ONE_SIDE
        while b - a > 1:
            x = next_value(a, ea["estimate"] - self.goal, b, eb["estimate"] - self.goal)
            ex = self.measure(x)
            if ex is None or ex["verdict"] == "met":
                return (self.closest(), BUDGET) if ex is None else (ex, MET)
            if self.side(ex) == self.side(ea):
                a, ea = x, ex
            else:
                b, eb = x, ex
        return self.closest(), ADJACENT

    def closest(self) -> dict:
        """The value whose estimate is nearest the goal (ties: the first evaluated)."""
        return min(self.evaluations, key=lambda e: abs(e["estimate"] - self.goal))
