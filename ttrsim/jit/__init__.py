"""numba's machinery, in one place: the layer below ``ttrsim.core``, and the
only one that reaches into numba's and llvmlite's internals (it imports
nothing else of ttrsim).

- :func:`kernel`, the decorator of every compiled function of ttrsim:
  ``@kernel`` is ``@numba.njit(cache=True)``, ``@kernel(inline="always")``
  passes numba's options along (also ``cache=True``).
- :mod:`ttrsim.jit.cache`: the kernels' disk cache, a folder per hash of the
  compiled sources, and watching a compile (:class:`~ttrsim.jit.cache.CompileWatch`).
- :mod:`ttrsim.jit.patches`: ttrsim's patches of numba's compiler (fewer
  and faster compiles, the same games), on unless the environment variable
  ``TTRSIM_NUMBA_PATCHES=0``.
- :mod:`ttrsim.jit.record`: records of arrays passed by reference (the
  board, the game state).
- :mod:`ttrsim.jit.intrinsics`: instructions numba does not emit itself.
- :mod:`ttrsim.jit.dispatch`: a set of kernels as an argument of compiled
  code (the strategy dispatch).

Importing it registers the cache and the patches, before any kernel is
defined (``ttrsim.core`` imports it first).
"""
import numba

from . import cache as _cache
from . import patches as _patches

__all__ = ["kernel"]

_cache.install()
_patches.install()


def kernel(fn=None, **options):
    """Compile ``fn`` with numba and cache it on disk: ``@kernel`` is
    ``@numba.njit(cache=True)``; ``@kernel(inline="always")`` (or any other of
    numba's ``njit`` options) passes the options along with ``cache=True``."""
    options = {"cache": True, **options}
    if fn is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(fn)
