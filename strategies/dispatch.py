"""The compiled call from the game loop to a strategy, by registry id (its
position in ``ttrsim.strategies.STRATEGY_NAMES``): :func:`legal_for` lists the
legal actions the way the strategy needs them, :func:`pick` asks it for one
(the game loops' call), :func:`choose` asks and checks the pick's legality.

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
def pick(strategy_id, b, s, m, legal, n_legal, params):
    """Ask strategy ``strategy_id`` for an action: its kernel
    ``choose(b, s, m, legal, n_legal, params)`` with the table's strategy
    memory ``m``; ``legal[:n_legal]`` is the list :func:`legal_for` made. The
    pick is not checked: the game loops call this (a check of every pick cost
    3-5% of a random game); :func:`choose` checks it."""
    if strategy_id == RANDOM:
        return random_strategy.choose(b, s, m, legal, n_legal, params)
    if strategy_id == DESTINATION_HUNGRY:
        return destination_hungry.choose(b, s, m, legal, n_legal, params)
    if strategy_id == ROUTE_FOCUS:
        return route_focus.choose(b, s, m, legal, n_legal, params)
    if strategy_id == ONE_STEP:
        return one_step.choose(b, s, m, legal, n_legal, params)
    if strategy_id == LONG_ROUTE:
        return long_route.choose(b, s, m, legal, n_legal, params)
    if strategy_id == GREEDY:
        return greedy.choose(b, s, m, legal, n_legal, params)
    if strategy_id == PLANNER or strategy_id == PASSENGER_HUNTER or strategy_id == PLANNER_CLASSIC:
        # one kernel, three parameter sets
        return planner.choose(b, s, m, legal, n_legal, params)
    raise ValueError("unknown strategy id")


@njit(cache=True)
def choose(strategy_id, b, s, m, legal, n_legal, params):
    """:func:`pick`, checked by :func:`ttrsim.core.engine.is_legal`: an illegal
    pick raises an error (a strategy bug) instead of being returned. Games
    played from Python (:mod:`ttrsim.play.pyplay`) and the strategy tests
    ask through this check; the fuzzer checks every random pick the same way."""
    a = pick(strategy_id, b, s, m, legal, n_legal, params)
    if not is_legal(b, s, a):
        raise ValueError("a compiled strategy chose an illegal action")
    return a
