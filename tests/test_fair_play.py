"""Fair play: a strategy decides only from public information and its own hand
and tickets. Changing what the acting seat cannot see (other hands, other
tickets and offers, deck order, ticket pile order) must not change a decision,
for every built-in strategy, on many states from all rule sets."""
import numpy as np
import pytest

from ttrsim.strategies import STRATEGY_NAMES, param_row, strategy_id
from ttrsim.strategies.dispatch import choose
from ttrsim.core.engine import legal_actions
from ttrsim.play.game import Game
from ttrsim.core.state import M_DECK_N, M_PLAYER, copy_state

SETTINGS = [("usa", 4), ("usa-mega", 3), ("usa-1910", 2), ("usa-bigcities", 5), ("germany", 4), ("germany", 2)]


def hide_and_shuffle(g, state, rng):
    """A copy of ``state`` that differs only in what the acting seat cannot see."""
    s = copy_state(state)
    me = int(s.meta[M_PLAYER])
    n_players = s.hand.shape[0]
    deck_n = int(s.meta[M_DECK_N])
    for q in range(n_players):                       # other hands: swap cards with the deck
        if q == me or deck_n == 0:
            continue
        for _ in range(10):
            kinds = np.flatnonzero(s.hand[q] > 0)
            if len(kinds) == 0:
                break
            k = rng.choice(kinds)
            i = rng.integers(deck_n)
            s.hand[q, k] -= 1
            s.hand[q, s.deck[i]] += 1
            s.deck[i] = k
    rng.shuffle(s.deck[:deck_n])                     # deck order
    cap = s.tk_buf.shape[1]
    for d in range(s.tk_buf.shape[0]):               # pile order, and other seats' tickets
        live = [(int(s.tk_head[d]) + i) % cap for i in range(int(s.tk_len[d]))]
        if not live:
            continue
        for t in np.flatnonzero((s.ticket_holder >= 0) & (s.ticket_holder != me)):
            if g.board.ticket_deck[t] != d or rng.random() < 0.5:
                continue
            j = live[rng.integers(len(live))]
            other = int(s.tk_buf[d, j])
            s.tk_buf[d, j] = t
            s.ticket_holder[other] = s.ticket_holder[t]
            s.ticket_holder[t] = -1
        vals = s.tk_buf[d, live].copy()
        rng.shuffle(vals)
        s.tk_buf[d, live] = vals
    return s


def decision(g, s, name):
    buf = np.empty_like(g._buf)
    n = legal_actions(g.board, s, buf)
    params = np.tile(param_row(name), (s.hand.shape[0], 1))
    s = copy_state(s)                                # the strategy may advance its own stream only
    return int(choose(strategy_id(name), g.board, s, buf, n, params))


@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_decisions_ignore_hidden_information(name):
    rng = np.random.default_rng(strategy_id(name))
    checked = 0
    for rules, players in SETTINGS:
        for seed in range(3):
            g = Game(rules, players, seed=100 + seed)
            step = 0
            while not g.over:
                acts = g.legal_actions()
                if step % 7 == 0:
                    want = decision(g, g.state, name)
                    assert want in acts
                    for _ in range(2):
                        assert decision(g, hide_and_shuffle(g, g.state, rng), name) == want, \
                            (rules, players, seed, step, g.phase)
                    checked += 1
                g.apply(acts[rng.integers(len(acts))])
                step += 1
    assert checked > 300
