"""Study interventions (docs/rules.md R9): the routes left off the board
(R9.2). The board, the game's map and the result tables agree on every
route."""
import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from ttrsim.cli import main
from ttrsim.core.actions import A_CLAIM, claims_end, decode_claim
from ttrsim.core.board import build_board
from ttrsim.data.maps import load_map
from ttrsim.data.rules import RulesError, get_rules, preset_names
from ttrsim.experiment.config import ExperimentError, load_experiment
from ttrsim.experiment.runner import run_experiment
from ttrsim.experiment.tables import ChunkContext, turns_table
from ttrsim.play.fuzz import VIOLATION_NAMES, fuzz_chunk
from ttrsim.play.game import Game
from ttrsim.play.turnlog import N_TURN_COLS, T_ROUTE

# one route of each preset's map, for the checks over every preset
ROUTE = {
    "usa": "Atlanta-New Orleans (4 orange)",
    "usa-1910": "Denver-Omaha",
    "usa-mega": "Atlanta-Raleigh (2 gray)",
    "usa-bigcities": "Seattle-Vancouver (1 gray)",
    "germany": "Bremerhaven-Dänemark/1 (5 green)",
    "europe": "Amsterdam-Essen",
}


# --------------------------------------------------------------------------- R9.2 bad values

BAD = [
    ("usa", {"remove_routes": "Atlanta-Raleigh"}, "remove_routes",
     "2 tracks between Atlanta and Raleigh: 'Atlanta-Raleigh (2 gray)', 'Atlanta-Raleigh (2 gray)'"),
    ("usa", {"remove_routes": ["Atlanta-Seattle"]}, "remove_routes", "no route joins Atlanta and Seattle"),
    ("usa", {"remove_routes": ["Atlanta-Atlantis"]}, "remove_routes", "did you mean 'Atlanta'"),
    ("usa", {"remove_routes": ["Atlanta-New Orleans (4 red)"]}, "remove_routes",
     "'Atlanta-New Orleans (4 orange)', 'Atlanta-New Orleans (4 yellow)'"),
    ("usa", {"remove_routes": ["Denver-Omaha", "Omaha-Denver"]}, "remove_routes", "named more often"),
    ("usa", {"remove_routes": [1]}, "remove_routes", "route labels"),
]


@pytest.mark.parametrize("preset,overrides,name,text", BAD, ids=[f"{b[2]}-{i}" for i, b in enumerate(BAD)])
def test_R9_2_bad_names_are_one_line_errors(preset, overrides, name, text):
    """R9.2 a route the rule set's map does not have, or has several of, is
    refused when the board is built: one line naming the parameter, the
    value and what was expected."""
    with pytest.raises(RulesError) as e:
        build_board(get_rules(preset, overrides))
    msg = str(e.value)
    assert "\n" not in msg and f"'{name}'" in msg and text in msg, msg


@pytest.mark.parametrize("overrides,where", [({"remove_routes": ["Atlanta-Raleigh"]}, "rule_overrides.remove_routes")])
def test_R9_2_experiment_validation_names_the_parameter(overrides, where):
    """R9.2 a bad route name in an experiment file is one line before anything runs."""
    doc = {"name": "x", "rules": "usa", "players": 2, "lineup": ["random", "random"], "games": 4,
           "rule_overrides": overrides}
    with pytest.raises(ExperimentError) as e:
        load_experiment(doc)
    assert "\n" not in str(e.value) and where in str(e.value), str(e.value)


def test_R9_2_rules_command_lists_the_parameter():
    """R9.2 `ttrsim rules usa` lists remove_routes with its rule id."""
    res = CliRunner().invoke(main, ["rules", "usa"])
    rows = {line.split()[0]: line.split() for line in res.output.splitlines() if line.startswith("  ")}
    assert rows["remove_routes"][1:3] == ["[]", "R9.2"]


# --------------------------------------------------------------------------- R9.2 removed routes

REMOVED = ["Atlanta-New Orleans (4 orange)", "Denver-Omaha", "Atlanta-Raleigh (2 gray)", "Atlanta-Raleigh (2 gray)"]


def test_R9_2_removed_route_is_off_the_board_and_never_claimed():
    """R9.2 the board and Game.map (whose labels narration prints) have the
    map without the routes; each board route is the map file's route ``route_map_id``; the
    remaining track of a double is a single route; random games never claim
    a removed route."""
    full = load_map("usa")
    gone = {3, 34, 5, 6}
    assert {full.route_label(r) for r in gone} == set(REMOVED) - {"Denver-Omaha"} | {"Denver-Omaha (4 pink)"}
    g = Game("usa", 2, 0, {"remove_routes": REMOVED})
    b, m = g.board, g.map
    assert len(b.route_len) == m.n_routes == 96
    assert sorted(set(range(100)) - set(b.route_map_id.tolist())) == sorted(gone)
    for r in range(m.n_routes):
        f = int(b.route_map_id[r])
        assert m.route_label(r) == full.route_label(f)
        assert (b.route_a[r], b.route_b[r], b.route_len[r]) == (full.route_a[f], full.route_b[f], full.route_len[f])
    yellow = m.route_label(list(b.route_map_id).index(4))
    assert yellow == "Atlanta-New Orleans (4 yellow)"
    group = b.route_group[list(b.route_map_id).index(4)]
    assert (b.group_routes[group] >= 0).sum() == 1
    rng = np.random.default_rng(0)
    for seed in range(5):
        g.reset(seed)
        while not g.over:
            acts = g.legal_actions()
            assert all(decode_claim(a)[0] < 96 for a in acts if A_CLAIM <= a < claims_end(96))
            g.apply(int(rng.choice(acts)))
        owned = np.flatnonzero(g.state.route_owner >= 0)
        assert not {int(b.route_map_id[r]) for r in owned} & gone


def test_R9_2_turns_table_writes_the_map_files_route_ids():
    """R9.2 the turns table's route is the map file's id (Board.route_map_id),
    so every arm uses the one dims/routes.parquet."""
    b = build_board(get_rules("usa", {"remove_routes": ["Atlanta-Charleston (2 gray)"]}))
    turns = np.full((3, N_TURN_COLS), 0, np.int32)
    turns[:, T_ROUTE] = [0, -1, 98]
    ctx = ChunkContext(0, "usa", 2, ["a", "b"], np.array([[0, 1]]), np.zeros(99), b.route_map_id)
    assert turns_table(ctx, np.array([7]), turns)["route"].to_pylist() == [1, None, 99]


def test_R9_2_experiment_tables_use_the_map_files_route_ids(tmp_path):
    """R9.2 in a run without a route, each claim's route (a map-file id, never
    the removed one) has the length whose points the claim scored."""
    doc = {"name": "x", "rules": "usa", "players": 2, "lineup": ["random", "random"], "games": 6, "seed": 1,
           "log": True, "workers": 1, "rule_overrides": {"remove_routes": ["Atlanta-Charleston (2 gray)"]}}
    r = run_experiment(doc, output=tmp_path / "out", progress=False, echo=False)
    routes = pl.read_parquet(r.path / "dims" / "routes.parquet")
    assert routes.height == 100
    turns = pl.concat([pl.read_parquet(f) for f in sorted((r.path / "turns").glob("*.parquet"))])
    turns = turns.sort(["game", "turn"]).with_columns(
        gained=pl.col("score") - pl.col("score").shift(1, fill_value=0).over(["game", "seat"]))
    claims = turns.filter(pl.col("action") == "claim").join(routes.select("route", "length"), on="route")
    assert claims.height > 20 and 0 not in claims["route"].to_list()
    points = {1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15}
    assert claims["gained"].to_list() == [points[x] for x in claims["length"].to_list()]


# --------------------------------------------------------------------------- fuzz

@pytest.mark.parametrize("preset", preset_names())
def test_R9_2_random_play_keeps_every_invariant(preset):
    """R9.2 random games with a route removed keep every invariant of the
    fuzzer, at every table size."""
    for players in (2, 3, 5):
        overrides = {"remove_routes": [ROUTE[preset]]}
        counts, first, _ = fuzz_chunk(preset, players, np.arange(40, dtype=np.int64), overrides)
        bad = {VIOLATION_NAMES[v]: int(first[v]) for v in range(len(counts)) if counts[v]}
        assert not bad, (players, bad)
