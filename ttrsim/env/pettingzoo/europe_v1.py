"""The PettingZoo AEC env of ``europe``: ``env(players=4, reward="win", render_mode=None, overrides=None)``
and ``raw_env(...)`` (:mod:`ttrsim.env.pettingzoo`)."""
from . import entry_points

env, raw_env = entry_points("europe_v1")
