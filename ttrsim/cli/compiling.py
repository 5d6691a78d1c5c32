"""Compiling visibly: the first run's notice and progress, and ``ttrsim warmup``.

numba compiles a kernel the first time it is called with new argument types
(and caches it on disk: :mod:`ttrsim.jit.cache`). A command that may
compile runs inside :func:`compiling`: before the first function compiles (at
once if nothing is cached yet) it prints one line (what, that it happens once,
about how long, where the cache is), then a progress bar per compiled function
on a terminal, or a plain line every :data:`LINE_EVERY` functions otherwise.
Nothing is printed when everything loads from the cache.

A first ``ttrsim run`` compiles on two cores (:func:`compile_on_two_cores`):
numba compiles one function at a time per process, but the parts below the
runner's chunk loop (the engine with the turn log, each strategy kernel) are
independent and cached on disk one function at a time, so a helper process
(started with the command: :func:`start_helper`) compiles the engine and
some kernels while this one compiles the others; the run then loads them and
compiles only the loop on top.

:func:`warm_up` compiles what the commands use: the engine and every kernel
(on two cores), then one entry point after the other: the experiment
runner's chunk loop (also with a Python strategy at the table), the compiled
game loop (``bench``, ``play_finals``) and the Python ``Game`` with the
compiled strategies (``play``, ``fuzz``).
"""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager

import click

from .common import echo_err, echo_json, extras_errors, json_option, progress_option, table, want_progress

LINE_EVERY = 10          # without a terminal: a line every this many compiled functions

# rough CPU seconds of the first compile of each part below the chunk loop
# (measured one part at a time after the engine; the published agents share
# most of their callees, so each after the first costs about half of what it
# costs alone: docs/performance.md, "The first run"): the engine with the turn
# log (:func:`compile_engine`) and each strategy kernel (one not listed: 3)
COMPILE_WEIGHTS = {"engine": 28, "planner": 40, "destination_hungry": 6, "route_focus": 5,
                   "one_step": 4, "long_route": 4}


def about_how_long(estimate: dict) -> str:
    """The notice's duration: the last full compile on this machine at
    today's load, or a range where none was timed yet (the time left then
    shows in the progress, extrapolated from the functions done).

    >>> about_how_long({"seconds": 70.0, "units": 100, "timed": True})
    'about 70 s'
    >>> about_how_long({"seconds": 70.0, "units": 100, "timed": False})
    'about 70 s to 4 min: not timed on this machine yet'
    >>> about_how_long({"seconds": 150.0, "units": 100, "timed": False})
    'about 2 to 8 min: not timed on this machine yet'
    """
    s = estimate["seconds"]
    if estimate["timed"]:
        return f"about {_duration(s)}"
    lo, hi = _duration(s), _duration(3 * s)
    if lo.endswith(" min"):
        lo = lo[:-4]
    return f"about {lo} to {hi}: not timed on this machine yet"


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


@contextmanager
def compiling(progress: bool = True, echo=echo_err):
    """Inside: a notice before the first compile, then progress per compiled
    function (a bar if ``progress``, else plain lines); yields the
    :class:`~ttrsim.jit.cache.CompileWatch` (``seconds``, ``units``)."""
    from ttrsim.jit.cache import CompileWatch, cache_dir, compile_estimate

    estimate = compile_estimate()
    total = int(estimate["units"])
    state = {"bar": None, "noticed": False, "t0": time.perf_counter()}

    def first():
        if state["noticed"]:
            return
        state["noticed"] = True
        state["t0"] = time.perf_counter()
        echo(f"compiling the engine and strategies (first run only, {about_how_long(estimate)} for "
             f"about {total} functions), cached in {cache_dir()}")
        if progress:
            from tqdm import tqdm
            state["bar"] = tqdm(total=total, unit="fn", desc="compiling", file=sys.stderr, dynamic_ncols=True,
                                leave=False)

    def unit(name, done):
        bar = state["bar"]
        if bar is not None:
            bar.total = max(bar.total, done)
            bar.set_postfix_str(name.rsplit(".", 2)[-2] + "." + name.rsplit(".", 1)[-1], refresh=False)
            bar.update(1)
        elif done % LINE_EVERY == 0:
            of = f" of about {total}" if done <= total else ""
            left = (time.perf_counter() - state["t0"]) / done * (total - done)
            eta = f", about {left:.0f} s left" if done < total else ""
            echo(f"compiling: {done}{of} functions done{eta} ({name})")

    if not cache_dir().is_dir():          # nothing cached yet: say so now, before the imports and the setup
        first()
    with CompileWatch(first, unit) as watch:
        try:
            yield watch
        finally:
            if state["bar"] is not None:
                state["bar"].close()
            if watch.units:
                echo(f"compiled {watch.units} functions in {watch.seconds:.0f} s (cached for later runs)")


def watch_compiles(fn):
    """Run a command inside :func:`compiling` (progress as its ``--progress``
    and ``--json`` options say); the command reads the watch with
    :func:`compile_seconds`."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with compiling(want_progress(kwargs.get("progress"), kwargs.get("as_json", False))) as watch:
            click.get_current_context().meta["ttrsim.compile"] = watch
            return fn(*args, **kwargs)
    return wrapper


def add_compile_seconds(seconds: float) -> None:
    """Count ``seconds`` (waiting for a compile in another process) as the running command's compile time."""
    watch = click.get_current_context().meta.get("ttrsim.compile")
    if watch is not None:
        watch.seconds += seconds


def compile_seconds() -> float:
    """Seconds the running command spent compiling so far (0 outside :func:`watch_compiles`)."""
    watch = click.get_current_context().meta.get("ttrsim.compile")
    return watch.seconds if watch is not None else 0.0


# --------------------------------------------------------------------------- on two cores

def split_kernels(names) -> tuple[list[str], list[str]]:
    """The kernels ``names`` split into (the helper process's, this one's) so
    that both compile about as long by :data:`COMPILE_WEIGHTS`; the helper
    also compiles the engine."""
    load, parts = [COMPILE_WEIGHTS["engine"], 0], ([], [])
    for name in sorted(names, key=lambda n: -COMPILE_WEIGHTS.get(n, 3)):
        side = 0 if load[0] < load[1] else 1
        parts[side].append(name)
        load[side] += COMPILE_WEIGHTS.get(name, 3)
    return parts


@functools.cache
def _table():
    """A 2-player USA table: board, state, strategy memory, legal buffer (only their types are used)."""
    from ttrsim.core.actions import legal_buffer
    from ttrsim.core.board import build_board
    from ttrsim.core.state import allocate_state
    from ttrsim.data.rules import get_rules
    from ttrsim.strategies.kit.memory import allocate_memory

    b = build_board(get_rules("usa"))
    return b, allocate_state(b, 2), allocate_memory(b, 2), legal_buffer(b)


def engine_calls() -> list[tuple]:
    """The compiled functions the runner's chunk loop (:func:`ttrsim.play.chunk.play_chunk`,
    with :func:`ttrsim.play.turnlog.play_logged` inlined) calls below the
    strategy kernels, each with the argument types it passes them
    (:func:`~ttrsim.jit.patches.canonical`): ``(dispatcher, types)``."""
    import numba
    import numpy as np

    from ttrsim.core.engine import reset_game
    from ttrsim.core.state import N_FINAL
    from ttrsim.data.ids import LOCO, N_PASSENGER_COLOURS
    from ttrsim.jit.patches import canonical
    from ttrsim.play.chunk import N_EXTRA, record_end
    from ttrsim.play.turnlog import N_GAME_COLS, allocate_log, log_finish, log_has_room, log_step
    from ttrsim.strategies.kit.dispatch import legal_for
    from ttrsim.strategies.kit.memory import reset_memory

    b, s, m, legal = _table()
    log, i, flag = allocate_log(1, 1), 0, True
    hand, passengers = np.zeros(LOCO + 1, np.int64), np.zeros(N_PASSENGER_COLOURS, np.int64)
    results, extra = np.zeros((1, 2, N_FINAL), np.int32), np.zeros((1, 2, N_EXTRA), np.int32)
    calls = [(log_has_room, (b, log, i, flag)), (reset_game, (b, s, i)),
             (reset_memory, (m, i)), (legal_for, (i, b, s, legal)),
             (log_step, (b, s, i, i, log, flag, i, hand, passengers)), (log_finish, (b, s, log, i)),
             (record_end, (s, i, results, extra, np.zeros((1, N_GAME_COLS), np.int32)))]
    return [(fn, tuple(canonical(numba.typeof(a)) for a in args)) for fn, args in calls]


def compile_engine() -> None:
    """Compile (or load) the engine with the turn log: what the chunk loop
    calls below the strategies (:func:`engine_calls`), without the loop
    itself (the run compiles that on top, with its kernels)."""
    for fn, sig in engine_calls():
        fn.compile(sig)


def compile_kernel(name: str) -> None:
    """Compile (or load) strategy kernel ``name`` for the argument types the
    game loops call it with, without running it."""
    import numba
    import numpy as np

    from ttrsim.strategies import MAX_PARAMS
    from ttrsim.strategies.kit.dispatch import KERNEL_MODULE

    b, s, m, legal = _table()
    args = (b, s, m, legal, 0, np.zeros((2, MAX_PARAMS)))
    KERNEL_MODULE[name].choose.compile(tuple(numba.typeof(a) for a in args))


def compile_parts(parts) -> None:
    """Compile (or load) ``parts`` in order: ``"engine"`` (:func:`compile_engine`)
    or a kernel's name (:func:`compile_kernel`), as parts of a game loop
    compiled later (without machine code of their own: :func:`~ttrsim.jit.patches.callees_only`)."""
    from ttrsim.jit.patches import callees_only

    with callees_only():
        for part in parts:
            compile_engine() if part == "engine" else compile_kernel(part)


def _mark(kernels):
    from ttrsim.jit.cache import cache_dir
    return cache_dir() / "loops" / "+".join(kernels.names)


# the helper process: the engine at once, then the kernels named on its input
_HELPER = ("import json, sys\n"
           "from ttrsim.cli.compiling import compile_parts\n"
           "compile_parts(['engine'])\n"
           "compile_parts(json.loads(sys.stdin.readline() or '[]'))\n")


def start_helper(first_only: bool = True):
    """Start the helper process of :func:`compile_on_two_cores`: it compiles
    the engine at once, then the kernels that function sends it. None when
    only one core is available, or (``first_only``) when a run's loop was
    compiled before (then the engine is cached)."""
    from ttrsim.jit.cache import cache_dir

    if (os.cpu_count() or 1) < 2 or (first_only and (cache_dir() / "loops").is_dir()):
        return None
    return subprocess.Popen([sys.executable, "-c", _HELPER], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def stop_helper(helper) -> None:
    """End a helper of :func:`start_helper` that :func:`compile_on_two_cores` did not use."""
    if helper is not None and helper.poll() is None:
        helper.kill()
        helper.wait()


def compile_on_two_cores(kernels, helper=None) -> float:
    """Before a first run compiles the chunk loop with ``kernels``
    (:class:`~ttrsim.strategies.kit.dispatch.Kernels`): compile its parts in a
    helper process (``helper`` if started already: :func:`start_helper`) and
    this one at once (numba compiles one function at a time per process; the
    parts are cached on disk one function at a time), so that the run's own
    compile only loads them and compiles the loop on top. Nothing when they
    were compiled before (:func:`mark_compiled`) or only one core is
    available. Returns the seconds spent waiting for the helper (this
    process's own compile is timed by :class:`CompileWatch`)."""
    if _mark(kernels).exists() or (os.cpu_count() or 1) < 2:
        stop_helper(helper)
        return 0.0
    helper = helper or start_helper(first_only=False)
    theirs, ours = split_kernels(kernels.names)
    try:
        try:
            helper.stdin.write(f"{json.dumps(theirs)}\n".encode())
            helper.stdin.flush()
        except OSError:            # it failed already: reported below
            pass
        compile_parts(ours)
    finally:
        t1 = time.perf_counter()
        _, err = helper.communicate()
    if helper.returncode:          # the run compiles what the helper did not, and reports any real error
        last = (err.decode(errors="replace").strip().splitlines() or [""])[-1]
        echo_err(f"compiling in a second process failed ({last}); compiling here")
    return time.perf_counter() - t1


def experiment_kernels(file: str, backend: str | None, cache_dir: str | None = None):
    """The :class:`~ttrsim.strategies.kit.dispatch.Kernels` the local runner's
    loop needs for experiment ``file`` (with the command's ``backend`` and
    ``cache_dir``); None for a Dask run or a bad file (the runner reports it)."""
    from ttrsim.experiment.config import load_experiment
    from ttrsim.strategies import STRATEGY_IDS
    from ttrsim.strategies.kit.dispatch import kernels_for

    try:
        exp = load_experiment(file, {"backend": backend, "cache_dir": cache_dir})     # (None: the file's)
    except Exception:             # noqa: BLE001 (the runner reports it)
        return None
    ids = [STRATEGY_IDS[e.strategy] for e in exp.entrants if not e.python] or [0]
    return kernels_for(ids) if exp.backend == "local" else None


def mark_compiled(kernels) -> None:
    """Note in the cache folder that the engine and ``kernels`` are compiled
    (:func:`compile_on_two_cores` then does nothing for them)."""
    mark = _mark(kernels)
    try:
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.touch()
    except OSError:
        pass


def warm_up(progress: bool = True, echo=echo_err) -> dict:
    """Compile (or load from the cache) the engine and every strategy kernel
    (on two cores: :func:`compile_on_two_cores`), then the loops the commands
    use; returns the seconds, the functions compiled and the cache folder."""
    import numpy as np

    from ttrsim.core.board import build_board
    from ttrsim.data.rules import get_rules
    from ttrsim.experiment.config import load_experiment
    from ttrsim.experiment.worker import point_spec
    from ttrsim.experiment.worker import warm_up as warm_up_chunks
    from ttrsim.jit.cache import cache_dir
    from ttrsim.play.loop import play_finals
    from ttrsim.play.pyplay import play
    from ttrsim.strategies import STRATEGY_NAMES, param_row
    from ttrsim.strategies.kit.dispatch import ALL_KERNELS

    t0 = time.perf_counter()
    with compiling(progress, echo) as watch:
        watch.seconds += compile_on_two_cores(ALL_KERNELS)
        lineups = (["random", "planner"], ["random", {"python": "ttrsim.strategies.python_example:GreedyLongest"}])
        for lineup in lineups:                    # the runner's chunk loop, without and with a Python seat
            exp = load_experiment({"name": "warmup", "rules": "usa", "players": 2, "lineup": lineup, "games": 2,
                                   "log": True, "workers": 1})
            warm_up_chunks(point_spec(exp, exp.points[0]))
        b = build_board(get_rules("usa"))
        ids = np.zeros(2, np.int64)
        play_finals(b, 2, np.array([0], np.int64), ids, np.array([param_row("random")] * 2))   # the game loop
        play("usa", 2, 0, [STRATEGY_NAMES[0]])                                                 # Game + strategies
    mark_compiled(ALL_KERNELS)
    return {"seconds": time.perf_counter() - t0, "compiled": watch.units, "compile_seconds": watch.seconds,
            "cache": cache_dir()}


# --------------------------------------------------------------------------- commands

@click.command("warmup", short_help="Compile everything now (a first run does it otherwise).")
@json_option("{seconds, compiled, compile_seconds, cache}.")
@progress_option
@extras_errors
def warmup_cmd(as_json, progress):
    """Compile the engine, the strategies and the game loops now (a first run
    does it otherwise), or check that they load from the cache; print the
    time taken and the cache folder.

    \b
    Examples:
      ttrsim warmup
      NUMBA_CACHE_DIR=/tmp/ttrsim-cache ttrsim warmup --json
    """
    out = warm_up(want_progress(progress, as_json))
    if as_json:
        echo_json({**out, "seconds": round(out["seconds"], 3), "compile_seconds": round(out["compile_seconds"], 3)})
        return
    what = f"compiled {out['compiled']} functions" if out["compiled"] else "everything loaded from the cache"
    click.echo(f"warm: {what} in {out['seconds']:.1f} s; cache: {out['cache']}")


@click.command("cache", short_help="List or clear the compiled-code cache folders.")
@click.option("--clear", is_flag=True, help="Remove the cache folders of other ttrsim sources (older versions).")
@click.option("--all", "everything", is_flag=True, help="With --clear: remove the current folder too.")
@json_option("{base, folders} (each folder: path, bytes, modified, current); with --clear {base, removed}.")
def cache_cmd(clear, everything, as_json):
    """List ttrsim's compiled-kernel cache folders (one per version of the
    sources, under NUMBA_CACHE_DIR, XDG_CACHE_HOME/ttrsim or the platform's
    cache folder), or remove the stale ones.

    \b
    Examples:
      ttrsim cache
      ttrsim cache --clear
      ttrsim cache --clear --all        # the next run compiles again
    """
    from ttrsim.jit.cache import cache_base, cache_folders, clear_stale

    if everything and not clear:
        raise click.UsageError("--all goes with --clear")
    if clear:
        gone = clear_stale(everything)
        if as_json:
            echo_json({"base": cache_base(), "removed": gone})
            return
        size = sum(f["bytes"] for f in gone)
        click.echo(f"removed {len(gone)} cache folder{'s' if len(gone) != 1 else ''} ({size / 1e6:,.0f} MB) "
                   f"from {cache_base()}")
        return
    folders = cache_folders()
    if as_json:
        echo_json({"base": cache_base(), "folders": folders})
        return
    click.echo(f"cache folders in {cache_base()}:")
    rows = [[f["path"].name, f"{f['bytes'] / 1e6:,.0f} MB",
             time.strftime("%Y-%m-%d %H:%M", time.localtime(f["modified"])),
             "current" if f["current"] else "stale"] for f in folders]
    for line in table(["folder", "size", "last written", ""], rows, right={1}):
        click.echo("  " + line)
    if not folders:
        click.echo("  (none yet: the first run compiles)")
    elif any(not f["current"] for f in folders):
        click.echo("Remove the stale ones: ttrsim cache --clear")
