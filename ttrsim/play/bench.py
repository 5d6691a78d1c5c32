"""Benchmark: complete games per second on one core (setup, play and final
scoring), with compiled strategies: each strategy in self-play at every
seat, but ``search`` (a game of four searching seats costs four times one) as
one seat among the planners it plays against (:data:`ONE_SEAT`).

:func:`run_bench` times this process. The rate is per CPU second of the
process (``time.process_time``), so time spent waiting for a busy shared
machine does not count; the wall time is reported beside it, and the commit
the code comes from.

:func:`compare` times two versions of the engine against each other: another
commit of this repository (extracted with ``git archive``) and the code
installed here, each in its own worker process pinned to the same core,
asked in turn for equal timed runs (interleaved pairs, the order alternating
from pair to pair). Each pair gives one ratio (new games/s over old); the
median of the ratios is the figure to quote, with their range. On a shared,
noisy machine a ratio of two runs taken seconds apart on one core is far more
stable than either rate.

>>> rows = run_bench(["usa"], [2], seconds=0.2)
>>> rows[0]["strategy"], rows[0]["games_per_s"] > 0, rows[0]["wall_seconds"] > 0
('random', True, True)
"""
from __future__ import annotations

import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

from ttrsim.core.actions import legal_buffer
from ttrsim.core.board import build_board
from ttrsim.core.state import N_FINAL, allocate_state
from ttrsim.data.rules import get_rules, preset_names
from ttrsim.jit.cache import cache_base
from ttrsim.strategies import param_row, strategy_id
from ttrsim.strategies.kit.memory import allocate_memory

from .loop import play_many

REPO = Path(__file__).resolve().parent.parent.parent     # the checkout this ttrsim runs from
# strategy -> the strategy at the other seats, for a strategy timed as one seat
ONE_SEAT = {"search": "planner"}


def bench_one(rules: str, players: int, strategy: str = "random", seconds: float = 2.0) -> dict:
    """Self-play games of ``strategy`` for about ``seconds`` of CPU time, in
    batches of consecutive seeds from 1,000,000 (the same games every call)."""
    b = build_board(get_rules(rules))
    s = allocate_state(b, players)
    m = allocate_memory(b, players)
    others = ONE_SEAT.get(strategy, strategy)
    ids = np.array([strategy_id(strategy)] + [strategy_id(others)] * (players - 1), np.int64)
    params = np.stack([param_row(strategy, rules=rules, players=players)]
                      + [param_row(others, rules=rules, players=players)] * (players - 1))
    buf = legal_buffer(b)
    batch, max_batch = (1 if strategy in ONE_SEAT else 16), 4096
    finals = np.zeros((max_batch, players, N_FINAL), np.int32)
    play_many(b, s, m, np.arange(batch, dtype=np.int64), ids, params, buf, finals)
    games, seed = 0, 1_000_000
    start, wall = time.process_time(), time.perf_counter()
    while time.process_time() - start < seconds:
        seeds = np.arange(seed, seed + batch, dtype=np.int64)
        play_many(b, s, m, seeds, ids, params, buf, finals)
        games += batch
        seed += batch
        batch = min(batch * 2, max_batch)
    cpu = time.process_time() - start
    return {"rules": rules, "players": players, "strategy": strategy, "games": games,
            "seconds": round(cpu, 3), "wall_seconds": round(time.perf_counter() - wall, 3),
            "games_per_s": round(games / cpu, 2)}


def run_bench(rules: list[str], players: list[int], seconds: float = 2.0, strategy: str = "random") -> list[dict]:
    """Games per second per core for each rule set and player count; every
    row names the commit timed (:func:`commit_id`)."""
    if rules == ["all"]:
        rules = preset_names()
    commit = commit_id()
    return [{**bench_one(r, p, strategy, seconds), "commit": commit} for r in rules for p in players]


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True).stdout.strip()


def commit_id() -> str | None:
    """The commit of the checkout this ttrsim runs from (``+`` when its files
    differ from it), or None outside a git checkout."""
    try:
        head = _git("rev-parse", "--short=12", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=no", "--", "ttrsim", "strategies")
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+" if dirty else "")


# --- two commits, interleaved -------------------------------------------------------------------

# A worker: pinned to one core, imports ttrsim from ROOT (or the installed one
# if ROOT is empty), answers one JSON line of bench_one per JSON job line
# ({"error": message} for a job its code cannot run, e.g. a newer strategy).
_WORKER = r"""
import json, os, sys
root, core = sys.argv[1], int(sys.argv[2])
os.sched_setaffinity(0, {core})
if root:
    sys.path.insert(0, root)
from ttrsim.play.bench import bench_one
for line in sys.stdin:
    job = json.loads(line)
    try:
        out = bench_one(job["rules"], job["players"], job["strategy"], job["seconds"])
    except ValueError as e:
        out = {"error": str(e)}
    print(json.dumps(out), flush=True)
"""


class BenchError(ValueError):
    """A comparison that cannot run (unknown revision, a worker that failed)."""


# the worker imports this module of the old commit: commits before the package layout change lack it
BENCH_MODULE = "ttrsim/play/bench.py"


def oldest_comparable() -> str:
    """The oldest commit :func:`compare` can time: the first with :data:`BENCH_MODULE`."""
    added = _git("log", "--diff-filter=A", "--format=%h", "--", BENCH_MODULE).split()
    return added[-1] if added else "?"


def old_source(rev: str) -> Path:
    """A folder holding the ``ttrsim`` package of commit ``rev`` (its
    ``strategies/`` folder as ``ttrsim/strategies``, where the installed
    layout puts it), extracted once per commit beside the kernel caches so
    that its compiled kernels are cached too (numba checks the files' times).
    A commit from before the package layout (no :data:`BENCH_MODULE`) is
    refused, naming the oldest one that can be compared."""
    try:
        commit = _git("rev-parse", "--short=12", "--verify", f"{rev}^{{commit}}")
    except (OSError, subprocess.CalledProcessError):
        raise BenchError(f"--compare: '{rev}' is not a commit of the repository at {REPO}") from None
    try:
        _git("cat-file", "-e", f"{commit}:{BENCH_MODULE}")
    except subprocess.CalledProcessError:
        raise BenchError(f"--compare: commit {commit} is older than the package layout this comparison runs "
                         f"(it has no {BENCH_MODULE}); expected commit {oldest_comparable()} or a later one") from None
    dest = cache_base() / f"source-{commit}"
    if dest.exists():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = Path(tempfile.mkdtemp(prefix=dest.name, dir=dest.parent))
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit, "ttrsim", "strategies"],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if member.name.startswith("strategies"):
                member.name = "ttrsim/" + member.name
            tar.extract(member, part, filter="data")
    os.replace(part, dest)              # whole or not at all
    return dest


class _Worker:
    def __init__(self, root: str, core: int, cwd: str):
        self.proc = subprocess.Popen([sys.executable, "-c", _WORKER, root, str(core)], cwd=cwd, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, job: dict) -> dict:
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise BenchError(f"a benchmark worker stopped (exit code {self.proc.wait()}); see its error above")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def default_core() -> int:
    """The highest-numbered core this process may run on."""
    return max(os.sched_getaffinity(0))


def renamed(name: str) -> tuple[str, str]:
    """A strategy's name here and on the old commit: ``NEW=OLD`` times
    strategy ``NEW`` of this code against ``OLD`` of the old one (a strategy
    renamed since); a plain name is the same on both.

    >>> renamed("planner_classic=planner"), renamed("random")
    (('planner_classic', 'planner'), ('random', 'random'))
    """
    new, _, old = name.partition("=")
    return new, old or new


def compare(rev: str, rules: list[str], players: list[int], strategies: list[str], seconds: float = 1.0,
            pairs: int = 7, core: int | None = None, progress=None) -> list[dict]:
    """Games per second of commit ``rev`` (old) and of the installed code
    (new) in ``pairs`` interleaved pairs of ``seconds`` CPU seconds each, both
    pinned to ``core``; one row per rule set, player count and strategy with
    the median rates, the median ratio new/old and the lowest and highest
    ratio of a pair. A strategy ``NEW=OLD`` is timed as ``OLD`` on the old
    commit (:func:`renamed`; its row's ``old_strategy``). ``progress(text)``
    is called before each pair (and for a combination one side cannot run,
    which is left out)."""
    if rules == ["all"]:
        rules = preset_names()
    core = default_core() if core is None else core
    new_commit = commit_id()
    rows = []
    with tempfile.TemporaryDirectory(prefix="ttrsim-compare-") as tmp:
        root = old_source(rev)
        old, new = _Worker(str(root), core, tmp), _Worker("", core, tmp)
        old_commit = root.name.removeprefix("source-")
        try:
            for name in strategies:
                strategy, old_strategy = renamed(name)
                for r in rules:
                    for p in players:
                        job = {"rules": r, "players": p, "strategy": strategy, "seconds": seconds}
                        jobs = {old: {**job, "strategy": old_strategy}, new: job}
                        warm = [w.run({**jobs[w], "seconds": 0.05}) for w in (old, new)]    # compile or load
                        errors = [f"{side}: {w['error']}" for side, w in zip(("old", "new"), warm) if "error" in w]
                        if errors:                        # e.g. a strategy the old commit does not have
                            if progress:
                                progress(f"{r} {p}P {name}: skipped ({'; '.join(errors)})")
                            continue
                        old_rates, new_rates = [], []
                        for i in range(pairs):
                            if progress:
                                progress(f"{r} {p}P {name}: pair {i + 1}/{pairs}")
                            first, second = (old, new) if i % 2 == 0 else (new, old)
                            a, b = first.run(jobs[first]), second.run(jobs[second])
                            o, n = (a, b) if first is old else (b, a)
                            old_rates.append(o["games_per_s"])
                            new_rates.append(n["games_per_s"])
                        ratios = [n / o for n, o in zip(new_rates, old_rates)]
                        rows.append({"rules": r, "players": p, "strategy": strategy,
                                     "old_strategy": old_strategy, "pairs": pairs,
                                     "seconds": seconds, "core": core, "old_commit": old_commit,
                                     "new_commit": new_commit,
                                     "old_games_per_s": round(statistics.median(old_rates), 1),
                                     "new_games_per_s": round(statistics.median(new_rates), 1),
                                     "ratio": round(statistics.median(ratios), 3),
                                     "ratio_min": round(min(ratios), 3), "ratio_max": round(max(ratios), 3)})
        finally:
            old.close()
            new.close()
    return rows
