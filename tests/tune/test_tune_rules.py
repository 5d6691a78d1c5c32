"""Rule tunes (``ttrsim tune`` with ``fit_rules``, docs/tune.md "Tuning a
rule"): the search finds a planted root within the tolerance and says so
when the range holds none, never exceeds its budget, stops a value as soon
as its interval decides it; on real games every value plays the same deals
(common random numbers), the same tune gives the same files (on two workers,
resumed, after an interrupt), and bad rule tune files are one line each
(tests/fixtures/bad_tunes/rules_*.yaml, checked with the rest of the catalogue by
tests/tune/test_tune.py). With ``refit`` the entrant is re-fitted at every value
played, its parameters are the ones seated there, the re-fits count inside
the budget, and the same tune (again, fresh, or after an interrupt) gives the
same files.

The planted response is a line through a known root plus per-block noise
shared by every value (the deal's luck: common random numbers) and noise of
each value's own, about the size of a 4-player win-rate difference (a block's
standard deviation 0.3); no game is played for it."""
import csv
import json
import signal

import numpy as np
import polars as pl
import pytest
import yaml
from click.testing import CliRunner

import ttrsim.tune.rule_config
import ttrsim.tune.rule_search
import ttrsim.tune.run
from ttrsim.cli import main
from ttrsim.experiment.runner import run_experiment
from ttrsim.experiment.signals import Interrupted
from ttrsim.results.reader import Results
from ttrsim.tune import load_tune, tune
from ttrsim.tune.rule_search import ADJACENT, BUDGET, MET, ONE_SIDE, RuleSearch, look_of, next_value, schedule

GLOBETROTTER = {"name": "planted", "rules": "usa-mega", "players": 4,
                "lineup": ["planner_tickets", "planner_routes", "planner", "planner"],
                "fit_rules": {"globetrotter_points": [0, 80]},
                "target": {"equal": ["planner_tickets", "planner_routes"]}, "tolerance": 0.01, "budget": 100_000}


def planted(root, slope=0.001, sd=0.3, seed=0, **keys):
    """A :class:`RuleSearch` over the response ``slope * (value - root)`` (no games played)."""
    cfg = load_tune({**GLOBETROTTER, "seed": seed, **keys})
    blocks = cfg.max_games // cfg.players
    common = np.random.default_rng(seed).normal(0, 0.8 * sd, blocks)

    def evaluate(value, games):
        own = np.random.default_rng([seed, value]).normal(0, 0.6 * sd, blocks)
        return look_of((slope * (value - root) + common + own)[:games // cfg.players], cfg.players)
    return cfg, RuleSearch(cfg, evaluate)


# --------------------------------------------------------------------------- the method, on a planted response


@pytest.mark.parametrize("root", [5, 37, 40.5, 79])
def test_a_planted_root_is_met_within_the_tolerance(root):
    cfg, s = planted(root)
    chosen, why = s.run()
    assert why == MET and chosen["verdict"] == "met"
    assert abs(0.001 * (chosen["value"] - root)) <= cfg.tolerance          # the true quantity there
    assert chosen["low"] >= -cfg.tolerance and chosen["high"] <= cfg.tolerance
    assert [e["value"] for e in s.evaluations][:2] == [0, 80]             # both ends first
    assert s.games == sum(e["games"] for e in s.evaluations) <= cfg.budget


@pytest.mark.parametrize("root,end", [(120, 80), (-40, 0)])
def test_a_target_outside_the_range_is_reported_with_the_closest_end(root, end):
    cfg, s = planted(root, slope=0.002)
    chosen, why = s.run()
    assert why == ONE_SIDE and chosen["value"] == end and chosen["verdict"] != "met"
    assert [e["value"] for e in s.evaluations] == [0, 80]


def test_an_integer_step_wider_than_the_tolerance_closes_the_bracket_unmet():
    cfg, s = planted(40.5, slope=0.05, fit_rules={"globetrotter_points": [0, 80]})   # 5 points a step
    chosen, why = s.run()
    assert why == ADJACENT and chosen["value"] in (40, 41) and chosen["verdict"] != "met"
    values = sorted(e["value"] for e in s.evaluations)
    assert {40, 41} <= set(values)


@pytest.mark.parametrize("seed", range(6))
def test_the_budget_is_never_exceeded(seed):
    rng = np.random.default_rng(seed)
    budget = int(rng.integers(800, 40_000))
    cfg, s = planted(float(rng.uniform(-20, 100)), seed=seed, budget=budget,
                     max_games=int(rng.integers(400, budget // 2 + 1)))
    chosen, why = s.run()
    assert s.games == sum(e["games"] for e in s.evaluations) <= budget
    assert all(e["games"] % cfg.players == 0 for e in s.evaluations)
    if why == BUDGET:       # the budget could not pay another first look
        assert budget - s.games < cfg.min_games


def test_a_value_stops_at_the_first_look_that_decides_it():
    cfg, s = planted(37, budget=300_000, max_games=25_000)     # no look cut short by the budget
    s.run()
    far = s.evaluations[0]                       # the end at 0: 3.7 points below, decided at once
    assert far["verdict"] == "below" and far["games"] < cfg.max_games
    for e in s.evaluations:
        assert [x["games"] for x in e["looks"]] == schedule(cfg)[:len(e["looks"])]
        assert all(x["verdict"] == "more" for x in e["looks"][:-1])         # every earlier look undecided
        assert e["looks"][-1]["verdict"] == e["verdict"]
    assert schedule(cfg) == [400, 800, 1600, 3200, 6400, 12800, 25000]


def test_the_same_seed_gives_the_same_trace():
    runs = [planted(37, seed=4)[1] for _ in range(2)]
    traces = [(s.run(), s.evaluations) for s in runs]
    assert traces[0] == traces[1]


def test_next_value_stays_in_the_middle_half_of_the_bracket():
    rng = np.random.default_rng(0)
    for _ in range(500):
        a = int(rng.integers(0, 100))
        b = a + int(rng.integers(2, 100))
        x = next_value(a, -float(rng.exponential()), b, float(rng.exponential()))
        assert a < x < b and a + (b - a) / 4 - 0.5 <= x <= b - (b - a) / 4 + 0.5


# --------------------------------------------------------------------------- real games (2 players, tiny)

# planner against long_route at 2-player USA: planner's win rate grows with what a ticket scores, about 69% at 0%
# and 75% at 100% of the printed points; 800 games are too few to meet the target, enough for the ends and five
# values between them
TINY = {"name": "tiny_rule", "rules": "usa", "players": 2, "lineup": ["planner", "long_route"],
        "fit_rules": {"ticket_points_percent": [0, 100]}, "target": {"win_rate": {"planner": 0.76}},
        "tolerance": 0.05, "budget": 800, "min_games": 40, "max_games": 160, "seed": 3, "workers": 1}


def record(folder):
    rec = json.loads((folder / "tune.json").read_text())
    rec.pop("execution")
    return rec


def files(folder) -> dict:
    return {"tune.json": record(folder), **{n: (folder / n).read_text() for n in ("trace.csv", "best.yaml",
                                                                               "report.md")}}


def cut_and_resume(cfg, out, tmp_path, monkeypatch, stop):
    """Run the tune ``cfg`` into tmp_path/cut with a SIGINT raised at the first experiment where
    ``stop(outputs so far)`` holds, then resume it: it must say interrupted, play fewer games than in
    all, and end with the files of the uninterrupted tune in ``out``."""
    calls = []

    def stopping(exp, **kw):
        calls.append(exp["output"])
        if stop(calls):
            raise Interrupted(signal.SIGINT)
        return run_experiment(exp, **kw)

    monkeypatch.setattr(ttrsim.tune.run, "run_experiment", stopping)
    with pytest.raises(Interrupted):
        tune(cfg, output=tmp_path / "cut", echo=False)
    assert record(tmp_path / "cut")["status"] == "interrupted"
    monkeypatch.undo()
    resumed = tune(cfg, output=tmp_path / "cut", echo=False)
    assert resumed.games_run < resumed.games and files(tmp_path / "cut") == files(out)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("rules") / "tiny"
    return tune(TINY, output=out, echo=False), out


def test_a_rule_tune_writes_its_folder(tiny):
    result, out = tiny
    rec = result.record
    assert result.status == "complete" and rec["kind"] == "rules"
    assert result.games == rec["games"] == sum(e["games"] for e in rec["evaluations"]) <= TINY["budget"]
    assert result.best == {"ticket_points_percent": rec["chosen"]["value"]}
    assert result.final == rec["chosen"] and set(result.final) >= {"value", "games", "estimate", "low", "high", "met"}
    assert {p.name for p in out.iterdir()} >= {"tune.json", "trace.csv", "best.yaml", "report.md", "search.png",
                                                 "evals"}
    assert sorted(p.name for p in (out / "evals").iterdir()) == sorted(
        f"ticket_points_percent-{e['value']}" for e in rec["evaluations"])
    rows = list(csv.DictReader((out / "trace.csv").open()))
    assert len(rows) == sum(len(e["looks"]) for e in rec["evaluations"])
    assert sum(int(r["chosen"]) for r in rows) == 1
    assert yaml.safe_load((out / "best.yaml").read_text()) == result.best
    report = (out / "report.md").read_text()
    assert "## The search" in report and "(search.png)" in report and "not re-tuned" in report
    assert (out / "search.png").read_bytes()[:4] == b"\x89PNG"


def test_every_value_plays_the_same_deals(tiny):
    """Common random numbers: the same seed per seed block at every value, and the same seat rotations."""
    _, out = tiny
    folders = sorted((out / "evals").iterdir())
    assert len(folders) >= 2
    games = [Results.open(f).scan("games").select("game", "block", "seating", "seed").sort("game").collect()
             for f in folders]
    n = min(g.height for g in games)
    assert n >= TINY["min_games"]
    for g in games[1:]:
        assert g.head(n).equals(games[0].head(n))
    assert games[0]["seed"].n_unique() == games[0]["block"].n_unique()     # one deal per block


def test_the_same_tune_on_two_workers_gives_the_same_files(tiny, tmp_path):
    _, out = tiny
    again = tune(TINY, output=tmp_path / "two", workers=2, echo=False)
    assert again.status == "complete" and files(tmp_path / "two") == files(out)


def test_running_again_resumes_with_nothing_to_play(tiny):
    _, out = tiny
    before = files(out)
    again = tune(TINY, output=out, echo=False)
    assert again.games_run == 0 and files(out) == before


def test_an_interrupted_rule_tune_resumes_to_the_uninterrupted_result(tiny, tmp_path, monkeypatch):
    _, out = tiny
    cut_and_resume(TINY, out, tmp_path, monkeypatch, lambda calls: len(calls) == 3)


def test_a_changed_rule_tune_is_refused(tiny):
    _, out = tiny
    with pytest.raises(ttrsim.tune.TuneError) as e:
        tune({**TINY, "tolerance": 0.1}, output=out, echo=False)
    assert str(e.value).startswith(f"<dict>: tolerance: {out} holds another tune (tolerance was 0.05, now 0.1)")


def test_the_seat_advantage_target_reads_the_seat_that_plays_first(tmp_path):
    cfg = load_tune({**TINY, "target": {"seat_advantage": 0}, "fit_rules": {"first_seat": [0, 1]}})
    run_experiment({"name": "s", "rules": "usa", "players": 2, "lineup": ["planner", "long_route"], "games": 40,
                    "seed": 3, "workers": 1, "rule_overrides": {"first_seat": 1}, "output": str(tmp_path / "s")},
                   progress=False, echo=False)
    q = ttrsim.tune.rule_search.block_quantity(tmp_path / "s", cfg, 1, 20)
    seat1 = (Results.open(tmp_path / "s").scan("players").filter(pl.col("seat") == 1)
             .group_by("block").agg(pl.col("win_share").cast(pl.Float64).mean()).sort("block").collect())
    assert np.allclose(q, seat1["win_share"].to_numpy() - 0.5)


# --------------------------------------------------------------------------- the command line


def test_cli_prints_the_chosen_value_and_the_target_there(tiny, tmp_path):
    result, out = tiny
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(TINY))
    r = CliRunner().invoke(main, ["tune", str(tmp_path / "t.yaml"), "--output", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    value = result.final["value"]
    assert f"chosen: ticket_points_percent {value}   (target planner win rate = 76.0% +- 5.0 pp: " in r.output
    assert f"at ticket_points_percent {value}: planner win rate " in r.output
    j = CliRunner().invoke(main, ["tune", str(tmp_path / "t.yaml"), "--output", str(out), "--json"])
    doc = json.loads(j.output)
    assert j.exit_code == 0 and doc["best"] == result.best and doc["final"] == result.final
    assert [e["value"] for e in doc["evaluations"]] == [e["value"] for e in result.record["evaluations"]]


def test_the_catalogue_covers_the_rule_tune_fields():
    from test_tune import FILES
    names = {f.stem for f in FILES}
    for kind in ("fit_rules_missing", "fit_rules_unknown", "fit_rules_two", "fit_rules_not_integer",
                 "fit_rules_float", "fit_rules_reversed", "fit_rules_outside_range", "fit_rules_in_overrides",
                 "fit_rules_cannot_deal", "target_missing", "target_unknown", "target_label", "target_same_label",
                 "target_win_rate_range", "target_seat_advantage_text", "target_two", "tolerance_zero",
                 "budget_too_small", "max_games_below_min", "unknown_key", "with_fit", "python_strategy",
                 "lineup_missing", "lineup_count", "lineup_unknown_strategy"):
        assert f"rules_{kind}" in names


def test_a_rule_tune_file_given_to_run_says_so_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["run", "tune_globetrotter", "--no-progress"])
    assert r.exit_code == 1 and r.output.strip() == (
        "Error: tune_globetrotter.yaml: fit_rules: this is a rule tune file (fit_rules, target); expected an "
        "experiment (lineup, games): run it with ttrsim tune FILE")
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- re-fitted play (refit)

# long_route re-fitted (min_len, 2..6) at every value by a one-stage strategy tune of 80 games at most
REFIT = {**TINY, "name": "tiny_refit", "budget": 700,
         "refit": {"label": "long_route", "fit": {"min_len": [2, 6]}, "budget": 80, "candidates": 2, "stages": 1,
                   "final_games": 20}}


def seated(out, value) -> dict:
    """The params of every seat label in the evaluation of ``value`` (its manifest)."""
    manifest = json.loads((out / "evals" / f"ticket_points_percent-{value}" / "manifest.json").read_text())
    return {e["label"]: e.get("params") or {} for e in manifest["config"]["entrants"]}


@pytest.fixture(scope="module")
def refitted(tmp_path_factory):
    out = tmp_path_factory.mktemp("refit") / "tiny"
    return tune(REFIT, output=out, echo=False), out


def test_refit_runs_at_every_value_and_its_parameters_are_seated(refitted):
    result, out = refitted
    rec = result.record
    evals = rec["evaluations"]
    assert len(evals) >= 2
    assert sorted(p.name for p in (out / "refit").iterdir()) == sorted(
        f"ticket_points_percent-{e['value']}" for e in evals)
    for e in evals:
        fit = e["refit"]["long_route"]
        inner = json.loads((out / "refit" / f"ticket_points_percent-{e['value']}" / "long_route" / "tune.json")
                           .read_text())
        assert inner["config"]["rule_overrides"] == {"ticket_points_percent": e["value"]}
        assert fit["games"] == inner["games"] <= 80 and fit["params"] == {"min_len": inner["incumbent"]["min_len"]}
        assert seated(out, e["value"])["long_route"]["min_len"] == fit["params"]["min_len"]
    # the games: evaluations and re-fits counted apart, both inside the budget
    refit_games = sum(e["refit"]["long_route"]["games"] for e in evals)
    assert rec["refit_games"] == refit_games
    assert result.games == rec["games"] == refit_games + sum(e["games"] for e in evals) <= REFIT["budget"]
    rows = list(csv.DictReader((out / "trace.csv").open()))
    assert {(int(r["value"]), int(r["long_route.min_len"]), int(r["refit_games"])) for r in rows} == {
        (e["value"], e["refit"]["long_route"]["params"]["min_len"], e["refit"]["long_route"]["games"]) for e in evals}
    report = (out / "report.md").read_text()
    assert "## Re-fitted play" in report and "| ticket_points_percent | refit games | long_route.min_len |" in report


def test_a_refit_tune_is_deterministic_and_resumes(refitted, tmp_path):
    _, out = refitted
    before = files(out)
    again = tune(REFIT, output=out, echo=False)
    assert again.games_run == 0 and files(out) == before
    fresh = tune(REFIT, output=tmp_path / "fresh", echo=False)
    assert files(tmp_path / "fresh") == before and fresh.record["refit_games"] == again.record["refit_games"]


def test_a_refit_tune_interrupted_inside_a_re_fit_resumes_to_the_same_files(refitted, tmp_path, monkeypatch):
    _, out = refitted
    # the first re-fit game after an evaluation's: inside the second re-fit
    cut_and_resume(REFIT, out, tmp_path, monkeypatch,
                   lambda calls: "/refit/" in calls[-1] and any("/refit/" not in c for c in calls))


def test_the_refit_seats_what_the_inner_tuner_returns_and_the_budget_holds(tmp_path, monkeypatch):
    """The inner tuner replaced by one that returns min_len from the value and spends its whole budget."""
    calls, outer = [], ttrsim.tune.run.tune

    def fake_tune(doc, **kw):
        value = doc["rule_overrides"]["ticket_points_percent"]
        calls.append((value, doc["seed"], doc["strategy"], doc["fit"]))
        return ttrsim.tune.run.TuneResult(path=None, status="complete", best={"min_len": 2 + value % 5}, final=None,
                                          games=doc["budget"], games_run=doc["budget"], seconds=0,
                                          record={"stopped": "stable"})
    monkeypatch.setattr(ttrsim.tune.run, "tune", fake_tune)
    doc = {**REFIT, "max_games": 40, "budget": 2 * (80 + 40) + 119}    # both ends, no room for a third value
    rec = outer(doc, output=tmp_path / "t", echo=False).record
    assert [c[0] for c in calls] == [e["value"] for e in rec["evaluations"]] == [0, 100]
    assert len({c[1] for c in calls}) == 2 and all(c[2:] == ("long_route", {"min_len": [2, 6]}) for c in calls)
    for e in rec["evaluations"]:
        assert seated(tmp_path / "t", e["value"])["long_route"]["min_len"] == 2 + e["value"] % 5
        assert seated(tmp_path / "t", e["value"])["planner"] == {}
    assert rec["refit_games"] == 160 and rec["games"] == 240 and rec["stopped"] in (BUDGET, ONE_SIDE)


def test_a_refit_changes_the_config_and_its_seed_follows_the_tune_seed():
    cfg = load_tune(REFIT)
    plain = load_tune(TINY)
    assert "refit" in cfg.config() and "refit" not in plain.config() and cfg.config_hash() != plain.config_hash()
    r = cfg.refit[0]
    assert cfg.refit_tune(r, 40)["seed"] == load_tune(REFIT).refit_tune(r, 40)["seed"]
    assert cfg.refit_tune(r, 40)["seed"] != cfg.refit_tune(r, 41)["seed"] != load_tune(
        {**REFIT, "seed": 4}).refit_tune(r, 41)["seed"]


def test_the_catalogue_covers_the_refit_fields():
    from test_tune import FILES
    names = {f.stem for f in FILES}
    for kind in ("unknown_label", "python_strategy", "unknown_parameter", "reversed", "outside_range",
                 "budget_too_small", "cannot_fit", "unknown_key", "twice"):
        assert f"rules_refit_{kind}" in names
