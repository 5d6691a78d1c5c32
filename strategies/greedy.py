"""``greedy``: the compiled twin of :class:`ttrsim.strategies.python_example.GreedyLongest`
and the worked example of a compiled strategy (see docs/strategies.md).

Keep every offered ticket; claim the longest route it can pay, with as few
locomotives as possible; otherwise draw blind; otherwise the first legal action.
A tunnel's extra cards (Europe): :func:`~ttrsim.strategies.europe_moves.tunnel_choice`.
"""
from numba import njit

from ttrsim.core.actions import A_BLIND, A_CLAIM, A_KEEP, A_PASSENGER, claims_end, decode_claim
from ttrsim.core.state import M_PHASE, PH_TUNNEL

from .europe_moves import tunnel_choice
from .spec import StrategySpec

SPEC = StrategySpec("greedy", "claims the longest route it can pay, else draws blind; keeps every ticket")


@njit(cache=True)
def choose(b, s, m, legal, n_legal, params):
    if s.meta[M_PHASE] == PH_TUNNEL:                   # Europe: pay a tunnel's extra cards or give up
        return tunnel_choice(b, s, legal, n_legal)
    best_keep = -1
    best_claim = -1
    best_key = -1
    blind = False
    for i in range(n_legal):
        a = legal[i]
        if A_KEEP <= a < A_PASSENGER:
            best_keep = max(best_keep, a)
        elif A_CLAIM <= a < claims_end(b.route_len.shape[0]):
            r, c, k = decode_claim(a)
            key = 16 * b.route_len[r] + (15 - k)        # longest route, then fewest locomotives
            if key > best_key:
                best_key = key
                best_claim = a
        elif a == A_BLIND:
            blind = True
    if best_keep >= 0:
        return best_keep
    if best_claim >= 0:
        return best_claim
    if blind:
        return A_BLIND
    return legal[0]
