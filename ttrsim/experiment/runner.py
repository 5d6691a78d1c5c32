"""Run an experiment: chunks of games on a backend into a results folder.

:func:`run_experiment` (and ``ttrsim run``) validates the experiment, plans the
chunks of every sweep point (whole seed blocks, ``chunk_size`` games), and runs
them on a backend (:mod:`ttrsim.experiment.backends`: in this process, a local
process pool or Dask). A worker plays a chunk (:mod:`ttrsim.experiment.worker`)
and returns its tables as Parquet bytes; this process writes every part file
atomically into the results folder (:mod:`ttrsim.experiment.folder`), then
records the chunk in ``manifest.json`` (also written atomically). Memory stays
bounded: at most ``2 x workers`` chunks are in flight. The summary at the end
is read back from the folder (:mod:`ttrsim.experiment.summary`), exactly as the
report reads it.

A new folder gets ``map.json`` and ``rules.json`` first: the map and the
resolved rules of every sweep point the games are played with, so the folder
describes itself.

Resume: running the same experiment on the same folder skips the chunks the
manifest lists and recomputes the rest (part files without a manifest entry,
e.g. after ``kill -9``, are deleted first); a game's result depends only on the
experiment seed and its number, so the tables end up identical to an
uninterrupted run. A different experiment in the folder is refused unless
``overwrite``, and so is the same experiment whose map file or resolved rules
changed since the folder was started (``map.json`` / ``rules.json`` differ).
Ctrl-C stops cleanly: finished chunks stay, the manifest says ``interrupted``.

Sequential stop: the chunks of a point with a stop rule are committed in
order; after each chunk the win-rate interval of the named strategy
(:func:`ttrsim.experiment.stats.rate_interval`) is checked at every block
boundary inside it, and the point ends at the first boundary (past
``min_games``) where it is narrower than ``width``: the chunk is cut there and
later chunks are dropped. The stopping point therefore depends only on the
games, never on workers, chunking or backend.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
from tqdm import tqdm

from ttrsim import GAMES_VERSION

from .backends import make_backend
from .config import EXECUTION_KEYS, Experiment, ExperimentError, load_experiment
from .folder import FORMAT, MAP_FILE, PART_FILES, RULES_FILE, Folder, describe, now, versions
from .results import Results
from .seating import Chunk, chunks_of_point
from .stats import RateSums, widths_along
from .summary import ends_by_point, format_summary, summary_from_tables
from .worker import point_spec, run_chunk, truncate, warm_up

# seconds between manifest writes (a killed run redoes the chunks finished since the last one)
MANIFEST_INTERVAL = float(os.environ.get("TTRSIM_MANIFEST_INTERVAL", "1.0"))


@dataclass
class RunResult:
    """What :func:`run_experiment` returns."""
    path: Path
    status: str                       # complete | interrupted
    games: int                        # games in the folder
    games_run: int                    # games played by this call
    seconds: float
    summary: list = field(default_factory=list)   # rows of summary_from_tables
    summary_text: str = ""
    manifest: dict = field(default_factory=dict)

    def scan(self, table: str) -> pl.LazyFrame:
        """A polars LazyFrame over one table (games, players, tickets, turns), with
        ``block`` (:meth:`ttrsim.experiment.results.Results.scan`)."""
        return Results.open(self.path).scan(table)

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


_CHANGED = {MAP_FILE: f"{MAP_FILE} differs: the map file was edited since",
            RULES_FILE: f"{RULES_FILE} differs: this ttrsim resolves the rules otherwise"}


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
    m, described = describe(exp)
    try:
        manifest = folder.read_manifest(exp.source) if exp.output.exists() else None
        stored = {name: folder.read_json(name, exp.source) for name in described} if manifest else {}
    except ExperimentError:
        if not overwrite:
            raise
        manifest, stored = {}, {}
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
        changed = [_CHANGED[name] for name, data in described.items() if stored[name] not in (None, data)]
        if changed:
            raise ExperimentError(f"{exp.source}: output: {exp.output} was played with another map or rule set "
                                  f"({'; '.join(changed)}); expected the same map and rules to resume, or "
                                  "--overwrite to start over")
    # ---- from here on, the folder is written
    if manifest is not None and overwrite:
        folder.remove_results()
        manifest = None
    tables = ["games", "players", "tickets"] + (["turns"] if exp.log else [])
    if manifest is None:
        per_chunk = exp.chunk_games
        manifest = {"format": FORMAT, "games_version": GAMES_VERSION, "tool": "ttrsim", "experiment": exp.source,
                    "experiment_path": None if isinstance(path_or_dict, dict) else str(Path(path_or_dict).resolve()),
                    "description": exp.description,
                    "config": config, "execution": exp.execution(), "versions": versions(),
                    "layout": {"block_size": exp.block_size, "chunk_games": per_chunk, "stride": exp.stride,
                               "games_per_point": exp.games, "tables": tables, "part_files": PART_FILES},
                    "status": "running", "created": now(), "points": {}, "chunks": {}, "runs": []}
        folder.prepare(tables)
        folder.write_description(exp, m, described)
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
        if None in stored.values():          # a folder of an older ttrsim: add the description files
            folder.write_description(exp, m, described)
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
        pt.done_keys.add(chunk.key)
        games = res["hi"] - res["lo"]
        pt.games_done += games
        self.games_run += games
        record = self.manifest["chunks"][chunk.key] = {
            "point": chunk.point, "index": chunk.index, "lo": res["lo"], "hi": res["hi"], "rows": res["rows"],
            "bytes": {k: len(v) for k, v in res["data"].items()}, "play_s": round(res["play_s"], 4),
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
    def run(self) -> RunResult:
        exp = self.exp
        start = time.perf_counter()
        run_info = {"started": now(), "workers": exp.workers, "backend": exp.backend,
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
            run_info.update(ended=now(), games=self.games_run, seconds=round(seconds, 3), status=status,
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
        """The summary, read back from the folder as the manifest now lists it
        (none after a failure: the error is what matters then)."""
        games = sum(pt.games_done for pt in self.points)
        rows, text = [], ""
        if games and status != "failed":
            res = Results.from_manifest(self.folder.root, self.manifest)
            rows, ends = summary_from_tables(res), ends_by_point(res)
            text = format_summary(rows, ends)
            if status == "complete":
                self.manifest["summary"] = rows
                self.manifest["points_summary"] = {
                    str(pt.index): {"games": pt.games_done, "stopped_at": pt.stopped_at, "ends": ends[pt.index]}
                    for pt in self.points}
        return RunResult(path=self.folder.root, status=status, games=games, games_run=self.games_run,
                         seconds=seconds, summary=rows, summary_text=text, manifest=self.manifest)


__all__ = ["run_experiment", "RunResult", "ExperimentError", "EXECUTION_KEYS"]
