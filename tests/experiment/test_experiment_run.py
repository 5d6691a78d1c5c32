"""Running experiments: identical tables whatever the workers, chunking or
backend; resume after an interruption (also kill -9); the table schemas; the
sequential stop; sweeps; the CLI and the Python API. Small runs (tens to a few
hundred games) of fast strategies keep this quick."""
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ttrsim.cli import run
from ttrsim.experiment.config import ExperimentError
from ttrsim.experiment.runner import run_experiment
from ttrsim.results.summary import summary_from_tables
from ttrsim.results.tables import SCHEMAS

from helpers import assert_same_tables, tables

ROOT = Path(__file__).resolve().parents[2]


def exp(**kw):
    d = {"name": "small", "rules": "usa", "players": 3, "lineup": ["random", "route_focus", "random"],
         "games": 120, "seed": 42, "log": True, "workers": 1, "chunk_size": 30}
    d.update(kw)
    return d


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The small experiment, 1 worker in this process, chunks of 30 games."""
    out = tmp_path_factory.mktemp("ref") / "ref"
    r = run_experiment(exp(), output=out, progress=False, echo=False)
    assert r.status == "complete" and r.games == 120
    return r


# --------------------------------------------------------------------------- determinism

def test_two_workers_and_other_chunks_give_identical_tables(reference, tmp_path):
    r = run_experiment(exp(workers=2, chunk_size=12), output=tmp_path / "two", progress=False, echo=False)
    assert len(list((tmp_path / "two" / "games").glob("*.parquet"))) == 10
    assert_same_tables(reference.path, r.path)
    assert r.summary == reference.summary


WARM = r"^dask: {} ready, kernels (compiled|loaded from the numba cache) in \d+\.\d s \(slowest worker"


def test_local_dask_cluster_gives_identical_tables(reference, tmp_path):
    notes = []
    r = run_experiment(exp(backend="dask", workers=2, chunk_size=60), output=tmp_path / "dask",
                       progress=False, echo=notes.append)
    assert r.manifest["execution"]["backend"] == "dask"
    assert_same_tables(reference.path, r.path)
    # both workers compiled (or loaded) the loop before the first chunk, and the run said so once
    assert [n for n in notes if n.startswith("dask:")] == [n for n in notes if re.match(WARM.format("2 workers"), n)]
    assert len([n for n in notes if n.startswith("dask:")]) == 1
    assert r.warm_up_seconds > 0 and r.manifest["runs"][-1]["warm_up_s"] == round(r.warm_up_seconds, 3)


def test_dask_workers_warm_up_in_cache_dir_also_when_they_join_later(reference, tmp_path):
    """A cluster of this test's (as one of your own), no worker at first: the
    worker that joins warms up before its first chunk in the run's
    ``cache_dir`` (set by the warm-up plugin, not by its environment); a
    second run finds it connected and warm, and says so. The tables are the
    local run's."""
    import logging

    distributed = pytest.importorskip("distributed")
    from ttrsim.jit.cache import cache_dir
    shared = tmp_path / "numba"
    shared.mkdir()
    (shared / cache_dir().name).symlink_to(cache_dir(), target_is_directory=True)   # this tree's cache, via cache_dir
    with distributed.LocalCluster(n_workers=0, processes=True, threads_per_worker=1, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        notes = []

        def echo(note):
            notes.append(note)
            if note.startswith("dask: no worker connected yet"):
                cluster.scale(1)                    # a worker joins once the run has registered its warm-up

        def go(out):
            return run_experiment(exp(chunk_size=60), output=tmp_path / out, scheduler=cluster.scheduler_address,
                                  cache_dir=str(shared), progress=False, echo=echo)
        joined = go("joined")
        assert "dask: no worker connected yet; each compiles the kernels as it joins, before its first chunk" in notes
        assert set(client.run(lambda: os.environ.get("NUMBA_CACHE_DIR")).values()) == {str(shared)}
        assert_same_tables(reference.path, joined.path)
        notes.clear()
        again = go("again")
        warm = [n for n in notes if n.startswith(("dask:", "note:"))]
        assert len(warm) == 1 and re.match(WARM.format("1 worker"), warm[0])
        assert "loaded from the numba cache" in warm[0]          # and no note: its cache is under cache_dir
        assert_same_tables(reference.path, again.path)
        assert again.manifest["execution"]["cache_dir"] == str(shared)


def test_each_thread_plays_into_its_own_buffers():
    """A worker thread's board, state and turn log are its own: a Dask worker
    with several threads, or a warm-up beside a chunk an interrupted run left
    running, never plays two games into one set of buffers."""
    import threading

    from ttrsim.experiment import worker
    from ttrsim.experiment.config import load_experiment
    e = load_experiment(exp())
    spec = worker.point_spec(e, e.points[0])
    here = worker._context(spec)
    assert worker._context(spec) is here
    other = []
    t = threading.Thread(target=lambda: other.append(worker._context(spec)))
    t.start()
    t.join()
    assert other[0] is not here and other[0]["log"] is not here["log"] and other[0]["state"] is not here["state"]


# --------------------------------------------------------------------------- resume

def test_resume_after_lost_chunks_equals_an_uninterrupted_run(reference, tmp_path):
    out = tmp_path / "resume"
    run_experiment(exp(), output=out, progress=False, echo=False)
    m = json.loads((out / "manifest.json").read_text())
    # simulate a kill: two chunks never recorded (one with its files written, one without),
    # temporary files half written (a part file's, and the manifest's of the killed
    # process, which another pid must clean up), the status still 'running'
    for key in ("0000-000001", "0000-000003"):
        del m["chunks"][key]
    for t in ("games", "players", "tickets", "turns"):
        (out / t / "part-0000-000003.parquet").unlink()
    (out / "games" / "part-0000-000002.parquet.tmp").write_bytes(b"half")
    (out / "manifest.json.999999.tmp").write_bytes(b"{half")
    m["status"] = "running"
    (out / "manifest.json").write_text(json.dumps(m))
    r = run_experiment(exp(), output=out, progress=False, echo=False)
    assert r.status == "complete" and r.games_run == 60 and r.games == 120
    assert not list(out.rglob("*.tmp"))
    assert_same_tables(reference.path, out)
    games = tables(out, ["games"])["games"]
    assert games["game"].n_unique() == games.height == 120
    again = run_experiment(exp(), output=out, progress=False, echo=False)
    assert again.games_run == 0 and again.summary == r.summary


def start_and_stop(f, out, sig, after_chunks):
    """Run ``ttrsim run f`` in a subprocess and send ``sig`` once the manifest
    lists ``after_chunks`` chunks; returns the exit code (None: it finished first)."""
    env = dict(os.environ, TTRSIM_MANIFEST_INTERVAL="0",      # record every chunk at once
               PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    proc = subprocess.Popen([sys.executable, "-m", "ttrsim", "run", str(f), "--output", str(out),
                             "--no-progress"], cwd=f.parent, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=env)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        try:
            done = len(json.loads((out / "manifest.json").read_text())["chunks"])
        except (FileNotFoundError, json.JSONDecodeError):
            done = 0
        if done >= after_chunks:
            break
        time.sleep(0.02)
    if proc.poll() is not None:
        err = proc.stderr.read().decode()
        assert proc.returncode == 0, err
        return None
    os.kill(proc.pid, sig)
    return proc.wait(timeout=60)


def test_resume_after_ctrl_c_and_kill_9_equals_an_uninterrupted_run(tmp_path):
    out = tmp_path / "killed"
    f = tmp_path / "small.yaml"
    d = exp(games=1200, chunk_size=30, log=False)          # 40 chunks
    f.write_text(json.dumps(d))                            # JSON is YAML
    reference = run_experiment(d, output=tmp_path / "whole", workers=2, chunk_size=300, progress=False, echo=False)
    rc = start_and_stop(f, out, signal.SIGINT, 2)          # Ctrl-C: clean stop, chunks kept
    if rc is None:
        pytest.skip("the run finished before it could be interrupted")
    m = json.loads((out / "manifest.json").read_text())
    assert rc == 130 and m["status"] == "interrupted" and 0 < len(m["chunks"]) < 40
    first = len(m["chunks"])
    rc = start_and_stop(f, out, signal.SIGKILL, first + 3)  # kill -9 of the resumed run
    if rc is None:
        pytest.skip("the run finished before it could be killed")
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "running" and first < len(m["chunks"]) < 40
    r = run_experiment(f, output=out, progress=False, echo=False)
    assert r.status == "complete" and r.games == 1200 and 0 < r.games_run < 1200
    assert [run["status"] for run in r.manifest["runs"]] == ["interrupted", "killed", "complete"]
    assert_same_tables(reference.path, out)


def test_a_changed_experiment_is_refused_unless_overwrite(reference, tmp_path):
    out = tmp_path / "changed"
    run_experiment(exp(games=6), output=out, progress=False, echo=False)
    before = sorted(p.name for p in (out / "games").iterdir())
    with pytest.raises(ExperimentError, match=r"^<dict>: output: .* holds a different experiment \(changed: "
                                              r"seed\); expected the same experiment to resume, or "
                                              r"--overwrite to start over$"):
        run_experiment(exp(games=6, seed=43), output=out, progress=False, echo=False)
    assert sorted(p.name for p in (out / "games").iterdir()) == before
    # execution settings are not part of the experiment
    assert run_experiment(exp(games=6, workers=2, chunk_size=3), output=out, progress=False,
                          echo=False).games_run == 0
    r = run_experiment(exp(games=9, seed=43), output=out, overwrite=True, progress=False, echo=False)
    assert r.games == 9 and tables(out, ["games"])["games"].height == 9


def test_a_folder_of_another_games_version_is_not_resumed(tmp_path):
    """A folder played by another games version (the same seeds gave other
    games, e.g. before the seeding fix) is refused in one line, untouched."""
    out = tmp_path / "old"
    run_experiment(exp(games=6), output=out, progress=False, echo=False)
    m = json.loads((out / "manifest.json").read_text())
    assert m["games_version"] == 2
    del m["games_version"]                       # folders before version 2 carry none
    (out / "manifest.json").write_text(json.dumps(m))
    before = sorted(p.name for p in (out / "games").iterdir())
    with pytest.raises(ExperimentError, match=r"^<dict>: output: .* was played by games version 1 \(this ttrsim "
                                              r"plays version 2: the same seeds give other games\); expected a "
                                              r"folder of this version to resume, or --overwrite to start over$"):
        run_experiment(exp(games=6), output=out, progress=False, echo=False)
    assert sorted(p.name for p in (out / "games").iterdir()) == before
    assert run_experiment(exp(games=6), output=out, overwrite=True, progress=False, echo=False).games == 6


# --------------------------------------------------------------------------- tables

def test_every_table_has_its_documented_schema(reference):
    for name, schema in SCHEMAS.items():
        for f in (reference.path / name).glob("*.parquet"):
            assert pq.read_schema(f).remove_metadata().equals(schema), (name, f.name)
    dims = {p.stem for p in (reference.path / "dims").glob("*.parquet")}
    assert dims == {"routes", "tickets", "strategies", "points"}
    lazy = pl.scan_parquet(str(reference.path / "games" / "*.parquet")).collect()
    assert lazy.schema["end"] == pl.Categorical and lazy.schema["game"] == pl.UInt32


def test_tables_are_consistent(reference):
    t = tables(reference.path)
    g, p, tk, tu = t["games"], t["players"], t["tickets"], t["turns"]
    assert g.height == 120 and p.height == 360
    assert g["game"].to_list() == list(range(120))
    assert g["players"].unique().to_list() == [3] and g["strategy_3"].null_count() == 120
    assert (g.group_by("block").agg(pl.col("seed").n_unique())["seed"] == 1).all()     # paired games
    assert g["seed"].n_unique() == 40
    # every strategy sits in every seat once per block
    seats = p.join(g.select("game", "block"), on="game").group_by("block", "seat").agg(
        pl.col("strategy").cast(pl.String).sort().alias("s"))
    assert all(s == ["random", "random-2", "route_focus"] for s in seats["s"].to_list())
    comp = p["routes"] + p["tickets_won"] - p["tickets_lost"] + p["longest_bonus"] + p["globetrotter"] \
        + p["passenger_points"]
    assert (comp == p["total"]).all()
    share = p.group_by("game").agg(pl.col("win_share").sum())["win_share"]
    assert np.allclose(share.to_numpy(), 1.0)
    winners = p.filter("winner").group_by("game").agg(pl.col("seat").sort()).sort("game")
    assert winners["seat"].to_list() == [sorted(w) for w in g["winners"].to_list()]
    assert (p["trains_left"] >= 0).all() and (p["cards_left"] >= 0).all()
    assert (p["passengers"] == 0).all()                                  # USA: no passengers
    # turns: one row per turn of every game; tickets: the setup deal of every seat
    per_game = tu.group_by("game").len().sort("game")
    assert per_game["len"].to_list() == g["turns"].cast(pl.UInt32).to_list()
    assert tk.filter("setup").height == 120 * 3 * 3
    assert (tk.filter(~pl.col("kept"))["completed"].null_count() == tk.filter(~pl.col("kept")).height)
    kept = tk.filter("kept").group_by("game", "seat").agg(pl.col("completed").sum().alias("done"))
    joined = kept.join(p.select("game", "seat", "tickets_completed"), on=["game", "seat"])
    assert (joined["done"] == joined["tickets_completed"].cast(pl.UInt32)).all()
    claims = tu.filter(pl.col("action") == "claim")
    assert claims["route"].null_count() == 0 and tu.filter(pl.col("action") != "claim")["route"].null_count() == \
        tu.filter(pl.col("action") != "claim").height
    assert set(tu["action"].cast(pl.String).unique().to_list()) <= {"cards", "claim", "tickets", "pass"}


def test_summary_matches_a_recount_from_the_tables(reference):
    rows = summary_from_tables(reference.path)
    assert [(r["strategy"], r["games"]) for r in rows] == [(r["strategy"], r["games"]) for r in reference.summary]
    for a, b in zip(rows, reference.summary):
        assert a["win_rate"] == pytest.approx(b["win_rate"], abs=1e-6)
        assert a["low"] == pytest.approx(b["low"], abs=1e-6) and a["high"] == pytest.approx(b["high"], abs=1e-6)
    m = json.loads((reference.path / "manifest.json").read_text())
    assert m["status"] == "complete" and m["summary"] == reference.summary
    assert {"ttrsim", "numba", "polars", "pyarrow", "python"} <= set(m["versions"])
    assert len(m["chunks"]) == 4 and all(c["play_s"] > 0 for c in m["chunks"].values())


def test_without_log_there_is_no_turns_table(tmp_path):
    r = run_experiment(exp(games=6, log=False), output=tmp_path / "nolog", progress=False, echo=False)
    assert not (r.path / "turns").exists()
    assert r.table("tickets").height > 0


# --------------------------------------------------------------------------- stop rule, sweep, round robin

def test_sequential_stop_is_checked_at_block_boundaries_whatever_the_chunks(tmp_path):
    stop = {"strategy": "route_focus", "width": 0.35, "min_games": 12, "max_games": 600}
    a = run_experiment(exp(games=None, stop=stop, chunk_size=21, log=False), output=tmp_path / "a",
                       progress=False, echo=False)
    b = run_experiment(exp(games=None, stop=stop, chunk_size=6, workers=2, log=False), output=tmp_path / "b",
                       progress=False, echo=False)
    ga, gb = tables(a.path, ["games"])["games"], tables(b.path, ["games"])["games"]
    assert ga.equals(gb)
    stopped = a.manifest["points"]["0"]["stopped_at"]
    assert 12 <= stopped < 600 and stopped % 3 == 0 and ga.height == stopped
    assert b.manifest["points"]["0"]["stopped_at"] == stopped
    row = next(r for r in a.summary if r["strategy"] == "route_focus")
    assert row["high"] - row["low"] < 0.35


def test_sweep_points_are_sub_experiments_with_the_same_seeds(tmp_path):
    r = run_experiment(exp(games=6, rules="usa-1910", log=False, sweep={"rules.globetrotter_points": [0, 30]}),
                       output=tmp_path / "sweep", progress=False, echo=False)
    g = r.table("games")
    assert g["point"].to_list() == [0] * 6 + [1] * 6
    assert g["game"].n_unique() == 12
    assert g.filter(pl.col("point") == 0)["seed"].to_list() == g.filter(pl.col("point") == 1)["seed"].to_list()
    p = r.table("players")
    assert p.filter(pl.col("point") == 0)["globetrotter"].max() == 0
    assert p.filter(pl.col("point") == 1)["globetrotter"].max() == 30
    pts = pl.read_parquet(r.path / "dims" / "points.parquet")
    assert pts["values"].to_list() == ['{"rules.globetrotter_points": 0}', '{"rules.globetrotter_points": 30}']
    assert {row["point"] for row in r.summary} == {0, 1}


def test_round_robin_tables(tmp_path):
    r = run_experiment(exp(players=2, seating="round_robin", lineup=None, pool=["random", "route_focus", "one_step"],
                           games=12, log=False), output=tmp_path / "rr", progress=False, echo=False)
    g = r.table("games")
    assert g.height == 12 and (g["strategy_0"] != g["strategy_1"]).all()
    pairs = {tuple(x) for x in g.select(pl.col("strategy_0").cast(pl.String),
                                        pl.col("strategy_1").cast(pl.String)).rows()}
    assert len(pairs) == 6          # 3 tables x 2 rotations
    assert {row["games"] for row in r.summary} == {8}


# --------------------------------------------------------------------------- CLI and API

def test_cli_run_prints_the_summary_and_the_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "e.yaml"
    f.write_text(json.dumps(exp(name="cli", games=6, log=False)))
    res = CliRunner().invoke(run, [str(f), "--no-progress", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "win rate" in res.output and "95% interval" in res.output
    assert res.output.strip().endswith(f"results: {tmp_path / 'results' / 'cli'}")
    res = CliRunner().invoke(run, [str(f), "--no-progress", "--seed", "43"])
    assert res.exit_code == 1 and "holds a different experiment" in res.output
    res = CliRunner().invoke(run, [str(f), "--no-progress", "--games", "9"])           # grows
    assert res.exit_code == 0 and "growing from 6 to 9 games per point" in res.output and "9 games" in res.output
    res = CliRunner().invoke(run, [str(f), "--no-progress", "--seed", "43", "--overwrite"])
    assert res.exit_code == 0 and res.output.startswith("6 games in ")


def test_python_api_returns_path_summary_and_tables(tmp_path):
    r = run_experiment(exp(games=6), output=tmp_path / "api", progress=False, echo=False, seed=7)
    assert r.path == tmp_path / "api" and r.status == "complete"
    assert r.scan("players").select(pl.len()).collect().item() == 18
    assert {row["strategy"] for row in r.summary} == {"random", "random-2", "route_focus"}
    assert "win rate" in r.summary_text
    assert r.manifest["config"]["seed"] == 7
