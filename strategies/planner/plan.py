"""The planner's plan: the Steiner network of its unfinished tickets under its
search costs, the cards and turns the plan still needs, and the plan kept in
the seat's memory between decisions (see the module doc of
:mod:`ttrsim.strategies.planner` for the design).

Memory (:mod:`ttrsim.strategies.kit.memory`) beside the plan key and flags:

* ``numbers[me, SM_OWN_TRAINS]``, ``numbers[me, SM_OWN_TICKETS]``: its trains
  and 1 + its tickets held when it last counted its unfinished tickets,
  ``numbers[me, SM_UNFINISHED]`` that count (it changes only with its routes
  or tickets);
* ``numbers[me, SM_LONGEST + q]``: seat ``q``'s longest path (R6.5) as
  ``(trains + 1) << 16 | length``, found when ``q`` had ``trains`` trains
  (its routes change only with its claims, each of which takes trains;
  :func:`ttrsim.strategies.planner.tickets.seat_longest`);
* ``route_numbers[me, SM_DETOUR, r]``: route ``r``'s remembered detour (0
  unknown, 1 no path below the cap, 2 + the detour path's cost),
  ``route_numbers[me, SM_DETOUR_TRAINS, r]`` the seat's trains when it was
  found, ``route_sets[me, r]`` the routes of that path
  (:func:`ttrsim.strategies.planner.claims.route_detour`).
"""
from collections import namedtuple

import numpy as np

from ttrsim.core.board import RP_END_TRAINS, RP_PASSENGERS, RP_TRAINS
from ttrsim.core.scoring import locations_joined, ticket_stake
from ttrsim.core.state import M_COUNTDOWN, M_NPLAYERS, M_TURN
from ttrsim.data.ids import GRAY, LOCO, N_COLOURS, N_PASSENGER_COLOURS
from ttrsim.jit import kernel
from ttrsim.jit.record import borrowed

from ..kit.connectivity import own_components, passable_components, unfinished_tickets
from ..kit.europe_moves import europe_extra_cards
from ..kit.memory import (
    FREE_NUMBER,
    N_PLAN_KEY,
    PLAN_ROUTES,
    WB_DONE,
    WB_PLAN,
    WB_TMP_PLAN,
    WF_CSCORE,
    WF_DIST,
    WF_PCOST,
    WF_UNSEEN,
    WF_WANT,
    WI_KEY,
    WI_LOCS,
    WI_NEEDS,
    WI_PARENT,
    WI_PREV,
    WI_ROUTES,
    WI_TA,
    WI_TB,
    WI_TICKETS,
    plan_key,
    plan_open,
    plan_work,
    recall_plan,
    remember_plan,
)
from ..kit.network_plans import NetworkWork, plan_network, plan_tickets
from .params import (
    P_CARD_WEIGHT,
    P_CLAIM_TURN_COST,
    P_HOARD_CARDS,
    P_HOARD_WEIGHT,
    P_PASS_PATH,
    P_PLAY_PACE,
    P_POINTS_WEIGHT,
)
from .passengers import BIG, loc_pass_value, route_pass_value

# card_needs' outputs in its ``needs`` array (int64[NEED_WORK + N_COLOURS + routes]: decision_rows' row)
NEED_SHORT = 0                  # cards the plan misses after locomotives
NEED_COLOUR = 1                 # + colour: cards of that colour its coloured routes take
NEED_WORK = 1 + N_COLOURS       # scratch from here
# the seat's memory beside the plan (see the module doc)
SM_OWN_TRAINS = FREE_NUMBER
SM_OWN_TICKETS = FREE_NUMBER + 1
SM_UNFINISHED = FREE_NUMBER + 2
SM_LONGEST = FREE_NUMBER + 3    # + seat: its longest path and trains (up to COST_KEY)
SM_DETOUR = PLAN_ROUTES + 1
SM_DETOUR_TRAINS = PLAN_ROUTES + 2


@kernel
def turns_left(b, s, me, pace):
    """Estimated turns ``me`` still gets (this one included): the last round
    counts 1; otherwise each other seat is assumed to lay ``pace`` trains a
    turn (or its average so far, if higher) until it triggers the end, plus
    the last round; the earliest seat decides."""
    if s.meta[M_COUNTDOWN] >= 0:
        return 1.0
    best = BIG
    end = b.rp[RP_END_TRAINS]
    n = s.meta[M_NPLAYERS]
    turn = s.meta[M_TURN]
    for q in range(n):
        if q != me:
            taken = turn // n + (1 if q < turn % n else 0)
            used = b.rp[RP_TRAINS] - s.trains[q]
            pq = max(pace, used / max(taken, 1))
            t = (max(0, s.trains[q] - end)) / max(pq, 0.1) + 1.0
            best = min(best, t)
    return max(best, 1.0)


@kernel
def hand_size(s, me):
    n = 0
    for k in range(LOCO + 1):
        n += s.hand[me, k]
    return n


@kernel
def min_trains_any(s):
    m = 1 << 30
    for q in range(s.meta[M_NPLAYERS]):
        m = min(m, s.trains[q])
    return m


@kernel
def min_trains_others(s, me):
    m = 1 << 30
    for q in range(s.meta[M_NPLAYERS]):
        if q != me and s.trains[q] < m:
            m = s.trains[q]
    return m


@kernel
def keep_reachable(b, cost, tks, nt, reach=None):
    """Compact ``tks[:nt]`` to the tickets a path over ``cost`` can still join;
    returns their count. ``reach`` (int64[n_nodes]) is optional work."""
    if reach is None:
        reach = np.empty(b.n_nodes, np.int64)
    passable_components(b, cost, reach)
    n = 0
    for i in range(nt):
        t = tks[i]
        if locations_joined(b, reach, b.ticket_a[t], b.ticket_b[t]):
            tks[n] = t
            n += 1
    return n


@kernel
def search_costs(b, s, me, params, cost, pcost, cscore, unseen):
    """Plan search costs: a claimable route costs its length plus
    ``claim_turn_cost`` plus ``card_weight`` per card it misses with the
    hand held now, minus ``points_weight`` x its points, minus
    ``pass_path`` x its passenger value (Germany), plus ``card_weight`` per
    extra card a tunnel is expected to ask for and per locomotive a ferry
    needs beyond those held (Europe), at least a fifth of its length; own
    routes 0, impassable -1 (as in ``cost``). ``unseen`` (float64[LOCO + 1])
    is work (the cards it cannot see, once a tunnel or ferry needs them)."""
    ct = params[me, P_CLAIM_TURN_COST]
    pw = params[me, P_POINTS_WEIGHT]
    hand = hand_size(s, me)
    cw = params[me, P_CARD_WEIGHT] + params[me, P_HOARD_WEIGHT] * max(0.0, hand - params[me, P_HOARD_CARDS])
    pp = params[me, P_PASS_PATH] if b.rp[RP_PASSENGERS] != 0 else 0.0
    loc_value = np.empty(b.loc_node_start.shape[0] - 1 if pp > 0 else 0)
    for loc in range(loc_value.shape[0]):    # each location's passenger value once, not once per route end
        loc_value[loc] = loc_pass_value(s, loc, cscore)
    locos = s.hand[me, LOCO]
    top = 0
    for k in range(N_COLOURS):
        top = max(top, s.hand[me, k])
    have_unseen = False                   # the cards it cannot see, once a tunnel or ferry needs them
    for r in range(b.route_len.shape[0]):
        c = cost[r]
        if c > 0:
            length = b.route_len[r]
            col = b.route_colour[r]
            h = top if col == GRAY else s.hand[me, col]
            c = length + ct - pw * b.route_points[r] + cw * max(0, length - h - locos)
            if b.route_tunnel[r] or b.route_ferry[r] > 0:     # Europe: extra cards expected, locomotives due
                if not have_unseen:
                    unseen_cards(b, s, me, unseen)
                    have_unseen = True
                c += cw * europe_extra_cards(b, s, me, r, unseen)
            if pp > 0:                    # (route_pass_value)
                c -= pp * (loc_value[b.route_loc_a[r]] + loc_value[b.route_loc_b[r]])
            c = max(c, 0.2 * length)
        pcost[r] = c


@kernel
def plan_trains(b, s, me, in_plan):
    """(trains, routes) the plan ``in_plan`` still has to claim."""
    t = 0
    n = 0
    for r in range(in_plan.shape[0]):
        if in_plan[r] and s.route_owner[r] != me:
            t += b.route_len[r]
            n += 1
    return t, n


# make_plan's work arrays: the other heuristic's plan, the tickets' ends in
# joining order and as locations, and the network plans' work (NetworkWork)
PlanWork = namedtuple("PlanWork", ("tmp_plan", "ta", "tb", "locs", "net"))
# a planner decision's rows (decision_rows): the plan, the card wishes and
# needs (card_needs), the passenger colour scores and the searches' labels
PlanRows = namedtuple("PlanRows", ("in_plan", "want", "needs", "cscore", "dist", "prev", "done"))
# what a main-phase decision starts from (the planner's main_phase_plan): the
# search costs, the rows above, the plan's trains and routes still to claim,
# its colour needs for payments and the routes payable now
# and the seat memory's numbers (uncounted)
MainPlan = namedtuple("MainPlan", ("cost", "cscore", "in_plan", "need_trains", "n_plan", "want", "needs", "need",
                                   "payable", "dist", "prev", "done", "numbers"))


@kernel
def make_plan(b, s, me, tks, nt, cost, in_plan, w):
    """Plan a network for tickets ``tks[:nt]`` into ``in_plan``: the cheaper of
    the Steiner-tree and the Steiner-forest heuristics. Returns the number of
    tickets (forest) / locations (tree) it could not join (0 = all). ``w``
    (:data:`PlanWork`) holds the work arrays."""
    if nt == 0:
        for r in range(in_plan.shape[0]):
            in_plan[r] = False
        return 0
    order_tickets(b, tks, nt, w)
    c1, miss1 = plan_tickets(b, cost, w.ta, w.tb, nt, in_plan, w.net)
    return tree_or_forest(b, nt, cost, in_plan, w, c1, miss1)


@kernel(inline="always")
def order_tickets(b, tks, nt, w):
    """The ends of tickets ``tks[:nt]`` into ``w.ta``, ``w.tb`` and ``w.locs``
    (``a, b`` pairs), most at stake first (the forest heuristic joins in this
    order), ties in list order."""
    ta, tb, locs = w.ta, w.tb, w.locs
    used = 0
    for i in range(nt):
        best = -1
        for j in range(nt):
            if not (used >> j) & 1 and (best < 0 or ticket_stake(b, tks[j]) > ticket_stake(b, tks[best])):
                best = j
        used |= 1 << best
        ta[i] = b.ticket_a[tks[best]]
        tb[i] = b.ticket_b[tks[best]]
        locs[2 * i] = ta[i]
        locs[2 * i + 1] = tb[i]


@kernel(inline="always")
def tree_or_forest(b, nt, cost, in_plan, w, c1, miss1):
    """:func:`make_plan`'s choice, the forest of ``w``'s tickets in
    ``in_plan`` (cost ``c1``, ``miss1`` unreachable): the Steiner tree over
    their ends instead where it is cheaper (or joins what the forest
    cannot); the unjoined count of the one kept."""
    if nt == 1:
        return miss1
    c2, miss2 = plan_network(b, cost, w.locs, 2 * nt, w.tmp_plan, w.net)
    if (miss2 > 0) == (miss1 > 0) and c2 < c1 - 1e-9 or (miss2 == 0 and miss1 > 0):
        for r in range(in_plan.shape[0]):
            in_plan[r] = w.tmp_plan[r]
        return miss2
    return miss1


@kernel(inline="always")   # (no call: the record is not counted again)
def plan_rows_work(b, m, rows):
    """:func:`make_plan`'s :data:`PlanWork` from the memory's work rows, with
    the search labels of ``rows`` (:func:`decision_rows`' :data:`PlanRows`):
    uncounted views (``record.borrowed``: the caller holds ``m`` while it
    uses them)."""
    R = b.route_len.shape[0]
    ints, flags = borrowed(m.ints), borrowed(m.flags)
    tmp_plan = flags[WB_TMP_PLAN, :R]
    tmp_plan[:] = False
    front, term, in_tree, cost_work = plan_work(b, m)
    net = NetworkWork(rows.dist, rows.prev, rows.done, front, term, in_tree, ints[WI_ROUTES, :R], cost_work)
    return PlanWork(tmp_plan, ints[WI_TA], ints[WI_TB], ints[WI_LOCS], net)


@kernel(inline="always")   # (no call: the record is not counted again)
def decision_rows(b, m):
    """A planner decision's arrays, from the memory's work rows: a
    :data:`PlanRows` ``(in_plan, want, needs, cscore, dist, prev, done)``, the plan, the card
    wishes and needs (:func:`card_needs`) and the passenger colour scores
    zeroed, the search's labels (:func:`current_plan`'s) as they are. They
    are uncounted views (``record.borrowed``: the caller holds ``m`` while it
    uses them), so returning and passing them counts no references."""
    R, N = b.route_len.shape[0], b.n_nodes
    ints, floats, flags = borrowed(m.ints), borrowed(m.floats), borrowed(m.flags)
    in_plan = flags[WB_PLAN, :R]
    want = floats[WF_WANT, :N_COLOURS + 1]
    needs = ints[WI_NEEDS, :NEED_WORK + N_COLOURS + R]
    cscore = floats[WF_CSCORE, :N_PASSENGER_COLOURS]
    in_plan[:] = False
    want[:] = 0.0
    needs[:] = 0
    cscore[:] = 0.0
    return PlanRows(in_plan, want, needs, cscore, floats[WF_DIST, :N], ints[WI_PREV, :N], flags[WB_DONE, :N])


@kernel
def card_needs(b, s, hand, in_plan, want, needs):
    """Value of one more card of each colour for the routes the plan still
    claims with the cards ``hand`` (the seat's row of ``s.hand``, or a changed
    copy): ``want[c]`` (0 useless; 1 plus up to 0.5 the closer it brings a
    route to payable), ``want[LOCO]`` 1 if cards are missing at all. Into
    ``needs`` (int64[NEED_WORK + N_COLOURS + routes], :func:`decision_rows`'
    row): ``needs[NEED_SHORT]`` the cards missing after locomotives,
    ``needs[NEED_COLOUR + c]`` the cards of colour ``c`` the plan's coloured
    routes take; the rest is scratch."""
    avail = NEED_WORK                   # needs[avail + c]: cards of colour c not yet spoken for
    grays = NEED_WORK + N_COLOURS       # needs[grays + i]: the plan's free gray routes, longest first (then by id)
    for c in range(N_COLOURS):
        needs[avail + c] = hand[c]
        needs[NEED_COLOUR + c] = 0
        want[c] = 0.0
    want[LOCO] = 0.0
    n_gray = 0
    owner = s.route_owner
    route_len = b.route_len
    route_colour = b.route_colour
    for r in range(in_plan.shape[0]):
        if in_plan[r] and owner[r] < 0:
            col = route_colour[r]
            if col == GRAY:
                i = n_gray
                while i > 0 and route_len[needs[grays + i - 1]] < route_len[r]:
                    needs[grays + i] = needs[grays + i - 1]
                    i -= 1
                needs[grays + i] = r
                n_gray += 1
            else:
                needs[NEED_COLOUR + col] += route_len[r]
    short = 0
    locos = hand[LOCO]
    for c in range(N_COLOURS):
        need = needs[NEED_COLOUR + c]
        if need > needs[avail + c]:
            miss = need - needs[avail + c]
            short += miss
            want[c] = 1.0 + 0.5 / max(1, miss - locos)
            needs[avail + c] = 0
        else:
            needs[avail + c] -= need
    for i in range(n_gray):             # each gray route on the colour with the largest surplus
        g = needs[grays + i]
        c = 0
        for k in range(1, N_COLOURS):
            if needs[avail + k] > needs[avail + c]:
                c = k
        length = route_len[g]
        if needs[avail + c] >= length:
            needs[avail + c] -= length
        else:
            miss = length - needs[avail + c]
            short += miss
            if needs[avail + c] > 0:
                v = 1.0 + 0.5 / max(1, miss - locos)
                want[c] = max(want[c], v)
            else:                       # no stack yet: any colour starts one
                for k in range(N_COLOURS):
                    want[k] = max(want[k], 0.6)
            needs[avail + c] = 0
    needs[NEED_SHORT] = max(0, short - locos)
    if short > 0:
        want[LOCO] = 1.0


@kernel
def unseen_kind(b, s, me, k):
    """Cards of kind ``k`` seat ``me`` cannot see (the deck and the others'
    hands: all minus the discard pile, its hand and the face-up row)."""
    u = b.card_counts[k] - s.discard[k] - s.hand[me, k]
    for i in range(s.faceup.shape[0]):
        if s.faceup[i] == k:
            u -= 1
    return max(u, 0)


@kernel
def unseen_total(b, s, me):
    """The cards seat ``me`` cannot see, all kinds (:func:`unseen_kind`)."""
    tot = 0.0
    for k in range(LOCO + 1):
        tot += unseen_kind(b, s, me, k)
    return tot


@kernel
def unseen_cards(b, s, me, out):
    """:func:`unseen_kind` of each kind into ``out``; returns their total."""
    tot = 0.0
    for k in range(LOCO + 1):
        u = unseen_kind(b, s, me, k)
        out[k] = u
        tot += u
    return tot


@kernel
def plan_turns(b, s, me, in_plan, want, needs):
    """Turns the plan still needs: a claim per route plus the draws for the
    missing cards, two a turn, each useful as often as useful cards are among
    those it cannot see (at least a quarter: the face-up row helps)."""
    _, n_routes = plan_trains(b, s, me, in_plan)
    card_needs(b, s, s.hand[me], in_plan, want, needs)
    return needs_turns(b, s, me, n_routes, want, needs)


@kernel
def needs_turns(b, s, me, n_routes, want, needs):
    """:func:`plan_turns` of a plan with ``n_routes`` routes to claim whose
    :func:`card_needs` (with the seat's hand) are ``want`` and ``needs``
    already: without finding them again."""
    if needs[NEED_SHORT] == 0:
        return float(n_routes)
    tot = unseen_total(b, s, me)
    useful = 0.0
    for k in range(LOCO + 1):
        if want[k] > 0:
            useful += unseen_kind(b, s, me, k)
    rate = useful / tot if tot > 0 else 1.0
    return n_routes + needs[NEED_SHORT] / (2.0 * max(rate, 0.25))


@kernel
def current_plan(b, s, m, me, params, cost, rows):
    """The seat's plan into ``rows.in_plan`` (``rows``: :func:`decision_rows`'
    :data:`PlanRows`): the remembered one while it stays valid
    (the same unfinished tickets, tickets held, passengers collected and hand
    above or below ``hoard_cards``; every route still its own or claimable; its
    trains enough), else a new one, giving up tickets it cannot make in trains
    or (probably) in time."""
    R = b.route_len.shape[0]
    N = b.n_nodes
    T = b.ticket_a.shape[0]
    in_plan, want, needs = rows.in_plan, rows.want, rows.needs
    hand = hand_size(s, me)
    ints, floats = borrowed(m.ints), borrowed(m.floats)     # the work rows, uncounted
    tks = ints[WI_TICKETS]
    n_held = 0
    for t in range(T):
        n_held += s.ticket_holder[t] == me
    sm = borrowed(m.numbers)
    listed = False
    if sm[me, SM_OWN_TRAINS] == s.trains[me] and sm[me, SM_OWN_TICKETS] == n_held + 1:
        nt = sm[me, SM_UNFINISHED]      # its routes and tickets are the same: so is what is unfinished
    else:
        parent = ints[WI_PARENT, :N]
        own_components(b, s, me, parent)
        nt = unfinished_tickets(b, s, me, parent, tks)
        listed = True
        sm[me, SM_OWN_TRAINS] = s.trains[me]
        sm[me, SM_OWN_TICKETS] = n_held + 1
        sm[me, SM_UNFINISHED] = nt
    key = ints[WI_KEY, :N_PLAN_KEY]
    plan_key(b, s, me, nt, 1 if hand > params[me, P_HOARD_CARDS] else 0, key)
    if (recall_plan(m, me, key, in_plan) and plan_open(cost, in_plan)
            and plan_trains(b, s, me, in_plan)[0] <= s.trains[me]):
        return
    if not listed:
        parent = ints[WI_PARENT, :N]
        own_components(b, s, me, parent)
        unfinished_tickets(b, s, me, parent, tks)
    pcost = floats[WF_PCOST, :R]
    search_costs(b, s, me, params, cost, pcost, rows.cscore, floats[WF_UNSEEN, :LOCO + 1])
    nt = keep_reachable(b, cost, tks, nt, ints[WI_PARENT, :N])
    w = plan_rows_work(b, m, rows)
    t_left = turns_left(b, s, me, params[me, P_PLAY_PACE]) if params[me, P_PLAY_PACE] > 0 else BIG
    make_plan(b, s, me, tks, nt, pcost, in_plan, w)
    while nt > 0:
        need_t, _ = plan_trains(b, s, me, in_plan)
        if need_t <= s.trains[me] and t_left >= BIG:
            break
        turns = plan_turns(b, s, me, in_plan, want, needs)
        if need_t <= s.trains[me] and turns <= t_left:
            break
        best_i = 0
        best_v = -BIG
        for i in range(nt):                 # drop the ticket saving most per point at stake
            t = tks[i]
            tks[i] = tks[nt - 1]
            tks[nt - 1] = t
            make_plan(b, s, me, tks, nt - 1, pcost, in_plan, w)
            nt2, _ = plan_trains(b, s, me, in_plan)
            turns2 = plan_turns(b, s, me, in_plan, want, needs)
            v = ((need_t - nt2) + 2.0 * (turns - turns2)) / max(1, ticket_stake(b, t))
            tks[nt - 1] = tks[i]
            tks[i] = t
            if v > best_v:
                best_v = v
                best_i = i
        t = tks[best_i]
        tks[best_i] = tks[nt - 1]
        tks[nt - 1] = t
        nt -= 1
        make_plan(b, s, me, tks, nt, pcost, in_plan, w)
    remember_plan(m, me, key, in_plan)


@kernel
def free_target(b, s, me, cost, in_plan, cscore, pw, passengers):
    """With no plan: mark in ``in_plan`` the route worth collecting cards for,
    the best (points + passenger value) per turn it still needs."""
    locos = s.hand[me, LOCO]
    best = -1
    best_v = -BIG
    for r in range(in_plan.shape[0]):
        in_plan[r] = False
        if cost[r] <= 0:
            continue
        col = b.route_colour[r]
        if col == GRAY:
            h = 0
            for c in range(N_COLOURS):
                h = max(h, s.hand[me, c])
        else:
            h = s.hand[me, col]
        missing = max(0, b.route_len[r] - h - locos)
        v = float(b.route_points[r])
        if passengers:
            v += pw * route_pass_value(b, s, r, cscore)
        v = v / (1.0 + missing / 2.0)
        if v > best_v:
            best_v = v
            best = r
    if best >= 0:
        in_plan[best] = True
