"""Records of typed arrays passed to compiled kernels by reference.

The board and the game state are numba StructRefs: one pointer per call
however many arrays they hold (a NamedTuple of ~20 arrays is copied on every
non-inlined call, which costs more than the work of most rule helpers). With
``NUMBA_DISABLE_JIT=1`` the same names build a plain NamedTuple, so the kernels
still run, and can be stepped through, as Python.
"""
from __future__ import annotations

import sys
from collections import namedtuple

import numba
from numba.core import types
from numba.experimental import structref


def define_record(name: str, fields: tuple[str, ...], module: str):
    """A record class ``name`` with ``fields`` (keyword constructor), defined in
    ``module`` so compiled functions that take it can be cached."""
    if numba.config.DISABLE_JIT:
        cls = namedtuple(name, fields)
        cls.__module__ = module
        return cls

    type_cls = type(name + "Type", (types.StructRef,), {
        "preprocess_fields": lambda self, fs: tuple((n, types.unliteral(t)) for n, t in fs),
        "__module__": module,
    })
    structref.register(type_cls)
    setattr(sys.modules[module], type_cls.__name__, type_cls)

    def __new__(cls, *args, **kwargs):
        values = list(args) + [kwargs.pop(f) for f in fields[len(args):]]
        if kwargs:
            raise TypeError(f"{name}: unknown fields {sorted(kwargs)}")
        obj = _new(*values)
        # Python reads the same arrays the compiled record points to (numba
        # shares array buffers); kernels mutate contents, never rebind fields.
        obj._values = dict(zip(fields, values))
        return obj

    def __getattr__(self, field):
        try:
            return self.__dict__["_values"][field]
        except KeyError:
            raise AttributeError(f"{name} has no field {field!r}") from None

    def _asdict(self):
        return dict(self._values)

    def __iter__(self):
        return iter(self._values.values())

    proxy = type(name, (structref.StructRefProxy,), {
        "__new__": __new__, "__getattr__": __getattr__, "_fields": fields, "_asdict": _asdict,
        "__iter__": __iter__, "__module__": module})
    structref.define_proxy(proxy, type_cls, list(fields))

    def new(*values):                 # numba's own constructor of a StructRefProxy is compiled anew in every process
        return proxy(*values)
    new.__qualname__ = new.__name__ = f"new_{name}"          # its own cache file
    _new = numba.njit(cache=True)(new)
    return proxy
