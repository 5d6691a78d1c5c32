"""The report document as a list of blocks: headings, paragraphs, notes, bullet
lists, tables, charts with numbered captions and the table of contents; and the
texts of table cells (percentages, numbers, intervals). ``render`` turns a
:class:`Document` into Markdown and HTML.

>>> import polars as pl
>>> doc = Document()
>>> doc.h(2, "Win rates")
>>> doc.blocks[0]
Heading(level=2, text='Win rates', anchor='win-rates')
>>> doc.chart(Chart("win_rates", "Win rate per strategy."))
>>> doc.blocks[1].caption
'Figure 1. Win rate per strategy.'
>>> t = make_table(pl.DataFrame({"strategy": ["a", "b"], "win_rate": [0.625, 0.375]}),
...                [("strategy", lambda r: r["strategy"], False), ("win rate", lambda r: pct(r["win_rate"]), True)],
...                csv="tables/win_rates.csv")
>>> t.rows, t.right, t.note
([['a', '62.5%'], ['b', '37.5%']], {1}, 'Table: [tables/win_rates.csv](tables/win_rates.csv).')
>>> num(1234.5), num(7, 0), signed(3.14159), interval(0.1, 0.2), pct(None)
('1,234.5', '7', '+3.1', '[10.0%, 20.0%]', '-')
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import polars as pl

from ttrsim.results.stats import percent

__all__ = ["Document", "Heading", "Paragraph", "Note", "Bullets", "Table", "Chart", "Contents", "make_table", "slug",
           "pct", "num", "signed", "interval", "MAX_ROWS"]

MAX_ROWS = 40            # longer tables are cut in the document (the CSV is whole)


@dataclass
class Heading:
    level: int
    text: str
    anchor: str


@dataclass
class Paragraph:
    text: str


@dataclass
class Note:
    """A highlighted paragraph (a warning or a skipped part)."""
    text: str


@dataclass
class Bullets:
    items: list[str]


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]
    right: set                      # indexes of the right-aligned columns
    note: str = ""                  # a line under the table (its CSV link, rows left out)


@dataclass
class Chart:
    name: str                       # the file name without extension: charts/<name>.png
    caption: str
    png: bytes | None = None
    svg: str | None = None
    files: dict = field(default_factory=dict)   # ext -> path relative to the report folder


@dataclass
class Contents:
    """The table of contents: rendered as links to every heading of ``levels`` in the document."""
    levels: tuple = (2, 3)


class Document:
    """The blocks of the report in order; charts are numbered as they are added;
    heading anchors are unique (a repeated title gets ``-2``, ``-3``, ...)."""

    def __init__(self):
        self.blocks: list = []
        self.n_charts = 0
        self._anchors: set = set()

    def h(self, level: int, text: str, anchor: str | None = None):
        self.blocks.append(self.heading(level, text, anchor))

    def heading(self, level: int, text: str, anchor: str | None = None) -> Heading:
        """A heading with an anchor no other heading of the document has (not added: see :meth:`insert`)."""
        base = anchor or slug(text)
        a, k = base, 1
        while a in self._anchors:
            k += 1
            a = f"{base}-{k}"
        self._anchors.add(a)
        return Heading(level, text, a)

    def contents(self):
        self.blocks.append(Contents())

    def insert(self, index: int, blocks: list):
        """Put ``blocks`` (no charts: their numbers follow the order they were added) at ``index``."""
        self.blocks[index:index] = blocks

    def headings(self, levels=(2, 3)) -> list[Heading]:
        return [b for b in self.blocks if isinstance(b, Heading) and b.level in levels]

    def p(self, text: str):
        self.blocks.append(Paragraph(text))

    def note(self, text: str):
        self.blocks.append(Note(text))

    def bullets(self, items: list[str]):
        self.blocks.append(Bullets(items))

    def table(self, t: Table):
        self.blocks.append(t)

    def chart(self, c: Chart):
        self.n_charts += 1
        c.caption = f"Figure {self.n_charts}. {c.caption}"
        self.blocks.append(c)


def slug(text: str) -> str:
    """An anchor (or file name part) from a heading: lower case, dashes."""
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s or "section"


# --------------------------------------------------------------------------- tables

def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and not math.isfinite(v))


def pct(v, digits: int = 1) -> str:
    """A fraction as a percentage: 0.1234 -> '12.3%' (the run summary's rounding,
    :func:`ttrsim.results.stats.percent`); '-' for a missing value."""
    if _missing(v):
        return "-"
    return percent(v, digits)


def num(v, digits: int = 1) -> str:
    """A number with thousands separators; integers (or ``digits=0``) without decimals."""
    if _missing(v):
        return "-"
    if isinstance(v, int) or (isinstance(v, float) and digits == 0):
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}"


def signed(v, digits: int = 1) -> str:
    """A number with its sign: '+3.1', '-0.4'."""
    if _missing(v):
        return "-"
    return f"{v:+.{digits}f}"


def interval(lo, hi, percent: bool = True, digits: int = 1) -> str:
    """'[lo, hi]' as percentages (or numbers); '-' when a bound is missing."""
    if lo is None or hi is None:
        return "-"
    f = (lambda v: pct(v, digits)) if percent else (lambda v: num(v, digits))
    return f"[{f(lo)}, {f(hi)}]"


def make_table(df: pl.DataFrame, spec: list, max_rows: int = MAX_ROWS, csv: str | None = None,
               sort_note: str = "") -> Table:
    """A document table from ``df``: ``spec`` is a list of (header, function(row dict) -> text,
    right-aligned). Past ``max_rows`` rows the table is cut and its note says so (``sort_note``: how
    the rows are ordered); ``csv`` is linked in the note."""
    n = df.height
    rows_df = df.head(max_rows) if n > max_rows else df
    rows = [[fn(r) for _, fn, _ in spec] for r in rows_df.iter_rows(named=True)]
    note = ""
    if n > max_rows:
        note = f"First {max_rows} of {n} rows{sort_note}" + (f"; all rows: [{csv}]({csv})" if csv else "") + "."
    elif csv:
        note = f"Table: [{csv}]({csv})."
    return Table([h for h, _, _ in spec], rows, {i for i, (_, _, r) in enumerate(spec) if r}, note)
