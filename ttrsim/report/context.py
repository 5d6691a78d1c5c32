"""What every section of the report is written with: the results, the
document being built, the tables computed so far, and the helpers for
statistics (a failure becomes a note, not a lost report), charts (saved as
PNG/SVG and numbered), captions (what a chart shows, from how many games) and
sweep points (labels, per-point rows, the swept values next to every table).

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4, "seed": 1,
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> res = Results.open(path)
>>> ctx = Context(res, res.path / "report", ("md",), ("png",), 1000, 4)
>>> ctx.caption("Win rate per strategy", 0)
'Win rate per strategy. From 4 games; doc, usa, 2 players.'
>>> tmp.cleanup()
"""
from __future__ import annotations

import io
from pathlib import Path

import matplotlib
import polars as pl

from ttrsim.results.stats import distinct_games

from .blocks import Chart, Document, make_table
from .charts import strategy_colours
from .dataset import Results, ResultsError

__all__ = ["Context", "PNG_DPI"]

PNG_DPI = 110


class Context:
    """The report being built from ``res`` into the folder ``out`` (the options of
    :func:`~ttrsim.report.document.build_report`)."""

    def __init__(self, res: Results, out: Path, formats: tuple, images: tuple, resamples: int,
                 max_point_charts: int):
        self.res = res
        self.out = out
        self.formats = formats
        self.images = images
        self.resamples = resamples
        self.max_point_charts = max_point_charts
        self.doc = Document()
        self.tables: dict[str, pl.DataFrame] = {}      # name -> the whole table, written as tables/<name>.csv
        self.chart_files: list[Path] = []
        self.written: list[Path] = []                  # every file written (or begun), for a failed build to remove
        self.problems: list[str] = []                  # statistics that could not be computed
        self.colours = strategy_colours(res.labels)
        self.points = res.points
        self.point_ids: list[int] = [int(p) for p in self.points["point"].to_list()]
        dg = distinct_games(res)
        self.games = {int(p): int(g) for p, g in zip(dg["point"].to_list(), dg["games"].to_list())}
        self.distinct = {int(p): int(g) for p, g in zip(dg["point"].to_list(), dg["distinct"].to_list())}
        self.sweep = list(res.sweep_keys)

    # ---- statistics
    def stat(self, name: str, fn, **kw) -> pl.DataFrame | None:
        """``fn(res, **kw)`` kept as table ``name``; a failure is recorded in ``problems`` and gives None."""
        try:
            df = fn(self.res, **kw)
        except ResultsError as e:
            self.problems.append(f"{name}: {e}")
            return None
        except Exception as e:  # a broken statistic must not lose the whole report
            self.problems.append(f"{name}: {type(e).__name__}: {e}")
            return None
        self.tables[name] = df
        return df

    def csv(self, name: str) -> str:
        return f"tables/{name}.csv"

    def failed(self, name: str):
        """A note in place of a statistic that could not be computed."""
        # a statistic with no recorded problem was left out (``Stat.needs_turns``) for want of a turn log
        unmeasured = "not computed" if self.res.has_turns else \
            "it needs the turn log, which these results do not have (run the experiment with `log: true`)"
        msg = next((p for p in self.problems if p.startswith(name + ":")), f"{name}: {unmeasured}")
        self.doc.note(f"Could not compute {name.replace('_', ' ')}: {msg.split(': ', 1)[-1]}")

    # ---- files
    def write(self, path: Path, data: bytes | str):
        """Write one file of the report (text as UTF-8), recorded in ``written``
        before it is begun, so a build that fails removes it whole or half."""
        self.written.append(path)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)

    # ---- charts
    def chart(self, name: str, fig, caption: str):
        """Save ``fig`` as charts/<name>.png/.svg (the chosen images) and add it to the document."""
        c = Chart(name=name, caption=caption)
        (self.out / "charts").mkdir(parents=True, exist_ok=True)
        if "png" in self.images or "html" in self.formats:
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=PNG_DPI)
            c.png = buf.getvalue()
            if "png" in self.images:
                f = self.out / "charts" / f"{name}.png"
                self.write(f, c.png)
                c.files["png"] = f"charts/{name}.png"
                self.chart_files.append(f)
        if "svg" in self.images:
            buf = io.StringIO()
            with matplotlib.rc_context({"svg.fonttype": "none"}):    # text stays text: smaller, searchable
                fig.savefig(buf, format="svg")
            c.svg = buf.getvalue()
            f = self.out / "charts" / f"{name}.svg"
            self.write(f, c.svg)
            c.files["svg"] = f"charts/{name}.svg"
            self.chart_files.append(f)
        self.doc.chart(c)
        fig.clear()

    # ---- captions and sweep points
    def point_label(self, p: int) -> str:
        """'point 2: globetrotter_points=10, ...' in a sweep, else ''."""
        if not self.sweep:
            return ""
        row = self.points.filter(pl.col("point") == p).row(0, named=True)
        return f"point {p}: " + ", ".join(f"{k.split('.')[-1]}={row[k]}" for k in self.sweep)

    def games_text(self, p: int | None = None) -> str:
        """'20,000 games', or '6,000 distinct games (24,000 played)' when games replay one another."""
        n = self.games.get(p, 0) if p is not None else sum(self.games.values())
        d = self.distinct.get(p, 0) if p is not None else sum(self.distinct.values())
        return f"{n:,} games" if d == n else f"{d:,} distinct games ({n:,} played)"

    def caption(self, what: str, p: int | None, extra: str = "") -> str:
        """A chart caption: what it shows, the sweep point, from how many games of which experiment."""
        where = f" ({self.point_label(p)})" if self.sweep and p is not None else ""
        return f"{what}{where}. From {self.games_text(p)}{extra}; {self.res.name}, {self.res.rules}, " \
               f"{self.res.players} players."

    def chart_points(self) -> list[int]:
        """The points that get per-point charts (and key findings): all, or (a long sweep) the first, the
        last and evenly spaced ones between, at most ``max_point_charts``; of an intervention study
        only the controls (its part "Intervention effects" shows the arms against them)."""
        ids, k = self.point_ids, self.max_point_charts
        if "arm" in self.sweep:
            ids = [p for p in ids if self.res.point_values[p].get("arm") == "control"]
        if len(ids) <= k:
            return list(ids)
        if k <= 1:
            return ids[:max(k, 0)]
        return [ids[round(i * (len(ids) - 1) / (k - 1))] for i in range(k)]

    def per_point(self, df: pl.DataFrame | None, p: int) -> pl.DataFrame:
        if df is None:
            return pl.DataFrame()
        return df.filter(pl.col("point") == p) if "point" in df.columns else df

    def suffix(self, p: int) -> str:
        """The chart file name suffix of point ``p`` ('_p2' in a sweep)."""
        return f"_p{p}" if self.sweep else ""

    def point_heading(self, p: int, level: int = 4):
        if self.sweep:
            self.doc.h(level, self.point_label(p).capitalize(), anchor=None)

    def point_frames(self, df: pl.DataFrame):
        """(point, its rows of ``df``) for each point with rows that gets a per-point table
        (in a long sweep, the chart points), each after the point's heading."""
        for p in self.point_ids:
            d = self.per_point(df, p)
            if d.height == 0 or (self.sweep and p not in self.chart_points()):
                continue
            self.point_heading(p)
            yield p, d

    def sweep_cols(self, df: pl.DataFrame) -> pl.DataFrame:
        """Add the swept keys' values to a per-point table (for the CSV and tables)."""
        if not self.sweep or "point" not in df.columns or df.height == 0:
            return df
        return df.join(self.points, on="point", how="left")

    def table(self, name: str, df: pl.DataFrame, columns: list, **kw):
        """Add a table of ``df`` (rows of the statistic ``name``) to the document: in a sweep the point
        and its swept values first, then ``columns`` (header, function(row dict) -> text,
        right-aligned); its note links tables/<name>.csv (``kw``: ``make_table``'s ``max_rows``,
        ``sort_note``)."""
        lead = [("point", lambda r: str(r["point"]), True)] if self.sweep else []
        lead += [(k.split(".")[-1], (lambda r, k=k: str(r.get(k, "-"))), False) for k in self.sweep]
        self.doc.table(make_table(self.sweep_cols(df), lead + columns, csv=self.csv(name), **kw))
