"""Strategy descriptions: name, text and parameters with defaults."""
from __future__ import annotations

from dataclasses import dataclass, field

MAX_PARAMS = 32


@dataclass(frozen=True)
class Param:
    name: str
    default: float
    doc: str


@dataclass(frozen=True)
class StrategySpec:
    name: str
    doc: str
    params: tuple[Param, ...] = field(default_factory=tuple)
