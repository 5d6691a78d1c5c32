"""A results folder in one call (issue 35, docs/results.md): every column's
description is stored in the part files and the dimension tables (field
metadata ``b"description"``, the same bytes in every run, so part files stay
byte-identical); a folder written before descriptions resumes, grows and reads
as before. ``ttrsim.open`` gives every table as a LazyFrame with the names
joined in (strategy labels, ticket and route city pairs, station cities,
swept values), pandas frames where pandas is installed and one line where it
is not (the example of docs/results.md runs); ``ttrsim schema RESULTS`` lists every table's fields (text and
``--json``; a bad folder or no argument is one line)."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import ttrsim
from ttrsim.cli import main
from ttrsim.experiment.runner import run_experiment
from ttrsim.results.folder import DIM_DESCRIPTIONS, DIMS
from ttrsim.results.load import ADDED, PANDAS_MISSING, ResultTables, folder_schema
from ttrsim.results.reader import Results, ResultsError
from ttrsim.results.tables import DESCRIPTION, DESCRIPTIONS, SCHEMAS

ROOT = Path(__file__).resolve().parents[2]
EXP = {"name": "open", "rules": "europe", "players": 2, "lineup": ["random", "planner"], "games": 4, "seed": 1,
       "log": True, "workers": 1, "chunk_size": 2, "sweep": {"rules.station_points": [4, 2]}}


def go(out, **kw):
    return run_experiment(dict(EXP, **kw), output=out, progress=False, echo=False)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    r = go(tmp_path_factory.mktemp("open") / "open")
    assert r.status == "complete"
    return r.path


def stored(file) -> dict:
    """column -> its stored description (None: none)."""
    return {f.name: (f.metadata or {}).get(DESCRIPTION, b"").decode() or None for f in pq.read_schema(file)}


# --------------------------------------------------------------------------- descriptions in the files

def test_every_column_has_one_description():
    for name, schema in SCHEMAS.items():
        assert list(DESCRIPTIONS[name]) == schema.names, name
        assert all(d and "\n" not in d for d in DESCRIPTIONS[name].values())


def test_every_part_file_and_dimension_table_stores_the_descriptions(folder):
    for name in ("games", "players", "tickets", "turns"):
        files = sorted((folder / name).glob("part-*.parquet"))
        assert len(files) == 4                                   # 2 points x 2 chunks
        for f in files:
            assert stored(f) == DESCRIPTIONS[name], f
    for d in DIMS:
        assert stored(folder / "dims" / f"{d}.parquet") == DIM_DESCRIPTIONS[d]


def test_the_descriptions_keep_part_files_byte_identical_between_runs(folder, tmp_path):
    again = go(tmp_path / "again", chunk_size=4).path                   # other chunks: other part files
    a = {t: pl.read_parquet(folder / t / "*.parquet") for t in SCHEMAS}
    b = {t: pl.read_parquet(again / t / "*.parquet") for t in SCHEMAS}
    assert all(a[t].equals(b[t]) for t in SCHEMAS)
    same = go(tmp_path / "same").path
    files = sorted(p.relative_to(folder) for p in folder.glob("*/part-*.parquet"))
    assert files and all((folder / f).read_bytes() == (same / f).read_bytes() for f in files)


def strip_descriptions(out: Path):
    """``out`` as a ttrsim before descriptions wrote it: no field metadata in
    its part files (the ``ttrsim`` tag kept) and, as before checksums, no
    sizes or checksums in the manifest (the rewritten files have others)."""
    for f in out.glob("*/part-*.parquet"):
        t = pq.read_table(f)
        plain = pa.schema([x.remove_metadata() for x in t.schema], t.schema.metadata)
        pq.write_table(t.cast(plain), f, compression="zstd")
        assert set(stored(f).values()) == {None}
    m = json.loads((out / "manifest.json").read_text())
    for rec in m["chunks"].values():
        del rec["sha256"], rec["bytes"]
    (out / "manifest.json").write_text(json.dumps(m))


def test_a_folder_written_before_descriptions_grows_reads_whole_and_lists_this_ttrsims(folder, tmp_path):
    out = tmp_path / "old"
    shutil.copytree(folder, out)
    strip_descriptions(out)
    old = {f.relative_to(out): f.read_bytes() for f in out.glob("*/part-*.parquet")}
    schema = folder_schema(out)["tables"]
    assert {f["name"]: f["description"] for f in schema["players"] if not f["added"]} == DESCRIPTIONS["players"]
    r = go(out, games=8)                                        # grown: 2 more chunks per point
    assert r.status == "complete" and r.games_run == 8
    assert all((out / f).read_bytes() == data for f, data in old.items())     # the old parts untouched
    new = sorted(set(out.glob("*/part-*.parquet")) - {out / f for f in old})
    assert len(new) == 16 and all(stored(f) == DESCRIPTIONS[f.parent.name] for f in new)
    tables = ttrsim.open(out)
    assert tables["games"].collect().height == 16 and tables.note is None
    assert tables["players"].select(pl.col("strategy_name").n_unique()).collect().item() == 2


# --------------------------------------------------------------------------- ttrsim.open

def test_import_ttrsim_loads_no_layer_until_open_is_called(folder):
    code = ("import sys, ttrsim\n"
            "assert not [m for m in sys.modules if m.startswith('ttrsim.')], 'a layer was loaded'\n"
            f"t = ttrsim.open({str(folder)!r})\n"
            "print(type(t).__name__, len(t))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "ResultTables 8", out.stderr


def test_open_gives_every_table_and_dimension(folder):
    r = ttrsim.open(folder)
    assert isinstance(r, ResultTables) and r.results.path == folder and r.note is None
    assert list(r) == ["games", "players", "tickets", "turns", "dims/routes", "dims/tickets", "dims/strategies",
                       "dims/points"]
    assert all(isinstance(r[k], pl.LazyFrame) for k in r)
    assert r.games.collect().height == 8 and r.players.collect().height == 16
    assert set(r.dims) == set(DIMS) and r.dims["routes"].collect().height == r.results.map.n_routes
    assert ttrsim.open(Results.open(folder)).path == folder                    # a Results as is


def test_the_tables_keep_every_stored_column_and_add_the_names(folder):
    r = ttrsim.open(folder)
    for name in SCHEMAS:
        raw = pl.read_parquet(folder / name / "*.parquet")
        lf = r[name]
        cols = lf.collect_schema().names()
        assert cols[:len(raw.columns)] == raw.columns
        assert set(cols) - set(raw.columns) == set(ADDED[name]) | {"rules.station_points"}
        got = lf.select(raw.columns).collect()                       # in the order of the part files, too
        assert got.with_columns(pl.col(pl.Enum).cast(pl.String)).equals(
            raw.with_columns(pl.col(pl.Categorical).cast(pl.String)), null_equal=True), name


def test_strategies_are_labels_in_line_up_order(folder):
    r = ttrsim.open(folder)
    labels = pl.Enum(["random", "planner"])
    assert r.players.collect_schema()["strategy"] == labels and r.games.collect_schema()["strategy_1"] == labels
    p = r.players.select("game", "seat", "strategy", "strategy_name").collect()
    for name in ("tickets", "turns"):                 # the seat's label, from the seatings, as players has it
        t = r[name].select("game", "seat", "strategy").unique().collect()
        both = t.join(p, on=["game", "seat"], how="left", suffix="_p")
        assert both.height > 0 and (both["strategy"] == both["strategy_p"]).all(), name
    assert p.select("strategy", "strategy_name").unique().sort("strategy").rows() == [("random", "random"),
                                                                                       ("planner", "planner")]


def test_tickets_routes_and_stations_are_named(folder):
    r = ttrsim.open(folder)
    m = r.results.map
    tk = r.tickets.select("ticket", "ticket_from", "ticket_to", "ticket_name").unique().collect()
    assert tk.height > 0
    for t, a, b, name in tk.rows():
        assert (a, b) == (m.location_names[m.ticket_a[t]], m.location_names[m.ticket_b[t]]) and name == f"{a} - {b}"
    tu = r.turns.collect()
    claims = tu.filter(pl.col("route").is_not_null())
    assert claims.height > 0 and tu.filter(pl.col("route").is_null())["route_label"].null_count() == \
        tu.height - claims.height
    for route, a, b, label in claims.select("route", "route_from", "route_to", "route_label").unique().rows():
        assert (a, b) == (m.node_names[m.route_a[route]], m.node_names[m.route_b[route]])
        assert label == m.route_label(route)
    stations = tu.filter(pl.col("action") == "station")
    assert stations.height > 0 and tu.filter(pl.col("action") != "station")["station_city"].null_count() == \
        tu.height - stations.height
    assert stations["station_city"].to_list() == [m.location_names[s] for s in stations["station"]]


def test_every_table_has_the_swept_values_of_its_point(folder):
    r = ttrsim.open(folder)
    for name in ("games", "players", "tickets", "turns", "dims/points"):
        df = r[name].select("point", "rules.station_points").unique().sort("point").collect()
        assert df.rows() == [(0, 4), (1, 2)], name


def test_to_pandas_gives_categories(folder):
    df = ttrsim.open(folder).to_pandas("players")
    assert len(df) == 16 and str(df["strategy"].dtype) == "category"
    assert list(df["strategy"].cat.categories) == ["random", "planner"]


def test_to_pandas_without_pandas_is_one_line(folder, monkeypatch):
    r = ttrsim.open(folder)
    monkeypatch.setitem(sys.modules, "pandas", None)              # as if not installed
    with pytest.raises(ImportError) as e:
        r.to_pandas("games")
    assert str(e.value) == PANDAS_MISSING == ("to_pandas needs the optional dependency 'pandas': "
                                              "pip install 'ttrsim[pandas]'")
    assert e.value.__cause__ is None and e.value.__suppress_context__


def test_a_missing_table_or_folder_is_one_line(folder, tmp_path):
    r = ttrsim.open(folder)
    with pytest.raises(KeyError, match="unknown table 'moves'; expected one of games, players"):
        r["moves"]
    with pytest.raises(ResultsError, match="unknown table 'moves'; expected one of games, players"):
        r.files("moves")
    no_log = go(tmp_path / "nolog", log=False, sweep=None).path
    with pytest.raises(KeyError, match="no turns table; run the experiment with log: true"):
        ttrsim.open(no_log)["turns"]
    with pytest.raises(AttributeError, match="no turns table"):
        _ = ttrsim.open(no_log).turns
    assert "turns" not in ttrsim.open(no_log)
    with pytest.raises(ResultsError, match=r"^\S+nowhere: no such results folder$"):
        ttrsim.open(tmp_path / "nowhere")


def test_files_are_the_checked_part_files_for_a_duckdb_view(folder, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(folder, out)
    (out / "players" / "part-0001-000000.parquet").unlink()
    r = ttrsim.open(out)
    assert r.note is not None and "part-0001-000000.parquet" in r.note
    files = r.files("games")
    assert len(files) == 3 and str(out / "games" / "part-0001-000000.parquet") not in files
    assert pl.scan_parquet(files).collect().height == r.games.collect().height == 6


def test_the_example_of_docs_results_md_runs(folder):
    doc = (ROOT / "docs" / "results.md").read_text()
    code = doc[doc.index("```python\n") + 10:]
    code = code[:code.index("```")].replace('"results/quickstart"', repr(str(folder)))
    names = {}
    exec(compile(code, "docs/results.md", "exec"), names)
    assert names["claims"].height > 0 and names["claims"].columns == ["strategy", "route_from", "route_to", "claims"]
    assert names["kept"].height > 0 and names["kept"]["ticket_name"].null_count() == 0
    assert names["scores"]["strategy"].to_list() == ["random", "planner"] and len(names["df"]) == 16


# --------------------------------------------------------------------------- ttrsim schema RESULTS

def test_schema_lists_every_tables_fields_with_type_and_description(folder):
    r = CliRunner().invoke(main, ["schema", str(folder), "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["path"] == str(folder) and list(doc["tables"]) == list(ttrsim.open(folder))
    for name in SCHEMAS:
        fields = doc["tables"][name]
        files = [f for f in fields if not f["added"]]
        assert [(f["name"], f["description"]) for f in files] == list(DESCRIPTIONS[name].items())
        assert {f["name"] for f in fields if f["added"]} == set(ADDED[name]) | {"rules.station_points"}
    assert {f["name"]: f["type"] for f in doc["tables"]["turns"]}["action"] == "string (dictionary)"
    assert [f["description"] for f in doc["tables"]["dims/routes"]] == list(DIM_DESCRIPTIONS["routes"].values())
    text = CliRunner().invoke(main, ["schema", str(folder)])
    assert text.exit_code == 0, text.output
    assert "games: 16 fields (+ 1 added by ttrsim.open)" in text.output
    line = next(x for x in text.output.splitlines() if "ticket_name" in x.split())
    assert line.split()[:3] == ["+", "ticket_name", "String"]
    assert any(x.split()[:2] == ["winners", "list<int8>"] for x in text.output.splitlines())


@pytest.mark.parametrize("args, code, message", [
    ([], 2, "Error: expected RESULTS (a results folder of ttrsim run) or --experiment (the JSON Schema of "
            "experiment files)"),
    (["exp.yaml"], 2, "Error: exp.yaml is an experiment file, not a results folder; the schema of experiment "
                      "files: ttrsim schema --experiment"),
    (["nowhere"], 1, "Error: nowhere: no such results folder"),
    (["nowhere", "--experiment"], 2, "Error: give RESULTS or --experiment, not both"),
])
def test_schema_refuses_in_one_line(args, code, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["schema", *args])
    assert r.exit_code == code and r.output.splitlines()[-1] == message, r.output
    assert "Traceback" not in r.output
