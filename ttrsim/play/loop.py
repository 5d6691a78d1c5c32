"""Compiled game loops: play whole games with compiled strategies.

>>> from ttrsim.data.rules import get_rules
>>> from ttrsim.core.board import build_board
>>> from ttrsim.core.state import allocate_state, F_TOTAL
>>> b = build_board(get_rules("usa")); s = allocate_state(b, 2)
>>> buf = legal_buffer(b)
>>> play_game(b, s, 42, np.zeros(2, np.int64), np.zeros((2, 1)), buf)
>>> s.final[:, F_TOTAL].tolist() == play_again(b, 42)
True
"""
import numpy as np
from numba import njit

from ttrsim.strategies.dispatch import choose, legal_for

from ttrsim.core.actions import legal_buffer
from ttrsim.core.engine import apply_action, reset_game
from ttrsim.core.state import F_TOTAL, M_PHASE, M_PLAYER, PH_OVER, allocate_state


@njit(cache=True)
def play_game(b, s, seed, strategy_ids, params, legal):
    """Play game ``seed`` to the end; seat ``p`` uses ``strategy_ids[p]`` with
    ``params[p]`` (a float64 row per seat). The final breakdown is in ``s.final``."""
    reset_game(b, s, seed)
    while s.meta[M_PHASE] != PH_OVER:
        sid = strategy_ids[s.meta[M_PLAYER]]
        n = legal_for(sid, b, s, legal)
        a = choose(sid, b, s, legal, n, params)
        apply_action(b, s, a)


@njit(cache=True)
def play_many(b, s, seeds, strategy_ids, params, legal, totals):
    """Play one game per seed; ``totals[i]`` gets the final totals of game i."""
    for i in range(seeds.shape[0]):
        play_game(b, s, seeds[i], strategy_ids, params, legal)
        totals[i, :] = s.final[:, F_TOTAL]


def play_again(b, seed, n_players=2):
    """Totals of a fresh random game (doctest helper showing replayability)."""
    s = allocate_state(b, n_players)
    play_game(b, s, seed, np.zeros(n_players, np.int64), np.zeros((n_players, 1)), legal_buffer(b))
    return s.final[:, F_TOTAL].tolist()
