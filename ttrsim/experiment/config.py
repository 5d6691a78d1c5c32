"""Experiment files: the schema, loading and validation into a frozen config.

An experiment is a YAML file (or a dict, from the Python API); see
``docs/experiments.md`` for every key and ``experiments/*.yaml`` for a
commented example of each feature. :func:`load_experiment` checks the whole
file before anything runs and returns a frozen :class:`Experiment`; any problem
raises :class:`ExperimentError` with one line naming the file, the field and
what was expected, e.g.::

    bad.yaml: plyers: unknown key; did you mean 'players'?

>>> e = load_experiment({"name": "t", "rules": "usa", "players": 2, "lineup": ["random", "random"], "games": 5})
>>> e.block_size, e.games, [x.label for x in e.entrants]
(2, 6, ['random', 'random-2'])
>>> load_experiment({"name": "t", "players": 2, "lineup": ["random", "random"], "gmes": 5})
Traceback (most recent call last):
...
ttrsim.experiment.config.ExperimentError: <dict>: gmes: unknown key; did you mean 'games'?
"""
from __future__ import annotations

import difflib
import itertools
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ttrsim.data.rules import PARAM_BY_NAME, RulesError, get_rules
from .seating import SEATINGS, chunk_games, design

BACKENDS = ("local", "dask")
PLAYERS_RANGE = (2, 5)
MAX_GAME_IDS = 2 ** 32 - 1
DEFAULT_CHUNK = 2000
DEFAULT_MIN_GAMES = 1000

# every top-level key, with a one-line description (docs/experiments.md has the long form)
KEYS = {
    "name": "name of the experiment; results go to results/<name>/",
    "description": "free text, copied to the manifest",
    "rules": "rule-set preset: usa, usa-1910, usa-mega, usa-bigcities, germany",
    "map": "a custom map file (path relative to the experiment file) or packaged map name",
    "rule_overrides": "rule parameters over the preset, {parameter: value}",
    "players": "players at every table, 2..5",
    "seating": "rotate (default), fixed, permute or round_robin",
    "lineup": "the strategies at the table, one entry per seat (seating rotate, fixed, permute)",
    "pool": "the strategies of a round-robin tournament (seating round_robin)",
    "games": "games per sweep point (rounded up to whole seed blocks)",
    "stop": "sequential stop instead of games: {strategy, width, min_games, max_games}",
    "seed": "experiment seed, an integer >= 0 (default 0)",
    "sweep": "grid {rules.PARAM | strategies.LABEL.PARAM: [values]}; each point a sub-experiment",
    "log": "turn-level logging (the turns table) on or off (default false)",
    "workers": "worker processes (default: every core)",
    "chunk_size": "games per chunk / part file (default 2000, rounded to whole blocks)",
    "backend": "local (joblib processes) or dask",
    "scheduler": "dask scheduler address tcp://HOST:PORT; none starts a local Dask cluster",
    "output": "results folder (default results/<name>, relative to the current folder)",
}
ENTRANT_KEYS = ("strategy", "python", "params", "label")
STOP_KEYS = ("strategy", "width", "min_games", "max_games")
# execution settings: they never change results, so resuming may change them
EXECUTION_KEYS = ("workers", "chunk_size", "backend", "scheduler", "output")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_LABEL_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_+-]*$")


class ExperimentError(ValueError):
    """A bad experiment file or setting: one line naming file, field and what was expected."""


@dataclass(frozen=True)
class Entrant:
    """One strategy at the table: ``label`` names it in the tables and the summary.
    ``strategy`` is a built-in (compiled) strategy's name, or with ``python``
    the ``"module:Class"`` of a Python strategy (:mod:`ttrsim.play.pyplay`), built
    as ``Class(**params)`` for every game."""
    label: str
    strategy: str
    params: dict = field(default_factory=dict)
    python: bool = False


@dataclass(frozen=True)
class StopRule:
    """Stop a sweep point at the first block boundary where the 95% interval of
    ``strategy``'s win rate is narrower than ``width`` (after ``min_games``;
    never more than ``max_games``)."""
    strategy: str
    entrant: int
    width: float
    min_games: int
    max_games: int


@dataclass(frozen=True)
class Point:
    """One sweep grid point: its values, the resolved rules and per-entrant params."""
    index: int
    values: dict            # sweep key -> value ({} without a sweep)
    rule_overrides: dict    # all rule overrides of this point (map as a resolved path)
    entrant_params: tuple   # per entrant, its parameter overrides at this point


@dataclass(frozen=True)
class Experiment:
    name: str
    description: str
    source: str             # the file (or '<dict>'), for messages
    rules: str              # preset
    map: str | None         # resolved map (a packaged name or an absolute path), None = preset's
    rule_overrides: dict
    players: int
    seating: str
    entrants: tuple         # Entrant
    seatings: tuple         # per seating of a block: entrant index per seat
    games: int              # games per point (whole blocks); with a stop rule: max_games
    games_requested: int
    stop: StopRule | None
    seed: int
    sweep: tuple            # ((key, (values...)), ...)
    points: tuple           # Point
    log: bool
    workers: int
    chunk_size: int
    backend: str
    scheduler: str | None
    output: Path
    python_path: tuple = ()  # folders searched for Python strategy modules (not part of the config)

    @property
    def block_size(self) -> int:
        return len(self.seatings)

    @property
    def stride(self) -> int:
        """Game ids of point p are ``p * stride + n``."""
        return self.games

    @property
    def chunk_games(self) -> int:
        return chunk_games(self.chunk_size, self.block_size)

    def config(self) -> dict:
        """Everything that decides the results (JSON-able, canonical): a folder's
        manifest keeps it and refuses to resume under a different one."""
        return _jsonable({
            "name": self.name, "rules": self.rules, "map": self.map, "rule_overrides": _jsonable(self.rule_overrides),
            "players": self.players, "seating": self.seating,
            "entrants": [{"label": e.label, ("python" if e.python else "strategy"): e.strategy, "params": e.params}
                         for e in self.entrants],
            "seatings": [list(s) for s in self.seatings],
            "games": self.games, "stop": None if self.stop is None else {
                "strategy": self.stop.strategy, "width": self.stop.width,
                "min_games": self.stop.min_games, "max_games": self.stop.max_games},
            "seed": self.seed, "sweep": [[k, list(v)] for k, v in self.sweep], "log": self.log,
            "points": [{"point": p.index, "values": _jsonable(p.values), "rule_overrides": _jsonable(p.rule_overrides),
                        "entrant_params": list(p.entrant_params)} for p in self.points],
        })

    def execution(self) -> dict:
        return {"workers": self.workers, "chunk_size": self.chunk_size, "backend": self.backend,
                "scheduler": self.scheduler, "output": str(self.output)}

    def rules_for(self, point: Point):
        return get_rules(self.rules, point.rule_overrides)


# --------------------------------------------------------------------------- loading


class _Loader(yaml.SafeLoader):
    """Safe loader refusing duplicate keys."""


def _mapping(loader, node, deep=False):
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key '{key}' (first at line {seen[key] + 1})", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def read_experiment_file(path) -> dict:
    """The raw mapping of an experiment file (ExperimentError on a missing or malformed file)."""
    p = Path(path)
    name = p.name
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ExperimentError(f"{name}: (file): not found at {p.resolve()}; expected an experiment YAML file") \
            from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as e:
        raise ExperimentError(f"{name}: (file): cannot be read ({type(e).__name__}); "
                              "expected a UTF-8 experiment YAML file") from None
    try:
        doc = yaml.load(text, Loader=_Loader)
    except yaml.constructor.ConstructorError as e:
        if e.problem and e.problem.startswith("duplicate key"):
            raise ExperimentError(f"{name}: line {e.problem_mark.line + 1}: {e.problem}; expected each key once") \
                from None
        raise ExperimentError(f"{name}: line {e.problem_mark.line + 1}: malformed YAML ({e.problem}); "
                              "expected a YAML mapping of experiment keys") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "(file)"
        what = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ExperimentError(f"{name}: {where}: malformed YAML ({what}); expected a YAML mapping of "
                              "experiment keys") from None
    if not isinstance(doc, dict):
        raise ExperimentError(f"{name}: (file): expected a YAML mapping of experiment keys "
                              f"(name, rules, players, ...), got {_kind(doc)}")
    return doc


def load_experiment(path_or_dict, overrides: dict | None = None, base_dir=None) -> Experiment:
    """Load and validate an experiment (a YAML path or a dict); ``overrides``
    replace top-level keys (command-line flags, API keywords; ``None`` = keep;
    ``games`` also drops the file's ``stop`` rule)."""
    if isinstance(path_or_dict, dict):
        doc, source = dict(path_or_dict), "<dict>"
        base = Path(base_dir) if base_dir is not None else Path.cwd()
    else:
        doc = read_experiment_file(path_or_dict)
        source, base = Path(path_or_dict).name, Path(path_or_dict).resolve().parent
    for key, value in (overrides or {}).items():
        if value is not None:
            doc[key] = value
            if key == "games":          # a number of games given over the file replaces its stop rule
                doc.pop("stop", None)
    return _Validator(source, base).validate(doc)


def _kind(v) -> str:
    if v is None:
        return "nothing"
    if isinstance(v, bool):
        return f"{str(v).lower()}"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "a mapping"
    return type(v).__name__


def _suggest(name, options) -> str:
    close = difflib.get_close_matches(str(name), list(options), n=1)
    return f"; did you mean '{close[0]}'?" if close else f"; expected one of: {', '.join(options)}"


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class _Validator:
    def __init__(self, source: str, base: Path):
        self.source = source
        self.base = base
        # Python strategy modules: importable, or files in the experiment's folder or the current folder
        self.python_path = tuple(dict.fromkeys((str(base), os.getcwd())))
        self.classes: dict = {}

    def fail(self, where: str, what: str):
        raise ExperimentError(f"{self.source}: {where}: {what}")

    # ---- scalars
    def int_in(self, where, v, lo, hi=None, what="an integer"):
        if not _is_int(v):
            self.fail(where, f"expected {what}, got {_kind(v)}")
        if v < lo or (hi is not None and v > hi):
            rng = f">= {lo}" if hi is None else f"in {lo}..{hi}"
            self.fail(where, f"expected {what} {rng}, got {v}")
        return v

    def string(self, where, v, what="a string"):
        if not isinstance(v, str) or not v.strip():
            self.fail(where, f"expected {what}, got {_kind(v)}")
        return v.strip()

    def mapping(self, where, v, what="a mapping"):
        if not isinstance(v, dict):
            self.fail(where, f"expected {what}, got {_kind(v)}")
        for k in v:
            if not isinstance(k, str):
                self.fail(where, f"expected text keys, got {_kind(k)}")
        return v

    # ---- the whole file
    def validate(self, doc: dict) -> Experiment:
        for key in doc:
            if key not in KEYS:
                self.fail(str(key), f"unknown key{_suggest(key, KEYS)}")
        if "name" not in doc:
            self.fail("name", "missing; expected the experiment's name (letters, digits, _ . -)")
        name = self.string("name", doc["name"], "a name of letters, digits, _ . -")
        if not _NAME_RE.match(name):
            self.fail("name", f"expected letters, digits, _ . - (a folder name), got {name!r}")
        description = doc.get("description") or ""
        if not isinstance(description, str):
            self.fail("description", f"expected text, got {_kind(description)}")

        preset = self.string("rules", doc.get("rules", "usa"), "a rule-set preset name")
        try:
            get_rules(preset)
        except RulesError as e:
            self.fail("rules", str(e))
        rule_overrides = dict(self.mapping("rule_overrides", doc.get("rule_overrides") or {},
                                           "a mapping {rule parameter: value}"))
        map_name = None
        if "map" in doc and doc["map"] is not None:
            if "map" in rule_overrides:
                self.fail("map", "given twice (also in rule_overrides); expected one of them")
            map_name = self.resolve_map("map", doc["map"])
        elif "map" in rule_overrides:
            map_name = self.resolve_map("rule_overrides.map", rule_overrides["map"])
        if map_name is not None:
            rule_overrides["map"] = map_name
        for k in rule_overrides:
            if k not in PARAM_BY_NAME:
                self.fail(f"rule_overrides.{k}", f"unknown rule parameter{_suggest(k, PARAM_BY_NAME)}")
        self.rules(preset, rule_overrides, "rule_overrides")

        if "players" not in doc:
            self.fail("players", f"missing; expected the number of players, {PLAYERS_RANGE[0]}..{PLAYERS_RANGE[1]}")
        players = self.int_in("players", doc["players"], *PLAYERS_RANGE, what="a player count")

        seating = doc.get("seating", "rotate")
        if seating not in SEATINGS:
            close = difflib.get_close_matches(seating, SEATINGS, n=1) if isinstance(seating, str) else []
            self.fail("seating", f"expected one of {', '.join(SEATINGS)}, got {_kind(seating)}"
                      + (f"; did you mean '{close[0]}'?" if close else ""))
        field_name = "pool" if seating == "round_robin" else "lineup"
        other = "lineup" if seating == "round_robin" else "pool"
        if doc.get(other) is not None:
            self.fail(other, f"not used with seating: {seating}; expected '{field_name}'"
                      + (" (or seating: round_robin)" if other == "pool" else ""))
        if doc.get(field_name) is None:
            self.fail(field_name, "missing; expected a list of strategies"
                      + (" (the round-robin pool)" if seating == "round_robin" else ", one per seat"))
        entrants = self.entrants(field_name, doc[field_name])
        if seating == "round_robin":
            if len(entrants) < players:
                self.fail("pool", f"{len(entrants)} strategies cannot fill {players} seats; "
                                  f"expected at least {players}")
        elif len(entrants) != players:
            self.fail("lineup", f"{len(entrants)} strateg{'y' if len(entrants) == 1 else 'ies'} for {players} "
                                f"players; expected one per seat")
        seatings = design(seating, len(entrants), players)
        block = len(seatings)

        seed = self.int_in("seed", doc.get("seed", 0), 0, 2 ** 63 - 1, "an integer seed")

        stop = None
        if doc.get("stop") is not None:
            if doc.get("games") is not None:
                self.fail("games", "given with stop; expected either games or stop (stop.max_games bounds it)")
            stop = self.stop(doc["stop"], entrants, block)
            games_requested, games = stop.max_games, stop.max_games
        else:
            if "games" not in doc or doc["games"] is None:
                self.fail("games", "missing; expected the number of games per sweep point (or a stop rule)")
            games_requested = self.int_in("games", doc["games"], 1, what="a number of games")
            games = math.ceil(games_requested / block) * block

        sweep = self.sweep(doc.get("sweep"), entrants)
        points = self.points(preset, rule_overrides, entrants, sweep, players)
        if len(points) * games > MAX_GAME_IDS:
            self.fail("games", f"{len(points)} sweep points x {games} games exceed the {MAX_GAME_IDS} game ids; "
                               "expected fewer games or points")

        log = doc.get("log", False)
        if not isinstance(log, bool):
            self.fail("log", f"expected true or false, got {_kind(log)}")
        workers = doc.get("workers")
        workers = os.cpu_count() or 1 if workers in (None, "auto") else \
            self.int_in("workers", workers, 1, 1024, "a number of worker processes (or auto)")
        chunk = self.int_in("chunk_size", doc.get("chunk_size", DEFAULT_CHUNK), 1, 10_000_000,
                            "a number of games per chunk")
        backend = doc.get("backend")
        scheduler = doc.get("scheduler")
        if scheduler is not None:
            scheduler = self.string("scheduler", scheduler, "a Dask scheduler address like tcp://HOST:8786")
            if "://" not in scheduler:
                self.fail("scheduler", f"expected an address like tcp://HOST:8786, got {scheduler!r}")
            if backend is None:
                backend = "dask"
        backend = backend or "local"
        if backend not in BACKENDS:
            self.fail("backend", f"expected local or dask, got {_kind(backend)}")
        if scheduler is not None and backend != "dask":
            self.fail("scheduler", "only used with backend: dask; expected backend: dask or no scheduler")

        out = doc.get("output")
        if out is None:
            output = Path("results") / name
        else:
            output = Path(self.string("output", os.fspath(out) if isinstance(out, os.PathLike) else out,
                                      "a folder path"))
        output = Path(os.path.abspath(output))
        self.check_output(output)

        return Experiment(
            name=name, description=description, source=self.source, rules=preset, map=map_name,
            rule_overrides=rule_overrides, players=players, seating=seating, entrants=tuple(entrants),
            seatings=seatings, games=games, games_requested=games_requested, stop=stop, seed=seed,
            sweep=tuple((k, tuple(v)) for k, v in sweep), points=tuple(points), log=log, workers=workers,
            chunk_size=chunk, backend=backend, scheduler=scheduler, output=output,
            python_path=self.python_path if any(e.python for e in entrants) else ())

    # ---- parts
    def resolve_map(self, where, value) -> str:
        from ttrsim.data.maps import MapError, available_maps, load_map
        v = self.string(where, value, "a map name or a .yaml map file")
        if v.endswith((".yaml", ".yml")) or os.sep in v or "/" in v:
            p = Path(v)
            if not p.is_absolute():
                p = (self.base / p).resolve()
            if not p.is_file():
                self.fail(where, f"map file not found at {p}; expected a map .yaml file "
                                 "(relative paths start at the experiment file)")
            v = str(p)
        elif v not in available_maps():
            self.fail(where, f"unknown map '{v}'{_suggest(v, available_maps())} (or a path to a .yaml map file)")
        try:
            load_map(v)
        except MapError as e:
            more = f" (and {len(e.problems) - 1} more)" if len(e.problems) > 1 else ""
            self.fail(where, f"bad map file: {e.problems[0]}{more}")
        return v

    def rules(self, preset, overrides, where):
        try:
            rules = get_rules(preset, overrides)
            from ttrsim.core.board import build_board
            build_board(rules)
        except RulesError as e:
            msg = str(e)
            m = re.match(r"rule parameter '(\w+)'", msg)
            self.fail(f"{where}.{m.group(1)}" if m else where, msg)
        return rules

    def entrants(self, where, value) -> list[Entrant]:
        from ttrsim.strategies import REGISTRY, STRATEGY_NAMES, StrategyError, param_row
        if not isinstance(value, list) or not value:
            self.fail(where, f"expected a list of strategies, got {_kind(value)}")
        out, labels = [], {}
        for i, item in enumerate(value):
            w = f"{where}[{i}]"
            if isinstance(item, str):
                item = {"strategy": item}
            if not isinstance(item, dict):
                self.fail(w, f"expected a strategy name, {{strategy, params, label}} or {{python, params, label}}, "
                             f"got {_kind(item)}")
            for k in item:
                if k not in ENTRANT_KEYS:
                    self.fail(f"{w}.{k}", f"unknown key{_suggest(k, ENTRANT_KEYS)}")
            python = "python" in item
            if python and "strategy" in item:
                self.fail(w, "both strategy and python given; expected one of them (a built-in strategy name or "
                             "a Python class module:Class)")
            if not python and "strategy" not in item:
                self.fail(f"{w}.strategy", "missing; expected a strategy name (or python: module:Class)")
            if python:
                name = self.string(f"{w}.python", item["python"], "a Python class 'module:Class'")
                self.python_class(f"{w}.python", name)
                params = dict(self.mapping(f"{w}.params", item.get("params") or {},
                                           "a mapping {parameter: value} of constructor arguments"))
                self.python_params(f"{w}.params", name, params)
            else:
                name = self.string(f"{w}.strategy", item["strategy"], "a strategy name")
                if name not in REGISTRY:
                    hint = "; a Python strategy is given as python: module:Class" if ":" in name else \
                        _suggest(name, STRATEGY_NAMES)
                    self.fail(f"{w}.strategy", f"unknown strategy '{name}'{hint}")
                params = dict(self.mapping(f"{w}.params", item.get("params") or {},
                                           "a mapping {parameter: number}"))
                for k, v in params.items():
                    try:
                        param_row(name, {k: v})
                    except StrategyError as e:
                        self.fail(f"{w}.params.{k}", str(e))
                params = {k: float(v) for k, v in params.items()}
            label = item.get("label")
            if label is None:
                base_label = name.rpartition(":")[2].rpartition(".")[2] if python else name
                label, n = base_label, 2
                while label in labels:
                    label = f"{base_label}-{n}"
                    n += 1
            else:
                label = self.string(f"{w}.label", label, "a label")
                if not _LABEL_RE.match(label):
                    self.fail(f"{w}.label", f"expected letters, digits, _ + - (no dots), got {label!r}")
                if label in labels:
                    self.fail(f"{w}.label", f"'{label}' is already the label of {where}[{labels[label]}]; "
                                            "expected unique labels")
            labels[label] = i
            out.append(Entrant(label=label, strategy=name, params=params, python=python))
        return out

    def python_class(self, where, ref):
        """The class of a Python strategy (importable, a class, with ``choose``)."""
        from ttrsim.play.pyplay import StrategyLoadError, load_strategy_class
        if ref not in self.classes:
            try:
                self.classes[ref] = load_strategy_class(ref, self.python_path)
            except StrategyLoadError as e:
                self.fail(where, str(e))
        return self.classes[ref]

    def python_params(self, where, ref, params):
        """The constructor of Python strategy ``ref`` must accept ``params`` (JSON-like values)."""
        from ttrsim.play.pyplay import StrategyLoadError, check_strategy_params
        try:
            json.dumps(params)
        except (TypeError, ValueError):
            self.fail(where, "expected values that are numbers, text, true/false, lists or mappings")
        try:
            check_strategy_params(self.classes[ref], ref, params)
        except StrategyLoadError as e:
            self.fail(f"{where}.{e.param}" if e.param and where.endswith(".params") else where, str(e))

    def stop(self, value, entrants, block) -> StopRule:
        self.mapping("stop", value, "a mapping {strategy, width, min_games, max_games}")
        for k in value:
            if k not in STOP_KEYS:
                self.fail(f"stop.{k}", f"unknown key{_suggest(k, STOP_KEYS)}")
        labels = [e.label for e in entrants]
        if "strategy" not in value:
            self.fail("stop.strategy", f"missing; expected the label whose win rate decides: {', '.join(labels)}")
        lab = value["strategy"]
        if lab not in labels:
            self.fail("stop.strategy", f"'{lab}' is not at the table{_suggest(lab, labels)}")
        if "width" not in value:
            self.fail("stop.width", "missing; expected the width of the 95% interval to reach, e.g. 0.02")
        width = value["width"]
        if not _is_number(width) or not 0 < width < 1:
            self.fail("stop.width", f"expected a number between 0 and 1, got {_kind(width)}")
        if "max_games" not in value:
            self.fail("stop.max_games", "missing; expected the most games to play per sweep point")
        mx = self.int_in("stop.max_games", value["max_games"], 1, what="a number of games")
        mn = self.int_in("stop.min_games", value.get("min_games", min(DEFAULT_MIN_GAMES, mx)), 1,
                         what="a number of games")
        if mn > mx:
            self.fail("stop.min_games", f"{mn} exceeds max_games {mx}; expected min_games <= max_games")
        up = lambda g: math.ceil(g / block) * block  # noqa: E731
        return StopRule(strategy=lab, entrant=labels.index(lab), width=float(width), min_games=up(mn),
                        max_games=up(mx))

    def sweep(self, value, entrants) -> list:
        if value is None:
            return []
        self.mapping("sweep", value, "a mapping {rules.PARAM | strategies.LABEL.PARAM: [values]}")
        labels = {e.label: e for e in entrants}
        out = []
        for key, values in value.items():
            w = f"sweep.{key}"
            parts = key.split(".")
            if parts[0] == "rules" and len(parts) == 2:
                if parts[1] not in PARAM_BY_NAME:
                    self.fail(w, f"unknown rule parameter '{parts[1]}'{_suggest(parts[1], PARAM_BY_NAME)}")
                if parts[1] == "map":
                    self.fail(w, "the map cannot be swept; expected one experiment per map")
            elif parts[0] == "strategies" and len(parts) == 3:
                if parts[1] not in labels:
                    self.fail(w, f"no strategy labelled '{parts[1]}' at the table{_suggest(parts[1], labels)}")
            else:
                self.fail(w, "expected a key rules.PARAMETER or strategies.LABEL.PARAMETER")
            if not isinstance(values, list) or not values:
                self.fail(w, f"expected a non-empty list of values, got {_kind(values)}")
            out.append((key, values))
        return out

    def points(self, preset, rule_overrides, entrants, sweep, players) -> list[Point]:
        from ttrsim.strategies import StrategyError, param_row
        keys = [k for k, _ in sweep]
        grids = list(itertools.product(*[v for _, v in sweep])) if sweep else [()]
        points = []
        for i, combo in enumerate(grids):
            ro = dict(rule_overrides)
            eparams = [dict(e.params) for e in entrants]
            values = {}
            for key, v in zip(keys, combo):
                w = f"sweep.{key}"
                parts = key.split(".")
                values[key] = v
                if parts[0] == "rules":
                    ro[parts[1]] = v
                    try:
                        get_rules(preset, {parts[1]: v})
                    except RulesError as e:
                        self.fail(w, f"value {_kind(v)}: {e}")
                else:
                    e_i = [e.label for e in entrants].index(parts[1])
                    if entrants[e_i].python:
                        eparams[e_i][parts[2]] = v
                        self.python_params(w, entrants[e_i].strategy, eparams[e_i])
                        continue
                    try:
                        param_row(entrants[e_i].strategy, {parts[2]: v})
                    except StrategyError as e:
                        self.fail(w, str(e))
                    eparams[e_i][parts[2]] = float(v)
            rules = self.rules(preset, ro, "sweep" if sweep else "rule_overrides")
            self.players_fit(rules, players, "players")
            points.append(Point(index=i, values=values, rule_overrides=ro,
                                entrant_params=tuple(eparams)))
        return points

    def players_fit(self, rules, players, where):
        """The rule set must be able to deal ``players`` seats (tickets, cards)."""
        from ttrsim.data.maps import load_map
        m = load_map(rules.map)
        n_tickets = sum(len(m.deck(t)) for t in rules.ticket_decks)
        if rules.setup_deal * players > n_tickets:
            self.fail(where, f"{players} players need {rules.setup_deal * players} setup tickets but rule set "
                             f"'{rules.preset}' on map '{m.name}' has {n_tickets}; expected at most "
                             f"{n_tickets // rules.setup_deal} players")
        if rules.max_turns > 32767:
            self.fail("rule_overrides.max_turns", f"experiments record turn numbers as int16; expected at most "
                                                  f"32767, got {rules.max_turns}")
        n_cards = 8 * rules.cards_per_colour + rules.locomotives
        need = rules.hand_size * players + rules.face_up
        if need > n_cards:
            self.fail(where, f"{players} players need {need} train cards to deal but rule set "
                             f"'{rules.preset}' has {n_cards}; expected fewer players")

    def check_output(self, output: Path):
        """The folder must be creatable and writable (nothing is created here)."""
        p = output
        while not p.exists():
            if p.parent == p:
                break
            p = p.parent
        if not p.is_dir():
            self.fail("output", f"{output} cannot be created: {p} is not a folder; expected a writable folder path")
        if not os.access(p, os.W_OK | os.X_OK):
            self.fail("output", f"{output} is not writable ({p} is read-only); expected a writable folder path")
        if output.exists() and any(output.iterdir()) and not (output / "manifest.json").exists():
            self.fail("output", f"{output} exists and is not a ttrsim results folder (no manifest.json); "
                                "expected a new or empty folder")


def _jsonable(d: dict) -> dict:
    """Round-trip through JSON (int keys of a scoring table become text)."""
    return json.loads(json.dumps(d, sort_keys=True, default=list))
