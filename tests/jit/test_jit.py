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
