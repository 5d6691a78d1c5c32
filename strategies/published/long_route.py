"""``long_route``: the Long Route agent of de Mesentier Silva et al.
(FDG 2017), as defined in issue 3.

Its plan is a network joining the cities of its unfinished tickets
(:func:`ttrsim.strategies.kit.network_plans.plan_network`, cost = trains) over routes of length
``min_len`` (3) or more only, plus its own routes (free).

* Tickets: keeps the fewest tickets allowed, the cheapest: the keep set whose
  plan (with its unfinished tickets) needs the fewest trains, a city the plan
  cannot reach costing 1000 (ties: more points). Never draws tickets in play.
* Main phase: the candidates are the free routes of its plan while the plan
  has any (``plan_first`` = 1), else every free route of length ``min_len``
  or more; once no such route fits its trains, every free route. Only routes
  it may claim and that fit its trains count. It claims the longest candidate
  it can pay now (ties: planned first, then the lowest id); if it can pay none
  it draws the colour of the longest candidate (gray: the colour it holds most
  of), face-up if shown, else blind.
* Second card: the same target colour; blind otherwise.
* Germany: ``setup_long`` tickets from the long pile (default 0: all short,
  the cheap ones); a passenger in the colour it holds most of.
* Claims pay with the fewest locomotives, a gray route in the colour held most.

Interpretation: "plans only over routes of length 3 or more" is read as the
plan choosing which long routes to take first (``plan_first``); with
``plan_first`` = 0 the plan only breaks ties between equally long routes.
"""
import numpy as np

from ttrsim.core.actions import A_KEEP, A_PASSENGER
from ttrsim.core.piles import popcount
from ttrsim.core.state import PH_KEEP, PH_MAIN, PH_SETUP_KEEP
from ttrsim.jit import kernel

from ..kit.action_picks import draw_colour_action, fallback_action, min_keep_count, pay_action, route_draw_colour
from ..kit.connectivity import own_components, unfinished_tickets
from ..kit.graph_search import COST_TRAINS, INF
from ..kit.memory import PLAN_ROUTES, own_plan_valid, seat_costs, store_own_plan
from ..kit.network_plans import network_work, plan_network
from ..spec import BOOL, LONG_TICKETS, ROUTE_LENGTH, Param, StrategySpec
from .shared import PUBLISHED_NOTE, agent_choose

SPEC = StrategySpec(
    "long_route",
    "de Mesentier Silva et al. (FDG 2017) Long Route: few cheap tickets, plans over long routes only, claims "
    "the longest routes it can" + PUBLISHED_NOTE,
    lists_claims=False,
    params=(
        Param("min_len", 3, "plans only over routes at least this long, and prefers them when claiming", *ROUTE_LENGTH),
        Param("plan_first", 1, "1: claims/collects for routes of its plan while it has any; 0: the plan only "
                               "breaks ties", *BOOL),
        Param("setup_long", 0, "Germany: setup tickets taken from the long pile (the rest short)", *LONG_TICKETS),
    ),
)
P_MIN_LEN = SPEC.index("min_len")
P_PLAN_FIRST = SPEC.index("plan_first")
P_SETUP_LONG = SPEC.index("setup_long")


@kernel
def _decide(b, s, m, me, phase, legal, n_legal, params):
    n_routes = b.route_len.shape[0]
    min_len = np.int64(params[me, P_MIN_LEN])
    claimable = seat_costs(b, s, m, me, COST_TRAINS)      # every route it may claim (> 0), own (0)

    if phase == PH_SETUP_KEEP or phase == PH_KEEP:
        cost, in_plan, tickets, locs, parent, w = _plan_work(b, claimable, min_len)
        own_components(b, s, me, parent)
        n_held = unfinished_tickets(b, s, me, parent, tickets)
        need = min_keep_count(legal, n_legal)
        best_a = -1
        best_key = INF
        for i in range(n_legal):
            act = legal[i]
            if act < A_KEEP or act >= A_PASSENGER or popcount(act - A_KEEP) != need:
                continue
            mask = act - A_KEEP
            n_t = n_held
            pts = 0
            for j in range(s.offer_n[me]):
                if mask & (1 << j):
                    t = s.offer[me, j]
                    tickets[n_t] = t
                    n_t += 1
                    pts += b.ticket_points[t]
            for k in range(n_t):
                locs[2 * k] = b.ticket_a[tickets[k]]
                locs[2 * k + 1] = b.ticket_b[tickets[k]]
            c, miss = plan_network(b, cost, locs, 2 * n_t, in_plan, w)
            key = c + 1000.0 * miss - 1e-3 * pts
            if key < best_key:
                best_key = key
                best_a = act
        return best_a

    # remembered while its trains and tickets are the same and no route of it is taken (memory.own_plan_valid;
    # the plan's routes are own or at least min_len long, so plan_open under claimable is plan_open under cost)
    plan = m.route_numbers[me, PLAN_ROUTES]
    if not own_plan_valid(b, s, m, me, claimable):
        cost, in_plan, tickets, locs, parent, w = _plan_work(b, claimable, min_len)
        own_components(b, s, me, parent)
        n_held = unfinished_tickets(b, s, me, parent, tickets)
        for k in range(n_held):
            locs[2 * k] = b.ticket_a[tickets[k]]
            locs[2 * k + 1] = b.ticket_b[tickets[k]]
        plan_network(b, cost, locs, 2 * n_held, in_plan, w)
        for r in range(n_routes):
            plan[r] = in_plan[r]
        store_own_plan(b, s, m, me)
    route_len = b.route_len         # record fields read once, not in the loops
    plan_left = False
    long_left = False
    for r in range(n_routes):
        if claimable[r] > 0 and route_len[r] >= min_len:
            if plan[r]:
                plan_left = True
            long_left = True        # free, open, >= min_len and fits the trains
    plan_only = plan_left and params[me, P_PLAN_FIRST] != 0
    main = phase == PH_MAIN
    pay_r = -1
    pay_a = -1
    tgt_r = -1
    for r in range(n_routes):
        if claimable[r] <= 0:
            continue                # own, taken, closed or longer than its trains
        if long_left and route_len[r] < min_len:
            continue                # short routes only once no long route fits any more
        if plan_only and not plan[r]:
            continue
        if tgt_r < 0 or _better(route_len, plan, r, tgt_r):
            tgt_r = r
        if main and (pay_r < 0 or _better(route_len, plan, r, pay_r)):
            a = pay_action(b, s, me, r)
            if a >= 0:
                pay_r = r
                pay_a = a
    if pay_a >= 0:
        return pay_a
    if tgt_r < 0:
        return fallback_action(legal, n_legal)
    return draw_colour_action(s, legal, n_legal, route_draw_colour(b, s, me, tgt_r), False)


@kernel
def choose(b, s, m, legal, n_legal, params):
    return agent_choose(b, s, m, legal, n_legal, params, _decide, P_SETUP_LONG, False)


@kernel
def _better(route_len, plan, r, than):
    """Longer, then planned (lower id already wins ties by scan order)."""
    if route_len[r] != route_len[than]:
        return route_len[r] > route_len[than]
    return plan[r] != 0 and plan[than] == 0


@kernel
def _plan_work(b, claimable, min_len):
    """The plan's graph (long routes and own routes, from ``claimable``) and
    scratch: (cost, in_plan, tickets, locs, parent, network work)."""
    n_routes = b.route_len.shape[0]
    n_tk = b.ticket_a.shape[0] + 8
    route_len = b.route_len
    cost = np.empty(n_routes, np.float64)
    for r in range(n_routes):
        c = claimable[r]
        cost[r] = c if (c == 0 or route_len[r] >= min_len) else -1.0
    return (cost, np.zeros(n_routes, np.bool_), np.empty(n_tk, np.int64), np.empty(2 * n_tk, np.int64),
            np.empty(b.n_nodes, np.int64), network_work(b))
