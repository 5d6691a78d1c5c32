"""Random-play fuzzing over every rule set and player count (small sample; the
large run is `ttrsim fuzz --rules all --games 100000`)."""
import numpy as np

from ttrsim.core.board import build_board
from ttrsim.core.engine import reset_game
from ttrsim.core.state import M_CLAIMS, allocate_state
from ttrsim.data.rules import get_rules, preset_names
from ttrsim.play.bench import run_bench
from ttrsim.play.fuzz import (
    V_CARDS,
    V_CLAIMS,
    V_OPEN,
    V_PASSENGERS,
    V_SCORE,
    V_TICKETS,
    V_TRAINS,
    check_state,
    run_fuzz,
)


def test_random_play_keeps_every_invariant_on_every_rule_set():
    rows = run_fuzz(["all"], [2, 3, 4, 5], games=150, progress=False, workers=1)
    assert {(r["rules"], r["players"]) for r in rows} == {(r, p) for r in preset_names() for p in (2, 3, 4, 5)}
    bad = [r for r in rows if r["violations"]]
    assert not bad, bad
    assert all(r["games"] == 150 for r in rows)
    assert all(r["distinct_deals"] == 150 for r in rows)     # consecutive seeds, distinct deals


def fresh(rules="germany", players=3):
    b = build_board(get_rules(rules))
    s = allocate_state(b, players)
    reset_game(b, s, 5)
    return b, s


def test_check_state_detects_each_broken_invariant():
    """The checker is not vacuous: each corruption is reported with its code."""
    k = np.zeros(9, np.int64)
    b, s = fresh()
    assert check_state(b, s, k) == -1
    s.hand[0, 3] += 1
    assert check_state(b, s, k) == V_CARDS
    b, s = fresh()
    s.trains[1] -= 1
    assert check_state(b, s, k) == V_TRAINS
    b, s = fresh()
    s.score[2] += 1
    assert check_state(b, s, k) == V_SCORE
    b, s = fresh()
    s.tk_len[0] -= 1
    assert check_state(b, s, k) == V_TICKETS
    b, s = fresh()
    s.pass_player[0, 0] += 1
    assert check_state(b, s, k) == V_PASSENGERS
    b, s = fresh()
    s.meta[M_CLAIMS] += 1
    assert check_state(b, s, k) == V_CLAIMS
    b, s = fresh()
    s.route_open[1, 0] ^= np.uint64(1 << 5)          # a seat's open routes (R4.5) out of step with the owners
    assert check_state(b, s, k) == V_OPEN


def test_bench_reports_games_per_second():
    rows = run_bench(["usa"], [2], seconds=0.2)
    assert rows[0]["rules"] == "usa" and rows[0]["players"] == 2 and rows[0]["strategy"] == "random"
    assert rows[0]["games"] >= 16 and rows[0]["games_per_s"] > 0
