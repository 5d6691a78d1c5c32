"""``refit:`` in an experiment file (docs/experiments.md "Re-fitted play"):
entrants whose parameters are fitted again at every sweep point, by the
strategy tuner in self-play under the point's rules, before the point plays;
so a rule sweep compares players that respond to each rule value.

This layer checks the entries' shape (:func:`entries`, shared with the rule
tunes' ``refit``) and seats fitted parameters in the points
(:func:`with_fits`). The fits themselves are tunes, one layer up
(:func:`ttrsim.tune.refit.refit_experiment`): ``ttrsim run`` passes it to
:func:`~ttrsim.experiment.runner.run_experiment` as its ``refitter``.

>>> from ttrsim.experiment.config import load_experiment
>>> e = load_experiment({"name": "x", "players": 2, "lineup": ["long_route", "random"], "games": 2,
...                      "sweep": {"rules.trains": [30, 45]},
...                      "refit": {"label": "long_route", "fit": {"min_len": [2, 6]}, "budget": 400}})
>>> e.refit
({'label': 'long_route', 'fit': {'min_len': [2, 6]}, 'budget': 400},)
>>> fitted = with_fits(e, [{"long_route": {"params": {"min_len": 3.0}}}, {"long_route": {"params": {"min_len": 5.0}}}])
>>> [p.entrant_params[0] for p in fitted.points], fitted.points[1].full_params[0]["min_len"]
([{'min_len': 3.0}, {'min_len': 5.0}], 5.0)
"""
from __future__ import annotations

from dataclasses import replace

from ttrsim.data.checks import did_you_mean, kind

from .schema import compiled_params

__all__ = ["KEYS", "entries", "with_fits"]

# the keys of an entry: the entrant's label and the strategy tune keys of its fit (docs/tune.md)
KEYS = ("label", "fit", "budget", "candidates", "stages", "margin", "final_games")


def entries(check, value, entrants) -> tuple:
    """``refit`` checked by the validator ``check`` for its shape: a mapping
    or a list of them, each naming once a built-in strategy's label among
    ``entrants`` (objects with ``label`` and ``python``) with a ``fit``
    mapping; the other keys are checked as a strategy tune's where the fit is
    run. Returns the entries as dicts, ``label`` first; ``()`` for none."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    if not items:
        check.fail("refit", "empty; expected {label, fit, budget} or a list of them")
    out, by_label = [], {e.label: e for e in entrants}
    for i, item in enumerate(items):
        w = f"refit[{i}]" if isinstance(value, list) else "refit"
        check.mapping(w, item, "a mapping {label, fit, budget, candidates, stages, margin, final_games}")
        for k in item:
            if k not in KEYS:
                check.fail(f"{w}.{k}", f"unknown key{did_you_mean(str(k), KEYS)}")
        label = item.get("label")
        if not isinstance(label, str) or label not in by_label:
            hint = (did_you_mean(label, by_label) if isinstance(label, str) else "") or \
                f"; expected one of: {', '.join(by_label)}"
            check.fail(f"{w}.label", f"{kind(label)} is not a label of the lineup{hint}")
        if getattr(by_label[label], "python", False):
            check.fail(f"{w}.label", f"'{label}' is a Python strategy; expected the label of a built-in strategy "
                                     "(the tuner fits compiled strategies)")
        if any(r["label"] == label for r in out):
            check.fail(f"{w}.label", f"'{label}' is re-fitted twice; expected each label once")
        if "fit" not in item:
            check.fail(f"{w}.fit", "missing; expected the parameters to fit, {parameter: [low, high]}")
        out.append({"label": label, **{k: v for k, v in item.items() if k != "label"}})
    return tuple(out)


def with_fits(exp, fits):
    """``exp`` with each point seating its fitted parameters: ``fits`` holds
    per point ``{label: {"params": {name: value}, ...}}`` (what the fit
    recorded besides the parameters, its games and folder, is kept as
    :attr:`~ttrsim.experiment.schema.Experiment.refits` for the manifest)."""
    index = {e.label: i for i, e in enumerate(exp.entrants)}
    points = []
    for p, fit in zip(exp.points, fits, strict=True):
        params = [dict(x) for x in p.entrant_params]
        full = list(p.full_params)
        for label, f in fit.items():
            i = index[label]
            params[i].update({k: float(v) for k, v in f["params"].items()})
            full[i] = compiled_params(exp.entrants[i].strategy, params[i])
        points.append(replace(p, entrant_params=tuple(params), full_params=tuple(full)))
    return replace(exp, points=tuple(points), refits=tuple(fits))
