"""The report document: built on a small real run (USA 4 players with turn
logs; Germany 3 players) and on hand-built tiny datasets (a sweep without turn
logs, stalled and capped games, shared wins)."""
import json
import re

import polars as pl
import pytest

from ttrsim.experiment.runner import run_experiment
from ttrsim.report import Results, ResultsError, win_rates
from ttrsim.report.contents import CONTENTS
from ttrsim.report.document import build_report
from ttrsim.report.sweeps import play_changes, sweep_effects

from helpers import game, make_results

LINEUP = ["planner", "route_focus", "one_step", "long_route"]


@pytest.fixture(scope="session")
def usa_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("doc_runs")
    r = run_experiment({"name": "usa4doc", "rules": "usa", "players": 4, "games": 24, "seed": 11, "log": True,
                        "lineup": LINEUP}, output=str(base / "usa4"), workers=1, progress=False, echo=False)
    return r.path


@pytest.fixture(scope="session")
def usa_report(usa_run, tmp_path_factory):
    out = tmp_path_factory.mktemp("doc_out") / "usa_report"
    return build_report(usa_run, output=out, resamples=50, progress=False, images=("png",))


def sections(md: str) -> list[str]:
    return [line[3:] for line in md.splitlines() if line.startswith("## ")]


def test_real_run_writes_every_file(usa_report):
    rep = usa_report
    assert rep.problems == []
    out = rep.folder
    assert rep.markdown == out / "report.md" and rep.html == out / "report.html" and rep.main == rep.html
    tables = {p.stem for p in (out / "tables").glob("*.csv")}
    assert {"win_rates", "head_to_head", "ratings", "seat_advantage", "score_components", "score_histogram",
            "game_length", "end_reasons", "ticket_value", "ticket_decks", "route_contention", "route_claimers",
            "blocking"} <= tables
    pngs = {p.stem for p in (out / "charts").glob("*.png")}
    assert {"win_rates", "head_to_head", "ratings", "seat_advantage", "score_components", "score_distribution",
            "game_length", "end_reasons", "ticket_completion", "ticket_points_vs_path", "ticket_decks",
            "board_claim_rate", "board_claim_round", "route_claims", "blocking"} <= pngs
    index = json.loads((out / "report.json").read_text())
    assert sorted(index["files"]) == sorted(str(p.relative_to(out)) for p in
                                           [rep.markdown, rep.html] + rep.tables + rep.charts)


def test_real_run_sections_and_captions(usa_report):
    md = usa_report.markdown.read_text()
    assert sections(md) == ["Key findings", "The experiment", "Strategy comparison", "Tickets", "Route claims"]
    for sub in ("### Win rates", "### Head to head", "### Ratings", "### Seat advantage", "### Score composition",
                "### Score distributions", "### Game length and end reasons", "### By deck", "### Blocking"):
        assert sub in md
    images = re.findall(r"!\[[^\]]*\]\((charts/[^)]+)\)", md)
    assert len(images) == len(list((usa_report.folder / "charts").glob("*.png")))
    for src in images:
        assert (usa_report.folder / src).is_file()
    captions = [line for line in md.splitlines() if line.startswith("*Figure ")]
    assert len(captions) == len(images)
    assert all("From 24 games" in c for c in captions)
    assert "0 stalled" in md and "0 were capped" in md
    assert "shared win counts as a fraction" in md
    findings = md[md.index("## Key findings"):md.index("## Strategy comparison")]
    assert "**Most claimed routes** (the highest claim rates of" in findings \
        and re.search(r"\(\d+ trains?\) claimed in", findings)
    assert "**Ticket draws during the game**" in findings and "(#how-each-strategy-plays))" in findings


def test_the_contents_list_is_the_report(usa_report):
    """Every part and titled section of ttrsim.report.contents is a heading of the report, in order
    (a USA run with turn logs: no intervention, no passengers, no sweep)."""
    heads = [line for line in usa_report.markdown.read_text().splitlines() if line.startswith(("## ", "### "))]
    listed = ["## Key findings", "## The experiment"]
    for part in CONTENTS[1:4]:
        listed += [f"## {part.title}"] + [f"### {s.title}" for s in part.sections if s.title]
    assert [h for h in heads if h != "### Double and triple routes"] == listed
    computed = {s.name for part in CONTENTS[1:4] for sec in part.sections for s in sec.stats}
    assert computed == {p.stem for p in usa_report.tables}       # every statistic is written as a CSV


def test_real_run_tables_match_the_statistics(usa_run, usa_report):
    csv = pl.read_csv(usa_report.folder / "tables" / "win_rates.csv")
    direct = win_rates(Results.open(usa_run), resamples=50)
    assert csv["strategy"].to_list() == direct["strategy"].to_list() and sorted(csv["strategy"]) == sorted(LINEUP)
    assert direct["win_rate"].to_list() == sorted(direct["win_rate"].to_list(), reverse=True)   # ranked
    assert csv["wins"].to_list() == pytest.approx(direct["wins"].to_list())
    md = usa_report.markdown.read_text()
    for row in direct.iter_rows(named=True):
        assert f"| {row['strategy']} | 24 | {row['wins']:.1f} | {100 * row['win_rate']:.1f}% |" in md


def test_html_is_self_contained(usa_report):
    html = usa_report.html.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    n_png = len(list((usa_report.folder / "charts").glob("*.png")))
    assert html.count('src="data:image/png;base64,') == n_png
    assert 'src="charts/' not in html and "<script" not in html
    assert html.count("<figcaption>") == n_png
    assert '<h2 id="strategy-comparison">' in html and 'href="#route-claims"' in html
    # issue 12 point 9: reads on a phone, a table of contents, the CSV tables travel with the page
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    nav = html[html.index('<nav class="contents">'):html.index("</nav>")]
    for anchor in ("key-findings", "strategy-comparison", "win-rates", "tickets", "route-claims",
                   "blocking"):
        assert f'href="#{anchor}"' in nav and f'id="{anchor}"' in html
    assert 'href="tables/' not in html and 'download="win_rates.csv"' in html
    assert html.count('href="data:text/csv;base64,') >= len(usa_report.tables)


def test_svg_and_rebuild_removes_the_files_of_the_previous_report(tmp_path):
    path = make_results(tmp_path / "r", games=[game([10, 5]), game([7, 7]), game([3, 9]), game([4, 8])])
    out = tmp_path / "rep"
    first = build_report(path, output=out, resamples=20, progress=False, formats=("md",), images=("svg",))
    svgs = list((out / "charts").glob("*.svg"))
    assert svgs and sorted(svgs) == sorted(first.charts) and not list((out / "charts").glob("*.png"))
    assert svgs[0].read_text().lstrip().startswith("<?xml") and "Win rate per strategy" in \
        (out / "charts" / "win_rates.svg").read_text()                  # text kept as text
    md = first.markdown.read_text()
    assert "](charts/win_rates.svg)" in md
    (out / "notes.txt").write_text("mine")
    second = build_report(path, output=out, resamples=20, progress=False, formats=("md",), images=())
    assert not list((out / "charts").glob("*.svg"))        # the old charts are gone
    assert (out / "notes.txt").read_text() == "mine"         # files the report did not write stay
    assert second.html is None and not (out / "report.html").exists() and second.charts == []


def test_germany_has_a_passenger_section(tmp_path):
    r = run_experiment({"name": "ger3doc", "rules": "germany", "players": 3, "games": 9, "seed": 4, "log": True,
                        "lineup": ["passenger_hunter", "planner", "one_step"]},
                       output=str(tmp_path / "ger"), workers=1, progress=False, echo=False)
    rep = build_report(r.path, output=tmp_path / "out", formats=("md",), images=(), resamples=20, progress=False)
    assert rep.problems == [] and rep.charts == []
    md = rep.markdown.read_text()
    assert sections(md) == ["Key findings", "The experiment", "Strategy comparison", "Tickets", "Route claims", "Passengers"]
    assert "### Majority outcomes" in md and "Passenger points changed who won in **" in md
    findings = md[md.index("## Key findings"):md.index("## Strategy comparison")]
    assert "**Passenger majorities** changed who won in" in findings and "(#passengers))" in findings
    assert "| passenger_hunter |" in md
    assert "(chart not written: no image format chosen)" in md
    for name in ("majority_outcomes", "passenger_points", "passenger_decisive", "passengers_vs_routes",
                 "passengers_by_routes"):
        assert (rep.folder / "tables" / f"{name}.csv").is_file()


# --------------------------------------------------------------------------- hand-built datasets

def test_sweep_without_turn_log(tmp_path):
    games = [game([10 + p, 5]) for p in range(3) for _ in range(2)]
    for i, g in enumerate(games):
        g["point"] = i // 2
    path = make_results(tmp_path / "sw", games=games, sweep=[("rules.globetrotter_points", [0, 10, 20])],
                        point_overrides={0: {"globetrotter_points": 0}, 1: {"globetrotter_points": 10},
                                         2: {"globetrotter_points": 20}})
    rep = build_report(path, resamples=20, progress=False, images=(), formats=("md",), max_point_charts=2)
    assert rep.folder == path / "report"
    md = rep.markdown.read_text()
    assert sections(md) == ["Key findings", "The experiment", "Strategy comparison", "Tickets", "Route claims", "Sweeps"]
    assert "Skipped: these results have no turn log" in md
    assert "Per-point charts are drawn for points 0, 2 of 3" in md
    captions = [line for line in md.splitlines() if line.startswith("*Figure ")]
    assert any("Win rate per strategy" in c and "(point 0: globetrotter_points=0)" in c for c in captions)
    assert any("Win rate per strategy" in c and "(point 2: globetrotter_points=20)" in c for c in captions)
    assert not any("(point 1:" in c for c in captions)
    assert any("Balance: each strategy's win rate" in c and "`rules.globetrotter_points`" in c for c in captions)
    assert not any("The board with" in c for c in captions)
    swr = pl.read_csv(rep.folder / "tables" / "swept_win_rates.csv")
    assert sorted(set(swr["rules.globetrotter_points"].to_list())) == [0, 10, 20]
    wr = pl.read_csv(rep.folder / "tables" / "win_rates.csv")
    assert "rules.globetrotter_points" in wr.columns            # every table says its point's values
    assert "| 1 | 10 | A |" in md                               # and so do the tables in the document
    captions = [line for line in md.splitlines() if line.startswith("*Figure ") and "point 2" in line]
    assert captions and all("From 2 games" in c for c in captions)
    findings = md[md.index("## Key findings"):md.index("## Strategy comparison")]
    assert ("**Play does not change across the sweep**: all 4 seat-games play the same at point 0: "
            "globetrotter_points=0 and point 2: globetrotter_points=20") in findings     # only the totals differ
    assert "### Does play change across the sweep" in md


def test_play_changes_compares_each_seat_game_with_the_first_points(tmp_path):
    """The same deal, seating and seat at every point; play is what the tables
    record of it (trains, cards, tickets offered and kept, turns), never a score."""
    games = [game([10, 5], point=0, trains_left=[3, 4]), game([7, 8], point=0, trains_left=[1, 2]),
             game([11, 5], point=1, trains_left=[3, 4]), game([7, 9], point=1, trains_left=[1, 0]),
             game([10, 5], point=2, trains_left=[3, 4]), game([7, 8], point=2, trains_left=[1, 2])]
    tickets = [{"g": g, "seat": 0, "ticket": 3, "kept": g != 4} for g in range(6)]     # point 2 returns it
    path = make_results(tmp_path / "sw", games=games, tickets=tickets,
                        sweep=[("rules.globetrotter_points", [0, 10, 20])],
                        point_overrides={p: {"globetrotter_points": 10 * p} for p in range(3)})
    pc = play_changes(path)
    assert pc["rules.globetrotter_points"].to_list() == [0, 10, 20]
    assert pc["seat_games"].to_list() == [4, 4, 4]
    assert pc["differ"].to_list() == [0, 1, 1]   # point 1: its second deal, seat 2 (trains); point 2: a keep
    assert pc["differ_share"].to_list() == [0.0, 0.25, 0.25]


def test_stalled_capped_and_shared_wins_are_visible(tmp_path):
    games = [game([10, 5]), game([7, 7]), game([3, 9], end="stalled", turns=400),
             game([4, 8], end="capped", turns=1000)]
    path = make_results(tmp_path / "odd", games=games)
    rep = build_report(path, output=tmp_path / "r", resamples=20, progress=False, images=(), formats=("md",))
    md = rep.markdown.read_text()
    assert "**1 stalled** (25.00%" in md and "**1 were capped** (25.00%" in md
    assert "> Of 4 games" in md                                   # a highlighted note, not a plain line
    ends = pl.read_csv(rep.folder / "tables" / "end_reasons.csv")
    assert dict(zip(ends["end"], ends["games"])) == {"normal": 2, "stalled": 1, "capped": 1}
    wr = pl.read_csv(rep.folder / "tables" / "win_rates.csv")
    assert sum(wr["wins"].to_list()) == pytest.approx(4.0)       # the tied game counts 1/2 + 1/2
    assert "| A | 4 | 2.5 | 62.5% |" in md


def test_incomplete_run_is_said(tmp_path):
    path = make_results(tmp_path / "inc", games=[game([10, 5]), game([7, 8])], status="interrupted")
    rep = build_report(path, output=tmp_path / "r", resamples=20, progress=False, images=(), formats=("md",))
    assert "> Incomplete results:" in rep.markdown.read_text()


def test_bad_arguments(tmp_path):
    with pytest.raises(ResultsError, match="no such results folder"):
        build_report(tmp_path / "missing", progress=False)
    path = make_results(tmp_path / "ok", games=[game([1, 2]), game([2, 1])])
    with pytest.raises(ValueError, match="unknown format 'pdf'"):
        build_report(path, formats=("pdf",), progress=False)
    with pytest.raises(ValueError, match="unknown image 'jpg'"):
        build_report(path, images="png,jpg", progress=False)
    with pytest.raises(ValueError, match="resamples"):
        build_report(path, resamples=1, progress=False)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not a folder"):
        build_report(path, output=tmp_path / "file", progress=False)


def test_ready_made_studies_state_their_question_and_load():
    from pathlib import Path

    from ttrsim.experiment.config import load_experiment
    root = Path(__file__).resolve().parents[2] / "experiments"
    files = sorted(root.glob("study_*.yaml"))
    stems = {f.stem for f in files}
    assert {"study_tournament_usa4", "study_germany_passengers", "study_globetrotter_sweep",
            "study_ticket_points_sweep"} <= stems
    assert {f"study_rulesets_{x}" for x in ("base", "1910", "mega", "bigcities")} <= stems
    assert {f"study_first_seat_{n}p" for n in (2, 3, 4, 5)} <= stems
    presets = set()
    for f in files:
        text = f.read_text()
        header = "".join(line for line in text.splitlines() if line.startswith("#"))
        assert header.startswith("# Study:") and "?" in header, f.name
        assert f"ttrsim report results/{f.stem}" in header, f.name
        e = load_experiment(f)
        assert e.name == f.stem and e.games >= 8000
        if f.stem.startswith("study_rulesets_"):
            presets.add(e.rules)
            assert [x.label for x in e.entrants] == LINEUP and e.seed == 1910 and e.players == 4
    assert presets == {"usa", "usa-1910", "usa-mega", "usa-bigcities"}


def test_sweep_effects_are_paired_differences_over_seed_blocks(tmp_path):
    """2 players rotated (blocks of 2 games), 6 blocks per point. At point 0
    seat 1 wins every game; at point 1 A wins every game: A's win share changes
    by +0.5 on every deal (it won 1 of the block's 2 games, now both), B's by
    -0.5; the interval is zero-width (every block the same)."""
    games = [game([10, 5], point=0) for _ in range(12)]
    games += [game([10, 5] if n % 2 == 0 else [5, 10], point=1) for n in range(12)]   # A is seat n % 2
    path = make_results(tmp_path / "eff", games=games, sweep=[("rules.globetrotter_points", [0, 10])],
                        point_overrides={0: {"globetrotter_points": 0}, 1: {"globetrotter_points": 10}})
    eff = sweep_effects(path)
    assert eff["strategy"].to_list() == ["A", "B"] and eff["blocks"].to_list() == [6, 6]
    assert eff["win_effect"].to_list() == pytest.approx([0.5, -0.5])
    assert eff["win_low"].to_list() == pytest.approx([0.5, -0.5])
    assert eff["score_effect"].to_list() == pytest.approx([2.5, -2.5])   # A: 10 and 5 -> 10 and 10 (per game 2.5)
    assert eff["win_p_holm"].to_list() == pytest.approx([0.0, 0.0], abs=1e-12)
    rep = build_report(path, resamples=20, progress=False, images=(), formats=("md",))
    findings = rep.markdown.read_text()
    findings = findings[findings.index("## Key findings"):findings.index("## Strategy comparison")]
    assert ("**Largest effect of the sweep**: from point 0: globetrotter_points=0 to point 1: "
            "globetrotter_points=10, `A`'s win rate changes by +50.0 pp [+50.0, +50.0] on the same deals") in findings
