"""``ttrsim tune``: fit a built-in strategy's parameters to a rule set by
self-play, or one rule parameter to a balance target (``docs/tune.md``).

A layer between :mod:`ttrsim.experiment` (every evaluation is a normal
results folder, run by :func:`ttrsim.experiment.runner.run_experiment`) and
:mod:`ttrsim.report`: :mod:`~ttrsim.tune.config` reads and checks tune files,
:mod:`~ttrsim.tune.search` holds the method (candidates, successive halving,
scores), :mod:`~ttrsim.tune.run` runs a tune into its folder and
:mod:`~ttrsim.tune.output` writes its files. Rule tunes (``fit_rules``) have
their own: :mod:`~ttrsim.tune.rule_config`, :mod:`~ttrsim.tune.rule_search`
(the sequential search), :mod:`~ttrsim.tune.rule_run` and
:mod:`~ttrsim.tune.rule_output`. :mod:`~ttrsim.tune.refit` re-fits entrants
where the rules change: at every value of a rule tune, at every point of an
experiment's sweep (``refit``).
"""
from .config import TuneConfig, TuneError, load_tune
from .rule_config import RuleTuneConfig
from .run import TuneResult, tune

__all__ = ["tune", "TuneResult", "TuneError", "TuneConfig", "RuleTuneConfig", "load_tune"]
