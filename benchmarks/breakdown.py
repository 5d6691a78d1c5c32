"""Where a game's time goes: setup, legal lists, the strategy, the legality
check of its pick, applying actions and final scoring, timed inside a compiled
copy of the game loop with the processor's cycle counter.

usage: python benchmarks/breakdown.py [--rules usa] [--players 2,4] [--strategy random[,NAME]] [--games 3000]
       [--json]

Every part is bracketed by two reads of the cycle counter (``llvm.readcyclecounter``,
a few ns each; the cost of an empty bracket is measured and subtracted); cycles
become ns by the wall clock of the whole run. Final scoring runs inside the last
action of a game; it is timed again on its own after the game and moved from
"apply" to "scoring". The loop plays the same games as ``ttrsim.play.loop``.
Pin it to one core (``taskset -c 1``) on a shared machine.
"""
import argparse
import json
import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ttrsim.core.actions import legal_buffer
from ttrsim.core.board import build_board
from ttrsim.core.engine import apply_action, is_legal, legal_at, legal_count, reset_game
from ttrsim.core.rng import rand_below
from ttrsim.core.scoring import final_scoring
from ttrsim.core.state import M_ACTIONS, M_PHASE, M_PLAYER, PH_OVER, allocate_state
from ttrsim.data.rules import get_rules
from ttrsim.jit.record import borrowed
from ttrsim.strategies import param_row, strategy_id
from ttrsim.strategies.kit.dispatch import RANDOM, kernels_for, legal_for, pick
from ttrsim.strategies.kit.memory import allocate_memory, reset_memory

PARTS = ("setup", "legal list", "strategy", "legality check", "apply", "scoring")
(P_SETUP, P_LEGAL, P_STRATEGY, P_CHECK, P_APPLY, P_SCORING) = range(6)


@intrinsic
def cycles(typingctx):
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                            "llvm.readcyclecounter")
        return builder.call(fn, [])
    return types.int64(), codegen


@njit
def empty_bracket(n):
    total = 0
    for _ in range(n):
        t0 = cycles()
        total += cycles() - t0
    return total / n


@njit
def timed_games(kernels, b, s, m, seeds, ids, params, legal, acc):
    """Play the games of ``seeds``; ``acc[part]`` adds cycles, ``acc[6]`` actions,
    ``acc[7]`` random picks (their legal list is two brackets)."""
    legal, params = borrowed(legal), borrowed(params)     # as ttrsim.play.loop does
    for i in range(seeds.shape[0]):
        t0 = cycles()
        reset_game(b, s, seeds[i])
        reset_memory(m, seeds[i])
        acc[P_SETUP] += cycles() - t0
        while s.meta[M_PHASE] != PH_OVER:
            p = s.meta[M_PLAYER]
            sid = ids[p]
            if sid == RANDOM:         # as ttrsim.play.loop: the claims counted, one route's payments listed
                t0 = cycles()
                n = legal_count(b, s, legal)
                tc = cycles()
                k = rand_below(m.rng, p, n)
                t1 = cycles()
                a = legal_at(b, s, k, legal)
                t2 = cycles()
                acc[P_LEGAL] += (tc - t0) + (t2 - t1)
                acc[P_STRATEGY] += t1 - tc
                acc[7] += 1
            else:
                t0 = cycles()
                n = legal_for(sid, b, s, legal)
                t1 = cycles()
                a = pick(kernels, sid, b, s, m, legal, n, params)
                t2 = cycles()
                acc[P_LEGAL] += t1 - t0
                acc[P_STRATEGY] += t2 - t1
            ok = is_legal(b, s, a)
            t3 = cycles()
            apply_action(b, s, a)
            t4 = cycles()
            if not ok:
                raise ValueError("illegal pick")
            acc[P_CHECK] += t3 - t2
            acc[P_APPLY] += t4 - t3
        t0 = cycles()
        final_scoring(b, s)
        dt = cycles() - t0
        acc[P_SCORING] += dt
        acc[P_APPLY] -= dt
        acc[6] += s.meta[M_ACTIONS]


def breakdown(rules: str, players: int, strategy: str, games: int) -> dict:
    b = build_board(get_rules(rules))
    s, m, legal = allocate_state(b, players), allocate_memory(b, players), legal_buffer(b)
    ids = np.full(players, strategy_id(strategy), np.int64)
    params = np.tile(param_row(strategy), (players, 1))
    acc = np.zeros(8, np.int64)
    kernels = kernels_for(ids)
    timed_games(kernels, b, s, m, np.arange(20, dtype=np.int64), ids, params, legal, acc)     # compile, warm up
    empty = empty_bracket(100_000)
    acc[:] = 0
    wall, c0 = time.perf_counter(), int(cycles_now())
    timed_games(kernels, b, s, m, np.arange(1_000_000, 1_000_000 + games, dtype=np.int64), ids, params, legal, acc)
    ns_per_cycle = (time.perf_counter() - wall) * 1e9 / (int(cycles_now()) - c0)
    actions = int(acc[6])
    brackets = {P_SETUP: games, P_LEGAL: actions + int(acc[7]), P_STRATEGY: actions, P_CHECK: actions,
                P_APPLY: actions - games, P_SCORING: games}
    ns = {PARTS[k]: max(0.0, (acc[k] - empty * brackets[k]) * ns_per_cycle) for k in range(6)}
    total = sum(ns.values())
    return {"rules": rules, "players": players, "strategy": strategy, "games": games,
            "actions_per_game": round(actions / games, 1),
            "us_per_game": {k: round(v / games / 1e3, 2) for k, v in ns.items()},
            "ns_per_action": {k: round(v / actions, 1) for k, v in ns.items()},
            "share": {k: round(v / total, 3) for k, v in ns.items()},
            "games_per_s_timed": round(games / (total * 1e-9), 1)}


@njit
def cycles_now():
    return cycles()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="usa")
    ap.add_argument("--players", default="2,4")
    ap.add_argument("--strategy", default="random")
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [breakdown(r, int(p), st, args.games) for st in args.strategy.split(",")
            for r in args.rules.split(",") for p in args.players.split(",")]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'rules':8} {'P':>2} {'strategy':18} {'act/game':>8}  " + "  ".join(f"{p:>14}" for p in PARTS)
          + "   (ns per action; setup and scoring: us per game)")
    for r in rows:
        cells = [f"{r['us_per_game'][p]:>11.1f} us" if p in ("setup", "scoring") else f"{r['ns_per_action'][p]:>11.1f} ns"
                 for p in PARTS]
        print(f"{r['rules']:8} {r['players']:>2} {r['strategy']:18} {r['actions_per_game']:>8}  " + "  ".join(cells))
        print(f"{'':8} {'':>2} {'share of the time':18} {'':>8}  "
              + "  ".join(f"{100 * r['share'][p]:>13.1f}%" for p in PARTS))


if __name__ == "__main__":
    main()
