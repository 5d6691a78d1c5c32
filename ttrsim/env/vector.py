"""The vectorised batch environment: N games stepped together by one compiled
call, filling caller-owned numpy buffers, with auto-reset (for self-play
training loops).

Every step, each game's seat to act (``to_act[i]``) plays ``actions[i]``; the
buffers then hold the observation and mask of the next seat to act. When a
game ends, ``dones[i]`` is 1, ``rewards[i]`` holds every seat's reward,
``final[i]`` the final score table, and the slot starts its next game, dealt
from ``seeds[i] + n_envs`` (slot ``i`` plays seeds ``s_i, s_i + N, s_i + 2N``...,
modulo 2**63), so the games are a function of the reset seeds and the actions alone.
Seeds are integers 0 to 2**63 - 1 and actions integers (any numpy integer
dtype); anything else is refused with one line (:mod:`ttrsim.env.checks`).

This is the self-play batch (every seat to act is the learner, every seat's
reward returned). One learner against built-in compiled seats, as a
``gymnasium.vector.VectorEnv``, is
:class:`ttrsim.env.gym_vector.TicketToRideVectorEnv`: the same buffers,
stepped by :func:`learner_step`.

>>> env = VectorEnv("usa", players=2, n_envs=3)
>>> obs, mask = env.reset([1, 2, 3])
>>> obs.shape, mask.shape
((3, 682), (3, 527))
>>> rng = np.random.default_rng(0)
>>> obs, mask, rewards, dones = env.step(random_actions(mask, rng))
>>> rewards.shape, dones.tolist()
((3, 2), [0, 0, 0])
"""
from __future__ import annotations

import numba
import numpy as np
from numba.typed import List

from ttrsim.core.board import build_board
from ttrsim.core.engine import apply_action, reset_game
from ttrsim.core.state import F_TOTAL, F_WINNER, M_PHASE, M_PLAYER, N_FINAL, PH_OVER, allocate_state
from ttrsim.data.rules import RuleSet, get_rules
from ttrsim.jit import kernel
from ttrsim.jit.record import borrowed
from ttrsim.strategies.kit.dispatch import checked_pick, legal_for
from ttrsim.strategies.kit.memory import reset_memory

from . import checks
from .encoding import Layout, encode_obs, to_engine, write_mask

SEED_MAX = checks.SEED_MAX
REWARDS = ("win", "margin")     # reward modes: +1 for a winner and -1 for the others; own total - best other total


def make_board(rules: str | RuleSet, players: int, overrides: dict | None = None):
    """The rules (a preset name or a RuleSet, ``overrides`` applied to a
    preset), their board and layout for ``players`` seats (an integer 2 to 5)."""
    if overrides is not None and not isinstance(overrides, dict):
        raise TypeError(f"overrides must be a dict of rule parameters, got {checks.shown(overrides)}")
    if isinstance(rules, str):
        rules = get_rules(rules, overrides)
    elif not isinstance(rules, RuleSet):
        raise TypeError(f"rules must be a preset name or a RuleSet, got {checks.shown(rules)}")
    elif overrides:
        raise ValueError("overrides apply to a preset name; a RuleSet has its own (get_rules(preset, overrides))")
    players = checks.integer(players, "players", 2, 5, "2 to 5 (R1.2)")
    board = build_board(rules)
    return rules, board, Layout(board, players)


def reward_mode(reward: str) -> int:
    if not isinstance(reward, str) or reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
    return REWARDS.index(reward)


@kernel
def final_rewards(s, mode, out):
    """Write every seat's reward for the finished game ``s`` into ``out``."""
    P = out.shape[0]
    for p in range(P):
        if mode == 0:
            out[p] = 1.0 if s.final[p, F_WINNER] else -1.0
        else:
            best = -(1 << 30)
            for q in range(P):
                if q != p:
                    best = max(best, s.final[q, F_TOTAL])
            out[p] = s.final[p, F_TOTAL] - best


@kernel
def _observe(b, s, lay, route_act, legal, i, obs, mask, to_act, n_legal):
    p = s.meta[M_PLAYER]
    to_act[i] = p
    encode_obs(b, s, p, lay, obs[i])
    n_legal[i] = write_mask(b, s, lay, route_act, legal, mask[i])


@kernel
def vec_reset(b, states, lay, route_act, legal, seeds, obs, mask, to_act, n_legal):
    """Deal game ``seeds[i]`` in slot ``i`` and observe its first seat to act."""
    for i in range(len(states)):
        reset_game(b, states[i], seeds[i])
        _observe(b, states[i], lay, route_act, legal, i, obs, mask, to_act, n_legal)


@kernel
def vec_step(b, states, lay, route_act, act_engine, legal, actions, seeds, mode, obs, mask, rewards, dones,
             to_act, n_legal, final):
    """Play ``actions[i]`` in every slot (auto-reset, see the module doc).
    Returns -1, or the first slot whose action its mask does not allow (then
    nothing moved). The mask is the one this env wrote: a caller reads it,
    never writes it."""
    # the env holds these arrays through the call: uncounted views, so that the calls for every slot below
    # do not count each one (the counts were 22% of a step's samples, docs/env.md)
    lay, route_act, act_engine, legal = borrowed(lay), borrowed(route_act), borrowed(act_engine), borrowed(legal)
    obs, mask, rewards, final = borrowed(obs), borrowed(mask), borrowed(rewards), borrowed(final)
    to_act, n_legal = borrowed(to_act), borrowed(n_legal)
    n = len(states)
    for i in range(n):
        a = actions[i]
        if a < 0 or a >= mask.shape[1] or mask[i, a] != 1:
            return i
    for i in range(n):
        s = states[i]
        apply_action(b, s, to_engine(b, s, act_engine, actions[i]))
        if s.meta[M_PHASE] == PH_OVER:
            dones[i] = 1
            final_rewards(s, mode, rewards[i])
            final[i, :, :] = s.final
            seeds[i] = (seeds[i] + n) & SEED_MAX           # past 2**63 - 1: on from 0
            reset_game(b, s, seeds[i])
        else:
            dones[i] = 0
            rewards[i, :] = 0
        _observe(b, s, lay, route_act, legal, i, obs, mask, to_act, n_legal)
    return -1


@kernel
def play_others(kernels, b, s, m, seat, strategy_ids, params, legal):
    """Let the compiled strategies play until seat ``seat`` is to act or the
    game is over (``kernels``: :func:`~ttrsim.strategies.kit.dispatch.kernels_for` of ``strategy_ids``)."""
    while s.meta[M_PHASE] != PH_OVER and s.meta[M_PLAYER] != seat:
        sid = strategy_ids[s.meta[M_PLAYER]]
        n = legal_for(sid, b, s, legal)
        apply_action(b, s, checked_pick(kernels, sid, b, s, m, legal, n, params))


@kernel
def _deal_for_learner(kernels, b, s, m, seed, seat, strategy_ids, params, legal):
    reset_game(b, s, seed)
    reset_memory(m, seed)
    play_others(kernels, b, s, m, seat, strategy_ids, params, legal)


@kernel
def _observe_learner(b, s, lay, route_act, legal, seat, i, obs, mask, n_legal):
    encode_obs(b, s, seat, lay, obs[i])
    n_legal[i] = write_mask(b, s, lay, route_act, legal, mask[i])


@kernel
def learner_reset(kernels, b, states, memories, lay, route_act, legal, seeds, seats, strategy_ids, params, obs,
                  mask, n_legal):
    """Deal game ``seeds[i]`` in slot ``i``, let the built-in seats play up to
    the learner's (seat ``seats[i]``) first decision and observe it (the batch of
    :class:`ttrsim.env.gym_vector.TicketToRideVectorEnv`)."""
    for i in range(len(states)):
        _deal_for_learner(kernels, b, states[i], memories[i], seeds[i], seats[i], strategy_ids, params, legal)
        _observe_learner(b, states[i], lay, route_act, legal, seats[i], i, obs, mask, n_legal)


@kernel
def learner_step(kernels, b, states, memories, lay, route_act, act_engine, legal, actions, seeds, seats,
                 strategy_ids, params, mode, illegal_reward, obs, mask, n_legal, final, rewards, outcome,
                 final_obs, seat_rewards):
    """The learner (seat ``seats[i]``) plays ``actions[i]`` in every slot, the built-in seats
    play up to its next decision. ``outcome[i]``: 0 the game goes on, 1 it
    ended (``rewards[i]`` the seat's reward, ``final[i]`` the score table), 2
    the action was not in the mask (``rewards[i] = illegal_reward``, the game
    stops there). An ended slot (1 or 2) keeps the seat's last observation in
    ``final_obs[i]`` and deals its next game from ``seeds[i] + n`` at once
    (same-step autoreset)."""
    # uncounted, as in vec_step: the arrays passed on to a call for every slot
    lay, route_act, act_engine, legal = borrowed(lay), borrowed(route_act), borrowed(act_engine), borrowed(legal)
    strategy_ids, params, seat_rewards = borrowed(strategy_ids), borrowed(params), borrowed(seat_rewards)
    obs, mask, n_legal, final_obs = borrowed(obs), borrowed(mask), borrowed(n_legal), borrowed(final_obs)
    n = len(states)
    for i in range(n):
        s, m, seat = states[i], memories[i], seats[i]
        a = actions[i]
        if a < 0 or a >= mask.shape[1] or mask[i, a] != 1:
            outcome[i] = 2
            rewards[i] = illegal_reward
        else:
            apply_action(b, s, to_engine(b, s, act_engine, a))
            play_others(kernels, b, s, m, seat, strategy_ids, params, legal)
            if s.meta[M_PHASE] == PH_OVER:
                outcome[i] = 1
                final_rewards(s, mode, seat_rewards)
                rewards[i] = seat_rewards[seat]
                final[i, :, :] = s.final
            else:
                outcome[i] = 0
                rewards[i] = 0.0
        if outcome[i] != 0:
            encode_obs(b, s, seat, lay, final_obs[i])
            seeds[i] = (seeds[i] + n) & SEED_MAX
            _deal_for_learner(kernels, b, s, m, seeds[i], seat, strategy_ids, params, legal)
        _observe_learner(b, s, lay, route_act, legal, seat, i, obs, mask, n_legal)


NTH_STRIDE = 16    # _nth_ones skips whole strides of a row by their sums (a loop the compiler vectorises)


@kernel
def _nth_ones(flags, nth, out):
    """``out[i]``: the column of the ``nth[i]``-th True (from 0) of row ``i`` of ``flags``.
    A row is skipped a stride at a time while the stride holds at most the
    ones still to pass, then scanned one column at a time (half the time of a
    plain scan on mid-game USA masks)."""
    for i in range(flags.shape[0]):
        k = nth[i]
        row = flags[i]
        n = row.shape[0]
        a = 0
        while a + NTH_STRIDE <= n:
            ones = 0
            for j in range(NTH_STRIDE):
                ones += row[a + j]
            if ones > k:
                break
            k -= ones
            a += NTH_STRIDE
        for c in range(a, n):
            if row[c]:
                if k == 0:
                    out[i] = c
                    break
                k -= 1


def random_actions(mask: np.ndarray, rng: np.random.Generator, counts: np.ndarray | None = None) -> np.ndarray:
    """One legal action per row of the 0/1 ``mask`` (int8, uint8 or bool, 2-d,
    each row with a legal action), uniformly at random (numpy's ``rng``, then a
    compiled scan of each row); ``counts``:
    the ones per row if known (:class:`VectorEnv` ``n_legal``).

    >>> random_actions(np.array([[0, 1, 1], [1, 0, 0]], np.int8), np.random.default_rng(0)).tolist()
    [2, 0]
    """
    if not (isinstance(mask, np.ndarray) and mask.ndim == 2 and mask.dtype in (np.int8, np.uint8, np.bool_)):
        raise TypeError(f"mask must be a 2-d int8, uint8 or bool array (VectorEnv.mask), got "
                        f"{mask.dtype.name if isinstance(mask, np.ndarray) else checks.shown(mask)}"
                        f"{f' of shape {mask.shape}' if isinstance(mask, np.ndarray) else ''}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {checks.shown(rng)}")
    flags = mask.view(np.bool_)
    if counts is None:
        counts = np.count_nonzero(flags, axis=1)
    elif not (isinstance(counts, np.ndarray) and counts.shape == (mask.shape[0],) and counts.dtype.kind in "iu"):
        raise ValueError(f"counts must be {mask.shape[0]} integers (the ones per row of mask), "
                         f"got {checks.shown(counts)}")
    if mask.shape[0] and not counts.min() > 0:
        raise ValueError(f"row {int(np.argmin(counts))} of mask has no legal action; expected at least one per row")
    nth = (rng.random(mask.shape[0]) * counts).astype(np.int64)
    out = np.full(mask.shape[0], -1, np.int64)    # (stays -1 where counts overstate a row)
    _nth_ones(flags, nth, out)
    return out


class VectorEnv:
    """``n_envs`` games of ``rules`` for ``players`` seats, stepped together.

    The buffers (``obs`` float32[N, obs_size], ``mask`` int8[N, n_actions],
    ``rewards`` float32[N, players], ``dones`` int8[N], ``to_act`` int32[N]
    (the seat to act), ``n_legal`` int32[N] (its legal actions), ``final``
    int32[N, players, N_FINAL]) are allocated once, or given by the
    caller (``obs=``, ``mask=``, ...), and overwritten in place by every
    :meth:`reset` and :meth:`step`, which return them. ``reward``: ``"win"``
    or ``"margin"``. ``layout`` documents the tensors
    (:class:`ttrsim.env.encoding.Layout`)."""

    def __init__(self, rules: str | RuleSet = "usa", players: int = 4, n_envs: int = 256, reward: str = "win",
                 overrides: dict | None = None, **buffers):
        self.rules, self.board, self.layout = make_board(rules, players, overrides)
        players = self.layout.n_players
        n_envs = checks.integer(n_envs, "n_envs", 1, checks.MAX_ENVS)
        self.n_envs, self.players, self.mode = n_envs, players, reward_mode(reward)
        lay = self.layout
        shapes = {"obs": ((n_envs, lay.obs_size), np.float32), "mask": ((n_envs, lay.n_actions), np.int8),
                  "rewards": ((n_envs, players), np.float32), "dones": ((n_envs,), np.int8),
                  "to_act": ((n_envs,), np.int32), "n_legal": ((n_envs,), np.int32), "final": ((n_envs, players, N_FINAL), np.int32)}
        for name in buffers:
            if name not in shapes:
                raise ValueError(f"unknown buffer {name!r}; expected some of {', '.join(shapes)}")
        for name, (shape, dtype) in shapes.items():
            buf = buffers.get(name)
            if buf is None:
                buf = np.zeros(shape, dtype)
            elif not (isinstance(buf, np.ndarray) and buf.shape == shape and buf.dtype == dtype
                      and buf.flags.c_contiguous):
                raise ValueError(f"buffer {name} must be a C-contiguous {np.dtype(dtype).name} array of shape {shape}")
            setattr(self, name, buf)
        self._state_objects = states = [allocate_state(self.board, players) for _ in range(n_envs)]
        self.states = states if numba.config.DISABLE_JIT else List(states)     # (the records live in the list above)
        self.seeds = np.zeros(n_envs, np.int64)
        self._started = False

    def reset(self, seeds) -> tuple[np.ndarray, np.ndarray]:
        """Deal game ``seeds[i]`` in slot ``i`` (``n_envs`` integers 0 to
        2**63 - 1); returns ``(obs, mask)``."""
        self.seeds[:] = checks.integers(seeds, "seeds", self.n_envs, 0, checks.SEED_MAX,
                                        f"{checks.SEED_RANGE}, one per game")
        self._started = True
        self.rewards[:] = 0
        self.dones[:] = 0
        lay = self.layout
        vec_reset(self.board, self.states, lay.lay, lay.route_act, lay.legal, self.seeds, self.obs, self.mask,
                  self.to_act, self.n_legal)
        return self.obs, self.mask

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Play ``actions[i]`` (an env action legal in ``mask[i]``) in game ``i``;
        returns ``(obs, mask, rewards, dones)``. ``actions``: ``n_envs``
        integers of any integer dtype. Raises (and moves no game) TypeError
        for values that are not integers, ValueError for another shape or an
        action that is not legal, RuntimeError before the first :meth:`reset`."""
        if not self._started:
            raise RuntimeError("reset(seeds) needs to be called before step")
        n = self.layout.n_actions
        actions = checks.integers(actions, "actions", self.n_envs, 0, n - 1, f"0 to {n - 1} (env actions)")
        lay = self.layout
        bad = vec_step(self.board, self.states, lay.lay, lay.route_act, lay.act_engine, lay.legal, actions,
                       self.seeds, self.mode, self.obs, self.mask, self.rewards, self.dones, self.to_act, self.n_legal,
                       self.final)
        if bad >= 0:
            raise ValueError(f"action {int(actions[bad])} is not legal in game {bad} "
                             f"(seed {int(self.seeds[bad])}); "
                             "expected an action of its mask")
        return self.obs, self.mask, self.rewards, self.dones
