"""Machine instructions numba does not emit on its own, as functions that
run as Python too: :func:`trailing_zeros` (``cttz``).

>>> import numpy as np
>>> trailing_zeros(np.uint64(0b10100))
2
"""
import numpy as np
from llvmlite import ir
from numba import types
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
