"""Route costs and shortest paths over the board's graph: the searches every
built-in strategy plans with.

Plain compiled functions (``@kernel``) over the board ``b``, the state ``s``
and small arrays the caller allocates once per decision. They read only what
the acting seat may see (route owners, its own hand, public counts).

Graph model
-----------
Paths run over *nodes* (cities and country border points, ``b.n_nodes``) and
join *locations* (what tickets name: cities and countries). A location's nodes
are ``b.loc_nodes[b.loc_node_start[l]:b.loc_node_start[l + 1]]``; a city has
one node, a country one per border point. Border points are dead ends on the
maps (one neighbour each), so a path never passes through a country, exactly
like ticket completion in :mod:`ttrsim.core.scoring` (R6.4).

Route costs
-----------
A cost array ``cost[r]`` (float64, one per route) drives every search: ``0``
for the seat's own routes, a positive cost for routes it may still claim,
``-1`` for impassable ones (other players' routes, tracks closed by R4.5,
routes it cannot use). :func:`route_cost_for` builds it; callers may edit it
(for instance set planned routes to 0, or forbid a route with -1).
:func:`payable_routes` says which of the routes it may claim its hand pays.

Work arrays
-----------
The searches take their scratch arrays from the caller (allocate once per
decision, reuse for every search):

* ``dist``  float64[n_nodes]  distances (``INF`` unreached)
* ``prev``  int64[n_nodes]    route used to reach each node (-1 for sources)
* ``done``  bool[n_nodes]     settled flags

:func:`new_work` returns the three; :func:`path_work` returns them with a
route list for :func:`path_between` as one :data:`PathWork` record.

>>> from ttrsim.data.rules import get_rules
>>> from ttrsim.core.board import build_board
>>> from ttrsim.core.state import allocate_state
>>> from ttrsim.core.engine import reset_game
>>> b = build_board(get_rules("usa")); s = allocate_state(b, 2); reset_game(b, s, 1)
>>> cost = np.zeros(len(b.route_len)); route_cost_for(b, s, 0, COST_TRAINS, cost)
>>> dist, prev, done = new_work(b)
>>> routes = np.zeros(len(b.route_len), np.int64)
>>> n, c = path_between(b, cost, 0, 1, routes, dist, prev, done)
>>> bool(n > 0 and c == sum(b.route_len[r] for r in routes[:n]))
True
"""
from collections import namedtuple

import numpy as np

from ttrsim.core.engine import largest_colour_group, locks_all_tracks, parallel_closed
from ttrsim.data.ids import GRAY, LOCO
from ttrsim.jit import kernel

INF = 1e18
D_INF = np.int32(1 << 29)     # no path in all_pairs_distances' int32 table (twice it still fits)

# cost modes of route_cost_for
COST_TRAINS = 0         # cost = route length (fewest trains)
COST_ROUTES = 1         # cost = 1 per route (fewest routes)
COST_ROUTES_TRAINS = 2  # 1 + length / 10000: fewest routes, ties broken by fewest trains


@kernel
def new_work(b):
    """The ``(dist, prev, done)`` scratch arrays of the searches, for board ``b``."""
    n = b.n_nodes
    return np.empty(n, np.float64), np.empty(n, np.int64), np.empty(n, np.bool_)


# path_between's work: room for a path (int64[n_routes]) and the search labels
PathWork = namedtuple("PathWork", ("routes", "dist", "prev", "done"))


@kernel
def path_work(b):
    """A :data:`PathWork` record of fresh arrays for board ``b``."""
    dist, prev, done = new_work(b)
    return PathWork(np.empty(b.route_len.shape[0], np.int64), dist, prev, done)


@kernel(inline="always")   # called in loops: numba does not inline calls by itself
def pop_nearest(front, n_front, dist):
    """Remove and return the frontier node with the smallest ``dist`` (the first
    such in frontier order); returns ``(node, its dist, new frontier size)``."""
    bi = 0
    u = front[0]
    best = dist[u]
    for i in range(1, n_front):
        w = front[i]
        d = dist[w]
        if d < best:
            best = d
            bi = i
            u = w
    n_front -= 1
    front[bi] = front[n_front]
    return u, best, n_front


# --- costs ---------------------------------------------------------------------------------------

@kernel
def route_cost_for(b, s, me, cost_mode, cost_out, min_len=1, fit_trains=True):
    """Fill ``cost_out[r]`` for seat ``me``: 0 for its own routes; for routes it
    may claim (free and not closed by a parallel track, R4.5, the rule of
    :func:`ttrsim.core.engine.route_open_to`; at least ``min_len`` long; and, with
    ``fit_trains``, no longer than its trains left) the length
    (``COST_TRAINS``), 1 (``COST_ROUTES``) or 1 + length/10000
    (``COST_ROUTES_TRAINS``); -1 (impassable) for every other route."""
    trains = s.trains[me]
    owner = s.route_owner
    route_len = b.route_len
    parallels = b.route_parallels
    lock_all = locks_all_tracks(b, s)
    for r in range(route_len.shape[0]):
        o = owner[r]
        length = route_len[r]
        if o == me:
            cost_out[r] = 0.0
            continue
        if o >= 0 or length < min_len or (fit_trains and length > trains):
            cost_out[r] = -1.0
            continue
        # a double or triple: R4.5, as route_open_to
        if parallels[r, 0] >= 0 and parallel_closed(owner, parallels, r, me, lock_all):
            cost_out[r] = -1.0
        elif cost_mode == COST_TRAINS:
            cost_out[r] = length
        elif cost_mode == COST_ROUTES:
            cost_out[r] = 1.0
        else:
            cost_out[r] = 1.0 + length * 1e-4


@kernel
def payable_routes(b, s, me, cost, out):
    """``out[r]``: seat ``me`` may claim route ``r`` now, for a ``cost`` of
    :func:`route_cost_for` (positive exactly for the free, open routes that fit
    its trains): only the hand is checked (R4.2-R4.3, a ferry's locomotives R8.2), so this equals
    :func:`ttrsim.core.engine.claimable_routes` at a fraction of its work.
    Returns how many."""
    route_len, route_colour, ferry, hand = b.route_len, b.route_colour, b.route_ferry, s.hand
    locos = np.int64(hand[me, LOCO])
    most = largest_colour_group(s, me)
    n = 0
    row = hand[me]
    for r in range(route_len.shape[0]):
        col = route_colour[r]
        can = most if col == GRAY else np.int64(row[col])
        # the three tests combined without a branch each (most free routes are not payable: often mispredicted)
        ok = (cost[r] > 0) & (can + locos >= route_len[r]) & (ferry[r] <= locos)
        out[r] = ok
        n += ok
    return n


# --- shortest paths ------------------------------------------------------------------------------

@kernel
def _dijkstra_core(b, cost, dist, prev, done, stop_loc, limit, front, n_front):
    """Dijkstra from the labels in ``dist`` (finite = source or upper bound)
    whose unsettled reached nodes are ``front[:n_front]`` (in increasing
    node order: ties go to the first in frontier order); ``front`` has room
    for every node. Stops at the first settled node of ``stop_loc`` (>= 0),
    or when the nearest unsettled node is at ``limit`` or farther (returns
    -1 then). Only the frontier is scanned for the minimum."""
    nrs = b.node_route_start
    nr = b.node_routes
    ra = b.route_a
    rb = b.route_b
    loc_nodes = b.loc_nodes
    s_lo = 0
    s_hi = 0
    if stop_loc >= 0:
        s_lo = b.loc_node_start[stop_loc]
        s_hi = b.loc_node_start[stop_loc + 1]
    while n_front > 0:
        u, du, n_front = pop_nearest(front, n_front, dist)
        if du >= limit:
            return -1
        done[u] = True
        for i in range(s_lo, s_hi):
            if loc_nodes[i] == u:
                return u
        for j in range(nrs[u], nrs[u + 1]):
            r = nr[j]
            c = cost[r]
            if c < 0:
                continue
            v = ra[r] ^ rb[r] ^ u               # the other end, without a branch
            nd = du + c                         # (never below a settled node's label: costs are >= 0)
            if nd < dist[v]:
                if dist[v] >= INF:
                    front[n_front] = v
                    n_front += 1
                dist[v] = nd
                prev[v] = r
    return -1


@kernel
def dijkstra_run(b, cost, dist, prev, done, stop_loc):
    """Dijkstra over the node graph from the sources already set up by the
    caller (``dist`` 0 for sources and ``INF`` elsewhere, ``prev`` -1,
    ``done`` False). Routes with ``cost < 0`` are impassable. With
    ``stop_loc >= 0`` it stops as soon as a node of that location is settled
    and returns that node; otherwise (or if none is reachable) returns -1 after
    settling everything reachable."""
    n = b.n_nodes
    front = np.empty(n, np.int64)
    n_front = 0
    for v in range(n):
        if dist[v] < INF and not done[v]:
            front[n_front] = v
            n_front += 1
    return _dijkstra_core(b, cost, dist, prev, done, stop_loc, INF, front, n_front)


@kernel
def _init_search(b, dist, prev, done):
    dist[:] = INF
    prev[:] = -1
    done[:] = False


@kernel
def _seed_location(b, loc, dist, front):
    """Make location ``loc``'s nodes the sources (after :func:`_init_search`):
    they are the frontier ``front[:n]`` (in increasing node order, as the
    board lists them); returns ``n``."""
    start, nodes = b.loc_node_start, b.loc_nodes
    n = 0
    for i in range(start[loc], start[loc + 1]):
        dist[nodes[i]] = 0.0
        front[n] = nodes[i]
        n += 1
    return n


@kernel
def _search_from(b, cost, loc_a, loc_b, limit, dist, prev, done, front):
    """A search from location ``loc_a`` that stops at ``loc_b`` or ``limit``
    (:func:`_dijkstra_core`), its frontier in ``front``."""
    _init_search(b, dist, prev, done)
    n_front = _seed_location(b, loc_a, dist, front)
    return _dijkstra_core(b, cost, dist, prev, done, loc_b, limit, front, n_front)


@kernel
def dijkstra_from_location(b, cost, loc, dist_out, prev_route_out, done=None):
    """Shortest paths from every node of location ``loc`` (all border points of
    a country are sources) to every node: ``dist_out[v]`` the cost (``INF``
    unreachable), ``prev_route_out[v]`` the route used to reach ``v`` (-1 for
    sources and unreached nodes). ``done`` is optional scratch (bool[n_nodes])."""
    if done is None:
        work = np.empty(b.n_nodes, np.bool_)
    else:
        work = done
    _search_from(b, cost, loc, -1, INF, dist_out, prev_route_out, work, np.empty(b.n_nodes, np.int64))


@kernel
def other_end(b, r, v):
    """The endpoint node of route ``r`` that is not node ``v``."""
    return b.route_b[r] if b.route_a[r] == v else b.route_a[r]


@kernel
def path_between(b, cost, loc_a, loc_b, routes_out, dist, prev, done):
    """A cheapest path between locations ``loc_a`` and ``loc_b`` (any border
    point of a country will do). Writes its routes into ``routes_out`` in order
    from the ``loc_a`` end to the ``loc_b`` end and returns
    ``(n_routes, total_cost)``; ``(-1, INF)`` when unreachable, ``(0, 0.0)`` when
    ``loc_a == loc_b``. Own routes (cost 0) are part of the path too."""
    if loc_a == loc_b:
        return 0, 0.0
    # the frontier lives in routes_out until the path is written (no allocation), if it has room
    front = routes_out if routes_out.shape[0] >= b.n_nodes else np.empty(b.n_nodes, np.int64)
    v = _search_from(b, cost, loc_a, loc_b, INF, dist, prev, done, front)
    if v < 0:
        return -1, INF
    total = dist[v]
    ra, rb = b.route_a, b.route_b
    n = 0
    while prev[v] >= 0:
        r = prev[v]
        routes_out[n] = r
        n += 1
        v = rb[r] if ra[r] == v else ra[r]
    for i in range(n // 2):          # backtracking gave loc_b -> loc_a
        t = routes_out[i]
        routes_out[i] = routes_out[n - 1 - i]
        routes_out[n - 1 - i] = t
    return n, total


@kernel
def path_end_within(b, cost, loc_a, loc_b, limit, dist, prev, done, front=None):
    """A cheapest path from location ``loc_a`` to ``loc_b`` if it costs less
    than ``limit``: returns the node of ``loc_b`` it ends at (its cost is
    ``dist`` there, its routes are found by ``prev`` back to ``loc_a``), or -1
    (the search stops at ``limit``: cheaper than :func:`path_between` when only
    near paths matter). ``loc_a`` and ``loc_b`` differ. ``front``
    (int64[n_nodes]) is optional work."""
    if front is None:
        front = np.empty(b.n_nodes, np.int64)
    return _search_from(b, cost, loc_a, loc_b, limit, dist, prev, done, front)


@kernel
def all_pairs_distances(b, cost, D):
    """``D[u, v]`` (``int32``): the cheapest path between nodes ``u`` and
    ``v`` over ``cost`` (whole train counts, :data:`COST_TRAINS`; negative =
    impassable), :data:`D_INF` if none (Floyd-Warshall; cheap on maps of a
    few dozen nodes). Whole numbers in 32 bits: the relaxation handles 8 at
    a time where 64-bit floats went 4, and the sums are the same."""
    n = b.n_nodes
    for i in range(n):
        for j in range(n):
            D[i, j] = D_INF
        D[i, i] = 0
    for r in range(cost.shape[0]):
        c = cost[r]
        if c >= 0:
            u = b.route_a[r]
            v = b.route_b[r]
            if c < D[u, v]:
                D[u, v] = np.int32(c)
                D[v, u] = np.int32(c)
    # k's row is copied first (it does not change in round k: D[k, k] = 0), so the compiler sees that the row
    # it reads is not the row it writes and vectorises the inner loop: 2.5-3x faster than relaxing each pair
    # once by hand, the same distances (sums of whole train counts are exact, in any order; D_INF + D_INF fits)
    row = np.empty(n, np.int32)
    for k in range(n):
        for j in range(n):
            row[j] = D[k, j]
        for i in range(n):
            dik = row[i]                # = D[i, k]: D stays symmetric (routes run both ways)
            if dik >= D_INF or i == k:
                continue
            for j in range(n):
                D[i, j] = min(D[i, j], np.int32(dik + row[j]))


@kernel
def location_distance(b, D, loc_a, loc_b):
    """The cheapest entry of ``D`` (:func:`all_pairs_distances`) between any
    node of location ``loc_a`` and any node of ``loc_b``, :data:`INF` if none."""
    d = D_INF
    for i in range(b.loc_node_start[loc_a], b.loc_node_start[loc_a + 1]):
        for j in range(b.loc_node_start[loc_b], b.loc_node_start[loc_b + 1]):
            d = min(d, D[b.loc_nodes[i], b.loc_nodes[j]])
    return INF if d >= D_INF else float(d)


@kernel
def distance_to_routes(b, cost, in_set, dist, prev, done):
    """``dist[v]``: the cheapest path over ``cost`` from node ``v`` to an end of
    any route with ``in_set[r]``; returns False (and INF everywhere) when the
    set is empty."""
    _init_search(b, dist, prev, done)
    any_route = False
    for r in range(in_set.shape[0]):
        if in_set[r]:
            dist[b.route_a[r]] = 0.0
            dist[b.route_b[r]] = 0.0
            any_route = True
    if any_route:
        dijkstra_run(b, cost, dist, prev, done, -1)
    return any_route


@kernel
def location_to_routes(b, dist, loc):
    """The nearest node of location ``loc`` in ``dist`` (:func:`distance_to_routes`)."""
    d = INF
    for i in range(b.loc_node_start[loc], b.loc_node_start[loc + 1]):
        d = min(d, dist[b.loc_nodes[i]])
    return d
