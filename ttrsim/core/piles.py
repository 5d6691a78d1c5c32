"""The card deck, the face-up row and the ticket piles: drawing, refilling,
reshuffling and dealing (R2.2, R3.3-R3.6, R5.1-R5.2), and the ticket offered
at setup by a study intervention (R9.1), as plain kernels over the game state
``s`` (and the board ``b`` where a rule parameter decides).

>>> popcount(0b1011)
3
"""
import numpy as np

from ttrsim.data.ids import LOCO
from ttrsim.jit import kernel

from .board import (
    RP_DRAW_KEEP,
    RP_LOCO_RESET,
    RP_MAX_RESETS,
    RP_N_DECKS,
    RP_OFFER_KEPT,
    RP_OFFER_SEAT,
    RP_OFFER_TICKET,
    RP_SETUP_KEEP,
)
from .rng import rand_below, shuffle_range
from .state import M_DECK_N, M_NPLAYERS, M_PHASE, M_RESETS, M_RESHUFFLES, PH_SETUP_KEEP, RNG_INTERVENTION

# --- train cards ---------------------------------------------------------------------------------

@kernel
def draw_top(s):
    """Take the top card of the deck, reshuffling the discards into a new deck
    when it is empty (R3.5). Returns the card kind, or -1 if both are empty."""
    meta, deck = s.meta, s.deck
    if meta[M_DECK_N] == 0:
        discard = s.discard
        n = 0
        for kind in range(LOCO + 1):
            for _ in range(discard[kind]):
                deck[n] = kind
                n += 1
            discard[kind] = 0
        if n == 0:
            return -1
        shuffle_range(s.rng, 0, deck, 0, n)
        meta[M_DECK_N] = n
        meta[M_RESHUFFLES] += 1
    meta[M_DECK_N] -= 1
    return deck[meta[M_DECK_N]]


@kernel
def cards_available(s):
    """Cards in the deck plus the discard pile."""
    return s.meta[M_DECK_N] + s.discard.sum()


@kernel
def faceup_locos(s):
    faceup = s.faceup
    n = 0
    for i in range(faceup.shape[0]):
        if faceup[i] == LOCO:
            n += 1
    return n


@kernel
def refill_faceup(b, s):
    """Fill empty face-up slots from the deck, then apply the locomotive reset
    (R3.3, R3.4): 3+ face-up locomotives discard the row and deal a new one, at
    most RP_MAX_RESETS times in a row, never when deck and discards are empty.
    The check runs only when a card was turned up: a row left with 3
    locomotives after the last allowed reset stays until a card is taken."""
    faceup = s.faceup
    turned = False
    for i in range(faceup.shape[0]):
        if faceup[i] < 0:
            faceup[i] = draw_top(s)
            turned = turned or faceup[i] >= 0
    if not turned:
        return
    resets = 0
    while faceup_locos(s) >= b.rp[RP_LOCO_RESET] and resets < b.rp[RP_MAX_RESETS] and cards_available(s) > 0:
        for i in range(faceup.shape[0]):
            if faceup[i] >= 0:
                s.discard[faceup[i]] += 1
            faceup[i] = -1
        for i in range(faceup.shape[0]):
            faceup[i] = draw_top(s)
        resets += 1
        s.meta[M_RESETS] += 1


@kernel
def can_draw_second(s):
    """R3.6: a second draw exists (deck/discards, or a non-locomotive face up)."""
    if cards_available(s) > 0:
        return True
    faceup = s.faceup
    for i in range(faceup.shape[0]):
        if faceup[i] >= 0 and faceup[i] != LOCO:
            return True
    return False


# --- tickets -------------------------------------------------------------------------------------

@kernel
def tickets_left(s):
    return s.tk_len.sum()


@kernel
def pop_ticket(s, d):
    t = s.tk_buf[d, s.tk_head[d]]
    s.tk_head[d] = (s.tk_head[d] + 1) % s.tk_buf.shape[1]
    s.tk_len[d] -= 1
    return t


@kernel
def push_bottom(s, d, t):
    s.tk_buf[d, (s.tk_head[d] + s.tk_len[d]) % s.tk_buf.shape[1]] = t
    s.tk_len[d] += 1


@kernel
def push_top(s, d, t):
    s.tk_head[d] = (s.tk_head[d] - 1) % s.tk_buf.shape[1]
    s.tk_buf[d, s.tk_head[d]] = t
    s.tk_len[d] += 1


@kernel
def take_at(s, d, j):
    """Take the ``j``-th ticket from the top out of pile ``d``; the ones beneath move up one place."""
    cap = s.tk_buf.shape[1]
    for i in range(j, s.tk_len[d] - 1):
        s.tk_buf[d, (s.tk_head[d] + i) % cap] = s.tk_buf[d, (s.tk_head[d] + i + 1) % cap]
    s.tk_len[d] -= 1


@kernel
def shuffle_pile(s, d):
    """Shuffle the live part of ticket pile ``d`` (ring buffer laid flat first)."""
    n = s.tk_len[d]
    cap = s.tk_buf.shape[1]
    tmp = np.empty(n, np.int16)
    for i in range(n):
        tmp[i] = s.tk_buf[d, (s.tk_head[d] + i) % cap]
    shuffle_range(s.rng, 0, tmp, 0, n)
    s.tk_head[d] = 0
    for i in range(n):
        s.tk_buf[d, i] = tmp[i]


@kernel
def mix_range(b, s, n_wanted):
    """Draw size and the legal range of k (tickets from pile 0) for a ticket draw
    of ``n_wanted`` (R5.2: fewer left -> draw what remains). Returns (n, lo, hi);
    with one pile, k = n is the only choice."""
    n = min(n_wanted, tickets_left(s))
    if b.rp[RP_N_DECKS] == 1:
        return n, n, n
    lo = max(0, n - s.tk_len[1])
    hi = min(n, s.tk_len[0])
    return n, lo, hi


@kernel
def deal_offer(b, s, p, n, k):
    """Offer ``n`` tickets to seat ``p``: ``k`` from pile 0, the rest from pile 1."""
    for i in range(n):
        s.offer[p, i] = pop_ticket(s, 0 if i < k else 1)
    s.offer_n[p] = n


@kernel
def settle_offer(b, s, p, mask, shuffle_back, to_box):
    """Seat ``p`` keeps the offered tickets in ``mask``; the others go to the
    bottom of their own pile, or are shuffled back in (R2.2, R5.1), or with
    ``to_box`` leave the game unseen (R2.2 ``setup_return: box``); a long
    setup ticket belongs to no pile and always leaves the game (R8.1)."""
    for i in range(s.offer_n[p]):
        t = s.offer[p, i]
        if mask & (1 << i):
            s.ticket_holder[t] = p
        elif b.ticket_deck[t] >= 0 and not to_box:
            push_bottom(s, b.ticket_deck[t], t)
        # else back in the box (R2.2) or a long setup ticket (R8.1): it leaves the game unseen
        s.offer[p, i] = -1
    s.offer_n[p] = 0
    if shuffle_back:
        for d in range(s.tk_len.shape[0]):
            shuffle_pile(s, d)


@kernel
def popcount(x):
    n = 0
    while x:
        n += x & 1
        x >>= 1
    return n


@kernel
def keep_minimum(b, s, p):
    """Tickets seat ``p`` must keep of its offer (setup or draw minimum, capped by the offer)."""
    need = b.rp[RP_SETUP_KEEP] if s.meta[M_PHASE] == PH_SETUP_KEEP else b.rp[RP_DRAW_KEEP]
    return min(need, s.offer_n[p])


# --- the ticket offered by a study intervention (R9.1) -------------------------------------------

@kernel
def offer_intervention(b, s, p):
    """R9.1, when seat ``p``'s setup offer has just been dealt: if ``p`` is
    ``offer_seat`` and its offer lacks ``offer_ticket`` T, T takes the place
    of one of its offered tickets U, and U takes T's place: another seat's
    offer slot, or T's position in its pile. U is drawn with the
    intervention stream among the offered tickets of T's pile; when ``p``
    asked for none of T's pile (R2.3), among its tickets of the other pile,
    and then, if T was in its pile, T leaves it (the tickets beneath move up
    one place) and U goes back on top of its own pile. The game's stream is
    not touched, and every pile keeps only its own tickets."""
    t = b.rp[RP_OFFER_TICKET]
    if t < 0 or p != b.rp[RP_OFFER_SEAT]:
        return
    d = b.ticket_deck[t]
    n = s.offer_n[p]
    n_cand = 0
    for i in range(n):
        if s.offer[p, i] == t:
            return
        if b.ticket_deck[s.offer[p, i]] == d:
            n_cand += 1
    any_pile = n_cand == 0
    if any_pile:
        for i in range(n):
            if b.ticket_deck[s.offer[p, i]] >= 0:
                n_cand += 1
        if n_cand == 0:
            return
    k = rand_below(s.rng, RNG_INTERVENTION, n_cand)
    slot = -1
    for i in range(n):
        e = b.ticket_deck[s.offer[p, i]]
        if e == d or (any_pile and e >= 0):
            if k == 0:
                slot = i
                break
            k -= 1
    u = s.offer[p, slot]
    s.offer[p, slot] = t
    for q in range(s.meta[M_NPLAYERS]):
        for i in range(s.offer_n[q]):
            if q != p and s.offer[q, i] == t:
                s.offer[q, i] = u
                return
    for j in range(s.tk_len[d]):
        x = (s.tk_head[d] + j) % s.tk_buf.shape[1]
        if s.tk_buf[d, x] == t:
            if b.ticket_deck[u] == d:
                s.tk_buf[d, x] = u
            else:
                take_at(s, d, j)
                push_top(s, b.ticket_deck[u], u)
            return


@kernel
def must_keep(b, s, p):
    """The keep-mask bits seat ``p`` must keep: at setup, with ``offer_kept``,
    the slot of ``offer_ticket`` in the offer of ``offer_seat`` (R9.1); else 0."""
    t = b.rp[RP_OFFER_TICKET]
    if t < 0 or not b.rp[RP_OFFER_KEPT] or p != b.rp[RP_OFFER_SEAT] or s.meta[M_PHASE] != PH_SETUP_KEEP:
        return 0
    for i in range(s.offer_n[p]):
        if s.offer[p, i] == t:
            return 1 << i
    return 0


@kernel
def keep_allowed(s, p, mask, need, must):
    """Whether seat ``p`` may keep the offered tickets of ``mask``: a mask of
    its offer with at least ``need`` tickets (:func:`keep_minimum`) and the
    bits ``must`` (:func:`must_keep`)."""
    return mask < (1 << s.offer_n[p]) and popcount(mask) >= need and (mask & must) == must
