"""``destination_hungry``: the Destination Hungry agent of de Mesentier Silva,
Lee, Togelius and Nealen, "AI-based Playtesting of Contemporary Board Games"
(FDG 2017), as defined in issue 3.

Its *plan* is a network joining every city of its unfinished tickets by
shortest paths, cost = trains (:func:`ttrsim.strategies.kit.network_plans.plan_network`; own
routes cost 0, other players' routes and tracks closed by R4.5 are impassable,
routes longer than its trains left too). Tickets no path can reach any more are
left out of the plan.

* Choosing tickets (setup and draws): for every legal keep set it plans the
  network of its unfinished tickets plus the set, and keeps the set with the
  best (ticket points + route points of the plan's new routes) / trains needed
  among sets whose plan needs at most ``trains - keep_margin`` trains and
  reaches every city; if none qualifies, the set with the smallest plan.
* Main phase: if its planned trains are below ``trains - draw_margin`` it draws
  tickets; otherwise it claims the longest route of its plan it can pay; with
  no plan left it claims the longest route it can pay; otherwise it draws the
  colour its plan needs most (the colour with the largest shortfall of planned
  route lengths over cards in hand; a gray route counts for the colour it holds
  most of), face-up if shown, else blind.
* Second card: the same colour rule (blind when nothing is needed).
* Germany: the short/long mix takes ``setup_long`` / ``draw_long`` tickets
  from the long pile; a passenger is taken in the colour it holds most of.
* Claims pay with the fewest locomotives, a gray route in the colour held most.

The plan is remembered in the seat's strategy memory (:mod:`ttrsim.strategies.kit.memory`) and
made again only when its trains or tickets change or a route of the plan is
taken: other claims only make other paths dearer, so the remembered plan is
still one the shortest-path searches make now (see
:func:`ttrsim.strategies.kit.memory.plan_open`; only ties may go another way).
A decision's arrays are the memory's work rows (nothing is allocated).

Interpretations: the ratio counts the points of the held unfinished tickets
too (the plan covers them), and ``(ticket + route points) / max(trains, 1)``;
ties between routes go to the lowest route id.
"""
import numpy as np

from ttrsim.core.actions import A_KEEP, A_PASSENGER
from ttrsim.core.state import PH_KEEP, PH_MAIN, PH_SETUP_KEEP
from ttrsim.data.ids import GRAY, N_COLOURS
from ttrsim.jit import kernel

from ..kit.action_picks import draw_colour_action, fallback_action, most_held_colour, pay_action, ticket_mix_action
from ..kit.connectivity import own_components, unfinished_tickets
from ..kit.graph_search import COST_TRAINS, INF
from ..kit.memory import (
    PLAN_ROUTES,
    WB_DONE,
    WB_PLAN,
    WF_DIST,
    WI_LOCS,
    WI_NEED,
    WI_PARENT,
    WI_PREV,
    WI_ROUTES,
    WI_TA,
    WI_TB,
    WI_TICKETS,
    own_plan_valid,
    plan_work,
    seat_costs,
    store_own_plan,
)
from ..kit.network_plans import NetworkWork, plan_network, plan_tickets
from ..spec import BOOL, LONG_TICKETS, WHOLE_MARGIN, Param, StrategySpec
from .shared import PUBLISHED_NOTE, agent_choose

SPEC = StrategySpec(
    "destination_hungry",
    "de Mesentier Silva et al. (FDG 2017) Destination Hungry: hoards tickets whose joint shortest-path plan "
    "fits its trains, builds that plan, draws the colours it needs" + PUBLISHED_NOTE,
    lists_claims=False,
    params=(
        Param("keep_margin", 5, "a ticket set qualifies if its plan needs at most trains left minus this",
              *WHOLE_MARGIN),
        Param("draw_margin", 8, "draws tickets while its planned trains are below trains left minus this",
              *WHOLE_MARGIN),
        Param("setup_long", 1, "Germany: setup tickets taken from the long pile (the rest short)", *LONG_TICKETS),
        Param("draw_long", 1, "Germany: tickets taken from the long pile on an in-play ticket draw", *LONG_TICKETS),
        Param("forest", 0, "1: plan each ticket's path separately (Steiner forest) instead of one network "
                           "joining all ticket cities (0, the published definition)", *BOOL),
    ),
)
P_KEEP_MARGIN = SPEC.index("keep_margin")
P_DRAW_MARGIN = SPEC.index("draw_margin")
P_SETUP_LONG = SPEC.index("setup_long")
P_DRAW_LONG = SPEC.index("draw_long")
P_FOREST = SPEC.index("forest")


@kernel
def _plan(b, m, cost, tickets, n_t, forest, in_plan):
    """Plan the network of ``tickets[:n_t]`` into ``in_plan``; returns (trains,
    unreached), in the memory's work rows."""
    n_nodes, n_routes = b.n_nodes, b.route_len.shape[0]
    ints = m.ints
    dist, prev, done = m.floats[WF_DIST, :n_nodes], ints[WI_PREV, :n_nodes], m.flags[WB_DONE, :n_nodes]
    front, term, in_tree, cost_work = plan_work(b, m)
    w = NetworkWork(dist, prev, done, front, term, in_tree, ints[WI_ROUTES, :n_routes], cost_work)
    if forest:
        ta, tb = ints[WI_TA], ints[WI_TB]
        for i in range(n_t):
            ta[i] = b.ticket_a[tickets[i]]
            tb[i] = b.ticket_b[tickets[i]]
        return plan_tickets(b, cost, ta, tb, n_t, in_plan, w)
    locs = ints[WI_LOCS]
    for i in range(n_t):
        locs[2 * i] = b.ticket_a[tickets[i]]
        locs[2 * i + 1] = b.ticket_b[tickets[i]]
    return plan_network(b, cost, locs, 2 * n_t, in_plan, w)


@kernel
def _unfinished(b, s, m, me, tickets):
    """Write ``me``'s unfinished tickets into ``tickets``; return their count
    (its components in a work row)."""
    parent = m.ints[WI_PARENT, :b.n_nodes]
    own_components(b, s, me, parent)
    return unfinished_tickets(b, s, me, parent, tickets)


@kernel
def _decide(b, s, m, me, phase, legal, n_legal, params):
    cost = seat_costs(b, s, m, me, COST_TRAINS)
    if phase == PH_SETUP_KEEP or phase == PH_KEEP:
        return _keep_choice(b, s, m, me, cost, legal, n_legal, params)
    return _play_choice(b, s, m, me, phase, cost, legal, n_legal, params)


@kernel
def choose(b, s, m, legal, n_legal, params):
    return agent_choose(b, s, m, legal, n_legal, params, _decide, P_SETUP_LONG, False)


@kernel
def _keep_choice(b, s, m, me, cost, legal, n_legal, params):
    n_routes = b.route_len.shape[0]
    forest = params[me, P_FOREST] != 0
    trains = s.trains[me]
    in_plan = m.flags[WB_PLAN, :n_routes]
    tickets = m.ints[WI_TICKETS]
    n_held = _unfinished(b, s, m, me, tickets)
    held_pts = 0
    for i in range(n_held):
        held_pts += b.ticket_points[tickets[i]]
    margin = params[me, P_KEEP_MARGIN]
    owner, route_points = s.route_owner, b.route_points     # record fields read once, not in the loops
    best_a = -1
    best_ratio = -INF
    small_a = -1
    small_cost = INF
    for i in range(n_legal):
        act = legal[i]
        if act < A_KEEP or act >= A_PASSENGER:
            continue
        mask = act - A_KEEP
        n_t = n_held
        pts = held_pts
        for j in range(s.offer_n[me]):
            if mask & (1 << j):
                t = s.offer[me, j]
                tickets[n_t] = t
                n_t += 1
                pts += b.ticket_points[t]
        c, miss = _plan(b, m, cost, tickets, n_t, forest, in_plan)
        value = np.float64(pts)
        for r in range(n_routes):
            if in_plan[r] and owner[r] != me:
                value += route_points[r]
        if miss == 0 and c <= trains - margin:
            ratio = value / max(c, 1.0)
            if ratio > best_ratio:
                best_ratio = ratio
                best_a = act
        size = c + 1000.0 * miss
        if size < small_cost:
            small_cost = size
            small_a = act
    return best_a if best_a >= 0 else small_a


@kernel
def _play_choice(b, s, m, me, phase, cost, legal, n_legal, params):
    n_routes = b.route_len.shape[0]
    trains = s.trains[me]
    in_plan = m.route_numbers[me, PLAN_ROUTES]
    # remembered while its trains and tickets are the same and no route of it is taken (memory.own_plan_valid)
    if not own_plan_valid(b, s, m, me, cost):
        planned = m.flags[WB_PLAN, :n_routes]
        tickets = m.ints[WI_TICKETS]
        n_held = _unfinished(b, s, m, me, tickets)
        _plan(b, m, cost, tickets, n_held, params[me, P_FOREST] != 0, planned)
        for r in range(n_routes):
            in_plan[r] = planned[r]
        store_own_plan(b, s, m, me)
    c = 0.0                             # trains still to lay (own routes cost 0)
    plan_left = False
    for r in range(n_routes):
        if in_plan[r]:
            c += cost[r]
            plan_left |= cost[r] > 0    # on the plan, routes are own (0) or free (> 0)
    if phase == PH_MAIN and c < trains - params[me, P_DRAW_MARGIN]:
        a = ticket_mix_action(b, s, legal, n_legal, np.int64(params[me, P_DRAW_LONG]))
        if a >= 0:
            return a
    route_len = b.route_len
    if phase == PH_MAIN:
        pick = -1
        pick_a = -1
        for r in range(n_routes):
            if cost[r] > 0 and (in_plan[r] != 0 or not plan_left) and (pick < 0 or route_len[r] > route_len[pick]):
                a = pay_action(b, s, me, r)
                if a >= 0:
                    pick = r
                    pick_a = a
        if pick_a >= 0:
            return pick_a
    if not plan_left:
        return fallback_action(legal, n_legal)
    need = m.ints[WI_NEED, :N_COLOURS]
    need[:] = 0
    gray_to = most_held_colour(s, me)
    route_colour = b.route_colour
    for r in range(n_routes):
        if in_plan[r] and cost[r] > 0:
            col = route_colour[r]
            need[gray_to if col == GRAY else col] += route_len[r]
    colour = -1
    most = 0
    for col in range(N_COLOURS):
        short = need[col] - s.hand[me, col]
        if short > most:
            most = short
            colour = col
    return draw_colour_action(s, legal, n_legal, colour, False)
