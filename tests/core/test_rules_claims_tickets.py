"""Rules R4 (claiming routes) and R5 (drawing destination tickets), the action
codec, and the agreement of ``legal_actions`` with ``is_legal``.

Positions are built by hand on top of real games (helpers.py builders, direct
writes on ``g.state``); every hand-built position is also checked with
:func:`assert_legal_consistent` (the legal list equals every action that
``is_legal`` accepts).
"""
import numpy as np
import pytest
from numba import njit

from ttrsim.core.actions import (
    A_BLIND,
    A_CLAIM,
    A_FACEUP,
    A_KEEP,
    A_PASS,
    A_PASSENGER,
    A_TICKETS,
    PAY_LOCOS_ONLY,
    action_name,
    action_space_size,
    claims_end,
    decode_claim,
    encode_claim,
)
from ttrsim.core.engine import (
    apply_action,
    claimable_routes,
    is_legal,
    legal_actions,
    non_claim_actions,
    payments,
    sync_route_open,
)
from ttrsim.core.rng import rand_below, seed_stream
from ttrsim.core.state import M_DECK_N, M_PHASE, M_PLAYER, PH_MAIN, PH_OVER
from ttrsim.data.ids import (
    BLUE,
    GRAY,
    GREEN,
    LOCO,
    N_COLOURS,
    P_BLACK,
    P_BLUE,
    P_GREEN,
    P_RED,
    P_WHITE,
    P_YELLOW,
    PINK,
    RED,
    WHITE,
    YELLOW,
)
from ttrsim.play.game import Game, IllegalAction

from helpers import card_total, put_hand, route_id, setup_game

PRESETS = ("usa", "usa-1910", "usa-mega", "usa-bigcities", "germany")
DRAW_SIZE = {"usa": 3, "usa-1910": 3, "usa-mega": 4, "usa-bigcities": 4, "germany": 4}     # R7
ROUTE_POINTS = {1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15, 7: 18}                              # R1.4


# --------------------------------------------------------------------------- helpers

@njit
def _scan_is_legal(b, s, size, out):
    """Every action of the action space that ``is_legal`` accepts, ascending."""
    n = 0
    for a in range(size):
        if is_legal(b, s, a):
            out[n] = a
            n += 1
    return n


@njit
def _sorted_equal(x, nx, y, ny):
    if nx != ny:
        return False
    xs = np.sort(x[:nx])
    for i in range(nx):
        if xs[i] != y[i]:
            return False
    return True


@njit
def _conserved(b, s):
    """The 110 train cards (R1.1) and every ticket of the rule set are somewhere."""
    cards = s.meta[M_DECK_N] + s.discard.sum() + s.hand.sum()
    for c in s.faceup:
        cards += c >= 0
    held = 0
    for t in range(s.ticket_holder.shape[0]):
        held += s.ticket_holder[t] >= 0
    return cards == b.card_counts.sum() and held + s.tk_len.sum() + s.offer_n.sum() == b.deck_size.sum()


@njit
def _random_walk_check(b, s, size, every, max_steps, legal, scan, phase_seen, stream):
    """Play random legal actions (random ``stream``) from ``s``; every ``every``
    actions compare ``legal_actions`` with the ``is_legal`` scan and with the
    list without claims (:func:`_short_list_check`), and check that no card or
    ticket was lost. Returns the
    number of states checked, or ``-1 - step`` at the first disagreement (the
    state is left as it is)."""
    checked = 0
    ok = np.empty(b.route_len.shape[0], np.bool_)
    for step in range(max_steps):
        if s.meta[M_PHASE] == PH_OVER:
            break
        n = legal_actions(b, s, legal)
        if step % every == 0:
            m = _scan_is_legal(b, s, size, scan)
            if not _sorted_equal(legal, n, scan, m) or not _conserved(b, s):
                return -1 - step
            if not _short_list_check(b, s, legal, n, scan, ok):
                return -1 - step
            checked += 1
            phase_seen[s.meta[M_PHASE]] += 1
        apply_action(b, s, legal[rand_below(stream, 0, n)])
    return checked


@njit
def _short_list_check(b, s, legal, n, short, ok):
    """The list without claims (``non_claim_actions``) is the full list
    ``legal[:n]`` less its claims (empty when it holds only claims), and the
    claims rebuilt from the hand (``claimable_routes`` then ``payments`` per
    route) are the full list's claims in the same order."""
    m = non_claim_actions(b, s, short)
    n_other = 0
    while n_other < n and legal[n_other] < A_CLAIM:
        n_other += 1
    if m != n_other:
        return False
    for i in range(m):
        if short[i] != legal[i]:
            return False
    if s.meta[M_PHASE] != PH_MAIN:
        return True
    claimable_routes(b, s, s.meta[M_PLAYER], ok)
    k = n_other
    for r in range(ok.shape[0]):
        if ok[r]:
            k2 = payments(b, s, s.meta[M_PLAYER], r, short, 0)
            if k2 == 0:
                return False
            for i in range(k2):
                if k >= n or legal[k] != short[i]:
                    return False
                k += 1
    return k == n or (n == 1 and legal[0] == A_PASS)


def legal_by_scan(g):
    size = action_space_size(g.map.n_routes)
    out = np.empty(size, np.int32)
    n = _scan_is_legal(g.board, g.state, size, out)
    return [int(a) for a in out[:n]]


def assert_legal_consistent(g):
    legal = g.legal_actions()
    assert len(set(legal)) == len(legal), "duplicate legal actions"
    assert sorted(legal) == legal_by_scan(g)


def claims(g, r=None):
    """Legal claim actions as (route, colour, locos), of route ``r`` or all."""
    out = [decode_claim(a) for a in g.legal_actions() if a >= A_CLAIM]
    return sorted(x for x in out if r is None or x[0] == r)


def claim_routes(g):
    return {x[0] for x in claims(g)}


def pass_turn(g):
    """End the turn of the seat to act with blind draws."""
    p = g.player
    g.apply(A_BLIND)
    if g.phase == "draw2":
        g.apply(A_BLIND)
    assert g.player != p


def finish_passengers(g):
    while g.phase == "passenger":
        g.apply(g.legal_actions()[0])


def pile(g, d):
    """Ticket pile ``d`` from top to bottom."""
    s = g.state
    cap = s.tk_buf.shape[1]
    return [int(s.tk_buf[d, (s.tk_head[d] + i) % cap]) for i in range(s.tk_len[d])]


def offer(g, p):
    s = g.state
    return [int(t) for t in s.offer[p, :s.offer_n[p]]]


def remove_top_tickets(g, d, n, holder=1):
    """Hand-built: give the top ``n`` tickets of pile ``d`` to seat ``holder``."""
    s = g.state
    for t in pile(g, d)[:n]:
        s.ticket_holder[t] = holder
    s.tk_head[d] = (s.tk_head[d] + n) % s.tk_buf.shape[1]
    s.tk_len[d] -= n


def ticket_actions(g):
    return [a for a in g.legal_actions() if A_TICKETS <= a < A_KEEP]


def popcount(x):
    return bin(x).count("1")


# --------------------------------------------------------------------------- R4 claim a route

def test_R4_1_any_free_route_need_not_connect():
    """R4.1 "Any unclaimed route may be claimed; it need not connect to the player's
    other routes." """
    g = setup_game("usa", 2, seed=3)
    put_hand(g, 0, {RED: 10, LOCO: 7})             # enough to pay every route of the map
    assert claim_routes(g) == set(range(100))
    seattle = route_id(g, "Seattle", "Portland")
    miami = route_id(g, "Atlanta", "Miami")
    g.apply(encode_claim(seattle, RED, 0))
    pass_turn(g)
    assert miami in claim_routes(g)             # far away from Seattle-Portland
    g.apply(encode_claim(miami, PAY_LOCOS_ONLY, 5))
    assert g.state.route_owner[[seattle, miami]].tolist() == [0, 0]
    assert_legal_consistent(g)


def test_R4_1_one_route_per_turn():
    """R4.1 "One route per turn at most." After a claim the turn passes; a claimed
    route can no longer be claimed by anyone."""
    g = setup_game("usa", 2, seed=3)
    put_hand(g, 0, {RED: 6, LOCO: 2})
    put_hand(g, 1, {RED: 4})
    r = route_id(g, "Atlanta", "Nashville")
    g.apply(encode_claim(r, RED, 0))
    assert g.player == 1 and g.phase == "main"
    assert r not in claim_routes(g)
    assert not g.is_legal(encode_claim(r, RED, 0))
    pass_turn(g)
    assert g.player == 0 and r not in claim_routes(g)
    assert claim_routes(g)                      # other routes are open again next turn


def test_R4_1_claim_is_a_whole_turn():
    """R4.1 "One route per turn at most": claiming is the turn's one action, never
    after a card draw or a ticket draw in the same turn."""
    g = setup_game("usa", 2, seed=3)
    put_hand(g, 0, {RED: 6, LOCO: 2})
    assert claims(g)
    g.apply(A_BLIND)
    assert g.phase == "draw2" and claims(g) == []
    assert not g.is_legal(encode_claim(route_id(g, "Atlanta", "Nashville"), RED, 0))
    assert_legal_consistent(g)
    g.apply(A_BLIND)
    pass_turn(g)
    g.apply(A_TICKETS + 3)
    assert g.phase == "keep" and claims(g) == []
    assert_legal_consistent(g)


@pytest.mark.parametrize("preset", ["usa", "germany"])
def test_R4_2_colour_route_paid_with_its_colour_and_locomotives(preset):
    """R4.2 "Pay exactly `length` cards: all of the route's colour [...]; locomotives
    may replace any of them." A card of another colour never pays."""
    g = setup_game(preset, 2, seed=1)
    m = g.map
    r = next(r for r in range(m.n_routes) if m.route_len[r] == 3 and m.route_colour[r] == RED)
    put_hand(g, 0, {RED: 2, BLUE: 3, GREEN: 4, LOCO: 2})
    assert claims(g, r) == [(r, RED, 1), (r, RED, 2)]
    for c in range(N_COLOURS):
        for k in range(8):
            if (c, k) not in ((RED, 1), (RED, 2)):
                assert not g.is_legal(encode_claim(r, c, k)), (c, k)
    assert not g.is_legal(encode_claim(r, PAY_LOCOS_ONLY, 3))        # only 2 locomotives
    put_hand(g, 0, {RED: 4, LOCO: 1})
    assert claims(g, r) == [(r, RED, 0), (r, RED, 1)]
    assert_legal_consistent(g)


def test_R4_2_gray_route_any_one_colour():
    """R4.2 "for a gray route all of one colour chosen by the player; locomotives
    may replace any of them" """
    g = setup_game("usa", 2, seed=1)
    r = route_id(g, "Atlanta", "Charleston")        # 2 gray
    assert g.map.route_colour[r] == GRAY
    put_hand(g, 0, {RED: 1, BLUE: 2, WHITE: 3, LOCO: 1})
    assert claims(g, r) == sorted([(r, BLUE, 0), (r, BLUE, 1), (r, WHITE, 0), (r, WHITE, 1), (r, RED, 1)])
    assert not g.is_legal(encode_claim(r, RED, 0))                    # 1 red only
    assert_legal_consistent(g)


def test_R4_2_mixed_colours_illegal():
    """R4.2 "all of one colour": two colours never pay one route together."""
    g = setup_game("usa", 2, seed=1)
    r = route_id(g, "Calgary", "Vancouver")         # 3 gray
    put_hand(g, 0, {RED: 2, BLUE: 1, GREEN: 2})
    assert claims(g, r) == []
    assert not any(g.is_legal(encode_claim(r, c, k)) for c in range(9) for k in range(8))
    assert_legal_consistent(g)


@pytest.mark.parametrize("preset", ["usa", "germany"])
def test_R4_2_locomotives_only(preset):
    """R4.2 "(a route can be paid with locomotives only)" """
    g = setup_game(preset, 2, seed=2)
    m = g.map
    r = next(r for r in range(m.n_routes) if m.route_len[r] == 4 and m.route_colour[r] != GRAY)
    put_hand(g, 0, {LOCO: 4})
    assert claims(g, r) == [(r, PAY_LOCOS_ONLY, 4)]
    discard = g.state.discard.copy()
    g.apply(encode_claim(r, PAY_LOCOS_ONLY, 4))
    finish_passengers(g)
    assert g.state.hand[0].sum() == 0
    assert g.state.discard[LOCO] == discard[LOCO] + 4
    assert g.state.route_owner[r] == 0


def test_R4_2_paid_cards_go_to_the_discards():
    """R4.2 "Pay exactly `length` cards [...] Paid cards go to the discard pile." """
    g = setup_game("usa", 2, seed=4)
    r = route_id(g, "Helena", "Omaha")              # 5 red
    put_hand(g, 0, {RED: 4, BLUE: 2, LOCO: 3})
    s = g.state
    before_hand, before_discard = s.hand[0].copy(), s.discard.copy()
    g.apply(encode_claim(r, RED, 2))
    assert (before_hand - s.hand[0]).tolist() == [0] * 7 + [3, 2]     # exactly 5 cards: 3 red + 2 loco
    assert (s.discard - before_discard).tolist() == [0] * 7 + [3, 2]
    assert s.hand[0, BLUE] == 2
    assert card_total(g) == 110


def test_R4_3_not_enough_trains():
    """R4.3 "The player must have at least `length` trains left." """
    g = setup_game("usa", 2, seed=5)
    put_hand(g, 0, {RED: 8, LOCO: 6})
    g.state.trains[0] = 3
    lengths = {int(g.map.route_len[r]) for r in claim_routes(g)}
    assert lengths == {1, 2, 3}
    r4 = route_id(g, "Calgary", "Helena")
    assert not g.is_legal(encode_claim(r4, RED, 0))
    r3 = route_id(g, "Calgary", "Vancouver")
    g.apply(encode_claim(r3, RED, 0))
    assert g.state.trains[0] == 0
    assert_legal_consistent(g)
    pass_turn(g)
    assert claims(g) == [] and g.state.hand[0, RED] == 5
    assert_legal_consistent(g)


@pytest.mark.parametrize("preset,lengths", [("usa", range(1, 7)), ("germany", range(1, 8))])
def test_R4_4_route_points_scored_at_once(preset, lengths):
    """R4.4 "The player scores the route's points (R1.4) at once." R1.4: 1:1, 2:2,
    3:4, 4:7, 5:10, 6:15, 7:18, for every route length of the map."""
    base = setup_game(preset, 2, seed=6)
    m = base.map
    assert sorted({int(x) for x in m.route_len}) == list(lengths)
    for length in lengths:
        r = next(r for r in range(m.n_routes) if m.route_len[r] == length)
        colour = RED if m.route_colour[r] == GRAY else int(m.route_colour[r])
        g = base.copy()
        put_hand(g, 0, {colour: length})
        score = int(g.state.score[0])
        g.apply(encode_claim(r, colour, 0))
        assert g.state.score[0] - score == ROUTE_POINTS[length], length   # before any passenger choice
        assert g.state.trains[0] == 45 - length


def test_R4_4_scoring_table_is_a_rule_parameter():
    """R4.4 with R7 "Every entry of this table is a rule parameter": a changed table scores."""
    g = setup_game("usa", 2, seed=6, overrides={"scoring": {3: 9}})
    r = route_id(g, "Calgary", "Vancouver")
    put_hand(g, 0, {RED: 3})
    g.apply(encode_claim(r, RED, 0))
    assert g.state.score[0] == 9


def double_tracks(g, a, b):
    m = g.map
    return [r for r in range(m.n_routes) if {m.node_names[m.route_a[r]], m.node_names[m.route_b[r]]} == {a, b}]


@pytest.mark.parametrize("n_players", [2, 3])
def test_R4_5_double_route_closed_for_everyone_with_2_or_3_players(n_players):
    """R4.5 "In games with 2 or 3 players, once one track is claimed all other tracks
    between those endpoints are closed to everyone." """
    g = setup_game("usa", n_players, seed=7)
    red, yellow = route_id(g, "Boston", "New York", RED), route_id(g, "Boston", "New York", YELLOW)
    for p in range(n_players):
        put_hand(g, p, {RED: 2, YELLOW: 2, LOCO: 1})
    assert red in claim_routes(g) and yellow in claim_routes(g)
    g.apply(encode_claim(red, RED, 0))
    for _ in range(n_players):                      # every seat, seat 0 included
        assert yellow not in claim_routes(g), g.player
        assert not g.is_legal(encode_claim(yellow, YELLOW, 0))
        assert_legal_consistent(g)
        pass_turn(g)
    assert g.state.route_owner[yellow] == -1


@pytest.mark.parametrize("n_players", [4, 5])
def test_R4_5_double_route_other_player_with_4_or_5_players(n_players):
    """R4.5 "a player may never claim more than one track between the same two
    endpoints. [...] With 4 or 5 players each track can be claimed by a different player." """
    g = setup_game("usa", n_players, seed=7)
    a, b = double_tracks(g, "Dallas", "Houston")    # 1 gray, twice
    for p in range(n_players):
        put_hand(g, p, {RED: 1, BLUE: 1})
    g.apply(encode_claim(a, RED, 0))
    for _ in range(n_players - 1):                  # every other seat may take the second track
        assert b in claim_routes(g), g.player
        pass_turn(g)
    assert g.player == 0
    assert b not in claim_routes(g)             # never both tracks for seat 0
    assert not g.is_legal(encode_claim(b, BLUE, 0))
    assert_legal_consistent(g)
    pass_turn(g)
    g.apply(encode_claim(b, BLUE, 0))               # seat 1 takes it
    assert g.state.route_owner[[a, b]].tolist() == [0, 1]


def test_R4_5_double_route_same_player_never_both_with_2_players():
    """R4.5 "a player may never claim more than one track between the same two endpoints" (2 players)."""
    g = setup_game("usa", 2, seed=8)
    a, b = double_tracks(g, "Atlanta", "Raleigh")
    put_hand(g, 0, {RED: 2, BLUE: 2})
    g.apply(encode_claim(a, RED, 0))
    pass_turn(g)
    assert b not in claim_routes(g)


@pytest.mark.parametrize("rules,n_players", [("usa", 2), ("usa", 4), ("germany", 3), ("europe", 5)])
def test_R4_5_open_routes_kept_by_the_claims_are_those_the_owners_give(rules, n_players):
    """R4.5: the seats' sets of open routes the claims keep (``route_open``)
    are what :func:`sync_route_open` recomputes from the route owners alone,
    at every point of a random game (a position whose owners are set by hand
    gets its sets that way)."""
    g = setup_game(rules, n_players, seed=11)
    rng = np.random.default_rng(3)
    while g.state.meta[M_PHASE] != PH_OVER:
        kept = g.state.route_open.copy()
        g.state.route_open[:] = 0
        sync_route_open(g.board, g.state)
        assert (g.state.route_open == kept).all()
        g.apply(int(rng.choice(g.legal_actions())))
    assert (g.state.route_owner >= 0).sum() > 10


def test_R4_5_lock_threshold_is_a_rule_parameter():
    """R4.5 via ``lock_parallel_max_players``: raised to 4, a 4-player game closes
    the second track for everyone too."""
    for lock, second_open in ((3, True), (4, False)):
        g = setup_game("usa", 4, seed=7, overrides={"lock_parallel_max_players": lock})
        a, b = double_tracks(g, "Dallas", "Houston")
        put_hand(g, 0, {RED: 1})
        put_hand(g, 1, {RED: 1})
        g.apply(encode_claim(a, RED, 0))
        assert g.player == 1 and (b in claim_routes(g)) == second_open


def test_R4_5_germany_triple_route_3_players_all_closed():
    """R4.5 triple route Dortmund-Düsseldorf, 3 players: after one claim all other
    tracks are closed to everyone."""
    g = setup_game("germany", 3, seed=1)
    tracks = double_tracks(g, "Dortmund", "Düsseldorf")
    assert len(tracks) == 3
    for p in range(3):
        put_hand(g, p, {RED: 1, BLUE: 1})
    g.apply(encode_claim(tracks[0], RED, 0))
    finish_passengers(g)
    for _ in range(3):
        assert not set(tracks) & claim_routes(g), g.player
        assert_legal_consistent(g)
        pass_turn(g)


def test_R4_5_germany_triple_route_4_players_each_track_another_player():
    """R4.5 triple route Dortmund-Düsseldorf, 4 players: "each track can be claimed
    by a different player", and never two tracks by one player."""
    g = setup_game("germany", 4, seed=1)
    t0, t1, t2 = double_tracks(g, "Dortmund", "Düsseldorf")
    for p in range(4):
        put_hand(g, p, {RED: 2, BLUE: 2})

    def turn(claim=None):
        if claim is None:
            pass_turn(g)
        else:
            g.apply(encode_claim(claim, RED, 0))
            finish_passengers(g)

    turn(t0)                                          # seat 0
    for _ in range(3):                                # seats 1..3 could take t1 or t2
        assert {t1, t2} <= claim_routes(g)
        turn()
    assert not {t1, t2} & claim_routes(g)        # seat 0: never a second track
    turn()
    turn(t1)                                          # seat 1
    turn()                                            # seat 2
    turn()                                            # seat 3
    turn()                                            # seat 0
    assert g.player == 1 and t2 not in claim_routes(g)
    turn()
    assert g.player == 2 and t2 in claim_routes(g)
    turn(t2)
    assert g.state.route_owner[[t0, t1, t2]].tolist() == [0, 1, 2]
    assert not {t0, t1, t2} & claim_routes(g)    # seat 3: all taken
    assert_legal_consistent(g)


# --- R4.6 passengers

@pytest.fixture
def ger():
    """Germany, 2 players, seat 0 to act with cards for Dortmund-Kassel (4 green)
    and Düsseldorf-Niederlande/2 (3 pink)."""
    g = setup_game("germany", 2, seed=4)
    put_hand(g, 0, {GREEN: 4, PINK: 3})
    return g


def set_passengers(g, place, counts):
    row = [0] * 6
    for c, n in counts.items():
        row[c] = n
    g.state.pass_loc[g.map.location_id(place)] = row


def test_R4_6_passenger_colour_choice_then_automatic(ger):
    """R4.6 "after claiming, the player takes one passenger from each of the route's
    two endpoints (city or country), if any remain there, choosing the colour when
    there is a choice (a strategy decision)." """
    g = ger
    r = route_id(g, "Dortmund", "Kassel")
    set_passengers(g, "Dortmund", {P_BLACK: 1, P_BLUE: 2})
    set_passengers(g, "Kassel", {P_RED: 1})
    g.apply(encode_claim(r, GREEN, 0))
    assert g.phase == "passenger" and g.player == 0
    assert g.observation()["passenger_place"] == "Dortmund"
    assert g.legal_actions() == [A_PASSENGER + P_BLACK, A_PASSENGER + P_BLUE]
    assert not g.is_legal(A_PASSENGER + P_RED) and not g.is_legal(A_BLIND)
    assert_legal_consistent(g)
    g.apply(A_PASSENGER + P_BLUE)
    assert g.phase == "main" and g.player == 1      # Kassel: one colour, taken automatically
    s, m = g.state, g.map
    assert s.pass_player[0].tolist() == [0, 1, 0, 1, 0, 0]
    assert s.pass_loc[m.location_id("Dortmund")].tolist() == [1, 1, 0, 0, 0, 0]
    assert s.pass_loc[m.location_id("Kassel")].sum() == 0


def test_R4_6_two_choices(ger):
    """R4.6 a choice at each endpoint when both hold several colours."""
    g = ger
    r = route_id(g, "Dortmund", "Kassel")
    set_passengers(g, "Dortmund", {P_BLACK: 1, P_GREEN: 1})
    set_passengers(g, "Kassel", {P_WHITE: 3, P_YELLOW: 1})
    g.apply(encode_claim(r, GREEN, 0))
    assert g.observation()["passenger_place"] == "Dortmund"
    g.apply(A_PASSENGER + P_GREEN)
    assert g.phase == "passenger" and g.player == 0
    assert g.observation()["passenger_place"] == "Kassel"
    assert g.legal_actions() == [A_PASSENGER + P_WHITE, A_PASSENGER + P_YELLOW]
    g.apply(A_PASSENGER + P_WHITE)
    assert g.phase == "main" and g.player == 1
    assert g.state.pass_player[0].tolist() == [0, 0, 1, 0, 1, 0]


def test_R4_6_one_colour_automatic_none_left_nothing(ger):
    """R4.6 "if any remain there": one colour left is taken without a choice (one
    passenger only); nothing left, nothing taken."""
    g = ger
    r = route_id(g, "Dortmund", "Kassel")
    set_passengers(g, "Dortmund", {P_GREEN: 3})
    set_passengers(g, "Kassel", {})
    g.apply(encode_claim(r, GREEN, 0))
    assert g.phase == "main" and g.player == 1
    assert g.state.pass_player[0].tolist() == [0, 0, 1, 0, 0, 0]
    assert g.state.pass_loc[g.map.location_id("Dortmund")].tolist() == [0, 0, 2, 0, 0, 0]

    h = setup_game("germany", 2, seed=4)
    put_hand(h, 0, {GREEN: 4})
    set_passengers(h, "Dortmund", {})
    set_passengers(h, "Kassel", {})
    h.apply(encode_claim(r, GREEN, 0))
    assert h.phase == "main" and h.player == 1
    assert h.state.pass_player.sum() == 0


def test_R4_6_country_endpoint_passenger(ger):
    """R4.6 "one passenger from each of the route's two endpoints (city or country)":
    a route to a border point takes from the country."""
    g = ger
    r = route_id(g, "Düsseldorf", "Niederlande/2")
    set_passengers(g, "Düsseldorf", {})
    set_passengers(g, "Niederlande", {P_WHITE: 1})
    g.apply(encode_claim(r, PINK, 0))
    assert g.phase == "main"
    assert g.state.pass_player[0].tolist() == [0, 0, 0, 0, 1, 0]
    assert g.state.pass_loc[g.map.location_id("Niederlande")].sum() == 0


def test_R4_6_collected_passengers_are_public(ger):
    """R4.6 "Collected passengers are public." (another seat's observation shows them)"""
    g = ger
    r = route_id(g, "Dortmund", "Kassel")
    set_passengers(g, "Dortmund", {P_BLACK: 1, P_BLUE: 1})
    set_passengers(g, "Kassel", {P_RED: 2})
    obs = g.observation(1)
    assert obs["players"][0]["passengers"] == {}
    g.apply(encode_claim(r, GREEN, 0))
    assert g.observation(1)["passenger_place"] == "Dortmund"     # the pending place is public too
    g.apply(A_PASSENGER + P_BLACK)
    obs = g.observation(1)
    assert obs["seat"] == 1
    assert obs["players"][0]["passengers"] == {"black": 1, "red": 1}
    assert obs["passengers_on_board"]["Dortmund"] == {"blue": 1}
    assert obs["passengers_on_board"]["Kassel"] == {"red": 1}


def test_R4_6_no_passengers_outside_germany():
    """R4.6 is Germany only: a USA claim ends the turn at once."""
    g = setup_game("usa", 2, seed=4)
    put_hand(g, 0, {RED: 1})
    g.apply(encode_claim(route_id(g, "Atlanta", "Nashville"), RED, 0))
    assert g.phase == "main" and g.player == 1 and g.state.pass_player.sum() == 0


# --------------------------------------------------------------------------- R5 destination tickets

@pytest.mark.parametrize("preset", PRESETS)
def test_R5_1_draw_size_per_preset_keep_at_least_one(preset):
    """R5.1 "Draw the number of tickets of the rule set (R7) and keep at least one":
    usa 3, usa-1910 3, usa-mega 4, usa-bigcities 4, germany 4 (any short/long mix)."""
    n = DRAW_SIZE[preset]
    g = setup_game(preset, 2, seed=8)
    if preset == "germany":
        assert ticket_actions(g) == [A_TICKETS + k for k in range(n + 1)]
        g.apply(A_TICKETS + 1)
    else:
        assert ticket_actions(g) == [A_TICKETS + n]    # one pile: all n from it
        g.apply(A_TICKETS + n)
    assert g.phase == "keep" and g.player == 0
    assert g.state.offer_n[0] == n
    assert g.legal_actions() == [A_KEEP + m for m in range(1, 1 << n)]
    assert not g.is_legal(A_KEEP + 0)
    with pytest.raises(IllegalAction):
        g.apply(A_KEEP + 0)
    assert_legal_consistent(g)
    held = int((g.state.ticket_holder == 0).sum())
    g.apply(A_KEEP + 1)
    assert (g.state.ticket_holder == 0).sum() == held + 1
    assert g.phase == "main" and g.player == 1


def test_R5_1_usa_returned_tickets_to_the_bottom_in_order():
    """R5.1 "the rest go to the bottom of their deck" (exact pile order)."""
    g = setup_game("usa", 2, seed=9)
    before = pile(g, 0)
    g.apply(A_TICKETS + 3)
    off = offer(g, 0)
    assert off == before[:3]                        # drawn from the top
    g.apply(A_KEEP + 0b010)
    assert pile(g, 0) == before[3:] + [off[0], off[2]]
    assert g.state.ticket_holder[off].tolist() == [-1, 0, -1]


def test_R5_1_germany_mix_and_returns_to_their_own_pile():
    """R5.1 "Germany: announce the short/long mix first (R2.3); each returned ticket
    goes to the bottom of its own deck." """
    g = setup_game("germany", 2, seed=9, mix=2)
    short, long_ = pile(g, 0), pile(g, 1)
    g.apply(A_TICKETS + 3)                          # 3 short + 1 long
    off = offer(g, 0)
    assert off == short[:3] + long_[:1]
    assert [int(g.board.ticket_deck[t]) for t in off] == [0, 0, 0, 1]
    g.apply(A_KEEP + 0b0010)                        # keep the second short one
    assert pile(g, 0) == short[3:] + [off[0], off[2]]
    assert pile(g, 1) == long_[1:] + [off[3]]
    assert g.state.ticket_holder[off[1]] == 0

    g = setup_game("germany", 2, seed=10)
    short, long_ = pile(g, 0), pile(g, 1)
    g.apply(A_TICKETS + 0)                          # all 4 long
    off = offer(g, 0)
    assert off == long_[:4]
    g.apply(A_KEEP + 0b1001)
    assert pile(g, 0) == short
    assert pile(g, 1) == long_[4:] + [off[1], off[2]]


def test_R5_2_fewer_tickets_than_draw_size_draw_what_remains():
    """R5.2 "If fewer tickets remain than the draw size, draw what remains" """
    g = setup_game("usa", 2, seed=2)
    remove_top_tickets(g, 0, len(pile(g, 0)) - 2)
    rest = pile(g, 0)
    assert ticket_actions(g) == [A_TICKETS + 2]
    assert not g.is_legal(A_TICKETS + 3)
    g.apply(A_TICKETS + 2)
    assert offer(g, 0) == rest and g.state.tk_len[0] == 0
    assert g.legal_actions() == [A_KEEP + 1, A_KEEP + 2, A_KEEP + 3]
    g.apply(A_KEEP + 1)
    assert pile(g, 0) == [rest[1]]


def test_R5_2_no_ticket_left_action_not_available():
    """R5.2 "(at least one ticket must remain for the action to be available)" """
    g = setup_game("usa", 2, seed=2)
    remove_top_tickets(g, 0, len(pile(g, 0)))
    assert ticket_actions(g) == []
    assert not any(g.is_legal(a) for a in range(A_TICKETS, A_KEEP))
    assert_legal_consistent(g)

    g = setup_game("germany", 2, seed=2)
    remove_top_tickets(g, 0, len(pile(g, 0)))
    remove_top_tickets(g, 1, len(pile(g, 1)))
    assert ticket_actions(g) == []
    assert_legal_consistent(g)


@pytest.mark.parametrize("short,long_,ks", [
    (1, 10, [0, 1]),          # at most 1 short
    (10, 2, [2, 3, 4]),       # at most 2 long
    (0, 2, [0]),              # 2 left in all: both long
    (3, 0, [3]),              # 3 left in all: all short
    (2, 2, [2]),              # exactly 4 left: 2 + 2
])
def test_R5_2_germany_mix_range_limited_by_pile_sizes(short, long_, ks):
    """R5.2 with the Germany mix (R2.3): the mix can only take what each pile
    holds, and the draw size shrinks to what remains."""
    g = setup_game("germany", 2, seed=3)
    remove_top_tickets(g, 0, len(pile(g, 0)) - short)
    remove_top_tickets(g, 1, len(pile(g, 1)) - long_)
    assert ticket_actions(g) == [A_TICKETS + k for k in ks]
    assert_legal_consistent(g)
    g.apply(A_TICKETS + ks[-1])
    assert g.state.offer_n[0] == min(4, short + long_)
    assert [int(g.board.ticket_deck[t]) for t in offer(g, 0)].count(0) == ks[-1]


def test_R5_3_any_number_of_tickets():
    """R5.3 "A player may hold any number of tickets." """
    g = setup_game("usa-mega", 2, seed=5)
    for _ in range(8):
        assert A_TICKETS + 4 in g.legal_actions()
        g.apply(A_TICKETS + 4)
        g.apply(A_KEEP + 0b1111)
        pass_turn(g)
    assert (g.state.ticket_holder == 0).sum() == 5 + 32
    assert g.observation(1)["players"][0]["tickets"] == 37


def test_R5_3_tickets_are_secret():
    """R5.3 "Tickets are secret until the end." Another seat's observation shows
    only how many tickets a seat holds, never which; nor what is on offer."""
    g = setup_game("usa", 2, seed=12)
    g.apply(A_TICKETS + 3)
    offered = offer(g, 0)

    def ids(records):
        return [t["id"] for t in records]
    own = g.observation(0)
    assert ids(own["offer"]) == offered
    other = g.observation(1)                   # tickets appear in an observation only under these two keys
    assert other["offer"] == [] and other["seat"] == 1 and not set(ids(other["tickets"])) & set(offered)
    g.apply(A_KEEP + 0b101)
    held0 = np.flatnonzero(g.state.ticket_holder == 0).tolist()
    held1 = np.flatnonzero(g.state.ticket_holder == 1).tolist()
    assert len(held0) == 5
    other = g.observation(1)
    assert ids(other["tickets"]) == held1 and other["offer"] == []
    assert other["players"][0]["tickets"] == 5
    assert ids(g.observation(0)["tickets"]) == held0


# --------------------------------------------------------------------------- action codec

def test_action_codec_round_trip():
    """The action codec (ttrsim.core.actions): every route x pay colour (8 colours +
    locomotives only) x locomotive count encodes to a distinct action of the
    claim range and decodes back; the ranges of the other actions do not overlap."""
    for n_routes in (100, 110):
        size = claims_end(n_routes)          # Europe's tunnel and station codes follow (test_rules_europe.py)
        seen = set()
        for r in range(n_routes):
            for c in range(N_COLOURS + 1):
                for k in range(8):
                    a = int(encode_claim(r, c, k))
                    assert A_CLAIM <= a < size < action_space_size(n_routes)
                    # locomotives only with 0 is no payment: its slot holds the 8-locomotive claim (R8.6)
                    assert tuple(decode_claim(a)) == (r, c, 8 if (c, k) == (PAY_LOCOS_ONLY, 0) else k)
                    seen.add(a)
        assert seen == set(range(A_CLAIM, size))
    assert A_FACEUP + 7 < A_BLIND < A_PASS < A_TICKETS
    assert A_TICKETS + 8 < A_KEEP and A_KEEP + 255 < A_PASSENGER and A_PASSENGER + 5 < A_CLAIM
    assert PAY_LOCOS_ONLY == N_COLOURS
    assert action_name(encode_claim(7, PAY_LOCOS_ONLY, 3)) == "claim 7 locomotives +3 loco"


@pytest.mark.parametrize("preset", PRESETS)
def test_legal_actions_equal_is_legal_scan_in_random_play(preset):
    """``legal_actions`` equals {a in the action space : is_legal(a)} on states
    sampled from random play with 2, 3, 4 and 5 players (the legality rules of
    R2-R5 agree between the list and the independent check); the list without
    claims and the claims found from the hand (R4.1-R4.3, R4.5) agree with it."""
    total = 0
    phase_seen = np.zeros(8, np.int64)
    for n_players in (2, 3, 4, 5):
        for seed in (1, 2):
            g = Game(preset, n_players, seed=seed * 10 + n_players)
            size = action_space_size(g.map.n_routes)
            legal = np.empty(size, np.int32)
            scan = np.empty(size, np.int32)
            got = _random_walk_check(g.board, g.state, size, 3, 2000, legal, scan, phase_seen, seed_stream(g.seed, 0))
            if got < 0:
                lst, chk = sorted(g.legal_actions()), legal_by_scan(g)
                pytest.fail(f"{preset} {n_players}p seed {g.seed} step {-1 - got} phase {g.phase}: "
                            f"cards {card_total(g)}, tickets conserved {_conserved(g.board, g.state)}, "
                            f"only in legal_actions {sorted(set(lst) - set(chk))}, "
                            f"only is_legal {sorted(set(chk) - set(lst))}")
            total += got
    assert total >= 300
    names = ["setup-mix", "setup-keep", "main", "draw2", "keep", "passenger"]
    seen = {names[i] for i in range(6) if phase_seen[i]}
    expected = set(names) if preset == "germany" else set(names) - {"setup-mix", "passenger"}
    assert seen == expected
