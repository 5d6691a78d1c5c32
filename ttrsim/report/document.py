"""The report document: a results folder turned into Markdown, HTML, CSV and charts.

:func:`build_report` reads a results folder (``ttrsim run`` output) through
:class:`ttrsim.report.dataset.Results`, computes every statistic of the
statistics library once (all sweep points together), and writes::

    <results>/report/            (or ``output``)
      report.md                  the report; charts linked from charts/
      report.html                the same, self-contained (charts embedded as PNG, tables as CSV links)
      tables/<name>.csv          every table, whole (all sweep points)
      charts/<name>.png, .svg    every chart
      report.json                index of the files written (a rebuild deletes the old ones)

It opens with the key findings, written from the numbers once every section
is computed (``sections.findings``). Its parts and sections, with the statistics
each computes and the function writing it, are listed in
``ttrsim.report.contents``: strategy comparison, tickets, route claims
(skipped with a note without a turn log), passengers (maps with
passengers), sweeps (when the experiment has a sweep).
Every chart has a caption saying what it shows and from how many games. The
document is a list of blocks (``blocks``), rendered by ``render``. See
``docs/reports.md``.

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4, "seed": 1,
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> rep = build_report(path, formats=("md",), progress=False)
>>> rep.markdown.relative_to(path).as_posix(), rep.html       # report.html too by default
('report/report.md', None)
>>> tmp.cleanup()
"""
from __future__ import annotations

import datetime as _dt
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from . import render
from .blocks import Note
from .contents import CONTENTS, Part
from .context import Context
from .dataset import Results
from .sections.findings import findings
from .sections.header import details, header

__all__ = ["build_report", "Report", "ReportWriteError", "FORMATS", "IMAGES", "MAX_RESAMPLES"]

FORMATS = ("md", "html")
IMAGE_KINDS = ("png", "svg")
IMAGES = ("png",)            # the default; SVG is opt-in: images=("png", "svg"), `ttrsim report --svg`
MAX_POINT_CHARTS = 4     # sweep points that get their own per-point charts (the balance charts cover all)
# the ratings' bootstrap resamples at most (each holds 2 x strategies^2 floats; `ttrsim report --resamples` agrees)
MAX_RESAMPLES = 100_000
MAX_EMBEDDED = 8_000_000  # bytes of CSV tables report.html carries as download links (beyond: a note)


@dataclass
class Report:
    """What :func:`build_report` wrote."""
    folder: Path
    markdown: Path | None
    html: Path | None
    tables: list[Path] = field(default_factory=list)
    charts: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)   # statistics that could not be computed
    seconds: float = 0.0
    resamples: int = 0                                   # the block-bootstrap resamples of the ratings' intervals

    @property
    def main(self) -> Path:
        """The report file to open: report.html, else report.md."""
        return self.html or self.markdown


def build_report(path, output=None, formats=FORMATS, images=IMAGES, resamples: int = 1000,
                 progress: bool = True, max_point_charts: int = MAX_POINT_CHARTS) -> Report:
    """Write the report of the results folder ``path`` into ``output``
    (default ``<path>/report``): report.md and/or report.html (``formats``),
    tables/*.csv, charts/*.png and/or *.svg (``images``). ``resamples``: the
    block-bootstrap resamples of the ratings' intervals, 10 to
    :data:`MAX_RESAMPLES` (the rates' intervals are Wilson intervals, no
    resampling). ``progress``: a progress bar
    on stderr. Raises ``ResultsError`` (a ValueError) for a folder that is not
    a results folder, ValueError for a bad option and :class:`ReportWriteError`
    (a ValueError, one line) when a file cannot be written (a full disk, a
    read-only folder), after removing the files it wrote; returns a
    :class:`Report`."""
    t0 = time.perf_counter()
    formats = _choices("format", formats, FORMATS)
    images = _choices("image", images, IMAGE_KINDS, allow_empty=True)
    if not isinstance(resamples, int) or isinstance(resamples, bool) or not 10 <= resamples <= MAX_RESAMPLES:
        raise ValueError(f"resamples must be an integer from 10 to {MAX_RESAMPLES:,}, got {resamples!r}")
    res = Results.open(path)
    # a folder at a URL: the report is written here (report-<name>)
    out = Path(output) if output is not None else \
        res.path / "report" if isinstance(res.path, Path) else Path(f"report-{res.name}")
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out}: exists and is not a folder; expected a folder for the report")
    made = [d for d in (out, *out.parents) if not d.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
        _clean_previous(out)
    except OSError as e:
        _remove_written([], made)
        raise ReportWriteError(out, e) from None
    ctx = Context(res, out, formats, images, resamples, max_point_charts)
    made += [out / d for d in ("charts", "tables") if not (out / d).exists()]
    try:
        return _build(ctx, res, formats, progress, t0)
    except OSError as e:
        _remove_written(ctx.written + [out / "report.json"], made)
        raise ReportWriteError(out, e, ctx.written[-1] if ctx.written else None) from None


class ReportWriteError(ValueError):
    """A report that could not be written (a full disk, a read-only folder),
    as one line naming the file; the files it had written were removed."""

    def __init__(self, out: Path, e: OSError, file: Path | None = None):
        name = e.filename or file or out
        removed = " (the report's files written so far were removed)" if file is not None else ""
        super().__init__(f"{out}: cannot write {name} ({e.strerror or e}); expected a writable report folder "
                         f"with free space{removed}")


def _remove_written(files: list[Path], folders: list[Path]):
    """Delete the files a failed build wrote, then the folders it made (when empty)."""
    for f in files:
        try:
            f.unlink(missing_ok=True)
        except OSError:
            pass
    for d in sorted(folders, key=lambda d: len(d.parts), reverse=True):
        try:
            d.rmdir()
        except OSError:
            pass


def _build(ctx: Context, res: Results, formats: tuple, progress: bool, t0: float) -> Report:
    """The report's parts, tables and documents, written into ``ctx.out``."""
    out = ctx.out
    parts = [part for part in CONTENTS if part.shown is None or part.shown(ctx)]
    bar = None
    if progress:
        from tqdm.auto import tqdm
        steps = sum(len(s.stats) > 0 for part in parts for s in part.sections) + 1
        bar = tqdm(total=steps, desc="report", unit="step", file=sys.stderr, leave=False,
                   bar_format="{desc:<24} {bar} {n_fmt}/{total_fmt} [{elapsed}]")
    try:
        header(ctx)
        mark = len(ctx.doc.blocks)
        details(ctx)
        for part in parts:
            _write_part(ctx, part, bar)
        ctx.doc.insert(mark, findings(ctx))
        if ctx.problems:
            ctx.doc.h(2, "Problems", anchor="problems")
            ctx.doc.bullets([f"`{p}`" for p in ctx.problems])
        if bar is not None:
            bar.set_description_str("writing")
        tables = _write_tables(ctx)
        attachments, size = _attachments(tables)
        if "html" in formats and not attachments and tables:
            ctx.doc.insert(mark, [Note(f"The CSV tables ({size / 1e6:.0f} MB) are too large to travel inside "
                                       "report.html: they are in the `tables/` folder next to it.")])
        md = html = None
        if "md" in formats:
            md = out / "report.md"
            ctx.write(md, render.markdown(ctx.doc))
        if "html" in formats:
            html = out / "report.html"
            ctx.write(html, render.html(ctx.doc, f"ttrsim report: {res.name}", attachments))
        if bar is not None:
            bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    written = [p for p in (md, html) if p] + tables + ctx.chart_files
    ctx.write(out / "report.json", json.dumps({
        "results": str(res.path), "games": res.n_games, "resamples": ctx.resamples, "written": _dt.datetime.now().isoformat(timespec="seconds"),
        "files": [str(p.relative_to(out)) for p in written], "problems": ctx.problems}, indent=1))
    return Report(folder=out, markdown=md, html=html, tables=tables, charts=ctx.chart_files,
                  problems=ctx.problems, seconds=time.perf_counter() - t0, resamples=ctx.resamples)


def _write_part(ctx: Context, part: Part, bar):
    """The part's heading, then each section: its statistics, its heading, its text, tables and charts."""
    ctx.doc.h(2, part.title)
    note = part.skipped(ctx) if part.skipped is not None else None
    if note:
        ctx.doc.note(note)
        return
    for section in part.sections:
        if bar is not None and section.stats:
            bar.set_description_str((section.title or part.title).lower())
        frames = {s.name: s.compute(ctx) for s in section.stats}
        if section.title:
            ctx.doc.h(3, section.title)
        section.write(ctx, frames)
        if bar is not None and section.stats:
            bar.update(1)


def _write_tables(ctx: Context) -> list[Path]:
    """Every table as tables/<name>.csv, with the swept values next to its point; the files written."""
    tdir = ctx.out / "tables"
    tdir.mkdir(parents=True, exist_ok=True)
    files = []
    for name, df in ctx.tables.items():
        f = tdir / f"{name}.csv"
        out = df
        if ctx.sweep and "point" in df.columns and name not in ("points", "swept_win_rates") \
                and not any(k in df.columns for k in ctx.sweep):
            out = df.join(ctx.points, on="point", how="left")
        out = out.with_columns([pl.col(c).cast(pl.String) for c, t in out.schema.items()
                                if t in (pl.Categorical,) or isinstance(t, (pl.Enum, pl.List, pl.Struct))])
        ctx.write(f, out.write_csv())
        files.append(f)
    return files


def _attachments(tables: list[Path]) -> tuple[dict, int]:
    """The CSV tables report.html carries (link target -> bytes): all of them up to
    MAX_EMBEDDED bytes together, else none; and their size in bytes."""
    files = {f"tables/{f.name}": f.read_bytes() for f in tables}
    size = sum(len(b) for b in files.values())
    return (files if size <= MAX_EMBEDDED else {}), size


def _clean_previous(out: Path):
    """Delete the files a previous report in ``out`` listed in its report.json."""
    index = out / "report.json"
    if not index.is_file():
        return
    try:
        files = json.loads(index.read_text()).get("files", [])
    except (ValueError, AttributeError):
        return
    for rel in files:
        f = (out / rel).resolve()
        if out.resolve() in f.parents and f.is_file():
            f.unlink()


def _choices(what: str, values, allowed, allow_empty: bool = False) -> tuple:
    if isinstance(values, str):
        values = [v.strip() for v in values.split(",") if v.strip()]
    values = tuple(dict.fromkeys(values))
    bad = [v for v in values if v not in allowed]
    if bad:
        raise ValueError(f"unknown {what} '{bad[0]}'; expected {', '.join(allowed)}")
    if not values and not allow_empty:
        raise ValueError(f"no {what} chosen; expected one or more of {', '.join(allowed)}")
    return values
