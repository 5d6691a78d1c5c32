"""``planner``: ttrsim's own strong heuristic (issue 3, item 3), and
``passenger_hunter``: the same kernel with a passenger-majority parameter set
(issue 3, item 4).

The plan
--------
The *plan* is an approximate minimum Steiner network joining the endpoints of
the seat's unfinished tickets over its own routes (cost 0) and the routes it
may still claim (other players' routes, tracks closed by R4.5 and routes
longer than its trains left are impassable). Two heuristics from
:mod:`ttrsim.strategies.kit.network_plans` run and the cheaper network is kept:
the Steiner-tree heuristic over all endpoints
(:func:`~ttrsim.strategies.kit.network_plans.plan_network`) and the Steiner-forest
one joining ticket by ticket, most valuable first
(:func:`~ttrsim.strategies.kit.network_plans.plan_tickets`).

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

The plan is remembered between the seat's decisions (in its rows of the
strategy memory, :mod:`ttrsim.strategies.kit.memory`; layout in
:mod:`ttrsim.strategies.planner.plan`) and made again only when it may have
changed: a ticket
was completed or added, passengers were collected, the hand crossed
``hoard_cards``, a route of the plan was taken or closed by another seat, or
the plan needs more trains than the seat has. Claims elsewhere on the board
and single card draws keep it (the search costs' small hand terms are those of
the hand the plan was made with). The memory also keeps each claim
candidate's detour with the routes of its path, reused while none of them is
taken and the seat's trains are the same
(:func:`~ttrsim.strategies.planner.claims.route_detour`: exact), and
the number of unfinished tickets while its trains and tickets are the same.

Tickets no path can reach any more are given up. While the plan needs more
trains than the seat has (or, with ``play_pace`` > 0, more turns than the game
probably has left) the ticket whose removal saves the most per point at
stake (its points plus its penalty, R6.3) is given up too.

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
  most now: route points plus the stake of tickets the claim completes
  (a ticket swings from minus its penalty to plus its points, R6.3).
* Passengers (Germany): the colour whose next passenger improves its majority
  standing most: its own majority points gained (R6.7) minus ``deny`` times
  the average points the others lose, plus ``lookahead`` times the same for a
  second passenger when more of the colour remain on the board.

Fair play: it reads route owners, the face-up row, discard counts, public
train counts, collected passengers, passengers on the board, its own hand,
its own tickets and its own offer; never the deck, other hands or tickets.
The kernel is deterministic (no random draws).

Modules
-------
One kernel in modules by subject: :mod:`~ttrsim.strategies.planner.params`
(the parameter table of both sets and the ``P_*`` columns),
:mod:`~ttrsim.strategies.planner.plan` (search costs, the plan, the cards and
turns it needs, its memory), :mod:`~ttrsim.strategies.planner.tickets`
(ticket mix and keep), :mod:`~ttrsim.strategies.planner.claims` (claim
priority, detours, payments), :mod:`~ttrsim.strategies.planner.cards` (card
draws, the second card), :mod:`~ttrsim.strategies.planner.passengers`
(passenger values); this module: the main-phase decision and ``choose``.
"""
import numpy as np

from ttrsim.core.actions import CLAIMS_PER_ROUTE
from ttrsim.core.board import RP_PASSENGERS, RP_STATIONS
from ttrsim.core.engine import is_legal
from ttrsim.core.scoring import locations_joined, ticket_stake
from ttrsim.core.state import (
    M_COUNTDOWN,
    M_PHASE,
    M_PLAYER,
    PH_DRAW2,
    PH_KEEP,
    PH_MAIN,
    PH_PASSENGER,
    PH_SETUP_KEEP,
    PH_SETUP_MIX,
    PH_TUNNEL,
)
from ttrsim.data.ids import N_COLOURS
from ttrsim.jit import kernel
from ttrsim.jit.record import borrowed

from ..kit.action_picks import fallback_action, ticket_mix_action
from ..kit.connectivity import own_components
from ..kit.europe_moves import station_rescue, tunnel_choice
from ..kit.graph_search import COST_TRAINS, payable_routes
from ..kit.memory import WB_PAYABLE, WI_NEED, WI_PAY, seat_costs
from .cards import draw_choice, second_draw
from .claims import claim_completes, claim_pick, pay_choice, pay_harm
from .params import (  # noqa: F401  (the registry's entries)
    CLASSIC_SPEC,
    P_DRAW_LONG,
    P_DRAW_LONG_TRAINS,
    P_DRAW_MIN_OPP,
    P_DRAW_MIN_TRAINS,
    P_DRAW_OVER_CLAIM,
    P_DRAW_PLAN_LEFT,
    P_DRAW_VALUE0,
    P_DRAW_VALUE_EV,
    P_DRAW_VALUE_SLACK,
    P_END_TRAINS,
    P_FREE_MIN_LEN,
    P_LOCO_PAY,
    P_PACE,
    P_PASS_WEIGHT,
    P_PLAY_PACE,
    P_SPARE_TRAINS,
    P_TICKET_EV,
    P_TK_LEFT_FACTOR,
    P_TK_TURNS_FACTOR,
    PASSENGER_HUNTER_SPEC,
    SPEC,
    STYLE_SPECS,
)
from .passengers import BIG, colour_scores, passenger_choice, route_pass_value
from .plan import (
    NEED_COLOUR,
    NEED_SHORT,
    MainPlan,
    card_needs,
    current_plan,
    decision_rows,
    free_target,
    min_trains_any,
    min_trains_others,
    needs_turns,
    plan_trains,
    plan_turns,
    turns_left,
)
from .tickets import draw_value, keep_choice, mix_choice


@kernel
def main_phase_plan(b, s, m, params, me):
    """What a main-phase decision of seat ``me`` starts from: a
    :data:`~ttrsim.strategies.planner.plan.MainPlan`, the search costs,
    passenger colour scores, the remembered (or new) plan with its trains and
    routes, the cards it needs (``want``, ``needs`` and the colour needs
    ``need``), the payable routes and the search's scratch arrays
    ``(cost, cscore, in_plan, need_trains, n_plan, want, needs, need, payable,
    dist, prev, done, numbers)``, in the memory's work rows (uncounted views,
    :func:`~ttrsim.strategies.planner.plan.decision_rows`)."""
    R = b.route_len.shape[0]
    cost = seat_costs(b, s, m, me, COST_TRAINS)     # kept in the memory until a claim (route_detour restores it)
    rows = decision_rows(b, m)
    in_plan, want, needs = rows.in_plan, rows.want, rows.needs
    if b.rp[RP_PASSENGERS] != 0:
        colour_scores(b, s, me, params, rows.cscore)
    current_plan(b, s, m, me, params, cost, rows)
    need_trains, n_plan = plan_trains(b, s, me, in_plan)
    card_needs(b, s, s.hand[me], in_plan, want, needs)
    need = borrowed(m.ints)[WI_NEED, :N_COLOURS]       # the plan's colour needs (for payments)
    need[:] = needs[NEED_COLOUR:NEED_COLOUR + N_COLOURS]
    payable = borrowed(m.flags)[WB_PAYABLE, :R]         # routes it can claim now
    payable_routes(b, s, me, cost, payable)
    return MainPlan(cost, rows.cscore, in_plan, need_trains, n_plan, want, needs, need, payable, rows.dist,
                    rows.prev, rows.done, borrowed(m.numbers))


@kernel(inline="always")
def valued_draw(b, s, legal, n_legal):
    """The ticket draw :func:`draw_value_now` values and the planner takes
    by value (``ticket_ev``): every ticket from the first pile (in Germany
    the short one); -1 if no ticket draw is legal."""
    return ticket_mix_action(b, s, legal, n_legal, 0)


@kernel(inline="always")   # (no call: the plan's arrays are not copied and counted again)
def draw_value_now(b, s, legal, n_legal, params, me, floor, plan):
    """The value (margin points, :func:`~ttrsim.strategies.planner.tickets.draw_value`)
    of a ticket draw now, given the plan of ``plan`` (:func:`main_phase_plan`'s
    :data:`~ttrsim.strategies.planner.plan.MainPlan`); ``-BIG`` when no draw is
    legal or its value cannot exceed ``floor`` whatever the offer (a draw is
    taken above 0)."""
    if s.tk_len[0] == 0 or valued_draw(b, s, legal, n_legal) < 0:
        return -BIG
    slack = params[me, P_TK_LEFT_FACTOR] * turns_left(b, s, me, params[me, P_PACE])
    if plan.n_plan > 0:     # (want and needs are the plan's, with the hand held: main_phase_plan's card_needs)
        slack -= params[me, P_TK_TURNS_FACTOR] * needs_turns(b, s, me, plan.n_plan, plan.want, plan.needs)
    # the draw's value is at most its value with the best possible offer (20 points): skip hopeless ones
    if params[me, P_DRAW_VALUE0] + params[me, P_DRAW_VALUE_SLACK] * slack + params[me, P_DRAW_VALUE_EV] * 20 <= floor:
        return -BIG
    return draw_value(b, s, me, params, plan, slack)


@kernel
def ticket_draw_value(b, s, m, legal, n_legal, params, me, floor):
    """What the planner (``params``) values a ticket draw at now, in margin
    points (:func:`draw_value_now`; it draws above 0); ``-BIG`` near the end
    (``end_trains``, the last round) or without the expected-value rule
    (``ticket_ev`` 0). For a search over whether to draw."""
    if params[me, P_TICKET_EV] <= 0 or s.meta[M_COUNTDOWN] >= 0 or min_trains_any(s) <= params[me, P_END_TRAINS]:
        return -BIG
    return draw_value_now(b, s, legal, n_legal, params, me, floor, main_phase_plan(b, s, m, params, me))


@kernel(inline="always")   # (no call: the record is not counted again)
def pay_work(m):
    """:func:`pay_choice`'s work row (an uncounted view)."""
    return borrowed(m.ints)[WI_PAY, :CLAIMS_PER_ROUTE]


@kernel(inline="always")   # (no call: the plan's arrays are not copied and counted again)
def last_turn_choice(b, s, m, legal, n_legal, params, me, plan):
    """The very last turn: the claim worth most now (its points, the tickets
    it completes, its passengers), else a card draw."""
    R = b.route_len.shape[0]
    T = b.ticket_a.shape[0]
    passengers = b.rp[RP_PASSENGERS] != 0
    payable = plan.payable
    parent = np.empty(b.n_nodes, np.int64)
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
                v += ticket_stake(b, i)
        if passengers:
            v += route_pass_value(b, s, r, plan.cscore)
        if v > best_v:
            best_v = v
            best_r = r
    if best_r >= 0:
        return pay_choice(b, s, me, best_r, plan.need, plan.in_plan, params[me, P_LOCO_PAY], pay_work(m))
    a, _ = draw_choice(b, s, legal, n_legal, params, me, plan.want, True)
    return a


@kernel(inline="always")   # (no call: the plan's arrays are not copied and counted again)
def spare_claim(b, s, m, params, me, plan):
    """Near the end, with a plan: an off-plan route paid with cards the plan
    does not need, while trains and turns allow; -1 if none. (``want`` and
    ``needs`` are made again from the plan afterwards.)"""
    R = b.route_len.shape[0]
    passengers = b.rp[RP_PASSENGERS] != 0
    pw = params[me, P_PASS_WEIGHT]
    in_plan, want, needs, payable = plan.in_plan, plan.want, plan.needs, plan.payable
    t_left = turns_left(b, s, me, params[me, P_PLAY_PACE]) if params[me, P_PLAY_PACE] > 0 else BIG
    spare = s.trains[me] - plan.need_trains - params[me, P_SPARE_TRAINS]
    if not (spare >= 1 and t_left - plan_turns(b, s, me, in_plan, want, needs) >= 0):
        return -1
    pay = pay_work(m)
    short0 = needs[NEED_SHORT]
    min_len = 1
    best_a = -1
    best_v = 0.0
    for r in range(R):
        if not payable[r] or in_plan[r] or b.route_len[r] < min_len or b.route_len[r] > spare:
            continue
        v = float(b.route_points[r])
        if passengers:
            v += pw * route_pass_value(b, s, r, plan.cscore)
        if v <= best_v:
            continue
        a = pay_choice(b, s, me, r, plan.need, in_plan, params[me, P_LOCO_PAY], pay)
        if pay_harm(b, s, me, a, in_plan, want, needs, short0) == 0:
            best_v = v
            best_a = a
    card_needs(b, s, s.hand[me], in_plan, want, needs)
    return best_a


@kernel(inline="always")   # (no call: the record is not counted again)
def plan_choice(b, s, m, legal, n_legal, params, me, plan, near_end):
    """With a plan: ``(action, True)``, a claim of the plan (or a card draw
    worth more), near the end a spare claim (:func:`spare_claim`), else a card
    draw; ``(-1, False)`` when it has none of them (free mode decides)."""
    in_plan, want, needs = plan.in_plan, plan.want, plan.needs
    best_r, best_v = claim_pick(b, s, m, me, params, plan, plan.payable)
    da, dv = draw_choice(b, s, legal, n_legal, params, me, want, True)
    if best_r >= 0:
        a = pay_choice(b, s, me, best_r, plan.need, in_plan, params[me, P_LOCO_PAY], pay_work(m))
        if da < 0 or near_end:
            return a, True
        # cards the rest of the plan would lack after this payment (a claim or the draw
        # ``da`` follows, so ``in_plan``, ``want`` and ``needs`` are not restored)
        in_plan[best_r] = False
        card_needs(b, s, s.hand[me], in_plan, want, needs)
        harm = pay_harm(b, s, me, a, in_plan, want, needs, needs[NEED_SHORT])
        urgency = best_v - params[me, P_LOCO_PAY] * harm
        if urgency >= params[me, P_DRAW_OVER_CLAIM] * dv:
            return a, True
        return da, True
    if near_end:
        a = spare_claim(b, s, m, params, me, plan)
        if a >= 0:
            return a, True
    if da >= 0:
        return da, True
    return -1, False


@kernel(inline="always")   # (no call: the plan's arrays are not copied and counted again)
def free_choice(b, s, m, legal, n_legal, params, me, plan, near_end):
    """Free mode: the best-scoring route it can pay (with a plan: one that
    leaves the plan its trains), else cards for a good target (with no plan:
    :func:`~ttrsim.strategies.planner.plan.free_target`), else any claim."""
    R = b.route_len.shape[0]
    passengers = b.rp[RP_PASSENGERS] != 0
    pw = params[me, P_PASS_WEIGHT]
    n_plan, in_plan, payable, need = plan.n_plan, plan.in_plan, plan.payable, plan.need
    pay = pay_work(m)
    min_len = 1 if near_end else params[me, P_FREE_MIN_LEN]
    best_r = -1
    best_v = -BIG
    for r in range(R):
        if not payable[r]:
            continue
        if b.route_len[r] < min_len:
            continue
        if n_plan > 0 and not in_plan[r] and s.trains[me] - b.route_len[r] < plan.need_trains:
            continue
        v = float(b.route_points[r])
        if passengers:
            v += pw * route_pass_value(b, s, r, plan.cscore)
        if v > best_v:
            best_v = v
            best_r = r
    if best_r >= 0 and n_plan == 0:
        return pay_choice(b, s, me, best_r, need, in_plan, params[me, P_LOCO_PAY], pay)
    if n_plan == 0:
        free_target(b, s, me, plan.cost, in_plan, plan.cscore, pw, passengers)
        card_needs(b, s, s.hand[me], in_plan, plan.want, plan.needs)
    a, _ = draw_choice(b, s, legal, n_legal, params, me, plan.want, True)
    if a >= 0:
        return a
    if best_r >= 0:
        return pay_choice(b, s, me, best_r, need, in_plan, params[me, P_LOCO_PAY], pay)
    for r in range(R):                      # nothing to draw: any claim, best points
        if payable[r] and (best_r < 0 or b.route_points[r] > b.route_points[best_r]):
            best_r = r
    if best_r >= 0:
        return pay_choice(b, s, me, best_r, need, in_plan, params[me, P_LOCO_PAY], pay)
    return -1


@kernel
def play_choice(b, s, m, legal, n_legal, params, me):
    """A main-phase turn: in Europe a station rescue first; the last turn's
    best claim (:func:`last_turn_choice`); a ticket draw when it is worth it;
    with a plan :func:`plan_choice`, or a ticket draw when the plan is nearly
    done; else (or when the plan has nothing to do) :func:`free_choice`."""
    last_turn = s.meta[M_COUNTDOWN] >= 0
    near_end = last_turn or min_trains_any(s) <= params[me, P_END_TRAINS]
    plan = main_phase_plan(b, s, m, params, me)
    if b.rp[RP_STATIONS] > 0:                 # Europe: a station for a ticket no free route can finish
        a = station_rescue(b, s, me, legal, n_legal)
        if a >= 0:
            return a
    if last_turn:
        return last_turn_choice(b, s, m, legal, n_legal, params, me, plan)
    by_value = params[me, P_TICKET_EV] > 0
    if by_value and not near_end:
        if draw_value_now(b, s, legal, n_legal, params, me, 0.0, plan) > 0:
            return valued_draw(b, s, legal, n_legal)
    if plan.n_plan > 0:
        a, decided = plan_choice(b, s, m, legal, n_legal, params, me, plan, near_end)
        if decided:
            return a
    elif (not by_value and plan.need_trains <= params[me, P_DRAW_PLAN_LEFT] and not near_end
          and s.trains[me] >= params[me, P_DRAW_MIN_TRAINS]
          and min_trains_others(s, me) >= params[me, P_DRAW_MIN_OPP]):
        n_long = int(params[me, P_DRAW_LONG]) if s.trains[me] >= params[me, P_DRAW_LONG_TRAINS] else 0
        a = ticket_mix_action(b, s, legal, n_legal, n_long)
        if a >= 0:
            return a
    return free_choice(b, s, m, legal, n_legal, params, me, plan, near_end)


@kernel
def choose(b, s, m, legal, n_legal, params):
    """The planner's pick for the seat to act: one of ``legal[:n_legal]`` or,
    in the main phase, a claim (the list it is given leaves claims out)."""
    me = s.meta[M_PLAYER]
    phase = s.meta[M_PHASE]
    if n_legal <= 1 and phase != PH_MAIN:
        return legal[0]
    a = -1
    if phase == PH_MAIN:
        a = play_choice(b, s, m, legal, n_legal, params, me)
    elif phase == PH_DRAW2:
        a = second_draw(b, s, m, legal, n_legal, params, me)
    elif phase == PH_SETUP_KEEP or phase == PH_KEEP:
        a = keep_choice(b, s, m, legal, n_legal, params, me)
    elif phase == PH_SETUP_MIX:
        a = mix_choice(b, s, legal, n_legal, params, me)
    elif phase == PH_PASSENGER:
        a = passenger_choice(b, s, legal, n_legal, params, me)
    elif phase == PH_TUNNEL:
        a = tunnel_choice(b, s, legal, n_legal)
    if a < 0 or not is_legal(b, s, a):
        a = fallback_action(legal, n_legal)
    return a


@kernel
def ranked_claims(b, s, m, legal, n_legal, params, me, out):
    """The planner's ranking of its main-phase options, for a search over them
    (it decides nothing and changes no decision of :func:`choose`): into
    ``out`` (int64[R]) a claim per payable route, the plan's routes in the
    order of their claim priority (:func:`claim_pick`'s pick first), then the
    other payable routes by points; each with the payment the planner would
    make. Returns ``(claims, the card draw it would make or -1)``."""
    R = b.route_len.shape[0]
    passengers = b.rp[RP_PASSENGERS] != 0
    plan = main_phase_plan(b, s, m, params, me)
    cost, cscore, in_plan, n_plan = plan.cost, plan.cscore, plan.in_plan, plan.n_plan
    want, needs, need, payable = plan.want, plan.needs, plan.need, plan.payable
    pay = pay_work(m)
    if n_plan == 0:
        free_target(b, s, me, cost, in_plan, cscore, params[me, P_PASS_WEIGHT], passengers)
        card_needs(b, s, s.hand[me], in_plan, want, needs)
        need = needs[NEED_COLOUR:NEED_COLOUR + N_COLOURS].copy()
    left = payable.copy()
    n = 0
    while n_plan > 0:
        r, _ = claim_pick(b, s, m, me, params, plan, left)
        if r < 0:
            break
        left[r] = False
        out[n] = pay_choice(b, s, me, r, need, in_plan, params[me, P_LOCO_PAY], pay)
        n += 1
    while True:
        best_r = -1
        for r in range(R):
            if left[r] and (best_r < 0 or b.route_points[r] > b.route_points[best_r]):
                best_r = r
        if best_r < 0:
            break
        left[best_r] = False
        out[n] = pay_choice(b, s, me, best_r, need, in_plan, params[me, P_LOCO_PAY], pay)
        n += 1
    da, _ = draw_choice(b, s, legal, n_legal, params, me, want, True)
    return n, da
