"""The strategies' memory: one record per table, owned by the game loop.

A compiled strategy keeps nothing in the game state (the state holds only the
game). What a seat's strategy carries from one of its decisions to the next
is in the table's :class:`StrategyMemory` ``m``, which the game loop allocates
once per table (:func:`allocate_memory`, in Python), resets at every game
start (:func:`reset_memory`) and passes to every kernel call, as OpenSpiel
bots own their state:

=================  ================================  =========================================
field              type                              contents
=================  ================================  =========================================
``rng``            uint64[P]                         seat ``p``'s random stream
                                                     (``ttrsim.core.rng``), seeded from the
                                                     game seed, lane ``LANE_STRATEGY + p``
                                                     (never the game's stream)
``numbers``        int32[P, MEM_NUMBERS]             a seat's own numbers
``route_numbers``  int32[P, MEM_ROUTE_NUMBERS, R]    numbers per route ``r``
``route_sets``     int32[P, R, route_set_words(R)]   per route a set of routes: route ``x``
                                                     is bit ``x % ROUTE_SET_BITS`` of word
                                                     ``x // ROUTE_SET_BITS``
``costs``          float64[P, R]                     a seat's route costs
                                                     (:func:`seat_costs`)
``scratch``        N_SCRATCH game states             the table's scratch states (below)
``ints``           int64[N_WORK_INTS, W]             work rows of one decision (below)
``floats``         float64[N_WORK_FLOATS, W]
``flags``          bool[N_WORK_FLAGS, W]
=================  ================================  =========================================

Everything but the streams is zero at every game start. A kernel reads and
writes only the acting seat's rows (``tests/strategies/test_strategy_api.py`` checks it
for every registered strategy), and the scratch states and work rows.

Work rows
---------
A decision's arrays (search labels, plans, ticket lists) are rows of
``ints``, ``floats`` and ``flags``, ``W`` (:func:`work_width`) wide, built
with the memory instead of allocated by every decision. Like the scratch
states they hold nothing between decisions; a kernel slices the rows it uses
(``m.ints[WI_PREV, :n]``) and hands them to the helpers it calls. The rows
are named by use (``WI_*``, ``WF_*``, ``WB_*``): a function takes only rows
that no caller of it holds.

The memory is a counted record (a search builds its rollouts' memory in
compiled code, :func:`new_memory`), so a compiled call taking ``m`` and an
array read from it may count a reference (an atomic increment and
decrement). Hot code therefore reads its arrays as uncounted views
(:func:`ttrsim.jit.record.borrowed`, valid while the caller holds ``m``,
as every caller of a kernel does: such a view must not outlive the call
that holds ``m``), passes arrays rather than ``m`` to helpers called in
loops, and the small helpers here (plan keys, :func:`seat_costs`,
:func:`plan_work`) are inlined.

Scratch states
--------------
Compiled code never builds a game state: a state is a borrowed record
(:mod:`ttrsim.jit.record`), kept alive by its Python object. A strategy that
plays games ahead (the search: a determinization and its rollout) copies into
the ``scratch`` states (:func:`ttrsim.core.state.copy_state_into`), built with
the memory and reused by every decision; what they hold means nothing after
the decision that wrote it. The search's rollouts get a memory of their own
(:func:`new_memory`, which shares the scratch states: a rollout policy does
not use them).

Plan memory
-----------
A strategy may keep a plan between its decisions: ``numbers[p, :N_PLAN_KEY]``
hold the key the plan was made under (:func:`plan_key`;
everything in it is public or the seat's own), ``route_numbers[p,
PLAN_ROUTES]`` a number per route (a plan flag, or a positive weight) and
``numbers[p, FREE_NUMBER:]`` a strategy's own numbers. :func:`recall_plan` /
:func:`remember_plan` (or :func:`recall_key` / :func:`store_key` for other
numbers) reuse it while the key is unchanged, and :func:`plan_open` says
whether a plan made by shortest-path searches is still one they would make.
:func:`store_own_plan` / :func:`own_plan_valid` do all of that for a plan made
from the seat's trains and tickets, checking :func:`plan_open` only when a
route was claimed since the last check.

Route costs
-----------
A seat's route costs (:func:`ttrsim.strategies.kit.graph_search.route_cost_for`)
change only when a route is claimed: :func:`seat_costs` keeps them in
``costs[p]`` under :func:`claims_key` (in ``numbers[p, COST_KEY]``) and
computes them again only when a route was claimed since.

>>> from ttrsim.data.rules import get_rules
>>> from ttrsim.core.board import build_board
>>> b = build_board(get_rules("usa")); m = allocate_memory(b, 4)
>>> m.numbers.shape, m.route_numbers.shape, m.route_sets.shape, m.costs.shape, m.ints.shape
((4, 16), (4, 3, 100), (4, 100, 4), (4, 100), (17, 214))
>>> reset_memory(m, 7); bool(m.rng[0] != m.rng[1])
True
"""
import numpy as np

from ttrsim.core.engine import LANE_STRATEGY
from ttrsim.core.rng import seed_into
from ttrsim.core.state import allocate_state, copy_state
from ttrsim.jit import kernel
from ttrsim.jit.record import borrowed, define_record

from .graph_search import route_cost_for

MEMORY_FIELDS = ("rng", "numbers", "route_numbers", "route_sets", "costs")     # the seats' rows
WORK_FIELDS = ("ints", "floats", "flags")                                        # a decision's work rows
StrategyMemory = define_record("StrategyMemory", MEMORY_FIELDS + ("scratch",) + WORK_FIELDS, __name__)
N_SCRATCH = 2             # scratch game states of a table (a search's determinization and rollout)
# The work rows by use (``ints``, ``floats``, ``flags``): the rows a caller holds are not its callees'.
(WI_TICKETS, WI_LOCS, WI_TA, WI_TB, WI_ROUTES, WI_PREV, WI_PARENT, WI_FRONT, WI_TERM, WI_NEEDS, WI_NEED, WI_CAND,
 WI_CAND_ADJ, WI_BLOCKED, WI_KEY, WI_RECALL, WI_PAY, N_WORK_INTS) = range(18)
WF_DIST, WF_PCOST, WF_FOREST, WF_WANT, WF_CSCORE, WF_TOP, WF_SAVED, WF_UNSEEN, N_WORK_FLOATS = range(9)
WB_PLAN, WB_DONE, WB_IN_TREE, WB_TMP_PLAN, WB_PAYABLE, WB_CAND_PAR, N_WORK_FLAGS = range(7)

MEM_NUMBERS = 16          # numbers per seat
MEM_ROUTE_NUMBERS = 3     # numbers per seat and route
ROUTE_SET_BITS = 30       # routes per int32 word of a route set (the sign bit and one more stay clear)

N_PLAN_KEY = 5            # numbers[p, :N_PLAN_KEY]: the key of the remembered plan
KEY_EXTRA = 4             # the key slot holding plan_key's ``extra``
FREE_NUMBER = N_PLAN_KEY  # numbers[p, FREE_NUMBER:]: a strategy's own numbers
PLAN_ROUTES = 0           # route_numbers[p, PLAN_ROUTES, r]: the plan's number for route r
COST_KEY = MEM_NUMBERS - 1  # numbers[p, COST_KEY]: the claims_key costs[p] were computed under


@kernel
def route_set_words(n_routes):
    """int32 words of a set of routes (one bit per route)."""
    return (n_routes + ROUTE_SET_BITS - 1) // ROUTE_SET_BITS


@kernel
def memory_arrays(n_players, n_routes):
    """The zeroed arrays of a :class:`StrategyMemory`, in field order."""
    return (np.zeros(n_players, np.uint64), np.zeros((n_players, MEM_NUMBERS), np.int32),
            np.zeros((n_players, MEM_ROUTE_NUMBERS, n_routes), np.int32),
            np.zeros((n_players, n_routes, route_set_words(n_routes)), np.int32),
            np.zeros((n_players, n_routes), np.float64))


def work_width(b) -> int:
    """The width of the work rows for board ``b``: its nodes, its routes plus
    32 (the planner's card needs, a number per route and two per colour), or
    twice its tickets plus 16 (the ticket ends of a plan), the most."""
    return max(b.n_nodes, b.route_len.shape[0] + 32, 2 * b.ticket_a.shape[0] + 16)


@kernel
def work_arrays(width):
    """The work rows of a :class:`StrategyMemory` (``ints``, ``floats``, ``flags``)."""
    return (np.zeros((N_WORK_INTS, width), np.int64), np.zeros((N_WORK_FLOATS, width), np.float64),
            np.zeros((N_WORK_FLAGS, width), np.bool_))


def allocate_memory(b, n_players: int) -> StrategyMemory:
    """A table's memory for board ``b`` (reset it at every game start)."""
    scratch = tuple(allocate_state(b, n_players) for _ in range(N_SCRATCH))
    return StrategyMemory(*memory_arrays(n_players, b.route_len.shape[0]), scratch, *work_arrays(work_width(b)))


def copy_memory(m: StrategyMemory) -> StrategyMemory:
    """A deep copy (every array copied, the scratch states too)."""
    return StrategyMemory(*(getattr(m, f).copy() for f in MEMORY_FIELDS), tuple(copy_state(x) for x in m.scratch),
                          *(getattr(m, f).copy() for f in WORK_FIELDS))


@kernel
def new_memory(m):
    """A zeroed memory of ``m``'s table inside compiled code (a search's
    rollouts), sharing ``m``'s scratch states (it must not outlive ``m``),
    with work rows of its own (a rollout decides while the search's decision
    still holds ``m``'s)."""
    rng, numbers, route_numbers, route_sets, costs = memory_arrays(m.rng.shape[0], m.costs.shape[1])
    ints, floats, flags = work_arrays(m.ints.shape[1])
    return StrategyMemory(rng, numbers, route_numbers, route_sets, costs, m.scratch, ints, floats, flags)


@kernel
def clear_seats(m):
    """Forget what every seat keeps between its decisions: zero ``numbers``,
    ``route_numbers`` and ``route_sets`` (the kept route costs then count as
    unknown: no :func:`claims_key` is 0). A search clears its rollouts' memory
    so before every rollout."""
    m.numbers[:, :] = 0
    m.route_numbers[:, :, :] = 0
    m.route_sets[:, :, :] = 0


@kernel
def copy_seat(src, dst, p):
    """Copy what seat ``p`` keeps between decisions (its rows of ``numbers``,
    ``route_numbers``, ``route_sets`` and the ``costs`` kept under them) from
    memory ``src`` to ``dst``: a search's deal so starts every candidate's
    rollout from the same remembered plans."""
    dst.numbers[p] = src.numbers[p]
    dst.route_numbers[p] = src.route_numbers[p]
    dst.route_sets[p] = src.route_sets[p]
    dst.costs[p] = src.costs[p]


@kernel
def copy_seats(src, dst):
    """:func:`copy_seat` for every seat."""
    for p in range(src.numbers.shape[0]):
        copy_seat(src, dst, p)


@kernel
def reset_memory(m, seed):
    """Start game ``seed``: seed every seat's stream (lane ``LANE_STRATEGY +
    seat``) and zero the rest."""
    for p in range(m.rng.shape[0]):
        seed_into(m.rng, p, seed, LANE_STRATEGY + p)
    clear_seats(m)
    m.costs[:, :] = 0.0


@kernel(inline="always")   # (no call: the record is not counted again)
def plan_work(b, m):
    """The work arrays of :func:`~ttrsim.strategies.kit.network_plans.plan_network`
    and :func:`~ttrsim.strategies.kit.network_plans.plan_tickets` from the work rows:
    ``(front, term, in_tree, cost_work)``, uncounted views
    (``record.borrowed``: the caller holds ``m`` while it uses them)."""
    N, R = b.n_nodes, b.route_len.shape[0]
    ints, floats, flags = borrowed(m.ints), borrowed(m.floats), borrowed(m.flags)
    return ints[WI_FRONT, :N], ints[WI_TERM, :N], flags[WB_IN_TREE, :N], floats[WF_FOREST, :R]


# --- plan memory ---------------------------------------------------------------------------------

@kernel
def tickets_held(b, s, me):
    """How many tickets seat ``me`` holds."""
    holder = s.ticket_holder
    n = 0
    for t in range(holder.shape[0]):
        if holder[t] == me:
            n += 1
    return n


@kernel
def passengers_collected(s):
    """How many passengers all seats have collected (Germany)."""
    pass_player = s.pass_player
    n = 0
    for p in range(pass_player.shape[0]):
        for c in range(pass_player.shape[1]):
            n += pass_player[p, c]
    return n


@kernel
def claims_key(s):
    """A number that changes with every claim at the table: the trains left
    at it, plus 1 (a zeroed memory never matches). Claims only add owners
    and each takes a train at least, so within a game equal keys mean the
    same routes claimed."""
    trains = s.trains
    n = 1
    for p in range(trains.shape[0]):
        n += trains[p]
    return n


@kernel
def plan_key(b, s, me, mine, extra, key):
    """Fill ``key`` (int64[N_PLAN_KEY]) with what a plan of seat ``me`` depends
    on: ``mine`` (the caller's measure of its own position, e.g. its trains),
    its tickets held, the passengers collected by all seats, and the caller's
    ``extra``. Slot 0 is 1 (a zeroed memory never matches)."""
    key[0] = 1
    key[1] = mine
    key[2] = tickets_held(b, s, me)
    key[3] = passengers_collected(s)
    key[KEY_EXTRA] = extra


@kernel
def store_own_plan(b, s, m, me):
    """Mark seat ``me``'s plan (``route_numbers[me, PLAN_ROUTES]`` and its own
    numbers) as made now from its trains, its tickets and searches over the
    board (its trains change with each of its claims, the only claims that
    make a route cheaper or join its network); :func:`own_plan_valid` says
    when it still holds. The key's ``extra`` is the :func:`claims_key`."""
    numbers = borrowed(m.numbers)
    numbers[me, 0] = 1
    numbers[me, 1] = s.trains[me]
    numbers[me, 2] = tickets_held(b, s, me)
    numbers[me, 3] = passengers_collected(s)
    numbers[me, KEY_EXTRA] = claims_key(s)


@kernel
def own_plan_valid(b, s, m, me, cost):
    """Seat ``me``'s plan stored by :func:`store_own_plan` still holds: made
    under its trains and tickets of now (and the passengers collected), and
    :func:`plan_open` under ``cost`` (its costs now). Costs change only with a
    claim, so :func:`plan_open` is checked only when a route was claimed since
    the last check, which then moves the key's :func:`claims_key` on."""
    numbers = borrowed(m.numbers)
    if (numbers[me, 0] != 1 or numbers[me, 1] != s.trains[me] or numbers[me, 2] != tickets_held(b, s, me)
            or numbers[me, 3] != passengers_collected(s)):
        return False
    claims = claims_key(s)
    if numbers[me, KEY_EXTRA] != claims:
        if not plan_open(cost, borrowed(m.route_numbers)[me, PLAN_ROUTES]):
            return False
        numbers[me, KEY_EXTRA] = claims
    return True


@kernel
def plan_open(cost, on_plan):
    """Every route marked in ``on_plan`` (a flag or a positive number per
    route) is still the seat's own or claimable by it (``cost >= 0``).

    Then a plan made by shortest-path searches is still one the same searches
    could make now: other seats' claims only remove routes, so every path of
    the plan keeps its cost and stays a cheapest one (other paths only got
    dearer), and a location no path reached stays unreached. Only ties
    between equally cheap paths may go another way than in a fresh search."""
    for r in range(cost.shape[0]):
        if on_plan[r] > 0 and cost[r] < 0:
            return False
    return True


@kernel(inline="always")   # (no call: the record is not counted again)
def recall_key(m, me, key):
    """Seat ``me``'s memory was stored under ``key``."""
    numbers = borrowed(m.numbers)
    for i in range(N_PLAN_KEY):
        if numbers[me, i] != key[i]:
            return False
    return True


@kernel(inline="always")   # (no call: the record is not counted again)
def store_key(m, me, key):
    """Mark seat ``me``'s memory as made under ``key``."""
    numbers = borrowed(m.numbers)
    for i in range(N_PLAN_KEY):
        numbers[me, i] = key[i]


@kernel(inline="always")   # (no call: the record is not counted again)
def recall_plan(m, me, key, in_plan):
    """If seat ``me`` remembers a plan made under ``key``, copy it into
    ``in_plan`` and return True; else False (``in_plan`` untouched)."""
    if not recall_key(m, me, key):
        return False
    plan = borrowed(m.route_numbers)[me, PLAN_ROUTES]
    for r in range(in_plan.shape[0]):
        in_plan[r] = plan[r] != 0
    return True


@kernel(inline="always")   # (no call: the record is not counted again)
def remember_plan(m, me, key, in_plan):
    """Store ``in_plan`` under ``key`` in seat ``me``'s memory."""
    store_key(m, me, key)
    plan = borrowed(m.route_numbers)[me, PLAN_ROUTES]
    for r in range(in_plan.shape[0]):
        plan[r] = 1 if in_plan[r] else 0


# --- route costs ---------------------------------------------------------------------------------

@kernel(inline="always")   # (no call: the record is not counted again)
def seat_costs(b, s, m, me, cost_mode):
    """Seat ``me``'s route costs, ``route_cost_for(b, s, me, cost_mode, ...)``
    (:mod:`ttrsim.strategies.kit.graph_search`), kept in ``m.costs[me]`` (returned)
    and computed again only when a route was claimed since (:func:`claims_key`:
    the costs depend only on the owners and the seat's trains). A seat keeps
    one ``cost_mode``; callers do not write into the costs. The row is an
    uncounted view (``record.borrowed``: the caller holds ``m`` while it uses
    it)."""
    cost = borrowed(m.costs)[me]
    numbers = borrowed(m.numbers)
    key = claims_key(s)
    if numbers[me, COST_KEY] != key:
        route_cost_for(b, s, me, cost_mode, cost)
        numbers[me, COST_KEY] = key
    return cost
