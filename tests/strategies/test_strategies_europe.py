"""The built-in strategies on Europe (R8.2-R8.5): the tunnel decision, the
planner's station for a blocked ticket and its expected tunnel cost."""
import numpy as np
import pytest

from ttrsim.core.actions import (
    claims_end,
    decode_station,
    encode_claim,
    tunnel_give_up_action,
    tunnel_pay_action,
)
from ttrsim.core.state import M_TUNNEL_EXTRA
from ttrsim.data.ids import BLACK, GRAY, LOCO, RED, WHITE, YELLOW
from ttrsim.strategies.kit.europe_moves import europe_extra_cards, tunnel_choice
from ttrsim.strategies.planner.plan import unseen_cards

from helpers import decide, put_deck_top, put_faceup, put_hand, route_id, setup_game

STRATEGIES = ["planner", "planner_classic", "passenger_hunter", "greedy", "destination_hungry", "route_focus",
              "one_step", "long_route"]


def europe(seed=0):
    g = setup_game("europe", 2, seed)
    g.state.route_owner[:] = -1
    return g


def in_tunnel(hand, shown):
    """Seat 0 has claimed the black tunnel Madrid-Pamplona (3) with 3 black
    cards and the deck turned ``shown`` over."""
    g = europe()
    put_faceup(g, [WHITE] * 5)
    put_hand(g, 0, hand)
    put_deck_top(g, shown)
    g.apply(encode_claim(route_id(g, "Madrid", "Pamplona", BLACK), BLACK, 0))
    assert g.phase == "tunnel"
    return g


@pytest.mark.parametrize("name", STRATEGIES)
def test_R8_3_every_strategy_pays_an_affordable_tunnel_with_the_fewest_locomotives(name):
    g = in_tunnel({BLACK: 4, LOCO: 2}, [BLACK, LOCO, RED])         # 2 extra: 1 black + 1 locomotive
    assert decide(g, name) == tunnel_pay_action(g.map.n_routes, 1)


@pytest.mark.parametrize("name", STRATEGIES)
def test_R8_3_every_strategy_gives_up_a_tunnel_it_cannot_pay_or_that_asks_more_than_its_length(name):
    g = in_tunnel({BLACK: 3}, [BLACK, LOCO, RED])                      # 2 extra, no card left
    assert decide(g, name) == tunnel_give_up_action(g.map.n_routes)


def test_tunnel_choice_gives_up_when_the_extra_exceeds_the_length():
    g = europe()
    put_faceup(g, [WHITE] * 5)
    put_hand(g, 0, {LOCO: 6})
    put_deck_top(g, [LOCO, LOCO, LOCO])
    r = route_id(g, "Barcelona", "Pamplona")                            # gray tunnel of 2
    g.apply(encode_claim(r, 8, 2))
    legal = np.array(g.legal_actions(), np.int32)
    assert g.state.meta[M_TUNNEL_EXTRA] == 3
    assert tunnel_choice(g.board, g.state, legal, len(legal)) == tunnel_give_up_action(g.map.n_routes)


def test_R8_5_the_planner_builds_a_station_for_a_blocked_ticket_and_keeps_them_otherwise():
    """Seat 0 holds Madrid-Zurich; seat 1 owns every route into Madrid: a
    station at an end of one of them (borrowing it) is the only way left."""
    g = europe()
    s, m = g.state, g.map
    madrid = m.location_id("Madrid")
    t = next(t for t in range(m.n_tickets) if {m.location_names[m.ticket_a[t]], m.location_names[m.ticket_b[t]]}
             == {"Madrid", "Zurich"})
    s.ticket_holder[:] = -1
    s.ticket_holder[t] = 0
    put_hand(g, 0, {RED: 2, YELLOW: 1})
    a = decide(g, "planner")
    assert not a >= claims_end(m.n_routes)                               # nothing blocked: no station
    ends = {madrid}                        # a station at either end of a route into Madrid borrows it
    for r in range(m.n_routes):
        if madrid in (m.route_a[r], m.route_b[r]):
            s.route_owner[r] = 1
            ends |= {int(m.route_a[r]), int(m.route_b[r])}
    a = decide(g, "planner")
    assert a >= claims_end(m.n_routes) and decode_station(m.n_routes, a)[0] in ends
    assert decode_station(m.n_routes, a)[2] == 0                         # no locomotive for a 1-card station
    assert decide(g, "greedy") < claims_end(m.n_routes)                  # the others keep their stations


def builds_station_for_blocked_madrid_zurich(overrides):
    """Seat 0 holds Madrid-Zurich (8 points), seat 1 owns every route into
    Madrid: does the planner build a station (for it)?"""
    g = setup_game("europe", 2, 0, overrides=overrides)
    s, m = g.state, g.map
    s.route_owner[:] = -1
    madrid = m.location_id("Madrid")
    t = next(t for t in range(m.n_tickets)
             if {m.location_names[m.ticket_a[t]], m.location_names[m.ticket_b[t]]} == {"Madrid", "Zurich"})
    s.ticket_holder[:] = -1
    s.ticket_holder[t] = 0
    put_hand(g, 0, {RED: 2, YELLOW: 1})
    for r in range(m.n_routes):
        if madrid in (m.route_a[r], m.route_b[r]):
            s.route_owner[r] = 1
    return decide(g, "planner") >= claims_end(m.n_routes)


def test_R8_5_the_planner_keeps_a_station_worth_more_than_the_ticket_it_would_rescue():
    """R8.5 read from the rules: the same blocked Madrid-Zurich (8 points:
    16 from lost to won) gets a station while a station kept scores 4 or 15
    points, not when it scores 17 or 30."""
    assert [builds_station_for_blocked_madrid_zurich({"station_points": p}) for p in (4, 15, 17, 30)] == \
        [True, True, False, False]


def test_R6_3_the_planners_station_rescue_weighs_the_scaled_points_and_penalty():
    """R6.3 variants read from the rules: against a station kept worth 17,
    Madrid-Zurich's 16 at stake (8 won + 8 not lost) is too little, 12 + 8 at
    ``ticket_points_percent`` 150 or 8 + 16 at ``ticket_penalty_percent`` 200
    is enough; at 0 / 0 the ticket is worth no station even of 4."""
    def builds(station_points, points_pct=100, penalty_pct=100):
        return builds_station_for_blocked_madrid_zurich({
            "station_points": station_points, "ticket_points_percent": points_pct,
            "ticket_penalty_percent": penalty_pct})

    assert not builds(17) and builds(17, points_pct=150) and builds(17, penalty_pct=200)
    assert builds(4) and not builds(4, 0, 0)


def test_the_planner_counts_a_tunnels_expected_extra_cards_and_a_ferrys_locomotives():
    g = europe()
    s = g.state
    put_hand(g, 0, {BLACK: 3})
    unseen = np.empty(9)
    unseen_cards(g.board, s, 0, unseen)
    tunnel = route_id(g, "Madrid", "Pamplona", BLACK)
    plain = route_id(g, "Cadiz", "Madrid")
    ferry = route_id(g, "Amsterdam", "London")
    assert europe_extra_cards(g.board, s, 0, plain, unseen) == 0.0
    expect = 3 * (unseen[BLACK] + unseen[LOCO]) / unseen.sum()
    assert europe_extra_cards(g.board, s, 0, tunnel, unseen) == pytest.approx(expect)
    assert g.board.route_colour[ferry] == GRAY and europe_extra_cards(g.board, s, 0, ferry, unseen) == 2.0
