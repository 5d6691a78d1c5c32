"""Rollout policies: the built-in kernels ``search`` plays its games out
with, by policy id, and :func:`play_out`, a game played to the end with one
policy a seat.

A policy id is a position in :data:`POLICY_NAMES` (``planner`` is 0, the
default). ``search`` cannot call the dispatcher (the dispatcher calls it), so
this module calls the few kernels worth a rollout itself, each with its
registered default parameters.

>>> from ttrsim.play.game import Game
>>> from ttrsim.strategies.kit.memory import allocate_memory, reset_memory
>>> from ttrsim.core.state import F_TOTAL, copy_state
>>> g = Game("usa", 2, seed=3); m = allocate_memory(g.board, 2); reset_memory(m, 3)
>>> s = copy_state(g.state)
>>> greedy = np.full(2, POLICY_IDS["greedy"])
>>> play_out(g.board, s, m, greedy, policies_params(greedy), legal_buffer(g.board))
>>> int(s.final[:, F_TOTAL].sum()) != 0
True
"""
import numpy as np

from ttrsim.core.actions import legal_buffer  # noqa: F401  (the doctest's)
from ttrsim.core.engine import apply_action
from ttrsim.core.state import M_PHASE, M_PLAYER, PH_OVER
from ttrsim.jit import kernel

from .. import greedy, planner, random_strategy
from ..kit.action_picks import legal_list
from ..spec import MAX_PARAMS

# policy id -> (spec, module of its kernel); planner first: the default rollout policy
_POLICIES = ((planner.SPEC, planner), (planner.CLASSIC_SPEC, planner), (greedy.SPEC, greedy),
             (random_strategy.SPEC, random_strategy))
POLICY_NAMES = tuple(spec.name for spec, _ in _POLICIES)
POLICY_IDS = {name: i for i, name in enumerate(POLICY_NAMES)}
POLICY_LISTS_CLAIMS = tuple(spec.lists_claims for spec, _ in _POLICIES)
# each policy's default parameter row (a rollout seats it with its defaults at every seat)
POLICY_DEFAULTS = np.zeros((len(_POLICIES), MAX_PARAMS))
for _i, (_spec, _) in enumerate(_POLICIES):
    POLICY_DEFAULTS[_i, :len(_spec.params)] = [p.default for p in _spec.params]

PLANNER = POLICY_IDS["planner"]
PLANNER_CLASSIC = POLICY_IDS["planner_classic"]
GREEDY = POLICY_IDS["greedy"]
RANDOM = POLICY_IDS["random"]


@kernel
def policy_choose(policy, b, s, m, legal, n_legal, params):
    """Policy ``policy``'s kernel ``choose(b, s, m, legal, n_legal, params)``."""
    if policy == PLANNER or policy == PLANNER_CLASSIC:     # one kernel, two parameter sets
        return planner.choose(b, s, m, legal, n_legal, params)
    if policy == GREEDY:
        return greedy.choose(b, s, m, legal, n_legal, params)
    if policy == RANDOM:
        return random_strategy.choose(b, s, m, legal, n_legal, params)
    raise ValueError("unknown rollout policy")


@kernel
def policy_params(policy, n_players):
    """A parameter table seating policy ``policy`` with its defaults at every seat."""
    out = np.empty((n_players, MAX_PARAMS))
    for p in range(n_players):
        out[p, :] = POLICY_DEFAULTS[policy]
    return out


@kernel
def seat_policies(policy, others, me, n_players):
    """The policy id of every seat: ``policy`` at seat ``me``, ``others`` at
    the other seats (``policy`` too if ``others`` < 0)."""
    out = np.full(n_players, policy, np.int64)
    if others >= 0:
        for p in range(n_players):
            if p != me:
                out[p] = others
    return out


@kernel
def policies_params(policies):
    """A parameter table seating ``policies[p]`` with its defaults at seat ``p``."""
    out = np.empty((policies.shape[0], MAX_PARAMS))
    for p in range(policies.shape[0]):
        out[p, :] = POLICY_DEFAULTS[policies[p]]
    return out


@kernel
def play_out(b, s, m, policies, params, legal):
    """Play the game in ``s`` to the end with policy ``policies[p]`` at seat
    ``p`` (parameter table ``params``, memory ``m``)."""
    while s.meta[M_PHASE] != PH_OVER:
        policy = policies[s.meta[M_PLAYER]]
        n = legal_list(POLICY_LISTS_CLAIMS[policy], b, s, legal)
        apply_action(b, s, policy_choose(policy, b, s, m, legal, n, params))
