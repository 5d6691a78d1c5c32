"""Strategy descriptions: name, text and parameters with defaults."""
from __future__ import annotations

from dataclasses import dataclass, field

MAX_PARAMS = 64


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
    # the kernel picks claims from the legal list (True), or finds them from the
    # hand with engine.claimable / engine.payments and is given the list without
    # claims (False; see ttrsim.strategies.dispatch.legal_for)
    lists_claims: bool = True

    def index(self, name: str) -> int:
        """The column of parameter ``name`` in a parameter row (its position in
        ``params``): kernels name their columns ``P_<NAME> = SPEC.index("name")``."""
        for i, p in enumerate(self.params):
            if p.name == name:
                return i
        raise KeyError(f"strategy '{self.name}' has no parameter '{name}'")
