"""Sets of routes as bits of ``uint64`` words: route ``r`` is bit ``r % 64``
of word ``r // 64``. The legality of claims (:func:`ttrsim.core.engine.claimable_routes`)
unions a few precomputed sets (:attr:`Board.claim_masks`) and then visits only
the routes in the result, in increasing order.

>>> trailing_zeros(np.uint64(0b10100))
2
>>> w = np.uint64(0b10100)
>>> int(drop_lowest(w))
16
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload


def trailing_zeros(word):
    """The index of the lowest set bit of a non-zero ``uint64`` (compiled:
    one ``cttz`` instruction)."""
    x = int(word)
    return (x & -x).bit_length() - 1


@intrinsic
def _cttz(typingctx, word):
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(1)]), "llvm.cttz.i64")
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])
    return types.int64(types.uint64), codegen


@overload(trailing_zeros)
def _trailing_zeros_compiled(word):
    def impl(word):
        return _cttz(np.uint64(word))
    return impl


@njit(cache=True)
def drop_lowest(word):
    """``word`` without its lowest set bit."""
    return word & (word - np.uint64(1))
