"""Statistics against swept parameters: every table of this package has a
``point`` column; this module joins the swept values on.

>>> from ttrsim.report import Results, swept_win_rates               # doctest: +SKIP
>>> res = Results.open("results/sweep")                               # doctest: +SKIP
>>> sweep_keys(res)                                                   # doctest: +SKIP
['rules.globetrotter_points', 'rules.scoring']
>>> swept_win_rates(res).filter(pl.col("strategy") == "planner")     # doctest: +SKIP
"""
from __future__ import annotations

import polars as pl

from .dataset import Results
from .strategies import win_rates

__all__ = ["sweep_keys", "swept_win_rates", "with_sweep_values"]


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
    (the interval is :func:`ttrsim.experiment.stats.rate_interval`).

    Columns: point, one column per swept key, strategy, games, wins, win_rate, low, high, mean_score.
    """
    res = Results.open(res)
    return with_sweep_values(res, win_rates(res, resamples=resamples, seed=seed))
