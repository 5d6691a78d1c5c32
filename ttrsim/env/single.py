"""The Gymnasium single-agent environment: the learner plays seat ``seat``,
the other seats are built-in compiled strategies, run inside :meth:`step`
by one compiled call until the learner must act again.

The observation is the learner's float32 vector (:mod:`ttrsim.env.encoding`);
its legal-action mask is ``info["action_mask"]`` and :meth:`action_masks`
(the MaskablePPO convention). An action outside the mask ends the episode
with reward ``illegal_reward`` (``info["illegal_action"]``), so an agent that
ignores the mask learns to respect it. The reward comes at the end of the
game (``"win"``: +1 for a win, -1 otherwise; ``"margin"``: own total minus
the best other total). Game ``seed`` with the same learner actions is the
game :func:`ttrsim.play.pyplay.play` plays for ``seed`` with a Python seat
making those choices (the strategies' memory is reset from the seed).

>>> env = TicketToRideEnv(rules="usa", players=3, opponents="greedy")
>>> obs, info = env.reset(seed=1)
>>> obs.shape == env.observation_space.shape, int(info["action_mask"].sum()) > 0
(True, True)
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np

from ttrsim.core.engine import apply_action
from ttrsim.play.game import Game
from ttrsim.strategies import param_row, strategy_id
from ttrsim.strategies.kit.dispatch import kernels_for
from ttrsim.strategies.kit.memory import allocate_memory, reset_memory

from . import checks
from .encoding import encode_obs, to_engine, write_mask
from .vector import final_rewards, make_board, play_others, reward_mode


def observation_spaces(layout):
    """The Box of the observation vector and of the action mask."""
    return (gym.spaces.Box(0.0, layout.obs_high, dtype=np.float32),
            gym.spaces.Box(0, 1, (layout.n_actions,), dtype=np.int8))


def check_render_mode(env) -> None:
    if env.render_mode is not None and (not isinstance(env.render_mode, str)
                                        or env.render_mode not in env.metadata["render_modes"]):
        raise ValueError(f"render_mode must be one of {env.metadata['render_modes']} or None, got {env.render_mode!r}")


def check_options(options) -> None:
    """``reset``'s ``options``: None or a dict (no option is used)."""
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"options must be a dict or None, got {checks.shown(options)}")


def deal(game: Game | None, rules, players: int, seed: int) -> Game:
    """``game`` reset to seed ``seed``, or a new Game if there is none yet."""
    if game is None:
        return Game(rules, players, seed)
    game.reset(seed)
    return game


class TicketToRideEnv(gym.Env):
    """``opponents``: one strategy name for every other seat, or a list with
    one per seat (the learner's entry is ignored). ``seat`` and the seeds are
    integers (numpy's too), ``illegal_reward`` a finite number, an action an
    integer: anything else is refused with one line (:mod:`ttrsim.env.checks`)."""

    metadata = {"render_modes": ["ansi", "rgb_array"]}

    def __init__(self, rules="usa", players: int = 4, seat: int = 0, opponents="random", reward: str = "win",
                 illegal_reward: float = -1.0, render_mode: str | None = None, overrides: dict | None = None):
        self.rules, self.board, self.layout = make_board(rules, players, overrides)
        players = self.layout.n_players
        seat = checks.integer(seat, "seat", 0, players - 1)
        names = checks.strategy_names(opponents, players)
        names[seat] = "random"
        self.strategy_ids = np.array([strategy_id(n) for n in names], np.int64)
        self.kernels = kernels_for(self.strategy_ids)
        self.params = np.array([param_row(n, rules=self.rules, players=players) for n in names])
        self.render_mode = render_mode
        check_render_mode(self)
        self.seat, self.mode = seat, reward_mode(reward)
        self.illegal_reward = checks.finite(illegal_reward, "illegal_reward")
        self.observation_space, _ = observation_spaces(self.layout)
        self.action_space = gym.spaces.Discrete(self.layout.n_actions)
        self.memory = allocate_memory(self.board, players)
        self._mask = self.layout.empty_mask()
        self._rewards = np.zeros(players)
        self.game, self._illegal = None, False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            seed = checks.seed(seed)
        check_options(options)
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2 ** 31))
        self.game = deal(self.game, self.rules, len(self._rewards), seed)
        reset_memory(self.memory, seed)
        self._illegal = False
        return self._advance()

    def _advance(self):
        g, lay = self.game, self.layout
        play_others(self.kernels, g.board, g.state, self.memory, self.seat, self.strategy_ids, self.params,
                    lay.legal)
        obs = lay.empty_obs()
        encode_obs(g.board, g.state, self.seat, lay.lay, obs)
        if g.over:
            self._mask[:] = 0
        else:
            write_mask(g.board, g.state, lay.lay, lay.route_act, lay.legal, self._mask)
        return obs, {"action_mask": self._mask.copy()}

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)

    def step(self, action):
        g = self.game
        if g is None:
            raise RuntimeError("reset() needs to be called before step")
        if g.over or self._illegal:
            raise RuntimeError("the episode is over: call reset() to start the next")
        a = checks.as_index(action)
        if a is None:
            raise TypeError(f"action must be an integer (an env action of info['action_mask']), "
                            f"got {checks.shown(action)}")
        if not (0 <= a < self.layout.n_actions and self._mask[a]):
            obs = self.layout.empty_obs()
            encode_obs(g.board, g.state, self.seat, self.layout.lay, obs)
            self._mask[:] = 0
            self._illegal = True
            return obs, self.illegal_reward, True, False, {"action_mask": self._mask.copy(), "illegal_action": True}
        apply_action(g.board, g.state, to_engine(g.board, g.state, self.layout.act_engine, a))
        obs, info = self._advance()
        reward = 0.0
        if g.over:
            final_rewards(g.state, self.mode, self._rewards)
            reward = float(self._rewards[self.seat])
            info["final"] = g.result()["seats"]
        return obs, reward, g.over, False, info

    def render(self):
        if self.render_mode is None:
            return None
        if self.game is None:
            raise RuntimeError("reset() needs to be called before render")
        return self.game.render(mode=self.render_mode)
