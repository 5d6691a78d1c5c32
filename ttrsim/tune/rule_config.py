"""Rule tune files: one integer rule parameter searched for a balance target
(``docs/tune.md`` "Tuning a rule to a balance target"), checked into a
frozen :class:`RuleTuneConfig`.

A tune file with ``fit_rules`` (or ``target``) is a rule tune: a lineup plays
seat-rotated at every candidate value of the parameter, and the search looks
for a value where the target (two labels' win rates equal, a label's win rate,
the first seat's advantage) holds within ``tolerance``. Every problem is one
line naming the file and the field, as in strategy tunes::

    tune.yaml: target.equal: 'planner_tikets' is not a label of the lineup; did you mean 'planner_tickets'?

>>> c = load_tune({"name": "t", "players": 2, "lineup": ["planner", "long_route"], "budget": 4000,
...                "fit_rules": {"globetrotter_points": [0, 40]}, "target": {"equal": ["planner", "long_route"]}})
>>> c.param, c.low, c.high, c.target, c.min_games, c.max_games
('globetrotter_points', 0, 40, ('equal', ('planner', 'long_route'), 0.0), 400, 1000)
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, replace
from pathlib import Path

from ttrsim.data.checks import did_you_mean, is_int, is_number, kind
from ttrsim.data.rules import PARAM_BY_NAME
from ttrsim.experiment.refit import entries

from .config import KEYS, MIN_BLOCKS, _TuneValidator, load_tune
from .refit import RefitValidator, checked_entry, fit_tune

__all__ = ["RuleTuneConfig", "RULE_KEYS", "TARGETS", "load_tune"]

# every key of a rule tune file (docs/tune.md "Rule tune keys" has the long form)
RULE_KEYS = {
    **{k: KEYS[k] for k in ("name", "description", "rules", "rule_overrides", "map", "players")},
    "lineup": "the strategies at the table, one per seat as in experiments (seat-rotated)",
    "fit_rules": "the integer rule parameter to search and its range, {parameter: [low, high]}",
    "target": "{equal: [A, B]}, {win_rate: {A: rate}} or {seat_advantage: value}",
    "tolerance": "the target is met when its 95% interval lies within target +- tolerance (default 0.01)",
    "budget": "total games of all evaluations and re-fits; never exceeded",
    "min_games": "games of a value's first look (default 400)",
    "max_games": "games a value plays at most (default: a quarter of the budget)",
    "refit": "re-fit an entrant at every value before it plays, {label, fit, budget, ...} or a list of them",
    "seed": "tune seed, an integer >= 0 (default 0): every value plays the same deals",
    **{k: KEYS[k] for k in ("output", "workers")},
}
# target kind -> what it measures (q); the target holds when q equals its value within the tolerance
TARGETS = {
    "equal": "the first label's win rate minus the second's (value 0)",
    "win_rate": "the label's win rate",
    "seat_advantage": "the win rate of the seat that plays first minus the fair share 1/players",
}
RULE_DEFAULTS = {"tolerance": 0.01, "min_games": 400}


@dataclass(frozen=True)
class RuleTuneConfig:
    """A checked rule tune: the lineup as experiment entrants, the parameter
    and its integer range, the target as ``(kind, labels, value)``."""
    name: str
    description: str
    source: str
    base: Path
    rules: str
    rule_overrides: dict
    players: int
    lineup: tuple           # ({"strategy", "params", "label"}, ...) as the evaluations seat them
    param: str
    low: int
    high: int
    target: tuple           # (kind, (labels...), value)
    tolerance: float
    budget: int
    min_games: int          # whole seed blocks
    max_games: int
    seed: int
    output: Path
    workers: int
    refit: tuple = ()       # ({label, fit, budget, candidates, stages, margin, final_games}, ...), filled in

    @property
    def block_size(self) -> int:
        """Games of one seed block: one deal, the lineup rotated through every seat."""
        return self.players

    @property
    def refit_budget(self) -> int:
        """Games a value's re-fits may play at most (counted in the budget)."""
        return sum(r["budget"] for r in self.refit)

    def refit_tune(self, r: dict, value: int) -> dict:
        """The strategy tune (a dict for :func:`ttrsim.tune.tune`) that re-fits the
        refit entry ``r`` at ``value`` (:func:`ttrsim.tune.refit.fit_tune`), in
        ``refit/<param>-<value>/<label>``, on a seed derived from the tune seed,
        the value and the label."""
        entrant = next(e for e in self.lineup if e["label"] == r["label"])
        tag = f"{self.param}-{value}"
        return fit_tune(r, name=f"{self.name}.refit.{tag}.{r['label'].replace('+', '_')}", rules=self.rules,
                        rule_overrides={**self.rule_overrides, self.param: value}, players=self.players,
                        strategy=entrant["strategy"], params=entrant["params"],
                        seed_text=f"{self.seed}/{tag}/{r['label']}", workers=self.workers,
                        output=self.output / "refit" / tag / r["label"])

    def config(self) -> dict:
        """Everything that decides the result (JSON-able; a resume under another one is refused)."""
        kind_, labels, value = self.target
        target = {"equal": list(labels)} if kind_ == "equal" else \
            {"win_rate": {labels[0]: value}} if kind_ == "win_rate" else {"seat_advantage": value}
        return json.loads(json.dumps({
            "kind": "rules", "name": self.name, "rules": self.rules, "rule_overrides": self.rule_overrides,
            "players": self.players, "lineup": list(self.lineup), "fit_rules": {self.param: [self.low, self.high]},
            "target": target, "tolerance": self.tolerance, "budget": self.budget, "min_games": self.min_games,
            "max_games": self.max_games, "seed": self.seed,
            **({"refit": list(self.refit)} if self.refit else {})}, sort_keys=True, default=list))

    def config_hash(self) -> str:
        return hashlib.sha1(json.dumps(self.config(), sort_keys=True).encode()).hexdigest()[:16]


class RuleTuneValidator(_TuneValidator):
    """The checks of a rule tune file (the shared keys as in strategy tunes)."""

    def validate(self, doc: dict) -> RuleTuneConfig:
        if "fit" in doc:
            self.fail("fit", "given with fit_rules/target; expected fit_rules (a rule tune) or fit with strategy "
                             "(a strategy tune), not both")
        name, description, preset, rule_overrides, players = self.head(doc, RULE_KEYS)
        if doc.get("lineup") is None:
            self.fail("lineup", "missing; expected a list of strategies, one per seat")
        entrants = self.entrants("lineup", doc["lineup"])
        for i, e in enumerate(entrants):
            if e.python:
                self.fail(f"lineup[{i}].python", "a Python strategy; expected a built-in strategy in a rule tune")
        if len(entrants) != players:
            self.fail("lineup", f"{len(entrants)} strateg{'y' if len(entrants) == 1 else 'ies'} for {players} "
                                "players; expected one per seat")
        lineup = tuple({"strategy": e.strategy, "params": e.params, "label": e.label} for e in entrants)

        param, low, high = self.fit_rules(doc.get("fit_rules"), preset, rule_overrides, players)
        target = self.target(doc.get("target"), [e.label for e in entrants], players)
        tolerance = doc.get("tolerance", RULE_DEFAULTS["tolerance"])
        if not is_number(tolerance) or not 0 < tolerance < 1:
            self.fail("tolerance", f"expected a win-rate difference in (0, 1) (0.01 = 1 percentage point), got "
                                   f"{kind(tolerance)}")

        block = players
        first = self.int_in("min_games", doc.get("min_games", RULE_DEFAULTS["min_games"]), 1,
                            what="a number of games")
        first = max(math.ceil(first / block), MIN_BLOCKS) * block
        seed, workers, output = self.tail(doc, name)
        cfg = RuleTuneConfig(name=name, description=description, source=self.source, base=self.base, rules=preset,
                             rule_overrides=rule_overrides, players=players, lineup=lineup, param=param, low=low,
                             high=high, target=target, tolerance=float(tolerance), budget=0, min_games=first,
                             max_games=0, seed=seed, output=output, workers=workers)
        refit = self.refit(doc.get("refit"), cfg, entrants)
        least = 2 * (first + sum(r["budget"] for r in refit))
        if "budget" not in doc:
            self.fail("budget", f"missing; expected the total games of the tune, at least {least}")
        budget = self.int_in("budget", doc["budget"], 1, what="a number of games")
        if budget < least:
            what = f"(refit budgets {least // 2 - first} + min_games {first})" if refit else f"min_games {first}"
            self.fail("budget", f"{budget} games cannot pay {'the re-fits and ' if refit else ''}the first look at "
                                f"both ends of the range (2 x {what}); expected at least {least}")
        most = doc.get("max_games")
        if most is None:
            most = max(first, budget // 4 // block * block)
        else:
            most = math.ceil(self.int_in("max_games", most, 1, what="a number of games") / block) * block
            if most < first:
                self.fail("max_games", f"{most} games are fewer than min_games {first}; expected at least {first}")
        return replace(cfg, budget=budget, max_games=most, refit=refit)

    def refit(self, value, cfg: RuleTuneConfig, entrants: list) -> tuple:
        """``refit``: a mapping or a list of them, each an entrant's label and
        the strategy tune keys of its re-fit (:func:`ttrsim.experiment.refit.entries`),
        checked as a strategy tune at the low end of the range (its errors
        name ``refit[i].<key>``)."""
        out = []
        for i, r in enumerate(entries(self, value, entrants)):
            w = f"refit[{i}]" if isinstance(value, list) else "refit"
            out.append(checked_entry(r["label"], RefitValidator(self.source, self.base, w).validate(
                cfg.refit_tune(r, cfg.low))))
        return tuple(out)

    def fit_rules(self, value, preset: str, rule_overrides: dict, players: int) -> tuple:
        """``fit_rules: {parameter: [low, high]}``: one integer rule parameter, a range the rules allow at both ends."""
        if value is None:
            self.fail("fit_rules", "missing; expected the rule parameter to search, {parameter: [low, high]}")
        doc = self.mapping("fit_rules", value, "a mapping {rule parameter: [low, high]}")
        if len(doc) != 1:
            self.fail("fit_rules", f"{len(doc)} parameters; expected exactly one, {{parameter: [low, high]}}")
        (param, bounds), = doc.items()
        w = f"fit_rules.{param}"
        spec = PARAM_BY_NAME.get(param)
        if spec is None:
            self.fail(w, f"unknown rule parameter{did_you_mean(param, PARAM_BY_NAME)}")
        if spec.lo is None or spec.hi is None or not is_int(spec.default):
            self.fail(w, "not an integer rule parameter; expected one such as globetrotter_points or "
                         "ticket_points_percent (`ttrsim rules` lists them)")
        if param in rule_overrides:
            self.fail(w, "also set in rule_overrides; expected it in one of them")
        if not (isinstance(bounds, list) and len(bounds) == 2 and all(is_int(b) for b in bounds)):
            got = repr(bounds) if isinstance(bounds, list) and len(repr(bounds)) <= 40 else kind(bounds)
            self.fail(w, f"expected [low, high], two integers, got {got}")
        low, high = bounds
        if not low < high:
            self.fail(w, f"expected [low, high] with low < high, got [{low}, {high}]")
        if low < spec.lo or high > spec.hi:
            self.fail(w, f"[{low}, {high}] leaves the parameter's range [{spec.lo}, {spec.hi}]; expected a range "
                         "inside it")
        for v in (low, high):
            self.players_fit(self.rules(preset, {**rule_overrides, param: v}, w), players, w)
        return param, low, high

    def target(self, value, labels: list, players: int) -> tuple:
        """``target``: one of :data:`TARGETS` as ``(kind, labels, value)``."""
        what = "one of {equal: [A, B]}, {win_rate: {A: rate}}, {seat_advantage: value}"
        if value is None:
            self.fail("target", f"missing; expected {what}")
        doc = self.mapping("target", value, what)
        if len(doc) != 1:
            self.fail("target", f"{len(doc)} entries; expected {what}")
        (name, arg), = doc.items()
        w = f"target.{name}"
        if name not in TARGETS:
            self.fail(w, f"unknown target{did_you_mean(name, TARGETS) or '; expected one of: ' + ', '.join(TARGETS)}")

        def label(x):
            if not isinstance(x, str) or x not in labels:
                hint = (did_you_mean(x, labels) if isinstance(x, str) else "") or \
                    f"; expected one of: {', '.join(labels)}"
                self.fail(w, f"{kind(x)} is not a label of the lineup{hint}")
            return x
        if name == "equal":
            if not (isinstance(arg, list) and len(arg) == 2):
                self.fail(w, f"expected [A, B], two labels of the lineup, got {kind(arg)}")
            a, b = label(arg[0]), label(arg[1])
            if a == b:
                self.fail(w, f"expected two different labels, got [{a}, {b}]")
            return "equal", (a, b), 0.0
        if name == "win_rate":
            if not (isinstance(arg, dict) and len(arg) == 1):
                self.fail(w, f"expected {{label: rate}}, one label of the lineup, got {kind(arg)}")
            (a, rate), = arg.items()
            label(a)
            if not is_number(rate) or not 0 <= rate <= 1:
                self.fail(f"{w}.{a}", f"expected a win rate in [0, 1], got {kind(rate)}")
            return "win_rate", (a,), float(rate)
        fair = 1 / players
        if not is_number(arg) or not -fair <= arg <= 1 - fair:
            self.fail(w, f"expected the first seat's win rate minus the fair share, a number in [{-fair:.3g}, "
                         f"{1 - fair:.3g}] (0: no advantage), got {kind(arg)}")
        return "seat_advantage", (), float(arg)
