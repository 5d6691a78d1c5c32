"""One candidate strategy against a reference strategy, with common seeds.

2 players: head to head, the candidate in each seat in turn; 3+ players: one candidate seat
against references, the candidate rotated over every seat. Prints the candidate's win share
(shared wins count as fractions) with a 95% interval over seeds: the games of one seed (one per
seat) are one block, so the interval covers the deal-to-deal spread.

usage: python benchmarks/head_to_head.py CANDIDATE REFERENCE [--params JSON]
           [--configs usa:2,usa:4,...] [--games N] [--seed S]
           [--reference-params JSON] [--baseline-params JSON] [--save FILE.npz]
           [--paired-with FILE.npz]

Paired comparisons (two settings of the candidate on the same deals): ``--baseline-params JSON``
also plays the candidate with those parameters (instead of ``--params``) on the same seeds, seat
for seat, and prints the paired difference of the win shares (``--params`` minus the baseline),
block by block, with its 95% interval: the deal-to-deal spread cancels, so the interval is much
narrower than the two rates' own. ``--save FILE.npz`` keeps every configuration's per-block
shares (of ``--params``); ``--paired-with FILE.npz`` pairs this run with a saved one (same
configurations, games and seed) instead of playing the baseline again, e.g.

    python benchmarks/head_to_head.py search planner --configs usa:2 --games 400 --seed 2000000 \
        --save /tmp/base.npz
    python benchmarks/head_to_head.py search planner --configs usa:2 --games 400 --seed 2000000 \
        --params '{"outcome": 1}' --paired-with /tmp/base.npz

The issue 11 planner targets (the new planner against the one before it):

    python benchmarks/head_to_head.py planner planner_classic \\
        --configs usa:2,usa:4,usa-mega:2,usa-mega:4,germany:2,germany:4 --games 4000 --seed 1000000

The issue 11 search targets (one search seat against planners; docs/strategies.md, "Search"):

    python benchmarks/head_to_head.py search planner --configs usa:4 --games 1000 --seed 1000000
    python benchmarks/head_to_head.py search planner --configs usa:2 --games 1000 --seed 1000000
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
from ttrsim.strategies.kit.memory import allocate_memory


def head_to_head(candidate, reference, rules, players, n_seeds, seed0, params=None, blocks=False,
                 reference_params=None):
    """The candidate's mean win share, its 95% interval over ``n_seeds`` seed
    blocks and the CPU seconds of play (compilation left out); with
    ``blocks``, also the per-block shares (float[n_seeds], a block being the
    games of one seed, the candidate in each seat in turn)."""
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
        rows = np.tile(param_row(reference, reference_params or {}, rules=rules, players=players), (players, 1))
        rows[seat] = param_row(candidate, params or {}, rules=rules, players=players)
        play_many(b, s, m, seeds[:0], ids, rows, legal, finals[:0])      # compile
        t0 = time.process_time()
        play_many(b, s, m, seeds, ids, rows, legal, finals)
        cpu += time.process_time() - t0
        won = finals[:, :, F_WINNER]
        share[:, seat] = won[:, seat] / np.maximum(won.sum(axis=1), 1)
    block = share.mean(axis=1)
    mean, lo, hi = interval(block)
    return (mean, lo, hi, cpu, block) if blocks else (mean, lo, hi, cpu)


def interval(x):
    """The mean of ``x`` and its 95% interval (normal, over the entries)."""
    mean = x.mean()
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
    return mean, mean - half, mean + half


def paired(block, base):
    """The paired difference of two runs' per-block shares on the same seeds
    (``block - base``): its mean and 95% interval."""
    if block.shape != base.shape:
        raise ValueError(f"paired runs need the same blocks: {block.shape} against {base.shape}")
    return interval(block - base)


def _line(candidate, reference, rules, players, games, mean, lo, hi, cpu, label=""):
    return (f"{candidate} vs {reference}  {rules:9s} {players}p  {100 * mean:5.1f}% "
            f"[{100 * lo:.1f}, {100 * hi:.1f}]  fair {100 / players:.1f}%  "
            f"({games} games, {cpu:.0f} s CPU of play, {cpu / games:.2f} s a game){label}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("candidate")
    ap.add_argument("reference")
    ap.add_argument("--params", default="{}", help="the candidate's parameter overrides (JSON)")
    ap.add_argument("--reference-params", default="{}", help="the reference seats' parameter overrides (JSON)")
    ap.add_argument("--configs", default="usa:2,usa:4", help="RULES:PLAYERS,...")
    ap.add_argument("--games", type=int, default=4000, help="games per configuration")
    ap.add_argument("--seed", type=int, default=1000000, help="first seed")
    ap.add_argument("--baseline-params", default=None,
                    help="also play the candidate with these parameters (JSON) on the same seeds; print the paired "
                         "difference")
    ap.add_argument("--save", default=None, help="write the per-block shares of every configuration (.npz)")
    ap.add_argument("--paired-with", default=None,
                    help="pair with the per-block shares of a saved run (.npz, same configurations, games, seed)")
    a = ap.parse_args()
    saved = {}
    for config in a.configs.split(","):
        rules, players = config.split(":")
        players = int(players)
        n = a.games // players
        games = n * players
        mean, lo, hi, cpu, block = head_to_head(a.candidate, a.reference, rules, players, n, a.seed,
                                                json.loads(a.params), blocks=True,
                                                reference_params=json.loads(a.reference_params))
        saved[f"{config}:{a.seed}"] = block
        print(_line(a.candidate, a.reference, rules, players, games, mean, lo, hi, cpu), flush=True)
        base = None
        if a.baseline_params is not None:
            bmean, blo, bhi, bcpu, base = head_to_head(a.candidate, a.reference, rules, players, n, a.seed,
                                                       json.loads(a.baseline_params), blocks=True,
                                                       reference_params=json.loads(a.reference_params))
            print(_line(a.candidate, a.reference, rules, players, games, bmean, blo, bhi, bcpu,
                        f"  baseline {a.baseline_params}"), flush=True)
        elif a.paired_with:
            base = np.load(a.paired_with)[f"{config}:{a.seed}"]
        if base is not None:
            d, dlo, dhi = paired(block, base)
            print(f"  paired difference (params - baseline) {rules} {players}p: {100 * d:+.1f} points "
                  f"[{100 * dlo:+.1f}, {100 * dhi:+.1f}] over {n} deals", flush=True)
    if a.save:
        np.savez(a.save, **saved)


if __name__ == "__main__":
    main()
