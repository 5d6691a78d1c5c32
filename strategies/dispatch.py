"""The compiled call from the game loop to a strategy, by registry id."""
from numba import njit

from . import random_strategy


@njit(cache=True)
def choose(strategy_id, b, s, legal, n_legal, params):
    """Ask strategy ``strategy_id`` (see ``strategies.STRATEGY_IDS``) for an action."""
    return random_strategy.choose(b, s, legal, n_legal, params)
