"""Opening results folders (ttrsim.report.dataset)."""
import json
import shutil

import polars as pl
import pytest

from ttrsim.report import Results, ResultsError, end_reasons, sweep_keys, swept_win_rates, win_rates

from helpers import game, make_results


def four_games(path, **kw):
    return make_results(path, games=[game([10, 5]), game([7, 7]), game([3, 9]), game([4, 8])], **kw)


def test_open_reads_the_manifest_and_layout(tmp_path):
    res = Results.open(four_games(tmp_path / "r"))
    assert (res.labels, res.players, res.rules, res.stride, res.block_size) == (["A", "B"], 2, "usa", 4, 2)
    assert res.complete and res.note is None and not res.has_turns
    assert res.n_games == 4 and res.map.name == "usa" and res.map_name == "usa"
    assert res.points.to_dicts() == [{"point": 0}]
    assert Results.open(res) is res
    assert "4 games" in res.caption()
    p = res.scan("players").select("game", "seat", "block").collect().sort("game", "seat")
    assert p["block"].to_list() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert set(res.dim("routes").columns) >= {"route", "label", "from", "to", "length", "colour", "group"}
    assert res.dim("strategies")["strategy"].to_list() == ["A", "B"]


def test_with_strategy_names_seats_from_the_seatings(tmp_path):
    res = Results.open(four_games(tmp_path / "r"))
    p = res.scan("players").select("game", "seat", pl.col("strategy").cast(pl.String))
    named = res.with_strategy(p.select("game", "seat")).collect().with_columns(pl.col("strategy").cast(pl.String))
    assert named.sort("game", "seat")["strategy"].to_list() == p.collect().sort("game", "seat")["strategy"].to_list()


@pytest.mark.parametrize("damage, message", [
    ("nofolder", "no such results folder"),
    ("nomanifest", "no manifest.json"),
    ("badjson", "manifest.json is unreadable"),
    ("noparts", "no part files"),
    ("nochunks", "no game recorded: its run was stopped before it recorded any game (manifest status 'running'); "
                 "resume it with the same 'ttrsim run' command"),
    ("damaged", "no part files to read: every chunk the manifest lists misses or has damaged part files "
                "(games/part-0000-000000.parquet: not a whole Parquet file)"),
])
def test_errors_are_one_line_naming_the_folder(tmp_path, damage, message):
    path = four_games(tmp_path / "r")
    if damage == "nofolder":
        shutil.rmtree(path)
    elif damage == "nomanifest":
        (path / "manifest.json").unlink()
    elif damage == "badjson":
        (path / "manifest.json").write_text("{not json")
    elif damage == "nochunks":             # killed right after its manifest: no chunk, no map.json yet
        m = json.loads((path / "manifest.json").read_text())
        (path / "manifest.json").write_text(json.dumps(dict(m, chunks={}, status="running")))
        (path / "map.json").unlink()
    elif damage == "damaged":
        f = path / "games" / "part-0000-000000.parquet"
        f.write_bytes(f.read_bytes()[:-8])
    else:
        shutil.rmtree(path / "games")
    with pytest.raises(ResultsError) as e:
        Results.open(path)
    assert message in str(e.value) and str(path) in str(e.value) and "\n" not in str(e.value)


def test_unfinished_run_opens_with_a_note(tmp_path):
    path = four_games(tmp_path / "r", status="interrupted")
    res = Results.open(path)
    assert not res.complete and "interrupted" in res.note and str(path) in res.note
    assert win_rates(res, resamples=0)["games"].to_list() == [4, 4]


def test_part_files_of_unlisted_chunks_are_ignored(tmp_path):
    path = four_games(tmp_path / "r", chunk_games=2)
    m = json.loads((path / "manifest.json").read_text())
    del m["chunks"]["0000-000001"]          # a chunk written but never recorded (killed in between)
    m["status"] = "interrupted"
    (path / "manifest.json").write_text(json.dumps(m))
    res = Results.open(path)
    assert res.n_games == 2


def test_turns_needed_message(tmp_path):
    res = Results.open(four_games(tmp_path / "r"))
    with pytest.raises(ResultsError, match="log: true"):
        res.scan("turns")


def test_points_and_sweep_values(tmp_path):
    games = [game([10, 5], point=p) for p in range(4) for _ in range(2)]
    path = make_results(tmp_path / "s", games=games, rules="usa-1910",
                        sweep=[("rules.globetrotter_points", [10, 20]), ("rules.scoring", [{6: 15}, {6: 18}])],
                        point_overrides={0: {"globetrotter_points": 10, "scoring": {6: 15}},
                                         1: {"globetrotter_points": 10, "scoring": {6: 18}},
                                         2: {"globetrotter_points": 20, "scoring": {6: 15}},
                                         3: {"globetrotter_points": 20, "scoring": {6: 18}}})
    # the manifest stores JSON: the scoring lengths become text, as in a real run
    res = Results.open(path)
    assert sweep_keys(res) == ["rules.globetrotter_points", "rules.scoring"]
    assert res.points.columns == ["point", "rules.globetrotter_points", "rules.scoring"]
    assert res.points["rules.globetrotter_points"].to_list() == [10, 10, 20, 20]
    assert res.points["rules.scoring"].to_list() == ['{"6": 15}', '{"6": 18}'] * 2
    assert res.rules_at(3).globetrotter_points == 20 and dict(res.rules_at(3).scoring)[6] == 18
    w = swept_win_rates(res, resamples=0)
    assert w.columns[:4] == ["point", "rules.globetrotter_points", "rules.scoring", "strategy"]
    assert w.height == 8 and w["win_rate"].to_list() == [0.5] * 8
    assert end_reasons(res)["point"].to_list() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
