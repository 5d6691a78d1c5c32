"""``random``: uniform over the legal actions, including ticket keep choices,
the Germany short/long mix and passenger colours.

It reads only the legal-action list and draws from its own seat's stream
(``m.rng``, :mod:`ttrsim.strategies.kit.memory`).
"""
from ttrsim.core.rng import rand_below
from ttrsim.core.state import M_PLAYER
from ttrsim.jit import kernel

from .spec import StrategySpec

SPEC = StrategySpec("random", "uniform over the legal actions")


@kernel
def choose(b, s, m, legal, n_legal, params):
    """Pick one of ``legal[:n_legal]`` uniformly with the acting seat's stream."""
    return legal[rand_below(m.rng, s.meta[M_PLAYER], n_legal)]
