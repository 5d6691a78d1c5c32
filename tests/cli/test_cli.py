"""The ``ttrsim`` command line (click's CliRunner) and the narrator.

``ttrsim play`` must narrate exactly the game ``ttrsim.play.loop.play_game``
plays for the seed; the other commands are thin shells over the library whose
errors become one-line messages with exit code 1.
"""
import importlib
import json
import re
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from ttrsim.cli import main
from ttrsim.core.actions import A_BLIND, A_TICKETS, encode_claim, legal_buffer
from ttrsim.core.board import build_board
from ttrsim.core.state import F_TOTAL, allocate_state, copy_state
from ttrsim.data.ids import BLUE, LOCO
from ttrsim.data.maps import MAPS_DIR
from ttrsim.data.rules import get_rules, preset_names
from ttrsim.play.loop import play_game
from ttrsim.play.narrate import Step, narrate_action, narrate_turn, play_narrated
from ttrsim.strategies.kit.memory import allocate_memory

from helpers import put_hand, route_id, setup_game


@pytest.fixture(scope="module")
def runner():
    return CliRunner()


def run(runner, *args):
    return runner.invoke(main, [str(a) for a in args], catch_exceptions=False)


def compiled_totals(rules, n_players, seed, names=("random",)):
    """Final totals of ``play_game`` for ``seed``, strategy ``names`` (one for
    every seat or one per seat) with their default parameters (a strategy's
    fitted set on that rule set and player count: strategies/fitted.py)."""
    from ttrsim import strategies
    names = list(names) * n_players if len(names) == 1 else list(names)
    b = build_board(get_rules(rules))
    s = allocate_state(b, n_players)
    ids = np.array([strategies.STRATEGY_IDS[n] for n in names], np.int64)
    row = getattr(strategies, "param_row", None)
    params = np.array([row(n, rules=rules, players=n_players) for n in names]) if row else np.zeros((n_players, 1))
    play_game(b, s, allocate_memory(b, n_players), seed, ids, params, legal_buffer(b))
    return s.final[:n_players, F_TOTAL].tolist()


def table_totals(output):
    """Totals column of the score table: the last number on each seat row."""
    totals = {}
    for line in output.splitlines():
        m = re.match(r"^\s*(\d)\s+-?\d+\s", line)
        if m and "seat" not in line:
            cells = line.split()
            totals[int(m.group(1))] = int(cells[-2] if cells[-1] == "winner" else cells[-1])
    return [totals[p] for p in sorted(totals)]


# --------------------------------------------------------------------------- play

@pytest.fixture(scope="module")
def germany7(runner):
    res = run(runner, "play", "--rules", "germany", "--players", 4, "--seed", 7)
    assert res.exit_code == 0, res.output
    return res.stdout


def test_play_is_deterministic_for_a_seed(runner, germany7):
    again = run(runner, "play", "--rules", "germany", "--players", 4, "--seed", 7)
    assert again.stdout == germany7
    other = run(runner, "play", "--rules", "germany", "--players", 4, "--seed", 8)
    assert other.exit_code == 0
    assert other.stdout != germany7


def unwrap(text):
    """Lines with the wrapped continuations (indented, not a '*' note) joined back."""
    out = []
    for line in text.splitlines():
        if out and line.startswith("    ") and not line.startswith("    * "):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


def test_play_shows_setup_turns_table_and_end_reason(germany7):
    lines = unwrap(germany7)
    assert lines[0].startswith("Ticket to Ride: germany")
    assert lines[1].startswith("Face-up row: ")
    assert any(line.startswith("Passengers (60): ") for line in lines)
    setup = [line for line in lines if line.startswith("Setup seat ")]
    assert len(setup) == 4 and all("announced" in line and "kept" in line for line in setup)  # R2.3
    turns = [line for line in lines if re.match(r"^T\d+ seat [0-3]: ", line)]
    assert turns[0].startswith("T1 seat 0: ")
    # one line per turn, numbered 1..N without gaps
    assert [int(line.split()[0][1:]) for line in turns] == list(range(1, len(turns) + 1))
    assert any("claimed" in line and "passenger" in line for line in turns)   # R4.6 pick-ups are told
    assert any("drew tickets (" in line and "short" in line and "long" in line for line in turns)
    assert any("last round: seat" in line for line in lines)                   # R6.1
    assert any(line.startswith("Game over after ") for line in lines)
    assert "globe-" in germany7 and "passengers" in germany7 and "total" in germany7
    assert lines[-1].startswith("end: normal after ")
    assert re.search(r"winners?: seat \d", lines[-1])
    assert "winner" in germany7


@pytest.mark.parametrize("rules,n_players,seed", [("germany", 4, 7)] + [
    (r, n, seed) for r, n, seed in zip(preset_names(), (2, 3, 5, 4, 2), (1, 2, 3, 4, 5))])
def test_play_final_totals_equal_play_game(runner, rules, n_players, seed):
    """The narrated game is the compiled game loop's game for that seed."""
    res = run(runner, "play", "--rules", rules, "--players", n_players, "--seed", seed)
    assert res.exit_code == 0, res.output
    want = compiled_totals(rules, n_players, seed)
    assert table_totals(res.stdout) == want
    lines = []
    g = play_narrated(rules, n_players, seed, out=lines.append)
    assert [row["total"] for row in g.result()["seats"]] == want
    assert "\n".join(lines) + "\n" == res.stdout


def test_play_with_every_strategy_equals_play_game(runner):
    """Every registered strategy, one per seat, replayed through the Game API."""
    from ttrsim import strategies
    names = list(strategies.STRATEGY_NAMES)
    for i in range(0, len(names), 4):
        seats = names[i:i + 4]
        if len(seats) == 1:
            seats = seats + ["random"]
        res = run(runner, "play", "--rules", "germany", "--players", len(seats), "--seed", 11 + i,
                  "--strategy", ",".join(seats), "-q")
        assert res.exit_code == 0, res.output
        assert table_totals(res.stdout) == compiled_totals("germany", len(seats), 11 + i, seats)


def test_play_quiet_prints_only_the_final_table(runner, germany7):
    res = run(runner, "play", "--rules", "germany", "--players", 4, "--seed", 7, "--quiet")
    assert res.exit_code == 0
    assert "T1 seat" not in res.stdout and "Setup" not in res.stdout
    assert res.stdout.splitlines()[1].lstrip().startswith("seat")
    assert germany7.endswith(res.stdout)
    assert table_totals(res.stdout) == compiled_totals("germany", 4, 7)


def test_play_per_seat_strategies_and_overrides(runner):
    res = run(runner, "play", "--players", 3, "--seed", 2, "--strategy", "random,random,random",
              "--set", "globetrotter_points=15", "-q")
    assert res.exit_code == 0, res.output
    assert "+15" in res.stdout or "+0" in res.stdout
    assert "unknown strategy 'gredy'; did you mean 'greedy'?" in usage_error(run(runner, "play", "--strategy", "gredy"))


def usage_error(res) -> str:
    """The error line of a usage error (exit code 2), which click prints last."""
    assert res.exit_code == 2, res.output
    return res.output.strip().splitlines()[-1]


def test_unknown_preset_is_a_usage_error_with_a_suggestion(runner):
    for args, where in ((["play", "--rules", "germny"], "'--rules'"), (["rules", "germny"], "'[PRESET]'"),
                        (["fuzz", "--rules", "germny"], "'--rules'"),
                        (["bench", "--rules", "usa,germny"], "'--rules'")):
        assert usage_error(run(runner, *args)) == \
            f"Error: Invalid value for {where}: unknown rule set 'germny'; did you mean 'germany'?", args


@pytest.mark.parametrize("args", [["play", "--players", 6], ["play", "--players", 1], ["play", "--players", 9],
                                  ["fuzz", "--players", "2,7"], ["bench", "--players", "0"]])
def test_bad_player_count(runner, args):
    """R1.2: 2 to 5 players; out of range is a usage error (exit 2), like click's own."""
    assert "players must be 2 to 5 (R1.2)" in usage_error(run(runner, *args))


def test_players_not_a_number(runner):
    assert "'x' is not a number" in usage_error(run(runner, "fuzz", "--players", "2,x"))


def test_bad_rule_override_is_a_usage_error(runner):
    assert "rule parameter 'trainz' is unknown; did you mean 'trains'?" in \
        usage_error(run(runner, "play", "--set", "trainz=40"))
    assert "expected PARAMETER=VALUE" in usage_error(run(runner, "play", "--set", "trains"))


# --------------------------------------------------------------------------- narration of single actions

def test_narrate_claim_with_passengers():
    """R4.2, R4.4, R4.6: payment, points, trains left and the passengers taken."""
    g = setup_game("germany", 2, seed=3)
    p = g.player
    r = route_id(g, "Berlin", "Leipzig")
    length = int(g.board.route_len[r])
    colour = int(g.board.route_colour[r])
    pay = BLUE if colour == 8 else colour
    put_hand(g, p, {pay: length - 1, LOCO: 1})
    steps = []
    a = encode_claim(r, pay, 1)
    before = copy_state(g.state)
    g.apply(a)
    steps.append(Step(before, a, copy_state(g.state)))
    while g.phase == "passenger":
        before = copy_state(g.state)
        a = g.legal_actions()[0]
        g.apply(a)
        steps.append(Step(before, a, copy_state(g.state)))
    line = narrate_turn(g, steps)[0]
    assert line.startswith(f"T1 seat {p}: claimed {g.map.route_label(r)} with ")
    assert f"{length - 1} " in line and "+ 1 locomotive," in line
    assert f"{int(g.board.route_points[r])} points" in line
    assert f"{45 - length} trains left" in line
    taken = int(steps[0].before.pass_loc.sum() - g.state.pass_loc.sum())
    assert line.count("(Berlin)") + line.count("(Leipzig)") == taken


def test_narrate_card_draws_and_ticket_draw():
    """R3.1 and R5.1 phrases."""
    g = setup_game("usa", 2, seed=5)
    before = copy_state(g.state)
    g.apply(A_BLIND)
    after = copy_state(g.state)
    text = narrate_action(g, before, after, A_BLIND)
    gained = int(np.flatnonzero(after.hand[0] - before.hand[0])[0])
    from ttrsim.data.ids import CARD_NAMES
    assert text == f"blind {CARD_NAMES[gained]}"
    slot = 0
    card = CARD_NAMES[g.state.faceup[slot]]
    before = copy_state(g.state)
    g.apply(slot)
    assert narrate_action(g, before, copy_state(g.state), slot) == f"{card} (face-up)"
    # seat 1 draws tickets and keeps the first
    steps = []
    for a in (A_TICKETS + 3, None):
        a = a if a is not None else g.legal_actions()[0]
        before = copy_state(g.state)
        g.apply(a)
        steps.append(Step(before, a, copy_state(g.state)))
    line = narrate_turn(g, steps)[0]
    assert line.startswith("T2 seat 1: drew tickets (3), kept ")
    assert "returned" in line


# --------------------------------------------------------------------------- rules and maps

def test_rules_lists_presets_and_parameters(runner):
    res = run(runner, "rules")
    assert res.exit_code == 0
    for name in preset_names():
        assert f"  {name} " in res.output
    assert "[choice]" in res.output and "max_loco_resets" in res.output and "R3.4" in res.output


def test_rules_preset_full_list(runner):
    res = run(runner, "rules", "germany")
    assert res.exit_code == 0
    rows = {line.split()[0]: line for line in res.output.splitlines()[3:] if line.startswith("  ")
            and not line.startswith("  (")}
    assert set(rows) == set(get_rules("germany").params())
    assert "20 *" in rows["passenger_first"] and "R6.7" in rows["passenger_first"]
    assert "[choice]" in rows["max_turns"]


def test_R2_2_R6_8_rules_europe_lists_the_printed_readings(runner):
    """``ttrsim rules europe`` shows issue 36's parameters with their rule
    ids: the setup returns to the box (R2.2) and the printed tie-break
    order (R6.8, a [choice]); both differ from the default."""
    res = run(runner, "rules", "europe")
    assert res.exit_code == 0
    rows = {line.split()[0]: line for line in res.output.splitlines()[3:] if line.startswith("  ")
            and not line.startswith("  (")}
    assert "box *" in rows["setup_return"] and "R2.2" in rows["setup_return"]
    assert "tickets,stations,longest_bonus *" in rows["tiebreaks"] and "R6.8" in rows["tiebreaks"]
    assert "[choice]" in rows["tiebreaks"] and "stations_built" in rows["tiebreaks"]


def test_rules_json(runner):
    data = json.loads(run(runner, "rules", "--json").stdout)
    assert [p["name"] for p in data["presets"]] == preset_names()
    assert {p["name"] for p in data["parameters"]} >= {"trains", "globetrotter_points"}
    assert all({"rule", "description", "choice", "default"} <= set(p) for p in data["parameters"])
    one = json.loads(run(runner, "rules", "usa-mega", "--json").stdout)
    values = {p["name"]: p["value"] for p in one["parameters"]}
    assert values["setup_deal"] == 5 and values["globetrotter_points"] == 10
    assert values == json.loads(json.dumps(get_rules("usa-mega").params()))


def test_maps_text_and_json(runner):
    """R1.3 counts as the command reports them."""
    res = run(runner, "maps")
    assert res.exit_code == 0
    assert re.search(r"germany\s+35\s+5\s+110\s+313\s+21\s+2\s", res.output)
    assert re.search(r"usa\s+36\s+0\s+100\s+309\s+22\s+0\s", res.output)
    data = {m["name"]: m for m in json.loads(run(runner, "maps", "--json").stdout)}
    assert data["germany"]["passengers"] == 60
    assert data["germany"]["tickets_by_tag"] == {"long": 34, "short": 55}
    assert data["usa"]["tickets_by_tag"]["base"] == 30
    assert data["usa"]["double"] == 22 and data["usa"]["spaces"] == 309


# --------------------------------------------------------------------------- validate-map

def test_validate_good_map(runner, tmp_path):
    path = tmp_path / "my_usa.yaml"
    shutil.copy(MAPS_DIR / "usa.yaml", path)
    res = run(runner, "validate-map", path)
    assert res.exit_code == 0, res.output
    assert res.output.startswith(f"{path}: ok (100 routes, 99 tickets")


def test_validate_bad_map(runner, tmp_path):
    text = (MAPS_DIR / "usa.yaml").read_text(encoding="utf-8")
    first_route = re.search(r"^\s*- \[([^,\]]+),", text[text.index("routes:"):], re.M).group(1)
    start = text.index("routes:")
    bad = text[:start] + text[start:].replace(f"[{first_route},", "[Atlantis,", 1)
    path = tmp_path / "broken.yaml"
    path.write_text(bad, encoding="utf-8")
    res = run(runner, "validate-map", path)
    assert res.exit_code == 1
    problem = [line for line in res.output.splitlines() if line.startswith("broken.yaml: routes[0]")]
    assert len(problem) == 1 and "Atlantis" in problem[0]
    assert res.output.splitlines()[-1] == f"Error: {path}: invalid map (1 problem)"


def test_validate_missing_and_malformed_map(runner, tmp_path):
    res = run(runner, "validate-map", tmp_path / "nope.yaml")
    assert res.exit_code == 1 and "nope.yaml: (file): not found" in res.output
    path = tmp_path / "odd.txt"            # any extension: the argument is always a path
    path.write_text("name: [unclosed\n", encoding="utf-8")
    res = run(runner, "validate-map", path)
    assert res.exit_code == 1 and "odd.txt: line" in res.output and "malformed YAML" in res.output


# --------------------------------------------------------------------------- fuzz and bench (faked)

def optional_module(name):
    try:
        return importlib.import_module(name)
    except ImportError as e:
        pytest.skip(f"{name} is not available yet ({e}); its CLI test needs it")


def test_fuzz_table_json_and_exit_code(runner, monkeypatch):
    fuzz = optional_module("ttrsim.play.fuzz")
    calls = []

    def fake(rules, players, games, seed=0, progress=True, **kw):
        calls.append((rules, players, games, seed, progress))
        return [{"rules": r, "players": p, "games": games, "distinct_deals": games,
                 "violations": 2 if (r, p) == ("usa", 3) else 0,
                 "examples": ["cards not 110: seed 17", "score: seed 18"] if (r, p) == ("usa", 3) else []}
                for r in rules for p in players]

    monkeypatch.setattr(fuzz, "run_fuzz", fake)
    res = run(runner, "fuzz", "--rules", "usa,germany", "--players", "2,3", "--games", 10, "--seed", 5)
    assert calls[0][:4] == (["usa", "germany"], [2, 3], 10, 5)
    assert res.exit_code == 1
    assert "cards not 110: seed 17" in res.output and "score: seed 18" in res.output
    assert res.output.splitlines()[-1] == "fuzz: 40 games (40 distinct deals), 2 violations"
    ok = run(runner, "fuzz", "--rules", "germany", "--players", 4, "--games", 3)
    assert ok.exit_code == 0 and ok.output.splitlines()[-1] == "fuzz: 3 games (3 distinct deals), 0 violations"
    res = run(runner, "fuzz", "--rules", "all", "--players", 2, "--games", 3, "--json")
    data = json.loads(res.stdout)
    assert [d["rules"] for d in data] == preset_names()
    assert all({"rules", "players", "games", "distinct_deals", "violations"} <= set(d) for d in data)
    assert calls[-1][4] is False          # no progress bar in JSON mode


def test_bench_table_and_json(runner, monkeypatch):
    bench = optional_module("ttrsim.play.bench")

    def fake(rules, players, seconds=2.0, strategy="random"):
        return [{"rules": r, "players": p, "strategy": strategy, "games_per_s": 1234.5, "games": 10}
                for r in rules for p in players]

    monkeypatch.setattr(bench, "run_bench", fake)
    res = run(runner, "bench", "--rules", "usa", "--players", "2,4", "--seconds", 0.1)
    assert res.exit_code == 0
    assert re.search(r"usa\s+2\s+random\s+1,234", res.output)
    data = json.loads(run(runner, "bench", "--rules", "germany", "--players", 4, "--json").stdout)
    assert data == [{"rules": "germany", "players": 4, "strategy": "random", "games": 10, "games_per_s": 1234.5}]
    data = json.loads(run(runner, "bench", "--rules", "usa", "--players", 4, "--strategy", "all", "--json").stdout)
    from ttrsim.strategies import STRATEGY_NAMES
    assert [row["strategy"] for row in data] == list(STRATEGY_NAMES)
    assert "did you mean 'planner'" in usage_error(run(runner, "bench", "--strategy", "planer"))


def test_bench_compare_prints_the_ratio(runner, monkeypatch):
    bench = optional_module("ttrsim.play.bench")
    calls = []

    def fake(rev, rules, players, strategies, seconds=1.0, pairs=7, core=None, progress=None):
        calls.append((rev, rules, players, strategies, seconds, pairs, core))
        return [{"rules": r, "players": p, "strategy": st.partition("=")[0], "old_strategy": st.rpartition("=")[2],
                 "pairs": pairs, "seconds": seconds, "core": 1,
                 "old_commit": "abc", "new_commit": "def+", "old_games_per_s": 1000.0, "new_games_per_s": 1800.0,
                 "ratio": 1.8, "ratio_min": 1.7, "ratio_max": 1.9} for st in strategies for r in rules for p in players]

    monkeypatch.setattr(bench, "compare", fake)
    res = run(runner, "bench", "--compare", "main", "--rules", "usa", "--players", "2,4", "--pairs", 3)
    assert res.exit_code == 0 and calls[0] == ("main", ["usa"], [2, 4], ["random"], 2.0, 3, None)
    assert "old abc, new def+" in res.output and re.search(r"usa\s+4\s+random\s+1,000\s+1,800\s+1.800", res.output)
    data = json.loads(run(runner, "bench", "--compare", "HEAD~1", "--players", 4, "--core", 0, "--json").output)
    assert calls[-1][-1] == 0 and data[0]["ratio"] == 1.8
    # a strategy renamed since the old commit: NEW=OLD, only NEW is checked here
    res = run(runner, "bench", "--compare", "9d80728", "--players", 4, "--strategy", "planner_classic=planner,greedy")
    assert calls[-1][3] == ["planner_classic=planner", "greedy"]
    assert re.search(r"planner_classic=planner\s+1,000", res.output) and re.search(r"greedy\s+1,000", res.output)
    assert "did you mean 'planner'" in usage_error(run(runner, "bench", "--compare", "main", "--strategy", "planer=x"))
    assert "NEW=OLD" in usage_error(run(runner, "bench", "--compare", "main", "--strategy", "planner="))
    assert "for --compare only" in usage_error(run(runner, "bench", "--strategy", "planner_classic=planner"))


def test_bench_compare_leaves_out_what_the_old_commit_cannot_run(monkeypatch, tmp_path):
    bench = optional_module("ttrsim.play.bench")

    class FakeWorker:
        def __init__(self, root, core, cwd):
            self.old = bool(root)

        def run(self, job):
            if self.old and job["strategy"] in ("search", "planner_classic"):
                return {"error": f"unknown strategy '{job['strategy']}'"}
            return {"games_per_s": 100.0 if self.old else 150.0}

        def close(self):
            pass

    monkeypatch.setattr(bench, "old_source", lambda rev: tmp_path / "source-abc")
    monkeypatch.setattr(bench, "_Worker", FakeWorker)
    notes = []
    rows = bench.compare("abc", ["usa"], [4], ["random", "search", "planner_classic", "planner_classic=planner"],
                         pairs=2, core=0, progress=notes.append)
    assert [(r["strategy"], r["old_strategy"], r["ratio"]) for r in rows] == \
        [("random", "random", 1.5), ("planner_classic", "planner", 1.5)]
    assert "usa 4P search: skipped (old: unknown strategy 'search')" in notes
    assert "usa 4P planner_classic: skipped (old: unknown strategy 'planner_classic')" in notes


def test_bench_compare_refuses_a_commit_before_the_package_layout(runner, monkeypatch, tmp_path):
    """4fac694 (before the package layout change, ec02c78) has no
    ttrsim/play/bench.py for the worker to run: one line naming the oldest
    commit that can be compared (a ModuleNotFoundError traceback inside the
    old code before); that one is extracted as the worker needs it."""
    bench = optional_module("ttrsim.play.bench")
    res = run(runner, "bench", "--compare", "4fac694", "--rules", "usa", "--players", 2)
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert res.output == ("Error: --compare: commit 4fac694a55a2 is older than the package layout this comparison "
                          "runs (it has no ttrsim/play/bench.py); expected commit ec02c78 or a later one\n")
    assert bench.oldest_comparable() == "ec02c78"
    monkeypatch.setattr(bench, "cache_base", lambda: tmp_path)
    root = bench.old_source("ec02c78")
    assert (root / "ttrsim" / "play" / "bench.py").is_file() and (root / "ttrsim" / "strategies").is_dir()


# --------------------------------------------------------------------------- the group

def test_version_and_help(runner):
    res = run(runner, "--version")
    assert res.exit_code == 0 and res.output.startswith("ttrsim, version ")
    for cmd in main.commands:
        res = run(runner, cmd, "--help")
        assert res.exit_code == 0 and "Examples:" in res.output, cmd
        # one help style: every option's help is a sentence (capital letter, full stop)
        for param in main.commands[cmd].params:
            text = getattr(param, "help", None)
            assert text is None or (text[0].isupper() and text.rstrip().endswith((".", ")"))), (cmd, param.name)
    top = run(runner, "--help").output
    assert "Examples:" in top and "Exit codes:" in top and "2 usage error" in top and "_TTRSIM_COMPLETE" in top


def test_narrated_resets_and_reshuffles_follow_the_engine(monkeypatch):
    """R3.4, R3.5: the narrator reports a face-up reset / a reshuffle exactly
    for the steps where the engine's counters (M_RESETS, M_RESHUFFLES) grew."""
    from ttrsim.core.state import M_RESETS, M_RESHUFFLES
    from ttrsim.play import narrate

    seen = {"resets": 0, "reshuffles": 0}
    original = narrate.Narrator.step

    def counting_step(self, before, action, after):
        seen["resets"] += int(after.meta[M_RESETS] > before.meta[M_RESETS])
        seen["reshuffles"] += int(after.meta[M_RESHUFFLES] > before.meta[M_RESHUFFLES])
        return original(self, before, action, after)

    monkeypatch.setattr(narrate.Narrator, "step", counting_step)
    lines = []
    for rules, n, seed in (("germany", 4, 7), ("usa", 2, 1), ("usa-mega", 5, 2)):
        play_narrated(rules, n, seed, out=lines.append)
    assert seen["resets"] > 0 and seen["reshuffles"] > 0
    assert sum("the row was reset" in line for line in lines) == seen["resets"]
    assert sum("shuffled into a new deck" in line for line in lines) == seen["reshuffles"]


@pytest.mark.parametrize("errno_, what", [(28, "No space left on device"), (30, "Read-only file system")])
def test_play_render_to_a_full_or_read_only_disk_is_one_line(runner, tmp_path, monkeypatch, errno_, what):
    """``--render`` on a full disk (a half picture written, then ENOSPC) or a
    read-only folder (EROFS), injected in the drawing: the game's table, then
    one line, exit 1, and no file left, neither the picture nor its temporary
    one."""
    import os

    import ttrsim.play.render as render

    def save_board(game, path, dpi=110):
        open(path, "wb").write(b"half")
        raise OSError(errno_, os.strerror(errno_), None if errno_ == 28 else str(path))
    monkeypatch.setattr(render, "save_board", save_board)
    target = tmp_path / "board.png"
    r = runner.invoke(main, ["play", "--seed", "2", "--quiet", "--render", str(target)])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), r.output
    assert "Traceback" not in r.output and "winner" in r.output
    assert r.output.splitlines()[-1] == (f"Error: --render: cannot write {target} ({what}); expected a writable "
                                         "folder with free space")
    assert list(tmp_path.iterdir()) == []
