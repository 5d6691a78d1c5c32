"""A compiled strategy's own cost by kind of decision: in self-play, the
processor cycles of each strategy call (``dispatch.pick``, the legal list
and applying the action left out), summed by the phase it decides in.

usage: python benchmarks/strategy_cost.py [--rules usa] [--players 4] [--strategy NAME[,NAME]] [--games 500]
                                          [--perf-map]

Cycles are read with the processor's cycle counter (``benchmarks/breakdown.py``'s
``cycles``); compare strategies or commits from one run on the same core
(``taskset -c 1``): other users of the core inflate every figure.

``--perf-map`` writes ``/tmp/perf-PID.map`` (the address of every compiled
function, for ``perf report``) once the games are compiled, and prints a
line when it is written: run it with an empty ``NUMBA_CACHE_DIR`` (code
loaded from the cache has no function addresses to map), e.g.
``NUMBA_CACHE_DIR=$(mktemp -d) perf record -g python
benchmarks/strategy_cost.py --strategy planner_classic --games 5000
--perf-map`` and ``perf report --no-children --sort sym --time START,`` from
the time of that line.
"""
import argparse
import gc
import os
import time

import numpy as np
from breakdown import cycles
from numba import njit

from ttrsim.core.actions import legal_buffer
from ttrsim.core.board import build_board
from ttrsim.core.engine import apply_action, reset_game
from ttrsim.core.state import M_PHASE, M_PLAYER, PH_OVER, allocate_state
from ttrsim.data.rules import get_rules
from ttrsim.strategies import param_row, strategy_id
from ttrsim.strategies.kit.dispatch import kernels_for, legal_for, pick
from ttrsim.strategies.kit.memory import allocate_memory, reset_memory

PHASES = ("setup mix", "setup keep", "main", "second card", "keep", "passenger", "over", "tunnel")


@njit
def timed_calls(kernels, b, s, m, seeds, ids, params, legal, cyc, calls):
    """Play the games of ``seeds``; per phase, ``cyc`` adds the strategy's cycles and ``calls`` its calls."""
    for i in range(seeds.shape[0]):
        reset_game(b, s, seeds[i])
        reset_memory(m, seeds[i])
        while s.meta[M_PHASE] != PH_OVER:
            sid = ids[s.meta[M_PLAYER]]
            n = legal_for(sid, b, s, legal)
            phase = s.meta[M_PHASE]
            t0 = cycles()
            a = pick(kernels, sid, b, s, m, legal, n, params)
            cyc[phase] += cycles() - t0
            calls[phase] += 1
            apply_action(b, s, a)


def write_perf_map() -> int:
    """Write ``/tmp/perf-PID.map`` for the functions compiled in this
    process (each function's end is the next one's start); returns how many."""
    from numba.core.registry import CPUDispatcher
    names = {}
    libs = {cres.library for obj in gc.get_objects() if isinstance(obj, CPUDispatcher)
            for cres in obj.overloads.values()}
    for lib in libs:
        module = getattr(lib, "_final_module", None)      # none for code loaded from the cache
        for fn in (module.functions if module is not None else ()):
            if not fn.is_declaration:
                addr = lib._codegen._engine.get_function_address(fn.name)
                if addr:
                    names[addr] = fn.name
    addrs = sorted(names)
    ends = addrs[1:] + [addrs[-1] + 4096] if addrs else []
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
        f.writelines(f"{a:x} {min(end - a, 1 << 20):x} {names[a]}\n" for a, end in zip(addrs, ends))
    return len(addrs)


def strategy_cost(rules: str, players: int, strategy: str, games: int, perf_map: bool = False):
    b = build_board(get_rules(rules))
    s, m, legal = allocate_state(b, players), allocate_memory(b, players), legal_buffer(b)
    ids = np.full(players, strategy_id(strategy), np.int64)
    params = np.tile(param_row(strategy), (players, 1))
    kernels = kernels_for(ids)
    cyc, calls = np.zeros(len(PHASES), np.int64), np.zeros(len(PHASES), np.int64)
    timed_calls(kernels, b, s, m, np.arange(10, dtype=np.int64), ids, params, legal, cyc, calls)     # compile
    if perf_map:
        print(f"perf map: {write_perf_map()} functions; games from {time.clock_gettime(time.CLOCK_MONOTONIC):.3f}",
              flush=True)
    cyc[:], calls[:] = 0, 0
    timed_calls(kernels, b, s, m, np.arange(10**6, 10**6 + games, dtype=np.int64), ids, params, legal, cyc, calls)
    return cyc, calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="usa")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--strategy", default="destination_hungry,route_focus,one_step,long_route,greedy")
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--perf-map", action="store_true", help="write /tmp/perf-PID.map for perf (see the doc)")
    args = ap.parse_args()
    for name in args.strategy.split(","):
        cyc, calls = strategy_cost(args.rules, args.players, name, args.games, args.perf_map)
        total = cyc.sum()
        print(f"{name} ({args.rules}, {args.players} players): {total / args.games / 1e3:,.0f} thousand cycles "
              "a game in the strategy")
        for p in np.flatnonzero(calls):
            print(f"  {PHASES[p]:12} {calls[p] / args.games:7.1f} calls a game {cyc[p] / calls[p]:10,.0f} cycles a call"
                  f" {100 * cyc[p] / total:6.1f}%")


if __name__ == "__main__":
    main()
