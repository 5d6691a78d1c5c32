"""The catalogues of bad files (tests/bad_experiments/, tests/bad_tunes/): each
file's first line ``# expect: MESSAGE`` is its exact one-line error, with
``{here}`` for the catalogue's folder and ``{cwd}`` for the folder the command
starts in; :func:`snapshot` tells that nothing was written."""
from pathlib import Path


def expected(path: Path, cwd: Path) -> str:
    """The message the first line of ``path`` expects."""
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name}: first line must be '# expect: MESSAGE'"
    return first[len("# expect: "):].replace("{here}", str(path.parent)).replace("{cwd}", str(cwd))


def snapshot(root: Path):
    """Every path under ``root`` with its size."""
    return sorted((str(p.relative_to(root)), p.stat().st_size) for p in root.rglob("*"))
