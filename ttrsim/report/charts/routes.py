"""Route charts: the most claimed tracks with their claim rounds, and blocking
per strategy (from the frames of ``ttrsim.report.routes``, one sweep point
each). The board map is ``ttrsim.report.boardmap``.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .figures import (
    as_polars,
    colours_for,
    column,
    empty_figure,
    error_extents,
    floats,
    new_figure,
    percent_axis,
    write_title,
)

__all__ = ["route_claim_rates", "blocking"]


def route_claim_rates(df, top: int = 25, subtitle: str | None = None) -> Figure:
    """The ``top`` most claimed routes: claim rate (bars) and median claim
    turn with its interquartile range (right panel)."""
    df = as_polars(df)
    title = f"The {top} most claimed routes"
    if df.height == 0:
        return empty_figure(title, "no claims", subtitle)
    d = df.sort("claim_rate", descending=True).head(top)
    labels = [str(s) for s in column(d, "label", "")]
    n = len(labels)
    fig, (ax, ax2) = new_figure(10, 1.2 + 0.28 * n, 1, 2, sharey=True, width_ratios=[1.3, 1])
    y = np.arange(n)[::-1]
    ax.barh(y, floats(d["claim_rate"].to_list()), color="#4c72b0")
    ax.set_yticks(y, labels, fontsize=7.5)
    ax.set_xlabel("claim rate (% of games)")
    percent_axis(ax.xaxis)
    ax.set_ylabel("route")
    med = floats(column(d, "median_turn", None))
    ax2.errorbar(med, y, xerr=error_extents(med, column(d, "q25_turn"), column(d, "q75_turn")), fmt="o",
                 color="#c44e52", ms=4, capsize=2, lw=1)
    ax2.set_xlabel("claim round (rounds; median, quartiles)")
    ax2.grid(axis="x", alpha=0.3)
    ax.set_title(title + (f"\n{subtitle}" if subtitle else ""), fontsize=11, loc="left")
    return fig


def blocking(df, colours: dict | None = None, subtitle: str | None = None) -> Figure:
    """Per strategy: the share of its claims that took a route lying on
    another player's open ticket path."""
    df = as_polars(df)
    title = "Blocking claims per strategy"
    if df.height == 0:
        return empty_figure(title, "no claims", subtitle)
    labels = [str(s) for s in df["strategy"].to_list()]
    rate = floats(df["blocking_rate"].to_list())
    fig, ax = new_figure(6.5, 1.3 + 0.45 * len(labels))
    y = np.arange(len(labels))[::-1]
    ax.barh(y, rate, color=colours_for(labels, colours))
    for yi, r, c, n in zip(y, rate, column(df, "blocking_claims", 0), column(df, "claims", None)):
        of = f" of {int(n):,}" if n is not None else ""
        ax.text(r + 0.003, yi, f"{r:.1%} ({int(c or 0):,}{of} claims)", va="center", fontsize=8)
    ax.set_yticks(y, labels)
    ax.set_xlim(0, max(0.05, float(np.nanmax(rate)) * 1.7) if np.isfinite(rate).any() else 1)
    percent_axis(ax.xaxis)
    ax.set_xlabel("blocking claims (% of the strategy's claims)")
    ax.set_ylabel("strategy")
    write_title(ax, title, subtitle)
    return fig

