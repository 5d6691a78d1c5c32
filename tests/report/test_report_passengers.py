"""Passenger majorities on hand-built Germany results (ttrsim.report.passengers)."""
import numpy as np
import polars as pl
import pytest

from ttrsim.report import (
    Results,
    majority_outcomes,
    passenger_decisive,
    passenger_points,
    passengers_by_routes,
    passengers_vs_routes,
)
from ttrsim.report.passengers import OUTCOMES

from helpers import game, make_results

# 3 players A, B, C rotated: game 0 seats A B C, game 1 seats C A B, game 2 seats B C A.
COUNTS = [   # per game: colour -> per-seat passengers
    dict(black=[3, 1, 0], blue=[2, 2, 1], green=[4, 1, 1], red=[2, 0, 0], white=[0, 0, 0], yellow=[0, 0, 5]),
    dict(),
    dict(black=[1, 2, 3]),
]
GAMES = [
    # g0: A wins by 5 thanks to 20 passenger points; without them B wins (changed)
    dict(totals=[50, 45, 30], passenger_points=[20, 0, 0], passengers=[6, 3, 1], trains_left=[10, 20, 30]),
    # g1: seat 0 (C) wins with or without passenger points
    dict(totals=[40, 30, 20], passenger_points=[10, 10, 0], passengers=[2, 4, 0], trains_left=[5, 5, 5]),
    # g2: equal totals and tickets; seat 1 (C) wins on passengers (R6.8), unchanged
    dict(totals=[25, 25, 10], passenger_points=[0, 0, 0], passengers=[3, 5, 0], trains_left=[0, 10, 45],
         tickets_completed=[1, 1, 0]),
]
CLAIMS = {0: [0, 0, 1], 1: [1, 1, 1, 0], 2: [0, 0]}   # game -> seats of its claim turns


def build(path, **kw):
    games = []
    for g, c in zip(GAMES, COUNTS):
        cols = {k: v for k, v in g.items() if k != "totals"}
        cols.update({f"passengers_{k}": v for k, v in c.items()})
        games.append(game(g["totals"], **cols))
    turns = [dict(g=g, turn=i, seat=s, route=i) for g, seats in CLAIMS.items() for i, s in enumerate(seats)]
    return Results.open(make_results(path, labels=("A", "B", "C"), rules="germany", games=games, turns=turns,
                                     **kw))


def outcome_counts(df, colour):
    d = df.filter(pl.col("colour") == colour)
    assert d["outcome"].to_list() == list(OUTCOMES)
    return {o: n for o, n in zip(d["outcome"], d["games"]) if n}


def test_majority_outcomes(tmp_path):
    m = majority_outcomes(build(tmp_path / "g"))
    assert m.columns == ["point", "colour", "outcome", "games", "share"]
    assert m.height == 6 * 5
    assert outcome_counts(m, "black") == {"single winner": 2, "nobody": 1}
    assert outcome_counts(m, "blue") == {"tie for first": 1, "nobody": 2}
    assert outcome_counts(m, "green") == {"tie for second": 1, "nobody": 2}
    assert outcome_counts(m, "red") == {"no second": 1, "nobody": 2}
    assert outcome_counts(m, "white") == {"nobody": 3}
    assert outcome_counts(m, "yellow") == {"no second": 1, "nobody": 2}
    assert m.filter(pl.col("colour") == "black")["share"].sum() == pytest.approx(1.0)


def test_majority_outcomes_when_zero_scores(tmp_path):
    # passenger_zero_scores: players with none of a colour still take part
    m = majority_outcomes(build(tmp_path / "z", rule_overrides={"passenger_zero_scores": True}))
    assert outcome_counts(m, "black") == {"single winner": 2, "tie for first": 1}
    assert outcome_counts(m, "red") == {"tie for second": 1, "tie for first": 2}     # [2, 0, 0]
    assert outcome_counts(m, "white") == {"tie for first": 3}
    assert outcome_counts(m, "yellow") == {"tie for second": 1, "tie for first": 2}


def test_passenger_points_and_decisive(tmp_path):
    res = build(tmp_path / "g")
    p = passenger_points(res)
    assert p.columns == ["point", "strategy", "games", "mean_passengers", "mean_passenger_points", "share_of_total"]
    a = p.filter(pl.col("strategy") == "A").row(0, named=True)   # A: g0 seat 0, g1 seat 1, g2 seat 2
    assert (a["games"], a["mean_passengers"], a["mean_passenger_points"]) == (3, pytest.approx(10 / 3), 10.0)
    assert a["share_of_total"] == pytest.approx(30 / 90)
    d = passenger_decisive(res)
    assert d.columns == ["point", "games", "changed", "share"]
    assert d.rows() == [(0, 3, 1, pytest.approx(1 / 3))]


def test_passengers_vs_routes(tmp_path):
    v = passengers_vs_routes(build(tmp_path / "g"))
    assert v.columns == ["point", "strategy", "games", "mean_passengers", "mean_routes_claimed", "corr_routes",
                         "mean_trains_used", "corr_trains"]
    a = v.filter(pl.col("strategy") == "A").row(0, named=True)
    # A: passengers 6, 4, 0; routes claimed 2, 3, 0; trains used 35, 40, 0
    assert a["mean_routes_claimed"] == pytest.approx(5 / 3) and a["mean_trains_used"] == 25.0
    assert a["corr_routes"] == pytest.approx(np.corrcoef([6, 4, 0], [2, 3, 0])[0, 1])
    assert a["corr_trains"] == pytest.approx(np.corrcoef([6, 4, 0], [35, 40, 0])[0, 1])
    b = passengers_by_routes(build(tmp_path / "g2"))
    assert b.filter(pl.col("strategy") == "A").select("routes_claimed", "seats", "mean_passengers").rows() == [
        (0, 1, 0.0), (2, 1, 6.0), (3, 1, 4.0)]


def test_passengers_vs_routes_without_turns_uses_trains(tmp_path):
    games = [game(g["totals"], **{k: v for k, v in g.items() if k != "totals"}) for g in GAMES]
    res = Results.open(make_results(tmp_path / "n", labels=("A", "B", "C"), rules="germany", games=games))
    v = passengers_vs_routes(res)
    a = v.filter(pl.col("strategy") == "A").row(0, named=True)
    assert a["mean_routes_claimed"] is None and a["corr_routes"] is None and a["mean_trains_used"] == 25.0
    assert passengers_by_routes(res).height == 0


def test_other_rule_sets_give_empty_frames(tmp_path):
    res = Results.open(make_results(tmp_path / "u", games=[game([1, 2]), game([2, 1])]))
    for f, cols in [(majority_outcomes, "outcome"), (passenger_points, "share_of_total"),
                    (passenger_decisive, "changed"), (passengers_vs_routes, "corr_routes"),
                    (passengers_by_routes, "routes_claimed")]:
        df = f(res)
        assert df.height == 0 and cols in df.columns and "point" in df.columns
