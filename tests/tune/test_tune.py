"""``ttrsim tune`` (docs/tune.md): a tiny tune recovers a planted best value,
is deterministic across workers and after an interrupt, refuses every bad
tune file in one line (tests/fixtures/bad_tunes/, the first line ``# expect:
MESSAGE``; ``{here}`` = the catalogue folder, ``{cwd}`` = the folder the tune
starts in) and writes a best.yaml an experiment lineup can name.

The tunes are tiny (2 players, usa, at most 2,400 games) so the file stays
fast; the planted value is ``end_trains`` of the planner: from 40 (near-end
mode all game long, about 20% against the defaults) the good region is the
low end (the default is 6)."""
import csv
import json
import signal
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import ttrsim.tune.config
import ttrsim.tune.run
from ttrsim.cli import main
from ttrsim.experiment.config import ExperimentError, load_experiment
from ttrsim.experiment.runner import run_experiment
from ttrsim.experiment.signals import Interrupted
from ttrsim.tune import TuneError, tune

from helpers import expected, snapshot

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "bad_tunes"
FILES = sorted(HERE.glob("*.yaml"))
# Guards against a hang, not a speed test: hostile YAML is refused in milliseconds
# while it is read; expanded, an alias bomb takes minutes.
FAST = 10.0

PLANTED = {"name": "planted", "description": "end_trains planted at a ruinous 40", "rules": "usa", "players": 2,
           "strategy": "planner", "params": {"end_trains": 40}, "fit": {"end_trains": [0, 40]}, "budget": 2400,
           "candidates": 6, "stages": 3, "margin": 0.01, "final_games": 200, "seed": 1, "workers": 1}


def record(folder: Path) -> dict:
    """tune.json without its execution entry (workers, seconds)."""
    rec = json.loads((folder / "tune.json").read_text())
    rec.pop("execution")
    return rec


def files(folder: Path) -> dict:
    return {"tune.json": record(folder), **{n: (folder / n).read_text() for n in ("trace.csv", "best.yaml",
                                                                               "report.md")}}


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    out = tmp_path_factory.mktemp("tune") / "planted"
    result = tune(PLANTED, output=out, echo=False)
    return result, out


# --------------------------------------------------------------------------- the method


def test_a_tiny_tune_recovers_the_planted_good_region(planted):
    result, out = planted
    rec = result.record
    assert result.status == "complete" and rec["status"] == "complete"
    assert rec["start"] == {"end_trains": 40}
    assert result.best["end_trains"] <= 15 and isinstance(result.best["end_trains"], int)   # ints stay ints
    assert any(s["accepted"] for s in rec["stages"])
    final = result.final
    assert final["games"] == 200 and final["fair"] == 0.5
    assert final["low"] > 0.5 and final["beats_start"]          # the headline: its interval excludes the fair share
    assert final["seed"] not in {s["seed"] for s in rec["stages"]}      # fresh seeds
    assert rec["games"] == result.games <= PLANTED["budget"]


def test_the_folder_holds_the_record_the_trace_best_yaml_and_report(planted):
    result, out = planted
    rec = json.loads((out / "tune.json").read_text())
    assert rec["config"]["fit"] == {"end_trains": [0, 40]} and rec["config"]["budget"] == 2400
    for st in rec["stages"]:
        assert st["incumbent"] and st["best"] in [c["id"] for c in st["candidates"]]
        for c in st["candidates"]:
            assert set(c) >= {"id", "kind", "params", "games", "win_share", "low", "high", "rounds"}
            assert c["low"] <= c["win_share"] <= c["high"] and 0 <= c["params"]["end_trains"] <= 40
        # successive halving: each round keeps half and grows the survivors' games
        games = [r["games"] for r in st["rounds"]]
        assert games == sorted(games) and len(st["rounds"][-1]["kept"]) == 1
    rows = list(csv.DictReader((out / "trace.csv").open()))
    assert len(rows) == sum(len(c["rounds"]) for st in rec["stages"] for c in st["candidates"])
    assert {"stage", "round", "candidate", "games", "win_share", "low", "high", "end_trains"} <= set(rows[0])
    assert yaml.safe_load((out / "best.yaml").read_text()) == result.best
    report = (out / "report.md").read_text()
    assert "## Final head-to-head" in report and "## Stage 1" in report and "fitted: end_trains" in report
    assert sorted(p.name for p in (out / "evals").iterdir()) == sorted(
        [f"s{st['stage']:02d}-{c['id']}" for st in rec["stages"] for c in st["candidates"]] + ["final"])
    assert not list(out.rglob("*.tmp"))


def test_the_same_tune_on_two_workers_gives_the_same_files(planted, tmp_path):
    _, out = planted
    result = tune(PLANTED, output=tmp_path / "two", workers=2, echo=False)
    assert result.status == "complete"
    assert files(tmp_path / "two") == files(out)


def test_running_again_resumes_with_nothing_to_play(planted):
    _, out = planted
    before = files(out)
    again = tune(PLANTED, output=out, echo=False)
    assert again.games_run == 0 and files(out) == before


def test_an_interrupted_tune_resumes_to_the_uninterrupted_result(planted, tmp_path, monkeypatch):
    _, out = planted
    calls = []

    def stop_at_the_seventh(exp, **kw):    # stage 1, round 2: the first folder to grow
        calls.append(exp["output"])
        if len(calls) == 7:
            raise Interrupted(signal.SIGTERM)
        return run_experiment(exp, **kw)

    monkeypatch.setattr(ttrsim.tune.run, "run_experiment", stop_at_the_seventh)
    with pytest.raises(Interrupted):
        tune(PLANTED, output=tmp_path / "cut", echo=False)
    cut = json.loads((tmp_path / "cut" / "tune.json").read_text())
    assert cut["status"] == "interrupted" and cut["final"] is None
    monkeypatch.undo()
    resumed = tune(PLANTED, output=tmp_path / "cut", echo=False)
    assert resumed.games_run < resumed.games          # the finished evaluations were kept
    assert files(tmp_path / "cut") == files(out)


TINY = {"name": "tiny", "players": 2, "strategy": "planner", "fit": {"keep_margin": [0.0, 12.0]}, "budget": 40,
        "candidates": 1, "stages": 1, "final_games": 20, "seed": 3, "workers": 1}


def test_a_changed_tune_is_refused_unless_overwrite(tmp_path):
    out = tmp_path / "tiny"
    tune(TINY, output=out, echo=False)
    before = files(out)
    with pytest.raises(TuneError) as e:
        tune({**TINY, "seed": 4}, output=out, echo=False)
    assert str(e.value) == (f"<dict>: seed: {out} holds another tune (seed was 3, now 4); expected the same tune "
                            "to resume (or --overwrite to start over)")
    assert files(out) == before
    r = tune({**TINY, "seed": 4}, output=out, overwrite=True, echo=False)
    assert r.record["config"]["seed"] == 4 and record(out)["config"]["seed"] == 4


# --------------------------------------------------------------------------- styles (docs/tune.md "Styles")

# the planner never drawing a ticket in play (draw_value0 -40) keeps about 2.5 tickets at usa 2 players; the
# style asks for 2.8 at least, so the start plays outside it and only candidates drawing tickets are inside
STYLED = {**PLANTED, "name": "styled", "description": "a ticket-heavy style from a start outside it",
          "params": {"draw_value0": -40.0}, "fit": {"draw_value0": [-40.0, 0.0]},
          "style": {"tickets_kept": [2.8, None]}, "budget": 1800, "candidates": 6, "stages": 2}


def test_a_style_tune_leaves_a_start_outside_the_style_for_the_best_candidate_inside_it(tmp_path):
    result = tune(STYLED, output=tmp_path / "styled", echo=False)
    rec = result.record
    first = rec["stages"][0]
    assert first["incumbent_style"]["tickets_kept"] < 2.8              # the start plays outside the style
    assert first["accepted"]
    best = next(c for c in first["candidates"] if c["id"] == first["best"])
    assert best["style"]["tickets_kept"] >= 2.8                          # ... the accepted one inside it
    for st in rec["stages"]:                                             # an out-of-style candidate never wins a stage
        kept = {c["id"]: c["style"]["tickets_kept"] for c in st["candidates"]}
        assert kept[st["best"]] >= 2.8 or not st["accepted"]
        for r in st["rounds"]:                                           # inside ranks first in every round
            at = {c["id"]: x["style"]["tickets_kept"] for c in st["candidates"] for x in c["rounds"]
                  if x["round"] == r["round"]}
            inside = [c for c in r["candidates"] if at[c] >= 2.8]
            assert all(k in inside for k in r["kept"][:len(inside)])
    assert result.best["draw_value0"] > -40.0
    assert rec["final"]["style"]["tickets_kept"] >= 2.8                 # on fresh seeds too
    rows = list(csv.DictReader((tmp_path / "styled" / "trace.csv").open()))
    assert {"in_style", "tickets_kept"} <= set(rows[0])
    assert all(int(r["in_style"]) == (float(r["tickets_kept"]) >= 2.8) for r in rows)
    assert "Style: tickets_kept >= 2.8" in (tmp_path / "styled" / "report.md").read_text()
    assert "fitted in the style tickets_kept >= 2.8" in (tmp_path / "styled" / "best.yaml").read_text()


def test_a_style_nobody_plays_stops_the_tune_and_says_so(tmp_path):
    lines = []
    result = tune({**STYLED, "name": "impossible", "style": {"tickets_kept": [40, None]}, "stages": 1},
                  output=tmp_path / "impossible", echo=lines.append)
    assert result.record["stopped"] == "no candidate plays in the style"
    assert result.best == {"draw_value0": -40.0} and result.final is None
    assert any("nor any candidate plays in the style" in line for line in lines)


def test_a_tune_without_a_style_keeps_its_config_and_files_as_before(planted):
    _, out = planted
    rec = json.loads((out / "tune.json").read_text())
    assert "style" not in rec["config"] and "incumbent_style" not in rec["stages"][0]
    assert "in_style" not in (out / "trace.csv").read_text().splitlines()[0]


def test_the_catalogue_covers_every_field():
    names = {f.stem for f in FILES}
    for kind in ("malformed", "not_a_mapping", "unknown_key", "duplicate_key", "alias_bomb", "name_missing",
                 "unknown_rules", "unknown_rule_parameter", "unknown_map_file", "players_type", "players_range",
                 "unknown_strategy", "strategy_without_parameters", "params_unknown", "params_value",
                 "params_outside_fit", "fit_missing", "fit_unknown_parameter", "fit_reversed", "fit_text",
                 "budget_missing", "budget_too_small", "candidates_zero", "margin_negative", "margin_too_big",
                 "stages_zero", "final_games_zero", "seed_negative", "workers_zero", "output_outside",
                 "output_occupied", "fit_outside_range", "style_unknown_measure", "style_open", "style_reversed",
                 "style_not_mapping"):
        assert kind in names


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_bad_tune_gives_its_one_line_message_and_writes_nothing(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "occupied").mkdir()
    (tmp_path / "occupied" / "notes.txt").write_text("not a tune")
    before = snapshot(tmp_path)
    start = time.perf_counter()
    with pytest.raises(TuneError) as e:
        tune(path, echo=False)
    msg = str(e.value)
    assert msg == expected(path, tmp_path)
    assert "\n" not in msg and msg.startswith(path.name + ": ")
    assert snapshot(tmp_path) == before
    if path.stem == "alias_bomb":
        assert time.perf_counter() - start < FAST


# --------------------------------------------------------------------------- best.yaml in an experiment


def test_an_experiment_lineup_names_a_fitted_set(planted, tmp_path, monkeypatch):
    result, out = planted
    monkeypatch.chdir(tmp_path)
    exp = {"name": "use", "players": 2, "games": 20, "workers": 1, "output": str(tmp_path / "use"),
           "lineup": [{"strategy": "planner", "params": {"end_trains": 40}},
                      {"strategy": "planner", "params": str(out / "best.yaml"), "label": "fitted"}]}
    e = load_experiment(exp)
    assert e.entrants[1].params == {k: float(v) for k, v in result.best.items()}
    r = run_experiment(exp, progress=False, echo=False)
    assert r.status == "complete" and {row["strategy"] for row in r.summary} == {"planner", "fitted"}
    # relative paths start at the experiment file, then the current folder
    (tmp_path / "best.yaml").write_text((out / "best.yaml").read_text())
    rel = {**exp, "lineup": [exp["lineup"][0], {"strategy": "planner", "params": "best.yaml"}]}
    assert load_experiment(rel).entrants[1].params == e.entrants[1].params


def test_a_missing_or_bad_parameter_file_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.yaml").write_text("end_trains: many\n")
    (tmp_path / "list.yaml").write_text("- 1\n")
    (tmp_path / "exp.yaml").write_text("name: e\nplayers: 2\ngames: 2\nlineup: [planner, {strategy: planner, "
                                       "params: PARAMS}]\n")
    cases = {"nope.yaml": f"exp.yaml: lineup[1].params: parameter file not found at {tmp_path}/nope.yaml; "
                          "expected a mapping or a .yaml file of parameters such as a tune's best.yaml (relative "
                          "paths start at the experiment file, then the current folder)",
             "bad.yaml": "exp.yaml: lineup[1].params.end_trains: 'many' is not a number for planner; expected a "
                         "number from 0 to 200 (in bad.yaml)",
             "list.yaml": "exp.yaml: lineup[1].params: expected a mapping {parameter: number} (in list.yaml), got "
                          "a list"}
    text = (tmp_path / "exp.yaml").read_text()
    for name, msg in cases.items():
        (tmp_path / "exp.yaml").write_text(text.replace("PARAMS", name))
        with pytest.raises(ExperimentError) as e:
            load_experiment(tmp_path / "exp.yaml")
        assert str(e.value) == msg


# --------------------------------------------------------------------------- the command line


def test_cli_prints_the_fitted_values_and_the_final_head_to_head(planted, tmp_path):
    result, out = planted
    (tmp_path / "planted.yaml").write_text(yaml.safe_dump(PLANTED))
    r = CliRunner().invoke(main, ["tune", str(tmp_path / "planted.yaml"), "--output", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert f"fitted: end_trains {result.best['end_trains']}   (start: end_trains 40)" in r.output
    f = result.final
    assert (f"final head-to-head, one fitted seat vs the start on fresh seeds: {100 * f['win_share']:.1f}% "
            f"[{100 * f['low']:.1f}%, {100 * f['high']:.1f}%] over 200 games (fair 50.0%)") in r.output
    assert r.output.rstrip().endswith(f"tune: {out}")
    j = CliRunner().invoke(main, ["tune", str(tmp_path / "planted.yaml"), "--output", str(out), "--json"])
    doc = json.loads(j.output)
    assert j.exit_code == 0 and doc["best"] == result.best and doc["final"] == f and doc["games_run"] == 0


def test_cli_bad_file_is_one_line_with_exit_code_1(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for path in (HERE / "unknown_key.yaml", HERE / "fit_reversed.yaml"):
        r = CliRunner().invoke(main, ["tune", str(path), "--no-progress"])
        assert r.exit_code == 1 and r.output.strip() == "Error: " + expected(path, tmp_path)
    assert list(tmp_path.iterdir()) == []
    r = CliRunner().invoke(main, ["tune", "no_such_tune.yaml"])
    assert r.exit_code == 2 and "no tune file or packaged tune example 'no_such_tune.yaml'" in r.output
    r = CliRunner().invoke(main, ["tune", str(HERE / "unknown_key.yaml"), "--workers", "0"])
    assert r.exit_code == 2


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_cli_interrupted_exits_128_plus_the_signal(signum, tmp_path, monkeypatch):
    def interrupted(*a, **kw):
        raise Interrupted(signum)
    monkeypatch.setattr("ttrsim.tune.tune", interrupted)
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(TINY))
    r = CliRunner().invoke(main, ["tune", str(tmp_path / "t.yaml"), "--no-progress"])
    assert r.exit_code == 128 + signum


def test_the_packaged_tune_example_is_a_valid_tune_and_runs_by_name(tmp_path, monkeypatch):
    from ttrsim.cli.examples import example_names, examples_dir, tune_example_names
    from ttrsim.tune import load_tune
    monkeypatch.chdir(tmp_path)
    assert "tune_example" in tune_example_names() and "tune_example" not in example_names()
    cfg = load_tune(examples_dir() / "tune_example.yaml")
    assert cfg.output == tmp_path / "results" / "tune_example" and cfg.stage_budget > 0
    r = CliRunner().invoke(main, ["tune", "tune_example", "--workers", "0"])     # resolved by name, then refused
    assert r.exit_code == 2 and "no tune file" not in r.output


def test_a_failed_evaluation_is_one_line_and_the_record_says_failed(tmp_path, monkeypatch):
    def full_disk(exp, **kw):
        raise ExperimentError("<dict>: output: no space left on the device; expected room for the part files")
    monkeypatch.setattr(ttrsim.tune.run, "run_experiment", full_disk)
    with pytest.raises(TuneError) as e:
        tune(TINY, output=tmp_path / "t", echo=False)
    assert str(e.value) == ("<dict>: evals/s01-c01: output: no space left on the device; expected room for the part "
                            "files; the tune stopped, run it again to resume")
    assert record(tmp_path / "t")["status"] == "failed"


def test_sigterm_stops_the_command_with_143_and_the_record_says_interrupted(tmp_path):
    import os
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[2]
    f = tmp_path / "long.yaml"
    f.write_text(yaml.safe_dump({**PLANTED, "budget": 8000, "stages": 1}))       # a minute if not stopped
    out = tmp_path / "long"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    proc = subprocess.Popen([sys.executable, "-m", "ttrsim", "tune", str(f), "--output", str(out), "--no-progress"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        t0 = time.monotonic()
        # a guard against a hang, not a speed test: the first evaluation starts in seconds
        while not (out / "evals" / "s01-c01" / "manifest.json").exists():
            assert proc.poll() is None and time.monotonic() - t0 < 120, "the first evaluation never started"
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, err
    assert "interrupted:" in err.decode() and "Traceback" not in err.decode()
    assert record(out)["status"] == "interrupted" and not (out / "ttrsim.lock").exists()


def test_a_damaged_tune_json_is_one_line_and_overwrite_starts_over(tmp_path):
    out = tmp_path / "d"
    out.mkdir()
    (out / "tune.json").write_text("{not json")
    with pytest.raises(TuneError) as e:
        tune(TINY, output=out, echo=False)
    assert str(e.value) == (f"<dict>: output: {out}/tune.json is damaged (not JSON); expected a ttrsim tune.json "
                            "(or --overwrite to start over)")
    assert tune(TINY, output=out, overwrite=True, echo=False).status == "complete"


def test_a_tune_file_given_to_run_says_so_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["run", "tune_example", "--no-progress"])
    assert r.exit_code == 1 and r.output.strip() == (
        "Error: tune_example.yaml: fit: this is a tune file (fit, strategy); expected an experiment (lineup, "
        "games): run it with ttrsim tune FILE")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_another_tune_is_writing_is_refused(tmp_path):
    from ttrsim.results.folder import FolderLock
    out = tmp_path / "busy"
    out.mkdir()
    other = FolderLock(out)
    other.acquire()              # another process's tune, as flock sees it (a lock of its own open file)
    try:
        with pytest.raises(TuneError) as e:
            tune(TINY, output=out, echo=False)
        assert str(e.value).startswith(f"<dict>: output: {out} is in use by another ttrsim run (pid ")
        assert sorted(p.name for p in out.iterdir()) == ["ttrsim.lock"]
    finally:
        other.release()
