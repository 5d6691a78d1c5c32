"""``styles:`` in an experiment (issue 31 section 3, docs/experiments.md "Styles"):
every planner seat plays each style in turn (a sweep axis ``style``), the other
seats as they are; the balanced style is the planner itself, so its point plays
the games of the same experiment without styles; the tickets style keeps more
tickets than the routes style on the same deals, and the report says whether
the strongest strategy holds in every style."""
import polars as pl
import pytest

from ttrsim.experiment.runner import run_experiment
from ttrsim.report.document import build_report
from ttrsim.results.reader import Results
from ttrsim.strategies import REGISTRY, STYLES, param_row, style_params

BASE = {"name": "styles", "rules": "usa", "players": 4, "lineup": ["planner", "planner", "route_focus", "long_route"],
        "games": 40, "seed": 11, "workers": 1}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("styles")
    styled = run_experiment({**BASE, "styles": ["routes", "balanced", "tickets"]}, output=root / "styled",
                            progress=False, echo=False)
    plain = run_experiment(BASE, output=root / "plain", progress=False, echo=False)
    return Results.open(styled.path), Results.open(plain.path)


def test_every_style_names_a_registered_planner_profile():
    assert STYLES == {"routes": "planner_routes", "balanced": "planner", "tickets": "planner_tickets"}
    for name in STYLES.values():
        assert [p.name for p in REGISTRY[name].params] == [p.name for p in REGISTRY["planner"].params]


def test_style_params_make_a_planner_seat_play_the_style_exactly():
    for style, name in STYLES.items():
        for preset, n in (("usa", 4), ("usa-mega", 4), ("germany", 2)):
            row = param_row("planner", style_params("planner", style, preset, n), rules=preset, players=n)
            assert row.tolist() == param_row(name, rules=preset, players=n).tolist(), (style, preset, n)
    assert style_params("planner", "balanced", "usa-mega", 4) == {}


def test_the_balanced_point_plays_the_games_of_the_run_without_styles(runs):
    styled, plain = runs
    cols = ["game", "seat", "total", "tickets_completed", "tickets_failed", "trains_left"]
    balanced = styled.scan("players").filter(pl.col("point") == 1).collect()
    other = plain.scan("players").collect()
    assert balanced.height == other.height == 160
    assert (balanced.select(cols[1:]).sort(["seat", "total"]).to_dicts()
            == other.select(cols[1:]).sort(["seat", "total"]).to_dicts())


def test_the_tickets_style_keeps_more_tickets_than_the_routes_style_on_the_same_deals(runs):
    styled, _ = runs
    assert styled.sweep_keys == ["style"]
    kept = (styled.scan("players").filter(pl.col("strategy").cast(pl.String).str.starts_with("planner"))
            .group_by("point").agg((pl.col("tickets_completed") + pl.col("tickets_failed")).mean().alias("kept"))
            .sort("point").collect()["kept"].to_list())
    routes, balanced, tickets = kept
    assert tickets > balanced > routes
    others = (styled.scan("players").filter(pl.col("strategy").cast(pl.String) == "route_focus")
              .group_by("point").agg(pl.len()).collect())
    assert others["len"].to_list() == [40, 40, 40]           # the other seats play in every style


def test_the_report_says_whether_the_strongest_strategy_holds_in_every_style(runs, tmp_path):
    styled, _ = runs
    text = build_report(styled.path, tmp_path / "report", formats=("md",), resamples=10,
                        progress=False).markdown.read_text()
    findings = text.split("## Key findings")[1].split("\n## ")[0]
    assert ("**In every style** (routes, balanced, tickets)" in findings
            or "**The strongest strategy depends on the style**" in findings)
    assert "**Seat advantage across styles**" in findings
