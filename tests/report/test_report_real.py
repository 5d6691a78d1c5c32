"""Every report statistic on two small real runs (USA 4 players and Germany 3
players, with turn logs), checked against the raw tables and the runner's summary."""
import numpy as np
import polars as pl
import pytest

import ttrsim.report as rep
from ttrsim.experiment.runner import run_experiment
from ttrsim.report import Results

STATS = ["win_rates", "head_to_head", "ratings", "seat_advantage", "score_components", "score_histogram",
         "game_length", "end_reasons", "strategy_profile", "ticket_value", "ticket_decks", "route_contention",
         "route_claimers", "route_pairs", "blocking", "majority_outcomes", "passenger_points", "passenger_decisive",
         "passengers_vs_routes", "passengers_by_routes", "swept_win_rates", "play_changes"]


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("report_runs")
    usa = run_experiment({"name": "usa4", "rules": "usa", "players": 4, "games": 40, "seed": 5, "log": True,
                          "lineup": ["planner", "route_focus", "one_step", "long_route"]},
                         output=str(base / "usa4"), workers=1, progress=False, echo=False)
    ger = run_experiment({"name": "ger3", "rules": "germany", "players": 3, "games": 40, "seed": 6, "log": True,
                          "lineup": ["passenger_hunter", "planner", "one_step"]},
                         output=str(base / "ger3"), workers=1, progress=False, echo=False)
    return {"usa": (Results.open(usa.path), usa), "germany": (Results.open(ger.path), ger)}


def table(res, name):
    return res.scan(name).collect()


@pytest.mark.parametrize("which", ["usa", "germany"])
def test_every_statistic_runs_and_has_a_point_column(runs, which):
    res, _ = runs[which]
    for name in STATS:
        kw = {"resamples": 50} if name in ("win_rates", "head_to_head", "ratings", "seat_advantage",
                                           "swept_win_rates") else {}
        df = getattr(rep, name)(res, **kw)
        assert isinstance(df, pl.DataFrame) and df.columns[0] == "point", name
        if which == "germany" or name not in ("majority_outcomes", "passenger_points", "passenger_decisive",
                                              "passengers_vs_routes", "passengers_by_routes"):
            assert df.height > 0, name


@pytest.mark.parametrize("which", ["usa", "germany"])
def test_win_rates_match_the_runner_summary(runs, which):
    res, run = runs[which]
    w = rep.win_rates(res, resamples=200)
    for s in run.summary:
        r = w.filter(pl.col("strategy") == s["strategy"]).row(0, named=True)
        assert r["games"] == s["games"] == s["distinct"] and r["wins"] == pytest.approx(s["wins"])
        assert (r["low"], r["high"]) == (s["low"], s["high"])          # one interval source
        assert r["win_rate"] == pytest.approx(s["win_rate"]) and r["mean_score"] == pytest.approx(s["mean_total"])
        assert r["low"] <= r["win_rate"] <= r["high"]
    assert w["wins"].sum() == pytest.approx(res.n_games)            # one win per game, shared or not
    assert w["strategy"].to_list() == [s["strategy"] for s in run.summary]     # the same order
    s = rep.seat_advantage(res, resamples=100)
    assert s["games"].to_list() == [res.n_games] * res.players and s["win_rate"].sum() == pytest.approx(1)
    assert s["seat"].to_list() == list(range(1, res.players + 1))


@pytest.mark.parametrize("which", ["usa", "germany"])
def test_finishing_order_agrees_with_the_winners(runs, which):
    res, _ = runs[which]
    h = rep.head_to_head(res, resamples=50)
    pairs = {(a, b): x for a, b, x in h.select("strategy", "opponent", "ahead_rate").rows()}
    for (a, b), x in pairs.items():
        assert x + pairs[(b, a)] == pytest.approx(1)
    assert h["games"].unique().to_list() == [res.n_games]
    r = rep.ratings(res, resamples=50)
    assert r["rating"].sum() == pytest.approx(0, abs=1e-6)
    best = rep.win_rates(res, resamples=0).sort("win_rate")["strategy"][-1]
    assert r.sort("rating")["strategy"][-1] == best
    # the finishing key puts exactly the recorded winners first
    from ttrsim.report.strategies import _game_matrix
    binv, S, K, w = _game_matrix(res)[0]
    players = table(res, "players").sort("game", "seat")
    won = players["winner"].to_numpy().reshape(-1, res.players)
    assert np.array_equal(K == K.max(1, keepdims=True), won)


@pytest.mark.parametrize("which", ["usa", "germany"])
def test_with_strategy_matches_the_players_table(runs, which):
    res, _ = runs[which]
    p = table(res, "players").select("game", "seat", pl.col("strategy").cast(pl.String)).sort("game", "seat")
    named = res.with_strategy(res.scan("players").select("game", "seat")).collect().sort("game", "seat")
    assert named["strategy"].cast(pl.String).to_list() == p["strategy"].to_list()


def test_scores_and_lengths_match_the_tables(runs):
    res, _ = runs["usa"]
    players, games = table(res, "players"), table(res, "games")
    c = rep.score_components(res)
    assert c["games"].sum() == players.height
    for r in c.iter_rows(named=True):
        parts = r["routes"] + r["tickets_won"] - r["tickets_lost"] + r["longest_bonus"] + r["globetrotter"] \
            + r["passenger_points"]
        assert parts == pytest.approx(r["total"])
    assert rep.score_histogram(res)["games"].sum() == players.height
    g = rep.game_length(res).row(0, named=True)
    assert g["mean_turns"] == pytest.approx(games["turns"].cast(pl.Float64).mean())
    assert rep.end_reasons(res)["games"].sum() == games.height


def test_tickets_routes_blocking_match_the_tables(runs):
    res, _ = runs["usa"]
    tickets, turns = table(res, "tickets"), table(res, "turns")
    t = rep.ticket_value(res)
    assert t["offered"].sum() == tickets.height and t["kept"].sum() == tickets["kept"].sum()
    assert (t["shortest_path"] <= t["points"]).all()
    claims = turns.filter(pl.col("action").cast(pl.String) == "claim")
    c = rep.route_contention(res)
    assert c["claims"].sum() == claims.height and (c["claim_rate"] <= 1).all()
    assert (c["q25_round"] <= c["median_round"]).all() and (c["median_round"] <= c["q75_round"]).all()
    assert c["median_round"].min() >= 1                                    # rounds from 1
    pairs = rep.route_pairs(res)
    assert pairs["group"].n_unique() == pairs.height == c["group"].n_unique()
    tracks = c.group_by("group").agg(pl.col("claim_rate").max().alias("hi"), pl.col("claim_rate").sum().alias("sum"))
    both = pairs.join(tracks, on="group")                 # any track: at least the most claimed, at most all
    assert ((both["hi"] <= both["claim_rate"] + 1e-12) & (both["claim_rate"] <= both["sum"] + 1e-12)).all()
    assert rep.route_claimers(res)["claims"].sum() == claims.height
    b = rep.blocking(res)
    assert b["claims"].sum() == claims.height
    assert (b["blocking_claims_low"] <= b["blocking_claims"]).all()
    assert (b["blocking_claims"] <= b["blocking_claims_high"]).all()
    assert (b["blocking_claims"] > 0).any()
    # completed_turn: set exactly for completed tickets, a turn of the holder, not before it was drawn
    kept = tickets.filter(pl.col("kept"))
    assert (kept["completed_turn"].is_not_null() == kept["completed"]).all()
    done = kept.filter(pl.col("completed")).join(turns.select("game", pl.col("turn").alias("completed_turn"),
                                                              pl.col("seat").alias("by")),
                                                 on=["game", "completed_turn"], how="left")
    assert done.height > 0 and (done["by"] == done["seat"]).all()
    assert (done["turn"].is_null() | (done["completed_turn"] >= done["turn"])).all()


def test_majorities_reproduce_the_engine_passenger_points(runs):
    # scoring each colour from the outcome rules gives back every seat's passenger points
    res, _ = runs["germany"]
    rules = res.rules_at(0)
    p = table(res, "players").sort("game", "seat")
    n = p.height // res.players
    pts = np.zeros((n, res.players), np.int64)
    for c in ("black", "blue", "green", "red", "white", "yellow"):
        x = p[f"passengers_{c}"].to_numpy().reshape(n, res.players).astype(np.int64)
        elig = (x > 0) | rules.passenger_zero_scores
        top = np.where(elig, x, -1).max(1, keepdims=True)
        first = elig & (x == top)
        below = elig & (x < top)
        runner = np.where(below, x, -1).max(1, keepdims=True)
        second = below & (x == runner) & (first.sum(1, keepdims=True) == 1)
        pts += first * rules.passenger_first + second * rules.passenger_second
    assert np.array_equal(pts, p["passenger_points"].to_numpy().reshape(n, res.players))
    m = rep.majority_outcomes(res)
    assert m.group_by("colour").agg(pl.col("games").sum())["games"].to_list() == [n] * 6
    from ttrsim.report.passengers import _seat_matrix, _winners
    cols = ["total", "passenger_points", "winner", "tickets_completed", "longest_path", "passengers"]
    mat = _seat_matrix(res, [0], cols)[0]
    assert np.array_equal(_winners(mat, rules.tiebreaks, without_passengers=False), mat["winner"])
    d = rep.passenger_decisive(res).row(0, named=True)
    assert d["games"] == n and 0 <= d["changed"] <= n


@pytest.mark.parametrize("which", ["usa", "germany"])
def test_float_statistics_are_the_same_every_time(runs, which):
    """Computed again on a fresh Results, bit for bit (the lazy group-by adds rows in any order, so
    these sum whole numbers): a report's CSV files do not change between builds."""
    path = runs[which][0].path
    for name in ("ticket_value", "ticket_decks", "passenger_points", "passengers_vs_routes"):
        first, again = (getattr(rep, name)(Results.open(path)) for _ in range(2))
        assert first.equals(again), name


@pytest.mark.parametrize("which", ["usa", "germany"])
def test_play_changes_without_a_sweep_compares_the_point_with_itself(runs, which):
    """One point: every seat-game is its own baseline (turn log included)."""
    res, _ = runs[which]
    pc = rep.play_changes(res)
    assert pc["seat_games"].to_list() == [res.n_games * res.players] and pc["differ"].to_list() == [0]
    players = table(res, "players")
    winners = players.filter(pl.col("winner"))
    assert pc["winner_tickets"][0] == pytest.approx(winners["tickets_completed"].cast(pl.Float64).mean())
