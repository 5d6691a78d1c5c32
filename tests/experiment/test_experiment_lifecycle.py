"""A run's whole life in a real `ttrsim run` process (docs/reliability.md):
kill -9 at several moments, from before the manifest exists to after the first
chunk, then a resume gives part files byte-identical to an uninterrupted run;
SIGINT or SIGTERM at several early moments stop the run within seconds with
exit code 130 or 143 and a resumable folder; so do SIGINT and SIGTERM sent to
the main process alone at moments spread over the first chunks of a local
pool (the pool starting, the loop loading, chunks in the workers, results on
their way back), each within seconds, in one line, leaving no process; the
workers of a run whose main process is killed with kill -9 end with it, on
the local pool and on a local Dask cluster. Each process runs a small
experiment (2,000 short games; the pool's: 30,000 in chunks of 1,000, so
that chunks are in flight for seconds)."""
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

ROOT = Path(__file__).resolve().parents[2]
EXP = {"name": "life", "players": 2, "lineup": ["random", "route_focus"], "games": 2000, "seed": 11, "log": True,
       "workers": 1, "chunk_size": 50}
# seconds from a signal to the exit: a generous bound that only tells a stop from a hang (a stop takes about a
# second; the interpreter's own teardown after it took up to 4 s on a 2-core machine at load 11)
STOPPED_WITHIN = 10.0


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
    # SIGINT as a terminal gives it (a shell starting the tests in the background hands its children SIGINT
    # ignored, and a process still importing Python keeps that until ttrsim sets its own handler)
    procs.append(subprocess.Popen([sys.executable, "-m", "ttrsim", "run", str(f), "--output", str(out),
                                   "--no-progress"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, env=env,
                                  preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)))
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


@pytest.mark.parametrize("sig, moment", [(signal.SIGTERM, "starting"), (signal.SIGINT, "starting"),
                                         (signal.SIGINT, "before the manifest"),
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


def test_a_stop_swallowed_by_a_callback_still_ends_the_command(tmp_path):
    """A signal handled inside a callback whose exceptions Python ignores (here a weakref callback; in CI
    it was the import system's module-lock cleanup) prints the SystemExit as "ignored"; the command's
    handler (ttrsim.__main__) still ends the process with 128 + the signal, by its watchdog, in seconds."""
    (tmp_path / "swallowed.py").write_text(
        "import os, signal, time, weakref\nfrom ttrsim.__main__ import _stop\n"
        "signal.signal(signal.SIGINT, _stop)\nclass A: pass\na = A()\n"
        "r = weakref.ref(a, lambda _: os.kill(os.getpid(), signal.SIGINT))\ndel a\ntime.sleep(30)\nprint('went on')\n")
    p = subprocess.run([sys.executable, str(tmp_path / "swallowed.py")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 130 and "went on" not in p.stdout and "ignored" in p.stderr     # not the 30 s sleep


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


# ---- a stop signal to the main process alone while the first chunks run on a local pool of 2 workers

POOL_EXP = dict(EXP, workers=2, games=30000, chunk_size=1000)


@pytest.fixture(scope="module")
def pool_reference(tmp_path_factory):
    """The part files of an uninterrupted run of POOL_EXP (in this process)."""
    r = run_experiment(POOL_EXP, output=tmp_path_factory.mktemp("pool") / "ref", progress=False, echo=False)
    return parts(r.path)


def descendants(proc: subprocess.Popen, seen: dict) -> None:
    """Add the processes under ``proc`` now to ``seen`` (pid -> psutil.Process)."""
    try:
        for p in psutil.Process(proc.pid).children(recursive=True):
            seen.setdefault(p.pid, p)
    except psutil.NoSuchProcess:
        pass


def signal_and_check(proc: subprocess.Popen, sig: int, seen: dict, out: Path, group: bool = False) -> list[str]:
    """Send ``sig`` (to the main process alone, or its group), then check the
    stop: the exit code, one line, no process of the run left; returns the
    stderr lines."""
    assert proc.poll() is None, "the run ended before the signal: give it more games"
    descendants(proc, seen)
    (os.killpg if group else os.kill)(proc.pid, sig)
    t = time.monotonic()
    while proc.poll() is None and time.monotonic() - t < STOPPED_WITHIN:
        descendants(proc, seen)           # also a worker started as the signal came
        time.sleep(0.01)
    assert proc.poll() is not None, f"no exit {STOPPED_WITHIN:g} s after the signal: hung"
    lines = proc.stderr.read().decode().splitlines()
    assert proc.returncode == 128 + sig, "\n".join([f"exit code {proc.returncode}"] + lines)
    assert len(lines) <= 2 and lines[-1].startswith("interrupted: "), "\n".join(lines)  # no traceback, no Aborted!
    # the workers, and loky's resource trackers once this process is gone (they read its pipe to the end)
    _, alive = psutil.wait_procs(list(seen.values()), timeout=STOPPED_WITHIN)
    assert not alive, [(p.pid, p.name()) for p in alive]
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "interrupted" and m["runs"][-1]["status"] == "interrupted"
    return lines


def start_pool_run(procs: list, tmp_path: Path, out: Path) -> subprocess.Popen:
    f = tmp_path / "pool.yaml"
    f.write_text(json.dumps(POOL_EXP))
    env = dict(os.environ, TTRSIM_MANIFEST_INTERVAL="0",
               PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    procs.append(subprocess.Popen([sys.executable, "-m", "ttrsim", "run", str(f), "--output", str(out),
                                   "--no-progress"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, env=env, start_new_session=True))
    return procs[-1]


def wait_until(proc: subprocess.Popen, seen: dict, ready, what: str) -> None:
    t0 = time.monotonic()
    while not ready():
        assert proc.poll() is None, f"the run ended before {what}: {proc.stderr.read().decode()}"
        assert time.monotonic() - t0 < 180, f"{what} never came"
        descendants(proc, seen)
        time.sleep(0.002)


# seconds after manifest.json appears: the pool starting (0-0.3 s), the workers importing while this process
# loads the loop (0.8 s), the first chunks in the workers (1.5-2.5 s on a 2-core machine); or after the first
# chunk is recorded (more chunks in flight, results on their way back)
STOP_MOMENTS = [(signal.SIGTERM, 0.0), (signal.SIGINT, 0.1), (signal.SIGTERM, 0.3), (signal.SIGINT, 0.8),
                (signal.SIGTERM, 1.5), (signal.SIGINT, 2.0), (signal.SIGTERM, 2.5), (signal.SIGINT, "first chunk")]


@pytest.mark.parametrize("sig, moment", STOP_MOMENTS,
                         ids=[f"{signal.Signals(s).name}-{m}" for s, m in STOP_MOMENTS])
def test_a_signal_to_the_main_process_while_the_first_chunks_run(sig, moment, pool_reference, tmp_path, procs):
    out, seen = tmp_path / "out", {}
    proc = start_pool_run(procs, tmp_path, out)
    wait_until(proc, seen, lambda: (out / "manifest.json").exists(), "its manifest")
    if moment == "first chunk":
        wait_until(proc, seen, lambda: chunks(out) >= 1, "its first chunk")
    else:
        t = time.monotonic()
        wait_until(proc, seen, lambda: time.monotonic() - t >= moment, f"{moment} s after its manifest")
    signal_and_check(proc, sig, seen, out)
    r = run_experiment(POOL_EXP, output=out, progress=False, echo=False)
    assert r.status == "complete" and parts(out) == pool_reference        # byte-identical part files
    assert not (out / "ttrsim.lock").exists() and not list(out.rglob("*.tmp"))


def test_ctrl_c_in_a_terminal_stops_the_run_and_not_the_workers_one_by_one(pool_reference, tmp_path, procs):
    # a terminal's Ctrl-C reaches the whole process group: the workers ignore it (no traceback of theirs), the
    # main process stops the run and ends them
    out, seen = tmp_path / "out", {}
    proc = start_pool_run(procs, tmp_path, out)
    wait_until(proc, seen, lambda: chunks(out) >= 1, "its first chunk")
    signal_and_check(proc, signal.SIGINT, seen, out, group=True)
    r = run_experiment(POOL_EXP, output=out, progress=False, echo=False)
    assert r.status == "complete" and parts(out) == pool_reference
