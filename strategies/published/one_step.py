"""``one_step``: the One Step Thinker agent of de Mesentier Silva et al.
(FDG 2017), as defined in issue 3.

* Tickets: keeps every ticket at setup; on later draws keeps the minimum,
  choosing the tickets with the cheapest paths (unreachable ones last, then
  more points).
* Target: its most valuable unfinished ticket that a path can still reach
  (ties: the lower ticket id); on that ticket's cheapest path (cost = trains;
  own routes free, other players' routes and closed tracks impassable, routes
  longer than its trains left excluded) the next free route, walking from the
  ticket's first city.
* Main phase: it claims the target paying with the colour it holds most of
  (fewest locomotives; for a coloured route the route's colour), otherwise
  draws that colour face up, else a face-up locomotive, else blind. With no
  reachable unfinished ticket it draws tickets while every player has at least
  ``draw_min_trains`` (8) trains, otherwise claims the longest route it can pay
  (else blind).
* Second card: the target colour face up, else blind.
* Germany: ``setup_long`` / ``draw_long`` tickets from the long pile; a
  passenger in the colour it holds most of.
"""
import numpy as np

from ttrsim.core.state import M_NPLAYERS, PH_KEEP, PH_MAIN
from ttrsim.jit import kernel

from ..kit.action_picks import draw_colour_action, fallback_action, pay_action, route_draw_colour, ticket_mix_action
from ..kit.connectivity import own_components, unfinished_tickets
from ..kit.graph_search import COST_TRAINS, path_between, path_work
from ..kit.memory import FREE_NUMBER, PLAN_ROUTES, own_plan_valid, seat_costs, store_own_plan
from ..spec import LONG_TICKETS, WHOLE_TRAINS, Param, StrategySpec
from .shared import PUBLISHED_NOTE, agent_choose, keep_cheapest_minimum

SPEC = StrategySpec(
    "one_step",
    "de Mesentier Silva et al. (FDG 2017) One Step Thinker: works route by route along the cheapest path of "
    "its most valuable unfinished ticket" + PUBLISHED_NOTE,
    lists_claims=False,
    params=(
        Param("draw_min_trains", 8, "with no reachable unfinished ticket it draws tickets while every player has "
                                    "at least this many trains", *WHOLE_TRAINS),
        Param("setup_long", 1, "Germany: setup tickets taken from the long pile (the rest short)", *LONG_TICKETS),
        Param("draw_long", 0, "Germany: tickets taken from the long pile on an in-play ticket draw", *LONG_TICKETS),
    ),
)
P_DRAW_MIN_TRAINS = SPEC.index("draw_min_trains")
P_SETUP_LONG = SPEC.index("setup_long")
P_DRAW_LONG = SPEC.index("draw_long")
TARGET = FREE_NUMBER              # memory: the target route (-1 none)


@kernel
def choose(b, s, m, legal, n_legal, params):
    return agent_choose(b, s, m, legal, n_legal, params, _decide, P_SETUP_LONG, True)


@kernel
def _target(b, s, m, me, cost, w):
    """The next free route on the cheapest path of the most valuable reachable
    unfinished ticket; -1 if none. The routes of that path are flagged in the
    seat's memory (for :func:`ttrsim.strategies.kit.memory.plan_open`). ``w``
    (:data:`~ttrsim.strategies.kit.graph_search.PathWork`) holds the work arrays."""
    routes, dist, prev, done = w
    parent = np.empty(b.n_nodes, np.int64)
    tickets = np.empty(b.ticket_a.shape[0], np.int64)
    tried = np.zeros(b.ticket_a.shape[0], np.bool_)
    on_path = m.route_numbers[me, PLAN_ROUTES]
    on_path[:] = 0
    own_components(b, s, me, parent)
    n_t = unfinished_tickets(b, s, me, parent, tickets)
    target = -1
    for _ in range(n_t):
        pick = -1
        for i in range(n_t):                     # the most valuable ticket not tried yet
            if not tried[i] and (pick < 0 or b.ticket_points[tickets[i]] > b.ticket_points[tickets[pick]]):
                pick = i
        tried[pick] = True
        t = tickets[pick]
        n, _ = path_between(b, cost, b.ticket_a[t], b.ticket_b[t], routes, dist, prev, done)
        if n < 0:
            continue
        for j in range(n):
            if s.route_owner[routes[j]] < 0:
                target = routes[j]
                break
        if target >= 0:
            for j in range(n):
                on_path[routes[j]] = 1
            break
    return target


@kernel
def _decide(b, s, m, me, phase, legal, n_legal, params):
    n_routes = b.route_len.shape[0]
    cost = seat_costs(b, s, m, me, COST_TRAINS)
    if phase == PH_KEEP:
        return keep_cheapest_minimum(b, s, me, cost, legal, n_legal, path_work(b))

    # remembered while its trains and tickets are the same and no route of the path is taken
    # (memory.own_plan_valid; with no target, every unfinished ticket was out of reach and stays so)
    if not own_plan_valid(b, s, m, me, cost):
        m.numbers[me, TARGET] = _target(b, s, m, me, cost, path_work(b))
        store_own_plan(b, s, m, me)
    target = m.numbers[me, TARGET]
    main = phase == PH_MAIN
    if target >= 0:
        if main:
            a = pay_action(b, s, me, target)
            if a >= 0:
                return a
        return draw_colour_action(s, legal, n_legal, route_draw_colour(b, s, me, target), main)
    if main:
        enough = True
        lim = params[me, P_DRAW_MIN_TRAINS]
        for q in range(s.meta[M_NPLAYERS]):
            if s.trains[q] < lim:
                enough = False
        if enough:
            a = ticket_mix_action(b, s, legal, n_legal, np.int64(params[me, P_DRAW_LONG]))
            if a >= 0:
                return a
        pick_a = -1
        pick_len = 0
        route_len = b.route_len
        for r in range(n_routes):
            if cost[r] > 0 and route_len[r] > pick_len:
                a = pay_action(b, s, me, r)
                if a >= 0:
                    pick_a = a
                    pick_len = route_len[r]
        if pick_a >= 0:
            return pick_a
    return fallback_action(legal, n_legal)
