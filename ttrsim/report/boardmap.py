"""The board map chart: routes drawn from the map's city coordinates, coloured
(and, for claim rates, thickened) by a per-route statistic.

Works for any map loaded with :func:`ttrsim.data.maps.load_map` (USA, Germany, a
custom map): cities are dots with their names, countries (Germany) are
written in italics at their label with their border points as squares, and
the tracks of a double or triple route are drawn side by side (offset across
the line) so each is visible.

>>> import polars as pl
>>> from ttrsim.data.maps import load_map
>>> m = load_map("usa")
>>> df = pl.DataFrame({"route": list(range(m.n_routes)), "claim_rate": [0.5] * m.n_routes})
>>> board_map(m, df).axes[0].get_title().splitlines()[0]
'Route claim rate on the usa board (line width also grows with the rate)'
"""
from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib import patheffects
from matplotlib.collections import LineCollection
from matplotlib.colors import Normalize

from ttrsim.play.render import track_segments

from .charts.figures import as_polars, floats, new_figure, percent_axis

__all__ = ["board_map", "track_segments", "VALUES"]

# value column -> (title text, colour bar label, colour map, is a rate in [0, 1])
VALUES = {
    "claim_rate": ("Route claim rate", "claim rate (% of games the track was claimed)", "viridis_r", True),
    "median_turn": ("Median claim round", "median claim round (rounds from the start)", "plasma", False),
    "group_multi_rate": ("Double/triple routes: more than one track claimed",
                         "games with 2+ tracks of the group claimed (%)", "viridis_r", True),
}


def board_map(m, routes, value: str = "claim_rate", subtitle: str | None = None, city_labels: bool = True,
              title: str | None = None):
    """The board with every route as a line coloured by ``value`` (a column of
    ``routes``, which has one row per route id: ``claim_rate``, ``median_turn``
    or ``group_multi_rate`` of routes.route_contention). For claim rates the
    width grows with the rate too. Routes without a value (never claimed,
    single tracks for ``group_multi_rate``) are thin grey dotted lines.
    Returns a Figure with a colour bar labelled with the unit."""
    df = as_polars(routes)
    ttl, cbar_label, cmap_name, is_rate = VALUES.get(value, (value.replace("_", " "), value, "viridis", False))
    vals = np.full(m.n_routes, np.nan)
    if df.height:
        ids = np.asarray(df["route"].to_list(), dtype=int)
        ok = (ids >= 0) & (ids < m.n_routes)
        vals[ids[ok]] = floats(df[value].to_list())[ok]
        if value == "median_turn" and "claims" in df.columns:
            claims = floats(df["claims"].to_list())[ok]
            vals[ids[ok][claims == 0]] = np.nan
    seg = track_segments(m)
    xy = np.asarray(m.node_xy, dtype=float)
    lo_xy, hi_xy = xy.min(axis=0), xy.max(axis=0)
    span = np.maximum(hi_xy - lo_xy, 1.0)
    aspect = span[1] / span[0]
    width = 11.0 if aspect < 1 else 8.0
    fig, ax = new_figure(width, min(max((width - 2.0) * aspect + 0.9, 4.0), 13.0))

    has = np.isfinite(vals)
    if is_rate:
        norm = Normalize(0, max(float(np.nanmax(vals)) if has.any() else 1.0, 1e-9))
    else:
        norm = Normalize(float(np.nanmin(vals)) if has.any() else 0, float(np.nanmax(vals)) if has.any() else 1)
    cmap = matplotlib.colormaps[cmap_name]
    if (~has).any():
        ax.add_collection(LineCollection(seg[~has], colors="0.6", linewidths=1.0, linestyles=":", zorder=1))
    if has.any():
        v = vals[has]
        lw = 1.0 + 3.2 * (v - norm.vmin) / max(norm.vmax - norm.vmin, 1e-9) if value == "claim_rate" \
            else np.full(len(v), 3.0)
        lc = LineCollection(seg[has], colors=cmap(norm(v)), linewidths=lw, capstyle="butt", zorder=2)
        ax.add_collection(lc)
    sm = _scalar_mappable(norm, cmap)
    cb = fig.colorbar(sm, ax=ax, shrink=0.7, pad=0.01)
    cb.set_label(cbar_label)
    if is_rate:
        percent_axis(cb.ax.yaxis)

    is_country_node = np.asarray(m.location_is_country, dtype=bool)[np.asarray(m.node_loc, dtype=int)]
    cities = ~is_country_node
    ax.scatter(xy[cities, 0], xy[cities, 1], s=14, c="white", edgecolors="k", linewidths=0.8, zorder=3)
    if is_country_node.any():
        ax.scatter(xy[is_country_node, 0], xy[is_country_node, 1], s=14, marker="s", c="0.85", edgecolors="k",
                   linewidths=0.6, zorder=3)
    font = 6.5 if m.n_nodes > 40 else 7.5
    halo = [patheffects.withStroke(linewidth=2.2, foreground="white", alpha=0.85)]
    if city_labels:
        for n in np.flatnonzero(cities):
            ax.annotate(m.node_names[n], xy[n], textcoords="offset points", xytext=(3, 3), fontsize=font,
                        color="0.1", zorder=4, path_effects=halo)
        loc_xy = np.asarray(m.location_xy, dtype=float)
        for loc in np.flatnonzero(np.asarray(m.location_is_country, dtype=bool)):
            ax.text(loc_xy[loc, 0], loc_xy[loc, 1], m.location_names[loc], fontsize=font + 1, style="italic",
                    ha="center", va="center", color="0.3", zorder=4, path_effects=halo)
    pad = 0.04 * span
    ax.set_xlim(lo_xy[0] - pad[0], hi_xy[0] + pad[0] * 2.5)
    ax.set_ylim(hi_xy[1] + pad[1], lo_xy[1] - pad[1])          # board pixels: y grows downwards
    ax.set_aspect("equal")
    ax.set_xlabel("board x (pixels of the board image)")
    ax.set_ylabel("board y (pixels, downwards)")
    ax.tick_params(labelsize=7, colors="0.5")
    never = int((~has).sum())
    note = ""
    if value == "claim_rate":
        note = " (line width also grows with the rate)"
    elif never:
        note = f" (dotted: {never} route{'s' if never != 1 else ''} without a value)"
    ax.set_title((title or f"{ttl} on the {m.name} board") + note + (f"\n{subtitle}" if subtitle else ""),
                 fontsize=11)
    return fig


def _scalar_mappable(norm, cmap):
    from matplotlib.cm import ScalarMappable
    sm = ScalarMappable(norm=norm, cmap=cmap)
    sm.set_array(np.array([]))
    return sm

