"""Run an experiment: chunks of games on a backend into a results folder.

:func:`run_experiment` (and ``ttrsim run``) validates the experiment, plans the
chunks of every sweep point (whole seed blocks, ``chunk_size`` games), and runs
them on a backend (:mod:`ttrsim.experiment.backends`: in this process, a local
process pool or Dask). A worker plays a chunk (:mod:`ttrsim.experiment.worker`)
and returns its tables as Parquet bytes tagged with the experiment's config
hash; this process writes every part file atomically into the results folder
(:mod:`ttrsim.results.folder`), then records the chunk in ``manifest.json``
(also written atomically). A folder at a URL (``s3://...``:
:mod:`ttrsim.results.store`) is written by the workers: each writes the
part files of its chunks and returns their sizes and checksums. Memory stays
bounded: at most ``2 x workers`` chunks are in flight. The summary at the end is read back from the folder
(:mod:`ttrsim.results.summary`), exactly as the report reads it. Before
the first chunk the backend warms up (:meth:`LocalBackend.warm_up
<ttrsim.experiment.backends.LocalBackend.warm_up>`: this process compiles the
chunk loop, or loads it, while the worker processes start, so that they load
it from the cache; :meth:`~ttrsim.experiment.backends.DaskBackend.warm_up`:
every Dask worker does it before the first chunk is submitted, and a worker
joining later before its first chunk, and one line says how long the slowest
took).

The folder's life (``docs/experiments.md``, ``docs/reliability.md``):

* the run takes the folder's lock before it writes anything (a second run on
  the folder, also with ``overwrite``, is refused; the lock of a killed run is
  taken over), then opens it (:mod:`ttrsim.experiment.opening`): a new
  folder gets ``manifest.json`` first, then ``map.json``, ``rules.json`` and
  the dimension tables, so every folder a run touched is recognised by the
  next one; one holding only the leftovers of a run killed before its
  manifest is cleared and started over;
* resume: the same experiment on the same folder keeps the chunks the
  manifest lists whose part files check out (size, rows, tag and the SHA-256
  recorded with the chunk; a chunk recorded before checksums: size, rows, tag
  and its data read whole, then its checksums are recorded) and plays the
  rest, with a note naming a damaged file (part files without a manifest
  entry are deleted); a game's result
  depends only on the experiment seed and its number, so the tables end up
  identical to an uninterrupted run. Runs the manifest still calls
  ``running`` were killed (their lock file was left): they are marked
  ``killed``; without a lock left they ended unable to record it: ``failed``;
* the experiment is compared resolved (:meth:`Experiment.identity`): writing a
  default out changes nothing, anything else is refused unless
  ``overwrite``, and so is a map file edited or rules resolved otherwise since
  (``map.json`` / ``rules.json``); ``games`` may grow (more seed blocks, the
  earlier games unchanged), never shrink; a new ``description`` is recorded;
* SIGINT and SIGTERM stop the run at once (:class:`Interrupted`, exit code
  128 + the signal's number in the CLI): finished chunks stay, the manifest
  says ``interrupted``, the local pool's workers are killed and reaped. A
  signal never interrupts a call into the local pool (the run acts on it
  right after: at most ``WAIT_TICK`` later), so the pool is never left
  inconsistent, nor inside numba or llvmlite (:class:`_Signals`), and an
  ``Interrupted`` that lands in a finalizer (where Python only prints it) is
  not printed: the run still stops at its next look. A Python strategy's error, a full disk, a dead
  worker or a lost Dask scheduler stop it with one line (:class:`ExperimentError`), the manifest says
  ``failed``, and running again resumes. So does a part file found
  unreadable when the summary reads the folder back: its chunk is dropped
  from the manifest, to be played again.

Sequential stop: the chunks of a point with a stop rule are committed in
order; after each chunk the win-rate interval of the named strategy
(:func:`ttrsim.results.stats.rate_interval`) is checked at every block
boundary inside it, and the point ends at the first boundary (past
``min_games``) where it is narrower than ``width``: the chunk is cut there and
later chunks are dropped. The stopping point therefore depends only on the
games, never on workers, chunking or backend.

Size: one module on purpose: the run's life (signals, the pool, commits, the
manifest) is one state machine, and its stop paths share that state.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
from tqdm import tqdm

from ttrsim.play.game import IllegalAction
from ttrsim.play.guard import StrategyError
from ttrsim.results.effects import format_effects, intervention, paired_effects
from ttrsim.results.folder import Folder, digest, now
from ttrsim.results.reader import READ_ERRORS, Results
from ttrsim.results.stats import RateSums, widths_along
from ttrsim.results.store import results_folder
from ttrsim.results.summary import ends_by_point, format_summary, summary_from_tables

from .backends import make_backend
from .config import EXECUTION_KEYS, Experiment, ExperimentError, load_experiment
from .opening import open_folder, write_error
from .seating import Chunk, chunks_of_point
from .signals import Interrupted
from .worker import point_specs, run_chunk, truncate

# seconds between manifest writes (a killed run redoes the chunks finished since the last one)
MANIFEST_INTERVAL = float(os.environ.get("TTRSIM_MANIFEST_INTERVAL", "1.0"))
# a stop signal held up in numba for long (a first compile) ends the process (:meth:`_Run.abandon`): set by the
# ``ttrsim run`` command; a program that calls run_experiment gets its Interrupted once the compile is done
ABANDON_HELD_STOP = False


class _Signals:
    """SIGINT and SIGTERM raise :class:`Interrupted` in the main thread while
    a run is on (the previous handlers come back at the end). The signal is
    also remembered, so that a stop swallowed by someone's ``except`` is
    still made at the run's next look (:meth:`check`), and deferred while the
    run saves its state (``closing``) or calls into a pool that must not be
    left half-way (:meth:`deferred`). An ``Interrupted`` raised in a
    finalizer (``__del__``, a weakref callback: Python prints such an
    exception and goes on) is not printed: the run stops at its next look.

    Nor is it raised inside numba or llvmlite (loading or compiling the
    chunk loop: an exception there leaves LLVM objects half made, and the
    process may crash later): the signal is sent again every ``RETRY``
    seconds until it lands outside them. When it has not landed after
    ``GRACE`` seconds (a first compile takes minutes) and ``abandon`` is
    set, a watchdog thread ends the process through it (the run's state
    saved as at a stop: :meth:`_Run.abandon`)."""

    RETRY, GRACE = 0.05, 3.0

    def __init__(self):
        self.signum, self.closing, self.previous, self.hook = None, False, {}, None
        self.actor = None                 # who acts on the stop: "main" (raising) or "watchdog" (abandon)
        self.abandon = None               # fn(signum) -> never returns: set while a run may abandon
        self._lock, self._watchdog, self._on = threading.Lock(), None, False

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.previous[sig] = signal.signal(sig, self._handle)
            self.hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
            self._on = True
        return self

    def __exit__(self, *exc):
        self._on = False
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        if self.hook is not None:
            sys.unraisablehook = self.hook

    def _unraisable(self, info):
        if not isinstance(info.exc_value, Interrupted):
            self.hook(info)

    @contextmanager
    def deferred(self):
        """A signal meanwhile is acted on at the end (also when the block
        raises: the stop wins over, say, a pool broken by the same signal)."""
        closing, self.closing = self.closing, True
        try:
            yield
        finally:
            self.closing = closing
            self.check()

    def _handle(self, signum, frame):
        if self.signum is None:
            self.signum = signum
        if self.closing:
            return
        if _in_numba(frame):
            self._watch()
            return
        self._raise()

    def check(self):
        if self.signum is not None and not self.closing:
            self._raise()

    def _raise(self):
        with self._lock:
            self.actor = self.actor or "main"
        if self.actor != "main":          # the watchdog is ending the process
            while True:
                time.sleep(1)
        raise Interrupted(self.signum)

    def _watch(self):
        if self._watchdog is not None:
            return
        t0 = time.monotonic()

        def watch():
            while self._on and self.actor is None:
                time.sleep(self.RETRY)
                if self.closing or self.actor is not None:
                    continue
                if self.abandon is not None and time.monotonic() - t0 > self.GRACE:
                    with self._lock:
                        self.actor = self.actor or "watchdog"
                    if self.actor == "watchdog":
                        self.abandon(self.signum)
                    return
                os.kill(os.getpid(), self.signum)

        self._watchdog = threading.Thread(target=watch, name="ttrsim-stop", daemon=True)
        self._watchdog.start()


def _package_dirs(*names) -> tuple:
    dirs = []
    for name in names:
        mod = sys.modules.get(name)
        if mod is not None and getattr(mod, "__file__", None):
            dirs.append(os.path.dirname(mod.__file__) + os.sep)
    return tuple(dirs)


def _in_numba(frame) -> bool:
    """Whether ``frame`` (or a caller of it) runs numba's or llvmlite's own
    Python code: loading the chunk loop from the cache, compiling it, or the
    unpickling of a constant that compiled code calls back into Python for.
    An exception raised there can leave LLVM objects half made (a crash
    later) or come out of the compiled code as another error."""
    dirs = _package_dirs("numba", "llvmlite")
    while frame is not None:
        if frame.f_code.co_filename.startswith(dirs):
            return True
        frame = frame.f_back
    return False


@dataclass
class RunResult:
    """What :func:`run_experiment` returns."""
    path: Path | str                  # a folder, or a URL (docs/cluster.md)
    status: str                       # complete | interrupted
    games: int                        # games in the folder
    games_run: int                    # games played by this call
    seconds: float
    summary: list = field(default_factory=list)   # rows of summary_from_tables
    summary_text: str = ""
    manifest: dict = field(default_factory=dict)
    warm_up_seconds: float = 0.0      # Dask: of ``seconds``, the workers' compile (or load) before the first chunk
    folder: Folder | None = field(default=None, repr=False)     # (a URL's: with its storage options)

    def scan(self, table: str) -> pl.LazyFrame:
        """A polars LazyFrame over one table (games, players, tickets, turns), with
        ``block`` (:meth:`ttrsim.results.reader.Results.scan`)."""
        return Results.open(self.folder or self.path).scan(table)

    def table(self, table: str) -> pl.DataFrame:
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
        self.stats = RateSums.zeros(len(exp.entrants))      # stop rule: win sums of the committed chunks
        self.done_keys: set[str] = set()
        self.finished = False
        self.stopped_at = None          # games, when the stop rule ended the point
        self.cursor = 0                 # next chunk index to submit
        self.next_commit = 0            # stop rule: chunks are committed in order
        self.buffer: dict[int, dict] = {}
        self.games_done = 0


def run_experiment(path_or_dict, *, output=None, workers=None, backend=None, scheduler=None, chunk_size=None,
                   overwrite: bool = False, progress: bool = True, echo=None, base_dir=None, refitter=None,
                   **overrides) -> RunResult:
    """Run (or resume, or grow) an experiment; returns a :class:`RunResult`
    with the results path and the win-rate summary.

    ``path_or_dict``: an experiment YAML file or the same content as a dict.
    ``output``, ``workers``, ``backend``, ``scheduler``, ``chunk_size`` and any
    other top-level experiment key given as a keyword (``games=...``,
    ``seed=...``, ``log=...``, ``python_time_limit=...``) override the file.
    ``overwrite`` starts the folder over when it holds results (a different
    experiment is otherwise refused). ``echo`` prints messages (default:
    ``print`` to stderr; ``False`` = silent). Raises :class:`ExperimentError`
    (one line) before writing anything when the experiment is bad, and after
    saving the finished chunks when a strategy fails, the disk is full or a
    worker dies; SIGINT or SIGTERM (in the main thread) saves the finished
    chunks and raises :class:`Interrupted`. What a Python strategy prints goes
    to stderr, in this process and in the workers.

    An experiment with ``refit`` needs ``refitter``, a function ``(experiment,
    overwrite, echo) -> experiment`` that fits the entrants at every point and
    seats them (:func:`~ttrsim.experiment.refit.with_fits`):
    :func:`ttrsim.tune.refit.refit_experiment`, which ``ttrsim run`` passes;
    the fits run before the results folder is opened.
    """
    if echo is None:
        echo = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    elif echo is False:
        echo = lambda msg: None  # noqa: E731
    over = dict(overrides)
    over.update(output=os.fspath(output) if output is not None else None, workers=workers, backend=backend,
                scheduler=scheduler, chunk_size=chunk_size)
    # a Python strategy's print (on import, validation or in a game here) goes to stderr: stdout is the caller's
    with _Signals() as signals, contextlib.redirect_stdout(sys.stderr):
        exp = load_experiment(path_or_dict, over, base_dir=base_dir)
        if exp.refit:
            if refitter is None:
                raise ExperimentError(f"{exp.source}: refit: the fits need the tuner; expected run_experiment(..., "
                                      "refitter=ttrsim.tune.refit.refit_experiment), as ttrsim run does")
            exp = refitter(exp, overwrite, echo)
        folder = results_folder(exp.output, exp.storage_options)
        lock = folder.lock()
        try:
            if folder.foreign():
                raise ExperimentError(f"{exp.source}: output: {exp.output} exists and is not a ttrsim results folder "
                                      "(no manifest.json); expected a new or empty folder")
            folder.create()
            previous = lock.acquire(exp.source)
        except OSError as e:
            raise write_error(exp, e, "nothing was written") from e
        try:
            signals.closing = True      # setting the folder up: a signal is acted on as the run starts
            try:
                manifest, grown = open_folder(exp, folder, path_or_dict, overwrite, echo, previous is not None)
                if previous is not None:        # (said once the folder is this run's: a refusal is one line)
                    echo(f"note: took over the lock of a run that ended without releasing it "
                         f"(pid {previous.get('pid')} on {previous.get('host')}, started {previous.get('started')})")
                r = _Run(exp, folder, manifest, grown, progress, echo, signals)
                r.lock = lock
                r.start()
            except OSError as e:
                raise write_error(exp, e, "run the same command again once it is fixed") from e
            return r.run()
        finally:
            lock.release()


class _Run:
    def __init__(self, exp: Experiment, folder: Folder, manifest: dict, grown: int | None, progress: bool, echo,
                 signals: _Signals):
        self.exp, self.folder, self.manifest, self.echo = exp, folder, manifest, echo
        self.progress, self.signals, self.grown = progress, signals, grown
        per_chunk = manifest["layout"]["chunk_games"]
        self.points = [_Point(exp, p.index, per_chunk) for p in exp.points]
        self.specs = point_specs(exp, manifest["config_hash"])
        self.games_run = 0
        self.warm_up_s = 0.0            # Dask: seconds the workers took to compile (or load) the loop
        self.last_manifest_write = 0.0
        self._keep_checked_chunks()
        for pt in self.points:
            info = manifest["points"].get(str(pt.index), {})
            if pt.stop is not None:
                # the stop rule needs the committed chunks as a prefix, each with its win sums: a chunk after
                # a gap, or recorded by an older ttrsim (other sums), is played again
                while pt.next_commit < len(pt.chunks) and pt.chunks[pt.next_commit].key in pt.done_keys:
                    sums = RateSums.from_json(manifest["chunks"][pt.chunks[pt.next_commit].key].get("stats", {}))
                    if sums is None:
                        break
                    pt.stats += sums
                    pt.next_commit += 1
                prefix = {c.key for c in pt.chunks[:pt.next_commit]}
                for key in pt.done_keys - prefix:
                    del manifest["chunks"][key]
                pt.done_keys &= prefix
            for key in pt.done_keys:
                pt.games_done += manifest["chunks"][key]["hi"] - manifest["chunks"][key]["lo"]
            if pt.stop is not None and info.get("status") == "done" and info.get("games") == pt.games_done:
                pt.finished, pt.stopped_at = True, info.get("stopped_at")
            elif all(c.key in pt.done_keys for c in pt.chunks):
                pt.finished = True
            else:
                manifest["points"].pop(str(pt.index), None)
        folder.clean_strays(set().union(*(pt.done_keys for pt in self.points)))

    def _keep_checked_chunks(self):
        """Keep the chunks of earlier runs that are this run's chunks (the same
        games) and whose part files check out (size, rows, tag, checksum; a
        chunk recorded without checksums is read whole and gets them); forget
        the others, to be played again, and say why, naming the file."""
        manifest, tables = self.manifest, self.manifest["layout"]["tables"]
        planned = {c.key: c for pt in self.points for c in pt.chunks}
        damaged = []
        for key, rec in list(manifest["chunks"].items()):
            c, pt = planned.get(key), self.points[rec["point"]] if rec["point"] < len(self.points) else None
            if c is None or c.lo != rec["lo"] or not (c.hi == rec["hi"] or (pt.stop is not None and c.hi > rec["hi"])):
                del manifest["chunks"][key]        # the smaller run's last chunk, when the run grows
                continue
            why = next((f"{t}/part-{key}.parquet: {w}" for t in tables
                        if (w := self.folder.check(t, key, rec, manifest["config_hash"], decode=True))), None)
            if why is None:
                pt.done_keys.add(key)
                if any(t not in (rec.get("sha256") or {}) for t in tables):     # recorded by an older ttrsim
                    rec["sha256"] = {t: self.folder.digest(t, key) for t in tables}
            else:
                damaged.append(why)
                del manifest["chunks"][key]
        if damaged:
            self.echo(f"note: {len(damaged)} chunk{'s are' if len(damaged) > 1 else ' is'} played again, "
                      f"{'their' if len(damaged) > 1 else 'its'} part files damaged or missing ({damaged[0]}"
                      f"{', ...' if len(damaged) > 1 else ''})")

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
        """Write the part files of a chunk (unless its worker wrote them: a
        folder at a URL) and record it (stop rule first)."""
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
        if "data" in res:
            for name, raw in res["data"].items():
                self.folder.write_atomic(self.folder.part(name, chunk.key), raw)
            res = dict(res, bytes={k: len(v) for k, v in res["data"].items()},
                       sha256={k: digest(v) for k, v in res["data"].items()})
        pt.done_keys.add(chunk.key)
        games = res["hi"] - res["lo"]
        pt.games_done += games
        self.games_run += games
        record = self.manifest["chunks"][chunk.key] = {
            "point": chunk.point, "index": chunk.index, "lo": res["lo"], "hi": res["hi"], "rows": res["rows"],
            "bytes": res["bytes"], "sha256": res["sha256"], "play_s": round(res["play_s"], 4),
            "encode_s": round(res["encode_s"], 4), "pid": res["pid"], "finished": now()}
        if stop is not None:                 # the stop rule's sums, kept for a resume
            sums = RateSums.of_blocks(res["W"], res["C"])
            pt.stats += sums
            record["stats"] = sums.to_json()
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
        t = time.monotonic()
        if force or t - self.last_manifest_write >= MANIFEST_INTERVAL:
            self.folder.write_manifest(self.manifest)
            self.last_manifest_write = t

    # ---- the loop
    def start(self):
        """Record this run in the manifest as ``running`` (an ``OSError`` when it cannot be written)."""
        exp = self.exp
        self.run_info = {"started": now(), "pid": os.getpid(), "workers": exp.workers, "backend": exp.backend,
                         "scheduler": exp.scheduler, "chunk_games": self.manifest["layout"]["chunk_games"],
                         "games": 0, "seconds": 0.0, "status": "running"}
        if self.grown is not None:
            self.run_info["grown_from"] = self.grown
        self.manifest["runs"].append(self.run_info)
        self.manifest["status"] = "running"
        try:
            self.folder.write_manifest(self.manifest)
        except OSError:
            self.manifest["runs"].pop()
            raise

    def run(self) -> RunResult:
        """Play the chunks left (after :meth:`start`)."""
        exp, signals, run_info = self.exp, self.signals, self.run_info
        start = time.perf_counter()
        done_before = sum(pt.games_done for pt in self.points)
        backend = self.backend = None
        inflight: dict = {}
        bar = None
        status, error = "failed", None
        signals.abandon = self.abandon if ABANDON_HELD_STOP else None
        try:
            signals.closing = False
            signals.check()
            if self._next_chunk_exists():
                with signals.deferred() if exp.backend == "local" else nullcontext():
                    backend = self.backend = make_backend(exp, self.echo)
                pool = signals.deferred if backend.atomic else nullcontext    # around every call into the pool
                for spec, pt in zip(self.specs, self.points):
                    spec["parent"] = backend.parent
                    # a folder at a URL: the workers write the parts (but of a stop rule's chunks, cut here)
                    spec["writer"] = self.folder.writer if pt.stop is None else None
                t = time.perf_counter()
                backend.warm_up(self.specs[0], pool)        # the chunk loop compiled (or loaded) where it runs
                if exp.backend != "local":
                    self.warm_up_s = time.perf_counter() - t
                    run_info["warm_up_s"] = round(self.warm_up_s, 3)
                signals.check()
                bar = tqdm(total=self._planned_total(), initial=done_before, unit="game", unit_scale=True,
                           disable=not self.progress, desc=exp.name, smoothing=0.05, file=sys.stderr,
                           dynamic_ncols=True)
                window = max(2, 2 * exp.workers)
                while True:
                    while len(inflight) + sum(len(pt.buffer) for pt in self.points) < window:
                        c = self._next_chunk()
                        if c is None:
                            break
                        with pool():
                            inflight[backend.submit(run_chunk, self.specs[c.point], c)] = c
                        signals.check()
                    if not inflight:
                        break
                    with pool():
                        done = backend.wait_any(inflight)
                    for fut in done:
                        c = inflight.pop(fut, None)
                        if c is None:            # dropped: its point stopped meanwhile
                            continue
                        with pool():
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
                            with pool():
                                for f, cc in list(inflight.items()):
                                    if cc.point == pt.index:
                                        f.cancel()
                                        del inflight[f]
                            bar.total = self._planned_total()
                            bar.refresh()
                    signals.check()
            status = "complete"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        except (StrategyError, IllegalAction) as e:
            error = ExperimentError(f"{exp.source}: {e}")
            raise error from e
        except OSError as e:
            error = write_error(exp, e)
            raise error from e
        except BrokenProcessPool as e:
            error = ExperimentError(f"{exp.source}: a worker process died ({_first_line(e)}; killed for lack of "
                                    "memory?); expected workers that live to the end of their chunks")
            raise error from e
        except ExperimentError as e:      # the Dask backend: no worker
            error = e
            raise
        except Exception as e:
            if signals.signum is not None:      # an error the stop caused (as numba makes of one in its callback)
                status = "interrupted"
                raise Interrupted(signals.signum) from None
            if exp.backend == "dask" and backend is not None and backend.lost(e):
                error = backend.lost(e)
                raise error from e
            if type(e).__name__ != "KilledWorker":
                raise
            error = ExperimentError(f"{exp.source}: a Dask worker died playing a chunk ({_first_line(e)}); "
                                    "expected workers that live to the end of their chunks")
            raise error from e
        finally:
            signals.closing, signals.abandon = True, None
            for f in inflight:
                f.cancel()
            if bar is not None:
                bar.close()
            if backend is not None:
                backend.close(kill=status != "complete")
            seconds = time.perf_counter() - start
            run_info.update(ended=now(), games=self.games_run, seconds=round(seconds, 3), status=status,
                            games_per_s=round(self.games_run / seconds, 1) if seconds > 0 else None)
            self.manifest["status"] = status
            failure = result = None
            try:
                result = self._finish(status, seconds)
            except Exception as e:        # the summary could not be read back: the run failed, and says so
                failure = e
                status = run_info["status"] = self.manifest["status"] = "failed"
                if isinstance(e, ExperimentError):
                    error = e
            games = sum(pt.games_done for pt in self.points)
            kept = f"{games:,} games kept in {self.folder.root}"
            try:
                self.folder.write_manifest_last(self.manifest)
            except OSError as e:
                kept += (f" (as of the last manifest written; it could not be updated ({e.strerror or e}) and "
                         "still says running)")
            if error is not None:
                error.args = (f"{error.args[0]}; the run stopped: {kept}; run the same command again to resume",)
            elif status == "interrupted":
                self.echo(f"interrupted: {kept}; run the same command again to resume")
            signals.closing = False
        if failure is not None:
            raise failure
        signals.check()              # a signal while the complete run saved its summary still stops
        return result

    def abandon(self, signum: int):
        """The stop, from :class:`_Signals`' watchdog thread, of a run whose
        main thread numba holds (compiling: no part file is being written):
        the pool killed, the manifest saved as ``interrupted``, the lock
        released, the usual line; then the process ends (``os._exit``, exit
        code 128 + ``signum``): the folder resumes as after any stop."""
        try:
            if self.backend is not None:
                self.backend.close(kill=True)
            self.run_info.update(ended=now(), games=self.games_run, status="interrupted")
            self.manifest["status"] = "interrupted"
            self.folder.write_manifest_last(self.manifest)
            self.lock.release()
            games = sum(pt.games_done for pt in self.points)
            self.echo(f"interrupted: {games:,} games kept in {self.folder.root}; run the same command again "
                      "to resume")
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(128 + signum)

    def _next_chunk_exists(self) -> bool:
        return any(not pt.finished and any(c.key not in pt.done_keys for c in pt.chunks) for pt in self.points)

    def _finish(self, status: str, seconds: float) -> RunResult:
        """The summary of a complete run, read back from the folder as the
        manifest now lists it (none of a stopped one: it is not returned)."""
        games = sum(pt.games_done for pt in self.points)
        rows, text = [], ""
        if games and status == "complete":
            res = Results.from_manifest(self.folder, self.manifest, check=False)
            try:
                rows, ends = summary_from_tables(res), ends_by_point(res)
                effects = format_effects(paired_effects(res)) if intervention(res) else ""
            except READ_ERRORS as e:
                error = self._unreadable(e)
                if error is None:
                    raise
                raise error from e
            text = format_summary(rows, ends) + ("\n" + effects if effects else "")
            self.manifest["summary"] = rows
            self.manifest["points_summary"] = {
                str(pt.index): {"games": pt.games_done, "stopped_at": pt.stopped_at, "ends": ends[pt.index]}
                for pt in self.points}
        return RunResult(path=self.folder.root, status=status, games=games, games_run=self.games_run,
                         seconds=seconds, summary=rows, summary_text=text, manifest=self.manifest,
                         warm_up_seconds=self.warm_up_s, folder=self.folder)

    def _unreadable(self, e: BaseException) -> ExperimentError | None:
        """The one line of a part file found unreadable when the summary reads
        the folder back (damaged after it was checked): its chunk is dropped
        from the manifest, to be played again by the next run. None when
        every part file reads (``e`` was not a damaged file)."""
        bad = []
        for pt in self.points:
            for key in sorted(pt.done_keys):
                rec = self.manifest["chunks"][key]
                why = next((f"{t}/part-{key}.parquet: {w}" for t in self.manifest["layout"]["tables"]
                            if (w := self.folder.unreadable(t, key))), None)
                if why is not None:
                    bad.append(why)
                    pt.done_keys.discard(key)
                    pt.games_done -= rec["hi"] - rec["lo"]
                    pt.finished = False
                    del self.manifest["chunks"][key]
                    self.manifest["points"].pop(str(pt.index), None)
        if not bad:
            return None
        self.manifest.pop("summary", None)         # (of games no longer all in the folder)
        self.manifest.pop("points_summary", None)
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        return ExperimentError(f"{self.exp.source}: output: {bad[0]}{more}; expected whole part files (the chunk "
                               "is dropped from the manifest, to be played again)")


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


__all__ = ["run_experiment", "RunResult", "Interrupted", "ExperimentError", "EXECUTION_KEYS"]
