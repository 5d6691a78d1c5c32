"""Action picks: small helpers that turn a wish (a colour, a route, a
ticket mix, a passenger colour) into an action, for any strategy. Every
result is one of the legal actions, a claim computed from the hand, or -1.

>>> from ttrsim.play.game import Game
>>> g = Game("usa", 2, seed=1)
>>> legal = np.array(g.legal_actions())
>>> keep_all_action(legal, len(legal)) == max(g.legal_actions())
True
"""
import numpy as np

from ttrsim.core.actions import A_BLIND, A_CLAIM, A_FACEUP, A_KEEP, A_PASSENGER, A_TICKETS, PAY_LOCOS_ONLY, encode_claim
from ttrsim.core.board import RP_DRAW_N, RP_N_DECKS, RP_SETUP_DEAL
from ttrsim.core.engine import legal_actions, non_claim_actions
from ttrsim.core.piles import popcount
from ttrsim.core.state import M_PHASE, PH_SETUP_MIX
from ttrsim.data.ids import GRAY, LOCO, N_COLOURS
from ttrsim.jit import kernel


@kernel
def has_action(legal, n_legal, a):
    for i in range(n_legal):
        if legal[i] == a:
            return True
    return False


@kernel
def fallback_action(legal, n_legal):
    """A blind draw if legal, else the first legal action."""
    if has_action(legal, n_legal, A_BLIND):
        return A_BLIND
    return legal[0]


@kernel
def pay_action(b, s, me, r):
    """The claim of route ``r`` by ``me`` with the fewest locomotives (a ferry's
    at least), a gray
    route in the colour it holds most of (lowest id on ties), computed from the
    hand alone; -1 if
    the cards do not suffice. Does not check that ``r`` is free and open or that
    the trains suffice (``route_cost_for`` gives that: ``cost[r] > 0``)."""
    length = np.int64(b.route_len[r])
    col = b.route_colour[r]
    locos = np.int64(s.hand[me, LOCO])
    if col == GRAY:
        c = most_held_colour(s, me)
    else:
        c = col
    h = np.int64(s.hand[me, c])
    if h > 0:
        k = max(length - h, 0, np.int64(b.route_ferry[r]))    # a ferry: its locomotives at least (R8.2)
        if k <= locos and k < length:
            return encode_claim(r, c, k)
        if k < length:
            return -1
    if locos >= length:
        return encode_claim(r, PAY_LOCOS_ONLY, length)
    return -1


@kernel
def most_held_colour(s, me):
    """The colour (not locomotive) ``me`` holds most cards of (lowest id on ties)."""
    best = 0
    for c in range(1, N_COLOURS):
        if s.hand[me, c] > s.hand[me, best]:
            best = c
    return best


@kernel
def route_draw_colour(b, s, me, r):
    """The card colour to collect for route ``r``: its colour, or for a gray
    route the colour ``me`` holds most of."""
    col = b.route_colour[r]
    return most_held_colour(s, me) if col == GRAY else col


@kernel
def faceup_action(s, legal, n_legal, kind):
    """The legal action taking a face-up card of ``kind`` (colour or LOCO), or -1."""
    for i in range(s.faceup.shape[0]):
        if s.faceup[i] == kind and has_action(legal, n_legal, A_FACEUP + i):
            return A_FACEUP + i
    return -1


@kernel
def draw_colour_action(s, legal, n_legal, colour, allow_loco):
    """Draw ``colour`` face up if shown (``colour`` < 0: no wish), else a face-up
    locomotive when ``allow_loco`` (legal only as a first draw), else blind,
    else the first legal action."""
    if colour >= 0:
        a = faceup_action(s, legal, n_legal, colour)
        if a >= 0:
            return a
    if allow_loco:
        a = faceup_action(s, legal, n_legal, LOCO)
        if a >= 0:
            return a
    return fallback_action(legal, n_legal)


@kernel
def ticket_mix_action(b, s, legal, n_legal, n_long):
    """The legal ticket-draw action (setup or in play) taking ``n_long``
    tickets from the second (long) pile when there is one and the rest from
    the first, clamped to what the piles allow; -1 if no ticket draw is legal.
    With one pile there is a single ticket-draw action."""
    first = -1
    lo = 99
    hi = -1
    for i in range(n_legal):
        a = legal[i]
        if A_TICKETS <= a < A_KEEP:
            k = a - A_TICKETS
            if first < 0:
                first = a
            lo = min(lo, k)
            hi = max(hi, k)
    if first < 0:
        return -1
    if b.rp[RP_N_DECKS] == 1:
        return first
    want = b.rp[RP_SETUP_DEAL] if s.meta[M_PHASE] == PH_SETUP_MIX else b.rp[RP_DRAW_N]
    n = min(want, s.tk_len.sum())
    k = n - max(0, n_long)
    k = min(max(k, lo), hi)
    return A_TICKETS + k


@kernel
def passenger_action(s, me, legal, n_legal):
    """Take the legal passenger colour ``me`` already holds most of (first on ties)."""
    best = -1
    best_n = -1
    for i in range(n_legal):
        a = legal[i]
        if A_PASSENGER <= a < A_CLAIM:
            n = s.pass_player[me, a - A_PASSENGER]
            if n > best_n:
                best_n = n
                best = a
    return best if best >= 0 else legal[0]


@kernel
def keep_all_action(legal, n_legal):
    """The legal keep action keeping the most tickets (every one offered)."""
    best = -1
    for i in range(n_legal):
        a = legal[i]
        if A_KEEP <= a < A_PASSENGER and a > best:
            best = a
    return best if best >= 0 else legal[0]


@kernel
def min_keep_count(legal, n_legal):
    """The fewest tickets any legal keep action keeps (99 if none)."""
    m = 99
    for i in range(n_legal):
        a = legal[i]
        if A_KEEP <= a < A_PASSENGER:
            m = min(m, popcount(a - A_KEEP))
    return m


@kernel
def legal_list(lists_claims, b, s, legal):
    """The legal actions a kernel is given into ``legal``; their count. A
    kernel that does not list claims gets
    :func:`ttrsim.core.engine.non_claim_actions`, or the full list when claims
    are all that is legal (so the list is never empty)."""
    if lists_claims:
        return legal_actions(b, s, legal)
    n = non_claim_actions(b, s, legal)
    if n == 0:
        n = legal_actions(b, s, legal)
    return n
