"""The planner's claims: which payable route to claim (the plan's route most
at risk: its detour if lost, its exposure to the others, its length), how to
pay it (the payment the rest of the plan misses least), what a payment costs
the rest of the plan, and which claim completes a ticket.
"""
from collections import namedtuple

from ttrsim.core.actions import PAY_LOCOS_ONLY, decode_claim
from ttrsim.core.board import RP_PASSENGERS
from ttrsim.core.engine import locks_all_tracks, payments
from ttrsim.core.scoring import uf_find
from ttrsim.data.ids import GRAY, LOCO
from ttrsim.jit import kernel
from ttrsim.jit.record import borrowed

from ..kit.graph_search import other_end, path_end_within
from ..kit.memory import (
    ROUTE_SET_BITS,
    WB_CAND_PAR,
    WF_SAVED,
    WF_TOP,
    WI_BLOCKED,
    WI_CAND,
    WI_CAND_ADJ,
    WI_FRONT,
    route_set_words,
)
from .params import (
    P_DETOUR_CAP,
    P_DOUBLE_FACTOR,
    P_KEEP_MARGIN,
    P_PASS_OFFPLAN,
    P_PASS_WEIGHT,
    P_W_ADJACENT,
    P_W_DETOUR,
    P_W_LONG,
    P_W_SINGLE,
)
from .passengers import BIG, route_pass_value
from .plan import NEED_SHORT, SM_DETOUR, SM_DETOUR_TRAINS, card_needs


@kernel
def loc_in_comp(b, parent, loc, root):
    for i in range(b.loc_node_start[loc], b.loc_node_start[loc + 1]):
        if uf_find(parent, b.loc_nodes[i]) == root:
            return True
    return False


@kernel
def claim_completes(b, parent, t, r):
    """Whether claiming route ``r`` joins ticket ``t``'s ends in the own
    components ``parent`` (``t`` not complete yet)."""
    ru = uf_find(parent, b.route_a[r])
    rv = uf_find(parent, b.route_b[r])
    la = b.ticket_a[t]
    lb = b.ticket_b[t]
    return ((loc_in_comp(b, parent, la, ru) and loc_in_comp(b, parent, lb, rv))
            or (loc_in_comp(b, parent, la, rv) and loc_in_comp(b, parent, lb, ru)))


@kernel
def pay_choice(b, s, me, r, need, in_plan, loco_pay, options):
    """The payment of claimable route ``r`` costing least: ``loco_pay`` per
    locomotive plus the cards of colours the rest of the plan lacks afterwards;
    ties go to the colour with the smaller surplus left (then the first in
    action order). ``options`` (int64[CLAIMS_PER_ROUTE]) is work."""
    best = -1
    best_v = BIG
    length = b.route_len[r]
    own = b.route_colour[r] if in_plan[r] and b.route_colour[r] != GRAY else -1
    for i in range(payments(b, s, me, r, options, 0)):
        a = options[i]
        _, c, k = decode_claim(a)
        v = loco_pay * k
        if c != PAY_LOCOS_ONLY:
            paid = length - k
            other = need[c] - (length if c == own else 0)
            h = s.hand[me, c]
            v += max(0, other - (h - paid)) - max(0, other - h)
            v += 0.01 * max(0, h - paid - other)
        if v < best_v - 1e-12:
            best_v = v
            best = a
    return best


@kernel
def pay_harm(b, s, me, a, in_plan, want, needs, short0):
    """Cards the plan ``in_plan`` would lack additionally after claim ``a``
    (``short0``: what it lacks now), counted on a copy of the seat's hand
    paying ``a``; ``want`` and ``needs`` are overwritten."""
    r, c, k = decode_claim(a)
    after = s.hand[me].copy()
    if c != PAY_LOCOS_ONLY:
        after[c] -= b.route_len[r] - k
    after[LOCO] -= k
    card_needs(b, s, after, in_plan, want, needs)
    return needs[NEED_SHORT] - short0


@kernel
def blocked_routes(cost, out):
    """The set of routes with ``cost < 0`` (impassable) into ``out``
    (int64[route_set_words(R)], bit r % ROUTE_SET_BITS of word r // ROUTE_SET_BITS)."""
    for w in range(out.shape[0]):
        out[w] = 0
    for r in range(cost.shape[0]):
        if cost[r] < 0:
            out[r // ROUTE_SET_BITS] |= 1 << (r % ROUTE_SET_BITS)


# route_detour's arrays: the memory's route_numbers and route_sets, saved
# (float64[group width]) and front (int64[n_nodes]) work, the seat's
# impassable routes (blocked_routes) and the search's labels
DetourWork = namedtuple("DetourWork", ("numbers", "words", "saved", "front", "blocked", "dist", "prev", "done"))


@kernel(inline="always")   # (in claim_pick's loop: the record is not copied and counted per call)
def route_detour(b, s, me, r, cost, cap, w):
    """Trains a path between the ends of route ``r`` costs beyond the route if
    every track of its group is closed, at most ``cap`` (``cap`` when there is
    no such path; the search stops there). ``cost`` is the seat's
    ``route_cost_for(COST_TRAINS)``; ``w`` (:data:`DetourWork`) holds
    ``blocked``, its impassable routes (:func:`blocked_routes`), ``numbers``
    and ``words``, the memory's ``route_numbers`` and ``route_sets``, and
    work arrays (the caller passes arrays, not the memory: a call taking the
    counted record counts it).

    The result is remembered in the seat's strategy memory with the routes of
    the path found: while its trains are the same, no route got cheaper (only
    its own claims do that) and the search would find the same path cost as
    long as no route of that path was taken or closed; no path stays no path."""
    numbers, words, blocked, saved = w.numbers, w.words, w.blocked, w.saved
    dist, prev = w.dist, w.prev
    W = blocked.shape[0]
    length = b.route_len[r]
    found = numbers[me, SM_DETOUR, r]
    if found > 0 and numbers[me, SM_DETOUR_TRAINS, r] == s.trains[me]:
        valid = True
        for k in range(W):
            if words[me, r, k] & blocked[k] != 0:
                valid = False
        if valid:
            if found == 1:
                return cap
            return min(cap, float(found - 2 - length))
    g = b.route_group[r]
    width = b.group_routes.shape[1]
    for j in range(width):
        o = b.group_routes[g, j]
        if o >= 0:
            saved[j] = cost[o]
            cost[o] = -1.0
    v = path_end_within(b, cost, b.route_loc_a[r], b.route_loc_b[r], length + cap, dist, prev, w.done, w.front)
    for j in range(width):
        o = b.group_routes[g, j]
        if o >= 0:
            cost[o] = saved[j]
    for k in range(W):
        words[me, r, k] = 0
    numbers[me, SM_DETOUR_TRAINS, r] = s.trains[me]
    if v < 0:
        numbers[me, SM_DETOUR, r] = 1
        return cap
    d = dist[v]
    numbers[me, SM_DETOUR, r] = 2 + int(d)
    while prev[v] >= 0:
        x = prev[v]
        words[me, r, x // ROUTE_SET_BITS] |= 1 << (x % ROUTE_SET_BITS)
        v = other_end(b, x, v)
    return min(cap, d - length)


@kernel
def route_exposure(b, s, me, r):
    """``(adj, open_par)`` of route ``r``: the other players' routes touching
    its ends, and whether a parallel track stays open to the others."""
    owner = s.route_owner
    group_routes = b.group_routes
    open_par = False
    if not locks_all_tracks(b, s):
        g = b.route_group[r]
        for j in range(group_routes.shape[1]):
            o = group_routes[g, j]
            if o >= 0 and o != r and owner[o] < 0:
                open_par = True
    adj = 0
    nrs = b.node_route_start
    nr = b.node_routes
    for end in range(2):
        u = b.route_a[r] if end == 0 else b.route_b[r]
        for j in range(nrs[u], nrs[u + 1]):
            o = owner[nr[j]]
            if o >= 0 and o != me:
                adj += 1
    return adj, open_par


@kernel
def exposure_risk(b, me, r, detour, adj, open_par, params):
    """Claim priority of plan route ``r`` given its ``detour`` and
    :func:`route_exposure` (see the module doc); it grows with the detour when
    ``w_detour`` and ``double_factor`` are not negative, so ``detour =
    detour_cap`` gives an upper bound."""
    risk = params[me, P_W_DETOUR] * max(detour, 0.0) + params[me, P_W_ADJACENT] * adj
    if open_par:
        risk *= params[me, P_DOUBLE_FACTOR]
    else:
        risk += params[me, P_W_SINGLE]
    return risk + params[me, P_W_LONG] * b.route_len[r]


@kernel
def claim_pick(b, s, m, me, params, plan, payable):
    """The route of ``payable`` to claim (see the module doc: the plan's route most at
    risk, or an off-plan route for its passengers) and its priority; ``-1`` if
    none. ``plan`` is the decision's :data:`~.plan.MainPlan`. The detour search
    runs only for routes whose priority with the largest detour could still
    beat the best found (same pick as searching every route)."""
    R = b.route_len.shape[0]
    in_plan, need_trains, cost, cscore = plan.in_plan, plan.need_trains, plan.cost, plan.cscore
    dist, prev, done = plan.dist, plan.prev, plan.done
    passengers = b.rp[RP_PASSENGERS] != 0
    pw = params[me, P_PASS_WEIGHT]
    cap = params[me, P_DETOUR_CAP]
    bounded = params[me, P_W_DETOUR] >= 0 and params[me, P_DOUBLE_FACTOR] >= 0
    ints, floats, flags = borrowed(m.ints), borrowed(m.floats), borrowed(m.flags)    # the work rows, uncounted
    cand = ints[WI_CAND, :R]
    top = floats[WF_TOP, :R]            # priority with the detour at its cap (exact for off-plan routes)
    cand_adj = ints[WI_CAND_ADJ, :R]    # and route_exposure of plan routes
    cand_par = flags[WB_CAND_PAR, :R]
    nc = 0
    for r in range(R):
        if not payable[r]:
            continue
        if in_plan[r]:
            adj, open_par = route_exposure(b, s, me, r)
            cand_adj[nc] = adj
            cand_par[nc] = open_par
            v = exposure_risk(b, me, r, cap, adj, open_par, params)
            if passengers:
                v += pw * route_pass_value(b, s, r, cscore)
        elif passengers and s.trains[me] - b.route_len[r] >= need_trains + params[me, P_KEEP_MARGIN]:
            v = pw * route_pass_value(b, s, r, cscore)
            if v < params[me, P_PASS_OFFPLAN]:
                continue
        else:
            continue
        cand[nc] = r
        top[nc] = v
        nc += 1
    best_r = -1
    best_v = -BIG
    blocked = ints[WI_BLOCKED, :route_set_words(R)]
    saved, front = floats[WF_SAVED, :b.group_routes.shape[1]], ints[WI_FRONT, :b.n_nodes]
    detour_work = DetourWork(borrowed(m.route_numbers), borrowed(m.route_sets), saved, front, blocked, dist, prev, done)
    have_blocked = False
    for _ in range(nc):
        i = 0                           # the candidate with the highest bound (lowest route on ties)
        for j in range(1, nc):
            if top[j] > top[i]:
                i = j
        if top[i] <= -BIG:
            break
        if bounded and best_r >= 0 and top[i] < best_v:
            break
        r = cand[i]
        v = top[i]
        top[i] = -BIG
        if in_plan[r]:
            if not have_blocked:
                blocked_routes(cost, blocked)
                have_blocked = True
            detour = route_detour(b, s, me, r, cost, cap, detour_work)
            v = exposure_risk(b, me, r, detour, cand_adj[i], cand_par[i], params)
            if passengers:
                v += pw * route_pass_value(b, s, r, cscore)
        if v > best_v or (v == best_v and r < best_r):
            best_v = v
            best_r = r
    return best_r, best_v
