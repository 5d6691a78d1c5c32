"""The compiled call from the game loop to a strategy, by registry id
(the order of ``strategies.STRATEGY_NAMES``)."""
from numba import njit

from . import destination_hungry, greedy, long_route, one_step, planner, random_strategy, route_focus


@njit(cache=True)
def choose(strategy_id, b, s, legal, n_legal, params):
    """Ask strategy ``strategy_id`` for one of ``legal[:n_legal]``."""
    if strategy_id == 1:
        return destination_hungry.choose(b, s, legal, n_legal, params)
    if strategy_id == 2:
        return route_focus.choose(b, s, legal, n_legal, params)
    if strategy_id == 3:
        return one_step.choose(b, s, legal, n_legal, params)
    if strategy_id == 4:
        return long_route.choose(b, s, legal, n_legal, params)
    if strategy_id == 5:
        return greedy.choose(b, s, legal, n_legal, params)
    if strategy_id == 6 or strategy_id == 7:      # planner and its passenger_hunter parameter set
        return planner.choose(b, s, legal, n_legal, params)
    return random_strategy.choose(b, s, legal, n_legal, params)
