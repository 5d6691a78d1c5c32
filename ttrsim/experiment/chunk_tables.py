"""The rows of a chunk's part files, built from the arrays of the compiled loop
(:mod:`ttrsim.play.chunk`, :mod:`ttrsim.play.turnlog`) as Arrow tables of the
schemas of :mod:`ttrsim.results.tables` (straight from numpy, no copy through
Python objects).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from ttrsim.core.state import (
    F_GLOBETROTTER,
    F_LP_BONUS,
    F_LP_LEN,
    F_N_COMPLETED,
    F_N_FAILED,
    F_N_PASSENGERS,
    F_PASSENGER_PTS,
    F_ROUTES,
    F_STATION_PTS,
    F_STATIONS_BUILT,
    F_STATIONS_USED,
    F_TICKETS_LOST,
    F_TICKETS_RESCUED,
    F_TICKETS_WON,
    F_TOTAL,
    F_WINNER,
)
from ttrsim.data.ids import PASSENGER_NAMES
from ttrsim.play.chunk import X_CARDS, X_PASS0, X_TRAINS
from ttrsim.play.turnlog import (
    G_END,
    G_TURNS,
    O_COMPLETED,
    O_DONE_TURN,
    O_GAME,
    O_KEPT,
    O_SEAT,
    O_TICKET,
    O_TURN,
    T_CARD1,
    T_CARD2,
    T_GAME,
    T_HAND,
    T_KIND,
    T_LOCOS,
    T_PASS1,
    T_PASS2,
    T_PAY_COLOUR,
    T_ROUTE,
    T_SCORE,
    T_SEAT,
    T_SRC1,
    T_SRC2,
    T_STATION,
    T_TK_DRAWN,
    T_TK_KEPT,
    T_TK_PILE0,
    T_TRAINS,
    T_TUNNEL_EXTRA,
    T_TUNNEL_PAID,
    T_TURN,
)
from ttrsim.results.tables import MAX_SEATS, NAME_TABLES, SCHEMAS, SCORE_TYPES

# the players table's score columns (ttrsim.results.tables.SCORE_TYPES) -> their index in the final scores
SCORE_FINALS = {
    "total": F_TOTAL, "routes": F_ROUTES, "tickets_won": F_TICKETS_WON, "tickets_lost": F_TICKETS_LOST,
    "tickets_completed": F_N_COMPLETED, "tickets_failed": F_N_FAILED, "longest_path": F_LP_LEN,
    "longest_bonus": F_LP_BONUS, "globetrotter": F_GLOBETROTTER, "passenger_points": F_PASSENGER_PTS,
    "passengers": F_N_PASSENGERS, "station_points": F_STATION_PTS, "stations_built": F_STATIONS_BUILT,
    "stations_used": F_STATIONS_USED, "tickets_rescued": F_TICKETS_RESCUED,
}


def _dict(codes: np.ndarray, names, index_type=np.int8) -> pa.DictionaryArray:
    """Dictionary column from small-int codes; negative codes are nulls."""
    codes = np.asarray(codes)
    neg = codes < 0
    idx = pa.array(codes.astype(index_type), mask=neg if neg.any() else None)
    return pa.DictionaryArray.from_arrays(idx, _names(tuple(names)), safe=False)


_NAME_ARRAYS: dict = {}


def _names(names: tuple) -> pa.Array:
    arr = _NAME_ARRAYS.get(names)
    if arr is None:
        arr = _NAME_ARRAYS[names] = pa.array(list(names), pa.string())
    return arr


def _int(values: np.ndarray, t: pa.DataType, nullable: bool = False) -> pa.Array:
    values = np.asarray(values)
    np_t = t.to_pandas_dtype()
    info = np.iinfo(np_t)
    if values.size and (values.min() < info.min or values.max() > info.max):
        raise OverflowError(f"a value out of the {t} range of the tables: {values.min()}..{values.max()}")
    mask = values < 0 if nullable and values.size and (values < 0).any() else None
    return pa.array(values.astype(np_t), type=t, mask=mask)


class ChunkContext:
    """What the conversion needs about one sweep point: seat labels, seatings,
    ticket points, and ``route_ids`` (``Board.route_map_id``: the map file's id
    of each route of the board, which the turns table writes, R9.2)."""

    def __init__(self, point: int, preset: str, players: int, labels, seatings: np.ndarray,
                 ticket_points: np.ndarray, route_ids: np.ndarray):
        self.point = point
        self.preset_code = NAME_TABLES["rules"].index(preset)
        self.players = players
        self.labels = tuple(labels)
        self.seatings = np.asarray(seatings, np.int64)      # [n_seatings, players] entrant per seat
        self.ticket_points = np.asarray(ticket_points, np.int64)
        self.route_ids = np.asarray(route_ids, np.int64)


def games_table(ctx: ChunkContext, game_ids, blocks, seating, seeds, meta, results) -> pa.Table:
    n, p = results.shape[0], ctx.players
    ent = ctx.seatings[seating]                          # [n, P]
    win = results[:, :, F_WINNER] > 0
    n_win = win.sum(axis=1)
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(n_win, out=offsets[1:])
    win_seats = np.nonzero(win)[1].astype(np.int8)        # row-major: per game in seat order
    cols = {
        "game": _int(game_ids, pa.uint32()), "point": _int(np.full(n, ctx.point), pa.uint16()),
        "block": _int(blocks, pa.uint32()), "seating": _int(seating, pa.uint16()),
        "seed": pa.array(np.asarray(seeds, np.int64)),
        "rules": _dict(np.full(n, ctx.preset_code), NAME_TABLES["rules"]),
        "players": _int(np.full(n, p), pa.int8()),
    }
    for s in range(MAX_SEATS):
        codes = ent[:, s] if s < p else np.full(n, -1)
        cols[f"strategy_{s}"] = _dict(codes, ctx.labels, np.int16)
    cols["end"] = _dict(meta[:, G_END] - 1, NAME_TABLES["end"])
    cols["turns"] = _int(meta[:, G_TURNS], pa.int16())
    cols["winners"] = pa.ListArray.from_arrays(pa.array(offsets), pa.array(win_seats, pa.int8()))
    cols["n_winners"] = _int(n_win, pa.int8())
    return pa.table(cols, schema=SCHEMAS["games"])


def players_table(ctx: ChunkContext, game_ids, seating, results, extra) -> pa.Table:
    n, p = results.shape[0], ctx.players
    ent = ctx.seatings[seating]
    win = results[:, :, F_WINNER] > 0
    share = win / np.maximum(win.sum(axis=1, keepdims=True), 1)
    flat = lambda a: np.ascontiguousarray(a).reshape(n * p)  # noqa: E731
    cols = {
        "game": _int(np.repeat(game_ids, p), pa.uint32()), "point": _int(np.full(n * p, ctx.point), pa.uint16()),
        "seat": _int(np.tile(np.arange(p), n), pa.int8()), "strategy": _dict(flat(ent), ctx.labels, np.int16),
    }
    for name, t in SCORE_TYPES:
        cols[name] = _int(flat(results[:, :, SCORE_FINALS[name]]), t)
    for c, cname in enumerate(PASSENGER_NAMES):
        cols[f"passengers_{cname}"] = _int(flat(extra[:, :, X_PASS0 + c]), pa.int16())
    cols["trains_left"] = _int(flat(extra[:, :, X_TRAINS]), pa.int16())
    cols["cards_left"] = _int(flat(extra[:, :, X_CARDS]), pa.int16())
    cols["winner"] = pa.array(flat(win))
    cols["win_share"] = pa.array(flat(share).astype(np.float32))
    return pa.table(cols, schema=SCHEMAS["players"])


def tickets_table(ctx: ChunkContext, game_ids, offers: np.ndarray) -> pa.Table:
    """``offers``: the used rows of ``Log.offers``; its game column indexes ``game_ids``."""
    n = offers.shape[0]
    turn = offers[:, O_TURN]
    kept = offers[:, O_KEPT] > 0
    completed = pa.array(offers[:, O_COMPLETED] > 0, mask=~kept if n and not kept.all() else None)
    cols = {
        "game": _int(game_ids[offers[:, O_GAME]], pa.uint32()), "point": _int(np.full(n, ctx.point), pa.uint16()),
        "seat": _int(offers[:, O_SEAT], pa.int8()), "ticket": _int(offers[:, O_TICKET], pa.int16()),
        "setup": pa.array(turn < 0), "turn": _int(turn, pa.int16(), nullable=True),
        "kept": pa.array(kept), "completed": completed,
        "completed_turn": _int(offers[:, O_DONE_TURN], pa.int16(), nullable=True),
        "points": _int(ctx.ticket_points[offers[:, O_TICKET]], pa.int16()),
    }
    return pa.table(cols, schema=SCHEMAS["tickets"])


def turns_table(ctx: ChunkContext, game_ids, turns: np.ndarray) -> pa.Table:
    """``turns``: the used rows of ``Log.turns``; its game column indexes ``game_ids``."""
    n = turns.shape[0]
    cols_t = np.ascontiguousarray(turns.T)          # one pass; every column contiguous
    c = lambda k: cols_t[k]  # noqa: E731
    cols = {
        "game": _int(game_ids[c(T_GAME)], pa.uint32()), "point": _int(np.full(n, ctx.point), pa.uint16()),
        "turn": _int(c(T_TURN), pa.int16()), "seat": _int(c(T_SEAT), pa.int8()),
        "action": _dict(c(T_KIND), NAME_TABLES["action"]),
        "route": _int(np.where(c(T_ROUTE) >= 0, ctx.route_ids[c(T_ROUTE)], -1), pa.int16(), nullable=True),
        "pay_colour": _dict(c(T_PAY_COLOUR), NAME_TABLES["card"]),
        "locomotives": _int(c(T_LOCOS), pa.int8()),
        "card1": _dict(c(T_CARD1), NAME_TABLES["card"]), "source1": _dict(c(T_SRC1), NAME_TABLES["source"]),
        "card2": _dict(c(T_CARD2), NAME_TABLES["card"]), "source2": _dict(c(T_SRC2), NAME_TABLES["source"]),
        "tickets_drawn": _int(c(T_TK_DRAWN), pa.int8()), "tickets_kept": _int(c(T_TK_KEPT), pa.int8()),
        "tickets_pile0": _int(c(T_TK_PILE0), pa.int8()),
        "passenger1": _dict(c(T_PASS1), NAME_TABLES["passenger"]),
        "passenger2": _dict(c(T_PASS2), NAME_TABLES["passenger"]),
        "score": _int(c(T_SCORE), pa.int32()), "trains": _int(c(T_TRAINS), pa.int16()),
        "hand": _int(c(T_HAND), pa.int16()),
        "tunnel_extra": _int(c(T_TUNNEL_EXTRA), pa.int8(), nullable=True),
        "tunnel_paid": pa.array(c(T_TUNNEL_PAID) > 0, mask=c(T_TUNNEL_PAID) < 0),
        "station": _int(c(T_STATION), pa.int16(), nullable=True),
    }
    return pa.table(cols, schema=SCHEMAS["turns"])
