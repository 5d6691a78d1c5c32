"""The catalogue of bad experiment files (tests/fixtures/bad_experiments/): each file's
first line ``# expect: MESSAGE`` is the exact one-line error (``{here}`` = the
catalogue folder, ``{cwd}`` = the folder the run starts in). Nothing is
written on any error. Strategy parameters of the wrong type or out of their
range (``param_*``) are refused naming the strategy, the parameter, the
value and the range, by the library and by ``ttrsim run`` (exit 1). Hostile
YAML (``alias_*``, ``nested_*``: alias bombs, an alias inside its own
anchor, deep nesting) is refused at once."""
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ttrsim.cli import run
from ttrsim.experiment.config import ExperimentError
from ttrsim.experiment.runner import run_experiment

from helpers import expected, snapshot

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "bad_experiments"
FILES = sorted(HERE.glob("*.yaml"))
HOSTILE = [f for f in FILES if f.stem.startswith(("alias_", "nested_"))]
PARAMS = [f for f in FILES if f.stem.startswith("param_")]   # strategy parameters of the wrong type or range
# Guards against a hang, not speed tests: hostile YAML is refused in milliseconds
# while it is read; read the slow way (an alias bomb expanded, a deep nesting
# given to PyYAML's pure-Python parser) it takes minutes to hours.
FAST = 10.0
CLI_FAST = 10.0  # the same through the CLI (its option checks and imports too)


def test_the_catalogue_covers_every_kind_of_mistake():
    names = {f.stem for f in FILES}
    for kind in ("malformed", "unknown_key", "unknown_rules", "unknown_map_file", "unknown_strategy",
                 "unknown_strategy_parameter", "unknown_rule_parameter", "players_type", "rule_value_type",
                 "players_rule_set", "lineup_size", "games_zero", "games_negative", "unwritable_output",
                 "python_unknown_module", "python_unknown_class", "python_no_choose", "python_unknown_parameter",
                 "python_parameter_value", "alias_bomb_sweep", "alias_bomb_strategy_param", "alias_bomb_python_param",
                 "alias_bomb_rule_override", "alias_bomb_map", "alias_recursive", "nested_too_deep", "nested_unclosed",
                 "output_outside",
                 "name_too_long", "name_far_too_long", "python_constructor_hangs", "python_time_limit_zero",
                 # issue 30: strategy parameters outside their type and range
                 "param_budget_negative", "param_budget_inf", "param_keep_factor_negative", "param_rollout_unknown",
                 "param_budget_huge", "param_budget_zero", "param_budget_fraction", "param_z_nan",
                 "param_block_deals_negative", "param_bool_as_number", "param_number_as_bool", "param_int_fraction",
                 "param_float_nan", "param_sweep_out_of_range",
                 # issue 31: planner styles
                 "styles_unknown", "styles_no_planner", "styles_twice", "styles_not_a_list",
                 # issue 35: results at a URL
                 "output_url_protocol", "output_url_outside", "storage_options_local", "storage_options_type"):
        assert kind in names


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_bad_file_gives_its_one_line_message_and_writes_nothing(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "occupied").mkdir()
    (tmp_path / "occupied" / "notes.txt").write_text("not results")
    before = snapshot(tmp_path)
    start = time.perf_counter()
    with pytest.raises(ExperimentError) as e:
        run_experiment(path, progress=False, echo=False)
    seconds = time.perf_counter() - start
    msg = str(e.value)
    assert msg == expected(path, tmp_path)
    assert "\n" not in msg and msg.startswith(path.name + ": ")
    assert snapshot(tmp_path) == before
    if path in HOSTILE:
        assert seconds < FAST, f"{seconds:.2f} s"


@pytest.mark.parametrize("path", [HERE / "unknown_key.yaml"] + HOSTILE + PARAMS, ids=lambda p: p.stem)
def test_cli_prints_the_message_with_exit_code_1(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    r = CliRunner().invoke(run, [str(path), "--no-progress"])
    seconds = time.perf_counter() - start
    assert r.exit_code == 1
    assert r.output.strip() == "Error: " + expected(path, tmp_path)
    assert isinstance(r.exception, SystemExit) and "Traceback" not in r.output   # a clean exit, no crash
    assert list(tmp_path.iterdir()) == []
    if path in HOSTILE:
        assert seconds < CLI_FAST, f"{seconds:.2f} s"


def test_missing_file(tmp_path):
    with pytest.raises(ExperimentError, match=r"^nope\.yaml: \(file\): not found at .*; expected an experiment "
                                              r"YAML file$"):
        run_experiment(tmp_path / "nope.yaml", progress=False, echo=False)
