"""Seeds give independent games (issue: consecutive seeds must give independent
games). Every random stream starts from a hash of its (seed, lane) pair
(``ttrsim.core.rng.seed_into``), so the games of seeds 0, 1, 2, ... are as unrelated
as the games of hashed seeds, and the per-seat strategy streams are unrelated
to each other and to the game stream.

The seeds are fixed (0..1999 consecutive, and the block seeds of experiment
seed 20261203 for the unrelated sample), so the tests are deterministic; each
chi-square test must not be significant at 1%.
"""
import numpy as np
import pytest
from scipy import stats

from ttrsim.core.board import build_board
from ttrsim.core.engine import LANE_STRATEGY, reset_game
from ttrsim.core.rng import seed_stream, shuffle_range
from ttrsim.core.state import M_DECK_N, allocate_state
from ttrsim.data.ids import N_CARD_KINDS
from ttrsim.data.rules import get_rules
from ttrsim.experiment.seating import block_seeds

N = 2000
CONSECUTIVE = np.arange(N, dtype=np.int64)
HASHED = block_seeds(20261203, np.arange(N))
ALPHA = 0.01
SHIFTS = range(-2, 3)


def setups(rules, players, seeds):
    """For each seed: the draw pile after setup (bottom to top), the dealt cards
    (hands of every seat and the face-up row, as kind counts), the first ticket
    of every pile."""
    b = build_board(get_rules(rules))
    s = allocate_state(b, players)
    piles, dealt, first_ticket = [], [], []
    for seed in seeds:
        reset_game(b, s, int(seed))
        piles.append(s.deck[:s.meta[M_DECK_N]].copy())
        kinds = s.hand.sum(axis=0).astype(np.int64)
        kinds += np.bincount(s.faceup[s.faceup >= 0], minlength=N_CARD_KINDS)
        dealt.append(kinds)
        first_ticket.append([int(s.tk_buf[d, s.tk_head[d]]) if s.tk_len[d] else -1
                             for d in range(s.tk_buf.shape[0])])
        if rules != "germany":           # the seats' offers were dealt from the top of the pile
            first_ticket[-1][0] = int(s.offer[0, 0])
    return piles, np.array(dealt), np.array(first_ticket)


def best_shift_agreement(a, b):
    """Share of positions where two piles hold the same card kind, at the best
    relative shift in -2..2 (a shifted stream shows up as a shifted pile)."""
    best = 0.0
    for k in SHIFTS:
        x, y = (a[k:], b[:len(b) - k]) if k >= 0 else (a[:k], b[-k:])
        n = min(len(x), len(y))
        best = max(best, float(np.mean(x[:n] == y[:n])))
    return best


def neighbour_agreement(piles):
    return np.mean([best_shift_agreement(piles[i], piles[i + 1]) for i in range(len(piles) - 1)])


def shuffled(seed, lane, n_cards=110):
    """The 110-card deck (12 of each colour, 14 locomotives) shuffled by stream (seed, lane)."""
    deck = np.repeat(np.arange(N_CARD_KINDS, dtype=np.int8), [12] * 8 + [14])[:n_cards]
    shuffle_range(seed_stream(int(seed), lane), 0, deck, 0, len(deck))
    return deck


def card_probabilities():
    return np.array([12] * 8 + [14], np.float64) / 110


def chi2_kinds_p(counts):
    """Goodness of fit of pooled card-kind counts to the deck's proportions."""
    counts = np.asarray(counts).sum(axis=0) if np.ndim(counts) == 2 else np.asarray(counts)
    return stats.chisquare(counts, counts.sum() * card_probabilities()).pvalue


def neighbour_independence_p(values, n_values):
    """Chi-square test of independence of value(seed) and value(next seed)."""
    table = np.zeros((n_values, n_values), np.int64)
    for x, y in zip(values[:-1], values[1:]):
        table[x, y] += 1
    keep_r, keep_c = table.sum(axis=1) > 0, table.sum(axis=0) > 0
    return stats.chi2_contingency(table[keep_r][:, keep_c]).pvalue


@pytest.fixture(scope="module")
def usa5():
    return {"consecutive": setups("usa", 5, CONSECUTIVE), "hashed": setups("usa", 5, HASHED)}


def test_consecutive_seeds_piles_agree_no_more_than_unrelated_seeds(usa5):
    """The draw pile of seed s+1 agrees with the pile of seed s (best shift of
    -2..2) as often as two unrelated piles do (about 15%)."""
    consecutive = neighbour_agreement(usa5["consecutive"][0])
    hashed = neighbour_agreement(usa5["hashed"][0])
    assert 0.10 < hashed < 0.20
    assert abs(consecutive - hashed) < 0.005, (consecutive, hashed)


def test_consecutive_seeds_dealt_card_kinds_fit_the_deck(usa5):
    """Chi-square: the card kinds dealt (5 hands and the face-up row, USA 5
    players) over seeds 0..1999 fit the deck's proportions."""
    assert chi2_kinds_p(usa5["consecutive"][1]) > ALPHA
    assert chi2_kinds_p(usa5["hashed"][1]) > ALPHA


def test_consecutive_seeds_first_dealt_card_is_independent_of_the_neighbours(usa5):
    """Chi-square independence of the top pile card of seed s and of seed s+1."""
    tops = [int(p[-1]) for p in usa5["consecutive"][0]]
    assert neighbour_independence_p(tops, N_CARD_KINDS) > ALPHA


def test_consecutive_seeds_first_ticket_offered_is_uniform(usa5):
    """Chi-square: the first ticket offered to seat 0 (USA, 30 tickets) is
    uniform over seeds 0..1999, and equals the next seed's no more often than chance."""
    first = usa5["consecutive"][2][:, 0]
    counts = np.bincount(first, minlength=30)
    assert stats.chisquare(counts).pvalue > ALPHA
    same = np.mean(first[1:] == first[:-1])
    assert same < 3 / 30, same          # chance is 1/30


def test_consecutive_seeds_germany_first_short_ticket_is_uniform():
    """Chi-square: the top ticket of Germany's short pile (55 tickets) is
    uniform over seeds 0..1999."""
    _, _, first = setups("germany", 4, CONSECUTIVE)
    b = build_board(get_rules("germany"))
    short = [int(t) for t in b.deck_tickets[0, :b.deck_size[0]]]
    counts = np.array([np.sum(first[:, 0] == t) for t in short])
    assert counts.sum() == N
    assert stats.chisquare(counts).pvalue > ALPHA


@pytest.mark.parametrize("pair", ["seats", "seeds", "game-vs-seat"])
def test_strategy_streams_are_independent(pair):
    """The per-seat strategy streams: two seats of one seed, one seat of two
    consecutive seeds, and the game stream against seat 0's stream give
    unrelated shuffles: pile agreement at the level of unrelated streams and no
    significant chi-square (card kinds dealt from the top, top-card independence)."""
    lanes = {"seats": ((0, LANE_STRATEGY), (0, LANE_STRATEGY + 1)),
             "seeds": ((0, LANE_STRATEGY), (1, LANE_STRATEGY)),
             "game-vs-seat": ((0, 0), (0, LANE_STRATEGY))}[pair]
    (ds_a, lane_a), (ds_b, lane_b) = lanes
    a = [shuffled(s + ds_a, lane_a) for s in CONSECUTIVE[:1000]]
    b = [shuffled(s + ds_b, lane_b) for s in CONSECUTIVE[:1000]]
    unrelated = [shuffled(s, LANE_STRATEGY) for s in HASHED[:1000]]
    agree = np.mean([best_shift_agreement(x, y) for x, y in zip(a, b)])
    base = neighbour_agreement(unrelated)
    assert abs(agree - base) < 0.006, (agree, base)
    dealt = np.array([np.bincount(x[-20:], minlength=N_CARD_KINDS) for x in a + b])
    assert chi2_kinds_p(dealt) > ALPHA
    table = np.zeros((N_CARD_KINDS, N_CARD_KINDS), np.int64)
    for x, y in zip(a, b):
        table[x[-1], y[-1]] += 1
    assert stats.chi2_contingency(table).pvalue > ALPHA


def test_seeds_replay_exactly():
    """The same seed deals the same game, and distinct seeds deal distinct piles."""
    p1, d1, t1 = setups("usa", 4, CONSECUTIVE[:50])
    p2, d2, t2 = setups("usa", 4, CONSECUTIVE[:50])
    assert all(np.array_equal(x, y) for x, y in zip(p1, p2))
    assert np.array_equal(d1, d2) and np.array_equal(t1, t2)
    assert len({x.tobytes() for x in p1}) == 50
