"""Route contention, claimers and blocking on hand-built turn logs (ttrsim.report.routes)."""
import polars as pl
import pytest
from report_fixtures import game, make_results

from ttrsim.report import Results, ResultsError, blocking, route_claimers, route_contention

# USA routes: 3 and 4 Atlanta-New Orleans (a double), 2 Atlanta-Nashville,
# 11 Calgary-Helena and 51 Helena-Salt Lake City (the shortest path of ticket 2, Calgary-Salt Lake City).
# 2 players, A and B rotated: A sits in seat 0 in games 0 and 2, in seat 1 in games 1 and 3.
TURNS = [
    dict(g=0, turn=4, seat=0, route=3), dict(g=0, turn=9, seat=1, route=4),     # both tracks of the double
    dict(g=0, turn=6, seat=0, route=11),                                        # A blocks B's open ticket 2
    dict(g=0, turn=7, seat=1, route=51),                                        # B on its own ticket
    dict(g=1, turn=7, seat=1, route=3),
    dict(g=1, turn=2, seat=1, route=51),                                        # A: B's ticket, later completed
    dict(g=2, turn=0, seat=0, route=2),
    dict(g=2, turn=4, seat=0, route=11),                                        # before B drew ticket 2 (turn 7)
    dict(g=2, turn=8, seat=0, route=51),                                        # after: blocks
    dict(g=3, turn=3, seat=1, route=11),                                        # B returned ticket 2
    dict(g=3, turn=4, seat=0, action="cards", route=None),
]
TICKETS = [
    dict(g=0, seat=1, ticket=2, completed=False),
    dict(g=1, seat=0, ticket=2, completed=True),
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
                         "claims", "claim_rate", "median_turn", "q25_turn", "q75_turn", "group_multi_rate"]
    assert c.height == 100 and c["games"].unique().to_list() == [4]
    r3 = c.filter(pl.col("route") == 3).row(0, named=True)
    assert (r3["label"], r3["tracks"], r3["claims"], r3["claim_rate"]) == ("Atlanta-New Orleans (4 orange)", 2, 2,
                                                                           0.5)
    assert (r3["median_turn"], r3["q25_turn"], r3["q75_turn"]) == (2.5, 2.25, 2.75)     # rounds 2 and 3
    assert r3["group_multi_rate"] == 0.25
    r4 = c.filter(pl.col("route") == 4).row(0, named=True)
    assert (r4["claims"], r4["median_turn"], r4["group_multi_rate"]) == (1, 4.0, 0.25)
    r2 = c.filter(pl.col("route") == 2).row(0, named=True)
    assert (r2["tracks"], r2["claims"], r2["median_turn"], r2["group_multi_rate"]) == (1, 1, 0.0, None)
    never = c.filter(pl.col("route") == 0).row(0, named=True)
    assert (never["claims"], never["claim_rate"], never["median_turn"]) == (0, 0.0, None)
    assert c["claims"].sum() == 10


def test_route_claimers(res):
    c = route_claimers(res)
    assert c.columns == ["point", "route", "strategy", "claims", "share"]
    assert c.filter(pl.col("route") == 3).select("strategy", "claims", "share").rows() == [("A", 2, 1.0)]
    assert c.filter(pl.col("route") == 51).select("strategy", "claims", "share").rows() == [
        ("A", 2, pytest.approx(2 / 3)), ("B", 1, pytest.approx(1 / 3))]


def test_blocking(res):
    b = blocking(res)
    assert b.columns == ["point", "strategy", "claims", "blocking_claims", "blocking_rate", "blocking_claims_any",
                         "blocking_rate_any"]
    assert b.rows() == [(0, "A", 8, 2, 0.25, 3, 0.375), (0, "B", 2, 0, 0.0, 0, 0.0)]


def test_blocking_batches_give_the_same_answer(res, tmp_path, monkeypatch):
    import ttrsim.report.routes as routes
    chunked = Results.open(make_results(tmp_path / "c", games=[game([10, 5]), game([7, 7]), game([3, 9]),
                                                               game([4, 8])], turns=TURNS, tickets=TICKETS,
                                        chunk_games=2))
    monkeypatch.setattr(routes, "_BATCH_GAMES", 1)      # one part file per batch
    assert blocking(chunked).equals(blocking(res))


def test_turn_log_needed(tmp_path):
    res = Results.open(make_results(tmp_path / "n", games=[game([1, 2]), game([2, 1])]))
    for f in (route_contention, route_claimers, blocking):
        with pytest.raises(ResultsError, match="needs the turn log; run the experiment with log: true"):
            f(res)


def test_game_index_dense_and_sparse():
    import numpy as np

    from ttrsim.report.routes import _game_index
    a, b, n = _game_index(np.array([10, 12, 11]), np.array([12, 10]))
    assert (a.tolist(), b.tolist(), n) == ([0, 2, 1], [2, 0], 3)
    a, b, n = _game_index(np.array([5, 10_000_000]), np.array([10_000_000]))     # far apart: ranks
    assert (a.tolist(), b.tolist(), n) == ([0, 1], [1], 2)
