"""Network plans: a cheap network joining locations (the shortest-path
heuristic for Steiner trees, :func:`plan_network`) or serving tickets one by
one (a Steiner forest, :func:`plan_tickets`), over the route costs and
searches of :mod:`ttrsim.strategies.kit.graph_search`. Both take their
work arrays as one :data:`NetworkWork` record (:func:`network_work` allocates
one).

>>> from ttrsim.data.rules import get_rules
>>> from ttrsim.core.board import build_board
>>> from ttrsim.core.state import allocate_state
>>> from ttrsim.core.engine import reset_game
>>> from ttrsim.strategies.kit.graph_search import COST_TRAINS, route_cost_for
>>> b = build_board(get_rules("usa")); s = allocate_state(b, 2); reset_game(b, s, 1)
>>> cost = np.zeros(len(b.route_len)); route_cost_for(b, s, 0, COST_TRAINS, cost)
>>> in_plan = np.zeros(len(b.route_len), np.bool_)
>>> total, unjoined = plan_network(b, cost, np.array([0, 1, 2]), 3, in_plan, network_work(b))
>>> unjoined, bool(total == sum(cost[in_plan]))
(0, True)
"""
from collections import namedtuple

import numpy as np

from ttrsim.jit import kernel

from .graph_search import INF, new_work, path_between, pop_nearest

# the work arrays of plan_network and plan_tickets: the searches' labels
# (dist, prev, done: graph_search's work arrays), plan_network's frontier,
# node -> location index and network flags (int64, int64, bool [n_nodes]),
# plan_tickets' path (int64[n_routes]) and route costs (float64[n_routes])
NetworkWork = namedtuple("NetworkWork", ("dist", "prev", "done", "front", "term", "in_tree", "routes", "cost_work"))


@kernel
def network_work(b):
    """A :data:`NetworkWork` record of fresh arrays for board ``b``."""
    n, n_routes = b.n_nodes, b.route_len.shape[0]
    dist, prev, done = new_work(b)
    return NetworkWork(dist, prev, done, np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.bool_),
                       np.empty(n_routes, np.int64), np.empty(n_routes, np.float64))


@kernel
def _restart_from_tree(n_nodes, in_tree, dist, prev, done, front):
    """Search labels for growing a network: 0 on the network's nodes (the
    frontier, returned as its size), ``INF`` elsewhere, nothing settled."""
    n_front = 0
    for v in range(n_nodes):
        prev[v] = -1
        done[v] = False
        if in_tree[v]:
            dist[v] = 0.0
            front[n_front] = v
            n_front += 1
        else:
            dist[v] = INF
    return n_front


@kernel
def plan_network(b, cost, locs, n_locs, in_plan_out, w):
    """Join the locations ``locs[:n_locs]`` into one network, approximately
    minimising its cost (the shortest-path heuristic for Steiner trees):
    start from one location, then repeatedly add the cheapest path from the
    current network to the nearest location not yet joined. Routes of cost 0
    (own routes) are free. Marks ``in_plan_out[r] = True`` for every route of
    the network (own routes included; ``in_plan_out`` is cleared first).

    The start is the first city in ``locs`` (a country joins the network at the
    one border point its path reaches); if all are countries, the first one's
    border points all start, and the ones not used are dropped again after the
    first join. Locations no path reaches are skipped.

    Returns ``(total_cost, n_unjoined)``: the summed cost of the network's
    routes and how many of the distinct locations could not be joined.
    ``w`` (:data:`NetworkWork`) holds the work arrays (``routes`` and
    ``cost_work`` unused)."""
    n_nodes = b.n_nodes
    start, nodes = b.loc_node_start, b.loc_nodes
    nrs, nr, ra, rb = b.node_route_start, b.node_routes, b.route_a, b.route_b
    dist, prev, done, front, term, in_tree = w.dist, w.prev, w.done, w.front, w.term, w.in_tree
    for v in range(n_nodes):
        in_tree[v] = False
        term[v] = -1                            # node -> index in locs of its location, -1 none
    for r in range(in_plan_out.shape[0]):
        in_plan_out[r] = False
    n_distinct = 0
    for i in range(n_locs):
        loc = locs[i]
        first = start[loc]
        if term[nodes[first]] >= 0:       # duplicate location
            continue
        n_distinct += 1
        for k in range(first, start[loc + 1]):
            term[nodes[k]] = i
    if n_distinct == 0:
        return 0.0, 0
    root = -1
    for i in range(n_locs):
        loc = locs[i]
        if start[loc + 1] - start[loc] == 1:
            root = i
            break
    virtual_root = root < 0
    if virtual_root:
        root = 0
    root_loc = locs[root]
    for k in range(start[root_loc], start[root_loc + 1]):
        in_tree[nodes[k]] = True
    # mark the root location joined
    for k in range(start[root_loc], start[root_loc + 1]):
        term[nodes[k]] = -1
    joined = 1
    total = 0.0
    # One label-correcting search carried across the joins: after a path joins
    # the network its nodes drop to 0 and every label they improve is reopened,
    # so each join settles only what the new path changes (instead of a fresh
    # Dijkstra per join). Labels stay exact for every settled node.
    n_front = _restart_from_tree(n_nodes, in_tree, dist, prev, done, front)
    while joined < n_distinct:
        found = -1
        while n_front > 0:
            u, du, n_front = pop_nearest(front, n_front, dist)
            done[u] = True
            if term[u] >= 0:
                found = u
                break
            for j in range(nrs[u], nrs[u + 1]):
                r = nr[j]
                c = cost[r]
                if c < 0:
                    continue
                v = ra[r] ^ rb[r] ^ u           # the other end, without a branch
                nd = du + c
                if nd < dist[v]:
                    if dist[v] >= INF or done[v]:
                        done[v] = False
                        front[n_front] = v
                        n_front += 1
                    dist[v] = nd
                    prev[v] = r
        if found < 0:
            break                               # the rest is unreachable
        total += dist[found]
        loc = locs[term[found]]                 # joined: its nodes are no longer terminals
        for k in range(start[loc], start[loc + 1]):
            term[nodes[k]] = -1
        joined += 1
        v = found
        while not in_tree[v]:                   # the path joins the network at label 0
            in_tree[v] = True
            r = prev[v]
            in_plan_out[r] = True
            dist[v] = 0.0
            prev[v] = -1
            if done[v]:
                done[v] = False
                front[n_front] = v
                n_front += 1
            v = rb[r] if ra[r] == v else ra[r]
        if virtual_root:                        # keep only the border point actually used; restart
            for k in range(start[root_loc], start[root_loc + 1]):
                if nodes[k] != v:
                    in_tree[nodes[k]] = False
            virtual_root = False
            n_front = _restart_from_tree(n_nodes, in_tree, dist, prev, done, front)
    return total, n_distinct - joined


@kernel
def plan_tickets(b, cost, ta, tb, n, in_plan_out, w):
    """A network serving each ticket ``(ta[i], tb[i])``, i < n, on its own
    (a Steiner *forest* heuristic): tickets in the given order, each adds its
    cheapest path with the routes already planned counted free. Marks
    ``in_plan_out`` (cleared first; own routes included) and returns
    ``(total_cost, n_unreachable)``. ``cost`` is not modified; ``w``
    (:data:`NetworkWork`) holds the work arrays (``front``, ``term`` and
    ``in_tree`` unused)."""
    cost_work = w.cost_work
    for r in range(in_plan_out.shape[0]):
        in_plan_out[r] = False
        cost_work[r] = cost[r]
    return extend_forest(b, cost_work, ta, tb, 0, n, in_plan_out, w, 0.0, 0)


@kernel(inline="always")   # (no call: the work record is not counted again)
def extend_forest(b, cost_work, ta, tb, lo, hi, in_plan_out, w, total, missed):
    """:func:`plan_tickets` from ticket ``lo`` on, to ``hi``: the network
    ``in_plan_out`` of the tickets before ``lo``, of cost ``total`` with
    ``missed`` unreachable, and ``cost_work`` the costs with its routes 0;
    returns the new ``(total, missed)``. A caller planning ticket lists that
    share their first tickets keeps this state and goes on from it."""
    routes_work, dist, prev, done = w.routes, w.dist, w.prev, w.done
    for i in range(lo, hi):
        k, _ = path_between(b, cost_work, ta[i], tb[i], routes_work, dist, prev, done)
        if k < 0:
            missed += 1
            continue
        for j in range(k):
            r = routes_work[j]
            if not in_plan_out[r]:
                in_plan_out[r] = True
                total += cost_work[r]
                cost_work[r] = 0.0
    return total, missed
