"""The PettingZoo AEC env by preset, as PettingZoo's own classic envs are
served: ``ttrsim.env.pettingzoo.usa_v1.env(players=4)`` (the env wrapped in
PettingZoo's ``OrderEnforcingWrapper``) and ``raw_env(...)`` (the
:class:`ttrsim.env.aec.TicketToRideAEC` itself), with ``metadata["name"]``
the module's name (``"usa_v1"``; ``v1``: observation encoding version 1).
Modules: ``usa_v1``, ``usa1910_v1``, ``usa_mega_v1``, ``usa_bigcities_v1``,
``germany_v1``, ``europe_v1``.

>>> from ttrsim.env.pettingzoo import germany_v1
>>> env = germany_v1.env(players=2)
>>> env.reset(seed=1)
>>> env.metadata["name"], env.agent_selection
('germany_v1', 'player_0')
"""
from __future__ import annotations

MODULES = {"usa_v1": "usa", "usa1910_v1": "usa-1910", "usa_mega_v1": "usa-mega",
           "usa_bigcities_v1": "usa-bigcities", "germany_v1": "germany", "europe_v1": "europe"}


def entry_points(module: str):
    """``(env, raw_env)`` of the module ``module`` (a key of :data:`MODULES`)."""
    preset = MODULES[module]

    def raw_env(players: int = 4, reward: str = "win", render_mode: str | None = None,
                overrides: dict | None = None):
        from ttrsim.env.aec import TicketToRideAEC

        e = TicketToRideAEC(preset, players, reward, render_mode, overrides)
        e.metadata = {**TicketToRideAEC.metadata, "name": module}
        return e

    def env(players: int = 4, reward: str = "win", render_mode: str | None = None, overrides: dict | None = None):
        from pettingzoo.utils.wrappers import OrderEnforcingWrapper

        return OrderEnforcingWrapper(raw_env(players, reward, render_mode, overrides))

    raw_env.__doc__ = f"The PettingZoo AEC env of {preset!r} (:class:`ttrsim.env.aec.TicketToRideAEC`)."
    env.__doc__ = f"{raw_env.__doc__[:-1]}, in PettingZoo's OrderEnforcingWrapper."
    return env, raw_env
