"""The Parquet tables of a results folder: their schemas, column descriptions
and name tables, and the Parquet bytes of a part file. (The rows are built from
the arrays of the compiled loop by :mod:`ttrsim.experiment.chunk_tables`.)

Columns have compact types. Names (rule set, strategy, end reason, action,
card and passenger colours, card source) are dictionary-encoded text: polars
reads them as ``Categorical``, pandas as ``category``; each column's name
table is in :data:`NAME_TABLES`. Routes and tickets are small-int ids with the
dimension tables ``dims/routes.parquet`` and ``dims/tickets.parquet``
(:mod:`ttrsim.results.folder`). Missing values (no route on a card turn,
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

import pyarrow as pa
import pyarrow.parquet as pq

from ttrsim.data.ids import CARD_NAMES, END_NAMES, KIND_NAMES, PASSENGER_NAMES, SOURCE_NAMES
from ttrsim.data.rules import preset_names

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

# the score components of the players table (ttrsim.core.state.FINAL_NAMES) -> their column type
SCORE_TYPES = (
    ("total", pa.int32()),
    ("routes", pa.int32()),
    ("tickets_won", pa.int32()),
    ("tickets_lost", pa.int32()),
    ("tickets_completed", pa.int16()),
    ("tickets_failed", pa.int16()),
    ("longest_path", pa.int16()),
    ("longest_bonus", pa.int32()),
    ("globetrotter", pa.int32()),
    ("passenger_points", pa.int32()),
    ("passengers", pa.int16()),
    ("station_points", pa.int32()),
    ("stations_built", pa.int8()),
    ("stations_used", pa.int8()),
    ("tickets_rescued", pa.int16()),
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
        + list(SCORE_TYPES)
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


def to_parquet_bytes(table: pa.Table, tag: dict | None = None) -> bytes:
    """Parquet (zstd) with dictionary pages only for the name columns (numbers
    compress smaller and faster plain) and min/max statistics for game and point
    (enough to skip row groups when filtering by game). ``tag`` goes into the
    file's metadata under ``ttrsim`` (:func:`ttrsim.results.folder.part_tag`)."""
    if tag is not None:
        table = table.replace_schema_metadata({"ttrsim": json.dumps(tag, sort_keys=True)})
    sink = pa.BufferOutputStream()
    names = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
    pq.write_table(table, sink, compression=COMPRESSION, compression_level=1, use_dictionary=names,
                   write_statistics=["game", "point"])
    return sink.getvalue().to_pybytes()


def from_parquet_bytes(data: bytes) -> pa.Table:
    return pq.read_table(io.BytesIO(data))
