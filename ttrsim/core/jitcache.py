"""Where ttrsim's compiled kernels are cached on disk.

Numba checks a cached function against its own file only, so a compiled
caller (the game loop) would keep running a stale copy of an edited callee in
another file (a rule helper, a strategy). ttrsim's kernels are therefore cached
in a folder keyed by a hash of every source the compiled code is made of
(``ttrsim/data``, ``ttrsim/core``, ``ttrsim/play``, ``ttrsim/env`` and the built-in
strategies, and :data:`SMALL_CALLEE`): an edit anywhere compiles afresh into a new folder.

This is done with a numba cache locator that claims only ttrsim's own files,
so numba's global configuration is untouched: a user's own
``@njit(cache=True)`` functions are cached wherever numba would put them.
:func:`install` registers it; ``ttrsim.core`` calls it on import, before any
kernel is defined.

:func:`install` also makes every compiled call between ttrsim's own
functions compile the callee once: numba compiles a function anew for every
new tuple of argument types, and call sites passing a constant (``-1``,
``True``: a literal type), an ``int16`` array element or an ``int64`` made
about a quarter of a first run's compiles repeats of the same function. The
argument types a compiled caller passes to a ttrsim function are made
canonical (:func:`canonical`: literals to their type, signed integers to
``int64``); the values are cast at the call, which numba does for any call,
so the games are the same. It also types ttrsim's ``inline="always"``
overloads (the strategy dispatch) without compiling their implementation
on its own, which numba does and then throws away (the IR is inlined).
And it optimizes each of ttrsim's functions with the code of the small
callees only (:data:`SMALL_CALLEE`; none for the game loops named by
:func:`link_callees_as_compiled`), linking the larger ones in as compiled:
numba optimizes a function after linking in the code of everything below it,
so every level optimized the whole engine below it once more.

The base folder is ``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/ttrsim``,
else the platform's cache folder (``~/.cache/ttrsim`` on Linux). Every entry
of a folder is stamped with the folder's hash (not the source files' times),
so an installed copy of the same sources (a wheel, another checkout) shares it.
Folders of other sources are listed by :func:`cache_folders` and removed by
:func:`clear_stale` (``ttrsim cache [--clear]``); nothing is removed unasked,
since two checkouts of different sources may share the base folder.

A first run compiles for a minute or two; :class:`CompileWatch` makes that
visible: inside its block it hears numba's ``"numba:compile"`` events (only
real compiles: loads from the cache send none) and calls back before the
first compile and after each compiled function, and the last full compile's
duration is kept for the next estimate (:func:`compile_estimate`).
"""
from __future__ import annotations

import contextvars
import hashlib
import importlib.util
import json
import os
import shutil
import sys
import time
from functools import lru_cache, partial
from pathlib import Path

from llvmlite import binding as llvm
from numba.core import caching, dispatcher, typed_passes, types
from numba.core import event as numba_event
from numba.core.typing import templates

# the folders whose sources compiled code is made of, relative to the package
_COMPILED = ("data", "core", "play", "env")


def cache_base() -> Path:
    """The folder holding ttrsim's cache folders (one per source hash)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "ttrsim"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "ttrsim"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "ttrsim" / "Cache"
    return Path.home() / ".cache" / "ttrsim"


@lru_cache(maxsize=1)
def source_roots() -> tuple[Path, ...]:
    """The source folders of the compiled code: ttrsim's compiled subpackages
    and the built-in strategies (found without importing them)."""
    package = Path(__file__).resolve().parent.parent
    roots = [package / name for name in _COMPILED]
    spec = importlib.util.find_spec("ttrsim.strategies")
    if spec is not None and spec.submodule_search_locations:
        roots.append(Path(list(spec.submodule_search_locations)[0]).resolve())
    return tuple(roots)


@lru_cache(maxsize=1)
def cache_dir() -> Path:
    """This source tree's cache folder: ``numba-<hash of the compiled sources>``
    (this module, which compiles nothing, left out, but for how it links:
    :data:`SMALL_CALLEE`)."""
    digest = hashlib.sha1(f"linking {SMALL_CALLEE}".encode())
    here = Path(__file__).resolve()
    for root in source_roots():
        for f in sorted(root.rglob("*.py")):
            if f == here:
                continue
            digest.update(f"{root.name}/{f.relative_to(root).as_posix()}".encode())
            digest.update(f.read_bytes())
    return cache_base() / f"numba-{digest.hexdigest()[:16]}"


def _ours(py_file: str) -> Path | None:
    """``py_file``'s folder relative to its source root, if it is ttrsim's."""
    path = Path(py_file).resolve()
    for root in source_roots():
        if path.is_relative_to(root):
            return Path(root.name) / path.parent.relative_to(root)
    return None


class SourceKeyedLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Caches the kernels of ttrsim's files under :func:`cache_dir`."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(cache_dir() / _ours(py_file))

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return cache_dir().name

    @classmethod
    def from_function(cls, py_func, py_file):
        if _ours(py_file) is None:
            return None
        return super().from_function(py_func, py_file)


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
        d.__dict__["_ttrsim_ours"] = ours = _ours(d.py_func.__code__.co_filename) is not None
        return ours


# A compiled function's code holds the code of every function below it: numba
# links their (optimized) code in, then optimizes the whole again to inline
# across functions, so every level re-optimizes everything below it. ttrsim's
# functions optimize their own code with the small callees only (the code of
# at most SMALL_CALLEE bytes of LLVM bitcode with their own callees: about
# 4,000 instructions, far more than LLVM inlines), then link the larger ones
# in as compiled (the engine's actions and legal lists, the planner's
# phases). Part of the cache folder's name (:func:`cache_dir`), since the
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
    """Register :class:`SourceKeyedLocator` first among numba's cache locators,
    make compiled calls to ttrsim's functions use :func:`canonical` argument
    types, never compile the implementation of ttrsim's ``inline="always"``
    overloads on its own, and optimize ttrsim's functions with their small
    callees only (:data:`SMALL_CALLEE`, :func:`link_callees_as_compiled`; once)."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    if SourceKeyedLocator not in impl._locator_classes:
        impl._locator_classes.insert(0, SourceKeyedLocator)
    original = dispatcher.Dispatcher.get_call_template
    if getattr(original, "_ttrsim", False):
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
        ours = self._inline.is_always_inline and code is not None and _ours(code.co_filename) is not None
        token = _BUILDING_INLINE.set(ours)
        try:
            return build_impl(self, cache_key, args, kws)
        finally:
            _BUILDING_INLINE.reset(token)

    lower = typed_passes.BaseNativeLowering.run_pass

    def run_pass(self, state):
        if state.library is None and _ours(state.func_id.filename) is not None:
            small = 0 if state.func_id.func in _LINK_AS_COMPILED else SMALL_CALLEE
            state.library = state.targetctx.codegen().create_library(state.func_id.func_qualname)
            state.library.enable_object_caching()
            state.library.finalize = partial(_finalize, state.library, small, state.library.finalize)
        return lower(self, state)

    get_call_template._ttrsim = True
    dispatcher.Dispatcher.get_call_template = get_call_template
    templates._OverloadFunctionTemplate._build_impl = _build_impl
    typed_passes.BaseNativeLowering.run_pass = run_pass


# --------------------------------------------------------------------------- the folders

def cache_folders() -> list[dict]:
    """ttrsim's cache folders under :func:`cache_base`, newest first: ``path``,
    ``bytes``, ``modified`` (seconds since the epoch) and ``current`` (the
    folder of these sources)."""
    base, current = cache_base(), cache_dir().name
    out = []
    for d in base.glob("numba-*") if base.is_dir() else ():
        files = [f for f in d.rglob("*") if f.is_file()]
        stamps = [f.stat().st_mtime for f in files] or [d.stat().st_mtime]
        out.append({"path": d, "bytes": sum(f.stat().st_size for f in files), "modified": max(stamps),
                    "current": d.name == current})
    return sorted(out, key=lambda x: -x["modified"])


def clear_stale(everything: bool = False) -> list[dict]:
    """Remove the cache folders of other sources (``everything``: the current
    one too); returns the removed folders as :func:`cache_folders` lists them."""
    gone = [f for f in cache_folders() if everything or not f["current"]]
    for f in gone:
        shutil.rmtree(f["path"], ignore_errors=True)
    return gone


# --------------------------------------------------------------------------- compiling, visibly

# the first compile of an experiment's kernels when none was timed on this
# machine yet: seconds on an idle 2-core machine, and functions of ttrsim's
DEFAULT_COMPILE = {"seconds": 70.0, "units": 100}
# a compile of at least this many functions is a full one, kept as the estimate
FULL_COMPILE_UNITS = 20
_TIMES = "compile-time.json"


def compile_estimate() -> dict:
    """``seconds`` and ``units`` (functions) of the last full compile on this
    machine (:data:`DEFAULT_COMPILE` if none was timed)."""
    try:
        last = json.loads((cache_base() / _TIMES).read_text())
        return {k: float(last[k]) for k in DEFAULT_COMPILE}
    except (OSError, ValueError, KeyError, TypeError):
        return dict(DEFAULT_COMPILE)


class CompileWatch(numba_event.Listener):
    """Watch numba compile while the ``with`` block runs.

    ``on_first()`` is called before the first function compiles (not at all
    when everything loads from the cache) and ``on_unit(name, done)`` after
    each compiled function of ours (``name``: its module and name; ``done``:
    functions compiled so far; numba's own helpers compiled along are not
    counted). ``seconds`` is the time spent compiling, ``units`` the functions
    compiled. A full compile's time is kept for :func:`compile_estimate`.

    >>> with CompileWatch() as w:
    ...     pass
    >>> w.units, w.seconds
    (0, 0.0)
    """

    def __init__(self, on_first=None, on_unit=None):
        self.on_first, self.on_unit = on_first, on_unit
        self.units, self.seconds = 0, 0.0
        self._depth, self._t0, self._started = 0, 0.0, False

    def on_start(self, event):
        if self._depth == 0:
            if not self._started and self.on_first is not None:
                self.on_first()
            self._started = True
            self._t0 = time.perf_counter()
        self._depth += 1

    def on_end(self, event):
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._t0
        f = event.data["dispatcher"].py_func
        module = f.__module__ or ""                   # (None for a StructRef's generated constructor)
        if module.split(".")[0] != "numba":
            self.units += 1
            if self.on_unit is not None:
                self.on_unit(f"{module}.{f.__qualname__}".lstrip("."), self.units)

    def __enter__(self):
        self._installed = numba_event.install_listener("numba:compile", self)
        self._installed.__enter__()
        return self

    def __exit__(self, *exc):
        self._installed.__exit__(*exc)
        if exc[0] is None and self.units >= FULL_COMPILE_UNITS:
            try:
                cache_base().mkdir(parents=True, exist_ok=True)
                (cache_base() / _TIMES).write_text(json.dumps({"seconds": round(self.seconds, 1),
                                                               "units": self.units}))
            except OSError:
                pass
        return False
