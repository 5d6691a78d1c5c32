"""The argument checks of the environments: integers (Python's or numpy's,
never a boolean) are taken as they are, anything else is refused with one
line naming the argument and what was expected, a :class:`TypeError` for a
value of the wrong kind and a :class:`ValueError` for one out of its range
(as Gymnasium's ``Discrete`` space and PettingZoo's envs would refuse it),
never rounded or wrapped into range.

>>> integer(np.int64(1), "seat", 0, 1), seed(np.uint32(7))
(1, 7)
>>> integer(1.9, "seat", 0, 1)
Traceback (most recent call last):
TypeError: seat must be an integer 0 to 1, got 1.9
>>> seed(2 ** 80)
Traceback (most recent call last):
ValueError: seed must be an integer 0 to 2**63 - 1, got 1208925819614629174706176
>>> integers([3, np.int8(4)], "seeds", 2, 0, SEED_MAX, SEED_RANGE).tolist()
[3, 4]
>>> integers(np.array([1.9, 2.0]), "seeds", 2, 0, SEED_MAX, SEED_RANGE)
Traceback (most recent call last):
TypeError: seeds must be 2 integers 0 to 2**63 - 1, got float64 values
>>> integers([2 ** 63, 1], "seeds", 2, 0, SEED_MAX, SEED_RANGE)
Traceback (most recent call last):
ValueError: seeds must be 2 integers 0 to 2**63 - 1, got 9223372036854775808
>>> finite(float("nan"), "illegal_reward")
Traceback (most recent call last):
ValueError: illegal_reward must be a finite number, got nan
"""
from __future__ import annotations

import math
import operator

import numpy as np

SEED_MAX = 2 ** 63 - 1          # the engine's seeds are int64 (the results' seed column), 0 and up
SEED_RANGE = "0 to 2**63 - 1"
MAX_ENVS = 65_536               # VectorEnv slots: a state takes about 0.1 ms to allocate and some kB to hold


def shown(v) -> str:
    """``v`` for a message: its repr when short, else its type."""
    r = repr(v)
    return r if len(r) <= 60 and "\n" not in r else f"a {type(v).__name__}"


def as_index(v):
    """``v`` as a Python int if it is an integer (``operator.index``: Python
    and numpy integers, 0-d integer arrays; not a boolean), else None."""
    if isinstance(v, (bool, np.bool_)):
        return None
    try:
        return operator.index(v)
    except TypeError:
        return None


def integer(v, what: str, lo: int, hi: int, range_text: str | None = None) -> int:
    """``v`` as a Python int in ``lo`` .. ``hi``; TypeError if it is no integer,
    ValueError if it is out of range (``range_text``: the range in words)."""
    i = as_index(v)
    span = range_text or f"{lo} to {hi}"
    if i is None:
        raise TypeError(f"{what} must be an integer {span}, got {shown(v)}")
    if not lo <= i <= hi:
        raise ValueError(f"{what} must be an integer {span}, got {i}")
    return i


def seed(v, what: str = "seed") -> int:
    """A game seed: an integer 0 to 2**63 - 1 (:data:`SEED_MAX`)."""
    return integer(v, what, 0, SEED_MAX, SEED_RANGE)


def integers(v, what: str, n: int, lo: int, hi: int, range_text: str | None = None) -> np.ndarray:
    """``v`` (a list, a tuple or an array) as ``n`` int64 values in ``lo`` ..
    ``hi`` (``hi`` at most 2**63 - 1), shape ``(n,)``; TypeError for values
    that are not integers (floats, booleans, text), ValueError for another
    number of values, another shape or a value out of range."""
    need = f"{what} must be {n} integers {range_text or f'{lo} to {hi}'}"
    if isinstance(v, np.ndarray) and v.dtype == object and v.ndim == 1:
        v = list(v)
    if isinstance(v, (list, tuple)):            # element by element: numpy would make [2**63, 1] floats
        values = [as_index(x) for x in v]
        if None in values:
            i = values.index(None)
            raise TypeError(f"{need}, got {shown(v[i])} at index {i}")
        if len(values) != n:
            raise ValueError(f"{need}, got {len(values)} value{'' if len(values) == 1 else 's'}")
        for x in values:
            if not lo <= x <= hi:
                raise ValueError(f"{need}, got {x}")
        return np.array(values, np.int64)
    try:
        arr = np.asarray(v)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"{need}, got {shown(v)}") from None
    if arr.dtype.kind not in "iu":
        kind = {"b": "boolean", "U": "text", "S": "text", "O": "non-integer"}.get(arr.dtype.kind, arr.dtype.name)
        raise TypeError(f"{need}, got {f'{kind} values' if arr.ndim else shown(v)}")
    if arr.shape != (n,):
        raise ValueError(f"{need} (an array of shape ({n},)), got shape {arr.shape}")
    low, high = arr.min(), arr.max()
    if low < lo or high > hi:
        raise ValueError(f"{need}, got {int(low if low < lo else high)}")
    return arr.astype(np.int64, copy=False)


def finite(v, what: str) -> float:
    """``v`` as a float if it is a finite real number (not a boolean, not text)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a finite number, got {shown(v)}")
    f = float(v)
    if not math.isfinite(f):
        raise ValueError(f"{what} must be a finite number, got {f}")
    return f


def strategy_names(opponents, players: int) -> list[str]:
    """One strategy name per seat from ``opponents``: a name for every seat or
    a list (or tuple) of one per seat."""
    if isinstance(opponents, str):
        return [opponents] * players
    if not isinstance(opponents, (list, tuple)):
        raise TypeError(f"opponents must be a strategy name or a list of one per seat ({players}), "
                        f"got {shown(opponents)}")
    if len(opponents) != players:
        raise ValueError(f"give one opponent strategy or one per seat ({players}), got {len(opponents)}")
    for i, name in enumerate(opponents):
        if not isinstance(name, str):
            raise TypeError(f"opponents[{i}] must be a strategy name, got {shown(name)}")
    return list(opponents)
