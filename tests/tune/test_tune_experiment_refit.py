"""Re-fitted play in an experiment sweep (``refit:`` in an experiment file,
docs/tune.md "Re-fitted play"): before the experiment plays, every sweep
point re-fits the named entrant by a strategy tune under the point's rules,
and that point seats the fitted values (they are in its identity, so a
resume checks them); the fits are found done when the run is resumed or
grown; the same experiment on other workers gives the same tables; the
report says which entrant was re-fitted and to what; a bad entry is one
line naming ``refit.<key>``, before anything is written; the library's
runner without a refitter refuses a refit experiment in one line."""
import json
import signal

import pytest
import yaml
from click.testing import CliRunner

from ttrsim.cli import main
from ttrsim.experiment.config import ExperimentError
from ttrsim.experiment.runner import run_experiment
from ttrsim.experiment.signals import Interrupted
from ttrsim.tune.refit import refit_experiment

from helpers import assert_same_tables, snapshot

# long_route's min_len re-fitted at two train counts by a one-stage tune of 120 games at most
EXP = {"name": "rf", "players": 2, "lineup": ["long_route", "random"], "sweep": {"rules.trains": [20, 45]},
       "refit": {"label": "long_route", "fit": {"min_len": [1, 6]}, "budget": 120, "candidates": 2, "stages": 1,
                 "final_games": 40},
       "games": 40, "seed": 3, "workers": 1}


def write(tmp_path, doc, name="rf.yaml"):
    (tmp_path / name).write_text(yaml.safe_dump(doc))
    return str(tmp_path / name)


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("refit")
    out = tmp / "results" / "rf"
    r = CliRunner().invoke(main, ["run", write(tmp, EXP), "--output", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    return tmp, out, r.output


def test_every_point_seats_the_fit_of_its_own_rules(ran):
    tmp, out, output = ran
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(manifest["refits"]) == 2
    for point, fit in zip(manifest["identity"]["points"], manifest["refits"]):
        folder = tmp / "results" / "rf-refit" / f"point-{point['point']}" / "long_route"
        inner = json.loads((folder / "tune.json").read_text())
        assert inner["config"]["rule_overrides"] == {"trains": point["values"]["rules.trains"]}
        best = yaml.safe_load((folder / "best.yaml").read_text())
        assert fit["long_route"]["params"] == {"min_len": best["min_len"]}
        assert fit["long_route"]["games"] == inner["games"] <= 120
        assert point["params"][0]["min_len"] == best["min_len"]     # the seat plays the fit
    assert "refit 1/2: long_route at point 0 (rules.trains 20)" in output
    assert "refit 2/2: long_route at point 1 (rules.trains 45)" in output


def test_a_resumed_or_grown_run_finds_its_fits_done(ran):
    tmp, out, _ = ran
    fits = json.loads((out / "manifest.json").read_text())["refits"]
    r = CliRunner().invoke(main, ["run", str(tmp / "rf.yaml"), "--output", str(out), "--no-progress"])
    assert r.exit_code == 0 and "nothing to do" in r.output
    r = CliRunner().invoke(main, ["run", str(tmp / "rf.yaml"), "--output", str(out), "--no-progress",
                                  "--games", "80"])
    assert r.exit_code == 0 and "growing from 40 to 80 games" in r.output
    assert json.loads((out / "manifest.json").read_text())["refits"] == fits


def test_two_workers_give_the_same_fits_and_tables(ran, tmp_path):
    tmp, out, _ = ran
    run_experiment({**EXP, "games": 80}, output=out, echo=False, progress=False, refitter=refit_experiment)
    other = run_experiment({**EXP, "games": 80, "workers": 2}, output=tmp_path / "rf", echo=False, progress=False,
                           refitter=refit_experiment)
    assert [f["long_route"]["params"] for f in json.loads((tmp_path / "rf" / "manifest.json").read_text())["refits"]] \
        == [f["long_route"]["params"] for f in json.loads((out / "manifest.json").read_text())["refits"]]
    assert_same_tables(tmp_path / "rf", out)
    assert other.games == 160


def test_the_report_names_the_refit_and_its_values(ran):
    tmp, out, _ = ran
    r = CliRunner().invoke(main, ["report", str(out)])
    assert r.exit_code == 0, r.output
    text = (out / "report" / "report.md").read_text()
    fits = json.loads((out / "manifest.json").read_text())["refits"]
    assert "**Re-fitted play**: before each point played, `long_route` was re-fitted" in text
    assert "| point | fit games | long_route.min_len |" in text
    assert f"| point 1: trains=45 | {fits[1]['long_route']['games']} | {fits[1]['long_route']['params']['min_len']:g} |" \
        in text


@pytest.mark.parametrize("change,message", [
    ({"refit": {**EXP["refit"], "fit": {"min_lenn": [1, 6]}}},
     "refit.fit.min_lenn: unknown parameter of strategy 'long_route'"),
    ({"refit": {"label": "long_route", "fit": {"min_len": [1, 6]}}}, "refit.budget: missing"),
    ({"refit": {**EXP["refit"], "label": "random"}}, "refit.label: 'random' has no parameters"),
    ({"refit": {**EXP["refit"], "label": "planer"}},
     "refit.label: 'planer' is not a label of the lineup; expected one of: long_route, random"),
    ({"sweep": {"strategies.long_route.min_len": [2, 3]}},
     "refit.fit.min_len: also swept (strategies.long_route.min_len); expected it fitted or swept, not both"),
    ({"refit": [EXP["refit"], EXP["refit"]]}, "refit[1].label: 'long_route' is re-fitted twice"),
    ({"refit": {**EXP["refit"], "fit": {"min_len": [6, 1]}}}, "refit.fit.min_len: expected [low, high] with low < high"),
])
def test_a_bad_refit_is_one_line_and_writes_nothing(tmp_path, monkeypatch, change, message):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, {**EXP, **change})
    before = snapshot(tmp_path)
    r = CliRunner().invoke(main, ["run", path, "--no-progress"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    line = r.output.strip()
    assert "\n" not in line and line.startswith(f"Error: rf.yaml: {message}"), line
    assert snapshot(tmp_path) == before


def test_the_library_runner_without_a_refitter_says_what_it_needs(tmp_path):
    with pytest.raises(ExperimentError, match=r"^<dict>: refit: the fits need the tuner; expected run_experiment\("
                                              r"\.\.\., refitter=ttrsim.tune.refit.refit_experiment\)"):
        run_experiment(EXP, output=tmp_path / "x", echo=False, progress=False)
    assert not (tmp_path / "x").exists()


def test_a_stop_inside_a_fit_leaves_no_results_and_the_run_resumes_to_the_same_fits(ran, tmp_path, monkeypatch):
    """SIGINT in the second point's fit: the run stops with Interrupted, the first fit is complete, the
    results folder is not started; running again resumes the fits and seats what the uninterrupted run did."""
    import ttrsim.tune.run
    tmp, out, _ = ran
    calls, inner = [], ttrsim.tune.run.run_experiment

    def stopping(doc, **kw):
        calls.append(doc["output"])
        if "point-1" in doc["output"]:
            raise Interrupted(signal.SIGINT)
        return inner(doc, **kw)
    monkeypatch.setattr(ttrsim.tune.run, "run_experiment", stopping)
    with pytest.raises(Interrupted):
        run_experiment(EXP, output=tmp_path / "rf", echo=False, progress=False, refitter=refit_experiment)
    assert not (tmp_path / "rf").exists() and any("point-0" in c for c in calls)
    record = json.loads((tmp_path / "rf-refit" / "point-1" / "long_route" / "tune.json").read_text())
    assert record["status"] == "interrupted"
    monkeypatch.undo()
    run_experiment(EXP, output=tmp_path / "rf", echo=False, progress=False, refitter=refit_experiment)
    fits = json.loads((tmp_path / "rf" / "manifest.json").read_text())["refits"]
    assert [f["long_route"]["params"] for f in fits] == \
        [f["long_route"]["params"] for f in json.loads((out / "manifest.json").read_text())["refits"]]
