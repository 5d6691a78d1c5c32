"""Tickets: how often each ticket is offered, kept and completed, the points it
scores when kept, whether keeping it goes with winning (an association), and its
points against its shortest path on the empty board; and the same by deck.

**Shortest path** (``shortest_path``): the fewest trains joining the ticket's
two ends over the map's routes with nobody's trains on the board (Dijkstra,
route length as the weight). A country end (Germany, R6.4) is the set of its
border points; border points are dead ends, so a path never passes through a
country. :func:`shortest_path_routes` also gives, per ticket, the routes that lie
on *some* shortest path (used by ``routes.blocking``).

**Win rate of the keepers against their baseline.** ``win_rate_kept`` is the
mean win share of the seats that kept the ticket; ``baseline`` is the mean, over
the same keepers, of their strategy's overall win rate at that point (what those
keepers would win without knowing which ticket they held); ``lift`` =
``win_rate_kept - baseline``, with the 95% interval of ``win_rate_kept`` over
seed blocks (``lift_low``, ``lift_high``), its two-sided p-value against 0
(``lift_p``, :func:`ttrsim.results.stats.rate_p_value`) and that p-value
adjusted by Holm's method for the number of tickets kept at the point
(``lift_p_holm``): the key findings name a ticket only where the adjusted
p-value is below 0.05. A positive lift says good players keep it, or that its
keepers kept it because their deal fitted it (selection), or that it helps: it
is an association, not a causal effect of the ticket.

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4, "seed": 1,
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> from ttrsim.report import Results, ticket_value
>>> rows = ticket_value(Results.open(path))
>>> rows.height, rows.columns[:5]                 # a row per ticket
(30, ['point', 'ticket', 'from', 'to', 'points'])
>>> tmp.cleanup()
"""
from __future__ import annotations

import functools
import heapq

import numpy as np
import polars as pl

from ttrsim.data.rules import percent_of
from ttrsim.results import stats

from .dataset import Results

__all__ = ["ticket_value", "ticket_decks", "shortest_path_routes", "ticket_shortest_paths"]


# --------------------------------------------------------------------------- shortest paths


def _distances(m, sources) -> np.ndarray:
    """Fewest trains from the node set ``sources`` to every node; country border
    points other than the sources are reached but never passed through."""
    adj: list[list[tuple[int, int]]] = [[] for _ in range(m.n_nodes)]
    for a, b, ln in zip(m.route_a.tolist(), m.route_b.tolist(), m.route_len.tolist()):
        adj[a].append((b, ln))
        adj[b].append((a, ln))
    dead = m.location_is_country[m.node_loc]
    dist = np.full(m.n_nodes, np.inf)
    heap = []
    for s in sources:
        dist[s] = 0.0
        heap.append((0.0, int(s)))
    heapq.heapify(heap)
    src = set(int(s) for s in sources)
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u] or (dead[u] and u not in src):
            continue
        for v, ln in adj[u]:
            if d + ln < dist[v]:
                dist[v] = d + ln
                heapq.heappush(heap, (d + ln, v))
    return dist


def ticket_shortest_paths(m) -> np.ndarray:
    """Shortest path (trains, empty board) of every ticket of map ``m``; inf if unreachable."""
    return _ticket_paths(m)[0]


def shortest_path_routes(m) -> np.ndarray:
    """bool ``[tickets, routes]``: route r lies on some shortest path of ticket t
    (empty board; parallel tracks of a route on the path all count)."""
    return _ticket_paths(m)[1]


@functools.lru_cache(maxsize=8)
def _ticket_paths(m):
    """(lengths [T], on-path mask [T, R]) of a map (MapData hashes by identity)."""
    T, R = m.n_tickets, m.n_routes
    length = np.full(T, np.inf)
    on = np.zeros((T, R), bool)
    ra, rb, rl = (np.asarray(x, np.int64) for x in (m.route_a, m.route_b, m.route_len))
    dead = np.asarray(m.location_is_country)[np.asarray(m.node_loc)]
    for t in range(T):
        A = m.location_nodes(int(m.ticket_a[t]))
        B = m.location_nodes(int(m.ticket_b[t]))
        dA, dB = _distances(m, A), _distances(m, B)
        D = dB[A].min()
        length[t] = D
        if not np.isfinite(D):
            continue
        inA = np.isin(np.arange(m.n_nodes), A)
        inB = np.isin(np.arange(m.n_nodes), B)
        # direction u -> v: u may be passed through (or is a source), v likewise (or is a target)
        okA = ~dead | inA
        okB = ~dead | inB
        fwd = (dA[ra] + rl + dB[rb] == D) & okA[ra] & okB[rb]
        bwd = (dA[rb] + rl + dB[ra] == D) & okA[rb] & okB[ra]
        on[t] = fwd | bwd
    return length, on


# --------------------------------------------------------------------------- ticket value


_VALUE_SCHEMA = {"point": pl.UInt16, "ticket": pl.Int16, "from": pl.String, "to": pl.String, "points": pl.Int16,
                 "decks": pl.String, "shortest_path": pl.Int64, "offered": pl.Int64, "kept": pl.Int64,
                 "keep_rate": pl.Float64, "completed": pl.Int64, "completion_rate": pl.Float64,
                 "mean_net_points": pl.Float64, "win_rate_kept": pl.Float64, "baseline": pl.Float64,
                 "lift": pl.Float64, "lift_low": pl.Float64, "lift_high": pl.Float64, "lift_p": pl.Float64,
                 "lift_p_holm": pl.Float64}


def _seat_key() -> pl.Expr:
    """One UInt64 per (game, seat): a single-column join key (faster than two)."""
    return (pl.col("game").cast(pl.UInt64) * 8 + pl.col("seat").cast(pl.UInt64)).alias("key")


WIN_UNITS = 60      # a win share is 1/k of a win (k <= 5 tied winners): a whole number of 1/60 wins


def _scored(res: Results) -> pl.LazyFrame:
    """Per point and ticket: ``won`` and ``lost``, the points it scores when
    completed and loses when failed under the point's rules (R6.3: its printed
    points x ``ticket_points_percent`` / ``ticket_penalty_percent``)."""
    printed = np.asarray(res.map.ticket_points, np.int64)
    frames = [pl.DataFrame({"point": p, "ticket": np.arange(printed.size),
                            "won": percent_of(printed, res.rules_at(p).ticket_points_percent),
                            "lost": percent_of(printed, res.rules_at(p).ticket_penalty_percent)})
              for p in res.point_ids]
    return pl.concat(frames).with_columns(pl.col("point").cast(pl.UInt16), pl.col("ticket").cast(pl.Int16)).lazy()


def _ticket_sums(res: Results) -> pl.DataFrame:
    """Per point and ticket: offered, kept, completed, net points and win sums of
    the keepers, and ``base``, the sum of the keepers' strategies' win rates.
    Whatever is summed over games is a whole number (wins in 1/60ths), so the
    sums are exact in any order the lazy engine adds rows, and only a handful of
    strategy rows per ticket are added as floats, in a fixed order: the same
    values every run."""
    t = res.scan("tickets").select("point", "game", "seat", "block", "ticket", "kept", "completed")
    offered = t.group_by("point", "ticket").agg(pl.len().cast(pl.Int64).alias("offered"))
    wins = (pl.col("win_share").cast(pl.Float64) * WIN_UNITS).round().cast(pl.Int64).alias("wins")
    strategy = pl.col("strategy").cast(pl.String).cast(res.strategy_dtype)
    players = res.scan("players").select("point", _seat_key(), strategy, wins)
    rate = (players.group_by("point", "strategy")           # each strategy's overall win rate at the point
            .agg((pl.col("wins").sum() / (WIN_UNITS * pl.len())).alias("rate")))
    done = pl.col("completed").fill_null(False)
    by_strategy = (t.filter(pl.col("kept")).select("point", "ticket", "completed", _seat_key())
                   .join(_scored(res), on=["point", "ticket"], how="left")
                   .join(players.drop("point"), on="key", how="left")
                   .group_by("point", "ticket", "strategy")
                   .agg(pl.len().cast(pl.Int64).alias("kept"), done.sum().cast(pl.Int64).alias("completed"),
                        pl.when(done).then(pl.col("won")).otherwise(-pl.col("lost")).sum()
                        .alias("net"), pl.col("wins").sum())
                   .join(rate, on=["point", "strategy"], how="left")
                   .collect().sort("point", "ticket", "strategy"))
    kept = (by_strategy.group_by("point", "ticket", maintain_order=True)    # eager: rows added in sorted order
            .agg(pl.col("kept", "completed").sum(), pl.col("net").sum().cast(pl.Float64),
                 (pl.col("wins").sum() / WIN_UNITS).alias("wins"),
                 (pl.col("kept") * pl.col("rate")).sum().alias("base")))
    # per seed block: keeps k and keepers' wins w (whole units), for the interval of win_rate_kept
    k, w = pl.col("k"), pl.col("w")
    blocks = (t.filter(pl.col("kept")).select("point", "ticket", "block", _seat_key())
              .join(players.select("key", "wins"), on="key", how="left")
              .group_by("point", "ticket", "block")
              .agg(pl.len().cast(pl.Int64).alias("k"), pl.col("wins").sum().alias("w"))
              .group_by("point", "ticket")
              .agg(pl.len().cast(pl.Int64).alias("nb"), (w * w).sum().alias("sww"), (w * k).sum().alias("swc"),
                   (k * k).sum().alias("scc"))
              .collect())
    return (offered.collect().join(kept, on=["point", "ticket"], how="left")
            .join(blocks, on=["point", "ticket"], how="left")
            .with_columns(pl.col("kept", "completed", "nb", "sww", "swc", "scc").fill_null(0),
                          pl.col("net", "wins", "base").fill_null(0.0)))


def ticket_value(res: Results) -> pl.DataFrame:
    """Per point and ticket offered at least once.

    Columns: point, ticket, from, to, points (printed), decks (comma-separated
    deck tags), shortest_path (trains on the empty board), offered (times
    offered, at setup or in a draw), kept, keep_rate (kept / offered), completed
    (kept and completed), completion_rate (completed / kept), mean_net_points
    (over kept: the points scored if completed, minus those lost if not, under
    the point's rules, R6.3), win_rate_kept (mean win share of the
    keepers), baseline (mean of the keepers' strategies' overall win rates),
    lift (win_rate_kept - baseline), lift_low, lift_high (the 95% interval of
    win_rate_kept over seed blocks, :func:`ttrsim.results.stats.rate_interval`,
    less the baseline). Rates are null when their denominator is 0.
    """
    res = Results.open(res)
    sums = res.memo("ticket_sums", lambda: _ticket_sums(res))
    if sums.height == 0:
        return pl.DataFrame(schema=_VALUE_SCHEMA)
    length = ticket_shortest_paths(res.map)
    dim = (res.dim("tickets").with_columns(pl.col("ticket").cast(pl.Int16))
           .with_columns(pl.Series("shortest_path", [None if not np.isfinite(x) else int(x) for x in
                                                     length[res.dim("tickets")["ticket"].to_numpy()]],
                                   dtype=pl.Int64)))
    k = pl.col("kept").cast(pl.Float64)
    kept_rate = lambda c: pl.when(pl.col("kept") > 0).then(pl.col(c) / k).otherwise(None)  # noqa: E731
    df = (sums.with_columns(pl.col("ticket").cast(pl.Int16))
          .join(dim, on="ticket", how="left")
          .with_columns((k / pl.col("offered")).alias("keep_rate"), kept_rate("completed").alias("completion_rate"),
                        kept_rate("net").alias("mean_net_points"), kept_rate("wins").alias("win_rate_kept"),
                        kept_rate("base").alias("baseline"))
          .with_columns((pl.col("win_rate_kept") - pl.col("baseline")).alias("lift")))
    u = float(WIN_UNITS)
    lo, hi = stats.rate_interval(df["kept"].to_numpy(), df["wins"].to_numpy(), df["nb"].to_numpy(),
                                 df["sww"].to_numpy() / u ** 2, df["swc"].to_numpy() / u, df["scc"].to_numpy())
    pv = stats.rate_p_value(df["kept"].to_numpy(), df["wins"].to_numpy(), df["nb"].to_numpy(),
                            df["sww"].to_numpy() / u ** 2, df["swc"].to_numpy() / u, df["scc"].to_numpy(),
                            df["baseline"].fill_null(0.0).to_numpy())
    df = df.with_columns(
        *[pl.when(pl.col("kept") > 0).then(pl.Series(v) - pl.col("baseline")).alias(c)
          for c, v in (("lift_low", lo), ("lift_high", hi))],
        pl.Series("lift_p", pv, dtype=pl.Float64).fill_nan(None))
    df = df.with_columns(pl.col("lift_p").map_batches(lambda p: pl.Series(stats.holm(p.fill_null(np.nan).to_numpy())),
                                                     return_dtype=pl.Float64).over("point").fill_nan(None)
                         .alias("lift_p_holm"))
    return df.select([pl.col(c).cast(d) for c, d in _VALUE_SCHEMA.items()]).sort("point", "ticket")


def ticket_decks(res: Results) -> pl.DataFrame:
    """Ticket value summarised per deck tag (``base``, ``1910``, ``mega``,
    ``bigcities``, ``short``, ``long``): a ticket with several tags counts in each.

    Columns: point, deck, tickets (distinct tickets of the deck offered),
    offered, keep_rate, completion_rate (of kept), mean_net_points (over kept).
    """
    res = Results.open(res)
    schema = {"point": pl.UInt16, "deck": pl.String, "tickets": pl.Int64, "offered": pl.Int64,
              "keep_rate": pl.Float64, "completion_rate": pl.Float64, "mean_net_points": pl.Float64}
    sums = res.memo("ticket_sums", lambda: _ticket_sums(res))
    if sums.height == 0:
        return pl.DataFrame(schema=schema)
    tags = (res.dim("tickets").select(pl.col("ticket").cast(pl.Int16), pl.col("decks").str.split(",").alias("deck"))
            .explode("deck"))
    df = (sums.with_columns(pl.col("ticket").cast(pl.Int16)).join(tags, on="ticket")
          .group_by("point", "deck")
          .agg(pl.len().cast(pl.Int64).alias("tickets"), pl.col("offered").sum(), pl.col("kept").sum(),
               pl.col("completed").sum(), pl.col("net").sum()))
    k = pl.col("kept").cast(pl.Float64)
    df = df.with_columns((k / pl.col("offered")).alias("keep_rate"),
                         pl.when(k > 0).then(pl.col("completed") / k).alias("completion_rate"),
                         pl.when(k > 0).then(pl.col("net") / k).alias("mean_net_points"))
    return df.select([pl.col(c).cast(d) for c, d in schema.items()]).sort("point", "deck")
