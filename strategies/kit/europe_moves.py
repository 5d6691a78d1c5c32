"""Europe's decisions for the built-in strategies (R8): the tunnel decision
every strategy but ``random`` takes the same way, the expected extra cards
of a tunnel the planner counts into a route's cost, and the planner's
station that rescues a blocked ticket.

>>> from ttrsim.play.game import Game
>>> g = Game("europe", 2, seed=1)
>>> unseen = np.full(9, 12.0); unseen[8] = 14
>>> round(tunnel_extra_estimate(g.board, unseen, 0), 3)     # 3 cards x (12 + 14) / 110
0.709
"""
import numpy as np

from ttrsim.core.actions import X_STATION, claims_end, decode_station, tunnel_give_up_action
from ttrsim.core.board import RP_STATION_PTS, RP_TUNNEL_CARDS
from ttrsim.core.engine import route_open_to
from ttrsim.core.scoring import locations_joined, player_components, ticket_stake, uf_find
from ttrsim.core.state import M_TUNNEL_EXTRA, M_TUNNEL_ROUTE
from ttrsim.core.tunnels import expected_extra
from ttrsim.data.ids import GRAY, LOCO, N_COLOURS
from ttrsim.jit import kernel


@kernel
def tunnel_choice(b, s, legal, n_legal):
    """Pay a tunnel's extra cards with the fewest locomotives when the hand
    affords it and the extra cards are no more than the route's length (a
    route worth paying twice over is rare); else give up (R8.3)."""
    give_up = tunnel_give_up_action(b.route_len.shape[0])
    if s.meta[M_TUNNEL_EXTRA] > b.route_len[s.meta[M_TUNNEL_ROUTE]]:
        return give_up
    for i in range(n_legal):               # pay actions come first, fewest locomotives first
        if legal[i] != give_up:
            return legal[i]
    return give_up


@kernel
def tunnel_extra_estimate(b, unseen, colour):
    """Expected extra cards of a tunnel paid in ``colour`` (``PAY_LOCOS_ONLY``:
    locomotives only): the rule set's turned-over cards drawn from the cards
    the seat cannot see, ``unseen`` per kind (R8.3)."""
    return expected_extra(unseen, colour, b.rp[RP_TUNNEL_CARDS])


@kernel
def europe_extra_cards(b, s, me, r, unseen):
    """The cards route ``r`` may cost seat ``me`` beyond its length: a ferry's
    locomotives it lacks (R8.2); a tunnel's expected extra cards (R8.3),
    paid in the route's colour or, for a gray one, the colour it holds most of."""
    extra = float(max(0, b.route_ferry[r] - s.hand[me, LOCO]))
    if b.route_tunnel[r]:
        colour = b.route_colour[r]
        if colour == GRAY:
            colour = 0
            for c in range(N_COLOURS):
                if s.hand[me, c] > s.hand[me, colour]:
                    colour = c
        extra += tunnel_extra_estimate(b, unseen, colour)
    return extra


@kernel
def _reach(b, s, me, parent, usable):
    """Union-find ``parent`` over the routes seat ``me`` owns or may still claim."""
    player_components(b, s, me, parent)
    for r in range(b.route_len.shape[0]):
        if usable[r]:
            x, y = uf_find(parent, b.route_a[r]), uf_find(parent, b.route_b[r])
            if x != y:
                parent[x] = y


@kernel
def rescue_city(b, s, me, parent, t):
    """A city where a station would complete ticket ``t`` of seat ``me`` by
    borrowing another seat's route that joins the two sides the seat can
    still reach (components ``parent``), or -1."""
    ra, rb = uf_find(parent, b.ticket_a[t]), uf_find(parent, b.ticket_b[t])
    for r in range(b.route_len.shape[0]):
        o = s.route_owner[r]
        if o < 0 or o == me:
            continue
        u, v = uf_find(parent, b.route_a[r]), uf_find(parent, b.route_b[r])
        if (u == ra and v == rb) or (u == rb and v == ra):
            for city in (b.route_a[r], b.route_b[r]):
                if city < b.n_cities and s.station_owner[city] < 0:
                    return city
    return -1


@kernel
def station_rescue(b, s, me, legal, n_legal):
    """A station build that rescues the blocked ticket most at stake of seat
    ``me``: a ticket no path of own and claimable routes can complete any
    more, but one can with one other seat's route into a city where a
    station can go (R8.4, R8.5); the cheapest legal payment (fewest
    locomotives) on that city. A station rescues a ticket only when that
    is worth more than the station kept: the ticket's stake counts (from
    lost to won: its points plus its penalty, R6.3), a station not built
    scores ``station_points`` (R8.5). -1 when no ticket needs one."""
    if s.stations_left[me] <= 0:
        return -1
    R = b.route_len.shape[0]
    usable = np.zeros(R, np.bool_)
    for r in range(R):
        usable[r] = route_open_to(b, s, r, me) and b.route_len[r] <= s.trains[me]
    parent = np.empty(b.n_nodes, np.int64)
    _reach(b, s, me, parent, usable)
    best_city = -1
    best_pts = b.rp[RP_STATION_PTS]         # a ticket's stake against a station kept
    for t in range(b.ticket_a.shape[0]):
        if s.ticket_holder[t] == me and ticket_stake(b, t) > best_pts and \
                not locations_joined(b, parent, b.ticket_a[t], b.ticket_b[t]):
            city = rescue_city(b, s, me, parent, t)
            if city >= 0:
                best_city, best_pts = city, ticket_stake(b, t)
    if best_city < 0:
        return -1
    n_routes = b.route_len.shape[0]
    best = -1
    best_locos = 99
    for i in range(n_legal):
        a = legal[i]
        if a >= claims_end(n_routes) + X_STATION:
            city, _, k = decode_station(n_routes, a)
            if city == best_city and k < best_locos:
                best, best_locos = a, k
    return best
