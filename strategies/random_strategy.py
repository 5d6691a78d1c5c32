"""``random``: uniform over the legal actions, including ticket keep choices,
the Germany short/long mix and passenger colours.

It reads only the legal-action list and its own seat's strategy stream.
"""
from numba import njit

from ttrsim.core.rng import rand_below
from ttrsim.core.state import M_PLAYER

from .spec import StrategySpec

SPEC = StrategySpec("random", "uniform over the legal actions")


@njit(cache=True)
def choose(b, s, legal, n_legal, params):
    """Pick one of ``legal[:n_legal]`` uniformly with the acting seat's stream."""
    p = s.meta[M_PLAYER]
    return legal[rand_below(s.srng, p, n_legal)]
