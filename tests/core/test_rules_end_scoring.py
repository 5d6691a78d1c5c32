"""End of game and final scoring, rule by rule (docs/rules.md R6.1-R6.8).

Every test builds its position by hand on a :class:`ttrsim.play.game.Game` past
setup: it writes ``route_owner``, ``ticket_holder``, ``pass_player``,
``trains`` and ``score`` directly, then either calls
:func:`ttrsim.core.scoring.final_scoring` or drives whole turns through
``g.apply``. Expected values are computed by hand in the docstrings.
"""
import zlib

import numpy as np
import pytest

from ttrsim.core.actions import A_BLIND, A_KEEP, A_PASS, A_TICKETS, encode_claim
from ttrsim.core.board import build_board
from ttrsim.core.scoring import final_scoring, locations_joined, majority_points, player_components
from ttrsim.core.state import (
    END_NAMES,
    F_GLOBETROTTER,
    F_LP_BONUS,
    F_LP_LEN,
    F_N_COMPLETED,
    F_N_FAILED,
    F_N_PASSENGERS,
    F_PASSENGER_PTS,
    F_ROUTES,
    F_STATIONS_USED,
    F_TICKETS_LOST,
    F_TICKETS_WON,
    F_TOTAL,
    F_WINNER,
    M_COUNTDOWN,
    M_DECK_N,
    M_END,
)
from ttrsim.data.ids import RED
from ttrsim.data.rules import get_rules

from helpers import put_hand, route_id, setup_game

N_PASSENGER_COLOURS = 6


# --------------------------------------------------------------------------- helpers


def blank(g):
    """No routes, tickets, passengers or points for anybody."""
    s = g.state
    s.route_owner[:] = -1
    s.ticket_holder[:] = -1
    s.pass_player[:, :] = 0
    s.score[:] = 0


def ticket_id(g, a, b, points=None, tag=None):
    """Id of the ticket joining locations ``a`` and ``b`` (optionally with ``points`` / in deck ``tag``)."""
    m = g.map
    for t in range(m.n_tickets):
        ends = {m.location_names[m.ticket_a[t]], m.location_names[m.ticket_b[t]]}
        if ends == {a, b} and (points is None or m.ticket_points[t] == points) and \
                (tag is None or tag in m.ticket_tags[t]):
            return t
    raise KeyError(f"no ticket {a}-{b} {points} {tag}")


def own(g, seat, *pairs):
    """Give ``seat`` the routes ``(a, b)`` (the first track of a double)."""
    for a, b in pairs:
        g.state.route_owner[route_id(g, a, b)] = seat


def hold(g, seat, *tickets):
    for t in tickets:
        g.state.ticket_holder[t] = seat


def scored(g):
    """Run the final scoring; return the breakdown as an int array [seat, F_*]."""
    final_scoring(g.board, g.state)
    return g.state.final[:g.n_players].astype(np.int64)


def equalise_totals(g, seats, lift=50):
    """Adjust route points so every seat in ``seats`` ends with the same total,
    above everybody else (the bonuses depend on routes and tickets, not on
    ``score``, so they do not move)."""
    f = scored(g)
    target = int(f[:, F_TOTAL].max()) + lift
    for p in seats:
        g.state.score[p] += target - int(f[p, F_TOTAL])
    f = scored(g)
    assert all(f[p, F_TOTAL] == target for p in seats)
    return f


def winners(f):
    return [p for p in range(f.shape[0]) if f[p, F_WINNER]]


def play_draw_turn(g):
    """The seat to act takes a whole turn of two blind draws (R3.1)."""
    assert g.phase == "main"
    g.apply(A_BLIND)
    if g.phase == "draw2":
        g.apply(A_BLIND)


# --------------------------------------------------------------------------- R6.1 last round


@pytest.mark.parametrize("trains_left", [0, 1, 2])
def test_R6_1_last_round_every_player_one_more_turn(trains_left):
    """R6.1 When a player ends a turn with 0, 1 or 2 trains, every player, that
    player included, takes exactly one more turn; then the game ends."""
    g = setup_game("usa", n_players=3, seed=11)
    play_draw_turn(g)                          # seat 0: an ordinary turn
    assert g.player == 1
    g.state.trains[1] = trains_left
    play_draw_turn(g)                          # seat 1 ends its turn with 0..2 trains
    assert g.state.meta[M_COUNTDOWN] >= 0
    assert g.observation()["last_round"]
    seen = []
    while not g.over:
        seen.append(g.player)
        play_draw_turn(g)
    assert seen == [2, 0, 1]                   # every seat once, the trigger last
    assert g.result()["end"] == "normal"


def test_R6_1_three_trains_do_not_trigger():
    """R6.1 only 0, 1 or 2 trains trigger the last round: 3 trains never do."""
    g = setup_game("usa", n_players=3, seed=12)
    g.state.trains[:] = 3
    for _ in range(4 * 3):
        play_draw_turn(g)
        assert g.state.meta[M_COUNTDOWN] == -1
    assert not g.over and not g.observation()["last_round"]


def test_R6_1_trigger_by_claim_two_players():
    """R6.1 a claim that leaves the player with 2 trains starts the last round:
    the other seat plays once, the claiming seat plays once more, then the end."""
    g = setup_game("usa", n_players=2, seed=13)
    r = route_id(g, "Atlanta", "Charleston")   # 2, gray
    g.state.trains[0] = 4
    put_hand(g, 0, {RED: 2})
    g.apply(encode_claim(r, RED, 0))
    assert g.state.trains[0] == 2 and g.state.route_owner[r] == 0
    assert not g.over and g.player == 1
    play_draw_turn(g)
    assert not g.over and g.player == 0
    play_draw_turn(g)                          # the claimant's own last turn
    assert g.over
    res = g.result()
    assert res["end"] == "normal"
    assert res["seats"][0]["routes"] == g.board.route_points[r]


def test_R6_1_trigger_only_once():
    """R6.1 "exactly one more turn": once the last round runs, other players
    ending with <= 2 trains do not restart it."""
    g = setup_game("usa", n_players=4, seed=14)
    g.state.trains[:] = 2                      # every turn from now on ends with 2 trains
    turns = 0
    while not g.over:
        play_draw_turn(g)
        turns += 1
        assert turns <= 5
    assert turns == 5                          # the trigger turn + one more for each of the 4 seats
    assert g.result()["end"] == "normal"


# --------------------------------------------------------------------------- R6.2 stalled / capped


def make_stuck(g):
    """Nobody can act: no train cards anywhere, no tickets left, no hands."""
    s = g.state
    s.meta[M_DECK_N] = 0
    s.discard[:] = 0
    s.faceup[:] = -1
    s.hand[:, :] = 0
    s.tk_len[:] = 0


def test_R6_2_every_player_passes_one_round_stalled():
    """R6.2 If a player has no legal action at all, the turn passes. If every
    player passes in one full round, the game ends ("stalled" end)."""
    g = setup_game("usa", n_players=3, seed=21)
    make_stuck(g)
    for seat in range(3):
        assert not g.over
        assert g.player == seat
        assert g.legal_actions() == [A_PASS]
        g.apply(A_PASS)
    assert g.over
    res = g.result()
    assert res["end"] == "stalled" and res["turns"] == 3
    assert res["winners"]                      # final scoring was run


def test_R6_2_passes_must_be_consecutive_for_a_stall():
    """R6.2 a full round means every player passes in a row: a seat that still
    acts (here: takes the very last ticket) restarts the count."""
    g = setup_game("usa", n_players=2, seed=22)
    make_stuck(g)
    g.state.tk_len[0] = 1                      # one ticket left on the pile
    assert g.legal_actions() == [A_TICKETS + 1]
    g.apply(A_TICKETS + 1)
    g.apply(A_KEEP + 1)                        # seat 0 keeps it: a real turn
    assert not g.over and g.player == 1
    g.apply(A_PASS)                            # seat 1 passes
    assert not g.over and g.player == 0
    g.apply(A_PASS)                            # seat 0 passes: now a full round of passes
    assert g.over and g.result()["end"] == "stalled"


def test_R6_2_stall_not_when_a_route_is_payable():
    """R6.2 passing is only for a player with no legal action: a payable route
    is an action, so that seat cannot pass."""
    g = setup_game("usa", n_players=2, seed=23)
    make_stuck(g)
    g.state.hand[1, RED] = 2                   # (outside the 110 cards: only legality matters here)
    g.apply(A_PASS)
    assert g.player == 1
    assert A_PASS not in g.legal_actions() and not g.is_legal(A_PASS)


def test_R6_2_turn_cap_ends_capped():
    """R6.2 a hard cap on turns (recorded as "capped" end)."""
    g = setup_game("usa", n_players=2, seed=24, overrides={"max_turns": 5})
    for _ in range(4):
        play_draw_turn(g)
        assert not g.over
    play_draw_turn(g)
    assert g.over
    res = g.result()
    assert res["end"] == "capped" and res["turns"] == 5
    assert res["winners"]


def test_R6_2_end_reasons_recorded_in_state():
    """R6.2 the end reason is part of the state (stalled/capped are reported)."""
    assert END_NAMES == ("running", "normal", "stalled", "capped")
    g = setup_game("usa", n_players=2, seed=25)
    assert END_NAMES[g.state.meta[M_END]] == "running"


# --------------------------------------------------------------------------- R6.3 tickets


def test_R6_3_ticket_complete_and_incomplete():
    """R6.3 a ticket is complete when its two endpoints are joined by a
    continuous chain of the player's own routes; the player gains its points
    if complete and loses them if not."""
    g = setup_game("usa", n_players=2, seed=31)
    blank(g)
    de = ticket_id(g, "Denver", "El Paso", tag="base")          # 4 points
    sc = ticket_id(g, "Calgary", "Salt Lake City", tag="base")  # 7 points
    own(g, 0, ("Denver", "Santa Fe"), ("Santa Fe", "El Paso"))
    hold(g, 0, de, sc)
    g.state.score[0] = 4
    f = scored(g)
    assert f[0, F_TICKETS_WON] == 4 and f[0, F_N_COMPLETED] == 1
    assert f[0, F_TICKETS_LOST] == 7 and f[0, F_N_FAILED] == 1
    assert f[0, F_ROUTES] == 4
    assert f[0, F_LP_BONUS] == 10             # the only path (R6.5)
    assert f[0, F_TOTAL] == 4 + 4 - 7 + 10
    assert f[1, F_TICKETS_WON] == f[1, F_TICKETS_LOST] == 0


def test_R6_3_chain_through_several_routes():
    """R6.3 a continuous chain: Denver-Omaha-Chicago-Pittsburgh completes
    Denver-Pittsburgh (11); a missing middle link does not."""
    g = setup_game("usa", n_players=2, seed=32)
    blank(g)
    dp = ticket_id(g, "Denver", "Pittsburgh", tag="base")
    hold(g, 1, dp)
    own(g, 1, ("Denver", "Omaha"), ("Omaha", "Chicago"), ("Chicago", "Pittsburgh"))
    own(g, 1, ("Denver", "Santa Fe"), ("Seattle", "Vancouver"))  # unrelated extras
    f = scored(g)
    assert (f[1, F_TICKETS_WON], f[1, F_N_COMPLETED], f[1, F_TICKETS_LOST]) == (11, 1, 0)
    g.state.route_owner[route_id(g, "Omaha", "Chicago")] = -1
    f = scored(g)
    assert (f[1, F_TICKETS_WON], f[1, F_N_COMPLETED], f[1, F_TICKETS_LOST], f[1, F_N_FAILED]) == (0, 0, 11, 1)


@pytest.mark.parametrize("points_pct, penalty_pct, won, lost", [
    (0, 0, 0, 0), (50, 50, 4, 6), (100, 100, 7, 11), (150, 150, 11, 17),   # 3.5 -> 4, 5.5 -> 6, 10.5 -> 11, 16.5 -> 17
    (150, 0, 11, 0), (0, 50, 0, 6)])
def test_R6_3_scaled_ticket_points_and_penalty(points_pct, penalty_pct, won, lost):
    """R6.3 variants: seat 0 completes Calgary-Salt Lake City (7) over Helena
    and fails Denver-Pittsburgh (11); it scores 7 x ``ticket_points_percent``
    / 100 and loses 11 x ``ticket_penalty_percent`` / 100, each rounded half
    away from zero, the two independent of each other."""
    g = setup_game("usa", n_players=2, seed=31, overrides={"ticket_points_percent": points_pct,
                                                             "ticket_penalty_percent": penalty_pct})
    blank(g)
    own(g, 0, ("Calgary", "Helena"), ("Helena", "Salt Lake City"))
    hold(g, 0, ticket_id(g, "Calgary", "Salt Lake City", tag="base"), ticket_id(g, "Denver", "Pittsburgh", tag="base"))
    g.state.score[0] = 7 + 4                  # the route points (R1.4)
    f = scored(g)
    assert (f[0, F_TICKETS_WON], f[0, F_TICKETS_LOST], f[0, F_N_COMPLETED], f[0, F_N_FAILED]) == (won, lost, 1, 1)
    assert f[0, F_TOTAL] == 11 + won - lost + 10                          # and the longest path (R6.5)


def test_R6_3_other_players_routes_do_not_count():
    """R6.3 "the player's own routes": a link owned by another player breaks
    the chain, and completing somebody else's ticket earns nothing."""
    g = setup_game("usa", n_players=3, seed=33)
    blank(g)
    dp = ticket_id(g, "Denver", "Pittsburgh", tag="base")
    hold(g, 0, dp)
    own(g, 0, ("Denver", "Omaha"), ("Chicago", "Pittsburgh"))
    own(g, 1, ("Omaha", "Chicago"))
    f = scored(g)
    assert f[0, F_TICKETS_LOST] == 11 and f[0, F_N_COMPLETED] == 0
    assert f[1, F_TICKETS_WON] == 0 and f[1, F_N_COMPLETED] == 0
    # seat 2 holds a ticket that seat 0's routes would complete: seat 2 loses it
    de = ticket_id(g, "Denver", "El Paso", tag="base")
    own(g, 0, ("Denver", "Santa Fe"), ("Santa Fe", "El Paso"))
    hold(g, 2, de)
    f = scored(g)
    assert f[2, F_TICKETS_LOST] == 4 and f[2, F_N_FAILED] == 1
    assert f[0, F_TICKETS_WON] == 0


# --------------------------------------------------------------------------- R6.4 Germany countries


FR_ROUTES = {1: ("Frankreich/1", "Saarbrücken"), 2: ("Frankreich/2", "Karlsruhe"), 3: ("Frankreich/3", "Freiburg")}


def test_R6_4_two_routes_to_one_country_are_not_connected():
    """R6.4 Each border point is its own dead-end node: a chain never passes
    through a country, and two routes to the same country are not connected to
    each other (seed 000, the Freiburg/Saarbrücken example)."""
    g = setup_game("germany", n_players=2, seed=41)
    blank(g)
    own(g, 0, FR_ROUTES[3], FR_ROUTES[1])       # Freiburg-Frankreich and Saarbrücken-Frankreich
    m = g.map
    parent = np.empty(g.board.n_nodes, np.int64)
    player_components(g.board, g.state, 0, parent)
    assert not locations_joined(g.board, parent, m.location_id("Freiburg"), m.location_id("Saarbrücken"))
    assert locations_joined(g.board, parent, m.location_id("Freiburg"), m.location_id("Frankreich"))
    assert locations_joined(g.board, parent, m.location_id("Saarbrücken"), m.location_id("Frankreich"))

    # ticket München-Freiburg: München ... Saarbrücken is owned, Saarbrücken-Frankreich-Freiburg is not a chain
    mf = ticket_id(g, "München", "Freiburg")
    hold(g, 0, mf)
    own(g, 0, ("München", "Augsburg"), ("Augsburg", "Ulm"), ("Ulm", "Stuttgart"), ("Stuttgart", "Karlsruhe"),
        ("Karlsruhe", "Saarbrücken"))
    f = scored(g)
    assert f[0, F_N_COMPLETED] == 0 and f[0, F_TICKETS_LOST] == 8
    own(g, 0, FR_ROUTES[2])                     # all three border points: still not through the country
    f = scored(g)
    assert f[0, F_N_COMPLETED] == 0 and f[0, F_TICKETS_LOST] == 8
    own(g, 0, ("Freiburg", "Stuttgart"))        # a real chain
    f = scored(g)
    assert f[0, F_N_COMPLETED] == 1 and f[0, F_TICKETS_WON] == 8


def test_R6_4_border_points_are_dead_ends_for_longest_path():
    """R6.4 a chain never passes through a country: Freiburg-Frankreich (2)
    and Frankreich-Saarbrücken (1) are two trails of 2 and 1, not one of 3."""
    g = setup_game("germany", n_players=2, seed=42)
    blank(g)
    own(g, 0, FR_ROUTES[3], FR_ROUTES[1])
    assert scored(g)[0, F_LP_LEN] == 2


@pytest.mark.parametrize("border", [1, 2, 3])
def test_R6_4_country_ticket_complete_from_any_border_point(border):
    """R6.4 A ticket naming a country is complete if the other endpoint is
    joined to any border point of that country (Frankreich-München 8)."""
    g = setup_game("germany", n_players=2, seed=43)
    blank(g)
    t = ticket_id(g, "Frankreich", "München", 8)
    hold(g, 1, t)
    own(g, 1, ("München", "Augsburg"), ("Augsburg", "Ulm"), ("Ulm", "Stuttgart"))
    f = scored(g)
    assert f[1, F_N_COMPLETED] == 0 and f[1, F_TICKETS_LOST] == 8
    link = {1: [("Stuttgart", "Karlsruhe"), ("Karlsruhe", "Saarbrücken")],
            2: [("Stuttgart", "Karlsruhe")],
            3: [("Stuttgart", "Freiburg")]}[border]
    own(g, 1, *link)
    f = scored(g)
    assert f[1, F_N_COMPLETED] == 0, "joined to no border point yet"
    own(g, 1, FR_ROUTES[border])
    f = scored(g)
    assert f[1, F_N_COMPLETED] == 1 and f[1, F_TICKETS_WON] == 8 and f[1, F_TICKETS_LOST] == 0


def shortest_chain(m, sources, targets):
    """Route ids of a shortest chain from any node in ``sources`` to any node in
    ``targets`` (plain BFS over the map; border points are dead ends because
    each is its own node)."""
    adj = {}
    for r in range(m.n_routes):
        a, b = int(m.route_a[r]), int(m.route_b[r])
        adj.setdefault(a, []).append((b, r))
        adj.setdefault(b, []).append((a, r))
    prev = {n: None for n in sources}
    frontier = list(sources)
    while frontier:
        nxt = []
        for u in frontier:
            if u in targets:
                chain = []
                while prev[u] is not None:
                    u, r = prev[u]
                    chain.append(r)
                return chain
            for v, r in adj.get(u, ()):
                if v not in prev:
                    prev[v] = (u, r)
                    nxt.append(v)
        frontier = nxt
    raise AssertionError("no chain")


def test_R6_4_country_to_country_ticket():
    """R6.4 a ticket naming two countries (Frankreich-Dänemark 17) is complete
    when some border point of one is joined to some border point of the
    other; without the last route onto a Danish border point it is not."""
    g = setup_game("germany", n_players=2, seed=44)
    blank(g)
    m = g.map
    t = ticket_id(g, "Frankreich", "Dänemark", 17)
    hold(g, 0, t)
    fr = {int(n) for n in m.location_nodes(m.location_id("Frankreich"))}
    dk = {int(n) for n in m.location_nodes(m.location_id("Dänemark"))}
    chain = shortest_chain(m, fr, dk)
    assert 3 <= len(chain) <= 15
    g.state.route_owner[chain] = 0
    f = scored(g)
    assert f[0, F_N_COMPLETED] == 1 and f[0, F_TICKETS_WON] == 17
    last = chain[0]                       # the route that ends on a Danish border point
    assert {int(m.route_a[last]), int(m.route_b[last])} & dk
    g.state.route_owner[last] = -1
    f = scored(g)
    assert f[0, F_N_COMPLETED] == 0 and f[0, F_TICKETS_LOST] == 17


# --------------------------------------------------------------------------- R6.5 longest path


def test_R6_5_longest_path_loop_and_branch():
    """R6.5 longest trail in the player's own routes, counted in trains; a
    route is used at most once, cities may be visited more than once and loops
    are allowed.

    Seat 0: the triangle Seattle-Vancouver (1), Vancouver-Calgary (3),
    Calgary-Seattle (4), the branch Calgary-Winnipeg (6) and the branch
    Seattle-Portland (1). Four odd-degree cities (Portland, Seattle, Calgary,
    Winnipeg), so not every route fits: the best trail is
    Winnipeg-Calgary-Seattle-Vancouver-Calgary = 6+4+1+3 = 14 (Calgary twice).
    The longest simple path is only 11 (Winnipeg-Calgary-Seattle-Portland).
    """
    g = setup_game("usa", n_players=2, seed=51)
    blank(g)
    own(g, 0, ("Seattle", "Vancouver"), ("Vancouver", "Calgary"), ("Calgary", "Seattle"),
        ("Calgary", "Winnipeg"), ("Seattle", "Portland"))
    own(g, 1, ("Denver", "Santa Fe"))
    f = scored(g)
    assert f[0, F_LP_LEN] == 14
    assert f[1, F_LP_LEN] == 2
    assert f[0, F_LP_BONUS] == 10 and f[1, F_LP_BONUS] == 0
    assert f[0, F_TOTAL] == 10


def test_R6_5_longest_path_closed_loop():
    """R6.5 loops are allowed: the whole triangle (1+3+4 = 8) is one trail."""
    g = setup_game("usa", n_players=2, seed=52)
    blank(g)
    own(g, 0, ("Seattle", "Vancouver"), ("Vancouver", "Calgary"), ("Calgary", "Seattle"))
    assert scored(g)[0, F_LP_LEN] == 8


def test_R6_5_longest_path_ties_all_get_bonus():
    """R6.5 Every player tied for the longest gets the bonus."""
    g = setup_game("usa", n_players=3, seed=53)
    blank(g)
    own(g, 0, ("Denver", "Santa Fe"), ("Santa Fe", "El Paso"))      # 2 + 2
    own(g, 1, ("Chicago", "Omaha"))                                # 4
    own(g, 2, ("Seattle", "Vancouver"))                            # 1
    f = scored(g)
    assert f[:, F_LP_LEN].tolist() == [4, 4, 1]
    assert f[:, F_LP_BONUS].tolist() == [10, 10, 0]


@pytest.mark.parametrize("preset,bonus", [("usa", 10), ("usa-mega", 10), ("usa-1910", 0), ("usa-bigcities", 0),
                                          ("germany", 0)])
def test_R6_5_longest_path_bonus_only_in_rule_sets_with_it(preset, bonus):
    """R6.5 (rule sets that have it) and R7: longest path 10 in usa and
    usa-mega, none in usa-1910, usa-bigcities and germany."""
    g = setup_game(preset, n_players=2, seed=54)
    blank(g)
    r = 0
    g.state.route_owner[r] = 0
    f = scored(g)
    assert f[0, F_LP_LEN] == g.board.route_len[r]
    assert f[0, F_LP_BONUS] == bonus and f[1, F_LP_BONUS] == 0


# --------------------------------------------------------------------------- R6.6 Globetrotter


def test_R6_6_globetrotter_most_completed_tickets():
    """R6.6 the player(s) with the most completed tickets get the bonus;
    uncompleted tickets do not count (seat 1 holds more tickets, all failed)."""
    g = setup_game("usa-1910", n_players=2, seed=61)
    blank(g)
    own(g, 0, ("Denver", "Santa Fe"), ("Santa Fe", "El Paso"), ("Denver", "Omaha"))
    hold(g, 0, ticket_id(g, "Denver", "El Paso", tag="mega"), ticket_id(g, "Winnipeg", "Omaha", tag="mega"))
    hold(g, 1, *[ticket_id(g, a, b, tag="1910") for a, b in
                 [("Calgary", "Nashville"), ("Chicago", "Atlanta"), ("Chicago", "Boston"), ("Denver", "Saint Louis")]])
    f = scored(g)
    assert f[:, F_N_COMPLETED].tolist() == [1, 0]
    assert f[:, F_N_FAILED].tolist() == [1, 4]
    assert f[:, F_GLOBETROTTER].tolist() == [10, 0]


def test_R6_6_globetrotter_ties_all_get_it():
    """R6.6 all tied players get the bonus."""
    g = setup_game("usa-1910", n_players=3, seed=62)
    blank(g)
    own(g, 0, ("Denver", "Santa Fe"), ("Santa Fe", "El Paso"))
    own(g, 1, ("Seattle", "Vancouver"), ("Portland", "Seattle"))
    hold(g, 0, ticket_id(g, "Denver", "El Paso", tag="mega"))
    hold(g, 1, ticket_id(g, "Vancouver", "Portland", tag="mega"), ticket_id(g, "Calgary", "Nashville"))
    hold(g, 2, ticket_id(g, "Chicago", "Atlanta", tag="1910"))
    f = scored(g)
    assert f[:, F_N_COMPLETED].tolist() == [1, 1, 0]
    assert f[:, F_GLOBETROTTER].tolist() == [10, 10, 0]


# one ticket per map and the routes that complete it
COMPLETE_ONE = {
    "usa": (("Chicago", "New York", 5), [("Chicago", "Pittsburgh"), ("Pittsburgh", "New York")]),
    "germany": (("Frankreich", "München", 8), [FR_ROUTES[3], ("Freiburg", "Stuttgart"), ("Stuttgart", "Ulm"),
                                              ("Ulm", "Augsburg"), ("Augsburg", "München")]),
}


@pytest.mark.parametrize("preset,bonus", [("usa", 0), ("usa-bigcities", 0), ("usa-1910", 10), ("usa-mega", 10),
                                          ("germany", 15)])
def test_R6_6_globetrotter_only_in_rule_sets_with_it(preset, bonus):
    """R6.6 (rule sets that have it) and R7: 10 in usa-1910 and usa-mega, 15
    in germany, absent in usa and usa-bigcities."""
    g = setup_game(preset, n_players=2, seed=63)
    blank(g)
    (a, b, pts), routes = COMPLETE_ONE[g.map.name]
    hold(g, 0, ticket_id(g, a, b, pts))
    own(g, 0, *routes)
    f = scored(g)
    assert f[:, F_N_COMPLETED].tolist() == [1, 0]
    assert f[:, F_GLOBETROTTER].tolist() == [bonus, 0]
    assert f[0, F_TOTAL] == pts + bonus + (f[0, F_LP_BONUS])


# --------------------------------------------------------------------------- R6.7 passengers


def passenger_points(g, column_counts):
    """Set one colour's counts per seat (other colours 0) and return the passenger points."""
    g.state.pass_player[:, :] = 0
    g.state.pass_player[:, 0] = column_counts
    return scored(g)[:, F_PASSENGER_PTS].tolist()


@pytest.fixture(scope="module")
def germany3():
    g = setup_game("germany", n_players=3, seed=71)
    blank(g)
    return g


def test_R6_7_single_first_single_second(germany3):
    """R6.7 per colour: most passengers 20 points, second most 10."""
    assert passenger_points(germany3, [3, 1, 2]) == [20, 0, 10]
    assert passenger_points(germany3, [1, 5, 0]) == [10, 20, 0]


def test_R6_7_tie_for_first_all_20_nobody_second(germany3):
    """R6.7 A tie for most: all tied score 20 and nobody scores second."""
    assert passenger_points(germany3, [2, 2, 1]) == [20, 20, 0]
    assert passenger_points(germany3, [4, 4, 4]) == [20, 20, 20]


def test_R6_7_one_first_tie_for_second_all_10(germany3):
    """R6.7 One player most and a tie for second: all tied for second score 10."""
    assert passenger_points(germany3, [1, 3, 1]) == [10, 20, 10]
    g = setup_game("germany", n_players=5, seed=72)
    blank(g)
    assert passenger_points(g, [5, 2, 2, 2, 1]) == [20, 10, 10, 10, 0]


def test_R6_7_zero_passengers_score_nothing(germany3):
    """R6.7 [choice] A player with no passenger of a colour scores nothing for it."""
    assert passenger_points(germany3, [0, 2, 0]) == [0, 20, 0]
    assert passenger_points(germany3, [0, 0, 0]) == [0, 0, 0]


def test_R6_7_zero_scores_parameter_true():
    """R6.7 with ``passenger_zero_scores: true`` a player with none of a colour
    can take a majority place."""
    g = setup_game("germany", n_players=3, seed=73, overrides={"passenger_zero_scores": True})
    blank(g)
    # the other 5 colours are held by nobody: with zeros counting, all players
    # tie for most of each of them (5 x 20 each, the same for everybody)
    tie = 5 * 20
    assert passenger_points(g, [0, 2, 0]) == [tie + 10, tie + 20, tie + 10]
    assert passenger_points(g, [1, 2, 0]) == [tie + 10, tie + 20, tie + 0]


def test_R6_7_colours_add_up(germany3):
    """R6.7 majorities are scored per colour and summed; every one of the 6
    colours counts (three cases side by side)."""
    s = germany3.state
    s.pass_player[:, :] = 0
    s.pass_player[:, 0] = [3, 1, 0]      # 20 10 0
    s.pass_player[:, 2] = [2, 2, 1]      # 20 20 0
    s.pass_player[:, 5] = [0, 1, 1]      # 0 20 20
    f = scored(germany3)
    assert f[:, F_PASSENGER_PTS].tolist() == [40, 50, 20]
    assert f[:, F_N_PASSENGERS].tolist() == [5, 4, 2]
    for c in range(N_PASSENGER_COLOURS):
        s.pass_player[:, :] = 0
        s.pass_player[:, c] = [2, 1, 0]
        assert scored(germany3)[:, F_PASSENGER_PTS].tolist() == [20, 10, 0]


def test_R6_7_majority_kernel_cases():
    """R6.7 the kernel on the cases above (first 20, second 10)."""
    out = np.zeros(4, np.int64)
    cases = {(3, 1, 2, 0): [20, 0, 10, 0], (2, 2, 1, 0): [20, 20, 0, 0], (3, 1, 1, 0): [20, 10, 10, 0],
             (0, 0, 0, 0): [0, 0, 0, 0], (1, 0, 0, 0): [20, 0, 0, 0]}
    for counts, want in cases.items():
        majority_points(np.array(counts, np.int64), 20, 10, False, out)
        assert out.tolist() == want, counts
    majority_points(np.array([1, 0, 0, 0], np.int64), 20, 10, True, out)
    assert out.tolist() == [20, 10, 10, 10]


def test_R6_7_no_passengers_outside_germany():
    """R6.7 Germany only: the USA rule sets score no passenger majorities."""
    g = setup_game("usa", n_players=2, seed=74)
    blank(g)
    g.state.pass_player[0, 0] = 3
    assert scored(g)[:, F_PASSENGER_PTS].tolist() == [0, 0]


# --------------------------------------------------------------------------- R6.8 winner


def test_R6_8_highest_total_wins():
    """R6.8 Winner: the highest total."""
    g = setup_game("usa", n_players=3, seed=81)
    blank(g)
    g.state.score[:] = [10, 30, 20]
    f = scored(g)
    assert winners(f) == [1]


def test_R6_8_usa_tiebreak_completed_tickets():
    """R6.8 USA ties: first the most completed tickets."""
    g = setup_game("usa", n_players=3, seed=82)
    blank(g)
    own(g, 0, ("Denver", "Santa Fe"), ("Santa Fe", "El Paso"), ("Seattle", "Vancouver"), ("Portland", "Seattle"))
    hold(g, 0, ticket_id(g, "Denver", "El Paso", tag="base"))
    own(g, 1, ("Denver", "Omaha"), ("Omaha", "Chicago"), ("Chicago", "Pittsburgh"))   # longer path, 1 ticket
    hold(g, 1, ticket_id(g, "Denver", "Pittsburgh", tag="base"))
    own(g, 2, ("Calgary", "Winnipeg"))
    hold(g, 2, ticket_id(g, "Winnipeg", "Houston", tag="base"))
    # seat 0 completes a second ticket (Vancouver-Portland is a mega ticket; scoring counts any held ticket)
    hold(g, 0, ticket_id(g, "Vancouver", "Portland", tag="mega"))
    f = equalise_totals(g, [0, 1])
    assert f[:, F_N_COMPLETED].tolist() == [2, 1, 0]
    assert f[1, F_LP_LEN] > f[0, F_LP_LEN]
    assert winners(f) == [0]


def test_R6_8_usa_tiebreak_longest_path_length():
    """R6.8 USA ties: then the longest path length (the length, also for the
    players without the bonus)."""
    g = setup_game("usa", n_players=3, seed=83)
    blank(g)
    own(g, 0, ("Denver", "Santa Fe"))                                  # 2
    own(g, 1, ("Denver", "Omaha"), ("Omaha", "Chicago"))               # 8: gets the bonus
    own(g, 2, ("Chicago", "Pittsburgh"))                               # 3
    f = equalise_totals(g, [0, 1, 2])
    assert f[:, F_N_COMPLETED].tolist() == [0, 0, 0]
    assert winners(f) == [1]
    f = equalise_totals(g, [0, 2])                                     # now seat 1 is behind
    assert winners(f) == [2]


def test_R6_8_usa_tiebreak_longest_path_in_1910():
    """R6.8 USA rule sets without the longest path bonus still break ties on
    the longest path length."""
    g = setup_game("usa-1910", n_players=2, seed=84)
    blank(g)
    own(g, 0, ("Denver", "Santa Fe"))
    own(g, 1, ("Chicago", "Omaha"))
    f = equalise_totals(g, [0, 1])
    assert f[:, F_LP_BONUS].tolist() == [0, 0]
    assert winners(f) == [1]


def test_R6_8_usa_still_tied_shared_win():
    """R6.8 Still tied: shared win (every tied player is a winner)."""
    g = setup_game("usa", n_players=4, seed=85)
    blank(g)
    own(g, 0, ("Denver", "Santa Fe"))
    own(g, 1, ("Santa Fe", "El Paso"))
    own(g, 2, ("Seattle", "Vancouver"))
    own(g, 3, ("Portland", "Seattle"))
    f = equalise_totals(g, [0, 1, 3])     # 0 and 1: path 2, seat 3: path 1
    assert winners(f) == [0, 1]
    f = equalise_totals(g, [0, 1, 2, 3])
    assert winners(f) == [0, 1]
    f = equalise_totals(g, [2, 3])
    assert winners(f) == [2, 3]


def test_R6_8_germany_tiebreak_tickets_then_passengers():
    """R6.8 Germany ties: the most completed tickets, then the most passengers
    (not the longest path)."""
    g = setup_game("germany", n_players=3, seed=86)
    blank(g)
    s = g.state
    mf = ticket_id(g, "Frankreich", "München", 8)
    own(g, 0, ("München", "Augsburg"), ("Augsburg", "Ulm"), ("Ulm", "Stuttgart"), ("Stuttgart", "Freiburg"),
        FR_ROUTES[3])
    hold(g, 0, mf)
    own(g, 1, ("Karlsruhe", "Saarbrücken"))
    s.pass_player[1, :] = [0, 0, 0, 0, 0, 4]  # seat 1 most passengers
    s.pass_player[2, :] = [0, 0, 0, 0, 0, 2]
    # step 1: seat 0 has the only completed ticket
    f = equalise_totals(g, [0, 1, 2])
    assert f[:, F_N_COMPLETED].tolist() == [1, 0, 0]
    assert winners(f) == [0]
    # step 2: seats 1 and 2 tie on tickets (0); seat 1 has more passengers
    f = equalise_totals(g, [1, 2])
    assert f[:, F_N_PASSENGERS].tolist() == [0, 4, 2]
    assert winners(f) == [1]
    # longest path is not a Germany tie-break: seat 2 with a longer path but fewer passengers loses
    own(g, 2, ("München", "Nürnberg"))
    f = equalise_totals(g, [1, 2])
    assert f[2, F_LP_LEN] > f[1, F_LP_LEN]
    assert winners(f) == [1]


def test_R6_8_germany_still_tied_shared_win():
    """R6.8 Germany still tied after tickets and passengers: every tied player wins."""
    g = setup_game("germany", n_players=3, seed=87)
    blank(g)
    s = g.state
    s.pass_player[0, :] = [1, 1, 0, 0, 0, 0]
    s.pass_player[1, :] = [0, 0, 1, 1, 0, 0]
    s.pass_player[2, :] = [0, 0, 0, 0, 0, 1]
    own(g, 0, ("Karlsruhe", "Saarbrücken"))
    f = equalise_totals(g, [0, 1, 2])
    assert winners(f) == [0, 1]


def test_R6_8_europe_tiebreak_tickets_then_fewest_stations_then_express():
    """R6.8 Europe, the printed order (issue 36): the most completed tickets,
    then the fewest stations used (borrowing a route, R8.5), then the holder
    of the European Express (the longest-path bonus, R6.5), not the longest
    path length. Seat 0 (path 8, the Express) completes Madrid-Zurich
    through a station on Pamplona; seat 1 (path 5) completes Budapest-Sofia
    with its own routes."""
    from ttrsim.core.stations import choose_station_routes
    g = setup_game("europe", n_players=3, seed=88)
    blank(g)
    s, m = g.state, g.map
    s.station_owner[:] = -1
    s.stations_left[:] = 3
    hold(g, 0, ticket_id(g, "Madrid", "Zurich"))
    own(g, 0, ("Madrid", "Pamplona"), ("Paris", "Zurich"), ("Munchen", "Zurich"), ("Munchen", "Wien"))
    own(g, 2, ("Pamplona", "Paris"))
    s.station_owner[m.location_id("Pamplona")], s.stations_left[0] = 0, 2
    hold(g, 1, ticket_id(g, "Budapest", "Sofia"))
    own(g, 1, ("Budapest", "Sarajevo"), ("Sarajevo", "Sofia"))
    choose_station_routes(g.board, s)
    f = equalise_totals(g, [0, 1])
    assert f[:2, F_N_COMPLETED].tolist() == [1, 1] and f[:2, F_STATIONS_USED].tolist() == [1, 0]
    assert f[:, F_LP_BONUS].tolist() == [10, 0, 0]
    assert winners(f) == [1]                       # fewest stations, before the Express
    own(g, 2, ("Sarajevo", "Sofia"))               # now seat 1 needs a station on Sofia too
    s.station_owner[m.location_id("Sofia")], s.stations_left[1] = 1, 2
    choose_station_routes(g.board, s)
    f = equalise_totals(g, [0, 1])
    assert f[:2, F_N_COMPLETED].tolist() == [1, 1] and f[:2, F_STATIONS_USED].tolist() == [1, 1]
    assert winners(f) == [0]                       # then the Express holder
    own(g, 2, ("Petrograd", "Stockholm"), ("Kobenhavn", "Stockholm"))      # seat 2: path 11, the Express
    f = equalise_totals(g, [0, 1])
    assert f[:, F_LP_BONUS].tolist() == [0, 0, 10] and f[0, F_LP_LEN] > f[1, F_LP_LEN]
    assert winners(f) == [0, 1]                    # neither holds it: a shared win, whatever the lengths
    old = build_board(get_rules("europe", {"tiebreaks": ["tickets", "longest_path"]}))
    final_scoring(old, s)                          # the order before issue 36 (still reachable): the length
    assert [p for p in range(3) if s.final[p, F_WINNER]] == [0]


# --------------------------------------------------------------------------- whole random games


def play_random_game(g, rng):
    """Random legal play (claims preferred, so games end); returns the turn
    count right after the first turn ended with <= end_trains trains."""
    from ttrsim.core.actions import A_CLAIM
    end_trains = g.rules.end_trains
    trigger = None
    while not g.over:
        p, turn = g.player, g.turn
        acts = g.legal_actions()
        claims = [a for a in acts if a >= A_CLAIM]
        a = claims[rng.integers(len(claims))] if claims and rng.random() < 0.8 else acts[rng.integers(len(acts))]
        g.apply(a)
        if g.turn > turn and trigger is None and g.state.trains[p] <= end_trains:
            trigger = g.turn
    return trigger


@pytest.mark.parametrize("preset", ["usa", "usa-1910", "usa-mega", "usa-bigcities", "germany"])
def test_R6_1_R6_3_R6_8_random_games_consistent(preset):
    """R6.1 after the trigger every player plays exactly once more; R4.4/R6.3
    the breakdown adds up (route points are the owned routes' points, tickets
    won + lost are the held tickets' points); R6.8 a winner has the top total."""
    rng = np.random.default_rng(zlib.crc32(preset.encode()))
    for seed in range(4):
        n = 2 + seed % 4
        g = setup_game(preset, n_players=n, seed=100 + seed)
        trigger = play_random_game(g, rng)
        res = g.result()
        if res["end"] == "stalled":          # R6.2: possible when nobody can get to <= 2 trains
            assert trigger is None and g.legal_actions() == []
        else:
            assert res["end"] == "normal"
            assert trigger is not None and g.turn - trigger == n
        s, b = g.state, g.board
        f = s.final[:n].astype(np.int64)
        for p in range(n):
            owned = s.route_owner == p
            assert f[p, F_ROUTES] == b.route_points[owned].sum() == s.score[p]
            held = s.ticket_holder == p
            assert f[p, F_TICKETS_WON] + f[p, F_TICKETS_LOST] == b.ticket_points[held].sum()
            assert f[p, F_N_COMPLETED] + f[p, F_N_FAILED] == held.sum()
            assert f[p, F_TOTAL] == (f[p, F_ROUTES] + f[p, F_TICKETS_WON] - f[p, F_TICKETS_LOST] + f[p, F_LP_BONUS]
                                     + f[p, F_GLOBETROTTER] + f[p, F_PASSENGER_PTS])
        assert res["winners"] and all(f[p, F_TOTAL] == f[:, F_TOTAL].max() for p in res["winners"])
