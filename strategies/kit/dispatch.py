"""The compiled call from the game loop to a strategy, by registry id (its
position in ``ttrsim.strategies.STRATEGY_NAMES``): :func:`legal_for` lists the
legal actions the way the strategy needs them, :func:`pick` asks it for one
(the game loops' call), :func:`choose` asks and checks the pick's legality.

A loop is compiled with the kernels of the strategies it seats only
(:class:`Kernels`, from :func:`kernels_for`): compiling every strategy for
the quickstart, which seats four, cost its first run about 21 of 151 CPU
seconds (destination_hungry, greedy and random).
:func:`pick` takes the :class:`Kernels` as its first argument; numba types it
by the kernel names it holds (:mod:`ttrsim.jit.dispatch`), so each set is compiled
(and cached) once, with a branch per kernel of the set only
(:func:`_pick_impl`). Games do not depend on the set.

The ids below are looked up by name in the registry, so reordering it cannot
send a strategy to another's kernel (``tests/strategies/test_strategy_api.py`` checks
that every registered strategy reaches its own kernel).

>>> kernels_for([STRATEGY_IDS["planner"], STRATEGY_IDS["passenger_hunter"], 0])
Kernels('random_strategy', 'planner')
"""
from functools import cache

from ttrsim.core.engine import is_legal
from ttrsim.jit import kernel
from ttrsim.jit.dispatch import KernelSet, by_kernel_set

from .. import KERNEL_MODULES, REGISTRY, STRATEGY_IDS, STRATEGY_NAMES
from .action_picks import legal_list

RANDOM = STRATEGY_IDS["random"]
DESTINATION_HUNGRY = STRATEGY_IDS["destination_hungry"]
ROUTE_FOCUS = STRATEGY_IDS["route_focus"]
ONE_STEP = STRATEGY_IDS["one_step"]
LONG_ROUTE = STRATEGY_IDS["long_route"]
GREEDY = STRATEGY_IDS["greedy"]
PLANNER = STRATEGY_IDS["planner"]
PASSENGER_HUNTER = STRATEGY_IDS["passenger_hunter"]
PLANNER_CLASSIC = STRATEGY_IDS["planner_classic"]
SEARCH = STRATEGY_IDS["search"]
PLANNER_TICKETS = STRATEGY_IDS["planner_tickets"]
PLANNER_ROUTES = STRATEGY_IDS["planner_routes"]

# by registry id: whether the strategy picks its claims from the legal list
# (``StrategySpec.lists_claims``); listing every payment of every route is most
# of the engine's work in a turn, so the others are given the list without them
LISTS_CLAIMS = tuple(spec.lists_claims for spec in REGISTRY.values())


@kernel
def legal_for(strategy_id, b, s, legal):
    """Write the legal actions strategy ``strategy_id`` is given into ``legal``;
    return their count. A strategy that does not list claims gets
    :func:`ttrsim.core.engine.non_claim_actions`, or the full list when claims
    are all that is legal (so the list is never empty)."""
    return legal_list(LISTS_CLAIMS[strategy_id], b, s, legal)


# --------------------------------------------------------------------------- the kernels a loop is built with

def kernel_name(strategy: str) -> str:
    """The name of the module whose ``choose`` is strategy ``strategy``'s kernel."""
    return KERNEL_MODULES[strategy].__name__.rsplit(".", 1)[-1]


# kernel name -> module, in registry order (several strategies may share one: planner)
KERNEL_MODULE = {kernel_name(n): KERNEL_MODULES[n] for n in STRATEGY_NAMES}
KERNEL_NAMES = tuple(KERNEL_MODULE)


class Kernels(KernelSet):
    """The strategy kernels a compiled loop calls, by module name (registry
    order); a loop built with them plays only strategies whose kernel is in it."""

    def __init__(self, names):
        unknown = set(names) - set(KERNEL_NAMES)
        if unknown:
            raise ValueError(f"unknown strategy kernel(s): {', '.join(sorted(unknown))}")
        super().__init__(n for n in KERNEL_NAMES if n in names)


def kernels_for(strategy_ids) -> Kernels:
    """The :class:`Kernels` of the strategies ``strategy_ids`` (registry ids);
    an id past the registry is an error."""
    names = []
    for i in {int(i) for i in strategy_ids}:
        if not 0 <= i < len(STRATEGY_NAMES):
            raise ValueError(f"unknown strategy id {i}")
        names.append(kernel_name(STRATEGY_NAMES[i]))
    return Kernels(names)


ALL_KERNELS = Kernels(KERNEL_NAMES)


@cache
def _pick_impl(names):
    """The body of :func:`pick` for kernels ``names``: a branch per kernel,
    taken by the registry ids of the strategies it plays."""
    lines = ["def impl(kernels, strategy_id, b, s, m, legal, n_legal, params):"]
    for name in names:
        ids = [STRATEGY_IDS[n] for n in STRATEGY_NAMES if kernel_name(n) == name]
        lines += [f"    if {' or '.join(f'strategy_id == {i}' for i in ids)}:",
                  f"        return {name}.choose(b, s, m, legal, n_legal, params)"]
    lines.append("    raise ValueError('unknown strategy id (or its kernel is not in the loop)')")
    scope = {name: KERNEL_MODULE[name] for name in names}
    exec("\n".join(lines), scope)              # noqa: S102 (code made of registry names only)
    return scope["impl"]


@by_kernel_set(_pick_impl)
def _kernel_call(kernels, strategy_id, b, s, m, legal, n_legal, params):
    """:func:`_pick_impl`'s branches; compiled, numba inlines them."""
    return _pick_impl(kernels.names)(kernels, strategy_id, b, s, m, legal, n_legal, params)


@kernel(inline="always")     # inlined: a compiled level less that re-optimizes every kernel
def pick(kernels, strategy_id, b, s, m, legal, n_legal, params):
    """Ask strategy ``strategy_id`` for an action: its kernel
    ``choose(b, s, m, legal, n_legal, params)`` with the table's strategy
    memory ``m``; ``legal[:n_legal]`` is the list :func:`legal_for` made;
    ``kernels`` (:class:`Kernels`) must hold the strategy's kernel. The pick
    is not checked: the game loops call this (a check of every pick cost 3-5%
    of a random game); :func:`choose` checks it."""
    return _kernel_call(kernels, strategy_id, b, s, m, legal, n_legal, params)


@kernel
def checked_pick(kernels, strategy_id, b, s, m, legal, n_legal, params):
    """:func:`pick`, checked by :func:`ttrsim.core.engine.is_legal` (for
    compiled callers; from Python, :func:`choose`)."""
    a = pick(kernels, strategy_id, b, s, m, legal, n_legal, params)
    if not is_legal(b, s, a):
        raise ValueError("a compiled strategy chose an illegal action")
    return a


@cache
def _kernels_of(strategy_id: int) -> Kernels:
    return kernels_for([strategy_id])


def choose(strategy_id, b, s, m, legal, n_legal, params):
    """:func:`pick` (with the strategy's kernel only), checked by
    :func:`ttrsim.core.engine.is_legal`: an illegal pick raises an error (a
    strategy bug) instead of being returned. Games played from Python
    (:mod:`ttrsim.play.pyplay`) and the strategy tests ask through this check;
    the fuzzer checks every random pick the same way."""
    return checked_pick(_kernels_of(int(strategy_id)), strategy_id, b, s, m, legal, n_legal, params)
