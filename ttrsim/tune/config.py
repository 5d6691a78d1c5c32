"""tune.yaml: reading a tune file and checking it into a frozen :class:`TuneConfig`.

A tune file names a rule set, a player count, one built-in strategy and the
parameters to fit with their ranges (``docs/tune.md`` has every key). It is
checked whole before anything runs, with the experiment validator's helpers
(:class:`ttrsim.experiment.validator.Validator`), and every problem is one
line naming the file, the field and what was expected::

    tune.yaml: fit.keep_margin: expected [low, high] with low < high, got [9, 3]

>>> c = load_tune({"name": "t", "players": 2, "strategy": "planner", "fit": {"end_trains": [0, 20]},
...                "budget": 400, "final_games": 40})
>>> c.fit, c.block_size, c.stage_budget
((('end_trains', 0, 20, True),), 2, 360)
>>> load_tune({"name": "t", "players": 2, "strategy": "planner", "fit": {"end_trains": [9, 3]}})
Traceback (most recent call last):
...
ttrsim.tune.config.TuneError: <dict>: fit.end_trains: expected [low, high] with low < high, got [9, 3]
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

from ttrsim.data.checks import did_you_mean, is_int, is_number, kind
from ttrsim.experiment.config import ExperimentError, open_document, read_mapping_file
from ttrsim.experiment.schema import PLAYERS_RANGE
from ttrsim.experiment.validator import _NAME_RE, NAME_MAX, Validator

__all__ = ["TuneError", "TuneConfig", "load_tune", "read_tune_file", "KEYS", "EXECUTION_KEYS"]

# every key of a tune file, with a one-line description (docs/tune.md has the long form)
KEYS = {
    "name": "name of the tune; results go to results/<name>/",
    "description": "free text, copied to tune.json",
    "rules": "rule-set preset (default usa)",
    "rule_overrides": "rule parameters over the preset, {parameter: value}",
    "map": "a custom map file (path relative to the tune file) or packaged map name",
    "players": "players at every table, 2..5",
    "strategy": "the built-in strategy whose parameters are fitted",
    "params": "fixed parameter values of the strategy, {parameter: number} (also the start)",
    "fit": "the parameters to fit, {parameter: [low, high]} (integer bounds: integer values)",
    "budget": "total games of all evaluations, the final head-to-head included",
    "candidates": "challengers per stage (default 8)",
    "margin": "win share a challenger must beat the fair share by, e.g. 0.01 = 1 point (default 0.01)",
    "stages": "best-response stages at most (default 4)",
    "style": "a style the fitted set must play in, {measure: [low, high]} (null: no bound); measures: "
             "tickets_kept, tickets_completed, tickets_failed, longest_path, route_points",
    "final_games": "games of the final head-to-head on fresh seeds (default 2000)",
    "seed": "tune seed, an integer >= 0 (default 0)",
    "output": "tune folder (default results/<name>); in the file: a folder inside the current folder",
    "workers": "worker processes (default: every core)",
}
# execution settings: they never change the result, so resuming may change them
EXECUTION_KEYS = ("output", "workers")
# style measures: a seat's mean per game of a column of the players table (tickets_kept: completed + failed)
STYLE_MEASURES = {
    "tickets_kept": "tickets kept (setup and later draws)",
    "tickets_completed": "tickets completed",
    "tickets_failed": "tickets failed",
    "longest_path": "length of the longest continuous path",
    "route_points": "route points",
}
DEFAULTS = {"candidates": 8, "margin": 0.01, "stages": 4, "final_games": 2000, "seed": 0}
MAX_CANDIDATES = 64
MAX_STAGES = 100
MIN_BLOCKS = 2         # seed blocks per candidate in a stage's first round (an interval needs two)
_EXPECTED = "a YAML mapping of tune keys"


class TuneError(ExperimentError):
    """A bad tune file or setting, or a tune that cannot go on: one line
    naming the file, the field and what was expected."""


@dataclass(frozen=True)
class TuneConfig:
    """A checked tune: defaults filled in, the map resolved, ``fit`` as
    ``((param, low, high, integer), ...)`` in the file's order."""
    name: str
    description: str
    source: str             # the file (or '<dict>'), for messages
    base: Path              # the folder relative map paths start from
    rules: str
    rule_overrides: dict    # with the map, resolved
    players: int
    strategy: str
    params: dict            # fixed values (numbers, as given)
    fit: tuple              # ((name, low, high, integer), ...)
    budget: int
    candidates: int
    margin: float
    stages: int
    final_games: int        # whole seed blocks
    seed: int
    output: Path
    workers: int
    style: tuple = ()       # ((measure, low or None, high or None), ...): the fitted set's style (docs/tune.md)

    @property
    def block_size(self) -> int:
        """Games of one seed block: the candidate seat rotated through every seat."""
        return self.players

    @property
    def stage_budget(self) -> int:
        """Games the stages may play in all (the budget less the final head-to-head)."""
        return self.budget - self.final_games

    def config(self) -> dict:
        """Everything that decides the result (JSON-able): tune.json keeps it
        and a resume under a different one is refused."""
        style = {"style": {m: [lo, hi] for m, lo, hi in self.style}} if self.style else {}   # older tunes: none
        return json.loads(json.dumps({**style,
            "name": self.name, "rules": self.rules, "rule_overrides": self.rule_overrides,
            "players": self.players, "strategy": self.strategy, "params": self.params,
            "fit": {n: [lo, hi] for n, lo, hi, _ in self.fit}, "budget": self.budget,
            "candidates": self.candidates, "margin": self.margin, "stages": self.stages,
            "final_games": self.final_games, "seed": self.seed}, sort_keys=True, default=list))

    def config_hash(self) -> str:
        return hashlib.sha1(json.dumps(self.config(), sort_keys=True).encode()).hexdigest()[:16]

    def start(self) -> dict:
        """The first incumbent: the strategy's defaults with ``params`` (the fitted parameters' values)."""
        from ttrsim.strategies import REGISTRY
        defaults = {p.name: p.default for p in REGISTRY[self.strategy].params}
        out = {}
        for name, lo, hi, integer in self.fit:
            v = self.params.get(name, defaults[name])
            v = min(max(v, lo), hi)          # a default outside the range starts at its nearer end
            out[name] = int(round(v)) if integer else float(v)
        return out


def read_tune_file(path) -> dict:
    """The raw mapping of a tune file (TuneError on a missing or malformed file)."""
    return read_mapping_file(path, what="a tune YAML file", expected=_EXPECTED,
                             keys="name, players, strategy, fit, ...", error=TuneError)


def load_tune(path_or_dict, overrides: dict | None = None, base_dir=None):
    """Load and check a tune (a YAML path or a dict): a :class:`TuneConfig`,
    or with ``fit_rules`` or ``target`` a rule tune
    (:class:`~ttrsim.tune.rule_config.RuleTuneConfig`); ``overrides`` replace
    top-level keys (command-line flags, API keywords; ``None`` = keep)."""
    doc, source, base = open_document(path_or_dict, overrides, base_dir, read_tune_file)
    output_given = isinstance(path_or_dict, dict) or (overrides or {}).get("output") is not None
    if "fit_rules" in doc or "target" in doc:
        from .rule_config import RuleTuneValidator
        return RuleTuneValidator(source, base, output_given).validate(doc)
    return _TuneValidator(source, base, output_given).validate(doc)


class _TuneValidator(Validator):
    """The experiment validator's checks, raising :class:`TuneError`."""

    def fail(self, where: str, what: str):
        raise TuneError(f"{self.source}: {where}: {what}")

    def head(self, doc: dict, keys) -> tuple:
        """What every tune file starts with: (name, description, preset, rule overrides, players)."""
        for key in doc:
            if key not in keys:
                self.fail(str(key), f"unknown key{did_you_mean(key, keys)}")
        if "name" not in doc:
            self.fail("name", "missing; expected the tune's name (letters, digits, _ . -)")
        name = self.string("name", doc["name"], "a name of letters, digits, _ . -")
        if not _NAME_RE.match(name) or len(name) > NAME_MAX:
            self.fail("name", f"expected letters, digits, _ . - (a folder name of at most {NAME_MAX}), "
                              f"got {name[:40]!r}")
        description = doc.get("description") or ""
        if not isinstance(description, str):
            self.fail("description", f"expected text, got {kind(description)}")

        preset, rule_overrides, _, rules = self.rule_set(doc)

        if "players" not in doc:
            self.fail("players", f"missing; expected the number of players, {PLAYERS_RANGE[0]}..{PLAYERS_RANGE[1]}")
        players = self.int_in("players", doc["players"], *PLAYERS_RANGE, what="a player count")
        self.players_fit(rules, players, "players")
        return name, description, preset, rule_overrides, players

    def tail(self, doc: dict, name: str) -> tuple:
        """What every tune file ends with: (seed, workers, output)."""
        seed = self.int_in("seed", doc.get("seed", DEFAULTS["seed"]), 0, 2 ** 63 - 1, "an integer seed")
        workers = doc.get("workers")
        workers = os.cpu_count() or 1 if workers in (None, "auto") else \
            self.int_in("workers", workers, 1, 1024, "a number of worker processes (or auto)")
        out = doc.get("output")
        written = os.path.join("results", name) if out is None else \
            self.string("output", os.fspath(out) if isinstance(out, os.PathLike) else out, "a folder path")
        output = Path(os.path.abspath(written))
        self.check_output(output, written)
        return seed, workers, output

    def validate(self, doc: dict) -> TuneConfig:
        from ttrsim.strategies import REGISTRY, STRATEGY_NAMES, StrategyError, param_row
        name, description, preset, rule_overrides, players = self.head(doc, KEYS)

        if "strategy" not in doc:
            self.fail("strategy", "missing; expected the built-in strategy to fit (see `ttrsim strategies`)")
        strategy = doc["strategy"]
        if not isinstance(strategy, str) or strategy not in REGISTRY:
            hint = did_you_mean(strategy, STRATEGY_NAMES) if isinstance(strategy, str) else \
                f"; expected a built-in strategy name, got {kind(strategy)}"
            self.fail("strategy", f"unknown strategy {kind(strategy)}{hint}")
        spec = {p.name: p for p in REGISTRY[strategy].params}
        if not spec:
            self.fail("strategy", f"'{strategy}' has no parameters; expected a strategy with parameters to fit")

        params = dict(self.mapping("params", doc.get("params") or {}, "a mapping {parameter: number}"))
        for k, v in params.items():
            try:
                param_row(strategy, {k: v})
            except StrategyError as e:      # a bad value: the field names the parameter
                self.fail(f"params.{k}", e.problem if e.param == k else str(e))

        if doc.get("fit") is None:
            self.fail("fit", "missing; expected the parameters to fit, {parameter: [low, high]}")
        fit_doc = self.mapping("fit", doc["fit"], "a mapping {parameter: [low, high]}")
        if not fit_doc:
            self.fail("fit", "empty; expected at least one parameter to fit, {parameter: [low, high]}")
        fit = []
        for k, bounds in fit_doc.items():
            w = f"fit.{k}"
            if k not in spec:
                self.fail(w, f"unknown parameter of strategy '{strategy}'{did_you_mean(k, spec)}")
            if not (isinstance(bounds, list) and len(bounds) == 2 and all(is_number(b) for b in bounds)):
                got = repr(bounds) if isinstance(bounds, list) and len(repr(bounds)) <= 40 else kind(bounds)
                self.fail(w, f"expected [low, high], two numbers, got {got}")
            lo, hi = bounds
            if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
                self.fail(w, f"expected [low, high] with low < high, got [{lo}, {hi}]")
            for b in (lo, hi):
                try:
                    param_row(strategy, {k: b})
                except StrategyError as e:
                    self.fail(w, e.problem if e.param == k else str(e))
            p_lo, p_hi = _own_range(spec[k])
            if (p_lo is not None and lo < p_lo) or (p_hi is not None and hi > p_hi):
                self.fail(w, f"[{lo}, {hi}] leaves the parameter's range [{p_lo}, {p_hi}]; expected a range inside it")
            if k in params and not lo <= params[k] <= hi:
                self.fail(f"params.{k}", f"the start {params[k]} is outside fit.{k} [{lo}, {hi}]; expected a "
                                         "value inside the range")
            fit.append((k, lo, hi, is_int(lo) and is_int(hi)))

        stages = self.int_in("stages", doc.get("stages", DEFAULTS["stages"]), 1, MAX_STAGES, "a number of stages")
        candidates = self.int_in("candidates", doc.get("candidates", DEFAULTS["candidates"]), 1, MAX_CANDIDATES,
                                 "a number of candidates per stage")
        margin = doc.get("margin", DEFAULTS["margin"])
        fair = 1 / players
        if not is_number(margin) or not 0 <= margin < 1 - fair:
            self.fail("margin", f"expected a win share in [0, {1 - fair:.3g}) over the fair share "
                                f"(0.01 = 1 point), got {kind(margin)}")
        final = self.int_in("final_games", doc.get("final_games", DEFAULTS["final_games"]), 1,
                            what="a number of games")
        final = max(math.ceil(final / players), MIN_BLOCKS) * players
        least = final + candidates * MIN_BLOCKS * players * _rounds(candidates)
        if "budget" not in doc:
            self.fail("budget", f"missing; expected the total games of the tune, at least {least}")
        budget = self.int_in("budget", doc["budget"], 1, what="a number of games")
        if budget < least:
            self.fail("budget", f"{budget} games cannot pay {final} final games and one stage of {candidates} "
                                f"candidates ({least - final} games at least); expected at least {least}")
        style = self.style(doc.get("style"))
        seed, workers, output = self.tail(doc, name)
        return TuneConfig(name=name, description=description, source=self.source, base=self.base, rules=preset,
                          rule_overrides=rule_overrides, players=players, strategy=strategy, params=params,
                          fit=tuple(fit), budget=budget, candidates=candidates, margin=float(margin), stages=stages,
                          final_games=final, seed=seed, output=output, workers=workers, style=style)

    def style(self, value) -> tuple:
        """``style: {measure: [low, high]}`` as ((measure, low, high), ...); null leaves a side open."""
        if value is None:
            return ()
        doc = self.mapping("style", value, "a mapping {measure: [low, high]}")
        out = []
        for m, bounds in doc.items():
            w = f"style.{m}"
            if m not in STYLE_MEASURES:
                self.fail(w, f"unknown style measure{did_you_mean(m, STYLE_MEASURES)}; expected one of: "
                             f"{', '.join(STYLE_MEASURES)}")
            if bounds == [None, None]:
                self.fail(w, "expected [low, high] with at least one bound, got [null, null]")
            if not (isinstance(bounds, list) and len(bounds) == 2
                    and all(b is None or (is_number(b) and math.isfinite(b)) for b in bounds)):
                got = repr(bounds) if isinstance(bounds, list) and len(repr(bounds)) <= 40 else kind(bounds)
                self.fail(w, f"expected [low, high], two numbers or one number and null (no bound), got {got}")
            lo, hi = bounds
            if lo is not None and hi is not None and not lo < hi:
                self.fail(w, f"expected [low, high] with low < high, got [{lo}, {hi}]")
            out.append((m, lo, hi))
        return tuple(out)


def _rounds(n: int) -> int:
    """Rounds of successive halving from ``n`` candidates to one (at least one)."""
    return max(1, math.ceil(math.log2(n))) if n > 1 else 1


def _own_range(param) -> tuple:
    """A strategy parameter's own (low, high) when its spec gives one (None: unbounded)."""
    for lo, hi in (("lo", "hi"), ("low", "high"), ("min", "max")):
        if hasattr(param, lo) or hasattr(param, hi):
            return getattr(param, lo, None), getattr(param, hi, None)
    return None, None
