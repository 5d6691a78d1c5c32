"""Compiled game loops: play whole games with compiled strategies.

A table is a board ``b``, a game state ``s`` (:func:`ttrsim.core.state.allocate_state`),
the strategies' memory ``m`` (:func:`ttrsim.strategies.kit.memory.allocate_memory`)
and a legal-action buffer (:func:`ttrsim.core.actions.legal_buffer`), all
allocated once and reused for every game; each game resets ``s`` and ``m``
from its seed, so a game is a function of its seed alone.

>>> from ttrsim.data.rules import get_rules
>>> from ttrsim.core.board import build_board
>>> from ttrsim.core.state import allocate_state, F_TOTAL
>>> b = build_board(get_rules("usa")); s = allocate_state(b, 2); m = allocate_memory(b, 2)
>>> play_game(b, s, m, 42, np.zeros(2, np.int64), np.zeros((2, 1)), legal_buffer(b))
>>> finals = play_finals(b, 2, np.array([42]), np.zeros(2, np.int64), np.zeros((2, 1)))
>>> s.final[:, F_TOTAL].tolist() == finals[0, :, F_TOTAL].tolist()
True
"""
import numpy as np

from ttrsim.core.actions import legal_buffer
from ttrsim.core.engine import apply_action, legal_at, legal_count, reset_game
from ttrsim.core.rng import rand_below
from ttrsim.core.state import M_PHASE, M_PLAYER, N_FINAL, PH_OVER, allocate_state
from ttrsim.jit import kernel
from ttrsim.jit.record import borrowed
from ttrsim.strategies.kit.dispatch import RANDOM, kernels_for, legal_for, pick
from ttrsim.strategies.kit.memory import allocate_memory, reset_memory


@kernel
def _play_game(kernels, b, s, m, seed, strategy_ids, params, legal):
    legal, params = borrowed(legal), borrowed(params)     # passed to every call: not counted each time
    reset_game(b, s, seed)
    reset_memory(m, seed)
    while s.meta[M_PHASE] != PH_OVER:
        p = s.meta[M_PLAYER]
        sid = strategy_ids[p]
        if sid == RANDOM:     # random's pick, legal[rand_below(...)], without listing every payment
            a = legal_at(b, s, rand_below(m.rng, p, legal_count(b, s, legal)), legal)
        else:
            n = legal_for(sid, b, s, legal)
            a = pick(kernels, sid, b, s, m, legal, n, params)
        apply_action(b, s, a)


@kernel
def _play_many(kernels, b, s, m, seeds, strategy_ids, params, legal, finals):
    for i in range(seeds.shape[0]):
        _play_game(kernels, b, s, m, seeds[i], strategy_ids, params, legal)
        finals[i, :, :] = s.final


def play_game(b, s, m, seed: int, strategy_ids: np.ndarray, params: np.ndarray, legal: np.ndarray) -> None:
    """Play game ``seed`` to the end; seat ``p`` uses ``strategy_ids[p]`` with
    ``params[p]`` (a float64 row per seat) and its rows of the strategy
    memory ``m``. The final breakdown is in ``s.final``. (The loop is compiled
    with the seated strategies' kernels only: :func:`~ttrsim.strategies.kit.dispatch.kernels_for`.)"""
    _play_game(kernels_for(strategy_ids), b, s, m, seed, strategy_ids, params, legal)


def play_many(b, s, m, seeds: np.ndarray, strategy_ids: np.ndarray, params: np.ndarray, legal: np.ndarray,
              finals: np.ndarray) -> None:
    """Play one game per seed; ``finals[i]`` gets the final table of game i."""
    _play_many(kernels_for(strategy_ids), b, s, m, seeds, strategy_ids, params, legal, finals)


def play_finals(b, n_players: int, seeds: np.ndarray, strategy_ids: np.ndarray, params: np.ndarray) -> np.ndarray:
    """The final tables (int32[games, seats, N_FINAL], ``F_*`` columns) of the
    games ``seeds`` played on a fresh table of board ``b``."""
    finals = np.zeros((len(seeds), n_players, N_FINAL), np.int32)
    play_many(b, allocate_state(b, n_players), allocate_memory(b, n_players), np.asarray(seeds, np.int64),
              strategy_ids, params, legal_buffer(b), finals)
    return finals
