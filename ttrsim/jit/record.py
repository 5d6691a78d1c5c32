"""Records of typed arrays passed to compiled kernels by reference.

The board and the game state are numba StructRefs: one pointer per call
however many arrays they hold (a NamedTuple of ~20 arrays is copied on every
non-inlined call, which costs more than the work of most rule helpers). With
``NUMBA_DISABLE_JIT=1`` the same names build a plain NamedTuple, so the kernels
still run, and can be stepped through, as Python.

A record built with ``borrowed=True`` (the board and the game state) is
borrowed by compiled code, itself and its arrays: numba counts the
references of every record a compiled function takes and of every array it
reads from one (an atomic increment and decrement, about 15 ns a pair on the
development machine), and those counts cost more than the work of most rule
helpers. A borrowed record's pointer is not counted in compiled code, and
its fields are read as the record's arrays without their count (a null
``meminfo``, as for an array numba did not allocate); the Python object of
the record keeps the record and its arrays alive. Such a record must
therefore be built in Python (by its class, as
:func:`ttrsim.core.state.allocate_state` does), never inside compiled code
(there it would never be freed: compiled code that needs a scratch state
copies into one it is handed, :func:`ttrsim.core.state.copy_state_into`, as
the search does into the strategy memory's ``scratch`` states), and
compiled code must not rebind its fields (it may write their contents). A
compiled container (a typed ``List`` of states, a record's field) does not
keep the records in it alive: keep their Python objects too (the strategy
memory's Python object holds its scratch states). A compiled function may
return one to Python (the returned object counts its own reference).
The constructor is compiled once and cached on disk like the kernels
(``new_<name>``); for a borrowed record the constructor's own reference is
released at once, the Python object holding the only one. :func:`borrowed` does the same for one array a compiled
loop holds for all its calls (the legal-action buffer).
"""
from __future__ import annotations

import sys
from collections import namedtuple

import numba
from numba.core import cgutils, imputils, types
from numba.core.datamodel import default_manager, models
from numba.core.extending import NativeValue, box, intrinsic, lower_getattr, overload, unbox
from numba.experimental import structref


def borrowed(arr):
    """``arr`` itself; compiled: a view of it without a reference count, for
    an array the caller holds while the view is used (a game loop's buffers,
    passed to every call of the loop).

    >>> import numpy as np
    >>> a = np.arange(3); borrowed(a) is a
    True
    """
    return arr


def _uncounted_array(context, builder, aryty, value):
    """Array ``value`` without its reference count (a null ``meminfo``)."""
    ary = context.make_array(aryty)(context, builder, value=value)
    ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
    return ary._getvalue()


@intrinsic
def _uncounted(typingctx, arr):
    def codegen(context, builder, signature, args):
        return _uncounted_array(context, builder, arr, args[0])
    return arr(arr), codegen


@overload(borrowed)
def _borrowed_compiled(arr):
    if isinstance(arr, types.Array):
        return lambda arr: _uncounted(arr)


class _UncountedRefModel(models.StructModel):
    """A borrowed record in compiled code: the pointer to its data, not reference counted."""

    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("meminfo", types.voidptr)])


def _define_borrowed_boxing(type_cls, proxy):
    """Passing a borrowed record between Python and compiled code: structref's
    boxing, with the counts compiled code does not keep. A record passed in
    stays borrowed from its Python object; one returned to Python becomes a
    new ``proxy`` object with a reference of its own."""
    mip_type = types.MemInfoPointer(types.voidptr)

    @box(type_cls)
    def box_impl(typ, val, c):
        meminfo = structref._Utils(c.context, c.builder, typ).get_struct_ref(val).meminfo
        c.context.nrt.incref(c.builder, mip_type, meminfo)
        boxed = c.box(mip_type, meminfo)                 # (takes that reference)
        ctor = c.pyapi.unserialize(c.pyapi.serialize_object(proxy._numba_box_))
        ty_obj = c.pyapi.unserialize(c.pyapi.serialize_object(typ))
        res = c.pyapi.call_function_objargs(ctor, [ty_obj, boxed])
        for obj in (ctor, ty_obj, boxed):
            c.pyapi.decref(obj)
        return res

    @unbox(type_cls)
    def unbox_impl(typ, obj, c):
        mi_obj = c.pyapi.object_getattr_string(obj, "_meminfo")
        mi = c.unbox(mip_type, mi_obj).value               # (a new reference: given back at once)
        c.context.nrt.decref(c.builder, mip_type, mi)
        c.pyapi.decref(mi_obj)
        return NativeValue(structref._Utils(c.context, c.builder, typ).new_struct_ref(mi)._getvalue())


def _borrow_array_fields(type_cls, fields):
    """Make compiled reads of ``type_cls``'s array fields borrowed (no reference
    count, see the module docstring); the read of a named field has priority
    over the structref's generic one."""
    def read(attr):
        def impl(context, builder, typ, val):
            value = getattr(structref._Utils(context, builder, typ).get_data_struct(val), attr)
            fieldtype = typ.field_dict[attr]
            if not isinstance(fieldtype, types.Array):
                return imputils.impl_ret_borrowed(context, builder, fieldtype, value)
            return imputils.impl_ret_untracked(context, builder, fieldtype,
                                               _uncounted_array(context, builder, fieldtype, value))
        return impl

    for field in fields:
        lower_getattr(type_cls, field)(read(field))


def define_record(name: str, fields: tuple[str, ...], module: str, borrowed: bool = False):
    """A record class ``name`` with ``fields`` (keyword constructor), defined in
    ``module`` so compiled functions that take it can be cached; ``borrowed``:
    compiled code counts the references of neither the record nor its arrays
    (built in Python only, see the module docstring)."""
    if numba.config.DISABLE_JIT:
        cls = namedtuple(name, fields)
        cls.__module__ = module
        return cls

    type_cls = type(name + "Type", (types.StructRef,), {
        "preprocess_fields": lambda self, fs: tuple((n, types.unliteral(t)) for n, t in fs),
        "__module__": module,
    })
    structref.register(type_cls)
    if borrowed:
        default_manager.register(type_cls, _UncountedRefModel)
        _borrow_array_fields(type_cls, fields)
    setattr(sys.modules[module], type_cls.__name__, type_cls)

    def __new__(cls, *args, **kwargs):
        values = list(args) + [kwargs.pop(f) for f in fields[len(args):]]
        if kwargs:
            raise TypeError(f"{name}: unknown fields {sorted(kwargs)}")
        obj = _new(*values)
        if borrowed:     # the constructor's reference: uncounted in compiled code, Python's object took its own
            obj._meminfo.release()
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
    if borrowed:
        structref.define_constructor(proxy, type_cls, list(fields))
        _define_borrowed_boxing(type_cls, proxy)
    else:
        structref.define_proxy(proxy, type_cls, list(fields))

    def new(*values):                 # numba's own constructor of a StructRefProxy is compiled anew in every process
        return proxy(*values)
    new.__qualname__ = new.__name__ = f"new_{name}"          # its own cache file
    _new = numba.njit(cache=True)(new)
    return proxy
