"""The compiled call from the game loop to a strategy, by registry id (its
position in ``ttrsim.strategies.STRATEGY_NAMES``): :func:`legal_for` lists the
legal actions the way the strategy needs them, :func:`choose` asks it for one.

The ids below are looked up by name in the registry, so reordering it cannot
send a strategy to another's kernel (``tests/test_strategy_api.py`` checks
that every registered strategy reaches its own kernel).
"""
from numba import njit

from ttrsim.core.engine import is_legal, legal_actions, non_claim_actions

from . import (
    REGISTRY,
    STRATEGY_IDS,
    destination_hungry,
    greedy,
    long_route,
    one_step,
    planner,
    random_strategy,
    route_focus,
)

RANDOM = STRATEGY_IDS["random"]
DESTINATION_HUNGRY = STRATEGY_IDS["destination_hungry"]
ROUTE_FOCUS = STRATEGY_IDS["route_focus"]
ONE_STEP = STRATEGY_IDS["one_step"]
LONG_ROUTE = STRATEGY_IDS["long_route"]
GREEDY = STRATEGY_IDS["greedy"]
PLANNER = STRATEGY_IDS["planner"]
PASSENGER_HUNTER = STRATEGY_IDS["passenger_hunter"]
PLANNER_CLASSIC = STRATEGY_IDS["planner_classic"]

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
def choose(strategy_id, b, s, m, legal, n_legal, params):
    """Ask strategy ``strategy_id`` for an action: its kernel
    ``choose(b, s, m, legal, n_legal, params)`` with the table's strategy
    memory ``m``; ``legal[:n_legal]`` is the list :func:`legal_for` made. Every
    pick is checked by :func:`ttrsim.core.engine.is_legal`: an illegal one
    stops the game loop with an error (a strategy bug), it is never applied."""
    if strategy_id == RANDOM:
        a = random_strategy.choose(b, s, m, legal, n_legal, params)
    elif strategy_id == DESTINATION_HUNGRY:
        a = destination_hungry.choose(b, s, m, legal, n_legal, params)
    elif strategy_id == ROUTE_FOCUS:
        a = route_focus.choose(b, s, m, legal, n_legal, params)
    elif strategy_id == ONE_STEP:
        a = one_step.choose(b, s, m, legal, n_legal, params)
    elif strategy_id == LONG_ROUTE:
        a = long_route.choose(b, s, m, legal, n_legal, params)
    elif strategy_id == GREEDY:
        a = greedy.choose(b, s, m, legal, n_legal, params)
    elif strategy_id == PLANNER or strategy_id == PASSENGER_HUNTER or strategy_id == PLANNER_CLASSIC:
        # one kernel, three parameter sets
        a = planner.choose(b, s, m, legal, n_legal, params)
    else:
        raise ValueError("unknown strategy id")
    if not is_legal(b, s, a):
        raise ValueError("a compiled strategy chose an illegal action")
    return a
