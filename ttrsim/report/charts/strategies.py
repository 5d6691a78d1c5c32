"""Strategy comparison charts: win rates, head to head, ratings, seat
advantage, score composition and distribution, game length and end reasons
(from the frames of ``ttrsim.report.strategies``, one sweep point each).

>>> import polars as pl
>>> df = pl.DataFrame({"point": [0, 0], "strategy": ["a", "b"], "games": [10, 10],
...                    "win_rate": [0.6, 0.4], "low": [0.3, 0.1], "high": [0.9, 0.7]})
>>> win_rates(df, players=2).axes[0].get_xlabel()
'win rate (% of games; shared wins as fractions)'
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl
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

__all__ = ["COMPONENTS", "END_COLOURS", "win_rates", "head_to_head", "ratings", "seat_advantage", "score_components",
           "score_distribution", "game_length", "end_reasons", "strategy_profile"]

# score components in stacking order: (column, legend text, colour)
COMPONENTS = [
    ("routes", "routes", "#4c72b0"),
    ("tickets_won", "tickets completed", "#55a868"),
    ("longest_bonus", "longest path bonus", "#c44e52"),
    ("globetrotter", "Globetrotter bonus", "#8172b2"),
    ("passenger_points", "passenger majorities", "#ccb974"),
    ("tickets_lost", "tickets failed (lost)", "#937860"),
]
END_COLOURS = {"normal": "#4c72b0", "stalled": "#dd8452", "capped": "#c44e52"}


def win_rates(df, players: int | None = None, colours: dict | None = None, subtitle: str | None = None) -> Figure:
    """Win rate per strategy with its 95% interval (horizontal bars), and the
    fair share 1/players as a dashed line. ``df``: strategies.win_rates rows of one point."""
    df = as_polars(df)
    title = "Win rate per strategy (95% intervals)"
    if df.height == 0:
        return empty_figure(title, "no games", subtitle)
    labels = [str(s) for s in df["strategy"].to_list()]
    rate = floats(df["win_rate"].to_list())
    fig, ax = new_figure(7, 1.2 + 0.45 * len(labels))
    y = np.arange(len(labels))[::-1]
    ax.barh(y, rate, color=colours_for(labels, colours), alpha=0.85,
            xerr=error_extents(rate, column(df, "low"), column(df, "high")), capsize=4, error_kw={"lw": 1.2})
    for yi, r, hi in zip(y, rate, floats(column(df, "high"))):
        ax.text((hi if np.isfinite(hi) else r) + 0.01, yi, f"{r:.1%}", va="center", fontsize=9)
    if players:
        ax.axvline(1 / players, color="k", ls="--", lw=1, label=f"fair share 1/{players}")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_yticks(y, labels)
    highs = floats(column(df, "high", 0))                # null (no interval) for rates fixed by design
    top = max(float(np.nanmax(highs)) if np.isfinite(highs).any() else 0.0, float(np.nanmax(rate)))
    ax.set_xlim(0, min(1.0, top * 1.2 + 0.05))
    percent_axis(ax.xaxis)
    ax.set_xlabel("win rate (% of games; shared wins as fractions)")
    ax.set_ylabel("strategy")
    write_title(ax, title, subtitle)
    return fig


def head_to_head(df, subtitle: str | None = None) -> Figure:
    """The head-to-head matrix: how often the row strategy finished ahead of
    the column strategy in the games both played (not a win rate: finishing
    third ahead of a fourth counts). A heat map with the rate, its 95% interval
    and the games both played written in each cell. ``df``:
    strategies.head_to_head rows of one point (``ahead_rate``)."""
    df = as_polars(df)
    title = "Head to head: how often the row strategy finished ahead of the column strategy"
    if df.height == 0:
        return empty_figure(title, "fewer than two strategies", subtitle)
    names = list(dict.fromkeys([str(s) for s in df["strategy"].to_list()] +
                               [str(s) for s in df["opponent"].to_list()]))
    idx = {n: i for i, n in enumerate(names)}
    mat = np.full((len(names), len(names)), np.nan)
    text = {}
    for r in df.iter_rows(named=True):
        if r["ahead_rate"] is not None:
            i, j = idx[str(r["strategy"])], idx[str(r["opponent"])]
            mat[i, j] = r["ahead_rate"]
            bounds = f"\n[{r['low']:.1%}, {r['high']:.1%}]" if r.get("low") is not None else ""
            n = f"\nn={r['games']:,.0f}" if r.get("games") is not None else ""
            text[i, j] = f"{r['ahead_rate']:.1%}{bounds}{n}"
    size = 2.5 + 1.2 * len(names)
    fig, ax = new_figure(size + 1.4, size)
    im = ax.imshow(mat, cmap="RdBu", vmin=0, vmax=1)
    for (i, j), t in text.items():
        ax.text(j, i, t, ha="center", va="center", fontsize=7 if len(names) > 4 else 8,
                color="white" if abs(mat[i, j] - 0.5) > 0.3 else "black")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("strategy (row)")
    cb = fig.colorbar(im, ax=ax, shrink=0.8)
    cb.set_label("row finished ahead of column (% of the games both played)")
    percent_axis(cb.ax.yaxis)
    write_title(ax, title, subtitle)
    return fig


def ratings(df, colours: dict | None = None, subtitle: str | None = None,
            xlabel: str = "rating (Bradley-Terry, Elo-like points; 0 = mean strategy)") -> Figure:
    """Rating per strategy with its 95% interval (dots and whiskers)."""
    df = as_polars(df)
    title = "Strategy ratings (95% intervals)"
    if df.height == 0:
        return empty_figure(title, "no ratings", subtitle)
    df = df.sort("rating", descending=False, nulls_last=False)
    labels = [str(s) for s in df["strategy"].to_list()]
    r = floats(df["rating"].to_list())
    fig, ax = new_figure(7, 1.2 + 0.45 * len(labels))
    y = np.arange(len(labels))
    ax.errorbar(r, y, xerr=error_extents(r, column(df, "low"), column(df, "high")), fmt="none", ecolor="0.3", capsize=4)
    ax.scatter(r, y, c=colours_for(labels, colours), s=50, zorder=3)
    for yi, v in zip(y, r):
        ax.annotate(f"{v:+.0f}", (v, yi), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.axvline(0, color="0.6", lw=0.8)
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("strategy")
    write_title(ax, title, subtitle)
    return fig


def seat_advantage(df, subtitle: str | None = None) -> Figure:
    """Win rate per seat (``seat`` 1 to players; seat 1 plays first) with 95% intervals and the fair share."""
    df = as_polars(df)
    title = "Seat advantage: win rate per seat (95% intervals)"
    if df.height == 0:
        return empty_figure(title, "no games", subtitle)
    df = df.sort("seat")
    seats = [int(s) for s in df["seat"].to_list()]
    rate = floats(df["win_rate"].to_list())
    fig, ax = new_figure(6, 3.8)
    x = np.arange(len(seats))
    ax.bar(x, rate, color="#4c72b0", alpha=0.85, yerr=error_extents(rate, column(df, "low"), column(df, "high")),
           capsize=5)
    fair = floats(column(df, "fair", 1 / len(seats)))
    ax.axhline(float(np.nanmean(fair)) if np.isfinite(fair).any() else 1 / len(seats), color="k", ls="--", lw=1,
               label=f"fair share 1/{len(seats)}")
    for xi, r in zip(x, rate):
        ax.text(xi, r / 2, f"{r:.1%}", ha="center", va="center", color="white", fontsize=9)
    ax.set_xticks(x, [f"seat {s}" for s in seats])
    ax.set_xlabel("seat (seat 1 takes the first turn)")
    ax.set_ylabel("win rate (% of games)")
    percent_axis(ax.yaxis)
    ax.legend(fontsize=8, loc="upper right")
    write_title(ax, title, subtitle)
    return fig


def score_components(df, subtitle: str | None = None) -> Figure:
    """Mean score per strategy split into its components (stacked bars; failed
    tickets below zero), with the mean total marked."""
    df = as_polars(df)
    title = "Score composition per strategy (mean per game)"
    if df.height == 0:
        return empty_figure(title, "no games", subtitle)
    labels = [str(s) for s in df["strategy"].to_list()]
    x = np.arange(len(labels))
    fig, ax = new_figure(max(6, 1.3 * len(labels) + 3), 4.5)
    pos = np.zeros(len(labels))
    for col, text, colour in COMPONENTS:
        if col not in df.columns:
            continue
        v = np.nan_to_num(floats(df[col].to_list()))
        if not v.any():
            continue
        if col == "tickets_lost":
            ax.bar(x, -v, color=colour, label=text, width=0.6)
        else:
            ax.bar(x, v, bottom=pos, color=colour, label=text, width=0.6)
            pos += v
    total = floats(column(df, "total", None))
    if np.isfinite(total).any():
        ax.scatter(x, total, marker="D", color="k", zorder=3, s=25, label="mean total")
        for xi, t in zip(x, total):
            ax.annotate(f"{t:.0f}", (xi, t), textcoords="offset points", xytext=(12, -3), fontsize=8)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(x, labels, rotation=20 if len(labels) > 4 else 0, ha="right" if len(labels) > 4 else "center")
    ax.set_xlabel("strategy")
    ax.set_ylabel("mean points per game (points)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    write_title(ax, title, subtitle)
    return fig


def score_distribution(df, colours: dict | None = None, subtitle: str | None = None) -> Figure:
    """Distribution of final scores per strategy (one step line each, as a
    share of that strategy's games). ``df``: strategies.score_histogram rows
    (point, strategy, bin, games), ``bin`` the lower edge."""
    df = as_polars(df)
    title = "Final score distribution per strategy"
    if df.height == 0:
        return empty_figure(title, "no games", subtitle)
    labels = list(dict.fromkeys(str(s) for s in df["strategy"].to_list()))
    cols = dict(zip(labels, colours_for(labels, colours)))
    bins = np.sort(np.unique(floats(df["bin"].to_list())))
    width = float(np.min(np.diff(bins))) if len(bins) > 1 else 1.0
    fig, ax = new_figure(7.5, 4.2)
    for lab in labels:
        d = df.filter(pl.col("strategy").cast(pl.Utf8) == lab).sort("bin")
        b = floats(d["bin"].to_list())
        g = floats(d["games"].to_list())
        share = g / g.sum() if g.sum() else g
        ax.step(np.append(b, b[-1] + width), np.append(share, share[-1]), where="post", color=cols[lab], lw=1.6,
                label=f"{lab} (n={int(g.sum()):,})")
    ax.set_xlabel(f"final score (points; bins of {width:g})")
    ax.set_ylabel("share of the strategy's games (%)")
    percent_axis(ax.yaxis)
    ax.legend(fontsize=8)
    ax.set_ylim(bottom=0)
    write_title(ax, title, subtitle)
    return fig


def game_length(df, subtitle: str | None = None, players: int | None = None) -> Figure:
    """Distribution of game length in turns (all seats), stacked by how the
    game ended, so stalled and capped games show. ``df``: columns ``turns``,
    ``end``, ``games`` (one row per length and end reason)."""
    df = as_polars(df)
    title = "Game length by end reason"
    if df.height == 0:
        return empty_figure(title, "no games", subtitle)
    turns = floats(df["turns"].to_list())
    lo, hi = float(np.nanmin(turns)), float(np.nanmax(turns))
    width = max(1.0, math.ceil((hi - lo + 1) / 60))
    edges = np.arange(lo, hi + width + 1, width)
    fig, ax = new_figure(7.5, 4.2)
    ends = ["normal", "stalled", "capped"]            # all three, so a zero count is visible in the legend
    ends += sorted(set(map(str, df["end"].to_list())) - set(ends))
    total = float(df["games"].sum())
    bottom = np.zeros(len(edges) - 1)
    for e in ends:
        d = df.filter(pl.col("end").cast(pl.Utf8) == e)
        h, _ = np.histogram(floats(d["turns"].to_list()), bins=edges, weights=floats(d["games"].to_list()))
        n = int(d["games"].sum())
        ax.bar(edges[:-1], h, width=width, bottom=bottom, align="edge", color=END_COLOURS.get(e, "0.5"),
               label=f"{e}: {n:,} games ({n / total:.2%})" if total else e, edgecolor="none")
        bottom += h
    ax.set_xlabel("game length (turns, all seats together" +
                  (f"; {players} turns = 1 round)" if players else ")"))
    ax.set_ylabel(f"games (per {width:g}-turn bin)")
    ax.legend(fontsize=8, title="end reason", title_fontsize=8)
    write_title(ax, title, subtitle)
    return fig


def end_reasons(df, subtitle: str | None = None) -> Figure:
    """Games per end reason (normal, stalled, capped), on a log scale so a
    handful of stalled or capped games stays visible, with counts written in."""
    df = as_polars(df)
    title = "How games ended"
    if df.height == 0:
        return empty_figure(title, "no games", subtitle)
    order = {"normal": 0, "stalled": 1, "capped": 2}
    rows = sorted(zip(map(str, df["end"].to_list()), df["games"].to_list(), column(df, "share", None)),
                  key=lambda r: order.get(r[0], 9))
    ends = [r[0] for r in rows]
    games = np.array([r[1] or 0 for r in rows], dtype=float)
    total = games.sum()
    fig, ax = new_figure(6.5, 1.4 + 0.45 * len(ends))
    y = np.arange(len(ends))[::-1]
    ax.barh(y, np.where(games > 0, games, np.nan), color=[END_COLOURS.get(e, "0.5") for e in ends])
    for yi, g in zip(y, games):
        ax.text(max(g, 1) * 1.15, yi, f"{int(g):,} ({g / total:.2%})" if total else "0", va="center", fontsize=9)
    ax.set_xscale("log")
    ax.set_xlim(0.8, max(total, 10) * 8)
    ax.set_ylim(-0.6, len(ends) - 0.4)
    ax.set_yticks(y, ends)
    ax.set_xlabel("games (log scale)")
    ax.set_ylabel("end reason")
    write_title(ax, title, subtitle)
    return fig


def strategy_profile(df, colours: dict | None = None, subtitle: str | None = None, ncols: int = 4) -> Figure:
    """How each strategy plays: one small panel per measure of
    strategies.strategy_profile (rows of one point), one line per strategy:
    its 10th to 90th percentile over its games (bar), median (tick) and mean
    (dot); a share (a bonus won) is a bar from 0 to its mean."""
    df = as_polars(df)
    title = "How each strategy plays (per player and game: 10th-90th percentile, median |, mean •)"
    if df.height == 0:
        return empty_figure(title, "no games", subtitle)
    measures = list(dict.fromkeys(df["measure"].to_list()))
    labels = list(dict.fromkeys(str(s) for s in df["strategy"].to_list()))
    cols = dict(zip(labels, colours_for(labels, colours)))
    nrows = math.ceil(len(measures) / ncols)
    fig, axes = new_figure(3.1 * ncols, nrows * (0.55 + 0.2 * len(labels)) + 0.8, nrows, ncols, squeeze=False)
    y = np.arange(len(labels))[::-1]
    for k, ax in enumerate(axes.ravel()):
        if k >= len(measures):
            ax.set_axis_off()
            continue
        d = df.filter(pl.col("measure") == measures[k])
        row = {str(r["strategy"]): r for r in d.iter_rows(named=True)}
        unit = d["unit"][0]
        for yi, lab in zip(y, labels):
            r = row.get(lab)
            if r is None or r["mean"] is None:
                continue
            if unit == "share":
                ax.barh(yi, r["mean"], color=cols[lab], height=0.55)
            else:
                ax.plot([r["p10"], r["p90"]], [yi, yi], color=cols[lab], lw=5, alpha=0.45, solid_capstyle="butt")
                ax.plot([r["median"]], [yi], marker="|", color="k", ms=9)
                ax.plot([r["mean"]], [yi], "o", color=cols[lab], ms=4, mec="k", mew=0.5)
        ax.set_yticks(y, labels if k % ncols == 0 else [""] * len(labels), fontsize=7.5)
        ax.set_ylim(-0.6, len(labels) - 0.4)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", alpha=0.3)
        if unit == "share":
            ax.set_xlim(0, 1)
            percent_axis(ax.xaxis)
        ax.set_xlabel(f"{measures[k].replace('_', ' ')} ({'% of games' if unit == 'share' else unit})", fontsize=8)
    fig.suptitle(title + (f"\n{subtitle}" if subtitle else ""), fontsize=11)
    return fig
