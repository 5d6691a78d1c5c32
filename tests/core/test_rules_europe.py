"""Europe's rules (R8): long tickets at setup, ferries, tunnels, stations and
their end-of-game routes, the 8-space route; the action codec's new codes.
Positions are built by hand on top of real ``europe`` games (helpers.py
builders, direct writes on ``g.state``); each checks the legal list against
``is_legal`` over the whole action space.
"""
import itertools

import numpy as np
import pytest

from ttrsim.core.actions import (
    A_CLAIM,
    CLAIM_LOCO_SLOTS,
    CLAIMS_PER_ROUTE,
    PAY_LOCOS_ONLY,
    STATION_CODES,
    STATION_LOCO_SLOTS,
    action_name,
    action_space_size,
    claims_end,
    decode_claim,
    decode_station,
    encode_claim,
    station_action,
    tunnel_give_up_action,
    tunnel_pay_action,
)
from ttrsim.core.engine import is_legal
from ttrsim.core.scoring import final_scoring, player_longest
from ttrsim.core.state import (
    F_LP_LEN,
    F_STATION_PTS,
    F_STATIONS_BUILT,
    F_STATIONS_USED,
    F_TICKETS_LOST,
    F_TICKETS_RESCUED,
    F_TICKETS_WON,
    F_TOTAL,
    M_DECK_N,
    M_PLAYER,
    M_TUNNEL_EXTRA,
)
from ttrsim.core.stations import choose_station_routes
from ttrsim.core.tunnels import expected_extra
from ttrsim.data.ids import BLACK, BLUE, GREEN, LOCO, N_COLOURS, RED, WHITE, YELLOW
from ttrsim.data.rules import RulesError, get_rules
from ttrsim.play.game import Game

from helpers import card_total, put_deck_top, put_faceup, put_hand, route_id, setup_game, ticket_id


def legal_by_scan(g):
    size = action_space_size(g.map.n_routes, int(g.board.n_cities))
    return [a for a in range(size) if is_legal(g.board, g.state, a)]


def assert_consistent(g):
    assert sorted(g.legal_actions()) == legal_by_scan(g)


def europe(n_players=2, seed=0, overrides=None):
    g = setup_game("europe", n_players, seed, overrides)
    g.state.route_owner[:] = -1
    return g


def seat_claims(g, r):
    return [decode_claim(a)[1:] for a in g.legal_actions() if A_CLAIM <= a < claims_end(g.map.n_routes)
            and decode_claim(a)[0] == r]


def all_cards_kept(g):
    """The 110 cards are all somewhere: deck, discards, face-up, hands, or on
    the table for a tunnel being settled (laid down or turned over, R8.3)."""
    s = g.state
    shown = int((s.tunnel_shown >= 0).sum()) if g.phase == "tunnel" else 0
    assert card_total(g) + int(s.tunnel_held.sum()) + shown == 110


# --------------------------------------------------------------------------- R8.1 long tickets

@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_R8_1_each_player_is_dealt_one_long_and_three_regular_tickets(n_players):
    """Setup offers 3 regular + 1 long ticket, keep at least 2 of the 4; the long
    tickets not dealt (and those returned) are in no pile: they left the game."""
    g = Game("europe", n_players, seed=n_players)
    b, s = g.board, g.state
    long_ids = set(int(t) for t in b.long_tickets)
    assert len(long_ids) == 6 and all(b.ticket_deck[t] == -1 for t in long_ids)
    dealt = set()
    for p in range(n_players):
        offer = [int(t) for t in s.offer[p, :s.offer_n[p]]]
        assert len(offer) == 4 and sum(t in long_ids for t in offer) == 1
        dealt |= set(offer) & long_ids
    piles = {int(s.tk_buf[0, (s.tk_head[0] + i) % s.tk_buf.shape[1]]) for i in range(s.tk_len[0])}
    assert not piles & long_ids and len(piles) == 40 - 3 * n_players
    masks = [a - 19 for a in g.legal_actions()]
    assert min(bin(m).count("1") for m in masks) == 2 and len(masks) == 11     # R2.2: keep 2, 3 or 4 of 4
    while g.phase == "setup-keep":                 # keep the 3 regular tickets, return the long one
        p = g.player
        keep = sum(1 << i for i in range(4) if int(s.offer[p, i]) not in long_ids)
        g.apply(19 + keep)
    piles = {int(s.tk_buf[0, (s.tk_head[0] + i) % s.tk_buf.shape[1]]) for i in range(s.tk_len[0])}
    assert not piles & long_ids and s.tk_len[0] == 40 - 3 * n_players
    assert not any(s.ticket_holder[t] >= 0 for t in long_ids)
    assert_consistent(g)


def test_R8_1_long_ticket_parameters_are_checked():
    with pytest.raises(RulesError, match="needs 'long_deck'"):
        get_rules("europe", {"long_deck": ""})
    with pytest.raises(RulesError, match="must not exceed"):
        get_rules("europe", {"setup_deal": 8})
    r = get_rules("europe")
    assert (r.trains, r.stations, r.station_costs, r.station_points, r.longest_path_points) == (45, 3, (1, 2, 3), 4, 10)
    assert (r.setup_deal, r.setup_long, r.setup_keep, r.draw_tickets, r.draw_keep) == (3, 1, 2, 3, 1)


def pile(s, d=0):
    """The tickets of draw pile ``d``, top first."""
    return [int(s.tk_buf[d, (s.tk_head[d] + i) % s.tk_buf.shape[1]]) for i in range(s.tk_len[d])]


@pytest.mark.parametrize("setup_return", ["box", "bottom"])
def test_R2_2_R8_1_setup_tickets_not_kept_go_back_in_the_box(setup_return):
    """Europe (``setup_return: box``, the printed rules): the regular tickets
    not kept at setup leave the game unseen, like the long ones; with
    ``bottom`` (the reading before issue 36) they go under the draw pile, in
    seat order."""
    g = Game("europe", 3, seed=5, overrides=None if setup_return == "box" else {"setup_return": "bottom"})
    assert g.rules.setup_return == setup_return
    s = g.state
    long_ids = set(int(t) for t in g.board.long_tickets)
    before = pile(s)
    returned = []
    while g.phase == "setup-keep":                 # keep the long ticket and the first regular one
        p = g.player
        offer = [int(t) for t in s.offer[p, :s.offer_n[p]]]
        keep = [i for i, t in enumerate(offer) if t in long_ids] + [0]
        returned += [t for i, t in enumerate(offer) if i not in keep]
        g.apply(19 + sum(1 << i for i in keep))
    assert len(returned) == 6 and not set(returned) & long_ids
    assert all(s.ticket_holder[t] == -1 for t in returned)
    if setup_return == "box":
        assert pile(s) == before and not set(returned) & set(pile(s))
    else:
        assert pile(s) == before + returned
    assert_consistent(g)


# --------------------------------------------------------------------------- R8.2 ferries

def test_R8_2_a_ferry_needs_its_locomotives():
    """Amsterdam-London (2 spaces, 2 locomotives): only locomotives pay it;
    Palermo-Smyrna (6, 2 locomotives): 4 of a colour and 2 locomotives or more."""
    g = europe()
    ams = route_id(g, "Amsterdam", "London")
    pal = route_id(g, "Palermo", "Smyrna")
    put_hand(g, 0, {RED: 6, LOCO: 1})
    assert seat_claims(g, ams) == [] and seat_claims(g, pal) == []
    assert not is_legal(g.board, g.state, encode_claim(pal, RED, 1))
    put_hand(g, 0, {RED: 6, LOCO: 2})
    assert seat_claims(g, ams) == [(PAY_LOCOS_ONLY, 2)]
    assert seat_claims(g, pal) == [(RED, 2)]
    put_hand(g, 0, {RED: 4, BLUE: 5, LOCO: 6})
    assert seat_claims(g, pal) == [(BLUE, 2), (BLUE, 3), (BLUE, 4), (BLUE, 5), (RED, 2), (RED, 3), (RED, 4),
                                   (RED, 5), (PAY_LOCOS_ONLY, 6)]
    assert_consistent(g)
    g.apply(encode_claim(pal, RED, 2))
    assert g.state.route_owner[pal] == 0 and g.state.hand[0, RED] == 0 and g.state.hand[0, LOCO] == 4


# --------------------------------------------------------------------------- R8.3 tunnels

def tunnel_game(hand, shown, seed=0):
    """Seat 0 to act holding ``hand``; the next deck cards are ``shown``; the
    face-up row holds no card of a kind shown (so nothing reshuffles)."""
    g = europe(seed=seed)
    put_faceup(g, [WHITE] * 5)
    put_hand(g, 0, hand)
    put_deck_top(g, shown)
    return g


def test_R8_3_tunnel_extra_cards_are_the_matches_of_the_pay_colour_and_locomotives():
    """Madrid-Pamplona black tunnel (3): paid black, turned over black, locomotive,
    red -> 2 extra; every split the hand affords is listed, then giving up."""
    g = tunnel_game({BLACK: 5, LOCO: 1}, [BLACK, LOCO, RED])
    r = route_id(g, "Madrid", "Pamplona", BLACK)
    assert g.board.route_tunnel[r] and g.board.route_len[r] == 3
    g.apply(encode_claim(r, BLACK, 0))
    s = g.state
    assert g.phase == "tunnel" and g.player == 0 and s.meta[M_TUNNEL_EXTRA] == 2
    assert sorted(s.tunnel_shown.tolist()) == sorted([BLACK, LOCO, RED])
    assert s.tunnel_held[BLACK] == 3 and s.hand[0, BLACK] == 2
    n = g.map.n_routes
    assert g.legal_actions() == [tunnel_pay_action(n, 0), tunnel_pay_action(n, 1), tunnel_give_up_action(n)]
    assert_consistent(g)
    all_cards_kept(g)
    discards = s.discard.copy()
    g.apply(tunnel_pay_action(n, 1))
    assert s.route_owner[r] == 0 and s.score[0] == 4 and s.trains[0] == 42 and g.player == 1
    assert s.hand[0, BLACK] == 1 and s.hand[0, LOCO] == 0 and s.tunnel_held.sum() == 0
    assert (s.discard - discards).sum() == 8          # 3 laid down + 2 extra + the 3 turned over (R8.3)
    all_cards_kept(g)


def test_R8_3_a_locomotives_only_tunnel_is_matched_by_locomotives_only():
    g = tunnel_game({LOCO: 4}, [BLACK, BLACK, LOCO])
    r = route_id(g, "Barcelona", "Pamplona")           # gray tunnel of 2
    g.apply(encode_claim(r, PAY_LOCOS_ONLY, 2))
    n = g.map.n_routes
    assert g.state.meta[M_TUNNEL_EXTRA] == 1
    assert g.legal_actions() == [tunnel_pay_action(n, 1), tunnel_give_up_action(n)]
    assert_consistent(g)
    g.apply(tunnel_pay_action(n, 1))
    assert g.state.route_owner[r] == 0 and g.state.hand[0, LOCO] == 1


def test_R8_3_no_match_claims_at_once_and_giving_up_returns_the_cards():
    g = tunnel_game({BLACK: 3}, [RED, RED, GREEN])
    r = route_id(g, "Madrid", "Pamplona", BLACK)
    g.apply(encode_claim(r, BLACK, 0))
    assert g.phase == "main" and g.state.route_owner[r] == 0 and g.player == 1
    g = tunnel_game({BLACK: 3}, [BLACK, RED, GREEN])
    g.apply(encode_claim(r, BLACK, 0))
    n = g.map.n_routes
    assert g.legal_actions() == [tunnel_give_up_action(n)]        # no card left for the extra
    g.apply(tunnel_give_up_action(n))
    s = g.state
    assert g.phase == "main" and g.player == 1 and s.route_owner[r] == -1 and s.hand[0, BLACK] == 3
    assert s.discard[BLACK] >= 1 and s.discard[RED] >= 1 and s.discard[GREEN] >= 1
    all_cards_kept(g)


def test_R8_3_turned_over_cards_are_discarded_at_the_end_of_the_turn():
    """The printed timing (issue 36): while the player decides to pay or give
    up, the turned-over cards lie on the table, in no pile (the engine used
    to discard them at once, before the decision); they reach the discard
    pile when the turn ends, whether the tunnel is paid or given up, and
    before the face-up row is refilled (R3.5)."""
    for pay in (True, False):
        g = tunnel_game({BLACK: 5, LOCO: 1}, [BLACK, LOCO, RED])
        s, n = g.state, g.map.n_routes
        r = route_id(g, "Madrid", "Pamplona", BLACK)
        discards, available = s.discard.copy(), int(s.meta[M_DECK_N] + s.discard.sum())
        g.apply(encode_claim(r, BLACK, 0))
        assert g.phase == "tunnel" and s.meta[M_TUNNEL_EXTRA] == 2
        assert (s.discard == discards).all()                           # nothing discarded yet
        assert int(s.meta[M_DECK_N] + s.discard.sum()) == available - 3
        all_cards_kept(g)
        g.apply(tunnel_pay_action(n, 1) if pay else tunnel_give_up_action(n))
        gained = s.discard - discards
        assert gained[RED] == 1 and gained[LOCO] == 1 + pay and gained[BLACK] == 1 + 4 * pay
        assert sorted(s.tunnel_shown.tolist()) == sorted([BLACK, LOCO, RED])    # kept for the record
        all_cards_kept(g)


def test_R8_3_a_short_deck_turns_over_what_there_is():
    """Deck of one card and no discards: one card is turned over."""
    g = tunnel_game({BLACK: 3, LOCO: 1}, [LOCO])
    s = g.state
    n = s.meta[M_DECK_N]
    rest = s.deck[:n - 1].copy()                       # every other deck card goes to seat 1's hand
    for c in rest:
        s.hand[1, c] += 1
    s.deck[0] = s.deck[n - 1]
    s.meta[M_DECK_N] = 1
    for c in range(LOCO + 1):
        s.hand[1, c] += s.discard[c]
    s.discard[:] = 0
    r = route_id(g, "Madrid", "Pamplona", BLACK)
    g.apply(encode_claim(r, BLACK, 0))
    assert s.tunnel_shown.tolist() == [LOCO, -1, -1] and s.meta[M_TUNNEL_EXTRA] == 1
    assert_consistent(g)
    all_cards_kept(g)
    g.apply(tunnel_pay_action(g.map.n_routes, 1))
    assert s.route_owner[r] == 0


def test_R8_3_expected_extra_cards():
    unseen = np.zeros(9, np.int64)
    unseen[RED], unseen[LOCO], unseen[BLUE] = 10, 2, 12
    assert expected_extra(unseen, RED, 3) == pytest.approx(3 * 12 / 24)
    assert expected_extra(unseen, PAY_LOCOS_ONLY, 3) == pytest.approx(3 * 2 / 24)
    assert expected_extra(np.zeros(9, np.int64), RED, 3) == 0.0


# --------------------------------------------------------------------------- R8.4 stations

def test_R8_4_stations_cost_one_two_three_cards():
    g = europe()
    s, n = g.state, g.map.n_routes
    berlin = g.map.location_id("Berlin")
    put_hand(g, 0, {RED: 1, LOCO: 1})
    acts = [decode_station(n, a) for a in g.legal_actions() if a >= claims_end(n)]
    assert {(c, k) for city, c, k in acts} == {(RED, 0), (PAY_LOCOS_ONLY, 1)} and len(acts) == 2 * 47
    assert_consistent(g)
    g.apply(station_action(n, berlin, RED, 0))
    assert s.station_owner[berlin] == 0 and s.stations_left[0] == 2 and s.hand[0, RED] == 0 and g.player == 1
    assert s.trains[0] == 45
    put_hand(g, 1, {YELLOW: 3})
    assert not is_legal(g.board, s, station_action(n, berlin, YELLOW, 0))       # one station per city
    g.apply(station_action(n, berlin + 1, YELLOW, 0))                           # seat 1's first: 1 card
    put_hand(g, 0, {RED: 1, LOCO: 2})
    acts = {decode_station(n, a)[1:] for a in g.legal_actions() if a >= claims_end(n)}
    assert acts == {(RED, 1), (PAY_LOCOS_ONLY, 2)}                                # second: 2 cards
    g.apply(station_action(n, 10, RED, 1))
    put_hand(g, 1, {YELLOW: 2})
    g.apply(station_action(n, 11, YELLOW, 0))
    put_hand(g, 0, {GREEN: 3, LOCO: 3})
    acts = {decode_station(n, a)[1:] for a in g.legal_actions() if a >= claims_end(n)}
    assert acts == {(GREEN, 0), (GREEN, 1), (GREEN, 2), (PAY_LOCOS_ONLY, 3)}     # third: 3 cards
    assert_consistent(g)
    g.apply(station_action(n, 12, GREEN, 1))
    put_hand(g, 1, {YELLOW: 3})
    g.apply(station_action(n, 13, YELLOW, 0))
    assert s.stations_left[0] == 0
    put_hand(g, 0, {GREEN: 5, LOCO: 5})
    assert not [a for a in g.legal_actions() if a >= claims_end(n)]
    assert_consistent(g)
    all_cards_kept(g)


# --------------------------------------------------------------------------- R8.5 station scoring

def ticket_points_py(g, p, borrowed):
    """Seat ``p``'s ticket score with its routes plus ``borrowed``, by BFS."""
    m, s = g.map, g.state
    adj = {}
    for r in range(m.n_routes):
        if s.route_owner[r] == p or r in borrowed:
            a, b = int(m.route_a[r]), int(m.route_b[r])
            adj.setdefault(a, set()).add(b)
            adj.setdefault(b, set()).add(a)

    def joined(x, y):
        seen, todo = {x}, [x]
        while todo:
            u = todo.pop()
            for v in adj.get(u, ()):
                if v not in seen:
                    seen.add(v)
                    todo.append(v)
        return y in seen

    total = 0
    for t in range(m.n_tickets):
        if s.ticket_holder[t] == p:
            pts = int(m.ticket_points[t])
            total += pts if joined(int(m.ticket_a[t]), int(m.ticket_b[t])) else -pts
    return total


def brute_force_best(g, p):
    """The best ticket score of seat ``p`` over every choice of one route (or none) per station."""
    return brute_force_choice(g, p)[1]


def brute_force_choice(g, p):
    """R8.5 as docs/rules.md words it: of every choice of one route (-1: none)
    per station of seat ``p``, the best ticket score, then the fewest stations
    borrowing, then the first with the stations by city id and each station's
    choices none first, then by route id. Returns ({city: route}, score)."""
    m, s = g.map, g.state
    cities = [int(c) for c in np.flatnonzero(s.station_owner == p)]
    options = [[-1] + [r for r in range(m.n_routes) if s.route_owner[r] >= 0 and s.route_owner[r] != p
                       and city in (m.route_a[r], m.route_b[r])] for city in cities]
    best, key = None, None
    for combo in itertools.product(*options):         # lexicographic: the first city's choice slowest
        k = (ticket_points_py(g, p, {r for r in combo if r >= 0}), -sum(r >= 0 for r in combo))
        if key is None or k > key:
            best, key = combo, k
    return dict(zip(cities, best)), key[0]


@pytest.mark.parametrize("seed", range(12))
def test_R8_5_station_routes_are_the_best_choice_by_brute_force(seed):
    """Random boards: owners, stations and tickets at random; the engine's
    choice scores the brute-force maximum with the fewest stations borrowing
    and is the first such in the documented order, borrows only other seats'
    routes into its own stations' cities, and counts for tickets, not the
    longest path."""
    rng = np.random.default_rng(seed)
    g = europe(3, seed)
    s, m = g.state, g.map
    s.route_owner[:] = rng.choice([-1, 0, 1, 2], size=m.n_routes, p=[0.4, 0.2, 0.2, 0.2])
    s.ticket_holder[:] = rng.choice([-1, 0, 1, 2], size=m.n_tickets)
    s.station_owner[:] = -1
    for p in range(3):
        k = int(rng.integers(0, 4))
        cities = rng.choice(np.flatnonzero(s.station_owner < 0), size=k, replace=False)
        s.station_owner[cities] = p
        s.stations_left[p] = 3 - k
    choose_station_routes(g.board, s)
    final_scoring(g.board, s)
    for p in range(3):
        chosen = {int(s.station_route[c]) for c in np.flatnonzero(s.station_owner == p) if s.station_route[c] >= 0}
        for c in np.flatnonzero(s.station_owner == p):
            r = s.station_route[c]
            assert r < 0 or (s.route_owner[r] not in (-1, p) and c in (m.route_a[r], m.route_b[r]))
        assert ticket_points_py(g, p, chosen) == brute_force_best(g, p)
        want, _ = brute_force_choice(g, p)          # and exactly the documented choice among the best
        assert {c: int(s.station_route[c]) for c in want} == want
        f = s.final[p]
        assert f[F_TICKETS_WON] - f[F_TICKETS_LOST] == brute_force_best(g, p)
        assert f[F_STATIONS_USED] == len(chosen) and f[F_STATIONS_BUILT] == 3 - s.stations_left[p]
        assert f[F_STATION_PTS] == 4 * s.stations_left[p]
        assert f[F_LP_LEN] == player_longest(g.board, s, p)        # own routes only


def station_on_pamplona(g):
    """Seat 0 holds Madrid-Zurich (8) and owns Madrid-Pamplona and
    Paris-Zurich; seat 1 owns Pamplona-Paris; seat 0's station on Pamplona
    can borrow it. Scored; returns the ticket and Pamplona-Paris."""
    s, m = g.state, g.map
    s.ticket_holder[:] = -1
    t = next(t for t in range(m.n_tickets) if {m.location_names[m.ticket_a[t]], m.location_names[m.ticket_b[t]]}
             == {"Madrid", "Zurich"})
    s.ticket_holder[t] = 0
    mp = route_id(g, "Madrid", "Pamplona", BLACK)
    pp = route_id(g, "Pamplona", "Paris", BLUE)
    pz = route_id(g, "Paris", "Zurich")
    s.route_owner[mp], s.route_owner[pp], s.route_owner[pz] = 0, 1, 0
    s.score[:] = [4 + 4, 7]                                   # the running route points (R4.4)
    s.station_owner[m.location_id("Pamplona")] = 0
    s.stations_left[:] = [2, 3]
    choose_station_routes(g.board, s)
    final_scoring(g.board, s)
    return t, pp


def test_R8_5_a_station_rescues_a_ticket_and_unbuilt_stations_score_four():
    """Seat 0 holds Madrid-Zurich and owns Madrid-Pamplona; seat 1 owns
    Pamplona-Paris: a station on Pamplona completes the ticket."""
    g = europe(2)
    s, m = g.state, g.map
    t, pp = station_on_pamplona(g)
    pamplona = m.location_id("Pamplona")
    f = s.final[0]
    assert s.station_route[pamplona] == pp
    assert f[F_TICKETS_RESCUED] == 1 and f[F_STATIONS_USED] == 1 and f[F_TICKETS_WON] == m.ticket_points[t]
    assert f[F_STATION_PTS] == 8 and s.final[1, F_STATION_PTS] == 12
    assert f[F_LP_LEN] == 3              # Madrid-Pamplona, Paris-Zurich: not joined by the borrowed route
    assert s.final[1, F_LP_LEN] == 4
    assert f[F_TOTAL] == 4 + 4 + m.ticket_points[t] + 8


@pytest.mark.parametrize("points_pct, penalty_pct, won, lost", [
    (0, 0, 0, 0), (50, 50, 4, 4), (150, 150, 12, 12), (0, 100, 0, 8), (100, 0, 8, 0)])
def test_R6_3_R8_5_a_station_rescue_scores_the_scaled_values(points_pct, penalty_pct, won, lost):
    """R6.3 variants in R8.5: the station on Pamplona borrows Pamplona-Paris
    when that gains points, from minus the penalty to plus the points of
    Madrid-Zurich (8) under ``ticket_points_percent`` /
    ``ticket_penalty_percent``: at any value but 0 / 0, where the ticket is
    worth nothing either way and the station borrows nothing (the fewest)."""
    g = europe(2, overrides={"ticket_points_percent": points_pct, "ticket_penalty_percent": penalty_pct})
    _, pp = station_on_pamplona(g)
    f = g.state.final[0]
    rescued = won + lost > 0
    assert g.state.station_route[g.map.location_id("Pamplona")] == (pp if rescued else -1)
    assert (f[F_TICKETS_RESCUED], f[F_STATIONS_USED]) == (rescued, rescued)
    assert (f[F_TICKETS_WON], f[F_TICKETS_LOST]) == ((won, 0) if rescued else (0, lost))
    assert f[F_TOTAL] == 8 + (won if rescued else -lost) + 8


def test_R8_5_the_fewest_stations_that_borrow_a_route():
    """Issue 36's case (5 players, seat 4, stations on Budapest and Sofia):
    seat 4 holds Budapest-Sofia and owns Budapest-Sarajevo; other seats own
    Budapest-Bucuresti, Bucuresti-Sofia and Sarajevo-Sofia. Borrowing at both
    stations (Budapest-Bucuresti, Bucuresti-Sofia) or at Sofia alone
    (Sarajevo-Sofia) completes the ticket; the engine used to take the first
    (both); the owner's choice for the tie-break (R6.8) is Sofia alone."""
    g = europe(5, seed=1735210328)
    s, m = g.state, g.map
    s.ticket_holder[:] = -1
    s.ticket_holder[ticket_id(g, "Budapest", "Sofia")] = 4
    s.route_owner[route_id(g, "Budapest", "Sarajevo")] = 4
    s.route_owner[route_id(g, "Bucuresti", "Budapest")] = 1
    s.route_owner[route_id(g, "Bucuresti", "Sofia")] = 2
    sarajevo_sofia = route_id(g, "Sarajevo", "Sofia")
    s.route_owner[sarajevo_sofia] = 3
    budapest, sofia = m.location_id("Budapest"), m.location_id("Sofia")
    s.station_owner[:] = -1
    s.station_owner[[budapest, sofia]] = 4
    s.stations_left[:] = [3, 3, 3, 3, 1]
    choose_station_routes(g.board, s)
    final_scoring(g.board, s)
    assert s.station_route[budapest] == -1 and s.station_route[sofia] == sarajevo_sofia
    f = s.final[4]
    assert f[F_STATIONS_USED] == 1 and f[F_STATIONS_BUILT] == 2 and f[F_TICKETS_WON] == 5 and f[F_TICKETS_RESCUED] == 1


def test_R8_5_equal_choices_go_by_city_then_route_id():
    """Of equal choices (same score, same stations borrowing) the first in
    the documented order: the stations by city id, each one "no route" first
    and then by route id. Seat 0 holds Zurich-Budapest and owns Zurich-Munchen
    and Munchen-Wien; both Budapest-Wien tracks are other seats': the lower id is
    borrowed. With a station on Wien too, either station can borrow a
    Budapest-Wien track: Budapest (the lower city id) borrows none, Wien the
    lower track."""
    g = europe(3)
    s, m = g.state, g.map
    s.ticket_holder[:] = -1
    s.ticket_holder[ticket_id(g, "Zurich", "Budapest")] = 0
    s.route_owner[route_id(g, "Munchen", "Zurich")] = 0
    s.route_owner[route_id(g, "Munchen", "Wien")] = 0
    w1, w2 = sorted(r for r in range(m.n_routes) if {m.location_names[m.route_a[r]], m.location_names[m.route_b[r]]}
                    == {"Budapest", "Wien"})
    s.route_owner[w1], s.route_owner[w2] = 2, 1
    budapest, wien = m.location_id("Budapest"), m.location_id("Wien")
    assert budapest < wien
    s.station_owner[:] = -1
    s.station_owner[budapest] = 0
    choose_station_routes(g.board, s)
    assert s.station_route[budapest] == w1
    s.station_owner[wien] = 0
    choose_station_routes(g.board, s)
    assert s.station_route[budapest] == -1 and s.station_route[wien] == w1


# --------------------------------------------------------------------------- R8.6 and the codec

def test_R8_6_the_8_space_route_scores_21_and_takes_8_locomotives():
    g = europe()
    r = route_id(g, "Petrograd", "Stockholm")
    assert g.board.route_len[r] == 8 and g.board.route_points[r] == 21 and g.board.route_tunnel[r]
    put_hand(g, 0, {LOCO: 8})
    assert seat_claims(g, r) == [(PAY_LOCOS_ONLY, 8)]
    put_faceup(g, [WHITE] * 5)
    put_deck_top(g, [RED, RED, RED])
    g.apply(encode_claim(r, PAY_LOCOS_ONLY, 8))
    assert g.state.route_owner[r] == 0 and g.state.score[0] == 21 and g.state.trains[0] == 37


def test_action_codec_round_trip_with_the_europe_codes():
    """Existing codes keep their values; the 8-locomotive claim takes slot 0 of
    its route's locomotives-only run; tunnel and station codes follow the
    claims, distinct, and decode back."""
    n_routes, n_cities = 101, 47
    size = action_space_size(n_routes, n_cities)
    seen = set()
    for r in range(n_routes):
        for c in range(N_COLOURS + 1):
            for k in range(1 if c == PAY_LOCOS_ONLY else 0, CLAIM_LOCO_SLOTS + (c == PAY_LOCOS_ONLY)):
                a = int(encode_claim(r, c, k))
                if k < CLAIM_LOCO_SLOTS:
                    assert a == A_CLAIM + CLAIMS_PER_ROUTE * r + CLAIM_LOCO_SLOTS * c + k
                assert tuple(decode_claim(a)) == (r, c, k)
                seen.add(a)
    assert seen == set(range(A_CLAIM, claims_end(n_routes)))
    extra = {int(tunnel_pay_action(n_routes, k)) for k in range(4)} | {int(tunnel_give_up_action(n_routes))}
    assert extra == set(range(claims_end(n_routes), claims_end(n_routes) + 5))
    for city in range(n_cities):
        for c in range(N_COLOURS + 1):
            for k in range(STATION_LOCO_SLOTS):
                a = int(station_action(n_routes, city, c, k))
                assert tuple(decode_station(n_routes, a)) == (city, c, k)
                extra.add(a)
    assert len(extra) == 5 + STATION_CODES * n_cities and max(extra) == size - 1
    assert action_name(int(station_action(n_routes, 3, PAY_LOCOS_ONLY, 2)), n_routes) == "station 3 locomotives +2 loco"
    assert action_name(int(tunnel_pay_action(n_routes, 2)), n_routes) == "tunnel pay +2 loco"


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_R8_legal_actions_equal_the_is_legal_scan_in_random_europe_play(n_players):
    """Random play from Python: at sampled states (every tunnel decision
    among them) the legal list equals the scan of the action space."""
    rng = np.random.default_rng(n_players)
    g = Game("europe", n_players, seed=n_players)
    steps = 0
    while not g.over:
        if g.phase == "tunnel" or steps % 40 == 0:
            assert_consistent(g)
        all_cards_kept(g)
        g.apply(int(rng.choice(g.legal_actions())))
        steps += 1
    assert g.state.final[:n_players, F_TOTAL].sum() != 0
    assert g.state.meta[M_PLAYER] < n_players


# --------------------------------------------------------------------------- the map (R1.3, R8.2, R8.3)

def test_R1_3_europe_map_counts():
    from collections import Counter

    from ttrsim.data.maps import load_map
    m = load_map("europe")
    assert (m.n_locations, m.n_nodes, m.n_routes, int(m.route_len.sum())) == (47, 47, 101, 300)
    assert Counter(m.route_len.tolist()) == {1: 4, 2: 35, 3: 30, 4: 29, 6: 2, 8: 1}
    assert int(m.route_tunnel.sum()) == 18 and int(m.route_len[m.route_tunnel].sum()) == 55
    assert Counter(m.route_ferry[m.route_ferry > 0].tolist()) == {1: 9, 2: 4}
    assert (m.route_colour[m.route_ferry > 0] == 8).all()                        # ferries are gray
    assert Counter(np.bincount(m.route_group).tolist())[2] == 11                  # double routes
    assert (len(m.deck("regular")), int(m.ticket_points[m.deck("regular")].sum())) == (40, 321)
    assert (len(m.deck("long")), int(m.ticket_points[m.deck("long")].sum())) == (6, 123)
    assert m.scoring.tolist() == [0, 1, 2, 4, 7, 0, 15, 0, 21]


@pytest.mark.parametrize("row, message", [
    ("[A, B, 2, red, null, maybe, 0]", "tunnel flag 'maybe' must be true or false"),
    ("[A, B, 2, gray, null, false, 3]", "ferry locomotives 3 exceed the length 2"),
    ("[A, B, 2, gray, null, false, -1]", "ferry locomotives -1 must be an integer in 0..8"),
    ("[A, B, 2, gray, null, true]", "expected a row [a, b, length, colour, group, tunnel, ferry_locos] of 5 or 7"),
])
def test_map_tunnel_and_ferry_columns_are_checked(tmp_path, row, message):
    from ttrsim.data.maps import MapError, load_map
    p = tmp_path / "m.yaml"
    p.write_text("name: m\nscoring: {1: 1, 2: 2}\ncities: {A: [0, 0], B: [1, 1]}\ncountries: {}\n"
                 f"routes:\n  - {row}\ntickets:\n  - [A, B, 2, [base]]\n", encoding="utf-8")
    with pytest.raises(MapError) as info:
        load_map(str(p))
    assert len(info.value.problems) == 1 and message in info.value.problems[0], info.value.problems
    p.write_text(p.read_text().replace(row, "[A, B, 2, gray, null, true, 1]"), encoding="utf-8")
    m = load_map(str(p))
    assert m.route_tunnel.tolist() == [True] and m.route_ferry.tolist() == [1]
