"""``greedy``: the compiled twin of :class:`ttrsim.strategies.python_example.GreedyLongest`
and the worked example of a compiled strategy (see docs/strategies.md).

Keep every offered ticket; claim the longest route it can pay, with as few
locomotives as possible; otherwise draw blind; otherwise the first legal action.
A tunnel's extra cards (Europe): :func:`~ttrsim.strategies.kit.europe_moves.tunnel_choice`.

It finds its claims from the hand (``lists_claims=False``: listing every
payment of every route is most of the engine's work in a turn), the same
claim the full legal list would give it (:func:`longest_claim`).
"""
import numpy as np

from ttrsim.core.actions import A_BLIND, A_KEEP, A_PASSENGER, PAY_LOCOS_ONLY, encode_claim
from ttrsim.core.engine import claimable_routes
from ttrsim.core.state import M_PHASE, M_PLAYER, PH_MAIN, PH_TUNNEL
from ttrsim.data.ids import GRAY, LOCO, N_COLOURS
from ttrsim.jit import kernel

from .kit.europe_moves import tunnel_choice
from .spec import StrategySpec

SPEC = StrategySpec("greedy", "claims the longest route it can pay, else draws blind; keeps every ticket",
                    lists_claims=False)


@kernel
def longest_claim(b, s, me):
    """The claim of the longest route seat ``me`` may claim now, paid with the
    fewest locomotives; ties go to the first such claim in action order (the
    lowest route id, then the lowest colour); -1 if it may claim none. The
    claim the legal list's scan by ``16 * length + 15 - locomotives`` picks,
    found without listing every payment (:func:`ttrsim.core.engine.payments`'
    rules: a ferry's locomotives at least, R8.2; a colour with cards, then
    locomotives only)."""
    n_routes = b.route_len.shape[0]
    ok = np.empty(n_routes, np.bool_)
    if claimable_routes(b, s, me, ok) == 0:
        return -1
    hand = s.hand
    locos = np.int64(hand[me, LOCO])
    best_a = -1
    best_key = -1
    for r in range(n_routes):
        length = np.int64(b.route_len[r])
        if not ok[r] or 16 * length + 15 <= best_key:
            continue                                # no payment of it can beat the best
        col = np.int64(b.route_colour[r])
        c_lo, c_hi = (0, N_COLOURS) if col == GRAY else (col, col + 1)
        k_lo = np.int64(b.route_ferry[r])
        k_hi = min(length - 1, locos)
        pay_c = PAY_LOCOS_ONLY
        pay_k = length                              # locomotives only, if no colour pays
        for c in range(c_lo, c_hi):
            h = np.int64(hand[me, c])
            k = max(k_lo, length - h)
            if h > 0 and k <= k_hi and k < pay_k:
                pay_c = c
                pay_k = k
        key = 16 * length + 15 - pay_k              # claimable: some payment exists
        if key > best_key:
            best_key = key
            best_a = encode_claim(r, pay_c, pay_k)
    return best_a


@kernel
def choose(b, s, m, legal, n_legal, params):
    phase = s.meta[M_PHASE]
    if phase == PH_TUNNEL:                          # Europe: pay a tunnel's extra cards or give up
        return tunnel_choice(b, s, legal, n_legal)
    best_keep = -1
    blind = False
    for i in range(n_legal):
        a = legal[i]
        if A_KEEP <= a < A_PASSENGER:
            best_keep = max(best_keep, a)
        elif a == A_BLIND:
            blind = True
    if best_keep >= 0:
        return best_keep
    if phase == PH_MAIN:
        a = longest_claim(b, s, s.meta[M_PLAYER])
        if a >= 0:
            return a
    if blind:
        return A_BLIND
    return legal[0]
