"""A stop signal never lands inside numba or llvmlite (docs/reliability.md):
the run's handler (ttrsim.experiment.runner._Signals) sends it again until the
main thread is out of their code, and ends the process through the run's
``abandon`` when that takes longer than ``GRACE`` seconds (a first compile).
Each case runs in its own process: a busy loop compiled with a file name in
numba's package stands for numba's own code."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    import numba
    from ttrsim.experiment.runner import _Signals
    from ttrsim.experiment.signals import Interrupted

    # a function whose code says it is numba's: busy for SECONDS, then back in ours
    inside = {}
    exec(compile("def busy(t):\\n    import time\\n    t0 = time.monotonic()\\n"
                 "    while time.monotonic() - t0 < t:\\n        sum(range(100))\\n",
                 os.path.join(os.path.dirname(numba.__file__), "fake_loader.py"), "exec"), inside)
    seconds, abandon = float(sys.argv[1]), sys.argv[2] == "abandon"

    def gone(signum):
        print(f"abandoned {signum}", flush=True)
        os._exit(128 + signum)

    with _Signals() as signals:
        signals.GRACE = 1.0
        signals.abandon = gone if abandon else None
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGTERM)).start()
        t0 = time.monotonic()
        try:
            inside["busy"](seconds)
            # one write with its newline: the signal may land between print's text and its end
            sys.stdout.write("out of numba\\n")
            sys.stdout.flush()
            while True:
                sum(range(100))
        except Interrupted as e:
            print(f"interrupted {e.signum} after {time.monotonic() - t0:.1f} s", flush=True)
            sys.exit(128 + e.signum)
""")


def run(seconds: float, mode: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", SCRIPT, str(seconds), mode], capture_output=True, text=True,
                          env=env, timeout=60)


def test_a_signal_inside_numba_lands_once_the_main_thread_is_out_of_it():
    p = run(0.6, "wait")
    assert p.returncode == 143, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "out of numba" and lines[1].startswith("interrupted 15 after "), p.stdout
    assert float(lines[1].split()[3]) >= 0.6          # not raised inside: only after the busy loop ended
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("mode, out", [("abandon", "abandoned 15"), ("wait", "out of numba")])
def test_a_signal_held_up_in_numba_for_long_ends_the_process_through_abandon(mode, out):
    # 4 s inside "numba": with abandon set, the watchdog ends the process after GRACE (1 s here); without it
    # (a program that called run_experiment) the stop waits for the main thread to come out
    p = run(4.0, mode)
    assert p.returncode == 143, p.stderr
    assert p.stdout.splitlines()[0] == out, p.stdout
    assert "Traceback" not in p.stderr
