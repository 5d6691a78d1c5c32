"""The compiled call from the game loop to a strategy, by registry id
(the order of ``strategies.STRATEGY_NAMES``)."""
from numba import njit

from . import random_strategy


@njit(cache=True)
def choose(strategy_id, b, s, legal, n_legal, params):
    """Ask strategy ``strategy_id`` for one of ``legal[:n_legal]``."""
    return random_strategy.choose(b, s, legal, n_legal, params)
