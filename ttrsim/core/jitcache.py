"""Where ttrsim's compiled kernels are cached on disk.

Numba checks a cached function against its own file only, so a compiled
caller (the game loop) would keep running a stale copy of an edited callee in
another file (a rule helper, a strategy). ttrsim's kernels are therefore cached
in a folder keyed by a hash of every source the compiled code is made of
(``ttrsim/data``, ``ttrsim/core``, ``ttrsim/play``, ``ttrsim/env`` and the built-in
strategies): an edit anywhere compiles afresh into a new folder.

This is done with a numba cache locator that claims only ttrsim's own files,
so numba's global configuration is untouched: a user's own
``@njit(cache=True)`` functions are cached wherever numba would put them.
:func:`install` registers it; ``ttrsim.core`` calls it on import, before any
kernel is defined.

The base folder is ``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/ttrsim``,
else the platform's cache folder (``~/.cache/ttrsim`` on Linux).
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from functools import lru_cache
from pathlib import Path

from numba.core import caching

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
    """This source tree's cache folder: ``numba-<hash of the compiled sources>``."""
    digest = hashlib.sha1()
    for root in source_roots():
        for f in sorted(root.rglob("*.py")):
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

    @classmethod
    def from_function(cls, py_func, py_file):
        if _ours(py_file) is None:
            return None
        return super().from_function(py_func, py_file)


def install() -> None:
    """Register :class:`SourceKeyedLocator` first among numba's cache locators (once)."""
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")
    if SourceKeyedLocator not in impl._locator_classes:
        impl._locator_classes.insert(0, SourceKeyedLocator)
