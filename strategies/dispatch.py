"""The compiled call from the game loop to a strategy, by registry id
(the order of ``ttrsim.strategies.STRATEGY_NAMES``): :func:`legal_for` lists the legal
actions the way the strategy needs them, :func:`choose` asks it for one."""
from numba import njit

from ttrsim.core.engine import is_legal, legal_actions, non_claim_actions

from . import REGISTRY, destination_hungry, greedy, long_route, one_step, planner, random_strategy, route_focus

# by registry id: whether the strategy picks its claims from the legal list
# (``StrategySpec.lists_claims``); listing every payment of every route is most
# of the engine's work in a turn, so the others are given the list without them
LISTS_CLAIMS = tuple(spec.lists_claims for spec in REGISTRY.values())


@njit(cache=True)
def legal_for(strategy_id, b, s, legal):
    """Write the legal actions strategy ``strategy_id`` is given into ``legal``;
    return their count. A strategy that does not list claims gets
    :func:`ttrsim.core.engine.non_claim_actions`, or the full list when claims
    are all that is legal (so the list is never empty)."""
    if LISTS_CLAIMS[strategy_id]:
        return legal_actions(b, s, legal)
    n = non_claim_actions(b, s, legal)
    if n == 0:
        n = legal_actions(b, s, legal)
    return n


@njit(cache=True)
def choose(strategy_id, b, s, legal, n_legal, params):
    """Ask strategy ``strategy_id`` for an action; ``legal[:n_legal]`` is the
    list :func:`legal_for` made. Every pick is checked by
    :func:`ttrsim.core.engine.is_legal`: an illegal one stops the game loop with an
    error (a strategy bug), it is never applied."""
    if strategy_id == 1:
        a = destination_hungry.choose(b, s, legal, n_legal, params)
    elif strategy_id == 2:
        a = route_focus.choose(b, s, legal, n_legal, params)
    elif strategy_id == 3:
        a = one_step.choose(b, s, legal, n_legal, params)
    elif strategy_id == 4:
        a = long_route.choose(b, s, legal, n_legal, params)
    elif strategy_id == 5:
        a = greedy.choose(b, s, legal, n_legal, params)
    elif strategy_id == 6 or strategy_id == 7:      # planner and its passenger_hunter parameter set
        a = planner.choose(b, s, legal, n_legal, params)
    else:
        a = random_strategy.choose(b, s, legal, n_legal, params)
    if not is_legal(b, s, a):
        raise ValueError("a compiled strategy chose an illegal action")
    return a
