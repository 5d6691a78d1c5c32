"""The planner's ticket choices: the Germany short/long mix and which offered
tickets to keep (every legal keep set planned with the tickets it holds; see
the module doc of :mod:`ttrsim.strategies.planner`).
"""
import numpy as np
from numba import njit

from ttrsim.core.actions import A_KEEP, A_PASSENGER
from ttrsim.core.board import RP_PASSENGERS
from ttrsim.core.state import M_PHASE, PH_SETUP_MIX
from ttrsim.data.ids import N_COLOURS, N_PASSENGER_COLOURS

from .action_picks import ticket_mix_action
from .connectivity import own_components, unfinished_tickets
from .graph_search import COST_TRAINS, route_cost_for
from .planner_params import P_DRAW_LONG, P_DRAW_LONG_TRAINS, P_KEEP_MARGIN, P_PACE, P_SETUP_LONG, P_TURN_VALUE
from .planner_passengers import BIG, colour_scores
from .planner_plan import keep_reachable, make_plan, needs_array, plan_trains, plan_turns, search_costs, turns_left


@njit(cache=True)
def mix_choice(b, s, legal, n_legal, params, me):
    if s.meta[M_PHASE] == PH_SETUP_MIX:
        n_long = int(params[me, P_SETUP_LONG])
    else:
        n_long = int(params[me, P_DRAW_LONG]) if s.trains[me] >= params[me, P_DRAW_LONG_TRAINS] else 0
    return ticket_mix_action(b, s, legal, n_legal, n_long)


@njit(cache=True)
def keep_choice(b, s, legal, n_legal, params, me):
    """Keep the legal ticket set that fits best (see the module doc)."""
    R = b.route_len.shape[0]
    N = b.n_nodes
    T = b.ticket_a.shape[0]
    cost = np.empty(R)
    route_cost_for(b, s, me, COST_TRAINS, cost)
    cscore = np.zeros(N_PASSENGER_COLOURS)
    if b.rp[RP_PASSENGERS] != 0:
        colour_scores(b, s, me, params, cscore)
    pcost = np.empty(R)
    search_costs(b, s, me, params, cost, pcost, cscore)
    parent = np.empty(N, np.int64)
    own_components(b, s, me, parent)
    tks = np.empty(T + 8, np.int64)
    nt = unfinished_tickets(b, s, me, parent, tks)
    n_held = keep_reachable(b, cost, tks, nt)     # held tickets still reachable
    in_plan = np.zeros(R, np.bool_)
    tmp_plan = np.zeros(R, np.bool_)
    ta = np.empty(T + 8, np.int64)
    tb = np.empty(T + 8, np.int64)
    locs = np.empty(2 * T + 16, np.int64)
    rw = np.empty(R, np.int64)
    dist = np.empty(N)
    prev = np.empty(N, np.int64)
    done = np.empty(N, np.bool_)
    want = np.zeros(N_COLOURS + 1)
    needs = needs_array(b)
    make_plan(b, s, me, tks, n_held, pcost, in_plan, tmp_plan, ta, tb, locs, rw, dist, prev, done)
    budget = s.trains[me] - params[me, P_KEEP_MARGIN]
    t_left = turns_left(b, s, me, params[me, P_PACE])
    tv = params[me, P_TURN_VALUE]
    n_off = s.offer_n[me]
    best_a = -1
    best_v = -BIG
    for i in range(n_legal):
        a = legal[i]
        if a < A_KEEP or a >= A_PASSENGER:
            continue
        mask = a - A_KEEP
        n = n_held
        pts = 0.0
        for j in range(n_off):
            if (mask >> j) & 1:
                t = s.offer[me, j]
                tks[n] = t
                n += 1
                pts += b.ticket_points[t]
        miss = make_plan(b, s, me, tks, n, pcost, in_plan, tmp_plan, ta, tb, locs, rw, dist, prev, done)
        trains, _ = plan_trains(b, s, me, in_plan)
        turns = plan_turns(b, s, me, in_plan, want, needs)
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
            v = pts + rpts - tv * turns
        if v > best_v:
            best_v = v
            best_a = a
    return best_a
