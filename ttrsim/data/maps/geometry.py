"""Board geometry: where a map's routes run in board pixels, for drawing.

The picture of a game position (:mod:`ttrsim.play.render`) and the report's
board maps (:mod:`ttrsim.report.boardmap`) draw the same tracks from the
map's city and border-point coordinates (``MapData.node_xy``); numpy only.

>>> from ttrsim.data.maps import load_map
>>> m = load_map("usa")
>>> seg = track_segments(m)
>>> seg.shape == (m.n_routes, 2, 2)
True
>>> bool((track_segments(m, spacing=0.0)[:, 0] == m.node_xy[m.route_a]).all())
True
"""
from __future__ import annotations

import numpy as np

__all__ = ["track_segments"]


def track_segments(m, spacing: float | None = None) -> np.ndarray:
    """Line segments of every route, shape (routes, 2, 2) in board pixels:
    the tracks of a parallel group are offset across their line by
    ``spacing`` (default 0.9% of the board's larger side) so they do not overlap."""
    xy = np.asarray(m.node_xy, dtype=float)
    a = xy[np.asarray(m.route_a, dtype=int)]
    b = xy[np.asarray(m.route_b, dtype=int)]
    if spacing is None:
        span = xy.max(axis=0) - xy.min(axis=0)
        spacing = 0.009 * float(max(span.max(), 1.0))
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    length[length == 0] = 1.0
    normal = np.column_stack([-d[:, 1], d[:, 0]]) / length[:, None]
    group = np.asarray(m.route_group, dtype=int)
    offset = np.zeros(m.n_routes)
    for g in np.unique(group):
        members = np.flatnonzero(group == g)
        if len(members) > 1:
            offset[members] = (np.arange(len(members)) - (len(members) - 1) / 2) * spacing
    shift = normal * offset[:, None]
    return np.stack([a + shift, b + shift], axis=1)
