"""Route claims from the turn log: how often and how early each track and
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

**Against another deal.** Any claim lies on some other seat's open path
often (central routes are on many shortest paths), so the rate alone does not
say that a strategy blocks on purpose. Its baseline is the same claim (route,
turn, seat) measured against another deal: the game of the next seed block in
the batch with the same seating (the same strategies in the same seats), where
the other seats hold other tickets. A claim is compared there only when its
track is still free at that turn (else it could not have been made), and the
claimer's own tickets are left out of that game's (no other seat can hold
them). ``excess`` = the claims' blocking rate less that baseline, with a 95%
interval over seed blocks. A strategy that ignores its opponents still shows a
small excess: a claim on another seat's path keeps that ticket open longer, so
its later claims there block too (``long_route``: +1.8 pp [+1.4, +2.1] on 20,000
four-player USA games).

A claim is counted once however many tickets it touches. Only the tickets of
the rule set's decks are considered. The computation is vectorised: per batch
of part files (about 50,000 games), a tickets x games array of holders, then
for each route of the map and each ticket whose shortest path uses it, one
numpy pass over that route's claims.

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4, "seed": 1,
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> from ttrsim.report import Results, route_contention
>>> rows = route_contention(Results.open(path))
>>> rows.height, rows.columns[:6]                 # a row per route track
(100, ['point', 'route', 'label', 'from', 'to', 'length'])
>>> tmp.cleanup()
"""
from __future__ import annotations

import numpy as np
import polars as pl

from ttrsim.results import stats

from .dataset import Results
from .tickets import shortest_path_routes

__all__ = ["route_contention", "route_pairs", "route_claimers", "blocking"]

_BATCH_GAMES = 100_000  # games per batch of part files in the city-pair counts; half that in blocking()
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


def _batches(res: Results, games: int | None = None):
    """Pairs of (turns files, tickets files) of the same chunks, about ``games`` (_BATCH_GAMES) games each."""
    turns = {f.rsplit("/", 1)[-1]: f for f in res._files["turns"]}
    tickets = {f.rsplit("/", 1)[-1]: f for f in res._files["tickets"]}
    names = sorted(set(turns) & set(tickets))
    games = _BATCH_GAMES if games is None else games
    per = max(1, games // max(1, int(res.manifest["layout"].get("chunk_games", 2000))))
    for i in range(0, len(names), per):
        chunk = names[i:i + per]
        yield [turns[n] for n in chunk], [tickets[n] for n in chunk]


def _other_deal(ids: np.ndarray, stride: int, block_size: int) -> np.ndarray:
    """Per game id of the sorted unique ``ids``: the game of the next seed block of
    the same point and seating among them (cyclically), or -1 when its point and
    seating have a single block there: the same seats' strategies on another deal."""
    group = (ids // stride) * block_size + (ids % stride) % block_size          # (point, seating)
    order = np.lexsort((ids, group))
    g, i = group[order], ids[order]
    first = np.r_[True, g[1:] != g[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(g)), 0))
    last = np.r_[g[1:] != g[:-1], True]
    nxt = np.where(last, i[start], np.r_[i[1:], 0])
    partner = np.empty_like(ids)
    partner[order] = np.where(nxt == i, -1, nxt)                                 # -1: alone in its group
    return partner


_SUMS = ("claims", "blocking", "low", "high", "paired", "paired_blocking", "baseline")


def _blocking_batch(res: Results, turn_files, ticket_files, route_tickets, ticket_row, exact: bool) -> pl.DataFrame:
    """Per point, seed block and entrant (``k``) of one batch of part files: claims,
    blocking (an open ticket; exact, needs the tickets' ``completed_turn``), low (a
    ticket that ended uncompleted), high (any held ticket), and for the claims with
    another deal in the batch (:func:`_other_deal`): paired, paired_blocking and
    baseline (the same claim blocking an open ticket of that deal; exact only).
    ``route_tickets[r]``: rows (``ticket_row[ticket id]``) of the tickets whose
    shortest paths use route r."""
    P = res.players
    c = (res.scan_files(turn_files).filter(pl.col("route").is_not_null())      # route is set on claims only
         .select(pl.col("game").cast(pl.Int64), "route", "seat", pl.col("turn").cast(pl.Int16))
         .collect())
    done = pl.col("completed_turn") if exact else pl.lit(None, pl.Int16)
    k = (res.scan_files(ticket_files).filter(pl.col("kept"))
         .select("game", "seat", "ticket", pl.col("turn").fill_null(-1), pl.col("completed").fill_null(False),
                 done.fill_null(NEVER).cast(pl.Int16).alias("done"))
         .collect())
    if c.height == 0:
        return pl.DataFrame(schema={name: pl.Int64 for name in ("point", "block", "k", *_SUMS)})
    games, k_games = c["game"].to_numpy(), k["game"].to_numpy().astype(np.int64)
    cg, kg, n_games = _game_index(games, k_games)
    ids = np.full(n_games, -1, np.int64)                  # the game id of each index (-1: none)
    ids[cg], ids[kg] = games, k_games
    present = np.flatnonzero(ids >= 0)
    other = _other_deal(ids[present], res.stride, res.block_size)
    partner = np.full(n_games, -1, np.int64)              # per game index: the other deal's index, or -1
    partner[present] = np.where(other >= 0, present[np.searchsorted(ids[present], other)], -1)
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
    own = np.zeros((n_rows, n_games * P), bool)          # the claimer's own tickets: no other seat can hold them
    own[kt, kg * P + holder] = True
    route = c["route"].to_numpy().astype(np.int16)
    turn = c["turn"].to_numpy()
    # the first turn each track was claimed in each game: a claim pairs with the other deal only where its
    # track is still free there
    first = np.full((n_games, len(route_tickets)), NEVER, np.int16)
    np.minimum.at(first, (cg, route), turn)
    # claims in route order, so each route's claims are one contiguous slice
    order = np.argsort(route, kind="stable")               # radix sort on int16
    route, turn, game, seat = route[order], turn[order], cg[order], c["seat"].to_numpy()[order]
    pg = partner[game]
    paired = (pg >= 0) & (first[np.maximum(pg, 0), route] >= turn)
    del first
    bounds = np.concatenate([[0], np.cumsum(np.bincount(route, minlength=len(route_tickets)))])
    gs = game * P + seat                                   # (game, claiming seat)
    ps = np.where(paired, pg * P + seat, gs)               # the same in the other deal
    turn2 = turn + np.int16(2)
    hits = np.zeros((4, len(route)), bool)                 # open (exact), failed, any; open in the other deal
    for r, tickets in enumerate(route_tickets):             # a loop over the map's routes, vectorised over claims
        a, b = bounds[r], bounds[r + 1]
        if not tickets or a == b:
            continue
        g, o, tr, t0 = gs[a:b], ps[a:b], turn2[a:b], turn[a:b]
        open_, failed_, any_, other_ = hits[:, a:b]         # views
        for t in tickets:
            held = held_from[t][g] < tr
            any_ |= held
            open_ |= held & (done_at[t][g] > t0)
            failed_ |= failed_from[t][g] < tr
            other_ |= (held_from[t][o] < tr) & (done_at[t][o] > t0) & ~own[t][g]
    # summed per (game, seat), then per (point, seed block, entrant)
    per_seat = [np.bincount(gs, weights=h, minlength=n_games * P)
                for h in (None, hits[0], hits[1], hits[2], paired, hits[0] & paired, hits[3] & paired)]
    seated = np.flatnonzero(per_seat[0])
    gid, n = ids[seated // P], ids[seated // P] % res.stride
    L, span = len(res.labels), res.stride // res.block_size + 1
    who = (gid // res.stride * span + n // res.block_size) * L + np.array(res.seatings)[n % res.block_size,
                                                                                       seated % P]
    keys, inv = np.unique(who, return_inverse=True)
    sums = [np.bincount(inv, weights=x[seated], minlength=len(keys)).round().astype(np.int64) for x in per_seat]
    return pl.DataFrame({"point": keys // L // span, "block": keys // L % span, "k": keys % L,
                         **dict(zip(_SUMS, sums))})


def blocking(res: Results) -> pl.DataFrame:
    """How often each strategy's claims block another seat's ticket, against the
    rate of the same claims on another deal (module docstring).

    Columns: point, strategy, claims, blocking_claims (claims on the path of a
    ticket another seat held and had not completed yet: exact, from the
    tickets' ``completed_turn``; null for results written before ttrsim recorded
    it), blocking_rate (blocking_claims / claims), blocking_claims_low,
    blocking_rate_low (only tickets that ended uncompleted: a lower bound),
    blocking_claims_high, blocking_rate_high (any held ticket, completed or
    not: an upper bound); against another deal (null without
    ``completed_turn``): paired_claims (the claims whose track was still free
    at that turn of the next seed block's game with the same seating),
    paired_rate (the blocking rate of those claims), baseline_rate (the rate at
    which the same claims block the tickets the other seats held, open, at that
    turn of that game, leaving out the claimer's own tickets), excess
    (paired_rate - baseline_rate), excess_low, excess_high (95% interval over
    seed blocks, paired: :func:`ttrsim.results.stats.rate_difference`).
    Highest blocking rate first.
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
    blocks = (pl.concat([_blocking_batch(res, turn_files, ticket_files, route_tickets, ticket_row, exact)
                         for turn_files, ticket_files in _batches(res, _BATCH_GAMES // 2)])
              .group_by("point", "k", "block").agg(pl.col(*_SUMS).sum()).sort("point", "k", "block"))
    rows = []
    for (point, k), b in blocks.group_by("point", "k", maintain_order=True):
        x = {n: b[n].to_numpy() for n in _SUMS}
        n = int(x["paired"].sum())
        against = [None] * 5
        if exact and n:
            d, lo, hi, _ = stats.rate_difference(x["paired_blocking"], x["paired"], x["baseline"], x["paired"])
            against = [float(v) for v in (x["paired_blocking"].sum() / n, x["baseline"].sum() / n, d, lo, hi)]
        rows.append((point, res.labels[k], *(int(x[c].sum()) for c in ("claims", "blocking", "low", "high")),
                     n if exact else None, *against))
    df = pl.DataFrame(rows, orient="row", schema={
        "point": pl.UInt16, "strategy": pl.String, "claims": pl.Int64, "blocking_claims": pl.Int64,
        "blocking_claims_low": pl.Int64, "blocking_claims_high": pl.Int64, "paired_claims": pl.Int64,
        "paired_rate": pl.Float64, "baseline_rate": pl.Float64, "excess": pl.Float64, "excess_low": pl.Float64,
        "excess_high": pl.Float64})
    rate = lambda c: (pl.col(c) / pl.col("claims")).alias(c.replace("claims", "rate"))  # noqa: E731
    df = (df.with_columns(pl.col("blocking_claims") if exact else pl.lit(None, pl.Int64).alias("blocking_claims"),
                          pl.col("excess", "excess_low", "excess_high").fill_nan(None))
          .filter(pl.col("claims") > 0)
          .with_columns(rate("blocking_claims"), rate("blocking_claims_low"), rate("blocking_claims_high")))
    return (df.select("point", "strategy", "claims", "blocking_claims", "blocking_rate", "blocking_claims_low",
                      "blocking_rate_low", "blocking_claims_high", "blocking_rate_high", "paired_claims",
                      "paired_rate", "baseline_rate", "excess", "excess_low", "excess_high")
            .sort(["point", "blocking_rate", "blocking_rate_high"], descending=[False, True, True], nulls_last=True,
                  maintain_order=True))
