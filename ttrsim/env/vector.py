"""The vectorised batch environment: N games stepped together by one compiled
call, filling caller-owned numpy buffers, with auto-reset (for self-play
training loops).

Every step, each game's seat to act (``to_act[i]``) plays ``actions[i]``; the
buffers then hold the observation and mask of the next seat to act. When a
game ends, ``dones[i]`` is 1, ``rewards[i]`` holds every seat's reward,
``final[i]`` the final score table, and the slot starts its next game, dealt
from ``seeds[i] + n_envs`` (slot ``i`` plays seeds ``s_i, s_i + N, s_i + 2N``...),
so the games are a function of the reset seeds and the actions alone.

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
from numba import njit
from numba.typed import List

from ttrsim.core.board import build_board
from ttrsim.core.engine import apply_action, reset_game
from ttrsim.core.state import F_TOTAL, F_WINNER, M_PHASE, M_PLAYER, N_FINAL, PH_OVER, allocate_state
from ttrsim.data.rules import RulesError, RuleSet, get_rules

from .encoding import Layout, encode_obs, to_engine, write_mask

REWARDS = ("win", "margin")     # reward modes: +1 for a winner and -1 for the others; own total - best other total


def make_board(rules: str | RuleSet, players: int, overrides: dict | None = None):
    """The rules (a preset name or a RuleSet), their board and layout for ``players`` seats."""
    if isinstance(rules, str):
        rules = get_rules(rules, overrides)
    if not isinstance(players, int) or not 2 <= players <= 5:
        raise RulesError(f"players must be 2 to 5 (R1.2), got {players!r}")
    board = build_board(rules)
    return rules, board, Layout(board, players)


def reward_mode(reward: str) -> int:
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
    return REWARDS.index(reward)


@njit(cache=True)
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


@njit(cache=True)
def _observe(b, s, lay, route_act, legal, i, obs, mask, to_act, n_legal):
    p = s.meta[M_PLAYER]
    to_act[i] = p
    encode_obs(b, s, p, lay, obs[i])
    n_legal[i] = write_mask(b, s, lay, route_act, legal, mask[i])


@njit(cache=True)
def vec_reset(b, states, lay, route_act, legal, seeds, obs, mask, to_act, n_legal):
    """Deal game ``seeds[i]`` in slot ``i`` and observe its first seat to act."""
    for i in range(len(states)):
        reset_game(b, states[i], seeds[i])
        _observe(b, states[i], lay, route_act, legal, i, obs, mask, to_act, n_legal)


@njit(cache=True)
def vec_step(b, states, lay, route_act, act_engine, legal, actions, seeds, mode, obs, mask, rewards, dones,
             to_act, n_legal, final):
    """Play ``actions[i]`` in every slot (auto-reset, see the module doc).
    Returns -1, or the first slot whose action its mask does not allow (then
    nothing moved). The mask is the one this env wrote: a caller reads it,
    never writes it."""
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
            seeds[i] += n
            reset_game(b, s, seeds[i])
        else:
            dones[i] = 0
            rewards[i, :] = 0
        _observe(b, s, lay, route_act, legal, i, obs, mask, to_act, n_legal)
    return -1


def random_actions(mask: np.ndarray, rng: np.random.Generator, counts: np.ndarray | None = None) -> np.ndarray:
    """One legal action per row of the 0/1 ``mask``, uniformly at random, in
    numpy; ``counts``: the ones per row if known (:class:`VectorEnv` ``n_legal``).

    >>> random_actions(np.array([[0, 1, 1], [1, 0, 0]], np.int8), np.random.default_rng(0)).tolist()
    [2, 0]
    """
    flags = mask.view(np.bool_)
    if counts is None:
        counts = np.count_nonzero(flags, axis=1)
    starts = np.cumsum(counts) - counts
    pick = starts + (rng.random(mask.shape[0]) * counts).astype(np.int64)
    return np.flatnonzero(flags)[pick] % mask.shape[1]


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
        if not isinstance(n_envs, int) or n_envs < 1:
            raise ValueError(f"n_envs must be a positive integer, got {n_envs!r}")
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

    def reset(self, seeds) -> tuple[np.ndarray, np.ndarray]:
        """Deal game ``seeds[i]`` in slot ``i``; returns ``(obs, mask)``."""
        seeds = np.asarray(seeds, np.int64).reshape(-1)
        if seeds.shape[0] != self.n_envs:
            raise ValueError(f"give one seed per game ({self.n_envs}), got {seeds.shape[0]}")
        self.seeds[:] = seeds
        self.rewards[:] = 0
        self.dones[:] = 0
        lay = self.layout
        vec_reset(self.board, self.states, lay.lay, lay.route_act, lay.legal, self.seeds, self.obs, self.mask,
                  self.to_act, self.n_legal)
        return self.obs, self.mask

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Play ``actions[i]`` (an env action legal in ``mask[i]``) in game ``i``;
        returns ``(obs, mask, rewards, dones)``. Raises ValueError (and moves
        no game) if an action is not legal."""
        actions = np.asarray(actions)
        if actions.shape != (self.n_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.n_envs} integers, got {actions.dtype} of shape {actions.shape}")
        lay = self.layout
        bad = vec_step(self.board, self.states, lay.lay, lay.route_act, lay.act_engine, lay.legal, actions,
                       self.seeds, self.mode, self.obs, self.mask, self.rewards, self.dones, self.to_act, self.n_legal,
                       self.final)
        if bad >= 0:
            raise ValueError(f"action {int(actions[bad])} is not legal in game {bad} (seed {int(self.seeds[bad])}); "
                             "expected an action of its mask")
        return self.obs, self.mask, self.rewards, self.dones
