"""Re-fitted play: an entrant's parameters fitted again by the strategy tuner
wherever the rules change, so that a sweep compares players that respond to
each rule value (``docs/tune.md`` "Re-fitted play").

Two places ask for it with the same entry (``{label, fit, budget,
candidates, stages, margin, final_games}``, shape-checked by
:func:`ttrsim.experiment.refit.entries`): a rule tune's ``refit``, at every
value it looks at (:mod:`ttrsim.tune.rule_run`), and an experiment's
``refit``, at every sweep point before it plays (:func:`refit_experiment`,
the ``refitter`` that ``ttrsim run`` hands to
:func:`~ttrsim.experiment.runner.run_experiment`). Either way a fit is an
ordinary strategy tune (:func:`fit_tune` builds it): the entrant's strategy
in self-play at the table's player count under the rules of that value or
point, its parameters as the fixed values and the start (clamped into the
``fit`` ranges), on a seed derived from the owner's seed, the place and the
label, in a folder of its own that resumes like any tune.

>>> d = fit_tune({"label": "a", "fit": {"min_len": [2, 6]}, "budget": 400}, name="x.refit.a", rules="usa",
...              rule_overrides={"trains": 30}, players=2, strategy="long_route", params={"min_len": 9.0},
...              seed_text="0/point-0/a", workers=1, output="results/x-refit/point-0/a")
>>> d["params"], d["budget"], d["rule_overrides"]
({'min_len': 6}, 400, {'trains': 30})
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from ttrsim.data.checks import is_number

from .config import TuneError, _TuneValidator

__all__ = ["RefitValidator", "fit_tune", "checked_entry", "refit_experiment", "refit_folder"]


class RefitValidator(_TuneValidator):
    """A fit's strategy tune checks, its errors naming the entry (``refit.<key>``, ``refit[i].<key>``)."""

    def __init__(self, source, base, where: str):
        super().__init__(source, base, True)
        self.where = where

    def fail(self, where: str, what: str):
        # the entry names its strategy by the entrant's label
        super().fail(f"{self.where}.{'label' if where == 'strategy' else where}", what)


def fit_tune(entry: dict, *, name, rules, rule_overrides, players, strategy, params, seed_text, workers,
             output) -> dict:
    """The strategy tune (a dict for :func:`ttrsim.tune.tune`) of the entry
    ``entry``: ``params`` as the fixed values and the start, each fitted one
    clamped into its range; the seed a hash of ``seed_text``."""
    params = dict(params)
    fit = entry.get("fit")
    for k, bounds in (fit.items() if isinstance(fit, dict) else ()):
        if k in params and isinstance(bounds, list) and len(bounds) == 2 and all(is_number(b) for b in bounds):
            params[k] = min(max(params[k], bounds[0]), bounds[1])
    seed = int(hashlib.sha1(seed_text.encode()).hexdigest()[:15], 16)
    return {**{k: v for k, v in entry.items() if k != "label"}, "name": name, "rules": rules,
            "rule_overrides": dict(rule_overrides), "players": players, "strategy": strategy, "params": params,
            "seed": seed, "workers": workers, "output": str(output)}


def checked_entry(label: str, cfg) -> dict:
    """An entry as its checked tune ``cfg`` resolved it (defaults filled in)."""
    return {"label": label, "fit": {n: [lo, hi] for n, lo, hi, _ in cfg.fit}, "budget": cfg.budget,
            "candidates": cfg.candidates, "stages": cfg.stages, "margin": cfg.margin, "final_games": cfg.final_games}


def refit_folder(exp) -> Path:
    """Where an experiment's fits go: ``<output>-refit/`` beside a local
    results folder (``results/<name>-refit/`` for a folder at a URL: tunes
    are local), one ``point-<i>/<label>/`` tune folder each."""
    out = str(exp.output)
    return Path(f"{out.rstrip('/')}-refit") if "://" not in out else Path("results") / f"{exp.name}-refit"


def _point_tunes(exp) -> list[list[dict]]:
    """Every point's fit tunes (one per entry), each checked before any runs
    (one line naming ``refit.<key>`` at the first problem)."""
    index = {e.label: i for i, e in enumerate(exp.entrants)}
    swept = {k for k, _ in exp.sweep} | ({exp.intervene["key"]} if exp.intervene else set())
    base, root = Path(exp.source).parent if exp.source != "<dict>" else Path.cwd(), refit_folder(exp)
    out = []
    for p in exp.points:
        tunes = []
        for j, r in enumerate(exp.refit):
            w = f"refit[{j}]" if len(exp.refit) > 1 else "refit"
            label, i = r["label"], index[r["label"]]
            for k in r["fit"] if isinstance(r["fit"], dict) else ():
                if f"strategies.{label}.{k}" in swept:
                    raise TuneError(f"{exp.source}: {w}.fit.{k}: also swept (strategies.{label}.{k}); expected it "
                                    "fitted or swept, not both")
            tag = f"point-{p.index}"
            d = fit_tune(r, name=f"{exp.name}.refit.{tag}.{label.replace('+', '_')}", rules=exp.rules,
                         rule_overrides=p.rule_overrides, players=exp.players, strategy=exp.entrants[i].strategy,
                         params=p.entrant_params[i], seed_text=f"{exp.seed}/{tag}/{label}", workers=exp.workers,
                         output=root / tag / label)
            RefitValidator(exp.source, base, w).validate(d)
            tunes.append(d)
        out.append(tunes)
    return out


def refit_experiment(exp, overwrite: bool = False, echo=None):
    """Fit every ``refit`` entry of the experiment ``exp`` at every sweep
    point (a strategy tune each, in :func:`refit_folder`; done ones are found
    done, unfinished ones resume, ``overwrite`` starts them over) and return
    the experiment with each point seating its fitted parameters
    (:func:`ttrsim.experiment.refit.with_fits`). A line per fit through
    ``echo``; a bad entry or a failed fit raises :class:`TuneError` (one line)."""
    from ttrsim.experiment.refit import with_fits

    from .run import tune
    echo = echo or (lambda msg: None)
    tunes = _point_tunes(exp)
    fits, n, total = [], 0, len(exp.points) * len(exp.refit)
    for p, point_tunes in zip(exp.points, tunes):
        fit = {}
        for r, d in zip(exp.refit, point_tunes):
            n += 1
            where = ", ".join(f"{k} {v}" for k, v in p.values.items()) or "the rules of the file"
            echo(f"refit {n}/{total}: {r['label']} at point {p.index} ({where}), at most {d['budget']:,} games")
            try:
                res = tune(d, progress=False, echo=False, overwrite=overwrite)
            except TuneError as e:
                raise TuneError(f"{exp.source}: refit: point {p.index}, {r['label']}: "
                                f"{str(e).removeprefix('<dict>: ')}") from None
            fit[r["label"]] = {"params": {k: res.best[k] for k in r["fit"]}, "games": res.games,
                               "stopped": res.record.get("stopped"), "folder": str(res.path)}
            echo(f"  {res.games:,} games: " + ", ".join(f"{k} {v:g}" for k, v in fit[r["label"]]["params"].items()))
        fits.append(fit)
    return with_fits(exp, fits)
