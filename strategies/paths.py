"""Shared compiled kernels for strategies: route costs, shortest paths,
network plans, ticket status, and small action helpers.

Everything here is a plain ``@njit(cache=True)`` function over the board ``b``,
the state ``s`` and small arrays the caller allocates once per decision.
Kernels read only what the acting seat may see (route owners, its own hand and
tickets, the face-up row, public counts); none touches the deck, another
seat's hand or tickets, or the game's random stream.

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

Work arrays
-----------
The searches take their scratch arrays from the caller (allocate once per
decision, reuse for every search):

* ``dist``  float64[n_nodes]  distances (``INF`` unreached)
* ``prev``  int64[n_nodes]    route used to reach each node (-1 for sources)
* ``done``  bool[n_nodes]     settled flags

:func:`new_work` returns the three.

API
---
Costs and searches:
  ``route_cost_for(b, s, me, cost_mode, cost_out, min_len=1, fit_trains=True)``;
  ``dijkstra_from_location(b, cost, loc, dist_out, prev_route_out, done=None)``;
  ``dijkstra_run`` (from caller-set sources, optional early stop);
  ``path_between(b, cost, loc_a, loc_b, routes_out, dist, prev, done) -> (n, cost)``;
  ``path_end_within`` (the same path, searching only below a limit);
  ``passable_components`` / ``locations_connected`` (reachability by union-find).
Plans:
  ``plan_network(b, cost, locs, n_locs, in_plan_out, dist, prev, done) -> (cost, n_unjoined)``
  (one network, shortest-path Steiner heuristic);
  ``plan_tickets(...) -> (cost, n_unreachable)`` (one path per ticket, a forest).
Tickets: ``own_components``, ``ticket_joined``, ``ticket_done``, ``unfinished_tickets``.
Plan memory (``GameState.smem``): ``plan_key``, ``own_key``, ``plan_open``, ``recall_key``/``store_key``,
``recall_plan``/``remember_plan``.
Actions (legal-list helpers; every result is a legal action or -1):
  ``pay_action`` (the payment with the fewest locomotives, from the hand), ``draw_colour_action``, ``faceup_action``,
  ``ticket_mix_action`` (Germany short/long mix), ``passenger_action``,
  ``keep_all_action``, ``min_keep_count``, ``fallback_action``, ``has_action``.

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
import numpy as np
from numba import njit

from ttrsim.core.actions import A_BLIND, A_CLAIM, A_FACEUP, A_KEEP, A_PASSENGER, A_TICKETS, PAY_LOCOS_ONLY, encode_claim
from ttrsim.core.board import RP_DRAW_N, RP_N_DECKS, RP_SETUP_DEAL
from ttrsim.core.engine import is_legal, largest_colour_group, locks_all_tracks, parallel_closed, popcount
from ttrsim.data.ids import GRAY, LOCO, N_COLOURS
from ttrsim.core.scoring import locations_joined, player_components, uf_find
from ttrsim.core.state import M_PHASE, PH_PASSENGER, PH_SETUP_KEEP, PH_SETUP_MIX, SMEM_EXTRA

INF = 1e18

# cost modes of route_cost_for
COST_TRAINS = 0         # cost = route length (fewest trains)
COST_ROUTES = 1         # cost = 1 per route (fewest routes)
COST_ROUTES_TRAINS = 2  # 1 + length / 10000: fewest routes, ties broken by fewest trains


def new_work(b):
    """The ``(dist, prev, done)`` scratch arrays of the searches, for board ``b``."""
    n = b.n_nodes
    return np.empty(n, np.float64), np.empty(n, np.int64), np.empty(n, np.bool_)


@njit(cache=True, inline='always')   # called in loops: numba does not inline calls by itself
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

@njit(cache=True)
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
    group = b.route_group
    group_routes = b.group_routes
    width = group_routes.shape[1]
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
        g = group[r]
        # a double or triple: R4.5, as route_open_to
        if width > 1 and group_routes[g, 1] >= 0 and parallel_closed(owner, group_routes, g, r, me, lock_all):
            cost_out[r] = -1.0
        elif cost_mode == COST_TRAINS:
            cost_out[r] = length
        elif cost_mode == COST_ROUTES:
            cost_out[r] = 1.0
        else:
            cost_out[r] = 1.0 + length * 1e-4


@njit(cache=True)
def payable_routes(b, s, me, cost, out):
    """``out[r]``: seat ``me`` may claim route ``r`` now, for a ``cost`` of
    :func:`route_cost_for` (positive exactly for the free, open routes that fit
    its trains): only the hand is checked (R4.2-R4.3), so this equals
    :func:`ttrsim.core.engine.claimable_routes` at a fraction of its work.
    Returns how many."""
    route_len, route_colour, hand = b.route_len, b.route_colour, s.hand
    locos = np.int64(hand[me, LOCO])
    most = largest_colour_group(s, me)
    n = 0
    for r in range(route_len.shape[0]):
        col = route_colour[r]
        can = most if col == GRAY else np.int64(hand[me, col])
        out[r] = cost[r] > 0 and can + locos >= route_len[r]
        n += out[r]
    return n


# --- shortest paths ------------------------------------------------------------------------------

@njit(cache=True)
def _dijkstra_core(b, cost, dist, prev, done, stop_loc, limit):
    """Dijkstra from the labels in ``dist`` (finite = source or upper bound);
    stops at the first settled node of ``stop_loc`` (>= 0), or when the nearest
    unsettled node is at ``limit`` or farther (returns -1 then). Only the
    frontier (reached, unsettled nodes) is scanned for the minimum. Board
    arrays are read into locals once (record field reads in the loop are not
    hoisted)."""
    n = b.n_nodes
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
    front = np.empty(n, np.int64)
    n_front = 0
    for v in range(n):
        if dist[v] < INF and not done[v]:
            front[n_front] = v
            n_front += 1
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
            v = rb[r] if ra[r] == u else ra[r]
            if done[v]:
                continue
            nd = du + c
            if nd < dist[v]:
                if dist[v] >= INF:
                    front[n_front] = v
                    n_front += 1
                dist[v] = nd
                prev[v] = r
    return -1


@njit(cache=True)
def dijkstra_run(b, cost, dist, prev, done, stop_loc):
    """Dijkstra over the node graph from the sources already set up by the
    caller (``dist`` 0 for sources and ``INF`` elsewhere, ``prev`` -1,
    ``done`` False). Routes with ``cost < 0`` are impassable. With
    ``stop_loc >= 0`` it stops as soon as a node of that location is settled
    and returns that node; otherwise (or if none is reachable) returns -1 after
    settling everything reachable."""
    return _dijkstra_core(b, cost, dist, prev, done, stop_loc, INF)


@njit(cache=True)
def _init_search(b, dist, prev, done):
    for v in range(b.n_nodes):
        dist[v] = INF
        prev[v] = -1
        done[v] = False


@njit(cache=True)
def _seed_location(b, loc, dist):
    for i in range(b.loc_node_start[loc], b.loc_node_start[loc + 1]):
        dist[b.loc_nodes[i]] = 0.0


@njit(cache=True)
def dijkstra_from_location(b, cost, loc, dist_out, prev_route_out, done=None):
    """Shortest paths from every node of location ``loc`` (all border points of
    a country are sources) to every node: ``dist_out[v]`` the cost (``INF``
    unreachable), ``prev_route_out[v]`` the route used to reach ``v`` (-1 for
    sources and unreached nodes). ``done`` is optional scratch (bool[n_nodes])."""
    if done is None:
        work = np.empty(b.n_nodes, np.bool_)
    else:
        work = done
    _init_search(b, dist_out, prev_route_out, work)
    _seed_location(b, loc, dist_out)
    dijkstra_run(b, cost, dist_out, prev_route_out, work, -1)


@njit(cache=True)
def other_end(b, r, v):
    """The endpoint node of route ``r`` that is not node ``v``."""
    return b.route_b[r] if b.route_a[r] == v else b.route_a[r]


@njit(cache=True)
def path_between(b, cost, loc_a, loc_b, routes_out, dist, prev, done):
    """A cheapest path between locations ``loc_a`` and ``loc_b`` (any border
    point of a country will do). Writes its routes into ``routes_out`` in order
    from the ``loc_a`` end to the ``loc_b`` end and returns
    ``(n_routes, total_cost)``; ``(-1, INF)`` when unreachable, ``(0, 0.0)`` when
    ``loc_a == loc_b``. Own routes (cost 0) are part of the path too."""
    if loc_a == loc_b:
        return 0, 0.0
    _init_search(b, dist, prev, done)
    _seed_location(b, loc_a, dist)
    v = dijkstra_run(b, cost, dist, prev, done, loc_b)
    if v < 0:
        return -1, INF
    total = dist[v]
    n = 0
    while prev[v] >= 0:
        r = prev[v]
        routes_out[n] = r
        n += 1
        v = other_end(b, r, v)
    for i in range(n // 2):          # backtracking gave loc_b -> loc_a
        t = routes_out[i]
        routes_out[i] = routes_out[n - 1 - i]
        routes_out[n - 1 - i] = t
    return n, total


@njit(cache=True)
def path_end_within(b, cost, loc_a, loc_b, limit, dist, prev, done):
    """A cheapest path from location ``loc_a`` to ``loc_b`` if it costs less
    than ``limit``: returns the node of ``loc_b`` it ends at (its cost is
    ``dist`` there, its routes are found by ``prev`` back to ``loc_a``), or -1
    (the search stops at ``limit``: cheaper than :func:`path_between` when only
    near paths matter). ``loc_a`` and ``loc_b`` differ."""
    _init_search(b, dist, prev, done)
    _seed_location(b, loc_a, dist)
    return _dijkstra_core(b, cost, dist, prev, done, loc_b, limit)


@njit(cache=True)
def passable_components(b, cost, parent):
    """Union-find ``parent`` (int64[n_nodes]) over the routes with ``cost >= 0``:
    two locations can be joined by a path iff :func:`locations_connected` says
    so. One O(routes) pass, about the price of one early-stopped search: worth
    it only where many searches might fail (an unreachable target makes a
    search settle its whole reachable part)."""
    for v in range(parent.shape[0]):
        parent[v] = v
    ra = b.route_a
    rb = b.route_b
    for r in range(cost.shape[0]):
        if cost[r] >= 0:
            x = uf_find(parent, ra[r])
            y = uf_find(parent, rb[r])
            if x != y:
                parent[x] = y


@njit(cache=True)
def locations_connected(b, parent, la, lb):
    """Some node of location ``la`` and some node of ``lb`` share a component of ``parent``."""
    return locations_joined(b, parent, la, lb)


# --- network plans -------------------------------------------------------------------------------

@njit(cache=True)
def _restart_from_tree(in_tree, dist, prev, done, front):
    """Search labels for growing a network: 0 on the network's nodes (the
    frontier, returned as its size), ``INF`` elsewhere, nothing settled."""
    n_front = 0
    for v in range(in_tree.shape[0]):
        prev[v] = -1
        done[v] = False
        if in_tree[v]:
            dist[v] = 0.0
            front[n_front] = v
            n_front += 1
        else:
            dist[v] = INF
    return n_front


@njit(cache=True)
def plan_network(b, cost, locs, n_locs, in_plan_out, dist, prev, done):
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
    routes and how many of the distinct locations could not be joined."""
    n_nodes = b.n_nodes
    in_tree = np.zeros(n_nodes, np.bool_)
    term = np.full(n_nodes, -1, np.int64)       # node -> index in locs of its location, -1 none
    for r in range(in_plan_out.shape[0]):
        in_plan_out[r] = False
    n_distinct = 0
    for i in range(n_locs):
        loc = locs[i]
        first = b.loc_node_start[loc]
        if term[b.loc_nodes[first]] >= 0:       # duplicate location
            continue
        n_distinct += 1
        for k in range(first, b.loc_node_start[loc + 1]):
            term[b.loc_nodes[k]] = i
    if n_distinct == 0:
        return 0.0, 0
    root = -1
    for i in range(n_locs):
        loc = locs[i]
        if b.loc_node_start[loc + 1] - b.loc_node_start[loc] == 1:
            root = i
            break
    virtual_root = root < 0
    if virtual_root:
        root = 0
    root_loc = locs[root]
    for k in range(b.loc_node_start[root_loc], b.loc_node_start[root_loc + 1]):
        in_tree[b.loc_nodes[k]] = True
    # mark the root location joined
    for k in range(b.loc_node_start[root_loc], b.loc_node_start[root_loc + 1]):
        term[b.loc_nodes[k]] = -1
    joined = 1
    total = 0.0
    # One label-correcting search carried across the joins: after a path joins
    # the network its nodes drop to 0 and every label they improve is reopened,
    # so each join settles only what the new path changes (instead of a fresh
    # Dijkstra per join). Labels stay exact for every settled node.
    nrs = b.node_route_start
    nr = b.node_routes
    ra = b.route_a
    rb = b.route_b
    front = np.empty(n_nodes, np.int64)
    n_front = _restart_from_tree(in_tree, dist, prev, done, front)
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
                v = rb[r] if ra[r] == u else ra[r]
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
        for k in range(b.loc_node_start[loc], b.loc_node_start[loc + 1]):
            term[b.loc_nodes[k]] = -1
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
            v = other_end(b, r, v)
        if virtual_root:                        # keep only the border point actually used; restart
            for k in range(b.loc_node_start[root_loc], b.loc_node_start[root_loc + 1]):
                if b.loc_nodes[k] != v:
                    in_tree[b.loc_nodes[k]] = False
            virtual_root = False
            n_front = _restart_from_tree(in_tree, dist, prev, done, front)
    return total, n_distinct - joined


@njit(cache=True)
def plan_tickets(b, cost, ta, tb, n, in_plan_out, routes_work, dist, prev, done):
    """A network serving each ticket ``(ta[i], tb[i])``, i < n, on its own
    (a Steiner *forest* heuristic): tickets in the given order, each adds its
    cheapest path with the routes already planned counted free. Marks
    ``in_plan_out`` (cleared first; own routes included) and returns
    ``(total_cost, n_unreachable)``. ``cost`` is not modified;
    ``routes_work`` needs room for a path (int64[n_routes])."""
    n_routes = in_plan_out.shape[0]
    c2 = np.empty(n_routes, np.float64)
    for r in range(n_routes):
        in_plan_out[r] = False
        c2[r] = cost[r]
    total = 0.0
    missed = 0
    for i in range(n):
        k, _ = path_between(b, c2, ta[i], tb[i], routes_work, dist, prev, done)
        if k < 0:
            missed += 1
            continue
        for j in range(k):
            r = routes_work[j]
            if not in_plan_out[r]:
                in_plan_out[r] = True
                total += c2[r]
                c2[r] = 0.0
    return total, missed


# --- tickets -------------------------------------------------------------------------------------

@njit(cache=True)
def own_components(b, s, me, parent):
    """Union-find ``parent`` (int64[n_nodes]) of the nodes joined by ``me``'s routes."""
    player_components(b, s, me, parent)


@njit(cache=True)
def ticket_joined(b, parent, t):
    """Ticket ``t`` is complete in the components ``parent`` (see :func:`own_components`)."""
    return locations_joined(b, parent, b.ticket_a[t], b.ticket_b[t])


@njit(cache=True)
def ticket_done(b, s, me, t, parent_work):
    """Whether ticket ``t`` is complete for seat ``me`` (R6.3, R6.4). Rebuilds
    the components in ``parent_work`` each call; for many tickets call
    :func:`own_components` once and then :func:`ticket_joined`."""
    player_components(b, s, me, parent_work)
    return locations_joined(b, parent_work, b.ticket_a[t], b.ticket_b[t])


@njit(cache=True)
def unfinished_tickets(b, s, me, parent, out):
    """Write ``me``'s tickets not yet complete into ``out``; return their count.
    ``parent`` must hold ``me``'s components (:func:`own_components`)."""
    n = 0
    for t in range(b.ticket_a.shape[0]):
        if s.ticket_holder[t] == me and not locations_joined(b, parent, b.ticket_a[t], b.ticket_b[t]):
            out[n] = t
            n += 1
    return n


# --- plan memory ---------------------------------------------------------------------------------
# A strategy may keep its plan in its seat's row of ``GameState.smem`` between
# its decisions: slots 0..N_PLAN_KEY-1 hold the key the plan was made under,
# slots SM_VALUE..SMEM_EXTRA-1 a strategy's own numbers, slot SMEM_EXTRA + r a
# number per route r (a plan flag). Everything in the key is public or the
# seat's own.

N_PLAN_KEY = 5
KEY_EXTRA = 4           # the key slot holding plan_key's ``extra``
SM_VALUE = N_PLAN_KEY


@njit(cache=True)
def plan_key(b, s, me, mine, extra, key):
    """Fill ``key`` (int64[N_PLAN_KEY]) with what a plan of seat ``me`` depends
    on: ``mine`` (the caller's measure of its own position, e.g. its trains),
    its tickets held, the passengers collected by all seats, and the caller's
    ``extra``. Slot 0 is 1 (a zeroed memory never matches)."""
    key[0] = 1
    key[1] = mine
    n = 0
    for t in range(b.ticket_a.shape[0]):
        if s.ticket_holder[t] == me:
            n += 1
    key[2] = n
    n = 0
    for p in range(s.pass_player.shape[0]):
        for c in range(s.pass_player.shape[1]):
            n += s.pass_player[p, c]
    key[3] = n
    key[KEY_EXTRA] = extra


@njit(cache=True)
def own_key(b, s, me):
    """The key of a plan made from the seat's trains, its tickets and searches
    over the board (its trains change with each of its claims, the only claims
    that make a route cheaper or join its network). Check the board with
    :func:`plan_open` before reusing the plan."""
    key = np.empty(N_PLAN_KEY, np.int64)
    plan_key(b, s, me, s.trains[me], 0, key)
    return key


@njit(cache=True)
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


@njit(cache=True)
def recall_key(s, me, key):
    """Seat ``me``'s memory was stored under ``key``."""
    for i in range(N_PLAN_KEY):
        if s.smem[me, i] != key[i]:
            return False
    return True


@njit(cache=True)
def store_key(s, me, key):
    """Mark seat ``me``'s memory as made under ``key``."""
    for i in range(N_PLAN_KEY):
        s.smem[me, i] = key[i]


@njit(cache=True)
def recall_plan(s, me, key, in_plan):
    """If seat ``me`` remembers a plan made under ``key``, copy it into
    ``in_plan`` and return True; else False (``in_plan`` untouched)."""
    if not recall_key(s, me, key):
        return False
    for r in range(in_plan.shape[0]):
        in_plan[r] = s.smem[me, SMEM_EXTRA + r] != 0
    return True


@njit(cache=True)
def remember_plan(s, me, key, in_plan):
    """Store ``in_plan`` under ``key`` in seat ``me``'s memory."""
    store_key(s, me, key)
    for r in range(in_plan.shape[0]):
        s.smem[me, SMEM_EXTRA + r] = 1 if in_plan[r] else 0


# --- action helpers ------------------------------------------------------------------------------

@njit(cache=True)
def has_action(legal, n_legal, a):
    for i in range(n_legal):
        if legal[i] == a:
            return True
    return False


@njit(cache=True)
def fallback_action(legal, n_legal):
    """A blind draw if legal, else the first legal action."""
    if has_action(legal, n_legal, A_BLIND):
        return A_BLIND
    return legal[0]


@njit(cache=True)
def pay_action(b, s, me, r):
    """The claim of route ``r`` by ``me`` with the fewest locomotives, a gray
    route in the colour it holds most of (lowest id on ties), computed from the
    hand alone; -1 if
    the cards do not suffice. Does not check that ``r`` is free and open or that
    the trains suffice (``route_cost_for`` gives that: ``cost[r] > 0``)."""
    length = np.int64(b.route_len[r])
    col = b.route_colour[r]
    locos = np.int64(s.hand[me, LOCO])
    if col == GRAY:
        c = most_held_colour(s, me)
    else:
        c = col
    h = np.int64(s.hand[me, c])
    if h > 0:
        k = length - h if length > h else 0
        if k <= locos:
            return encode_claim(r, c, k)
        return -1
    if locos >= length:
        return encode_claim(r, PAY_LOCOS_ONLY, length)
    return -1


@njit(cache=True)
def most_held_colour(s, me):
    """The colour (not locomotive) ``me`` holds most cards of (lowest id on ties)."""
    best = 0
    for c in range(1, N_COLOURS):
        if s.hand[me, c] > s.hand[me, best]:
            best = c
    return best


@njit(cache=True)
def route_draw_colour(b, s, me, r):
    """The card colour to collect for route ``r``: its colour, or for a gray
    route the colour ``me`` holds most of."""
    col = b.route_colour[r]
    return most_held_colour(s, me) if col == GRAY else col


@njit(cache=True)
def faceup_action(s, legal, n_legal, kind):
    """The legal action taking a face-up card of ``kind`` (colour or LOCO), or -1."""
    for i in range(s.faceup.shape[0]):
        if s.faceup[i] == kind and has_action(legal, n_legal, A_FACEUP + i):
            return A_FACEUP + i
    return -1


@njit(cache=True)
def draw_colour_action(s, legal, n_legal, colour, allow_loco):
    """Draw ``colour`` face up if shown (``colour`` < 0: no wish), else a face-up
    locomotive when ``allow_loco`` (legal only as a first draw), else blind,
    else the first legal action."""
    if colour >= 0:
        a = faceup_action(s, legal, n_legal, colour)
        if a >= 0:
            return a
    if allow_loco:
        a = faceup_action(s, legal, n_legal, LOCO)
        if a >= 0:
            return a
    return fallback_action(legal, n_legal)


@njit(cache=True)
def ticket_mix_action(b, s, legal, n_legal, n_long):
    """The legal ticket-draw action (setup or in play) taking ``n_long``
    tickets from the second (long) pile when there is one and the rest from
    the first, clamped to what the piles allow; -1 if no ticket draw is legal.
    With one pile there is a single ticket-draw action."""
    first = -1
    lo = 99
    hi = -1
    for i in range(n_legal):
        a = legal[i]
        if A_TICKETS <= a < A_KEEP:
            k = a - A_TICKETS
            if first < 0:
                first = a
            lo = min(lo, k)
            hi = max(hi, k)
    if first < 0:
        return -1
    if b.rp[RP_N_DECKS] == 1:
        return first
    want = b.rp[RP_SETUP_DEAL] if s.meta[M_PHASE] == PH_SETUP_MIX else b.rp[RP_DRAW_N]
    n = min(want, s.tk_len.sum())
    k = n - max(0, n_long)
    k = min(max(k, lo), hi)
    return A_TICKETS + k


@njit(cache=True)
def passenger_action(s, me, legal, n_legal):
    """Take the legal passenger colour ``me`` already holds most of (first on ties)."""
    best = -1
    best_n = -1
    for i in range(n_legal):
        a = legal[i]
        if A_PASSENGER <= a < A_CLAIM:
            n = s.pass_player[me, a - A_PASSENGER]
            if n > best_n:
                best_n = n
                best = a
    return best if best >= 0 else legal[0]


@njit(cache=True)
def keep_all_action(legal, n_legal):
    """The legal keep action keeping the most tickets (every one offered)."""
    best = -1
    for i in range(n_legal):
        a = legal[i]
        if A_KEEP <= a < A_PASSENGER and a > best:
            best = a
    return best if best >= 0 else legal[0]


@njit(cache=True)
def min_keep_count(legal, n_legal):
    """The fewest tickets any legal keep action keeps (99 if none)."""
    m = 99
    for i in range(n_legal):
        a = legal[i]
        if A_KEEP <= a < A_PASSENGER:
            m = min(m, popcount(a - A_KEEP))
    return m


@njit(cache=True)
def keep_cheapest_minimum(b, s, me, cost, legal, n_legal, routes, dist, prev, done):
    """The keep action that keeps the minimum number of offered tickets, choosing
    those with the cheapest paths under ``cost`` (unreachable ones last; ties to
    the higher points). -1 if no keep action is legal."""
    need = min_keep_count(legal, n_legal)
    best_a = -1
    best_key = 1e300
    for i in range(n_legal):
        act = legal[i]
        if act < A_KEEP or act >= A_PASSENGER or popcount(act - A_KEEP) != need:
            continue
        mask = act - A_KEEP
        key = 0.0
        for j in range(s.offer_n[me]):
            if mask & (1 << j):
                t = s.offer[me, j]
                n, c = path_between(b, cost, b.ticket_a[t], b.ticket_b[t], routes, dist, prev, done)
                key += (1e6 if n < 0 else c) - 1e-3 * b.ticket_points[t]
        if key < best_key:
            best_key = key
            best_a = act
    return best_a


@njit(cache=True)
def routine_action(b, s, me, phase, legal, n_legal, n_long, keep_all_at_setup):
    """The published agents' shared handling of the routine phases: the
    Germany setup mix (``n_long`` from the long pile), passenger colours, and
    with ``keep_all_at_setup`` keeping every setup ticket. Returns
    ``(handled, action)``; the agent decides itself when not handled."""
    if phase == PH_SETUP_MIX:
        return True, ticket_mix_action(b, s, legal, n_legal, n_long)
    if phase == PH_PASSENGER:
        return True, passenger_action(s, me, legal, n_legal)
    if phase == PH_SETUP_KEEP and keep_all_at_setup:
        return True, keep_all_action(legal, n_legal)
    return False, -1


@njit(cache=True)
def legal_or_fallback(b, s, a, legal, n_legal):
    """``a`` if it is legal (:func:`ttrsim.core.engine.is_legal`: the list may leave
    claims out), else :func:`fallback_action`."""
    if a < 0 or not is_legal(b, s, a):
        return fallback_action(legal, n_legal)
    return a
