"""Route contention from the turn log: how often and how early each track and
each city pair is claimed, by whom, how often more than one track of a
double/triple route is taken, and how often a claim blocks another seat's ticket.

They all need the ``turns`` table (experiments run with ``log: true``); without
it they raise :class:`~ttrsim.report.dataset.ResultsError`.

**Tracks and pairs.** :func:`route_contention` has one row per track (each
track of a double route on its own: which twin is taken depends on the
strategies' tie-breaks, e.g. the lower route id); :func:`route_pairs` one row
per city pair (any track claimed, more than one, all of them), the numbers a
designer reads.

**Claim round**: ``turn // players + 1`` (round 1 is every seat's first turn),
so maps and player counts compare.

**Blocking.** A claim *blocks* when its route lies on a shortest path (empty
board, in trains; :func:`ttrsim.report.tickets.shortest_path_routes`) between the
two ends of a ticket that another seat holds, not yet completed, at that moment:
kept by that seat at setup or in an earlier turn, and completed (the tickets'
``completed_turn``) later or never. That count is exact (``blocking_claims``);
two bounds come with it (and are all a folder written before ttrsim recorded
``completed_turn`` has): ``blocking_claims_low`` counts only tickets that ended
uncompleted, ``blocking_claims_high`` every held ticket. Approximations that
remain:

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

__all__ = ["route_contention", "route_pairs", "route_claimers", "blocking"]

_BATCH_GAMES = 100_000  # games per batch of part files in blocking() and the city-pair counts
NEVER = np.int16(32767)  # "no such turn" in the int16 turn arrays of blocking()


def _claims(res: Results, what: str) -> pl.LazyFrame:
    """point, game, seat, turn, route of every claim turn (``route`` is set on claim turns only; a
    tunnel given up, R8.3, claimed nothing)."""
    res.require_turns(what)
    lf = res.scan("turns")
    took = pl.col("route").is_not_null()
    if "tunnel_paid" in lf.collect_schema().names():     # (folders written before Europe lack it)
        took &= pl.col("tunnel_paid").fill_null(True)
    return lf.filter(took).select("point", "game", "seat", "turn", pl.col("route").cast(pl.Int16))


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
    """Per point and track of the map (claimed or not): the per-track numbers.
    A double or triple route has one row per track; :func:`route_pairs` adds
    its tracks up per city pair.

    Columns: point, route, label, from, to, length, colour, group, tracks (tracks
    in the route's parallel group), games (games at the point), claims,
    claim_rate (claims / games: the share of games where it was claimed),
    median_round, q25_round, q75_round (claim round, 1 = every seat's first
    turn; quantiles interpolated linearly; null if never claimed),
    group_multi_rate (double/triple routes: share of games where more than one
    track of the group was claimed, the same on every track; null for single routes).
    """
    res = Results.open(res)
    claims = _claims(res, "route_contention")
    routes = _routes(res)
    hist = (claims.group_by("point", "route", _round(res).alias("round"))
            .agg(pl.len().alias("n")).sort("point", "route", "round").collect())
    rows = []
    for (point, route), h in hist.group_by("point", "route", maintain_order=True):
        n = h["n"].to_numpy()
        med, q25, q75 = _quantiles_from_counts(h["round"].to_numpy(), n, (0.5, 0.25, 0.75))
        rows.append((point, route, int(n.sum()), med, q25, q75))
    per_route = pl.DataFrame(rows, schema={"point": pl.UInt16, "route": pl.Int16, "claims": pl.Int64,
                                           "median_round": pl.Float64, "q25_round": pl.Float64,
                                           "q75_round": pl.Float64}, orient="row")
    multi = _pair_counts(res).select("point", "group", "multi")
    df = (res.games_by_point.join(routes, how="cross")
          .join(per_route, on=["point", "route"], how="left")
          .join(multi, on=["point", "group"], how="left")
          .with_columns(pl.col("claims").fill_null(0))
          .with_columns((pl.col("claims") / pl.col("games")).alias("claim_rate"),
                        pl.when(pl.col("tracks") > 1).then(pl.col("multi").fill_null(0) / pl.col("games"))
                        .otherwise(None).alias("group_multi_rate")))
    return df.select("point", "route", "label", "from", "to", "length", "colour", "group", "tracks", "games",
                     "claims", "claim_rate", "median_round", "q25_round", "q75_round", "group_multi_rate"
                     ).sort("point", "route")


def route_pairs(res: Results) -> pl.DataFrame:
    """Per point and city pair (a single route, or the tracks of a double or
    triple route together), most claimed first: for a designer the pair is the
    route, whichever track was taken.

    Columns: point, group (the pair's id: ``group`` of ``dims/routes``), pair
    (e.g. ``Dallas - Houston (1)``), from, to, length, tracks, games,
    claim_rate (share of games in which at least one of its tracks was
    claimed), multi_rate (more than one track; null for single routes),
    all_rate (every track; null for single routes), median_round, q25_round,
    q75_round (the round of the pair's first claim in a game), top_claimer
    (the strategy with most of its claims), top_share (its share of them).
    """
    res = Results.open(res)
    res.require_turns("route_pairs")
    routes = _routes(res)
    first = routes.group_by("group").agg(pl.col("from", "to", "length", "tracks").first())
    claimers = (route_claimers(res).join(routes.select("route", "group"), on="route")
                .group_by("point", "group", "strategy").agg(pl.col("claims").sum())
                .sort(["point", "group", "claims", "strategy"], descending=[False, False, True, False])
                .group_by("point", "group", maintain_order=True)
                .agg(pl.col("strategy").first().alias("top_claimer"),
                     (pl.col("claims").first() / pl.col("claims").sum()).alias("top_share")))
    several = pl.col("tracks") > 1
    df = (_pair_counts(res).join(first, on="group", how="left").join(claimers, on=["point", "group"], how="left")
          .with_columns((pl.col("any") / pl.col("games")).alias("claim_rate"),
                        pl.when(several).then(pl.col("multi") / pl.col("games")).alias("multi_rate"),
                        pl.when(several).then(pl.col("all") / pl.col("games")).alias("all_rate"),
                        pl.format("{} - {} ({})", "from", "to", "length").alias("pair")))
    return (df.select("point", "group", "pair", "from", "to", "length", "tracks", "games", "claim_rate", "multi_rate",
                      "all_rate", "median_round", "q25_round", "q75_round", "top_claimer", "top_share")
            .sort(["point", "claim_rate", "group"], descending=[False, True, False]))


def _routes(res: Results) -> pl.DataFrame:
    """The routes dimension with ``tracks``: the tracks of the route's group."""
    routes = res.dim("routes").with_columns(pl.col("route").cast(pl.Int16), pl.col("group").cast(pl.Int16))
    return routes.with_columns(pl.len().over("group").cast(pl.Int64).alias("tracks"))


def _round(res: Results) -> pl.Expr:
    """The claim round of a turn: 1 for the first turn of every seat (``turn // players + 1``)."""
    return pl.col("turn").cast(pl.Int32) // res.players + 1


def _game_index(*game_arrays):
    """Dense indices of game ids (``game - min`` when the ids are nearly consecutive,
    as in a batch of chunks; else ranks) for each array, and the index range."""
    allg = np.concatenate(game_arrays)
    lo, hi = int(allg.min()), int(allg.max())
    if hi - lo < 4 * len(allg) + 1000:
        return (*[a - lo for a in game_arrays], hi - lo + 1)
    games = np.unique(allg)
    return (*[np.searchsorted(games, a) for a in game_arrays], len(games))


def _pair_counts(res: Results) -> pl.DataFrame:
    """Per point and group (city pair): games, and games with any / more than one /
    every track claimed (any, multi, all), and the quantiles of the round of the
    pair's first claim. Per batch of part files, a games x routes matrix of claim turns."""
    def compute():
        routes = _routes(res)
        groups = routes.group_by("group").agg(pl.col("route")).sort("group")
        n_routes, n_points, n_groups = int(routes["route"].max()) + 1, max(res.point_ids) + 1, groups.height
        NEVER = np.iinfo(np.int32).max
        counts = np.zeros((3, n_points, n_groups), np.int64)             # any, multi, all
        rounds = np.zeros((n_points, n_groups, 1), np.int64)             # first-claim round histogram
        for turn_files, _ in _batches(res):
            c = (res.scan_files(turn_files).filter(pl.col("route").is_not_null())
                 .select("point", "game", "route", _round(res).alias("round")).collect())
            if c.height == 0:
                continue
            g, n_games = _game_index(c["game"].to_numpy().astype(np.int64))
            first = np.full((n_games, n_routes), NEVER, np.int32)
            first[g, c["route"].to_numpy().astype(np.int64)] = c["round"].to_numpy()
            point = np.full(n_games, n_points, np.int64)               # n_points: a game id with no claim
            point[g] = c["point"].to_numpy()
            top = int(c["round"].max()) + 1
            if top > rounds.shape[2]:
                rounds = np.concatenate([rounds, np.zeros((n_points, n_groups, top - rounds.shape[2]), np.int64)], 2)
            for j, tracks in enumerate(groups["route"].to_list()):
                taken = (first[:, tracks] < NEVER).sum(1)
                for i, hit in enumerate((taken > 0, taken > 1, taken == len(tracks))):
                    counts[i, :, j] += np.bincount(point[hit], minlength=n_points + 1)[:n_points]
                when = first[:, tracks].min(1)
                hit = when < NEVER
                np.add.at(rounds, (point[hit], j, when[hit]), 1)
        games = dict(zip(*(res.games_by_point[c].to_list() for c in ("point", "games"))))
        rows = []
        for p in res.point_ids:
            for j, gid in enumerate(groups["group"].to_list()):
                h = rounds[p, j]
                q = _quantiles_from_counts(np.flatnonzero(h), h[h > 0], (0.5, 0.25, 0.75)) if h.any() else [None] * 3
                rows.append((p, gid, games.get(p, 0), *counts[:, p, j].tolist(), *q))
        return pl.DataFrame(rows, orient="row", schema={
            "point": pl.UInt16, "group": pl.Int16, "games": pl.Int64, "any": pl.Int64, "multi": pl.Int64,
            "all": pl.Int64, "median_round": pl.Float64, "q25_round": pl.Float64, "q75_round": pl.Float64})
    return res.memo("pair_counts", compute)


def route_claimers(res: Results) -> pl.DataFrame:
    """Who claims each route: per point, route and strategy that claimed it.

    Columns: point, route, strategy, claims, share (of the route's claims at that point).
    """
    res = Results.open(res)

    def compute():
        df = (res.with_strategy(_claims(res, "route_claimers"))
              .group_by("point", "route", "strategy").agg(pl.len().cast(pl.Int64).alias("claims"))
              .with_columns((pl.col("claims") / pl.col("claims").sum().over("point", "route")).alias("share"))
              .sort("point", "route", "strategy").collect())
        return df.with_columns(pl.col("strategy").cast(pl.String)).select("point", "route", "strategy", "claims",
                                                                           "share")
    return res.memo("route_claimers", compute)


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


def _blocking_batch(res: Results, turn_files, ticket_files, route_tickets, ticket_row, n_points, exact: bool):
    """Counts [4, points x labels] (claims, blocking an open ticket (exact, needs the
    tickets' ``completed_turn``), blocking a ticket that ended uncompleted, blocking
    any held ticket) of one batch of part files. ``route_tickets[r]``: rows
    (``ticket_row[ticket id]``) of the tickets whose shortest paths use route r."""
    P, L, S = res.players, len(res.labels), len(res.seatings)
    c = (res.scan_files(turn_files).filter(pl.col("route").is_not_null())      # route is set on claims only
         .select("game", "route", "seat", pl.col("turn").cast(pl.Int16),
                 # the claimer as one small code: (point, seating, seat)
                 ((pl.col("point").cast(pl.Int64) * S + (pl.col("game").cast(pl.Int64) % res.stride)
                   % res.block_size) * P + pl.col("seat")).alias("who"))
         .collect())
    done = pl.col("completed_turn") if exact else pl.lit(None, pl.Int16)
    k = (res.scan_files(ticket_files).filter(pl.col("kept"))
         .select("game", "seat", "ticket", pl.col("turn").fill_null(-1), pl.col("completed").fill_null(False),
                 done.fill_null(NEVER).cast(pl.Int16).alias("done"))
         .collect())
    counts = np.zeros((4, n_points * L), np.int64)
    if c.height == 0:
        return counts
    cg, kg, n_games = _game_index(c["game"].to_numpy().astype(np.int64), k["game"].to_numpy().astype(np.int64))
    # per ticket and (game, claiming seat): the turn + 2 from which *another* seat held the
    # ticket (setup: turn -1), or NEVER; a claim in turn t blocks if that value < t + 2.
    # "failed": the same for tickets that ended uncompleted; "done": the turn it was completed in.
    n_rows = int(ticket_row.max()) + 1
    held_from = np.full((n_rows, n_games * P), NEVER, np.int16)
    failed_from = np.full((n_rows, n_games * P), NEVER, np.int16)
    done_at = np.full((n_rows, n_games * P), NEVER, np.int16)
    kt = ticket_row[k["ticket"].to_numpy().astype(np.int64)]
    play = kt >= 0
    kt, kg = kt[play], kg[play]
    holder = k["seat"].to_numpy().astype(np.int64)[play]
    since2 = (k["turn"].to_numpy().astype(np.int32) + 2).astype(np.int16)[play]
    failed = ~k["completed"].to_numpy()[play]
    done = k["done"].to_numpy()[play]
    for s_ in range(P):                                  # every claiming seat but the holder
        other = holder != s_
        held_from[kt[other], kg[other] * P + s_] = since2[other]
        done_at[kt[other], kg[other] * P + s_] = done[other]
        f = other & failed
        failed_from[kt[f], kg[f] * P + s_] = since2[f]
    # claims in route order, so each route's claims are one contiguous slice
    route = c["route"].to_numpy().astype(np.int16)
    order = np.argsort(route, kind="stable")               # radix sort on int16
    bounds = np.concatenate([[0], np.cumsum(np.bincount(route, minlength=len(route_tickets)))])
    gs = (cg * P + c["seat"].to_numpy())[order]            # (game, claiming seat) column
    turn = c["turn"].to_numpy()[order]
    turn2 = turn + np.int16(2)
    hits = np.zeros((3, len(route)), bool)                 # open (exact), failed, any
    for r, tickets in enumerate(route_tickets):             # a loop over the map's routes, vectorised over claims
        a, b = bounds[r], bounds[r + 1]
        if not tickets or a == b:
            continue
        g, tr, t0 = gs[a:b], turn2[a:b], turn[a:b]
        open_, failed_, any_ = hits[:, a:b]                 # views
        for t in tickets:
            held = held_from[t][g] < tr
            any_ |= held
            open_ |= held & (done_at[t][g] > t0)
            failed_ |= failed_from[t][g] < tr
    # back to file order, counted per claimer code, then per (point, entrant)
    unsorted = np.empty_like(hits)
    unsorted[:, order] = hits
    who = c["who"].to_numpy()
    n_who = n_points * S * P
    by_who = [np.bincount(who, minlength=n_who)] + [np.bincount(who, weights=h, minlength=n_who) for h in unsorted]
    to = (np.arange(n_points)[:, None] * L + np.array(res.seatings, np.int64).ravel()[None, :]).ravel()
    for i in range(4):
        np.add.at(counts[i], to, by_who[i].astype(np.int64))
    return counts


def blocking(res: Results) -> pl.DataFrame:
    """How often each strategy's claims block another seat's ticket (module docstring).

    Columns: point, strategy, claims, blocking_claims (claims on the path of a
    ticket another seat held and had not completed yet: exact, from the
    tickets' ``completed_turn``; null for results written before ttrsim recorded
    it), blocking_rate (blocking_claims / claims), blocking_claims_low,
    blocking_rate_low (only tickets that ended uncompleted: a lower bound),
    blocking_claims_high, blocking_rate_high (any held ticket, completed or not:
    an upper bound). Highest blocking rate first.
    """
    res = Results.open(res)
    res.require_turns("blocking")
    files = res._files["tickets"]
    exact = bool(files) and "completed_turn" in res.scan_files(files[:1]).collect_schema()
    on = shortest_path_routes(res.map)                       # [tickets, routes]
    in_play = np.zeros(on.shape[0], bool)                    # only the tickets of the rule sets' decks
    for p in res.point_ids:
        for tag in res.rules_at(p).ticket_decks:
            in_play[res.map.deck(tag)] = True
    ticket_row = np.where(in_play, np.cumsum(in_play) - 1, -1)      # ticket id -> compact row
    route_tickets = [ticket_row[on[:, r] & in_play].tolist() for r in range(on.shape[1])]
    n_points, L = max(res.point_ids) + 1, len(res.labels)
    counts = np.zeros((4, n_points * L), np.int64)
    for turn_files, ticket_files in _batches(res):
        counts += _blocking_batch(res, turn_files, ticket_files, route_tickets, ticket_row, n_points, exact)
    df = pl.DataFrame({"point": np.repeat(np.arange(n_points), L).astype(np.uint16), "strategy": res.labels * n_points,
                       "claims": counts[0], "blocking_claims": counts[1], "blocking_claims_low": counts[2],
                       "blocking_claims_high": counts[3]})
    rate = lambda c: (pl.col(c) / pl.col("claims")).alias(c.replace("claims", "rate"))  # noqa: E731
    if not exact:
        df = df.with_columns(pl.lit(None, pl.Int64).alias("blocking_claims"))
    df = (df.filter(pl.col("claims") > 0)
          .with_columns(rate("blocking_claims"), rate("blocking_claims_low"), rate("blocking_claims_high")))
    return (df.select("point", "strategy", "claims", "blocking_claims", "blocking_rate", "blocking_claims_low",
                      "blocking_rate_low", "blocking_claims_high", "blocking_rate_high")
            .sort(["point", "blocking_rate", "blocking_rate_high"], descending=[False, True, True], nulls_last=True,
                  maintain_order=True))
