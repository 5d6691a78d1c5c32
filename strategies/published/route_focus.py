"""``route_focus``: the Route Focus agent of de Mesentier Silva et al.
(FDG 2017), as defined in issue 3.

* Tickets: keeps every ticket at setup; on later draws keeps the minimum,
  choosing the tickets whose fewest-routes paths are shortest (unreachable
  ones last, then more points).
* Main phase: for each unfinished ticket it takes the path with the fewest
  routes (ties: fewest trains; own routes free, other players' routes and
  closed tracks impassable, routes longer than its trains left excluded).
  Each free route scores its route points + ``ticket_weight`` (2) x the points
  of every ticket whose path uses it. It claims the best-scoring route it can
  pay, otherwise draws that route's colour (gray: the colour it holds most of),
  face-up if shown, else blind.
* Second card: the same target colour; blind otherwise.
* Germany: ``setup_long`` / ``draw_long`` tickets from the long pile; a
  passenger in the colour it holds most of.
* Claims pay with the fewest locomotives, a gray route in the colour held most.

Interpretations: while some ticket path exists only routes on a ticket path
are candidates (``path_only`` = 1; 0 lets any payable route compete on
route points); with no reachable unfinished ticket every free route is a
candidate (by route points) and it draws tickets if every player has at least
``draw_min_trains`` trains (the definition keeps "the minimum on later draws"
but does not say when it draws). Ties go to the lowest route id.
"""
import numpy as np

from ttrsim.core.state import M_NPLAYERS, PH_KEEP, PH_MAIN
from ttrsim.jit import kernel

from ..kit.action_picks import draw_colour_action, fallback_action, pay_action, route_draw_colour, ticket_mix_action
from ..kit.connectivity import own_components, unfinished_tickets
from ..kit.graph_search import COST_ROUTES_TRAINS, path_between, path_work
from ..kit.memory import FREE_NUMBER, PLAN_ROUTES, own_plan_valid, seat_costs, store_own_plan
from ..spec import BOOL, LONG_TICKETS, WEIGHT, WHOLE_TRAINS, Param, StrategySpec
from .shared import PUBLISHED_NOTE, agent_choose, keep_cheapest_minimum

SPEC = StrategySpec(
    "route_focus",
    "de Mesentier Silva et al. (FDG 2017) Route Focus: scores routes by the fewest-routes paths of its "
    "tickets and claims or collects for the best one" + PUBLISHED_NOTE,
    lists_claims=False,
    params=(
        Param("ticket_weight", 2, "a route on a ticket's path scores route points + this x the ticket's points",
              *WEIGHT),
        Param("path_only", 1, "1: while a ticket path exists only its routes are claimed; 0: any route competes",
              *BOOL),
        Param("draw_min_trains", 8, "with no reachable unfinished ticket it draws tickets while every player "
                                    "has at least this many trains (above 45: never)", *WHOLE_TRAINS),
        Param("setup_long", 1, "Germany: setup tickets taken from the long pile (the rest short)", *LONG_TICKETS),
        Param("draw_long", 0, "Germany: tickets taken from the long pile on an in-play ticket draw", *LONG_TICKETS),
    ),
)
P_TICKET_WEIGHT = SPEC.index("ticket_weight")
P_PATH_ONLY = SPEC.index("path_only")
P_DRAW_MIN_TRAINS = SPEC.index("draw_min_trains")
P_SETUP_LONG = SPEC.index("setup_long")
P_DRAW_LONG = SPEC.index("draw_long")
N_PATHS = FREE_NUMBER             # memory: the number of ticket paths found


@kernel
def choose(b, s, m, legal, n_legal, params):
    return agent_choose(b, s, m, legal, n_legal, params, _decide, P_SETUP_LONG, True)


@kernel
def _path_points(b, s, m, me, cost, w):
    """Into ``me``'s memory: per free route the summed points of the unfinished
    tickets whose fewest-routes path uses it, and the number of such paths. ``w``
    (:data:`~ttrsim.strategies.kit.graph_search.PathWork`) holds the work arrays."""
    routes, dist, prev, done = w
    n_nodes = b.n_nodes
    points = m.route_numbers[me, PLAN_ROUTES]
    points[:] = 0
    parent = np.empty(n_nodes, np.int64)
    tickets = np.empty(b.ticket_a.shape[0], np.int64)
    own_components(b, s, me, parent)
    n_t = unfinished_tickets(b, s, me, parent, tickets)
    n_paths = 0
    for i in range(n_t):
        t = tickets[i]
        n, _ = path_between(b, cost, b.ticket_a[t], b.ticket_b[t], routes, dist, prev, done)
        if n < 0:
            continue
        n_paths += 1
        for j in range(n):
            r = routes[j]
            if s.route_owner[r] < 0:
                points[r] += b.ticket_points[t]
    m.numbers[me, N_PATHS] = n_paths


@kernel
def _decide(b, s, m, me, phase, legal, n_legal, params):
    n_routes = b.route_len.shape[0]
    cost = seat_costs(b, s, m, me, COST_ROUTES_TRAINS)
    if phase == PH_KEEP:
        return keep_cheapest_minimum(b, s, me, cost, legal, n_legal, path_work(b))

    # ticket points on each route's paths: remembered while its trains and tickets are the same
    # and no free route of the paths is taken (memory.own_plan_valid)
    if not own_plan_valid(b, s, m, me, cost):
        _path_points(b, s, m, me, cost, path_work(b))
        store_own_plan(b, s, m, me)
    n_paths = m.numbers[me, N_PATHS]
    weight = params[me, P_TICKET_WEIGHT]
    points = m.route_numbers[me, PLAN_ROUTES]
    if phase == PH_MAIN and n_paths == 0:
        enough = True
        lim = params[me, P_DRAW_MIN_TRAINS]
        for q in range(s.meta[M_NPLAYERS]):
            if s.trains[q] < lim:
                enough = False
        if enough:
            a = ticket_mix_action(b, s, legal, n_legal, np.int64(params[me, P_DRAW_LONG]))
            if a >= 0:
                return a
    path_only = params[me, P_PATH_ONLY] != 0 and n_paths > 0
    main = phase == PH_MAIN
    pay_r = -1
    pay_a = -1
    pay_score = -1.0
    tgt_r = -1
    tgt_score = -1.0
    route_points = b.route_points
    for r in range(n_routes):
        if cost[r] <= 0:
            continue                            # own or not claimable
        bonus = weight * points[r]
        if path_only and bonus <= 0:
            continue
        score = route_points[r] + bonus
        if score > tgt_score:
            tgt_score = score
            tgt_r = r
        if main and score > pay_score:
            a = pay_action(b, s, me, r)
            if a >= 0:
                pay_score = score
                pay_r = r
                pay_a = a
    if pay_r >= 0:
        return pay_a
    if tgt_r < 0:
        return fallback_action(legal, n_legal)
    return draw_colour_action(s, legal, n_legal, route_draw_colour(b, s, me, tgt_r), False)
