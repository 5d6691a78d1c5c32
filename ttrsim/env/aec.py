"""The PettingZoo AEC environment: one game, the seats as agents
``player_0`` .. ``player_{P-1}`` taking turns as the rules say (a seat may act
several times in a row: the second card, keeping tickets, passengers).

Each agent's observation is ``{"observation": float32[obs_size],
"action_mask": int8[n_actions]}`` (:mod:`ttrsim.env.encoding`, ``docs/env.md``);
the mask is all zeros except for the agent to act. Rewards come at the end
of the game: ``reward="win"`` gives +1 to the winner(s) and -1 to the
others, ``"margin"`` each seat's total minus the best other total. A game is
its seed: ``reset(seed=s)`` deals :class:`ttrsim.play.game.Game` ``s``, and
the same actions replay the same game (``env.game.history`` holds them as
engine actions). ``render()`` returns text (``render_mode="ansi"``) or an RGB
board image (``"rgb_array"``).

Seeds (0 to 2**63 - 1) and actions are integers, numpy's too; anything else
is refused with one line (:mod:`ttrsim.env.checks`), as is a call before
:meth:`reset`. Once the game is over every agent is done: step each with
``None`` (PettingZoo's convention, as ``agent_iter`` does), then reset.

>>> env = TicketToRideAEC(rules="usa", players=2)
>>> env.reset(seed=3)
>>> obs, reward, term, trunc, info = env.last()
>>> env.agent_selection, int(obs["action_mask"].sum()) > 0, term
('player_0', True, False)
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from . import checks
from .encoding import encode_obs, to_engine, write_mask
from .single import check_options, check_render_mode, deal, observation_spaces
from .vector import final_rewards, make_board, reward_mode


class TicketToRideAEC(AECEnv):
    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "ttrsim_v1", "is_parallelizable": False}

    def __init__(self, rules="usa", players: int = 4, reward: str = "win", render_mode: str | None = None,
                 overrides: dict | None = None):
        super().__init__()
        self.render_mode = render_mode
        check_render_mode(self)
        self.rules, self.board, self.layout = make_board(rules, players, overrides)
        players = self.layout.n_players
        self.mode = reward_mode(reward)
        self.possible_agents = [f"player_{p}" for p in range(players)]
        obs_box, mask_box = observation_spaces(self.layout)
        self._obs_space = spaces.Dict({"observation": obs_box, "action_mask": mask_box})
        self._act_space = spaces.Discrete(self.layout.n_actions)
        self._mask = self.layout.empty_mask()
        self._rewards = np.zeros(players, np.float64)
        self._seeds = np.random.default_rng()
        self.game = None

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = int(self._seeds.integers(2 ** 31)) if seed is None else checks.seed(seed)
        check_options(options)
        self.game = deal(self.game, self.rules, len(self.possible_agents), seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._observe_turn()

    def _observe_turn(self) -> None:
        g, lay = self.game, self.layout
        self.agent_selection = self.possible_agents[g.player]
        write_mask(g.board, g.state, lay.lay, lay.route_act, lay.legal, self._mask)

    def _check_started(self, call: str) -> None:
        if self.game is None:
            raise RuntimeError(f"reset() needs to be called before {call}")
        if self.agent_selection not in self.terminations:
            raise RuntimeError("the game is over and every agent has stepped with None: call reset() for the next")

    def _seat(self, agent) -> int:
        if agent not in self.possible_agents:
            raise ValueError(f"no agent {checks.shown(agent)}; expected one of {', '.join(self.possible_agents)}")
        return self.possible_agents.index(agent)

    def last(self, observe: bool = True):
        self._check_started("last")
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2 ** 63):
        if self.game is None:
            raise RuntimeError("reset() needs to be called before agent_iter")
        return super().agent_iter(max_iter)

    def observe(self, agent):
        if self.game is None:
            raise RuntimeError("reset() needs to be called before observe")
        seat = self._seat(agent)
        obs = self.layout.empty_obs()
        g = self.game
        encode_obs(g.board, g.state, seat, self.layout.lay, obs)
        mask = self._mask.copy() if agent == self.agent_selection and not g.over else self.layout.empty_mask()
        return {"observation": obs, "action_mask": mask}

    def step(self, action) -> None:
        self._check_started("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"{agent} is done (the game is over): its only action is None, "
                                 f"got {checks.shown(action)}")
            self._was_dead_step(action)
            return
        a = checks.as_index(action)
        if a is None:
            raise TypeError(f"action of {agent} must be an integer (an env action of its action_mask), "
                            f"got {checks.shown(action)}")
        if not (0 <= a < self.layout.n_actions and self._mask[a]):
            raise ValueError(f"action {a} is not legal for {agent} (phase {self.game.phase}); "
                             "expected an action of its action_mask")
        g = self.game
        g.apply(int(to_engine(g.board, g.state, self.layout.act_engine, a)))
        self._cumulative_rewards[agent] = 0.0
        if g.over:
            final_rewards(g.state, self.mode, self._rewards)
            self.rewards = {ag: float(r) for ag, r in zip(self.possible_agents, self._rewards)}
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos = {ag: {"final": row} for ag, row in zip(self.possible_agents, g.result()["seats"])}
            self._accumulate_rewards()
            self.agent_selection = self.possible_agents[g.player]
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._observe_turn()

    def render(self):
        if self.render_mode is None:
            return None
        if self.game is None:
            raise RuntimeError("reset() needs to be called before render")
        return self.game.render(mode=self.render_mode)

    def close(self) -> None:
        pass
