"""``ttrsim report``: the command over build_report, on a hand-built results
folder (no engine run needed), with its one-line errors."""
import pytest
from click.testing import CliRunner

from ttrsim.cli import main

from helpers import game, make_results


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "res"
    return make_results(path, labels=("A", "B"), games=[game([10, 5]), game([7, 7]), game([3, 9]),
                                                        game([4, 8], end="stalled")])


def run(*args):
    return CliRunner().invoke(main, ["report", *map(str, args)])


def test_report_writes_and_prints_the_path(results, tmp_path):
    out = tmp_path / "rep"
    r = run(results, "--output", out, "--no-svg", "--resamples", 20, "--no-progress")
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert lines[-1] == f"report: {out / 'report.html'}"
    assert f"markdown: {out / 'report.md'}" in lines
    assert (out / "report.html").is_file() and (out / "report.md").is_file()
    assert list((out / "charts").glob("*.png")) and not list((out / "charts").glob("*.svg"))
    assert (out / "tables" / "win_rates.csv").is_file()
    assert "1 stalled" in (out / "report.md").read_text()


def test_default_output_is_inside_the_results_folder(results):
    r = run(results, "--format", "md", "--resamples", 20, "--no-svg")
    assert r.exit_code == 0, r.output
    assert r.output.strip().splitlines()[-1] == f"report: {results / 'report' / 'report.md'}"
    assert not (results / "report" / "report.html").exists()
    assert list((results / "report" / "charts").glob("*.png"))


def test_bad_path_is_one_line(tmp_path):
    r = run(tmp_path / "nope")
    assert r.exit_code == 1
    assert r.output == f"Error: {tmp_path / 'nope'}: no such results folder\n"


def test_folder_without_manifest_is_one_line(tmp_path):
    r = run(tmp_path)
    assert r.exit_code == 1
    assert r.output.count("\n") == 1 and "no manifest.json" in r.output


def test_bad_format_and_resamples(results, tmp_path):
    r = run(results, "--output", tmp_path / "x", "--format", "md,pdf")
    assert r.exit_code == 1 and r.output == "Error: unknown format 'pdf'; expected md, html\n"
    r = run(results, "--resamples", 3)
    assert r.exit_code == 2 and "--resamples" in r.output


def test_help_has_examples():
    r = CliRunner().invoke(main, ["report", "--help"])
    assert r.exit_code == 0
    assert "Examples:" in r.output and "ttrsim report results/quickstart" in r.output
    for opt in ("--output", "--format", "--no-svg", "--resamples"):
        assert opt in r.output
    assert "report" in CliRunner().invoke(main, ["--help"]).output


@pytest.mark.parametrize("after", [0, 3])
def test_a_full_disk_is_one_line_and_leaves_no_half_report(results, tmp_path, monkeypatch, after):
    """ENOSPC on the first file, or on the fourth of them (half written, as a
    full disk leaves it): one line naming the file, exit 1, and the files the
    report had written are gone (with the folders it made); the user's own
    files stay. Injected: a small tmpfs needs root."""
    import errno

    from ttrsim.report.context import Context
    out = tmp_path / "full" / "rep"
    out.mkdir(parents=True)
    (out / "mine.txt").write_text("mine")
    real = Context.write

    def write(self, path, data):
        if len(self.written) >= after:
            self.written.append(path)
            path.write_bytes(b"half")
            raise OSError(errno.ENOSPC, "No space left on device")
        real(self, path, data)
    monkeypatch.setattr(Context, "write", write)
    r = run(results, "--output", out, "--resamples", 20, "--no-progress")
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), r.output
    assert r.output.count("\n") == 1 and "Traceback" not in r.output
    assert r.output.startswith(f"Error: {out}: cannot write {out}/charts/")
    assert r.output.endswith(" (No space left on device); expected a writable report folder with free space "
                             "(the report's files written so far were removed)\n")
    assert sorted(p.name for p in out.rglob("*")) == ["mine.txt"]


def test_a_read_only_report_folder_is_one_line(results, tmp_path, monkeypatch):
    """The report folder cannot be made (EROFS, injected): one line, exit 1, nothing made."""
    import errno
    from pathlib import Path

    def mkdir(self, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(self))
    monkeypatch.setattr(Path, "mkdir", mkdir)
    out = tmp_path / "ro" / "rep"
    r = run(results, "--output", out, "--resamples", 20, "--no-progress")
    assert r.exit_code == 1, r.output
    assert r.output == (f"Error: {out}: cannot write {out} (Read-only file system); expected a writable report "
                        "folder with free space\n")
    assert not (tmp_path / "ro").exists()


@pytest.fixture(scope="module")
def forty(tmp_path_factory):
    """40 games of 3 strategies, varied enough for bootstrap bounds that move with the resamples."""
    totals = [[(7 * i) % 23, (5 * i + 3) % 19, (11 * i + 1) % 29] for i in range(40)]
    return make_results(tmp_path_factory.mktemp("cli40") / "res", labels=("A", "B", "C"),
                        games=[game(t) for t in totals])


def test_resamples_are_all_used_and_said(forty, tmp_path):
    """``--resamples N`` is the ratings' bootstrap (no cap at 200 any more):
    ratings.csv is the library's ratings with N resamples, and the report
    text and --json say N."""
    import json

    from ttrsim.report import Results
    from ttrsim.report.strategies import ratings

    res = Results.open(forty)
    assert not ratings(res, resamples=200).equals(ratings(res, resamples=1000))
    for n in (300, 1000):
        out = tmp_path / f"r{n}"
        r = run(forty, "--output", out, "--format", "md", "--resamples", n, "--no-progress", "--json")
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout)["resamples"] == n
        assert f"the ratings use a block bootstrap ({n} resamples)" in (out / "report.md").read_text()
        assert json.loads((out / "report.json").read_text())["resamples"] == n
        assert (out / "tables" / "ratings.csv").read_text() == ratings(res, resamples=n).write_csv()


def test_resamples_above_the_limit_are_refused(forty, tmp_path):
    from ttrsim.report.document import MAX_RESAMPLES, build_report

    for n in (MAX_RESAMPLES + 1, 10 ** 9, 10 ** 30):
        r = run(forty, "--output", tmp_path / "x", "--resamples", n)
        assert r.exit_code == 2, r.output
        assert f"'--resamples': {n} is not in the range 10<=x<={MAX_RESAMPLES}" in r.output
    with pytest.raises(ValueError, match=r"^resamples must be an integer from 10 to 100,000, got 100001$"):
        build_report(forty, resamples=MAX_RESAMPLES + 1, progress=False)
    assert not (tmp_path / "x").exists()
