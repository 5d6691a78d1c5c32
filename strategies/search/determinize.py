"""Determinization: a full game state consistent with what one seat sees,
for :mod:`ttrsim.strategies.search` to play out.

The seat sees the public state (routes, face-up row, discard pile, trains,
scores, passengers, every hand's size, every seat's ticket count per pile,
pile sizes, Europe's stations and a tunnel's cards) and its own hand, tickets
and offer. :func:`determinize` keeps all of that and deals the rest anew: the
cards it cannot see (all cards minus the discards, the face-up row, a
tunnel's held cards and its hand) to the other hands with their sizes and
the deck; the tickets it cannot see (all minus its own and its offer) to the
other seats with their counts per pile, to their offers (each slot from the
pile it was dealt from) and to the piles, in random order, each pile as
long as it is (the unseen tickets left over went back in the box at setup,
R2.2 ``setup_return: box``; Europe's long tickets, R8.1, likewise from the
long ones: those nobody holds are out of the game); a new game stream for the deck's future reshuffles. The pools are
built canonically (cards by kind, tickets by id) and shuffled with a stream
the caller draws from the seat's own stream, so the result depends on
nothing the seat cannot see. In setup a seat that already chose its
tickets privately (R2.2) is given the keep set a rollout policy would choose
from its dealt offer.

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

from ttrsim.core.actions import A_KEEP
from ttrsim.core.engine import first_seat
from ttrsim.core.rng import next_u64, shuffle_range
from ttrsim.core.state import M_DECK_N, M_NPLAYERS, M_PHASE, M_PLAYER, PH_SETUP_KEEP, PH_TUNNEL, copy_state_into
from ttrsim.data.ids import LOCO
from ttrsim.jit import kernel

from ..kit.action_picks import legal_list
from .rollout import POLICY_LISTS_CLAIMS, policy_choose


@kernel
def _in_offer(s, me, t):
    for i in range(s.offer_n[me]):
        if s.offer[me, i] == t:
            return True
    return False


@kernel
def _deal_cards(b, s, me, d, stream):
    """Other hands and the deck from the cards ``me`` cannot see."""
    pool = np.empty(s.deck.shape[0], np.int8)
    n = 0
    for k in range(LOCO + 1):
        u = b.card_counts[k] - s.discard[k] - s.hand[me, k] - s.tunnel_held[k]
        for i in range(s.faceup.shape[0]):
            if s.faceup[i] == k:
                u -= 1
        if s.meta[M_PHASE] == PH_TUNNEL:      # turned over for the tunnel, on the table until settled (R8.3)
            for i in range(s.tunnel_shown.shape[0]):
                if s.tunnel_shown[i] == k:
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


@kernel
def _touches(b, touched, loc):
    """Whether some node of location ``loc`` is marked in ``touched``."""
    for i in range(b.loc_node_start[loc], b.loc_node_start[loc + 1]):
        if touched[b.loc_nodes[i]]:
            return True
    return False


@kernel
def _mark_touched(b, s, q, touched):
    """``touched[v]``: a route of seat ``q`` ends at node ``v``."""
    touched[:] = False
    for r in range(b.route_len.shape[0]):
        if s.route_owner[r] == q:
            touched[b.route_a[r]] = True
            touched[b.route_b[r]] = True


@kernel
def _weighted_pick(b, pool, j, n, infer, touched, weight, stream):
    """Move to ``pool[j]`` a ticket of ``pool[j:n]`` drawn with weight
    ``exp(infer x ends)``, ends being how many of its two ends the seat's
    routes touch (``touched``, :func:`_mark_touched`; public: a seat builds
    towards its tickets)."""
    total = 0.0
    for i in range(j, n):
        t = pool[i]
        ends = int(_touches(b, touched, b.ticket_a[t])) + int(_touches(b, touched, b.ticket_b[t]))
        weight[i] = np.exp(infer * ends)
        total += weight[i]
    u = (next_u64(stream, 0) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * total
    i = j
    while i < n - 1 and u >= weight[i]:
        u -= weight[i]
        i += 1
    pool[i], pool[j] = pool[j], pool[i]


@kernel
def _deal_tickets(b, s, me, d, stream, infer):
    """Other seats' tickets and offers and the ticket piles from the tickets
    ``me`` cannot see, pile by pile; Europe's long tickets (R8.1, in no pile:
    ``ticket_deck`` -1) as one more pile whose undealt tickets are out of the
    game. With ``infer`` > 0 a seat's held tickets are drawn weighted by
    :func:`_weighted_pick`."""
    T = b.ticket_a.shape[0]
    P = s.hand.shape[0]
    pool = np.empty(T, np.int16)
    weight = np.empty(T)
    touched = np.zeros(b.n_nodes, np.bool_)
    used = b.ticket_deck >= 0
    used[b.long_tickets] = True
    for t in range(T):
        if s.ticket_holder[t] >= 0 and s.ticket_holder[t] != me:
            d.ticket_holder[t] = -1
    first = -1 if b.long_tickets.shape[0] > 0 else 0
    for pile in range(first, s.tk_len.shape[0]):
        n = 0
        for t in range(T):
            if used[t] and b.ticket_deck[t] == pile and s.ticket_holder[t] != me and not _in_offer(s, me, t):
                pool[n] = t
                n += 1
        shuffle_range(stream, 0, pool, 0, n)
        j = 0
        for q in range(P):
            if q == me:
                continue
            if infer > 0:
                _mark_touched(b, s, q, touched)
            for t in range(T):            # as many of this pile as q holds (public: its returns showed)
                if s.ticket_holder[t] == q and b.ticket_deck[t] == pile:
                    if infer > 0:
                        _weighted_pick(b, pool, j, n, infer, touched, weight, stream)
                    d.ticket_holder[pool[j]] = q
                    j += 1
            for i in range(s.offer_n[q]):  # each offer slot from the pile it was dealt from
                if b.ticket_deck[s.offer[q, i]] == pile:
                    d.offer[q, i] = pool[j]
                    j += 1
        if pile >= 0:                    # the pile's public size; the rest went back in the box (R2.2)
            k = s.tk_len[pile]
            d.tk_head[pile] = 0
            d.tk_len[pile] = k
            for i in range(k):
                d.tk_buf[pile, i] = pool[j + i]


@kernel
def determinize(b, s, me, d, stream, infer=0.0):
    """Write into ``d`` (a state of the same table built in Python, e.g. one
    of the memory's ``scratch`` states) a game consistent with what seat
    ``me`` sees in ``s``, drawn with ``stream`` (uint64[1]); see the module
    doc. ``infer`` > 0 deals the other seats' tickets weighted towards those
    their routes touch (:func:`_weighted_pick`). The setup keep sets of seats that chose before
    ``me`` are left to :func:`setup_keeps`."""
    copy_state_into(d, s)
    _deal_cards(b, s, me, d, stream)
    _deal_tickets(b, s, me, d, stream, infer)
    d.rng[0] = next_u64(stream, 0)


@kernel
def setup_keeps(b, d, me, policies, m, params, legal):
    """In setup (``PH_SETUP_KEEP``), give every seat ``q`` that chose before
    ``me`` the keep set policy ``policies[q]`` picks from its offer in ``d``
    (their real choice is private until all have chosen)."""
    if d.meta[M_PHASE] != PH_SETUP_KEEP:
        return
    n_players = d.meta[M_NPLAYERS]
    first = first_seat(b, d)
    for i in range((me - first) % n_players):
        q = (first + i) % n_players
        d.meta[M_PLAYER] = q
        n = legal_list(POLICY_LISTS_CLAIMS[policies[q]], b, d, legal)
        d.offer_keep[q] = policy_choose(policies[q], b, d, m, legal, n, params) - A_KEEP
    d.meta[M_PLAYER] = me
