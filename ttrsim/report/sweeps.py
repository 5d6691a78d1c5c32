"""Statistics against swept parameters: every table of this package has a
``point`` column; this module joins the swept values on.

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4, "seed": 1,
...                        "sweep": {"rules.globetrotter_points": [0, 10]},
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> from ttrsim.report import Results, swept_win_rates
>>> res = Results.open(path)
>>> sweep_keys(res)
['rules.globetrotter_points']
>>> rows = swept_win_rates(res).filter(pl.col("strategy") == "route_focus")
>>> rows.select("rules.globetrotter_points", "win_rate", "mean_score").rows()
[(0, 1.0, 143.5), (10, 1.0, 153.5)]
>>> tmp.cleanup()
"""
from __future__ import annotations

import numpy as np
import polars as pl

from ttrsim.results.effects import paired_effects, wide_effects
from ttrsim.results.stats import holm

from .dataset import Results
from .strategies import win_rates

__all__ = ["sweep_keys", "swept_win_rates", "with_sweep_values", "play_changes", "sweep_effects", "PLAY_COLUMNS"]

# what a seat-game's play is, in the tables (never a score, which the swept rules may change)
PLAY_COLUMNS = ("trains_left", "cards_left", "longest_path", "stations_built", "passengers", "tickets_completed",
                "tickets_failed")
_TURN_COLUMNS = ("turn", "action", "route", "pay_colour", "locomotives", "card1", "source1", "card2", "source2",
                 "tickets_drawn", "tickets_kept", "passenger1", "passenger2", "tunnel_paid", "station")


def sweep_keys(res: Results) -> list[str]:
    """The swept keys in grid order (``rules.PARAM`` / ``strategies.LABEL.PARAM``); [] without a sweep."""
    return list(Results.open(res).sweep_keys)


def with_sweep_values(res: Results, table: pl.DataFrame) -> pl.DataFrame:
    """``table`` (any statistic with a ``point`` column) with one column per swept
    key added after ``point`` (numbers stay numbers, other values are JSON text)."""
    res = Results.open(res)
    keys = res.sweep_keys
    df = table.join(res.points, on="point", how="left")
    rest = [c for c in table.columns if c != "point"]
    return df.select("point", *keys, *rest)


def swept_win_rates(res: Results, resamples: int = 1000, seed: int = 0) -> pl.DataFrame:
    """:func:`~ttrsim.report.strategies.win_rates` with the swept values: for
    balance lines (win rate with its interval against a swept parameter).
    ``resamples`` and ``seed`` are accepted for a uniform call and not used
    (the interval is :func:`ttrsim.results.stats.rate_interval`).

    Columns: point, one column per swept key, strategy, games, wins, win_rate, low, high, mean_score.
    """
    res = Results.open(res)
    return with_sweep_values(res, win_rates(res, resamples=resamples, seed=seed))


def play_changes(res: Results) -> pl.DataFrame:
    """Whether the players play differently across the sweep, not only score
    differently: every seat-game of each point against the seat-game of the
    same deal, seating and seat at the first point (every point plays the same
    seeds). A seat-game's play is its train and card counts left, longest path,
    stations built, passengers, tickets completed and failed (the ``players``
    table), every ticket offered to it with the turn and whether it was kept
    (``tickets``), and, with the turn log, every action of its turns
    (``turns``); never a score, which the swept rules change by themselves.
    A sweep over a value no seated strategy reads differs in no seat-game: its
    balance curves then re-score identical games.

    Columns: point, seat_games (compared with the first point; there: all of
    its own), differ, differ_share (0 at the first point), winner_tickets (mean
    tickets completed by a winner), ticket_draws (mean turns spent drawing
    tickets per seat-game), the swept values after ``point``.
    """
    res = Results.open(res)
    key = _deal(res)
    players = res.scan("players").select(
        "point", key, "seat", "winner",
        pl.struct(*PLAY_COLUMNS).hash(0).alias("h_players"), pl.col("tickets_completed").cast(pl.Int64))
    offers = (res.scan("tickets").group_by("point", key, "seat")
              .agg(_row_hashes("turn", "ticket", "setup", "kept").alias("h_tickets"),
                   pl.col("turn").filter(~pl.col("setup")).n_unique().cast(pl.Int64).alias("ticket_draws")))
    fp = players.join(offers, on=["point", "deal", "seat"], how="left")
    parts = [pl.col("h_players"), pl.col("h_tickets").fill_null(0)]
    if res.has_turns:
        turns = (res.scan("turns").group_by("point", key, "seat")
                 .agg(_row_hashes(*_TURN_COLUMNS).alias("h_turns")))
        fp = fp.join(turns, on=["point", "deal", "seat"], how="left")
        parts.append(pl.col("h_turns").fill_null(0))
    fp = fp.with_columns(pl.struct(*parts).hash(0).alias("play"),
                         pl.col("ticket_draws").fill_null(0)).collect()
    first = res.point_ids[0]
    base = fp.filter(pl.col("point") == first).select("deal", "seat", pl.col("play").alias("play_first"))
    cmp = fp.join(base, on=["deal", "seat"], how="inner")
    out = (cmp.group_by("point")
           .agg(pl.len().cast(pl.Int64).alias("seat_games"),
                (pl.col("play") != pl.col("play_first")).sum().cast(pl.Int64).alias("differ"))
           .with_columns((pl.col("differ") / pl.col("seat_games")).alias("differ_share")))
    style = (fp.group_by("point")
             .agg(pl.col("tickets_completed").filter(pl.col("winner")).mean().alias("winner_tickets"),
                  pl.col("ticket_draws").mean().alias("ticket_draws")))
    out = (res.points.select("point").join(out, on="point", how="left").join(style, on="point", how="left")
           .with_columns(pl.col("seat_games", "differ").fill_null(0)).sort("point"))
    return with_sweep_values(res, out)


def _deal(res: Results) -> pl.Expr:
    """``deal``: a game's seed block and seating within its point (``game % stride``),
    the same at every point of a sweep."""
    return (pl.col("game").cast(pl.Int64) % res.stride).alias("deal")


def _row_hashes(*columns: str) -> pl.Expr:
    """One number for a group's rows, whatever their order (each row's hash, kept
    to 32 bits so that the sum cannot overflow); the rows carry their turn."""
    return (pl.struct(*columns).hash(0) % (1 << 32)).sum()


def sweep_effects(res: Results) -> pl.DataFrame:
    """The effect of each sweep point against the first (or, with an
    intervention, each arm against its control), per strategy, paired: every
    point plays the same deals (common random numbers), so each seat-game is
    compared with the same deal, seating and seat at the other point, and the
    differences are averaged over the seed blocks (the independent unit) with a
    95% normal interval over the blocks
    (:func:`ttrsim.results.effects.paired_effects`). Unlike a comparison of
    two win rates, the deal's luck cancels; the effect is of the swept values
    (everything else is equal by design), on these strategies' play.

    Columns: point, the swept values, strategy, blocks, win_effect (mean
    change of the strategy's win share, a fraction), win_low, win_high,
    win_p (two-sided), win_p_holm (Holm over every point and strategy of the
    table), score_effect, score_low, score_high (points), tickets_effect
    (tickets completed); the first point (the controls) is left out.
    """
    res = Results.open(res)
    wide = wide_effects(paired_effects(res).filter(pl.col("unit").is_in(res.labels))).rename({"unit": "strategy"})
    wide = wide.with_columns(pl.Series("win_p_holm", holm(wide["win_p"].fill_null(np.nan).to_numpy()),
                                       pl.Float64).fill_nan(None))       # Holm over the whole table
    order = {label: i for i, label in enumerate(res.labels)}
    wide = wide.sort(pl.col("point"), pl.col("strategy").replace_strict(order, return_dtype=pl.Int64))
    return with_sweep_values(res, wide.select(
        "point", "strategy", "blocks", "win_effect", "win_low", "win_high", "win_p", "win_p_holm",
        "score_effect", "score_low", "score_high", "tickets_effect"))
