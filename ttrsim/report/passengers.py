"""Passenger majorities (Germany, R6.7): how each colour's majority is decided,
passenger points per strategy, how often they change who wins, and passengers
collected against routes claimed.

Only sweep points whose rules have passengers (``passenger_first > 0``) are
reported; for other rule sets every function returns an empty frame with the
documented columns.

**Majority outcome** of a colour in a game, from the per-colour counts in the
``players`` table. *Eligible* players are those holding at least one passenger
of the colour, or everyone when the rule parameter ``passenger_zero_scores`` is
true:

==================  ===========================================================
``single winner``   one player has the most, one player the second most
``tie for first``   two or more share the most (all score first, nobody second)
``tie for second``  one player has the most, two or more share the second most
``no second``       one player has the most and no other player is eligible
``nobody``          no eligible player (nobody collected that colour)
==================  ===========================================================

**Decisive passengers** (:func:`passenger_decisive`): a game *changed* when its
winner set differs once every seat's passenger points are taken off its total
(``total - passenger_points``), the winners being recomputed with the rule
set's tie-breaks (R6.8: most completed tickets, then most passengers
collected). Everything else (tickets, Globetrotter) stays as scored; the
players' play is of course not replayed.

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "planner"], "games": 4, "seed": 1,
...                        "rules": "germany",
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> from ttrsim.report import Results, majority_outcomes
>>> majority_outcomes(Results.open(path)).filter(pl.col("colour") == "black").select("outcome", "games").rows()
[('single winner', 2), ('tie for first', 1), ('tie for second', 0), ('no second', 1), ('nobody', 0)]
>>> tmp.cleanup()
"""
from __future__ import annotations

import numpy as np
import polars as pl

from ttrsim.data.rules import TIEBREAK_FEWEST

from .dataset import Results

__all__ = ["majority_outcomes", "passenger_points", "passenger_decisive", "passengers_vs_routes",
           "passengers_by_routes", "COLOURS", "OUTCOMES"]

COLOURS = ("black", "blue", "green", "red", "white", "yellow")
OUTCOMES = ("single winner", "tie for first", "tie for second", "no second", "nobody")
_TB_COLUMN = {"tickets": "tickets_completed", "longest_path": "longest_path", "passengers": "passengers",
              "stations": "stations_used", "longest_bonus": "longest_bonus", "stations_built": "stations_built"}


def _passenger_points(res: Results) -> list[int]:
    """The sweep points whose rules score passenger majorities."""
    return [p for p in res.point_ids if res.rules_at(p).passenger_first > 0]


def _seat_matrix(res: Results, points: list[int], columns: list[str]) -> dict[int, dict[str, np.ndarray]]:
    """Per point: each column as an array [games, seats] (rows sorted by game, seat)."""
    df = (res.scan("players").filter(pl.col("point").is_in(points))
          .select("point", "game", "seat", *columns).sort("game", "seat").collect())
    P = res.players
    out = {}
    for (point,), d in df.group_by("point"):
        n = d.height // P
        out[int(point)] = {c: d[c].to_numpy().reshape(n, P) for c in ("game", *columns)}
    return out


def majority_outcomes(res: Results) -> pl.DataFrame:
    """Per point and passenger colour: the distribution of majority outcomes
    (module docstring); all five outcomes per colour, even at 0.

    Columns: point, colour, outcome, games, share (of the point's games).
    """
    res = Results.open(res)
    schema = {"point": pl.UInt16, "colour": pl.String, "outcome": pl.String, "games": pl.Int64,
              "share": pl.Float64}
    points = _passenger_points(res)
    if not points:
        return pl.DataFrame(schema=schema)
    cols = [f"passengers_{c}" for c in COLOURS]
    rows = []
    for point, m in sorted(_seat_matrix(res, points, cols).items()):
        zero = res.rules_at(point).passenger_zero_scores
        n = m["game"].shape[0]
        for colour, col in zip(COLOURS, cols):
            x = m[col].astype(np.int64)
            elig = (x > 0) | zero
            top = np.where(elig, x, -1).max(1)
            n_top = (elig & (x == top[:, None])).sum(1)
            below = elig & (x < top[:, None])
            runner = np.where(below, x, -1).max(1)
            n_run = (below & (x == runner[:, None])).sum(1)
            code = np.select([top < 0, n_top > 1, runner < 0, n_run > 1], [4, 1, 3, 2], default=0)
            counts = np.bincount(code, minlength=5)
            for i, outcome in enumerate(OUTCOMES):
                rows.append((point, colour, outcome, int(counts[i]), counts[i] / n if n else 0.0))
    return pl.DataFrame(rows, schema=schema, orient="row")


def passenger_points(res: Results) -> pl.DataFrame:
    """Passengers and passenger points per point and strategy.

    Columns: point, strategy, games, mean_passengers (collected),
    mean_passenger_points, share_of_total (passenger points / total points of
    that strategy, summed over its games). Most passenger points first.
    """
    res = Results.open(res)
    schema = {"point": pl.UInt16, "strategy": pl.String, "games": pl.Int64, "mean_passengers": pl.Float64,
              "mean_passenger_points": pl.Float64, "share_of_total": pl.Float64}
    points = _passenger_points(res)
    if not points:
        return pl.DataFrame(schema=schema)
    df = (res.scan("players").filter(pl.col("point").is_in(points))
          .group_by("point", pl.col("strategy").cast(pl.String).cast(res.strategy_dtype))
          .agg(pl.len().cast(pl.Int64).alias("games"),
               pl.col("passengers").cast(pl.Float64).mean().alias("mean_passengers"),
               pl.col("passenger_points").cast(pl.Float64).mean().alias("mean_passenger_points"),
               (pl.col("passenger_points").cast(pl.Float64).sum() / pl.col("total").cast(pl.Float64).sum())
               .alias("share_of_total"))
          .sort(["point", "mean_passenger_points", "strategy"], descending=[False, True, False]).collect())
    return df.select([pl.col(c).cast(d) for c, d in schema.items()])


def passenger_decisive(res: Results) -> pl.DataFrame:
    """How often passenger points changed who won (module docstring).

    Columns: point, games, changed (games whose winner set differs without
    passenger points), share.
    """
    res = Results.open(res)
    schema = {"point": pl.UInt16, "games": pl.Int64, "changed": pl.Int64, "share": pl.Float64}
    points = _passenger_points(res)
    if not points:
        return pl.DataFrame(schema=schema)
    cols = ["total", "passenger_points", "winner", *dict.fromkeys(_TB_COLUMN.values())]
    rows = []
    for point, m in sorted(_seat_matrix(res, points, cols).items()):
        won = _winners(m, res.rules_at(point).tiebreaks, without_passengers=True)
        changed = int((won != m["winner"].astype(bool)).any(1).sum())
        n = won.shape[0]
        rows.append((point, n, changed, changed / n if n else 0.0))
    return pl.DataFrame(rows, schema=schema, orient="row")


def _winners(m: dict, tiebreaks, without_passengers: bool) -> np.ndarray:
    """bool [games, seats]: the winners by total (less passenger points if asked),
    then the tie-breaks (R6.8); ``m`` holds the players columns as [games, seats]."""
    total = m["total"].astype(np.int64) - (m["passenger_points"] if without_passengers else 0)
    key = total * (1 << 39)
    for i, step in enumerate(list(tiebreaks)[:3]):
        v = np.clip(m[_TB_COLUMN[step]].astype(np.int64), 0, 8191)
        key = key + (8191 - v if step in TIEBREAK_FEWEST else v) * (1 << (13 * (2 - i)))
    return key == key.max(1, keepdims=True)


def _seat_routes(res: Results, points: list[int]) -> pl.LazyFrame:
    """players rows (point, strategy, passengers, trains_used, routes_claimed or null), computed once."""
    def compute() -> pl.DataFrame:
        trains = pl.lit(None, pl.Int64)
        for p in points:
            trains = pl.when(pl.col("point") == p).then(res.rules_at(p).trains).otherwise(trains)
        key = (pl.col("game").cast(pl.UInt64) * 8 + pl.col("seat").cast(pl.UInt64)).alias("key")
        seats = (res.scan("players").filter(pl.col("point").is_in(points))
                 .select("point", key, pl.col("strategy").cast(pl.String).cast(res.strategy_dtype),
                         pl.col("passengers").cast(pl.Float64),
                         (trains - pl.col("trains_left").cast(pl.Int64)).cast(pl.Float64).alias("trains_used")))
        if not res.has_turns:
            seats = seats.with_columns(pl.lit(None, pl.Float64).alias("routes_claimed"))
        else:
            claims = (res.scan("turns").filter(pl.col("point").is_in(points) & pl.col("route").is_not_null())
                      .group_by(key).agg(pl.len().cast(pl.Float64).alias("routes_claimed")))
            seats = (seats.join(claims, on="key", how="left")
                     .with_columns(pl.col("routes_claimed").fill_null(0.0)))
        return seats.drop("key").collect()
    return res.memo(("seat_routes", tuple(points)), compute).lazy()


def passengers_vs_routes(res: Results) -> pl.DataFrame:
    """Passengers collected against routes claimed, per point and strategy.

    Columns: point, strategy, games, mean_passengers, mean_routes_claimed (from
    the turn log; null without it), corr_routes (Pearson correlation of
    passengers and routes claimed over the strategy's seat-games; null without
    turns), mean_trains_used (trains - trains_left, always available: the proxy
    without a turn log), corr_trains (correlation of passengers and trains used).
    Most passengers first.
    """
    res = Results.open(res)
    schema = {"point": pl.UInt16, "strategy": pl.String, "games": pl.Int64, "mean_passengers": pl.Float64,
              "mean_routes_claimed": pl.Float64, "corr_routes": pl.Float64, "mean_trains_used": pl.Float64,
              "corr_trains": pl.Float64}
    points = _passenger_points(res)
    if not points:
        return pl.DataFrame(schema=schema)
    df = (_seat_routes(res, points).group_by("point", "strategy")
          .agg(pl.len().cast(pl.Int64).alias("games"), pl.col("passengers").mean().alias("mean_passengers"),
               pl.col("routes_claimed").mean().alias("mean_routes_claimed"),
               _corr("passengers", "routes_claimed").alias("corr_routes"),
               pl.col("trains_used").mean().alias("mean_trains_used"),
               _corr("passengers", "trains_used").alias("corr_trains"))
          .sort(["point", "mean_passengers", "strategy"], descending=[False, True, False]).collect())
    return df.select([pl.col(c).cast(d) for c, d in schema.items()])


def _corr(x: str, y: str) -> pl.Expr:
    """Pearson correlation of the columns ``x`` and ``y`` (whole numbers) from
    their sums, which are exact: the same value whatever order the rows come in
    (``pl.corr`` over a lazy group is not). Null when a column has no values
    (routes claimed without the turn log), NaN without variance."""
    n = pl.len().cast(pl.Float64)
    sx, sy = pl.col(x).sum(), pl.col(y).sum()
    cov = n * (pl.col(x) * pl.col(y)).sum() - sx * sy
    var = (n * (pl.col(x) * pl.col(x)).sum() - sx * sx) * (n * (pl.col(y) * pl.col(y)).sum() - sy * sy)
    return (pl.when((pl.col(x).count() == 0) | (pl.col(y).count() == 0)).then(None)
            .when(var > 0).then(cov / var.sqrt()).otherwise(float("nan")))


def passengers_by_routes(res: Results) -> pl.DataFrame:
    """Mean passengers collected by number of routes claimed (a seat-game per
    row of input; needs the turn log, else an empty frame), for a
    passengers-against-routes line per strategy.

    Columns: point, strategy, routes_claimed (Int64), seats (seat-games), mean_passengers.
    """
    res = Results.open(res)
    schema = {"point": pl.UInt16, "strategy": pl.String, "routes_claimed": pl.Int64, "seats": pl.Int64,
              "mean_passengers": pl.Float64}
    points = _passenger_points(res)
    if not points or not res.has_turns:
        return pl.DataFrame(schema=schema)
    df = (_seat_routes(res, points).group_by("point", "strategy", pl.col("routes_claimed").cast(pl.Int64))
          .agg(pl.len().cast(pl.Int64).alias("seats"), pl.col("passengers").mean().alias("mean_passengers"))
          .sort("point", "strategy", "routes_claimed").collect())
    return df.select([pl.col(c).cast(d) for c, d in schema.items()])
