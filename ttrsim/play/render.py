"""A game position drawn as a picture or written as text: the board from the
map's coordinates with claimed routes in seat colours, the face-up row and
each seat's score (:meth:`ttrsim.play.game.Game.render`, ``ttrsim play --render``).
The tracks are drawn where :func:`ttrsim.data.maps.geometry.track_segments`
puts them, as on the report's board maps. This module loads no compiled code
at import.

>>> from ttrsim.play.game import Game
>>> g = Game("usa", 3, seed=4)
>>> while g.turn < 12:
...     g.apply(g.legal_actions()[-1])
>>> print(text_board(g).splitlines()[0])
usa, 3 players, seed 4: turn 12, main, seat 0 to act
>>> board_image(g, dpi=30).shape[2]
3
"""
from __future__ import annotations

import numpy as np

from ttrsim.data.ids import CARD_NAMES, COLOUR_NAMES, GRAY
from ttrsim.data.maps.geometry import track_segments

SEAT_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd")     # seat 0..4
CARD_COLOURS = {"pink": "#e377c2", "blue": "#1f5fbf", "orange": "#ff8c1a", "white": "#f2f2f2", "green": "#2e9e3e",
                "yellow": "#f2d21b", "black": "#222222", "red": "#d02020", "locomotive": "#b0b0b0", "gray": "#a0a0a0"}


def _headline(game) -> str:
    who = "over" if game.over else f"{game.phase}, seat {game.player} to act"
    return f"{game.rules.preset}, {game.n_players} players, seed {game.seed}: turn {game.turn}, {who}"


def text_board(game) -> str:
    """The position as text: a headline, the face-up row, then one line per seat."""
    from ttrsim.core.state import M_COUNTDOWN, M_DECK_N

    s = game.state
    faceup = " ".join(CARD_NAMES[c] if c >= 0 else "-" for c in s.faceup.tolist())
    lines = [_headline(game), f"face-up: {faceup}; deck {int(s.meta[M_DECK_N])}, discards {int(s.discard.sum())}"
             + ("; last round" if s.meta[M_COUNTDOWN] >= 0 else "")]
    owner = s.route_owner
    for p in range(game.n_players):
        lines.append(f"seat {p}: score {int(s.score[p])}, trains {int(s.trains[p])}, routes {int((owner == p).sum())}, "
                     f"cards {int(s.hand[p].sum())}, tickets {int((s.ticket_holder == p).sum())}")
    if game.over:
        lines.append("final totals: " + ", ".join(f"seat {p} {r['total']}" for p, r in enumerate(game.result()["seats"]))
                     + f"; winner(s) {game.result()['winners']}")
    return "\n".join(lines)


def board_figure(game, width: float = 11.0):
    """A matplotlib Figure of the position (no pyplot state is touched)."""
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    from ttrsim.core.state import M_DECK_N

    m, s = game.map, game.state
    seg = track_segments(m)
    xy = np.asarray(m.node_xy, dtype=float)
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = np.maximum(hi - lo, 1.0)
    fig = Figure(figsize=(width, width * span[1] / span[0] * 0.9 + 1.4))
    ax = fig.add_axes((0.01, 0.12, 0.98, 0.8))
    owner = s.route_owner
    free = owner < 0
    route_colours = [CARD_COLOURS[COLOUR_NAMES[c] if c != GRAY else "gray"] for c in m.route_colour.tolist()]
    ax.add_collection(LineCollection(seg[free], colors=[route_colours[r] for r in np.flatnonzero(free)],
                                     linewidths=1.6, alpha=0.55, linestyles=(0, (2, 1)), zorder=1))
    if (~free).any():
        ax.add_collection(LineCollection(seg[~free], colors=[SEAT_COLOURS[o] for o in owner[~free].tolist()],
                                         linewidths=4.5, capstyle="butt", zorder=2))
    ax.scatter(xy[:, 0], xy[:, 1], s=16, c="white", edgecolors="k", linewidths=0.8, zorder=3)
    for n, name in enumerate(m.node_names):
        ax.annotate(name, xy[n], textcoords="offset points", xytext=(3, 3), fontsize=6.5, color="0.15", zorder=4)
    pad = 0.04 * span
    ax.set_xlim(lo[0] - pad[0], hi[0] + pad[0])
    ax.set_ylim(hi[1] + pad[1], lo[1] - pad[1])          # board pixels: y grows downwards
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(_headline(game), fontsize=11)

    strip = fig.add_axes((0.01, 0.01, 0.98, 0.1))
    strip.axis("off")
    strip.set_xlim(0, 100)
    strip.set_ylim(0, 10)
    strip.text(0, 7.5, "face-up", fontsize=9, va="center")
    for i, c in enumerate(s.faceup.tolist()):
        colour = CARD_COLOURS[CARD_NAMES[c]] if c >= 0 else "none"
        strip.add_patch(Rectangle((8 + 4.5 * i, 5), 4, 5, facecolor=colour, edgecolor="k", linewidth=0.8))
    strip.text(9 + 4.5 * len(s.faceup), 7.5, f"deck {int(s.meta[M_DECK_N])}", fontsize=8, va="center")
    for p in range(game.n_players):
        x = 34 + 13.2 * p
        strip.add_patch(Rectangle((x, 5.5), 2.5, 4, facecolor=SEAT_COLOURS[p], edgecolor="k", linewidth=0.5))
        total = game.result()["seats"][p]["total"] if game.over else int(s.score[p])
        strip.text(x + 3.2, 7.5, f"seat {p}: {total} pts\n{int(s.trains[p])} trains", fontsize=8, va="center")
    return fig


def board_image(game, dpi: int = 80) -> np.ndarray:
    """The position as an RGB image, uint8 [height, width, 3]."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = board_figure(game)
    canvas = FigureCanvasAgg(fig)
    fig.set_dpi(dpi)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


def save_board(game, path, dpi: int = 110) -> None:
    """Write the picture of the position to ``path`` (format from its suffix: png, svg, pdf)."""
    from pathlib import Path

    suffix = Path(path).suffix.lower()
    if suffix not in (".png", ".svg", ".pdf"):
        raise ValueError(f"cannot draw the board to {path}: expected a .png, .svg or .pdf file name")
    if not Path(path).parent.is_dir():
        raise ValueError(f"cannot draw the board to {path}: no folder {Path(path).parent}")
    board_figure(game).savefig(path, dpi=dpi)
