"""The Parquet tables of an experiment: schemas and conversion from the arrays
of the compiled loop (:mod:`ttrsim.play.chunk`, :mod:`ttrsim.play.turnlog`).

Tables are built as Arrow tables straight from numpy (no copy through Python
objects) with compact types. Names (rule set, strategy, end reason, action,
card and passenger colours, card source) are dictionary-encoded text: polars
reads them as ``Categorical``, pandas as ``category``; each column's name
table is in :data:`NAME_TABLES`. Routes and tickets are small-int ids with the
dimension tables ``dims/routes.parquet`` and ``dims/tickets.parquet``
(:mod:`ttrsim.experiment.folder`). Missing values (no route on a card turn,
the second card of a locomotive draw, ...) are nulls. ``docs/experiments.md`` documents every column; each
column's one-line description (:data:`DESCRIPTIONS`) is in the part files themselves, as the field's
metadata ``b"description"`` of the Arrow schema (the same in every part file, so part files stay
byte-identical between runs).

>>> [f.name for f in SCHEMAS["games"]][:6]
['game', 'point', 'block', 'seating', 'seed', 'rules']
>>> str(SCHEMAS["turns"].field("action").type)
'dictionary<values=string, indices=int8, ordered=0>'
>>> SCHEMAS["tickets"].field("setup").metadata[DESCRIPTION]
b'offered at setup (else drawn in a turn)'
"""
from __future__ import annotations

import io
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ttrsim.core.state import (
    END_NAMES,
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
from ttrsim.data.ids import CARD_NAMES, PASSENGER_NAMES
from ttrsim.data.rules import preset_names
from ttrsim.play.chunk import X_CARDS, X_PASS0, X_TRAINS
from ttrsim.play.turnlog import (
    G_END,
    G_TURNS,
    KIND_NAMES,
    O_COMPLETED,
    O_DONE_TURN,
    O_GAME,
    O_KEPT,
    O_SEAT,
    O_TICKET,
    O_TURN,
    SOURCE_NAMES,
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

MAX_SEATS = 5
COMPRESSION = "zstd"

# name tables of the dictionary columns (the strategy labels are the experiment's)
NAME_TABLES = {
    "rules": tuple(preset_names()),
    "end": END_NAMES[1:],                 # normal, stalled, capped
    "action": KIND_NAMES,                 # cards, claim, tickets, pass, station
    "card": CARD_NAMES,                   # 8 colours + locomotive (pay_colour: locomotive = locomotives only)
    "source": SOURCE_NAMES,               # face-up, blind
    "passenger": PASSENGER_NAMES,
}

_DICT8 = pa.dictionary(pa.int8(), pa.string())
_DICT16 = pa.dictionary(pa.int16(), pa.string())

# score components of ttrsim.core.state.FINAL_NAMES -> (column, final index, type)
SCORE_COLUMNS = (
    ("total", F_TOTAL, pa.int32()),
    ("routes", F_ROUTES, pa.int32()),
    ("tickets_won", F_TICKETS_WON, pa.int32()),
    ("tickets_lost", F_TICKETS_LOST, pa.int32()),
    ("tickets_completed", F_N_COMPLETED, pa.int16()),
    ("tickets_failed", F_N_FAILED, pa.int16()),
    ("longest_path", F_LP_LEN, pa.int16()),
    ("longest_bonus", F_LP_BONUS, pa.int32()),
    ("globetrotter", F_GLOBETROTTER, pa.int32()),
    ("passenger_points", F_PASSENGER_PTS, pa.int32()),
    ("passengers", F_N_PASSENGERS, pa.int16()),
    ("station_points", F_STATION_PTS, pa.int32()),
    ("stations_built", F_STATIONS_BUILT, pa.int8()),
    ("stations_used", F_STATIONS_USED, pa.int8()),
    ("tickets_rescued", F_TICKETS_RESCUED, pa.int16()),
)

# one line per column, stored in every part file's schema as the field's metadata (key b"description");
# docs/experiments.md has the long form
DESCRIPTIONS = {
    "games": {
        "game": "game id, unique in the folder: point * stride + game in the point",
        "point": "sweep point (dims/points)",
        "block": "seed block: the games of a block share a seed, one per seating",
        "seating": "seating within the block",
        "seed": "engine seed (Game(rules, players, seed) replays the deal)",
        "rules": "rule-set preset",
        "players": "seats at the table",
        **{f"strategy_{p}": f"label of the strategy in seat {p} (null beyond players)" for p in range(MAX_SEATS)},
        "end": "how the game ended: normal, stalled or capped",
        "turns": "turns played, all seats together",
        "winners": "winning seat(s), after the tie-breaks",
        "n_winners": "number of winners (more than 1: a shared win)",
    },
    "players": {
        "game": "game id (games.game)",
        "point": "sweep point (dims/points)",
        "seat": "0-based seat (seat 0 starts unless first_seat is set)",
        "strategy": "label of the seat's strategy (dims/strategies)",
        "total": "final score",
        "routes": "route points",
        "tickets_won": "points of the completed tickets",
        "tickets_lost": "points of the failed tickets (positive)",
        "tickets_completed": "tickets completed",
        "tickets_failed": "tickets failed",
        "longest_path": "length of the seat's longest continuous path",
        "longest_bonus": "longest-path bonus received",
        "globetrotter": "Globetrotter bonus received",
        "passenger_points": "passenger majority points",
        "passengers": "passengers collected",
        "station_points": "points for the stations not built (Europe)",
        "stations_built": "stations built",
        "stations_used": "stations built whose borrowed route counts for the tickets",
        "tickets_rescued": "tickets complete only thanks to a station's borrowed route",
        **{f"passengers_{c}": f"{c} passengers collected" for c in PASSENGER_NAMES},
        "trains_left": "trains left at the end",
        "cards_left": "train cards in hand at the end",
        "winner": "won (also a shared win)",
        "win_share": "1 / n_winners for a winner, else 0",
    },
    "tickets": {
        "game": "game id (games.game)",
        "point": "sweep point (dims/points)",
        "seat": "the seat it was offered to",
        "ticket": "ticket id (dims/tickets)",
        "setup": "offered at setup (else drawn in a turn)",
        "turn": "the turn it was drawn in; null at setup",
        "kept": "kept (else returned)",
        "completed": "kept and completed at the end; null for a returned ticket",
        "completed_turn": "the 0-based turn in which a kept ticket became complete; null otherwise",
        "points": "the ticket's printed points (scored and lost x the R6.3 percentages)",
    },
    "turns": {
        "game": "game id (games.game)",
        "point": "sweep point (dims/points)",
        "turn": "0-based turn over all seats",
        "seat": "the seat that played it",
        "action": "cards, claim, tickets, pass or station",
        "route": "claimed route id (dims/routes; a tunnel given up too); null otherwise",
        "pay_colour": "colour of the cards paid (locomotive: locomotives only); null",
        "locomotives": "locomotives paid",
        "card1": "first card taken; null",
        "source1": "where the first card came from: face-up or blind; null",
        "card2": "second card taken; null when a face-up locomotive ended the turn",
        "source2": "where the second card came from: face-up or blind; null",
        "tickets_drawn": "tickets drawn on a tickets turn",
        "tickets_kept": "tickets kept on a tickets turn",
        "tickets_pile0": "tickets taken from the first pile (Germany: short)",
        "passenger1": "first passenger colour taken with the claim (Germany); null",
        "passenger2": "second passenger colour taken with the claim (Germany); null",
        "score": "running score (route points) after the turn",
        "trains": "trains left after the turn",
        "hand": "train cards in hand after the turn",
        "tunnel_extra": "a tunnel claim: the extra cards the turned-over cards asked for; null otherwise",
        "tunnel_paid": "a tunnel claim: claimed (true) or given up (false); null otherwise",
        "station": "a station turn: the city (location id of map.json) it was built on; null otherwise",
    },
}
DESCRIPTION = b"description"      # the field metadata key of a column's description


def described(name: str, fields) -> pa.Schema:
    """The schema of ``fields`` ((name, type) pairs), each field carrying its
    line of ``DESCRIPTIONS[name]`` as metadata (``b"description"``)."""
    return pa.schema([pa.field(f, t, metadata={DESCRIPTION: DESCRIPTIONS[name][f].encode()}) for f, t in fields])


def with_descriptions(table: pa.Table, descriptions: dict) -> pa.Table:
    """``table`` with each column's line of ``descriptions`` as its field metadata (the dimension tables)."""
    fields = [f.with_metadata({DESCRIPTION: descriptions[f.name].encode()}) for f in table.schema]
    return table.cast(pa.schema(fields, table.schema.metadata))


SCHEMAS = {
    "games": described("games",
        [("game", pa.uint32()), ("point", pa.uint16()), ("block", pa.uint32()), ("seating", pa.uint16()),
         ("seed", pa.int64()), ("rules", _DICT8), ("players", pa.int8())]
        + [(f"strategy_{p}", _DICT16) for p in range(MAX_SEATS)]
        + [("end", _DICT8), ("turns", pa.int16()), ("winners", pa.list_(pa.int8())), ("n_winners", pa.int8())]),
    "players": described("players",
        [("game", pa.uint32()), ("point", pa.uint16()), ("seat", pa.int8()), ("strategy", _DICT16)]
        + [(name, t) for name, _, t in SCORE_COLUMNS]
        + [(f"passengers_{c}", pa.int16()) for c in PASSENGER_NAMES]
        + [("trains_left", pa.int16()), ("cards_left", pa.int16()), ("winner", pa.bool_()),
           ("win_share", pa.float32())]),
    "tickets": described("tickets",
        [("game", pa.uint32()), ("point", pa.uint16()), ("seat", pa.int8()), ("ticket", pa.int16()),
         ("setup", pa.bool_()), ("turn", pa.int16()), ("kept", pa.bool_()), ("completed", pa.bool_()),
         ("completed_turn", pa.int16()), ("points", pa.int16())]),
    "turns": described("turns",
        [("game", pa.uint32()), ("point", pa.uint16()), ("turn", pa.int16()), ("seat", pa.int8()),
         ("action", _DICT8), ("route", pa.int16()), ("pay_colour", _DICT8), ("locomotives", pa.int8()),
         ("card1", _DICT8), ("source1", _DICT8), ("card2", _DICT8), ("source2", _DICT8),
         ("tickets_drawn", pa.int8()), ("tickets_kept", pa.int8()), ("tickets_pile0", pa.int8()),
         ("passenger1", _DICT8), ("passenger2", _DICT8), ("score", pa.int32()), ("trains", pa.int16()),
         ("hand", pa.int16()), ("tunnel_extra", pa.int8()), ("tunnel_paid", pa.bool_()),
         ("station", pa.int16())]),
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
    for name, f, t in SCORE_COLUMNS:
        cols[name] = _int(flat(results[:, :, f]), t)
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


def to_parquet_bytes(table: pa.Table, tag: dict | None = None) -> bytes:
    """Parquet (zstd) with dictionary pages only for the name columns (numbers
    compress smaller and faster plain) and min/max statistics for game and point
    (enough to skip row groups when filtering by game). ``tag`` goes into the
    file's metadata under ``ttrsim`` (:func:`ttrsim.experiment.folder.part_tag`)."""
    if tag is not None:
        table = table.replace_schema_metadata({"ttrsim": json.dumps(tag, sort_keys=True)})
    sink = pa.BufferOutputStream()
    names = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
    pq.write_table(table, sink, compression=COMPRESSION, compression_level=1, use_dictionary=names,
                   write_statistics=["game", "point"])
    return sink.getvalue().to_pybytes()


def from_parquet_bytes(data: bytes) -> pa.Table:
    return pq.read_table(io.BytesIO(data))
