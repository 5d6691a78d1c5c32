"""Benchmark: complete games per second on one core (setup, play and final
scoring), with compiled strategies, measured in this process. The rate is per
CPU second of the process (``time.process_time``), so time spent waiting for a
busy shared machine does not count; the wall time is reported beside it.

>>> rows = run_bench(["usa"], [2], seconds=0.2)
>>> rows[0]["strategy"], rows[0]["games_per_s"] > 0
('random', True)
"""
from __future__ import annotations

import time

import numpy as np

from ttrsim.core.actions import legal_buffer
from ttrsim.core.board import build_board
from ttrsim.core.state import N_FINAL, allocate_state
from ttrsim.data.rules import get_rules, preset_names
from ttrsim.strategies import param_row, strategy_id
from ttrsim.strategies.memory import allocate_memory

from .loop import play_many


def bench_one(rules: str, players: int, strategy: str = "random", seconds: float = 2.0) -> dict:
    b = build_board(get_rules(rules))
    s = allocate_state(b, players)
    m = allocate_memory(b, players)
    ids = np.full(players, strategy_id(strategy), np.int64)
    params = np.tile(param_row(strategy), (players, 1))
    buf = legal_buffer(b)
    batch, max_batch = 16, 4096
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
            "games_per_s": round(games / cpu, 1)}


def run_bench(rules: list[str], players: list[int], seconds: float = 2.0, strategy: str = "random") -> list[dict]:
    """Games per second per core for each rule set and player count."""
    if rules == ["all"]:
        rules = preset_names()
    return [bench_one(r, p, strategy, seconds) for r in rules for p in players]
