"""Explicit, replayable random streams for the compiled core.

A stream is one element ``streams[i]`` of a ``uint64`` array holding a
SplitMix64 state; streams live inside the game state (never a global RNG), so
a game is replayed from its seed alone.

A stream's first state is a hash of its ``(seed, lane)`` pair
(:func:`seed_into`), so neighbouring seeds or lanes start at unrelated points
of the SplitMix64 cycle: stream ``seed + 1`` is not stream ``seed`` shifted by
one output, as it would be with a linear start (the games of consecutive
seeds were near-duplicates before games version 2).

>>> import numpy as np
>>> s = seed_stream(7, 0)
>>> a = [rand_below(s, 0, 10) for _ in range(5)]
>>> s = seed_stream(7, 0)
>>> a == [rand_below(s, 0, 10) for _ in range(5)]
True
"""
import warnings

import numba
import numpy as np

from ttrsim.jit import kernel

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
LANE_MUL = np.uint64(0xD1B54A32D192ED03)   # odd constants separating the lanes of one seed
LANE_ADD = np.uint64(0x8CB92BA72F3D8DD7)

if numba.config.DISABLE_JIT:
    # Interpreted uint64 arithmetic wraps exactly like the compiled code but warns.
    warnings.filterwarnings("ignore", message="overflow encountered in scalar",
                            category=RuntimeWarning)


@kernel
def mix64(z):
    """SplitMix64's output function: a bijection of 64-bit words that scatters
    neighbouring inputs over the whole range."""
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@kernel
def next_u64(streams, i):
    """Advance SplitMix64 stream ``streams[i]`` and return its next 64-bit output."""
    streams[i] += GOLDEN
    z = streams[i]
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@kernel
def rand_below(streams, i, n):
    """Uniform integer in ``[0, n)`` for ``0 < n < 2**32`` (multiply-shift)."""
    return np.int64(((next_u64(streams, i) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@kernel
def shuffle_range(streams, i, arr, lo, hi):
    """Fisher-Yates shuffle of ``arr[lo:hi]`` in place with stream ``streams[i]``."""
    for k in range(hi - 1, lo, -1):
        j = lo + rand_below(streams, i, k - lo + 1)
        t = arr[k]
        arr[k] = arr[j]
        arr[j] = t


def seed_stream(seed: int, lane: int) -> np.ndarray:
    """A fresh stream for ``(seed, lane)``; lanes separate independent uses of one seed."""
    s = np.zeros(1, dtype=np.uint64)
    seed_into(s, 0, seed, lane)
    return s


@kernel
def seed_into(streams, i, seed, lane):
    """Compiled twin of :func:`seed_stream`, writing into ``streams[i]``. The
    state is ``mix64(mix64(seed + GOLDEN) ^ mix64(lane * LANE_MUL + LANE_ADD))``:
    for a fixed lane a bijection of the seed (distinct seeds, distinct streams),
    and every change of seed or lane moves the start to an unrelated point."""
    key = mix64(np.uint64(seed) + GOLDEN)
    streams[i] = mix64(key ^ mix64(np.uint64(lane) * LANE_MUL + LANE_ADD))
