"""Strategy comparison: win rates, head-to-head, ratings, seat advantage,
score components and distributions, game length and end reasons, and each
strategy's profile (how it plays).

Every function takes a :class:`~ttrsim.report.dataset.Results` and returns a
polars DataFrame with a ``point`` column (the sweep point). Strategies are
ranked (highest win rate, rating or score first); seats are numbered 1 to
players (seat 1 plays first unless the rules' ``first_seat`` says otherwise),
unlike the raw tables' 0-based ``seat``.

**Distinct games.** Games that replay another game of their seed block (the
same deal with the same strategy in every seat, e.g. a rotated line-up of four
``planner`` s) count once in every rate, interval and pair count
(:func:`ttrsim.results.stats.replays`).

**Win shares.** A seat's win share is 1 for a sole winner, 1/k when k seats
share the win (R6.8 leaves them tied), else 0; a win rate is a mean win share.

**Intervals** (``low``, ``high``). The rates (win rates, seat advantage,
head-to-head) are computed by :mod:`ttrsim.results.stats`, the statistics
module the run summary uses too: a 95% Wilson score interval on the effective
number of games, with the design effect of the seed blocks (the games of a
block share one deal, so the blocks, not the games, are independent); at 0 or
1 wins it is the Wilson interval on the games played. Their ``resamples`` and
``seed`` keywords are accepted for a uniform call and not used. The ratings'
intervals are 95% percentile intervals of a *block bootstrap*: the seed blocks
of a point are drawn with replacement (``resamples`` times; ``seed`` fixes the
draws) in batches of block weights, and every resample is refitted.

**Finishing order** (head-to-head and ratings): winners first, then higher
total, then the rule set's tie-breaks in order (``tiebreaks``: most completed
tickets, then longest path or passengers; Europe: fewest stations used, then
the longest-path bonus, R6.8); seats equal on all of these
are tied. Below the winners this extends R6.8 to every place.

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4, "seed": 1,
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> from ttrsim.report import Results, win_rates
>>> win_rates(Results.open(path)).select("strategy", "games", "wins", "win_rate", "mean_score").rows()
[('route_focus', 4, 4.0, 1.0, 143.5), ('random', 4, 0.0, 0.0, -46.5)]
>>> tmp.cleanup()
"""
from __future__ import annotations

import numpy as np
import polars as pl

from ttrsim.data.rules import TIEBREAK_FEWEST
from ttrsim.results import stats
from ttrsim.results.stats import END_REASONS, end_reasons

from .dataset import Results

__all__ = ["win_rates", "player_win_rates", "player_groups", "head_to_head", "player_head_to_head", "ratings",
           "player_ratings", "seat_advantage", "score_components", "score_histogram", "game_length", "end_reasons",
           "strategy_profile", "PROFILE", "END_REASONS"]

_BATCH_CELLS = 4_000_000  # resamples x blocks per weight batch (32 MB of int64)


# --------------------------------------------------------------------------- block bootstrap (ratings)


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


# --------------------------------------------------------------------------- win rates


def win_rates(res: Results, resamples: int = 1000, seed: int = 0) -> pl.DataFrame:
    """Win rate per point and strategy, highest first
    (:func:`ttrsim.results.stats.win_rates`: the numbers and order of the run summary).

    Columns: point, strategy, games (played), distinct (distinct games), wins
    (sum of win shares: a shared win counts 1/k), win_rate (wins / distinct),
    low, high (95% interval over seed blocks; null when ``fixed``), mean_score
    (mean final total), fixed (1/players by design: no interval).
    """
    return stats.win_rates(res)


def player_win_rates(res: Results, resamples: int = 1000, seed: int = 0) -> pl.DataFrame:
    """:func:`win_rates` with the labels of one player pooled: entrants that
    play the same strategy with the same parameters under several labels
    (``planner``, ``planner-2``: :func:`ttrsim.results.stats.clones`) are
    one player, its rate the win shares of all its seats over their games, its
    interval over seed blocks; highest first. Without such labels it is
    :func:`win_rates` with one label per player. ``behind*``: how far each
    player's rate lies below the first's, paired on the seed blocks
    (:func:`ttrsim.results.stats.gaps_to_leader`), its p-value Holm-adjusted
    over the players behind.

    Columns: point, player (its first label), labels (its labels, comma-separated),
    seats (labels pooled), games, distinct, wins, win_rate, low, high, mean_score,
    behind, behind_low, behind_high, behind_p, behind_p_holm (null for the first).
    """
    res = Results.open(res)
    sums = stats.block_sums(res, "strategy")
    parts = []
    for point in res.point_ids:
        members = player_groups(res, point)
        of = {k: g for g, ks in enumerate(members) for k in ks}
        pooled = (sums.filter(pl.col("point") == point)
                  .with_columns(pl.col("k").replace_strict(of, return_dtype=pl.Int64))
                  .group_by("point", "block", "k").agg(pl.col("wins", "games", "played", "total").sum())
                  .sort("point", "block", "k"))
        t = (stats.rate_table(pooled, len(members))
             .join(stats.gaps_to_leader(pooled, len(members)), on=["point", "k"], how="left"))
        parts.append(t.with_columns(
            pl.Series("player", [res.labels[members[g][0]] for g in t["k"].to_list()], dtype=pl.String),
            pl.Series("labels", [", ".join(res.labels[k] for k in members[g]) for g in t["k"].to_list()],
                      dtype=pl.String),
            pl.Series("seats", [len(members[g]) for g in t["k"].to_list()], dtype=pl.Int64)))
    out = pl.concat(parts) if parts else pl.DataFrame()
    return (out.sort(["point", "win_rate", "k"], descending=[False, True, False])
            .select("point", "player", "labels", "seats", "games", "distinct", "wins", "win_rate", "low", "high",
                    "mean_score", "behind", "behind_low", "behind_high", "behind_p", "behind_p_holm"))


def player_groups(res: Results, point: int) -> list[list[int]]:
    """The entrants (indices into ``res.labels``) of each player at ``point``, in
    entrant order: entrants with the same :func:`ttrsim.results.stats.player_keys`
    are one player (e.g. ``[[0, 1], [2], [3]]`` for ``planner``, ``planner-2``, ...)."""
    groups: dict[str, list[int]] = {}
    for k, key in enumerate(stats.player_keys(res, point)):
        groups.setdefault(key, []).append(k)
    return list(groups.values())


def seat_advantage(res: Results, resamples: int = 1000, seed: int = 0) -> pl.DataFrame:
    """Win rate per point and seat, whatever strategy sat there; ``seat`` 1 to
    players, seat 1 the first to play unless the rules' ``first_seat`` is set.

    Columns: point, seat, games (played), distinct, win_rate, low, high (95%
    interval over seed blocks), fair (1 / players: the rate of a seat with no
    advantage), mean_score, p (two-sided, against ``fair``), p_holm (Holm over
    the seats of the point).
    """
    res = Results.open(res)
    t = stats.rate_table(stats.block_sums(res, "seat"), res.players, null=1.0 / res.players)
    return (t.with_columns((pl.col("k") + 1).cast(pl.Int8).alias("seat"), pl.lit(1.0 / res.players).alias("fair"))
            .select("point", "seat", "games", "distinct", "win_rate", "low", "high", "fair", "mean_score", "p",
                    "p_holm"))


def rank_order(res: Results, point: int | None = None, players: bool = False) -> list[str]:
    """The labels of a point (default: the first) by win rate, highest first: the order of every ranked table;
    ``players``: the players (first labels) by pooled win rate (:func:`player_win_rates`)."""
    p = res.point_ids[0] if point is None else point
    if players:
        w = res.memo("player_win_rates", lambda: player_win_rates(res))
        return w.filter(pl.col("point") == p)["player"].to_list()
    w = res.memo("win_rates", lambda: stats.win_rates(res))
    return w.filter(pl.col("point") == p)["strategy"].to_list()


def _ranked(res: Results, df: pl.DataFrame, by: str | None = None, columns=("strategy",),
            players: bool = False) -> pl.DataFrame:
    """``df`` sorted by point then ``by`` (descending), else by each point's win-rate
    rank of the label (``players``: player) ``columns`` in turn."""
    if by is not None:
        return df.sort(["point", by], descending=[False, True], nulls_last=True, maintain_order=True)
    rank = pl.DataFrame([(p, lab, i) for p in res.point_ids for i, lab in enumerate(rank_order(res, p, players))],
                        schema={"point": pl.UInt16, "name": pl.String, "_rank": pl.Int64}, orient="row")
    keys = []
    for c in columns:
        df = df.join(rank.rename({"name": c, "_rank": f"_rank_{c}"}), on=["point", c], how="left")
        keys.append(f"_rank_{c}")
    return df.sort("point", *keys, maintain_order=True).drop(keys)


# --------------------------------------------------------------------------- finishing order


_TB_COLUMN = {"tickets": "tickets_completed", "longest_path": "longest_path", "passengers": "passengers",
              "stations": "stations_used", "longest_bonus": "longest_bonus", "stations_built": "stations_built"}


def _finish_key(tiebreaks) -> pl.Expr:
    """An Int64 that orders the seats of a game by finishing place (higher = ahead):
    winner flag, total, then up to three tie-break counts (13 bits each; a
    step won by the fewest counts 8191 minus the count)."""
    key = (pl.col("win_share") > 0).cast(pl.Int64) * (1 << 62)
    key = key + (pl.col("total").cast(pl.Int64) + 100_000).clip(0, (1 << 22) - 1) * (1 << 40)
    for i, step in enumerate(list(tiebreaks)[:3]):
        v = pl.col(_TB_COLUMN[step]).cast(pl.Int64).clip(0, 8191)
        key = key + (8191 - v if step in TIEBREAK_FEWEST else v) * (1 << (13 * (2 - i)))
    return key


def _game_matrix(res: Results):
    """Per point: (block index [n], strategy codes [n, P], finish keys [n, P], game
    weights [n]: 1, or 1/copies of a replayed game) with games in rows and seats in columns."""
    by_tb: dict[tuple, list[int]] = {}
    for p in res.point_ids:
        by_tb.setdefault(tuple(res.rules_at(p).tiebreaks), []).append(p)
    key = None
    for tb, pts in by_tb.items():
        k = _finish_key(tb)
        key = k if key is None else pl.when(pl.col("point").is_in(pts)).then(k).otherwise(key)
    lf, w = stats._weighted(res, res.scan("players"))
    df = (lf.select("point", "game", "block", "seat",
                    pl.col("strategy").cast(pl.String).cast(res.strategy_dtype).to_physical().cast(pl.Int16).alias("s"),
                    key.alias("key"), w.alias("w"))
          .sort("game", "seat").collect())
    P = res.players
    out = {}
    for (point,), d in df.group_by("point"):
        n = d.height // P
        blocks = d["block"].to_numpy()[::P]
        _, binv = np.unique(blocks, return_inverse=True)
        out[int(point)] = (binv, d["s"].to_numpy().reshape(n, P).astype(np.int64), d["key"].to_numpy().reshape(n, P),
                           d["w"].to_numpy()[::P])
    return out


def _pair_sums(binv, S, K, n_labels, weight=None):
    """Per block: ``ahead[b, i*L + j]`` (i finished ahead of j, ties 0.5) and
    ``met[b, i*L + j]`` (games where both sat), for every ordered label pair;
    each game counts ``weight`` (default 1)."""
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
            if weight is not None:
                score = score * weight
            ahead += np.bincount(idx, weights=score, minlength=nb * L * L)
            met += np.bincount(idx, weights=weight, minlength=nb * L * L)
    return ahead.reshape(nb, L * L), met.reshape(nb, L * L)


def _pairs_by_point(res: Results, players: bool = False) -> dict:
    """Per point: (names, per-block pair sums of :func:`_pair_sums`) over the labels,
    or with ``players`` over the players (:func:`player_groups`, named by their
    first label; a player's own pairs, one label against another, left out).
    Shared by head_to_head and ratings."""
    def compute():
        replayed = stats.replays(res) is not None
        out = {}
        for p, (binv, S, K, w) in _game_matrix(res).items():
            names, code = list(res.labels), np.arange(len(res.labels))
            if players:
                groups = player_groups(res, p)
                names = [res.labels[g[0]] for g in groups]
                for i, g in enumerate(groups):
                    code[g] = i
            L = len(names)
            ahead, met = _pair_sums(binv, code[S], K, L, w if replayed else None)
            ahead[:, ::L + 1] = met[:, ::L + 1] = 0.0                   # no pair of a player with itself
            out[p] = names, ahead, met
        return out
    return res.memo("player_pair_sums" if players else "pair_sums", compute)


def _head_to_head(res: Results, players: bool) -> pl.DataFrame:
    rows = []
    for point, (names, ahead, met) in sorted(_pairs_by_point(res, players).items()):
        L = len(names)
        lo, hi = stats.block_interval(ahead, met)
        a, m = ahead.sum(0), met.sum(0)
        for i in range(L):
            for j in range(L):
                c = i * L + j
                if m[c] > 0:
                    rows.append((point, names[i], names[j], round(float(m[c]), 6), float(a[c] / m[c]),
                                 float(lo[c]), float(hi[c])))
    name = "player" if players else "strategy"
    schema = {"point": pl.UInt16, name: pl.String, "opponent": pl.String, "games": pl.Float64,
              "ahead_rate": pl.Float64, "low": pl.Float64, "high": pl.Float64}
    df = pl.DataFrame(rows, schema=schema, orient="row")
    if stats.replays(res) is None:
        df = df.with_columns(pl.col("games").cast(pl.Int64))
    return _ranked(res, df, columns=(name, "opponent"), players=players)


def head_to_head(res: Results, resamples: int = 1000, seed: int = 0) -> pl.DataFrame:
    """For every ordered pair of strategies that met: among the games where both
    sat, the fraction in which ``strategy`` finished ahead of ``opponent``
    (finishing order in the module docstring; a tie counts 0.5), so
    ``ahead_rate(A, B) + ahead_rate(B, A) = 1``. Not a win rate: finishing
    third ahead of a fourth counts. Strategies and opponents in win-rate rank.

    Columns: point, strategy, opponent, games (distinct games where both sat),
    ahead_rate, low, high (95% interval over seed blocks).
    """
    return _head_to_head(Results.open(res), players=False)


def player_head_to_head(res: Results, resamples: int = 1000, seed: int = 0) -> pl.DataFrame:
    """:func:`head_to_head` with the labels of one player pooled (as in
    :func:`player_win_rates`): every pair of seats of two different players,
    whichever labels they sat under; players in pooled win-rate rank.

    Columns: point, player, opponent (players, named by their first label),
    games (seat pairs met, counted per game and pair of labels), ahead_rate, low, high.
    """
    return _head_to_head(Results.open(res), players=True)


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


def _ratings(res: Results, resamples: int, seed, players: bool) -> pl.DataFrame:
    rows = []
    for point, (names, ahead, met) in sorted(_pairs_by_point(res, players).items()):
        L = len(names)
        r = 400 * _bradley_terry(ahead.sum(0).reshape(L, L), met.sum(0).reshape(L, L))
        lo = hi = np.full(L, np.nan)
        if resamples > 0 and ahead.shape[0] > 0:
            sums = _resampled_sums(np.hstack([ahead, met]), resamples, _point_seed(seed, point))
            boot = 400 * _bradley_terry(sums[:, :L * L].reshape(-1, L, L), sums[:, L * L:].reshape(-1, L, L))
            lo, hi = _nanquantiles(boot, (0.025, 0.975))
        for i in range(L):
            if not np.isnan(r[i]):
                rows.append((point, names[i], float(r[i]), float(lo[i]), float(hi[i])))
    schema = {"point": pl.UInt16, "player" if players else "strategy": pl.String, "rating": pl.Float64,
              "low": pl.Float64, "high": pl.Float64}
    return _ranked(res, pl.DataFrame(rows, schema=schema, orient="row"), "rating")


def ratings(res: Results, resamples: int = 200, seed: int = 0) -> pl.DataFrame:
    """A rating per strategy: Bradley-Terry over every pair of seats of every game
    (finishing order in the module docstring, ties half a win each), fitted by
    MM iterations, on an Elo-like scale ``400 * log10(strength)`` with mean 0 over
    the strategies of the point. A difference of 191 (= 400 log10 3) means
    "finishes ahead 3 times in 4". A tiny prior (0.001 of a win each way per pair
    that met) keeps all-win or all-loss strategies finite.

    Columns: point, strategy, rating, low, high (95% block bootstrap, each
    resample refitted; 200 resamples by default, which is plenty for 95% percentile
    bounds of a smooth statistic). Highest rating first.
    """
    return _ratings(Results.open(res), resamples, seed, players=False)


def player_ratings(res: Results, resamples: int = 200, seed: int = 0) -> pl.DataFrame:
    """:func:`ratings` over players (the labels of one player pooled, as in
    :func:`player_head_to_head`; a player's own pairs left out).

    Columns: point, player, rating, low, high. Highest rating first.
    """
    return _ratings(Results.open(res), resamples, seed, players=True)


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
    globetrotter + passenger_points``. Highest mean total first. ``sd_total``
    (null for one game) comes from the exact integer sums of the totals and
    their squares, so it is the same to the last digit whatever order the
    rows are read in (a floating-point standard deviation is not).
    """
    res = Results.open(res)
    x = pl.col("total").cast(pl.Int64)
    df = (res.scan("players").group_by("point", pl.col("strategy").cast(pl.String))
          .agg(pl.len().cast(pl.Int64).alias("games"),
               *[pl.col(c).cast(pl.Float64).mean().alias(c) for c in _COMPONENTS],
               x.sum().alias("_s1"), (x * x).sum().alias("_s2"))
          .collect())
    n, s1, s2 = pl.col("games").cast(pl.Float64), pl.col("_s1").cast(pl.Float64), pl.col("_s2").cast(pl.Float64)
    df = df.with_columns(pl.when(pl.col("games") > 1).then(((s2 - s1 * s1 / n) / (n - 1)).clip(0.0).sqrt())
                         .alias("sd_total")).drop("_s1", "_s2")
    return _ranked(res, _with_label(res, df), "total")


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


# --------------------------------------------------------------------------- how each strategy plays


# the measures of strategy_profile: (measure, what it is, unit); a unit "share" is a rate in [0, 1]
PROFILE = (
    ("tickets_kept_setup", "tickets kept at setup", "tickets"),
    ("ticket_draws", "ticket draws during the game", "draws"),
    ("tickets_kept_drawn", "tickets kept from those draws", "tickets"),
    ("tickets_completed", "tickets completed", "tickets"),
    ("tickets_failed", "tickets failed", "tickets"),
    ("ticket_points", "net ticket points", "points"),
    ("route_points", "route points", "points"),
    ("longest_path", "longest continuous path", "trains"),
    ("longest_bonus_won", "longest-path bonus won", "share"),
    ("globetrotter_won", "Globetrotter bonus won", "share"),
    ("final_score", "final score", "points"),
    ("winning_score", "final score in the games it won", "points"),
    ("turns", "turns taken", "turns"),
    ("trains_left", "train cars left at the end", "trains"),
)


def _seat_turns(res: Results) -> pl.Expr:
    """The turns seat ``seat`` took in a game of ``turns`` turns: turns go round the
    table from the rules' first seat, one seat at a time."""
    P = res.players
    first = pl.lit(0, pl.Int64)
    for p in res.point_ids:
        first = pl.when(pl.col("point") == p).then(res.rules_at(p).first_seat % P).otherwise(first)
    offset = (pl.col("seat").cast(pl.Int64) - first) % P
    return ((pl.col("turns").cast(pl.Int64) - offset + P - 1) // P).clip(0, None)


def strategy_profile(res: Results) -> pl.DataFrame:
    """How each strategy plays, per point and strategy, over its seat-games (one
    player in one game): the measures of :data:`PROFILE`, from the ``players``,
    ``tickets`` and ``games`` tables (no turn log needed). A *ticket draw* is a
    turn spent drawing tickets (an offer outside setup); ``turns`` counts the
    player's own turns; ``longest_bonus_won`` and ``globetrotter_won`` are the
    share of its games in which it got the bonus (shared or not; the Globetrotter
    row only where the rules score it); ``winning_score`` is over the games it
    won (shared wins included).

    Columns: point, strategy, measure, unit, games (seat-games measured), mean,
    p10, median, p90 (quantiles interpolated linearly; null for shares).
    Strategies in win-rate rank, measures in :data:`PROFILE` order.
    """
    res = Results.open(res)
    key = (pl.col("game").cast(pl.UInt64) * 8 + pl.col("seat").cast(pl.UInt64)).alias("key")
    offers = (res.scan("tickets").filter(pl.col("kept") | ~pl.col("setup"))
              .group_by(key)
              .agg((pl.col("setup") & pl.col("kept")).sum().cast(pl.Int64).alias("tickets_kept_setup"),
                   pl.col("turn").filter(~pl.col("setup")).n_unique().cast(pl.Int64).alias("ticket_draws"),
                   (~pl.col("setup") & pl.col("kept")).sum().cast(pl.Int64).alias("tickets_kept_drawn")))
    games = res.scan("games").select("game", "turns")
    seats = (res.scan("players").join(games, on="game", how="left")
             .select("point", key, pl.col("strategy").cast(pl.String),
                     pl.col("tickets_completed").cast(pl.Int64), pl.col("tickets_failed").cast(pl.Int64),
                     (pl.col("tickets_won") - pl.col("tickets_lost")).cast(pl.Int64).alias("ticket_points"),
                     pl.col("routes").cast(pl.Int64).alias("route_points"), pl.col("longest_path").cast(pl.Int64),
                     (pl.col("longest_bonus") > 0).cast(pl.Float64).alias("longest_bonus_won"),
                     (pl.col("globetrotter") > 0).cast(pl.Float64).alias("globetrotter_won"),
                     pl.col("total").cast(pl.Int64).alias("final_score"),
                     pl.when(pl.col("winner")).then(pl.col("total").cast(pl.Int64)).alias("winning_score"),
                     _seat_turns(res).alias("turns"), pl.col("trains_left").cast(pl.Int64))
             .join(offers, on="key", how="left")
             .with_columns(pl.col("tickets_kept_setup", "ticket_draws", "tickets_kept_drawn").fill_null(0)))
    trotter = [p for p in res.point_ids if res.rules_at(p).globetrotter_points > 0]
    frames = []
    for measure, _, unit in PROFILE:
        x = pl.col(measure).cast(pl.Float64)
        q = (lambda v: x.quantile(v, "linear")) if unit != "share" else (lambda v: pl.lit(None, pl.Float64))
        lf = seats if measure != "globetrotter_won" else seats.filter(pl.col("point").is_in(trotter))
        frames.append(lf.group_by("point", "strategy")
                      .agg(pl.lit(measure).alias("measure"), pl.lit(unit).alias("unit"),
                           x.count().cast(pl.Int64).alias("games"), x.mean().alias("mean"), q(0.1).alias("p10"),
                           q(0.5).alias("median"), q(0.9).alias("p90")))
    df = pl.concat(pl.collect_all(frames)).filter(pl.col("games") > 0)
    order = pl.DataFrame({"measure": [m for m, _, _ in PROFILE], "_m": list(range(len(PROFILE)))})
    df = df.join(order, on="measure", how="left").sort("_m", maintain_order=True).drop("_m")
    return _ranked(res, df).select("point", "strategy", "measure", "unit", "games", "mean", "p10", "median", "p90")
