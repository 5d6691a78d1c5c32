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
so every level optimized the whole engine below it once more.

The patches replace three methods of numba (``Dispatcher.get_call_template``,
``_OverloadFunctionTemplate._build_impl``, ``BaseNativeLowering.run_pass``)
and act on ttrsim's own functions only (:func:`ttrsim.jit.cache.ours`). They change
how fast a first run compiles, never the games: the environment variable
``TTRSIM_NUMBA_PATCHES=0`` (read once, when ``ttrsim.jit`` is imported)
leaves numba unpatched, to rule the patches out when something compiles
wrongly or to try a new numba release. Its compiled code differs, so it has a
cache folder of its own (:func:`compiled_as` is part of the folder's hash).
"""
from __future__ import annotations

import contextvars
import os
from functools import partial

from llvmlite import binding as llvm
from numba.core import dispatcher, typed_passes, types
from numba.core.typing import templates

from .cache import ours

# whether numba is patched (``TTRSIM_NUMBA_PATCHES``, read once; on unless ``0``)
PATCHES = os.environ.get("TTRSIM_NUMBA_PATCHES", "1").strip() != "0"


def compiled_as() -> str:
    """How numba compiles ttrsim's functions, as part of the cache folder's hash
    (:func:`ttrsim.jit.cache.cache_dir`): the linking of :data:`SMALL_CALLEE`,
    or unpatched."""
    return f"linking {SMALL_CALLEE}" if PATCHES else "numba unpatched"


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
        if state.library is None and ours(state.func_id.filename) is not None:
            small = 0 if state.func_id.func in _LINK_AS_COMPILED else SMALL_CALLEE
            state.library = state.targetctx.codegen().create_library(state.func_id.func_qualname)
            state.library.enable_object_caching()
            state.library.finalize = partial(_finalize, state.library, small, state.library.finalize)
        return lower(self, state)

    get_call_template._ttrsim = True
    dispatcher.Dispatcher.get_call_template = get_call_template
    templates._OverloadFunctionTemplate._build_impl = _build_impl
    typed_passes.BaseNativeLowering.run_pass = run_pass
