"""ttrsim's patches of numba's compiler (on unless ``TTRSIM_NUMBA_PATCHES=0``).

:func:`install` makes every compiled call between ttrsim's own functions
compile the callee once: numba compiles a function anew for every new tuple
of argument types, and call sites passing a constant (``-1``, ``True``: a
literal type), an ``int16`` array element or an ``int64`` made about a
quarter of a first run's compiles repeats of the same function. The argument
types a compiled caller passes to a ttrsim function are made canonical
(:func:`canonical`: literals to their type, signed integers to ``int64``);
the values are cast at the call, which numba does for any call, so the games
are the same. It also types ttrsim's ``inline="always"`` overloads (the
strategy dispatch) without compiling their implementation on its own, which
numba does and then throws away (the IR is inlined). And it optimizes each
of ttrsim's functions with the code of the small callees only
(:data:`SMALL_CALLEE`; none for the game loops named by
:func:`link_callees_as_compiled`), linking the larger ones in as compiled:
numba optimizes a function after linking in the code of everything below it,
so every level optimized the whole engine below it once more. Last, a
function compiled because a compiled caller needs it (or inside
:func:`callees_only`) gets no machine code of its own until Python calls it
or asks for its address (:class:`Deferred`): numba made machine code for
every function, each holding the code of everything below it, which only
its compiled callers' own copies ever run (a fifth of a first run's compile).

The patches replace methods of numba (``Dispatcher.get_call_template``,
``compile`` and ``add_overload``, ``_OverloadFunctionTemplate._build_impl``,
``BaseNativeLowering.run_pass``, ``CompileResult._rebuild``, the JIT code
library's ``_unserialize`` and ``get_pointer_to_function``) and act on
ttrsim's own functions only (:func:`ttrsim.jit.cache.ours`). They change
how fast a first run compiles, never the games: the environment variable
``TTRSIM_NUMBA_PATCHES=0`` (read once, when ``ttrsim.jit`` is imported)
leaves numba unpatched, to rule the patches out when something compiles
wrongly or to try a new numba release. Its compiled code differs, so it has a
cache folder of its own (:func:`compiled_as` is part of the folder's hash).
"""
from __future__ import annotations

import contextlib
import contextvars
import os
from functools import partial

from llvmlite import binding as llvm
from numba.core import codegen, compiler, dispatcher, typed_passes, types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.typing import templates

from .cache import ours

# whether numba is patched (``TTRSIM_NUMBA_PATCHES``, read once; on unless ``0``)
PATCHES = os.environ.get("TTRSIM_NUMBA_PATCHES", "1").strip() != "0"


def compiled_as() -> str:
    """How numba compiles ttrsim's functions, as part of the cache folder's hash
    (:func:`ttrsim.jit.cache.cache_dir`): the linking of :data:`SMALL_CALLEE`,
    or unpatched."""
    return f"linking {SMALL_CALLEE}, callees deferred" if PATCHES else "numba unpatched"


def canonical(t: types.Type) -> types.Type:
    """The argument type a ttrsim function is compiled for when a compiled
    caller passes ``t``: a literal's type, ``int64`` for any signed integer.

    >>> canonical(types.literal(-1)), canonical(types.int16), canonical(types.literal(True)), canonical(types.uint8)
    (int64, int64, bool, uint8)
    """
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.signed:
        return types.int64
    return t


def _ours_dispatcher(d) -> bool:
    try:
        return d.__dict__["_ttrsim_ours"]
    except KeyError:
        d.__dict__["_ttrsim_ours"] = mine = ours(d.py_func.__code__.co_filename) is not None
        return mine


# A compiled function's code holds the code of every function below it: numba
# links their (optimized) code in, then optimizes the whole again to inline
# across functions, so every level re-optimizes everything below it. ttrsim's
# functions optimize their own code with the small callees only (the code of
# at most SMALL_CALLEE bytes of LLVM bitcode with their own callees: about
# 4,000 instructions, far more than LLVM inlines), then link the larger ones
# in as compiled (the engine's actions and legal lists, the planner's
# phases). Part of the cache folder's name (:func:`compiled_as`), since the
# compiled code differs.
SMALL_CALLEE = 250_000
# the functions whose callees are all linked in as compiled (:func:`link_callees_as_compiled`)
_LINK_AS_COMPILED: set = set()


def link_callees_as_compiled(fn):
    """Make compiled function ``fn`` (a dispatcher; returned) link the
    compiled code of every function it calls as it is, optimizing only its
    own code: for a game loop that calls the engine and the strategy kernels
    a few times a turn, inlining them gains nothing (for the runner's chunk
    loop, re-optimizing them was 6 of its 14 CPU s of compile). The games are
    the same."""
    _LINK_AS_COMPILED.add(fn.py_func)
    return fn


def _size(library) -> int:
    """Bytes of ``library``'s code as linked into a caller (LLVM bitcode, its callees included)."""
    n = library.__dict__.get("_ttrsim_size")
    if n is None:
        n = library.__dict__["_ttrsim_size"] = len(library._get_module_for_linking().as_bitcode())
    return n


def _finalize(library, small: int, numba_finalize) -> None:
    """Finalize ``library`` with numba's own ``finalize`` (``numba_finalize``),
    but optimize its code with the callees of at most ``small`` bytes
    (:func:`_size`) only: the larger ones are linked in after the
    optimization, and the code nothing calls (their Python wrappers) is
    dropped."""
    libs = list(dict.fromkeys(library._linking_libraries))
    later = [lib for lib in libs if _size(lib) > small]
    if later:
        library._linking_libraries = [lib for lib in libs if lib not in later]
        optimize = library._optimize_final_module

        def optimize_then_link():
            optimize()
            for lib in later:
                library._reload_init.update(lib._reload_init)
                library._final_module.link_in(lib._get_module_for_linking(), preserve=True)
            pm = llvm.create_new_module_pass_manager()
            pm.add_global_dead_code_eliminate_pass()
            pm.run(library._final_module, library._codegen._pass_builder())

        library._optimize_final_module = optimize_then_link
    numba_finalize()


# set while a compiled caller types its calls (and inside callees_only): the
# functions then compiled get no machine code of their own (Deferred)
_AS_CALLEE = contextvars.ContextVar("ttrsim_as_callee", default=False)
# how a deferred function's code is cached: its optimized LLVM module, no machine code
_IR = "ttrsim-ir"


class Deferred:
    """The entry point of one of ttrsim's functions compiled for compiled
    callers only: its code is optimized and links into theirs, but has no
    machine code of its own (which numba makes for every function, each
    holding the code of all below it, and which only Python calls run). A
    key of numba's table of compiled functions until Python calls it or asks
    for its address: then it gets its machine code (:func:`_give_machine_code`),
    and the cache keeps that from then on. ``envs``: the environments a
    cached copy refers to, set once it has machine code."""
    __slots__ = ("envs",)

    def __init__(self, envs=()):
        self.envs = envs


@contextlib.contextmanager
def callees_only():
    """Compile what is compiled inside as for compiled callers only (:class:`Deferred`):
    the parts a game loop will be compiled on top of."""
    token = _AS_CALLEE.set(True)
    try:
        yield
    finally:
        _AS_CALLEE.reset(token)


def _defer(library) -> None:
    """Make ``library`` (a JIT code library) finish without machine code: its
    optimized module is kept for linking and for the cache (:data:`_IR`)."""
    library.__dict__["_ttrsim_deferred"] = True
    library._finalize_final_module = partial(setattr, library, "_finalized", True)
    library.serialize_using_object_code = partial(_serialize_ir, library)


def _serialize_ir(library):
    library._ensure_finalized()
    return library.name, _IR, library._final_module.as_bitcode()


def _machine_code(library) -> None:
    """Give a deferred ``library`` its machine code (numba's own finish)."""
    if library.__dict__.pop("_ttrsim_deferred", False):
        library._ensure_finalized()
        del library._finalize_final_module, library.serialize_using_object_code
        type(library)._finalize_final_module(library)


def _give_machine_code(disp, entry: Deferred):
    """The entry point of ``disp``'s deferred overload ``entry``, made now
    (Python calls it): its machine code, an entry for Python calls, and the
    cache entry rewritten with the machine code."""
    args, cres = next((a, c) for a, c in disp.overloads.items() if c.entry_point is entry)
    ctx = cres.target_context
    with global_compiler_lock:
        cfunc = ctx.get_executable(cres.library, cres.fndesc, cres.environment)
        for env in entry.envs:
            cres.library.codegen.set_env(env.env_name, env)
        ctx.insert_user_function(cfunc, cres.fndesc, [cres.library])
        cres = cres._replace(entry_point=cfunc)
        disp.add_overload(cres)
        disp._cache.save_overload(args, cres)
    return cfunc


# set while numba builds the implementation of one of ttrsim's ``inline="always"`` overloads
_BUILDING_INLINE = contextvars.ContextVar("ttrsim_building_inline", default=False)


def install() -> None:
    """Make compiled calls to ttrsim's functions use :func:`canonical` argument
    types, never compile the implementation of ttrsim's ``inline="always"``
    overloads on its own, and optimize ttrsim's functions with their small
    callees only (:data:`SMALL_CALLEE`, :func:`link_callees_as_compiled`;
    once, and only if :data:`PATCHES`)."""
    original = dispatcher.Dispatcher.get_call_template
    if not PATCHES or getattr(original, "_ttrsim", False):
        return

    def get_call_template(self, args, kws):
        if _BUILDING_INLINE.get() or self.__dict__.get("_ttrsim_inline_only"):
            # numba types an always-inlined overload's implementation through its
            # dispatcher, which compiles it (with every callee linked in: for the
            # strategy dispatch, all the loop's kernels) and throws it away: its
            # IR is inlined. Only the folded argument types are used.
            self.__dict__["_ttrsim_inline_only"] = True
            self._can_compile = False
            try:
                return original(self, args, kws)
            finally:
                self._can_compile = True
        if _ours_dispatcher(self):
            args = tuple(canonical(a) for a in args)
            kws = {k: canonical(v) for k, v in kws.items()}
            with callees_only():
                return original(self, args, kws)
        return original(self, args, kws)

    build_impl = templates._OverloadFunctionTemplate._build_impl

    def _build_impl(self, cache_key, args, kws):
        code = getattr(self._overload_func, "__code__", None)
        mine = self._inline.is_always_inline and code is not None and ours(code.co_filename) is not None
        token = _BUILDING_INLINE.set(mine)
        try:
            return build_impl(self, cache_key, args, kws)
        finally:
            _BUILDING_INLINE.reset(token)

    lower = typed_passes.BaseNativeLowering.run_pass

    def run_pass(self, state):
        defer = False
        if state.library is None and ours(state.func_id.filename) is not None:
            small = 0 if state.func_id.func in _LINK_AS_COMPILED else SMALL_CALLEE
            state.library = state.targetctx.codegen().create_library(state.func_id.func_qualname)
            state.library.enable_object_caching()
            state.library.finalize = partial(_finalize, state.library, small, state.library.finalize)
            defer = _AS_CALLEE.get() and not state.flags.no_compile
        if not defer:
            return lower(self, state)
        _defer(state.library)
        state.flags.no_compile = True           # numba's lowering without an executable
        try:
            done = lower(self, state)
        finally:
            state.flags.no_compile = False
        entry = Deferred()
        state.targetctx.insert_user_function(entry, state.cr.fndesc, [state.library])
        state.reload_init.extend(state.library._reload_init)
        state["cr"] = state.cr._replace(cfunc=entry)
        return done

    compile_ = dispatcher.Dispatcher.compile

    def compile(self, sig):
        entry = compile_(self, sig)
        if isinstance(entry, Deferred) and not _AS_CALLEE.get():
            entry = _give_machine_code(self, entry)
        return entry

    compile_for_args = dispatcher._DispatcherBase._compile_for_args

    def _compile_for_args(self, *args, **kws):          # a call from Python: it runs now
        entry = compile_for_args(self, *args, **kws)
        if isinstance(entry, Deferred):
            entry = _give_machine_code(self, entry)
        return entry

    add_overload = dispatcher.Dispatcher.add_overload

    def add_overload_(self, cres):
        if isinstance(cres.entry_point, Deferred):          # no entry for Python calls yet
            self.overloads[tuple(cres.signature.args)] = cres
        else:
            add_overload(self, cres)

    rebuild = compiler.CompileResult._rebuild.__func__

    def _rebuild(cls, target_context, libdata, fndesc, env, signature, objectmode, lifted, typeann,
                 reload_init, referenced_envs):
        if libdata[1] != _IR:
            return rebuild(cls, target_context, libdata, fndesc, env, signature, objectmode, lifted, typeann,
                           reload_init, referenced_envs)
        for fn in reload_init or ():
            fn()
        return cls(target_context=target_context, typing_context=target_context.typing_context,
                   library=target_context.codegen().unserialize_library(libdata), environment=env,
                   entry_point=Deferred(tuple(referenced_envs)), fndesc=fndesc, type_annotation=typeann,
                   signature=signature, objectmode=objectmode, lifted=lifted, typing_error=None,
                   call_helper=None, metadata=None, reload_init=reload_init, referenced_envs=referenced_envs)

    unserialize = codegen.JITCodeLibrary._unserialize.__func__

    def _unserialize(cls, codegen_, state):
        name, kind, data = state
        if kind != _IR:
            return unserialize(cls, codegen_, state)
        library = codegen_.create_library(name)
        library.enable_object_caching()
        library._final_module = llvm.parse_bitcode(data)
        _defer(library)
        library._finalized = True
        return library

    pointer = codegen.JITCodeLibrary.get_pointer_to_function

    def get_pointer_to_function(self, name):
        _machine_code(self)
        return pointer(self, name)

    get_call_template._ttrsim = True
    dispatcher.Dispatcher.get_call_template = get_call_template
    dispatcher.Dispatcher.compile = compile
    dispatcher._DispatcherBase._compile_for_args = _compile_for_args
    dispatcher.Dispatcher.add_overload = add_overload_
    templates._OverloadFunctionTemplate._build_impl = _build_impl
    typed_passes.BaseNativeLowering.run_pass = run_pass
    compiler.CompileResult._rebuild = classmethod(_rebuild)
    codegen.JITCodeLibrary._unserialize = classmethod(_unserialize)
    codegen.JITCodeLibrary.get_pointer_to_function = get_pointer_to_function
