"""The compiled batch as a Stable-Baselines3 ``VecEnv``, so sb3-contrib's
``MaskablePPO`` trains on it directly (``pip install sb3-contrib``, which
brings PyTorch; ttrsim does not depend on either).

:class:`TicketToRideSB3VecEnv` wraps a
:class:`~ttrsim.env.gym_vector.TicketToRideVectorEnv` (built from its
arguments, or given as ``venv=``): ``observation_space`` and ``action_space``
are a single game's (SB3's convention), ``step_wait`` returns SB3's
``(obs, rewards, dones, infos)`` with SB3's own same-step autoreset
(``infos[i]["terminal_observation"]`` holds an ended game's last
observation, ``infos[i]["final"]`` its score table, ``infos[i]["illegal_action"]``
True if an action outside the mask ended it), and ``env_method("action_masks")``
gives one bool mask row per game (what ``MaskablePPO`` asks for). Seeds:
``seed(s)`` makes the next ``reset()`` deal game ``s + i`` in slot ``i``.

    from sb3_contrib import MaskablePPO
    from ttrsim.env.sb3 import TicketToRideSB3VecEnv

    env = TicketToRideSB3VecEnv(64, "usa", players=2, opponents="greedy")
    model = MaskablePPO("MlpPolicy", env, n_steps=128).learn(100_000)
"""
from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from .gym_vector import TicketToRideVectorEnv


class TicketToRideSB3VecEnv(VecEnv):
    """``num_envs`` games as an SB3 ``VecEnv``; the other arguments are
    :class:`~ttrsim.env.gym_vector.TicketToRideVectorEnv`'s."""

    def __init__(self, num_envs: int = 64, rules="usa", players: int = 4, seat: int | list[int] = 0,
                 opponents="random", reward: str = "win", illegal_reward: float = -1.0, overrides: dict | None = None,
                 venv: TicketToRideVectorEnv | None = None):
        if venv is None:
            venv = TicketToRideVectorEnv(num_envs, rules, players, seat, opponents, reward, illegal_reward,
                                         None, overrides, copy=True)
        elif not isinstance(venv, TicketToRideVectorEnv) or not venv.copy:
            raise TypeError("venv must be a TicketToRideVectorEnv made with copy=True "
                            "(SB3 keeps the observations it is given)")
        self.venv = venv
        self.render_mode = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions = None

    def reset(self):
        seeds = None if self._seeds[0] is None else list(self._seeds)
        obs, _ = self.venv.reset(seed=seeds)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions) -> None:
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_async(actions) needs to be called before step_wait")
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        out = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = infos["final_info"]
            for i in np.flatnonzero(dones):               # the ended games only
                out[i] = {"terminal_observation": infos["final_obs"][i], "TimeLimit.truncated": False,
                          "illegal_action": bool(final["illegal_action"][i])}
                if final["_final"][i]:
                    out[i]["final"] = final["final"][i]
        return obs, rewards.astype(np.float32), dones, out

    def action_masks(self) -> np.ndarray:
        """bool[num_envs, n_actions]: the legal actions of the last observations."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices=None) -> list:
        value = getattr(self, attr_name) if attr_name == "render_mode" else getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        raise AttributeError(f"the games of a TicketToRideSB3VecEnv share their attributes; "
                             f"cannot set {attr_name!r} per game")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name != "action_masks":
            raise AttributeError(f"env_method supports 'action_masks' only, got {method_name!r}")
        masks = self.venv.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
