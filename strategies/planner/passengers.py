"""The planner's passenger values (Germany, R4.6, R6.7): how much one more
passenger of a colour improves the seat's majority standing, what waiting
passengers make a route worth, and the passenger colour to take.
"""
import numpy as np

from ttrsim.core.actions import A_CLAIM, A_PASSENGER
from ttrsim.core.board import RP_PASS_FIRST, RP_PASS_SECOND, RP_PASS_ZERO
from ttrsim.core.scoring import majority_points
from ttrsim.core.state import M_NPLAYERS
from ttrsim.data.ids import N_PASSENGER_COLOURS
from ttrsim.jit import kernel

from .params import P_DENY, P_LOOKAHEAD

BIG = 1e9


@kernel
def _majority_split(b, counts, me, out):
    """(my majority points, the others' summed points) for one colour."""
    majority_points(counts, b.rp[RP_PASS_FIRST], b.rp[RP_PASS_SECOND], b.rp[RP_PASS_ZERO] != 0, out)
    others = 0
    for q in range(counts.shape[0]):
        if q != me:
            others += out[q]
    return out[me], others


@kernel
def colour_scores(b, s, me, params, out):
    """``out[c]``: how much one more passenger of colour ``c`` improves ``me``'s
    majority standing (own points gained minus ``deny`` x the others' average
    loss, plus ``lookahead`` x the same for a second one if more remain)."""
    n = s.meta[M_NPLAYERS]
    counts = np.empty(n, np.int64)
    pts = np.zeros(n, np.int64)
    deny = params[me, P_DENY]
    look = params[me, P_LOOKAHEAD]
    for c in range(N_PASSENGER_COLOURS):
        for q in range(n):
            counts[q] = s.pass_player[q, c]
        m0, o0 = _majority_split(b, counts, me, pts)
        counts[me] += 1
        m1, o1 = _majority_split(b, counts, me, pts)
        g = (m1 - m0) - deny * (o1 - o0) / max(n - 1, 1)
        left = 0
        for loc in range(s.pass_loc.shape[0]):
            left += s.pass_loc[loc, c]
        if left > 1 and look > 0:
            counts[me] += 1
            m2, o2 = _majority_split(b, counts, me, pts)
            g += look * ((m2 - m1) - deny * (o2 - o1) / max(n - 1, 1))
        out[c] = g + 0.001 * left          # ties: the colour with more left to collect


@kernel
def loc_pass_value(s, loc, cscore):
    """The best colour score among passengers still waiting on ``loc`` (0 if none)."""
    best = 0.0
    for c in range(N_PASSENGER_COLOURS):
        if s.pass_loc[loc, c] > 0 and cscore[c] > best:
            best = cscore[c]
    return best


@kernel
def route_pass_value(b, s, r, cscore):
    return loc_pass_value(s, b.route_loc_a[r], cscore) + loc_pass_value(s, b.route_loc_b[r], cscore)


@kernel
def passenger_choice(b, s, legal, n_legal, params, me):
    cscore = np.zeros(N_PASSENGER_COLOURS)
    colour_scores(b, s, me, params, cscore)
    best = -1
    best_v = -BIG
    for i in range(n_legal):
        a = legal[i]
        if A_PASSENGER <= a < A_CLAIM:
            v = cscore[a - A_PASSENGER]
            if v > best_v:
                best_v = v
                best = a
    return best
