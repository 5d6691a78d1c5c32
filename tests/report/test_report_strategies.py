"""Strategy statistics on hand-built results with known answers (ttrsim.report.strategies)."""
import math

import numpy as np
import polars as pl
import pytest

from ttrsim.report import (
    Results,
    end_reasons,
    game_length,
    head_to_head,
    ratings,
    score_components,
    score_histogram,
    seat_advantage,
    win_rates,
)
from ttrsim.report.strategies import _bradley_terry
from ttrsim.results.stats import Z95, block_interval

from helpers import game, make_results


@pytest.fixture
def duel(tmp_path):
    """2 players, A and B rotated (block of 2 games). Game n: seating n % 2 (A in seat 0 on even n).

    n0  A 10 - B 5      A wins
    n1  B 7  - A 7      tie, tie-breaks equal: shared win (0.5 each); ended stalled
    n2  A 3  - B 9      B wins
    n3  B 4  - A 8      A wins
    """
    return Results.open(make_results(tmp_path / "duel", labels=("A", "B"), games=[
        game([10, 5], turns=100, tickets_won=[4, 0], tickets_lost=[0, 2]),
        game([7, 7], turns=120, end="stalled"),
        game([3, 9], turns=80, longest_bonus=[0, 10]),
        game([4, 8], turns=90, globetrotter=[0, 0]),
    ]))


def row(df, **key):
    out = df.filter(pl.all_horizontal([pl.col(k) == v for k, v in key.items()]))
    assert out.height == 1, (key, out)
    return out.row(0, named=True)


def test_win_rates_count_shared_wins_as_fractions(duel):
    w = win_rates(duel, resamples=2000)
    assert w.columns == ["point", "strategy", "games", "distinct", "wins", "win_rate", "low", "high", "mean_score",
                         "fixed"]
    assert w["strategy"].to_list() == ["A", "B"]
    a, b = row(w, strategy="A"), row(w, strategy="B")
    assert (a["games"], a["distinct"], a["wins"], a["win_rate"], a["mean_score"]) == (4, 4, 2.5, 0.625, 7.0)
    assert not a["fixed"] and not b["fixed"]
    assert (b["games"], b["wins"], b["win_rate"], b["mean_score"]) == (4, 1.5, 0.375, 6.25)
    # two blocks: A's block rates are 0.75 and 0.5: block variance 2 * (0.25^2 + 0.25^2) / 4^2, design
    # effect 0.267 against 4 independent games; Wilson on 4 / 0.267 games
    assert (a["low"], a["high"]) == pytest.approx((0.379436, 0.819593), abs=1e-6)
    assert (b["low"], b["high"]) == pytest.approx((1 - a["high"], 1 - a["low"]))
    assert w["win_rate"].to_list() == [0.625, 0.375] and w.equals(win_rates(duel, resamples=0, seed=9))


def test_intervals_are_over_blocks_not_games(tmp_path):
    # 20 blocks of 2 games; in each block A wins both games or loses both: the
    # block-level variance is twice the game-level one, so the interval is wider
    # than a game-level binomial interval would be.
    games = []
    for b in range(20):
        res = [10, 5] if b % 2 == 0 else [5, 10]
        games += [game(res), game(res[::-1])]  # seating 1 swaps the seats: A sits in seat 1
    w = win_rates(Results.open(make_results(tmp_path / "r", games=games)))
    a = row(w, strategy="A")
    assert a["win_rate"] == 0.5
    half = (a["high"] - a["low"]) / 2
    # block sd of rate = 0.5 / sqrt(20) = 0.112 -> 95% half-width ~ 0.22; game-level would be ~ 0.155
    assert 0.18 < half < 0.26


def wilson(p, n, z=Z95):
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_interval_with_one_game_blocks_is_wilson_on_the_games():
    # blocks of one game: the design effect is n / (n - 1), so the interval is Wilson's on n - 1 games
    x = (np.random.default_rng(0).random(50) < 0.3).astype(float)
    lo, hi = block_interval(x[:, None], np.ones((50, 1)))
    assert (lo[0], hi[0]) == pytest.approx(wilson(x.mean(), 49))


@pytest.mark.parametrize("wins", [0.0, 1.0])
def test_interval_at_no_wins_and_all_wins_is_wilson_not_a_point(wins):
    # 3 blocks of 100 games, every game lost (or won): the block variance is 0, the interval is Wilson's
    lo, hi = block_interval(np.full((3, 1), 100 * wins), np.full((3, 1), 100.0))
    assert (lo[0], hi[0]) == pytest.approx(wilson(wins, 300))
    assert hi[0] - lo[0] == pytest.approx(Z95 ** 2 / (300 + Z95 ** 2))       # [0, 1.3%] or [98.7%, 1]


def test_interval_is_bounded_and_contains_the_rate():
    rng = np.random.default_rng(3)
    den = rng.integers(0, 5, (40, 6)).astype(float)
    num = np.minimum(den, rng.integers(0, 5, (40, 6))).astype(float)
    lo, hi = block_interval(num, den)
    rate = num.sum(0) / den.sum(0)
    assert np.all((0 <= lo) & (lo <= rate) & (rate <= hi) & (hi <= 1))


def test_zero_wins_in_the_report_is_not_a_point(tmp_path):
    games = [game([10, 5]), game([5, 10])] * 10          # A wins every game (seat 0, then seat 1)
    w = win_rates(Results.open(make_results(tmp_path / "r", games=games)))
    b = row(w, strategy="B")
    assert b["win_rate"] == 0 and b["low"] == 0 and b["high"] == pytest.approx(wilson(0.0, 20)[1]) and b["high"] > 0.1


def test_seat_advantage(duel):
    s = seat_advantage(duel, resamples=500)
    assert s.columns == ["point", "seat", "games", "distinct", "win_rate", "low", "high", "fair", "mean_score", "p",
                         "p_holm"]
    # seat 1 (0 in the tables): A wins n0 (1), shared n1 (0.5), A loses n2 (0), B loses n3 (0)
    assert s["seat"].to_list() == [1, 2]                     # seats are numbered for people: 1 plays first
    s0, s1 = row(s, seat=1), row(s, seat=2)
    assert (s0["games"], s0["win_rate"], s0["fair"], s0["mean_score"]) == (4, 0.375, 0.5, 6.0)
    assert (s1["win_rate"], s1["mean_score"]) == (0.625, 7.25)


def test_head_to_head_and_ratings_two_strategies(duel):
    h = head_to_head(duel, resamples=500)
    assert h.columns == ["point", "strategy", "opponent", "games", "ahead_rate", "low", "high"]
    ab, ba = row(h, strategy="A"), row(h, strategy="B")
    assert (ab["opponent"], ab["games"], ab["ahead_rate"]) == ("B", 4, 0.625)   # 1 + 0.5 (tie) + 0 + 1
    assert ba["ahead_rate"] == 0.375
    r = ratings(duel, resamples=100)
    assert r.columns == ["point", "strategy", "rating", "low", "high"]
    a, b = row(r, strategy="A"), row(r, strategy="B")
    # Bradley-Terry with 2.5 : 1.5 -> strengths 5 : 3, centred on the 400 log10 scale
    assert a["rating"] == pytest.approx(200 * math.log10(5 / 3), abs=0.05)
    assert a["rating"] + b["rating"] == pytest.approx(0, abs=1e-9)
    assert a["low"] <= a["rating"] <= a["high"]


def test_tie_breaks_decide_finishing_order(tmp_path):
    # equal totals; A has more completed tickets: A alone wins (R6.8) and is ahead
    res = Results.open(make_results(tmp_path / "r", games=[
        game([20, 20], tickets_completed=[3, 2]),
        game([20, 20], tickets_completed=[3, 3], longest_path=[9, 12]),   # B (seat 0) tickets 3, longest 9
        game([15, 30], winners=[1]),
        game([30, 15], winners=[0]),   # B wins
    ]))
    w = win_rates(res, resamples=0)
    assert w["wins"].to_list() == [2.0, 2.0]
    h = head_to_head(res, resamples=0)
    assert row(h, strategy="A")["ahead_rate"] == 0.5     # n0 A, n1 A (longest 12 > 9), n2 B, n3 B


def test_R6_8_europe_tie_breaks_order_the_places():
    """The finishing key and the passenger section's winners follow Europe's
    order (issue 36): tickets, then the fewest stations used, then the
    European Express (longest-path bonus) holder."""
    from ttrsim.report.passengers import _winners
    from ttrsim.report.strategies import _finish_key
    cols = {"total": [20, 20, 20, 20], "tickets_completed": [2, 2, 2, 1], "stations_used": [1, 0, 0, 0],
            "longest_bonus": [10, 10, 0, 10], "passenger_points": [0, 0, 0, 0]}
    steps = ("tickets", "stations", "longest_bonus")
    keys = pl.DataFrame({"win_share": [0.0] * 4, **cols}).select(_finish_key(steps)).to_series().to_list()
    assert keys[1] > keys[2] > keys[0] > keys[3]
    won = _winners({k: np.array([v]) for k, v in cols.items()}, steps, without_passengers=False)
    assert won.tolist() == [[False, True, False, False]]


def test_ratings_solve_the_bradley_terry_equations(tmp_path):
    # 3 strategies at 3-player tables: check the MLE equations sum_j w_ij = sum_j n_ij p_i / (p_i + p_j)
    rng = np.random.default_rng(1)
    games = [game(list(rng.integers(0, 50, 3))) for _ in range(60)]
    res = Results.open(make_results(tmp_path / "r", labels=("A", "B", "C"), games=games))
    h = head_to_head(res, resamples=0)
    r = ratings(res, resamples=0)
    p = {s: 10 ** (x / 400) for s, x in zip(r["strategy"], r["rating"])}
    for i in "ABC":
        won = sum(row(h, strategy=i, opponent=j)["ahead_rate"] * 60 for j in "ABC" if j != i)
        expect = sum(60 * p[i] / (p[i] + p[j]) for j in "ABC" if j != i)
        assert won == pytest.approx(expect, abs=0.01)
    for (i, j) in [("A", "B"), ("B", "C"), ("A", "C")]:
        assert row(h, strategy=i, opponent=j)["ahead_rate"] + row(h, strategy=j, opponent=i)["ahead_rate"] == 1


def test_bradley_terry_vectorised_and_finite_for_all_wins():
    wins = np.array([[0, 10.0], [0, 0]])
    met = np.array([[0, 10.0], [10.0, 0]])
    r = _bradley_terry(np.stack([wins, wins]), np.stack([met, met]))
    assert r.shape == (2, 2) and np.all(np.isfinite(r)) and r[0, 0] > 1   # > 10x stronger, but finite


def test_score_components_histogram(duel):
    c = score_components(duel)
    a = row(c, strategy="A")
    assert (a["games"], a["total"], a["tickets_won"], a["tickets_lost"]) == (4, 7.0, 1.0, 0.0)
    b = row(c, strategy="B")
    assert (b["total"], b["tickets_lost"], b["longest_bonus"]) == (6.25, 0.5, 2.5)
    parts = b["routes"] + b["tickets_won"] - b["tickets_lost"] + b["longest_bonus"] + b["globetrotter"] + \
        b["passenger_points"]
    assert parts == pytest.approx(b["total"])
    assert b["sd_total"] == pytest.approx(np.std([5, 7, 9, 4], ddof=1))
    h = score_histogram(duel, bin_width=5)
    assert h.columns == ["point", "strategy", "bin", "games"]
    assert h.filter(pl.col("strategy") == "A").select("bin", "games").rows() == [(0, 1), (5, 2), (10, 1)]


def test_score_histogram_negative_scores(tmp_path):
    res = Results.open(make_results(tmp_path / "r", games=[game([-3, -5]), game([-6, 0])]))
    h = score_histogram(res, bin_width=5)
    assert h.filter(pl.col("strategy") == "A").select("bin", "games").rows() == [(-5, 1), (0, 1)]
    assert h.filter(pl.col("strategy") == "B").select("bin", "games").rows() == [(-10, 1), (-5, 1)]


def test_game_length_and_end_reasons(duel):
    g = game_length(duel)
    assert g.columns == ["point", "games", "mean_turns", "median_turns", "p10_turns", "p90_turns",
                         "mean_turns_per_player"]
    r = g.row(0, named=True)
    assert (r["games"], r["mean_turns"], r["median_turns"]) == (4, 97.5, 95.0)
    assert r["p10_turns"] == pytest.approx(83.0) and r["p90_turns"] == pytest.approx(114.0)
    assert r["mean_turns_per_player"] == 48.75
    e = end_reasons(duel)
    assert e.select("end", "games", "share").rows() == [("normal", 3, 0.75), ("stalled", 1, 0.25),
                                                        ("capped", 0, 0.0)]
