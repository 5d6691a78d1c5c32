"""Rules R1.1, R1.2 (components), R2 (setup) and R3 (drawing train cards).

Most tests build the exact position they need on top of a real game: the
helpers.py builders (``put_hand``, ``put_faceup``, ``put_deck_top``) or
:func:`arrange` below, which lays out every card pile at once (deck, discards,
face-up row, hands) and keeps the 110 cards conserved.
"""
import numpy as np
import pytest
from numba import njit

from ttrsim.core.actions import A_BLIND, A_FACEUP, A_KEEP, A_TICKETS, action_space_size
from ttrsim.core.engine import is_legal
from ttrsim.core.state import M_DECK_N
from ttrsim.data.ids import (
    BLACK,
    BLUE,
    CARD_NAMES,
    COLOUR_NAMES,
    GREEN,
    LOCO,
    N_PASSENGER_COLOURS,
    ORANGE,
    PINK,
    RED,
    WHITE,
    YELLOW,
)
from ttrsim.data.rules import RulesError, preset_names
from ttrsim.play.game import Game, IllegalAction

from helpers import card_total, put_deck_top, put_faceup, put_hand, setup_game

PRESETS = ("usa", "usa-1910", "usa-mega", "usa-bigcities", "germany", "europe")
# R7: tickets dealt / kept at least at setup
SETUP_DEAL_KEEP = {"usa": (3, 2), "usa-1910": (3, 2), "usa-mega": (5, 3), "usa-bigcities": (4, 2),
                   "germany": (4, 2), "europe": (4, 2)}      # europe: 3 regular + 1 long (R8.1)
L = LOCO


# --------------------------------------------------------------------------- helpers

def arrange(g, hands=None, faceup=None, deck=None, discard=None, sink=None):
    """Lay out every train card of ``g``: ``hands`` (seat -> {kind: n}; other
    seats keep theirs), the ``faceup`` row (kinds, -1 empty), the exact
    ``deck`` (kinds, first drawn first) and the ``discard`` pile ({kind: n}).
    Cards left over go to the deck (when ``deck`` is None) or into seat
    ``sink``'s hand. The 110 cards stay conserved."""
    s = g.state
    pool = g.board.card_counts.astype(np.int64).copy()
    hands = dict(hands or {})
    for p in range(g.n_players):
        if p not in hands and p != sink:
            pool -= s.hand[p]
    new_hand = {p: np.zeros(9, np.int64) for p in set(hands) | ({sink} - {None})}
    for p, counts in hands.items():
        for kind, n in counts.items():
            new_hand[p][kind] += n
    row = list(faceup) if faceup is not None else [int(c) for c in s.faceup]
    disc = np.zeros(9, np.int64)
    for kind, n in (discard or {}).items():
        disc[kind] += n
    for v in new_hand.values():
        pool -= v
    for c in row:
        if c >= 0:
            pool[c] -= 1
    pool -= disc
    if deck is not None:
        for c in deck:
            pool[c] -= 1
    assert (pool >= 0).all(), f"not enough cards for this layout: {pool.tolist()}"
    if deck is None:
        deck = [k for k in range(9) for _ in range(pool[k])]
        np.random.default_rng(0).shuffle(deck)
    else:
        assert sink is not None or not pool.any(), "cards left over and no sink seat"
        if sink is not None:
            new_hand[sink] += pool
    for p, v in new_hand.items():
        s.hand[p, :] = v
    s.faceup[:] = row
    s.discard[:] = disc
    s.deck[:] = 0
    s.deck[:len(deck)] = list(reversed(deck))      # the top of the deck is deck[M_DECK_N - 1]
    s.meta[M_DECK_N] = len(deck)
    assert card_total(g) == 110


@njit
def _scan_is_legal(b, s, size, out):
    n = 0
    for a in range(size):
        if is_legal(b, s, a):
            out[n] = a
            n += 1
    return n


def assert_legal_consistent(g):
    """The legal list equals every action that ``is_legal`` accepts."""
    size = action_space_size(g.map.n_routes)
    out = np.empty(size, np.int32)
    n = _scan_is_legal(g.board, g.state, size, out)
    assert sorted(g.legal_actions()) == out[:n].tolist()


def deck_top(g, n):
    """The next ``n`` cards of the deck, first drawn first."""
    s = g.state
    k = s.meta[M_DECK_N]
    return [int(c) for c in s.deck[k - n:k][::-1]]


def draw_actions(g):
    """The legal train-card draws (checked against ``is_legal`` on the way)."""
    assert_legal_consistent(g)
    return [a for a in g.legal_actions() if a <= A_BLIND]


def pile(g, d):
    """Ticket pile ``d`` from top to bottom."""
    s = g.state
    cap = s.tk_buf.shape[1]
    return [int(s.tk_buf[d, (s.tk_head[d] + i) % cap]) for i in range(s.tk_len[d])]


def offer(g, p):
    s = g.state
    return [int(t) for t in s.offer[p, :s.offer_n[p]]]


def popcount(x):
    return bin(x).count("1")


# --------------------------------------------------------------------------- R1 components

@pytest.mark.parametrize("preset", PRESETS)
def test_R1_1_train_cards_110_in_every_preset(preset):
    """R1.1 "Train car cards: 8 colours x 12 cards + 14 locomotives = 110 cards." """
    assert preset_names() == list(PRESETS)
    assert COLOUR_NAMES == ("pink", "blue", "orange", "white", "green", "yellow", "black", "red")
    assert CARD_NAMES[LOCO] == "locomotive"
    for n in (2, 5):
        g = Game(preset, n, seed=3)
        assert g.board.card_counts.tolist() == [12] * 8 + [14]
        assert card_total(g) == 110
        kinds = np.concatenate([g.state.deck[:g.state.meta[M_DECK_N]], g.state.faceup[g.state.faceup >= 0]])
        per_kind = np.bincount(kinds, minlength=9) + g.state.discard + g.state.hand.sum(axis=0)
        assert per_kind.tolist() == [12] * 8 + [14]
        g = setup_game(preset, n, seed=3)
        assert card_total(g) == 110


@pytest.mark.parametrize("preset", PRESETS)
def test_R1_2_45_trains_and_2_to_5_players(preset):
    """R1.2 "Trains: 45 per player. 2 to 5 players." """
    for n in (2, 3, 4, 5):
        g = Game(preset, n, seed=1)
        assert g.n_players == n
        assert g.state.trains.tolist() == [45] * n
    for n in (0, 1, 6):
        with pytest.raises(RulesError):
            Game(preset, n, seed=1)


# --------------------------------------------------------------------------- R2 setup

@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_R2_1_four_cards_each_five_face_up(preset, n_players):
    """R2.1 "Shuffle the train deck, deal 4 cards to each player, turn 5 cards face up." """
    g = Game(preset, n_players, seed=11 + n_players)
    s = g.state
    assert s.hand.sum(axis=1).tolist() == [4] * n_players
    assert (s.faceup >= 0).sum() == 5
    assert s.meta[M_DECK_N] + s.discard.sum() == 110 - 4 * n_players - 5
    assert card_total(g) == 110


def test_R2_1_deck_is_shuffled_by_the_seed():
    """R2.1 "Shuffle the train deck": different seeds, different decks; the same seed, the same deck."""
    decks = {tuple(Game("usa", 2, seed).state.deck.tolist()) for seed in range(5)}
    assert len(decks) == 5
    assert Game("usa", 2, 4).state.deck.tolist() == Game("usa", 2, 4).state.deck.tolist()


def reach_setup_keep(g, mix=None):
    """Play the Germany setup-mix phase (each seat: ``mix`` short tickets, default 2)."""
    while g.phase == "setup-mix":
        g.apply(A_TICKETS + (2 if mix is None else mix))
    assert g.phase == "setup-keep"


@pytest.mark.parametrize("preset", PRESETS)
def test_R2_2_setup_deal_and_keep_sizes(preset):
    """R2.2 "Deal destination tickets per the rule set table (R7); each player keeps
    at least the minimum": usa 3/2, usa-1910 3/2, usa-mega 5/3, usa-bigcities 4/2, germany 4/2."""
    deal, keep = SETUP_DEAL_KEEP[preset]
    g = Game(preset, 3, seed=5)
    reach_setup_keep(g)
    assert g.state.offer_n.tolist() == [deal] * 3
    for p in range(3):
        assert g.player == p and g.phase == "setup-keep"
        legal = g.legal_actions()
        assert legal == [A_KEEP + m for m in range(1 << deal) if popcount(m) >= keep]
        for m in range(1 << deal):                 # masks below the minimum are illegal
            assert g.is_legal(A_KEEP + m) == (popcount(m) >= keep)
        assert not g.is_legal(A_KEEP + (1 << deal))  # no ticket beyond the offer
        small = [m for m in range(1 << deal) if popcount(m) == keep - 1][0]
        with pytest.raises(IllegalAction):
            g.apply(A_KEEP + small)
        g.apply(A_KEEP + [m for m in range(1 << deal) if popcount(m) == keep][-1])
    assert g.phase == "main"
    assert [(g.state.ticket_holder == p).sum() for p in range(3)] == [keep] * 3


def test_R2_2_usa_returned_setup_tickets_go_to_the_bottom():
    """R2.2 "Returned tickets go to the bottom of their deck" (USA): the pile keeps
    its order and the returns follow at the bottom, seat 0's then seat 1's."""
    g = Game("usa", 2, seed=9)
    before = pile(g, 0)
    off0, off1 = offer(g, 0), offer(g, 1)
    assert len(before) == 30 - 6
    assert not set(before) & set(off0 + off1)
    g.apply(A_KEEP + 0b011)              # seat 0 returns its third ticket
    g.apply(A_KEEP + 0b101)              # seat 1 returns its second ticket
    assert pile(g, 0) == before + [off0[2], off1[1]]
    s = g.state
    assert [int(s.ticket_holder[t]) for t in off0] == [0, 0, -1]
    assert [int(s.ticket_holder[t]) for t in off1] == [1, -1, 1]


def test_R2_2_germany_returned_setup_tickets_are_shuffled_back():
    """R2.2 "in Germany the returned tickets are shuffled back into their decks":
    each return is back in its own pile, and not simply appended at the bottom."""
    appended = 0
    for seed in range(6):
        g = Game("germany", 2, seed=seed)
        reach_setup_keep(g, mix=2)       # 2 short + 2 long each
        piles = [pile(g, 0), pile(g, 1)]
        off = [offer(g, 0), offer(g, 1)]
        g.apply(A_KEEP + 0b1010)          # seat 0 returns offer[0] (short) and offer[2] (long)
        g.apply(A_KEEP + 0b0101)          # seat 1 returns offer[1] (short) and offer[3] (long)
        short_back, long_back = [off[0][0], off[1][1]], [off[0][2], off[1][3]]
        deck_of = g.board.ticket_deck
        assert all(deck_of[t] == 0 for t in short_back) and all(deck_of[t] == 1 for t in long_back)
        after = [pile(g, 0), pile(g, 1)]
        assert sorted(after[0]) == sorted(piles[0] + short_back)
        assert sorted(after[1]) == sorted(piles[1] + long_back)
        appended += after[0] == piles[0] + short_back and after[1] == piles[1] + long_back
    assert appended == 0


@pytest.mark.parametrize("preset", ["usa", "germany"])
def test_R2_2_setup_keep_is_private_and_independent(preset):
    """R2.2 "each player keeps at least the minimum, privately and independently (no
    player sees another's choice)": seat 0's choice changes nothing seat 1 can see or
    do; the returns happen only after every seat chose."""
    g = Game(preset, 3, seed=21)
    reach_setup_keep(g)
    deal = g.state.offer_n[0]
    obs1 = g.observation(1)
    piles = [pile(g, d) for d in range(len(g.state.tk_len))]
    worlds = []
    for mask in ((1 << deal) - 1, 0b0011):
        h = g.copy()
        h.apply(A_KEEP + mask)
        assert h.player == 1 and h.phase == "setup-keep"
        assert (h.state.ticket_holder == -1).all()            # nothing settled yet
        assert [pile(h, d) for d in range(len(h.state.tk_len))] == piles
        assert offer(h, 0) == offer(g, 0)
        o = h.observation(1)
        assert {k: v for k, v in o.items() if k != "player"} == {k: v for k, v in obs1.items() if k != "player"}
        worlds.append((h.legal_actions(), offer(h, 1), o))
    assert worlds[0] == worlds[1]
    h.apply(A_KEEP + 0b0011)
    assert h.phase == "setup-keep" and (h.state.ticket_holder == -1).all()
    h.apply(A_KEEP + 0b0011)
    assert h.phase == "main"
    assert [(h.state.ticket_holder == p).sum() for p in range(3)] == [2, 2, 2]


def test_R2_3_germany_setup_mix_phase():
    """R2.3 "Germany: before drawing, a player announces how many of the dealt (or
    drawn) tickets come from the Short deck and how many from the Long deck (any mix)." """
    g = Game("germany", 4, seed=2)
    s = g.state
    assert g.phase == "setup-mix" and s.offer_n.tolist() == [0] * 4
    assert s.tk_len.tolist() == [55, 34]
    for p, k in enumerate((0, 4, 1, 3)):
        assert g.player == p and g.phase == "setup-mix"
        assert g.legal_actions() == [A_TICKETS + j for j in range(5)]     # any mix 0..4 short
        assert not g.is_legal(A_TICKETS + 5) and not g.is_legal(A_BLIND)
        short_top, long_top = pile(g, 0)[:k], pile(g, 1)[:4 - k]
        g.apply(A_TICKETS + k)
        got = offer(g, p)
        assert got == short_top + long_top
        assert [int(g.board.ticket_deck[t]) for t in got] == [0] * k + [1] * (4 - k)
    assert g.phase == "setup-keep" and g.player == 0
    assert s.tk_len.tolist() == [55 - 8, 34 - 8]


def test_R2_3_germany_setup_mix_limited_by_pile_sizes():
    """R2.3 with R5.2: the announced mix can only take what a pile holds."""
    g = Game("germany", 2, seed=2)
    s = g.state
    s.tk_head[0] += 53                  # hand-built: only 2 short tickets left
    s.tk_len[0] = 2
    assert g.legal_actions() == [A_TICKETS + 0, A_TICKETS + 1, A_TICKETS + 2]
    assert not g.is_legal(A_TICKETS + 3)
    g.apply(A_TICKETS + 2)
    assert offer(g, 0) and len(offer(g, 0)) == 4
    s.tk_head[1] += 29                  # now 0 short and 3 long tickets left for seat 1
    s.tk_len[1] = 3
    assert g.legal_actions() == [A_TICKETS + 0]      # draw what remains: 3 long
    g.apply(A_TICKETS + 0)
    assert [int(g.board.ticket_deck[t]) for t in offer(g, 1)] == [1, 1, 1]
    assert g.phase == "setup-keep"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_R2_4_germany_passengers_placed_from_the_map_counts(seed):
    """R2.4 "Germany: the 60 passengers are drawn at random (from the game's RNG)
    onto the cities and countries in the setup counts" (R1.5: 10 of each of 6 colours)."""
    g = Game("germany", 3, seed=seed)
    s, m = g.state, g.map
    assert int(m.passengers.sum()) == 60
    assert s.pass_loc.sum() == 60
    assert s.pass_loc.sum(axis=1).tolist() == m.passengers.tolist()
    assert s.pass_loc.sum(axis=0).tolist() == [10] * N_PASSENGER_COLOURS
    for country in ("Dänemark", "Frankreich", "Niederlande", "Österreich", "Schweiz"):
        assert s.pass_loc[m.location_id(country)].sum() == 1
    assert s.pass_player.sum() == 0


def test_R2_4_passenger_placement_depends_on_the_seed():
    """R2.4 "drawn at random (from the game's RNG)": other seeds, other placements;
    the same seed, the same placement."""
    layouts = {Game("germany", 2, seed).state.pass_loc.tobytes() for seed in range(5)}
    assert len(layouts) == 5
    assert (Game("germany", 2, 3).state.pass_loc == Game("germany", 2, 3).state.pass_loc).all()
    assert Game("usa", 2, 3).state.pass_loc.sum() == 0          # no passengers on the USA map


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("n_players", [2, 5])
def test_R2_5_seat_0_acts_first_then_clockwise(preset, n_players):
    """R2.5 "Seat 0 moves first, then clockwise." (setup decisions and the first turn)"""
    g = Game(preset, n_players, seed=4)
    assert g.player == 0
    seen = []
    while g.phase in ("setup-mix", "setup-keep"):
        seen.append((g.phase, g.player))
        g.apply(g.legal_actions()[-1])
    phases = ["setup-mix"] * n_players * (preset == "germany") + ["setup-keep"] * n_players
    assert seen == list(zip(phases, list(range(n_players)) * 2))
    assert g.phase == "main" and g.player == 0
    order = []
    for _ in range(n_players + 1):
        order.append(g.player)
        g.apply(A_BLIND)
        g.apply(A_BLIND)
    assert order == list(range(n_players)) + [0]


# --------------------------------------------------------------------------- R3 train cards

ROW = [RED, BLUE, GREEN, WHITE, BLACK]


@pytest.fixture
def g2():
    """USA, 2 players, seat 0 to act, with an empty hand."""
    g = setup_game("usa", 2, seed=1)
    arrange(g, hands={0: {}})
    return g


@pytest.mark.parametrize("first,second,got", [
    (A_FACEUP + 0, A_BLIND, {RED: 1, ORANGE: 1}),        # face-up, then blind
    (A_BLIND, A_FACEUP + 1, {YELLOW: 1, BLUE: 1}),       # blind, then face-up
    (A_FACEUP + 0, A_FACEUP + 0, {RED: 1, YELLOW: 1}),   # face-up twice (the replacement)
    (A_BLIND, A_BLIND, {YELLOW: 1, ORANGE: 1}),          # blind twice
])
def test_R3_1_two_draws_in_any_combination(g2, first, second, got):
    """R3.1 "A player draws 2 cards, each either one of the 5 face-up cards or the
    top of the deck (blind), in any combination." """
    g = g2
    arrange(g, faceup=ROW, deck=[YELLOW, ORANGE, PINK, YELLOW, ORANGE, PINK], sink=1)
    assert set(draw_actions(g)) == {A_FACEUP + i for i in range(5)} | {A_BLIND}
    g.apply(first)
    assert g.player == 0 and g.phase == "draw2"
    g.apply(second)
    assert g.player == 1 and g.phase == "main"
    assert {k: int(v) for k, v in enumerate(g.state.hand[0]) if v} == got
    assert card_total(g) == 110


def test_R3_2_faceup_locomotive_first_ends_turn():
    """R3.2 "A face-up locomotive taken as the first draw ends the turn (it counts as both cards)." """
    g = setup_game("usa", 2, seed=1)
    put_hand(g, 0, {})
    put_faceup(g, [L, RED, BLUE, GREEN, WHITE])
    put_deck_top(g, [YELLOW])
    assert set(draw_actions(g)) == {A_FACEUP + i for i in range(5)} | {A_BLIND}
    g.apply(A_FACEUP + 0)
    assert g.player == 1 and g.phase == "main"
    assert g.state.hand[0].tolist() == [0] * 8 + [1]
    assert g.state.faceup[0] == YELLOW
    assert card_total(g) == 110


def test_R3_2_faceup_locomotive_never_second_draw(g2):
    """R3.2 "A face-up locomotive can never be the second draw." Also when the
    locomotive is the replacement of the first card taken."""
    g = g2
    arrange(g, faceup=[L, RED, BLUE, GREEN, WHITE], deck=[YELLOW, ORANGE, PINK], sink=1)
    g.apply(A_BLIND)
    assert g.phase == "draw2"
    assert draw_actions(g) == [A_FACEUP + i for i in (1, 2, 3, 4)] + [A_BLIND]
    assert not g.is_legal(A_FACEUP + 0)
    with pytest.raises(IllegalAction):
        g.apply(A_FACEUP + 0)

    h = setup_game("usa", 2, seed=2)
    arrange(h, faceup=ROW, deck=[L, YELLOW, ORANGE], sink=1)
    h.apply(A_FACEUP + 3)                          # white taken, a locomotive turned up
    assert h.state.faceup.tolist() == [RED, BLUE, GREEN, L, BLACK]
    assert h.phase == "draw2"
    assert not h.is_legal(A_FACEUP + 3)
    assert draw_actions(h) == [A_FACEUP + i for i in (0, 1, 2, 4)] + [A_BLIND]


def test_R3_2_blind_locomotive_counts_as_one_card():
    """R3.2 "A locomotive drawn blind counts as one card." """
    g = setup_game("usa", 2, seed=1)
    put_hand(g, 0, {})
    put_faceup(g, ROW)
    put_deck_top(g, [L, YELLOW])
    g.apply(A_BLIND)
    assert g.player == 0 and g.phase == "draw2"
    assert g.state.hand[0, LOCO] == 1
    g.apply(A_BLIND)
    assert g.player == 1 and g.phase == "main"
    assert g.state.hand[0].sum() == 2 and g.state.hand[0, YELLOW] == 1


def test_R3_3_faceup_card_replaced_before_second_draw():
    """R3.3 "A taken face-up card is replaced from the deck at once, before the second draw." """
    g = setup_game("usa", 2, seed=1)
    put_hand(g, 0, {})
    put_faceup(g, ROW)
    put_deck_top(g, [YELLOW, ORANGE])
    s = g.state
    n = s.meta[M_DECK_N]
    g.apply(A_FACEUP + 2)
    assert g.phase == "draw2" and g.player == 0
    assert s.faceup.tolist() == [RED, BLUE, YELLOW, WHITE, BLACK]
    assert s.meta[M_DECK_N] == n - 1 and deck_top(g, 1) == [ORANGE]
    assert g.is_legal(A_FACEUP + 2)                 # the replacement can be the second draw
    g.apply(A_FACEUP + 2)
    assert s.faceup.tolist() == [RED, BLUE, ORANGE, WHITE, BLACK]
    assert s.hand[0, GREEN] == 1 and s.hand[0, YELLOW] == 1


def test_R3_4_three_faceup_locomotives_reset_the_row(g2):
    """R3.4 "Whenever 3 or more of the face-up cards are locomotives, all face-up
    cards are discarded and 5 new ones are turned up." """
    g = g2
    new_row = [RED, BLACK, ORANGE, YELLOW, PINK]
    arrange(g, faceup=[L, L, BLUE, GREEN, WHITE], deck=[L] + new_row + [RED, RED], sink=1)
    g.apply(A_FACEUP + 2)                          # blue taken, a third locomotive turned up
    s = g.state
    assert s.faceup.tolist() == new_row
    assert {k: int(v) for k, v in enumerate(s.discard) if v} == {L: 3, GREEN: 1, WHITE: 1}
    assert s.meta[M_DECK_N] == 2
    assert g.phase == "draw2" and g.player == 0
    assert card_total(g) == 110


def test_R3_4_reset_also_at_setup():
    """R3.4 applies to the face-up row turned at setup (R2.1 "applying R3.4"): over
    many seeds no row starts with 3+ locomotives, and resets did happen (discards)."""
    resets = 0
    for seed in range(150):
        s = Game("usa", 2, seed).state
        assert (s.faceup == LOCO).sum() < 3
        resets += s.discard.sum() > 0
        assert s.discard.sum() % 5 == 0
    assert resets > 0


@pytest.mark.parametrize("max_resets", [3, 1, 0])
def test_R3_4_at_most_max_loco_resets_in_a_row(max_resets):
    """R3.4 "[choice] (as Board Game Arena does) at most 3 resets in a row; after that
    the row stays as it is." (rule parameter ``max_loco_resets``). The deck is built
    so that every new row has 3 locomotives."""
    g = setup_game("usa", 2, seed=1, overrides={"max_loco_resets": max_resets})
    rows = [[L, L, L, RED, BLACK], [L, L, L, ORANGE, YELLOW], [L, L, L, PINK, BLUE]]
    rest = [GREEN, WHITE, RED]
    deck = [L] + rows[0] + rows[1] + rows[2] + rest
    arrange(g, hands={0: {}}, faceup=[L, L, BLUE, GREEN, WHITE], deck=deck, sink=1)
    g.apply(A_FACEUP + 2)                          # blue taken, a third locomotive turned up
    s = g.state
    after_take = [L, L, L, GREEN, WHITE]
    expected_row = ([after_take] + rows)[max_resets]
    assert s.faceup.tolist() == expected_row           # the row stays with 3 locomotives
    discarded = after_take + sum(rows[:max_resets - 1], []) if max_resets else []
    assert s.discard.tolist() == np.bincount(np.array(discarded, int), minlength=9).tolist()
    assert s.meta[M_DECK_N] == len(deck) - 1 - 5 * max_resets
    # the turn goes on; the locomotives of the row cannot be the second draw
    assert g.phase == "draw2"
    assert draw_actions(g) == [A_FACEUP + 3, A_FACEUP + 4, A_BLIND]
    g.apply(A_BLIND)                               # nothing turned up: the row still stays
    assert s.faceup.tolist() == expected_row and g.player == 1
    assert card_total(g) == 110


def test_R3_4_no_reset_when_deck_and_discards_empty(g2):
    """R3.4 "No reset happens when deck and discard pile are both empty." """
    g = g2
    arrange(g, faceup=[L, L, BLUE, GREEN, WHITE], deck=[L], discard={}, sink=1)
    g.apply(A_FACEUP + 2)                          # the last card of the deck: a third locomotive
    s = g.state
    assert s.faceup.tolist() == [L, L, L, GREEN, WHITE]
    assert s.meta[M_DECK_N] == 0 and s.discard.sum() == 0
    assert g.phase == "draw2"
    assert draw_actions(g) == [A_FACEUP + 3, A_FACEUP + 4]
    assert card_total(g) == 110


def test_R3_4_reset_with_empty_deck_uses_the_discards(g2):
    """R3.4 with R3.5: an empty deck but a discard pile still allows the reset (the
    discards, the old row included, are shuffled into a new deck)."""
    g = g2
    arrange(g, faceup=[L, L, BLUE, GREEN, WHITE], deck=[L], discard={RED: 5, ORANGE: 5}, sink=1)
    g.apply(A_FACEUP + 2)
    s = g.state
    assert s.faceup.tolist() != [L, L, L, GREEN, WHITE]
    assert (s.faceup >= 0).all()
    assert s.meta[M_DECK_N] + s.discard.sum() == 10       # 15 cards in play minus the new row
    assert card_total(g) == 110


def test_R3_5_empty_deck_reshuffles_the_discards(g2):
    """R3.5 "When the deck runs out, the discard pile is shuffled to form a new deck." """
    g = g2
    arrange(g, faceup=ROW, deck=[], discard={YELLOW: 3, PINK: 2}, sink=1)
    assert draw_actions(g)[-1] == A_BLIND               # blind draw possible from the discards
    g.apply(A_BLIND)
    s = g.state
    assert s.meta[M_DECK_N] == 4 and s.discard.sum() == 0
    assert s.hand[0, YELLOW] + s.hand[0, PINK] == 1
    g.apply(A_FACEUP + 0)                               # face-up slot refilled from the new deck
    assert s.faceup[0] in (YELLOW, PINK) and s.meta[M_DECK_N] == 3
    assert card_total(g) == 110


def test_R3_5_reshuffle_order_comes_from_the_game_rng():
    """R3.5 "shuffled": the new deck order depends on the game's random stream."""
    orders = set()
    for seed in range(6):
        g = setup_game("usa", 2, seed=seed)
        arrange(g, faceup=ROW, deck=[], discard={YELLOW: 4, PINK: 4, ORANGE: 4}, sink=1)
        g.apply(A_BLIND)
        orders.add(tuple(deck_top(g, g.state.meta[M_DECK_N])))
    assert len(orders) > 1


def test_R3_5_both_empty_faceup_slots_stay_empty(g2):
    """R3.5 "When both are empty, empty face-up slots stay empty." """
    g = g2
    arrange(g, faceup=ROW, deck=[], discard={}, sink=1)
    s = g.state
    assert draw_actions(g) == [A_FACEUP + i for i in range(5)]    # no blind draw
    g.apply(A_FACEUP + 0)
    assert s.faceup.tolist() == [-1, BLUE, GREEN, WHITE, BLACK]
    assert g.phase == "draw2"
    assert draw_actions(g) == [A_FACEUP + i for i in (1, 2, 3, 4)]
    g.apply(A_FACEUP + 1)
    assert s.faceup.tolist() == [-1, -1, GREEN, WHITE, BLACK]
    assert g.player == 1 and {k: int(v) for k, v in enumerate(s.hand[0]) if v} == {RED: 1, BLUE: 1}
    assert draw_actions(g) == [A_FACEUP + i for i in (2, 3, 4)]
    assert not g.is_legal(A_FACEUP + 0) and not g.is_legal(A_BLIND)


def test_R3_6_no_second_draw_ends_turn_after_one_card(g2):
    """R3.6 "If after the first draw no legal second draw exists (no deck, no
    discards, and only locomotives or nothing face up), the turn ends after one card." """
    g = g2
    arrange(g, faceup=[RED, L, L, -1, -1], deck=[], discard={}, sink=1)
    g.apply(A_FACEUP + 0)
    assert g.player == 1 and g.phase == "main"
    assert g.state.hand[0].sum() == 1

    h = setup_game("usa", 2, seed=3)
    arrange(h, hands={0: {}}, faceup=[RED, -1, -1, -1, -1], deck=[], discard={}, sink=1)
    h.apply(A_FACEUP + 0)                                 # nothing at all is left
    assert h.player == 1 and h.phase == "main" and h.state.hand[0].sum() == 1

    h = setup_game("usa", 2, seed=3)
    arrange(h, hands={0: {}}, faceup=[L, L, -1, -1, -1], deck=[YELLOW], discard={}, sink=1)
    h.apply(A_BLIND)                                      # the last blind card, locomotives face up
    assert h.player == 1 and h.phase == "main" and h.state.hand[0, YELLOW] == 1

    h = setup_game("usa", 2, seed=3)                      # counter-case: a second card exists
    arrange(h, hands={0: {}}, faceup=[RED, BLUE, -1, -1, -1], deck=[], discard={}, sink=1)
    h.apply(A_FACEUP + 0)
    assert h.player == 0 and h.phase == "draw2"
    assert draw_actions(h) == [A_FACEUP + 1]


def test_R3_6_no_card_at_all_no_draw_action(g2):
    """R3.6 "If no card at all can be drawn, this action is not available." """
    g = g2
    arrange(g, faceup=[-1] * 5, deck=[], discard={}, sink=1)
    assert draw_actions(g) == []
    assert not any(g.is_legal(a) for a in range(A_BLIND + 1))
    assert any(A_TICKETS <= a < A_KEEP for a in g.legal_actions())   # other actions remain
    with pytest.raises(IllegalAction):
        g.apply(A_BLIND)


def test_R3_7_no_hand_limit():
    """R3.7 "There is no hand limit." A seat holding 40 cards still draws."""
    g = setup_game("usa", 2, seed=6)
    arrange(g, hands={0: {RED: 8, BLUE: 8, GREEN: 8, WHITE: 8, BLACK: 8}, 1: {}},
            faceup=[ORANGE, YELLOW, PINK, ORANGE, YELLOW])
    assert g.state.hand[0].sum() == 40
    for _ in range(3):                       # three turns of seat 0: 46 cards
        assert set(draw_actions(g)) == {A_FACEUP + i for i in range(5)} | {A_BLIND}
        g.apply(A_BLIND)
        g.apply(A_BLIND)
        g.apply(A_BLIND)                     # seat 1
        g.apply(A_BLIND)
    assert g.state.hand[0].sum() == 46
    assert card_total(g) == 110
