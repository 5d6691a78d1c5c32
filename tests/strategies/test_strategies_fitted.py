"""The planner's fitted defaults (issue 31, docs/strategies.md "Fitted
defaults"): every set names the tune file that fits it, on its own preset and
player count; a strategy plays its fitted set wherever it is seated with a rule
set and a player count (experiments, envs, the bench, head-to-head), the
nearest one where none was fitted, and an experiment's own values win over it;
one tune file, run here, gives its shipped set exactly."""
from pathlib import Path

import pytest
import yaml

from ttrsim.experiment.runner import run_experiment
from ttrsim.strategies import REGISTRY, param_row
from ttrsim.strategies.fitted import FITTED, fitted_for
from ttrsim.tune import tune

ROOT = Path(__file__).resolve().parents[2]
SETS = [(strategy, preset, n) for strategy, sets in FITTED.items() for preset, n in sets]


def index(strategy, name):
    return [p.name for p in REGISTRY[strategy].params].index(name)


@pytest.mark.parametrize("strategy, preset, players", SETS)
def test_every_fitted_set_names_its_tune_file_on_its_own_rules(strategy, preset, players):
    values, source = FITTED[strategy][(preset, players)]
    cfg = yaml.safe_load((ROOT / source).read_text())
    assert (cfg["strategy"], cfg["rules"], cfg["players"]) == (strategy, preset, players)
    assert set(values) <= set(cfg["fit"])
    for k, v in values.items():
        lo, hi = cfg["fit"][k]
        assert lo <= v <= hi, (k, v)


def test_the_issue_presets_have_sets_at_2_and_4_players():
    assert {(p, n) for p in ("usa", "usa-mega", "germany", "europe") for n in (2, 4)} <= set(FITTED["planner"])


def test_a_strategy_plays_its_fitted_set_and_an_experiments_values_win():
    values, source = fitted_for("planner", "usa-mega", 2)
    assert source == "usa-mega 2p" and values
    k = next(iter(values))
    row = param_row("planner", rules="usa-mega", players=2)
    assert row[index("planner", k)] == values[k]
    assert param_row("planner", {k: 0.0}, rules="usa-mega", players=2)[index("planner", k)] == 0.0
    default = next(p.default for p in REGISTRY["planner"].params if p.name == k)
    assert param_row("planner")[index("planner", k)] == default          # no rules: the plain defaults
    assert param_row("planner_classic", rules="usa-mega", players=2).tolist() == param_row("planner_classic").tolist()


def test_the_nearest_set_plays_where_none_was_fitted():
    assert fitted_for("planner", "usa-mega", 3)[1] == "usa-mega 4p (nearest fitted set)"
    assert fitted_for("planner", "usa-mega", 5)[1] == "usa-mega 4p (nearest fitted set)"
    assert fitted_for("planner", "usa-bigcities", 2)[1] == "usa 2p (nearest fitted set)"


def test_an_experiment_seats_the_fitted_planner(tmp_path):
    # the same games as the planner with its fitted values written out, not as the plain defaults
    values, _ = fitted_for("planner", "usa-mega", 2)
    exp = {"name": "fit", "rules": "usa-mega", "players": 2, "lineup": ["planner", "route_focus"], "games": 40,
           "seed": 3, "workers": 1}
    fitted = run_experiment(exp, output=tmp_path / "a", progress=False, echo=False).table("players")
    spelled = dict(exp, lineup=[{"strategy": "planner", "params": values}, "route_focus"])
    written = run_experiment(spelled, output=tmp_path / "b", progress=False, echo=False).table("players")
    plain = dict(exp, lineup=[{"strategy": "planner", "params": {
        k: next(p.default for p in REGISTRY["planner"].params if p.name == k) for k in values}}, "route_focus"])
    unfitted = run_experiment(plain, output=tmp_path / "c", progress=False, echo=False).table("players")
    cols = ["game", "seat", "total", "tickets_completed", "trains_left"]
    assert fitted.select(cols).equals(written.select(cols))
    assert not fitted.select(cols).equals(unfitted.select(cols))


def test_the_tune_file_reproduces_its_shipped_set(tmp_path):
    values, source = FITTED["planner"][("usa-mega", 2)]
    r = tune(ROOT / source, output=tmp_path / "t", workers=2, progress=False, echo=False)
    assert r.status == "complete"
    assert {k: pytest.approx(v, abs=1e-6) for k, v in r.best.items() if k in values} == values
