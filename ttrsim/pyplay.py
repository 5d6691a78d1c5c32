"""Games played step by step in Python, seating compiled strategies (by name)
and user-written Python strategies side by side.

A Python strategy is any object with one method::

    choose(observation: dict, legal_actions: list[int]) -> int

``observation`` is :meth:`ttrsim.game.Game.observation` for the acting seat
(public information plus its own hand, tickets and ticket offer);
``legal_actions`` are action ints (codec in :mod:`ttrsim.actions`;
:func:`ttrsim.actions.action_name` names them). Compiled seats choose exactly as
in :func:`ttrsim.playout.play_game`, so an all-compiled game here equals the
compiled game of the same seed.

>>> class FirstLegal:
...     def choose(self, observation, legal_actions):
...         return legal_actions[0]
>>> g = play("usa", 2, seed=3, seats=[FirstLegal(), "random"])
>>> g.over, g.result()["end"]
(True, 'normal')
"""
from __future__ import annotations

from typing import Callable, Protocol, Sequence

import numpy as np

from .engine import legal_actions
from .game import Game
from .playout import legal_buffer
from .state import GameState, copy_state


class PythonStrategy(Protocol):
    def choose(self, observation: dict, legal_actions: list[int]) -> int: ...


def seat_list(seats: Sequence, n_players: int) -> list:
    """One entry for every seat, or one per seat; names are checked."""
    from strategies import strategy_id

    seats = list(seats) * n_players if len(seats) == 1 else list(seats)
    if len(seats) != n_players:
        raise ValueError(f"give one strategy or one per seat ({n_players}), got {len(seats)}")
    for seat in seats:
        if isinstance(seat, str):
            strategy_id(seat)
        elif not callable(getattr(seat, "choose", None)):
            raise ValueError(f"strategy {seat!r} is neither a strategy name nor an object with "
                             f"choose(observation, legal_actions)")
    return seats


def play(rules, n_players: int, seed: int, seats: Sequence, params: np.ndarray | None = None,
         overrides: dict | None = None, on_start: Callable[[Game], None] | None = None,
         on_step: Callable[[GameState, int, GameState], None] | None = None) -> Game:
    """Play one game to the end and return it. ``seats``: strategy names or
    Python strategy objects (one for all seats, or one per seat). ``params``:
    the compiled strategies' float64 table, one row per seat (default: each
    named strategy's defaults). ``on_start(game)`` sees the dealt game and
    ``on_step(before, action, after)`` every action with state snapshots (the
    narrator uses both)."""
    from strategies import param_row, strategy_id
    from strategies.dispatch import choose

    g = Game(rules, n_players, seed, overrides)
    seats = seat_list(seats, n_players)
    ids = np.array([strategy_id(x) if isinstance(x, str) else 0 for x in seats], np.int64)
    if params is None:
        params = np.array([param_row(x) if isinstance(x, str) else param_row("random") for x in seats])
    buf = legal_buffer(g.board)
    if on_start:
        on_start(g)
    before = copy_state(g.state) if on_step else None
    while not g.over:
        p = g.player
        if isinstance(seats[p], str):
            n = legal_actions(g.board, g.state, buf)
            a = int(choose(ids[p], g.board, g.state, buf, n, params))
        else:
            a = int(seats[p].choose(g.observation(p), g.legal_actions()))
        g.apply(a)
        if on_step:
            after = copy_state(g.state)
            on_step(before, a, after)
            before = after
    return g
