"""The worker side of a run: play a chunk of games and return its tables.

:func:`point_spec` packs what a worker needs for one sweep point (picklable,
sent with every chunk); :func:`run_chunk` plays games ``lo..hi-1`` of the point
with the compiled loop (:mod:`ttrsim.play.chunk`), flushing the turn log into
Arrow tables whenever it fills, and returns each table as Parquet bytes (or
writes them into a results folder at a URL: :mod:`ttrsim.results.store`)
with the per-block win sums of every entrant (for the stop rule). Games whose
seating has a Python strategy are stepped in Python (:func:`_play_python`) and
recorded exactly like the compiled loop; the other games of the chunk still run
compiled, in game order; the first of them is played twice, to catch a Python
strategy that is not deterministic. The spec carries the point's resolved
rules; a worker process builds each point's board once
(:func:`ttrsim.experiment.points.point_board`: every thread and the Python
seats' :class:`~ttrsim.play.game.Game` share it), a worker thread keeps the
state and log of the points it has seen (``_CTX``, one set per thread), and a
worker process ends itself when the run's
main process is gone (:func:`watch_parent`). Every part file is tagged with
the experiment's config hash, the chunk and its games
(:func:`ttrsim.results.folder.part_tag`). What a Python strategy prints
goes to stderr (:func:`strategy_output_to_stderr`): stdout belongs to the
caller (``ttrsim run --json`` prints its document there).
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ttrsim.core.actions import legal_buffer
from ttrsim.core.state import F_WINNER, N_FINAL, allocate_state
from ttrsim.data.ids import LOCO, N_PASSENGER_COLOURS
from ttrsim.jit.patches import link_callees_as_compiled
from ttrsim.play.chunk import N_EXTRA, play_chunk, record_end
from ttrsim.play.game import Game
from ttrsim.play.guard import StrategyError, watching
from ttrsim.play.pyplay import build_seats, first_difference, load_strategy_class, play_logged_py
from ttrsim.play.turnlog import N_GAME_COLS, allocate_log, log_has_room
from ttrsim.results.folder import part_tag
from ttrsim.results.store import store_parts
from ttrsim.results.tables import from_parquet_bytes, to_parquet_bytes
from ttrsim.strategies import MAX_PARAMS, param_row, strategy_id
from ttrsim.strategies.kit.dispatch import kernels_for
from ttrsim.strategies.kit.memory import allocate_memory

from .chunk_tables import (
    ChunkContext,
    games_table,
    players_table,
    tickets_table,
    turns_table,
)
from .config import Experiment
from .points import point_board
from .seating import Chunk, game_arrays

TURN_CAPACITY = 1 << 18          # turn rows per flush (about 21 MB of int32)
OFFER_CAPACITY = 1 << 16
SLICE = 256                      # games per call of the compiled loop (a signal waits for at most one call)
PARENT_CHECK = 0.5               # seconds between a worker's looks at the run's main process

# the loop calls the engine and the kernels a few times a turn: optimizing them again with it gains nothing
link_callees_as_compiled(play_chunk)


class _Contexts(threading.local):
    """The contexts (state, turn log, and the board the process's threads
    share: :func:`_context`) of the sweep points this thread has seen,
    ``by_key`` spec key: one set per thread, so that two threads of a process
    never play into the same buffers (a Dask worker run with several
    threads, or a chunk still running when the next run's warm-up starts:
    :mod:`ttrsim.experiment.cluster`)."""

    def __init__(self):
        self.by_key: dict = {}


_CTX = _Contexts()
_WATCHED: list = []


def watch_parent(pid: int | None):
    """End this process (exit code 1) as soon as process ``pid``, the run's
    main process, is gone: a thread looks every ``PARENT_CHECK`` seconds. For
    the worker processes of a local pool or a local Dask cluster (and its
    nannies), so that a run killed with ``kill -9`` leaves none behind.
    Nothing when ``pid`` is None or this very process; once per process."""
    if pid is None or pid == os.getpid() or _WATCHED == [os.getpid(), pid]:
        return
    _WATCHED[:] = [os.getpid(), pid]

    def watch():
        while True:
            time.sleep(PARENT_CHECK)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:       # alive, another user's
                pass

    threading.Thread(target=watch, name="ttrsim-parent-watch", daemon=True).start()


def strategy_output_to_stderr(fn):
    """Run ``fn`` with ``sys.stdout`` sent to ``sys.stderr``: the output of
    the Python strategies it imports, builds or asks (``print``)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with contextlib.redirect_stdout(sys.stderr):
            return fn(*args, **kwargs)
    return wrapper


def point_specs(exp: Experiment, config_hash: str = "") -> list[dict]:
    """The :func:`point_spec` of every sweep point (the config read once)."""
    config = exp.config()
    return [point_spec(exp, p, config_hash, config=config) for p in exp.points]


def point_spec(exp: Experiment, point, config_hash: str = "", parent: int | None = None, config=None) -> dict:
    """Everything a worker needs to play chunks of one sweep point (picklable:
    its resolved rules, ``rule_set``, not its board, built once per worker
    process): ``config_hash`` tags its part files, ``parent`` is the pid a
    worker process watches (:func:`watch_parent`); ``config``: ``exp.config()``
    (computed unless given)."""
    ents = exp.entrants
    # a Python seat has compiled id 0 and a zero parameter row, never read: its games run in Python
    ids = np.array([[0 if ents[e].python else strategy_id(ents[e].strategy) for e in seats]
                    for seats in exp.seatings], np.int64)
    params = np.zeros((len(exp.seatings), exp.players, MAX_PARAMS), np.float64)
    for k, seats in enumerate(exp.seatings):
        for p, e in enumerate(seats):
            if not ents[e].python:
                params[k, p] = param_row(ents[e].strategy, point.entrant_params[e], rules=exp.rules,
                                         players=exp.players)
    # Python strategies: (module:Class, constructor parameters at this point) per entrant, None if compiled
    python = [(e.strategy, dict(point.entrant_params[i])) if e.python else None for i, e in enumerate(ents)]
    key = json.dumps([exp.config() if config is None else config, point.index], sort_keys=True, default=str)
    return {"key": key, "point": point.index, "rules": exp.rules, "rule_set": exp.rules_for(point),
            "players": exp.players, "seatings": np.array(exp.seatings, np.int64), "ids": ids, "params": params,
            "kernels": kernels_for(ids.ravel()),
            "labels": [e.label for e in ents], "log": exp.log, "seed": exp.seed,
            "block_size": exp.block_size, "stride": exp.stride, "config_hash": config_hash, "parent": parent,
            "python": python if any(python) else None, "python_path": list(exp.python_path),
            "time_limit": exp.python_time_limit}


def _context(spec: dict):
    contexts = _CTX.by_key
    ctx = contexts.get(spec["key"])
    if ctx is None:
        rules = spec["rule_set"]
        m, b = point_board(rules)
        offer_room = 8 * (rules.max_turns + spec["players"])
        log = allocate_log(TURN_CAPACITY if spec["log"] else 1, max(OFFER_CAPACITY, 4 * offer_room))
        ctx = {"board": b, "state": allocate_state(b, spec["players"]), "memory": allocate_memory(b, spec["players"]),
               "legal": legal_buffer(b), "log": log,
               "tables": ChunkContext(spec["point"], spec["rules"], spec["players"], spec["labels"],
                                      spec["seatings"], m.ticket_points, b.route_map_id)}
        if spec.get("python"):
            ctx["game"] = Game(rules, spec["players"], board=b)
            ctx["classes"] = [None if x is None else load_strategy_class(x[0], spec["python_path"])
                              for x in spec["python"]]
            ctx["hand_before"] = np.zeros(LOCO + 1, np.int64)
            ctx["pass_before"] = np.zeros(N_PASSENGER_COLOURS, np.int64)
        if len(contexts) > 16:
            contexts.clear()
        contexts[spec["key"]] = ctx
    return ctx


@strategy_output_to_stderr
def prepare(spec: dict) -> int:
    """Start a worker process on a sweep point while the run's process
    compiles the chunk loop: the imports and the table (:func:`_context`);
    returns the process id."""
    _context(spec)
    return os.getpid()


@strategy_output_to_stderr
def run_chunk(spec: dict, chunk: Chunk) -> dict:
    """Play the games ``lo..hi-1`` of a chunk of a sweep point; return the
    tables as tagged Parquet bytes (``data``), row counts, per-block win sums
    ``W`` and games ``C`` ``[blocks, entrants]`` and timings. With a
    ``writer`` in the spec (a results folder at a URL) this worker writes the
    part files there itself and returns their ``bytes`` and ``sha256``
    instead of ``data`` (:func:`ttrsim.results.store.store_parts`)."""
    result = _play(spec, chunk)
    if spec.get("writer"):
        result.update(store_parts(spec["writer"], chunk.key, result.pop("data")))
    return result


def _play(spec: dict, chunk: Chunk) -> dict:
    t0 = time.perf_counter()
    watch_parent(spec["parent"])
    lo, hi = chunk.lo, chunk.hi
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
    checked = False                  # the first Python game is played twice (determinism)
    while i < n:
        log.n_turns[0] = 0
        log.n_offers[0] = 0
        t = time.perf_counter()
        j = i
        while j < n:
            if py_game[j]:
                if not _play_python(ctx, spec, j, seeds, seating, log, results, extra, meta, not checked):
                    break                                   # the log is full: flush it
                checked = True
                j += 1
                continue
            end = min(j + int(np.argmax(py_game[j:])) if py_game[j:].any() else n, j + SLICE)
            k = play_chunk(spec["kernels"], ctx["board"], ctx["state"], ctx["memory"], j, seeds[:end], seating,
                           spec["ids"], spec["params"], ctx["legal"], log, results, extra, meta, spec["log"])
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
    # per-block win shares W and games C per entrant; the shares as the players table stores them (float32)
    win = results[:, :, F_WINNER] > 0
    share = (win / np.maximum(win.sum(axis=1, keepdims=True), 1)).astype(np.float32).astype(np.float64)
    ent = spec["seatings"][seating]
    b_local = (blocks - blocks[0]).astype(np.int64)
    nb, E = int(b_local[-1]) + 1, len(spec["labels"])
    rows = np.repeat(b_local, P)
    W = np.zeros((nb, E))
    C = np.zeros((nb, E))
    np.add.at(W, (rows, ent.ravel()), share.ravel())
    np.add.at(C, (rows, ent.ravel()), 1.0)
    tag = part_tag(spec["config_hash"], chunk.key, lo, hi)
    data = {name: to_parquet_bytes(tab, tag) for name, tab in tables.items()}
    conv_s += time.perf_counter() - t
    return {"lo": lo, "hi": hi, "first_block": int(blocks[0]), "data": data,
            "rows": {name: tab.num_rows for name, tab in tables.items()}, "W": W, "C": C,
            "play_s": play_s, "encode_s": conv_s, "total_s": time.perf_counter() - t0, "pid": os.getpid()}


def _python_seatings(spec: dict) -> np.ndarray:
    """Per seating of the block: whether a Python strategy sits at the table."""
    python = spec.get("python")
    if not python:
        return np.zeros(len(spec["seatings"]), bool)
    return np.array([any(python[e] is not None for e in seats) for seats in spec["seatings"]], bool)


def _play_python(ctx: dict, spec: dict, i: int, seeds, seating, log, results, extra, meta, check: bool) -> bool:
    """Play game ``i`` of the chunk stepping in Python (a fresh instance of each
    Python strategy for the game, each call within the time limit), recorded
    exactly like the compiled loop; False (nothing played) when the log has no
    room for another game. ``check``: play it again with fresh instances and
    require the same decisions (else a :class:`StrategyError`)."""
    g = ctx["game"]
    if not log_has_room(g.board, log, spec["players"], spec["log"]):
        return False
    k, seed, limit = int(seating[i]), int(seeds[i]), spec["time_limit"]
    seats = spec["seatings"][k]
    labels = [spec["labels"][e] for e in seats]
    strategies = [None if ctx["classes"][e] is None else (ctx["classes"][e], spec["python"][e][1]) for e in seats]
    ids, params = spec["ids"][k], spec["params"][k]
    with watching():
        actions = play_logged_py(g, i, seed, build_seats(strategies, labels, seed, limit), ids, params, log,
                                 spec["log"], ctx["hand_before"], ctx["pass_before"], labels, limit)
        record_end(g.state, i, results, extra, meta)
        differs = check and first_difference(g, seed, build_seats(strategies, labels, seed, limit), ids, params,
                                             actions, labels, limit)
    if differs:
        p, turn = differs
        raise StrategyError(f"strategy {labels[p]} (seat {p}) is not deterministic: the game of seed {seed} played "
                            f"again with fresh instances went otherwise at turn {turn}; expected decisions that "
                            "depend only on the game (seed a random generator from a parameter: "
                            "docs/strategies.md)", "is not deterministic")
    return True


def truncate(result: dict, n_blocks: int, spec: dict) -> dict:
    """Keep the first ``n_blocks`` blocks of a chunk result (sequential stop)."""
    hi = (result["first_block"] + n_blocks) * spec["block_size"]
    cutoff = spec["point"] * spec["stride"] + hi
    data, rows = {}, {}
    for name, raw in result["data"].items():
        tab = from_parquet_bytes(raw)
        tag = dict(json.loads(tab.schema.metadata[b"ttrsim"]), games=[result["lo"], hi])
        tab = tab.filter(pc.less(tab["game"], cutoff))
        data[name], rows[name] = to_parquet_bytes(tab, tag), tab.num_rows
    return dict(result, hi=hi, data=data, rows=rows, W=result["W"][:n_blocks], C=result["C"][:n_blocks])


@strategy_output_to_stderr
def warm_up(spec: dict):
    """Compile (or load from the numba cache) the chunk loop in this process,
    so worker processes find fresh cache files and only load them (both loops:
    a game of a seating without and one with a Python seat, if any)."""
    py = _python_seatings(spec)
    for want in (False, True):
        k = np.flatnonzero(py == want)
        if len(k):
            _play(spec, Chunk(spec["point"], 0, int(k[0]), int(k[0]) + 1))
