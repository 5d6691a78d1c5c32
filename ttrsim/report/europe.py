"""Europe (R8): tunnel outcomes, ferry use and station value, from a results
folder. Only sweep points whose rule set or map has them are reported; for
other rule sets every function returns an empty frame with the documented
columns.

- :func:`station_value` (``players`` table): per point and strategy, the
  stations built, the built ones that borrowed a route at the end ("used",
  R8.5), the points of the stations kept (4 each), and the tickets a station
  rescued (complete only with a borrowed route).
- :func:`tunnel_outcomes` (turn log): per point and strategy, the tunnel claims
  announced, how often the turned-over cards asked for extra cards, how many
  on average when they did, and how often the tunnel was then given up (R8.3).
- :func:`tunnel_routes`, :func:`ferry_routes` (turn log): per point and route,
  the tunnel attempts and give-ups, and the ferries' claim rates (R8.2), for
  the board map.
- :func:`ferry_use` (turn log): per point and strategy, ferry claims per game
  and the locomotives paid on them.

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "planner"], "games": 4, "seed": 1,
...                        "rules": "europe",
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> from ttrsim.report import Results
>>> station_value(Results.open(path)).select("strategy", "games", "stations_built").rows()
[('planner', 4, 0.0), ('random', 4, 3.0)]
>>> tmp.cleanup()
"""
from __future__ import annotations

import polars as pl

from .dataset import Results

__all__ = ["station_value", "tunnel_outcomes", "tunnel_routes", "ferry_use", "ferry_routes", "europe_points"]


def europe_points(res: Results) -> list[int]:
    """The sweep points whose rules or map have stations, tunnels or ferries."""
    m = res.map
    board = bool(m.route_tunnel.any() or m.route_ferry.any())
    return [p for p in res.point_ids if board or res.rules_at(p).stations > 0]


def _empty(schema: dict) -> pl.DataFrame:
    return pl.DataFrame(schema=schema)


def station_value(res: Results) -> pl.DataFrame:
    """Columns: point, strategy, games, stations_built, stations_used,
    stations_kept, station_points, tickets_rescued (means per player and
    game), used_share (used / built over the strategy's games)."""
    res = Results.open(res)
    schema = {"point": pl.UInt16, "strategy": pl.String, "games": pl.Int64, "stations_built": pl.Float64,
              "stations_used": pl.Float64, "stations_kept": pl.Float64, "station_points": pl.Float64,
              "tickets_rescued": pl.Float64, "used_share": pl.Float64}
    points = [p for p in europe_points(res) if res.rules_at(p).stations > 0]
    if not points:
        return _empty(schema)
    frames = []
    for p in points:
        n = res.rules_at(p).stations
        frames.append(
            res.scan("players").filter(pl.col("point") == p)
            .group_by("point", pl.col("strategy").cast(pl.String))
            .agg(pl.len().cast(pl.Int64).alias("games"),
                 pl.col("stations_built").cast(pl.Float64).mean(),
                 pl.col("stations_used").cast(pl.Float64).mean(),
                 (n - pl.col("stations_built").cast(pl.Float64)).mean().alias("stations_kept"),
                 pl.col("station_points").cast(pl.Float64).mean(),
                 pl.col("tickets_rescued").cast(pl.Float64).mean(),
                 (pl.col("stations_used").sum() / pl.col("stations_built").sum()).cast(pl.Float64)
                 .alias("used_share"))
            .collect())
    df = pl.concat(frames).sort("point", "strategy")
    return df.select([pl.col(c).cast(d) for c, d in schema.items()])


def _claims(res: Results, points: list[int]) -> pl.LazyFrame:
    """The turn log's claims (and tunnels given up) at ``points``, with the strategy."""
    return res.with_strategy(res.scan("turns").filter(pl.col("point").is_in(points)
                                                      & (pl.col("action").cast(pl.String) == "claim")))


def tunnel_outcomes(res: Results) -> pl.DataFrame:
    """Columns: point, strategy, attempts, per_game (attempts per player and
    game), extra_share (share of attempts asked for extra cards),
    mean_extra (extra cards when asked), given_up_share (share of attempts
    given up), given_up_when_asked (share of those asked)."""
    res = Results.open(res)
    schema = {"point": pl.UInt16, "strategy": pl.String, "attempts": pl.Int64, "per_game": pl.Float64,
              "extra_share": pl.Float64, "mean_extra": pl.Float64, "given_up_share": pl.Float64,
              "given_up_when_asked": pl.Float64}
    points = [p for p in europe_points(res) if res.rules_at(p).tunnel_cards > 0]
    if not points or not res.map.route_tunnel.any():
        return _empty(schema)
    res.require_turns("tunnel_outcomes")
    seat_games = (res.scan("players").filter(pl.col("point").is_in(points))
                  .group_by("point", pl.col("strategy").cast(pl.String)).agg(pl.len().alias("seat_games")))
    asked = pl.col("tunnel_extra") > 0
    df = (_claims(res, points).filter(pl.col("tunnel_extra").is_not_null())
          .group_by("point", pl.col("strategy").cast(pl.String))
          .agg(pl.len().cast(pl.Int64).alias("attempts"),
               asked.cast(pl.Float64).mean().alias("extra_share"),
               pl.col("tunnel_extra").filter(asked).cast(pl.Float64).mean().alias("mean_extra"),
               (~pl.col("tunnel_paid")).cast(pl.Float64).mean().alias("given_up_share"),
               (~pl.col("tunnel_paid")).filter(asked).cast(pl.Float64).mean().alias("given_up_when_asked"))
          .join(seat_games, on=["point", "strategy"], how="left")
          .with_columns((pl.col("attempts") / pl.col("seat_games")).alias("per_game"))
          .sort("point", "strategy").collect())
    return df.select([pl.col(c).cast(d) for c, d in schema.items()])


def tunnel_routes(res: Results) -> pl.DataFrame:
    """Columns: point, route, attempts, given_up_rate (given up / attempts)."""
    res = Results.open(res)
    schema = {"point": pl.UInt16, "route": pl.Int64, "attempts": pl.Int64, "given_up_rate": pl.Float64}
    points = europe_points(res)
    if not points or not res.map.route_tunnel.any():
        return _empty(schema)
    res.require_turns("tunnel_routes")
    df = (_claims(res, points).filter(pl.col("tunnel_extra").is_not_null())
          .group_by("point", "route")
          .agg(pl.len().cast(pl.Int64).alias("attempts"),
               (~pl.col("tunnel_paid")).cast(pl.Float64).mean().alias("given_up_rate"))
          .sort("point", "route").collect())
    return df.select([pl.col(c).cast(d) for c, d in schema.items()])


def _ferry_claims(res: Results, points: list[int]) -> pl.LazyFrame:
    ferry = res.map.route_ferry
    ids = [r for r in range(len(ferry)) if ferry[r] > 0]
    return _claims(res, points).filter(pl.col("route").is_in(ids))


def ferry_use(res: Results) -> pl.DataFrame:
    """Columns: point, strategy, ferry_claims (per player and game),
    mean_locomotives (locomotives paid per ferry claim)."""
    res = Results.open(res)
    schema = {"point": pl.UInt16, "strategy": pl.String, "ferry_claims": pl.Float64,
              "mean_locomotives": pl.Float64}
    points = europe_points(res)
    if not points or not res.map.route_ferry.any():
        return _empty(schema)
    res.require_turns("ferry_use")
    seat_games = (res.scan("players").filter(pl.col("point").is_in(points))
                  .group_by("point", pl.col("strategy").cast(pl.String)).agg(pl.len().alias("seat_games")))
    df = (_ferry_claims(res, points).group_by("point", pl.col("strategy").cast(pl.String))
          .agg(pl.len().alias("n"), pl.col("locomotives").cast(pl.Float64).mean().alias("mean_locomotives"))
          .join(seat_games, on=["point", "strategy"], how="right")
          .with_columns((pl.col("n").fill_null(0) / pl.col("seat_games")).alias("ferry_claims"))
          .sort("point", "strategy").collect())
    return df.select([pl.col(c).cast(d) for c, d in schema.items()])


def ferry_routes(res: Results) -> pl.DataFrame:
    """Columns: point, route (every ferry), claim_rate (share of games it was claimed)."""
    res = Results.open(res)
    schema = {"point": pl.UInt16, "route": pl.Int64, "claim_rate": pl.Float64}
    points = europe_points(res)
    ferry = res.map.route_ferry
    if not points or not ferry.any():
        return _empty(schema)
    res.require_turns("ferry_routes")
    games = res.games_by_point.filter(pl.col("point").is_in(points))
    claimed = (_ferry_claims(res, points).group_by("point", "route").agg(pl.len().alias("n")).collect()
               .with_columns(pl.col("point").cast(pl.UInt16), pl.col("route").cast(pl.Int64)))
    every = pl.DataFrame({"route": [r for r in range(len(ferry)) if ferry[r] > 0]}, schema={"route": pl.Int64})
    df = (games.select(pl.col("point").cast(pl.UInt16), "games").join(every, how="cross")
          .join(claimed, on=["point", "route"], how="left")
          .with_columns((pl.col("n").fill_null(0) / pl.col("games")).alias("claim_rate"))
          .sort("point", "route"))
    return df.select([pl.col(c).cast(d) for c, d in schema.items()])
