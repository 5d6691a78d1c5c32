"""Strategy comparison: win rates, head-to-head, ratings, seat advantage,
score components and distributions, game length and end reasons.

Every function takes a :class:`~ttrsim.report.dataset.Results` and returns a
polars DataFrame with a ``point`` column (the sweep point).

**Win shares.** A seat's win share is 1 for a sole winner, 1/k when k seats
share the win (R6.8 leaves them tied), else 0; a win rate is a mean win share.

**Intervals** (``low``, ``high``) are 95% percentile intervals of a *block
bootstrap*: the games of a seed block share one deal (paired games), so the
seed blocks of a point, not the games, are drawn with replacement
(``resamples`` times; ``seed`` fixes the draws). A resample's statistic is the
ratio of the resampled block sums (e.g. win shares / games). Identical blocks
are pooled and drawn as multinomial counts (:func:`block_bootstrap`), and the
joint resamples of :func:`ratings` are drawn in batches of block weights, so
time and memory stay bounded whatever the number of games.

**Finishing order** (head-to-head and ratings): winners first, then higher
total, then the rule set's tie-breaks in order (``tiebreaks``: most completed
tickets, then longest path or passengers, R6.8); seats equal on all of these
are tied. Below the winners this extends R6.8 to every place.

>>> from ttrsim.report import Results, win_rates                     # doctest: +SKIP
>>> win_rates(Results.open("results/quickstart"), resamples=200)     # doctest: +SKIP
shape: (4, 8)  point strategy games wins win_rate low high mean_score
"""
from __future__ import annotations

import numpy as np
import polars as pl

from .dataset import Results

__all__ = ["win_rates", "head_to_head", "ratings", "seat_advantage", "score_components", "score_histogram",
           "game_length", "end_reasons", "block_bootstrap", "END_REASONS"]

END_REASONS = ("normal", "stalled", "capped")
_BATCH_CELLS = 4_000_000  # resamples x blocks per weight batch (32 MB of int64)
_MAX_DISTINCT = 5_000     # distinct block values up to which block_bootstrap draws multinomial counts


# --------------------------------------------------------------------------- bootstrap


def block_bootstrap(num: np.ndarray, den: np.ndarray, resamples: int, seed, q=(0.025, 0.975)):
    """Percentile interval of ``sum(num) / sum(den)`` (per column) over block resamples.

    ``num``, ``den``: arrays ``[blocks, k]`` of per-block sums. Each resample
    draws ``blocks`` blocks with replacement. Returns ``(low, high)``, arrays of
    length ``k`` (NaN where ``den`` sums to 0). Each column is resampled on its
    own (the intervals are marginal).

    Blocks with the same ``(num, den)`` are interchangeable, so a column's
    resample is drawn as multinomial counts over its *distinct* block values
    (probability = their frequency): exactly the distribution of drawing blocks
    with replacement, at a cost independent of the number of blocks (win shares
    per block take few values). Columns with many distinct values fall back to
    drawing block indices.

    >>> num = np.array([[1.0], [0.0], [1.0], [0.0]]); den = np.ones((4, 1))
    >>> lo, hi = block_bootstrap(num, den, 500, 0); bool(0 <= lo[0] < 0.5 < hi[0] <= 1)
    True
    """
    num = np.asarray(num, np.float64)
    den = np.asarray(den, np.float64)
    nb, k = num.shape
    lo, hi = np.full(k, np.nan), np.full(k, np.nan)
    if nb == 0 or resamples <= 0:
        return lo, hi
    rng = np.random.default_rng(seed)
    for j in range(k):
        vals, counts = np.unique(num[:, j] + 1j * den[:, j], return_counts=True)
        if len(vals) <= _MAX_DISTINCT:
            w = rng.multinomial(nb, counts / nb, size=resamples).astype(np.float64)
            sums = np.stack([w @ vals.real, w @ vals.imag], axis=1)
        else:
            sums = _resampled_sums(np.stack([num[:, j], den[:, j]], axis=1), resamples, rng)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = sums[:, 0] / sums[:, 1]
        ratio = ratio[~np.isnan(ratio)]
        if ratio.size:
            lo[j], hi[j] = np.quantile(ratio, q)
    return lo, hi


def _resampled_sums(values: np.ndarray, resamples: int, seed) -> np.ndarray:
    """``[resamples, k]``: column sums of ``values [blocks, k]`` under block resampling."""
    nb = values.shape[0]
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    batch = max(1, min(resamples, _BATCH_CELLS // max(nb, 1)))
    out = np.empty((resamples, values.shape[1]), np.float64)
    for start in range(0, resamples, batch):
        b = min(batch, resamples - start)
        idx = rng.integers(0, nb, size=(b, nb))
        idx += (np.arange(b) * nb)[:, None]
        w = np.bincount(idx.ravel(), minlength=b * nb).reshape(b, nb).astype(np.float64)
        # einsum's own loop, not BLAS: multi-threaded OpenBLAS on these thin shapes can be 100x slower
        # on a busy machine
        out[start:start + b] = np.einsum("bn,nk->bk", w, values)
    return out


def _nanquantiles(x: np.ndarray, q):
    """Column quantiles ignoring NaN (all-NaN columns give NaN, silently)."""
    lo = np.full(x.shape[1], np.nan)
    hi = np.full(x.shape[1], np.nan)
    for j in range(x.shape[1]):
        col = x[:, j]
        col = col[~np.isnan(col)]
        if col.size:
            lo[j], hi[j] = np.quantile(col, q)
    return lo, hi


def _point_seed(seed, point: int):
    return [int(seed), int(point)]


def _dense(df: pl.DataFrame, key: str, n_keys: int, cols: list[str]):
    """Per-block sums ``[blocks, n_keys]`` for each column of ``cols`` from rows (block, key, cols...)."""
    blocks, inv = np.unique(df["block"].to_numpy(), return_inverse=True)
    flat = inv.astype(np.int64) * n_keys + df[key].to_numpy().astype(np.int64)
    size = len(blocks) * n_keys
    return [np.bincount(flat, weights=df[c].to_numpy().astype(np.float64), minlength=size).reshape(-1, n_keys)
            for c in cols]


# --------------------------------------------------------------------------- win rates


def _players_by_block(res: Results, key: str) -> pl.DataFrame:
    """(point, block, key, wins, games, total) sums over the players table;
    ``key`` is ``strategy`` (Enum physical code as ``k``) or ``seat``."""
    lf = res.scan("players")
    if key == "strategy":
        k = pl.col("strategy").cast(pl.String).cast(res.strategy_dtype).to_physical().cast(pl.Int64)
    else:
        k = pl.col("seat").cast(pl.Int64)
    return (lf.group_by("point", "block", k.alias("k"))
            .agg(pl.col("win_share").cast(pl.Float64).sum().alias("wins"), pl.len().cast(pl.Float64).alias("games"),
                 pl.col("total").cast(pl.Float64).sum().alias("total"))
            .collect())


def _rates_table(res: Results, sums: pl.DataFrame, n_keys: int, resamples: int, seed) -> pl.DataFrame:
    """point, k, games, wins, win_rate, low, high, mean_score from block sums."""
    rows = []
    for point in sorted(sums["point"].unique().to_list()):
        d = sums.filter(pl.col("point") == point)
        wins, games, total = _dense(d, "k", n_keys, ["wins", "games", "total"])
        lo, hi = block_bootstrap(wins, games, resamples, _point_seed(seed, point))
        n, w, t = games.sum(0), wins.sum(0), total.sum(0)
        for k in range(n_keys):
            if n[k] > 0:
                rows.append((point, k, int(n[k]), float(w[k]), float(w[k] / n[k]), float(lo[k]), float(hi[k]),
                             float(t[k] / n[k])))
    schema = {"point": pl.UInt16, "k": pl.Int64, "games": pl.Int64, "wins": pl.Float64, "win_rate": pl.Float64,
              "low": pl.Float64, "high": pl.Float64, "mean_score": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def win_rates(res: Results, resamples: int = 1000, seed: int = 0) -> pl.DataFrame:
    """Win rate per point and strategy.

    Columns: point, strategy, games, wins (sum of win shares: a shared win
    counts 1/k), win_rate (wins / games), low, high (95% block bootstrap),
    mean_score (mean final total). Strategies in entrant order.
    """
    res = Results.open(res)
    t = _rates_table(res, _players_by_block(res, "strategy"), len(res.labels), resamples, seed)
    names = pl.Series("strategy", [res.labels[k] for k in t["k"].to_list()], dtype=pl.String)
    return (t.with_columns(names)
            .select("point", "strategy", "games", "wins", "win_rate", "low", "high", "mean_score"))


def seat_advantage(res: Results, resamples: int = 1000, seed: int = 0) -> pl.DataFrame:
    """Win rate per point and seat (0 = the seat that starts unless ``first_seat``
    is set), whatever strategy sat there.

    Columns: point, seat, games, win_rate, low, high (95% block bootstrap),
    fair (1 / players: the rate of a seat with no advantage), mean_score.
    """
    res = Results.open(res)
    t = _rates_table(res, _players_by_block(res, "seat"), res.players, resamples, seed)
    return (t.with_columns(pl.col("k").cast(pl.Int8).alias("seat"), pl.lit(1.0 / res.players).alias("fair"))
            .select("point", "seat", "games", "win_rate", "low", "high", "fair", "mean_score"))


# --------------------------------------------------------------------------- finishing order


_TB_COLUMN = {"tickets": "tickets_completed", "longest_path": "longest_path", "passengers": "passengers"}


def _finish_key(tiebreaks) -> pl.Expr:
    """An Int64 that orders the seats of a game by finishing place (higher = ahead):
    winner flag, total, then up to three tie-break counts (13 bits each)."""
    key = (pl.col("win_share") > 0).cast(pl.Int64) * (1 << 62)
    key = key + (pl.col("total").cast(pl.Int64) + 100_000).clip(0, (1 << 22) - 1) * (1 << 40)
    for i, step in enumerate(list(tiebreaks)[:3]):
        key = key + pl.col(_TB_COLUMN[step]).cast(pl.Int64).clip(0, 8191) * (1 << (13 * (2 - i)))
    return key


def _game_matrix(res: Results):
    """Per point: (block index [n], strategy codes [n, P], finish keys [n, P]) with
    games in rows and seats in columns."""
    by_tb: dict[tuple, list[int]] = {}
    for p in res.point_ids:
        by_tb.setdefault(tuple(res.rules_at(p).tiebreaks), []).append(p)
    key = None
    for tb, pts in by_tb.items():
        k = _finish_key(tb)
        key = k if key is None else pl.when(pl.col("point").is_in(pts)).then(k).otherwise(key)
    df = (res.scan("players")
          .select("point", "game", "block", "seat",
                  pl.col("strategy").cast(pl.String).cast(res.strategy_dtype).to_physical().cast(pl.Int16).alias("s"),
                  key.alias("key"))
          .sort("game", "seat").collect())
    P = res.players
    out = {}
    for (point,), d in df.group_by("point"):
        n = d.height // P
        blocks = d["block"].to_numpy()[::P]
        _, binv = np.unique(blocks, return_inverse=True)
        out[int(point)] = (binv, d["s"].to_numpy().reshape(n, P).astype(np.int64), d["key"].to_numpy().reshape(n, P))
    return out


def _pair_sums(binv, S, K, n_labels):
    """Per block: ``ahead[b, i*L + j]`` (i finished ahead of j, ties 0.5) and
    ``met[b, i*L + j]`` (games where both sat), for every ordered label pair."""
    L = n_labels
    nb = int(binv.max()) + 1 if binv.size else 0
    ahead = np.zeros(nb * L * L)
    met = np.zeros(nb * L * L)
    P = S.shape[1]
    base = binv.astype(np.int64) * (L * L)
    for a in range(P):
        for b in range(P):
            if a == b:
                continue
            idx = base + S[:, a] * L + S[:, b]
            score = (K[:, a] > K[:, b]) + 0.5 * (K[:, a] == K[:, b])
            ahead += np.bincount(idx, weights=score, minlength=nb * L * L)
            met += np.bincount(idx, minlength=nb * L * L)
    return ahead.reshape(nb, L * L), met.reshape(nb, L * L)


def _pairs_by_point(res: Results) -> dict:
    """Per point: the per-block pair sums of :func:`_pair_sums` (shared by head_to_head and ratings)."""
    def compute():
        L = len(res.labels)
        return {p: _pair_sums(binv, S, K, L) for p, (binv, S, K) in _game_matrix(res).items()}
    return res.memo("pair_sums", compute)


def head_to_head(res: Results, resamples: int = 1000, seed: int = 0) -> pl.DataFrame:
    """For every ordered pair of strategies that met: among the games where both
    sat, the fraction in which ``strategy`` finished ahead of ``opponent``
    (finishing order in the module docstring; a tie counts 0.5), so
    ``win_rate(A, B) + win_rate(B, A) = 1``.

    Columns: point, strategy, opponent, games, win_rate, low, high (95% block bootstrap).
    """
    res = Results.open(res)
    L = len(res.labels)
    rows = []
    for point, (ahead, met) in sorted(_pairs_by_point(res).items()):
        lo, hi = block_bootstrap(ahead, met, resamples, _point_seed(seed, point))
        a, m = ahead.sum(0), met.sum(0)
        for i in range(L):
            for j in range(L):
                c = i * L + j
                if i != j and m[c] > 0:
                    rows.append((point, res.labels[i], res.labels[j], int(m[c]), float(a[c] / m[c]),
                                 float(lo[c]), float(hi[c])))
    schema = {"point": pl.UInt16, "strategy": pl.String, "opponent": pl.String, "games": pl.Int64,
              "win_rate": pl.Float64, "low": pl.Float64, "high": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _bradley_terry(wins: np.ndarray, met: np.ndarray, iters: int = 10_000, tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry strengths by Hunter's MM iterations, vectorised over a leading axis.

    ``wins[..., i, j]``: times i finished ahead of j (ties half each);
    ``met[..., i, j]``: comparisons of i and j. Returns log10 strengths, mean 0
    over each set. A label that never won nor lost gets NaN.
    """
    w = wins + 1e-3 * (met > 0)                   # a tiny prior: no infinite rating for 0 or all wins
    n = met + 2e-3 * (met > 0)
    W = w.sum(-1)
    present = n.sum(-1) > 0
    p = np.where(present, 1.0, 0.0)
    for _ in range(iters):
        with np.errstate(divide="ignore", invalid="ignore"):
            denom = np.where(n > 0, n / (p[..., :, None] + p[..., None, :]), 0.0).sum(-1)
            new = np.where(present, W / denom, 0.0)
        logs = np.where(present, np.log(np.where(present, new, 1.0)), 0.0)
        mean = logs.sum(-1, keepdims=True) / np.maximum(present.sum(-1, keepdims=True), 1)
        new = np.where(present, np.exp(logs - mean), 0.0)
        done = np.nanmax(np.abs(new - p)) < tol
        p = new
        if done:
            break
    return np.where(present, np.log10(np.where(present, p, 1.0)), np.nan)


def ratings(res: Results, resamples: int = 200, seed: int = 0) -> pl.DataFrame:
    """A rating per strategy: Bradley-Terry over every pair of seats of every game
    (finishing order in the module docstring, ties half a win each), fitted by
    MM iterations, on an Elo-like scale ``400 * log10(strength)`` with mean 0 over
    the strategies of the point. A difference of 191 (= 400 log10 3) means
    "finishes ahead 3 times in 4". A tiny prior (0.001 of a win each way per pair
    that met) keeps all-win or all-loss strategies finite.

    Columns: point, strategy, rating, low, high (95% block bootstrap, each
    resample refitted; 200 resamples by default, which is plenty for 95% percentile
    bounds of a smooth statistic).
    """
    res = Results.open(res)
    L = len(res.labels)
    rows = []
    for point, (ahead, met) in sorted(_pairs_by_point(res).items()):
        r = 400 * _bradley_terry(ahead.sum(0).reshape(L, L), met.sum(0).reshape(L, L))
        lo = hi = np.full(L, np.nan)
        if resamples > 0 and ahead.shape[0] > 0:
            sums = _resampled_sums(np.hstack([ahead, met]), resamples, _point_seed(seed, point))
            boot = 400 * _bradley_terry(sums[:, :L * L].reshape(-1, L, L), sums[:, L * L:].reshape(-1, L, L))
            lo, hi = _nanquantiles(boot, (0.025, 0.975))
        for i in range(L):
            if not np.isnan(r[i]):
                rows.append((point, res.labels[i], float(r[i]), float(lo[i]), float(hi[i])))
    schema = {"point": pl.UInt16, "strategy": pl.String, "rating": pl.Float64, "low": pl.Float64,
              "high": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


# --------------------------------------------------------------------------- scores and games


_COMPONENTS = ("total", "routes", "tickets_won", "tickets_lost", "longest_bonus", "globetrotter", "passenger_points")


def _with_label(res: Results, df: pl.DataFrame) -> pl.DataFrame:
    """Sort by point and entrant order, strategy as String."""
    return (df.with_columns(pl.col("strategy").cast(pl.String).cast(res.strategy_dtype))
            .sort("point", "strategy").with_columns(pl.col("strategy").cast(pl.String)))


def score_components(res: Results) -> pl.DataFrame:
    """Mean score and each component per point and strategy.

    Columns: point, strategy, games, total, routes, tickets_won, tickets_lost
    (positive: the points lost), longest_bonus, globetrotter, passenger_points,
    sd_total. ``total = routes + tickets_won - tickets_lost + longest_bonus +
    globetrotter + passenger_points``.
    """
    res = Results.open(res)
    df = (res.scan("players").group_by("point", pl.col("strategy").cast(pl.String))
          .agg(pl.len().cast(pl.Int64).alias("games"),
               *[pl.col(c).cast(pl.Float64).mean().alias(c) for c in _COMPONENTS],
               pl.col("total").cast(pl.Float64).std().alias("sd_total"))
          .collect())
    return _with_label(res, df)


def score_histogram(res: Results, bin_width: int = 5) -> pl.DataFrame:
    """Final score distribution per point and strategy: ``bin`` is the lower edge
    (a multiple of ``bin_width``; a score s falls in bin floor(s / w) * w).

    Columns: point, strategy, bin (Int64), games. Only non-empty bins.
    """
    res = Results.open(res)
    w = int(bin_width)
    df = (res.scan("players")
          .group_by("point", pl.col("strategy").cast(pl.String),
                    (pl.col("total").cast(pl.Int64).floordiv(w) * w).alias("bin"))
          .agg(pl.len().cast(pl.Int64).alias("games")).collect())
    df = df.with_columns(pl.col("strategy").cast(res.strategy_dtype)).sort("point", "strategy", "bin")
    return df.with_columns(pl.col("strategy").cast(pl.String)).select("point", "strategy", "bin", "games")


def game_length(res: Results) -> pl.DataFrame:
    """Game length in turns (all seats' turns together) per point.

    Columns: point, games, mean_turns, median_turns, p10_turns, p90_turns
    (linear-interpolated quantiles), mean_turns_per_player (turns / players).
    """
    res = Results.open(res)
    t = pl.col("turns").cast(pl.Float64)
    return (res.scan("games").group_by("point")
            .agg(pl.len().cast(pl.Int64).alias("games"), t.mean().alias("mean_turns"),
                 t.median().alias("median_turns"), t.quantile(0.1, "linear").alias("p10_turns"),
                 t.quantile(0.9, "linear").alias("p90_turns"),
                 (t / pl.col("players").cast(pl.Float64)).mean().alias("mean_turns_per_player"))
            .sort("point").collect())


def end_reasons(res: Results) -> pl.DataFrame:
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
