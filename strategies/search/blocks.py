"""``search``'s blocking candidates (``block``): the seat's payable claims
that take a route, or close its parallel track (R4.5), on the other seats'
plans, read on a few determinizations (the planner's plan for each other
seat, made anew on each), and the candidate list they are appended to.
"""
import numpy as np

from ttrsim.core.actions import decode_claim
from ttrsim.core.rng import next_u64
from ttrsim.core.state import M_NPLAYERS
from ttrsim.jit import kernel

from ..kit.memory import clear_seats, new_memory
from ..planner import main_phase_plan
from ..planner.claims import locks_all_tracks
from .determinize import determinize


@kernel
def add_candidate(cands, n, a):
    """Append action ``a`` to ``cands[:n]`` unless it is there; the new count."""
    if a < 0:
        return n
    for i in range(n):
        if cands[i] == a:
            return n
    cands[n] = a
    return n + 1


@kernel
def others_plans(b, s, m, me, infer, pparams, deals, need):
    """Into ``need`` (float[R]): on how many of ``deals`` determinizations
    (drawn like the search's, from the seat's own stream) some other seat's
    planner plan (``pparams``; a fresh memory: the plan it would make now)
    has each unclaimed route."""
    R = b.route_len.shape[0]
    det = m.scratch[0]
    rm = new_memory(m)
    stream = np.zeros(1, np.uint64)
    hit = np.zeros(R, np.bool_)
    need[:] = 0.0
    for _ in range(deals):
        stream[0] = next_u64(m.rng, me)
        determinize(b, s, me, det, stream, infer)
        hit[:] = False
        for q in range(s.meta[M_NPLAYERS]):
            if q == me:
                continue
            clear_seats(rm)
            in_plan = main_phase_plan(b, det, rm, pparams, q)[2]
            for r in range(R):
                if in_plan[r] and det.route_owner[r] < 0:
                    hit[r] = True
        for r in range(R):
            need[r] += hit[r]


@kernel
def block_value(b, s, need, r):
    """What claiming route ``r`` takes from the other seats' plans: ``need``
    of ``r``, plus that of its parallel tracks when a claim closes them (R4.5)."""
    v = need[r]
    if locks_all_tracks(b, s):
        g = b.route_group[r]
        for j in range(b.group_routes.shape[1]):
            o = b.group_routes[g, j]
            if o >= 0 and o != r:
                v += need[o]
    return v


@kernel
def block_candidates(b, s, m, me, k, deals, infer, pparams, claims, n_claims, cands, n):
    """Append to ``cands[:n]`` up to ``k`` more of ``claims[:n_claims]``
    (the planner's payable claims, ranked), those with the largest
    :func:`block_value` (> 0; earlier in the ranking first on ties); the new
    count."""
    if k <= 0 or deals <= 0 or n_claims == 0:
        return n
    need = np.zeros(b.route_len.shape[0])
    others_plans(b, s, m, me, infer, pparams, deals, need)
    value = np.empty(n_claims)
    for i in range(n_claims):
        value[i] = block_value(b, s, need, decode_claim(claims[i])[0])
    added = 0
    while added < k:
        best = -1
        for i in range(n_claims):
            if value[i] > 0 and (best < 0 or value[i] > value[best]):
                best = i
        if best < 0:
            break
        value[best] = 0.0
        n2 = add_candidate(cands, n, claims[best])       # a candidate already (the planner's own claim): not counted
        added += n2 - n
        n = n2
    return n
