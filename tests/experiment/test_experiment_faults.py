"""Faults a run must survive (docs/reliability.md): a Python strategy that
raises, returns garbage, exits or hangs; one that is not deterministic; a
truncated or foreign part file; a second run on a folder (also --overwrite);
a stale lock; the leftovers of a run killed before its manifest; a read-only
folder and a full disk (a small tmpfs, where this machine lets the tests mount
one); Dask without workers; a run that grows. Each error is one line, exits
non-zero without a traceback, and leaves a folder the next run completes with
the tables of an uninterrupted run. Small runs of fast games."""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ttrsim.cli import main, run
from ttrsim.experiment.config import ExperimentError
from ttrsim.experiment.runner import run_experiment
from ttrsim.report.document import build_report
from ttrsim.results.folder import FolderLock
from ttrsim.results.reader import Results, ResultsError

HERE = Path(__file__).resolve().parents[1] / "fixtures"
sys.path.insert(0, str(HERE / "bad_experiments"))
import hostile_strategies  # noqa: E402  (the same module the runner imports)


def small(**kw):
    d = {"name": "faults", "players": 2, "lineup": ["random", "route_focus"], "games": 200, "seed": 7,
         "log": True, "workers": 1, "chunk_size": 20}
    d.update(kw)
    return d


def go(d, out, **kw):
    return run_experiment(d, output=out, progress=False, echo=False, **kw)


def parts(path: Path) -> dict:
    return {str(f.relative_to(path)): f.read_bytes() for f in sorted(Path(path).glob("*/part-*.parquet"))}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    r = go(small(), tmp_path_factory.mktemp("ref") / "ref")
    assert r.status == "complete" and r.games == 200
    return r


def assert_same_parts(a, b):
    pa, pb = parts(a), parts(b)
    assert pa and pa.keys() == pb.keys()
    assert all(pa[k] == pb[k] for k in pa)       # byte-identical part files


# --------------------------------------------------------------------------- Python strategies

HOSTILE = {"python": "hostile_strategies:Hostile", "label": "hostile"}


@pytest.mark.parametrize("mode, what", [
    ("raise", r"raised ValueError: no plan at turn \d+ in the game of seed \d+, turn \d+ \(at hostile_strategies\.py, "
              r"line \d+, in fail: raise ValueError\(f\"no plan at turn \{observation\['turn'\]\}\"\)\)"),
    ("none", r"returned None in the game of seed \d+, turn \d+; expected one of its \d+ legal actions"),
    ("text", r"returned 'claim' in the game"),
    ("float", r"returned 1\.5 in the game"),
    ("big", r"returned 1000000 in the game"),
    ("exit", r"called sys\.exit\(3\) in the game of seed \d+, turn \d+ \(at hostile_strategies\.py, line \d+"),
    ("sleep", r"took more than 0\.3 s in the game of seed \d+, turn \d+ \(stopped at hostile_strategies\.py"),
])
def test_a_failing_python_strategy_is_one_line_and_the_run_resumes_after_the_fix(mode, what, tmp_path,
                                                                                  monkeypatch):
    monkeypatch.setattr(hostile_strategies, "FIXED", False)
    f = tmp_path / "hostile.yaml"
    d = small(lineup=[dict(HOSTILE, params={"mode": mode, "after": 5}), "random"], games=60, log=False,
              python_time_limit=0.3)
    f.write_text(json.dumps(d))
    start = time.perf_counter()
    r = CliRunner().invoke(run, [str(f), "--output", str(tmp_path / "out"), "--no-progress"])
    assert time.perf_counter() - start < 60
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit) and "Traceback" not in r.output, r.output
    # (a first run of this line-up compiles its loop first: the notice and progress lines come before)
    line = "\n".join(x for x in r.output.strip().splitlines() if not x.startswith(("compiling", "compiled "))).strip()
    assert "\n" not in line
    assert re.search(r"^Error: hostile\.yaml: strategy hostile \(seat [01]\) " + what, line), line
    assert re.search(r"; the run stopped: \d+ games kept in .*; run the same command again to resume$", line), line
    m = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert m["status"] == "failed" and m["runs"][-1]["status"] == "failed"
    kept = sum(c["hi"] - c["lo"] for c in m["chunks"].values())
    monkeypatch.setattr(hostile_strategies, "FIXED", True)       # the user fixes the strategy
    again = go(f, tmp_path / "out")
    assert again.status == "complete" and again.games == 60 and again.games_run == 60 - kept


def test_the_games_before_a_strategy_failure_are_kept(tmp_path, monkeypatch):
    """The strategy fails from its 30th instance (the validator builds one,
    every game one, the first game of a chunk is played twice): in chunk 1.
    Chunk 0 is kept, and after the fix the tables are those of a whole run."""
    monkeypatch.setattr(hostile_strategies, "FIXED", False)
    d = small(lineup=[dict(HOSTILE, params={"mode": "raise", "after": 10 ** 9}), "random"], games=60, log=False)
    whole = go(d, tmp_path / "whole")
    built = []
    init = hostile_strategies.Hostile.__init__

    def failing_init(self, mode="raise", after=5):
        init(self, mode, after)
        built.append(self)
        if len(built) >= 30:
            self.after = 2
    monkeypatch.setattr(hostile_strategies.Hostile, "__init__", failing_init)
    with pytest.raises(ExperimentError, match=r"raised ValueError: no plan .*; the run stopped: 20 games kept in "):
        go(d, tmp_path / "out")
    assert sorted(json.loads((tmp_path / "out" / "manifest.json").read_text())["chunks"]) == ["0000-000000"]
    monkeypatch.setattr(hostile_strategies.Hostile, "__init__", init)
    r = go(d, tmp_path / "out")
    assert r.games_run == 40
    assert_same_parts(whole.path, r.path)


def test_an_unseeded_python_strategy_is_caught(tmp_path):
    d = small(lineup=[{"python": "hostile_strategies:Unseeded", "label": "dice"}, "random"], games=20, log=False)
    with pytest.raises(ExperimentError, match=r"^<dict>: strategy dice \(seat [01]\) is not deterministic: the game "
                                              r"of seed \d+ played again with fresh instances went otherwise at turn "
                                              r"\d+; expected decisions that depend only on the game"):
        go(d, tmp_path / "out")


# --------------------------------------------------------------------------- part files

def test_a_truncated_or_foreign_part_file_is_left_out_then_played_again(reference, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(reference.path, out)
    truncated = out / "players" / "part-0000-000002.parquet"
    truncated.write_bytes(truncated.read_bytes()[:-100])
    other = go(small(seed=8), tmp_path / "other")                 # another experiment's chunk, same name
    shutil.copy(other.path / "games" / "part-0000-000005.parquet", out / "games" / "part-0000-000005.parquet")
    res = Results.open(out)
    assert "2 chunks have damaged part files or ones of another experiment (left out" in res.note
    assert res.scan("games").collect().height == 160
    notes = []
    r = run_experiment(small(), output=out, progress=False, echo=notes.append)
    assert r.games_run == 40 and r.status == "complete"
    assert any(n.startswith("note: 2 chunks are played again, their part files damaged or missing") for n in notes)
    assert_same_parts(reference.path, out)


def damaged_without_checksums(reference, out: Path) -> Path:
    """``out``: a copy of the reference folder as a ttrsim before checksums wrote
    it (no ``sha256`` in the manifest), with :data:`DAMAGED` damaged."""
    shutil.copytree(reference.path, out)
    m = json.loads((out / "manifest.json").read_text())
    for rec in m["chunks"].values():
        del rec["sha256"]
    (out / "manifest.json").write_text(json.dumps(m))
    damage(out / DAMAGED)
    return out


def damage(part: Path, at: int = 400, n: int = 64):
    """Zero ``n`` bytes inside a part file's data pages: its size, footer (rows, tag) stay."""
    data = bytearray(part.read_bytes())
    data[at:at + n] = bytes(n)
    part.write_bytes(bytes(data))
    meta = pq.read_metadata(part)
    assert at + n < meta.row_group(0).column(meta.num_columns - 1).data_page_offset   # inside the data


DAMAGED = "players/part-0000-000002.parquet"


def test_a_damaged_part_of_the_right_size_is_noted_and_played_again(reference, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(reference.path, out)
    rec = json.loads((out / "manifest.json").read_text())["chunks"]["0000-000002"]
    size, rows = (out / DAMAGED).stat().st_size, pq.read_metadata(out / DAMAGED).num_rows
    damage(out / DAMAGED)
    assert (out / DAMAGED).stat().st_size == size == rec["bytes"]["players"]
    assert pq.read_metadata(out / DAMAGED).num_rows == rows == rec["rows"]["players"]
    res = Results.open(out)                                            # the reader leaves the chunk out
    assert res.note == (f"{out}: 1 chunk has damaged part files or ones of another experiment (left out; running "
                        f"the experiment again replays them: {DAMAGED}: damaged (its SHA-256 is not the one "
                        "recorded))")
    assert res.scan("players").collect().height == 2 * 180
    notes = []
    r = run_experiment(small(), output=out, progress=False, echo=notes.append)
    assert r.status == "complete" and r.games_run == 20
    assert f"note: 1 chunk is played again, its part files damaged or missing ({DAMAGED}: damaged (its SHA-256 " \
           "is not the one recorded))" in notes
    assert_same_parts(reference.path, out)
    assert [x["status"] for x in r.manifest["runs"]] == ["complete", "complete"]


def test_a_damaged_part_is_left_out_of_the_report_with_a_note(reference, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(reference.path, out)
    damage(out / DAMAGED)
    rep = build_report(out, formats="md", images=(), resamples=10, progress=False)     # (no charts: faster)
    assert rep.problems == []
    text = rep.markdown.read_text()
    assert f"1 chunk has damaged part files or ones of another experiment (left out; running the experiment again " \
           f"replays them: {DAMAGED}: damaged" in text
    assert "180 games" in text and "zstd" not in text.lower()


def test_a_damaged_part_recorded_without_checksums_is_read_whole(reference, tmp_path):
    """A folder of a ttrsim before checksums: the reader and the resume read
    the data whole (a damaged page does not decompress), and the resume
    records the checksums."""
    out = damaged_without_checksums(reference, tmp_path / "out")
    res = Results.open(out)
    assert f"{DAMAGED}: unreadable (" in res.note and res.scan("players").collect().height == 2 * 180
    notes = []
    r = run_experiment(small(), output=out, progress=False, echo=notes.append)
    assert r.games_run == 20 and any(f"({DAMAGED}: unreadable (" in n for n in notes)
    assert_same_parts(reference.path, out)
    assert all(set(rec["sha256"]) == {"games", "players", "tickets", "turns"} for rec in r.manifest["chunks"].values())


def test_a_part_unreadable_when_the_summary_is_read_fails_in_one_line_and_is_played_again(reference, tmp_path,
                                                                                          monkeypatch):
    """A part file damaged after the resume checked it (the check is made to
    pass): the summary's read-back names the file in one line, the manifest
    says failed (and the run stays failed in the history), the chunk is
    dropped and the next run plays it again."""
    from ttrsim.results.folder import Folder
    out = damaged_without_checksums(reference, tmp_path / "out")
    monkeypatch.setattr(Folder, "check", lambda *a, **kw: None)
    f = tmp_path / "again.yaml"
    f.write_text(json.dumps(small()))
    r = CliRunner().invoke(run, [str(f), "--output", str(out), "--no-progress"])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit) and "Traceback" not in r.output, r.output
    assert r.output == (f"Error: again.yaml: output: {DAMAGED}: unreadable (ZSTD decompression failed: Data "
                        "corruption detected); expected whole part files (the chunk is dropped from the manifest, to "
                        f"be played again); the run stopped: 180 games kept in {out}; run the same command again to "
                        "resume\n")
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "failed" and [x["status"] for x in m["runs"]] == ["complete", "failed"]
    assert "0000-000002" not in m["chunks"] and "summary" not in m
    monkeypatch.undo()
    again = go(f, out)
    assert again.status == "complete" and again.games_run == 20
    assert [x["status"] for x in again.manifest["runs"]] == ["complete", "failed", "complete"]
    assert_same_parts(reference.path, out)


# --------------------------------------------------------------------------- a run stopped before its first chunk

def killed_at_start(reference, out: Path, games: int = 10000) -> Path:
    """The folder of a run killed right after it wrote its manifest: the
    manifest (status running, no chunk) and the dead run's lock file."""
    out.mkdir()
    m = json.loads((reference.path / "manifest.json").read_text())
    m.update(chunks={}, points={}, status="running", experiment_path=str(out.parent / "exp.yaml"))
    m.pop("summary"), m.pop("points_summary")
    m["config"]["games"] = m["layout"]["games_per_point"] = games
    m["runs"] = [{"started": m["created"], "pid": 999999, "games": 0, "status": "running"}]
    (out / "manifest.json").write_text(json.dumps(m))
    (out / "ttrsim.lock").write_text(json.dumps({"pid": 999999, "host": "gone", "started": m["created"]}))
    return out


def folder_files(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_report_of_a_run_stopped_before_any_game_says_so(reference, tmp_path):
    out = killed_at_start(reference, tmp_path / "out")
    before = folder_files(out)
    r = CliRunner().invoke(main, ["report", str(out), "--format", "md", "--no-progress"])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit) and "Traceback" not in r.output
    assert r.output == (f"Error: {out}: no game recorded: its run was stopped before it recorded any game (manifest "
                        f"status 'running'); resume it with the same 'ttrsim run' command ('ttrsim run "
                        f"{tmp_path / 'exp.yaml'} --output {out}')\n")
    assert folder_files(out) == before                               # no report folder, nothing written


def test_the_report_of_a_run_still_starting_says_so(reference, tmp_path):
    out = killed_at_start(reference, tmp_path / "out")
    (out / "ttrsim.lock").write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": "now"}))
    with pytest.raises(ResultsError, match=rf"^{re.escape(str(out))}: no game recorded yet: its run \(pid "
                                           rf"{os.getpid()}\) is still starting; expected a folder with a finished "
                                           "chunk: report it once the run has played one$"):
        Results.open(out)


def test_fewer_games_on_a_folder_with_no_finished_game_says_it_holds_none(reference, tmp_path):
    out = killed_at_start(reference, tmp_path / "out")
    before = folder_files(out)
    f = tmp_path / "exp.yaml"
    f.write_text(json.dumps(small(games=1000)))
    r = CliRunner().invoke(run, [str(f), "--output", str(out), "--no-progress"])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit) and "Traceback" not in r.output
    assert r.output == (f"Error: exp.yaml: games: 1,000 per point are fewer than the 10,000 per point the folder "
                        f"{out} was run with (it holds 0 finished games); expected at least 10,000 (a run grows, "
                        "never shrinks), or --overwrite to start over\n")
    assert folder_files(out) == {k: v for k, v in before.items() if k != "ttrsim.lock"}   # the dead run's lock: freed
    # the same command as the killed run resumes it and marks that run killed
    r = go(small(games=200), killed_at_start(reference, tmp_path / "again", games=200))
    assert r.status == "complete" and r.games_run == 200
    assert [x["status"] for x in r.manifest["runs"]] == ["killed", "complete"]
    assert_same_parts(reference.path, r.path)


# --------------------------------------------------------------------------- locks

def test_a_second_run_on_a_live_folder_is_refused_also_with_overwrite(reference, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(reference.path, out)
    before = parts(out)
    lock = FolderLock(out)
    lock.acquire()                                     # a live run holds the folder
    try:
        for overwrite in (False, True):
            with pytest.raises(ExperimentError, match=rf"^<dict>: output: {out} is in use by another ttrsim run "
                                                      rf"\(pid {os.getpid()} on .*, started .*\); expected one run at "
                                                      "a time per folder: wait for it to end or stop it$"):
                go(small(games=400), out, overwrite=overwrite)
    finally:
        lock.release()
    assert parts(out) == before
    assert go(small(), out).games_run == 0             # free again


def test_a_live_run_in_another_process_refuses_a_second_one(tmp_path):
    """A real second process: a run holds the lock while it plays (flock)."""
    out = tmp_path / "out"
    code = ("import sys, time; from ttrsim.results.folder import FolderLock; "
            f"FolderLock({str(out)!r}).acquire(); print('held', flush=True); time.sleep(60)")
    out.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"held"
        f = tmp_path / "x.yaml"
        f.write_text(json.dumps(small()))
        r = CliRunner().invoke(run, [str(f), "--output", str(out), "--overwrite", "--no-progress"])
        assert r.exit_code == 1 and "Traceback" not in r.output
        assert r.output.strip().startswith(f"Error: x.yaml: output: {out} is in use by another ttrsim run "
                                           f"(pid {holder.pid} on ")
    finally:
        holder.kill()
        holder.wait()
    assert go(small(games=20), out).status == "complete"          # the dead holder's lock is free


def test_a_stale_lock_file_is_taken_over(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "ttrsim.lock").write_text(json.dumps({"pid": 999999, "host": "gone", "started": "yesterday"}))
    notes = []
    r = run_experiment(small(games=20), output=out, progress=False, echo=notes.append)
    assert r.status == "complete" and not (out / "ttrsim.lock").exists()
    assert "took over the lock of a run that ended without releasing it (pid 999999 on gone" in notes[0]


def test_the_leftovers_of_a_run_killed_before_its_manifest_are_recovered(reference, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "ttrsim.lock").write_text("")
    (out / f"manifest.json.{os.getpid() + 1}.tmp").write_text("{half")
    (out / "games").mkdir()
    notes = []
    r = run_experiment(small(), output=out, progress=False, echo=notes.append)
    assert r.status == "complete" and any("leftovers of a run killed before it wrote its manifest" in n
                                          for n in notes)
    assert_same_parts(reference.path, out)
    assert sorted(p.name for p in out.iterdir()) == ["dims", "games", "manifest.json", "map.json", "players",
                                                      "rules.json", "tickets", "turns"]


def test_a_folder_with_other_files_is_still_refused(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ExperimentError, match="exists and is not a ttrsim results folder"):
        go(small(), out)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


# --------------------------------------------------------------------------- growing, the manifest

def test_a_run_grown_from_2000_to_4000_games_equals_a_4000_game_run(tmp_path):
    d = small(games=2000, chunk_size=300, log=False)     # the last chunk (1,800-1,999) is cut short
    whole = go(dict(d, games=4000), tmp_path / "whole")
    notes = []
    first = go(d, tmp_path / "grown")
    assert first.games == 2000
    grown = run_experiment(dict(d, games=4000), output=tmp_path / "grown", progress=False, echo=notes.append)
    assert grown.games == 4000 and grown.games_run == 2200    # that chunk is played again whole
    assert any("growing from 2,000 to 4,000 games per point" in n for n in notes)
    assert_same_parts(whole.path, grown.path)
    assert grown.summary == whole.summary
    assert [r.get("grown_from") for r in grown.manifest["runs"]] == [None, 2000]
    with pytest.raises(ExperimentError, match=r"games: 3,000 per point are fewer than the 4,000 per point the folder "
                                              r".* was run with \(it holds 4,000 finished games\)"):
        go(dict(d, games=3000), tmp_path / "grown")


def test_defaults_written_out_are_no_change_and_a_new_description_is_recorded(reference, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(reference.path, out)
    notes = []
    r = run_experiment(small(map="usa", rules="usa", rule_overrides={"max_turns": 1000}, description="again",
                             lineup=["random", {"strategy": "route_focus", "params": {}}]),
                       output=out, progress=False, echo=notes.append)
    assert r.games_run == 0
    assert r.manifest["description"] == "again" and r.manifest["descriptions"][0]["description"] == ""
    with pytest.raises(ExperimentError, match=r"holds a different experiment \(changed: points\[0\]\.rules\.max_turns"):
        go(small(rule_overrides={"max_turns": 999}), out)


def test_the_manifest_records_the_chunk_size_used_and_marks_killed_runs(reference, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(reference.path, out)
    m = json.loads((out / "manifest.json").read_text())
    m["runs"][-1]["status"] = "running"                          # as a kill -9 leaves it, with its lock file
    del m["chunks"]["0000-000009"]
    (out / "manifest.json").write_text(json.dumps(m))
    (out / "ttrsim.lock").write_text(json.dumps({"pid": m["runs"][-1]["pid"], "host": "here", "started": "then"}))
    r = go(small(), out, chunk_size=50)
    assert r.manifest["execution"]["chunk_size"] == 20 and r.manifest["runs"][-1]["chunk_games"] == 20
    assert [x["status"] for x in r.manifest["runs"]] == ["killed", "complete"]
    # a run still 'running' without its lock left behind ended (releasing the lock) but could not record
    # its end, e.g. on a full disk: it failed, it was not killed
    m = json.loads((out / "manifest.json").read_text())
    m["runs"][-1]["status"] = "running"
    (out / "manifest.json").write_text(json.dumps(m))
    assert [x["status"] for x in go(small(), out).manifest["runs"]] == ["killed", "failed", "complete"]
    three = go(small(players=3, lineup=["random", "route_focus", "random"], games=12, chunk_size=5), tmp_path / "3")
    assert three.manifest["execution"]["chunk_size"] == 6          # 5 asked, whole blocks of 3 used


# --------------------------------------------------------------------------- read-only folder, full disk

def mount_tmpfs(path: Path, size: str):
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if r.returncode:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.decode().strip() or 'mount failed'}): needs root")


def remount(path: Path, options: str):
    subprocess.run(["mount", "-o", f"remount,{options}", str(path)], check=True)


def test_a_read_only_folder_is_one_line_and_stays_usable(reference, tmp_path):
    disk = tmp_path / "disk"
    mount_tmpfs(disk, "64m")
    try:
        out = disk / "out"
        shutil.copytree(reference.path, out)
        remount(disk, "ro")
        for overwrite in (False, True):
            with pytest.raises(ExperimentError, match=r"^<dict>: output: .* is not writable \(.* is read-only\); "
                                                      r"expected a writable folder path$"):
                go(small(games=400), out, overwrite=overwrite)
        remount(disk, "rw")
        assert go(small(), out).games_run == 0
        assert_same_parts(reference.path, out)
    finally:
        subprocess.run(["umount", "-l", str(disk)])


def test_a_full_disk_is_one_line_and_the_run_resumes_when_there_is_room(reference, tmp_path):
    disk = tmp_path / "disk"
    mount_tmpfs(disk, "160k")
    try:
        f = tmp_path / "full.yaml"
        f.write_text(json.dumps(small()))
        r = CliRunner().invoke(run, [str(f), "--output", str(disk / "out"), "--no-progress"])
        assert r.exit_code == 1 and "Traceback" not in r.output
        line = r.output.strip()
        assert "\n" not in line and "No space left on device" in line and line.startswith("Error: full.yaml: output: ")
        assert not list((disk / "out").rglob("*.tmp"))
        remount(disk, "size=64m")
        again = go(f, disk / "out")
        assert again.status == "complete" and again.games == 200
        assert [x["status"] for x in again.manifest["runs"]] == ["failed", "complete"]     # failed stays failed
        assert_same_parts(reference.path, disk / "out")
    finally:
        subprocess.run(["umount", "-l", str(disk)])


def turn_read_only(monkeypatch, root: Path, after_parts: int, errno_: int, in_place: bool):
    """The folder ``root`` turns read-only mid-run, after ``after_parts``
    part files: from then on a new file or a deletion in it (or its table
    folders) fails with ``errno_``, as after ``chmod -w`` on them (which does
    not stop root, who runs the tests) or a read-only file system; an existing
    file can still be rewritten in place where ``in_place``. Returns the
    errors raised."""
    import builtins

    import ttrsim.results.folder as folder_mod
    state = {"parts": 0, "errors": []}

    def inside(path) -> bool:
        return Path(path).resolve().is_relative_to(root.resolve())

    def refuse(path):
        e = OSError(errno_, os.strerror(errno_), str(path))
        state["errors"].append(e)
        raise e

    def fake_open(path, mode="r", *args, **kwargs):
        if inside(path) and "w" in mode:
            if state["parts"] >= after_parts:
                refuse(path)
            if Path(path).name.startswith("part-"):
                state["parts"] += 1
        if inside(path) and "+" in mode and (not in_place and state["parts"] >= after_parts):
            refuse(path)
        return builtins.open(path, mode, *args, **kwargs)

    real_unlink = Path.unlink

    def fake_unlink(self, missing_ok=False):
        if inside(self) and state["parts"] >= after_parts:
            refuse(self)
        return real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(folder_mod, "open", fake_open, raising=False)
    monkeypatch.setattr(Path, "unlink", fake_unlink)
    return state["errors"]


@pytest.mark.parametrize("errno_, in_place", [(13, True), (30, False)])
def test_a_folder_turned_read_only_mid_run_is_one_line_and_resumes(reference, tmp_path, monkeypatch, errno_,
                                                                    in_place):
    """``chmod -w`` on the folder and its table folders while the run plays
    (EACCES: the manifest is rewritten in place and says ``failed``), or a
    file system turned read-only (EROFS: nothing can be written, and the line
    says the manifest still says running). No traceback, no temporary file;
    once writable again the same command completes the tables of a whole run."""
    out = tmp_path / "out"
    f = tmp_path / "ro.yaml"
    f.write_text(json.dumps(small()))
    errors = turn_read_only(monkeypatch, out, after_parts=8, errno_=errno_, in_place=in_place)   # after 2 chunks
    r = CliRunner().invoke(run, [str(f), "--output", str(out), "--no-progress"])
    assert errors and r.exit_code == 1 and isinstance(r.exception, SystemExit), r.output
    line = r.output.strip()
    assert "\n" not in line and "Traceback" not in line, line
    what = "Permission denied" if errno_ == 13 else "Read-only file system"
    assert re.match(rf"^Error: ro\.yaml: output: cannot write {re.escape(str(out))}/\w+/part-0000-000002\.parquet "
                    rf"\({what}\); expected a writable folder with free space; the run stopped: 40 games kept in ",
                    line), line
    m = json.loads((out / "manifest.json").read_text())
    if in_place:
        assert line.endswith("; run the same command again to resume")
        assert m["status"] == "failed" and m["runs"][-1]["status"] == "failed" and len(m["chunks"]) == 2
    else:
        assert f"(as of the last manifest written; it could not be updated ({what}) and still says running)" in line
        assert m["status"] == "running"
    monkeypatch.undo()                               # writable again
    assert not list(out.rglob("*.tmp"))
    again = go(f, out)
    assert again.status == "complete" and again.games_run == 200 - 20 * len(m["chunks"])
    # the injected errors leave the lock file removable, so the run that could not record its end is `failed`
    assert [x["status"] for x in again.manifest["runs"]] == ["failed", "complete"]
    assert_same_parts(reference.path, out)


def test_a_folder_read_only_before_the_run_is_recorded_is_one_line(reference, tmp_path, monkeypatch):
    """Read-only as the run is about to record itself in the manifest: nothing
    is played, the folder is as it was."""
    out = tmp_path / "out"
    shutil.copytree(reference.path, out)
    before = parts(out), (out / "manifest.json").read_bytes()
    turn_read_only(monkeypatch, out, after_parts=0, errno_=30, in_place=False)
    with pytest.raises(ExperimentError, match=rf"^<dict>: output: cannot write {re.escape(str(out))}/manifest\.json "
                                              r"\(Read-only file system\); expected a writable folder with free "
                                              "space; run the same command again once it is fixed$"):
        go(small(games=400), out)
    monkeypatch.undo()
    assert (parts(out), (out / "manifest.json").read_bytes()) == before
    assert not list(out.rglob("*.tmp"))


# --------------------------------------------------------------------------- Dask without workers

def test_dask_without_workers_says_so_and_gives_up_after_the_timeout(tmp_path):
    distributed = pytest.importorskip("distributed")
    import logging
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as cluster:
        notes = []
        start = time.perf_counter()
        with pytest.raises(ExperimentError, match=r"scheduler: no Dask worker connected to .* for 1 s; expected "
                                                  r"running workers"):
            run_experiment(small(games=20), output=tmp_path / "out", scheduler=cluster.scheduler_address,
                           worker_timeout=1, progress=False, echo=notes.append)
        assert time.perf_counter() - start < 30
        assert any(n.startswith("waiting for a Dask worker: none is connected") for n in notes)
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["status"] == "failed"
    assert pq.read_table(tmp_path / "out" / "dims" / "routes.parquet").num_rows > 0


def test_a_lost_dask_scheduler_is_one_line_and_the_run_resumes(tmp_path):
    """The scheduler ends after the workers warmed up, before any chunk came
    back: one line (no traceback), the run failed, and the same experiment
    resumes (here on the local backend) to the complete folder."""
    distributed = pytest.importorskip("distributed")
    import logging
    cluster = distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
    notes = []

    def echo(note):
        notes.append(note)
        if note.startswith("dask: 1 worker ready"):
            cluster.close()                  # the scheduler (and its worker) gone as the chunks are submitted
    try:
        with pytest.raises(ExperimentError, match=r"^scheduler: lost the connection to the Dask scheduler at "
                                                  r"\S+://\S+; expected a scheduler that runs until the run ends; "
                                                  r"the run stopped: \d+ games kept in .*; run the same command "
                                                  r"again to resume$"):
            run_experiment(small(games=40), output=tmp_path / "out", scheduler=cluster.scheduler_address,
                           progress=False, echo=echo)
    finally:
        cluster.close()
    assert any(n.startswith("dask: 1 worker ready") for n in notes)
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["status"] == "failed"
    r = go(small(games=40), tmp_path / "out")
    assert r.status == "complete" and r.games == 40
