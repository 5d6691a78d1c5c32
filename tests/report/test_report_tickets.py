"""Ticket value and deck summaries on hand-built results (ttrsim.report.tickets)."""
import numpy as np
import polars as pl
import pytest

from ttrsim.data.maps import load_map
from ttrsim.report import Results, ticket_decks, ticket_value
from ttrsim.report.tickets import shortest_path_routes, ticket_shortest_paths
from ttrsim.results.stats import block_interval

from helpers import game, make_results


@pytest.fixture
def res(tmp_path):
    """The duel of test_report_strategies (A 0.625, B 0.375) with tickets:
    ticket 2 (Calgary-Salt Lake City, 7) kept by A (n0, completed), A (n1, failed),
    B (n2, completed), returned by B (n3, drawn in turn 5); ticket 0 (Boston-Miami, 12)
    kept by B in n0 and failed."""
    return Results.open(make_results(tmp_path / "t", games=[
        game([10, 5]), game([7, 7]), game([3, 9]), game([4, 8])], tickets=[
        dict(g=0, seat=0, ticket=2, completed=True),
        dict(g=1, seat=1, ticket=2, completed=False),
        dict(g=2, seat=1, ticket=2, completed=True),
        dict(g=3, seat=0, ticket=2, kept=False, turn=5),
        dict(g=0, seat=1, ticket=0, completed=False),
    ]))


def test_ticket_value_known_answers(res):
    t = ticket_value(res)
    assert t.columns == ["point", "ticket", "from", "to", "points", "decks", "shortest_path", "offered", "kept",
                         "keep_rate", "completed", "completion_rate", "mean_net_points", "win_rate_kept", "baseline",
                         "lift", "lift_low", "lift_high", "lift_p", "lift_p_holm"]
    assert t["ticket"].to_list() == [0, 2]
    r = t.filter(pl.col("ticket") == 2).row(0, named=True)
    assert (r["from"], r["to"], r["points"], r["decks"], r["shortest_path"]) == ("Calgary", "Salt Lake City", 7,
                                                                                "base", 7)
    assert (r["offered"], r["kept"], r["keep_rate"], r["completed"]) == (4, 3, 0.75, 2)
    assert r["completion_rate"] == pytest.approx(2 / 3)
    assert r["mean_net_points"] == pytest.approx(7 / 3)
    assert r["win_rate_kept"] == pytest.approx((1 + 0.5 + 1) / 3)          # A won n0, shared n1, B won n2
    assert r["baseline"] == pytest.approx((0.625 + 0.625 + 0.375) / 3)
    assert r["lift"] == pytest.approx(r["win_rate_kept"] - r["baseline"])
    # the lift's interval: the keepers' win rate over seed blocks (block 0: kept twice, 1.5 wins; block 1:
    # once, 1 win), less the baseline
    lo, hi = block_interval(np.array([[1.5], [1.0]]), np.array([[2.0], [1.0]]))
    assert (r["lift_low"], r["lift_high"]) == pytest.approx((lo[0] - r["baseline"], hi[0] - r["baseline"]))
    r = t.filter(pl.col("ticket") == 0).row(0, named=True)
    assert (r["offered"], r["kept"], r["completed"], r["completion_rate"], r["mean_net_points"]) == (1, 1, 0, 0.0,
                                                                                                    -12.0)
    assert (r["win_rate_kept"], r["baseline"], r["lift"]) == (0.0, 0.375, -0.375)


def test_R6_3_net_points_follow_each_points_rules(tmp_path):
    """Calgary-Salt Lake City (7) kept twice per point, completed once and
    failed once: at the printed rules it nets (7 - 7) / 2; at
    ``ticket_points_percent`` 200 and ``ticket_penalty_percent`` 50 (3.5 ->
    4) it nets (14 - 4) / 2, as the games scored it; ``points`` stays the
    printed 7."""
    path = make_results(tmp_path / "s", games=[game([10, 5], point=p) for p in (0, 0, 1, 1)], tickets=[
        dict(g=g, seat=0, ticket=2, completed=g % 2 == 0) for g in range(4)],
        sweep=[("rules.ticket_points_percent", [100, 200])],
        point_overrides={1: {"ticket_points_percent": 200, "ticket_penalty_percent": 50}})
    t = ticket_value(path)
    assert t.select("point", "points", "mean_net_points").rows() == [(0, 7, 0.0), (1, 7, 5.0)]
    assert ticket_decks(path)["mean_net_points"].to_list() == [0.0, 5.0]


def test_ticket_decks(res):
    d = ticket_decks(res)
    assert d.columns == ["point", "deck", "tickets", "offered", "keep_rate", "completion_rate", "mean_net_points"]
    assert d.row(0) == (0, "base", 2, 5, 0.8, 0.5, pytest.approx(-5 / 4))


def test_no_tickets_gives_empty_frames(tmp_path):
    r = Results.open(make_results(tmp_path / "e", games=[game([1, 2]), game([2, 1])]))
    assert ticket_value(r).height == 0 and "lift" in ticket_value(r).columns
    assert ticket_decks(r).height == 0


def test_shortest_paths_usa():
    m = load_map("usa")
    length = ticket_shortest_paths(m)
    names = {(m.location_names[a], m.location_names[b]): t for t, (a, b) in enumerate(zip(m.ticket_a, m.ticket_b))}
    assert length[names[("Vancouver", "Montréal")]] == 20
    assert length[names[("Los Angeles", "Chicago")]] == 15          # a 16-point ticket
    on = shortest_path_routes(m)
    assert sorted(m.route_label(r) for r in np.flatnonzero(on[names[("Calgary", "Salt Lake City")]])) == [
        "Calgary-Helena (4 gray)", "Helena-Salt Lake City (3 pink)"]


def test_shortest_paths_germany_countries_are_dead_ends():
    m = load_map("germany")
    length = ticket_shortest_paths(m)
    on = shortest_path_routes(m)
    dead = m.location_is_country[m.node_loc]
    for t in range(m.n_tickets):
        assert np.isfinite(length[t])
        ends = {int(m.ticket_a[t]), int(m.ticket_b[t])}
        routes = np.flatnonzero(on[t])
        assert m.route_len[routes].sum() >= length[t]
        for r in routes:    # a border point on a path belongs to one of the ticket's own countries
            for node in (m.route_a[r], m.route_b[r]):
                assert not dead[node] or int(m.node_loc[node]) in ends
    t = [i for i in range(m.n_tickets) if {m.location_names[m.ticket_a[i]], m.location_names[m.ticket_b[i]]}
         == {"Dänemark", "Berlin"}][0]
    assert length[t] == 10
