"""benchmarks/search_time.py (docs/performance.md, "Issue 37's targets"):
a search seat's decisions timed and summed by kind."""
import numpy as np

from ttrsim.core.state import M_COUNTDOWN, M_PHASE, PH_MAIN, PH_SETUP_KEEP, copy_state
from ttrsim.play.game import Game
from ttrsim.strategies import param_row

from helpers import benchmark_script


def test_every_decision_of_the_search_seat_is_counted_once_by_kind():
    st = benchmark_script("search_time")
    totals = st.search_time("usa", 2, 2, 5, {"budget": 2, "keep_factor": 1})
    assert totals["setup keep"][0] == 2                       # one setup keep a game
    assert set(totals) <= {"setup keep", "keep", "middle", "other"} | {f"end {t:02d}" for t in range(0, 35, 5)}
    assert any(k.startswith("end") for k in totals) and totals["middle"][0] > 0
    assert all(n > 0 and t >= 0 for n, t in totals.values())


def test_the_kind_follows_the_phase_and_the_trains_left():
    g = Game("usa", 2, seed=1)
    params = np.tile(param_row("search"), (2, 1))
    assert g.state.meta[M_PHASE] == PH_SETUP_KEEP
    st = benchmark_script("search_time")
    assert st.kind(g.state, params, 0, 2) == "setup keep"
    s = copy_state(g.state)
    s.meta[M_PHASE] = PH_MAIN
    assert s.meta[M_COUNTDOWN] == -1
    s.trains[:] = 45
    assert st.kind(s, params, 0, 2) == "middle"
    s.trains[1] = 27
    assert st.kind(s, params, 0, 2) == "end 25"
    s.meta[M_COUNTDOWN] = 1                                    # the last round (R6.1)
    s.trains[:] = 2
    assert st.kind(s, params, 0, 2) == "end 00"
