"""Experiment files: reading one and checking it into a frozen config.

An experiment is a YAML file (or a dict, from the Python API); see
``docs/experiments.md`` for every key and ``experiments/*.yaml`` for a
commented example of each feature. :func:`load_experiment` checks the whole
file before anything runs and returns a frozen :class:`Experiment`; any problem
raises :class:`ExperimentError` with one line naming the file, the field and
what was expected, e.g.::

    bad.yaml: plyers: unknown key; did you mean 'players'?

The YAML is read by :mod:`ttrsim.data.yamlfile` (no key twice, no alias bombs);
the keys and the config classes are in :mod:`~ttrsim.experiment.schema`, the
checks in :mod:`~ttrsim.experiment.validator`.

>>> e = load_experiment({"name": "t", "rules": "usa", "players": 2, "lineup": ["random", "random"], "games": 5})
>>> e.block_size, e.games, [x.label for x in e.entrants]
(2, 6, ['random', 'random-2'])
>>> load_experiment({"name": "t", "players": 2, "lineup": ["random", "random"], "gmes": 5})
Traceback (most recent call last):
...
ttrsim.results.errors.ExperimentError: <dict>: gmes: unknown key; did you mean 'games'?
"""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from ttrsim.data.checks import kind
from ttrsim.data.yamlfile import YamlError, read_yaml

from .schema import EXECUTION_KEYS, Entrant, Experiment, ExperimentError, Point, StopRule
from .validator import Validator

__all__ = ["load_experiment", "read_experiment_file", "read_mapping_file", "open_document", "Experiment", "Entrant", "StopRule", "Point",
           "ExperimentError", "EXECUTION_KEYS"]

_EXPECTED = "a YAML mapping of experiment keys"


def read_mapping_file(path, *, what: str, expected: str, keys: str, error=ExperimentError) -> dict:
    """The raw mapping of a YAML file (``error``, one line, on a missing or
    malformed file or one that is not a mapping; ``keys`` names a few of them)."""
    try:
        doc = read_yaml(path, what=what, expected=expected)
    except YamlError as e:
        raise error(str(e)) from None
    if not isinstance(doc, dict):
        raise error(f"{Path(path).name}: (file): expected {expected} ({keys}), got {kind(doc)}")
    return doc


def read_experiment_file(path) -> dict:
    """The raw mapping of an experiment file (ExperimentError on a missing or malformed file)."""
    return read_mapping_file(path, what="an experiment YAML file", expected=_EXPECTED, keys="name, rules, players, ...")


def open_document(path_or_dict, overrides: dict | None, base_dir, read) -> tuple[dict, str, Path]:
    """(the mapping, its name in messages, the folder its relative paths start
    at) of a YAML path (read with ``read``) or a dict, with ``overrides``
    replacing top-level keys (``None`` = keep)."""
    if isinstance(path_or_dict, dict):
        doc, source = dict(path_or_dict), "<dict>"
        base = Path(base_dir) if base_dir is not None else Path.cwd()
    else:
        doc = read(path_or_dict)
        source, base = Path(path_or_dict).name, Path(path_or_dict).resolve().parent
    for key, value in (overrides or {}).items():
        if value is not None:
            doc[key] = value
    return doc, source, base


def load_experiment(path_or_dict, overrides: dict | None = None, base_dir=None) -> Experiment:
    """Load and validate an experiment (a YAML path or a dict); ``overrides``
    replace top-level keys (command-line flags, API keywords; ``None`` = keep;
    ``games`` also drops the file's ``stop`` rule). What a Python strategy
    prints as it is imported and built here goes to stderr."""
    doc, source, base = open_document(path_or_dict, overrides, base_dir, read_experiment_file)
    if (overrides or {}).get("games") is not None:  # a number of games given over the file replaces its stop rule
        doc.pop("stop", None)
    # an experiment file's own output must lie inside the current folder; a flag or the API may name any folder
    output_given = isinstance(path_or_dict, dict) or (overrides or {}).get("output") is not None
    with contextlib.redirect_stdout(sys.stderr):
        return Validator(source, base, output_given).validate(doc)
