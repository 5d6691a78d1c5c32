"""``intervene:`` in an experiment (issue 32 section 1, docs/experiments.md
"Interventions"): one change, one arm per value, every arm on the control's
deals (common random numbers); the effects are paired differences per deal
with an interval over the seed blocks, and the report calls them effects.
A planted selection effect shows in the association table of the ticket
lift and not in the intervention study."""
import json

import numpy as np
import polars as pl
import pytest

from ttrsim.experiment.config import load_experiment
from ttrsim.experiment.runner import run_experiment
from ttrsim.report.document import build_report
from ttrsim.results.effects import OFFERED, arm_pairs, format_effects, paired_effects
from ttrsim.results.reader import Results
from ttrsim.results.stats import mean_interval

from helpers import game, make_results

BASE = {"name": "iv", "rules": "usa", "players": 2, "lineup": ["long_route", "random"], "games": 24, "seed": 5,
        "workers": 1}


def test_arms_expand_into_points_after_the_sweep_with_the_control_first():
    e = load_experiment({**BASE, "sweep": {"rules.globetrotter_points": [0, 10]},
                         "intervene": {"rules.first_seat": [1]}})
    assert [p.values for p in e.points] == [
        {"rules.globetrotter_points": 0, "arm": "control"}, {"rules.globetrotter_points": 0, "arm": "first_seat=1"},
        {"rules.globetrotter_points": 10, "arm": "control"}, {"rules.globetrotter_points": 10, "arm": "first_seat=1"}]
    assert [p.rule_overrides.get("first_seat") for p in e.points] == [None, 1, None, 1]
    cfg = e.config()
    assert cfg["intervene"]["arms"] == {"control": [], "first_seat=1": [["rules.first_seat", 1]]}
    assert "intervene" not in load_experiment(BASE).config()        # old folders keep their identity


def test_a_strategy_parameter_arm_changes_that_entrant_only():
    e = load_experiment({**BASE, "intervene": {"strategies.long_route.min_len": [4]}})
    assert [p.values["arm"] for p in e.points] == ["control", "long_route.min_len=4"]
    assert e.points[1].entrant_params[0] == {"min_len": 4.0} and e.points[1].entrant_params[1] == {}


def test_the_control_plays_exactly_the_games_of_the_experiment_without_the_intervention(tmp_path):
    iv = run_experiment({**BASE, "intervene": {"rules.first_seat": [1]}}, output=tmp_path / "iv", progress=False,
                        echo=False)
    plain = run_experiment(BASE, output=tmp_path / "plain", progress=False, echo=False)
    a, b = Results.open(iv.path), Results.open(plain.path)
    cols = ["seat", "strategy", "total", "tickets_completed", "win_share"]
    ctrl = a.scan("players").filter(pl.col("point") == 0).select(cols).collect()
    assert ctrl.equals(b.scan("players").select(cols).collect())
    # the arm plays the same deals (seeds) and seatings, and the change shows in who starts
    g = a.table("games") if hasattr(a, "table") else a.scan("games").collect()
    per = {p: g.filter(pl.col("point") == p).sort("game") for p in (0, 1)}
    assert per[0]["seed"].to_list() == per[1]["seed"].to_list()
    assert per[0]["seating"].to_list() == per[1]["seating"].to_list()
    assert arm_pairs(a) == [(1, 0, "first_seat=1")]
    assert "effects (paired" in iv.summary_text and "first_seat=1" in iv.summary_text


def test_mean_interval_is_the_block_variance_of_a_paired_difference():
    num, den = np.array([2.0, -1.0, 3.0, 0.0]), np.full(4, 10.0)
    m, lo, hi, p = mean_interval(num, den)
    per_block = num / den                 # equal blocks: the normal interval of the block means
    se = per_block.std(ddof=1) / np.sqrt(4)
    assert m == pytest.approx(0.1) and (lo, hi) == pytest.approx((0.1 - 1.959964 * se, 0.1 + 1.959964 * se))
    assert mean_interval(np.array([1.0]), np.array([2.0]))[1] == -np.inf         # one block: no interval


OFFER = {1: {"offer_ticket": "Boston-Miami", "offer_seat": 0}}      # the arm's rules (R9.1)


def _offer_study(tmp_path, blocks=40):
    """2 players rotated (blocks of 2 games: A in seat 0, then B). In the control, seat 0 is dealt
    Boston-Miami (ticket 0) in the first game of every other block, keeps it, and wins that game:
    the deals that bring the ticket are the deals seat 0 wins (selection). In the arm, seat 0 is
    offered it in every game and keeps it, and every game ends as in the control: the offer
    changes nothing."""
    games, tickets = [], []
    for point in (0, 1):
        for n in range(2 * blocks):
            lucky = n % 4 == 0                                   # first game of every other block
            games.append(game([20, 10] if lucky else [10, 10 + (n % 3)], point=point))
            g = len(games) - 1
            if lucky or point == 1:
                tickets.append({"g": g, "seat": 0, "ticket": 0, "kept": True, "completed": lucky})
            else:
                tickets.append({"g": g, "seat": 0, "ticket": 1, "kept": True, "completed": False})
            tickets.append({"g": g, "seat": 1, "ticket": 2, "kept": True, "completed": True})
    iv = {"kind": "offer_ticket", "key": "offer_ticket", "seat": 0, "kept": True,
          "arms": {"control": [], "offer Boston-Miami": [["rules.offer_ticket", "Boston-Miami"]]}}
    return make_results(tmp_path / "offer", games=games, tickets=tickets, intervene=iv,
                        sweep=[("arm", ["control", "offer Boston-Miami"])], point_overrides=OFFER)


def test_a_planted_selection_effect_is_an_association_and_not_an_effect(tmp_path):
    path = _offer_study(tmp_path)
    eff = paired_effects(path)
    seat = eff.filter((pl.col("unit") == OFFERED) & (pl.col("measure") == "win_share")).row(0, named=True)
    assert seat["effect"] == pytest.approx(0.0) and seat["p_holm"] == pytest.approx(1.0)
    assert seat["blocks"] == 40 and seat["games"] == 80
    rep = build_report(path, resamples=20, progress=False, images=(), formats=("md",))
    md = rep.markdown.read_text()
    findings = md[md.index("## Key findings"):md.index("## The experiment")]
    assert "**No ticket stands out**" in findings and "over the 1 ticket offered" in findings
    # the association table of the control names the ticket: its keepers win far above their usual rate
    control = [x for x in findings.splitlines() if "point 0" in x and "Boston - Miami" in x]
    assert control and "most above, **Boston - Miami**" in control[0] and "an association" in control[0]
    assert "## Intervention effects" in md and "**effects** of the change" in md


def test_a_planted_effect_of_an_offer_is_found_with_its_interval(tmp_path):
    """Seat 0 wins every arm game it lost in the control: +0.5 win share a game on average (it won
    half of them), on every block, so the interval is narrow and Holm keeps it."""
    games, tickets = [], []
    for point in (0, 1):
        for n in range(40):
            won = point == 1 or n % 2 == 0
            games.append(game([20, 10] if won else [10, 20], point=point))
            tickets.append({"g": len(games) - 1, "seat": 0, "ticket": 0, "kept": point == 1,
                            "completed": point == 1})
    iv = {"kind": "offer_ticket", "key": "offer_ticket", "seat": 0, "kept": False,
          "arms": {"control": [], "offer Boston-Miami": [["rules.offer_ticket", "Boston-Miami"]]}}
    path = make_results(tmp_path / "eff", games=games, tickets=tickets, intervene=iv,
                        sweep=[("arm", ["control", "offer Boston-Miami"])], point_overrides=OFFER)
    eff = paired_effects(path)
    win = eff.filter((pl.col("unit") == OFFERED) & (pl.col("measure") == "win_share")).row(0, named=True)
    score = eff.filter((pl.col("unit") == OFFERED) & (pl.col("measure") == "total")).row(0, named=True)
    assert win["effect"] == pytest.approx(0.5) and win["low"] == pytest.approx(0.5)   # every block +0.5
    assert score["effect"] == pytest.approx(5.0)
    text = format_effects(eff)
    assert "offer Boston-Miami: offered seat: win share +50.0 pp" in text and "holds" in text
    md = build_report(path, resamples=20, progress=False, images=(), formats=("md",)).markdown.read_text()
    assert "**Tickets priced off their value** (1 of the 1 ticket offered" in md and "Boston-Miami (+5.0 points)" in md
    tv = pl.read_csv(path / "report" / "tables" / "ticket_offers.csv")
    assert tv["kept"].to_list() == [1.0] and tv["control_kept"].to_list() == [0.0]


def test_every_arm_is_paired_with_the_control_of_its_own_sweep_point(tmp_path):
    """Two sweep values x (control, arm): the arm of value 10 is compared with the control of value 10."""
    games = []
    for point, base in ((0, 10), (1, 12), (2, 30), (3, 33)):
        games += [game([base, 5], point=point) for _ in range(4)]
    iv = {"kind": "rules", "key": "rules.first_seat", "seat": None, "kept": None,
          "arms": {"control": [], "first_seat=1": [["rules.first_seat", 1]]}}
    path = make_results(tmp_path / "grid", games=games, intervene=iv,
                        sweep=[("rules.globetrotter_points", [0, 10]), ("arm", ["control", "first_seat=1"])])
    assert arm_pairs(path) == [(1, 0, "first_seat=1"), (3, 2, "first_seat=1")]
    eff = paired_effects(path).filter((pl.col("unit") == "seat 1") & (pl.col("measure") == "total"))
    assert eff["effect"].to_list() == pytest.approx([2.0, 3.0])
    rec = json.loads((path / "manifest.json").read_text())["config"]["intervene"]
    assert rec["key"] == "rules.first_seat"


def test_offer_ticket_all_is_one_arm_per_ticket_of_the_draw_piles():
    e = load_experiment({**BASE, "intervene": {"offer_ticket": "all", "seat": 1, "kept": True}})
    arms = [p.values["arm"] for p in e.points]
    assert arms[0] == "control" and len(arms) == 31 and arms[1] == "offer Boston-Miami"     # usa: 30 tickets
    assert e.points[1].rule_overrides == {"offer_ticket": "Boston-Miami", "offer_seat": 1, "offer_kept": True}
    e = load_experiment({**BASE, "intervene": {"remove_route": ["Atlanta-Nashville", "Denver-Omaha (4 pink)"]}})
    assert [p.rule_overrides.get("remove_routes") for p in e.points] == [None, ["Atlanta-Nashville"],
                                                                        ["Denver-Omaha (4 pink)"]]
    e = load_experiment({**BASE, "intervene": {"change_route": ["Atlanta-Nashville -> 2 red"]}})
    assert e.points[1].values["arm"] == "change Atlanta-Nashville -> 2 red"
    assert e.points[1].rule_overrides == {"change_routes": ["Atlanta-Nashville -> 2 red"]}


@pytest.mark.parametrize("change,expect", [
    ({"offer_ticket": ["Boston-Nowhere"]}, "intervene.offer_ticket: rule parameter 'offer_ticket' is "
                                           "'Boston-Nowhere'"),
    ({"remove_route": ["Atlanta-Raleigh"]}, "intervene.remove_routes: rule parameter 'remove_routes': "
                                            "'Atlanta-Raleigh' is one of 2 tracks"),
    ({"offer_ticket": [3]}, "intervene.offer_ticket[0]: expected a ticket 'From-To'"),
])
def test_a_bad_ticket_or_route_is_one_line_naming_the_field(change, expect):
    with pytest.raises(ValueError) as e:
        load_experiment({**BASE, "intervene": change})
    assert str(e.value).startswith("<dict>: " + expect) and "\n" not in str(e.value)


def test_an_offer_arm_gives_the_seat_the_ticket_on_every_deal_and_changes_nothing_else_before_play(tmp_path):
    """R9.1 through an experiment: in the arm, seat 2 (0-based 1) has Seattle-New York in its setup
    offer in every game; the other seat's offer differs from the control's in at most the one ticket
    that was swapped."""
    r = run_experiment({**BASE, "intervene": {"offer_ticket": ["Seattle-New York"], "seat": 1}},
                       output=tmp_path / "offer", progress=False, echo=False)
    res = Results.open(r.path)
    t = res.scan("tickets").filter(pl.col("setup")).collect()
    tk = int(res.map.ticket_names(["base"])["Seattle-New York"])
    arm = t.filter(pl.col("point") == 1)
    assert arm.filter((pl.col("seat") == 1) & (pl.col("ticket") == tk)).height == res.games_by_point["games"][1]
    stride = int(res.manifest["layout"]["stride"])
    offers = {p: {(g - p * stride, s): set() for g, s in t.filter(pl.col("point") == p).select("game", "seat").rows()}
              for p in (0, 1)}
    for p, g, s, x in t.select("point", "game", "seat", "ticket").rows():
        offers[p][(g - p * stride, s)].add(x)
    for key, ctrl in offers[0].items():
        assert len(ctrl ^ offers[1][key]) <= 2, key


def test_an_arm_setting_a_python_strategy_argument_to_its_default_changes_nothing():
    """The control and the arm compare every constructor argument with its default filled in."""
    lineup = [{"python": "ttrsim.strategies.python_example:GreedyLongest", "label": "py"}, "random"]
    with pytest.raises(ValueError, match="the arm 'py.min_length=1' changes nothing"):
        load_experiment({**BASE, "lineup": lineup, "intervene": {"strategies.py.min_length": [1]}})
    e = load_experiment({**BASE, "lineup": lineup, "intervene": {"strategies.py.min_length": [2]}})
    assert e.points[1].entrant_params[0] == {"min_length": 2}
