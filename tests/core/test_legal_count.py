"""Rule R4 (claims) in the counted form random play uses: ``legal_count``
equals the length of ``legal_actions``' list and ``legal_at(k)`` its k-th
action, at every decision of random games on every preset (Europe: tunnels
R8.1 and stations R8.4; Germany: passengers)."""
import numpy as np
import pytest
from numba import njit

from ttrsim.core.actions import legal_buffer
from ttrsim.core.board import build_board
from ttrsim.core.engine import apply_action, legal_actions, legal_at, legal_count, reset_game
from ttrsim.core.rng import rand_below, seed_stream
from ttrsim.core.state import M_PHASE, PH_OVER, allocate_state
from ttrsim.data.rules import get_rules

PRESETS = ("usa", "usa-1910", "usa-mega", "usa-bigcities", "germany", "europe")


@njit
def _check_games(b, s, seeds, legal, scratch, rng):
    """Play random games; return (decisions checked, mismatches)."""
    checked, bad = 0, 0
    for g in range(seeds.shape[0]):
        reset_game(b, s, seeds[g])
        while s.meta[M_PHASE] != PH_OVER:
            n = legal_actions(b, s, legal)
            if legal_count(b, s, scratch) != n:
                bad += 1
            for k in range(n):
                if legal_at(b, s, k, scratch) != legal[k]:
                    bad += 1
            checked += 1
            apply_action(b, s, legal[rand_below(rng, 0, n)])
    return checked, bad


@pytest.mark.parametrize("n_players", [2, 4])
@pytest.mark.parametrize("preset", PRESETS)
def test_R4_legal_count_and_kth_action_match_the_list(preset, n_players):
    b = build_board(get_rules(preset))
    s = allocate_state(b, n_players)
    checked, bad = _check_games(b, s, np.arange(6, dtype=np.int64), legal_buffer(b), legal_buffer(b),
                                  seed_stream(n_players, 0))
    assert checked > 200
    assert bad == 0
