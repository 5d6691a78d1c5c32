"""Strategy descriptions: name, text and parameters with defaults, types and
ranges.

Every parameter has a type (``int``, ``float`` or ``bool``: 0 or 1, also
given as false/true) and a finite range ``lo``..``hi`` (inclusive, unless
``open_lo``/``open_hi``); :meth:`Param.problem` says what is wrong with a
value (the one line an experiment's field shows), so a bad value is refused
before anything runs instead of reaching a kernel.

>>> p = Param("budget", 64.0, "rollouts", "int", 1, 100_000)
>>> p.problem(-5, "search")
'-5 is out of range for search; expected an integer from 1 to 100000'
>>> p.problem(1.5, "search"), p.problem(64, "search")
('1.5 is not an integer for search; expected an integer from 1 to 100000', None)
>>> Param("keep_factor", 2.0, "x budget", "float", 0, 100, open_lo=True).range_text()
'a number above 0 and at most 100'
>>> Param("keeps", 1.0, "search the keeps", "bool").problem(True, "search") is None
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from ttrsim.data.checks import kind as shown
from ttrsim.data.maps import MAX_ROUTE_LENGTH
from ttrsim.data.rules import MAX_OFFER, PARAM_BY_NAME

MAX_PARAMS = 64
KINDS = ("int", "float", "bool")

# Ranges many parameters share, as (kind, lo, hi): Param(name, default, doc, *TRAINS). Each is the widest
# range whose values mean something (a tuner searches within them), its bounds from the rules' own limits.
MAX_TRAINS = PARAM_BY_NAME["trains"].hi      # the most trains a rule set gives a player
TRAINS = ("float", 0, MAX_TRAINS)            # a number of trains (compared with the trains a seat holds)
MARGIN = ("float", -MAX_TRAINS, MAX_TRAINS)  # trains kept back from (or, below 0, counted on top of) those held
WHOLE_TRAINS = ("int", 0, MAX_TRAINS)        # the same as whole numbers (the published agents' definitions)
WHOLE_MARGIN = ("int", -MAX_TRAINS, MAX_TRAINS)
LONG_TICKETS = ("int", 0, MAX_OFFER)         # Germany: tickets of a deal or draw taken from the long pile
ROUTE_LENGTH = ("int", 1, MAX_ROUTE_LENGTH)  # a route length (trains)
WEIGHT = ("float", -1000, 1000)              # a weight or value in points or cards, either sign
FACTOR = ("float", 0, 1000)                  # a weight, factor or cost that is never negative
COUNT = ("int", 0, 1000)                     # candidates: claims, keep sets (the bundled maps have at most 110 routes)
ROLLOUTS = ("int", 1, 100_000)               # games played out for one decision
DEALS = ("int", 0, 100_000)                  # determinizations (deals) of one decision
BOOL = ("bool",)                             # 0 or 1 (false or true)


@dataclass(frozen=True)
class Param:
    """A parameter: its ``default``, text, type (``kind``: int, float or bool)
    and range ``lo``..``hi`` (finite; a bool's is 0..1), inclusive unless
    ``open_lo`` / ``open_hi`` (the value must then exceed the bound)."""
    name: str
    default: float
    doc: str
    kind: str
    lo: float | None = None
    hi: float | None = None
    open_lo: bool = False
    open_hi: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"parameter '{self.name}': kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.kind == "bool":
            object.__setattr__(self, "lo", 0)
            object.__setattr__(self, "hi", 1)
        ok = all(isinstance(v, Real) and not isinstance(v, bool) and math.isfinite(v) for v in (self.lo, self.hi))
        if not ok or not self.lo < self.hi:
            raise ValueError(f"parameter '{self.name}': expected a finite range lo < hi, got {self.lo}..{self.hi}")

    def range_text(self) -> str:
        """What a value must be: ``an integer from 1 to 100000``."""
        if self.kind == "bool":
            return "0 or 1 (false or true)"
        what = "an integer" if self.kind == "int" else "a number"
        lo, hi = _number(self.lo), _number(self.hi)
        if not self.open_lo and not self.open_hi:
            return f"{what} from {lo} to {hi}"
        low = f"above {lo}" if self.open_lo else f"from {lo}"
        high = f"below {hi}" if self.open_hi else f"at most {hi}"
        return f"{what} {low} and {high}"

    def interval(self) -> str:
        """The range as ``ttrsim strategies`` shows it: ``[1, 100000]``, ``(0, 100]``, ``0 or 1``."""
        if self.kind == "bool":
            return "0 or 1"
        return f"{'(' if self.open_lo else '['}{_number(self.lo)}, {_number(self.hi)}{')' if self.open_hi else ']'}"

    def problem(self, value, strategy: str) -> str | None:
        """What is wrong with ``value`` for this parameter of ``strategy``, in
        one line without the parameter's name (None: nothing)."""
        if isinstance(value, np.generic):           # numpy scalars as the Python values they hold
            value = value.item()
        if isinstance(value, bool):
            return None if self.kind == "bool" else self._refuse(value, "not a number", strategy)
        if not isinstance(value, Real):
            return self._refuse(value, "not a number", strategy)
        if isinstance(value, float) and not math.isfinite(value):
            return self._refuse(value, "not a finite number", strategy)
        if self.kind == "int" and not isinstance(value, Integral) and not float(value).is_integer():
            return self._refuse(value, "not an integer", strategy)
        below = value <= self.lo if self.open_lo else value < self.lo
        above = value >= self.hi if self.open_hi else value > self.hi
        if below or above or (self.kind == "bool" and value not in (0, 1)):
            return self._refuse(value, "out of range", strategy)
        return None

    def _refuse(self, value, what: str, strategy: str) -> str:
        text = shown(value)
        if len(text) > 24:                          # a number of hundreds of digits: its head and length
            text = f"{text[:12]}... ({len(text)} characters)"
        return f"{text} is {what} for {strategy}; expected {self.range_text()}"


def _number(v) -> str:
    """A bound as text: ``200``, ``0.5``."""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


@dataclass(frozen=True)
class StrategySpec:
    name: str
    doc: str
    params: tuple[Param, ...] = field(default_factory=tuple)
    # the kernel picks claims from the legal list (True), or finds them from the
    # hand with engine.claimable / engine.payments and is given the list without
    # claims (False; see ttrsim.strategies.kit.dispatch.legal_for)
    lists_claims: bool = True

    def index(self, name: str) -> int:
        """The column of parameter ``name`` in a parameter row (its position in
        ``params``): kernels name their columns ``P_<NAME> = SPEC.index("name")``."""
        for i, p in enumerate(self.params):
            if p.name == name:
                return i
        raise KeyError(f"strategy '{self.name}' has no parameter '{name}'")
