"""The one-line error of an experiment: a bad experiment file or setting, or
an output folder a run cannot use (in use by another run, damaged). It is
defined here, below the experiment layer, because the results folder
(:mod:`ttrsim.results.folder`, :mod:`ttrsim.results.store`) raises it too;
:mod:`ttrsim.experiment.config` exports it. (A folder that cannot be *read*
raises :class:`ttrsim.results.reader.ResultsError`.)"""
from __future__ import annotations

__all__ = ["ExperimentError"]


class ExperimentError(ValueError):
    """A bad experiment file or setting: one line naming file, field and what was expected."""
