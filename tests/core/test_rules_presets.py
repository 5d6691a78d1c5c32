"""Rule sets (docs/rules.md R7) and rule parameters.

* every preset matches the R7 table (tickets used, deal/keep, draw/keep,
  longest path, Globetrotter, passengers) in its RuleSet *and* in the compiled
  Board the engine reads;
* every parameter can be overridden and the value reaches ``build_board(...)``;
* bad presets and parameters give a one-line RulesError naming them;
* every **[choice]** of docs/rules.md is a parameter, and flipping it changes what
  the engine does (R2.5, R3.4, R6.2, R6.7).
"""
from pathlib import Path

import numpy as np
import pytest

from ttrsim.core.actions import A_BLIND, A_FACEUP, A_PASS
from ttrsim.core.board import (
    RP_BONUS_NEEDS_SCORE,
    RP_DRAW_KEEP,
    RP_DRAW_N,
    RP_DRAW_SHUFFLE,
    RP_END_TRAINS,
    RP_FACEUP,
    RP_FIRST_SEAT,
    RP_GLOBE_PTS,
    RP_HAND,
    RP_LOCK_MAXP,
    RP_LOCO_RESET,
    RP_LP_PTS,
    RP_MAX_RESETS,
    RP_MAX_TURNS,
    RP_N_CARDS,
    RP_N_DECKS,
    RP_OFFER_KEPT,
    RP_OFFER_SEAT,
    RP_OFFER_TICKET,
    RP_PASS_FIRST,
    RP_PASS_SECOND,
    RP_PASS_ZERO,
    RP_PASSENGERS,
    RP_SETUP_BOX,
    RP_SETUP_DEAL,
    RP_SETUP_KEEP,
    RP_SETUP_LONG,
    RP_SETUP_SHUFFLE,
    RP_STALL_ROUNDS,
    RP_STATION_PTS,
    RP_STATIONS,
    RP_TB0,
    RP_TB1,
    RP_TB2,
    RP_TRAINS,
    RP_TUNNEL_CARDS,
    TB_LONGEST,
    TB_LONGEST_BONUS,
    TB_NONE,
    TB_PASSENGERS,
    TB_STATIONS,
    TB_TICKETS,
    build_board,
)
from ttrsim.core.scoring import final_scoring
from ttrsim.core.state import F_GLOBETROTTER, F_LP_BONUS, F_PASSENGER_PTS, M_DECK_N
from ttrsim.data.ids import BLACK, BLUE, GREEN, LOCO, ORANGE, PINK, RED, WHITE, YELLOW
from ttrsim.data.maps import load_map
from ttrsim.data.rules import PARAMS, RulesError, get_rules, preset_names
from ttrsim.play.game import Game

from helpers import put_deck_top, put_faceup, setup_game

TINY_MAP = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_map.yaml"


# --------------------------------------------------------------------------- R7 table

R7 = {
    # preset: (map, deck tags, deck sizes, deal, keep, draw, keep, longest path, globetrotter, passengers 1st/2nd)
    "usa": ("usa", ("base",), [30], 3, 2, 3, 1, 10, 0, (0, 0)),
    "usa-1910": ("usa", ("1910",), [35], 3, 2, 3, 1, 0, 10, (0, 0)),
    "usa-mega": ("usa", ("mega",), [69], 5, 3, 4, 1, 10, 10, (0, 0)),
    "usa-bigcities": ("usa", ("bigcities",), [35], 4, 2, 4, 1, 0, 0, (0, 0)),
    "germany": ("germany", ("short", "long"), [55, 34], 4, 2, 4, 1, 0, 15, (20, 10)),
    "europe": ("europe", ("regular",), [40], 3, 2, 3, 1, 10, 0, (0, 0)),     # + 1 long ticket (R8.1)
}


def test_R7_presets_are_the_table():
    """R7 the rule sets are exactly usa, usa-1910, usa-mega, usa-bigcities, germany, europe."""
    assert sorted(preset_names()) == sorted(R7)


@pytest.mark.parametrize("preset", list(R7))
def test_R7_preset_parameters(preset):
    """R7 every entry of the table, in the RuleSet and in the compiled Board."""
    map_name, tags, sizes, deal, keep, draw, dkeep, lp, globe, (p1, p2) = R7[preset]
    r = get_rules(preset)
    assert r.preset == preset and r.map == map_name
    assert tuple(r.ticket_decks) == tags
    assert (r.setup_deal, r.setup_keep, r.draw_tickets, r.draw_keep) == (deal, keep, draw, dkeep)
    assert (r.longest_path_points, r.globetrotter_points) == (lp, globe)
    assert (r.passenger_first, r.passenger_second) == (p1, p2)
    b = build_board(r)
    assert b.deck_size.tolist() == sizes and int(b.rp[RP_N_DECKS]) == len(sizes)
    assert int((b.ticket_deck >= 0).sum()) == sum(sizes)
    assert [int(b.rp[i]) for i in (RP_SETUP_DEAL, RP_SETUP_KEEP, RP_DRAW_N, RP_DRAW_KEEP)] == [deal, keep, draw, dkeep]
    assert int(b.rp[RP_LP_PTS]) == lp and int(b.rp[RP_GLOBE_PTS]) == globe
    assert int(b.rp[RP_PASS_FIRST]) == p1 and int(b.rp[RP_PASS_SECOND]) == p2
    assert int(b.rp[RP_PASSENGERS]) == (preset == "germany")
    assert int(b.pass_setup.sum()) == (60 if preset == "germany" else 0)     # R1.5
    # common parts (R1.1, R1.2, R2.1, R3.4)
    assert int(b.rp[RP_TRAINS]) == 45 and int(b.rp[RP_HAND]) == 4 and int(b.rp[RP_FACEUP]) == 5
    assert int(b.rp[RP_N_CARDS]) == 110 and b.card_counts.tolist() == [12] * 8 + [14]
    assert int(b.rp[RP_LOCO_RESET]) == 3 and int(b.rp[RP_END_TRAINS]) == 2


@pytest.mark.parametrize("preset,ties", [("usa", [TB_TICKETS, TB_LONGEST, TB_NONE]),
                                         ("usa-1910", [TB_TICKETS, TB_LONGEST, TB_NONE]),
                                         ("usa-mega", [TB_TICKETS, TB_LONGEST, TB_NONE]),
                                         ("usa-bigcities", [TB_TICKETS, TB_LONGEST, TB_NONE]),
                                         ("germany", [TB_TICKETS, TB_PASSENGERS, TB_NONE]),
                                         ("europe", [TB_TICKETS, TB_STATIONS, TB_LONGEST_BONUS])])
def test_R6_8_R7_tiebreaks_per_preset(preset, ties):
    """R6.8 USA rule sets: tickets then longest path; Germany: tickets then
    passengers; Europe: tickets, the fewest stations used, then the European
    Express (longest-path bonus)."""
    b = build_board(get_rules(preset))
    assert [int(b.rp[i]) for i in (RP_TB0, RP_TB1, RP_TB2)] == ties


@pytest.mark.parametrize("preset,setup_shuffle,setup_box,draw_shuffle", [("usa", 0, 0, 0), ("usa-mega", 0, 0, 0),
                                                                        ("germany", 1, 0, 0), ("europe", 0, 1, 0)])
def test_R2_2_R5_1_returned_tickets_per_preset(preset, setup_shuffle, setup_box, draw_shuffle):
    """R2.2 returned setup tickets go to the bottom (Germany: shuffled back in;
    Europe: back in the box, R8.1); R5.1 each returned drawn ticket goes to
    the bottom of its own deck."""
    b = build_board(get_rules(preset))
    assert int(b.rp[RP_SETUP_SHUFFLE]) == setup_shuffle and int(b.rp[RP_DRAW_SHUFFLE]) == draw_shuffle
    assert int(b.rp[RP_SETUP_BOX]) == setup_box


def deck_tickets(preset):
    """(a, b, points) of every ticket in the preset's draw piles."""
    r = get_rules(preset)
    m = load_map(r.map)
    b = build_board(r, m)
    out = []
    for d in range(b.deck_size.shape[0]):
        ids = b.deck_tickets[d, :b.deck_size[d]]
        out.append([(m.location_names[m.ticket_a[t]], m.location_names[m.ticket_b[t]], int(m.ticket_points[t]))
                    for t in ids])
    return out


def test_R7_usa_ticket_decks_membership():
    """R7 tickets used: base = the 30 of 2004 with 2004 values; 1910 = 35 new
    tickets; mega = all 69 of the 1910 box with the reprint values (so it holds
    all of 1910 and the 30 base connections); bigcities = 35 of the 1910 box."""
    base, = deck_tickets("usa")
    new, = deck_tickets("usa-1910")
    mega, = deck_tickets("usa-mega")
    big, = deck_tickets("usa-bigcities")
    pairs = lambda deck: {frozenset(t[:2]) for t in deck}   # noqa: E731
    assert len(set(base)) == 30 and len(set(new)) == 35 and len(set(mega)) == 69 and len(set(big)) == 35
    assert not pairs(base) & pairs(new)                      # the 1910 tickets are new connections
    assert set(new) <= set(mega)
    assert pairs(base) <= pairs(mega)
    assert set(big) <= set(mega)
    # 2004 value in the base game, 1910 reprint value in Mega (docs/rules.md R7 notes)
    assert ("Los Angeles", "New York", 21) in base and ("Los Angeles", "New York", 20) in mega
    assert ("Seattle", "New York", 22) in base and ("Seattle", "New York", 20) in mega


def test_R7_germany_two_decks():
    """R7 germany: 55 short + 34 long tickets, two separate draw piles."""
    short, long_ = deck_tickets("germany")
    assert len(short) == 55 and len(long_) == 34
    assert not set(short) & set(long_)


# --------------------------------------------------------------------------- every parameter reaches the Board


def rp(*idx):
    return lambda b: [int(b.rp[i]) for i in idx]


# name: (preset, override value, probe(board), expected probe value)
OVERRIDES = {
    "map": ("usa", str(TINY_MAP), lambda b: (len(b.route_len), int(b.n_nodes), b.deck_size.tolist()), (6, 6, [3])),
    "ticket_decks": ("usa", ["base", "1910"], lambda b: (int(b.rp[RP_N_DECKS]), b.deck_size.tolist()), (2, [30, 35])),
    "scoring": ("usa", {1: 2, 6: 20}, lambda b: sorted({(int(n), int(p)) for n, p in zip(b.route_len, b.route_points)}),
                [(1, 2), (2, 2), (3, 4), (4, 7), (5, 10), (6, 20)]),
    "trains": ("usa", 30, rp(RP_TRAINS), [30]),
    "cards_per_colour": ("usa", 10, lambda b: (b.card_counts.tolist(), int(b.rp[RP_N_CARDS])), ([10] * 8 + [14], 94)),
    "locomotives": ("usa", 20, lambda b: (b.card_counts.tolist(), int(b.rp[RP_N_CARDS])), ([12] * 8 + [20], 116)),
    "hand_size": ("usa", 6, rp(RP_HAND), [6]),
    "face_up": ("usa", 6, rp(RP_FACEUP), [6]),
    "first_seat": ("usa", 2, rp(RP_FIRST_SEAT), [2]),
    "setup_deal": ("usa", 5, rp(RP_SETUP_DEAL), [5]),
    "setup_keep": ("usa", 3, rp(RP_SETUP_KEEP), [3]),
    "setup_return": ("usa", "box", rp(RP_SETUP_SHUFFLE, RP_SETUP_BOX), [0, 1]),
    "draw_tickets": ("usa", 5, rp(RP_DRAW_N), [5]),
    "draw_keep": ("usa", 2, rp(RP_DRAW_KEEP), [2]),
    "draw_return": ("usa", "shuffle", rp(RP_DRAW_SHUFFLE), [1]),
    "loco_reset_count": ("usa", 4, rp(RP_LOCO_RESET), [4]),
    "max_loco_resets": ("usa", 7, rp(RP_MAX_RESETS), [7]),
    "end_trains": ("usa", 5, rp(RP_END_TRAINS), [5]),
    "lock_parallel_max_players": ("usa", 1, rp(RP_LOCK_MAXP), [1]),
    "ticket_points_percent": ("usa", 150, lambda b: b.ticket_points[:4].tolist(), [18, 20, 11, 11]),  # 12, 13, 7, 7
    "ticket_penalty_percent": ("usa", 50, lambda b: b.ticket_penalty[:4].tolist(), [6, 7, 4, 4]),      # printed x 0.5
    "longest_path_points": ("usa", 12, rp(RP_LP_PTS), [12]),
    "globetrotter_points": ("usa", 15, rp(RP_GLOBE_PTS), [15]),
    "passenger_first": ("germany", 25, rp(RP_PASS_FIRST, RP_PASSENGERS), [25, 1]),
    "passenger_second": ("germany", 5, rp(RP_PASS_SECOND), [5]),
    "passenger_zero_scores": ("germany", True, rp(RP_PASS_ZERO), [1]),
    "bonus_needs_score": ("usa", False, rp(RP_BONUS_NEEDS_SCORE), [0]),
    "tiebreaks": ("usa", ["stations", "longest_bonus", "longest_path"], rp(RP_TB0, RP_TB1, RP_TB2),
                  [TB_STATIONS, TB_LONGEST_BONUS, TB_LONGEST]),
    "max_turns": ("usa", 50, rp(RP_MAX_TURNS), [50]),
    "stall_rounds": ("usa", 3, rp(RP_STALL_ROUNDS), [3]),
    "long_deck": ("usa", "1910", lambda b: len(b.long_tickets), 35),
    "setup_long": ("europe", 2, rp(RP_SETUP_LONG), [2]),
    "tunnel_cards": ("europe", 2, rp(RP_TUNNEL_CARDS), [2]),
    "stations": ("europe", 5, rp(RP_STATIONS), [5]),
    "station_costs": ("europe", [2, 2], lambda b: b.station_cost.tolist(), [2, 2]),
    "station_points": ("europe", 2, rp(RP_STATION_PTS), [2]),
    "offer_ticket": ("usa", "Miami-Boston", rp(RP_OFFER_TICKET), [0]),          # ticket 0: Boston-Miami 12 (R9.1)
    "offer_seat": ("usa", 3, rp(RP_OFFER_SEAT), [3]),
    "offer_kept": ("usa", True, rp(RP_OFFER_KEPT), [1]),
    "remove_routes": ("usa", ["Denver-Omaha"], lambda b: (len(b.route_len), 34 in b.route_map_id), (99, False)),
    "change_routes": ("usa", ["Denver-Omaha -> 5 red"], lambda b: (int(b.route_len[34]), int(b.route_points[34])),
                      (5, 10)),
}


def test_R7_every_parameter_has_an_override_test():
    """R7 "every entry of this table is a rule parameter an experiment can
    override": the override table below covers every parameter there is."""
    assert set(OVERRIDES) == {p.name for p in PARAMS}


@pytest.mark.parametrize("name", sorted(OVERRIDES))
def test_R7_parameter_override_reaches_board(name):
    """R7 an override changes the RuleSet and the compiled Board (``rp`` and friends)."""
    preset, value, probe, want = OVERRIDES[name]
    default_board = build_board(get_rules(preset))
    r = get_rules(preset, {name: value})
    got = getattr(r, name)
    if isinstance(value, list):
        assert list(got) == value
    elif isinstance(value, dict):
        assert dict(got) == value
    else:
        assert got == value
    assert r.overrides == {name: value}
    b = build_board(r)
    assert probe(b) == want
    assert probe(default_board) != want, "the override must differ from the preset's value"


def test_R7_overrides_reach_a_game():
    """R7 a Game built with overrides plays by them (trains, hand size, face-up row)."""
    g = Game("usa", 3, seed=5, overrides={"trains": 20, "hand_size": 6, "face_up": 6})
    assert g.state.trains.tolist() == [20, 20, 20]
    assert g.state.hand.sum(axis=1).tolist() == [6, 6, 6]
    assert g.state.faceup.shape == (6,)


# --------------------------------------------------------------------------- errors


def one_line_error(preset="usa", overrides=None, build=False):
    with pytest.raises(RulesError) as info:
        r = get_rules(preset, overrides)
        if build:
            build_board(r)
    msg = str(info.value)
    assert msg and "\n" not in msg, msg
    return msg


def test_R7_unknown_preset():
    """R7 an unknown rule set is one line naming it, with a suggestion for a near miss."""
    msg = one_line_error("usa1910")
    assert "'usa1910'" in msg and "did you mean 'usa-1910'" in msg
    msg = one_line_error("asia")
    assert "'asia'" in msg and "usa-bigcities" in msg          # lists the choices


@pytest.mark.parametrize("wrong,right", [("trainz", "trains"), ("globetroter_points", "globetrotter_points"),
                                         ("passenger_zero_score", "passenger_zero_scores"),
                                         ("tiebreak", "tiebreaks"), ("max_turn", "max_turns")])
def test_R7_unknown_parameter_near_miss(wrong, right):
    """R7 an unknown parameter: one line naming it, suggesting the near miss."""
    msg = one_line_error("usa", {wrong: 1})
    assert f"'{wrong}'" in msg and f"did you mean '{right}'" in msg


def test_R7_unknown_parameter_far_miss():
    msg = one_line_error("germany", {"zzzz": 1})
    assert "'zzzz'" in msg and "unknown" in msg


def bad_values(p):
    """Values of the wrong type for parameter ``p``."""
    if isinstance(p.default, bool):
        return [1, "yes", None]
    if isinstance(p.default, int):
        return ["7", 7.0, True, None]
    return {"map": [5, ""], "ticket_decks": [5, [], ["a", "b", "c"], [1]],
            "scoring": ["x", {9: 1}, {1: "one"}, {1: True}, {}],
            "setup_return": ["top", 1], "draw_return": ["top", None, "box"],
            "tiebreaks": ["tickets", ["coin"], ["tickets", "tickets"]], "long_deck": [5, None],
            "station_costs": ["x", [], [0], [4], [1.5]], "offer_ticket": [5, None, ["Boston-Miami"]],
            "remove_routes": [5, None, [1], [""], {"Denver-Omaha": 1}],
            "change_routes": [5, None, [1], ["Denver-Omaha"], {"Denver-Omaha": "5 red"}]}[p.name]


@pytest.mark.parametrize("p", PARAMS, ids=lambda p: p.name)
def test_R7_bad_type_names_the_parameter(p):
    """R7 a value of the wrong type is a one-line RulesError naming the parameter."""
    preset = "germany" if p.name.startswith("passenger") else "usa"
    for value in bad_values(p):
        msg = one_line_error(preset, {p.name: value})
        assert f"'{p.name}'" in msg, (value, msg)


@pytest.mark.parametrize("p", [p for p in PARAMS if p.lo is not None or p.hi is not None], ids=lambda p: p.name)
def test_R7_out_of_range_names_the_parameter(p):
    """R7 an integer outside its range is a one-line RulesError naming the
    parameter; the bounds themselves are accepted (unless another parameter
    constrains them, e.g. keep <= deal)."""
    preset = "germany" if p.name.startswith("passenger") else "europe" if p.rule.startswith("R8") else "usa"
    for value in (p.lo - 1, p.hi + 1):
        msg = one_line_error(preset, {p.name: value})
        assert f"'{p.name}'" in msg and str(value) in msg
    companions = {"setup_keep": {"setup_deal": p.hi}, "draw_keep": {"draw_tickets": p.hi},
                  "passenger_second": {"passenger_first": p.hi}}
    for value in (p.lo, p.hi):
        extra = companions.get(p.name, {}) if value == p.hi else {}
        if p.name == "passenger_first" and value < 10:
            extra = {"passenger_second": 0}
        if p.name == "setup_deal" and value < 4:
            extra = {"setup_keep": 1}
        if p.name == "setup_long" and value == 0:
            extra = {"long_deck": ""}
        assert getattr(get_rules(preset, {p.name: value, **extra}), p.name) == value


@pytest.mark.parametrize("overrides,name", [({"setup_keep": 5}, "setup_keep"),
                                            ({"draw_keep": 5}, "draw_keep"),
                                            ({"passenger_second": 30}, "passenger_second")])
def test_R7_inconsistent_parameters(overrides, name):
    """R2.2, R5.1, R6.7 keep at most what is dealt; second place at most first."""
    msg = one_line_error("germany", overrides)
    assert f"'{name}'" in msg


def test_R7_unknown_ticket_deck_tag():
    """R7 a ticket deck tag the map does not have is a one-line RulesError
    naming 'ticket_decks' and the tags there are."""
    msg = one_line_error("usa", {"ticket_decks": ["short"]}, build=True)
    assert "'ticket_decks'" in msg and "'short'" in msg and "1910" in msg


def test_R7_unknown_ticket_deck_tag_is_rejected():
    """R7 an unknown ticket deck tag is rejected when the board is built (by some error)."""
    with pytest.raises(RulesError, match="short"):
        build_board(get_rules("usa", {"ticket_decks": ["short"]}))


def test_R1_2_player_count():
    """R1.2 2 to 5 players."""
    for n in (1, 6):
        with pytest.raises(RulesError, match="players"):
            Game("usa", n)


@pytest.mark.parametrize("n_players", [2, 3, 5])
def test_R2_5_seat_0_moves_first(n_players):
    """R2.5 Seat 0 moves first, then clockwise: seat 0 is the first to act at
    setup and in the first main turn, whatever the seed."""
    for seed in range(5):
        g = Game("usa", n_players, seed=seed)
        assert g.player == 0 and g.phase == "setup-keep"
        order = []
        while g.phase == "setup-keep":
            order.append(g.player)
            g.apply(max(g.legal_actions()))
        assert order == list(range(n_players))
        assert g.phase == "main" and g.player == 0
        seen = []
        for _ in range(n_players + 1):
            seen.append(g.player)
            g.apply(A_BLIND)
            if g.phase == "draw2":
                g.apply(A_BLIND)
        assert seen == list(range(n_players)) + [0]


def test_R2_5_choice_flips_first_seat():
    """R2.5 [choice] flipping the first-player choice must change who moves first."""
    names = {p.name for p in PARAMS if p.rule == "R2.5" and p.choice}
    assert names, "no [choice] parameter for R2.5"
    name = sorted(names)[0]
    g = setup_game("usa", 3, seed=1, overrides={name: 1})
    assert g.player == 1


def faceup_after_taking_red(max_resets):
    """Row [loco, loco, red, blue, green]; the deck gives a locomotive for the
    emptied slot (3 locomotives: R3.4), then [loco, loco, loco, pink, orange]
    (3 again), then [white, yellow, black, red, blue]. Seat 0 takes the red."""
    g = setup_game("usa", 2, seed=3, overrides={"max_loco_resets": max_resets})
    put_faceup(g, [LOCO, LOCO, RED, BLUE, GREEN])
    put_deck_top(g, [LOCO, LOCO, LOCO, LOCO, PINK, ORANGE, WHITE, YELLOW, BLACK, RED, BLUE])
    deck_before, discard_before = int(g.state.meta[M_DECK_N]), int(g.state.discard.sum())
    g.apply(A_FACEUP + 2)
    return (g.state.faceup.tolist(), int(g.state.discard.sum()) - discard_before,
            deck_before - int(g.state.meta[M_DECK_N]))


def test_R3_4_choice_max_loco_resets_changes_behaviour():
    """R3.4 [choice] at most ``max_loco_resets`` resets in a row; after that the row stays."""
    row0, disc0, drawn0 = faceup_after_taking_red(0)
    assert row0 == [LOCO, LOCO, LOCO, BLUE, GREEN] and disc0 == 0 and drawn0 == 1
    row1, disc1, drawn1 = faceup_after_taking_red(1)
    assert row1 == [LOCO, LOCO, LOCO, PINK, ORANGE] and disc1 == 5 and drawn1 == 6
    row3, disc3, drawn3 = faceup_after_taking_red(3)          # the default: 2 resets are enough here
    assert row3 == [WHITE, YELLOW, BLACK, RED, BLUE] and disc3 == 10 and drawn3 == 11
    assert get_rules("usa").max_loco_resets == 3


def stuck_game(overrides):
    g = setup_game("usa", 2, seed=9, overrides=overrides)
    s = g.state
    s.meta[M_DECK_N] = 0
    s.discard[:] = 0
    s.faceup[:] = -1
    s.hand[:, :] = 0
    s.tk_len[:] = 0
    return g


def test_R6_2_choice_stall_rounds_changes_behaviour():
    """R6.2 [choice] "every player passes in one full round" -> stalled; with
    ``stall_rounds: 2`` two full rounds of passes are needed."""
    g1 = stuck_game({})
    g2 = stuck_game({"stall_rounds": 2})
    for _ in range(2):
        g1.apply(A_PASS)
        g2.apply(A_PASS)
    assert g1.over and g1.result()["end"] == "stalled" and g1.turn == 2
    assert not g2.over
    g2.apply(A_PASS)
    g2.apply(A_PASS)
    assert g2.over and g2.result()["end"] == "stalled" and g2.turn == 4


def test_R6_2_choice_max_turns_changes_behaviour():
    """R6.2 [choice] the turn cap: ``max_turns: 4`` ends the game 'capped' after
    4 turns; with the default cap the same game goes on."""
    ends = {}
    for cap in (4, None):
        g = setup_game("usa", 2, seed=10, overrides={"max_turns": cap} if cap else None)
        for _ in range(4):
            g.apply(A_BLIND)
            if g.phase == "draw2":
                g.apply(A_BLIND)
        ends[cap] = g.result()["end"] if g.over else "running"
    assert ends == {4: "capped", None: "running"}
    assert get_rules("usa").max_turns >= 200


def test_R6_7_choice_passenger_zero_scores_changes_behaviour():
    """R6.7 [choice] A player with no passenger of a colour scores nothing for
    it; ``passenger_zero_scores: true`` lets them take second place."""
    pts = {}
    for flag in (False, True):
        g = setup_game("germany", 3, seed=11, overrides={"passenger_zero_scores": flag})
        s = g.state
        s.route_owner[:] = -1
        s.ticket_holder[:] = -1
        s.pass_player[:, :] = 1          # every colour: a three-way tie of 1 (20 each)...
        s.pass_player[:, 0] = [2, 0, 0]  # ...except black: seat 0 alone, seats 1 and 2 have none
        final_scoring(g.board, s)
        pts[flag] = s.final[:3, F_PASSENGER_PTS].tolist()
    assert pts[False] == [120, 100, 100]
    assert pts[True] == [120, 110, 110]


def test_R6_5_R6_6_bonus_needs_score_choice_changes_behaviour():
    """R6.5/R6.6 parameter ``bonus_needs_score`` (a choice of the engine): by
    default nobody gets the Globetrotter / longest path bonus for 0 completed
    tickets or no routes; switched off, all tied players at 0 get it."""
    got = {}
    for flag in (True, False):
        g = setup_game("usa-mega", 2, seed=12, overrides={"bonus_needs_score": flag})
        s = g.state
        s.route_owner[:] = -1
        s.ticket_holder[:] = -1
        final_scoring(g.board, s)
        got[flag] = (s.final[:2, F_GLOBETROTTER].tolist(), s.final[:2, F_LP_BONUS].tolist())
    assert got[True] == ([0, 0], [0, 0])
    assert got[False] == ([10, 10], [10, 10])


def test_R6_1_end_trains_parameter_changes_behaviour():
    """R6.1 / R7 the last-round threshold is a parameter: 3 trains end the game
    with ``end_trains: 3`` (trigger + one more turn each) but not by default."""
    for threshold, triggered in ((None, False), (3, True)):
        g = setup_game("usa", 2, seed=13, overrides={"end_trains": threshold} if threshold else None)
        g.state.trains[:] = 3
        for _ in range(3):
            g.apply(A_BLIND)
            if g.phase == "draw2":
                g.apply(A_BLIND)
        assert bool(g.over) is triggered


def test_R6_choices_independent_of_board_arrays():
    """Overriding one choice leaves the rest of the Board untouched."""
    a = build_board(get_rules("germany"))
    b = build_board(get_rules("germany", {"passenger_zero_scores": True}))
    diff = np.flatnonzero(a.rp != b.rp).tolist()
    assert diff == [RP_PASS_ZERO]
    assert np.array_equal(a.route_len, b.route_len) and np.array_equal(a.deck_size, b.deck_size)
