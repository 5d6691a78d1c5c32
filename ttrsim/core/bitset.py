"""Sets of routes as bits of ``uint64`` words: route ``r`` is bit ``r % 64``
of word ``r // 64``. The legality of claims (:func:`ttrsim.core.engine.claimable_routes`)
unions a few precomputed sets (:attr:`Board.claim_masks`) and then visits only
the routes in the result, in increasing order (:func:`trailing_zeros`, one
instruction compiled: :mod:`ttrsim.jit.intrinsics`).

>>> trailing_zeros(np.uint64(0b10100))
2
>>> w = np.uint64(0b10100)
>>> int(drop_lowest(w))
16
"""
import numpy as np

from ttrsim.jit import kernel
from ttrsim.jit.intrinsics import trailing_zeros

__all__ = ["drop_lowest", "trailing_zeros"]


@kernel
def drop_lowest(word):
    """``word`` without its lowest set bit."""
    return word & (word - np.uint64(1))
