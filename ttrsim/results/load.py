"""One call to load a results folder: :func:`load` (``ttrsim.open``) gives
every table of a ``ttrsim run`` folder as a polars ``LazyFrame`` with the
names joined in, built on the one reader of results folders
(:class:`ttrsim.results.reader.Results`: the part files are checked
against the manifest, a damaged chunk is left out with a note).

The four tables (``games``, ``players``, ``tickets``, ``turns``) hold ids;
:class:`ResultTables` adds what they name (:data:`ADDED`): the strategy label
of every seat (an ``Enum`` in line-up order), the built-in strategy behind
each label, the city pair of every ticket and route, the city of every
station, and at every sweep point the swept values (one column per swept
key). The dimension tables are there too, as ``dims/routes``,
``dims/tickets``, ``dims/strategies`` and ``dims/points`` (the last with the
swept values decoded: numbers stay numbers). :meth:`ResultTables.to_pandas`
gives a pandas frame where pandas is installed (``pip install
'ttrsim[pandas]'``); :func:`folder_schema` lists every table's fields with
their type and description (``ttrsim schema RESULTS``): the descriptions are
stored in the files (the fields' metadata ``b"description"``), and this
ttrsim's own are used for a folder written before they were.

>>> import tempfile, polars as pl
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()
>>> folder = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4,
...                          "seed": 1, "log": True, "workers": 1}, output=f"{tmp.name}/doc",
...                         progress=False, echo=False).path
>>> r = load(folder)                    # ttrsim.open(folder)
>>> sorted(r)
['dims/points', 'dims/routes', 'dims/strategies', 'dims/tickets', 'games', 'players', 'tickets', 'turns']
>>> r["players"].group_by("strategy").agg(pl.len()).sort("strategy").collect().rows()
[('random', 4), ('route_focus', 4)]
>>> r["tickets"].select("strategy", "ticket_from", "ticket_to", "ticket_name").collect_schema().names()
['strategy', 'ticket_from', 'ticket_to', 'ticket_name']
>>> claims = r["turns"].filter(pl.col("action") == "claim").select("route_from", "route_to").collect()
>>> claims.height > 0 and claims.null_count().sum_horizontal().item() == 0
True
>>> tmp.cleanup()
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from .folder import DIM_DESCRIPTIONS, DIMS, TABLES
from .reader import Results, ResultsError
from .tables import DESCRIPTION, DESCRIPTIONS

__all__ = ["load", "ResultTables", "folder_schema", "ADDED", "PANDAS_MISSING"]

PANDAS_MISSING = "to_pandas needs the optional dependency 'pandas': pip install 'ttrsim[pandas]'"

# the columns :class:`ResultTables` adds to the tables of the folder (besides one per swept key)
ADDED = {
    "games": {},
    "players": {"block": "seed block (from the game id)",
                "strategy_name": "the built-in strategy behind the label (MODULE:CLASS for Python), "
                                 "from dims/strategies"},
    "tickets": {"block": "seed block (from the game id)", "seating": "seating within the block (from the game id)",
                "strategy": "label of the seat's strategy (from the seatings of the manifest)",
                "ticket_from": "one end of the ticket (dims/tickets)", "ticket_to": "its other end (dims/tickets)",
                "ticket_name": "the ticket as 'from - to'"},
    "turns": {"block": "seed block (from the game id)", "seating": "seating within the block (from the game id)",
              "strategy": "label of the seat's strategy (from the seatings of the manifest)",
              "route_label": "the claimed route as the map names it (dims/routes); null",
              "route_from": "one end of the claimed route (dims/routes); null",
              "route_to": "its other end (dims/routes); null",
              "station_city": "the city a station was built on (map.json); null"},
}
SWEPT = "the swept value at the point (one column per key of sweep)"


def load(path, storage_options: dict | None = None) -> ResultTables:
    """The tables of the results folder ``path`` (or of a :class:`Results`;
    or a URL, with its file system's ``storage_options``), names joined in.
    Raises :class:`ResultsError` (one line) for a folder that cannot be read."""
    return ResultTables(Results.open(path, storage_options))


class ResultTables(Mapping):
    """Every table of a results folder as a ``LazyFrame``: ``r["games"]``,
    ``r["players"]``, ``r["tickets"]``, ``r["turns"]`` (with ``log: true``)
    and ``r["dims/routes"]`` ... ``r["dims/points"]``; also as attributes
    (``r.games``, ``r.turns``, ``r.dims["tickets"]``). ``results`` is the
    folder's :class:`Results` (manifest, map, rules), ``note`` its one-line
    note (an unfinished run, a damaged chunk left out) or None."""

    def __init__(self, results: Results):
        self.results = results
        self.path: Path | str = results.path
        self.note: str | None = results.note
        self._names = [t for t in TABLES if t != "turns" or results.has_turns] + [f"dims/{d}" for d in DIMS]

    def __repr__(self):
        return f"ResultTables({str(self.path)!r}: {', '.join(self._names)})"

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)

    def __getitem__(self, name: str) -> pl.LazyFrame:
        if name not in self._names:
            what = "no turns table; run the experiment with log: true" if name == "turns" else \
                f"unknown table '{name}'; expected one of {', '.join(self._names)}"
            raise KeyError(f"{self.path}: {what}")
        if name.startswith("dims/"):
            return self._dim(name[5:])
        return getattr(self, f"_{name}")()

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in TABLES:
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(e.args[0]) from None

    @property
    def dims(self) -> dict[str, pl.LazyFrame]:
        """The dimension tables by name: routes, tickets, strategies, points."""
        return {d: self._dim(d) for d in DIMS}

    def to_pandas(self, name: str):
        """Table ``name`` collected into a pandas ``DataFrame`` (names as
        ``category``); an ``ImportError`` in one line without pandas."""
        try:
            import pandas  # noqa: F401
        except ImportError:
            raise ImportError(PANDAS_MISSING, name="pandas") from None
        return self[name].collect().to_pandas()

    def files(self, table: str) -> list[str]:
        """The part files of ``table`` the manifest lists and that check out
        (what a DuckDB view should read: ``read_parquet([...])``); an unknown
        table is a :class:`ResultsError`."""
        return self.results.part_files(table)

    # ------------------------------------------------------------------ the tables
    # (names are looked up element by element, never joined: every table keeps the order of its part files)

    @staticmethod
    def _lookup(column, names: dict, dtype=pl.String) -> pl.Expr:
        """``column``'s values (a name or an expression) replaced by ``names`` (null where it names none)."""
        col = pl.col(column) if isinstance(column, str) else column
        return col.replace_strict(names, default=None, return_dtype=dtype)

    def _swept(self, lf: pl.LazyFrame) -> pl.LazyFrame:
        """``lf`` with the swept values of its point (nothing without a sweep)."""
        points = self.results.points
        return lf.with_columns(self._lookup("point", dict(zip(points["point"], points[k])), points.schema[k])
                               .alias(k) for k in self.results.sweep_keys)

    def _labels(self, *columns: str) -> list[pl.Expr]:
        """The strategy columns as an ``Enum`` of the labels, in line-up order."""
        return [pl.col(c).cast(pl.String).cast(self.results.strategy_dtype) for c in columns]

    def _seat_strategy(self, lf: pl.LazyFrame) -> pl.LazyFrame:
        """``lf`` (with ``game`` and ``seat``) with ``seating`` and the seat's ``strategy`` label."""
        res, players = self.results, self.results.players
        labels = {k * players + seat: res.labels[e] for k, s in enumerate(res.seatings) for seat, e in enumerate(s)}
        key = pl.col("seating").cast(pl.Int64) * players + pl.col("seat").cast(pl.Int64)
        return lf.with_columns(res.seating_expr()).with_columns(
            key.replace_strict(labels, default=None, return_dtype=pl.String).cast(res.strategy_dtype)
            .alias("strategy"))

    def _games(self) -> pl.LazyFrame:
        lf = self.results.scan("games")
        return self._swept(lf.with_columns(self._labels(*[c for c in lf.collect_schema().names()
                                                          if c.startswith("strategy_")])))

    def _players(self) -> pl.LazyFrame:
        names = dict(self.results.dim("strategies").select("strategy", "name").iter_rows())
        lf = self.results.scan("players").with_columns(self._labels("strategy"))
        return self._swept(lf.with_columns(self._lookup(pl.col("strategy").cast(pl.String), names)
                                           .alias("strategy_name")))

    def _tickets(self) -> pl.LazyFrame:
        t = self.results.dim("tickets")
        ids = t["ticket"].cast(pl.Int16).to_list()
        name = (t["from"] + " - " + t["to"]).to_list()
        lf = self._seat_strategy(self.results.scan("tickets"))
        return self._swept(lf.with_columns(self._lookup("ticket", dict(zip(ids, t[c].to_list()))).alias(f"ticket_{c}")
                                           for c in ("from", "to"))
                           .with_columns(self._lookup("ticket", dict(zip(ids, name))).alias("ticket_name")))

    def _turns(self) -> pl.LazyFrame:
        r = self.results.dim("routes")
        ids = r["route"].cast(pl.Int16).to_list()
        cities = dict(enumerate(self.results.map.location_names))
        lf = self._seat_strategy(self.results.scan("turns"))
        lf = lf.with_columns(*[self._lookup("route", dict(zip(ids, r[c].to_list()))).alias(f"route_{c}")
                               for c in ("label", "from", "to")],
                             self._lookup("station", cities).alias("station_city"))
        return self._swept(lf)

    def _dim(self, name: str) -> pl.LazyFrame:
        lf = self.results.dim(name).lazy()
        return self._swept(lf.with_columns(pl.col("point").cast(pl.UInt16))) if name == "points" else lf


# --------------------------------------------------------------------------- the schema of a folder

def _type_text(t: pa.DataType) -> str:
    """An Arrow type as a short text: ``uint32``, ``string (dictionary)``, ``list<int8>``."""
    if pa.types.is_dictionary(t):
        return f"{t.value_type} (dictionary)"
    if pa.types.is_list(t):
        return f"list<{t.value_type}>"
    return str(t)


def folder_schema(path) -> dict:
    """``{"path", "tables": {table: [{"name", "type", "description", "added"}, ...]}}``
    for every table of the folder (games, players, tickets, turns, dims/...):
    the fields of its files (their Arrow type and the description stored
    with them; a folder written before descriptions were stored gets this
    ttrsim's), then the columns :class:`ResultTables` adds (``added``: true,
    their polars type)."""
    r = load(path)
    folder = r.results.folder
    out = {}
    for name in r:
        if name.startswith("dims/"):
            d = name[5:]
            file, own = f"dims/{d}.parquet", DIM_DESCRIPTIONS[d]
            added = {}
        else:
            file, own = r.results.part_files(name)[0], DESCRIPTIONS[name]
            file, added = file[file.rindex(name + "/"):], dict(ADDED[name])      # (relative to the folder)
        try:
            schema = pq.read_schema(folder.file(*file.split("/")), filesystem=folder.fs)
        except (OSError, pa.ArrowException) as e:
            raise ResultsError(f"{r.path}: {file} is unreadable ({str(e).splitlines()[0]})") from None
        fields = [{"name": f.name, "type": _type_text(f.type),
                   "description": ((f.metadata or {}).get(DESCRIPTION) or own.get(f.name, "").encode()).decode(),
                   "added": False} for f in schema]
        stored = {f["name"] for f in fields}
        if name in TABLES or name == "dims/points":
            added.update({k: SWEPT for k in r.results.sweep_keys})
        polars_schema = r[name].collect_schema()
        fields += [{"name": c, "type": "Enum (the labels)" if isinstance(polars_schema[c], pl.Enum) else
                    str(polars_schema[c]), "description": added[c], "added": True}
                   for c in polars_schema.names() if c not in stored and c in added]
        out[name] = fields
    return {"path": str(r.path), "tables": out}
