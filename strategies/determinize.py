"""Determinization: a full game state consistent with what one seat sees,
for :mod:`ttrsim.strategies.search` to play out.

The seat sees the public state (routes, face-up row, discard pile, trains,
scores, passengers, every hand's size, every seat's ticket count per pile,
pile sizes) and its own hand, tickets and offer. :func:`determinize` keeps all
of that and deals the rest anew: the cards it cannot see (all cards minus the
discards, the face-up row and its hand) to the other hands with their sizes
and the deck; the tickets it cannot see (all minus its own and its offer) to
the other seats with their counts per pile, to their offers (each slot from
the pile it was dealt from) and to the piles, in random order; a new game
stream for the deck's future reshuffles. The pools are built canonically
(cards by kind, tickets by id) and shuffled with a stream the caller draws
from the seat's own stream, so the result depends on nothing the seat cannot
see. In setup a seat that already chose its tickets privately (R2.2) is
given the keep set a rollout policy would choose from its dealt offer.

>>> from ttrsim.play.game import Game
>>> from ttrsim.core.state import copy_state
>>> g = Game("usa", 3, seed=5); s = g.state; me = int(s.meta[M_PLAYER])
>>> d = copy_state(s); determinize(g.board, s, me, d, np.array([7], np.uint64))
>>> bool((d.hand[me] == s.hand[me]).all()), bool((d.hand.sum(axis=1) == s.hand.sum(axis=1)).all())
(True, True)
>>> bool((d.offer[me] == s.offer[me]).all()), int(d.meta[M_DECK_N]) == int(s.meta[M_DECK_N])
(True, True)
"""
import numpy as np
from numba import njit

from ttrsim.core.actions import A_KEEP
from ttrsim.core.engine import first_seat
from ttrsim.core.rng import next_u64, shuffle_range
from ttrsim.core.state import M_DECK_N, M_NPLAYERS, M_PHASE, M_PLAYER, PH_SETUP_KEEP, GameState
from ttrsim.data.ids import LOCO

from .rollout import POLICY_LISTS_CLAIMS, legal_list, policy_choose


@njit(cache=True)
def clone_state(s):
    """A new game state with copies of ``s``'s arrays (callable in compiled code)."""
    return GameState(s.meta.copy(), s.rng.copy(), s.deck.copy(), s.discard.copy(), s.faceup.copy(), s.hand.copy(),
                     s.trains.copy(), s.score.copy(), s.route_owner.copy(), s.tk_buf.copy(), s.tk_head.copy(),
                     s.tk_len.copy(), s.ticket_holder.copy(), s.offer.copy(), s.offer_n.copy(),
                     s.offer_keep.copy(), s.pass_loc.copy(), s.pass_player.copy(), s.pend_loc.copy(),
                     s.final.copy())


@njit(cache=True)
def copy_state_into(d, s):
    """Copy game state ``s`` into ``d`` (same board and table)."""
    d.meta[:] = s.meta
    d.rng[:] = s.rng
    d.deck[:] = s.deck
    d.discard[:] = s.discard
    d.faceup[:] = s.faceup
    d.hand[:, :] = s.hand
    d.trains[:] = s.trains
    d.score[:] = s.score
    d.route_owner[:] = s.route_owner
    d.tk_buf[:, :] = s.tk_buf
    d.tk_head[:] = s.tk_head
    d.tk_len[:] = s.tk_len
    d.ticket_holder[:] = s.ticket_holder
    d.offer[:, :] = s.offer
    d.offer_n[:] = s.offer_n
    d.offer_keep[:] = s.offer_keep
    d.pass_loc[:, :] = s.pass_loc
    d.pass_player[:, :] = s.pass_player
    d.pend_loc[:] = s.pend_loc
    d.final[:, :] = s.final


@njit(cache=True)
def _in_offer(s, me, t):
    for i in range(s.offer_n[me]):
        if s.offer[me, i] == t:
            return True
    return False


@njit(cache=True)
def _deal_cards(b, s, me, d, stream):
    """Other hands and the deck from the cards ``me`` cannot see."""
    pool = np.empty(s.deck.shape[0], np.int8)
    n = 0
    for k in range(LOCO + 1):
        u = b.card_counts[k] - s.discard[k] - s.hand[me, k]
        for i in range(s.faceup.shape[0]):
            if s.faceup[i] == k:
                u -= 1
        for _ in range(u):
            pool[n] = k
            n += 1
    shuffle_range(stream, 0, pool, 0, n)
    j = 0
    for q in range(s.hand.shape[0]):
        if q == me:
            continue
        size = 0
        for k in range(LOCO + 1):
            size += s.hand[q, k]
            d.hand[q, k] = 0
        for _ in range(size):
            d.hand[q, pool[j]] += 1
            j += 1
    for i in range(n - j):
        d.deck[i] = pool[j + i]
    d.meta[M_DECK_N] = n - j


@njit(cache=True)
def _deal_tickets(b, s, me, d, stream):
    """Other seats' tickets and offers and the ticket piles from the tickets
    ``me`` cannot see, pile by pile."""
    T = b.ticket_a.shape[0]
    P = s.hand.shape[0]
    pool = np.empty(T, np.int16)
    for t in range(T):
        if s.ticket_holder[t] >= 0 and s.ticket_holder[t] != me:
            d.ticket_holder[t] = -1
    for pile in range(s.tk_len.shape[0]):
        n = 0
        for t in range(T):
            if b.ticket_deck[t] == pile and s.ticket_holder[t] != me and not _in_offer(s, me, t):
                pool[n] = t
                n += 1
        shuffle_range(stream, 0, pool, 0, n)
        j = 0
        for q in range(P):
            if q == me:
                continue
            for t in range(T):            # as many of this pile as q holds (public: its returns showed)
                if s.ticket_holder[t] == q and b.ticket_deck[t] == pile:
                    d.ticket_holder[pool[j]] = q
                    j += 1
            for i in range(s.offer_n[q]):  # each offer slot from the pile it was dealt from
                if b.ticket_deck[s.offer[q, i]] == pile:
                    d.offer[q, i] = pool[j]
                    j += 1
        d.tk_head[pile] = 0
        d.tk_len[pile] = n - j
        for i in range(n - j):
            d.tk_buf[pile, i] = pool[j + i]


@njit(cache=True)
def determinize(b, s, me, d, stream):
    """Write into ``d`` (a state of the same table, e.g. :func:`clone_state`
    of ``s``) a game consistent with what seat ``me`` sees in ``s``, drawn
    with ``stream`` (uint64[1]); see the module doc. The setup keep sets of
    seats that chose before ``me`` are left to :func:`setup_keeps`."""
    copy_state_into(d, s)
    _deal_cards(b, s, me, d, stream)
    _deal_tickets(b, s, me, d, stream)
    d.rng[0] = next_u64(stream, 0)


@njit(cache=True)
def setup_keeps(b, d, me, policy, m, params, legal):
    """In setup (``PH_SETUP_KEEP``), give every seat that chose before ``me``
    the keep set ``policy`` picks from its offer in ``d`` (their real choice is
    private until all have chosen)."""
    if d.meta[M_PHASE] != PH_SETUP_KEEP:
        return
    n_players = d.meta[M_NPLAYERS]
    first = first_seat(b, d)
    for i in range((me - first) % n_players):
        q = (first + i) % n_players
        d.meta[M_PLAYER] = q
        n = legal_list(POLICY_LISTS_CLAIMS[policy], b, d, legal)
        d.offer_keep[q] = policy_choose(policy, b, d, m, legal, n, params) - A_KEEP
    d.meta[M_PLAYER] = me
