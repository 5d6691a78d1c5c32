"""ttrsim: a fast, headless Monte Carlo simulator for Ticket to Ride.

Importing the package points numba's on-disk cache at a folder keyed by a hash
of the sources of ``ttrsim`` and ``strategies``. Numba checks only the
timestamp of a function's own file, so a compiled caller (the game loop) would
otherwise keep running stale copies of an edited strategy or rule helper.
The pure-Python shell (CLI, experiment runner, reports) is left out of the
hash, so editing it does not recompile the engine.
"""
import hashlib
import os
from pathlib import Path

import numba

__version__ = "0.1.0"
# The version of the games: the same seed, rules and strategies give the same
# game only within one version (a results folder of another version is not
# resumed). 2: random streams seeded by a hash of (seed, lane).
GAMES_VERSION = 2


# Modules and subpackages no compiled code imports: editing them never needs a recompile.
_SHELL = frozenset({"cli.py", "run_cli.py", "experiment.py", "runner.py", "summary.py", "tables.py",
                    "narrate.py", "report"})


def _source_keyed_cache_dir() -> str:
    here = Path(__file__).resolve().parent
    digest = hashlib.sha1()
    for folder in (here, here.parent / "strategies"):
        for f in sorted(folder.rglob("*.py")):
            if folder == here and f.relative_to(here).parts[0] in _SHELL:
                continue
            digest.update(f.relative_to(folder.parent).as_posix().encode())
            digest.update(f.read_bytes())
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "ttrsim")
    return os.path.join(base, f"numba-{digest.hexdigest()[:16]}")


numba.config.CACHE_DIR = _source_keyed_cache_dir()
