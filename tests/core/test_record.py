"""Records (ttrsim.jit.record): the board's and the state's arrays read by
compiled code as borrowed views of the arrays Python holds; states are
built in Python only and copied into in compiled code (the strategies'
memory holds the scratch states)."""
import gc

import numpy as np
from numba import njit

from ttrsim.core.board import build_board
from ttrsim.core.state import M_TURN, STATE_FIELDS, allocate_state, copy_state, copy_state_into
from ttrsim.data.rules import get_rules
from ttrsim.play.game import Game
from ttrsim.strategies.kit.memory import allocate_memory, copy_memory, new_memory


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


def test_copy_state_into_copies_every_field():
    s = Game("europe", 3, seed=2).state
    assert s._fields == STATE_FIELDS
    d = copy_state(s)
    for a in d:
        a.flat[-1] += 1
    copy_state_into(d, s)
    for field, x, y in zip(STATE_FIELDS, d, s):
        assert np.array_equal(x, y), field


@njit
def _play_on_scratch(m, s):
    """What a search does with the memory: copy into its scratch states,
    through a memory of its own built in compiled code."""
    rm = new_memory(m)
    det, work = rm.scratch
    copy_state_into(det, s)
    det.meta[M_TURN] += 1
    copy_state_into(work, det)
    return work.meta[M_TURN]


def test_scratch_states_live_with_the_memory():
    b = build_board(get_rules("usa"))
    s = allocate_state(b, 2)
    m = allocate_memory(b, 2)
    for mem in (m, copy_memory(m)):
        gc.collect()                                 # the scratch states' only owner is the memory's object
        for i in range(1, 201):
            s.meta[M_TURN] = i
            assert _play_on_scratch(mem, s) == i + 1
        assert [x._meminfo.refcount for x in mem.scratch] == [1, 1]
        assert mem.scratch[1].meta[M_TURN] == 201


@njit
def _rollout_rows(m):
    rm = new_memory(m)
    return rm.ints, rm.floats, rm.flags


def test_memory_work_rows():
    """The work rows (strategies.memory) fit every decision array of the
    board; a rollout memory has rows of its own, a copy copies them."""
    for rules in ("usa", "europe", "germany", "usa-mega"):
        b = build_board(get_rules(rules))
        m = allocate_memory(b, 3)
        assert m.ints.shape[1] >= max(b.n_nodes, len(b.route_len) + 32, 2 * len(b.ticket_a) + 16)
        rows = _rollout_rows(m)
        c = copy_memory(m)
        for own, copied, rollout in zip((m.ints, m.floats, m.flags), (c.ints, c.floats, c.flags), rows):
            assert own.shape == copied.shape == rollout.shape
            assert not np.shares_memory(own, copied) and not np.shares_memory(own, rollout)
