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
    round with its interquartile range (right panel). ``df``: routes.route_pairs
    rows (city pairs, labelled by ``pair``) or route_contention rows (tracks, ``label``)."""
    df = as_polars(df)
    title = f"The {top} most claimed routes" + (" (city pairs: any track)" if "pair" in df.columns else " (tracks)")
    if df.height == 0:
        return empty_figure(title, "no claims", subtitle)
    d = df.sort("claim_rate", descending=True).head(top)
    labels = [str(s) for s in column(d, "pair" if "pair" in d.columns else "label", "")]
    n = len(labels)
    fig, (ax, ax2) = new_figure(10, 1.2 + 0.28 * n, 1, 2, sharey=True, width_ratios=[1.3, 1])
    y = np.arange(n)[::-1]
    ax.barh(y, floats(d["claim_rate"].to_list()), color="#4c72b0")
    ax.set_yticks(y, labels, fontsize=7.5)
    ax.set_xlabel("claim rate (% of games)")
    percent_axis(ax.xaxis)
    ax.set_ylabel("route")
    med = floats(column(d, "median_round", None))
    ax2.errorbar(med, y, xerr=error_extents(med, column(d, "q25_round"), column(d, "q75_round")), fmt="o",
                 color="#c44e52", ms=4, capsize=2, lw=1)
    ax2.set_xlabel("claim round: median, quartiles\n(round 1 = every seat's first turn)")
    ax2.grid(axis="x", alpha=0.3)
    ax.set_title(title + (f"\n{subtitle}" if subtitle else ""), fontsize=11, loc="left")
    return fig


def blocking(df, colours: dict | None = None, subtitle: str | None = None) -> Figure:
    """Per strategy: the share of its claims that took a route on the shortest
    path of a ticket another player held and had not completed yet (bars; from
    ``blocking_rate``), with the two bounds (whiskers: only tickets that ended
    uncompleted, every held ticket), and in its label the ``excess`` over the
    same claims on another deal. Without ``blocking_rate`` (results written
    before ttrsim recorded when tickets are completed) each bar spans the bounds."""
    df = as_polars(df)
    title = "Blocking claims per strategy"
    if df.height == 0:
        return empty_figure(title, "no claims", subtitle)
    labels = [str(s) for s in df["strategy"].to_list()]
    low, high = floats(df["blocking_rate_low"].to_list()), floats(df["blocking_rate_high"].to_list())
    exact = floats(column(df, "blocking_rate", None))
    has_exact = bool(np.isfinite(exact).all())
    fig, ax = new_figure(7, 1.5 + 0.45 * len(labels))
    y = np.arange(len(labels))[::-1]
    cols = colours_for(labels, colours)
    if has_exact:
        ax.barh(y, exact, color=cols, alpha=0.85, label="open ticket at the claim (exact)")
        ax.errorbar(exact, y, xerr=error_extents(exact, low, high), fmt="none", ecolor="0.2", capsize=4, lw=1,
                    label="bounds: ended uncompleted / any held ticket")
        text = [f"{e:.1%}" for e in exact]                 # the bounds are the whiskers
    else:
        ax.barh(y, high - low, left=low, color=cols, alpha=0.85, label="between the bounds")
        text = [f"{lo:.1%} to {hi:.1%}" for lo, hi in zip(low, high)]
    excess = column(df, "excess", None)
    for yi, t, hi, n, e in zip(y, text, high, column(df, "claims", None), excess):
        ax.text(hi + 0.003, yi, t + (f" of {int(n):,} claims" if n is not None else "")
                + (f"; {100 * e:+.1f} pp vs another deal" if e is not None else ""), va="center", fontsize=8)
    ax.set_yticks(y, labels)
    ax.set_xlim(0, max(0.05, float(np.nanmax(high)) * 1.9) if np.isfinite(high).any() else 1)
    percent_axis(ax.xaxis)
    ax.set_xlabel("blocking claims (% of the strategy's claims)")
    ax.set_ylabel("strategy")
    # below the axes (inside them it would cover the label of a bar)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=8, frameon=False)
    write_title(ax, title, subtitle)
    return fig
