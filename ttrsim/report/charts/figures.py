"""What every chart shares: the Agg figure (no pyplot), the strategy palette,
frame and number coercion, titles, percent axes, error bars and the empty
figure that keeps the report's layout when there is nothing to draw.

>>> fig, ax = new_figure(4, 3)
>>> strategy_colours(["planner", "one_step"])
{'planner': '#1f77b4', 'one_step': '#d62728'}
>>> floats([1, None]).tolist()
[1.0, nan]
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg", force=False)
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import Formatter  # noqa: E402

__all__ = ["PALETTE", "strategy_colours", "colours_for", "new_figure", "write_title", "empty_figure", "percent_axis",
           "PercentTicks", "as_polars", "column", "floats", "error_extents"]

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#bcbd22", "#7f7f7f"]


def as_polars(df) -> pl.DataFrame:
    """A polars frame from a polars or pandas frame."""
    if isinstance(df, pl.LazyFrame):
        return df.collect()
    if isinstance(df, pl.DataFrame):
        return df
    return pl.from_pandas(df)


def column(df: pl.DataFrame, name: str, default=None) -> list:
    if name in df.columns:
        return df[name].to_list()
    return [default] * df.height


def floats(values) -> np.ndarray:
    """Floats with None as NaN."""
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)


def strategy_colours(labels) -> dict:
    """A fixed colour per strategy label, in the given order (the experiment's label order)."""
    return {lab: PALETTE[i % len(PALETTE)] for i, lab in enumerate(labels)}


def new_figure(width: float = 7.0, height: float = 4.0, nrows: int = 1, ncols: int = 1, squeeze: bool = True,
               **kw):
    """A Figure on the Agg canvas (no pyplot) and its axes."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=squeeze, **kw)
    return fig, axes


def write_title(ax, title: str, subtitle: str | None):
    ax.set_title(title + (f"\n{subtitle}" if subtitle else ""), fontsize=11)


def empty_figure(title: str, message: str, subtitle: str | None = None) -> Figure:
    """A figure saying there is nothing to draw (keeps the report's layout)."""
    fig, ax = new_figure(6, 2)
    write_title(ax, title, subtitle)
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_xlabel("(no data)")
    ax.set_ylabel("(no data)")
    return fig


class PercentTicks(Formatter):
    """Rates in [0, 1] as percentages with the fewest decimals (0 to 3) that
    write every tick of the axis exactly: ticks 0, 0.025, 0.05 read '0.0%',
    '2.5%', '5.0%' (never '2%'); ticks 0, 0.2, 0.4 read '0%', '20%', '40%'.

    >>> PercentTicks().format_ticks([0, 0.025, 0.05])
    ['0.0%', '2.5%', '5.0%']
    >>> PercentTicks().format_ticks([0, 0.2, 0.4])
    ['0%', '20%', '40%']
    """

    decimals = 0

    def set_locs(self, locs):
        super().set_locs(locs)
        values = [100 * float(v) for v in locs if np.isfinite(v)]
        self.decimals = next((d for d in range(4) if all(abs(round(v, d) - v) < 1e-9 for v in values)), 3)

    def __call__(self, x, pos=None):
        return f"{100 * x:.{self.decimals}f}%"


def percent_axis(axis):
    """Tick labels of a rate axis as percentages (:class:`PercentTicks`)."""
    axis.set_major_formatter(PercentTicks())


def colours_for(labels, colours: dict | None) -> list:
    colours = colours or strategy_colours(labels)
    fallback = strategy_colours(labels)
    return [colours.get(lab, fallback[lab]) for lab in labels]


def error_extents(values, low, high) -> np.ndarray:
    """Error bar extents (2 x n) from an estimate and its interval, NaN-safe."""
    v, lo, hi = floats(values), floats(low), floats(high)
    return np.vstack([np.clip(v - lo, 0, None), np.clip(hi - v, 0, None)])

