"""The schema of an experiment: its keys, defaults and limits, and the frozen
config (:class:`Experiment` with its :class:`Entrant`, :class:`StopRule` and
:class:`Point`) that :func:`ttrsim.experiment.config.load_experiment` returns
after :mod:`ttrsim.experiment.validator` has checked a file."""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ttrsim.data.rules import RuleSet, get_rules
from ttrsim.results.errors import ExperimentError  # noqa: F401 (re-exported)

from .seating import chunk_games, game_stride

BACKENDS = ("local", "dask")
PLAYERS_RANGE = (2, 5)
MAX_GAME_IDS = 2 ** 32 - 1
DEFAULT_CHUNK = 2000
DEFAULT_MIN_GAMES = 1000
DEFAULT_TIME_LIMIT = 10.0       # python_time_limit (ttrsim.play.guard.DEFAULT_TIME_LIMIT)
DEFAULT_WORKER_TIMEOUT = 60.0   # worker_timeout
# the limits of the checks (ttrsim.experiment.validator) that the file's JSON Schema gives too
# (ttrsim.experiment.file_schema, `ttrsim schema --experiment`)
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"      # name: a folder name
LABEL_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_+-]*$"    # an entrant's label (no dots: sweep keys split at them)
SEED_RANGE = (0, 2 ** 63 - 1)
WORKERS_RANGE = (1, 1024)
CHUNK_RANGE = (1, 10_000_000)
MAX_SECONDS = 86400.0           # python_time_limit, worker_timeout: in (0, MAX_SECONDS]

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
    "styles": "planner styles to play in turn, from routes, balanced, tickets (a sweep axis 'style')",
    "intervene": "one change played against the unchanged arm on the same deals: offer_ticket, remove_route, "
                 "rules.PARAM or strategies.LABEL.PARAM with a list of values (a sweep axis 'arm')",
    "refit": "re-fit entrants at every sweep point before it plays, {label, fit, budget, ...} or a list of them "
             "(a strategy tune each; ttrsim run)",
    "log": "turn-level logging (the turns table) on or off (default false)",
    "workers": "worker processes (default: every core)",
    "chunk_size": "games per chunk / part file (default 2000, rounded to whole blocks)",
    "backend": "local (joblib processes) or dask",
    "scheduler": "dask scheduler address tcp://HOST:PORT; none starts a local Dask cluster",
    "output": "results folder (default results/<name>); in the file: a folder inside the current folder, or a URL "
              "(s3://BUCKET/FOLDER: docs/cluster.md)",
    "python_time_limit": "seconds a Python strategy may take for one decision or its constructor (default 10)",
    "worker_timeout": "seconds to wait for a Dask worker while none is connected (default 60)",
    "cache_dir": "Dask: an absolute folder every worker caches the compiled kernels in (NUMBA_CACHE_DIR), e.g. shared",
    "storage_options": "an output URL's fsspec options (endpoint_url, key, secret, ...), for this process and the "
                       "workers; recorded with secrets hidden",
}
ENTRANT_KEYS = ("strategy", "python", "params", "label")
STOP_KEYS = ("strategy", "width", "min_games", "max_games")
# execution settings: they never change results, so resuming may change them
EXECUTION_KEYS = ("workers", "chunk_size", "backend", "scheduler", "output", "python_time_limit", "worker_timeout",
                  "cache_dir", "storage_options")


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
    full_params: tuple = ()  # per entrant, every parameter's value at this point (defaults filled in)
    rules: RuleSet | None = field(default=None, compare=False, repr=False)   # resolved once, by the validator


@dataclass(frozen=True)
class Experiment:
    """A checked experiment: defaults filled in, maps resolved, games rounded up to
    whole seed blocks and the sweep grid expanded into :class:`Point` s."""
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
    output: Path | str      # a folder, or a URL (ttrsim.results.store)
    python_time_limit: float = DEFAULT_TIME_LIMIT
    worker_timeout: float = DEFAULT_WORKER_TIMEOUT
    cache_dir: str | None = None  # Dask: the workers' NUMBA_CACHE_DIR
    storage_options: dict | None = None  # an output URL's fsspec options
    intervene: dict | None = None  # kind, key, seat, kept, arms {label: [(sweep key, value)]} (intervene.arms)
    refit: tuple = ()        # entries {label, fit, budget, ...} re-fitted at every point (ttrsim.experiment.refit)
    refits: tuple = ()       # per point {label: {params, games, stopped, folder}} once fitted (not part of the config:
    #                          the fitted parameters are in the points)
    python_path: tuple = ()  # folders searched for Python strategy modules (not part of the config)

    @property
    def block_size(self) -> int:
        return len(self.seatings)

    @property
    def stride(self) -> int:
        """Game ids of point p are ``p * stride + n`` (in a new folder;
        :func:`ttrsim.experiment.seating.game_stride`)."""
        return game_stride(self.games, len(self.points))

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
            **({"intervene": self.intervene} if self.intervene else {}),
            **({"refit": list(self.refit)} if self.refit else {}),
        })

    def identity(self) -> dict:
        """What decides the games, resolved: :meth:`config` without ``games``
        (a run may grow) and with every point's rule parameters and every
        entrant's parameters written out, defaults included. Writing a default
        out (``map: usa``, ``rule_overrides: {max_turns: 1000}``) leaves it
        unchanged; a later ttrsim whose defaults changed changes it."""
        c = self.config()
        del c["games"]
        c["points"] = [{"point": p.index, "values": _jsonable(p.values),
                        "rules": _jsonable(self.rules_for(p).params()), "params": _jsonable(list(p.full_params))}
                       for p in self.points]
        for key in ("map", "rule_overrides"):
            del c[key]           # in every point's rules
        for e in c["entrants"]:
            del e["params"]      # in every point's params
        return c

    def config_hash(self) -> str:
        """A short hash of :meth:`identity`: every part file is tagged with it."""
        return hashlib.sha1(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:16]

    def execution(self) -> dict:
        """How a run plays (never changes the results); ``chunk_size`` is the
        one used, in whole seed blocks (a resume keeps its folder's)."""
        return {"workers": self.workers, "chunk_size": self.chunk_games, "backend": self.backend,
                "scheduler": self.scheduler, "output": str(self.output), "python_time_limit": self.python_time_limit,
                "worker_timeout": self.worker_timeout, "cache_dir": self.cache_dir,
                "storage_options": redacted(self.storage_options)}

    def rules_for(self, point: Point) -> RuleSet:
        """The rules of a sweep point: resolved once, by the validator (a
        point made otherwise resolves them here)."""
        return point.rules if point.rules is not None else get_rules(self.rules, point.rule_overrides)

    def base_rules(self):
        """The rules without the sweep: the preset, the file's rule_overrides and its map."""
        return get_rules(self.rules, {**self.rule_overrides, **({"map": self.map} if self.map else {})})


def compiled_params(strategy: str, overrides: dict) -> dict:
    """Every parameter of a compiled strategy with its value (defaults filled in): a point's ``full_params``."""
    from ttrsim.strategies import REGISTRY, param_row
    row = param_row(strategy, overrides)
    return {p.name: float(row[i]) for i, p in enumerate(REGISTRY[strategy].params)}


SECRET = re.compile(r"secret|key|token|password|credential|session|signature|sas", re.IGNORECASE)


def redacted(options):
    """``options`` with the values of secret-looking keys (key, secret, token, password, ...) hidden: the
    storage options as the manifest records them.

    >>> redacted({"key": "AKIA", "secret": "x", "client_kwargs": {"endpoint_url": "http://127.0.0.1:9000"}})
    {'key': '<hidden>', 'secret': '<hidden>', 'client_kwargs': {'endpoint_url': 'http://127.0.0.1:9000'}}
    """
    if isinstance(options, dict):
        return {k: "<hidden>" if SECRET.search(str(k)) else redacted(v) for k, v in options.items()}
    if isinstance(options, list):
        return [redacted(v) for v in options]
    return options


def _jsonable(d):
    """Round-trip through JSON (int keys of a scoring table become text)."""
    return json.loads(json.dumps(d, sort_keys=True, default=list))
