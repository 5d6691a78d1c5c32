"""Records (ttrsim.core.record): the board's and the state's arrays read by
compiled code as borrowed views of the arrays Python holds."""
import numpy as np
from numba import njit

from ttrsim.core.board import build_board
from ttrsim.core.state import M_TURN, allocate_state
from ttrsim.data.rules import get_rules


@njit
def _bump_and_return(s):
    meta = s.meta
    meta[M_TURN] += 1
    return s.hand, s.meta[M_TURN]


def test_borrowed_fields_are_the_records_arrays():
    s = allocate_state(build_board(get_rules("usa")), 2)
    for i in range(1, 1001):          # many reads: a wrong reference count would free or leak the arrays
        hand, turn = _bump_and_return(s)
        assert turn == i
    assert s.meta[M_TURN] == 1000
    hand[0, 0] = 5                    # the array returned to Python is the record's own
    assert s.hand[0, 0] == 5 and np.shares_memory(hand, s.hand)


@njit
def _same(s):
    return s


def test_borrowed_record_counts():
    s = allocate_state(build_board(get_rules("usa")), 2)
    assert s._meminfo.refcount == 1              # the Python object's reference only
    copies = [_same(s) for _ in range(100)]       # each returned object holds its own reference
    assert s._meminfo.refcount == 101
    del copies
    assert s._meminfo.refcount == 1
