"""The report document: a results folder turned into Markdown, HTML, CSV and charts.

:func:`build_report` reads a results folder (``ttrsim run`` output) through
:class:`ttrsim.report.dataset.Results`, computes every statistic of the
statistics library once (all sweep points together), and writes::

    <results>/report/            (or ``output``)
      report.md                  the report; charts linked from charts/
      report.html                the same, self-contained (charts embedded as PNG)
      tables/<name>.csv          every table, whole (all sweep points)
      charts/<name>.png, .svg    every chart
      report.json                index of the files written (a rebuild deletes the old ones)

Sections: strategy comparison, ticket value, route contention (skipped with a
note without a turn log), passengers (maps with passengers), sweeps (when the
experiment has a sweep). Every chart has a caption saying what it shows and
from how many games. See ``docs/reports.md``.

>>> rep = build_report("results/quickstart", progress=False)        # doctest: +SKIP
>>> rep.html                                                         # doctest: +SKIP
PosixPath('results/quickstart/report/report.html')
"""
from __future__ import annotations

import base64
import datetime as _dt
import html as _html
import io
import json
import math
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import polars as pl

from . import charts
from .boardmap import board_map
from .dataset import Results, ResultsError

__all__ = ["build_report", "Report", "FORMATS", "IMAGES"]

FORMATS = ("md", "html")
IMAGES = ("png", "svg")
MAX_ROWS = 40            # longer tables are cut in the document (the CSV is whole)
MAX_POINT_CHARTS = 4     # sweep points that get their own per-point charts (the balance charts cover all)
PNG_DPI = 110


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

    @property
    def main(self) -> Path:
        """The report file to open: report.html, else report.md."""
        return self.html or self.markdown


# --------------------------------------------------------------------------- document model

@dataclass
class _Table:
    headers: list[str]
    rows: list[list[str]]
    right: set
    note: str = ""


@dataclass
class _Chart:
    name: str
    caption: str
    png: bytes | None = None
    svg: str | None = None
    files: dict = field(default_factory=dict)   # ext -> relative path


class _Doc:
    """Blocks of the report, rendered to Markdown and HTML at the end."""

    def __init__(self):
        self.blocks: list[tuple] = []
        self.n_fig = 0

    def h(self, level: int, text: str, anchor: str | None = None):
        self.blocks.append(("h", level, text, anchor or _slug(text)))

    def p(self, text: str):
        self.blocks.append(("p", text))

    def note(self, text: str):
        self.blocks.append(("note", text))

    def bullets(self, items: list[str]):
        self.blocks.append(("ul", items))

    def table(self, t: _Table):
        self.blocks.append(("table", t))

    def chart(self, c: _Chart):
        self.n_fig += 1
        c.caption = f"Figure {self.n_fig}. {c.caption}"
        self.blocks.append(("chart", c))

    # ---- rendering
    def markdown(self) -> str:
        out = []
        for b in self.blocks:
            kind = b[0]
            if kind == "h":
                out.append(f"{'#' * b[1]} {b[2]}\n")
            elif kind == "p":
                out.append(b[1] + "\n")
            elif kind == "note":
                out.append(f"> {b[1]}\n")
            elif kind == "ul":
                out.append("\n".join(f"- {i}" for i in b[1]) + "\n")
            elif kind == "table":
                t = b[1]
                out.append(_md_table(t))
            elif kind == "chart":
                c = b[1]
                src = c.files.get("png") or c.files.get("svg")
                if src:
                    out.append(f"![{c.name.replace('_', ' ')}]({src})\n\n*{c.caption}*\n")
                else:
                    out.append(f"*{c.caption}* (chart not written: no image format chosen)\n")
        return "\n".join(out)

    def html(self, title: str) -> str:
        body = []
        for b in self.blocks:
            kind = b[0]
            if kind == "h":
                body.append(f'<h{b[1]} id="{b[3]}">{_inline_html(b[2])}</h{b[1]}>')
            elif kind == "p":
                body.append(f"<p>{_inline_html(b[1])}</p>")
            elif kind == "note":
                body.append(f'<p class="note">{_inline_html(b[1])}</p>')
            elif kind == "ul":
                body.append("<ul>" + "".join(f"<li>{_inline_html(i)}</li>" for i in b[1]) + "</ul>")
            elif kind == "table":
                body.append(_html_table(b[1]))
            elif kind == "chart":
                c = b[1]
                if c.png is not None:
                    img = (f'<img alt="{_html.escape(c.name.replace("_", " "))}" '
                           f'src="data:image/png;base64,{base64.b64encode(c.png).decode()}">')
                elif c.svg is not None:
                    img = c.svg[c.svg.find("<svg"):]
                else:
                    img = ""
                body.append(f'<figure>{img}<figcaption>{_inline_html(c.caption)}</figcaption></figure>')
        return _HTML_HEAD.format(title=_html.escape(title)) + "\n".join(body) + "\n</body>\n</html>\n"


_HTML_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 1100px; margin: 2em auto;
       padding: 0 1em; color: #222; line-height: 1.45; }}
h1, h2, h3 {{ line-height: 1.2; }} h2 {{ border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }}
table {{ border-collapse: collapse; margin: .8em 0; font-size: 0.88em; }}
th, td {{ border: 1px solid #ddd; padding: .25em .6em; }} th {{ background: #f4f4f4; }}
td.r {{ text-align: right; font-variant-numeric: tabular-nums; }}
figure {{ margin: 1.2em 0; }} figure img, figure svg {{ max-width: 100%; height: auto; }}
figcaption {{ font-size: 0.9em; color: #444; font-style: italic; }}
p.note {{ background: #fff8e1; border-left: 4px solid #f0b400; padding: .4em .8em; }}
code {{ background: #f4f4f4; padding: 0 .2em; }}
</style>
</head>
<body>
"""


def _slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s or "section"


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_table(t: _Table) -> str:
    lines = ["| " + " | ".join(_md_cell(h) for h in t.headers) + " |",
             "|" + "|".join("---:" if i in t.right else "---" for i in range(len(t.headers))) + "|"]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in t.rows]
    return "\n".join(lines) + "\n" + (f"\n*{t.note}*\n" if t.note else "")


def _inline_html(text: str) -> str:
    """Markdown-ish inline text to HTML: **bold**, `code`, *italic*, [text](link)."""
    s = _html.escape(text, quote=False)
    s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
    s = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"<em>\1</em>", s)
    s = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', s)
    return s


def _html_table(t: _Table) -> str:
    head = "".join(f"<th>{_html.escape(h)}</th>" for h in t.headers)
    rows = "".join("<tr>" + "".join(f'<td{" class=r" if i in t.right else ""}>{_html.escape(str(c))}</td>'
                                    for i, c in enumerate(row)) + "</tr>" for row in t.rows)
    note = f'<p><em>{_inline_html(t.note)}</em></p>' if t.note else ""
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>{note}"


# --------------------------------------------------------------------------- formatting

def _pct(v, digits: int = 1) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return f"{100 * v:.{digits}f}%"


def _num(v, digits: int = 1) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    if isinstance(v, int) or (isinstance(v, float) and digits == 0):
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}"


def _signed(v, digits: int = 1) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return f"{v:+.{digits}f}"


def _interval(lo, hi, pct: bool = True, digits: int = 1) -> str:
    if lo is None or hi is None:
        return "-"
    f = (lambda v: _pct(v, digits)) if pct else (lambda v: _num(v, digits))
    return f"[{f(lo)}, {f(hi)}]"


def _make_table(df: pl.DataFrame, spec: list, max_rows: int = MAX_ROWS, csv: str | None = None,
                sort_note: str = "") -> _Table:
    """A document table from ``df``: ``spec`` is a list of (header, function(row dict) -> text, right-aligned)."""
    n = df.height
    rows_df = df.head(max_rows) if n > max_rows else df
    rows = [[fn(r) for _, fn, _ in spec] for r in rows_df.iter_rows(named=True)]
    note = ""
    if n > max_rows:
        note = f"First {max_rows} of {n} rows{sort_note}" + (f"; all rows: [{csv}]({csv})" if csv else "") + "."
    elif csv:
        note = f"Table: [{csv}]({csv})."
    return _Table([h for h, _, _ in spec], rows, {i for i, (_, _, r) in enumerate(spec) if r}, note)


# --------------------------------------------------------------------------- the builder

class _Builder:
    def __init__(self, res: Results, out: Path, formats, images, resamples: int, progress: bool,
                 max_point_charts: int):
        self.res = res
        self.out = out
        self.formats = formats
        self.images = images
        self.resamples = resamples
        self.progress = progress
        self.max_point_charts = max_point_charts
        self.doc = _Doc()
        self.tables: dict[str, pl.DataFrame] = {}
        self.table_files: list[Path] = []
        self.chart_files: list[Path] = []
        self.problems: list[str] = []
        self.colours = charts.strategy_colours(res.labels)
        self.points = res.points
        self.point_ids: list[int] = [int(p) for p in self.points["point"].to_list()]
        gbp = res.games_by_point
        self.games = {int(p): int(g) for p, g in zip(gbp["point"].to_list(), gbp["games"].to_list())}
        self.sweep = list(res.sweep_keys)
        self.bar = None
        self._started = False

    # ---- progress
    def step(self, text: str):
        """Start the next step (the previous one is done)."""
        if self.bar is not None:
            if self._started:
                self.bar.update(1)
            self._started = True
            self.bar.set_description_str(text)

    @staticmethod
    def fn(module, name: str):
        return getattr(module, name, None) if module is not None else None

    def module(self, name: str):
        """A statistics module of this package, or None (recorded as a problem) if it cannot be imported."""
        import importlib
        try:
            return importlib.import_module(f"{__package__}.{name}")
        except ImportError as e:
            self.problems.append(f"{name}: the statistics module is not available ({e})")
            return None

    # ---- statistics
    def stat(self, name: str, fn, *args, **kw) -> pl.DataFrame | None:
        """Compute one statistic; a failure becomes a note in the report (and in problems)."""
        if fn is None:
            if not any(p.startswith(name + ":") for p in self.problems):
                self.problems.append(f"{name}: not available in the statistics library")
            return None
        try:
            df = fn(self.res, *args, **kw)
        except ResultsError as e:
            self.problems.append(f"{name}: {e}")
            return None
        except Exception as e:  # a broken statistic must not lose the whole report
            self.problems.append(f"{name}: {type(e).__name__}: {e}")
            return None
        if hasattr(df, "collect"):
            df = df.collect()
        if not isinstance(df, pl.DataFrame):
            df = pl.from_pandas(df)
        self.tables[name] = df
        return df

    def csv(self, name: str) -> str:
        return f"tables/{name}.csv"

    def failed(self, name: str):
        msg = next((p for p in self.problems if p.startswith(name + ":")), f"{name}: not computed")
        self.doc.note(f"Could not compute {name.replace('_', ' ')}: {msg.split(': ', 1)[-1]}")

    # ---- charts
    def chart(self, name: str, fig, caption: str):
        c = _Chart(name=name, caption=caption)
        (self.out / "charts").mkdir(parents=True, exist_ok=True)
        if "png" in self.images or "html" in self.formats:
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=PNG_DPI)
            c.png = buf.getvalue()
            if "png" in self.images:
                f = self.out / "charts" / f"{name}.png"
                f.write_bytes(c.png)
                c.files["png"] = f"charts/{name}.png"
                self.chart_files.append(f)
        if "svg" in self.images:
            buf = io.StringIO()
            with matplotlib.rc_context({"svg.fonttype": "none"}):    # text stays text: smaller, searchable
                fig.savefig(buf, format="svg")
            c.svg = buf.getvalue()
            f = self.out / "charts" / f"{name}.svg"
            f.write_text(c.svg, encoding="utf-8")
            c.files["svg"] = f"charts/{name}.svg"
            self.chart_files.append(f)
        if "html" in self.formats and c.png is None and c.svg is None:   # pragma: no cover
            c.png = b""
        self.doc.chart(c)
        fig.clear()

    # ---- points
    def point_label(self, p: int) -> str:
        if not self.sweep:
            return ""
        row = self.points.filter(pl.col("point") == p).row(0, named=True)
        return f"point {p}: " + ", ".join(f"{k.split('.')[-1]}={row[k]}" for k in self.sweep)

    def games_text(self, p: int | None = None) -> str:
        n = self.games.get(p, 0) if p is not None else sum(self.games.values())
        return f"{n:,} games"

    def caption(self, what: str, p: int | None, extra: str = "") -> str:
        where = f" ({self.point_label(p)})" if self.sweep and p is not None else ""
        return f"{what}{where}. From {self.games_text(p)}{extra}; {self.res.name}, {self.res.rules}, " \
               f"{self.res.players} players."

    def chart_points(self) -> list[int]:
        """The points that get per-point charts: all, or (a long sweep) the first, the last and evenly
        spaced ones between, at most ``max_point_charts``."""
        ids, k = self.point_ids, self.max_point_charts
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
        return f"_p{p}" if self.sweep else ""

    def point_heading(self, p: int, level: int = 4):
        if self.sweep:
            self.doc.h(level, self.point_label(p).capitalize(), anchor=None)

    def sweep_cols(self, df: pl.DataFrame) -> pl.DataFrame:
        """Add the swept keys' values to a per-point table (for the CSV and tables)."""
        if not self.sweep or "point" not in df.columns or df.height == 0:
            return df
        return df.join(self.points, on="point", how="left")

    def point_spec(self) -> list:
        if not self.sweep:
            return []
        spec = [("point", lambda r: str(r["point"]), True)]
        for k in self.sweep:
            spec.append((k.split(".")[-1], (lambda r, k=k: str(r.get(k, "-"))), False))
        return spec

    # =================================================================== sections

    def header(self):
        res, m = self.res, self.res.manifest
        cfg = m.get("config", {})
        self.doc.h(1, f"Report: {res.name}", anchor="top")
        desc = m.get("description") or ""
        if desc:
            self.doc.p(desc)
        lineup = ", ".join(f"`{lab}`" for lab in res.labels)
        versions = m.get("versions") or {}
        facts = [
            f"**Rules**: `{res.rules}`" + (f" with overrides `{json.dumps(cfg.get('rule_overrides'))}`"
                                           if cfg.get("rule_overrides") else "")
            + f"; map `{Path(str(res.map_name)).stem}`; **{res.players} players**, seating `{cfg.get('seating')}`.",
            f"**Strategies**: {lineup}.",
            f"**Games**: {res.n_games:,}" + (f" over {len(self.point_ids)} sweep points ("
                                             + ", ".join(f"`{k}`" for k in self.sweep) + ")" if self.sweep else "")
            + f"; seed blocks of {res.block_size} games share a deal; experiment seed {cfg.get('seed')}.",
            f"**Turn log**: {'yes' if res.has_turns else 'no (route contention and blocking are skipped)'}.",
            f"**Results**: `{res.path}`; run status `{res.status}`; "
            f"ttrsim {versions.get('ttrsim', '?')}"
            + (f" (commit {str(versions['ttrsim_commit'])[:10]})" if versions.get("ttrsim_commit") else "")
            + f"; report written {_dt.datetime.now().strftime('%Y-%m-%d %H:%M')}.",
        ]
        self.doc.bullets(facts)
        if res.note:
            self.doc.note(f"Incomplete results: {res.note}. The statistics cover the finished chunks only.")
        self.doc.p("**How to read it.** A strategy's *win rate* is its mean win share: 1 for a sole winner, "
                   "1/k for k tied winners, else 0 (a shared win counts as a fraction). Every 95% interval "
                   "is a bootstrap over seed blocks (the games sharing a deal are resampled together, never "
                   f"single games; {self.resamples} resamples). Every table is also written whole as CSV in "
                   "`tables/`, every chart as PNG/SVG in `charts/`.")
        sections = [("Strategy comparison", "strategy-comparison"), ("Ticket value", "ticket-value"),
                    ("Route contention", "route-contention")]
        if self.has_passengers():
            sections.append(("Passengers", "passengers"))
        if self.sweep:
            sections.append(("Sweeps", "sweeps"))
        self.doc.p("**Contents**: " + " · ".join(f"[{t}](#{a})" for t, a in sections))

    def has_passengers(self) -> bool:
        try:
            return int(self.res.map.passengers.sum()) > 0
        except Exception:
            return False

    # ------------------------------------------------------------------ strategies

    def strategies_section(self):
        st = self.module("strategies")
        doc, res = self.doc, self.res
        doc.h(2, "Strategy comparison", anchor="strategy-comparison")
        if self.sweep and len(self.chart_points()) < len(self.point_ids):
            doc.note(f"Per-point charts are drawn for points {', '.join(map(str, self.chart_points()))} of "
                     f"{len(self.point_ids)}; every table (and CSV) covers all points, and the balance charts "
                     "under [Sweeps](#sweeps) show every point.")
        fair = 1 / res.players

        # win rates
        self.step("win rates")
        win = self.stat("win_rates", self.fn(st, "win_rates"), resamples=self.resamples)
        doc.h(3, "Win rates")
        if win is None:
            self.failed("win_rates")
        else:
            doc.p(f"Win rate per strategy with its 95% interval; a fair share at {res.players}-player tables is "
                  f"{fair:.1%}. Shared wins count as fractions (1/k each).")
            spec = self.point_spec() + [
                ("strategy", lambda r: str(r["strategy"]), False),
                ("games", lambda r: _num(r["games"], 0), True),
                ("wins", lambda r: _num(r["wins"], 1), True),
                ("win rate", lambda r: _pct(r["win_rate"]), True),
                ("95% interval", lambda r: _interval(r["low"], r["high"]), True),
                ("mean score", lambda r: _num(r.get("mean_score"), 1), True)]
            doc.table(_make_table(self.sweep_cols(win), spec, csv=self.csv("win_rates")))
            for p in self.chart_points():
                self.chart(f"win_rates{self.suffix(p)}",
                           charts.win_rates(self.per_point(win, p), players=res.players, colours=self.colours,
                                            subtitle=self.point_label(p) or None),
                           self.caption("Win rate per strategy (bars) with 95% block-bootstrap intervals "
                                        "(whiskers); dashed line: the fair share", p))

        # head to head
        self.step("head to head")
        h2h = self.stat("head_to_head", self.fn(st, "head_to_head"), resamples=self.resamples)
        doc.h(3, "Head to head")
        if h2h is None:
            self.failed("head_to_head")
        else:
            doc.p("Among the games where both sat at the table: how often the row strategy finished ahead of "
                  "the column strategy (ties count half). Row vs column and column vs row add up to 100%.")
            for p in self.point_ids:
                d = self.per_point(h2h, p)
                if d.height == 0:
                    continue
                if self.sweep and p not in self.chart_points():
                    continue
                self.point_heading(p)
                names = [lab for lab in res.labels if lab in set(d["strategy"].to_list())]
                cell = {(r["strategy"], r["opponent"]): r for r in d.iter_rows(named=True)}
                rows = [[a] + [("-" if a == b else (_pct(cell[(a, b)]["win_rate"], 0) +
                                                     f" [{_pct(cell[(a, b)]['low'], 0)}-"
                                                     f"{_pct(cell[(a, b)]['high'], 0)}]"
                                                     if (a, b) in cell else "-")) for b in names] for a in names]
                doc.table(_Table(["row vs column"] + names, rows, set(range(1, len(names) + 1)),
                                 f"Win rate of the row strategy against the column strategy [95% interval]; "
                                 f"table: [{self.csv('head_to_head')}]({self.csv('head_to_head')})."))
                self.chart(f"head_to_head{self.suffix(p)}",
                           charts.head_to_head(d, subtitle=self.point_label(p) or None),
                           self.caption("Head-to-head matrix: the row strategy's rate of finishing ahead of the "
                                        "column strategy in the games both played", p))

        # ratings
        self.step("ratings")
        rat = self.stat("ratings", self.fn(st, "ratings"), resamples=min(self.resamples, 200))
        doc.h(3, "Ratings")
        if rat is None:
            self.failed("ratings")
        else:
            doc.p("Bradley-Terry ratings over every pair of seats of every game (finishing order; ties half a "
                  "win), on an Elo-like scale with mean 0: a difference of 191 points means finishing ahead "
                  "3 times out of 4.")
            spec = self.point_spec() + [
                ("strategy", lambda r: str(r["strategy"]), False),
                ("rating", lambda r: _signed(r["rating"], 0), True),
                ("95% interval", lambda r: _interval(r["low"], r["high"], pct=False, digits=0), True)]
            doc.table(_make_table(self.sweep_cols(rat), spec, csv=self.csv("ratings")))
            for p in self.chart_points():
                self.chart(f"ratings{self.suffix(p)}",
                           charts.ratings(self.per_point(rat, p), colours=self.colours,
                                          subtitle=self.point_label(p) or None),
                           self.caption("Bradley-Terry rating per strategy (Elo-like points, mean 0) with 95% "
                                        "intervals", p))

        # seat advantage
        self.step("seat advantage")
        seat = self.stat("seat_advantage", self.fn(st, "seat_advantage"), resamples=self.resamples)
        doc.h(3, "Seat advantage")
        if seat is None:
            self.failed("seat_advantage")
        else:
            doc.p("Win rate per seat (seat 1 takes the first turn), whatever strategy sat there. With a rotated "
                  "line-up every strategy sits in every seat equally often, so seats are compared fairly.")
            spec = self.point_spec() + [
                ("seat", lambda r: f"seat {int(r['seat']) + 1}", False),
                ("games", lambda r: _num(r["games"], 0), True),
                ("win rate", lambda r: _pct(r["win_rate"]), True),
                ("95% interval", lambda r: _interval(r["low"], r["high"]), True),
                ("vs fair", lambda r: _signed(100 * (r["win_rate"] - r["fair"]), 1) + " pp"
                 if r.get("win_rate") is not None and r.get("fair") is not None else "-", True),
                ("mean score", lambda r: _num(r.get("mean_score"), 1), True)]
            doc.table(_make_table(self.sweep_cols(seat), spec, csv=self.csv("seat_advantage")))
            for p in self.chart_points():
                self.chart(f"seat_advantage{self.suffix(p)}",
                           charts.seat_advantage(self.per_point(seat, p), subtitle=self.point_label(p) or None),
                           self.caption("Win rate per seat with 95% intervals; dashed line: the fair share", p))

        # score composition
        self.step("score components")
        comp = self.stat("score_components", self.fn(st, "score_components"))
        doc.h(3, "Score composition")
        if comp is None:
            self.failed("score_components")
        else:
            doc.p("Mean final score per strategy and where the points come from (all means per game; "
                  "failed tickets are subtracted).")
            cols = [c for c, _, _ in charts.COMPONENTS if c in comp.columns and comp[c].fill_null(0).abs().sum() > 0]
            names = {c: t for c, t, _ in charts.COMPONENTS}
            spec = self.point_spec() + [
                ("strategy", lambda r: str(r["strategy"]), False),
                ("games", lambda r: _num(r["games"], 0), True),
                ("total", lambda r: _num(r["total"], 1), True),
                ("sd", lambda r: _num(r.get("sd_total"), 1), True)] + [
                (names[c] if c != "tickets_lost" else "tickets failed (-)", (lambda r, c=c: _num(r[c], 1)), True)
                for c in cols]
            doc.table(_make_table(self.sweep_cols(comp), spec, csv=self.csv("score_components")))
            for p in self.chart_points():
                self.chart(f"score_components{self.suffix(p)}",
                           charts.score_components(self.per_point(comp, p), subtitle=self.point_label(p) or None),
                           self.caption("Mean score per strategy split into its components (stacked; failed "
                                        "tickets below zero); diamonds: mean total", p))

        # score distributions
        self.step("score distributions")
        hist = self.stat("score_histogram", self.fn(st, "score_histogram"), bin_width=5)
        doc.h(3, "Score distributions")
        if hist is None:
            self.failed("score_histogram")
        else:
            doc.p(f"Final scores per strategy in bins of 5 points (table: [{self.csv('score_histogram')}]"
                  f"({self.csv('score_histogram')})).")
            for p in self.chart_points():
                self.chart(f"score_distribution{self.suffix(p)}",
                           charts.score_distribution(self.per_point(hist, p), colours=self.colours,
                                                     subtitle=self.point_label(p) or None),
                           self.caption("Distribution of final scores per strategy (share of its games per "
                                        "5-point bin)", p))

        # game length + end reasons
        self.step("game length")
        glen = self.stat("game_length", self.fn(st, "game_length"))
        dist = self.stat("game_length_distribution", _length_distribution)
        ends = self.stat("end_reasons", self.fn(st, "end_reasons"))
        doc.h(3, "Game length and end reasons")
        if glen is None:
            self.failed("game_length")
        else:
            spec = self.point_spec() + [
                ("games", lambda r: _num(r["games"], 0), True),
                ("mean turns", lambda r: _num(r["mean_turns"], 1), True),
                ("median", lambda r: _num(r["median_turns"], 0), True),
                ("10th pct", lambda r: _num(r["p10_turns"], 0), True),
                ("90th pct", lambda r: _num(r["p90_turns"], 0), True),
                ("turns per player", lambda r: _num(r["mean_turns_per_player"], 1), True)]
            doc.p("Game length in turns, all seats together (a round is one turn per player).")
            doc.table(_make_table(self.sweep_cols(glen), spec, csv=self.csv("game_length")))
        if ends is None:
            self.failed("end_reasons")
        else:
            self.end_reason_text(ends)
            spec = self.point_spec() + [
                ("end", lambda r: str(r["end"]), False),
                ("games", lambda r: _num(r["games"], 0), True),
                ("share", lambda r: _pct(r["share"], 2), True)]
            doc.table(_make_table(self.sweep_cols(ends), spec, csv=self.csv("end_reasons")))
        for p in self.chart_points():
            if dist is not None:
                self.chart(f"game_length{self.suffix(p)}",
                           charts.game_length(self.per_point(dist, p), players=res.players,
                                              subtitle=self.point_label(p) or None),
                           self.caption("Distribution of game length in turns, stacked by end reason (normal, "
                                        "stalled, capped)", p))
            if ends is not None:
                self.chart(f"end_reasons{self.suffix(p)}",
                           charts.end_reasons(self.per_point(ends, p), subtitle=self.point_label(p) or None),
                           self.caption("Games per end reason on a log scale (so a few stalled or capped games "
                                        "stay visible)", p))

    def end_reason_text(self, ends: pl.DataFrame):
        d = ends.with_columns(pl.col("end").cast(pl.String)).group_by("end").agg(pl.col("games").sum())
        counts = dict(zip(d["end"].to_list(), d["games"].to_list()))
        total = sum(counts.values()) or 1
        odd = {e: counts.get(e, 0) for e in ("stalled", "capped")}
        text = (f"Of {total:,} games, {counts.get('normal', 0):,} ended normally (R6.1), "
                f"**{odd['stalled']:,} stalled** ({odd['stalled'] / total:.2%}: nobody could act, R6.2) and "
                f"**{odd['capped']:,} were capped** ({odd['capped'] / total:.2%}: the turn limit, R6.2).")
        if odd["stalled"] or odd["capped"]:
            self.doc.note(text + " Stalled and capped games are scored as they stand and included in every "
                                 "statistic.")
        else:
            self.doc.p(text)

    # ------------------------------------------------------------------ tickets

    def tickets_section(self):
        tk = self.module("tickets")
        doc = self.doc
        doc.h(2, "Ticket value", anchor="ticket-value")
        self.step("ticket value")
        tv = self.stat("ticket_value", self.fn(tk, "ticket_value"))
        if tv is None:
            self.failed("ticket_value")
        else:
            doc.p("Per destination ticket: how often it was offered and kept, how often a kept ticket was "
                  "completed, the mean net points it brought when kept (+points if completed, -points if not), "
                  "and the win rate of the players who kept it against their strategy's overall win rate "
                  "(*lift*; positive = keeping it goes with winning more). *Path* is the shortest route "
                  "between its ends on the empty board, in trains.")
            tvs = tv.sort(["point", "lift"], descending=[False, True], nulls_last=True)
            spec = self.point_spec() + [
                ("ticket", lambda r: f"{r['from']} - {r['to']}", False),
                ("points", lambda r: _num(r["points"], 0), True),
                ("path", lambda r: _num(r.get("shortest_path"), 0), True),
                ("decks", lambda r: str(r.get("decks") or ""), False),
                ("offered", lambda r: _num(r["offered"], 0), True),
                ("keep", lambda r: _pct(r["keep_rate"], 0), True),
                ("completed", lambda r: _pct(r["completion_rate"], 0), True),
                ("net points", lambda r: _signed(r["mean_net_points"], 1), True),
                ("win rate kept", lambda r: _pct(r["win_rate_kept"], 1), True),
                ("lift", lambda r: _signed(100 * r["lift"], 1) + " pp" if r.get("lift") is not None else "-",
                 True)]
            doc.table(_make_table(self.sweep_cols(tvs), spec, csv=self.csv("ticket_value"),
                                  sort_note=", sorted by lift"))
            for p in self.chart_points():
                d = self.per_point(tv, p)
                offers = int(d["offered"].sum()) if d.height else 0
                self.chart(f"ticket_completion{self.suffix(p)}",
                           charts.ticket_completion(d, subtitle=self.point_label(p) or None),
                           self.caption("Completion rate of each kept ticket against its points (labels: the "
                                        "ticket's ends; dot size: times kept; colour: keep rate)", p,
                                        f", {offers:,} ticket offers"))
                self.chart(f"ticket_points_vs_path{self.suffix(p)}",
                           charts.ticket_points_vs_path(d, subtitle=self.point_label(p) or None),
                           self.caption("Ticket points against the shortest path between its ends on the empty "
                                        "board (colour: completion rate)", p))
        self.step("ticket decks")
        decks = self.stat("ticket_decks", self.fn(tk, "ticket_decks"))
        doc.h(3, "By deck")
        if decks is None:
            self.failed("ticket_decks")
        else:
            doc.p("The same by deck tag (a ticket with several tags counts in each).")
            spec = self.point_spec() + [
                ("deck", lambda r: str(r["deck"]), False),
                ("tickets", lambda r: _num(r["tickets"], 0), True),
                ("offered", lambda r: _num(r["offered"], 0), True),
                ("keep rate", lambda r: _pct(r["keep_rate"]), True),
                ("completion rate", lambda r: _pct(r["completion_rate"]), True),
                ("net points when kept", lambda r: _signed(r["mean_net_points"], 1), True)]
            doc.table(_make_table(self.sweep_cols(decks), spec, csv=self.csv("ticket_decks")))
            for p in self.chart_points():
                self.chart(f"ticket_decks{self.suffix(p)}",
                           charts.ticket_decks(self.per_point(decks, p), subtitle=self.point_label(p) or None),
                           self.caption("Keep rate and completion rate per ticket deck (bars) and the mean net "
                                        "points of a kept ticket (diamonds)", p))

    # ------------------------------------------------------------------ routes

    def routes_section(self):
        rt = self.module("routes")
        doc, res = self.doc, self.res
        doc.h(2, "Route contention", anchor="route-contention")
        if not res.has_turns:
            doc.note("Skipped: these results have no turn log, which route contention needs. Run the experiment "
                     "with `log: true` (or `ttrsim run FILE --log`) to get claim rates, claim rounds, claimers, "
                     "the board maps and blocking.")
            self.step("routes (skipped)")
            self.step("blocking (skipped)")
            return
        self.step("route contention")
        rc = self.stat("route_contention", self.fn(rt, "route_contention"))
        cl = self.stat("route_claimers", self.fn(rt, "route_claimers"))
        if rc is None:
            self.failed("route_contention")
        else:
            doc.p("Per route (each track of a double or triple route separately): the share of games it was "
                  "claimed, the round it was claimed in (a round is one turn per player; median and quartiles), "
                  "and for double and triple routes how often more than one of its tracks was taken.")
            rcs = rc.sort(["point", "claim_rate"], descending=[False, True], nulls_last=True)
            spec = self.point_spec() + [
                ("route", lambda r: str(r["label"]), False),
                ("claimed", lambda r: _pct(r["claim_rate"], 1), True),
                ("median round", lambda r: _num(r["median_turn"], 0), True),
                ("quartiles", lambda r: _interval(r["q25_turn"], r["q75_turn"], pct=False, digits=0)
                 if r.get("q25_turn") is not None else "-", True),
                ("2+ tracks taken", lambda r: _pct(r["group_multi_rate"], 1)
                 if r.get("group_multi_rate") is not None else "", True)]
            if cl is not None and cl.height:
                top = (cl.sort(["point", "route", "share"], descending=[False, False, True])
                       .group_by(["point", "route"], maintain_order=True).first()
                       .select("point", "route", pl.col("strategy").alias("top_claimer"),
                               pl.col("share").alias("top_share")))
                rcs = rcs.join(top, on=["point", "route"], how="left")
                spec.append(("most often by", lambda r: f"{r['top_claimer']} ({_pct(r['top_share'], 0)})"
                             if r.get("top_claimer") is not None else "-", False))
            doc.table(_make_table(self.sweep_cols(rcs), spec, max_rows=25, csv=self.csv("route_contention"),
                                  sort_note=", most claimed first"))
            for p in self.chart_points():
                d = self.per_point(rc, p)
                claims = int(d["claims"].sum()) if d.height else 0
                self.chart(f"board_claim_rate{self.suffix(p)}",
                           board_map(res.map, d, "claim_rate", subtitle=self.point_label(p) or None),
                           self.caption("The board with every track coloured (and widened) by how often it was "
                                        "claimed; tracks of double routes drawn side by side", p,
                                        f", {claims:,} claims"))
                self.chart(f"board_claim_round{self.suffix(p)}",
                           board_map(res.map, d, "median_turn", subtitle=self.point_label(p) or None),
                           self.caption("The board with every track coloured by the median round it was claimed "
                                        "in (dark: early)", p))
                self.chart(f"route_claims{self.suffix(p)}",
                           charts.route_claim_rates(d, top=25, subtitle=self.point_label(p) or None),
                           self.caption("The 25 most claimed tracks: claim rate and claim round (median, "
                                        "quartiles)", p))
            multi = rc.filter(pl.col("group_multi_rate").is_not_null())
            if multi.height:
                g = (multi.group_by(["point", "group"]).agg(
                        pl.col("from").first(), pl.col("to").first(), pl.col("length").first(),
                        pl.col("route").count().alias("tracks_listed"),
                        pl.col("group_multi_rate").first(), pl.col("claim_rate").sum().alias("tracks_per_game"))
                     .sort(["point", "group_multi_rate"], descending=[False, True]))
                doc.h(3, "Double and triple routes")
                doc.p("How often more than one track of a parallel group was taken in a game (with "
                      f"{res.players} players; `lock_parallel_max_players` closes the parallels at small tables).")
                spec = self.point_spec() + [
                    ("route", lambda r: f"{r['from']} - {r['to']} ({r['length']})", False),
                    ("tracks", lambda r: _num(r["tracks_listed"], 0), True),
                    ("2+ tracks taken", lambda r: _pct(r["group_multi_rate"], 1), True),
                    ("tracks taken per game", lambda r: _num(r["tracks_per_game"], 2), True)]
                doc.table(_make_table(self.sweep_cols(g), spec, max_rows=20, csv=self.csv("route_contention"),
                                      sort_note=", most contested first"))
            if cl is not None:
                doc.p(f"Which strategies claim each route: [{self.csv('route_claimers')}]"
                      f"({self.csv('route_claimers')}) (claims and share per route and strategy).")
        self.step("blocking")
        bl = self.stat("blocking", self.fn(rt, "blocking"))
        doc.h(3, "Blocking")
        if bl is None:
            self.failed("blocking")
        else:
            doc.p("A claim *blocks* when its route lies on a shortest path (empty board) between the ends of a "
                  "ticket another player kept before the claim. *Blocking* counts only tickets that ended "
                  "uncompleted (a lower bound); *any* counts every such held ticket (an upper bound).")
            spec = self.point_spec() + [
                ("strategy", lambda r: str(r["strategy"]), False),
                ("claims", lambda r: _num(r["claims"], 0), True),
                ("blocking claims", lambda r: _num(r["blocking_claims"], 0), True),
                ("blocking rate", lambda r: _pct(r["blocking_rate"], 1), True)]
            if "blocking_rate_any" in bl.columns:
                spec.append(("rate (any)", lambda r: _pct(r["blocking_rate_any"], 1), True))
            doc.table(_make_table(self.sweep_cols(bl), spec, csv=self.csv("blocking")))
            for p in self.chart_points():
                self.chart(f"blocking{self.suffix(p)}",
                           charts.blocking(self.per_point(bl, p), colours=self.colours,
                                           subtitle=self.point_label(p) or None),
                           self.caption("Share of each strategy's claims that took a route on another player's "
                                        "open (later failed) ticket path", p))

    # ------------------------------------------------------------------ passengers

    def passengers_section(self):
        doc = self.doc
        if not self.has_passengers():
            self.step("passengers (none on this map)")
            return
        ps = self.module("passengers")
        doc.h(2, "Passengers", anchor="passengers")
        self.step("passengers")
        maj = self.stat("majority_outcomes", self.fn(ps, "majority_outcomes"))
        pts = self.stat("passenger_points", self.fn(ps, "passenger_points"))
        dec = self.stat("passenger_decisive", self.fn(ps, "passenger_decisive"))
        pvr = self.stat("passengers_vs_routes", self.fn(ps, "passengers_vs_routes"))
        pbr = self.stat("passengers_by_routes", self.fn(ps, "passengers_by_routes")) if self.res.has_turns \
            else None
        doc.h(3, "Majority outcomes")
        if maj is None:
            self.failed("majority_outcomes")
        else:
            doc.p("Per passenger colour, how the majority was decided at the end of the game (R6.7).")
            for p in self.point_ids:
                d = self.per_point(maj, p)
                if d.height == 0 or (self.sweep and p not in self.chart_points()):
                    continue
                self.point_heading(p)
                outcomes = list(dict.fromkeys(d["outcome"].to_list()))
                colours = list(dict.fromkeys(d["colour"].to_list()))
                cell = {(r["colour"], r["outcome"]): r["share"] for r in d.iter_rows(named=True)}
                rows = [[c] + [_pct(cell.get((c, o)), 1) for o in outcomes] for c in colours]
                doc.table(_Table(["colour"] + outcomes, rows, set(range(1, len(outcomes) + 1)),
                                 f"Share of games; table: [{self.csv('majority_outcomes')}]"
                                 f"({self.csv('majority_outcomes')})."))
                self.chart(f"passenger_outcomes{self.suffix(p)}",
                           charts.passenger_outcomes(d, subtitle=self.point_label(p) or None),
                           self.caption("Majority outcome per passenger colour (stacked share of games)", p))
        doc.h(3, "Passenger points and decisive majorities")
        if dec is not None:
            for r in self.sweep_cols(dec).iter_rows(named=True):
                where = f" at {self.point_label(r['point'])}" if self.sweep else ""
                doc.p(f"Passenger points changed who won in **{_num(r['changed'], 0)} of {_num(r['games'], 0)} "
                      f"games ({_pct(r['share'], 1)})**{where}: the winners would differ if every player lost "
                      "their passenger points.")
        else:
            self.failed("passenger_decisive")
        if pts is None:
            self.failed("passenger_points")
        else:
            spec = self.point_spec() + [
                ("strategy", lambda r: str(r["strategy"]), False),
                ("games", lambda r: _num(r["games"], 0), True),
                ("passengers", lambda r: _num(r["mean_passengers"], 1), True),
                ("passenger points", lambda r: _num(r["mean_passenger_points"], 1), True),
                ("share of score", lambda r: _pct(r["share_of_total"], 1), True)]
            doc.table(_make_table(self.sweep_cols(pts), spec, csv=self.csv("passenger_points")))
            for p in self.chart_points():
                self.chart(f"passenger_points{self.suffix(p)}",
                           charts.passenger_points(self.per_point(pts, p), colours=self.colours,
                                                   subtitle=self.point_label(p) or None),
                           self.caption("Mean passenger majority points per strategy and game", p))
        doc.h(3, "Passengers against routes")
        if pvr is None:
            self.failed("passengers_vs_routes")
        else:
            spec = self.point_spec() + [
                ("strategy", lambda r: str(r["strategy"]), False),
                ("passengers", lambda r: _num(r["mean_passengers"], 1), True),
                ("routes claimed", lambda r: _num(r.get("mean_routes_claimed"), 1), True),
                ("corr. with routes", lambda r: _num(r.get("corr_routes"), 2), True),
                ("trains used", lambda r: _num(r.get("mean_trains_used"), 1), True),
                ("corr. with trains", lambda r: _num(r.get("corr_trains"), 2), True)]
            doc.p("Passengers collected against routes claimed and trains used, per strategy (means per player "
                  "and game; *corr.* = Pearson correlation over the strategy's seat-games).")
            doc.table(_make_table(self.sweep_cols(pvr), spec, csv=self.csv("passengers_vs_routes")))
            for p in self.chart_points():
                self.chart(f"passengers_vs_routes{self.suffix(p)}",
                           charts.passengers_vs_routes(self.per_point(pvr, p), colours=self.colours,
                                                       subtitle=self.point_label(p) or None),
                           self.caption("Mean passengers collected against mean routes claimed, per strategy", p))
                if pbr is not None and self.per_point(pbr, p).height:
                    self.chart(f"passengers_by_routes{self.suffix(p)}",
                               charts.passengers_by_routes(self.per_point(pbr, p), colours=self.colours,
                                                           subtitle=self.point_label(p) or None),
                               self.caption("Mean passengers collected by the number of routes the player "
                                            "claimed, one line per strategy", p))

    # ------------------------------------------------------------------ sweeps

    def sweeps_section(self):
        doc, res = self.doc, self.res
        if not self.sweep:
            return
        sw = self.module("sweeps")
        doc.h(2, "Sweeps", anchor="sweeps")
        self.step("sweeps")
        doc.p(f"The experiment swept {', '.join(f'`{k}`' for k in self.sweep)} over {len(self.point_ids)} "
              "points; every point plays the same seeds. Every table above has a `point` column with the "
              "swept values next to it (and so do the CSV files).")
        pt = self.points
        spec = [("point", lambda r: str(r["point"]), True)] + \
               [(k, (lambda r, k=k: str(r[k])), False) for k in self.sweep] + \
               [("games", lambda r: _num(self.games.get(int(r["point"]), 0), 0), True)]
        doc.table(_make_table(pt, spec, csv=self.csv("points")))
        self.tables["points"] = pt
        swr = self.stat("swept_win_rates", self.fn(sw, "swept_win_rates"), resamples=self.resamples)
        if swr is None:
            self.failed("swept_win_rates")
            return
        per_point = self.games_text(self.point_ids[0]) if self.point_ids else "0 games"
        ref = {key: self.preset_value(key) for key in self.sweep}
        for key in self.sweep:
            self.chart(f"balance_win_rate_{_slug(key.split('.')[-1])}",
                       charts.balance_lines(swr, key, "win_rate", colours=self.colours, fair=1 / res.players,
                                            reference=ref[key]),
                       f"Balance: each strategy's win rate (line) with its 95% interval (band) against "
                       f"`{key}`; dashed: the fair share; dotted: the rule set's own value. "
                       f"From {per_point} per point, {res.n_games:,} in all.")
        comp = self.tables.get("score_components")
        if comp is not None and comp.height:
            d = comp.join(self.points, on="point", how="left")
            for key in self.sweep:
                self.chart(f"balance_score_{_slug(key.split('.')[-1])}",
                           charts.balance_lines(d.rename({"total": "mean_score"}).drop(
                               [c for c in ("low", "high") if c in d.columns]), key, "mean_score",
                               colours=self.colours, percent=False, ylabel="mean final score (points)",
                               title=f"Mean score against {key.split('.')[-1]}", reference=ref[key]),
                           f"Each strategy's mean final score against `{key}`. From {per_point} per point.")
        seat = self.tables.get("seat_advantage")
        if seat is not None and seat.height:
            d = (seat.with_columns(pl.format("seat {}", pl.col("seat").cast(pl.Int32) + 1).alias("strategy"))
                 .join(self.points, on="point", how="left"))
            for key in self.sweep:
                self.chart(f"balance_seat_{_slug(key.split('.')[-1])}",
                           charts.balance_lines(d, key, "win_rate", fair=1 / res.players, reference=ref[key],
                                                title=f"Seat advantage against {key.split('.')[-1]}"),
                           f"Win rate per seat (line) with its 95% interval (band) against `{key}`; dashed: the "
                           f"fair share. From {per_point} per point.")
        doc.p(f"Win rates by point: [{self.csv('swept_win_rates')}]({self.csv('swept_win_rates')}).")

    def preset_value(self, key: str):
        """The value a swept rule parameter has in the experiment's rules without the sweep (the preset
        and the file's rule_overrides), to mark on the balance charts; None for strategy parameters."""
        if not key.startswith("rules."):
            return None
        try:
            from ttrsim.data.rules import get_rules
            overrides = dict(self.res.manifest.get("config", {}).get("rule_overrides") or {})
            value = get_rules(self.res.rules, overrides).params().get(key.split(".", 1)[1])
        except Exception:
            return None
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    # ------------------------------------------------------------------ writing

    def write_tables(self):
        tdir = self.out / "tables"
        tdir.mkdir(parents=True, exist_ok=True)
        for name, df in self.tables.items():
            f = tdir / f"{name}.csv"
            out = df
            if self.sweep and "point" in df.columns and name not in ("points", "swept_win_rates") \
                    and not any(k in df.columns for k in self.sweep):
                out = df.join(self.points, on="point", how="left")
            out = out.with_columns([pl.col(c).cast(pl.String) for c, t in out.schema.items()
                                    if t in (pl.Categorical,) or isinstance(t, (pl.Enum, pl.List, pl.Struct))])
            out.write_csv(f)
            self.table_files.append(f)


def _length_distribution(res: Results) -> pl.DataFrame:
    """point, turns, end, games: games per length and end reason (for the game length chart)."""
    return (res.scan("games").group_by("point", "turns", pl.col("end").cast(pl.String))
            .agg(pl.len().cast(pl.Int64).alias("games")).sort("point", "turns", "end").collect())


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


def build_report(path, output=None, formats=FORMATS, images=IMAGES, resamples: int = 1000,
                 progress: bool = True, max_point_charts: int = MAX_POINT_CHARTS) -> Report:
    """Write the report of the results folder ``path`` into ``output``
    (default ``<path>/report``): report.md and/or report.html (``formats``),
    tables/*.csv, charts/*.png and/or *.svg (``images``). ``resamples``: the
    block-bootstrap resamples of every interval. ``progress``: a progress bar
    on stderr. Raises ``ResultsError`` (a ValueError) for a folder that is not
    a results folder and ValueError for a bad option; returns a :class:`Report`."""
    t0 = time.perf_counter()
    formats = _choices("format", formats, FORMATS)
    images = _choices("image", images, IMAGES, allow_empty=True)
    if not isinstance(resamples, int) or resamples < 10:
        raise ValueError(f"resamples must be an integer of at least 10, got {resamples!r}")
    res = Results.open(path)
    out = Path(output) if output is not None else res.path / "report"
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out}: exists and is not a folder; expected a folder for the report")
    out.mkdir(parents=True, exist_ok=True)
    _clean_previous(out)
    b = _Builder(res, out, formats, images, resamples, progress, max_point_charts)
    steps = 14 + (1 if b.sweep else 0)
    if progress:
        from tqdm.auto import tqdm
        b.bar = tqdm(total=steps, desc="report", unit="step", file=sys.stderr, leave=False,
                     bar_format="{desc:<24} {bar} {n_fmt}/{total_fmt} [{elapsed}]")
    try:
        b.header()
        b.strategies_section()
        b.tickets_section()
        b.routes_section()
        b.passengers_section()
        b.sweeps_section()
        if b.problems:
            b.doc.h(2, "Problems", anchor="problems")
            b.doc.bullets([f"`{p}`" for p in b.problems])
        b.step("writing")
        b.write_tables()
        md = html = None
        if "md" in formats:
            md = out / "report.md"
            md.write_text(b.doc.markdown(), encoding="utf-8")
        if "html" in formats:
            html = out / "report.html"
            html.write_text(b.doc.html(f"ttrsim report: {res.name}"), encoding="utf-8")
    finally:
        if b.bar is not None:
            b.bar.close()
    written = [p for p in (md, html) if p] + b.table_files + b.chart_files
    (out / "report.json").write_text(json.dumps({
        "results": str(res.path), "games": res.n_games, "written": _dt.datetime.now().isoformat(timespec="seconds"),
        "files": [str(p.relative_to(out)) for p in written], "problems": b.problems}, indent=1), encoding="utf-8")
    return Report(folder=out, markdown=md, html=html, tables=b.table_files, charts=b.chart_files,
                  problems=b.problems, seconds=time.perf_counter() - t0)


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
