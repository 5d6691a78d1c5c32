"""``search``: determinized Monte Carlo search over a rollout policy's
options (issue 11, section 2).

At a decision with a real choice (the main action of a turn, which tickets
to keep at setup or after a draw) it lists a few candidate actions from the
policy's own ranking, plays each out to the end of the game many times, each
time from a fresh *determinization* (:mod:`ttrsim.strategies.determinize`:
the hidden cards and tickets dealt anew, consistent with what the seat sees),
with the rollout policy (:mod:`ttrsim.strategies.rollout`) at every seat, and
takes the candidate with the best mean outcome (score margin or win).

* Candidates, main phase: the policy's own pick, the planner's ``claims``
  best claims (its plan's routes by claim priority, then other payable routes
  by points, each with the planner's payment;
  :func:`ttrsim.strategies.planner.ranked_claims`), the planner's card draw
  and a ticket draw (in Germany the planner's short/long mix). Keep phases:
  every legal keep set. Other decisions (the second card, Germany's setup
  mix, passenger colours) and a single candidate are the policy's pick, at no
  cost.
* Allocation: successive halving. ``budget`` rollouts a decision are spread
  over ``ceil(log2(candidates))`` rounds; in each round every remaining
  candidate is played out from the same determinizations with the same
  random streams (common random numbers: the candidates are compared on
  identical deals), and the better half (by mean outcome so far) goes on.
* Outcome (``outcome``): 0 the score margin (own total minus the best other
  total), 1 a win (shared wins count a share).
* Rollouts seat the policy ``rollout`` (a policy id of
  :data:`ttrsim.strategies.rollout.POLICY_NAMES`, 0 = ``planner``) with its
  default parameters at every seat, each seat with a fresh memory.

Fair play: the candidates come from the policy and the planner, which read
only what the seat may see; every determinization is drawn with a stream
seeded from the seat's own stream (``m.rng``), never the game's, from pools
built canonically; so changing what the seat cannot see changes nothing
(``tests/test_strategy_api.py``). The search keeps nothing between decisions
but what the policy and the planner keep in the seat's memory rows; the
rollouts' memory is a scratch table.

>>> from ttrsim.play.game import Game
>>> from ttrsim.core.actions import legal_buffer
>>> from ttrsim.strategies import param_row
>>> from ttrsim.strategies.memory import allocate_memory, reset_memory
>>> g = Game("usa", 2, seed=1); m = allocate_memory(g.board, 2); reset_memory(m, 1)
>>> params = np.tile(param_row("search", {"budget": 8}), (2, 1)); buf = legal_buffer(g.board)
>>> n = legal_list(False, g.board, g.state, buf)
>>> choose(g.board, g.state, m, buf, n, params) in g.legal_actions()
True
"""
import numpy as np
from numba import njit

from ttrsim.core.actions import A_KEEP, A_PASSENGER, A_TICKETS
from ttrsim.core.engine import apply_action
from ttrsim.core.rng import next_u64, seed_into
from ttrsim.core.state import (
    F_TOTAL,
    F_WINNER,
    M_NPLAYERS,
    M_PHASE,
    M_PLAYER,
    PH_KEEP,
    PH_MAIN,
    PH_SETUP_KEEP,
)

from .determinize import clone_state, copy_state_into, determinize, setup_keeps
from .memory import new_memory
from .planner import ranked_claims
from .planner_tickets import mix_choice
from .rollout import PLANNER, PLANNER_CLASSIC, POLICY_LISTS_CLAIMS, legal_list, play_out, policy_choose, policy_params
from .spec import Param, StrategySpec

SPEC = StrategySpec(
    "search",
    "determinized Monte Carlo search: plays the rollout policy's best few options out to the end from deals "
    "consistent with what it sees, successive halving, best mean outcome",
    params=(
        Param("budget", 64.0, "rollouts (games played out) per decision with more than one candidate"),
        Param("claims", 3.0, "the planner's best claims among the main-phase candidates"),
        Param("rollout", 0.0, "rollout policy: 0 planner, 1 planner_classic, 2 greedy, 3 random "
                              "(ttrsim.strategies.rollout)"),
        Param("outcome", 0.0, "what a rollout scores: 0 own total minus the best other total, 1 a win"),
    ),
    lists_claims=False,
)
P_BUDGET = SPEC.index("budget")
P_CLAIMS = SPEC.index("claims")
P_ROLLOUT = SPEC.index("rollout")
P_OUTCOME = SPEC.index("outcome")


@njit(cache=True)
def _add(cands, n, a):
    """Append action ``a`` to ``cands[:n]`` unless it is there; the new count."""
    if a < 0:
        return n
    for i in range(n):
        if cands[i] == a:
            return n
    cands[n] = a
    return n + 1


@njit(cache=True)
def candidates(b, s, m, legal, n_legal, policy, rparams, me, k_claims, cands):
    """The candidate actions into ``cands``, the policy's own pick first; their count."""
    buf = np.empty_like(legal)
    n_pol = legal_list(POLICY_LISTS_CLAIMS[policy], b, s, buf)
    n = _add(cands, 0, policy_choose(policy, b, s, m, buf, n_pol, rparams))
    phase = s.meta[M_PHASE]
    if phase == PH_MAIN:
        ranker = policy if policy == PLANNER_CLASSIC else PLANNER
        pparams = rparams if ranker == policy else policy_params(ranker, s.meta[M_NPLAYERS])
        claims = np.empty(b.route_len.shape[0], np.int64)
        n_claims, draw = ranked_claims(b, s, m, legal, n_legal, pparams, me, claims)
        for i in range(min(n_claims, k_claims)):
            n = _add(cands, n, claims[i])
        n = _add(cands, n, draw)
        for i in range(n_legal):
            if A_TICKETS <= legal[i] < A_KEEP:
                n = _add(cands, n, mix_choice(b, s, legal, n_legal, pparams, me))
                break
    elif phase == PH_KEEP or phase == PH_SETUP_KEEP:
        for i in range(n_legal):
            if A_KEEP <= legal[i] < A_PASSENGER:
                n = _add(cands, n, legal[i])
    return n


@njit(cache=True)
def outcome(s, me, win):
    """A finished game's value for seat ``me``: its share of the win, or its
    total minus the best other total."""
    n_players = s.meta[M_NPLAYERS]
    if win:
        winners = 0
        for q in range(n_players):
            winners += s.final[q, F_WINNER]
        return s.final[me, F_WINNER] / max(winners, 1)
    best = -(1 << 30)
    for q in range(n_players):
        if q != me:
            best = max(best, s.final[q, F_TOTAL])
    return float(s.final[me, F_TOTAL] - best)


@njit(cache=True)
def halving(b, s, m, me, cands, n_cands, budget, policy, rparams, win, buf):
    """Successive halving over ``cands[:n_cands]`` (see the module doc); the
    index of the best candidate. ``buf`` is a legal-action buffer to size the
    rollouts' own."""
    n_players = s.meta[M_NPLAYERS]
    det = clone_state(s)
    work = clone_state(s)
    rm = new_memory(n_players, b.route_len.shape[0])
    legal = np.empty_like(buf)
    stream = np.zeros(1, np.uint64)
    total = np.zeros(n_cands)
    count = np.zeros(n_cands)
    alive = np.arange(n_cands)
    n_alive = n_cands
    rounds = 0
    while (1 << rounds) < n_cands:
        rounds += 1
    while n_alive > 1:
        per = max(1, budget // (n_alive * rounds))
        for _ in range(per):
            stream[0] = next_u64(m.rng, me)
            determinize(b, s, me, det, stream)
            setup_keeps(b, det, me, policy, rm, rparams, legal)
            seed = next_u64(stream, 0)
            for j in range(n_alive):
                c = alive[j]
                copy_state_into(work, det)
                rm.numbers[:, :] = 0
                rm.route_numbers[:, :, :] = 0
                rm.route_sets[:, :, :] = 0
                for p in range(n_players):
                    seed_into(rm.rng, p, seed, p)
                apply_action(b, work, cands[c])
                play_out(b, work, rm, policy, rparams, legal)
                total[c] += outcome(work, me, win)
                count[c] += 1
        # the better half goes on (insertion sort by mean, earlier candidates first on ties)
        for j in range(1, n_alive):
            c = alive[j]
            v = total[c] / count[c]
            i = j
            while i > 0 and total[alive[i - 1]] / count[alive[i - 1]] < v:
                alive[i] = alive[i - 1]
                i -= 1
            alive[i] = c
        n_alive = (n_alive + 1) // 2
    return alive[0]


@njit(cache=True)
def choose(b, s, m, legal, n_legal, params):
    """The search's pick for the seat to act (see the module doc)."""
    me = s.meta[M_PLAYER]
    policy = int(params[me, P_ROLLOUT])
    rparams = policy_params(policy, s.meta[M_NPLAYERS])
    cands = np.empty(n_legal + b.route_len.shape[0] + 4, np.int64)
    n = candidates(b, s, m, legal, n_legal, policy, rparams, me, int(params[me, P_CLAIMS]), cands)
    if n == 1:
        return cands[0]
    best = halving(b, s, m, me, cands, n, int(params[me, P_BUDGET]), policy, rparams, params[me, P_OUTCOME] > 0,
                   legal)
    return cands[best]
