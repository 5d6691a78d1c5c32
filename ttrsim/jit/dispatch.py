"""A set of compiled kernels as an argument of compiled code: numba types a
:class:`KernelSet` by the names it holds (:class:`KernelSetType`; the value
itself carries nothing), so a function taking one is compiled (and cached)
once per set, and :func:`by_kernel_set` makes a Python function of the set
compile as code made for its names, inlined into the caller.

The strategy dispatch (:mod:`ttrsim.strategies.kit.dispatch`) is built on it:
which kernels a set may hold and the code calling them are the strategies'.

>>> KernelSet(["b", "a"])
KernelSet('b', 'a')
"""
from functools import wraps

from numba.core import types
from numba.extending import NativeValue, models, overload, register_model, typeof_impl, unbox


class KernelSet:
    """Kernels by name (``names``, a tuple); a subclass may check or order them."""

    def __init__(self, names):
        self.names = tuple(names)

    def __repr__(self):
        return f"{type(self).__name__}{self.names!r}"


class KernelSetType(types.Type):
    """numba's type of a :class:`KernelSet`: one type per class and set of names."""

    def __init__(self, cls_name, names):
        self.names = names
        super().__init__(name=f"{cls_name}({','.join(names)})")


@typeof_impl.register(KernelSet)
def _typeof_kernel_set(val, c):
    return KernelSetType(type(val).__name__, val.names)


register_model(KernelSetType)(models.OpaqueModel)


@unbox(KernelSetType)
def _unbox_kernel_set(typ, obj, c):
    return NativeValue(c.context.get_dummy_value())     # all is in the type


def by_kernel_set(impl_for):
    """Decorate a Python function ``call(kernels, ...)`` whose first argument
    is a :class:`KernelSet`: compiled, a call to it is ``impl_for(names)``
    (a Python function of the same arguments, made for the set's names, then
    compiled) inlined into the caller. ``call`` itself is returned unchanged
    (for Python callers)."""
    def register(call):
        @wraps(call)                      # (numba checks the typing signature: call's)
        def typing(kernels, *args):
            return impl_for(kernels.names)
        overload(call, inline="always")(typing)
        return call
    return register
