"""``planner``: ttrsim's own strong heuristic (issue 3, item 3), and
``passenger_hunter``: the same kernel with a passenger-majority parameter set
(issue 3, item 4).

The plan
--------
The *plan* is an approximate minimum Steiner network joining the endpoints of
the seat's unfinished tickets over its own routes (cost 0) and the routes it
may still claim (other players' routes, tracks closed by R4.5 and routes
longer than its trains left are impassable). Two heuristics from
:mod:`ttrsim.strategies.paths` run and the cheaper network is kept: the Steiner-tree
heuristic over all endpoints (:func:`~ttrsim.strategies.paths.plan_network`) and the
Steiner-forest one joining ticket by ticket, most valuable first
(:func:`~ttrsim.strategies.paths.plan_tickets`).

Search costs are not plain trains: a claimable route costs ``length +
claim_turn_cost - points_weight x route points + card_weight x cards it still
misses with the hand held now`` (at least a fifth of its length). Long routes
score more per train and take fewer claiming turns, so plans lean on them; a
route the hand can already pay is a little cheaper, and more so once the hand
holds more than ``hoard_cards`` cards (``hoard_weight`` per extra card): a big
hand means the plan waits for colours that do not come, and the search then
steers towards routes it can pay. In Germany a route's cost is also lowered by
``pass_path`` per point of passenger-majority value at its ends. Budgets
always count real trains.

The plan is remembered between the seat's decisions (in its row of
``GameState.smem``) and made again only when it may have changed: a ticket
was completed or added, passengers were collected, the hand crossed
``hoard_cards``, a route of the plan was taken or closed by another seat, or
the plan needs more trains than the seat has. Claims elsewhere on the board
and single card draws keep it (the search costs' small hand terms are those of
the hand the plan was made with). The memory also keeps each claim
candidate's detour with the routes of its path, reused while none of them is
taken and the seat's trains are the same (:func:`route_detour`: exact), and
the number of unfinished tickets while its trains and tickets are the same.

Tickets no path can reach any more are given up. While the plan needs more
trains than the seat has (or, with ``play_pace`` > 0, more turns than the game
probably has left) the ticket whose removal saves the most per point it is
worth is given up too.

Turns left are estimated from public counts: every other seat is assumed to
lay ``pace`` trains a turn (or its average so far, if higher) until it
triggers the end (R6.1), plus the last round. A plan needs about ``routes to
claim + missing cards / (2 x share of useful cards among those it cannot
see)`` turns.

Decisions
---------
* Tickets (setup and later draws): every legal keep set is planned together
  with the held unfinished tickets; a set *fits* if its plan needs at most
  ``trains - keep_margin`` trains, reaches every ticket and fits the turns
  left. Among fitting sets it keeps the best ``ticket points + route points
  of the plan - turn_value x turns the plan needs`` (a set overlapping what it
  holds adds few turns); if none fits, the set that overshoots least, then
  with the fewest points at risk.
* Germany short/long mix: ``setup_long`` long tickets at setup, ``draw_long``
  in play when it has at least ``draw_long_trains`` trains (else none).
* Claims: of the plan's routes it can pay now it picks the one most at risk:
  ``w_detour`` per train the plan loses if the route goes (the detour between
  its ends with all its tracks closed, capped at ``detour_cap``) plus
  ``w_adjacent`` per other player's route touching its ends, scaled by
  ``double_factor`` when a parallel track stays open to others; plus
  ``w_single`` for a route with no open parallel track, ``w_long`` per train
  of length, and the passenger value of its ends (Germany, weight
  ``pass_weight``). It claims it unless (not near the end) ``draw_over_claim``
  x the value of this turn's best draw beats that priority less ``loco_pay``
  per card the payment takes from the rest of the plan: it does not burn
  locomotives or colours another planned route needs on a route that can
  wait. In Germany an off-plan route is claimed for its passengers when its
  weighted passenger value reaches ``pass_offplan`` and the plan keeps its
  trains plus ``keep_margin``.
* Payment: among the legal payments of the chosen route, the lowest
  ``loco_pay x locomotives + cards of colours the rest of the plan lacks
  afterwards``: the fewest locomotives, a gray route in the colour the rest of
  the plan needs least (then the colour with the smaller surplus left,
  keeping big stacks for other gray routes).
* Cards: a colour is worth one card if the plan lacks it (up to half a card
  more the closer it brings a route to payable; 0.6 for starting a stack for a
  gray route); a blind card is worth the share of useful cards among those it
  cannot see (deck and other hands). It takes the best face-up card worth at
  least a blind draw, else blind; a face-up locomotive (first draw only) only
  when ``loco_value`` beats the best two other draws.
* More tickets: when the plan has at most ``draw_plan_left`` trains to claim,
  it has at least ``draw_min_trains`` trains, every other seat at least
  ``draw_min_opp``, it is not near the end and tickets remain.
* No plan and no ticket draw ("free" mode): it claims the best payable route
  of length at least ``free_min_len`` (route points plus passenger value),
  else collects cards for the route with the best points per turn it needs.
* Near the end (a seat at ``end_trains`` trains or fewer): plan routes are
  claimed as soon as payable; with none payable, an off-plan route paid only
  with cards the plan does not need (keeping the plan's trains plus
  ``spare_trains``) turns cards into points; in free mode any length counts.
  On its very last turn (R6.1 countdown) it claims the payable route worth
  most now: route points plus twice the points of tickets the claim completes
  (a ticket swings from minus to plus).
* Passengers (Germany): the colour whose next passenger improves its majority
  standing most: its own majority points gained (R6.7) minus ``deny`` times
  the average points the others lose, plus ``lookahead`` times the same for a
  second passenger when more of the colour remain on the board.

Fair play: it reads route owners, the face-up row, discard counts, public
train counts, collected passengers, passengers on the board, its own hand,
its own tickets and its own offer; never the deck, other hands or tickets.
The kernel is deterministic (no random draws).
"""
import numpy as np
from numba import njit

from ttrsim.core.actions import (A_BLIND, A_CLAIM, A_FACEUP, A_KEEP, A_PASSENGER, CLAIMS_PER_ROUTE, PAY_LOCOS_ONLY,
                                 decode_claim)
from ttrsim.core.board import (RP_END_TRAINS, RP_PASSENGERS, RP_PASS_FIRST, RP_PASS_SECOND, RP_PASS_ZERO,
                          RP_TRAINS)
from ttrsim.data.ids import GRAY, LOCO, N_COLOURS, N_PASSENGER_COLOURS
from ttrsim.core.engine import is_legal, locks_all_tracks, payments
from ttrsim.core.scoring import locations_joined, majority_points, uf_find
from ttrsim.core.state import (M_COUNTDOWN, M_NPLAYERS, M_PHASE, M_PLAYER, M_TURN, PH_DRAW2, PH_KEEP, PH_MAIN, PH_PASSENGER,
                          PH_SETUP_KEEP, PH_SETUP_MIX, ROUTE_SET_BITS, SMEM_EXTRA, SMEM_ROUTE_NUMBERS,
                          route_set_words)

from .paths import (COST_TRAINS, KEY_EXTRA, N_PLAN_KEY, SM_VALUE, fallback_action, has_action, other_end,
                              own_components, passable_components, path_end_within, payable_routes, plan_key, plan_network, plan_open,
                              plan_tickets, recall_plan, remember_plan, route_cost_for, ticket_mix_action,
                              unfinished_tickets)
from .spec import Param, StrategySpec

# (name, planner default, passenger_hunter default, doc); the row order is the params order
_TABLE = (
    ("keep_margin", 10.0, 8.0, "a ticket set fits if its plan needs at most trains left minus this"),
    ("turn_value", 3.5, 3.5, ("points a turn is worth elsewhere: a keep set is valued ticket points + its plan's "
                             "route points - this x turns the plan needs")),
    ("pace", 1.2, 1.2, "trains another seat is assumed to lay per turn at least (estimate of turns left)"),
    ("play_pace", 0.0, 0.0, ("the pace for giving up tickets in play that probably miss the end; 0 = never "
                            "(only tickets it has no trains for)")),
    ("draw_plan_left", 0.0, 0.0, "draw tickets only when the plan has at most this many trains to claim"),
    ("draw_min_trains", 20.0, 20.0, "draw tickets only with at least this many trains"),
    ("draw_min_opp", 22.0, 20.0, "draw tickets only while every other seat has at least this many trains"),
    ("end_trains", 6.0, 6.0, "near-end mode once some seat has at most this many trains"),
    ("w_detour", 1.0, 1.0, "claim priority per train of detour if the route is lost"),
    ("detour_cap", 12.0, 12.0, "detour counted at most (also for a route without any detour)"),
    ("w_adjacent", 2.0, 2.0, "claim priority per other player's route touching the route's ends"),
    ("double_factor", 0.35, 0.35, "risk scale when a parallel track stays open to the others"),
    ("w_single", 3.0, 3.0, "claim priority of a route with no open parallel track"),
    ("w_long", 0.2, 0.2, "claim priority per train of route length"),
    ("loco_value", 1.3, 1.3, "a face-up locomotive is taken if worth more than the best two other draws (cards)"),
    ("loco_pay", 8.0, 8.0, ("payment cost of one locomotive, in cards the rest of the plan lacks afterwards; "
                           "also the priority lost per card a claim takes from the rest of the plan")),
    ("draw_over_claim", 1.0, 1.0, ("draws instead of claiming a plan route when this x the draw's value (cards) "
                                  "beats the route's priority less loco_pay per card the payment takes from the "
                                  "rest of the plan (not near the end)")),
    ("spare_trains", 3.0, 3.0, "near the end, off-plan claims keep the plan's trains plus this many"),
    ("free_min_len", 3.0, 2.0, "with no plan, claim only routes at least this long (except near the end)"),
    ("claim_turn_cost", 1.0, 1.0, "plan search cost of a route: length + this (a claim takes a turn) ..."),
    ("card_weight", 0.1, 0.1, "... + this per card the route misses with the hand held now ..."),
    ("hoard_cards", 12.0, 12.0, "... + hoard_weight more per missing card and per card held above this ..."),
    ("hoard_weight", 0.1, 0.1, "... (a big hand steers the plan to routes it can pay) ..."),
    ("points_weight", 0.5, 0.5, "... - this x route points (long routes score more per train)"),
    ("pass_weight", 0.5, 2.0, "Germany: weight of passenger-majority value (points) in route choices"),
    ("pass_offplan", 12.0, 6.0, "Germany: claim an off-plan route when its weighted passenger value reaches this"),
    ("pass_path", 0.05, 0.2, "Germany: plan search cost lowered by this per point of passenger value"),
    ("setup_long", 1.0, 0.0, "Germany: long tickets in the setup deal (the rest short)"),
    ("draw_long", 1.0, 0.0, "Germany: long tickets in a later draw, with at least draw_long_trains trains"),
    ("draw_long_trains", 25.0, 30.0, "Germany: take long tickets in a draw only with this many trains"),
    ("deny", 1.0, 1.0, "passenger colour choice: weight of the others' majority points lost"),
    ("lookahead", 0.5, 0.7, "passenger colour choice: weight of a second passenger's gain"),
)
(P_KEEP_MARGIN, P_TURN_VALUE, P_PACE, P_PLAY_PACE, P_DRAW_PLAN_LEFT, P_DRAW_MIN_TRAINS, P_DRAW_MIN_OPP,
 P_END_TRAINS, P_W_DETOUR, P_DETOUR_CAP, P_W_ADJ, P_DOUBLE_FACTOR, P_W_SINGLE, P_W_LONG, P_LOCO_VALUE, P_LOCO_PAY,
 P_DRAW_OVER_CLAIM, P_SPARE_TRAINS, P_FREE_MIN_LEN, P_CLAIM_TURN, P_CARD_W, P_HOARD_CARDS, P_HOARD_W, P_POINTS_W,
 P_PASS_WEIGHT, P_PASS_OFFPLAN, P_PASS_PATH, P_SETUP_LONG, P_DRAW_LONG, P_DRAW_LONG_TRAINS, P_DENY,
 P_LOOKAHEAD) = range(len(_TABLE))

SPEC = StrategySpec(
    "planner",
    "ttrsim's planner: keeps tickets whose joint Steiner plan fits, claims the plan's most contested routes "
    "first, draws the colours it lacks, converts cards into points at the end; values passengers (Germany)",
    params=tuple(Param(name, d, doc) for name, d, _, doc in _TABLE),
    lists_claims=False,
)
PASSENGER_HUNTER_SPEC = StrategySpec(
    "passenger_hunter",
    "the planner kernel tuned for Germany passenger majorities: few tickets, plans through passenger cities, "
    "claims off-plan routes for passengers",
    params=tuple(Param(name, h, doc) for name, _, h, doc in _TABLE),
    lists_claims=False,
)

BIG = 1e9
# card_needs' outputs in its ``needs`` array (needs_array)
NEED_SHORT = 0                  # cards the plan misses after locomotives
NEED_COLOUR = 1                 # + colour: cards of that colour its coloured routes take
NEED_WORK = 1 + N_COLOURS       # scratch from here
# the strategy memory (GameState.smem) beside the plan (ttrsim.strategies.paths):
SM_OWN_TRAINS = SM_VALUE        # its trains and 1 + its tickets held when it last counted
SM_OWN_TICKETS = SM_VALUE + 1   # its unfinished tickets (they change only with its routes
SM_UNFINISHED = SM_VALUE + 2    # or tickets), and that count
# per-route numbers: number 0 is the plan flag, 1 and 2 the remembered detour
SM_DETOUR = 1                   # 0 unknown, 1 no path below the cap, 2 + the detour path's cost
SM_DETOUR_TRAINS = 2            # the seat's trains when that detour was found


# --- small helpers -------------------------------------------------------------------------------

@njit(cache=True)
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


@njit(cache=True)
def hand_size(s, me):
    n = 0
    for k in range(LOCO + 1):
        n += s.hand[me, k]
    return n


@njit(cache=True)
def min_trains_any(s):
    m = 1 << 30
    for q in range(s.meta[M_NPLAYERS]):
        m = min(m, s.trains[q])
    return m


@njit(cache=True)
def min_trains_others(s, me):
    m = 1 << 30
    for q in range(s.meta[M_NPLAYERS]):
        if q != me and s.trains[q] < m:
            m = s.trains[q]
    return m


@njit(cache=True)
def loc_in_comp(b, parent, loc, root):
    for i in range(b.loc_node_start[loc], b.loc_node_start[loc + 1]):
        if uf_find(parent, b.loc_nodes[i]) == root:
            return True
    return False


@njit(cache=True)
def keep_reachable(b, cost, tks, nt):
    """Compact ``tks[:nt]`` to the tickets a path over ``cost`` can still join;
    returns their count."""
    reach = np.empty(b.n_nodes, np.int64)
    passable_components(b, cost, reach)
    n = 0
    for i in range(nt):
        t = tks[i]
        if locations_joined(b, reach, b.ticket_a[t], b.ticket_b[t]):
            tks[n] = t
            n += 1
    return n


@njit(cache=True)
def claim_completes(b, parent, t, r):
    """Whether claiming route ``r`` joins ticket ``t``'s ends in the own
    components ``parent`` (``t`` not complete yet)."""
    ru = uf_find(parent, b.route_a[r])
    rv = uf_find(parent, b.route_b[r])
    la = b.ticket_a[t]
    lb = b.ticket_b[t]
    return ((loc_in_comp(b, parent, la, ru) and loc_in_comp(b, parent, lb, rv))
            or (loc_in_comp(b, parent, la, rv) and loc_in_comp(b, parent, lb, ru)))


# --- passengers (Germany) ------------------------------------------------------------------------

@njit(cache=True)
def _majority_split(b, counts, me, out):
    """(my majority points, the others' summed points) for one colour."""
    majority_points(counts, b.rp[RP_PASS_FIRST], b.rp[RP_PASS_SECOND], b.rp[RP_PASS_ZERO] != 0, out)
    others = 0
    for q in range(counts.shape[0]):
        if q != me:
            others += out[q]
    return out[me], others


@njit(cache=True)
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


@njit(cache=True)
def loc_pass_value(s, loc, cscore):
    """The best colour score among passengers still waiting on ``loc`` (0 if none)."""
    best = 0.0
    for c in range(N_PASSENGER_COLOURS):
        if s.pass_loc[loc, c] > 0 and cscore[c] > best:
            best = cscore[c]
    return best


@njit(cache=True)
def route_pass_value(b, s, r, cscore):
    return loc_pass_value(s, b.route_loc_a[r], cscore) + loc_pass_value(s, b.route_loc_b[r], cscore)


@njit(cache=True)
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


@njit(cache=True)
def search_costs(b, s, me, params, cost, pcost, cscore):
    """Plan search costs: a claimable route costs its length plus
    ``claim_turn_cost`` plus ``card_weight`` per card it misses with the
    hand held now, minus ``points_weight`` x its points, minus
    ``pass_path`` x its passenger value (Germany), at least a fifth of its
    length; own routes 0, impassable -1 (as in ``cost``)."""
    ct = params[me, P_CLAIM_TURN]
    pw = params[me, P_POINTS_W]
    hand = hand_size(s, me)
    cw = params[me, P_CARD_W] + params[me, P_HOARD_W] * max(0.0, hand - params[me, P_HOARD_CARDS])
    pp = params[me, P_PASS_PATH] if b.rp[RP_PASSENGERS] != 0 else 0.0
    locos = s.hand[me, LOCO]
    top = 0
    for k in range(N_COLOURS):
        top = max(top, s.hand[me, k])
    for r in range(b.route_len.shape[0]):
        c = cost[r]
        if c > 0:
            length = b.route_len[r]
            col = b.route_colour[r]
            h = top if col == GRAY else s.hand[me, col]
            c = length + ct - pw * b.route_points[r] + cw * max(0, length - h - locos)
            if pp > 0:
                c -= pp * route_pass_value(b, s, r, cscore)
            c = max(c, 0.2 * length)
        pcost[r] = c


# --- plans ---------------------------------------------------------------------------------------

@njit(cache=True)
def plan_trains(b, s, me, in_plan):
    """(trains, routes) the plan ``in_plan`` still has to claim."""
    t = 0
    n = 0
    for r in range(in_plan.shape[0]):
        if in_plan[r] and s.route_owner[r] != me:
            t += b.route_len[r]
            n += 1
    return t, n


@njit(cache=True)
def make_plan(b, s, me, tks, nt, cost, in_plan, tmp_plan, ta, tb, locs, rw, dist, prev, done):
    """Plan a network for tickets ``tks[:nt]`` into ``in_plan``: the cheaper of
    the Steiner-tree and the Steiner-forest heuristics. Returns the number of
    tickets (forest) / locations (tree) it could not join (0 = all)."""
    if nt == 0:
        for r in range(in_plan.shape[0]):
            in_plan[r] = False
        return 0
    # most valuable ticket first (the forest heuristic joins in this order)
    used = 0
    for i in range(nt):
        best = -1
        for j in range(nt):
            if not (used >> j) & 1 and (best < 0 or b.ticket_points[tks[j]] > b.ticket_points[tks[best]]):
                best = j
        used |= 1 << best
        ta[i] = b.ticket_a[tks[best]]
        tb[i] = b.ticket_b[tks[best]]
        locs[2 * i] = ta[i]
        locs[2 * i + 1] = tb[i]
    c1, miss1 = plan_tickets(b, cost, ta, tb, nt, in_plan, rw, dist, prev, done)
    if nt == 1:
        return miss1
    c2, miss2 = plan_network(b, cost, locs, 2 * nt, tmp_plan, dist, prev, done)
    if (miss2 > 0) == (miss1 > 0) and c2 < c1 - 1e-9 or (miss2 == 0 and miss1 > 0):
        for r in range(in_plan.shape[0]):
            in_plan[r] = tmp_plan[r]
        return miss2
    return miss1


@njit(cache=True)
def needs_array(b):
    """The ``needs`` array of :func:`card_needs` for board ``b``."""
    return np.zeros(NEED_WORK + N_COLOURS + b.route_len.shape[0], np.int64)


@njit(cache=True)
def card_needs(b, s, hand, in_plan, want, needs):
    """Value of one more card of each colour for the routes the plan still
    claims with the cards ``hand`` (the seat's row of ``s.hand``, or a changed
    copy): ``want[c]`` (0 useless; 1 plus up to 0.5 the closer it brings a
    route to payable), ``want[LOCO]`` 1 if cards are missing at all. Into
    ``needs`` (:func:`needs_array`): ``needs[NEED_SHORT]`` the cards missing
    after locomotives, ``needs[NEED_COLOUR + c]`` the cards of colour ``c`` the
    plan's coloured routes take; the rest is scratch."""
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


@njit(cache=True)
def unseen_cards(b, s, me, out):
    """Cards of each kind seat ``me`` cannot see (the deck and the others'
    hands: all minus the discard pile, its hand and the face-up row) into
    ``out``; returns their total."""
    tot = 0.0
    for k in range(LOCO + 1):
        u = b.card_counts[k] - s.discard[k] - s.hand[me, k]
        for i in range(s.faceup.shape[0]):
            if s.faceup[i] == k:
                u -= 1
        u = max(u, 0)
        out[k] = u
        tot += u
    return tot


@njit(cache=True)
def plan_turns(b, s, me, in_plan, want, needs):
    """Turns the plan still needs: a claim per route plus the draws for the
    missing cards, two a turn, each useful as often as useful cards are among
    those it cannot see (at least a quarter: the face-up row helps)."""
    _, n_routes = plan_trains(b, s, me, in_plan)
    card_needs(b, s, s.hand[me], in_plan, want, needs)
    if needs[NEED_SHORT] == 0:
        return float(n_routes)
    unseen = np.empty(LOCO + 1)
    tot = unseen_cards(b, s, me, unseen)
    useful = 0.0
    for k in range(LOCO + 1):
        if want[k] > 0:
            useful += unseen[k]
    rate = useful / tot if tot > 0 else 1.0
    return n_routes + needs[NEED_SHORT] / (2.0 * max(rate, 0.25))


# --- ticket choice -------------------------------------------------------------------------------

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


# --- main phase and second card ------------------------------------------------------------------

@njit(cache=True)
def pay_choice(b, s, me, r, need, in_plan, loco_pay):
    """The payment of claimable route ``r`` costing least: ``loco_pay`` per
    locomotive plus the cards of colours the rest of the plan lacks afterwards;
    ties go to the colour with the smaller surplus left (then the first in
    action order)."""
    best = -1
    best_v = BIG
    length = b.route_len[r]
    own = b.route_colour[r] if in_plan[r] and b.route_colour[r] != GRAY else -1
    options = np.empty(CLAIMS_PER_ROUTE, np.int64)
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


@njit(cache=True)
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


@njit(cache=True)
def draw_choice(b, s, legal, n_legal, params, me, want, first_draw):
    """The best card draw by ``want`` (see the module doc): ``(action, value)``
    with the value of the whole turn's draw in cards; action -1 if no draw is
    legal."""
    # cards it cannot see: the deck and the others' hands
    unseen = np.empty(LOCO + 1)
    tot = unseen_cards(b, s, me, unseen)
    p_blind = 0.0
    if tot > 0:
        for k in range(LOCO + 1):
            p_blind += min(want[k], 1.0) * unseen[k] / tot
    blind_ok = has_action(legal, n_legal, A_BLIND)
    pb = p_blind if blind_ok else 0.0
    best_slot = -1
    best_v = -1.0
    second_v = -1.0
    loco_slot = -1
    for i in range(s.faceup.shape[0]):
        k = s.faceup[i]
        if k < 0 or not has_action(legal, n_legal, A_FACEUP + i):
            continue
        if k == LOCO:
            loco_slot = i
            continue
        v = want[k]
        if v > best_v:
            second_v = best_v
            best_v = v
            best_slot = i
        elif v > second_v:
            second_v = v
    first = max(best_v, pb)
    pair = first + (max(second_v, pb) if first_draw else 0.0)
    if first_draw and loco_slot >= 0 and want[LOCO] > 0 and params[me, P_LOCO_VALUE] > pair:
        return A_FACEUP + loco_slot, params[me, P_LOCO_VALUE]
    if best_slot >= 0 and best_v > 0 and (best_v >= p_blind or not blind_ok):
        return A_FACEUP + best_slot, pair
    if blind_ok:
        return A_BLIND, pair
    if best_slot >= 0:
        return A_FACEUP + best_slot, pair
    if loco_slot >= 0:
        return A_FACEUP + loco_slot, 0.0
    return -1, 0.0


@njit(cache=True)
def blocked_routes(cost, out):
    """The set of routes with ``cost < 0`` (impassable) into ``out``
    (int64[route_set_words(R)], bit r % ROUTE_SET_BITS of word r // ROUTE_SET_BITS)."""
    for w in range(out.shape[0]):
        out[w] = 0
    for r in range(cost.shape[0]):
        if cost[r] < 0:
            out[r // ROUTE_SET_BITS] |= 1 << (r % ROUTE_SET_BITS)


@njit(cache=True)
def route_detour(b, s, me, r, cost, cap, blocked, dist, prev, done):
    """Trains a path between the ends of route ``r`` costs beyond the route if
    every track of its group is closed, at most ``cap`` (``cap`` when there is
    no such path; the search stops there). ``cost`` is the seat's
    ``route_cost_for(COST_TRAINS)`` and ``blocked`` its impassable routes
    (:func:`blocked_routes`).

    The result is remembered in the seat's strategy memory with the routes of
    the path found: while its trains are the same, no route got cheaper (only
    its own claims do that) and the search would find the same path cost as
    long as no route of that path was taken or closed; no path stays no path."""
    R = cost.shape[0]
    W = route_set_words(R)
    found = SMEM_EXTRA + SM_DETOUR * R + r
    trains_at = SMEM_EXTRA + SM_DETOUR_TRAINS * R + r
    words = SMEM_EXTRA + SMEM_ROUTE_NUMBERS * R + r * W
    length = b.route_len[r]
    sm = s.smem
    if sm[me, found] > 0 and sm[me, trains_at] == s.trains[me]:
        valid = True
        for w in range(W):
            if sm[me, words + w] & blocked[w] != 0:
                valid = False
        if valid:
            if sm[me, found] == 1:
                return cap
            return min(cap, float(sm[me, found] - 2 - length))
    g = b.route_group[r]
    width = b.group_routes.shape[1]
    saved = np.empty(width)
    for j in range(width):
        o = b.group_routes[g, j]
        if o >= 0:
            saved[j] = cost[o]
            cost[o] = -1.0
    v = path_end_within(b, cost, b.route_loc_a[r], b.route_loc_b[r], length + cap, dist, prev, done)
    for j in range(width):
        o = b.group_routes[g, j]
        if o >= 0:
            cost[o] = saved[j]
    for w in range(W):
        sm[me, words + w] = 0
    sm[me, trains_at] = s.trains[me]
    if v < 0:
        sm[me, found] = 1
        return cap
    d = dist[v]
    sm[me, found] = 2 + int(d)
    while prev[v] >= 0:
        x = prev[v]
        sm[me, words + x // ROUTE_SET_BITS] |= 1 << (x % ROUTE_SET_BITS)
        v = other_end(b, x, v)
    return min(cap, d - length)


@njit(cache=True)
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


@njit(cache=True)
def exposure_risk(b, me, r, detour, adj, open_par, params):
    """Claim priority of plan route ``r`` given its ``detour`` and
    :func:`route_exposure` (see the module doc); it grows with the detour when
    ``w_detour`` and ``double_factor`` are not negative, so ``detour =
    detour_cap`` gives an upper bound."""
    risk = params[me, P_W_DETOUR] * max(detour, 0.0) + params[me, P_W_ADJ] * adj
    if open_par:
        risk *= params[me, P_DOUBLE_FACTOR]
    else:
        risk += params[me, P_W_SINGLE]
    return risk + params[me, P_W_LONG] * b.route_len[r]


@njit(cache=True)
def claim_pick(b, s, me, params, payable, in_plan, need_trains, cost, cscore, passengers, dist, prev, done):
    """The payable route to claim (see the module doc: the plan's route most at
    risk, or an off-plan route for its passengers) and its priority; ``-1`` if
    none. The detour search runs only for routes whose priority with the
    largest detour could still beat the best found (same pick as searching
    every route)."""
    R = b.route_len.shape[0]
    pw = params[me, P_PASS_WEIGHT]
    cap = params[me, P_DETOUR_CAP]
    bounded = params[me, P_W_DETOUR] >= 0 and params[me, P_DOUBLE_FACTOR] >= 0
    cand = np.empty(R, np.int64)
    top = np.empty(R)                   # priority with the detour at its cap (exact for off-plan routes)
    cand_adj = np.empty(R, np.int64)    # and route_exposure of plan routes
    cand_par = np.empty(R, np.bool_)
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
    blocked = np.empty(route_set_words(R), np.int64)
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
            detour = route_detour(b, s, me, r, cost, cap, blocked, dist, prev, done)
            v = exposure_risk(b, me, r, detour, cand_adj[i], cand_par[i], params)
            if passengers:
                v += pw * route_pass_value(b, s, r, cscore)
        if v > best_v or (v == best_v and r < best_r):
            best_v = v
            best_r = r
    return best_r, best_v


@njit(cache=True)
def current_plan(b, s, me, params, cost, cscore, in_plan, dist, prev, done, want, needs):
    """The seat's plan into ``in_plan``: the remembered one while it stays valid
    (the same unfinished tickets, tickets held, passengers collected and hand
    above or below ``hoard_cards``; every route still its own or claimable; its
    trains enough), else a new one, giving up tickets it cannot make in trains
    or (probably) in time."""
    R = b.route_len.shape[0]
    N = b.n_nodes
    T = b.ticket_a.shape[0]
    hand = hand_size(s, me)
    tks = np.empty(T + 8, np.int64)
    n_held = 0
    for t in range(T):
        n_held += s.ticket_holder[t] == me
    sm = s.smem
    listed = False
    if sm[me, SM_OWN_TRAINS] == s.trains[me] and sm[me, SM_OWN_TICKETS] == n_held + 1:
        nt = sm[me, SM_UNFINISHED]      # its routes and tickets are the same: so is what is unfinished
    else:
        parent = np.empty(N, np.int64)
        own_components(b, s, me, parent)
        nt = unfinished_tickets(b, s, me, parent, tks)
        listed = True
        sm[me, SM_OWN_TRAINS] = s.trains[me]
        sm[me, SM_OWN_TICKETS] = n_held + 1
        sm[me, SM_UNFINISHED] = nt
    key = np.empty(N_PLAN_KEY, np.int64)
    plan_key(b, s, me, nt, 1 if hand > params[me, P_HOARD_CARDS] else 0, key)
    if (recall_plan(s, me, key, in_plan) and plan_open(cost, in_plan)
            and plan_trains(b, s, me, in_plan)[0] <= s.trains[me]):
        return
    if not listed:
        parent = np.empty(N, np.int64)
        own_components(b, s, me, parent)
        unfinished_tickets(b, s, me, parent, tks)
    pcost = np.empty(R)
    search_costs(b, s, me, params, cost, pcost, cscore)
    nt = keep_reachable(b, cost, tks, nt)
    tmp_plan = np.zeros(R, np.bool_)
    ta = np.empty(T + 8, np.int64)
    tb = np.empty(T + 8, np.int64)
    locs = np.empty(2 * T + 16, np.int64)
    rw = np.empty(R, np.int64)
    t_left = turns_left(b, s, me, params[me, P_PLAY_PACE]) if params[me, P_PLAY_PACE] > 0 else BIG
    make_plan(b, s, me, tks, nt, pcost, in_plan, tmp_plan, ta, tb, locs, rw, dist, prev, done)
    while nt > 0:
        need_t, _ = plan_trains(b, s, me, in_plan)
        if need_t <= s.trains[me] and t_left >= BIG:
            break
        turns = plan_turns(b, s, me, in_plan, want, needs)
        if need_t <= s.trains[me] and turns <= t_left:
            break
        best_i = 0
        best_v = -BIG
        for i in range(nt):                 # drop the ticket saving most per point
            t = tks[i]
            tks[i] = tks[nt - 1]
            tks[nt - 1] = t
            make_plan(b, s, me, tks, nt - 1, pcost, in_plan, tmp_plan, ta, tb, locs, rw, dist, prev, done)
            nt2, _ = plan_trains(b, s, me, in_plan)
            turns2 = plan_turns(b, s, me, in_plan, want, needs)
            v = ((need_t - nt2) + 2.0 * (turns - turns2)) / max(1, b.ticket_points[t])
            tks[nt - 1] = tks[i]
            tks[i] = t
            if v > best_v:
                best_v = v
                best_i = i
        t = tks[best_i]
        tks[best_i] = tks[nt - 1]
        tks[nt - 1] = t
        nt -= 1
        make_plan(b, s, me, tks, nt, pcost, in_plan, tmp_plan, ta, tb, locs, rw, dist, prev, done)
    remember_plan(s, me, key, in_plan)


@njit(cache=True)
def second_draw(b, s, legal, n_legal, params, me):
    """The second card of a turn. Since the seat's first draw only its hand
    and the face-up row changed, so the plan it remembered then still holds
    unless the hand crossed ``hoard_cards`` (then :func:`current_plan`
    decides, as in the main phase)."""
    R = b.route_len.shape[0]
    N = b.n_nodes
    passengers = b.rp[RP_PASSENGERS] != 0
    in_plan = np.zeros(R, np.bool_)
    want = np.zeros(N_COLOURS + 1)
    needs = needs_array(b)
    key = np.empty(N_PLAN_KEY, np.int64)
    for i in range(N_PLAN_KEY):
        key[i] = s.smem[me, i]
    key[KEY_EXTRA] = 1 if hand_size(s, me) > params[me, P_HOARD_CARDS] else 0
    cost = np.empty(R)
    cscore = np.zeros(N_PASSENGER_COLOURS)
    costs_made = False
    if key[0] != 1 or not recall_plan(s, me, key, in_plan):      # slot 0 is 1 in a stored key
        route_cost_for(b, s, me, COST_TRAINS, cost)
        if passengers:
            colour_scores(b, s, me, params, cscore)
        costs_made = True
        current_plan(b, s, me, params, cost, cscore, in_plan, np.empty(N), np.empty(N, np.int64),
                     np.empty(N, np.bool_), want, needs)
    if plan_trains(b, s, me, in_plan)[1] == 0:
        if not costs_made:
            route_cost_for(b, s, me, COST_TRAINS, cost)
            if passengers:
                colour_scores(b, s, me, params, cscore)
        free_target(b, s, me, cost, in_plan, cscore, params[me, P_PASS_WEIGHT], passengers)
    card_needs(b, s, s.hand[me], in_plan, want, needs)
    a, _ = draw_choice(b, s, legal, n_legal, params, me, want, False)
    return a


@njit(cache=True)
def play_choice(b, s, legal, n_legal, params, me):
    R = b.route_len.shape[0]
    N = b.n_nodes
    T = b.ticket_a.shape[0]
    passengers = b.rp[RP_PASSENGERS] != 0
    cost = np.empty(R)
    route_cost_for(b, s, me, COST_TRAINS, cost)
    cscore = np.zeros(N_PASSENGER_COLOURS)
    pw = params[me, P_PASS_WEIGHT]
    if passengers:
        colour_scores(b, s, me, params, cscore)
    in_plan = np.zeros(R, np.bool_)
    dist = np.empty(N)
    prev = np.empty(N, np.int64)
    done = np.empty(N, np.bool_)
    want = np.zeros(N_COLOURS + 1)
    needs = needs_array(b)
    t_left = turns_left(b, s, me, params[me, P_PLAY_PACE]) if params[me, P_PLAY_PACE] > 0 else BIG
    last_turn = s.meta[M_COUNTDOWN] >= 0
    near_end = last_turn or min_trains_any(s) <= params[me, P_END_TRAINS]
    current_plan(b, s, me, params, cost, cscore, in_plan, dist, prev, done, want, needs)
    need_trains, n_plan = plan_trains(b, s, me, in_plan)
    card_needs(b, s, s.hand[me], in_plan, want, needs)
    need = needs[NEED_COLOUR:NEED_COLOUR + N_COLOURS].copy()     # the plan's colour needs (for payments)
    payable = np.empty(R, np.bool_)           # routes it can claim now
    payable_routes(b, s, me, cost, payable)

    if last_turn:
        # the very last turn: the claim worth most now
        parent = np.empty(N, np.int64)
        own_components(b, s, me, parent)
        best_r = -1
        best_v = 0.0
        for r in range(R):
            if not payable[r]:
                continue
            v = float(b.route_points[r])
            for i in range(T):
                if (s.ticket_holder[i] == me and not locations_joined(b, parent, b.ticket_a[i], b.ticket_b[i])
                        and claim_completes(b, parent, i, r)):
                    v += 2.0 * b.ticket_points[i]
            if passengers:
                v += route_pass_value(b, s, r, cscore)
            if v > best_v:
                best_v = v
                best_r = r
        if best_r >= 0:
            return pay_choice(b, s, me, best_r, need, in_plan, params[me, P_LOCO_PAY])
        a, _ = draw_choice(b, s, legal, n_legal, params, me, want, True)
        return a

    if n_plan > 0:
        best_r, best_v = claim_pick(b, s, me, params, payable, in_plan, need_trains, cost, cscore, passengers,
                                    dist, prev, done)
        da, dv = draw_choice(b, s, legal, n_legal, params, me, want, True)
        if best_r >= 0:
            a = pay_choice(b, s, me, best_r, need, in_plan, params[me, P_LOCO_PAY])
            if da < 0 or near_end:
                return a
            # cards the rest of the plan would lack after this payment (a claim or the draw
            # ``da`` follows, so ``in_plan``, ``want`` and ``needs`` are not restored)
            in_plan[best_r] = False
            card_needs(b, s, s.hand[me], in_plan, want, needs)
            harm = pay_harm(b, s, me, a, in_plan, want, needs, needs[NEED_SHORT])
            urgency = best_v - params[me, P_LOCO_PAY] * harm
            if urgency >= params[me, P_DRAW_OVER_CLAIM] * dv:
                return a
            return da
        # near the end: an off-plan route paid with cards the plan does not need,
        # while trains and turns allow
        spare = s.trains[me] - need_trains - params[me, P_SPARE_TRAINS]
        if near_end and spare >= 1 and t_left - plan_turns(b, s, me, in_plan, want, needs) >= 0:
            short0 = needs[NEED_SHORT]
            min_len = 1
            best_a = -1
            best_v = 0.0
            for r in range(R):
                if not payable[r] or in_plan[r] or b.route_len[r] < min_len or b.route_len[r] > spare:
                    continue
                v = float(b.route_points[r])
                if passengers:
                    v += pw * route_pass_value(b, s, r, cscore)
                if v <= best_v:
                    continue
                a = pay_choice(b, s, me, r, need, in_plan, params[me, P_LOCO_PAY])
                if pay_harm(b, s, me, a, in_plan, want, needs, short0) == 0:
                    best_v = v
                    best_a = a
            card_needs(b, s, s.hand[me], in_plan, want, needs)
            if best_a >= 0:
                return best_a
        if da >= 0:
            return da
    elif (need_trains <= params[me, P_DRAW_PLAN_LEFT] and not near_end
          and s.trains[me] >= params[me, P_DRAW_MIN_TRAINS]
          and min_trains_others(s, me) >= params[me, P_DRAW_MIN_OPP]):
        n_long = int(params[me, P_DRAW_LONG]) if s.trains[me] >= params[me, P_DRAW_LONG_TRAINS] else 0
        a = ticket_mix_action(b, s, legal, n_legal, n_long)
        if a >= 0:
            return a

    # free mode: the best-scoring route it can pay, else cards for a good target
    min_len = 1 if near_end else params[me, P_FREE_MIN_LEN]
    best_r = -1
    best_v = -BIG
    for r in range(R):
        if not payable[r]:
            continue
        if b.route_len[r] < min_len:
            continue
        if n_plan > 0 and not in_plan[r] and s.trains[me] - b.route_len[r] < need_trains:
            continue
        v = float(b.route_points[r])
        if passengers:
            v += pw * route_pass_value(b, s, r, cscore)
        if v > best_v:
            best_v = v
            best_r = r
    if best_r >= 0 and n_plan == 0:
        return pay_choice(b, s, me, best_r, need, in_plan, params[me, P_LOCO_PAY])
    if n_plan == 0:
        free_target(b, s, me, cost, in_plan, cscore, pw, passengers)
        card_needs(b, s, s.hand[me], in_plan, want, needs)
    a, _ = draw_choice(b, s, legal, n_legal, params, me, want, True)
    if a >= 0:
        return a
    if best_r >= 0:
        return pay_choice(b, s, me, best_r, need, in_plan, params[me, P_LOCO_PAY])
    for r in range(R):                      # nothing to draw: any claim, best points
        if payable[r] and (best_r < 0 or b.route_points[r] > b.route_points[best_r]):
            best_r = r
    if best_r >= 0:
        return pay_choice(b, s, me, best_r, need, in_plan, params[me, P_LOCO_PAY])
    return -1


@njit(cache=True)
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


@njit(cache=True)
def choose(b, s, legal, n_legal, params):
    """The planner's pick for the seat to act: one of ``legal[:n_legal]`` or,
    in the main phase, a claim (the list it is given leaves claims out)."""
    me = s.meta[M_PLAYER]
    phase = s.meta[M_PHASE]
    if n_legal <= 1 and phase != PH_MAIN:
        return legal[0]
    a = -1
    if phase == PH_MAIN:
        a = play_choice(b, s, legal, n_legal, params, me)
    elif phase == PH_DRAW2:
        a = second_draw(b, s, legal, n_legal, params, me)
    elif phase == PH_SETUP_KEEP or phase == PH_KEEP:
        a = keep_choice(b, s, legal, n_legal, params, me)
    elif phase == PH_SETUP_MIX:
        a = mix_choice(b, s, legal, n_legal, params, me)
    elif phase == PH_PASSENGER:
        a = passenger_choice(b, s, legal, n_legal, params, me)
    if a < 0 or not is_legal(b, s, a):
        a = fallback_action(legal, n_legal)
    return a
