"""ttrsim.jit: numba's patches change how fast the kernels compile, never
the games (docs/performance.md, "the first run")."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ttrsim.jit import cache, kernel, patches

ROOT = Path(__file__).resolve().parents[2]

# a few seeded games of random and planner on usa: their final tables, whether numba is patched, the cache folder
_GAMES = """
import json
import numpy as np
from ttrsim.core.board import build_board
from ttrsim.data.rules import get_rules
from ttrsim.jit import cache, patches
from ttrsim.play.loop import play_finals
from ttrsim.strategies import param_row, strategy_id
mix = ["random", "planner"]
finals = play_finals(build_board(get_rules("usa")), 2, np.arange(1000, 1004, dtype=np.int64),
                     np.array([strategy_id(m) for m in mix], np.int64), np.stack([param_row(m) for m in mix]))
out = {"finals": finals.tolist(), "patched": patches.PATCHES, "folder": cache.cache_dir().name}
"""


def test_kernel_is_njit_cached_with_its_options():
    """``@kernel`` is ``@njit(cache=True)``; options pass along (not compiled here)."""
    @kernel
    def twice(x):
        return 2 * x

    @kernel(inline="always")
    def thrice(x):
        return 3 * x

    assert twice.targetoptions == {"nopython": True, "boundscheck": None}
    assert thrice.targetoptions == {**twice.targetoptions, "inline": "always"}
    assert type(twice._cache).__name__ == type(thrice._cache).__name__ == "FunctionCache"


def test_games_are_the_same_with_numba_unpatched():
    """A process with ``TTRSIM_NUMBA_PATCHES=0`` compiles into a cache folder
    of its own and plays the same games as this one (it compiles from
    scratch: minutes)."""
    if not patches.PATCHES:
        pytest.skip("this process runs unpatched already")
    env = {**os.environ, "TTRSIM_NUMBA_PATCHES": "0"}
    off = subprocess.run([sys.executable, "-c", _GAMES + "print(json.dumps(out))"], check=False,
                         capture_output=True, text=True, cwd=ROOT, env=env)
    assert off.returncode == 0, off.stderr[-3000:]
    off = json.loads(off.stdout.strip().splitlines()[-1])
    here = {}
    exec(_GAMES, here)                          # noqa: S102 (this file's code)
    on = here["out"]
    assert on["patched"] and not off["patched"]
    assert on["folder"] == cache.cache_dir().name != off["folder"]
    assert len(on["finals"]) == 4 and on["finals"] == off["finals"]


# a caller compiled for a Python call, then two of its callees called from Python
_DEFERRED = """
import json
import numpy as np
from ttrsim.core.board import build_board
from ttrsim.core.bitset import drop_lowest
from ttrsim.core.claims import claimable_routes, largest_colour_group
from ttrsim.core.state import allocate_state
from ttrsim.data.rules import get_rules
from ttrsim.jit import patches

def deferred(fn):
    return [isinstance(c.entry_point, patches.Deferred) for c in fn.overloads.values()]

b = build_board(get_rules("usa")); s = allocate_state(b, 2)
s.hand[0, 1] = 2; s.trains[:] = 45
out = {"n": int(claimable_routes(b, s, 0, np.zeros(100, np.bool_)))}
out["before"] = [deferred(largest_colour_group), deferred(drop_lowest)]
out["most"] = int(largest_colour_group(s, 0))
out["after"] = [deferred(largest_colour_group), deferred(drop_lowest)]
if out["before"] == [[], []]:          # loaded from the cache: the other callee called from Python too
    out["low"] = int(drop_lowest(np.uint64(6)))
    out["after"] = [deferred(largest_colour_group), deferred(drop_lowest)]
print(json.dumps(out))
"""


def test_callees_get_machine_code_only_when_python_calls_them(tmp_path):
    """A function compiled for a compiled caller has no machine code of its
    own (:class:`~ttrsim.jit.patches.Deferred`) until Python calls it; then it
    gets it, gives the same answers, and a later process loads it from the
    cache with or without machine code alike."""
    if not patches.PATCHES:
        pytest.skip("numba unpatched")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def run():
        done = subprocess.run([sys.executable, "-c", _DEFERRED], check=False, capture_output=True, text=True,
                              cwd=ROOT, env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    first = run()
    assert first == {"n": 36, "before": [[True], [True]], "most": 2, "after": [[False], [True]]}
    # the next process loads the caller with machine code, and nothing below it;
    # then the callee with machine code (rewritten in the cache) and the one without
    assert run() == {"n": 36, "before": [[], []], "most": 2, "low": 4, "after": [[False], [False]]}
