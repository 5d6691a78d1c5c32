"""A run's whole life in a real `ttrsim run` process (docs/reliability.md):
kill -9 at several moments, from before the manifest exists to after the first
chunk, then a resume gives part files byte-identical to an uninterrupted run;
SIGINT or SIGTERM at several early moments stop the run within seconds with
exit code 130 or 143 and a resumable folder; the workers of a run whose main
process is killed with kill -9 end with it, on the local pool and on a local
Dask cluster. Each process runs a small experiment (2,000 short games)."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from ttrsim.experiment.runner import run_experiment

ROOT = Path(__file__).resolve().parent.parent
EXP = {"name": "life", "players": 2, "lineup": ["random", "route_focus"], "games": 2000, "seed": 11, "log": True,
       "workers": 1, "chunk_size": 50}
STOPPED_WITHIN = 5.0          # seconds from the signal to the exit (a busy 2-core machine)


def chunks(out: Path) -> int:
    try:
        return len(json.loads((out / "manifest.json").read_text())["chunks"])
    except (FileNotFoundError, json.JSONDecodeError):
        return 0


MOMENTS = {
    "starting": lambda out, t: t > 0.3,                          # importing ttrsim: no folder yet
    "before the manifest": lambda out, t: (out / "ttrsim.lock").exists(),
    "just after the manifest": lambda out, t: (out / "manifest.json").exists(),
    "after the first chunk": lambda out, t: chunks(out) >= 1,
}


@pytest.fixture
def procs():
    """The `ttrsim run` processes a test started: killed at its end if still running."""
    started = []
    yield started
    for p in started:
        if p.poll() is None:
            p.kill()
            p.wait()


def start(procs: list, tmp_path: Path, out: Path, **kw) -> subprocess.Popen:
    f = tmp_path / "life.yaml"
    f.write_text(json.dumps(dict(EXP, **kw)))
    env = dict(os.environ, TTRSIM_MANIFEST_INTERVAL="0",
               PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    procs.append(subprocess.Popen([sys.executable, "-m", "ttrsim", "run", str(f), "--output", str(out),
                                   "--no-progress"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, env=env))
    return procs[-1]


def wait_for(proc: subprocess.Popen, out: Path, moment: str) -> bool:
    """Wait until ``moment`` (MOMENTS); False when the run ended first."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < 180:
        if MOMENTS[moment](out, time.monotonic() - t0):
            return proc.poll() is None
        if proc.poll() is not None:
            return False
        time.sleep(0.002)
    raise AssertionError(f"{moment} never came")


def parts(path: Path) -> dict:
    return {str(f.relative_to(path)): f.read_bytes() for f in sorted(Path(path).glob("*/part-*.parquet"))}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The tables of an uninterrupted run (made in this process, which also
    fills the compiled-code cache the runs started here load)."""
    r = run_experiment(EXP, output=tmp_path_factory.mktemp("ref") / "ref", progress=False, echo=False)
    return parts(r.path)


def resume_and_compare(out: Path, reference: dict):
    r = run_experiment(EXP, output=out, progress=False, echo=False)
    assert r.status == "complete" and r.games == 2000
    assert parts(out) == reference                      # byte-identical part files
    assert not (out / "ttrsim.lock").exists() and not list(out.rglob("*.tmp"))
    assert all(run["status"] != "running" for run in r.manifest["runs"])


@pytest.mark.parametrize("moment", ["before the manifest", "after the first chunk"])
def test_kill_9_at_any_moment_then_resume_gives_identical_tables(moment, reference, tmp_path, procs):
    out = tmp_path / "out"
    proc = start(procs, tmp_path, out)
    if not wait_for(proc, out, moment):
        pytest.skip(f"the run ended before {moment}")
    proc.kill()
    proc.wait(timeout=30)
    resume_and_compare(out, reference)


@pytest.mark.parametrize("sig, moment", [(signal.SIGTERM, "starting"), (signal.SIGINT, "before the manifest"),
                                         (signal.SIGTERM, "just after the manifest"),
                                         (signal.SIGINT, "after the first chunk")])
def test_a_signal_at_an_early_moment_stops_the_run_at_once(sig, moment, reference, tmp_path, procs):
    out = tmp_path / "out"
    proc = start(procs, tmp_path, out)
    if not wait_for(proc, out, moment):
        pytest.skip(f"the run ended before {moment}")
    os.kill(proc.pid, sig)
    t = time.monotonic()
    rc = proc.wait(timeout=60)
    waited = time.monotonic() - t
    err = proc.stderr.read().decode()
    # 128 + the signal's number; a process still importing Python dies of the signal itself (the same to a shell)
    assert rc in (128 + sig, -sig) if moment == "starting" else rc == 128 + sig, (rc, err)
    assert waited < STOPPED_WITHIN, f"{waited:.1f} s"
    assert "Traceback" not in err, err
    if (out / "manifest.json").exists():
        m = json.loads((out / "manifest.json").read_text())
        assert m["status"] == "interrupted" and m["runs"][-1]["status"] == "interrupted"
    resume_and_compare(out, reference)


@pytest.mark.parametrize("raised, rc", [("Interrupted(15)", 143), ("KeyboardInterrupt()", -signal.SIGINT)])
def test_a_stop_caught_inside_an_import_exits_with_its_own_code(raised, rc, tmp_path):
    # a signal while a module is imported may land in dataclasses' exec of a string; CPython ends a `python -m`
    # process whose plain KeyboardInterrupt escaped such an exec by SIGINT, caught or not: the CLI raises a subclass
    (tmp_path / "stopping.py").write_text("import sys\nfrom ttrsim.experiment.signals import Interrupted\n"
                                          f"try:\n    exec('raise {raised}')\nexcept KeyboardInterrupt:\n"
                                          "    sys.exit(143)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    assert subprocess.run([sys.executable, "-m", "stopping"], cwd=tmp_path, env=env).returncode == rc


@pytest.mark.parametrize("backend", ["local", "dask"])
def test_workers_end_with_their_main_process(backend, reference, tmp_path, procs):
    if backend == "dask":
        pytest.importorskip("distributed")
    out = tmp_path / "out"
    # a local pool of 2 workers; a local Dask cluster of 1 (a nanny and its worker)
    proc = start(procs, tmp_path, out, workers=2 if backend == "local" else 1, backend=backend, games=20000,
                 chunk_size=200)
    if not wait_for(proc, out, "after the first chunk"):
        pytest.skip("the run ended before its first chunk was recorded")
    workers = psutil.Process(proc.pid).children(recursive=True)
    assert len(workers) >= 2
    proc.kill()                                    # the main process only, not its group
    proc.wait(timeout=30)
    _, alive = psutil.wait_procs(workers, timeout=15)
    assert not alive, [(p.pid, p.name()) for p in alive]
