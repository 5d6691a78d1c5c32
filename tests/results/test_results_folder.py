"""A results folder describes itself (map.json, rules.json): the reader and the
report use only the folder, so a folder copied elsewhere after its map file was
deleted or edited reads as played; a resume under another map is refused; a
folder of an older ttrsim gets the files when its experiment runs again. And
the run summary, summary_from_tables and the report's win rates are one
computation (ttrsim.results.stats)."""
import json
import shutil

import numpy as np
import polars as pl
import pytest
import yaml
from click.testing import CliRunner

from ttrsim.cli import main
from ttrsim.data.maps import MAPS_DIR, load_map
from ttrsim.data.rules import PRESETS, get_rules
from ttrsim.experiment.config import ExperimentError
from ttrsim.experiment.runner import run_experiment
from ttrsim.report import Results, ResultsError, ticket_value, win_rates
from ttrsim.results.stats import interval_text, percent
from ttrsim.results.summary import summary_from_tables

MAP_FIELDS = ("location_names", "location_is_country", "location_xy", "node_names", "node_loc", "node_xy",
              "route_a", "route_b", "route_len", "route_colour", "route_group", "route_group_name", "ticket_a",
              "ticket_b", "ticket_points", "ticket_tags", "scoring", "passengers")


def write_map(path, ticket_points=None, boston=None):
    """The USA map with the first ticket's points and Boston's coordinates changed."""
    doc = yaml.safe_load((MAPS_DIR / "usa.yaml").read_text())
    doc["name"] = "usa-custom"
    doc["tickets"][0][2] = ticket_points or 30
    doc["cities"]["Boston"] = boston or [1650, 150]
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    return path


def same_map(a, b) -> bool:
    return a.name == b.name and all(np.array_equal(np.asarray(getattr(a, f), object), np.asarray(getattr(b, f), object))
                                    for f in MAP_FIELDS)


def run(d, out, **kw):
    return run_experiment(d, output=out, progress=False, echo=False, **kw)


def custom(map_file, **kw):
    d = {"name": "custom", "rules": "usa", "map": str(map_file), "rule_overrides": {"trains": 40},
         "players": 2, "lineup": ["greedy", "random"], "games": 12, "seed": 4, "log": True, "workers": 1,
         "chunk_size": 6}
    d.update(kw)
    return d


def test_a_copied_folder_reads_the_map_as_played_after_its_file_was_deleted_or_edited(tmp_path):
    (tmp_path / "maps").mkdir()
    map_file = write_map(tmp_path / "maps" / "m.yaml")
    played = load_map(map_file)
    r = run(custom(map_file), tmp_path / "run")
    assert json.loads((r.path / "map.json").read_text())["name"] == "usa-custom"
    copy = tmp_path / "elsewhere" / "copy"
    shutil.copytree(r.path, copy)
    map_file.unlink()

    res = Results.open(copy)
    assert same_map(res.map, played) and res.map_name == str(map_file)
    assert res.rules_at(0) == get_rules("usa", {"trains": 40, "map": str(map_file)})
    out = tmp_path / "report"
    rep = CliRunner().invoke(main, ["report", str(copy), "--output", str(out), "--format", "md", "--no-svg",
                                    "--resamples", "20", "--no-progress"])
    assert rep.exit_code == 0, rep.output
    assert "map `m`" in (out / "report.md").read_text()
    value = pl.read_csv(out / "tables" / "ticket_value.csv")
    assert value.filter(pl.col("ticket") == 0)["points"].to_list() == [30]     # the map the games were played on

    write_map(map_file, ticket_points=5, boston=[10, 10])                       # the file edited since
    res = Results.open(copy)
    assert same_map(res.map, played) and int(res.map.ticket_points[0]) == 30
    assert ticket_value(res).filter(pl.col("ticket") == 0)["points"].to_list() == [30]


def test_the_rules_are_read_from_the_folder_not_from_todays_presets(tmp_path, monkeypatch):
    r = run({"name": "sw", "rules": "usa-1910", "players": 2, "lineup": ["greedy", "random"], "games": 4,
             "workers": 1, "sweep": {"rules.globetrotter_points": [0, 25]}}, tmp_path / "sw")
    monkeypatch.setitem(PRESETS["usa-1910"], "trains", 30)          # a later ttrsim changed the preset
    res = Results.open(r.path)
    assert [res.rules_at(p).globetrotter_points for p in (0, 1)] == [0, 25]
    assert res.rules_at(1).trains == 45 and res.rules_at(1).ticket_decks == ("1910",)
    stored = json.loads((r.path / "rules.json").read_text())["points"][1]
    assert stored["preset"] == "usa-1910" and stored["params"]["globetrotter_points"] == 25
    # the value without the sweep (marked on the balance charts) comes from the folder too
    assert res.base_rules.globetrotter_points == 10 and res.base_rules.trains == 45
    from ttrsim.report.sections.sweeps import preset_value
    assert preset_value(res, "rules.globetrotter_points") == 10


def test_a_resume_under_an_edited_map_is_refused(tmp_path):
    (tmp_path / "maps").mkdir()
    map_file = write_map(tmp_path / "maps" / "m.yaml")
    out = tmp_path / "run"
    run(custom(map_file), out)
    m = json.loads((out / "manifest.json").read_text())
    del m["chunks"]["0000-000001"]                                  # an interrupted run
    (out / "manifest.json").write_text(json.dumps(m))
    write_map(map_file, ticket_points=5)
    before = (out / "manifest.json").read_text()
    with pytest.raises(ExperimentError, match=r"^<dict>: output: .* was played with another map or rule set "
                                              r"\(map\.json differs: .*\); expected the same map and rules to "
                                              r"resume, or --overwrite to start over$"):
        run(custom(map_file), out)
    assert (out / "manifest.json").read_text() == before
    r = run(custom(map_file), out, overwrite=True)
    assert r.games == 12 and int(Results.open(out).map.ticket_points[0]) == 5


def test_a_folder_without_description_files_is_named_and_mended_by_running_again(tmp_path):
    d = {"name": "old", "rules": "usa", "players": 2, "lineup": ["greedy", "random"], "games": 4, "workers": 1}
    r = run(d, tmp_path / "old")
    (r.path / "map.json").unlink()
    (r.path / "rules.json").unlink()                               # as an older ttrsim left it
    with pytest.raises(ResultsError) as e:
        Results.open(r.path)
    assert str(e.value) == (f"{r.path}: no map.json (a folder of an older ttrsim); run its experiment again on "
                            f"this folder ('ttrsim run FILE --output {r.path}') to add it")
    again = run(d, r.path)
    assert again.games_run == 0 and again.summary == r.summary
    assert Results.open(r.path).map.name == "usa"


def test_summary_and_report_are_one_computation(tmp_path):
    r = run({"name": "one", "rules": "usa", "players": 3, "lineup": ["greedy", "random", "route_focus"],
             "games": 60, "seed": 2, "workers": 1, "chunk_size": 21}, tmp_path / "one")
    w = win_rates(Results.open(r.path))
    rows = [{"point": x["point"], "values": {}, "strategy": x["strategy"], "games": x["games"],
             "distinct": x["distinct"], "wins": x["wins"], "win_rate": x["win_rate"], "low": x["low"],
             "high": x["high"], "mean_total": x["mean_score"], "fixed": False, "seat": None, "same_as": None}
            for x in w.iter_rows(named=True)]
    assert r.summary == rows == summary_from_tables(r.path) == json.loads((r.path / "manifest.json").read_text())[
        "summary"]
    assert [x["strategy"] for x in rows] == ["route_focus", "greedy", "random"]       # highest win rate first
    body = r.summary_text.splitlines()[2:5]
    for line, x in zip(body, rows):
        assert line.split()[0] == x["strategy"]
        assert percent(x["win_rate"]) in line and interval_text(x["low"], x["high"]) in line


def test_a_stop_rule_resume_replays_chunks_recorded_with_other_sums(tmp_path):
    d = {"name": "stop", "rules": "usa", "players": 3, "lineup": ["random", "route_focus", "random"], "seed": 42,
         "stop": {"strategy": "route_focus", "width": 0.35, "min_games": 12, "max_games": 600}, "workers": 1,
         "chunk_size": 9}
    whole = run(d, tmp_path / "whole")
    out = tmp_path / "resumed"
    run(d, out)
    m = json.loads((out / "manifest.json").read_text())
    first = m["chunks"]["0000-000000"]
    first["stats"] = {k: first["stats"]["n"] for k in ("n", "w", "t", "nb", "s1", "s2")}   # an older form
    m["points"] = {}
    m["status"] = "interrupted"
    (out / "manifest.json").write_text(json.dumps(m))
    r = run(d, out)
    assert r.games_run == r.games == whole.games and r.manifest["points"] == whole.manifest["points"]
    for t in ("games", "players"):
        a = pl.read_parquet(sorted((whole.path / t).glob("*.parquet"))).sort("game")
        assert a.equals(pl.read_parquet(sorted((out / t).glob("*.parquet"))).sort("game")), t
