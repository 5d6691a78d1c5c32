"""Every ``>>>`` example in the package runs and gives what it shows.

One case per module of ttrsim, found by walking the packages (no hand-kept
list): the packages are the ones pyproject.toml ships (``[tool.setuptools]
packages``, which tests/test_install.py holds complete), each walked with
``pkgutil`` from its ``__path__`` as imported. A walk of ``ttrsim`` alone
would miss ``ttrsim.strategies`` and ``ttrsim.examples`` where they are not
folders of ttrsim/ (an editable install maps them from the top-level
strategies/ and experiments/ folders), which is also why this is a walk and
not pytest's ``--doctest-modules`` over file paths (a strategies/ file is
not importable by its path's name).

A module whose source holds ``>>>`` must give doctest at least one example:
an example doctest cannot see (in a comment, in a plain string, on an object
of another module) fails here. A module that needs a package of an optional
extra that is not installed is skipped, naming the package (a script of
experiments/ says so itself, exiting with the ``pip install`` line).
"""
import doctest
import importlib
import inspect
import pkgutil
import tomllib

import pytest

from helpers import ROOT

PACKAGES = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]


def modules():
    """Every module of the shipped packages, the packages themselves included."""
    names = set(PACKAGES)
    for package in PACKAGES:
        path = importlib.import_module(package).__path__
        names |= {m.name for m in pkgutil.walk_packages(path, package + ".")}
    return sorted(names)


@pytest.mark.parametrize("name", modules())
def test_docstring_examples(name):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name is None or e.name.split(".")[0] == "ttrsim":
            raise
        pytest.skip(f"{name} needs {e.name} (an optional extra) which is not installed")
    except SystemExit as e:         # a script's import guard: "NAME needs PACKAGE: pip install ..."
        if "pip install" not in str(e):
            raise
        pytest.skip(str(e))
    result = doctest.testmod(module)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
    if ">>>" in inspect.getsource(module):
        assert result.attempted > 0, f"{name} shows '>>>' examples that doctest does not find (not in a docstring?)"
