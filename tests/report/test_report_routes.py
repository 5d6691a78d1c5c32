"""Route contention per track and per city pair, claimers and blocking on hand-built turn logs
(ttrsim.report.routes)."""
import polars as pl
import pyarrow.parquet as pq
import pytest

from ttrsim.report import Results, ResultsError, blocking, route_claimers, route_contention, route_pairs

from helpers import game, make_results

# USA routes: 3 and 4 Atlanta-New Orleans (a double), 2 Atlanta-Nashville,
# 11 Calgary-Helena and 51 Helena-Salt Lake City (the shortest path of ticket 2, Calgary-Salt Lake City).
# 2 players, A and B rotated: A sits in seat 0 in games 0 and 2, in seat 1 in games 1 and 3.
TURNS = [
    dict(g=0, turn=4, seat=0, route=3), dict(g=0, turn=9, seat=1, route=4),     # both tracks of the double
    dict(g=0, turn=6, seat=0, route=11),                                        # A blocks B's open ticket 2
    dict(g=0, turn=7, seat=1, route=51),                                        # B on its own ticket
    dict(g=1, turn=7, seat=1, route=3),
    dict(g=1, turn=2, seat=1, route=51),                                        # A: B's ticket, completed at 5
    dict(g=1, turn=9, seat=1, route=11),                                        # A: B's ticket, already completed
    dict(g=2, turn=0, seat=0, route=2),
    dict(g=2, turn=4, seat=0, route=11),                                        # before B drew ticket 2 (turn 7)
    dict(g=2, turn=8, seat=0, route=51),                                        # after: blocks
    dict(g=3, turn=3, seat=1, route=11),                                        # B returned ticket 2
    dict(g=3, turn=4, seat=0, action="cards", route=None),
]
TICKETS = [
    dict(g=0, seat=1, ticket=2, completed=False),
    dict(g=1, seat=0, ticket=2, completed=True, completed_turn=5),
    dict(g=2, seat=1, ticket=2, turn=7, completed=False),
    dict(g=3, seat=0, ticket=2, kept=False),
]


@pytest.fixture
def res(tmp_path):
    return Results.open(make_results(tmp_path / "r", games=[game([10, 5]), game([7, 7]), game([3, 9]),
                                                            game([4, 8])], turns=TURNS, tickets=TICKETS))


def test_route_contention(res):
    c = route_contention(res)
    assert c.columns == ["point", "route", "label", "from", "to", "length", "colour", "group", "tracks", "games",
                         "claims", "claim_rate", "median_round", "q25_round", "q75_round", "group_multi_rate"]
    assert c.height == 100 and c["games"].unique().to_list() == [4]
    r3 = c.filter(pl.col("route") == 3).row(0, named=True)
    assert (r3["label"], r3["tracks"], r3["claims"], r3["claim_rate"]) == ("Atlanta-New Orleans (4 orange)", 2, 2,
                                                                           0.5)
    # turns 4 and 7 at 2 players: rounds 3 and 4 (round 1 = every seat's first turn, turns 0 and 1)
    assert (r3["median_round"], r3["q25_round"], r3["q75_round"]) == (3.5, 3.25, 3.75)
    assert r3["group_multi_rate"] == 0.25
    r4 = c.filter(pl.col("route") == 4).row(0, named=True)
    assert (r4["claims"], r4["median_round"], r4["group_multi_rate"]) == (1, 5.0, 0.25)
    r2 = c.filter(pl.col("route") == 2).row(0, named=True)
    assert (r2["tracks"], r2["claims"], r2["median_round"], r2["group_multi_rate"]) == (1, 1, 1.0, None)
    never = c.filter(pl.col("route") == 0).row(0, named=True)
    assert (never["claims"], never["claim_rate"], never["median_round"]) == (0, 0.0, None)
    assert c["claims"].sum() == 11


def test_route_pairs_add_up_the_tracks_of_a_city_pair(res):
    """Issue 12 point 5: a double route is one route for a designer: any track claimed, 2+ tracks, every track."""
    p = route_pairs(res)
    assert p.columns == ["point", "group", "pair", "from", "to", "length", "tracks", "games", "claim_rate",
                         "multi_rate", "all_rate", "median_round", "q25_round", "q75_round", "top_claimer",
                         "top_share"]
    assert p.height == len(set(res.dim("routes")["group"].to_list()))          # one row per city pair
    assert p["claim_rate"].to_list() == sorted(p["claim_rate"].to_list(), reverse=True)   # most claimed first
    no = p.filter(pl.col("pair") == "Atlanta - New Orleans (4)").row(0, named=True)
    # game 0: both tracks (rounds 3 and 5), game 1: route 3 (round 4); games 2, 3: neither
    assert (no["tracks"], no["claim_rate"], no["multi_rate"], no["all_rate"]) == (2, 0.5, 0.25, 0.25)
    assert (no["median_round"], no["q25_round"], no["q75_round"]) == (3.5, 3.25, 3.75)      # first claims: 3, 4
    assert (no["top_claimer"], no["top_share"]) == ("A", pytest.approx(2 / 3))
    single = p.filter(pl.col("pair") == "Atlanta - Nashville (1)").row(0, named=True)
    assert (single["claim_rate"], single["multi_rate"], single["all_rate"]) == (0.25, None, None)


def test_route_claimers(res):
    c = route_claimers(res)
    assert c.columns == ["point", "route", "strategy", "claims", "share"]
    assert c.filter(pl.col("route") == 3).select("strategy", "claims", "share").rows() == [("A", 2, 1.0)]
    assert c.filter(pl.col("route") == 51).select("strategy", "claims", "share").rows() == [
        ("A", 2, pytest.approx(2 / 3)), ("B", 1, pytest.approx(1 / 3))]


def test_blocking(res):
    """Issue 12 point 4: with the turn each ticket was completed, blocking is counted exactly; the bounds
    stay beside it. A's 9 claims: g0 turn 6 (B's ticket, never completed), g1 turn 2 (B's ticket, completed
    at turn 5: open then), g1 turn 9 (completed by then: not blocking), g2 turn 8 (drawn by B at turn 7)."""
    b = blocking(res)
    assert b.columns == ["point", "strategy", "claims", "blocking_claims", "blocking_rate", "blocking_claims_low",
                         "blocking_rate_low", "blocking_claims_high", "blocking_rate_high", "paired_claims",
                         "paired_rate", "baseline_rate", "excess", "excess_low", "excess_high"]
    assert b.select(b.columns[:9]).rows() == [(0, "A", 9, 3, 3 / 9, 2, 2 / 9, 4, 4 / 9),
                                              (0, "B", 2, 0, 0.0, 0, 0.0, 0, 0.0)]


def test_blocking_without_completion_turns_gives_the_bounds(res):
    for f in res._files["tickets"]:                     # a folder written before tickets.completed_turn
        pq.write_table(pq.read_table(f).drop(["completed_turn"]), f)
    b = blocking(Results.open(res.path))
    assert b.select(b.columns[:9]).rows() == [(0, "A", 9, None, None, 2, 2 / 9, 4, 4 / 9),
                                              (0, "B", 2, None, None, 0, 0.0, 0, 0.0)]
    assert b.select(b.columns[9:]).null_count().row(0) == (2,) * 6           # no baseline without completions


def test_blocking_batches_give_the_same_answer(res, tmp_path, monkeypatch):
    import ttrsim.report.routes as routes
    chunked = Results.open(make_results(tmp_path / "c", games=[game([10, 5]), game([7, 7]), game([3, 9]),
                                                               game([4, 8])], turns=TURNS, tickets=TICKETS,
                                        chunk_games=2))
    monkeypatch.setattr(routes, "_BATCH_GAMES", 1)      # one part file per batch
    counts = blocking(res).columns[:9]                  # the baseline pairs deals within a batch: none here
    assert blocking(chunked).select(counts).equals(blocking(res).select(counts))


def test_blocking_against_another_deal(tmp_path):
    """Four seed blocks of 2 games (A and B rotated), deals X and Y alternating. A
    blocks on purpose: it claims a route of B's ticket (X: route 11 of ticket 2,
    Y: route 49 of ticket 6), which B's ticket in the other deal never uses, so
    the baseline is 0 and the excess +100 pp. B ignores A: it always claims route
    64, which only A's ticket of deal X uses: it blocks in half its claims, and so
    would the same claims on the other deal: excess 0. Each deal's partner is the
    next block (the last one's the first), always of the other kind."""
    games, tickets, turns = [], [], []
    for n in range(8):
        x = (n // 2) % 2 == 0                            # deal X in blocks 0 and 2, Y in 1 and 3
        a = n % 2                                        # A's seat: rotate
        games.append(game([10, 5]))
        tickets += [dict(g=n, seat=1 - a, ticket=2 if x else 6), dict(g=n, seat=a, ticket=3 if x else 10)]
        turns += [dict(g=n, turn=2, seat=a, route=11 if x else 49), dict(g=n, turn=3, seat=1 - a, route=64)]
    b = blocking(make_results(tmp_path / "d", games=games, tickets=tickets, turns=turns))
    a, o = b.row(0, named=True), b.row(1, named=True)
    assert (a["strategy"], a["blocking_rate"], a["paired_rate"], a["baseline_rate"], a["excess"]) == \
        ("A", 1.0, 1.0, 0.0, 1.0)
    assert (o["strategy"], o["blocking_rate"], o["paired_claims"], o["baseline_rate"], o["excess"]) == \
        ("B", 0.5, 8, 0.5, 0.0)
    assert o["excess_low"] < 0 < o["excess_high"]


def test_turn_log_needed(tmp_path):
    res = Results.open(make_results(tmp_path / "n", games=[game([1, 2]), game([2, 1])]))
    for f in (route_contention, route_pairs, route_claimers, blocking):
        with pytest.raises(ResultsError, match="needs the turn log; run the experiment with log: true"):
            f(res)


def test_game_index_dense_and_sparse():
    import numpy as np

    from ttrsim.report.routes import _game_index
    a, b, n = _game_index(np.array([10, 12, 11]), np.array([12, 10]))
    assert (a.tolist(), b.tolist(), n) == ([0, 2, 1], [2, 0], 3)
    a, b, n = _game_index(np.array([5, 10_000_000]), np.array([10_000_000]))     # far apart: ranks
    assert (a.tolist(), b.tolist(), n) == ([0, 1], [1], 2)
