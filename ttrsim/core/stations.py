"""Train stations (R8.4, R8.5): building one on a city, and at the end of the
game the route each station borrows, chosen by the engine for its owner.

A seat's n-th station costs ``b.station_cost[n - 1]`` cards of one colour
(locomotives wild; the last entry for any later station). At the end every
station may borrow one route of another seat into its city for its owner's
tickets (not for the longest path); :func:`choose_station_routes` tries every
combination of a seat's stations' routes (at most 9^3 for 3 stations) and
keeps the best one for the seat's ticket score with the fewest stations that
borrow a route (the tie-break of R6.8 counts them), so a station records a
route only when it helps.

>>> from ttrsim.data.rules import get_rules
>>> from ttrsim.core.board import build_board
>>> b = build_board(get_rules("europe")); b.station_cost.tolist()
[1, 2, 3]
"""
import numpy as np

from ttrsim.data.ids import LOCO, N_COLOURS
from ttrsim.jit import kernel

from .actions import PAY_LOCOS_ONLY, station_action
from .board import RP_STATIONS
from .scoring import join_station_routes, player_components, ticket_completed
from .state import M_NPLAYERS


@kernel
def station_cost(b, s, p):
    """Cards seat ``p``'s next station costs (R8.4)."""
    built = b.rp[RP_STATIONS] - s.stations_left[p]
    return b.station_cost[min(built, b.station_cost.shape[0] - 1)]


@kernel
def station_payable(b, s, p, colour, locos):
    """Seat ``p`` may pay its next station with ``locos`` locomotives and the
    rest in ``colour`` (``PAY_LOCOS_ONLY``: locomotives only)."""
    cost = station_cost(b, s, p)
    if locos < 0 or s.hand[p, LOCO] < locos:
        return False
    if colour == PAY_LOCOS_ONLY:
        return locos == cost
    return 0 <= colour < N_COLOURS and locos < cost and s.hand[p, colour] >= cost - locos


@kernel
def station_actions(b, s, p, out, n):
    """Append seat ``p``'s legal station builds (a station left, a city
    without one, a payment, R8.4) to ``out`` from ``n``, in increasing action
    order; return the new count."""
    if s.stations_left[p] <= 0:
        return n
    cost = np.int64(station_cost(b, s, p))
    locos = np.int64(s.hand[p, LOCO])
    n_routes = b.route_len.shape[0]
    owner = s.station_owner
    for city in range(owner.shape[0]):
        if owner[city] >= 0:
            continue
        for c in range(N_COLOURS):
            h = np.int64(s.hand[p, c])
            if h > 0:
                for k in range(max(0, cost - h), min(cost - 1, locos) + 1):
                    out[n] = station_action(n_routes, city, c, k)
                    n += 1
        if locos >= cost:
            out[n] = station_action(n_routes, city, PAY_LOCOS_ONLY, cost)
            n += 1
    return n


@kernel
def can_build_station(b, s, p):
    """Whether seat ``p`` has a legal station build (R8.4)."""
    if s.stations_left[p] <= 0:
        return False
    cost = station_cost(b, s, p)
    locos = s.hand[p, LOCO]
    payable = locos >= cost
    for c in range(N_COLOURS):
        payable = payable or (s.hand[p, c] > 0 and s.hand[p, c] + locos >= cost)
    if not payable:
        return False
    for city in range(s.station_owner.shape[0]):
        if s.station_owner[city] < 0:
            return True
    return False


@kernel
def build_station(b, s, p, city, colour, locos):
    """Seat ``p`` pays its next station and places it on ``city``."""
    cost = station_cost(b, s, p)
    if colour != PAY_LOCOS_ONLY:
        s.hand[p, colour] -= cost - locos
        s.discard[colour] += cost - locos
    s.hand[p, LOCO] -= locos
    s.discard[LOCO] += locos
    s.station_owner[city] = p
    s.stations_left[p] -= 1


@kernel
def ticket_score(b, s, p, parent):
    """Seat ``p``'s ticket points (won minus lost) in the components ``parent``."""
    total = 0
    for t in range(b.ticket_a.shape[0]):
        if s.ticket_holder[t] == p:
            total += b.ticket_points[t] if ticket_completed(b, s, t, parent) else -b.ticket_penalty[t]
    return total


@kernel
def choose_station_routes(b, s):
    """For every seat, the routes its stations borrow (``s.station_route``),
    by exhaustive search (R8.5): the best ticket score; of those, the fewest
    stations that borrow a route; of those, the first in order: the stations
    by increasing city id, each station's choices "no route" first and then
    routes by increasing route id, compared station by station."""
    s.station_route[:] = -1
    owner = s.station_owner
    n_cities = owner.shape[0]
    base = np.empty(b.n_nodes, np.int64)
    parent = np.empty(b.n_nodes, np.int64)
    for p in range(s.meta[M_NPLAYERS]):
        cities = np.empty(n_cities, np.int64)
        n = 0
        for city in range(n_cities):
            if owner[city] == p:
                cities[n] = city
                n += 1
        if n == 0:
            continue
        # candidates: -1 (no route) first, then the other seats' routes into the city by route id
        cand = np.full((n, 1 + b.node_routes.shape[0]), -1, np.int64)
        n_cand = np.ones(n, np.int64)
        for i in range(n):
            v = cities[i]          # a city's node id is its location id
            for j in range(b.node_route_start[v], b.node_route_start[v + 1]):
                r = b.node_routes[j]
                if s.route_owner[r] >= 0 and s.route_owner[r] != p:
                    k = n_cand[i]              # insertion sort: the node's routes are not in id order
                    while k > 1 and cand[i, k - 1] > r:
                        cand[i, k] = cand[i, k - 1]
                        k -= 1
                    cand[i, k] = r
                    n_cand[i] += 1
        player_components(b, s, p, base)
        digits = np.zeros(n, np.int64)
        best = np.full(n, -1, np.int64)
        best_score = -(1 << 30)
        best_used = n + 1
        while True:
            for i in range(n):                 # the combination tried: written where scoring reads it
                s.station_route[cities[i]] = cand[i, digits[i]]
            parent[:] = base
            used = join_station_routes(b, s, p, parent)
            score = ticket_score(b, s, p, parent)
            if score > best_score or (score == best_score and used < best_used):
                best_score = score
                best_used = used
                for i in range(n):
                    best[i] = cand[i, digits[i]]
            i = n - 1               # the next combination (mixed radix, the last station's digit fastest)
            while i >= 0:
                digits[i] += 1
                if digits[i] < n_cand[i]:
                    break
                digits[i] = 0
                i -= 1
            if i < 0:
                break
        for i in range(n):
            s.station_route[cities[i]] = best[i]
