"""Route contention from the turn log: how often and how early each route is
claimed, by whom, how often more than one track of a double/triple route is
taken, and how often a claim blocks another seat's ticket.

All three need the ``turns`` table (experiments run with ``log: true``); without
it they raise :class:`~ttrsim.report.dataset.ResultsError`.

**Claim turn** is given in *rounds*: ``turn // players`` (round 0 is every
seat's first turn), so maps and player counts compare.

**Blocking.** A claim *blocks* when its route lies on a shortest path (empty
board, in trains; :func:`ttrsim.report.tickets.shortest_path_routes`) between the
two ends of a ticket that another seat holds at that moment: kept by that seat
at setup, or drawn in an earlier turn. Approximations, all from what the tables
record:

* *open at that moment*: the tables say whether a ticket was completed at the
  end, not when. ``blocking_claims`` counts only tickets that ended
  uncompleted, which were certainly open at the claim (a lower bound);
  ``blocking_claims_any`` counts every held ticket, including ones already
  completed before the claim (an upper bound).
* *shortest path on the empty board*: the holder's actual plan, and routes
  already claimed, are ignored; every shortest path counts (ties included).
* a track of a double route counts even if its twin stays open to the holder.

A claim is counted once however many tickets it touches. Only the tickets of
the rule set's decks are considered. The computation is vectorised: per batch
of part files (about 100,000 games), a tickets x games array of holders, then
for each route of the map and each ticket whose shortest path uses it, one
numpy pass over that route's claims.

>>> from ttrsim.report import Results, route_contention               # doctest: +SKIP
>>> route_contention(Results.open("results/quickstart")).sort("claim_rate")   # doctest: +SKIP
"""
from __future__ import annotations

import numpy as np
import polars as pl

from .dataset import Results
from .tickets import shortest_path_routes

__all__ = ["route_contention", "route_claimers", "blocking"]

_BATCH_GAMES = 100_000  # games per batch of part files in blocking()


def _claims(res: Results, what: str) -> pl.LazyFrame:
    """point, game, seat, turn, route of every claim turn (``route`` is set on claim turns only)."""
    res.require_turns(what)
    return (res.scan("turns").filter(pl.col("route").is_not_null())
            .select("point", "game", "seat", "turn", pl.col("route").cast(pl.Int16)))


def _quantiles_from_counts(values: np.ndarray, counts: np.ndarray, qs) -> list[float]:
    """Linear-interpolated quantiles (numpy's / polars' 'linear') of a sample
    given as sorted distinct ``values`` with their ``counts``."""
    cum = np.cumsum(counts)
    n = int(cum[-1])
    out = []
    for q in qs:
        pos = q * (n - 1)
        i, frac = int(np.floor(pos)), pos - np.floor(pos)
        lo = values[np.searchsorted(cum, i, side="right")]
        hi = values[np.searchsorted(cum, min(i + 1, n - 1), side="right")]
        out.append(float(lo + frac * (hi - lo)))
    return out


def route_contention(res: Results) -> pl.DataFrame:
    """Per point and route of the map (claimed or not).

    Columns: point, route, label, from, to, length, colour, group, tracks (tracks
    in the route's parallel group), games (games at the point), claims,
    claim_rate (claims / games: the share of games where it was claimed),
    median_turn, q25_turn, q75_turn (claim round = turn // players, quantiles
    interpolated linearly; null if never claimed), group_multi_rate
    (double/triple routes: share of games where more than one track of the group
    was claimed, the same on every track; null for single routes).
    """
    res = Results.open(res)
    claims = _claims(res, "route_contention")
    routes = res.dim("routes").with_columns(pl.col("route").cast(pl.Int16), pl.col("group").cast(pl.Int16))
    routes = routes.with_columns(pl.len().over("group").cast(pl.Int64).alias("tracks"))
    # claim rounds as a histogram per route (small), quantiles from it
    hist = (claims.group_by("point", "route", (pl.col("turn").cast(pl.Int32) // res.players).alias("round"))
            .agg(pl.len().alias("n")).sort("point", "route", "round").collect())
    rows = []
    for (point, route), h in hist.group_by("point", "route", maintain_order=True):
        n = h["n"].to_numpy()
        med, q25, q75 = _quantiles_from_counts(h["round"].to_numpy(), n, (0.5, 0.25, 0.75))
        rows.append((point, route, int(n.sum()), med, q25, q75))
    per_route = pl.DataFrame(rows, schema={"point": pl.UInt16, "route": pl.Int16, "claims": pl.Int64,
                                           "median_turn": pl.Float64, "q25_turn": pl.Float64,
                                           "q75_turn": pl.Float64}, orient="row")
    multi = (claims.join(routes.lazy().filter(pl.col("tracks") > 1).select("route", "group"), on="route")
             .group_by("point", "game", "group").agg(pl.len().alias("n"))
             .filter(pl.col("n") > 1).group_by("point", "group").agg(pl.len().cast(pl.Int64).alias("multi"))
             .collect())
    games = res.games_by_point
    df = (games.join(routes, how="cross")
          .join(per_route, on=["point", "route"], how="left")
          .join(multi, on=["point", "group"], how="left")
          .with_columns(pl.col("claims").fill_null(0))
          .with_columns((pl.col("claims") / pl.col("games")).alias("claim_rate"),
                        pl.when(pl.col("tracks") > 1).then(pl.col("multi").fill_null(0) / pl.col("games"))
                        .otherwise(None).alias("group_multi_rate")))
    return df.select("point", "route", "label", "from", "to", "length", "colour", "group", "tracks", "games",
                     "claims", "claim_rate", "median_turn", "q25_turn", "q75_turn", "group_multi_rate"
                     ).sort("point", "route")


def route_claimers(res: Results) -> pl.DataFrame:
    """Who claims each route: per point, route and strategy that claimed it.

    Columns: point, route, strategy, claims, share (of the route's claims at that point).
    """
    res = Results.open(res)
    df = (res.with_strategy(_claims(res, "route_claimers"))
          .group_by("point", "route", "strategy").agg(pl.len().cast(pl.Int64).alias("claims"))
          .with_columns((pl.col("claims") / pl.col("claims").sum().over("point", "route")).alias("share"))
          .sort("point", "route", "strategy").collect())
    return df.with_columns(pl.col("strategy").cast(pl.String)).select("point", "route", "strategy", "claims",
                                                                       "share")


# --------------------------------------------------------------------------- blocking


def _batches(res: Results):
    """Pairs of (turns files, tickets files) of the same chunks, about _BATCH_GAMES games each."""
    turns = {f.rsplit("/", 1)[-1]: f for f in res._files["turns"]}
    tickets = {f.rsplit("/", 1)[-1]: f for f in res._files["tickets"]}
    names = sorted(set(turns) & set(tickets))
    per = max(1, _BATCH_GAMES // max(1, int(res.manifest["layout"].get("chunk_games", 2000))))
    for i in range(0, len(names), per):
        chunk = names[i:i + per]
        yield [turns[n] for n in chunk], [tickets[n] for n in chunk]


def _blocking_batch(res: Results, turn_files, ticket_files, route_tickets, n_tickets):
    """(point, strategy code, open, any) per claim of one batch of part files (None without claims)."""
    c = (pl.scan_parquet(turn_files).filter(pl.col("route").is_not_null())      # route is set on claims only
         .select("point", "game", "seat", "turn", "route").collect())
    k = (pl.scan_parquet(ticket_files).filter(pl.col("kept"))
         .select("game", "seat", "ticket", pl.col("turn").fill_null(-1), pl.col("completed").fill_null(False))
         .collect())
    cgame = c["game"].to_numpy().astype(np.int64)
    kgame = k["game"].to_numpy().astype(np.int64)
    if len(cgame) == 0:
        return None
    lo = min(cgame.min(), kgame.min()) if len(kgame) else cgame.min()
    hi = max(cgame.max(), kgame.max()) if len(kgame) else cgame.max()
    if hi - lo < 4 * (len(cgame) + len(kgame)) + 1000:           # the usual case: consecutive game ids
        cg, kg, n_games = cgame - lo, kgame - lo, int(hi - lo + 1)
    else:
        games = np.unique(np.concatenate([cgame, kgame]))
        cg, kg, n_games = np.searchsorted(games, cgame), np.searchsorted(games, kgame), len(games)
    # per ticket and game, one int32: (turn drawn + 2) << 4 | (holder seat + 1) << 1 | completed;
    # no holder: a turn beyond any claim, so "held before the claim" is false
    enc = np.full((n_tickets, n_games), np.int32(0x7FFF) << 4, np.int32)
    kt = k["ticket"].to_numpy().astype(np.int64)
    enc[kt, kg] = ((k["turn"].to_numpy().astype(np.int32) + 2) << 4) | \
        ((k["seat"].to_numpy().astype(np.int32) + 1) << 1) | k["completed"].to_numpy().astype(np.int32)
    # everything in route order, so each route's claims are one contiguous slice
    route = c["route"].to_numpy().astype(np.int16)
    order = np.argsort(route, kind="stable")               # radix sort on int16
    bounds = np.concatenate([[0], np.cumsum(np.bincount(route, minlength=len(route_tickets)))])
    cg = cg[order]
    seat = c["seat"].to_numpy().astype(np.int32)[order]
    turn2 = c["turn"].to_numpy().astype(np.int32)[order] + 2
    seating = (cgame[order] % res.stride) % res.block_size
    strategy = np.array(res.seatings, np.int64)[seating, seat]     # [seating, seat] -> entrant
    seat += 1
    blocks_open = np.zeros(len(route), bool)
    blocks_any = np.zeros(len(route), bool)
    for r, tickets in enumerate(route_tickets):             # a loop over the map's routes, vectorised over claims
        a, b = bounds[r], bounds[r + 1]
        if not tickets or a == b:
            continue
        g, sr, tr = cg[a:b], seat[a:b], turn2[a:b]
        any_, open_ = blocks_any[a:b], blocks_open[a:b]     # views
        for t in tickets:
            e = enc[t][g]
            held = ((e >> 4) < tr) & (((e >> 1) & 7) != sr)
            any_ |= held
            open_ |= held & ((e & 1) == 0)
    return pl.DataFrame({"point": c["point"].to_numpy()[order], "s": strategy, "open": blocks_open,
                         "any": blocks_any})


def blocking(res: Results) -> pl.DataFrame:
    """How often each strategy's claims block another seat's ticket (module docstring).

    Columns: point, strategy, claims, blocking_claims (blocking an open ticket
    that ended uncompleted: a lower bound), blocking_rate (blocking_claims /
    claims), blocking_claims_any (any held ticket: an upper bound), blocking_rate_any.
    """
    res = Results.open(res)
    res.require_turns("blocking")
    on = shortest_path_routes(res.map)                       # [tickets, routes]
    in_play = np.zeros(on.shape[0], bool)                    # only the tickets of the rule sets' decks
    for p in res.point_ids:
        for tag in res.rules_at(p).ticket_decks:
            in_play[res.map.deck(tag)] = True
    route_tickets = [np.flatnonzero(on[:, r] & in_play).tolist() for r in range(on.shape[1])]
    parts = []
    for turn_files, ticket_files in _batches(res):
        b = _blocking_batch(res, turn_files, ticket_files, route_tickets, on.shape[0])
        if b is None:
            continue
        parts.append(b.group_by("point", "s").agg(pl.len().alias("claims"), pl.col("open").sum().alias("b"),
                                                  pl.col("any").sum().alias("ba")))
    schema = {"point": pl.UInt16, "strategy": pl.String, "claims": pl.Int64, "blocking_claims": pl.Int64,
              "blocking_rate": pl.Float64, "blocking_claims_any": pl.Int64, "blocking_rate_any": pl.Float64}
    if not parts:
        return pl.DataFrame(schema=schema)
    df = (pl.concat(parts).group_by("point", "s").agg(pl.col("claims", "b", "ba").sum()).sort("point", "s"))
    labels = pl.Series("strategy", [res.labels[i] for i in df["s"].to_list()], dtype=pl.String)
    df = df.with_columns(labels, (pl.col("b") / pl.col("claims")).alias("blocking_rate"),
                         (pl.col("ba") / pl.col("claims")).alias("blocking_rate_any"))
    df = df.rename({"b": "blocking_claims", "ba": "blocking_claims_any"})
    return df.select([pl.col(c).cast(d) for c, d in schema.items()])
