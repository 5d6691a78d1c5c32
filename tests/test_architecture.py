"""The layers of docs/architecture.md hold: every module imports only from its
own layer or the layers below (imports inside functions count too), and
``import ttrsim`` / the core load no strategy and leave numba's global
configuration alone. Only ``ttrsim.jit``, the bottom layer, reaches into
numba's and llvmlite's internals, and it imports nothing else of ttrsim.
Modules stay small: one over 600 lines says why in its docstring."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# bottom to top; a module may import its own layer and the ones below
LAYERS = ("ttrsim.jit", "ttrsim.data", "ttrsim.core", "ttrsim.results", "ttrsim.strategies", "ttrsim.play", "ttrsim.env",
          "ttrsim.experiment", "ttrsim.tune", "ttrsim.report", "ttrsim.cli")
# beyond the order: what a layer may not import although it lies below
# (the results folder sits on data, and core for one lookup; the report reads results only through it)
FORBIDDEN = {"ttrsim.results": ("ttrsim.strategies", "ttrsim.play", "ttrsim.env", "ttrsim.experiment", "ttrsim.tune"),
             "ttrsim.report": ("ttrsim.play", "ttrsim.env", "ttrsim.experiment", "ttrsim.tune")}
MAX_LINES = 600
# numba's and llvmlite's internals: imported by ttrsim.jit only
NUMBA_INTERNALS = ("numba.core", "numba.extending", "numba.experimental", "llvmlite")


def modules():
    """(module name, path) of every module of the package, strategies included."""
    out = []
    for base, prefix in ((ROOT / "ttrsim", "ttrsim"), (ROOT / "strategies", "ttrsim.strategies")):
        for f in sorted(base.rglob("*.py")):
            parts = list(f.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out.append((".".join([prefix] + parts), f))
    return out


def layer(name: str) -> int | None:
    """The rank of module ``name`` (None: the package face ``ttrsim``, ``ttrsim.__main__``)."""
    if name == "ttrsim.__main__":
        return len(LAYERS) - 1
    for i, top in enumerate(LAYERS):
        if name == top or name.startswith(top + "."):
            return i
    return None


def imported(name: str, path: Path):
    """Absolute names of the ttrsim modules ``path`` imports, with line numbers."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("ttrsim"):
                    yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("ttrsim"):
                continue
            for a in node.names:            # "from ttrsim.x import y" may name a submodule y
                yield (f"{mod}.{a.name}" if layer(f"{mod}.{a.name}") is not None and mod in LAYERS
                       or mod == "ttrsim" else mod), node.lineno


def test_every_module_has_a_layer():
    unplaced = [n for n, _ in modules() if layer(n) is None and n != "ttrsim"]
    assert not unplaced, unplaced


def test_no_module_imports_upward():
    upward = []
    for name, path in modules():
        mine = layer(name)
        for target, line in imported(name, path):
            theirs = layer(target)
            if mine is not None and theirs is not None and theirs > mine:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {name} ({LAYERS[mine]}) imports {target} "
                              f"({LAYERS[theirs]})")
    assert not upward, "\n".join(upward)


@pytest.mark.parametrize("top", sorted(FORBIDDEN))
def test_results_and_report_import_only_what_they_read(top):
    """``ttrsim.results`` imports only ``ttrsim.data`` (and ``ttrsim.core``);
    ``ttrsim.report`` reads a folder only through ``ttrsim.results`` and imports
    nothing of the experiment, the game loops, the environments or tune."""
    found = []
    for name, path in modules():
        if name != top and not name.startswith(top + "."):
            continue
        for target, line in imported(name, path):
            bad = [f for f in FORBIDDEN[top] if target == f or target.startswith(f + ".")]
            if bad:
                found.append(f"{path.relative_to(ROOT)}:{line}: {name} imports {target}")
    assert not found, "\n".join(found)


def _third_party_imports(path: Path):
    """Absolute names of the modules ``path`` imports that are not ttrsim's, with line numbers."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.module, node.lineno
            for a in node.names:                  # "from numba import extending"
                yield f"{node.module}.{a.name}", node.lineno


def test_only_jit_reaches_into_numba():
    """numba's and llvmlite's internals (:data:`NUMBA_INTERNALS`) are
    imported by ``ttrsim.jit`` only; ``ttrsim.jit`` imports nothing else of
    ttrsim (the layer test allows nothing below it either)."""
    outside = []
    for name, path in modules():
        if layer(name) == 0:
            outside += [f"{path.relative_to(ROOT)}:{line}: {target}" for target, line in imported(name, path)
                        if not target.startswith("ttrsim.jit")]
            continue
        for target, line in _third_party_imports(path):
            if any(target == m or target.startswith(m + ".") for m in NUMBA_INTERNALS):
                outside.append(f"{path.relative_to(ROOT)}:{line}: {name} imports {target}")
    assert not outside, "\n".join(outside)


def test_the_package_face_imports_no_layer():
    """``ttrsim/__init__.py`` imports nothing of the layers (``import ttrsim`` is cheap)."""
    init = dict(modules())["ttrsim"]
    assert list(imported("ttrsim", init)) == []


def test_import_ttrsim_and_core_load_no_strategy_and_keep_numba_config():
    code = ("import sys, numba; before = numba.config.CACHE_DIR\n"
            "import ttrsim\n"
            "assert 'numba.core.caching' not in sys.modules or True\n"
            "import ttrsim.core.engine, ttrsim.play.game\n"
            "assert not [m for m in sys.modules if m.startswith('ttrsim.strategies')], 'a strategy was loaded'\n"
            "assert numba.config.CACHE_DIR == before, 'numba.config.CACHE_DIR changed'\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize("name,path", [m for m in modules() if m[1].suffix == ".py"], ids=lambda v: str(v))
def test_modules_stay_small_or_say_why(name, path):
    """A module over 600 lines states why in its docstring ("Size: ...")."""
    text = path.read_text(encoding="utf-8")
    if text.count("\n") <= MAX_LINES:
        return
    doc = ast.get_docstring(ast.parse(text)) or ""
    assert "Size:" in doc, f"{path.relative_to(ROOT)} has {text.count(chr(10))} lines and no 'Size:' reason"


# inside ttrsim.strategies: the shared kit sits below the strategies, and search (which plays the
# planner out) above them; only the registry face and kit.dispatch (the call to every kernel) see them all
STRATEGY_FLOORS = (("ttrsim.strategies.spec", "ttrsim.strategies.fitted", "ttrsim.strategies.kit"),
                   ("ttrsim.strategies.planner", "ttrsim.strategies.published", "ttrsim.strategies.greedy",
                    "ttrsim.strategies.random_strategy", "ttrsim.strategies.python_example"),
                   ("ttrsim.strategies.search",))


def strategy_floor(name: str) -> int | None:
    if name == "ttrsim.strategies.kit.dispatch":
        return None
    for i, tops in enumerate(STRATEGY_FLOORS):
        if any(name == top or name.startswith(top + ".") for top in tops):
            return i
    return None


def test_strategy_packages_import_downward():
    """kit imports no strategy; the strategies import no search; nothing but the
    face and kit.dispatch imports the face (``ttrsim.strategies`` itself)."""
    upward = []
    known = {n for n, _ in modules()}
    for name, path in modules():
        mine = strategy_floor(name)
        if mine is None:
            continue
        for target, line in imported(name, path):
            target = target if target in known else target.rsplit(".", 1)[0]    # a name, not a module
            theirs = strategy_floor(target)
            if target == "ttrsim.strategies" or theirs is not None and theirs > mine:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {name} imports {target}")
    assert not upward, "\n".join(upward)
