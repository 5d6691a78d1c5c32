"""``search``: determinized Monte Carlo search over a rollout policy's
options (issue 11, section 2).

At the decisions where looking ahead pays (which tickets to keep, at setup
and in play; whether to draw tickets, whenever a draw might pay; the main
actions of the last turns; in the middle game, as a parameter, one of the
planner's best claims)
it lists a few candidates, the policy's own pick first, and plays each out to
the end of the game from *determinizations*
(:mod:`ttrsim.strategies.search.determinize`: the hidden cards and tickets dealt
anew, consistent with what the seat sees), with the rollout policy
(:mod:`ttrsim.strategies.search.rollout`) at every seat. Every other decision is the
policy's pick, at no cost.

* Paired rollouts: on every deal each remaining candidate is played out from
  the same determinizations with the same random streams (a rollout differs
  from another only by the candidate played first), so the per-deal
  differences to the policy's pick measure the candidate, not the deal.
* The policy's pick stays unless an alternative beats it clearly: the
  alternative with the best mean paired gain is taken only if that gain
  exceeds ``z`` standard errors (and 0), after at least ``min_deals`` deals.
* Allocation (``race``): racing, deal by deal (the policy's pick is always
  played); from the third deal on an alternative whose mean paired gain is
  below ``-race`` standard errors is dropped, and the search ends when none
  is left or ``budget`` rollouts are spent. ``race`` 0: successive halving,
  ``budget`` rollouts spread over ``ceil(log2(candidates))`` rounds, the
  worse half of the alternatives (by mean paired gain) dropped after each.
* Candidates: keep phases, every legal keep set (or the planner's
  ``keep_sets`` best); the main phase, the
  planner's ``claims`` best claims (its plan's routes by claim priority, then
  other payable routes by points, each with the planner's payment;
  :func:`ttrsim.strategies.planner.ranked_claims`; in the last round, or
  once some seat has at most ``last_trains`` trains, at least
  ``last_claims`` of them), its card draw and a ticket
  draw (in Germany the planner's short/long mix); and, in the middle game
  and the end game alike, the planner's ticket draw whenever a draw might pay (``ticket_gate``: the
  planner values it above ``-ticket_gate`` margin points, :func:`~ttrsim.strategies.planner.ticket_draw_value`;
  it draws itself above 0; the draw valued, :func:`~ttrsim.strategies.planner.valued_draw`: every ticket
  from the first pile, in Germany the short one), its keep then searched like any keep; with ``block`` > 0
  (by default in 2-player games) also up to ``block`` blocking claims: the
  seat's payable claims (the planner's payment) whose route, or the parallel
  track a claim closes (R4.5), is on the other seats' plans in the most of
  ``block_deals`` determinizations (:func:`.blocks.others_plans`: the planner's plan
  for each other seat, made anew on each).
* Outcome (``outcome``): 0 the score margin (own total minus the best other
  total; clipped to +-``clip``, plus ``win_points`` for a win), 1 a win
  (shared wins count a share).
* Rollouts seat the policy ``rollout`` (a policy id of
  :data:`ttrsim.strategies.search.rollout.POLICY_NAMES`, 0 = ``planner``) with its
  default parameters at every seat (``opp_rollout`` >= 0: that policy at the
  other seats), each seat with a fresh memory (``share_plans``, the default: in the
  main phase the other planner seats make their plans on each deal once, the
  searching seat brings its plan of this decision, and every candidate's
  rollout starts with them remembered; the planner makes a plan again where
  it no longer holds, e.g. where the candidate took one of its routes); the planner (and the
  candidates it ranks) with the ``rollout_<key>`` values (:data:`ROLLOUT_KEYS`),
  which are by default the planner's fitted set for the rule set and player
  count (:func:`ttrsim.strategies.fitted.fitted_for`).
* Budgets: ``keep_factor x budget`` rollouts at ticket keeps (at setup they
  decide the whole game), ``budget`` in the end game (growing to
  ``(1 + growth) x budget`` as the trains run out), ``middle_budget`` (and
  ``middle_z`` for ``z``) at the main-phase decisions searched before it
  (``middle``; the claims with ``contested`` only when a candidate claim's
  route is contested).
* Determinizations: ``infer`` > 0 deals the other seats' tickets weighted
  towards those their routes touch
  (:func:`ttrsim.strategies.search.determinize.determinize`); by default 1 in
  2-player games, 0 with more (:data:`BY_PLAYERS`: a parameter left at -1
  takes its value for the player count, an explicit value wins).
* Europe (R8): the same decisions are searched; a tunnel's pay or give-up
  and a station are the policy's pick (a station is a candidate only as
  the policy's own pick).

Fair play: the candidates come from the policy and the planner, which read
only what the seat may see; every determinization is drawn with a stream
seeded from the seat's own stream (``m.rng``), never the game's, from pools
built canonically; so changing what the seat cannot see changes nothing
(``tests/strategies/test_strategy_api.py``). The search keeps nothing between decisions
but what the policy and the planner keep in the seat's memory rows; the
rollouts' memory is a scratch table, and the determinization and the rollout
are played on the memory's scratch states (``m.scratch``).

>>> from ttrsim.play.game import Game
>>> from ttrsim.core.actions import legal_buffer
>>> from ttrsim.strategies import param_row
>>> from ttrsim.strategies.kit.memory import allocate_memory, reset_memory
>>> g = Game("usa", 2, seed=1); m = allocate_memory(g.board, 2); reset_memory(m, 1)
>>> params = np.tile(param_row("search", {"budget": 8}), (2, 1)); buf = legal_buffer(g.board)
>>> n = legal_list(False, g.board, g.state, buf)
>>> choose(g.board, g.state, m, buf, n, params) in g.legal_actions()
True
"""
from collections import namedtuple
from dataclasses import replace

import numpy as np

from ttrsim.core.actions import A_KEEP, A_PASSENGER, A_TICKETS, decode_claim
from ttrsim.core.engine import apply_action
from ttrsim.core.rng import next_u64, seed_into
from ttrsim.core.state import (
    F_TOTAL,
    F_WINNER,
    M_COUNTDOWN,
    M_NPLAYERS,
    M_PHASE,
    M_PLAYER,
    PH_KEEP,
    PH_MAIN,
    PH_SETUP_KEEP,
)
from ttrsim.jit import kernel

from .. import planner
from ..fitted import fitted_keys
from ..kit.action_picks import legal_list
from ..kit.memory import clear_seats, copy_seat, copy_seats, new_memory
from ..planner import ranked_claims, ticket_draw_value, valued_draw
from ..planner.claims import route_exposure
from ..planner.plan import min_trains_any
from ..planner.tickets import keep_choice, mix_choice
from ..spec import BOOL, COUNT, DEALS, ROLLOUTS, TRAINS, Param, StrategySpec
from .blocks import add_candidate as _add
from .blocks import block_candidates
from .determinize import copy_state_into, determinize, setup_keeps
from .rollout import (
    PLANNER,
    PLANNER_CLASSIC,
    POLICY_LISTS_CLAIMS,
    POLICY_NAMES,
    play_out,
    policies_params,
    policy_choose,
    seat_policies,
)

# the planner parameters a fitted set may set: the search's rollouts play them (parameters rollout_<key>)
ROLLOUT_KEYS = fitted_keys("planner")
_PLANNER = {p.name: p for p in planner.SPEC.params}
# standard errors (z, middle_z: below 0 any positive mean gain will do)
Z_RANGE = ("float", -100, 100)
POLICY = ("int", 0, len(POLICY_NAMES) - 1)      # a rollout policy id (ttrsim.strategies.search.rollout)
SPEC = StrategySpec(
    "search",
    "determinized Monte Carlo search: at ticket keeps and the last turns, plays the rollout policy's pick and "
    "its best few alternatives out on the same deals; an alternative only if it clearly beats the pick",
    params=(
        Param("budget", 64.0, "rollouts (games played out) per searched decision", *ROLLOUTS),
        Param("claims", 2.0, "the planner's best claims among the main-phase candidates", *COUNT),
        Param("rollout", 0.0, "rollout policy: 0 planner, 1 planner_classic, 2 greedy, 3 random "
                              "(ttrsim.strategies.search.rollout)", *POLICY),
        Param("outcome", 0.0, "what a rollout scores: 0 own total minus the best other total, 1 a win", "int", 0, 1),
        Param("z", 1.0, "an alternative replaces the policy's pick if its mean paired gain exceeds z standard errors",
              *Z_RANGE),
        Param("keeps", 1.0, "search the ticket keep sets (1) or keep the policy's (0)", *BOOL),
        Param("end_trains", 30.0, "search the main phase once some seat has at most this many trains (or the last "
                                 "round has begun)", *TRAINS),
        Param("middle", 0.0, "before that, search the main phase: 0 never, 1 only whether to draw tickets, "
                             "2 the claims, draw and ticket draw candidates, 3 the claims only", "int", 0, 3),
        Param("middle_budget", 16.0, "rollouts per searched main-phase decision before the end (middle)", *ROLLOUTS),
        Param("infer", -1.0, "deal other seats' unseen tickets weighted exp(infer x ends their routes touch); "
                             "0 uniform; -1 by the player count (BY_PLAYERS: 1 with 2 players, 0 with more)",
              "float", -1, 100),
        Param("clip", 0.0, "outcome 0: the margin clipped to +-clip points (0: not clipped)", "float", 0, 1000),
        Param("win_points", 20.0, "outcome 0: plus this many points for a win (a share if shared)", "float", 0, 1000),
        Param("race", 1.0, "allocation: 0 successive halving; r > 0 racing: deal by deal, an alternative is "
                           "dropped once its mean paired gain is below -r standard errors, and the search stops "
                           "when none is left", "float", 0, 100),
        Param("min_deals", 0.0, "an alternative replaces the policy's pick only after at least this many deals "
                                "(racing drops none before)", *DEALS),
        Param("growth", 0.0, "the end-game budget grows linearly to (1 + growth) x budget as the fewest trains "
                             "of any seat fall from end_trains to 0", "float", 0, 100),
        Param("opp_rollout", -1.0, "the other seats' rollout policy (-1: rollout's)", "int", -1, len(POLICY_NAMES) - 1),
        Param("middle_z", 1.0, "z before the end game (middle): the standard errors an alternative's gain must exceed",
              *Z_RANGE),
        Param("contested", 0.0, "1: search the claims before the end game (middle 2, 3) only when one of the "
                                "planner's best claims is contested (another seat's route touches an end, no "
                                "parallel track stays open)", *BOOL),
        Param("keep_sets", 0.0, "search only the planner's this many best keep sets (its own pick first); 0 every "
                                "legal keep set", *COUNT),
        Param("keep_factor", 2.0, "rollouts per searched ticket keep (setup and in play): keep_factor x budget",
              "float", 0, 100, open_lo=True),
        Param("block", -1.0, "blocking candidates: where claims are searched, add up to this many of the seat's "
                             "payable claims (the planner's payment) that take a route (or close its parallel "
                             "track) on the other seats' plans in most of block_deals determinizations; 0 none; "
                             "-1 by the player count (BY_PLAYERS: 1 with 2 players, 0 with more)",
              "int", -1, COUNT[2]),
        Param("block_deals", 4.0, "block: the determinizations on which the other seats' plans are read", *DEALS),
        Param("last_claims", 40.0, "in the last round (R6.1: every seat's final turn; or with last_trains) search at "
                                  "least this many of the planner's best claims (its ranking of every payable claim)",
              *COUNT),
        Param("last_trains", 6.0, "last_claims also once some seat has at most this many trains", *TRAINS),
        Param("share_plans", 1.0, "main phase: the other planner seats make their plans once on each deal, before "
                                  "its candidates (the searching seat brings its plan of this decision), and every "
                                  "candidate's rollout starts from them (a seat plans again where its plan no longer "
                                  "holds); 0: every rollout starts from an empty memory",
              *BOOL),
        Param("ticket_gate", 6.0, "a ticket draw is also a candidate whenever the planner values it (margin points, "
                                  "planner.ticket_draw_value; it draws above 0) above -ticket_gate; 0: only as the "
                                  "policy's pick (or with middle 1, 2)", "float", 0, 100),
    ) + tuple(replace(_PLANNER[k], name=f"rollout_{k}",
                      doc=f"the rollout planner's {k}; by default its fitted set for the rule set and player "
                          f"count (strategies/fitted.py)") for k in ROLLOUT_KEYS),
    lists_claims=False,
)
P_BUDGET = SPEC.index("budget")
P_CLAIMS = SPEC.index("claims")
P_ROLLOUT = SPEC.index("rollout")
P_OUTCOME = SPEC.index("outcome")
P_Z = SPEC.index("z")
P_KEEPS = SPEC.index("keeps")
P_END_TRAINS = SPEC.index("end_trains")
P_MIDDLE = SPEC.index("middle")
P_MIDDLE_BUDGET = SPEC.index("middle_budget")
P_INFER = SPEC.index("infer")
P_CLIP = SPEC.index("clip")
P_WIN_POINTS = SPEC.index("win_points")
P_RACE = SPEC.index("race")
P_MIN_DEALS = SPEC.index("min_deals")
P_GROWTH = SPEC.index("growth")
P_OPP_ROLLOUT = SPEC.index("opp_rollout")
RACE_START = 3      # racing: deals every alternative plays before any is dropped (whatever the budget)
P_MIDDLE_Z = SPEC.index("middle_z")
P_CONTESTED = SPEC.index("contested")
P_KEEP_SETS = SPEC.index("keep_sets")
P_KEEP_FACTOR = SPEC.index("keep_factor")
P_BLOCK = SPEC.index("block")
P_BLOCK_DEALS = SPEC.index("block_deals")
P_LAST_CLAIMS = SPEC.index("last_claims")
P_LAST_TRAINS = SPEC.index("last_trains")
P_TICKET_GATE = SPEC.index("ticket_gate")
P_SHARE_PLANS = SPEC.index("share_plans")
ROLLOUT_COLUMNS = np.array([SPEC.index(f"rollout_{k}") for k in ROLLOUT_KEYS], np.int64)
_PLANNER_P = np.array([planner.SPEC.index(k) for k in ROLLOUT_KEYS], np.int64)
# defaults by the player count: a parameter left negative (its default) takes its value for the table's
# player count, (2 players, 3 or more); an explicit value >= 0 wins
BY_PLAYERS = {"infer": (1.0, 0.0), "block": (1.0, 0.0)}
_BY_PLAYERS_P = np.array([SPEC.index(k) for k in BY_PLAYERS], np.int64)
_BY_PLAYERS_V = np.array(list(BY_PLAYERS.values()), np.float64)

# what a search's deals are played with (built by choose): the seats' rollout policies and parameters, the
# search parameters, the rollouts' memory, legal buffer and stream, the outcomes vals[c, i] (candidate c, deal i)
# and the seats' memory rows every candidate of a deal starts from (share_plans)
Rollouts = namedtuple("Rollouts", ("policies", "rparams", "params", "rm", "legal", "stream", "vals", "saved"))


@kernel
def rollouts(m, legal, policies, rparams, params, n_cands, n_deals):
    """A :data:`Rollouts` record for ``n_cands`` candidates and up to
    ``n_deals`` deals: fresh memories (the rollouts' and the plans a deal's
    candidates share) beside the table's memory ``m``, a legal buffer like
    ``legal``."""
    return Rollouts(policies, rparams, params, new_memory(m), np.empty_like(legal), np.zeros(1, np.uint64),
                    np.zeros((n_cands, n_deals)), new_memory(m))


@kernel
def by_players(params, me, n_players):
    """A copy of the parameter table ``params`` with seat ``me``'s negative
    :data:`BY_PLAYERS` parameters set to their value for ``n_players``."""
    out = params.copy()
    col = 0 if n_players == 2 else 1
    for i in range(_BY_PLAYERS_P.shape[0]):
        if out[me, _BY_PLAYERS_P[i]] < 0:
            out[me, _BY_PLAYERS_P[i]] = _BY_PLAYERS_V[i, col]
    return out


@kernel
def rollout_params(policies, params, me):
    """A parameter table seating ``policies[p]`` with its defaults at seat
    ``p``, the planner with seat ``me``'s ``rollout_`` values (its fitted set
    for the rule set and player count, unless set)."""
    out = policies_params(policies)
    for p in range(policies.shape[0]):
        if policies[p] == PLANNER:
            for i in range(ROLLOUT_COLUMNS.shape[0]):
                out[p, _PLANNER_P[i]] = params[me, ROLLOUT_COLUMNS[i]]
    return out


@kernel
def _ticket_draw(b, s, legal, n_legal, pparams, me):
    """The planner's ticket-draw action (Germany: its short/long mix), -1 if none is legal."""
    for i in range(n_legal):
        if A_TICKETS <= legal[i] < A_KEEP:
            return mix_choice(b, s, legal, n_legal, pparams, me)
    return -1


@kernel
def trains_within(s, trains):
    """The last round has begun (R6.1) or some seat has at most ``trains`` trains."""
    return s.meta[M_COUNTDOWN] >= 0 or min_trains_any(s) <= trains


@kernel
def in_end_game(s, params, me):
    """Whether the main phase is searched as the end game: some seat has at
    most ``end_trains`` trains, or the last round has begun."""
    return trains_within(s, params[me, P_END_TRAINS])


@kernel
def _contested(b, s, me, claims, n_claims):
    """Whether the route of one of ``claims[:n_claims]`` is contested: another
    seat's route touches one of its ends and no parallel track stays open
    (:func:`ttrsim.strategies.planner.claims.route_exposure`)."""
    for i in range(n_claims):
        adj, open_par = route_exposure(b, s, me, decode_claim(claims[i])[0])
        if adj > 0 and not open_par:
            return True
    return False


@kernel
def _best_keeps(b, s, m, legal, n_legal, pparams, me, k, cands, n):
    """Append to ``cands[:n]`` the planner's ``k`` best keep sets, best first
    (its :func:`~ttrsim.strategies.planner.tickets.keep_choice` over the keep
    sets not yet ranked); the new count."""
    left = np.empty(n_legal, np.int64)
    n_left = 0
    for i in range(n_legal):
        if A_KEEP <= legal[i] < A_PASSENGER:
            left[n_left] = legal[i]
            n_left += 1
    for _ in range(min(k, n_left)):
        a = keep_choice(b, s, m, left, n_left, pparams, me)
        n = _add(cands, n, a)
        for i in range(n_left):
            if left[i] == a:
                left[i] = left[n_left - 1]
                n_left -= 1
                break
    return n


@kernel
def candidates(b, s, m, legal, n_legal, policy, rparams, me, params, cands):
    """The candidate actions into ``cands``, the policy's own pick first; their
    count (1: the decision is not searched)."""
    buf = np.empty_like(legal)
    n_pol = legal_list(POLICY_LISTS_CLAIMS[policy], b, s, buf)
    n = _add(cands, 0, policy_choose(policy, b, s, m, buf, n_pol, rparams))
    phase = s.meta[M_PHASE]
    pparams = rparams if policy == PLANNER_CLASSIC else \
        rollout_params(np.full(s.meta[M_NPLAYERS], PLANNER, np.int64), params, me)
    if phase == PH_KEEP or phase == PH_SETUP_KEEP:
        if params[me, P_KEEPS] > 0:
            if params[me, P_KEEP_SETS] > 0:
                return _best_keeps(b, s, m, legal, n_legal, pparams, me, int(params[me, P_KEEP_SETS]), cands, n)
            for i in range(n_legal):
                if A_KEEP <= legal[i] < A_PASSENGER:
                    n = _add(cands, n, legal[i])
        return n
    if phase != PH_MAIN:
        return n
    end = in_end_game(s, params, me)
    middle = int(params[me, P_MIDDLE])
    gate = params[me, P_TICKET_GATE]
    if gate > 0 and ticket_draw_value(b, s, m, legal, n_legal, pparams, me, -gate) > -gate:
        n = _add(cands, n, valued_draw(b, s, legal, n_legal))     # a draw might pay: the one valued
    if not end and middle == 0:
        return n
    if not end and middle == 1:
        return _add(cands, n, _ticket_draw(b, s, legal, n_legal, pparams, me))
    claims = np.empty(b.route_len.shape[0], np.int64)
    n_payable, draw = ranked_claims(b, s, m, legal, n_legal, pparams, me, claims)
    n_claims = int(params[me, P_CLAIMS])
    if trains_within(s, params[me, P_LAST_TRAINS]):
        n_claims = max(n_claims, int(params[me, P_LAST_CLAIMS]))
    n_claims = min(n_payable, n_claims)
    if not end and params[me, P_CONTESTED] > 0 and not _contested(b, s, me, claims, n_claims):
        return n
    for i in range(n_claims):
        n = _add(cands, n, claims[i])
    n = block_candidates(b, s, m, me, int(params[me, P_BLOCK]), int(params[me, P_BLOCK_DEALS]),
                         params[me, P_INFER], pparams, claims, n_payable, cands, n)
    if not end and middle == 3:
        return n
    n = _add(cands, n, draw)
    if not end:
        n = _add(cands, n, _ticket_draw(b, s, legal, n_legal, pparams, me))
    return n


@kernel
def outcome(s, me, win, clip=0.0, win_points=0.0):
    """A finished game's value for seat ``me``: its share of the win
    (``win``), or its total minus the best other total, clipped to
    +-``clip`` if ``clip`` > 0, plus ``win_points`` x its share of the win."""
    n_players = s.meta[M_NPLAYERS]
    winners = 0
    for q in range(n_players):
        winners += s.final[q, F_WINNER]
    share = s.final[me, F_WINNER] / max(winners, 1)
    if win:
        return share
    best = -(1 << 30)
    for q in range(n_players):
        if q != me:
            best = max(best, s.final[q, F_TOTAL])
    margin = float(s.final[me, F_TOTAL] - best)
    if clip > 0:
        margin = min(max(margin, -clip), clip)
    return margin + win_points * share


@kernel
def _gain(vals, c, n):
    """Candidate ``c``'s mean paired gain over candidate 0 on the first ``n``
    deals, and its standard error."""
    mean = 0.0
    for i in range(n):
        mean += vals[c, i] - vals[0, i]
    mean /= n
    var = 0.0
    for i in range(n):
        d = vals[c, i] - vals[0, i] - mean
        var += d * d
    se = np.sqrt(var / (n - 1) / n) if n > 1 else np.inf
    return mean, se


@kernel
def _play_deal(b, s, m, me, cands, alive, ro, deal):
    """Draw one determinization and play the policy's pick and the
    alternatives ``alive`` out from it with the same streams; their outcomes
    into column ``deal`` of ``ro.vals`` (``ro``: :data:`Rollouts`)."""
    policies, rparams, params, rm, legal, stream, vals, saved = ro
    det, work = m.scratch
    stream[0] = next_u64(m.rng, me)
    determinize(b, s, me, det, stream, params[me, P_INFER])
    setup_keeps(b, det, me, policies, rm, rparams, legal)
    seed = next_u64(stream, 0)
    win = params[me, P_OUTCOME] > 0
    shared = params[me, P_SHARE_PLANS] > 0 and det.meta[M_PHASE] == PH_MAIN
    if shared:
        clear_seats(rm)
        for p in range(s.meta[M_NPLAYERS]):
            if policies[p] == PLANNER:
                if p == me:         # its plan of this decision (the policy's pick), in the table's memory
                    copy_seat(m, rm, me)
                else:
                    planner.main_phase_plan(b, det, rm, rparams, p)
        copy_seats(rm, saved)
    for j in range(alive.shape[0] + 1):
        c = 0 if j == 0 else alive[j - 1]
        copy_state_into(work, det)
        if shared:
            copy_seats(saved, rm)
        else:
            clear_seats(rm)
        for p in range(s.meta[M_NPLAYERS]):
            seed_into(rm.rng, p, seed, p)
        apply_action(b, work, cands[c])
        play_out(b, work, rm, policies, rparams, legal)
        vals[c, deal] = outcome(work, me, win, params[me, P_CLIP], params[me, P_WIN_POINTS])


@kernel
def paired_search(b, s, m, me, cands, budget, z, ro):
    """Successive halving or racing (``race``) with paired rollouts over
    ``cands`` (see the module doc), played with ``ro`` (:data:`Rollouts`,
    ``ro.vals`` with room for ``budget + 1`` deals); the index of the chosen
    candidate (0, the policy's pick, unless an alternative clearly beats it)."""
    n_cands = cands.shape[0]
    params, vals = ro.params, ro.vals
    alive = np.arange(1, n_cands)              # the alternatives still in
    n_alive = n_cands - 1
    n_deals = 0
    race = params[me, P_RACE]
    min_deals = int(params[me, P_MIN_DEALS])
    if race > 0:
        used = 0
        while n_alive > 0 and n_deals < vals.shape[1] and (n_deals < RACE_START or used + n_alive + 1 <= budget):
            _play_deal(b, s, m, me, cands, alive[:n_alive], ro, n_deals)
            used += n_alive + 1
            n_deals += 1
            if n_deals >= max(min_deals, RACE_START):
                k = 0
                for j in range(n_alive):
                    mean, se = _gain(vals, alive[j], n_deals)
                    if mean + race * se > 0:
                        alive[k] = alive[j]
                        k += 1
                n_alive = k
    else:
        rounds = 0
        while (1 << rounds) < n_cands - 1:
            rounds += 1
        rounds = max(rounds, 1)
        for rnd in range(rounds):
            per = max(2 if rnd == 0 else 1, budget // ((n_alive + 1) * rounds))
            per = min(per, vals.shape[1] - n_deals)
            for _ in range(per):
                _play_deal(b, s, m, me, cands, alive[:n_alive], ro, n_deals)
                n_deals += 1
            if rnd == rounds - 1 or n_alive <= 1:
                break
            # the better half of the alternatives goes on (insertion sort by mean gain, earlier first on ties)
            for j in range(1, n_alive):
                c = alive[j]
                v, _ = _gain(vals, c, n_deals)
                i = j
                while i > 0 and _gain(vals, alive[i - 1], n_deals)[0] < v:
                    alive[i] = alive[i - 1]
                    i -= 1
                alive[i] = c
            n_alive = (n_alive + 1) // 2
            # the dropped alternatives' columns from here on are never read
    best = 0
    if n_deals < min_deals:
        return best
    best_gain = 0.0
    for j in range(n_alive):
        c = alive[j]
        mean, se = _gain(vals, c, n_deals)
        if mean > best_gain and mean > z * se:
            best = c
            best_gain = mean
    return best


@kernel
def choose(b, s, m, legal, n_legal, params):
    """The search's pick for the seat to act (see the module doc)."""
    me = s.meta[M_PLAYER]
    params = by_players(params, me, s.meta[M_NPLAYERS])
    policy = int(params[me, P_ROLLOUT])
    policies = seat_policies(policy, int(params[me, P_OPP_ROLLOUT]), me, s.meta[M_NPLAYERS])
    rparams = rollout_params(policies, params, me)
    cands = np.empty(n_legal + b.route_len.shape[0] + 4, np.int64)
    n = candidates(b, s, m, legal, n_legal, policy, rparams, me, params, cands)
    if n == 1:
        return cands[0]
    budget = params[me, P_BUDGET]
    z = params[me, P_Z]
    phase = s.meta[M_PHASE]
    if phase == PH_MAIN:
        if not in_end_game(s, params, me):
            budget = params[me, P_MIDDLE_BUDGET]
            z = params[me, P_MIDDLE_Z]
        elif params[me, P_GROWTH] > 0:
            end_trains = params[me, P_END_TRAINS]
            left = 0.0 if s.meta[M_COUNTDOWN] >= 0 or end_trains <= 0 else min(min_trains_any(s), end_trains) / end_trains
            budget *= 1.0 + params[me, P_GROWTH] * (1.0 - left)
    elif phase == PH_KEEP or phase == PH_SETUP_KEEP:
        budget *= params[me, P_KEEP_FACTOR]
    ro = rollouts(m, legal, policies, rparams, params, n, int(budget) + 1)
    best = paired_search(b, s, m, me, cands[:n], int(budget), z, ro)
    return cands[best]
