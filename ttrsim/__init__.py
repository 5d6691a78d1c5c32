"""ttrsim: a fast, headless Monte Carlo simulator for Ticket to Ride.

The package is layered (docs/architecture.md): ``ttrsim.data`` (ids, rules,
maps), ``ttrsim.core`` (the compiled rules), ``ttrsim.strategies`` (built-in
strategies), ``ttrsim.results`` (the results folder: its format, reader and
statistics), ``ttrsim.play`` (game loops, ``Game``), ``ttrsim.experiment``
(the runner), ``ttrsim.report`` and ``ttrsim.cli``. Importing ``ttrsim`` itself
loads none of them: :func:`open` (a results folder's tables) loads the
results layer when it is called.
"""
import importlib as _importlib

__all__ = ["GAMES_VERSION"]        # (not open: ``from ttrsim import *`` keeps the built-in open)
__version__ = "0.1.0"
# The version of the games: the same seed, rules and strategies give the same
# game only within one version (a results folder of another version is not
# resumed). 2: random streams seeded by a hash of (seed, lane).
GAMES_VERSION = 2


# ttrsim.open (the package name says what it opens; the built-in open is untouched elsewhere)
def open(path, storage_options=None):
    """The tables of the results folder ``path`` (``ttrsim run`` output; or a
    URL such as ``s3://bucket/run``, with its fsspec ``storage_options``) as
    polars LazyFrames with the names joined in: ``ttrsim.open(path)["turns"]``
    (games, players, tickets, turns and dims/...); see
    :mod:`ttrsim.results.load` and docs/results.md. A folder that cannot be
    read raises ``ttrsim.results.reader.ResultsError`` (one line)."""
    return _importlib.import_module("ttrsim.results.load").load(path, storage_options)
