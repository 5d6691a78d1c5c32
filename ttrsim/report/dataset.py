"""Open a results folder (``ttrsim run`` output) for the report statistics.

A :class:`Results` reads only ``manifest.json`` and the Parquet tables; the
tables are scanned lazily (``polars.scan_parquet``) over the part files of the
chunks the manifest lists, so a report over millions of games never loads a
whole table. Columns and names are described in ``docs/experiments.md``.

>>> res = Results.open("results/quickstart")                       # doctest: +SKIP
>>> res.labels, res.players, res.rules, res.n_games                 # doctest: +SKIP
(['planner', 'route_focus', 'one_step', 'long_route'], 4, 'usa', 20000)
>>> res.scan("players").group_by("strategy").agg(pl.col("total").mean()).collect()  # doctest: +SKIP

A folder whose run is not complete (interrupted, failed, still running) opens
fine: the statistics cover the chunks finished so far, ``res.complete`` is
False and ``res.note`` says so in one line.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

import polars as pl

__all__ = ["Results", "ResultsError", "TABLES", "DIMS"]

TABLES = ("games", "players", "tickets", "turns")
DIMS = ("routes", "tickets", "strategies", "points")


class ResultsError(ValueError):
    """A results folder that cannot be reported on; the message is one line
    naming the folder and what is wrong."""


class Results:
    """A results folder: the manifest, and lazy scans over its tables."""

    def __init__(self, path: Path, manifest: dict, files: dict[str, list[str]], note: str | None):
        self.path = path
        self.manifest = manifest
        self._files = files
        self.note = note
        cfg = manifest["config"]
        layout = manifest["layout"]
        self.name: str = cfg.get("name", path.name)
        self.status: str = manifest.get("status", "unknown")
        self.complete: bool = self.status == "complete"
        self.labels: list[str] = [e["label"] for e in cfg["entrants"]]
        self.players: int = int(cfg["players"])
        self.rules: str = cfg["rules"]
        self.stride: int = int(layout["stride"])
        self.block_size: int = int(layout["block_size"])
        self.seatings: list[list[int]] = [list(s) for s in cfg["seatings"]]
        self.sweep_keys: list[str] = [k for k, _ in cfg.get("sweep") or []]
        self.has_turns: bool = bool(files.get("turns"))
        self._memo: dict = {}

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path) -> "Results":
        """Open ``path`` (a results folder). Raises :class:`ResultsError` for a
        missing folder, a missing or unreadable ``manifest.json``, or no part files."""
        if isinstance(path, Results):
            return path
        path = Path(path)
        if not path.is_dir():
            raise ResultsError(f"{path}: no such results folder")
        mf = path / "manifest.json"
        if not mf.is_file():
            raise ResultsError(f"{path}: no manifest.json; expected the output folder of 'ttrsim run'")
        try:
            manifest = json.loads(mf.read_text())
            cfg, layout = manifest["config"], manifest["layout"]
            cfg["entrants"], cfg["players"], cfg["rules"], cfg["seatings"]
            layout["stride"], layout["block_size"]
        except (ValueError, KeyError, TypeError) as e:
            raise ResultsError(f"{path}: manifest.json is unreadable ({type(e).__name__}: {e})") from None
        chunks = manifest.get("chunks") or {}
        files: dict[str, list[str]] = {}
        missing = 0
        for table in TABLES:
            listed = [path / table / f"part-{key}.parquet" for key in sorted(chunks)]
            present = [str(f) for f in listed if f.is_file()]
            if table != "turns" or cfg.get("log"):
                missing += len(listed) - len(present)
            files[table] = present
        if not files["games"] or not files["players"]:
            raise ResultsError(f"{path}: no part files (the run has no finished chunk yet)")
        notes = []
        status = manifest.get("status", "unknown")
        if status != "complete":
            games = sum(int(c["hi"]) - int(c["lo"]) for c in chunks.values())
            planned = int(layout.get("games_per_point", 0)) * len(cfg.get("points") or [0])
            notes.append(f"run status is '{status}'; {games:,} of {planned:,} games")
        if missing:
            notes.append(f"{missing} part files listed in the manifest are missing")
        note = f"{path}: " + "; ".join(notes) if notes else None
        return cls(path, manifest, files, note)

    def __repr__(self):
        return f"Results({str(self.path)!r}: {self.rules}, {self.players} players, {self.n_games:,} games)"

    # ------------------------------------------------------------------ config

    @functools.cached_property
    def map(self):
        """The map of the experiment (``ttrsim.data.maps.MapData``), loaded on first use."""
        from ttrsim.data.maps import load_map
        return load_map(self.map_name)

    @functools.cached_property
    def map_name(self) -> str:
        """The packaged map name or the map file path the experiment used."""
        return self.rules_at(0).map

    def rules_at(self, point: int = 0):
        """The resolved rule set (``ttrsim.data.rules.RuleSet``) of a sweep point."""
        return self._rules(int(point))

    @functools.lru_cache(maxsize=None)
    def _rules(self, point: int):
        from ttrsim.data.rules import get_rules
        cfg = self.manifest["config"]
        ro = dict(cfg.get("rule_overrides") or {})
        for p in cfg.get("points") or []:
            if int(p["point"]) == point:
                ro = dict(p.get("rule_overrides") or {})
        if isinstance(ro.get("scoring"), dict):  # JSON turned the lengths into text
            ro["scoring"] = {int(k): v for k, v in ro["scoring"].items()}
        for key in ("ticket_decks", "tiebreaks"):
            if isinstance(ro.get(key), list):
                ro[key] = tuple(ro[key])
        return get_rules(self.rules, ro)

    @functools.cached_property
    def points(self) -> pl.DataFrame:
        """``point`` (UInt16) and one column per swept key with its value at that
        point: numbers stay numbers, anything else is JSON text."""
        pts = self.manifest["config"].get("points") or [{"point": 0, "values": {}}]
        cols: dict[str, list] = {"point": [int(p["point"]) for p in pts]}
        for key in self.sweep_keys:
            vals = [p.get("values", {}).get(key) for p in pts]
            numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)
            cols[key] = vals if numeric else [v if isinstance(v, str) else json.dumps(v, sort_keys=True)
                                              for v in vals]
        df = pl.DataFrame(cols, strict=False)
        return df.with_columns(pl.col("point").cast(pl.UInt16))

    @property
    def point_ids(self) -> list[int]:
        return self.points["point"].to_list()

    # ------------------------------------------------------------------ tables

    def scan(self, table: str) -> pl.LazyFrame:
        """A lazy scan of ``games``, ``players``, ``tickets`` or ``turns`` over the
        finished chunks. Adds ``block`` (seed block = game-in-point // block_size)
        to the tables that lack it."""
        if table not in TABLES:
            raise ResultsError(f"{self.path}: unknown table '{table}'; expected one of {', '.join(TABLES)}")
        files = self._files.get(table) or []
        if not files:
            if table == "turns":
                raise ResultsError(f"{self.path}: no turns table; run the experiment with log: true")
            raise ResultsError(f"{self.path}: no part files for table '{table}'")
        lf = pl.scan_parquet(files)
        if table != "games":
            lf = lf.with_columns(self.block_expr())
        return lf

    def block_expr(self, game: str = "game") -> pl.Expr:
        """``block`` from the game id: (game % stride) // block_size, UInt32."""
        g = pl.col(game).cast(pl.Int64)
        return ((g % self.stride) // self.block_size).cast(pl.UInt32).alias("block")

    def seating_expr(self, game: str = "game") -> pl.Expr:
        """``seating`` within the block from the game id, UInt16."""
        g = pl.col(game).cast(pl.Int64)
        return ((g % self.stride) % self.block_size).cast(pl.UInt16).alias("seating")

    @functools.cached_property
    def strategy_dtype(self) -> pl.Enum:
        """An ``Enum`` over the labels in entrant order (fast group-bys)."""
        return pl.Enum(self.labels)

    @functools.cached_property
    def seat_strategies(self) -> pl.DataFrame:
        """seating, seat -> strategy (Enum of the labels), from the manifest's
        seatings: used to name the seat of a turn without joining ``players``."""
        rows = [(k, seat, self.labels[e]) for k, s in enumerate(self.seatings) for seat, e in enumerate(s)]
        return pl.DataFrame(rows, schema={"seating": pl.UInt16, "seat": pl.Int8, "strategy": self.strategy_dtype},
                            orient="row")

    def with_strategy(self, lf: pl.LazyFrame) -> pl.LazyFrame:
        """Add ``strategy`` (Enum) to a frame with ``game`` and ``seat`` columns."""
        return (lf.with_columns(self.seating_expr(), pl.col("seat").cast(pl.Int8))
                .join(self.seat_strategies.lazy(), on=["seating", "seat"], how="left"))

    def dim(self, name: str) -> pl.DataFrame:
        """A dimension table: ``routes``, ``tickets``, ``strategies`` or ``points``."""
        if name not in DIMS:
            raise ResultsError(f"{self.path}: unknown dimension '{name}'; expected one of {', '.join(DIMS)}")
        f = self.path / "dims" / f"{name}.parquet"
        if not f.is_file():
            raise ResultsError(f"{self.path}: dims/{name}.parquet is missing")
        return pl.read_parquet(f)

    @functools.cached_property
    def games_by_point(self) -> pl.DataFrame:
        """point, games: the games finished at each point."""
        return (self.scan("games").group_by("point").agg(pl.len().cast(pl.Int64).alias("games"))
                .sort("point").collect())

    @property
    def n_games(self) -> int:
        return int(self.games_by_point["games"].sum())

    def caption(self) -> str:
        """A one-line description for chart captions, e.g. ``'quickstart: usa, 4 players, 20,000 games'``."""
        pts = len(self.point_ids)
        per = f", {pts} sweep points" if pts > 1 else ""
        return f"{self.name}: {self.rules}, {self.players} players, {self.n_games:,} games{per}"

    def memo(self, key, compute):
        """``compute()`` once per Results and key: for intermediate tables that
        several statistics share (small: already aggregated)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def require_turns(self, what: str) -> None:
        """Raise ResultsError unless the turn log was written."""
        if not self.has_turns:
            raise ResultsError(f"{self.path}: {what} needs the turn log; run the experiment with log: true")
