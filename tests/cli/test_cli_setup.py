"""The command line as a new user meets it: ``--json`` outputs (valid JSON with
the documented keys), exit codes (2 usage, 1 failure), progress bars only on
a terminal, ``python -m ttrsim``, ``ttrsim strategies``, ``ttrsim examples``
and running an example by name, shell completion, the compile notice,
``ttrsim warmup`` and ``ttrsim cache``, a missing extra named in one line."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ttrsim.cli import main
from ttrsim.cli.common import PRESET, PRESET_LIST, Strategies, missing_extra, want_progress
from ttrsim.cli.compiling import about_how_long, compiling
from ttrsim.cli.examples import ExperimentFile, example_names, examples_dir, resolve_experiment
from ttrsim.experiment.config import load_experiment

ROOT = Path(__file__).resolve().parents[2]

SMALL = """name: small
rules: usa
players: 2
lineup: [random, greedy]
games: 4
seed: 3
workers: 1
log: true
"""


def invoke(*args, **kw):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, **kw)


def as_json(res) -> object:
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """A tiny experiment run through `ttrsim run --json`, and its folder."""
    tmp = tmp_path_factory.mktemp("small")
    (tmp / "small.yaml").write_text(SMALL, encoding="utf-8")
    res = invoke("run", tmp / "small.yaml", "--output", tmp / "res", "--json")
    return as_json(res), res, tmp / "res"


# --------------------------------------------------------------------------- --json

def test_run_json_summary(small_run):
    data, res, folder = small_run
    assert set(data) == {"path", "status", "games", "games_run", "seconds", "compile_seconds", "games_per_s",
                         "summary"}
    assert data["path"] == str(folder) and data["status"] == "complete" and data["games"] == 4
    assert sorted(r["strategy"] for r in data["summary"]) == ["greedy", "random"]
    assert set(data["summary"][0]) >= {"point", "values", "strategy", "games", "wins", "win_rate", "low", "high",
                                       "mean_total"}          # the rows of summary_from_tables
    assert "\r" not in res.output and "game/s" not in res.output     # stderr is no terminal: no progress bar


def test_report_json_paths_and_findings(small_run, tmp_path):
    data, _, folder = small_run
    out = as_json(invoke("report", folder, "--output", tmp_path / "rep", "--format", "md", "--no-svg",
                         "--resamples", 20, "--json"))
    assert set(out) == {"report", "markdown", "html", "folder", "tables", "charts", "problems", "seconds",
                        "findings", "resamples"}
    assert out["resamples"] == 20
    assert Path(out["report"]).is_file() and out["html"] is None and out["report"] == out["markdown"]
    assert all(Path(p).is_file() for p in out["tables"] + out["charts"])
    assert [(r["strategy"], r["wins"]) for r in out["findings"]] == [(r["strategy"], r["wins"])
                                                                      for r in data["summary"]]


def test_play_json_is_the_game_record():
    rec = as_json(invoke("play", "--rules", "usa", "--players", 3, "--seed", 5, "--strategy", "greedy,random,planner",
                         "--json"))
    assert set(rec) == {"rules", "players", "seed", "strategies", "overrides", "actions", "result"}
    assert rec["strategies"] == ["greedy", "random", "planner"]
    assert set(rec["actions"][0]) == {"turn", "seat", "action", "text"}
    assert set(rec["result"]) == {"seats", "winners", "end", "turns"} and len(rec["result"]["seats"]) == 3
    text = invoke("play", "--rules", "usa", "--players", 3, "--seed", 5, "--strategy", "greedy,random,planner",
                  "--quiet").output
    for _seat, row in enumerate(rec["result"]["seats"]):           # the same game as the narration
        assert str(row["total"]) in text


def test_validate_map_json(tmp_path):
    from ttrsim.data.maps import MAPS_DIR
    good = as_json(invoke("validate-map", MAPS_DIR / "germany.yaml", "--json"))
    assert good["ok"] and good["problems"] == [] and good["summary"]["routes"] > 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\n", encoding="utf-8")
    res = invoke("validate-map", bad, "--json")
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    assert not data["ok"] and data["problems"] and data["summary"] is None


def test_strategies_text_and_json():
    from ttrsim.strategies import REGISTRY, STRATEGY_NAMES
    data = as_json(invoke("strategies", "--json"))
    assert [d["name"] for d in data] == list(STRATEGY_NAMES)
    for d in data:
        assert set(d) == {"name", "id", "description", "parameters"}
        assert [p["name"] for p in d["parameters"]] == [p.name for p in REGISTRY[d["name"]].params]
        assert all(set(p) == {"name", "default", "type", "min", "max", "min_exclusive", "max_exclusive",
                              "description"} for p in d["parameters"])
    one = as_json(invoke("strategies", "planner", "--json"))
    assert one["name"] == "planner" and one["parameters"]
    text = invoke("strategies", "planner").output
    assert text.startswith("planner: ") and "parameter" in text and "default" in text
    assert all(f"{n}: " in invoke("strategies").output for n in STRATEGY_NAMES)


def test_strategies_show_the_type_and_range_of_every_parameter():
    """``ttrsim strategies --json`` gives every parameter of every strategy its
    type and finite range (the spec's), and the text its type and interval
    (issue 30: the values an experiment may set)."""
    import math

    from ttrsim.strategies import REGISTRY
    data = as_json(invoke("strategies", "--json"))
    assert sum(len(d["parameters"]) for d in data) == sum(len(s.params) for s in REGISTRY.values()) > 0
    for d in data:
        for p, spec in zip(d["parameters"], REGISTRY[d["name"]].params, strict=True):
            assert p["type"] == spec.kind in ("int", "float", "bool"), (d["name"], p)
            assert (p["min"], p["max"], p["min_exclusive"], p["max_exclusive"]) == \
                (spec.lo, spec.hi, spec.open_lo, spec.open_hi), (d["name"], p)
            assert math.isfinite(p["min"]) and math.isfinite(p["max"]) and p["min"] < p["max"], (d["name"], p)
            if p["type"] == "bool":
                assert (p["min"], p["max"]) == (0, 1)
    search = as_json(invoke("strategies", "search", "--json"))
    budget = next(p for p in search["parameters"] if p["name"] == "budget")
    assert (budget["type"], budget["min"], budget["max"]) == ("int", 1, 100_000)
    keep_factor = next(p for p in search["parameters"] if p["name"] == "keep_factor")
    assert (keep_factor["min"], keep_factor["min_exclusive"], keep_factor["max_exclusive"]) == (0, True, False)
    lines = invoke("strategies", "search").output.splitlines()
    assert lines[1].split() == ["parameter", "default", "type", "range", "description"]
    rows = {line.split()[0]: line.split() for line in lines[3:] if line.strip()}
    assert rows["budget"][1:5] == ["64", "int", "[1,", "100000]"]
    assert rows["keep_factor"][1:5] == ["2", "float", "(0,", "100]"]
    assert rows["keeps"][1:5] == ["1", "bool", "0", "or"]


# --------------------------------------------------------------------------- exit codes

@pytest.mark.parametrize("args", [["strategies", "planer"], ["run", "quickstrat"], ["examples", "nope"],
                                  ["play", "--frobnicate"], ["cache", "--all"], ["report", "experiments/x.yaml"]])
def test_usage_errors_exit_2_with_one_error_line(args):
    res = invoke(*args)
    assert res.exit_code == 2, res.output
    errors = [line for line in res.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1


def test_report_on_an_experiment_file_says_what_to_do():
    res = invoke("report", examples_dir() / "quickstart.yaml")
    assert res.exit_code == 2
    assert "is an experiment file, not a results folder" in res.output
    assert "ttrsim report results/quickstart" in res.output


def test_failures_exit_1(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nplyers: 2\n", encoding="utf-8")
    res = invoke("run", bad)
    assert res.exit_code == 1 and res.output.strip().splitlines()[-1].startswith("Error: bad.yaml: ")


def test_missing_extra_is_one_line_naming_it(tmp_path, monkeypatch):
    err = ModuleNotFoundError("No module named 'distributed'", name="distributed")
    assert missing_extra(err) == "this needs the optional dependency 'distributed': pip install 'ttrsim[dask]'"
    assert missing_extra(ModuleNotFoundError("x", name="numpy")) is None
    monkeypatch.setitem(sys.modules, "distributed", None)        # as if the [dask] extra were not installed
    (tmp_path / "d.yaml").write_text(SMALL + "backend: dask\n", encoding="utf-8")
    res = invoke("run", tmp_path / "d.yaml", "--output", tmp_path / "res")
    assert res.exit_code == 1
    assert res.output.strip().splitlines()[-1] == \
        "Error: this needs the optional dependency 'distributed': pip install 'ttrsim[dask]'"


# --------------------------------------------------------------------------- progress, python -m, completion

def test_progress_only_on_a_terminal(monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert want_progress(None) is False and want_progress(True) is True
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert want_progress(None) is True and want_progress(None, as_json=True) is False
    assert want_progress(False) is False


def test_python_dash_m_ttrsim():
    res = subprocess.run([sys.executable, "-m", "ttrsim", "strategies", "--json"], capture_output=True,
                         check=False, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "planner" in [d["name"] for d in json.loads(res.stdout)]
    res = subprocess.run([sys.executable, "-m", "ttrsim", "rules", "germny"], capture_output=True,
                         check=False, text=True, timeout=120)
    assert res.returncode == 2 and "did you mean 'germany'" in res.stderr


def test_completion_of_presets_strategies_and_examples():
    def names(items):
        return [i.value for i in items]

    assert names(PRESET.shell_complete(None, None, "ge")) == ["germany"]
    assert names(PRESET_LIST.shell_complete(None, None, "usa,usa-m")) == ["usa,usa-mega"]
    assert names(Strategies().shell_complete(None, None, "random,pla")) == ["random,planner", "random,planner_classic",
                                                                         "random,planner_tickets", "random,planner_routes"]
    assert "quickstart" in names(ExperimentFile().shell_complete(None, None, "quick"))


def test_shell_completion_end_to_end():
    script = Path(sys.executable).parent / "ttrsim"
    if not script.exists():
        pytest.skip("no ttrsim script beside this python")
    env = dict(os.environ, _TTRSIM_COMPLETE="bash_complete", COMP_WORDS="ttrsim play --rules ge", COMP_CWORD="3")
    res = subprocess.run([str(script)], env=env, capture_output=True, check=False, text=True, timeout=120)
    assert "plain,germany" in res.stdout.splitlines()


# --------------------------------------------------------------------------- examples

def test_every_packaged_example_is_listed_and_loads():
    listed = as_json(invoke("examples", "--json"))
    assert [e["name"] for e in listed] == example_names()
    assert {"quickstart", "custom_map", "study_tournament_usa4"} <= set(example_names())
    for e in listed:
        assert set(e) == {"name", "path", "title"} and e["title"], e
        load_experiment(e["path"])


def test_example_map_files_ship_with_the_examples():
    """A map file an example names lies in the packaged examples folder, in a
    file the wheel packs (pyproject's package-data): an installed example
    finds its map as it does in the repository (``ttrsim run custom_map``)."""
    import tomllib

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped = {p for pattern in patterns["ttrsim.examples"] for p in examples_dir().glob(pattern)}
    experiments = [p for p in examples_dir().glob("*.yaml") if p.stem in example_names()]    # not the tune files
    maps = [Path(exp.map) for exp in map(load_experiment, experiments) if (exp.map or "").endswith(".yaml")]
    assert maps, "custom_map names a map file"
    for m in maps:
        assert m in shipped, m


def test_run_resolves_an_example_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_experiment("quickstart") == examples_dir() / "quickstart.yaml"
    assert resolve_experiment("quickstart.yaml") == examples_dir() / "quickstart.yaml"
    (tmp_path / "quickstart.yaml").write_text(SMALL, encoding="utf-8")    # a file of that name wins
    assert resolve_experiment("quickstart.yaml") == Path("quickstart.yaml")
    assert resolve_experiment("nope") is None


def test_examples_copies_one_to_edit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = invoke("examples", "quickstart")
    assert res.exit_code == 0 and "wrote quickstart.yaml" in res.output
    assert (tmp_path / "quickstart.yaml").read_text() == (examples_dir() / "quickstart.yaml").read_text()
    again = invoke("examples", "quickstart")
    assert again.exit_code == 1 and "exists" in again.output
    assert invoke("examples", "quickstart", "--force").exit_code == 0
    # an example naming a map file by a relative path gets a copy of the map beside it
    files = as_json(invoke("examples", "custom_map", "--to", "mine", "--json"))["files"]
    assert [Path(f).name for f in files] == ["custom_map.yaml", "usa.yaml"]
    assert load_experiment(tmp_path / "mine" / "custom_map.yaml").map == str((tmp_path / "mine" / "usa.yaml").resolve())


# --------------------------------------------------------------------------- compiling, warmup, cache

def test_compile_notice_and_progress_lines_only_when_compiling(tmp_path, monkeypatch):
    from numba import njit

    from ttrsim.jit import cache as jitcache

    monkeypatch.setattr(jitcache, "cache_dir", lambda: tmp_path)        # a cache folder exists
    lines = []
    with compiling(progress=False, echo=lines.append) as watch:
        pass
    assert lines == [] and watch.units == 0
    with compiling(progress=False, echo=lines.append) as watch:
        njit(lambda x: x + 1)(1)                 # a fresh function: one compile
    assert watch.units == 1 and watch.seconds > 0
    assert lines[0].startswith("compiling the engine and strategies (first run only, about ")
    assert lines[-1].startswith("compiled 1 functions in ") and len(lines) == 2
    monkeypatch.setattr(jitcache, "cache_dir", lambda: tmp_path / "none")    # nothing cached: the notice at once
    lines.clear()
    with compiling(progress=False, echo=lines.append):
        assert len(lines) == 1 and lines[0].startswith("compiling the engine")


def test_compile_estimate_reflects_the_machine_and_its_load(tmp_path, monkeypatch):
    import json

    from ttrsim.jit import cache as jitcache

    monkeypatch.setattr(jitcache, "cache_base", lambda: tmp_path)
    monkeypatch.setattr(jitcache, "load_factor", lambda: 1.5)
    est = jitcache.compile_estimate()                # never timed here: the default, at today's load, as a range
    assert not est["timed"] and est["seconds"] == 1.5 * jitcache.DEFAULT_COMPILE["seconds"]
    assert about_how_long(est).endswith("min: not timed on this machine yet")
    (tmp_path / "compile-time.json").write_text(json.dumps({"seconds": 100.0, "units": 150, "load_factor": 2.0}))
    est = jitcache.compile_estimate()                # timed at load factor 2: 50 s idle, 75 s now
    assert est == {"seconds": 75.0, "units": 150.0, "timed": True} and about_how_long(est) == "about 75 s"
    with jitcache.CompileWatch() as w:               # a full compile keeps its time and the load it ran at
        w.units, w.seconds, w.load_factor = 30, 40.0, 1.25
    assert json.loads((tmp_path / "compile-time.json").read_text()) == {"seconds": 40.0, "units": 30,
                                                                     "load_factor": 1.25}


def test_compile_progress_lines_say_the_time_left(tmp_path, monkeypatch):
    import importlib

    from numba import njit

    from ttrsim.jit import cache as jitcache

    monkeypatch.setattr(jitcache, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(importlib.import_module("ttrsim.cli.compiling"), "LINE_EVERY", 1)
    lines = []
    with compiling(progress=False, echo=lines.append):
        njit(lambda x: x + 2)(1)
    assert lines[1].startswith("compiling: 1 of about ") and " s left (" in lines[1]


def test_warmup_and_cache_commands(tmp_path, monkeypatch):
    from ttrsim.jit.cache import cache_dir
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))      # the base folder (this process keeps its own cache)
    current = tmp_path / cache_dir().name
    current.mkdir()
    (tmp_path / "numba-old").mkdir()
    (tmp_path / "numba-old" / "f.nbi").write_bytes(b"x" * 1000)
    data = as_json(invoke("cache", "--json"))
    assert data["base"] == str(tmp_path)
    assert {(Path(f["path"]).name, f["current"]) for f in data["folders"]} == {(current.name, True),
                                                                              ("numba-old", False)}
    assert "numba-old" in invoke("cache").output and "ttrsim cache --clear" in invoke("cache").output
    gone = as_json(invoke("cache", "--clear", "--json"))["removed"]
    assert [Path(f["path"]).name for f in gone] == ["numba-old"] and not (tmp_path / "numba-old").exists()
    assert current.exists()
    warm = as_json(invoke("warmup", "--json"))
    assert set(warm) == {"seconds", "compiled", "compile_seconds", "cache"}
    assert Path(warm["cache"]).name == current.name
