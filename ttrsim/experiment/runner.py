"""Run an experiment: chunks of games on worker processes into a results folder.

:func:`run_experiment` (and ``ttrsim run``) validates the experiment, plans the
chunks of every sweep point (whole seed blocks, ``chunk_size`` games), and runs
them on a backend:

* ``local``: joblib's loky process pool (``workers`` processes; one worker runs
  in this process), kept warm between calls;
* ``dask``: a ``distributed`` cluster at ``scheduler``, or a ``LocalCluster``
  of ``workers`` processes started for the run.

A worker plays a chunk with the compiled loop (:mod:`ttrsim.play.chunk`), flushing
the turn log into Arrow tables whenever it fills, and returns each table as
Parquet bytes with per-block win statistics. This process writes every part
file atomically (``<table>/part-<point>-<chunk>.parquet`` via a temporary file
and ``os.replace``), then records the chunk in ``manifest.json`` (also written
atomically). Memory stays bounded: at most ``2 x workers`` chunks are in flight.

Resume: running the same experiment on the same folder skips the chunks the
manifest lists and recomputes the rest (part files without a manifest entry,
e.g. after ``kill -9``, are deleted first); a game's result depends only on the
experiment seed and its number, so the tables end up identical to an
uninterrupted run. A different experiment in the folder is refused unless
``overwrite``. Ctrl-C stops cleanly: finished chunks stay, the manifest says
``interrupted``.

Sequential stop: the chunks of a point with a stop rule are committed in
order; after each chunk the win-rate interval of the named strategy is checked
at every block boundary inside it, and the point ends at the first boundary
(past ``min_games``) where it is narrower than ``width``: the chunk is cut
there and later chunks are dropped. The stopping point therefore depends only
on the games, never on workers, chunking or backend.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import time
from concurrent.futures import FIRST_COMPLETED
from concurrent.futures import wait as cf_wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from ttrsim import GAMES_VERSION
from .config import EXECUTION_KEYS, Experiment, ExperimentError, load_experiment
from .seating import Chunk, chunks_of_point, game_arrays
from .summary import Stats, format_summary, summary_rows, widths_along

MANIFEST = "manifest.json"
FORMAT = 1
TURN_CAPACITY = 1 << 18          # turn rows per flush (about 21 MB of int32)
OFFER_CAPACITY = 1 << 16
# seconds between manifest writes (a killed run redoes the chunks finished since the last one)
MANIFEST_INTERVAL = float(os.environ.get("TTRSIM_MANIFEST_INTERVAL", "1.0"))


# =========================================================================== worker side

_CTX: dict = {}


def point_spec(exp: Experiment, point) -> dict:
    """Everything a worker needs to play chunks of one sweep point (picklable)."""
    from ttrsim.strategies import MAX_PARAMS, param_row, strategy_id
    ents = exp.entrants
    # a Python seat has compiled id 0 and a zero parameter row, never read: its games run in Python
    ids = np.array([[0 if ents[e].python else strategy_id(ents[e].strategy) for e in seats]
                    for seats in exp.seatings], np.int64)
    params = np.zeros((len(exp.seatings), exp.players, MAX_PARAMS), np.float64)
    for k, seats in enumerate(exp.seatings):
        for p, e in enumerate(seats):
            if not ents[e].python:
                params[k, p] = param_row(ents[e].strategy, point.entrant_params[e])
    # Python strategies: (module:Class, constructor parameters at this point) per entrant, None if compiled
    python = [(e.strategy, dict(point.entrant_params[i])) if e.python else None for i, e in enumerate(ents)]
    key = json.dumps([exp.config(), point.index], sort_keys=True, default=str)
    return {"key": key, "point": point.index, "rules": exp.rules, "rule_overrides": point.rule_overrides,
            "players": exp.players, "seatings": np.array(exp.seatings, np.int64), "ids": ids, "params": params,
            "labels": [e.label for e in ents], "log": exp.log, "seed": exp.seed,
            "block_size": exp.block_size, "stride": exp.stride,
            "python": python if any(python) else None, "python_path": list(exp.python_path)}


def _context(spec: dict):
    ctx = _CTX.get(spec["key"])
    if ctx is None:
        from ttrsim.core.board import build_board
        from ttrsim.data.maps import load_map
        from ttrsim.core.actions import legal_buffer
        from ttrsim.data.rules import get_rules
        from ttrsim.core.state import allocate_state
        from .tables import ChunkContext
        from ttrsim.play.turnlog import allocate_log
        rules = get_rules(spec["rules"], spec["rule_overrides"])
        m = load_map(rules.map)
        b = build_board(rules, m)
        offer_room = 8 * (rules.max_turns + spec["players"])
        log = allocate_log(TURN_CAPACITY if spec["log"] else 1, max(OFFER_CAPACITY, 4 * offer_room))
        ctx = {"board": b, "state": allocate_state(b, spec["players"]), "legal": legal_buffer(b), "log": log,
               "tables": ChunkContext(spec["point"], spec["rules"], spec["players"], spec["labels"],
                                      spec["seatings"], m.ticket_points)}
        if spec.get("python"):
            from ttrsim.play.game import Game
            from ttrsim.play.pyplay import load_strategy_class
            ctx["game"] = Game(rules, spec["players"])
            ctx["classes"] = [None if x is None else load_strategy_class(x[0], spec["python_path"])
                              for x in spec["python"]]
        if len(_CTX) > 16:
            _CTX.clear()
        _CTX[spec["key"]] = ctx
    return ctx


def run_chunk(spec: dict, lo: int, hi: int) -> dict:
    """Play games ``lo..hi-1`` of a sweep point; return the tables as Parquet
    bytes, row counts, per-block statistics and timings."""
    import pyarrow as pa

    from ttrsim.play.chunk import N_EXTRA, play_chunk
    from ttrsim.core.state import F_TOTAL, F_WINNER, N_FINAL
    from .tables import games_table, players_table, tickets_table, to_parquet_bytes, turns_table
    from ttrsim.play.turnlog import G_END, N_GAME_COLS

    t0 = time.perf_counter()
    ctx = _context(spec)
    tc = ctx["tables"]
    log = ctx["log"]
    P, n = spec["players"], hi - lo
    blocks, seating, seeds = game_arrays(spec["seed"], spec["block_size"], lo, hi)
    game_ids = spec["point"] * spec["stride"] + np.arange(lo, hi, dtype=np.int64)
    results = np.zeros((n, P, N_FINAL), np.int32)
    extra = np.zeros((n, P, N_EXTRA), np.int32)
    meta = np.zeros((n, N_GAME_COLS), np.int32)
    tickets, turns = [], []
    # games whose seating has a Python seat are stepped in Python, the rest run compiled, in game order
    py_game = _python_seatings(spec)[seating]
    i, play_s, conv_s = 0, 0.0, 0.0
    while i < n:
        log.n_turns[0] = 0
        log.n_offers[0] = 0
        t = time.perf_counter()
        j = i
        while j < n:
            if py_game[j]:
                if not _play_python(ctx, spec, j, seeds, seating, log, results, extra, meta):
                    break                                   # the log is full: flush it
                j += 1
                continue
            end = j + int(np.argmax(py_game[j:])) if py_game[j:].any() else n
            k = play_chunk(ctx["board"], ctx["state"], j, seeds[:end], seating, spec["ids"], spec["params"],
                           ctx["legal"], log, results, extra, meta, spec["log"])
            full = k < end
            j = k
            if full:
                break
        t2 = time.perf_counter()
        play_s += t2 - t
        if j == i:
            raise RuntimeError("the turn log cannot hold one game; raise TURN_CAPACITY")
        tickets.append(tickets_table(tc, game_ids, log.offers[:log.n_offers[0]]))
        if spec["log"]:
            turns.append(turns_table(tc, game_ids, log.turns[:log.n_turns[0]]))
        conv_s += time.perf_counter() - t2
        i = j
    t = time.perf_counter()
    tables = {"games": games_table(tc, game_ids, blocks, seating, seeds, meta, results),
              "players": players_table(tc, game_ids, seating, results, extra),
              "tickets": pa.concat_tables(tickets)}
    if spec["log"]:
        tables["turns"] = pa.concat_tables(turns)
    # per-block statistics per entrant: win shares W, games C, totals T; game ends per block
    win = results[:, :, F_WINNER] > 0
    share = win / np.maximum(win.sum(axis=1, keepdims=True), 1)
    ent = spec["seatings"][seating]
    b_local = (blocks - blocks[0]).astype(np.int64)
    nb, E = int(b_local[-1]) + 1, len(spec["labels"])
    rows = np.repeat(b_local, P)
    W = np.zeros((nb, E))
    C = np.zeros((nb, E))
    T = np.zeros((nb, E))
    np.add.at(W, (rows, ent.ravel()), share.ravel())
    np.add.at(C, (rows, ent.ravel()), 1.0)
    np.add.at(T, (rows, ent.ravel()), results[:, :, F_TOTAL].ravel().astype(np.float64))
    ends = np.zeros((nb, 3), np.int64)
    np.add.at(ends, (b_local, meta[:, G_END] - 1), 1)
    data = {name: to_parquet_bytes(tab) for name, tab in tables.items()}
    conv_s += time.perf_counter() - t
    return {"lo": lo, "hi": hi, "first_block": int(blocks[0]), "data": data,
            "rows": {name: tab.num_rows for name, tab in tables.items()}, "W": W, "C": C, "T": T, "ends": ends,
            "play_s": play_s, "encode_s": conv_s, "total_s": time.perf_counter() - t0, "pid": os.getpid()}


def _python_seatings(spec: dict) -> np.ndarray:
    """Per seating of the block: whether a Python strategy sits at the table."""
    python = spec.get("python")
    if not python:
        return np.zeros(len(spec["seatings"]), bool)
    return np.array([any(python[e] is not None for e in seats) for seats in spec["seatings"]], bool)


def _play_python(ctx: dict, spec: dict, i: int, seeds, seating, log, results, extra, meta) -> bool:
    """Play game ``i`` of the chunk stepping in Python (a fresh instance of each
    Python strategy for the game), recorded exactly like the compiled loop;
    False (nothing played) when the log has no room for another game."""
    from ttrsim.play.chunk import record_end
    from ttrsim.play.pyplay import play_logged_py
    from ttrsim.play.turnlog import log_has_room

    g = ctx["game"]
    if not log_has_room(g.board, log, spec["players"], spec["log"]):
        return False
    if "hand_before" not in ctx:
        from ttrsim.data.ids import LOCO, N_PASSENGER_COLOURS
        ctx["hand_before"] = np.zeros(LOCO + 1, np.int64)
        ctx["pass_before"] = np.zeros(N_PASSENGER_COLOURS, np.int64)
    k = int(seating[i])
    seats = spec["seatings"][k]
    objs = [None if ctx["classes"][e] is None else ctx["classes"][e](**spec["python"][e][1]) for e in seats]
    play_logged_py(g, i, int(seeds[i]), objs, spec["ids"][k], spec["params"][k], log, spec["log"],
                   ctx["hand_before"], ctx["pass_before"], [spec["labels"][e] for e in seats])
    record_end(g.state, i, results, extra, meta)
    return True


def truncate(result: dict, n_blocks: int, spec: dict) -> dict:
    """Keep the first ``n_blocks`` blocks of a chunk result (sequential stop)."""
    import pyarrow.compute as pc

    from .tables import from_parquet_bytes, to_parquet_bytes
    hi = (result["first_block"] + n_blocks) * spec["block_size"]
    cutoff = spec["point"] * spec["stride"] + hi
    data, rows = {}, {}
    for name, raw in result["data"].items():
        tab = from_parquet_bytes(raw)
        tab = tab.filter(pc.less(tab["game"], cutoff))
        data[name], rows[name] = to_parquet_bytes(tab), tab.num_rows
    out = dict(result, hi=hi, data=data, rows=rows)
    for k in ("W", "C", "T", "ends"):
        out[k] = result[k][:n_blocks]
    return out


def warm_up(spec: dict):
    """Compile (or load from the numba cache) the chunk loop in this process,
    so worker processes find fresh cache files and only load them (both loops:
    a game of a seating without and one with a Python seat, if any)."""
    py = _python_seatings(spec)
    for want in (False, True):
        k = np.flatnonzero(py == want)
        if len(k):
            run_chunk(spec, int(k[0]), int(k[0]) + 1)


# =========================================================================== backends


class _Done:
    """A finished 'future' of the in-process backend."""

    def __init__(self, fn, args):
        try:
            self._value, self._error = fn(*args), None
        except Exception as e:  # noqa: BLE001 (re-raised by result())
            self._value, self._error = None, e

    def result(self):
        if self._error is not None:
            raise self._error
        return self._value

    def cancel(self):
        return False


class InlineBackend:
    """``workers: 1`` on the local backend: chunks run in this process."""
    name = "local"

    def submit(self, fn, *args):
        return _Done(fn, args)

    def wait_any(self, futures):
        return list(futures)

    def close(self, kill=False):
        pass


class LocalBackend:
    """joblib's loky process pool (reused between runs, so workers stay warm)."""
    name = "local"

    def __init__(self, workers: int):
        from joblib.externals.loky import get_reusable_executor
        self.executor = get_reusable_executor(max_workers=workers, timeout=300)

    def submit(self, fn, *args):
        return self.executor.submit(fn, *args)

    def wait_any(self, futures):
        return cf_wait(list(futures), return_when=FIRST_COMPLETED).done

    def close(self, kill=False):
        if kill:
            self.executor.shutdown(wait=False, kill_workers=True)


class DaskBackend:
    """A Dask ``distributed`` cluster: the given scheduler or a LocalCluster."""
    name = "dask"

    def __init__(self, workers: int, scheduler: str | None):
        import logging

        from distributed import Client, LocalCluster
        self.cluster = None
        if scheduler:
            try:
                self.client = Client(scheduler, timeout="20s")
            except OSError as e:
                raise ExperimentError(f"scheduler: cannot reach the Dask scheduler at {scheduler} ({e}); "
                                      "expected a running scheduler address") from None
        else:
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        dashboard_address=None, silence_logs=logging.ERROR)
            self.client = Client(self.cluster)

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def wait_any(self, futures):
        from distributed import wait
        return wait(list(futures), return_when="FIRST_COMPLETED").done

    def close(self, kill=False):
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()


def make_backend(exp: Experiment):
    if exp.backend == "dask":
        return DaskBackend(exp.workers, exp.scheduler)
    if exp.workers == 1:
        return InlineBackend()
    return LocalBackend(exp.workers)


# =========================================================================== results folder


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def versions() -> dict:
    """ttrsim and dependency versions (and the source commit when in a git checkout)."""
    import platform
    import subprocess
    from importlib.metadata import PackageNotFoundError, version
    out = {"python": platform.python_version()}
    for pkg in ("ttrsim", "numpy", "numba", "polars", "pyarrow", "pandas", "joblib", "dask", "distributed",
                "tqdm", "click", "pyyaml"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    try:
        src = Path(__file__).resolve().parent.parent
        commit = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=5)
        dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5)
        if commit.returncode == 0:
            out["ttrsim_commit"] = commit.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return out


class Folder:
    """The results folder: part files, dimension tables and the manifest."""
    TABLE_DIRS = ("games", "players", "tickets", "turns", "dims")

    def __init__(self, root: Path):
        self.root = Path(root)

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    def read_manifest(self, source: str = "<dict>") -> dict | None:
        try:
            return json.loads(self.manifest_path.read_text())
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ExperimentError(f"{source}: output: {self.manifest_path} is damaged (not JSON); expected a "
                                  "ttrsim manifest (or --overwrite to start over)") from None

    def write_atomic(self, path: Path, data: bytes):
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)

    def write_manifest(self, manifest: dict):
        manifest["updated"] = _now()
        self.write_atomic(self.manifest_path, json.dumps(manifest, indent=1, default=str).encode())

    def part(self, table: str, key: str) -> Path:
        return self.root / table / f"part-{key}.parquet"

    def prepare(self, tables):
        for t in tables:
            (self.root / t).mkdir(parents=True, exist_ok=True)
        (self.root / "dims").mkdir(parents=True, exist_ok=True)

    def clean_strays(self, keep: set[str]):
        """Delete temporary files and part files of chunks the manifest does not list."""
        for t in self.TABLE_DIRS:
            d = self.root / t
            if not d.is_dir():
                continue
            for f in d.iterdir():
                if f.name.endswith(".tmp"):
                    f.unlink()
                elif t != "dims" and f.name.startswith("part-") and f.name.endswith(".parquet"):
                    if f.name[5:-8] not in keep:
                        f.unlink()

    def remove_results(self):
        for t in self.TABLE_DIRS:
            shutil.rmtree(self.root / t, ignore_errors=True)
        for f in (self.manifest_path, self.manifest_path.with_name(MANIFEST + ".tmp")):
            if f.exists():
                f.unlink()


def write_dims(folder: Folder, exp: Experiment):
    import pyarrow.parquet as pq

    from ttrsim.data.maps import load_map
    from .tables import points_dim, routes_dim, strategies_dim, tickets_dim
    m = load_map(exp.rules_for(exp.points[0]).map)
    for name, tab in (("routes", routes_dim(m)), ("tickets", tickets_dim(m)),
                      ("strategies", strategies_dim(exp.entrants)), ("points", points_dim(exp.points))):
        path = folder.root / "dims" / f"{name}.parquet"
        tmp = path.with_name(path.name + ".tmp")
        pq.write_table(tab, tmp)
        os.replace(tmp, path)


# =========================================================================== the run


@dataclass
class RunResult:
    """What :func:`run_experiment` returns."""
    path: Path
    status: str                       # complete | interrupted
    games: int                        # games in the folder
    games_run: int                    # games played by this call
    seconds: float
    summary: list = field(default_factory=list)   # rows of summary_rows
    summary_text: str = ""
    manifest: dict = field(default_factory=dict)

    def scan(self, table: str):
        """A polars LazyFrame over one table (games, players, tickets, turns)."""
        import polars as pl
        return pl.scan_parquet(str(self.path / table / "*.parquet"))

    def table(self, table: str):
        """One table as a polars DataFrame, sorted by game (then seat / turn)."""
        by = {"games": ["game"], "players": ["game", "seat"], "tickets": ["game"], "turns": ["game", "turn"]}
        return self.scan(table).collect().sort(by[table], maintain_order=True)

    def __repr__(self):
        return f"RunResult(path={str(self.path)!r}, status={self.status!r}, games={self.games})"


class _Point:
    """Progress of one sweep point."""

    def __init__(self, exp: Experiment, index: int, per_chunk: int):
        self.index = index
        self.chunks = chunks_of_point(index, exp.games, per_chunk)
        self.stop = exp.stop
        self.stats = Stats.zeros(len(exp.entrants))
        self.done_keys: set[str] = set()
        self.finished = False
        self.stopped_at = None          # games, when the stop rule ended the point
        self.cursor = 0                 # next chunk index to submit
        self.next_commit = 0            # stop rule: chunks are committed in order
        self.buffer: dict[int, dict] = {}
        self.games_done = 0


def _config_diff(old: dict, new: dict) -> list[str]:
    keys = sorted(set(old) | set(new))
    return [k for k in keys if old.get(k) != new.get(k)]


def run_experiment(path_or_dict, *, output=None, workers=None, backend=None, scheduler=None, chunk_size=None,
                   overwrite: bool = False, progress: bool = True, echo=None, base_dir=None,
                   **overrides) -> RunResult:
    """Run (or resume) an experiment; returns a :class:`RunResult` with the
    results path and the win-rate summary.

    ``path_or_dict``: an experiment YAML file or the same content as a dict.
    ``output``, ``workers``, ``backend``, ``scheduler``, ``chunk_size`` and any
    other top-level experiment key given as a keyword (``games=...``,
    ``seed=...``, ``log=...``) override the file. ``overwrite`` starts the folder
    over when it holds results (a different experiment is otherwise refused).
    ``echo`` prints messages (default: ``print`` to stderr; ``False`` = silent).
    Raises :class:`ExperimentError` (one line) before writing anything when the
    experiment is bad; Ctrl-C leaves the finished chunks and re-raises
    ``KeyboardInterrupt``.
    """
    if echo is None:
        echo = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    elif echo is False:
        echo = lambda msg: None  # noqa: E731
    over = dict(overrides)
    over.update(output=os.fspath(output) if output is not None else None, workers=workers, backend=backend,
                scheduler=scheduler, chunk_size=chunk_size)
    exp = load_experiment(path_or_dict, over, base_dir=base_dir)
    folder = Folder(exp.output)
    try:
        manifest = folder.read_manifest(exp.source) if exp.output.exists() else None
    except ExperimentError:
        if not overwrite:
            raise
        manifest = {}
    config = exp.config()
    if manifest is not None and not overwrite:
        if manifest.get("format") != FORMAT or "config" not in manifest:
            raise ExperimentError(f"{exp.source}: output: {exp.output} holds a manifest of another format; "
                                  "expected a ttrsim results folder (use --overwrite to start over)")
        if manifest.get("games_version", 1) != GAMES_VERSION:
            raise ExperimentError(f"{exp.source}: output: {exp.output} was played by games version "
                                  f"{manifest.get('games_version', 1)} (this ttrsim plays version {GAMES_VERSION}: "
                                  "the same seeds give other games); expected a folder of this version to resume, "
                                  "or --overwrite to start over")
        if manifest["config"] != config:
            diff = ", ".join(_config_diff(manifest["config"], config))
            raise ExperimentError(f"{exp.source}: output: {exp.output} holds a different experiment (changed: "
                                  f"{diff}); expected the same experiment to resume, or --overwrite to start over")
    # ---- from here on, the folder is written
    if manifest is not None and overwrite:
        folder.remove_results()
        manifest = None
    tables = ["games", "players", "tickets"] + (["turns"] if exp.log else [])
    fresh = manifest is None
    if fresh:
        per_chunk = exp.chunk_games
        manifest = {"format": FORMAT, "games_version": GAMES_VERSION, "tool": "ttrsim", "experiment": exp.source,
                    "experiment_path": None if isinstance(path_or_dict, dict) else str(Path(path_or_dict).resolve()),
                    "description": exp.description,
                    "config": config, "execution": exp.execution(), "versions": versions(),
                    "layout": {"block_size": exp.block_size, "chunk_games": per_chunk, "stride": exp.stride,
                               "games_per_point": exp.games, "tables": tables,
                               "part_files": "<table>/part-<point:04d>-<chunk:06d>.parquet"},
                    "status": "running", "created": _now(), "points": {}, "chunks": {}, "runs": []}
        folder.prepare(tables)
        write_dims(folder, exp)
        folder.write_manifest(manifest)
    else:
        per_chunk = manifest["layout"]["chunk_games"]
        if per_chunk != exp.chunk_games:
            echo(f"note: resuming with the folder's chunk size ({per_chunk} games), not {exp.chunk_games}")
        now_v, then_v = versions(), manifest.get("versions", {})
        if (now_v.get("ttrsim"), now_v.get("ttrsim_commit")) != (then_v.get("ttrsim"), then_v.get("ttrsim_commit")):
            echo(f"note: the folder was started with ttrsim {then_v.get('ttrsim')} "
                 f"({then_v.get('ttrsim_commit', '?')}); resuming with {now_v.get('ttrsim')} "
                 f"({now_v.get('ttrsim_commit', '?')})")
        manifest["execution"] = exp.execution()
        folder.prepare(tables)
    return _Run(exp, folder, manifest, per_chunk, progress, echo).run()


class _Run:
    def __init__(self, exp: Experiment, folder: Folder, manifest: dict, per_chunk: int, progress: bool, echo):
        self.exp, self.folder, self.manifest, self.echo = exp, folder, manifest, echo
        self.progress = progress
        self.points = [_Point(exp, p.index, per_chunk) for p in exp.points]
        self.specs = [point_spec(exp, p) for p in exp.points]
        self.games_run = 0
        self.last_manifest_write = 0.0
        # what earlier runs finished: chunks the manifest lists whose part files all exist
        tables = manifest["layout"]["tables"]
        for key, c in list(manifest["chunks"].items()):
            if all(folder.part(t, key).exists() for t in tables):
                self.points[c["point"]].done_keys.add(key)
            else:
                del manifest["chunks"][key]
        for pt in self.points:
            info = manifest["points"].get(str(pt.index), {})
            if pt.stop is not None:      # committed chunks must be a prefix: drop any chunk after a gap
                while pt.next_commit < len(pt.chunks) and pt.chunks[pt.next_commit].key in pt.done_keys:
                    pt.next_commit += 1
                prefix = {c.key for c in pt.chunks[:pt.next_commit]}
                for key in pt.done_keys - prefix:
                    del manifest["chunks"][key]
                pt.done_keys &= prefix
            for key in sorted(pt.done_keys):
                c = manifest["chunks"][key]
                pt.stats += Stats.from_json(c["stats"])
                pt.games_done += c["hi"] - c["lo"]
            if pt.stop is not None and info.get("status") == "done" and info.get("games") == pt.games_done:
                pt.finished, pt.stopped_at = True, info.get("stopped_at")
            elif all(c.key in pt.done_keys for c in pt.chunks):
                pt.finished = True
            else:
                manifest["points"].pop(str(pt.index), None)
        folder.clean_strays(set().union(*(pt.done_keys for pt in self.points)))

    # ---- planning
    def _next_chunk(self) -> Chunk | None:
        for pt in self.points:
            if pt.finished:
                continue
            while pt.cursor < len(pt.chunks):
                c = pt.chunks[pt.cursor]
                pt.cursor += 1
                if c.key not in pt.done_keys:
                    return c
        return None

    def _planned_total(self) -> int:
        total = 0
        for pt in self.points:
            total += pt.games_done if pt.finished else self.exp.games
        return total

    # ---- committing
    def _commit(self, pt: _Point, chunk: Chunk, res: dict):
        """Write the part files of a chunk and record it (stop rule first)."""
        stop = pt.stop
        if stop is not None:
            W, C = res["W"], res["C"]
            widths = widths_along(pt.stats, stop.entrant, W, C)
            games_after = (res["first_block"] + np.arange(1, len(W) + 1)) * self.exp.block_size
            ok = np.flatnonzero((games_after >= stop.min_games) & (widths < stop.width))
            if len(ok):
                j = int(ok[0])
                if j + 1 < len(W):
                    res = truncate(res, j + 1, self.specs[pt.index])
                pt.stopped_at = int(games_after[j])
                pt.finished = True
        for name, raw in res["data"].items():
            self.folder.write_atomic(self.folder.part(name, chunk.key), raw)
        st = Stats.zeros(len(self.exp.entrants))
        st.add_blocks(res["W"], res["C"], res["T"], res["ends"].sum(axis=0))
        pt.stats += st
        pt.done_keys.add(chunk.key)
        games = res["hi"] - res["lo"]
        pt.games_done += games
        self.games_run += games
        self.manifest["chunks"][chunk.key] = {
            "point": chunk.point, "index": chunk.index, "lo": res["lo"], "hi": res["hi"], "rows": res["rows"],
            "bytes": {k: len(v) for k, v in res["data"].items()}, "play_s": round(res["play_s"], 4),
            "encode_s": round(res["encode_s"], 4), "pid": res["pid"], "finished": _now(), "stats": st.to_json()}
        if all(c.key in pt.done_keys for c in pt.chunks):
            pt.finished = True
        if pt.finished:
            self.manifest["points"][str(pt.index)] = {
                "status": "done", "games": pt.games_done, "stopped_at": pt.stopped_at,
                "stop": None if stop is None else ("width reached" if pt.stopped_at is not None
                                                   else "max_games reached")}
        self._write_manifest()
        return games

    def _write_manifest(self, force=False):
        now = time.monotonic()
        if force or now - self.last_manifest_write >= MANIFEST_INTERVAL:
            self.folder.write_manifest(self.manifest)
            self.last_manifest_write = now

    # ---- the loop
    def run(self) -> RunResult:
        from tqdm import tqdm
        exp = self.exp
        start = time.perf_counter()
        run_info = {"started": _now(), "workers": exp.workers, "backend": exp.backend,
                    "scheduler": exp.scheduler, "games": 0, "seconds": 0.0, "status": "running"}
        self.manifest["runs"].append(run_info)
        self.manifest["status"] = "running"
        done_before = sum(pt.games_done for pt in self.points)
        backend = None
        inflight: dict = {}
        bar = None
        status = "failed"
        try:
            if self._next_chunk_exists():
                if exp.backend == "local":
                    warm_up(self.specs[0])
                backend = make_backend(exp)
                bar = tqdm(total=self._planned_total(), initial=done_before, unit="game", unit_scale=True,
                           disable=not self.progress, desc=exp.name, smoothing=0.05, file=sys.stderr,
                           dynamic_ncols=True)
                window = max(2, 2 * exp.workers)
                while True:
                    while len(inflight) + sum(len(pt.buffer) for pt in self.points) < window:
                        c = self._next_chunk()
                        if c is None:
                            break
                        inflight[backend.submit(run_chunk, self.specs[c.point], c.lo, c.hi)] = c
                    if not inflight:
                        break
                    for fut in backend.wait_any(inflight):
                        c = inflight.pop(fut, None)
                        if c is None:            # dropped: its point stopped meanwhile
                            continue
                        res = fut.result()
                        pt = self.points[c.point]
                        if pt.finished:
                            continue
                        if pt.stop is None:
                            bar.update(self._commit(pt, c, res))
                            continue
                        pt.buffer[c.index] = (c, res)
                        while not pt.finished and pt.next_commit in pt.buffer:
                            cc, rr = pt.buffer.pop(pt.next_commit)
                            pt.next_commit += 1
                            bar.update(self._commit(pt, cc, rr))
                        if pt.finished:
                            pt.buffer.clear()
                            for f, cc in list(inflight.items()):
                                if cc.point == pt.index:
                                    f.cancel()
                                    del inflight[f]
                            bar.total = self._planned_total()
                            bar.refresh()
            status = "complete"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            for f in inflight:
                f.cancel()
            if backend is not None:
                backend.close(kill=status != "complete")
            if bar is not None:
                bar.close()
            seconds = time.perf_counter() - start
            run_info.update(ended=_now(), games=self.games_run, seconds=round(seconds, 3), status=status,
                            games_per_s=round(self.games_run / seconds, 1) if seconds > 0 else None)
            self.manifest["status"] = status
            result = self._finish(status, seconds)
            self.folder.write_manifest(self.manifest)
            if status == "interrupted":
                self.echo(f"interrupted: {result.games:,} games kept in {self.folder.root}; "
                          "run the same command again to resume")
        return result

    def _next_chunk_exists(self) -> bool:
        return any(not pt.finished and any(c.key not in pt.done_keys for c in pt.chunks) for pt in self.points)

    def _finish(self, status: str, seconds: float) -> RunResult:
        labels = [e.label for e in self.exp.entrants]
        values = {p.index: p.values for p in self.exp.points}
        stats = {pt.index: pt.stats for pt in self.points if pt.games_done}
        rows = summary_rows(labels, stats, values)
        text = format_summary(rows, {i: st.ends.tolist() for i, st in stats.items()})
        games = sum(pt.games_done for pt in self.points)
        if status == "complete":
            self.manifest["summary"] = rows
            self.manifest["points_summary"] = {
                str(pt.index): {"games": pt.games_done, "stopped_at": pt.stopped_at,
                                "ends": dict(zip(("normal", "stalled", "capped"), pt.stats.ends.tolist()))}
                for pt in self.points}
        return RunResult(path=self.folder.root, status=status, games=games, games_run=self.games_run,
                         seconds=seconds, summary=rows, summary_text=text, manifest=self.manifest)


__all__ = ["run_experiment", "RunResult", "ExperimentError", "EXECUTION_KEYS"]
