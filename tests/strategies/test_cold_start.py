"""The first run's compile: only the seated strategies' kernels, each
function once, split over two processes (docs/performance.md, "the first
run"). The figures themselves are measured by benchmarks/cold_start.py."""
import ast
import inspect
import textwrap

import numpy as np
import pytest
from numba.core import types
from numba.core.dispatcher import Dispatcher

from ttrsim.cli.compiling import COMPILE_WEIGHTS, split_kernels
from ttrsim.core.actions import legal_buffer
from ttrsim.core.board import build_board
from ttrsim.core.state import allocate_state
from ttrsim.data.rules import get_rules
from ttrsim.jit.patches import canonical
from ttrsim.play.loop import _play_game
from ttrsim.strategies import STRATEGY_IDS, param_row
from ttrsim.strategies.kit.dispatch import ALL_KERNELS, KERNEL_NAMES, Kernels, kernels_for
from ttrsim.strategies.kit.memory import allocate_memory


def test_kernels_of_a_lineup():
    ids = [STRATEGY_IDS[n] for n in ("planner", "passenger_hunter", "planner_classic", "random")]
    assert kernels_for(ids).names == ("random_strategy", "planner")          # one kernel, three strategies
    assert ALL_KERNELS.names == KERNEL_NAMES and len(KERNEL_NAMES) == len(set(KERNEL_NAMES))
    with pytest.raises(ValueError, match="unknown strategy id"):
        kernels_for([len(STRATEGY_IDS)])
    with pytest.raises(ValueError, match="unknown strategy kernel"):
        Kernels(["nope"])


def test_a_loop_plays_only_the_kernels_it_was_built_with():
    b = build_board(get_rules("usa"))
    s, m, legal = allocate_state(b, 2), allocate_memory(b, 2), legal_buffer(b)
    ids = np.array([STRATEGY_IDS["random"], STRATEGY_IDS["greedy"]], np.int64)
    params = np.array([param_row("random"), param_row("greedy")])
    with pytest.raises(ValueError, match="not in the loop"):
        _play_game(kernels_for(ids[:1]), b, s, m, 1, ids, params, legal)


def test_calls_between_ttrsim_functions_use_one_signature():
    assert canonical(types.literal(-1)) == canonical(types.int16) == canonical(types.int32) == types.int64
    assert canonical(types.literal(True)) == types.boolean
    assert canonical(types.uint64) == types.uint64 and canonical(types.float32) == types.float32


def test_the_compile_is_split_evenly_over_two_processes():
    names = ALL_KERNELS.names
    theirs, ours = split_kernels(names)
    assert sorted(theirs + ours) == sorted(names)
    load = [COMPILE_WEIGHTS["engine"] + sum(COMPILE_WEIGHTS.get(n, 3) for n in theirs),
            sum(COMPILE_WEIGHTS.get(n, 3) for n in ours)]
    assert abs(load[0] - load[1]) <= max(COMPILE_WEIGHTS.values())
    assert split_kernels(["planner"]) == ([], ["planner"])       # the helper compiles the engine meanwhile


def test_the_two_processes_compile_engine_and_kernels_in_order(monkeypatch):
    from ttrsim.cli import compiling

    done = []
    monkeypatch.setattr(compiling, "compile_engine", lambda: done.append("engine"))
    monkeypatch.setattr(compiling, "compile_kernel", done.append)
    compiling.compile_parts(["engine", "route_focus", "random_strategy"])
    assert done == ["engine", "route_focus", "random_strategy"]


def _called_names(fn) -> set[str]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn.py_func)))
    return {c.func.id for c in ast.walk(tree) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}


def test_the_engine_part_is_what_the_chunk_loop_calls_below_the_kernels():
    """compile_engine compiles every compiled function the chunk loop calls
    (play_logged and pick are inlined into it), so the run's own compile
    only loads them (benchmarks/cold_start.py lists what it compiles)."""
    from ttrsim.cli.compiling import engine_calls
    from ttrsim.play import chunk, turnlog

    called = (_called_names(chunk.play_chunk) | _called_names(turnlog.play_logged)) - {"play_logged", "pick"}
    scopes = {**vars(chunk), **vars(turnlog)}
    compiled = {n for n in called if isinstance(scopes.get(n), Dispatcher)}
    calls = engine_calls()
    assert {fn.py_func.__name__ for fn, _ in calls} == compiled
    assert all(all(t == canonical(t) for t in sig) for _, sig in calls)


def test_the_helper_starts_with_a_first_run_only(tmp_path, monkeypatch):
    import os

    from ttrsim.cli import compiling
    from ttrsim.jit import cache as jitcache

    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: no helper")
    monkeypatch.setattr(jitcache, "cache_dir", lambda: tmp_path)
    helper = compiling.start_helper()
    assert helper is not None
    compiling.stop_helper(helper)                    # not used (a Dask run, a bad file): ended
    assert helper.poll() is not None
    (tmp_path / "loops").mkdir()                     # a loop was compiled before: the engine is cached
    assert compiling.start_helper() is None


def test_a_local_pool_starts_its_workers_while_the_loop_compiles(tmp_path, monkeypatch):
    """A local pool's warm-up sends each worker ``prepare`` (imports,
    table) before it compiles the chunk loop, which the workers then load."""
    from ttrsim.experiment import backends, runner

    order = []

    class Pool(backends.LocalBackend):
        def __init__(self):
            self.parent, self.workers = None, 2

        def submit(self, fn, *args):
            order.append(fn.__name__)
            return backends._Done(fn, args)

        def wait_any(self, futures):
            return list(futures)

        def close(self, kill=False):
            pass

    monkeypatch.setattr(runner, "make_backend", lambda exp, echo: Pool())
    monkeypatch.setattr(backends, "warm_up", lambda spec: order.append("warm_up"))
    r = runner.run_experiment({"name": "t", "rules": "usa", "players": 2, "lineup": ["random", "greedy"],
                               "games": 8, "workers": 2, "chunk_size": 4}, output=tmp_path / "r",
                              progress=False, echo=False)
    assert r.games == 8
    assert order == ["prepare", "prepare", "warm_up", "run_chunk", "run_chunk"]


def test_the_chunk_loop_links_its_callees_as_compiled():
    from ttrsim.experiment.worker import play_chunk
    from ttrsim.jit import cache, patches

    assert play_chunk.py_func in patches._LINK_AS_COMPILED
    assert cache.cache_dir().name.startswith("numba-")


_RUN_AND_LIST_COMPILES = """
import json, sys
from ttrsim.jit.cache import CompileWatch
names = []
with CompileWatch(on_unit=lambda name, done: names.append(name)):
    from ttrsim.experiment.runner import run_experiment
    for i, lineup in enumerate(json.loads(sys.argv[1])):
        run_experiment({"name": "cached", "players": 2, "lineup": lineup, "games": 4, "seed": 3, "log": True,
                        "workers": 1}, output=f"{sys.argv[2]}/{i}", overwrite=True, progress=False, echo=False)
print(json.dumps(names))
"""


def test_a_second_process_finds_every_function_of_a_small_run_in_the_cache(tmp_path):
    """The chunk loop of a compiled line-up and of one with a Python seat,
    run in two processes one after the other (different hash seeds, so a
    cache key that depended on one would differ): the second compiles
    nothing, everything loads from the disk cache (issue 30: functions
    compiled again on every run). The first compiles what earlier tests did
    not."""
    import json
    import os
    import subprocess
    import sys

    lineups = json.dumps([["random", "route_focus"],
                          [{"python": "ttrsim.strategies.python_example:GreedyLongest"}, "random"]])
    compiled = []
    for seed in ("1", "2"):
        p = subprocess.run([sys.executable, "-c", _RUN_AND_LIST_COMPILES, lineups, str(tmp_path / seed)],
                           capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed},
                           timeout=900)   # a hang guard only: the first process may compile for minutes
        assert p.returncode == 0, p.stderr
        compiled.append(json.loads(p.stdout.strip().splitlines()[-1]))
    assert compiled[1] == [], f"compiled again in a second process: {compiled[1]} (first: {compiled[0]})"
