"""The board map chart: routes drawn from the map's city coordinates, coloured
(and, for claim rates, thickened) by a per-route statistic.

Works for any map loaded with :func:`ttrsim.data.maps.load_map` (USA, Germany, a
custom map): cities are dots with their names, countries (Germany) are
written in italics at their label with their border points as squares. A frame
of city pairs (``routes.route_pairs``: a ``group`` column) draws one line per
pair, whichever of its tracks was taken; a frame of tracks
(``routes.route_contention``: a ``route`` column) draws the tracks of a double
or triple route side by side (offset across the line). The board's own
coordinates are not shown: a map has no axes to read.

>>> import polars as pl
>>> from ttrsim.data.maps import load_map
>>> m = load_map("usa")
>>> df = pl.DataFrame({"route": list(range(m.n_routes)), "claim_rate": [0.5] * m.n_routes})
>>> board_map(m, df).axes[0].get_title().splitlines()[:2]
['Track claim rate on the usa board', '(line width also grows with the rate)']
>>> pairs = pl.DataFrame({"group": sorted(set(m.route_group.tolist())), "claim_rate": 0.5})
>>> board_map(m, pairs).axes[0].get_title().splitlines()[0]
'Route claim rate (any track of a city pair) on the usa board'
"""
from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib import patheffects
from matplotlib.collections import LineCollection
from matplotlib.colors import Normalize

from ttrsim.data.maps.geometry import track_segments

from .charts.figures import as_polars, floats, new_figure, percent_axis

__all__ = ["board_map", "track_segments", "VALUES", "PAIR_VALUES"]

# value column -> (title text, colour bar label, colour map, is a rate in [0, 1])
VALUES = {
    "claim_rate": ("Track claim rate", "claim rate (% of games the track was claimed)", "viridis_r", True),
    "median_round": ("Median claim round", "median claim round (1 = every seat's first turn)", "plasma", False),
    "given_up_rate": ("Tunnels given up", "share of the tunnel's claims given up (%)", "magma_r", True),
    "group_multi_rate": ("Double/triple routes: more than one track claimed",
                         "games with 2+ tracks of the group claimed (%)", "viridis_r", True),
}
# the same for a frame of city pairs (routes.route_pairs)
PAIR_VALUES = {
    "claim_rate": ("Route claim rate (any track of a city pair)", "claim rate (% of games any of its tracks was "
                   "claimed)", "viridis_r", True),
    "median_round": ("Median round of a route's first claim", "median round of the first claim (1 = every seat's "
                     "first turn)", "plasma", False),
    "multi_rate": ("Double/triple routes: more than one track claimed", "games with 2+ tracks claimed (%)",
                   "viridis_r", True),
}


def board_map(m, routes, value: str = "claim_rate", subtitle: str | None = None, city_labels: bool = True,
              title: str | None = None):
    """The board with every route as a line coloured by ``value``, a column of
    ``routes``: one row per city pair (``group``; routes.route_pairs:
    ``claim_rate``, ``median_round``, ``multi_rate``) or per track (``route``;
    routes.route_contention: ``claim_rate``, ``median_round``,
    ``group_multi_rate``). For claim rates the width grows with the rate too.
    Lines without a value (never claimed, single routes for the multi-track
    rates) are thin grey dotted lines. Returns a Figure with a colour bar
    labelled with the unit."""
    df = as_polars(routes)
    pairs = "route" not in df.columns and "group" in df.columns
    key = "group" if pairs else "route"
    table = PAIR_VALUES if pairs else VALUES
    ttl, cbar_label, cmap_name, is_rate = table.get(value, (value.replace("_", " "), value, "viridis", False))
    if pairs:
        group = np.asarray(m.route_group, dtype=int)
        firsts = np.array([int(np.flatnonzero(group == g)[0]) for g in range(int(group.max()) + 1)])
        seg = track_segments(m, spacing=0.0)[firsts]
    else:
        seg = track_segments(m)
    vals = np.full(len(seg), np.nan)
    if df.height:
        ids = np.asarray(df[key].to_list(), dtype=int)
        ok = (ids >= 0) & (ids < len(seg))
        vals[ids[ok]] = floats(df[value].to_list())[ok]
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
    ax.set_ylim(hi_xy[1] + pad[1], lo_xy[1] - pad[1])          # board coordinates: y grows downwards
    ax.set_aspect("equal")
    ax.set_axis_off()                                           # a map: its coordinates mean nothing to a reader
    never = int((~has).sum())
    note = ""
    if value == "claim_rate":
        note = " (line width also grows with the rate)"
    elif never:
        note = f" (dotted: {never} {'route' if pairs else 'track'}{'s' if never != 1 else ''} without a value)"
    # the note on a line of its own: a tall board (Germany) is narrower than the title
    ax.set_title((title or f"{ttl} on the {m.name} board") + (f"\n{note.strip()}" if note else "")
                 + (f"\n{subtitle}" if subtitle else ""), fontsize=11)
    return fig


def _scalar_mappable(norm, cmap):
    from matplotlib.cm import ScalarMappable
    sm = ScalarMappable(norm=norm, cmap=cmap)
    sm.set_array(np.array([]))
    return sm

