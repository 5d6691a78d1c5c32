"""Report charts: one function per chart, aggregated frames in, a matplotlib Figure out.

Every function takes the polars (or pandas) frames of the statistics library
(``ttrsim.report.strategies``, ``tickets``, ``routes``, ``passengers``,
``sweeps``), already reduced to what is drawn (usually one sweep point), and
returns a :class:`matplotlib.figure.Figure` with a title and labelled axes
(units in brackets). Nothing here touches pyplot's global state: figures are
built on the Agg canvas and can be saved with ``fig.savefig`` or dropped
(they are garbage collected like any object).

>>> import polars as pl
>>> df = pl.DataFrame({"point": [0, 0], "strategy": ["a", "b"], "games": [10, 10],
...                    "win_rate": [0.6, 0.4], "low": [0.3, 0.1], "high": [0.9, 0.7]})
>>> fig = win_rates(df, players=2)
>>> fig.axes[0].get_xlabel()
'win rate (% of games; shared wins as fractions)'

The board map lives in ``ttrsim.report.boardmap``.
"""
from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg", force=False)
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

__all__ = [
    "strategy_colours", "new_figure", "win_rates", "head_to_head", "ratings", "seat_advantage",
    "score_components", "score_distribution", "game_length", "end_reasons", "ticket_completion",
    "ticket_points_vs_path", "ticket_decks", "route_claim_rates", "blocking", "passenger_outcomes",
    "passenger_points", "passengers_vs_routes", "passengers_by_routes", "balance_lines",
]

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#bcbd22", "#7f7f7f"]
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
OUTCOME_COLOURS = ["#4c72b0", "#55a868", "#dd8452", "#c44e52", "#8172b2", "#937860", "#da8bc3", "#8c8c8c"]


# --------------------------------------------------------------------------- helpers

def _pl(df) -> pl.DataFrame:
    """A polars frame from a polars or pandas frame."""
    if isinstance(df, pl.LazyFrame):
        return df.collect()
    if isinstance(df, pl.DataFrame):
        return df
    return pl.from_pandas(df)


def _col(df: pl.DataFrame, name: str, default=None) -> list:
    if name in df.columns:
        return df[name].to_list()
    return [default] * df.height


def _num(values) -> np.ndarray:
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


def _title(ax, title: str, subtitle: str | None):
    ax.set_title(title + (f"\n{subtitle}" if subtitle else ""), fontsize=11)


def _empty(title: str, message: str, subtitle: str | None = None) -> Figure:
    """A figure saying there is nothing to draw (keeps the report's layout)."""
    fig, ax = new_figure(6, 2)
    _title(ax, title, subtitle)
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_xlabel("(no data)")
    ax.set_ylabel("(no data)")
    return fig


def _pct_axis(axis):
    from matplotlib.ticker import PercentFormatter
    axis.set_major_formatter(PercentFormatter(1.0, decimals=0))


def _colours_for(labels, colours: dict | None) -> list:
    colours = colours or strategy_colours(labels)
    fallback = strategy_colours(labels)
    return [colours.get(lab, fallback[lab]) for lab in labels]


def _err(values, low, high) -> np.ndarray:
    """Error bar extents (2 x n) from an estimate and its interval, NaN-safe."""
    v, lo, hi = _num(values), _num(low), _num(high)
    return np.vstack([np.clip(v - lo, 0, None), np.clip(hi - v, 0, None)])


# --------------------------------------------------------------------------- strategy comparison

def win_rates(df, players: int | None = None, colours: dict | None = None, subtitle: str | None = None) -> Figure:
    """Win rate per strategy with its 95% interval (horizontal bars), and the
    fair share 1/players as a dashed line. ``df``: strategies.win_rates rows of one point."""
    df = _pl(df)
    title = "Win rate per strategy (95% intervals)"
    if df.height == 0:
        return _empty(title, "no games", subtitle)
    labels = [str(s) for s in df["strategy"].to_list()]
    rate = _num(df["win_rate"].to_list())
    fig, ax = new_figure(7, 1.2 + 0.45 * len(labels))
    y = np.arange(len(labels))[::-1]
    ax.barh(y, rate, color=_colours_for(labels, colours), alpha=0.85,
            xerr=_err(rate, _col(df, "low"), _col(df, "high")), capsize=4, error_kw={"lw": 1.2})
    for yi, r, hi in zip(y, rate, _num(_col(df, "high"))):
        ax.text((hi if np.isfinite(hi) else r) + 0.01, yi, f"{r:.1%}", va="center", fontsize=9)
    if players:
        ax.axvline(1 / players, color="k", ls="--", lw=1, label=f"fair share 1/{players}")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_yticks(y, labels)
    ax.set_xlim(0, min(1.0, max(float(np.nanmax(_num(_col(df, "high", 0)))), float(np.nanmax(rate))) * 1.2 + 0.05))
    _pct_axis(ax.xaxis)
    ax.set_xlabel("win rate (% of games; shared wins as fractions)")
    ax.set_ylabel("strategy")
    _title(ax, title, subtitle)
    return fig


def head_to_head(df, subtitle: str | None = None) -> Figure:
    """The head-to-head matrix: how often the row strategy finished ahead of
    the column strategy in the games both played (a heat map with the
    percentages written in)."""
    df = _pl(df)
    title = "Head to head: row strategy's win rate against column strategy"
    if df.height == 0:
        return _empty(title, "fewer than two strategies", subtitle)
    names = list(dict.fromkeys([str(s) for s in df["strategy"].to_list()] +
                               [str(s) for s in df["opponent"].to_list()]))
    idx = {n: i for i, n in enumerate(names)}
    mat = np.full((len(names), len(names)), np.nan)
    for s, o, w in zip(df["strategy"].to_list(), df["opponent"].to_list(), df["win_rate"].to_list()):
        if w is not None:
            mat[idx[str(s)], idx[str(o)]] = w
    size = 2.5 + 0.7 * len(names)
    fig, ax = new_figure(size + 1.2, size)
    im = ax.imshow(mat, cmap="RdBu", vmin=0, vmax=1)
    for i in range(len(names)):
        for j in range(len(names)):
            if np.isfinite(mat[i, j]):
                ax.text(j, i, f"{mat[i, j]:.0%}", ha="center", va="center", fontsize=9,
                        color="white" if abs(mat[i, j] - 0.5) > 0.3 else "black")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("strategy (row)")
    cb = fig.colorbar(im, ax=ax, shrink=0.8)
    cb.set_label("row's win rate against column (%)")
    _pct_axis(cb.ax.yaxis)
    _title(ax, title, subtitle)
    return fig


def ratings(df, colours: dict | None = None, subtitle: str | None = None,
            xlabel: str = "rating (Bradley-Terry, Elo-like points; 0 = mean strategy)") -> Figure:
    """Rating per strategy with its 95% interval (dots and whiskers)."""
    df = _pl(df)
    title = "Strategy ratings (95% intervals)"
    if df.height == 0:
        return _empty(title, "no ratings", subtitle)
    df = df.sort("rating", descending=False, nulls_last=False)
    labels = [str(s) for s in df["strategy"].to_list()]
    r = _num(df["rating"].to_list())
    fig, ax = new_figure(7, 1.2 + 0.45 * len(labels))
    y = np.arange(len(labels))
    ax.errorbar(r, y, xerr=_err(r, _col(df, "low"), _col(df, "high")), fmt="none", ecolor="0.3", capsize=4)
    ax.scatter(r, y, c=_colours_for(labels, colours), s=50, zorder=3)
    for yi, v in zip(y, r):
        ax.annotate(f"{v:+.0f}", (v, yi), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.axvline(0, color="0.6", lw=0.8)
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("strategy")
    _title(ax, title, subtitle)
    return fig


def seat_advantage(df, subtitle: str | None = None) -> Figure:
    """Win rate per seat (seat 1 plays first) with 95% intervals and the fair share."""
    df = _pl(df)
    title = "Seat advantage: win rate per seat (95% intervals)"
    if df.height == 0:
        return _empty(title, "no games", subtitle)
    df = df.sort("seat")
    seats = [int(s) for s in df["seat"].to_list()]
    rate = _num(df["win_rate"].to_list())
    fig, ax = new_figure(6, 3.8)
    x = np.arange(len(seats))
    ax.bar(x, rate, color="#4c72b0", alpha=0.85, yerr=_err(rate, _col(df, "low"), _col(df, "high")), capsize=5)
    fair = _num(_col(df, "fair", 1 / len(seats)))
    ax.axhline(float(np.nanmean(fair)) if np.isfinite(fair).any() else 1 / len(seats), color="k", ls="--", lw=1,
               label=f"fair share 1/{len(seats)}")
    for xi, r in zip(x, rate):
        ax.text(xi, r / 2, f"{r:.1%}", ha="center", va="center", color="white", fontsize=9)
    ax.set_xticks(x, [f"seat {s + 1}" for s in seats])
    ax.set_xlabel("seat (seat 1 takes the first turn)")
    ax.set_ylabel("win rate (% of games)")
    _pct_axis(ax.yaxis)
    ax.legend(fontsize=8, loc="upper right")
    _title(ax, title, subtitle)
    return fig


def score_components(df, subtitle: str | None = None) -> Figure:
    """Mean score per strategy split into its components (stacked bars; failed
    tickets below zero), with the mean total marked."""
    df = _pl(df)
    title = "Score composition per strategy (mean per game)"
    if df.height == 0:
        return _empty(title, "no games", subtitle)
    labels = [str(s) for s in df["strategy"].to_list()]
    x = np.arange(len(labels))
    fig, ax = new_figure(max(6, 1.3 * len(labels) + 3), 4.5)
    pos = np.zeros(len(labels))
    for col, text, colour in COMPONENTS:
        if col not in df.columns:
            continue
        v = np.nan_to_num(_num(df[col].to_list()))
        if not v.any():
            continue
        if col == "tickets_lost":
            ax.bar(x, -v, color=colour, label=text, width=0.6)
        else:
            ax.bar(x, v, bottom=pos, color=colour, label=text, width=0.6)
            pos += v
    total = _num(_col(df, "total", None))
    if np.isfinite(total).any():
        ax.scatter(x, total, marker="D", color="k", zorder=3, s=25, label="mean total")
        for xi, t in zip(x, total):
            ax.annotate(f"{t:.0f}", (xi, t), textcoords="offset points", xytext=(12, -3), fontsize=8)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(x, labels, rotation=20 if len(labels) > 4 else 0, ha="right" if len(labels) > 4 else "center")
    ax.set_xlabel("strategy")
    ax.set_ylabel("mean points per game (points)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    _title(ax, title, subtitle)
    return fig


def score_distribution(df, colours: dict | None = None, subtitle: str | None = None) -> Figure:
    """Distribution of final scores per strategy (one step line each, as a
    share of that strategy's games). ``df``: strategies.score_histogram rows
    (point, strategy, bin, games), ``bin`` the lower edge."""
    df = _pl(df)
    title = "Final score distribution per strategy"
    if df.height == 0:
        return _empty(title, "no games", subtitle)
    labels = list(dict.fromkeys(str(s) for s in df["strategy"].to_list()))
    cols = dict(zip(labels, _colours_for(labels, colours)))
    bins = np.sort(np.unique(_num(df["bin"].to_list())))
    width = float(np.min(np.diff(bins))) if len(bins) > 1 else 1.0
    fig, ax = new_figure(7.5, 4.2)
    for lab in labels:
        d = df.filter(pl.col("strategy").cast(pl.Utf8) == lab).sort("bin")
        b = _num(d["bin"].to_list())
        g = _num(d["games"].to_list())
        share = g / g.sum() if g.sum() else g
        ax.step(np.append(b, b[-1] + width), np.append(share, share[-1]), where="post", color=cols[lab], lw=1.6,
                label=f"{lab} (n={int(g.sum()):,})")
    ax.set_xlabel(f"final score (points; bins of {width:g})")
    ax.set_ylabel("share of the strategy's games (%)")
    _pct_axis(ax.yaxis)
    ax.legend(fontsize=8)
    ax.set_ylim(bottom=0)
    _title(ax, title, subtitle)
    return fig


def game_length(df, subtitle: str | None = None, players: int | None = None) -> Figure:
    """Distribution of game length in turns (all seats), stacked by how the
    game ended, so stalled and capped games show. ``df``: columns ``turns``,
    ``end``, ``games`` (one row per length and end reason)."""
    df = _pl(df)
    title = "Game length by end reason"
    if df.height == 0:
        return _empty(title, "no games", subtitle)
    turns = _num(df["turns"].to_list())
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
        h, _ = np.histogram(_num(d["turns"].to_list()), bins=edges, weights=_num(d["games"].to_list()))
        n = int(d["games"].sum())
        ax.bar(edges[:-1], h, width=width, bottom=bottom, align="edge", color=END_COLOURS.get(e, "0.5"),
               label=f"{e}: {n:,} games ({n / total:.2%})" if total else e, edgecolor="none")
        bottom += h
    ax.set_xlabel("game length (turns, all seats together" +
                  (f"; {players} turns = 1 round)" if players else ")"))
    ax.set_ylabel(f"games (per {width:g}-turn bin)")
    ax.legend(fontsize=8, title="end reason", title_fontsize=8)
    _title(ax, title, subtitle)
    return fig


def end_reasons(df, subtitle: str | None = None) -> Figure:
    """Games per end reason (normal, stalled, capped), on a log scale so a
    handful of stalled or capped games stays visible, with counts written in."""
    df = _pl(df)
    title = "How games ended"
    if df.height == 0:
        return _empty(title, "no games", subtitle)
    order = {"normal": 0, "stalled": 1, "capped": 2}
    rows = sorted(zip(map(str, df["end"].to_list()), df["games"].to_list(), _col(df, "share", None)),
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
    _title(ax, title, subtitle)
    return fig


# --------------------------------------------------------------------------- tickets

def _short(name: str, n: int = 4) -> str:
    """A short city name for labels: 'Los Angeles' -> 'LosA', 'Frankfurt' -> 'Fran'."""
    parts = str(name).replace("-", " ").split()
    if len(parts) > 1:
        return "".join(p[0].upper() for p in parts[:-1]) + parts[-1][:max(1, n - len(parts) + 1)]
    return parts[0][:n] if parts else ""


def _ticket_labels(df) -> list[str]:
    return [f"{_short(a)}-{_short(b)}" for a, b in zip(_col(df, "from", ""), _col(df, "to", ""))]


def _spread_labels(ax, x, y, labels, fontsize=6.5, radius_px=6.0):
    """Write a label next to every point, nudging labels apart vertically in
    display space so they do not sit on top of each other (call it last: the
    figure is laid out first so the positions are final)."""
    if not len(x):
        return
    fig = ax.figure
    fig.canvas.draw()                      # run the layout so data -> pixel is final
    fig.set_layout_engine("none")          # and keep it: labels must not move the axes
    pts = ax.transData.transform(np.column_stack([x, y]))
    h = fontsize * 1.2 * fig.dpi / 72      # label height in pixels
    w = fontsize * 0.6 * fig.dpi / 72      # per character
    order = np.lexsort((-pts[:, 1], pts[:, 0]))
    placed = [(p[0] - radius_px, p[0] + radius_px, p[1], 2 * radius_px) for p in pts]   # the dots themselves
    for i in order:
        px, py = pts[i]
        width = w * len(labels[i])
        x0 = px + radius_px + 2
        yy = py

        def clashes(yy):
            return [b for b in placed if b[0] < x0 + width and x0 < b[1] and abs(b[2] - yy) < (h + b[3]) / 2]
        step = 0
        while clashes(yy) and step < 60:
            step += 1
            k = (step + 1) // 2
            yy = py + (k if step % 2 else -k) * h * 0.5
        placed.append((x0, x0 + width, yy, h))
        tx, ty = ax.transData.inverted().transform((x0, yy))
        ax.annotate(labels[i], (x[i], y[i]), xytext=(tx, ty), textcoords="data", fontsize=fontsize,
                    va="center", ha="left", color="0.15",
                    arrowprops={"arrowstyle": "-", "color": "0.6", "lw": 0.5, "shrinkA": 0, "shrinkB": 3}
                    if abs(yy - py) > h * 0.6 else None)


def ticket_completion(df, subtitle: str | None = None, label: bool = True) -> Figure:
    """Completion rate of kept tickets against their points, one labelled
    point per ticket; dot size shows how often the ticket was kept, colour
    its keep rate."""
    df = _pl(df)
    if "kept" in df.columns:
        df = df.filter(pl.col("kept") > 0)
    title = "Ticket completion rate against ticket points"
    if df.height == 0:
        return _empty(title, "no ticket was kept", subtitle)
    from matplotlib.ticker import MaxNLocator
    x = _num(df["points"].to_list())
    y = _num(df["completion_rate"].to_list())
    kept = _num(_col(df, "kept", 1))
    size = 12 + 70 * np.sqrt(kept / np.nanmax(kept))
    keep_rate = _num(_col(df, "keep_rate", 0.5))
    n = df.height
    fig, ax = new_figure(10, 6.5 if n <= 40 else 8)
    lo_c = float(np.nanmin(keep_rate)) if np.isfinite(keep_rate).any() else 0.0
    hi_c = float(np.nanmax(keep_rate)) if np.isfinite(keep_rate).any() else 1.0
    sc = ax.scatter(x, y, s=size, c=keep_rate, cmap="viridis", vmin=lo_c, vmax=max(hi_c, lo_c + 0.01),
                    edgecolor="k", linewidth=0.4, alpha=0.85, zorder=3)
    cb = fig.colorbar(sc, ax=ax, shrink=0.8)
    cb.set_label("keep rate (% of offers kept)")
    _pct_axis(cb.ax.yaxis)
    ax.set_xlabel("ticket value (points)")
    ax.set_ylabel("completion rate (% of kept tickets completed)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _pct_axis(ax.yaxis)
    ylo, yhi = float(np.nanmin(y)), float(np.nanmax(y))
    pad = max(0.03, (yhi - ylo) * 0.08)
    ax.set_ylim(max(-0.02, ylo - pad), min(1.04, yhi + pad))
    ax.set_xlim(float(np.nanmin(x)) - 1, float(np.nanmax(x)) + 3.5)
    ax.grid(alpha=0.3)
    _title(ax, title, subtitle)
    if label:
        keep = np.isfinite(x) & np.isfinite(y)
        labels = [lab for lab, k in zip(_ticket_labels(df), keep) if k]
        _spread_labels(ax, x[keep], y[keep], labels, fontsize=6 if len(labels) > 40 else 7)
    return fig


def ticket_points_vs_path(df, subtitle: str | None = None) -> Figure:
    """Ticket points against the shortest path on the empty board (in
    trains), coloured by completion rate: tickets above the diagonal pay more
    than their length."""
    df = _pl(df)
    title = "Ticket points against shortest path length"
    if df.height == 0 or "shortest_path" not in df.columns:
        return _empty(title, "no tickets", subtitle)
    x = _num(df["shortest_path"].to_list())
    y = _num(df["points"].to_list())
    c = _num(_col(df, "completion_rate", np.nan))
    fig, ax = new_figure(7, 5)
    sc = ax.scatter(x, y, c=c, cmap="viridis", vmin=0, vmax=1, s=30, edgecolor="k", linewidth=0.4, zorder=3)
    top = float(np.nanmax(np.concatenate([x, y]))) + 1
    ax.plot([0, top], [0, top], color="0.6", ls="--", lw=0.8, label="points = length")
    cb = fig.colorbar(sc, ax=ax, shrink=0.8)
    cb.set_label("completion rate (% of kept)")
    _pct_axis(cb.ax.yaxis)
    ax.set_xlabel("shortest path on the empty board (trains)")
    ax.set_ylabel("ticket value (points)")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    _title(ax, title, subtitle)
    return fig


def ticket_decks(df, subtitle: str | None = None) -> Figure:
    """Per ticket deck: keep rate and completion rate (grouped bars) and mean
    net points of a kept ticket (dots, right axis)."""
    df = _pl(df)
    title = "Ticket decks: keep and completion rates"
    if df.height == 0:
        return _empty(title, "no tickets", subtitle)
    decks = [str(d) for d in df["deck"].to_list()]
    x = np.arange(len(decks))
    fig, ax = new_figure(max(5.5, 1.4 * len(decks) + 2.5), 4)
    ax.bar(x - 0.2, _num(df["keep_rate"].to_list()), width=0.4, color="#4c72b0", label="keep rate")
    ax.bar(x + 0.2, _num(df["completion_rate"].to_list()), width=0.4, color="#55a868", label="completion rate")
    ax.set_xticks(x, [f"{d}\n({int(t)} tickets)" for d, t in zip(decks, _col(df, "tickets", 0))])
    ax.set_xlabel("deck")
    ax.set_ylabel("rate (% of offers / % of kept)")
    ax.set_ylim(0, 1.4)
    ax.set_xlim(-0.7, len(decks) - 0.3)
    ax.set_yticks(np.linspace(0, 1, 6))
    _pct_axis(ax.yaxis)
    if "mean_net_points" in df.columns:
        ax2 = ax.twinx()
        net = _num(df["mean_net_points"].to_list())
        ax2.plot(x, net, "kD", label="mean net points when kept")
        top = float(np.nanmax(np.abs(net))) if np.isfinite(net).any() else 1.0
        ax2.set_ylim(min(0.0, float(np.nanmin(net)) * 1.4) if np.isfinite(net).any() else 0, max(top, 1) * 1.4)
        ax2.set_ylabel("mean net points of a kept ticket (points)")
        ax2.axhline(0, color="0.7", lw=0.6)
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        ax.legend(h1 + h2, l1 + l2, fontsize=8, loc="upper left", ncols=3)
    else:
        ax.legend(fontsize=8)
    _title(ax, title, subtitle)
    return fig


# --------------------------------------------------------------------------- routes

def route_claim_rates(df, top: int = 25, subtitle: str | None = None) -> Figure:
    """The ``top`` most claimed routes: claim rate (bars) and median claim
    turn with its interquartile range (right panel)."""
    df = _pl(df)
    title = f"The {top} most claimed routes"
    if df.height == 0:
        return _empty(title, "no claims", subtitle)
    d = df.sort("claim_rate", descending=True).head(top)
    labels = [str(s) for s in _col(d, "label", "")]
    n = len(labels)
    fig, (ax, ax2) = new_figure(10, 1.2 + 0.28 * n, 1, 2, sharey=True, width_ratios=[1.3, 1])
    y = np.arange(n)[::-1]
    ax.barh(y, _num(d["claim_rate"].to_list()), color="#4c72b0")
    ax.set_yticks(y, labels, fontsize=7.5)
    ax.set_xlabel("claim rate (% of games)")
    _pct_axis(ax.xaxis)
    ax.set_ylabel("route")
    med = _num(_col(d, "median_turn", None))
    ax2.errorbar(med, y, xerr=_err(med, _col(d, "q25_turn"), _col(d, "q75_turn")), fmt="o", color="#c44e52",
                 ms=4, capsize=2, lw=1)
    ax2.set_xlabel("claim round (rounds; median, quartiles)")
    ax2.grid(axis="x", alpha=0.3)
    ax.set_title(title + (f"\n{subtitle}" if subtitle else ""), fontsize=11, loc="left")
    return fig


def blocking(df, colours: dict | None = None, subtitle: str | None = None) -> Figure:
    """Per strategy: the share of its claims that took a route lying on
    another player's open ticket path."""
    df = _pl(df)
    title = "Blocking claims per strategy"
    if df.height == 0:
        return _empty(title, "no claims", subtitle)
    labels = [str(s) for s in df["strategy"].to_list()]
    rate = _num(df["blocking_rate"].to_list())
    fig, ax = new_figure(6.5, 1.3 + 0.45 * len(labels))
    y = np.arange(len(labels))[::-1]
    ax.barh(y, rate, color=_colours_for(labels, colours))
    for yi, r, c, n in zip(y, rate, _col(df, "blocking_claims", 0), _col(df, "claims", None)):
        of = f" of {int(n):,}" if n is not None else ""
        ax.text(r + 0.003, yi, f"{r:.1%} ({int(c or 0):,}{of} claims)", va="center", fontsize=8)
    ax.set_yticks(y, labels)
    ax.set_xlim(0, max(0.05, float(np.nanmax(rate)) * 1.7) if np.isfinite(rate).any() else 1)
    _pct_axis(ax.xaxis)
    ax.set_xlabel("blocking claims (% of the strategy's claims)")
    ax.set_ylabel("strategy")
    _title(ax, title, subtitle)
    return fig


# --------------------------------------------------------------------------- passengers

def passenger_outcomes(df, subtitle: str | None = None) -> Figure:
    """Per passenger colour, how its majority was decided (stacked shares of games)."""
    df = _pl(df)
    title = "Passenger majority outcomes per colour"
    if df.height == 0:
        return _empty(title, "no passenger games (Germany only)", subtitle)
    colours = list(dict.fromkeys(str(c) for c in df["colour"].to_list()))
    outcomes = list(dict.fromkeys(str(o) for o in df["outcome"].to_list()))
    x = np.arange(len(colours))
    fig, ax = new_figure(8, 4.5)
    bottom = np.zeros(len(colours))
    for k, o in enumerate(outcomes):
        d = df.filter(pl.col("outcome").cast(pl.Utf8) == o)
        m = dict(zip(map(str, d["colour"].to_list()), _num(d["share"].to_list())))
        v = np.array([m.get(c, 0.0) for c in colours])
        ax.bar(x, v, bottom=bottom, color=OUTCOME_COLOURS[k % len(OUTCOME_COLOURS)], label=o, width=0.65)
        for xi, b, vi in zip(x, bottom, v):
            if vi >= 0.06:
                ax.text(xi, b + vi / 2, f"{vi:.0%}", ha="center", va="center", fontsize=8, color="white")
        bottom += v
    ax.set_xticks(x, colours)
    ax.set_xlabel("passenger colour")
    ax.set_ylabel("share of games (%)")
    _pct_axis(ax.yaxis)
    ax.set_ylim(0, max(1.0, float(bottom.max())) * 1.02)
    ax.legend(fontsize=8, title="outcome", title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1),
              borderaxespad=0)
    _title(ax, title, subtitle)
    return fig


def passenger_points(df, colours: dict | None = None, subtitle: str | None = None) -> Figure:
    """Mean passenger majority points per strategy, with their share of the total score."""
    df = _pl(df)
    title = "Passenger points per strategy (mean per game)"
    if df.height == 0:
        return _empty(title, "no passenger games (Germany only)", subtitle)
    labels = [str(s) for s in df["strategy"].to_list()]
    v = _num(df["mean_passenger_points"].to_list())
    fig, ax = new_figure(6.5, 1.3 + 0.45 * len(labels))
    y = np.arange(len(labels))[::-1]
    ax.barh(y, v, color=_colours_for(labels, colours))
    for yi, vi, s, n in zip(y, v, _col(df, "share_of_total", None), _col(df, "mean_passengers", None)):
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
    _title(ax, title, subtitle)
    return fig


def passengers_vs_routes(df, colours: dict | None = None, subtitle: str | None = None) -> Figure:
    """Per strategy: mean passengers collected against mean routes claimed per
    game (one labelled dot each; the label gives the correlation of the two
    over the strategy's seat-games). ``df``: passengers.passengers_vs_routes rows."""
    df = _pl(df)
    title = "Passengers collected against routes claimed"
    xcol = "mean_routes_claimed" if "mean_routes_claimed" in df.columns else "mean_trains_used"
    if df.height == 0 or xcol not in df.columns or df[xcol].null_count() == df.height:
        return _empty(title, "no passenger games (Germany only)", subtitle)
    labels = [str(s) for s in df["strategy"].to_list()]
    x = _num(df[xcol].to_list())
    y = _num(df["mean_passengers"].to_list())
    corr = _num(_col(df, "corr_routes" if xcol == "mean_routes_claimed" else "corr_trains", None))
    fig, ax = new_figure(7, 4.5)
    ax.scatter(x, y, c=_colours_for(labels, colours), s=60, edgecolor="k", linewidth=0.5, zorder=3)
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
    _title(ax, title, subtitle)
    return fig


def passengers_by_routes(df, colours: dict | None = None, subtitle: str | None = None,
                         min_share: float = 0.005) -> Figure:
    """Mean passengers collected against the number of routes a player
    claimed, one line per strategy (passengers.passengers_by_routes rows).
    Route counts seen in fewer than ``min_share`` of a strategy's seat-games
    are left out (too few to average)."""
    df = _pl(df)
    title = "Passengers collected by routes claimed"
    if df.height == 0 or "routes_claimed" not in df.columns:
        return _empty(title, "no passenger games with a turn log (Germany only)", subtitle)
    labels = list(dict.fromkeys(str(s) for s in df["strategy"].to_list()))
    cols = dict(zip(labels, _colours_for(labels, colours)))
    fig, ax = new_figure(7.5, 4.5)
    for lab in labels:
        d = df.filter(pl.col("strategy").cast(pl.Utf8) == lab).sort("routes_claimed")
        seats = _num(d["seats"].to_list())
        keep = seats >= min_share * seats.sum()
        ax.plot(_num(d["routes_claimed"].to_list())[keep], _num(d["mean_passengers"].to_list())[keep], "o-",
                ms=3, lw=1.5, color=cols[lab], label=f"{lab} (n={int(seats.sum()):,})")
    ax.set_xlabel("routes claimed by the player (routes per game)")
    ax.set_ylabel("passengers collected (mean per player and game)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, title="strategy (seat-games)", title_fontsize=8)
    _title(ax, title, subtitle)
    return fig


# --------------------------------------------------------------------------- sweeps

def _value_text(v) -> str:
    if isinstance(v, dict):
        return ",".join(f"{k}:{x}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ",".join(map(str, v))
    return str(v)


def balance_lines(df, key: str, value: str = "win_rate", colours: dict | None = None,
                  subtitle: str | None = None, ylabel: str = "win rate (% of games)",
                  title: str | None = None, fair: float | None = None, percent: bool = True,
                  reference=None, reference_label: str = "the preset's value") -> Figure:
    """A balance chart for a sweep: ``value`` (with a ``low``/``high`` band when
    present) against the swept parameter ``key``, one line per strategy. Other
    swept keys get one panel per combination of their values. Non-numeric
    parameter values are placed evenly in sweep order."""
    df = _pl(df)
    pname = key.split(".")[-1]
    title = title or f"Balance: {value.replace('_', ' ')} against {pname}"
    if df.height == 0 or key not in df.columns:
        return _empty(title, "no sweep", subtitle)
    others = [c for c in df.columns if "." in c and c != key and c.split(".")[0] in ("rules", "strategies")]
    combos = df.select(others).unique(maintain_order=True).rows() if others else [()]
    combos = combos[:6]
    raw = df[key].to_list()
    order = list(dict.fromkeys(_value_text(v) for v in raw))
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw)
    xpos = {t: (float(t) if numeric else i) for i, t in enumerate(order)}
    labels = list(dict.fromkeys(str(s) for s in df["strategy"].to_list())) if "strategy" in df.columns else [None]
    cmap = colours or strategy_colours([lab for lab in labels if lab is not None])
    n = len(combos)
    fig, axes = new_figure(min(6.5 * n, 16) if n > 1 else 7.5, 4.5, 1, n, sharey=True, squeeze=False)
    for ax, combo in zip(axes[0], combos):
        d = df
        for c, v in zip(others, combo):
            d = d.filter(pl.col(c).map_elements(_value_text, return_dtype=pl.Utf8) == _value_text(v)) \
                if isinstance(v, (dict, list)) else d.filter(pl.col(c) == v)
        for lab in labels:
            dd = d if lab is None else d.filter(pl.col("strategy").cast(pl.Utf8) == lab)
            xs = np.array([xpos[_value_text(v)] for v in dd[key].to_list()])
            srt = np.argsort(xs)
            ys = _num(dd[value].to_list())[srt]
            xs = xs[srt]
            col = cmap.get(lab, "#1f77b4") if lab is not None else "#1f77b4"
            ax.plot(xs, ys, "o-", color=col, label=lab, lw=1.6, ms=4)
            if "low" in dd.columns and "high" in dd.columns:
                ax.fill_between(xs, _num(dd["low"].to_list())[srt], _num(dd["high"].to_list())[srt], color=col,
                                alpha=0.18, lw=0)
        if fair is not None:
            ax.axhline(fair, color="k", ls="--", lw=0.8, label="fair share")
        if reference is not None and _value_text(reference) in xpos:
            ax.axvline(xpos[_value_text(reference)], color="0.5", ls=":", lw=1.2,
                       label=f"{reference_label} ({_value_text(reference)})")
        if not numeric:
            ax.set_xticks([xpos[t] for t in order], order)
        ax.set_xlabel(f"{pname} (swept rule value)" if key.startswith("rules.") else f"{key} (swept parameter)")
        if others:
            ax.set_title(", ".join(f"{c.split('.')[-1]}={_value_text(v)}" for c, v in zip(others, combo)),
                         fontsize=9)
        ax.grid(alpha=0.3)
        if percent:
            _pct_axis(ax.yaxis)
    axes[0][0].set_ylabel(ylabel)
    if labels != [None] or fair is not None or reference is not None:
        axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    fig.suptitle(title + (" (bands: 95% intervals)" if "low" in df.columns else "")
                 + (f"\n{subtitle}" if subtitle else ""), fontsize=11)
    return fig
