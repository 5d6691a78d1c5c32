"""The batch env as a ``gymnasium.vector.VectorEnv``: ``num_envs`` games of the
Gymnasium single-agent env (:mod:`ttrsim.env.single`: the learner in ``seat``,
built-in compiled ``opponents``), stepped together by one compiled call
(:func:`ttrsim.env.vector.learner_step`) in :class:`~ttrsim.env.VectorEnv`'s
buffers. ``gymnasium.make_vec(id, num_envs=N)`` of a registered id builds it
(:mod:`ttrsim.env.registration`).

**Autoreset: same step** (``metadata["autoreset_mode"]`` is
``gymnasium.vector.AutoresetMode.SAME_STEP``). The step that ends a game
returns ``terminated[i] = True``, the game's reward and, as the observation of
slot ``i``, the first observation of its next game, dealt at once;
``infos["final_obs"][i]`` holds the ended game's last observation and
``infos["final_info"]`` its info (``"final"``: the int32 score table of the
seats, ``"illegal_action"``, each with its ``_``-prefixed mask, as
``SyncVectorEnv`` batches them). Every step after it is a step of the new game:
no step is spent on a reset and no action is ignored. ``infos["action_mask"]``
(int8, one row per slot) and :meth:`action_masks` (bool) are the masks of the
observations returned, so after an autoreset they are the new game's.

Seeds: ``reset(seed=s)`` deals game ``s + i`` in slot ``i`` (as
``SyncVectorEnv`` seeds its envs), ``reset(seed=[s_0, ...])`` game ``s_i``,
``reset()`` random games; slot ``i`` then plays ``s_i + N``, ``s_i + 2N``, ...
(modulo 2**63), so the games depend on the seeds and actions alone, and game
``s`` is the game :class:`~ttrsim.env.single.TicketToRideEnv` plays after
``reset(seed=s)`` with the same actions. An action outside its mask ends that
slot's game with ``illegal_reward`` (``final_info["illegal_action"]``), as the
single env does; a value that is not an integer is refused with one line.

>>> env = TicketToRideVectorEnv(3, rules="usa", players=2, opponents="greedy")
>>> obs, infos = env.reset(seed=1)
>>> obs.shape, env.action_space, env.metadata["autoreset_mode"].name
((3, 682), MultiDiscrete([527 527 527]), 'SAME_STEP')
>>> obs, rewards, terminated, truncated, infos = env.step(infos["action_mask"].argmax(axis=1))
>>> rewards.tolist(), terminated.tolist(), infos["action_mask"].shape
([0.0, 0.0, 0.0], [False, False, False], (3, 527))
>>> env.close()
"""
from __future__ import annotations

import gymnasium as gym
import numba
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from numba.typed import List

from ttrsim.strategies import param_row, strategy_id
from ttrsim.strategies.kit.dispatch import kernels_for
from ttrsim.strategies.kit.memory import allocate_memory

from . import checks
from .single import check_options, observation_spaces
from .vector import SEED_MAX, VectorEnv, learner_reset, learner_step

ACTION_MIN = -(2 ** 63)          # any integer is an action: one outside the mask ends the game (illegal_reward)


class TicketToRideVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` games, the learner in ``seat`` (an integer, or one per
    slot: ``seat[i]`` in slot ``i``, e.g. ``[i % players for i in range(N)]``
    for a learner in every seat), ``opponents`` (one strategy name, or one
    per seat, the learner's entry ignored) in the other seats; ``rules``,
    ``players``, ``reward``, ``illegal_reward`` and ``overrides`` as
    :class:`~ttrsim.env.single.TicketToRideEnv`'s. ``copy``: return copies
    of the observation and mask buffers (the default, as
    ``SyncVectorEnv``), or the buffers themselves, overwritten by the next
    call. ``render_mode``: None only (render a game with
    :meth:`ttrsim.play.game.Game.render`)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 256, rules="usa", players: int = 4, seat: int | list[int] = 0,
                 opponents="random", reward: str = "win", illegal_reward: float = -1.0, render_mode: str | None = None,
                 overrides: dict | None = None, copy: bool = True):
        if render_mode is not None:
            raise ValueError(f"render_mode must be None for the vector env, got {checks.shown(render_mode)}; "
                             "render a game with Game.render")
        num_envs = checks.integer(num_envs, "num_envs", 1, checks.MAX_ENVS)
        self.batch = batch = VectorEnv(rules, players, num_envs, reward, overrides)
        self.rules, self.board, self.layout = batch.rules, batch.board, batch.layout
        players = self.layout.n_players
        self.num_envs = batch.n_envs
        names = checks.strategy_names(opponents, players)
        if isinstance(seat, (list, tuple, np.ndarray)):
            self.seat = self.seats = checks.integers(seat, "seat", self.num_envs, 0, players - 1,
                                                     f"0 to {players - 1}, one per game")
        else:
            self.seat = checks.integer(seat, "seat", 0, players - 1)
            self.seats = np.full(self.num_envs, self.seat, np.int64)
            names[self.seat] = "random"
        self.strategy_ids = np.array([strategy_id(n) for n in names], np.int64)
        self.kernels = kernels_for(self.strategy_ids)
        self.params = np.array([param_row(n, rules=self.rules, players=players) for n in names])
        self.illegal_reward = checks.finite(illegal_reward, "illegal_reward")
        if not isinstance(copy, bool):
            raise TypeError(f"copy must be True or False, got {checks.shown(copy)}")
        self.copy, self.render_mode = copy, None
        self.single_observation_space, _ = observation_spaces(self.layout)
        self.single_action_space = gym.spaces.Discrete(self.layout.n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._memory_objects = memories = [allocate_memory(self.board, players) for _ in range(self.num_envs)]
        self.memories = memories if numba.config.DISABLE_JIT else List(memories)
        n = self.num_envs
        self.rewards = np.zeros(n, np.float64)
        self.outcome = np.zeros(n, np.int8)
        self.final_obs = np.zeros_like(batch.obs)
        self._seat_rewards = np.zeros(players, np.float64)
        self._started = False

    # the buffers (VectorEnv's): observations and masks of the learner, one row per slot
    @property
    def seeds(self) -> np.ndarray:
        """The seed of the game each slot plays now."""
        return self.batch.seeds

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Deal a game in every slot (the seeds: the module doc); returns ``(obs, infos)``."""
        check_options(options)
        n = self.num_envs
        if seed is None:
            seeds = self.np_random.integers(2 ** 31, size=n, dtype=np.int64)
        elif isinstance(seed, (list, tuple)) or (isinstance(seed, np.ndarray) and seed.ndim):
            seeds = checks.integers(seed, "seed", n, 0, SEED_MAX, f"{checks.SEED_RANGE}, one per game")
        else:
            first = checks.seed(seed)
            super().reset(seed=first)                      # seeds np_random, as gymnasium's VectorEnv does
            seeds = (first + np.arange(n, dtype=np.int64)) & SEED_MAX
        b = self.batch
        b.seeds[:] = seeds
        lay = self.layout
        learner_reset(self.kernels, self.board, b.states, self.memories, lay.lay, lay.route_act, lay.legal, b.seeds,
                      self.seats, self.strategy_ids, self.params, b.obs, b.mask, b.n_legal)
        self._started = True
        return self._obs(), {"action_mask": self._mask(), "_action_mask": np.ones(n, np.bool_)}

    def step(self, actions):
        """Play ``actions[i]`` in slot ``i``; returns ``(obs, rewards,
        terminated, truncated, infos)`` (autoreset in the same step: the module doc)."""
        if not self._started:
            raise RuntimeError("reset() needs to be called before step")
        n = self.num_envs
        actions = checks.integers(actions, "actions", n, ACTION_MIN, SEED_MAX, "(env actions)")
        b, lay = self.batch, self.layout
        learner_step(self.kernels, self.board, b.states, self.memories, lay.lay, lay.route_act, lay.act_engine,
                     lay.legal, actions, b.seeds, self.seats, self.strategy_ids, self.params, b.mode,
                     self.illegal_reward, b.obs, b.mask, b.n_legal, b.final, self.rewards, self.outcome,
                     self.final_obs, self._seat_rewards)
        terminated = self.outcome != 0
        infos = {"action_mask": self._mask(), "_action_mask": np.ones(n, np.bool_)}
        if terminated.any():
            ended = np.flatnonzero(terminated)
            final_obs = np.full(n, None, dtype=object)
            final_obs[ended] = list(self.final_obs[ended].copy())
            over, illegal = self.outcome == 1, self.outcome == 2
            final = np.where(over[:, None, None], b.final, 0)
            infos["final_obs"], infos["_final_obs"] = final_obs, terminated
            infos["final_info"] = {"action_mask": np.zeros_like(b.mask), "_action_mask": terminated.copy(),
                                   "final": final, "_final": over, "illegal_action": illegal,
                                   "_illegal_action": terminated.copy()}
            infos["_final_info"] = terminated.copy()
        return self._obs(), self.rewards.copy(), terminated, np.zeros(n, np.bool_), infos

    def _obs(self) -> np.ndarray:
        return self.batch.obs.copy() if self.copy else self.batch.obs

    def _mask(self) -> np.ndarray:
        return self.batch.mask.copy() if self.copy else self.batch.mask

    def action_masks(self) -> np.ndarray:
        """The legal actions of every slot's observation, bool[num_envs, n_actions]
        (sb3-contrib's MaskablePPO convention)."""
        return self.batch.mask.astype(bool)

    def close_extras(self, **kwargs) -> None:
        self._started = False
