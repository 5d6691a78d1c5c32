"""Open a results folder (``ttrsim run`` output): the one reader of results,
used by the run summary (:mod:`ttrsim.results.summary`) and by the report
(:mod:`ttrsim.report`, which names it ``ttrsim.report.dataset``).

A :class:`Results` reads only the folder: ``manifest.json``, the description
files ``map.json`` and ``rules.json`` (the map and the rule set of every sweep
point the games were played with, :mod:`ttrsim.results.folder`) and the
Parquet tables. It never loads the map file nor resolves a preset again, so a
folder moved to another machine, or made before its map file was edited, reads
as it was played. The tables are scanned lazily (``polars.scan_parquet``) over
the part files of the chunks the manifest lists, so a statistic over millions
of games never loads a whole table. Columns and names are described in
``docs/experiments.md``.

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4, "seed": 1,
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> res = Results.open(path)
>>> res.labels, res.players, res.rules, res.n_games
(['random', 'route_focus'], 2, 'usa', 4)
>>> res.scan("players").group_by("strategy").agg(pl.col("total").mean()).sort("strategy").collect().rows()
[('random', -46.5), ('route_focus', 143.5)]
>>> tmp.cleanup()

A folder at a URL (``Results.open("s3://bucket/run")``, with the file
system's environment variables or ``storage_options``: docs/cluster.md)
reads the same, through fsspec (``scan`` is a ``polars.scan_pyarrow_dataset``
over the part files).

A folder whose run is not complete (interrupted, failed, still running) opens
fine: the statistics cover the chunks finished so far, ``res.complete`` is
False and ``res.note`` says so in one line. Every part file is checked
against the manifest (size, rows, the experiment's tag and the SHA-256
recorded with its chunk; a chunk recorded before checksums is read whole
instead: :func:`ttrsim.results.folder.check_part`); a chunk with a missing,
damaged or foreign part file is left out of every table, and the note says so,
naming the first such file. A folder whose run stopped before its first chunk
was recorded says so (:class:`ResultsError`).
"""
from __future__ import annotations

import functools
import json
import os
import socket
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.dataset as pds
import pyarrow.parquet as pq
from pyarrow.fs import FSSpecHandler, PyFileSystem

from ttrsim.data.maps import MapData
from ttrsim.data.rules import RuleSet

from .folder import DIMS, LOCK, MANIFEST, MAP_FILE, RULES_FILE, TABLES, Folder, map_from_json, rule_set_from_json
from .store import ENV_HINT, is_url, live_owner, results_folder

__all__ = ["Results", "ResultsError", "TABLES", "DIMS", "READ_ERRORS"]

# what polars raises reading a damaged part file (``ComputeError``: "zstd error: Data corruption detected"; and
# pyarrow's own, through a folder at a URL)
READ_ERRORS = (pl.exceptions.ComputeError, OSError, pa.ArrowException)


class ResultsError(ValueError):
    """A results folder that cannot be read; the message is one line naming
    the folder and what is wrong."""


class Results:
    """A results folder: the manifest, its map and rules, and lazy scans over its tables."""

    def __init__(self, folder: Folder, manifest: dict, files: dict[str, list[str]], note: str | None,
                 map_data: MapData, rules: dict[int, RuleSet]):
        self.folder = folder
        self.path: Path | str = folder.root          # a folder, or a URL
        self.manifest = manifest
        self._files = files
        self.note = note
        self.map = map_data
        self._rules = rules
        cfg = manifest["config"]
        layout = manifest["layout"]
        self.name: str = cfg.get("name", Path(str(self.path)).name)
        self.status: str = manifest.get("status", "unknown")
        self.complete: bool = self.status == "complete"
        self.labels: list[str] = [e["label"] for e in cfg["entrants"]]
        self.players: int = int(cfg["players"])
        self.rules: str = cfg["rules"]
        self.stride: int = int(layout["stride"])
        self.block_size: int = int(layout["block_size"])
        self.seatings: list[list[int]] = [list(s) for s in cfg["seatings"]]
        self.sweep_keys: list[str] = [k for k, _ in cfg.get("sweep") or []]
        self.has_turns: bool = bool(files.get("turns"))
        self._memo: dict = {}

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path, storage_options: dict | None = None) -> Results:
        """Open ``path`` (a results folder, a URL with the fsspec
        ``storage_options`` of its file system, or a :class:`Folder`; a
        :class:`Results` is returned as is). Raises :class:`ResultsError` for a
        missing folder, a missing or unreadable ``manifest.json``, ``map.json``
        or ``rules.json``, no part files, or a URL that cannot be read."""
        if isinstance(path, Results):
            return path
        folder = path if isinstance(path, Folder) else _folder(path, storage_options)
        try:
            if folder.fs is None and not folder.root.is_dir():
                raise ResultsError(f"{folder.root}: no such results folder")
            if not folder.has_manifest():
                raise ResultsError(f"{folder.root}: no {MANIFEST}; expected the output folder of 'ttrsim run'")
            return cls.from_manifest(folder, _read_json(folder, MANIFEST))
        except OSError as e:            # a URL's store cannot be reached, or refuses these credentials
            raise ResultsError(f"{folder.root}: cannot be read ({e.strerror or e}); expected a results folder "
                               f"reachable with these settings ({ENV_HINT})") from None

    @classmethod
    def from_manifest(cls, path, manifest: dict, check: bool = True) -> Results:
        """The folder ``path`` (a path or a :class:`Folder`) as ``manifest``
        describes it (the runner passes the folder and the manifest it holds
        in memory, and ``check=False``: it has just checked or written every
        part file)."""
        folder = path if isinstance(path, Folder) else _folder(path)
        path = folder.root
        try:
            cfg, layout = manifest["config"], manifest["layout"]
            cfg["entrants"], cfg["players"], cfg["rules"], cfg["seatings"]
            layout["stride"], layout["block_size"]
        except (KeyError, TypeError) as e:
            raise ResultsError(f"{path}: {MANIFEST} is unreadable ({type(e).__name__}: {e})") from None
        chunks = manifest.get("chunks") or {}
        if not isinstance(chunks, dict):
            raise ResultsError(f"{path}: {MANIFEST} is unreadable (chunks: not a mapping)")
        if not chunks:
            raise ResultsError(_nothing_recorded(folder, manifest))
        map_data, rules = _description(folder)
        tables = [t for t in TABLES if t != "turns" or cfg.get("log")]
        files: dict[str, list[str]] = {t: [] for t in TABLES}
        missing, damaged = [], []
        for key in sorted(chunks):
            # unchecked: the run's own folder, whose parts it has just written (at a URL, not even looked at:
            # a request per part)
            why = {t: folder.check(t, key, chunks[key], manifest.get("config_hash"), decode=True) if check else
                   None if folder.fs is not None or folder.part(t, key).is_file() else "missing" for t in tables}
            bad = [f"{t}/part-{key}.parquet: {w}" for t, w in why.items() if w]
            if bad:
                (missing if "missing" in why.values() else damaged).append(bad[0])
                continue
            for t in tables:
                files[t].append(str(folder.part(t, key)))
        if not files["games"] or not files["players"]:
            first = (damaged + missing)[0]
            raise ResultsError(f"{path}: no part files to read: every chunk the manifest lists misses or has damaged "
                               f"part files ({first}); run its experiment again on this folder to play them again")
        notes = []
        status = manifest.get("status", "unknown")
        if status != "complete":
            games = sum(int(c["hi"]) - int(c["lo"]) for c in chunks.values())
            planned = int(layout.get("games_per_point", 0)) * len(cfg.get("points") or [0])
            notes.append(f"run status is '{status}'; {games:,} of {planned:,} games")
        if missing:
            notes.append(f"{_chunks(missing, 'listed in the manifest miss', 'listed in the manifest misses')} part "
                         f"files (left out: {missing[0]}{', ...' if len(missing) > 1 else ''})")
        if damaged:
            notes.append(f"{_chunks(damaged, 'have', 'has')} damaged part files or ones of another experiment (left "
                         f"out; running the experiment again replays them: {damaged[0]}"
                         f"{', ...' if len(damaged) > 1 else ''})")
        note = f"{path}: " + "; ".join(notes) if notes else None
        return cls(folder, manifest, files, note, map_data, rules)

    def __repr__(self):
        return f"Results({str(self.path)!r}: {self.rules}, {self.players} players, {self.n_games:,} games)"

    # ------------------------------------------------------------------ config

    @property
    def map_name(self) -> str:
        """The packaged map name or the map file path the experiment used (the
        map itself is ``map``, as the games were played on it)."""
        return self.rules_at(0).map

    def rules_at(self, point: int = 0) -> RuleSet:
        """The resolved rule set (``ttrsim.data.rules.RuleSet``) of a sweep point, as played."""
        return self._rules[int(point)]

    @property
    def base_rules(self) -> RuleSet | None:
        """The experiment's rules without the sweep (preset, rule_overrides, map), as
        the folder records them; None for a folder written before they were recorded."""
        return self._rules.get(None)

    @functools.cached_property
    def points(self) -> pl.DataFrame:
        """``point`` (UInt16) and one column per swept key with its value at that
        point: numbers stay numbers, anything else is JSON text."""
        pts = self.manifest["config"].get("points") or [{"point": 0, "values": {}}]
        cols: dict[str, list] = {"point": [int(p["point"]) for p in pts]}
        for key in self.sweep_keys:
            vals = [p.get("values", {}).get(key) for p in pts]
            numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)
            cols[key] = vals if numeric else [v if isinstance(v, str) else json.dumps(v, sort_keys=True)
                                              for v in vals]
        df = pl.DataFrame(cols, strict=False)
        return df.with_columns(pl.col("point").cast(pl.UInt16))

    @property
    def point_ids(self) -> list[int]:
        return self.points["point"].to_list()

    @functools.cached_property
    def point_values(self) -> dict[int, dict]:
        """point -> its sweep values as the manifest holds them ({} without a sweep)."""
        pts = self.manifest["config"].get("points") or [{"point": 0, "values": {}}]
        return {int(p["point"]): dict(p.get("values") or {}) for p in pts}

    # ------------------------------------------------------------------ tables

    def scan(self, table: str) -> pl.LazyFrame:
        """A lazy scan of ``games``, ``players``, ``tickets`` or ``turns`` over the
        finished chunks. Adds ``block`` (seed block = game-in-point // block_size)
        to the tables that lack it."""
        if table not in TABLES:
            raise ResultsError(f"{self.path}: unknown table '{table}'; expected one of {', '.join(TABLES)}")
        files = self._files.get(table) or []
        if not files:
            if table == "turns":
                raise ResultsError(f"{self.path}: no turns table; run the experiment with log: true")
            raise ResultsError(f"{self.path}: no part files for table '{table}'")
        lf = self.scan_files(files)
        if table != "games":
            lf = lf.with_columns(self.block_expr())
        return lf

    def scan_files(self, files: list[str]) -> pl.LazyFrame:
        """A lazy scan of some part files of one table (of ``_files``: a
        folder at a URL is read through its fsspec file system, which polars'
        own cloud reader does not take)."""
        fs = self.folder.fs
        if fs is None:
            return pl.scan_parquet(files)
        return pl.scan_pyarrow_dataset(pds.FileSystemDataset.from_paths(
            files, schema=pq.read_schema(files[0], filesystem=fs), format=pds.ParquetFileFormat(),
            filesystem=PyFileSystem(FSSpecHandler(fs))))

    def part_files(self, table: str) -> list[str]:
        """The part files of ``table`` that ``scan`` reads: those of the chunks
        the manifest lists whose files check out, in chunk order."""
        if table not in TABLES:
            raise ResultsError(f"{self.path}: unknown table '{table}'; expected one of {', '.join(TABLES)}")
        files = list(self._files.get(table) or [])
        return files if self.folder.fs is None else [self.folder.fs.unstrip_protocol(f) for f in files]

    def block_expr(self, game: str = "game") -> pl.Expr:
        """``block`` from the game id: (game % stride) // block_size, UInt32."""
        g = pl.col(game).cast(pl.Int64)
        return ((g % self.stride) // self.block_size).cast(pl.UInt32).alias("block")

    def seating_expr(self, game: str = "game") -> pl.Expr:
        """``seating`` within the block from the game id, UInt16."""
        g = pl.col(game).cast(pl.Int64)
        return ((g % self.stride) % self.block_size).cast(pl.UInt16).alias("seating")

    @functools.cached_property
    def strategy_dtype(self) -> pl.Enum:
        """An ``Enum`` over the labels in entrant order (fast group-bys)."""
        return pl.Enum(self.labels)

    @functools.cached_property
    def seat_strategies(self) -> pl.DataFrame:
        """seating, seat -> strategy (Enum of the labels), from the manifest's
        seatings: used to name the seat of a turn without joining ``players``."""
        rows = [(k, seat, self.labels[e]) for k, s in enumerate(self.seatings) for seat, e in enumerate(s)]
        return pl.DataFrame(rows, schema={"seating": pl.UInt16, "seat": pl.Int8, "strategy": self.strategy_dtype},
                            orient="row")

    def with_strategy(self, lf: pl.LazyFrame) -> pl.LazyFrame:
        """Add ``strategy`` (Enum) to a frame with ``game`` and ``seat`` columns."""
        return (lf.with_columns(self.seating_expr(), pl.col("seat").cast(pl.Int8))
                .join(self.seat_strategies.lazy(), on=["seating", "seat"], how="left"))

    def dim(self, name: str) -> pl.DataFrame:
        """A dimension table: ``routes``, ``tickets``, ``strategies`` or ``points``."""
        if name not in DIMS:
            raise ResultsError(f"{self.path}: unknown dimension '{name}'; expected one of {', '.join(DIMS)}")
        f = self.folder.file("dims", f"{name}.parquet")
        if not self.folder.exists("dims", f"{name}.parquet"):
            raise ResultsError(f"{self.path}: dims/{name}.parquet is missing")
        if self.folder.fs is None:
            return pl.read_parquet(f)
        return pl.from_arrow(pq.read_table(f, filesystem=self.folder.fs))

    @functools.cached_property
    def games_by_point(self) -> pl.DataFrame:
        """point, games: the games finished at each point."""
        return (self.scan("games").group_by("point").agg(pl.len().cast(pl.Int64).alias("games"))
                .sort("point").collect())

    @property
    def n_games(self) -> int:
        return int(self.games_by_point["games"].sum())

    def caption(self) -> str:
        """A one-line description for chart captions, e.g. ``'quickstart: usa, 4 players, 20,000 games'``."""
        pts = len(self.point_ids)
        per = f", {pts} sweep points" if pts > 1 else ""
        return f"{self.name}: {self.rules}, {self.players} players, {self.n_games:,} games{per}"

    def memo(self, key, compute):
        """``compute()`` once per Results and key: for intermediate tables that
        several statistics share (small: already aggregated)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def require_turns(self, what: str) -> None:
        """Raise ResultsError unless the turn log was written."""
        if not self.has_turns:
            raise ResultsError(f"{self.path}: {what} needs the turn log; run the experiment with log: true")


def _chunks(files: list, plural: str, singular: str) -> str:
    """``N chunks <verb>``, in number."""
    many = len(files) > 1
    return f"{len(files)} chunk{'s' if many else ''} {plural if many else singular}"


def _nothing_recorded(folder: Folder, manifest: dict) -> str:
    """The one line of a folder whose manifest lists no chunk: a run stopped
    before its first chunk was recorded, or one still starting."""
    exp, path = manifest.get("experiment_path") or "FILE", folder.root
    owner = _live_owner(path) if folder.fs is None else live_owner(folder)
    if owner is not None:
        return (f"{path}: no game recorded yet: its run (pid {owner}) is still starting; expected a folder with a "
                "finished chunk: report it once the run has played one")
    return (f"{path}: no game recorded: its run was stopped before it recorded any game (manifest status "
            f"'{manifest.get('status', 'unknown')}'); resume it with the same 'ttrsim run' command "
            f"('ttrsim run {exp} --output {path}')")


def _live_owner(path: Path) -> int | None:
    """The pid of a live process on this host named by the folder's lock file, else None."""
    try:
        info = json.loads((path / LOCK).read_text() or "null")
        pid = int(info["pid"]) if isinstance(info, dict) and info.get("host") == socket.gethostname() else None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if pid is None or pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass                              # alive, another user's
    return pid


def _folder(path, storage_options: dict | None = None) -> Folder:
    """The folder of a path or a URL (a URL that names no known, installed file system: one line)."""
    try:
        return results_folder(path if is_url(path) else Path(path), storage_options)
    except ValueError as e:
        raise ResultsError(str(e)) from None


def _read_json(folder: Folder, name: str) -> dict:
    try:
        return json.loads(folder.read_bytes(folder.file(name)))
    except (ValueError, UnicodeDecodeError) as e:
        raise ResultsError(f"{folder.root}: {name} is unreadable ({type(e).__name__}: {e})") from None


def _description(folder: Folder) -> tuple[MapData, dict[int, RuleSet]]:
    """The map and the rules per point from ``map.json`` and ``rules.json``
    (key ``None``: the rules without the sweep, where the folder has them)."""
    path = folder.root
    for name in (MAP_FILE, RULES_FILE):
        if not folder.exists(name):
            raise ResultsError(f"{path}: no {name} (a folder of an older ttrsim); run its experiment again on "
                               f"this folder ('ttrsim run FILE --output {path}') to add it")
    map_doc, rules_doc = _read_json(folder, MAP_FILE), _read_json(folder, RULES_FILE)
    try:
        m = map_from_json(map_doc)
    except (KeyError, TypeError, ValueError) as e:
        raise ResultsError(f"{path}: {MAP_FILE} is unreadable ({type(e).__name__}: {e})") from None
    try:
        rules = {int(p["point"]): rule_set_from_json(p) for p in rules_doc["points"]}
        if "base" in rules_doc:
            rules[None] = rule_set_from_json(rules_doc["base"])
    except (KeyError, TypeError, ValueError) as e:
        raise ResultsError(f"{path}: {RULES_FILE} is unreadable ({type(e).__name__}: {e})") from None
    return m, rules
