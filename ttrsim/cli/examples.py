"""The packaged example experiments: the repository's ``experiments/`` folder,
installed as ``ttrsim.examples``. ``ttrsim run NAME`` runs one by name,
``ttrsim examples`` lists them and copies one into a folder to edit.

>>> "quickstart" in example_names()
True
>>> resolve_experiment("quickstart.yaml").name
'quickstart.yaml'
"""
from __future__ import annotations

import difflib
import importlib.util
import re
from pathlib import Path

import click
from click.shell_completion import CompletionItem

_MAP_LINE = re.compile(r"^(map:\s*)(\S+\.ya?ml)\b", re.MULTILINE)
# what an example's lineup may need beside it: the module of a {python: "module:Class"} entry,
# a data file named in its params (a policy's weights)
_PY_MODULE = re.compile(r"""python:\s*["']?([A-Za-z_]\w*):""")
_DATA_FILE = re.compile(r"""(?<![\w./-])([\w-]+\.(?:npz|npy|json|csv))\b""")


def examples_dir() -> Path:
    """The folder of the packaged examples."""
    spec = importlib.util.find_spec("ttrsim.examples")
    return Path(next(iter(spec.submodule_search_locations)))


def example_names() -> list[str]:
    """The packaged experiments (the tune files ``tune_*.yaml`` are :func:`tune_example_names`)."""
    return sorted(p.stem for p in examples_dir().glob("*.yaml") if not p.stem.startswith(TUNE_PREFIX))


TUNE_PREFIX = "tune_"


def tune_example_names() -> list[str]:
    """The packaged tune files (``ttrsim tune NAME``)."""
    return sorted(p.stem for p in examples_dir().glob(f"{TUNE_PREFIX}*.yaml"))


def example_info(name: str) -> dict:
    """``name``, ``path`` and ``title`` (the first line of its header comment) of a packaged example."""
    path = examples_dir() / f"{name}.yaml"
    title = next((line.lstrip("# ").strip() for line in path.read_text(encoding="utf-8").splitlines()
                  if line.startswith("#") and line.lstrip("# ").strip()), "")
    return {"name": name, "path": path, "title": title}


def resolve_experiment(value: str) -> Path | None:
    """An experiment file: ``value`` if it is a file, else the packaged example
    of that name (with or without ``.yaml``); None if neither."""
    p = Path(value)
    if p.is_file():
        return p
    name = p.name.removesuffix(".yaml")
    if p.parent == Path(".") or p.parent == Path("experiments"):
        packaged = examples_dir() / f"{name}.yaml"
        if packaged.is_file():
            return packaged
    return None


def _unknown(value: str) -> str:
    close = difflib.get_close_matches(Path(value).stem, example_names(), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f"{hint} (`ttrsim examples` lists the examples)"


class ExperimentFile(click.ParamType):
    """An experiment YAML file or the name of a packaged example (completed by the shell)."""
    name = "FILE|EXAMPLE"

    def convert(self, value, param, ctx):
        found = resolve_experiment(value)
        if found is None:
            self.fail(f"no experiment file or packaged example '{value}'{_unknown(value)}", param, ctx)
        return str(found)

    def shell_complete(self, ctx, param, incomplete):
        names = [CompletionItem(n) for n in example_names() if n.startswith(incomplete)]
        return names + [CompletionItem(incomplete, type="file")]


class ExampleName(click.ParamType):
    """The name of a packaged example (``.yaml`` may follow)."""
    name = "NAME"

    def convert(self, value, param, ctx):
        name = value.removesuffix(".yaml")
        if name not in example_names():
            self.fail(f"no packaged example '{value}'{_unknown(value)}", param, ctx)
        return name

    def shell_complete(self, ctx, param, incomplete):
        return [CompletionItem(n) for n in example_names() if n.startswith(incomplete)]


def _map_of(source: Path, value: str) -> Path | None:
    """The map file an example names by a relative path: beside it in the
    repository (``experiments/../ttrsim/data/maps/``), else the packaged map of
    that file name (an installed package has no repository layout)."""
    if Path(value).is_absolute():
        return None
    from ttrsim.data.maps import MAPS_DIR
    for candidate in (source.parent / value, Path(MAPS_DIR) / Path(value).name):
        if candidate.is_file():
            return candidate
    return None


def copy_example(name: str, folder: Path, force: bool = False) -> list[Path]:
    """Copy the packaged example ``name`` into ``folder``; a map file it names
    by a relative path is copied beside it (and the ``map:`` line points at
    the copy), and so are the files its lineup needs (:func:`_companions`: a
    policy's module and weights). Returns the files written; refuses to
    overwrite unless ``force``."""
    source = examples_dir() / f"{name}.yaml"
    text = source.read_text(encoding="utf-8")
    files = {folder / source.name: text}
    m = _MAP_LINE.search(text)
    map_file = _map_of(source, m.group(2)) if m else None
    if map_file is not None:
        files[folder / source.name] = text[:m.start(2)] + map_file.name + text[m.end(2):]
        files[folder / map_file.name] = map_file.read_text(encoding="utf-8")
    for companion in _companions(source, text):
        files[folder / companion] = (source.parent / companion).read_bytes()
    existing = [p for p in files if p.exists()]
    if existing and not force:
        raise click.ClickException(f"{existing[0]} exists; expected a new file (use --force to overwrite)")
    folder.mkdir(parents=True, exist_ok=True)
    for path, content in files.items():
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return list(files)


def _companions(source: Path, text: str) -> list[str]:
    """The files beside example ``source`` its lineup needs: the Python
    module of a ``{python: "module:Class"}`` entry (``module.py``) and the
    data files its text names (``linear_policy.npz``), those that exist."""
    names = [f"{m}.py" for m in _PY_MODULE.findall(text)] + _DATA_FILE.findall(text)
    return [n for n in dict.fromkeys(names) if (source.parent / n).is_file()]

