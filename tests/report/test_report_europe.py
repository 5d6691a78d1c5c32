"""Europe in the tables and the report (R8.2-R8.5): a small real run with the
turn log; the station, tunnel and ferry statistics checked against the raw
tables, and the report's Europe part with its board maps."""
import polars as pl
import pytest

from ttrsim.experiment.runner import run_experiment
from ttrsim.report import Results
from ttrsim.report.document import build_report
from ttrsim.report.europe import ferry_routes, ferry_use, station_value, tunnel_outcomes, tunnel_routes


@pytest.fixture(scope="module")
def europe_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("europe_run")
    run = run_experiment({"name": "eu4", "rules": "europe", "players": 4, "games": 40, "seed": 7, "log": True,
                          "lineup": ["planner", "random", "greedy", "long_route"]},
                         output=str(base / "eu4"), workers=1, progress=False, echo=False)
    return Results.open(run.path)


def test_R8_5_station_value_matches_the_players_table(europe_run):
    res = europe_run
    players = res.scan("players").collect()
    assert (players["total"] == players["routes"] + players["tickets_won"] - players["tickets_lost"]
            + players["longest_bonus"] + players["station_points"]).all()
    assert (players["station_points"] == 4 * (3 - players["stations_built"].cast(pl.Int32))).all()
    assert (players["stations_used"] <= players["stations_built"]).all()
    sv = station_value(res)
    assert set(sv["strategy"]) == {"planner", "random", "greedy", "long_route"}
    by = {r["strategy"]: r for r in sv.iter_rows(named=True)}
    assert by["greedy"]["stations_built"] == 0 and by["long_route"]["stations_built"] == 0     # they keep them
    assert by["random"]["stations_built"] > 0
    rnd = players.filter(pl.col("strategy").cast(pl.String) == "random")
    assert by["random"]["stations_built"] == pytest.approx(rnd["stations_built"].cast(pl.Float64).mean())


def test_R8_3_tunnel_outcomes_and_the_turn_log(europe_run):
    res = europe_run
    turns = res.scan("turns").collect()
    tunnels = turns.filter(pl.col("tunnel_extra").is_not_null())
    assert tunnels.height > 0 and (tunnels["action"].cast(pl.String) == "claim").all()
    assert tunnels["tunnel_extra"].max() <= 3
    assert not (tunnels.filter(pl.col("tunnel_extra") == 0)["tunnel_paid"] == False).any()  # noqa: E712
    to = tunnel_outcomes(res)
    assert to["attempts"].sum() == tunnels.height
    given_up = tunnels.filter(~pl.col("tunnel_paid")).height
    total = (to["given_up_share"] * to["attempts"]).sum()
    assert total == pytest.approx(given_up)
    tr = tunnel_routes(res)
    assert tr["attempts"].sum() == tunnels.height
    assert set(tr["route"]) <= {r for r in range(res.map.n_routes) if res.map.route_tunnel[r]}
    stations = turns.filter(pl.col("action").cast(pl.String) == "station")
    assert stations.height > 0 and stations["station"].is_not_null().all()


def test_R8_2_ferry_use(europe_run):
    res = europe_run
    fu, fr = ferry_use(res), ferry_routes(res)
    assert fu.columns == ["point", "strategy", "ferry_claims", "mean_locomotives"]
    ferries = {r for r in range(res.map.n_routes) if res.map.route_ferry[r] > 0}
    assert set(fr["route"]) == ferries and fr["claim_rate"].is_between(0, 1).all()
    claims = res.scan("turns").filter(pl.col("route").is_in(list(ferries))).collect()
    need = res.map.route_ferry
    assert all(k >= need[r] for r, k in zip(claims["route"], claims["locomotives"]))


def test_the_report_has_a_europe_part_with_board_maps(europe_run, tmp_path):
    rep = build_report(europe_run.path, output=tmp_path / "rep", formats=("md",), resamples=20, progress=False)
    md = rep.markdown.read_text()
    assert "## Europe: stations, tunnels, ferries" in md
    for sub in ("### Station value", "### Tunnel outcomes", "### Ferry use"):
        assert sub in md
    charts = {p.stem for p in rep.charts}
    assert {"board_tunnels_given_up", "board_ferries"} <= charts
    assert not rep.problems, rep.problems
