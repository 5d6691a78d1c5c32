"""Ticket charts: completion rate against points (every ticket labelled by its
ends), points against the shortest path, and the deck summary (from the
frames of ``ttrsim.report.tickets``, one sweep point each).

>>> _short("Los Angeles"), _short("Frankfurt"), _short("Sault St. Marie")
('LAng', 'Fran', 'SSMa')
"""
from __future__ import annotations

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from .figures import as_polars, column, empty_figure, floats, new_figure, percent_axis, write_title

__all__ = ["ticket_completion", "ticket_points_vs_path", "ticket_decks", "causal_value"]


def _short(name: str, n: int = 4) -> str:
    """A short city name for labels: 'Los Angeles' -> 'LosA', 'Frankfurt' -> 'Fran'."""
    parts = str(name).replace("-", " ").split()
    if len(parts) > 1:
        return "".join(p[0].upper() for p in parts[:-1]) + parts[-1][:max(1, n - len(parts) + 1)]
    return parts[0][:n] if parts else ""


def _ticket_labels(df) -> list[str]:
    return [f"{_short(a)}-{_short(b)}" for a, b in zip(column(df, "from", ""), column(df, "to", ""))]


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
    df = as_polars(df)
    if "kept" in df.columns:
        df = df.filter(pl.col("kept") > 0)
    title = "Ticket completion rate against ticket points"
    if df.height == 0:
        return empty_figure(title, "no ticket was kept", subtitle)
    from matplotlib.ticker import MaxNLocator
    x = floats(df["points"].to_list())
    y = floats(df["completion_rate"].to_list())
    kept = floats(column(df, "kept", 1))
    size = 12 + 70 * np.sqrt(kept / np.nanmax(kept))
    keep_rate = floats(column(df, "keep_rate", 0.5))
    n = df.height
    fig, ax = new_figure(10, 6.5 if n <= 40 else 8)
    lo_c = float(np.nanmin(keep_rate)) if np.isfinite(keep_rate).any() else 0.0
    hi_c = float(np.nanmax(keep_rate)) if np.isfinite(keep_rate).any() else 1.0
    sc = ax.scatter(x, y, s=size, c=keep_rate, cmap="viridis", vmin=lo_c, vmax=max(hi_c, lo_c + 0.01),
                    edgecolor="k", linewidth=0.4, alpha=0.85, zorder=3)
    cb = fig.colorbar(sc, ax=ax, shrink=0.8)
    cb.set_label("keep rate (% of offers kept)")
    percent_axis(cb.ax.yaxis)
    ax.set_xlabel("ticket value (points)")
    ax.set_ylabel("completion rate (% of kept tickets completed)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    percent_axis(ax.yaxis)
    ylo, yhi = float(np.nanmin(y)), float(np.nanmax(y))
    pad = max(0.03, (yhi - ylo) * 0.08)
    ax.set_ylim(max(-0.02, ylo - pad), min(1.04, yhi + pad))
    ax.set_xlim(float(np.nanmin(x)) - 1, float(np.nanmax(x)) + 3.5)
    ax.grid(alpha=0.3)
    write_title(ax, title, subtitle)
    if label:
        keep = np.isfinite(x) & np.isfinite(y)
        labels = [lab for lab, k in zip(_ticket_labels(df), keep) if k]
        _spread_labels(ax, x[keep], y[keep], labels, fontsize=6 if len(labels) > 40 else 7)
    return fig


def ticket_points_vs_path(df, subtitle: str | None = None) -> Figure:
    """Ticket points against the shortest path on the empty board (in
    trains), coloured by completion rate: tickets above the diagonal pay more
    than their length."""
    df = as_polars(df)
    title = "Ticket points against shortest path length"
    if df.height == 0 or "shortest_path" not in df.columns:
        return empty_figure(title, "no tickets", subtitle)
    x = floats(df["shortest_path"].to_list())
    y = floats(df["points"].to_list())
    c = floats(column(df, "completion_rate", np.nan))
    fig, ax = new_figure(7, 5)
    sc = ax.scatter(x, y, c=c, cmap="viridis", vmin=0, vmax=1, s=30, edgecolor="k", linewidth=0.4, zorder=3)
    top = float(np.nanmax(np.concatenate([x, y]))) + 1
    ax.plot([0, top], [0, top], color="0.6", ls="--", lw=0.8, label="points = length")
    cb = fig.colorbar(sc, ax=ax, shrink=0.8)
    cb.set_label("completion rate (% of kept)")
    percent_axis(cb.ax.yaxis)
    ax.set_xlabel("shortest path on the empty board (trains)")
    ax.set_ylabel("ticket value (points)")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    write_title(ax, title, subtitle)
    return fig


def ticket_decks(df, subtitle: str | None = None) -> Figure:
    """Per ticket deck: keep rate and completion rate (grouped bars) and mean
    net points of a kept ticket (dots, right axis)."""
    df = as_polars(df)
    title = "Ticket decks: keep and completion rates"
    if df.height == 0:
        return empty_figure(title, "no tickets", subtitle)
    decks = [str(d) for d in df["deck"].to_list()]
    x = np.arange(len(decks))
    fig, ax = new_figure(max(5.5, 1.4 * len(decks) + 2.5), 4)
    ax.bar(x - 0.2, floats(df["keep_rate"].to_list()), width=0.4, color="#4c72b0", label="keep rate")
    ax.bar(x + 0.2, floats(df["completion_rate"].to_list()), width=0.4, color="#55a868", label="completion rate")
    ax.set_xticks(x, [f"{d}\n({int(t)} tickets)" for d, t in zip(decks, column(df, "tickets", 0))])
    ax.set_xlabel("deck")
    ax.set_ylabel("rate (% of offers / % of kept)")
    ax.set_ylim(0, 1.4)
    ax.set_xlim(-0.7, len(decks) - 0.3)
    ax.set_yticks(np.linspace(0, 1, 6))
    percent_axis(ax.yaxis)
    if "mean_net_points" in df.columns:
        ax2 = ax.twinx()
        net = floats(df["mean_net_points"].to_list())
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
    write_title(ax, title, subtitle)
    return fig



def causal_value(df, subtitle: str | None = None) -> Figure:
    """An intervention study's ticket values (``ttrsim.report.interventions.ticket_offers``):
    each ticket's score effect on the seat offered it, with its 95% interval,
    against its printed points; 0 = priced like the rest of the deck."""
    df = as_polars(df)
    title = "Causal value of a ticket against its points"
    if df.height == 0:
        return empty_figure(title, "no ticket offered", subtitle)
    from .figures import error_extents
    x = floats(df["points"].to_list())
    y = floats(df["score_effect"].to_list())
    fig, ax = new_figure(10, 6)
    ax.axhline(0, color="0.5", lw=0.8, ls="--", label="priced like the deck (effect 0)")
    ax.errorbar(x, y, yerr=error_extents(y, df["score_low"].to_list(), df["score_high"].to_list()), fmt="o",
                ms=4, color="#1f77b4", ecolor="0.6", elinewidth=0.8, capsize=2, zorder=3)
    ax.set_xlabel("ticket value (printed points)")
    ax.set_ylabel("score effect on the offered seat (points)")
    ax.set_xlim(float(np.nanmin(x)) - 1, float(np.nanmax(x)) + 3.5)      # room for the labels on the right
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    write_title(ax, title, subtitle)
    names = [str(a).split(" ", 1)[1] for a in df["arm"].to_list()]
    _spread_labels(ax, x, y, [f"{_short(n.split('-')[0])}-{_short(n.split('-')[-1])}" for n in names],
                   fontsize=6 if len(names) > 40 else 7)
    return fig
