"""Where a ``search`` seat's time goes: one search seat against planners
(rotated through the seats, as ``head_to_head.py`` plays it), each of its
decisions timed (CPU seconds of this process) and summed by kind: the
setup keep, a keep in play, the main phase before the end game
(``middle``: searched only where a ticket draw is a candidate), the end
game by the fewest trains of any seat (``end 25``: 25 to 29 trains; ``end
00`` holds the last round) and the rest (``other``: second card draws,
never searched).

usage: python benchmarks/search_time.py [--rules usa] [--players 4] [--games 40] [--seed 1000]
                                         [--params JSON]

The first game compiles the search (a minute or two); its decisions are not counted.
"""
import argparse
import json
import time
from collections import defaultdict

import numpy as np

from ttrsim.core.actions import legal_buffer
from ttrsim.core.board import build_board
from ttrsim.core.engine import apply_action, reset_game
from ttrsim.core.state import M_PHASE, M_PLAYER, PH_KEEP, PH_MAIN, PH_OVER, PH_SETUP_KEEP, allocate_state
from ttrsim.data.rules import get_rules
from ttrsim.strategies import param_row, search, strategy_id
from ttrsim.strategies.kit.dispatch import choose, legal_for
from ttrsim.strategies.kit.memory import allocate_memory, reset_memory
from ttrsim.strategies.planner.plan import min_trains_any


def kind(s, params, me, n_players):
    """The kind of the search seat's decision now (the module doc)."""
    phase = s.meta[M_PHASE]
    if phase == PH_SETUP_KEEP:
        return "setup keep"
    if phase == PH_KEEP:
        return "keep"
    if phase != PH_MAIN:
        return "other"
    if not search.in_end_game(s, search.by_players(params, me, n_players), me):
        return "middle"
    return f"end {min(min_trains_any(s) // 5 * 5, 30):02d}"


def search_time(rules, players, games, seed, overrides):
    """{kind: [decisions, CPU seconds]} summed over ``games`` games (after one to compile)."""
    b = build_board(get_rules(rules))
    s, m, legal = allocate_state(b, players), allocate_memory(b, players), legal_buffer(b)
    sid, pid = strategy_id("search"), strategy_id("planner")
    rows = np.tile(param_row("planner", rules=rules, players=players), (players, 1))
    srow = param_row("search", overrides, rules=rules, players=players)
    totals = defaultdict(lambda: [0, 0.0])
    for g in range(-1, games):
        seat = g % players
        ids = np.full(players, pid, np.int64)
        ids[seat] = sid
        params = rows.copy()
        params[seat] = srow
        reset_game(b, s, seed + g // players)
        reset_memory(m, seed + g // players)
        while s.meta[M_PHASE] != PH_OVER:
            p = s.meta[M_PLAYER]
            n = legal_for(ids[p], b, s, legal)
            k = kind(s, params, p, players) if p == seat else None
            t = time.process_time()
            a = choose(ids[p], b, s, m, legal, n, params)
            if k is not None and g >= 0:
                totals[k][0] += 1
                totals[k][1] += time.process_time() - t
            apply_action(b, s, a)
    return dict(totals)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="usa")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--params", default="{}", help="the search's parameters (JSON)")
    a = ap.parse_args()
    totals = search_time(a.rules, a.players, a.games, a.seed, json.loads(a.params))
    cpu = sum(t for _, t in totals.values())
    print(f"{a.rules} {a.players}p, one search seat against planners, {a.games} games: "
          f"{cpu / a.games:.3f} CPU s a game in its decisions")
    print(f"{'kind':<11} {'decisions a game':>16} {'CPU s a game':>12} {'share':>6}")
    for k, (n, t) in sorted(totals.items()):
        print(f"{k:<11} {n / a.games:>16.1f} {t / a.games:>12.3f} {t / cpu:>6.0%}")


if __name__ == "__main__":
    main()
