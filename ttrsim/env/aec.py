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

from .encoding import encode_obs, to_engine, write_mask
from .single import check_render_mode, deal, observation_spaces
from .vector import final_rewards, make_board, reward_mode


class TicketToRideAEC(AECEnv):
    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "ttrsim_v1", "is_parallelizable": False}

    def __init__(self, rules="usa", players: int = 4, reward: str = "win", render_mode: str | None = None,
                 overrides: dict | None = None):
        super().__init__()
        self.render_mode = render_mode
        check_render_mode(self)
        self.rules, self.board, self.layout = make_board(rules, players, overrides)
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
        if seed is None:
            seed = int(self._seeds.integers(2 ** 31))
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

    def observe(self, agent):
        seat = self.possible_agents.index(agent)
        obs = self.layout.empty_obs()
        g = self.game
        encode_obs(g.board, g.state, seat, self.layout.lay, obs)
        mask = self._mask.copy() if agent == self.agent_selection and not g.over else self.layout.empty_mask()
        return {"observation": obs, "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = int(action)
        if not (0 <= a < self.layout.n_actions and self._mask[a]):
            raise ValueError(f"action {action!r} is not legal for {agent} (phase {self.game.phase}); "
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
        return self.game.render(mode=self.render_mode)

    def close(self) -> None:
        pass
