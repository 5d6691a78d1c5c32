"""Passenger charts (Germany): majority outcomes per colour, passenger points
per strategy, and passengers against routes claimed (from the frames of
``ttrsim.report.passengers``, one sweep point each).
"""
from __future__ import annotations

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from .figures import as_polars, colours_for, column, empty_figure, floats, new_figure, percent_axis, write_title

__all__ = ["OUTCOME_COLOURS", "passenger_outcomes", "passenger_points", "passengers_vs_routes",
           "passengers_by_routes"]

OUTCOME_COLOURS = ["#4c72b0", "#55a868", "#dd8452", "#c44e52", "#8172b2", "#937860", "#da8bc3", "#8c8c8c"]


def passenger_outcomes(df, subtitle: str | None = None) -> Figure:
    """Per passenger colour, how its majority was decided (stacked shares of games)."""
    df = as_polars(df)
    title = "Passenger majority outcomes per colour"
    if df.height == 0:
        return empty_figure(title, "no passenger games (Germany only)", subtitle)
    colours = list(dict.fromkeys(str(c) for c in df["colour"].to_list()))
    outcomes = list(dict.fromkeys(str(o) for o in df["outcome"].to_list()))
    x = np.arange(len(colours))
    fig, ax = new_figure(8, 4.5)
    bottom = np.zeros(len(colours))
    for k, o in enumerate(outcomes):
        d = df.filter(pl.col("outcome").cast(pl.Utf8) == o)
        m = dict(zip(map(str, d["colour"].to_list()), floats(d["share"].to_list())))
        v = np.array([m.get(c, 0.0) for c in colours])
        ax.bar(x, v, bottom=bottom, color=OUTCOME_COLOURS[k % len(OUTCOME_COLOURS)], label=o, width=0.65)
        for xi, b, vi in zip(x, bottom, v):
            if vi >= 0.06:
                ax.text(xi, b + vi / 2, f"{vi:.0%}", ha="center", va="center", fontsize=8, color="white")
        bottom += v
    ax.set_xticks(x, colours)
    ax.set_xlabel("passenger colour")
    ax.set_ylabel("share of games (%)")
    percent_axis(ax.yaxis)
    ax.set_ylim(0, max(1.0, float(bottom.max())) * 1.02)
    ax.legend(fontsize=8, title="outcome", title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1),
              borderaxespad=0)
    write_title(ax, title, subtitle)
    return fig


def passenger_points(df, colours: dict | None = None, subtitle: str | None = None) -> Figure:
    """Mean passenger majority points per strategy, with their share of the total score."""
    df = as_polars(df)
    title = "Passenger points per strategy (mean per game)"
    if df.height == 0:
        return empty_figure(title, "no passenger games (Germany only)", subtitle)
    labels = [str(s) for s in df["strategy"].to_list()]
    v = floats(df["mean_passenger_points"].to_list())
    fig, ax = new_figure(6.5, 1.3 + 0.45 * len(labels))
    y = np.arange(len(labels))[::-1]
    ax.barh(y, v, color=colours_for(labels, colours))
    for yi, vi, s, n in zip(y, v, column(df, "share_of_total", None), column(df, "mean_passengers", None)):
        extra = []
        if n is not None:
            extra.append(f"{n:.1f} passengers")
        if s is not None:
            extra.append(f"{s:.0%} of score")
        ax.text(vi + 0.3, yi, f"{vi:.1f}" + (f" ({', '.join(extra)})" if extra else ""), va="center", fontsize=8)
    ax.set_yticks(y, labels)
    ax.set_xlim(0, max(1.0, float(np.nanmax(v))) * 1.6)
    ax.set_xlabel("mean passenger points per game (points)")
    ax.set_ylabel("strategy")
    write_title(ax, title, subtitle)
    return fig


def passengers_vs_routes(df, colours: dict | None = None, subtitle: str | None = None) -> Figure:
    """Per strategy: mean passengers collected against mean routes claimed per
    game (one labelled dot each; the label gives the correlation of the two
    over the strategy's seat-games). ``df``: passengers.passengers_vs_routes rows."""
    df = as_polars(df)
    title = "Passengers collected against routes claimed"
    xcol = "mean_routes_claimed" if "mean_routes_claimed" in df.columns else "mean_trains_used"
    if df.height == 0 or xcol not in df.columns or df[xcol].null_count() == df.height:
        return empty_figure(title, "no passenger games (Germany only)", subtitle)
    labels = [str(s) for s in df["strategy"].to_list()]
    x = floats(df[xcol].to_list())
    y = floats(df["mean_passengers"].to_list())
    corr = floats(column(df, "corr_routes" if xcol == "mean_routes_claimed" else "corr_trains", None))
    fig, ax = new_figure(7, 4.5)
    ax.scatter(x, y, c=colours_for(labels, colours), s=60, edgecolor="k", linewidth=0.5, zorder=3)
    for xi, yi, lab, r in zip(x, y, labels, corr):
        ax.annotate(lab + (f" (r = {r:.2f})" if np.isfinite(r) else ""), (xi, yi), textcoords="offset points",
                    xytext=(6, 4), fontsize=8)
    pad_x = max(0.5, float(np.nanmax(x) - np.nanmin(x)) * 0.25)
    pad_y = max(0.5, float(np.nanmax(y) - np.nanmin(y)) * 0.25)
    ax.set_xlim(float(np.nanmin(x)) - pad_x, float(np.nanmax(x)) + 2.5 * pad_x)
    ax.set_ylim(float(np.nanmin(y)) - pad_y, float(np.nanmax(y)) + pad_y)
    ax.set_xlabel("routes claimed (mean per player and game)" if xcol == "mean_routes_claimed"
                  else "trains used (mean per player and game)")
    ax.set_ylabel("passengers collected (mean per player and game)")
    ax.grid(alpha=0.3)
    write_title(ax, title, subtitle)
    return fig


def passengers_by_routes(df, colours: dict | None = None, subtitle: str | None = None,
                         min_share: float = 0.005) -> Figure:
    """Mean passengers collected against the number of routes a player
    claimed, one line per strategy (passengers.passengers_by_routes rows).
    Route counts seen in fewer than ``min_share`` of a strategy's seat-games
    are left out (too few to average)."""
    df = as_polars(df)
    title = "Passengers collected by routes claimed"
    if df.height == 0 or "routes_claimed" not in df.columns:
        return empty_figure(title, "no passenger games with a turn log (Germany only)", subtitle)
    labels = list(dict.fromkeys(str(s) for s in df["strategy"].to_list()))
    cols = dict(zip(labels, colours_for(labels, colours)))
    fig, ax = new_figure(7.5, 4.5)
    for lab in labels:
        d = df.filter(pl.col("strategy").cast(pl.Utf8) == lab).sort("routes_claimed")
        seats = floats(d["seats"].to_list())
        keep = seats >= min_share * seats.sum()
        ax.plot(floats(d["routes_claimed"].to_list())[keep], floats(d["mean_passengers"].to_list())[keep], "o-",
                ms=3, lw=1.5, color=cols[lab], label=f"{lab} (n={int(seats.sum()):,})")
    ax.set_xlabel("routes claimed by the player (routes per game)")
    ax.set_ylabel("passengers collected (mean per player and game)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, title="strategy (seat-games)", title_fontsize=8)
    write_title(ax, title, subtitle)
    return fig

