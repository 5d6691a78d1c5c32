"""The checks of an experiment file: :class:`Validator` turns the raw mapping
into a frozen :class:`~ttrsim.experiment.schema.Experiment`, or fails at the
first problem with one line ``<file>: <field>: <what is wrong; what was
expected>`` (:class:`~ttrsim.results.errors.ExperimentError`).

Nothing is written: the output folder is only checked to be creatable (and,
when the file names it, to lie inside the current folder).

Every sweep point's rules are resolved (and their board built) once, here,
and kept with the point: :mod:`ttrsim.experiment.points`.
"""
from __future__ import annotations

import itertools
import json
import math
import os
import re
from pathlib import Path

from ttrsim.data.checks import close_match, did_you_mean, is_int, is_number, kind
from ttrsim.data.maps import MapError, available_maps, load_map
from ttrsim.data.rules import PARAM_BY_NAME, RulesError, check_offer_seat, get_rules

from .intervene import arms
from .refit import entries
from .schema import (
    BACKENDS,
    CHUNK_RANGE,
    DEFAULT_CHUNK,
    DEFAULT_MIN_GAMES,
    DEFAULT_TIME_LIMIT,
    DEFAULT_WORKER_TIMEOUT,
    ENTRANT_KEYS,
    KEYS,
    LABEL_PATTERN,
    MAX_GAME_IDS,
    MAX_SECONDS,
    NAME_PATTERN,
    PLAYERS_RANGE,
    SEED_RANGE,
    STOP_KEYS,
    WORKERS_RANGE,
    Entrant,
    Experiment,
    ExperimentError,
    Point,
    StopRule,
    compiled_params,
)
from .seating import SEATINGS, design

_NAME_RE = re.compile(NAME_PATTERN)
NAME_MAX, PATH_MAX = 255, 4096       # bytes of a file name and of a path (Linux, macOS and Windows allow no more)
_LONGEST_INSIDE = 64                 # the longest path inside a results folder: <table>/part-....parquet.<tmp>
_LABEL_RE = re.compile(LABEL_PATTERN)


class Validator:
    """Checks one experiment; ``source`` names it in messages, ``base`` is the folder
    relative map paths and Python strategy files start from. (The strategies, the
    board and Python strategies are imported where used: they load compiled code.)"""

    def __init__(self, source: str, base: Path, output_given: bool = True):
        self.source = source
        self.base = base
        self.output_given = output_given      # False: the file's own output (kept inside the current folder)
        self.time_limit = DEFAULT_TIME_LIMIT
        self.python_full: dict = {}           # (class, params) -> every constructor argument
        # Python strategy modules: importable, or files in the experiment's folder or the current folder
        self.python_path = tuple(dict.fromkeys((str(base), os.getcwd())))
        self.classes: dict = {}

    def fail(self, where: str, what: str):
        raise ExperimentError(f"{self.source}: {where}: {what}")

    # ---- scalars
    def int_in(self, where, v, lo, hi=None, what="an integer"):
        if not is_int(v):
            self.fail(where, f"expected {what}, got {kind(v)}")
        if v < lo or (hi is not None and v > hi):
            rng = f">= {lo}" if hi is None else f"in {lo}..{hi}"
            self.fail(where, f"expected {what} {rng}, got {v}")
        return v

    def string(self, where, v, what="a string"):
        if not isinstance(v, str) or not v.strip():
            self.fail(where, f"expected {what}, got {kind(v)}")
        return v.strip()

    def seconds(self, where, v, what):
        if not is_number(v) or not 0 < v <= MAX_SECONDS:
            self.fail(where, f"expected {what}, a number of seconds in (0, {MAX_SECONDS:g}], got {kind(v)}")
        return float(v)

    def mapping(self, where, v, what="a mapping"):
        if not isinstance(v, dict):
            self.fail(where, f"expected {what}, got {kind(v)}")
        for k in v:
            if not isinstance(k, str):
                self.fail(where, f"expected text keys, got {kind(k)}")
        return v

    # ---- the whole file
    def validate(self, doc: dict) -> Experiment:
        if "fit" in doc and "strategy" in doc and "lineup" not in doc and "pool" not in doc:
            self.fail("fit", "this is a tune file (fit, strategy); expected an experiment (lineup, games): run it "
                             "with ttrsim tune FILE")
        if "fit_rules" in doc:
            self.fail("fit_rules", "this is a rule tune file (fit_rules, target); expected an experiment (lineup, "
                                   "games): run it with ttrsim tune FILE")
        for key in doc:
            if key not in KEYS:
                self.fail(str(key), f"unknown key{did_you_mean(key, KEYS)}")
        if "name" not in doc:
            self.fail("name", "missing; expected the experiment's name (letters, digits, _ . -)")
        name = self.string("name", doc["name"], "a name of letters, digits, _ . -")
        if not _NAME_RE.match(name):
            self.fail("name", f"expected letters, digits, _ . - (a folder name), got {name!r}")
        if len(name) > NAME_MAX:
            self.fail("name", f"{len(name)} characters are more than a folder name may have; expected at most "
                              f"{NAME_MAX}")
        description = doc.get("description") or ""
        if not isinstance(description, str):
            self.fail("description", f"expected text, got {kind(description)}")

        preset, rule_overrides, map_name, _ = self.rule_set(doc)

        self.time_limit = self.seconds("python_time_limit", doc.get("python_time_limit", DEFAULT_TIME_LIMIT),
                                       "a time limit in seconds for a Python strategy's decision")
        worker_timeout = self.seconds("worker_timeout", doc.get("worker_timeout", DEFAULT_WORKER_TIMEOUT),
                                      "seconds to wait for a Dask worker")
        if "players" not in doc:
            self.fail("players", f"missing; expected the number of players, {PLAYERS_RANGE[0]}..{PLAYERS_RANGE[1]}")
        players = self.int_in("players", doc["players"], *PLAYERS_RANGE, what="a player count")

        seating = doc.get("seating", "rotate")
        if seating not in SEATINGS:
            close = close_match(seating, SEATINGS) if isinstance(seating, str) else None
            self.fail("seating", f"expected one of {', '.join(SEATINGS)}, got {kind(seating)}"
                      + (f"; did you mean '{close}'?" if close else ""))
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

        seed = self.int_in("seed", doc.get("seed", 0), *SEED_RANGE, "an integer seed")

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

        sweep = self.sweep(doc.get("sweep"), entrants) + self.styles(doc.get("styles"), entrants)
        intervene = arms(self, doc.get("intervene"), entrants, preset, rule_overrides, players)
        if intervene is not None:
            sweep.append(("arm", list(intervene["arms"])))
        points = self.points(preset, rule_overrides, entrants, sweep, players, intervene)
        refit = entries(self, doc.get("refit"), entrants)
        if len(points) * games > MAX_GAME_IDS:
            self.fail("games", f"{len(points)} sweep points x {games} games exceed the {MAX_GAME_IDS} game ids; "
                               "expected fewer games or points")

        log = doc.get("log", False)
        if not isinstance(log, bool):
            self.fail("log", f"expected true or false, got {kind(log)}")
        workers = doc.get("workers")
        workers = os.cpu_count() or 1 if workers in (None, "auto") else \
            self.int_in("workers", workers, *WORKERS_RANGE, "a number of worker processes (or auto)")
        chunk = self.int_in("chunk_size", doc.get("chunk_size", DEFAULT_CHUNK), *CHUNK_RANGE,
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
            self.fail("backend", f"expected local or dask, got {kind(backend)}")
        if scheduler is not None and backend != "dask":
            self.fail("scheduler", "only used with backend: dask; expected backend: dask or no scheduler")
        cache_dir = self.cache_dir(doc.get("cache_dir"), backend)

        out = doc.get("output")
        if out is None:
            written = os.path.join("results", name)
        else:
            written = self.string("output", os.fspath(out) if isinstance(out, os.PathLike) else out,
                                  "a folder path or a URL")
        options = doc.get("storage_options")
        if options is not None:
            options = dict(self.mapping("storage_options", options, "a mapping of fsspec options"))
        output = self.output(written, options)

        return Experiment(
            name=name, description=description, source=self.source, rules=preset, map=map_name,
            rule_overrides=rule_overrides, players=players, seating=seating, entrants=tuple(entrants),
            seatings=seatings, games=games, games_requested=games_requested, stop=stop, seed=seed,
            sweep=tuple((k, tuple(v)) for k, v in sweep), points=tuple(points), log=log, workers=workers,
            chunk_size=chunk, backend=backend, scheduler=scheduler, output=output,
            python_time_limit=self.time_limit, worker_timeout=worker_timeout, cache_dir=cache_dir,
            storage_options=options, intervene=intervene, refit=refit,
            python_path=self.python_path if any(e.python for e in entrants) else ())

    # ---- parts
    def cache_dir(self, v, backend: str) -> str | None:
        """``cache_dir``: an absolute folder path (the workers' own file
        system: a relative one would start wherever each worker runs), with
        the Dask backend only (a local run's own process has loaded its
        kernels before it reads the file: set NUMBA_CACHE_DIR there)."""
        if v is None:
            return None
        what = "an absolute folder path every Dask worker can write (their NUMBA_CACHE_DIR)"
        v = self.string("cache_dir", os.fspath(v) if isinstance(v, os.PathLike) else v, what)
        if "\0" in v or not os.path.isabs(v):
            self.fail("cache_dir", f"expected {what}, got {v!r}")
        if backend != "dask":
            self.fail("cache_dir", "only used with backend: dask; expected backend: dask, or no cache_dir (a local "
                                   "run caches where NUMBA_CACHE_DIR says)")
        return os.path.normpath(v)

    def rule_set(self, doc: dict):
        """``rules``, ``rule_overrides`` and ``map`` of a file: (preset, rule
        overrides with the resolved map, the map given or None, the RuleSet)."""
        preset = self.string("rules", doc.get("rules", "usa"), "a rule-set preset name")
        try:
            get_rules(preset)
        except RulesError as e:
            self.fail("rules", str(e))
        rule_overrides = dict(self.mapping("rule_overrides", doc.get("rule_overrides") or {},
                                           "a mapping {rule parameter: value}"))
        map_name = None
        if doc.get("map") is not None:
            if "map" in rule_overrides:
                self.fail("map", "given twice (also in rule_overrides); expected one of them")
            map_name = self.resolve_map("map", doc["map"])
        elif "map" in rule_overrides:
            map_name = self.resolve_map("rule_overrides.map", rule_overrides["map"])
        if map_name is not None:
            rule_overrides["map"] = map_name
        for k in rule_overrides:
            if k not in PARAM_BY_NAME:
                self.fail(f"rule_overrides.{k}", f"unknown rule parameter{did_you_mean(k, PARAM_BY_NAME)}")
        return preset, rule_overrides, map_name, self.rules(preset, rule_overrides, "rule_overrides")

    def resolve_map(self, where, value) -> str:
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
            self.fail(where, f"unknown map '{v}'{did_you_mean(v, available_maps())} (or a path to a .yaml map file)")
        try:
            load_map(v)
        except MapError as e:
            more = f" (and {len(e.problems) - 1} more)" if len(e.problems) > 1 else ""
            self.fail(where, f"bad map file: {e.problems[0]}{more}")
        return v

    def rules(self, preset, overrides, where):
        """The rules of ``preset`` with ``overrides``, their board built (they fit the map): once per process."""
        try:
            from .points import resolved_rules  # (loads the compiled board record)
            return resolved_rules(preset, overrides)
        except RulesError as e:
            msg = str(e)
            m = re.match(r"rule parameter '(\w+)'", msg)
            self.fail(f"{where}.{m.group(1)}" if m else where, msg)

    def entrants(self, where, value) -> list[Entrant]:
        from ttrsim.strategies import REGISTRY, STRATEGY_NAMES, StrategyError, param_row
        if not isinstance(value, list) or not value:
            self.fail(where, f"expected a list of strategies, got {kind(value)}")
        out, labels = [], {}
        for i, item in enumerate(value):
            w = f"{where}[{i}]"
            if isinstance(item, str):
                item = {"strategy": item}
            if not isinstance(item, dict):
                self.fail(w, f"expected a strategy name, {{strategy, params, label}} or {{python, params, label}}, "
                             f"got {kind(item)}")
            for k in item:
                if k not in ENTRANT_KEYS:
                    self.fail(f"{w}.{k}", f"unknown key{did_you_mean(k, ENTRANT_KEYS)}")
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
                        did_you_mean(name, STRATEGY_NAMES)
                    self.fail(f"{w}.strategy", f"unknown strategy '{name}'{hint}")
                given, src = item.get("params") or {}, ""
                if isinstance(given, str):      # a fitted set: results/tune_x/best.yaml (ttrsim tune)
                    given, src = self.params_file(f"{w}.params", given)
                params = dict(self.mapping(f"{w}.params", given, "a mapping {parameter: number}" + src))
                for k, v in params.items():
                    try:
                        param_row(name, {k: v})
                    except StrategyError as e:      # a bad value: the field names the parameter
                        self.fail(f"{w}.params.{k}", (e.problem if e.param == k else str(e)) + src)
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

    def python_params(self, where, ref, params) -> dict:
        """The constructor of Python strategy ``ref`` must accept ``params``
        (JSON-like values) within the time limit; returns every constructor
        argument (defaults filled in, as JSON values)."""
        from ttrsim.play.pyplay import StrategyLoadError, check_strategy_params
        try:
            key = (ref, json.dumps(params, sort_keys=True))
        except (TypeError, ValueError):
            self.fail(where, "expected values that are numbers, text, true/false, lists or mappings")
        if key not in self.python_full:
            try:
                full = check_strategy_params(self.classes[ref], ref, params, self.time_limit)
            except StrategyLoadError as e:
                self.fail(f"{where}.{e.param}" if e.param and where.endswith(".params") else where, str(e))
            self.python_full[key] = json.loads(json.dumps(full, sort_keys=True, default=repr))
        return self.python_full[key]

    def params_file(self, where, value) -> tuple:
        """A lineup's ``params`` given as a path: the mapping of that YAML file
        (``best.yaml`` of ``ttrsim tune``) and `` (in FILE)`` for messages about
        its values. Relative paths start at the experiment file, then the
        current folder."""
        from ttrsim.data.yamlfile import YamlError, read_yaml
        p = Path(value.strip())
        if not p.is_absolute():
            p = next((c for c in (self.base / p, Path.cwd() / p) if c.is_file()), self.base / p)
        if not p.is_file():
            self.fail(where, f"parameter file not found at {p.resolve()}; expected a mapping or a .yaml file of "
                             "parameters such as a tune's best.yaml (relative paths start at the experiment file, "
                             "then the current folder)")
        try:
            doc = read_yaml(p, what="a YAML file of parameters", expected="a mapping {parameter: number}")
        except YamlError as e:
            self.fail(where, str(e))
        return ({} if doc is None else doc), f" (in {p.name})"

    def stop(self, value, entrants, block) -> StopRule:
        self.mapping("stop", value, "a mapping {strategy, width, min_games, max_games}")
        for k in value:
            if k not in STOP_KEYS:
                self.fail(f"stop.{k}", f"unknown key{did_you_mean(k, STOP_KEYS)}")
        labels = [e.label for e in entrants]
        if "strategy" not in value:
            self.fail("stop.strategy", f"missing; expected the label whose win rate decides: {', '.join(labels)}")
        lab = value["strategy"]
        if lab not in labels:
            self.fail("stop.strategy", f"'{lab}' is not at the table{did_you_mean(lab, labels)}")
        if "width" not in value:
            self.fail("stop.width", "missing; expected the width of the 95% interval to reach, e.g. 0.02")
        width = value["width"]
        if not is_number(width) or not 0 < width < 1:
            self.fail("stop.width", f"expected a number between 0 and 1, got {kind(width)}")
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
                    self.fail(w, f"unknown rule parameter '{parts[1]}'{did_you_mean(parts[1], PARAM_BY_NAME)}")
                if parts[1] == "map":
                    self.fail(w, "the map cannot be swept; expected one experiment per map")
            elif parts[0] == "strategies" and len(parts) == 3:
                if parts[1] not in labels:
                    self.fail(w, f"no strategy labelled '{parts[1]}' at the table{did_you_mean(parts[1], labels)}")
            else:
                self.fail(w, "expected a key rules.PARAMETER or strategies.LABEL.PARAMETER")
            if not isinstance(values, list) or not values:
                self.fail(w, f"expected a non-empty list of values, got {kind(values)}")
            out.append((key, values))
        return out

    def styles(self, value, entrants) -> list:
        """``styles: [routes, balanced, tickets]`` as the sweep axis ``("style", [...])`` (docs/experiments.md)."""
        from ttrsim.strategies import STYLE_FAMILY, STYLES
        if value is None:
            return []
        if not isinstance(value, list) or not value:
            self.fail("styles", f"expected a non-empty list of styles from: {', '.join(STYLES)}, got {kind(value)}")
        for i, v in enumerate(value):
            if not isinstance(v, str) or v not in STYLES:
                hint = did_you_mean(v, STYLES) if isinstance(v, str) else ""
                self.fail(f"styles[{i}]", f"unknown style {kind(v)}{hint}; expected one of: {', '.join(STYLES)}")
        if len(set(value)) < len(value):
            self.fail("styles", "a style is listed twice; expected each style once")
        if not any(e.strategy in STYLE_FAMILY and not e.python for e in entrants):
            self.fail("styles", f"no seat plays a style; expected a lineup with one of: {', '.join(STYLE_FAMILY)}")
        return [("style", list(value))]

    def points(self, preset, rule_overrides, entrants, sweep, players, intervene=None) -> list[Point]:
        from ttrsim.strategies import STYLE_FAMILY, StrategyError, param_row, style_params
        keys = [k for k, _ in sweep]
        grids = list(itertools.product(*[v for _, v in sweep])) if sweep else [()]
        labels = [e.label for e in entrants]
        points = []
        for i, combo in enumerate(grids):
            ro = dict(rule_overrides)
            eparams = [dict(e.params) for e in entrants]
            values = {}

            def change(key, v, w):
                parts = key.split(".")
                if parts[0] == "rules":
                    ro[parts[1]] = v
                    try:
                        get_rules(preset, {parts[1]: v})
                    except RulesError as e:
                        self.fail(w, f"value {kind(v)}: {e}")
                    return
                e_i = labels.index(parts[1])
                if entrants[e_i].python:
                    eparams[e_i][parts[2]] = v
                    self.python_params(w, entrants[e_i].strategy, eparams[e_i])
                    return
                try:
                    param_row(entrants[e_i].strategy, {parts[2]: v})
                except StrategyError as e:
                    self.fail(w, e.problem if e.param == parts[2] else str(e))
                eparams[e_i][parts[2]] = float(v)

            for key, v in zip(keys, combo):
                values[key] = v
                if key == "style":          # every planner seat plays the style; its own params over it
                    for e_i, e in enumerate(entrants):
                        if e.strategy in STYLE_FAMILY and not e.python:
                            eparams[e_i] = {**style_params(e.strategy, v, preset, players), **eparams[e_i]}
                elif key == "arm":        # the last axis
                    before, before_params = dict(ro), [dict(p) for p in eparams]
                    for k, x in intervene["arms"][v]:
                        change(k, x, f"intervene.{intervene['key']}")
                else:
                    change(key, v, f"sweep.{key}")
            arm = values.get("arm", "control")
            where = "intervene" if arm != "control" else "sweep" if sweep else "rule_overrides"
            rules = self.rules(preset, ro, where)
            resolved = lambda ps: tuple(self.python_params("sweep", e.strategy, p) if e.python else  # noqa: E731
                                        compiled_params(e.strategy, p) for e, p in zip(entrants, ps))
            full = resolved(eparams)
            if arm != "control" and rules == self.rules(preset, before, where) and full == resolved(before_params):
                self.fail(f"intervene.{intervene['key']}", f"the arm '{arm}' changes nothing; expected values "
                                                          "other than the control's")
            self.players_fit(rules, players, "players")
            points.append(Point(index=i, values=values, rule_overrides=ro, entrant_params=tuple(eparams),
                                full_params=full, rules=rules))
        return points

    def players_fit(self, rules, players, where):
        """The rule set must be able to deal ``players`` seats (tickets, cards)
        and seat the one offered a ticket (R9.1)."""
        try:
            check_offer_seat(bool(rules.offer_ticket), rules.offer_seat, players)
        except RulesError as e:
            self.fail(where, str(e))
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

    def output(self, written: str, options: dict | None) -> Path | str:
        """``output``: a folder (:meth:`check_output`), or a URL whose file
        system is known and installed (a ``file://`` URL's folder checked
        like a folder); ``storage_options`` only with a URL."""
        from ttrsim.results.store import filesystem, is_local, is_url
        if not is_url(written):
            if options is not None:
                self.fail("storage_options", "only used with an output URL (s3://BUCKET/FOLDER); expected no "
                                             "storage_options for the folder " + written)
            output = Path(os.path.abspath(written))
            self.check_output(output, written)
            return output
        try:
            fs, path = filesystem(written, options)
        except ValueError as e:
            self.fail("output", str(e))
        if is_local(fs):
            self.check_output(Path(path), written)
        return written.rstrip("/")

    def check_output(self, output: Path, written: str):
        """The folder must be creatable and writable (nothing is created here),
        its path not too long for the file system, and inside the current
        folder when the file names it (``written``: the path as the file gives it)."""
        cwd = Path.cwd()
        if not self.output_given and os.path.commonpath([output, cwd]) != str(cwd):
            self.fail("output", f"{written!r} is outside the current folder {cwd}; expected a folder inside it "
                                "(a folder elsewhere is given on the command line: --output DIR)")
        for part in output.parts:
            if len(os.fsencode(part)) > NAME_MAX:
                self.fail("output", f"the folder name {part[:20]}... has {len(os.fsencode(part))} bytes, more than "
                                    f"the file system allows; expected at most {NAME_MAX}")
        if len(os.fsencode(str(output))) + _LONGEST_INSIDE > PATH_MAX:
            self.fail("output", f"the path of {str(output)[:40]}... is too long for the file system; expected at "
                                f"most {PATH_MAX - _LONGEST_INSIDE} bytes")
        p = output
        while not p.exists():
            if p.parent == p:
                break
            p = p.parent
        if not p.is_dir():
            self.fail("output", f"{output} cannot be created: {p} is not a folder; expected a writable folder path")
        if not os.access(p, os.W_OK | os.X_OK):
            self.fail("output", f"{output} is not writable ({p} is read-only); expected a writable folder path")
