"""The registered environments: one Gymnasium id per preset and player count,
``ttrsim/<Preset>-<P>p-v1`` (``v1``: observation encoding version 1,
:data:`ttrsim.env.encoding.OBS_VERSION`), registered on import of
:mod:`ttrsim.env` when Gymnasium is installed. ``gymnasium.make(id, seat=...,
opponents=..., reward=..., illegal_reward=...)`` builds the single-agent env
(:class:`ttrsim.env.single.TicketToRideEnv`); ``gymnasium.make_vec(id,
num_envs=N)`` the compiled batch (:class:`ttrsim.env.gym_vector.TicketToRideVectorEnv`,
its ``vector_entry_point``) with the same keyword arguments. Every preset
has ids, Europe's (tunnels, ferries and stations, R8) included.

>>> env_id("usa-1910", 2), env_id("europe", 3), ENV_IDS[:2]
('ttrsim/USA1910-2p-v1', 'ttrsim/Europe-3p-v1', ('ttrsim/USA-2p-v1', 'ttrsim/USA-3p-v1'))
"""
from __future__ import annotations

from .encoding import OBS_VERSION

NAMESPACE = "ttrsim"
# preset -> the name in its ids
ENV_PRESETS = {"usa": "USA", "usa-1910": "USA1910", "usa-mega": "USAMega", "usa-bigcities": "USABigCities",
               "germany": "Germany", "europe": "Europe"}
PLAYERS = (2, 3, 4, 5)


def env_id(preset: str, players: int) -> str:
    """The Gymnasium id of ``preset`` for ``players`` seats."""
    return f"{NAMESPACE}/{ENV_PRESETS[preset]}-{players}p-v{OBS_VERSION}"


ENV_IDS = tuple(env_id(r, p) for r in ENV_PRESETS for p in PLAYERS)


def register_envs() -> list[str]:
    """Register every id not registered yet (a second import registers
    nothing); returns the ids registered now."""
    import gymnasium

    new = []
    for preset in ENV_PRESETS:
        for players in PLAYERS:
            i = env_id(preset, players)
            if i in gymnasium.registry:
                continue
            gymnasium.register(i, entry_point="ttrsim.env.single:TicketToRideEnv",
                               vector_entry_point="ttrsim.env.gym_vector:TicketToRideVectorEnv",
                               kwargs={"rules": preset, "players": players})
            new.append(i)
    return new
