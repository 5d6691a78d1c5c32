"""Tunnels (R8.3): the cards laid down for a tunnel are held, cards turned
over from the deck ask for extra cards, and the player pays them or gives
the tunnel up; the turned-over cards are discarded at the end of the turn. :mod:`ttrsim.core.engine` calls these kernels; finishing the
claim (owner, score, end of turn) is the engine's.

The extra cards: each turned-over card of the pay colour, and each
locomotive, asks for one more card; a tunnel paid with locomotives only is
matched by locomotives only (its pay colour ``PAY_LOCOS_ONLY`` is the
locomotive's kind, so one comparison covers both cases).

>>> import numpy as np
>>> matches(np.array([3, 8, 5], np.int8), 3), matches(np.array([3, 8, 5], np.int8), 8)
(2, 1)
"""
from ttrsim.data.ids import LOCO
from ttrsim.jit import kernel

from .actions import PAY_LOCOS_ONLY, tunnel_give_up_action, tunnel_pay_action
from .board import RP_TUNNEL_CARDS
from .piles import draw_top
from .state import M_PLAYER, M_TUNNEL_COLOUR, M_TUNNEL_EXTRA, M_TUNNEL_ROUTE

assert PAY_LOCOS_ONLY == LOCO     # matches() relies on it


@kernel
def matches(shown, colour):
    """The extra cards asked for by the turned-over cards ``shown`` (-1 = none)
    of a tunnel paid in ``colour`` (``PAY_LOCOS_ONLY``: locomotives only)."""
    n = 0
    for i in range(shown.shape[0]):
        if shown[i] >= 0 and (shown[i] == LOCO or shown[i] == colour):
            n += 1
    return n


@kernel
def start_tunnel(b, s, p, r, colour, locos):
    """Seat ``p`` lays down the cards for tunnel ``r`` (held, out of its hand),
    then the top cards of the deck are turned over (the discards reshuffled
    when it runs out; fewer when both run out); they stay on the table
    (``s.tunnel_shown``) until :func:`settle_tunnel` discards them at the end
    of the turn. Returns the extra cards asked for."""
    held, hand = s.tunnel_held, s.hand
    held[:] = 0
    if colour != PAY_LOCOS_ONLY:
        held[colour] = b.route_len[r] - locos
        hand[p, colour] -= held[colour]
    held[LOCO] += locos
    hand[p, LOCO] -= locos
    shown = s.tunnel_shown
    shown[:] = -1
    for i in range(b.rp[RP_TUNNEL_CARDS]):
        shown[i] = draw_top(s)
    extra = matches(shown, colour)
    s.meta[M_TUNNEL_ROUTE] = r
    s.meta[M_TUNNEL_COLOUR] = colour
    s.meta[M_TUNNEL_EXTRA] = extra
    return extra


@kernel
def pay_split(s, p, locos):
    """Whether seat ``p`` can pay the pending tunnel's extra cards with
    ``locos`` locomotives and the rest in the pay colour."""
    extra, colour = s.meta[M_TUNNEL_EXTRA], s.meta[M_TUNNEL_COLOUR]
    if locos < 0 or locos > extra or s.hand[p, LOCO] < locos:
        return False
    if colour == PAY_LOCOS_ONLY:
        return locos == extra
    return s.hand[p, colour] >= extra - locos


@kernel
def tunnel_actions(b, s, out, n):
    """Append the tunnel phase's actions (every affordable split of the extra
    cards, then giving up) to ``out`` from ``n``; return the new count."""
    p = s.meta[M_PLAYER]
    n_routes = b.route_len.shape[0]
    for k in range(s.meta[M_TUNNEL_EXTRA] + 1):
        if pay_split(s, p, k):
            out[n] = tunnel_pay_action(n_routes, k)
            n += 1
    out[n] = tunnel_give_up_action(n_routes)
    return n + 1


@kernel
def settle_tunnel(s, p, locos, pay):
    """Pay the extra cards with ``locos`` locomotives (``pay``): the held and
    the extra cards go to the discards; or give up: the held cards go back
    to the hand. Either way the turned-over cards go to the discards now, at
    the end of the turn (R8.3; ``s.tunnel_shown`` keeps them for the record).
    Returns the tunnel's route."""
    held, hand = s.tunnel_held, s.hand
    if pay:
        extra, colour = s.meta[M_TUNNEL_EXTRA], s.meta[M_TUNNEL_COLOUR]
        if colour != PAY_LOCOS_ONLY:
            hand[p, colour] -= extra - locos
            held[colour] += extra - locos
        hand[p, LOCO] -= locos
        held[LOCO] += locos
        for c in range(held.shape[0]):
            s.discard[c] += held[c]
    else:
        for c in range(held.shape[0]):
            hand[p, c] += held[c]
    held[:] = 0
    shown = s.tunnel_shown
    for i in range(shown.shape[0]):
        if shown[i] >= 0:
            s.discard[shown[i]] += 1
    r = s.meta[M_TUNNEL_ROUTE]
    s.meta[M_TUNNEL_ROUTE] = -1
    s.meta[M_TUNNEL_EXTRA] = 0
    return r


@kernel
def expected_extra(unseen, colour, cards):
    """The expected extra cards of a tunnel paid in ``colour`` when the
    turned-over cards come from a pile of ``unseen`` cards per kind (draws
    without replacement: ``cards`` times the share of matching cards).

    >>> import numpy as np
    >>> expected_extra(np.array([10, 0, 0, 0, 0, 0, 0, 0, 10]), 0, 3)
    3.0
    """
    total = 0.0
    for c in range(unseen.shape[0]):
        total += unseen[c]
    if total <= 0:
        return 0.0
    match = float(unseen[LOCO])
    if colour != PAY_LOCOS_ONLY:
        match += unseen[colour]
    return min(cards, total) * match / total
