"""Rates over seed blocks with their 95% intervals: the one statistics module
of the run summary, the sequential stop rule and the report.

A seat's *win share* in a game is 1 for a sole winner, 1/k when k seats share
the win, else 0; a strategy's *win rate* is its mean win share over the games
it played. More generally a rate here is ``sum(num) / sum(den)`` over the seed
blocks of a point (win shares / games; for head-to-head, games finished ahead
/ games met).

**The interval.** Games of a seed block share their deal (paired games), so
they are not independent: the blocks are. The interval is the Wilson score
interval with the *effective* number of games ``n / deff``, where the design
effect ``deff`` compares the block-level variance of the rate with the
variance of ``n`` independent games:

* ``v = nb / (nb - 1) * sum_b (num_b - p * den_b)**2 / n**2`` (the variance of
  the ratio ``p = sum num / sum den`` over the ``nb`` blocks),
* ``deff = v / (p * (1 - p) / n)``, and ``deff = 1`` when that is undefined
  (no win or only wins, or a single block),
* ``centre, half = (p + k / 2) / (1 + k), sqrt(z**2 * deff * p * (1 - p) / n + k**2 / 4) / (1 + k)``
  with ``k = z**2 * deff / n`` and z = 1.96.

Away from the edges this is the normal interval of the block variance (the
block bootstrap's answer, without the resampling); at 0 or 1 wins it is the
Wilson interval on the games played (0 wins in 300 games: [0.0%, 1.3%]), never
a zero-width interval at 0 or 1. It needs only six sums per strategy
(:class:`RateSums`), so the stop rule checks it after every block. Every
interval is rounded the same way for display: :func:`percent`.

>>> lo, hi = rate_interval(*moments(np.array([[0.0], [0.0], [0.0]]), np.full((3, 1), 100.0)))
>>> interval_text(lo[0], hi[0])
'[0.0%, 1.3%]'
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from .reader import Results

__all__ = ["Z95", "moments", "rate_interval", "rate_p_value", "two_sided_p", "holm", "rate_difference",
           "mean_interval", "block_interval", "RateSums", "widths_along", "player_keys", "clones", "replays",
           "distinct_games", "fixed_by_design", "block_sums", "rate_table", "gaps_to_leader", "win_rates",
           "end_reasons", "percent", "interval_text", "END_REASONS"]

Z95 = 1.959963984540054
END_REASONS = ("normal", "stalled", "capped")
MOMENTS = ("n", "w", "nb", "sww", "swc", "scc")


def _terms(num: np.ndarray, den: np.ndarray) -> tuple:
    """Per-block terms of the six sums: games, wins, block played, wins^2, wins x games, games^2."""
    num = np.asarray(num, np.float64)
    den = np.asarray(den, np.float64)
    return den, num, (den > 0).astype(np.float64), num * num, num * den, den * den


def moments(num: np.ndarray, den: np.ndarray) -> tuple:
    """The six sums over blocks (axis 0) of ``num [blocks, k]`` over ``den [blocks, k]``:
    n, w, nb, sww, swc, scc (arrays of length k)."""
    return tuple(t.sum(axis=0) for t in _terms(num, den))


def rate_interval(n, w, nb, sww, swc, scc, z: float = Z95):
    """(low, high) of the rate ``w / n`` from the six block sums (module
    docstring); (0, 1) where ``n`` is 0."""
    n, w, nb, sww, swc, scc = (np.asarray(x, np.float64) for x in (n, w, nb, sww, swc, scc))
    nn = np.where(n > 0, n, 1.0)
    p = np.where(n > 0, w / nn, 0.0)
    resid = np.maximum(sww - 2 * p * swc + p * p * scc, 0.0)         # sum_b (num_b - p den_b)^2
    v = resid * nb / np.maximum(nb - 1, 1) / (nn * nn)
    v0 = p * (1 - p) / nn
    deff = np.where((nb > 1) & (v0 > 0), v / np.where(v0 > 0, v0, 1.0), 1.0)
    k = z * z * deff / nn
    centre = (p + k / 2) / (1 + k)
    half = np.sqrt(z * z * deff * v0 + k * k / 4) / (1 + k)
    lo = np.where(n > 0, np.clip(centre - half, 0, 1), 0.0)
    hi = np.where(n > 0, np.clip(centre + half, 0, 1), 1.0)
    return lo, hi


def rate_p_value(n, w, nb, sww, swc, scc, null):
    """The two-sided p-value of ``rate == null`` from the six block sums: the
    normal test with the block variance ``v`` of the module docstring, never
    below the variance ``null x (1 - null) / n`` of ``n`` independent games
    (so that a rate of 0 or 1 over few blocks is not certain); NaN with fewer
    than two blocks or no game.

    >>> p = rate_p_value(*moments(np.array([[30.0], [20.0], [25.0], [35.0]]), np.full((4, 1), 100.0)), 0.25)
    >>> round(float(p[0]), 3)                  # 27.5% in 4 blocks of 100 games against 25%
    0.439
    """
    n, w, nb, sww, swc, scc, null = (np.asarray(x, np.float64) for x in (n, w, nb, sww, swc, scc, null))
    nn = np.where(n > 0, n, 1.0)
    p = w / nn
    resid = np.maximum(sww - 2 * p * swc + p * p * scc, 0.0)
    v = np.maximum(resid * nb / np.maximum(nb - 1, 1) / (nn * nn), null * (1 - null) / nn)
    z = np.abs(p - null) / np.sqrt(np.where(v > 0, v, np.inf))
    return np.where((n > 0) & (nb > 1), two_sided_p(z), np.nan)


def two_sided_p(z) -> np.ndarray:
    """The two-sided normal p-value of each ``|z|`` (NaN stays NaN, inf gives 0).

    >>> two_sided_p([0.0, 1.959963984540054, np.inf]).round(3).tolist()
    [1.0, 0.05, 0.0]
    """
    z = np.asarray(z, np.float64)
    return np.array([math.erfc(abs(x) / math.sqrt(2)) for x in z.ravel()]).reshape(z.shape)


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjustment of ``p_values`` for the number compared (NaN
    entries are not counted and stay NaN): a finding whose adjusted p-value is
    below 0.05 holds at 5% for the whole family, whichever of them is picked.

    >>> holm([0.01, 0.04, 0.03, float("nan")]).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    p = np.asarray(p_values, np.float64)
    out = np.full(p.shape, np.nan)
    idx = np.flatnonzero(~np.isnan(p))
    order = idx[np.argsort(p[idx], kind="stable")]
    m = len(order)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def mean_interval(num, den, z: float = Z95) -> tuple[float, float, float, float]:
    """The mean ``sum(num) / sum(den)`` of a measure that is not a rate (a
    paired difference of scores or of win shares) from its per-block sums,
    with the normal interval of the block variance ``v`` of the module
    docstring and the two-sided p-value of mean = 0: (mean, low, high, p).
    With fewer than two blocks the interval is unbounded and p NaN.

    >>> m, lo, hi, p = mean_interval(np.array([2.0, -1.0, 3.0, 0.0]), np.array([10.0, 10.0, 10.0, 10.0]))
    >>> round(m, 3), round(lo, 3), round(hi, 3), round(p, 3)
    (0.1, -0.079, 0.279, 0.273)
    """
    num, den = np.asarray(num, np.float64), np.asarray(den, np.float64)
    n, nb = den.sum(), int((den > 0).sum())
    if n <= 0:
        return math.nan, -math.inf, math.inf, math.nan
    mean = num.sum() / n
    if nb < 2:
        return float(mean), -math.inf, math.inf, math.nan
    v = nb / (nb - 1) * float(((num - mean * den) ** 2).sum()) / (n * n)
    half = z * math.sqrt(v)
    p = float(two_sided_p([abs(mean) / math.sqrt(v) if v > 0 else (0.0 if mean == 0 else math.inf)])[0])
    return float(mean), float(mean - half), float(mean + half), p


def rate_difference(num_a, den_a, num_b, den_b, z: float = Z95):
    """The difference ``sum(num_a) / sum(den_a) - sum(num_b) / sum(den_b)`` of two
    rates measured on the same seed blocks (per-block sums, axis 0 the blocks),
    with its 95% normal interval and two-sided p-value against 0: the variance
    is that of the per-block residuals of both rates together (``nb / (nb - 1)
    * sum_b r_b**2``, ``r_b = (num_a_b - p_a den_a_b) / n_a - (num_b_b - p_b
    den_b_b) / n_b``), so whatever the deal does to both rates cancels or adds as
    it does in the data. Returns (difference, low, high, p); the interval and p
    are NaN with fewer than two blocks, p is 0 or 1 when the blocks do not vary.

    >>> d, lo, hi, p = rate_difference(np.array([6.0, 5, 7]), np.full(3, 10.0), np.array([4.0, 4, 3]),
    ...                                np.full(3, 10.0))
    >>> round(float(d), 3), round(float(p), 4)
    (0.233, 0.0082)
    """
    num_a, den_a, num_b, den_b = (np.asarray(x, np.float64) for x in (num_a, den_a, num_b, den_b))
    n_a, n_b = (np.where(n > 0, n, 1.0) for n in (den_a.sum(0), den_b.sum(0)))
    p_a, p_b = num_a.sum(0) / n_a, num_b.sum(0) / n_b
    r = (num_a - p_a * den_a) / n_a - (num_b - p_b * den_b) / n_b
    blocks = ((den_a + den_b) > 0).sum(0)
    se = np.sqrt(blocks / np.maximum(blocks - 1, 1) * (r * r).sum(0))
    d = p_a - p_b
    ok = blocks > 1
    with np.errstate(divide="ignore", invalid="ignore"):
        zval = np.where(se > 0, np.abs(d) / se, np.where(d == 0, 0.0, np.inf))
    p = np.where(ok, two_sided_p(zval), np.nan)
    return d, np.where(ok, d - z * se, np.nan), np.where(ok, d + z * se, np.nan), p


def block_interval(num: np.ndarray, den: np.ndarray, z: float = Z95):
    """(low, high) per column of ``sum(num) / sum(den)`` from per-block sums ``[blocks, k]``."""
    return rate_interval(*moments(num, den), z=z)


@dataclass
class RateSums:
    """The six running sums of :func:`moments` per column (entrant): the runner
    keeps them per sweep point for the stop rule, one record per chunk in the
    manifest."""
    n: np.ndarray
    w: np.ndarray
    nb: np.ndarray
    sww: np.ndarray
    swc: np.ndarray
    scc: np.ndarray

    @classmethod
    def zeros(cls, k: int) -> RateSums:
        return cls(*(np.zeros(k) for _ in MOMENTS))

    @classmethod
    def of_blocks(cls, num: np.ndarray, den: np.ndarray) -> RateSums:
        return cls(*moments(num, den))

    def interval(self):
        return rate_interval(*self._values())

    def _values(self) -> tuple:
        return tuple(getattr(self, f) for f in MOMENTS)

    def to_json(self) -> dict:
        return {f: v.tolist() for f, v in zip(MOMENTS, self._values())}

    @classmethod
    def from_json(cls, d: dict) -> RateSums | None:
        """None for a record of another form (a chunk recorded by an older ttrsim)."""
        if not all(f in d for f in MOMENTS):
            return None
        return cls(*(np.asarray(d[f], np.float64) for f in MOMENTS))

    def __iadd__(self, other: RateSums):
        for f in MOMENTS:
            setattr(self, f, getattr(self, f) + getattr(other, f))
        return self


def widths_along(before: RateSums, e: int, num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Interval width of column ``e`` after each of the blocks ``num, den [blocks, k]`` added to ``before``."""
    sums = [getattr(before, f)[e] + np.cumsum(t) for f, t in zip(MOMENTS, _terms(num[:, e], den[:, e]))]
    lo, hi = rate_interval(*sums)
    return hi - lo


# --------------------------------------------------------------------------- from a results folder


def player_keys(res: Results, point: int = 0) -> list[str]:
    """Per entrant: what it plays at ``point`` (its strategy or Python class and
    parameters, as the experiment file gives them, without its label). Two
    entrants with the same key are the same player under two labels."""
    cfg = res.manifest["config"]
    pts = {int(p["point"]): p for p in cfg.get("points") or []}
    swept = (pts.get(int(point)) or {}).get("entrant_params") or [{}] * len(cfg["entrants"])
    return [json.dumps([{k: v for k, v in e.items() if k != "label"}, swept[i] if i < len(swept) else {}],
                       sort_keys=True, default=str)
            for i, e in enumerate(cfg["entrants"])]


def clones(res: Results, point: int = 0) -> list[list[str]]:
    """Groups (2 or more labels, entrant order) of entrants that are the same player
    (:func:`player_keys`): e.g. ``[['planner', 'planner-2', 'planner-3']]``."""
    groups: dict[str, list[str]] = {}
    for label, key in zip(res.labels, player_keys(res, point)):
        groups.setdefault(key, []).append(label)
    return [g for g in groups.values() if len(g) > 1]


def _same_table(res: Results, point: int) -> np.ndarray:
    """Per seating of a block: the first seating that puts the same player (not
    just the same label) in every seat; a seating is its own when none does."""
    keys = player_keys(res, point)
    first: dict[tuple, int] = {}
    return np.array([first.setdefault(tuple(keys[e] for e in seats), k) for k, seats in enumerate(res.seatings)],
                    np.int64)


# the columns of a game's outcome compared to find replays (besides each seat's player)
_OUTCOME = ("total", "routes", "tickets_won", "tickets_lost", "tickets_completed", "tickets_failed", "longest_path",
            "longest_bonus", "globetrotter", "passenger_points", "passengers", "trains_left", "cards_left")


def replays(res: Results) -> pl.DataFrame | None:
    """The games that replay another game of their seed block, or None when there
    are none (the usual case, found from the design alone).

    Two games of a block are one game played twice when they share the deal (the
    block's seed), put the same player in every seat (a rotation of a line-up of
    identical strategies, e.g. four ``planner`` s, gives the same table) and end
    identically: the same turns, end reason and final breakdown of every seat
    (:data:`_OUTCOME`). Such games are *copies* of one *distinct game*.

    Columns (one row per game of a point that has copies): game, point, block,
    group (an id shared by the copies), copies (how many games of the group),
    weight (``1 / copies``: a distinct game weighs 1 in every rate).
    """
    def compute():
        same = {p: _same_table(res, p) for p in res.point_ids}
        points = [p for p, s in same.items() if (s != np.arange(len(s))).any()]
        if not points:
            return None
        pl_points = pl.col("point").is_in(points)
        seat_hash = pl.struct("seat", *_OUTCOME).hash(seed=11).alias("h")
        seats = (res.scan("players").filter(pl_points).select("game", "seat", seat_hash)
                 .sort("game", "seat").collect())
        games = (res.scan("games").filter(pl_points)
                 .select("game", "point", "block", "seating", pl.struct("turns", pl.col("end").cast(pl.String))
                         .hash(seed=12).alias("h")).sort("game").collect())
        P = res.players
        h = games["h"].to_numpy().copy()
        with np.errstate(over="ignore"):
            for _s, col in enumerate(seats["h"].to_numpy().reshape(-1, P).T):
                h = h * np.uint64(0x100000001B3) + col                        # one fingerprint per game
        table = np.zeros(games.height, np.int64)
        for p in points:
            at = (games["point"] == p).to_numpy()
            table[at] = same[p][games["seating"].to_numpy()[at].astype(np.int64)]
        df = (games.select("game", "point", "block")
              .with_columns(pl.Series("fp", h), pl.Series("table", table))
              .with_columns(pl.struct("point", "block", "table", "fp").hash(seed=13).alias("group"))
              .with_columns(pl.len().over("group").cast(pl.Int64).alias("copies"))
              .with_columns((1.0 / pl.col("copies")).alias("weight"))
              .select("game", "point", "block", "group", "copies", "weight"))
        return df if df["copies"].max() > 1 else None
    return res.memo("replays", compute)


def distinct_games(res) -> pl.DataFrame:
    """Games played and distinct games per point (:func:`replays`).

    Columns: point, games, distinct (games once each copy of a replayed game
    counts 1/copies), replayed (games with at least one copy).
    """
    res = Results.open(res)
    g = res.games_by_point
    rep = replays(res)
    if rep is None:
        return g.with_columns(pl.col("games").alias("distinct"), pl.lit(0, pl.Int64).alias("replayed"))
    d = (rep.group_by("point").agg(pl.col("weight").sum().alias("w"), pl.len().cast(pl.Int64).alias("n"),
                                  (pl.col("copies") > 1).sum().cast(pl.Int64).alias("replayed")))
    return (g.join(d, on="point", how="left")
            .with_columns((pl.col("games") - pl.col("n").fill_null(0) + pl.col("w").fill_null(0.0)).round()
                          .cast(pl.Int64).alias("distinct"), pl.col("replayed").fill_null(0))
            .select("point", "games", "distinct", "replayed"))


def _weighted(res: Results, lf: pl.LazyFrame) -> tuple[pl.LazyFrame, pl.Expr]:
    """``lf`` (rows with ``game``) and the weight of each row: 1, or ``1 / copies`` of a replayed game."""
    rep = replays(res)
    if rep is None:
        return lf.with_columns(pl.lit(1.0).alias("weight")), pl.col("weight")
    return (lf.join(rep.lazy().select("game", "weight"), on="game", how="left"),
            pl.col("weight").fill_null(1.0))


def block_sums(res: Results, key: str = "strategy") -> pl.DataFrame:
    """(point, block, k, wins, games, played, total) sums over the ``players`` table,
    sorted; ``k`` is the entrant index (``key="strategy"``) or the 0-based seat
    (``key="seat"``). ``played`` counts rows; ``games``, ``wins`` and ``total``
    weigh each row by its game's weight (:func:`replays`: 1 unless replayed)."""
    if key == "strategy":
        k = pl.col("strategy").cast(pl.String).cast(res.strategy_dtype).to_physical().cast(pl.Int64)
    else:
        k = pl.col("seat").cast(pl.Int64)
    lf, w = _weighted(res, res.scan("players"))
    return (lf.group_by("point", "block", k.alias("k"))
            .agg((pl.col("win_share").cast(pl.Float64) * w).sum().alias("wins"), w.sum().alias("games"),
                 pl.len().cast(pl.Float64).alias("played"), (pl.col("total").cast(pl.Float64) * w).sum().alias("total"))
            .sort("point", "block", "k").collect())


def _dense(df: pl.DataFrame, n_keys: int, cols: list[str]):
    """Per-block sums ``[blocks, n_keys]`` for each column of ``cols`` from rows (block, k, cols...)."""
    blocks, inv = np.unique(df["block"].to_numpy(), return_inverse=True)
    flat = inv.astype(np.int64) * n_keys + df["k"].to_numpy().astype(np.int64)
    size = len(blocks) * n_keys
    return [np.bincount(flat, weights=df[c].to_numpy().astype(np.float64), minlength=size).reshape(-1, n_keys)
            for c in cols]


def rate_table(sums: pl.DataFrame, n_keys: int, null: float | None = None) -> pl.DataFrame:
    """point, k, games, distinct, wins, win_rate, low, high, mean_score from
    :func:`block_sums`, by point then k; keys that played no game are left out.
    ``games``: games played; ``distinct``: weighted by :func:`replays` (= games
    without replays); the rates and intervals are over the distinct games.
    With ``null`` (e.g. the fair share of a seat), also ``p`` (two-sided,
    :func:`rate_p_value` against ``null``) and ``p_holm`` (Holm over the keys
    of the point: which of them is picked as most or least does not matter)."""
    rows = []
    for point in sorted(sums["point"].unique().to_list()):
        wins, games, played, total = _dense(sums.filter(pl.col("point") == point), n_keys,
                                            ["wins", "games", "played", "total"])
        lo, hi = block_interval(wins, games)
        n, w, t, m = games.sum(0), wins.sum(0), total.sum(0), played.sum(0)
        p = rate_p_value(*moments(wins, games), null) if null is not None else np.full(n_keys, np.nan)
        p = np.where(m > 0, p, np.nan)
        adjusted = holm(p)
        for k in range(n_keys):
            if m[k] > 0:
                rows.append((point, k, int(m[k]), float(n[k]), float(w[k]), float(w[k] / n[k]), float(lo[k]),
                             float(hi[k]), float(t[k] / n[k]), float(p[k]), float(adjusted[k])))
    schema = {"point": pl.UInt16, "k": pl.Int64, "games": pl.Int64, "distinct": pl.Float64, "wins": pl.Float64,
              "win_rate": pl.Float64, "low": pl.Float64, "high": pl.Float64, "mean_score": pl.Float64,
              "p": pl.Float64, "p_holm": pl.Float64}
    df = pl.DataFrame(rows, schema=schema, orient="row")
    return df.with_columns(pl.col("p", "p_holm").fill_nan(None)) if null is not None else df.drop("p", "p_holm")


def gaps_to_leader(sums: pl.DataFrame, n_keys: int) -> pl.DataFrame:
    """How far each key's rate lies below the leader's (the highest rate of its
    point; ties to the lower k), from :func:`block_sums`: point, k, behind (the
    leader's rate minus this one's, a fraction; null for the leader),
    behind_low, behind_high, behind_p (:func:`rate_difference` over the seed
    blocks both played) and behind_p_holm (Holm over the other keys of the
    point: the leader stands out only when every one is below 0.05)."""
    rows = []
    for point in sorted(sums["point"].unique().to_list()):
        wins, games = _dense(sums.filter(pl.col("point") == point), n_keys, ["wins", "games"])
        n = games.sum(0)
        keys = np.flatnonzero(n > 0)
        rate = wins.sum(0)[keys] / n[keys]
        lead = int(keys[np.argmax(rate)])
        others = [int(k) for k in keys if k != lead]
        rows.append((point, lead, None, None, None, None, None))
        if others:
            d, lo, hi, p = rate_difference(wins[:, [lead]], games[:, [lead]], wins[:, others], games[:, others])
            rows += [(point, k, *map(float, x)) for k, x in zip(others, zip(d, lo, hi, p, holm(p)))]
    schema = {"point": pl.UInt16, "k": pl.Int64, "behind": pl.Float64, "behind_low": pl.Float64,
              "behind_high": pl.Float64, "behind_p": pl.Float64, "behind_p_holm": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row").with_columns(pl.all().exclude("point", "k").fill_nan(None))


def fixed_by_design(res: Results) -> set[tuple[int, int]]:
    """(point, entrant) pairs whose win rate is 1/players whatever happens: every
    game the entrant played is one of a group of copies (:func:`replays`) in which
    it sat in every seat equally often (a rotation of identical strategies), so
    its mean win share over the copies is 1/players. Such a rate has no interval."""
    rep = replays(res)
    if rep is None:
        return set()
    e = pl.col("strategy").cast(pl.String).cast(res.strategy_dtype).to_physical().cast(pl.Int64).alias("e")
    seats = (res.scan("players").select("game", "point", e, "seat")
             .join(rep.lazy().select("game", "group"), on="game", how="left").collect())
    per_seat = seats.group_by("point", "e", "group", "seat").agg(pl.len().alias("n"))
    even = (per_seat.group_by("point", "e", "group")
            .agg(((pl.len() == res.players) & (pl.col("n").min() == pl.col("n").max())
                  & pl.col("group").is_not_null().all()).alias("even"))
            .group_by("point", "e").agg(pl.col("even").all()))
    return {(int(p), int(k)) for p, k, ok in even.iter_rows() if ok}


def win_rates(res) -> pl.DataFrame:
    """Win rate per point and strategy, highest first (ties in entrant order).

    Columns: point, strategy, games (played), distinct (distinct games: fewer
    than ``games`` only when games replay one another, :func:`replays`), wins
    (sum of win shares over the distinct games: a shared win counts 1/k),
    win_rate (wins / distinct), low, high (95% interval over seed blocks; null
    when ``fixed``), mean_score (mean final total), fixed (the rate is
    1/players by design, :func:`fixed_by_design`).
    """
    res = Results.open(res)
    t = rate_table(block_sums(res, "strategy"), len(res.labels))
    fixed = fixed_by_design(res)
    flag = pl.Series("fixed", [(p, k) in fixed for p, k in t.select("point", "k").iter_rows()], dtype=pl.Boolean)
    names = pl.Series("strategy", [res.labels[k] for k in t["k"].to_list()], dtype=pl.String)
    return (t.with_columns(names, flag)
            .with_columns([pl.when(pl.col("fixed")).then(None).otherwise(pl.col(c)).alias(c) for c in ("low", "high")])
            .sort(["point", "win_rate", "k"], descending=[False, True, False])
            .select("point", "strategy", "games", "distinct", "wins", "win_rate", "low", "high", "mean_score",
                    "fixed"))


def end_reasons(res) -> pl.DataFrame:
    """How the games ended (R6.1, R6.2): ``normal``, ``stalled`` (a full round of
    passes) or ``capped`` (the turn cap); all three rows per point, even at 0.

    Columns: point, end, games, share.
    """
    res = Results.open(res)
    counts = (res.scan("games").group_by("point", pl.col("end").cast(pl.String))
              .agg(pl.len().cast(pl.Int64).alias("games")).collect())
    grid = res.points.select("point").join(pl.DataFrame({"end": list(END_REASONS)}), how="cross")
    df = (grid.join(counts, on=["point", "end"], how="left").with_columns(pl.col("games").fill_null(0))
          .with_columns((pl.col("games") / pl.col("games").sum().over("point")).fill_nan(0.0).alias("share")))
    order = pl.col("end").cast(pl.Enum(list(END_REASONS)))
    return df.sort("point", order)


# --------------------------------------------------------------------------- display


def percent(v: float, digits: int = 1) -> str:
    """A rate as text, e.g. ``'62.9%'``: the rounding of every rate on display."""
    return f"{100 * v:.{digits}f}%"


def interval_text(lo: float, hi: float, digits: int = 1) -> str:
    """An interval as text, e.g. ``'[61.4%, 64.4%]'``."""
    return f"[{percent(lo, digits)}, {percent(hi, digits)}]"
