"""Experiments seating a Python strategy ({python: "module:Class"}): games with
a Python seat are stepped in Python and recorded by the same compiled per-step
logger as the compiled loop, so GreedyLongest (Python) gives exactly the tables
of its compiled twin greedy. Small runs: a Python game takes about 1/30 s."""
import json
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from ttrsim.experiment import worker
from ttrsim.experiment.config import ExperimentError, load_experiment
from ttrsim.experiment.runner import run_experiment

GREEDY_PY = "ttrsim.strategies.python_example:GreedyLongest"


def parts(path: Path) -> dict:
    """Every part file of a results folder (by relative path) as an Arrow table."""
    return {str(f.relative_to(path)): pq.read_table(f) for f in sorted(path.glob("*/part-*.parquet"))}


def assert_identical(a: Path, b: Path):
    pa_, pb = parts(a), parts(b)
    assert pa_ and sorted(pa_) == sorted(pb)
    for name in pa_:
        assert pa_[name].equals(pb[name]), name
    for dim in ("routes", "tickets", "points"):
        assert pq.read_table(a / "dims" / f"{dim}.parquet").equals(pq.read_table(b / "dims" / f"{dim}.parquet"))


def run(d, out, **kw):
    return run_experiment(d, output=out, progress=False, echo=False, **kw)


def pool_exp(greedy, **kw):
    """Round robin of 4 at 3-player tables: 12 games a block, 9 with greedy,
    3 without (so chunks mix Python-stepped and compiled games)."""
    d = {"name": "py", "rules": "usa", "players": 3, "seating": "round_robin",
         "pool": [greedy, "random", "route_focus", "one_step"], "games": 12, "seed": 3, "log": True,
         "workers": 1, "chunk_size": 12}
    d.update(kw)
    return d


PY_AS_GREEDY = {"python": GREEDY_PY, "label": "greedy"}


@pytest.fixture(scope="module")
def compiled_pool(tmp_path_factory):
    return run(pool_exp("greedy"), tmp_path_factory.mktemp("c") / "compiled")


@pytest.fixture(scope="module")
def python_pool(tmp_path_factory):
    return run(pool_exp(PY_AS_GREEDY), tmp_path_factory.mktemp("p") / "python")


def test_python_seat_gives_exactly_the_tables_of_its_compiled_twin(compiled_pool, python_pool):
    """Every table (games, players, tickets, turns), every column, every row."""
    assert python_pool.status == "complete" and python_pool.games == 12
    assert_identical(compiled_pool.path, python_pool.path)
    assert python_pool.summary == compiled_pool.summary
    dims = pq.read_table(python_pool.path / "dims" / "strategies.parquet").to_pylist()
    assert dims[0] == {"strategy": "greedy", "name": GREEDY_PY, "params": "{}"}
    config = python_pool.manifest["config"]["entrants"][0]
    assert config == {"label": "greedy", "python": GREEDY_PY, "params": {}}


def test_germany_with_the_log_flushed_between_python_games(tmp_path, monkeypatch):
    """Passengers and Germany's ticket piles; a turn log that holds two games
    at a time, so the Python loop flushes it like the compiled loop does."""
    d = {"name": "ger", "rules": "germany", "players": 3, "lineup": ["greedy", "passenger_hunter", "random"],
         "games": 6, "seed": 9, "log": True, "workers": 1, "chunk_size": 6}
    compiled = run(d, tmp_path / "compiled")
    monkeypatch.setattr(worker, "TURN_CAPACITY", 2 * 1001 + 500)
    worker._CTX.by_key.clear()
    try:
        d["lineup"] = [PY_AS_GREEDY, "passenger_hunter", "random"]
        python = run(d, tmp_path / "python")
    finally:
        worker._CTX.by_key.clear()
    assert_identical(compiled.path, python.path)


def test_same_tables_whatever_workers_and_chunks_and_after_resume(python_pool, tmp_path):
    out = tmp_path / "two"
    d = pool_exp(PY_AS_GREEDY, games=24)
    whole = run(d, tmp_path / "whole")
    two = run(d, out, workers=2, chunk_size=1)            # chunks of one block
    assert len(list((out / "games").glob("*.parquet"))) == 2
    assert_identical(whole.path, two.path)
    # the first block equals the 12-game run
    first = parts(python_pool.path)["turns/part-0000-000000.parquet"]
    assert parts(out)["turns/part-0000-000000.parquet"].equals(first)
    # resume: a chunk lost in a kill is played again
    m = json.loads((out / "manifest.json").read_text())
    del m["chunks"]["0000-000001"]
    m["status"] = "running"
    (out / "manifest.json").write_text(json.dumps(m))
    r = run(d, out, workers=2, chunk_size=1)
    assert r.status == "complete" and r.games_run == 12
    assert_identical(whole.path, out)


def test_dask_backend_plays_python_seats_the_same(python_pool, tmp_path):
    r = run(pool_exp(PY_AS_GREEDY), tmp_path / "dask", backend="dask", workers=1)
    assert_identical(python_pool.path, r.path)


def test_python_parameters_and_a_sweep_over_them(compiled_pool, tmp_path):
    """Constructor parameters are swept like compiled ones: point 0 (min_length
    1, the default) is greedy's game, point 1 claims only routes of 4 or more."""
    d = pool_exp({"python": GREEDY_PY, "label": "greedy", "params": {"min_length": 1}},
                 sweep={"strategies.greedy.min_length": [1, 4]})
    r = run(d, tmp_path / "sweep")
    assert r.manifest["config"]["points"][1]["entrant_params"][0] == {"min_length": 4}
    got, ref = parts(r.path), parts(compiled_pool.path)
    assert all(got[k].equals(ref[k]) for k in ref)                 # point 0 = the part files of point 0
    lengths = pl.read_parquet(r.path / "dims" / "routes.parquet").select("route", "length")
    claims = (r.table("turns").filter((pl.col("point") == 1) & (pl.col("action") == "claim"))
              .join(r.table("players").select("game", "seat", "strategy"), on=["game", "seat"])
              .filter(pl.col("strategy") == "greedy").join(lengths, on="route"))
    assert claims.height > 0 and claims["length"].min() >= 4


def test_default_label_is_the_class_name_and_repeats_are_numbered():
    e = load_experiment({"name": "t", "players": 3, "lineup": [{"python": GREEDY_PY}, {"python": GREEDY_PY},
                                                                 "greedy"], "games": 3})
    assert [x.label for x in e.entrants] == ["GreedyLongest", "GreedyLongest-2", "greedy"]
    assert [x.python for x in e.entrants] == [True, True, False]


CHEATER = '''
class Cheater:
    def __init__(self, after=0):
        self.after = after
        self.calls = 0

    def choose(self, observation, legal_actions):
        self.calls += 1
        return 9999 if self.calls > self.after else legal_actions[0]
'''


def test_module_beside_the_experiment_and_an_illegal_action(tmp_path):
    """A module file in the experiment's folder is importable; an illegal
    action stops the run with a message naming the strategy."""
    (tmp_path / "ttrsim_test_cheater.py").write_text(CHEATER)
    f = tmp_path / "cheat.yaml"
    f.write_text(json.dumps({"name": "cheat", "players": 2, "games": 2, "workers": 1,
                             "lineup": [{"python": "ttrsim_test_cheater:Cheater", "params": {"after": 3},
                                         "label": "cheater"}, "random"]}))
    with pytest.raises(ExperimentError, match=r"^cheat\.yaml: strategy cheater \(seat [01]\) returned 9999 in the "
                                              r"game of seed \d+, turn \d+; expected one of its \d+ legal actions; "
                                              r"the run stopped: 0 games kept in .*; run the same command again to "
                                              r"resume$"):
        run(f, tmp_path / "out")
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["status"] == "failed"


CHATTY = Path(__file__).resolve().parents[1] / "fixtures" / "bad_experiments" / "hostile_strategies.py"


def chatty_experiment(tmp_path, workers: int) -> Path:
    """An experiment seating ``hostile_strategies:Chatty`` (prints in its
    constructor and every decision, and writes to file descriptor 1 once),
    its module beside the file."""
    (tmp_path / "hostile_strategies.py").write_text(CHATTY.read_text())
    f = tmp_path / "chatty.yaml"
    f.write_text(json.dumps({"name": "chatty", "players": 2, "games": 4, "seed": 1, "workers": workers,
                             "chunk_size": 2, "lineup": [{"python": "hostile_strategies:Chatty"}, "random"]}))
    return f


def test_a_strategy_that_prints_leaves_run_json_a_json_document(tmp_path):
    """In this process (one worker): the prints go to stderr, stdout is the document."""
    from click.testing import CliRunner

    from ttrsim.cli import main
    f = chatty_experiment(tmp_path, workers=1)
    r = CliRunner().invoke(main, ["run", str(f), "--output", str(tmp_path / "out"), "--json", "--no-progress"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["status"] == "complete" and doc["games"] == 4
    assert "chatty: built" in r.stderr and "chatty: turn 0" in r.stderr


def test_a_strategy_that_prints_in_worker_processes_leaves_stdout_the_document(tmp_path):
    """A real ``ttrsim run --json`` with two worker processes: prints and a
    raw write to file descriptor 1 there and in the main process end on
    stderr; stdout parses as the one JSON document."""
    import subprocess
    import sys
    f = chatty_experiment(tmp_path, workers=2)
    p = subprocess.run([sys.executable, "-m", "ttrsim", "run", str(f), "--output", str(tmp_path / "out"), "--json",
                        "--no-progress"], capture_output=True, text=True, cwd=tmp_path,
                       timeout=600)   # a hang guard only: a first run on a cold cache compiles for minutes
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["status"] == "complete" and doc["games"] == 4
    assert "chatty: built" in p.stderr and "chatty: turn 0" in p.stderr and "chatty: raw" in p.stderr
