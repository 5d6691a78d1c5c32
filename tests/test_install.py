"""The package as pip installs it: every subpackage and data file in the wheel,
the metadata, and (marked ``install``: minutes, CI runs it) the README's main
job from the built wheel in a fresh virtualenv.

The fresh virtualenv has no system site-packages, so pip installs the core
dependencies from the package index (its download cache makes a second run
quick); the extras (dask, pandas, scipy) are left out, which checks that the
main job and the report need none of them. The compiled kernels come from
the same cache as this checkout's (the cache folder is keyed by a hash of the
sources, identical in the wheel), so the test times the install, not a cold
compile; ``ttrsim warmup`` in a fresh cache folder times that.
"""
import os
import re
import subprocess
import sys
import tomllib
import venv
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_subpackage_is_packaged():
    """A folder with an __init__.py under ttrsim/ (or strategies/) missing from
    pyproject's package list would be missing from the wheel."""
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {".".join(("ttrsim",) + f.parent.relative_to(ROOT / "ttrsim").parts)
             for f in (ROOT / "ttrsim").rglob("__init__.py")}
    found |= {".".join(("ttrsim", "strategies") + f.parent.relative_to(ROOT / "strategies").parts)
              for f in (ROOT / "strategies").rglob("__init__.py")}
    found |= {"ttrsim.strategies", "ttrsim.examples"}
    assert found <= listed, sorted(found - listed)
    dirs = PYPROJECT["tool"]["setuptools"]["package-dir"]
    assert dirs["ttrsim.strategies"] == "strategies" and dirs["ttrsim.examples"] == "experiments"


def test_the_package_is_typed():
    """PEP 561: ``py.typed`` is in the package and its package data (the wheel
    test below finds it in the wheel)."""
    assert (ROOT / "ttrsim" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["ttrsim"]


def test_metadata_and_extras():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]     # an SPDX expression
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert project["requires-python"] and project["classifiers"] and project["urls"] and project["authors"]
    core = {d.split(">")[0].split("[")[0] for d in project["dependencies"]}
    assert not core & {"pandas", "dask", "scipy", "playwright", "pettingzoo", "gymnasium"}
    assert {"dask", "pandas", "test", "browser", "env"} <= set(project["optional-dependencies"])


def _release(text):
    """``'0.63.0'`` (or ``'0.63.0rc1'``) as ``(0, 63, 0)``; ``()`` for no version."""
    m = re.match(r"\d+(\.\d+)*", text)
    return tuple(int(p) for p in m[0].split(".")) if m else ()


def test_dependency_ranges_are_declared_and_hold_here():
    """Every dependency, core and extra, has a lower bound (``NAME>=LOWER``,
    the form benchmarks/oldest_deps.sh pins to test them all at once); numba
    and llvmlite, whose internals ttrsim/jit uses, and PyYAML, whose libyaml parser ttrsim/data/yamlfile.py
    uses, have an upper bound too, and so does ruff (CI's linter: its rules change between
    minor releases); the installed versions lie in the ranges."""
    project = PYPROJECT["project"]
    deps = project["dependencies"] + [d for extra in project["optional-dependencies"].values() for d in extra]
    ranges = {}
    for dep in deps:
        name, _, spec = dep.replace(" ", "").partition(">=")
        lower, _, upper = spec.partition(",<")
        assert name and _release(lower), f"{dep!r}: expected NAME>=LOWER or NAME>=LOWER,<UPPER"
        ranges[name.split("[")[0].lower()] = (_release(lower), _release(upper) if upper else None)
    assert {n for n, (_, upper) in ranges.items() if upper} == {"numba", "llvmlite", "pyyaml", "ruff"}
    for name in ("numpy", "numba", "llvmlite", "polars", "pyarrow", "click", "pyyaml", "matplotlib", "joblib"):
        lower, upper = ranges[name]
        installed = _release(version(name))
        assert lower <= installed and (upper is None or installed < upper), (name, installed, lower, upper)


def test_import_ttrsim_is_cheap_and_changes_no_numba_setting():
    code = ("import sys, ttrsim, ttrsim.cli; assert 'numba' not in sys.modules, 'numba imported'; "
            "import numba.core.config as c; import ttrsim.core; print(c.CACHE_DIR)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False, text=True, timeout=120,
                         env={k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"})
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == ""                     # numba's own cache folder setting is untouched


@pytest.mark.install
def _build_wheel(folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(ROOT)],
                   check=True, timeout=600)
    return next(folder.glob("ttrsim-*.whl"))


def test_wheel_in_a_fresh_venv_runs_the_quickstart_and_the_report(tmp_path):
    wheel = _build_wheel(tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("ttrsim/examples/quickstart.yaml", "ttrsim/examples/maps/usa.yaml", "ttrsim/data/maps/usa.yaml",
                   "ttrsim/strategies/planner/__init__.py", "ttrsim/report/charts/figures.py", "ttrsim/cli/__init__.py",
                   "ttrsim/examples/train_linear_policy.py", "ttrsim/examples/linear_policy.npz",
                   "ttrsim/examples/train_ppo.py",
                   "ttrsim/env/pettingzoo/usa_v1.py", "ttrsim/py.typed"):
        assert needed in names, needed
    assert not any(n.startswith(("strategies/", "experiments/")) for n in names)

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=False)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)], check=True, timeout=1200)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    work = tmp_path / "work"
    work.mkdir()

    def ttrsim(*args):
        res = subprocess.run([str(bin_dir / "ttrsim"), *args], cwd=work, env=env, capture_output=True,
                             check=False, text=True, timeout=1800)
        assert res.returncode == 0, f"ttrsim {' '.join(args)}:\n{res.stdout}\n{res.stderr}"
        return res

    where = subprocess.run([str(bin_dir / "python"), "-c", "import ttrsim, pandas"], env=env, capture_output=True,
                           check=False, text=True, cwd=work)
    assert "No module named 'pandas'" in where.stderr           # the core install has no pandas
    run = ttrsim("run", "quickstart", "--games", "40", "--workers", "1")
    assert f"results: {work / 'results' / 'quickstart'}" in run.stdout and "planner" in run.stdout
    opened = subprocess.run([str(bin_dir / "python"), "-c", "import ttrsim; t = ttrsim.open('results/quickstart'); "
                             "print(t['players'].collect().height); t.to_pandas('games')"], env=env,
                            capture_output=True, check=False, text=True, cwd=work)
    assert opened.stdout.strip() == "160" and opened.stderr.strip().splitlines()[-1] == (      # 40 games, 4 seats
        "ImportError: to_pandas needs the optional dependency 'pandas': pip install 'ttrsim[pandas]'")
    report = ttrsim("report", "results/quickstart", "--resamples", "20", "--no-svg")
    assert (work / "results" / "quickstart" / "report" / "report.html").is_file(), report.stdout
    assert "quickstart" in ttrsim("examples").stdout
    custom = ttrsim("run", "custom_map", "--games", "5", "--workers", "1")   # its map file ships with it
    assert "results:" in custom.stdout
    ttrsim("examples", "custom_map", "--to", "mine")       # the example's map comes along from the package
    assert sorted(p.name for p in (work / "mine").iterdir()) == ["custom_map.yaml", "usa.yaml"]
    trained = ttrsim("run", "linear_policy", "--games", "6", "--workers", "1")    # its policy and weights ship
    assert "linear" in trained.stdout
    train = subprocess.run([str(bin_dir / "python"), "-m", "ttrsim.examples.train_linear_policy", "--seconds", "5",
                            "--envs", "8", "--batch-games", "4", "--eval-games", "4", "--out", "w.npz"],
                           cwd=work, env=env, capture_output=True, check=False, text=True, timeout=1800)
    assert train.returncode == 0 and "update 5:" in train.stdout, train.stderr   # the packaged script trains
    assert (work / "w.npz").is_file()


@pytest.mark.install
def test_wheel_trains_the_packaged_ppo_example_for_a_few_updates(tmp_path):
    """``ttrsim.examples.train_ppo`` from the wheel runs a few masked-PPO
    updates and writes its curve and policy. The virtualenv sees this
    interpreter's site-packages for PyTorch and sb3-contrib (the ``train``
    extra: a CPU build of PyTorch is several hundred MB, so it is not fetched
    again), but ttrsim itself is the wheel's, installed into the virtualenv."""
    for needed in ("torch", "sb3_contrib", "gymnasium"):
        pytest.importorskip(needed, reason=f"the train extra ({needed}) is not installed here")
    wheel = _build_wheel(tmp_path / "dist")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=True)
    python = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, timeout=600)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    work = tmp_path / "work"
    work.mkdir()
    where = subprocess.run([str(python), "-c", "import ttrsim.examples.train_ppo as t; print(t.__file__)"],
                           cwd=work, env=env, capture_output=True, check=False, text=True)
    assert where.returncode == 0 and where.stdout.strip().startswith(str(env_dir)), (where.stdout, where.stderr)
    train = subprocess.run([str(python), "-m", "ttrsim.examples.train_ppo", "--steps", "512", "--envs", "4",
                            "--n-steps", "64", "--batch-size", "64", "--epochs", "1", "--eval-every", "256",
                            "--eval-pairs", "2", "--final-pairs", "2", "--out", "ppo"],
                           cwd=work, env=env, capture_output=True, check=False, text=True, timeout=1800)
    assert train.returncode == 0, train.stderr
    assert re.search(r"^steps 512 .*vs planner", train.stdout, re.M), train.stdout     # trained 512 steps, evaluated
    assert (work / "ppo" / "policy.zip").is_file()
    curve = (work / "ppo" / "curve.csv").read_text(encoding="utf-8").splitlines()
    assert len(curve) == 1 + 3, curve                      # a header and the evaluations at 0, 256 and 512 steps
