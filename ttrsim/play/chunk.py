"""Compiled chunk loop of the experiment runner.

:func:`play_chunk` is :func:`ttrsim.play.turnlog.play_logged_many` with a seating
per game (each game its own strategy ids and parameter rows) and a few more
end-of-game outputs the ``players`` table needs that the final table ``F_*``
does not hold: trains and cards left and passengers per colour (``X_*``
columns of ``extra``). Like ``play_logged_many`` it stops when the log has no
room for another game and returns the number of games played; the caller
flushes the log and calls again from there. The table (board, state, the
strategies' memory, buffers) is the caller's, allocated once in Python.
"""
import numpy as np

from ttrsim.core.state import M_END, M_NPLAYERS, M_TURN, N_FINAL
from ttrsim.data.ids import LOCO, N_PASSENGER_COLOURS
from ttrsim.jit import kernel

from .turnlog import G_END, G_TURNS, log_has_room, play_logged

# --- columns of the per-seat extra table -------------------------------------------
X_TRAINS = 0                      # trains left
X_CARDS = 1                       # train cards in hand at the end
X_PASS0 = 2                       # passengers collected, colour c at X_PASS0 + c (ttrsim.data.ids.PASSENGER_NAMES)
N_EXTRA = X_PASS0 + N_PASSENGER_COLOURS


@kernel
def record_end(s, i, results, extra, game_meta):
    """Copy the outcome of the game just played (state ``s``) into row ``i`` of
    ``results`` (the final table), ``extra`` (``X_*``) and ``game_meta``
    (``G_*``); the compiled chunk loop and the Python-stepped loop both use it."""
    for p in range(s.meta[M_NPLAYERS]):
        for c in range(N_FINAL):
            results[i, p, c] = s.final[p, c]
        extra[i, p, X_TRAINS] = s.trains[p]
        cards = 0
        for c in range(LOCO + 1):
            cards += s.hand[p, c]
        extra[i, p, X_CARDS] = cards
        for c in range(N_PASSENGER_COLOURS):
            extra[i, p, X_PASS0 + c] = s.pass_player[p, c]
    game_meta[i, G_END] = s.meta[M_END]
    game_meta[i, G_TURNS] = s.meta[M_TURN]


@kernel
def play_chunk(kernels, b, s, m, start, seeds, seating, strategy_ids, params, legal, log, results, extra, game_meta,
               with_turns):
    """Play games ``start, start+1, ...`` of ``seeds`` while the log has room;
    game i uses seating ``seating[i]``: ``strategy_ids[seating[i]]`` (one id per
    seat) and ``params[seating[i]]`` (a float64 row per seat); ``kernels``
    (:func:`~ttrsim.strategies.kit.dispatch.kernels_for` of ``strategy_ids``) are
    the strategy kernels the loop is compiled with, ``m`` the table's
    strategy memory (reset at every game start). The log's game
    column holds the index i. Returns the index after the last game played
    (pass a prefix ``seeds[:end]`` to stop at ``end``)."""
    hand_before = np.zeros(LOCO + 1, np.int64)
    pass_before = np.zeros(N_PASSENGER_COLOURS, np.int64)
    n_players = s.meta[M_NPLAYERS]
    i = start
    while i < seeds.shape[0]:
        if not log_has_room(b, log, n_players, with_turns):
            break
        k = seating[i]
        play_logged(kernels, b, s, m, i, seeds[i], strategy_ids[k], params[k], legal, log, with_turns, hand_before,
                    pass_before)
        record_end(s, i, results, extra, game_meta)
        i += 1
    return i
