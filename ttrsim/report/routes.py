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
    multi = _multi_track_games(res, routes)
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


def _game_index(*game_arrays):
    """Dense indices of game ids (``game - min`` when the ids are nearly consecutive,
    as in a batch of chunks; else ranks) for each array, and the index range."""
    allg = np.concatenate(game_arrays)
    lo, hi = int(allg.min()), int(allg.max())
    if hi - lo < 4 * len(allg) + 1000:
        return (*[a - lo for a in game_arrays], hi - lo + 1)
    games = np.unique(allg)
    return (*[np.searchsorted(games, a) for a in game_arrays], len(games))


def _multi_track_games(res: Results, routes: pl.DataFrame) -> pl.DataFrame:
    """point, group, multi: games where more than one track of a double/triple
    group was claimed. Per batch of part files, a games x routes "claimed" matrix."""
    groups = routes.filter(pl.col("tracks") > 1).group_by("group").agg(pl.col("route")).sort("group")
    n_routes = int(routes["route"].max()) + 1
    n_points = max(res.point_ids) + 1
    multi = np.zeros((n_points, groups.height), np.int64)
    for turn_files, _ in _batches(res):
        c = (pl.scan_parquet(turn_files).filter(pl.col("route").is_not_null())
             .select("point", "game", "route").collect())
        if c.height == 0:
            continue
        g, n_games = _game_index(c["game"].to_numpy().astype(np.int64))
        claimed = np.zeros((n_games, n_routes), bool)
        claimed[g, c["route"].to_numpy().astype(np.int64)] = True
        point = np.full(n_games, n_points, np.int64)             # n_points: a game id with no claim
        point[g] = c["point"].to_numpy()
        for j, tracks in enumerate(groups["route"].to_list()):
            several = claimed[:, tracks].sum(1) > 1
            multi[:, j] += np.bincount(point[several], minlength=n_points + 1)[:n_points]
    return pl.DataFrame({"point": np.repeat(np.arange(n_points), groups.height).astype(np.uint16),
                         "group": np.tile(groups["group"].to_numpy(), n_points).astype(np.int16),
                         "multi": multi.ravel()})


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


def _blocking_batch(res: Results, turn_files, ticket_files, route_tickets, ticket_row, n_points):
    """Counts [3, points x labels] (claims, blocking open, blocking any) of one batch of part files.
    ``route_tickets[r]``: rows (``ticket_row[ticket id]``) of the tickets whose shortest paths use route r."""
    P, L, S = res.players, len(res.labels), len(res.seatings)
    c = (pl.scan_parquet(turn_files).filter(pl.col("route").is_not_null())      # route is set on claims only
         .select("game", "route", "seat", pl.col("turn").cast(pl.Int16),
                 # the claimer as one small code: (point, seating, seat)
                 ((pl.col("point").cast(pl.Int64) * S + (pl.col("game").cast(pl.Int64) % res.stride)
                   % res.block_size) * P + pl.col("seat")).alias("who"))
         .collect())
    k = (pl.scan_parquet(ticket_files).filter(pl.col("kept"))
         .select("game", "seat", "ticket", pl.col("turn").fill_null(-1), pl.col("completed").fill_null(False))
         .collect())
    counts = np.zeros((3, n_points * L), np.int64)
    if c.height == 0:
        return counts
    cg, kg, n_games = _game_index(c["game"].to_numpy().astype(np.int64), k["game"].to_numpy().astype(np.int64))
    # per ticket and (game, claiming seat): the turn + 2 from which *another* seat held the
    # ticket (setup: turn -1), or NEVER; a claim in turn t blocks if that value < t + 2.
    # "open": the same for tickets that ended uncompleted.
    NEVER = np.int16(32767)
    n_rows = int(ticket_row.max()) + 1
    held_from = np.full((n_rows, n_games * P), NEVER, np.int16)
    open_from = np.full((n_rows, n_games * P), NEVER, np.int16)
    kt = ticket_row[k["ticket"].to_numpy().astype(np.int64)]
    play = kt >= 0
    kt, kg = kt[play], kg[play]
    holder = k["seat"].to_numpy().astype(np.int64)[play]
    since2 = (k["turn"].to_numpy().astype(np.int32) + 2).astype(np.int16)[play]
    failed = ~k["completed"].to_numpy()[play]
    for s_ in range(P):                                  # every claiming seat but the holder
        other = holder != s_
        held_from[kt[other], kg[other] * P + s_] = since2[other]
        f = other & failed
        open_from[kt[f], kg[f] * P + s_] = since2[f]
    # claims in route order, so each route's claims are one contiguous slice
    route = c["route"].to_numpy().astype(np.int16)
    order = np.argsort(route, kind="stable")               # radix sort on int16
    bounds = np.concatenate([[0], np.cumsum(np.bincount(route, minlength=len(route_tickets)))])
    gs = (cg * P + c["seat"].to_numpy())[order]            # (game, claiming seat) column
    turn2 = c["turn"].to_numpy()[order] + np.int16(2)
    blocks_open = np.zeros(len(route), bool)
    blocks_any = np.zeros(len(route), bool)
    for r, tickets in enumerate(route_tickets):             # a loop over the map's routes, vectorised over claims
        a, b = bounds[r], bounds[r + 1]
        if not tickets or a == b:
            continue
        g, tr = gs[a:b], turn2[a:b]
        any_, open_ = blocks_any[a:b], blocks_open[a:b]     # views
        for t in tickets:
            any_ |= held_from[t][g] < tr
            open_ |= open_from[t][g] < tr
    # back to file order, counted per claimer code, then per (point, entrant)
    unsorted = np.empty((2, len(route)), bool)
    unsorted[0, order], unsorted[1, order] = blocks_open, blocks_any
    who = c["who"].to_numpy()
    n_who = n_points * S * P
    by_who = [np.bincount(who, minlength=n_who), np.bincount(who, weights=unsorted[0], minlength=n_who),
              np.bincount(who, weights=unsorted[1], minlength=n_who)]
    to = (np.arange(n_points)[:, None] * L + np.array(res.seatings, np.int64).ravel()[None, :]).ravel()
    for i in range(3):
        np.add.at(counts[i], to, by_who[i].astype(np.int64))
    return counts


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
    ticket_row = np.where(in_play, np.cumsum(in_play) - 1, -1)      # ticket id -> compact row
    route_tickets = [ticket_row[on[:, r] & in_play].tolist() for r in range(on.shape[1])]
    n_points, L = max(res.point_ids) + 1, len(res.labels)
    counts = np.zeros((3, n_points * L), np.int64)
    for turn_files, ticket_files in _batches(res):
        counts += _blocking_batch(res, turn_files, ticket_files, route_tickets, ticket_row, n_points)
    schema = {"point": pl.UInt16, "strategy": pl.String, "claims": pl.Int64, "blocking_claims": pl.Int64,
              "blocking_rate": pl.Float64, "blocking_claims_any": pl.Int64, "blocking_rate_any": pl.Float64}
    df = pl.DataFrame({"point": np.repeat(np.arange(n_points), L), "strategy": res.labels * n_points,
                       "claims": counts[0], "blocking_claims": counts[1], "blocking_claims_any": counts[2]})
    df = (df.filter(pl.col("claims") > 0)
          .with_columns((pl.col("blocking_claims") / pl.col("claims")).alias("blocking_rate"),
                        (pl.col("blocking_claims_any") / pl.col("claims")).alias("blocking_rate_any")))
    return df.select([pl.col(c).cast(d) for c, d in schema.items()])
