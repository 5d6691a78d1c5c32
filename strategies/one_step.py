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
from numba import njit

from ttrsim.core.state import M_NPLAYERS, M_PHASE, M_PLAYER, PH_KEEP, PH_MAIN, SMEM_EXTRA

from .paths import (COST_TRAINS, SM_VALUE, draw_colour_action, fallback_action, keep_cheapest_minimum,
                              legal_or_fallback, own_components, own_key, path_between, pay_action, plan_open,
                              recall_key, route_cost_for, route_draw_colour, routine_action, store_key,
                              ticket_mix_action, unfinished_tickets)
from .spec import Param, StrategySpec

SPEC = StrategySpec(
    "one_step",
    "de Mesentier Silva et al. (FDG 2017) One Step Thinker: works route by route along the cheapest path of "
    "its most valuable unfinished ticket",
    lists_claims=False,
    params=(
        Param("draw_min_trains", 8, "with no reachable unfinished ticket it draws tickets while every player has "
                                    "at least this many trains"),
        Param("setup_long", 1, "Germany: setup tickets taken from the long pile (the rest short)"),
        Param("draw_long", 0, "Germany: tickets taken from the long pile on an in-play ticket draw"),
    ),
)
P_DRAW_MIN, P_SETUP_LONG, P_DRAW_LONG = range(3)


@njit(cache=True)
def choose(b, s, legal, n_legal, params):
    me = s.meta[M_PLAYER]
    phase = s.meta[M_PHASE]
    handled, a = routine_action(b, s, me, phase, legal, n_legal, np.int64(params[me, P_SETUP_LONG]), True)
    if not handled:
        a = _decide(b, s, me, phase, legal, n_legal, params)
    return legal_or_fallback(b, s, a, legal, n_legal)


@njit(cache=True)
def _target(b, s, me, cost, routes, dist, prev, done):
    """The next free route on the cheapest path of the most valuable reachable
    unfinished ticket; -1 if none. The routes of that path are flagged in the
    seat's memory (for :func:`ttrsim.strategies.paths.plan_open`)."""
    parent = np.empty(b.n_nodes, np.int64)
    tickets = np.empty(b.ticket_a.shape[0], np.int64)
    tried = np.zeros(b.ticket_a.shape[0], np.bool_)
    for r in range(b.route_len.shape[0]):
        s.smem[me, SMEM_EXTRA + r] = 0
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
                s.smem[me, SMEM_EXTRA + routes[j]] = 1
            break
    return target


@njit(cache=True)
def _decide(b, s, me, phase, legal, n_legal, params):
    n_routes = b.route_len.shape[0]
    n_nodes = b.n_nodes
    cost = np.empty(n_routes, np.float64)
    route_cost_for(b, s, me, COST_TRAINS, cost)
    dist = np.empty(n_nodes, np.float64)
    prev = np.empty(n_nodes, np.int64)
    done = np.empty(n_nodes, np.bool_)
    routes = np.empty(n_routes, np.int64)

    if phase == PH_KEEP:
        return keep_cheapest_minimum(b, s, me, cost, legal, n_legal, routes, dist, prev, done)

    # remembered while its trains and tickets are the same and no route of the path is taken
    # (paths.plan_open; with no target, every unfinished ticket was out of reach and stays so)
    key = own_key(b, s, me)
    if not (recall_key(s, me, key) and plan_open(cost, s.smem[me, SMEM_EXTRA:SMEM_EXTRA + n_routes])):
        s.smem[me, SM_VALUE] = _target(b, s, me, cost, routes, dist, prev, done)
        store_key(s, me, key)
    target = s.smem[me, SM_VALUE]
    main = phase == PH_MAIN
    if target >= 0:
        if main:
            a = pay_action(b, s, me, target)
            if a >= 0:
                return a
        return draw_colour_action(s, legal, n_legal, route_draw_colour(b, s, me, target), main)
    if main:
        enough = True
        lim = params[me, P_DRAW_MIN]
        for q in range(s.meta[M_NPLAYERS]):
            if s.trains[q] < lim:
                enough = False
        if enough:
            a = ticket_mix_action(b, s, legal, n_legal, np.int64(params[me, P_DRAW_LONG]))
            if a >= 0:
                return a
        pick_a = -1
        pick_len = 0
        for r in range(n_routes):
            if cost[r] > 0 and b.route_len[r] > pick_len:
                a = pay_action(b, s, me, r)
                if a >= 0:
                    pick_a = a
                    pick_len = b.route_len[r]
        if pick_a >= 0:
            return pick_a
    return fallback_action(legal, n_legal)
