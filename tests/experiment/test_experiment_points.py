"""A sweep point's rules are resolved once (by the validator, kept with the
point), its map file parsed once per process and its board built once per
process (ttrsim.experiment.points); a Game given a prebuilt board plays the
same game."""
import pickle
import shutil

import numpy as np
import pytest

from ttrsim.data.maps import loader
from ttrsim.data.maps.loader import MAPS_DIR
from ttrsim.data.rules import get_rules
from ttrsim.experiment import points, schema, worker
from ttrsim.experiment.config import load_experiment
from ttrsim.experiment.runner import run_experiment
from ttrsim.play import game
from ttrsim.play.game import Game

GREEDY_PY = "ttrsim.strategies.python_example:GreedyLongest"


def counting(monkeypatch, module, name, counts):
    real = getattr(module, name)

    def wrapper(*args, **kwargs):
        counts[name] = counts.get(name, 0) + 1
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, wrapper)


@pytest.fixture
def counts(monkeypatch):
    """Calls of: the map file parser, the board builder (points and Game) and
    get_rules (points, schema), from a clean slate."""
    points.clear()
    worker._CTX.by_key.clear()
    c = {}
    counting(monkeypatch, loader, "_load_file", c)
    counting(monkeypatch, points, "build_board", c)
    counting(monkeypatch, points, "get_rules", c)
    monkeypatch.setattr(game, "build_board", lambda *a, **k: c.update(game_board=c.get("game_board", 0) + 1) or
                        pytest.fail("a Game built its own board"))
    monkeypatch.setattr(schema, "get_rules", lambda *a, **k: c.update(schema_rules=c.get("schema_rules", 0) + 1) or
                        get_rules(*a, **k))
    yield c
    points.clear()
    worker._CTX.by_key.clear()


def sweep_doc(map_file, python=True):
    return {"name": "pts", "rules": "usa", "map": str(map_file), "players": 2,
            "lineup": [{"python": GREEDY_PY, "label": "greedy_py"} if python else "greedy", "random"],
            "games": 2, "seed": 3, "workers": 1, "sweep": {"rules.trains": [40, 45]}}


def test_a_two_point_sweep_parses_its_map_once_and_builds_each_board_once(counts, tmp_path):
    m = tmp_path / "usa_copy.yaml"
    shutil.copy(MAPS_DIR / "usa.yaml", m)
    r = run_experiment(sweep_doc(m), output=tmp_path / "out", progress=False, echo=False)
    assert r.status == "complete" and r.games == 4
    # the file once; a board per point (the file's own rules are those of the point trains: 45); the rules once
    # per rule set (the file's, each point's), never again in the run (schema: the file's rules without the sweep)
    assert counts == {"_load_file": 1, "build_board": 2, "get_rules": 3, "schema_rules": 1}
    ctx = next(iter(worker._CTX.by_key.values()))
    assert ctx["game"].board is ctx["board"]            # the Python seats' Game plays on the point's board
    # the same experiment again in this process: nothing parsed, resolved or built again
    run_experiment(sweep_doc(m), output=tmp_path / "again", progress=False, echo=False)
    assert counts == {"_load_file": 1, "build_board": 2, "get_rules": 3, "schema_rules": 2}
    # an edited map file is read afresh, and its boards built again
    m.write_text(m.read_text() + "\n# edited\n")
    e = load_experiment(sweep_doc(m, python=False), {"output": str(tmp_path / "edited")})
    assert counts["_load_file"] == 2 and counts["build_board"] == 4
    assert [e.rules_for(p).trains for p in e.points] == [40, 45]


def test_points_carry_their_resolved_rules_and_specs_send_them(counts, tmp_path):
    m = tmp_path / "usa_copy.yaml"
    shutil.copy(MAPS_DIR / "usa.yaml", m)
    e = load_experiment(sweep_doc(m, python=False), {"output": str(tmp_path / "out")})
    assert [p.rules for p in e.points] == [get_rules("usa", p.rule_overrides) for p in e.points]
    assert all(e.rules_for(p) is p.rules for p in e.points)
    e.identity(), e.config()
    assert "schema_rules" not in counts                 # the identity reads the points' rules
    spec = worker.point_spec(e, e.points[1])
    assert spec["rule_set"] is e.points[1].rules and "rule_overrides" not in spec
    assert pickle.loads(pickle.dumps(spec))["rule_set"] == e.points[1].rules   # (rules travel, boards do not)
    assert [s["key"] for s in worker.point_specs(e)] == [worker.point_spec(e, p)["key"] for p in e.points]


def play_out(g: Game, rng_seed: int) -> list:
    rng = np.random.default_rng(rng_seed)
    while not g.over:
        legal = g.legal_actions()
        g.apply(legal[int(rng.integers(len(legal)))])
    return g.history


@pytest.mark.parametrize("preset, overrides, players", [
    ("usa", {"remove_routes": ["Atlanta-New Orleans (4 orange)"], "trains": 30}, 3),
    ("europe", {}, 4),
    ("germany", {}, 2),
])
def test_a_game_on_a_prebuilt_board_is_the_same_game(preset, overrides, players):
    rules = get_rules(preset, overrides)
    own = Game(rules, players, seed=11)
    shared = Game(rules, players, seed=11, board=own.board)
    assert shared.board is own.board
    assert play_out(shared, 5) == play_out(own, 5)
    assert shared.result() == own.result() and shared.observation(0) == own.observation(0)


def test_a_board_of_other_rules_is_refused():
    board = Game("usa", 2).board
    for rules, overrides in (("usa", {"trains": 40}), ("europe", {}),
                             ("usa", {"remove_routes": ["Atlanta-New Orleans (4 orange)"]})):
        with pytest.raises(ValueError, match="is not the board of these rules"):
            Game(rules, 2, overrides=overrides, board=board)
    Game("usa", 3, seed=2, board=board)           # the player count is the state's, not the board's
