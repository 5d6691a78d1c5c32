"""Where ttrsim's compiled kernels are cached on disk.

Numba checks a cached function against its own file only, so a compiled
caller (the game loop) would keep running a stale copy of an edited callee in
another file (a rule helper, a strategy). ttrsim's kernels are therefore cached
in a folder keyed by a hash of every source the compiled code is made of
(``ttrsim/jit``, ``ttrsim/data``, ``ttrsim/core``, ``ttrsim/play``, ``ttrsim/env``
and the built-in strategies, and whether numba is patched:
:data:`ttrsim.jit.patches.PATCHES`): an edit anywhere compiles afresh into a
new folder.

This is done with a numba cache locator that claims only ttrsim's own files,
so numba's global configuration is untouched: a user's own
``@njit(cache=True)`` functions are cached wherever numba would put them.
:func:`install` registers it; importing ``ttrsim.jit`` (which ``ttrsim.core``
does) calls it, before any kernel is defined.

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

import hashlib
import importlib.util
import json
import os
import shutil
import sys
import time
from functools import lru_cache
from pathlib import Path

from numba.core import caching
from numba.core import event as numba_event

# the folders whose sources compiled code is made of, relative to the package
_COMPILED = ("jit", "data", "core", "play", "env")


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
    """This source tree's cache folder: ``numba-<hash>`` of the compiled
    sources (this module, which compiles nothing, left out) and of how numba
    compiles them (:func:`ttrsim.jit.patches.compiled_as`)."""
    from .patches import compiled_as
    digest = hashlib.sha1(compiled_as().encode())
    here = Path(__file__).resolve()
    for root in source_roots():
        for f in sorted(root.rglob("*.py")):
            if f == here:
                continue
            digest.update(f"{root.name}/{f.relative_to(root).as_posix()}".encode())
            digest.update(f.read_bytes())
    return cache_base() / f"numba-{digest.hexdigest()[:16]}"


def ours(py_file: str) -> Path | None:
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
        self._cache_path = str(cache_dir() / ours(py_file))

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return cache_dir().name

    @classmethod
    def from_function(cls, py_func, py_file):
        if ours(py_file) is None:
            return None
        return super().from_function(py_func, py_file)


def install() -> None:
    """Register :class:`SourceKeyedLocator` first among numba's cache locators (once)."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    if SourceKeyedLocator not in impl._locator_classes:
        impl._locator_classes.insert(0, SourceKeyedLocator)


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
# (the quickstart's two-core compile measured 35-37 s on 2026-12-07: docs/performance.md)
DEFAULT_COMPILE = {"seconds": 40.0, "units": 100}
# a compile of at least this many functions is a full one, kept as the estimate
FULL_COMPILE_UNITS = 20
_TIMES = "compile-time.json"


def load_factor() -> float:
    """How much slower than on an idle machine a two-process compile runs now:
    the two compiling processes share the cores with the last minute's load
    average (1 on an idle machine or where the load is unknown).

    >>> load_factor() >= 1.0
    True
    """
    try:
        load = os.getloadavg()[0]
    except OSError:
        return 1.0
    return max(1.0, (load + 2.0) / max(os.cpu_count() or 1, 2))


def compile_estimate() -> dict:
    """``seconds`` and ``units`` (functions) a full compile should take now:
    the last full compile on this machine (``timed`` True) brought to an idle
    machine and scaled by :func:`load_factor`; :data:`DEFAULT_COMPILE` scaled
    the same way if none was timed (``timed`` False)."""
    est = dict(DEFAULT_COMPILE)
    timed = False
    try:
        last = json.loads((cache_base() / _TIMES).read_text())
        est = {k: float(last[k]) for k in DEFAULT_COMPILE}
        est["seconds"] /= float(last.get("load_factor", 1.0))
        timed = True
    except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError):
        pass
    est["seconds"] *= load_factor()
    return {**est, "timed": timed}


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
        self.load_factor = 1.0              # the machine's load when the first function started compiling

    def on_start(self, event):
        if self._depth == 0:
            if not self._started and self.on_first is not None:
                self.on_first()
            if not self._started:
                self.load_factor = load_factor()
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
                                                               "units": self.units,
                                                               "load_factor": round(self.load_factor, 2)}))
            except OSError:
                pass
        return False
