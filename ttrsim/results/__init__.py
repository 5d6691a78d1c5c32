"""The results folder, its own layer: its format and the one reader of it.

``ttrsim run`` (:mod:`ttrsim.experiment`) writes a folder through it and the
report (:mod:`ttrsim.report`) reads one only through it; it imports nothing
of the game loops, the strategies or the experiment (only :mod:`ttrsim.data`,
and :mod:`ttrsim.core` to find an offered ticket). Its modules:

* :mod:`~ttrsim.results.folder`: the layout, manifest, part files and their
  checksums, the lock, ``map.json`` / ``rules.json`` and the dimension tables;
* :mod:`~ttrsim.results.store`: a folder at an fsspec URL (``s3://...``);
* :mod:`~ttrsim.results.tables`: the tables' schemas and column descriptions;
* :mod:`~ttrsim.results.reader`: :class:`Results`, the one reader;
* :mod:`~ttrsim.results.load`: :func:`load` (``ttrsim.open``), every table
  with the names joined in;
* :mod:`~ttrsim.results.stats`: the one statistics module (win rates,
  intervals, p-values);
* :mod:`~ttrsim.results.summary`: the run summary and the seating design's text;
* :mod:`~ttrsim.results.effects`: the paired effects of a sweep or an intervention;
* :mod:`~ttrsim.results.errors`: :class:`ExperimentError`, which the folder raises.

The names below are loaded when first used, so that importing
:mod:`ttrsim.results.errors` (the experiment's config does) loads no polars
nor pyarrow.

>>> from ttrsim.results import Results, TABLES
>>> TABLES
('games', 'players', 'tickets', 'turns')
"""
import importlib as _importlib

# public name -> its module
_NAMES = {"Results": "reader", "ResultsError": "reader", "TABLES": "reader", "DIMS": "reader",
          "READ_ERRORS": "reader", "ResultTables": "load", "ExperimentError": "errors"}
__all__ = list(_NAMES)


def __getattr__(name):
    if name in _NAMES:
        return getattr(_importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_NAMES))
