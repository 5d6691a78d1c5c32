"""The planner's ticket choices: the Germany short/long mix, which offered
tickets to keep (every legal keep set planned with the tickets it holds; see
the module doc of :mod:`ttrsim.strategies.planner`) and, with ``ticket_ev``,
whether a ticket draw pays.

Ticket values (``ticket_ev`` = 1)
---------------------------------
A held or offered ticket is completed with probability
``p = 1 / (1 + exp(-z))``, ``z = tk_p0 + tk_p_slack x slack + tk_p_len x
remaining + tk_p_turn x own turns played``: *slack* is the turns the game
probably has left beyond what the plan needs (``tk_left_factor x`` the pace
estimate of turns left ``- tk_turns_factor x`` the plan's card-and-claim turn
count), *remaining* the trains the ticket still needs on its own (own routes
free). The weights are a logistic fit on 16,757 tickets kept in play in
4-player USA planner games (calibrated: predicted 0.1-0.2, 0.3, 0.5, 0.7, 0.85,
0.96 against 0.12, 0.31, 0.50, 0.70, 0.85, 0.96 completed). A ticket is worth
``p x points - (1 - p) x penalty`` (what it scores if completed, less what it
loses if not, both under the rules: R6.3, :func:`ticket_ev`) less
``tk_train_cost`` per train it adds to the plan.

* Keeping tickets drawn in play: each legal keep set is planned with the held
  unfinished tickets, and scores the sum of every such ticket's value at the
  slack that plan leaves, less ``tk_train_cost`` per train of the plan; the
  best set is kept (the classic rule is kept at setup).
* Drawing tickets: each ticket the seat does not hold (in the pile the draw
  takes from) is valued alone, with its extension the trains from its ends to
  the seat's network (own and planned routes); the expected best keep of a
  random offer (the offered tickets worth more than nothing, else the least
  bad one) is computed exactly over all offers (:func:`expected_best_keep`).
  The draw's value in margin points is ``draw_value0 + draw_value_slack x
  slack + draw_value_ev x that expectation`` (a linear fit of the score-margin
  difference between drawing and the planner's own move, both played out with
  the same future, on 51,865 forked decisions of 4-player USA planner games);
  the seat draws when it is positive and the game is not near its end.
* The bonuses a ticket moves, from the rules and the public position (both
  on by default: ``tk_globe`` and ``tk_longest`` are multipliers, 1; 0 in
  ``planner_classic``). The Globetrotter (R6.6, :func:`globe_points`): the
  bonus x the chance that the seat's expected completed tickets (those done
  + each kept ticket's ``p``; at setup ``tk_globe_rate`` per kept ticket)
  are the most, against ``tk_globe_rate x`` each opponent's tickets held
  (:func:`globe_field`, :func:`most_chance`); a ticket in a draw counts the
  rise it gives. The longest path (R6.5, :func:`longest_per_train`): the
  bonus x the rise in the chance of the longest that one more train gives,
  each seat's path its public path + ``tk_longest_grow x`` its trains left,
  per train of the plan the seat can still lay (keeps and draws). A rule
  set without the bonus, or with it at 0 points, adds nothing.
"""
import numpy as np

from ttrsim.core.actions import A_KEEP, A_PASSENGER
from ttrsim.core.board import RP_DRAW_KEEP, RP_DRAW_N, RP_GLOBE_PTS, RP_LP_PTS, RP_PASSENGERS, RP_SETUP_KEEP
from ttrsim.core.scoring import player_longest, ticket_stake
from ttrsim.core.state import M_NPLAYERS, M_PHASE, M_TURN, PH_KEEP, PH_MAIN, PH_SETUP_MIX
from ttrsim.data.ids import LOCO
from ttrsim.jit import kernel
from ttrsim.jit.record import borrowed

from ..kit.action_picks import ticket_mix_action
from ..kit.connectivity import own_components, ticket_joined, unfinished_tickets
from ..kit.graph_search import (
    COST_TRAINS,
    D_INF,
    INF,
    all_pairs_distances,
    location_distance,
    location_to_routes,
)
from ..kit.memory import COST_KEY, WF_PCOST, WF_UNSEEN, WI_PARENT, WI_TICKETS, seat_costs
from ..kit.network_plans import extend_forest
from .params import (
    P_DRAW_LONG,
    P_DRAW_LONG_TRAINS,
    P_DRAW_VALUE0,
    P_DRAW_VALUE_EV,
    P_DRAW_VALUE_SLACK,
    P_KEEP_MARGIN,
    P_PACE,
    P_SETUP_LONG,
    P_TICKET_EV,
    P_TK_GLOBE,
    P_TK_GLOBE_RATE,
    P_TK_GLOBE_SPREAD,
    P_TK_LEFT_FACTOR,
    P_TK_LONGEST,
    P_TK_LONGEST_GROW,
    P_TK_LONGEST_SPREAD,
    P_TK_P0,
    P_TK_P_LEN,
    P_TK_P_SLACK,
    P_TK_P_TURN,
    P_TK_TRAIN_COST,
    P_TK_TURNS_FACTOR,
    P_TK_TURNS_PER_TRAIN,
    P_TURN_VALUE,
)
from .passengers import BIG, colour_scores
from .plan import (
    SM_LONGEST,
    decision_rows,
    keep_reachable,
    order_tickets,
    plan_rows_work,
    plan_trains,
    plan_turns,
    search_costs,
    tree_or_forest,
    turns_left,
)


@kernel
def mix_choice(b, s, legal, n_legal, params, me):
    if s.meta[M_PHASE] == PH_SETUP_MIX:
        n_long = int(params[me, P_SETUP_LONG])
    else:
        n_long = int(params[me, P_DRAW_LONG]) if s.trains[me] >= params[me, P_DRAW_LONG_TRAINS] else 0
    return ticket_mix_action(b, s, legal, n_legal, n_long)


@kernel
def keep_choice(b, s, m, legal, n_legal, params, me):
    """Keep the legal ticket set that fits best (see the module doc); its
    arrays are the memory's work rows (:func:`~.plan.decision_rows`)."""
    R = b.route_len.shape[0]
    N = b.n_nodes
    cost = seat_costs(b, s, m, me, COST_TRAINS)
    rows = decision_rows(b, m)
    in_plan, want, needs, cscore = rows.in_plan, rows.want, rows.needs, rows.cscore
    if b.rp[RP_PASSENGERS] != 0:
        colour_scores(b, s, me, params, cscore)
    ints, floats = borrowed(m.ints), borrowed(m.floats)
    pcost = floats[WF_PCOST, :R]
    search_costs(b, s, me, params, cost, pcost, cscore, floats[WF_UNSEEN, :LOCO + 1])
    parent = ints[WI_PARENT, :N]
    own_components(b, s, me, parent)
    tks = ints[WI_TICKETS]
    nt = unfinished_tickets(b, s, me, parent, tks)
    n_held = keep_reachable(b, cost, tks, nt, parent)     # held tickets still reachable
    w = plan_rows_work(b, m, rows)
    budget = s.trains[me] - params[me, P_KEEP_MARGIN]
    t_left = turns_left(b, s, me, params[me, P_PACE])
    tv = params[me, P_TURN_VALUE]
    by_value = params[me, P_TICKET_EV] > 0 and s.meta[M_PHASE] == PH_KEEP
    D = np.empty((N, N) if by_value else (1, 1), np.int32)
    if by_value:
        all_pairs_distances(b, cost, D)
    own_turn = s.meta[M_TURN] / s.meta[M_NPLAYERS]
    others = np.empty(s.meta[M_NPLAYERS] - 1)
    n_done, _ = globe_field(b, s, params, me, others)
    per_train = longest_per_train(b, s, params, me, borrowed(m.numbers))
    n_off = s.offer_n[me]
    order, n_sets = keep_order(b, s, me, tks, n_held, legal, n_legal)
    # each set's forest goes on from the longest first part it shares with the set before it
    # (the states after each ticket are kept: ``stack_*``; the same networks as make_plan's)
    nc = n_held + n_off
    cost_work, ta, tb = w.net.cost_work, w.ta, w.tb
    stack_cost, stack_plan = np.empty((nc + 1, R)), np.empty((nc + 1, R), np.bool_)
    stack_total, stack_missed = np.zeros(nc + 1), np.zeros(nc + 1, np.int64)
    stack_cost[0, :] = pcost
    stack_plan[0, :] = False
    prev_a, prev_b = np.empty(nc, np.int64), np.empty(nc, np.int64)
    n_prev = 0
    vals = np.empty(n_legal)
    for q in range(n_sets):
        i = order[q]
        mask = legal[i] - A_KEEP
        n = n_held                              # the set as make_plan is given it: held, then offered
        pts = 0.0
        for j in range(n_off):
            if (mask >> j) & 1:
                t = s.offer[me, j]
                tks[n] = t
                n += 1
                pts += b.ticket_points[t]
        order_tickets(b, tks, n, w)             # (make_plan's order: the forest's state depends on it alone)
        same = 0
        while same < min(n, n_prev) and ta[same] == prev_a[same] and tb[same] == prev_b[same]:
            same += 1
        cost_work[:] = stack_cost[same]
        in_plan[:] = stack_plan[same]
        total, missed = stack_total[same], stack_missed[same]
        for d in range(same, n):
            total, missed = extend_forest(b, cost_work, ta, tb, d, d + 1, in_plan, w.net, total, missed)
            stack_cost[d + 1, :] = cost_work
            stack_plan[d + 1, :] = in_plan
            stack_total[d + 1], stack_missed[d + 1] = total, missed
        prev_a[:n] = ta[:n]
        prev_b[:n] = tb[:n]
        n_prev = n
        miss = tree_or_forest(b, n, pcost, in_plan, w, total, missed)
        trains, _ = plan_trains(b, s, me, in_plan)
        turns = plan_turns(b, s, me, in_plan, want, needs)
        if by_value:
            slack = params[me, P_TK_LEFT_FACTOR] * t_left - params[me, P_TK_TURNS_FACTOR] * turns
            # (the longest path gains only from trains the seat has)
            v = (per_train * min(trains, s.trains[me]) - params[me, P_TK_TRAIN_COST] * trains
                 - (2 * BIG if miss > 0 else 0.0))
            count = float(n_done)
            for j in range(n):
                t = tks[j]
                rem = location_distance(b, D, b.ticket_a[t], b.ticket_b[t])
                p = 1.0 if rem <= 0 else completion_probability(params, me, slack, rem, own_turn)
                v += ticket_ev(b, t, p)
                count += p
            vals[i] = v + globe_points(b, params, me, count, others)
            continue
        over = trains - budget
        over = max(over, turns - t_left)
        if miss > 0:
            v = -2 * BIG - pts
        elif over > 0:
            v = -BIG - 10.0 * over - pts
        else:
            rpts = 0.0
            for r in range(R):
                if in_plan[r] and s.route_owner[r] < 0:
                    rpts += b.route_points[r]
            v = (pts + rpts - tv * turns + per_train * trains
                 + globe_points(b, params, me, n_done + params[me, P_TK_GLOBE_RATE] * n, others))
        vals[i] = v
    best_a = -1
    best_v = -BIG
    for i in range(n_legal):                    # the first best in the legal order
        a = legal[i]
        if A_KEEP <= a < A_PASSENGER and vals[i] > best_v:
            best_v = vals[i]
            best_a = a
    return best_a


@kernel
def keep_order(b, s, me, tks, n_held, legal, n_legal):
    """The order :func:`keep_choice` plans the keep sets of ``legal[:n_legal]``
    in, and its candidates' ranks: ``(order, n_sets)``, ``order[:n_sets]``
    the legal indices of the keep sets, ``order[n_sets:]`` the candidates
    (0 to ``n_held - 1`` the held tickets ``tks[:n_held]``, then the offered
    ones) most at stake first, ties in that order (as :func:`make_plan`
    orders a set's tickets). The sets come in the lexicographic order of
    their tickets by that rank, a set before its own first parts, so that
    each shares the longest first part of its forest with the one before it
    (the order decides only how much is shared: each set's plan is
    :func:`make_plan`'s)."""
    n_off = s.offer_n[me]
    nc = n_held + n_off
    order = np.empty(n_legal + nc, np.int64)
    stake = np.empty(nc)
    for c in range(nc):
        stake[c] = ticket_stake(b, tks[c] if c < n_held else s.offer[me, c - n_held])
    n_sets = 0
    for i in range(n_legal):
        if A_KEEP <= legal[i] < A_PASSENGER:
            n_sets += 1
    rank = order[n_sets:]
    used = np.zeros(nc, np.bool_)
    for k in range(nc):                         # a stable sort by stake, most first
        best = -1
        for c in range(nc):
            if not used[c] and (best < 0 or stake[c] > stake[best]):
                best = c
        used[best] = True
        rank[k] = best
    key = np.zeros(n_legal, np.int64)           # the offered tickets kept, as bits from the first in rank
    bit = n_off
    for k in range(nc):
        if rank[k] >= n_held:
            bit -= 1
            for i in range(n_legal):
                if (legal[i] - A_KEEP) >> (rank[k] - n_held) & 1:
                    key[i] |= 1 << bit
    n = 0
    for i in range(n_legal):                    # by key, highest first (a set before its first parts)
        if A_KEEP <= legal[i] < A_PASSENGER:
            j = n
            while j > 0 and key[order[j - 1]] < key[i]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
            n += 1
    return order, n_sets


@kernel
def completion_probability(params, me, slack, remaining, own_turn):
    """The probability a kept ticket is completed (the logistic fit of the
    module doc); ``remaining`` INF (no path) gives 0."""
    if remaining >= INF:
        return 0.0
    z = (params[me, P_TK_P0] + params[me, P_TK_P_SLACK] * slack + params[me, P_TK_P_LEN] * min(remaining, 30.0)
         + params[me, P_TK_P_TURN] * own_turn)
    return 1.0 / (1.0 + np.exp(-z))


@kernel
def ticket_ev(b, t, p):
    """The points ticket ``t`` brings when completed with probability ``p``
    (R6.3): ``p x points - (1 - p) x penalty``, written as ``(2p - 1) x
    penalty + p x (points - penalty)``, so that at the printed values it is
    ``(2p - 1) x points`` to the last bit."""
    return (2.0 * p - 1.0) * b.ticket_penalty[t] + p * (b.ticket_points[t] - b.ticket_penalty[t])


@kernel
def most_chance(c, others, spread):
    """The chance that a seat's count ``c`` is at least each of ``others``
    (ties count: R6.5 and R6.6 award every seat with the most), each
    difference a logistic of ``spread``.

    >>> import numpy as np
    >>> round(most_chance(2.0, np.array([2.0, 1.0]), 1.0), 3)
    0.65
    """
    pr = 1.0
    for x in others:
        pr *= 1.0 / (1.0 + np.exp(-1.7 * (c - x + 0.5) / spread))
    return pr


@kernel
def globe_field(b, s, params, me, others):
    """The Globetrotter (R6.6) as ``me`` can see it: fills ``others`` (one
    per opponent) with each opponent's expected completed tickets,
    ``tk_globe_rate x`` the tickets it holds (an open offer counts its least
    keep: the others' tickets are hidden); returns ``me``'s completed
    tickets and its unfinished ones."""
    n = s.meta[M_NPLAYERS]
    held = np.zeros(n)
    parent = np.empty(b.n_nodes, np.int64)
    own_components(b, s, me, parent)
    done = 0
    for t in range(s.ticket_holder.shape[0]):
        h = s.ticket_holder[t]
        if h == me and ticket_joined(b, parent, t):
            done += 1
        elif h >= 0:
            held[h] += 1
    least = b.rp[RP_SETUP_KEEP] if s.meta[M_PHASE] < PH_MAIN else b.rp[RP_DRAW_KEEP]
    k = 0
    for q in range(n):
        if q != me:
            others[k] = params[me, P_TK_GLOBE_RATE] * (held[q] + (min(least, s.offer_n[q]) if s.offer_n[q] > 0
                                                                   else 0))
            k += 1
    return done, held[me]


@kernel
def globe_points(b, params, me, count, others):
    """The Globetrotter's points (R6.6) ``me`` expects with ``count``
    completed tickets expected: ``tk_globe x`` the bonus x the chance of the
    most (:func:`most_chance`, spread ``tk_globe_spread``); 0 without it."""
    if b.rp[RP_GLOBE_PTS] <= 0 or params[me, P_TK_GLOBE] == 0:
        return 0.0
    return params[me, P_TK_GLOBE] * b.rp[RP_GLOBE_PTS] * most_chance(count, others,
                                                                      params[me, P_TK_GLOBE_SPREAD])


@kernel
def seat_longest(b, s, q, me, numbers):
    """Seat ``q``'s longest path (R6.5, ``player_longest``), remembered in
    ``me``'s ``numbers`` (``numbers[me, SM_LONGEST + q]``, see
    :mod:`~ttrsim.strategies.planner.plan`) while ``q``'s trains are the same
    (only its claims change its routes, and each takes trains); ``numbers``
    None: found every time."""
    if numbers is None or SM_LONGEST + q >= COST_KEY:
        return player_longest(b, s, q)
    key = s.trains[q] + 1
    kept = numbers[me, SM_LONGEST + q]
    if kept >> 16 == key:
        return kept & 0xFFFF
    n = player_longest(b, s, q)
    numbers[me, SM_LONGEST + q] = (key << 16) | n
    return n


@kernel
def longest_per_train(b, s, params, me, numbers=None):
    """The longest-path bonus (R6.5) one more train of ``me``'s path moves,
    in points: ``tk_longest x`` the bonus x the rise in the chance of the
    longest (:func:`most_chance`) from one train more, each seat's path
    projected as its public path + ``tk_longest_grow x`` the trains it still
    holds, the spread ``2 + tk_longest_spread x`` the trains the seats still
    hold on average (the paths still grow). 0 without the bonus. With
    ``numbers`` (the memory's) the paths are remembered (:func:`seat_longest`)."""
    if b.rp[RP_LP_PTS] <= 0 or params[me, P_TK_LONGEST] == 0:
        return 0.0
    n = s.meta[M_NPLAYERS]
    grow = params[me, P_TK_LONGEST_GROW]
    others = np.empty(n - 1)
    k = 0
    held = 0.0
    for q in range(n):
        held += s.trains[q]
        if q != me:
            others[k] = seat_longest(b, s, q, me, numbers) + grow * s.trains[q]
            k += 1
    spread = 2.0 + params[me, P_TK_LONGEST_SPREAD] * held / n
    mine = seat_longest(b, s, me, me, numbers) + grow * s.trains[me]
    rise = most_chance(mine + 1.0, others, spread) - most_chance(mine, others, spread)
    return params[me, P_TK_LONGEST] * b.rp[RP_LP_PTS] * rise


@kernel
def comb(n, k):
    """The binomial coefficient C(n, k) as a float (0 outside 0 <= k <= n)."""
    if k < 0 or k > n:
        return 0.0
    c = 1.0
    for j in range(k):
        c = c * (n - j) / (j + 1)
    return c


@kernel
def expected_best_keep(values, k):
    """The expected value of the best keep (every offered ticket worth more
    than 0, else the single best one) of a uniformly random ``k``-ticket offer
    from ``values``, exactly: ``k / n`` of the positive values, plus each
    value ``v_i <= 0`` (``i`` its rank, best first) times the chance that it is
    the best of an offer with nothing positive, ``C(n - 1 - i, k - 1) / C(n, k)``.

    >>> import numpy as np
    >>> round(expected_best_keep(np.array([4.0, -1.0, -3.0]), 2), 6)      # offers {4,-1}, {4,-3}, {-1,-3}
    2.333333
    """
    n = values.shape[0]
    k = min(k, n)
    if n == 0 or k == 0:
        return 0.0
    v = np.sort(values)[::-1]
    total = comb(n, k)
    e = 0.0
    for i in range(n):
        if v[i] > 0:
            e += v[i] * k / n
        else:
            e += v[i] * comb(n - 1 - i, k - 1) / total
    return e


@kernel
def distance_to_network(b, s, me, cost, in_plan, D, dist):
    """``dist[v]``: the cheapest path over ``cost`` from node ``v`` to an end
    of a route of the seat's network (its own routes and ``in_plan``'s), and
    ``D`` all pairs' (:func:`all_pairs_distances`); False (both untouched)
    when the network is empty. The nearest end by ``D``: the distances
    :func:`distance_to_routes` finds, exactly (whole train counts), without
    its search."""
    ra, rb = b.route_a, b.route_b
    N = b.n_nodes
    end = np.zeros(N, np.bool_)
    any_route = False
    for r in range(in_plan.shape[0]):
        if in_plan[r] or s.route_owner[r] == me:
            end[ra[r]] = True
            end[rb[r]] = True
            any_route = True
    if not any_route:
        return False
    all_pairs_distances(b, cost, D)
    dist[:] = INF
    for u in range(N):
        if end[u]:
            for v in range(N):
                if D[u, v] < D_INF:
                    dist[v] = min(dist[v], D[u, v])
    return True


@kernel
def draw_value(b, s, me, params, plan, slack):
    """The value (margin points, see the module doc) of drawing tickets now
    from the first pile, given the decision's plan ``plan`` (a
    :data:`~.plan.MainPlan`: its search costs, routes and search labels) and
    ``slack`` turns of it; ``-BIG`` without a network to extend."""
    cost, in_plan, dist = plan.cost, plan.in_plan, plan.dist
    D = np.empty((b.n_nodes, b.n_nodes), np.int32)
    if not distance_to_network(b, s, me, cost, in_plan, D, dist):
        return -BIG
    own_turn = s.meta[M_TURN] / s.meta[M_NPLAYERS]
    others = np.empty(s.meta[M_NPLAYERS] - 1)
    n_done, unfinished = globe_field(b, s, params, me, others)
    count = n_done + params[me, P_TK_GLOBE_RATE] * unfinished
    globe0 = globe_points(b, params, me, count, others)
    per_train = longest_per_train(b, s, params, me, plan.numbers)
    T = b.ticket_a.shape[0]
    vals = np.empty(T)
    n = 0
    for t in range(T):
        if b.ticket_deck[t] == 0 and s.ticket_holder[t] != me:
            la = b.ticket_a[t]
            lb = b.ticket_b[t]
            rem = location_distance(b, D, la, lb)
            ext = min(rem, location_to_routes(b, dist, la) + location_to_routes(b, dist, lb))
            if rem <= 0:
                vals[n] = b.ticket_points[t] + globe_points(b, params, me, count + 1.0, others) - globe0
            else:
                sl = slack - ext * params[me, P_TK_TURNS_PER_TRAIN] * params[me, P_TK_TURNS_FACTOR]
                p = completion_probability(params, me, sl, rem, own_turn)
                vals[n] = (ticket_ev(b, t, p) + globe_points(b, params, me, count + p, others)
                           - globe0 + (per_train - params[me, P_TK_TRAIN_COST]) * min(ext, 45.0))
            n += 1
    k = min(b.rp[RP_DRAW_N], s.tk_len[0])
    if n == 0 or k == 0:
        return -BIG
    ev = expected_best_keep(vals[:n], k)
    return (params[me, P_DRAW_VALUE0] + params[me, P_DRAW_VALUE_SLACK] * slack
            + params[me, P_DRAW_VALUE_EV] * min(ev, 20.0))
