"""The planner's card draws: the value of each face-up card and of a blind
draw for the colours its plan lacks, the draw of a turn, and the second card
(with the plan remembered at the first).
"""
from ttrsim.core.actions import A_BLIND, A_FACEUP
from ttrsim.core.board import RP_PASSENGERS
from ttrsim.data.ids import LOCO
from ttrsim.jit import kernel
from ttrsim.jit.record import borrowed

from ..kit.action_picks import has_action
from ..kit.graph_search import COST_TRAINS
from ..kit.memory import KEY_EXTRA, N_PLAN_KEY, WI_RECALL, recall_plan, seat_costs
from .params import P_HOARD_CARDS, P_LOCO_VALUE, P_PASS_WEIGHT
from .passengers import colour_scores
from .plan import (
    card_needs,
    current_plan,
    decision_rows,
    free_target,
    hand_size,
    plan_trains,
    unseen_kind,
    unseen_total,
)


@kernel
def draw_choice(b, s, legal, n_legal, params, me, want, first_draw):
    """The best card draw by ``want`` (see the module doc): ``(action, value)``
    with the value of the whole turn's draw in cards; action -1 if no draw is
    legal."""
    # cards it cannot see: the deck and the others' hands
    tot = unseen_total(b, s, me)
    p_blind = 0.0
    if tot > 0:
        for k in range(LOCO + 1):
            p_blind += min(want[k], 1.0) * unseen_kind(b, s, me, k) / tot
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


@kernel
def second_draw(b, s, m, legal, n_legal, params, me):
    """The second card of a turn. Since the seat's first draw only its hand
    and the face-up row changed, so the plan it remembered then still holds
    unless the hand crossed ``hoard_cards`` (then :func:`current_plan`
    decides, as in the main phase)."""
    passengers = b.rp[RP_PASSENGERS] != 0
    rows = decision_rows(b, m)
    in_plan, want, needs, cscore = rows.in_plan, rows.want, rows.needs, rows.cscore
    key = borrowed(m.ints)[WI_RECALL, :N_PLAN_KEY]
    numbers = borrowed(m.numbers)
    for i in range(N_PLAN_KEY):
        key[i] = numbers[me, i]
    key[KEY_EXTRA] = 1 if hand_size(s, me) > params[me, P_HOARD_CARDS] else 0
    costs_made = False                   # (the colour scores)
    if key[0] != 1 or not recall_plan(m, me, key, in_plan):      # slot 0 is 1 in a stored key
        cost = seat_costs(b, s, m, me, COST_TRAINS)
        if passengers:
            colour_scores(b, s, me, params, cscore)
        costs_made = True
        current_plan(b, s, m, me, params, cost, rows)
    if plan_trains(b, s, me, in_plan)[1] == 0:
        cost = seat_costs(b, s, m, me, COST_TRAINS)
        if passengers and not costs_made:
            colour_scores(b, s, me, params, cscore)
        free_target(b, s, me, cost, in_plan, cscore, params[me, P_PASS_WEIGHT], passengers)
    card_needs(b, s, s.hand[me], in_plan, want, needs)
    a, _ = draw_choice(b, s, legal, n_legal, params, me, want, False)
    return a
