"""Experiment files: loading, defaults, seatings, seeds (no games played)."""
import glob
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from ttrsim.experiment.config import ExperimentError, load_experiment
from ttrsim.experiment.seating import block_seed, block_seeds, chunk_games, chunks_of_point, design, game_arrays, locate

ROOT = Path(__file__).resolve().parents[2]


def base(**kw):
    d = {"name": "t", "rules": "usa", "players": 3, "lineup": ["random", "route_focus", "one_step"], "games": 10}
    d.update(kw)
    return d


def test_every_example_experiment_loads():
    files = sorted(glob.glob(str(ROOT / "experiments" / "*.yaml")))
    names = {Path(f).stem for f in files}
    assert {"quickstart", "rotation", "round_robin", "sweep", "sequential", "dask"} <= names
    for f in files:
        if Path(f).stem.startswith("tune_"):        # a tune file (ttrsim tune, docs/tune.md)
            from ttrsim.tune import load_tune
            assert load_tune(f).budget
            continue
        e = load_experiment(f)
        assert e.games > 0 and e.points


def test_defaults_and_rounding_to_blocks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    e = load_experiment(base())
    assert (e.seating, e.block_size, e.games, e.games_requested) == ("rotate", 3, 12, 10)
    assert e.seed == 0 and e.log is False and e.backend == "local" and e.scheduler is None
    assert e.output == tmp_path / "results" / "t"
    assert [x.label for x in e.entrants] == ["random", "route_focus", "one_step"]
    assert len(e.points) == 1 and e.points[0].values == {}
    assert e.chunk_games == 2001        # 2000 rounded to whole blocks of 3
    assert not (tmp_path / "results").exists()   # loading writes nothing


def test_repeated_strategies_get_labels_and_params():
    e = load_experiment(base(lineup=["planner", {"strategy": "planner", "params": {"keep_margin": 9}}, "planner"]))
    assert [x.label for x in e.entrants] == ["planner", "planner-2", "planner-3"]
    assert e.entrants[1].params == {"keep_margin": 9.0}


def test_overrides_replace_file_keys_and_games_drops_stop():
    d = base(stop={"strategy": "random", "width": 0.1, "max_games": 90}, games=None)
    e = load_experiment(d)
    assert e.stop is not None and e.games == 90
    e2 = load_experiment(d, {"games": 30, "workers": 1, "seed": 4})
    assert e2.stop is None and e2.games == 30 and e2.workers == 1 and e2.seed == 4


def test_scheduler_implies_dask():
    e = load_experiment(base(scheduler="tcp://127.0.0.1:8786"))
    assert e.backend == "dask"


def test_sweep_grid_is_a_product_in_key_order():
    e = load_experiment(base(rules="usa-1910", sweep={"rules.globetrotter_points": [0, 10, 15],
                                                       "rules.scoring": [{6: 15}, {6: 18}]}))
    assert len(e.points) == 6
    assert e.points[1].values == {"rules.globetrotter_points": 0, "rules.scoring": {6: 18}}
    assert e.rules_for(e.points[5]).globetrotter_points == 15
    assert dict(e.rules_for(e.points[5]).scoring)[6] == 18
    json.dumps(e.config())                       # JSON-able (int keys become text)


def test_strategy_sweep_sets_the_labelled_entrant_only():
    e = load_experiment(base(lineup=["planner", "planner", "one_step"],
                             sweep={"strategies.planner-2.keep_margin": [1, 2]}))
    assert e.points[1].entrant_params == ({}, {"keep_margin": 2.0}, {})


def test_config_ignores_execution_settings():
    a = load_experiment(base(workers=1, chunk_size=10, output="x"))
    b = load_experiment(base(workers=2, chunk_size=99, output="y", backend="dask"))
    assert a.config() == b.config()
    assert a.config() != load_experiment(base(seed=1)).config()


def test_custom_map_path_is_relative_to_the_experiment_file(tmp_path):
    f = tmp_path / "sub" / "e.yaml"
    f.parent.mkdir()
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "m.yaml").write_text((ROOT / "ttrsim" / "data" / "maps" / "usa.yaml").read_text())
    f.write_text("name: m\nmap: ../maps/m.yaml\nplayers: 2\nlineup: [random, random]\ngames: 2\n")
    e = load_experiment(f)
    assert e.map == str(tmp_path / "maps" / "m.yaml")
    assert e.rules_for(e.points[0]).map == e.map


# --------------------------------------------------------------------------- seatings and seeds

@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_rotation_puts_every_entrant_in_every_seat_once(players):
    d = design("rotate", players, players)
    assert len(d) == players
    for seat in range(players):
        assert sorted(s[seat] for s in d) == list(range(players))


def test_permute_and_fixed_designs():
    assert len(design("permute", 4, 4)) == 24
    assert len(set(design("permute", 4, 4))) == 24
    assert design("fixed", 3, 3) == ((0, 1, 2),)


def test_round_robin_plays_every_table_in_every_rotation():
    d = design("round_robin", 5, 3)
    assert len(d) == 10 * 3
    tables = {frozenset(s) for s in d}
    assert tables == {frozenset(c) for c in itertools.combinations(range(5), 3)}
    for t in tables:
        rows = [s for s in d if frozenset(s) == t]
        for seat in range(3):
            assert sorted(r[seat] for r in rows) == sorted(t)


def test_block_seeds_are_a_stable_hash():
    blocks = np.arange(1000)
    fast = block_seeds(12345, blocks)
    assert [block_seed(12345, int(b)) for b in blocks[:50]] == fast[:50].tolist()
    assert (fast >= 0).all() and len(set(fast.tolist())) == 1000
    # pinned values: the layout of an experiment must never change silently
    assert block_seed(0, 0) == 6017775124710473527
    assert block_seed(1, 7) == int(block_seeds(1, np.array([7]))[0])
    assert block_seeds(2**63 - 1, np.array([2**32])).dtype == np.int64


def test_games_of_a_block_share_a_seed_and_chunks_are_whole_blocks():
    blocks, seating, seeds = game_arrays(5, 4, 0, 12)
    assert blocks.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    assert seating.tolist() == [0, 1, 2, 3] * 3
    assert len(set(seeds[:4].tolist())) == 1 and seeds[0] != seeds[4]
    per = chunk_games(10, 4)
    assert per == 8
    cs = chunks_of_point(2, 20, per)
    assert [(c.lo, c.hi) for c in cs] == [(0, 8), (8, 16), (16, 20)]
    assert cs[1].key == "0002-000001"
    assert locate(2 * 100 + 9, 100, 4, 5) == {"point": 2, "number": 9, "block": 2, "seating": 1,
                                              "seed": block_seed(5, 2)}


def test_errors_are_one_line_and_name_the_source():
    with pytest.raises(ExperimentError) as e:
        load_experiment(base(players=2))
    assert str(e.value) == "<dict>: lineup: 3 strategies for 2 players; expected one per seat"
    assert "\n" not in str(e.value)


def test_the_config_face_keeps_its_public_names():
    import ttrsim.experiment.config as config
    for name in ("load_experiment", "read_experiment_file", "Experiment", "Entrant", "StopRule", "Point",
                 "ExperimentError", "EXECUTION_KEYS"):
        assert hasattr(config, name), name
    assert {"block_size", "stride", "chunk_games", "config", "execution", "rules_for"} <= set(dir(config.Experiment))
