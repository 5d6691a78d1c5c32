"""Replayability: a game is a function of its seed, compiled or interpreted."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from ttrsim.core.actions import legal_buffer
from ttrsim.core.board import build_board
from ttrsim.core.state import M_ACTIONS, M_TURN, allocate_state
from ttrsim.data.rules import get_rules, preset_names
from ttrsim.play.loop import play_game
from ttrsim.strategies.kit.memory import allocate_memory

CASES = [(r, p, seed) for r in preset_names() for p, seed in ((2, 11), (4, 12))]

SCRIPT = """
import json, sys
import numpy as np
from ttrsim.core.board import build_board
from ttrsim.core.actions import legal_buffer
from ttrsim.play.loop import play_game
from ttrsim.data.rules import get_rules
from ttrsim.core.state import allocate_state, M_ACTIONS, M_TURN
from ttrsim.strategies.kit.memory import allocate_memory
out = []
for rules, players, seed in json.loads(sys.argv[1]):
    b = build_board(get_rules(rules)); s = allocate_state(b, players); m = allocate_memory(b, players)
    play_game(b, s, m, seed, np.zeros(players, np.int64), np.zeros((players, 1)), legal_buffer(b))
    out.append([s.final.tolist(), int(s.meta[M_TURN]), int(s.meta[M_ACTIONS]), s.route_owner.tolist()])
print(json.dumps(out))
"""


def play(rules, players, seed):
    b = build_board(get_rules(rules))
    s = allocate_state(b, players)
    play_game(b, s, allocate_memory(b, players), seed, np.zeros(players, np.int64), np.zeros((players, 1)),
              legal_buffer(b))
    return [s.final.tolist(), int(s.meta[M_TURN]), int(s.meta[M_ACTIONS]), s.route_owner.tolist()]


def test_same_seed_same_game():
    for rules, players, seed in CASES:
        assert play(rules, players, seed) == play(rules, players, seed)


def test_different_seeds_differ():
    assert play("usa", 3, 1) != play("usa", 3, 2)


@pytest.mark.parametrize("jit_off", ["1"])
def test_compiled_equals_interpreted(jit_off):
    """The same games give identical results compiled and with NUMBA_DISABLE_JIT=1."""
    env = dict(os.environ, NUMBA_DISABLE_JIT=jit_off)
    proc = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(CASES)], env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    interpreted = json.loads(proc.stdout)
    compiled = [play(*case) for case in CASES]
    assert compiled == interpreted
