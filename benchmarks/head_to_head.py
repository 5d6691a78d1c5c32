"""One candidate strategy against a reference strategy, with common seeds.

2 players: head to head, the candidate in each seat in turn; 3+ players: one candidate seat
against references, the candidate rotated over every seat. Prints the candidate's win share
(shared wins count as fractions) with a 95% interval over seeds: the games of one seed (one per
seat) are one block, so the interval covers the deal-to-deal spread.

usage: python benchmarks/head_to_head.py CANDIDATE REFERENCE [--params JSON]
           [--configs usa:2,usa:4,...] [--games N] [--seed S]

The issue 11 planner targets (the new planner against the one before it):

    python benchmarks/head_to_head.py planner planner_classic \\
        --configs usa:2,usa:4,usa-mega:2,usa-mega:4,germany:2,germany:4 --games 4000 --seed 1000000

The issue 11 search targets (one search seat against planners; docs/strategies.md, "Search"):

    python benchmarks/head_to_head.py search planner --configs usa:4 --games 400 --seed 1000000
    python benchmarks/head_to_head.py search planner --configs usa:2 --games 400 --seed 1000000
"""
import argparse
import json
import time

import numpy as np

from ttrsim.core.actions import legal_buffer
from ttrsim.core.board import build_board
from ttrsim.core.state import F_WINNER, N_FINAL, allocate_state
from ttrsim.data.rules import get_rules
from ttrsim.play.loop import play_many
from ttrsim.strategies import param_row, strategy_id
from ttrsim.strategies.memory import allocate_memory


def head_to_head(candidate, reference, rules, players, n_seeds, seed0, params=None):
    """The candidate's mean win share, its 95% interval over ``n_seeds`` seed
    blocks and the CPU seconds of play (compilation left out)."""
    b = build_board(get_rules(rules))
    s = allocate_state(b, players)
    m = allocate_memory(b, players)
    legal = legal_buffer(b)
    seeds = np.arange(seed0, seed0 + n_seeds, dtype=np.int64)
    finals = np.zeros((n_seeds, players, N_FINAL), np.int32)
    share = np.zeros((n_seeds, players))
    cpu = 0.0
    for seat in range(players):
        ids = np.full(players, strategy_id(reference), np.int64)
        ids[seat] = strategy_id(candidate)
        rows = np.tile(param_row(reference), (players, 1))
        rows[seat] = param_row(candidate, params or {})
        play_many(b, s, m, seeds[:0], ids, rows, legal, finals[:0])      # compile
        t0 = time.process_time()
        play_many(b, s, m, seeds, ids, rows, legal, finals)
        cpu += time.process_time() - t0
        won = finals[:, :, F_WINNER]
        share[:, seat] = won[:, seat] / np.maximum(won.sum(axis=1), 1)
    block = share.mean(axis=1)
    mean = block.mean()
    half = 1.96 * block.std(ddof=1) / np.sqrt(n_seeds)
    return mean, mean - half, mean + half, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("candidate")
    ap.add_argument("reference")
    ap.add_argument("--params", default="{}", help="the candidate's parameter overrides (JSON)")
    ap.add_argument("--configs", default="usa:2,usa:4", help="RULES:PLAYERS,...")
    ap.add_argument("--games", type=int, default=4000, help="games per configuration")
    ap.add_argument("--seed", type=int, default=1000000, help="first seed")
    a = ap.parse_args()
    for config in a.configs.split(","):
        rules, players = config.split(":")
        players = int(players)
        n = a.games // players
        mean, lo, hi, cpu = head_to_head(a.candidate, a.reference, rules, players, n, a.seed, json.loads(a.params))
        print(f"{a.candidate} vs {a.reference}  {rules:9s} {players}p  {100 * mean:5.1f}% "
              f"[{100 * lo:.1f}, {100 * hi:.1f}]  fair {100 / players:.1f}%  "
              f"({n * players} games, {cpu:.0f} s CPU of play, {cpu / (n * players):.2f} s a game)", flush=True)


if __name__ == "__main__":
    main()
