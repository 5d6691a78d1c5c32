"""Built-in strategies, registered by name.

A compiled strategy is a module with a ``SPEC`` (:class:`StrategySpec`: name,
description, parameters with defaults) and a kernel

    choose(b, s, legal, n_legal, params) -> action

``b`` the board, ``s`` the game state (a strategy reads only what the acting
seat may see: public information, its own hand and tickets; see
``tests/test_fair_play.py``), ``legal[:n_legal]`` the legal actions (without
the claims for a strategy whose ``SPEC.lists_claims`` is False: it finds its
claims from the hand, see :func:`ttrsim.strategies.dispatch.legal_for`), ``params``
the float64 parameter table, one row per seat: the acting seat's parameters are
``params[s.meta[M_PLAYER], i]`` in the order of ``SPEC.params`` (rows are not
sliced out in the hot loop: making an array view costs more than a rule
helper). Random choices use the seat's own stream ``s.srng[seat]``.
:func:`ttrsim.strategies.dispatch.choose` calls a kernel by registry id inside the
compiled game loop; adding a strategy = a module, an entry in ``_MODULES`` and a
branch in ``dispatch.py``.

>>> strategy_id("random"), param_row("random", {}).shape
(0, (32,))
"""
from __future__ import annotations

import difflib

import numpy as np

from .spec import MAX_PARAMS, Param, StrategySpec  # noqa: F401  (re-exported)

class StrategyError(ValueError):
    """Unknown strategy or parameter, or a bad value (one line)."""


def _specs():
    from . import destination_hungry, greedy, long_route, one_step, planner, random_strategy, route_focus
    specs = [random_strategy.SPEC, destination_hungry.SPEC, route_focus.SPEC, one_step.SPEC, long_route.SPEC,
             greedy.SPEC, planner.SPEC, planner.PASSENGER_HUNTER_SPEC]
    return {s.name: s for s in specs}


REGISTRY: dict[str, StrategySpec] = _specs()
STRATEGY_NAMES = tuple(REGISTRY)
STRATEGY_IDS = {name: i for i, name in enumerate(STRATEGY_NAMES)}


def _unknown(kind: str, name: str, options) -> StrategyError:
    close = difflib.get_close_matches(name, list(options), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else f"; expected one of: {', '.join(options)}"
    return StrategyError(f"unknown {kind} '{name}'{hint}")


def strategy_id(name: str) -> int:
    if name not in STRATEGY_IDS:
        raise _unknown("strategy", name, STRATEGY_NAMES)
    return STRATEGY_IDS[name]


def param_row(name: str, overrides: dict | None = None) -> np.ndarray:
    """The float64 parameter row of strategy ``name`` with ``overrides`` applied."""
    spec = REGISTRY[STRATEGY_NAMES[strategy_id(name)]]
    known = {p.name: i for i, p in enumerate(spec.params)}
    row = np.zeros(MAX_PARAMS, np.float64)
    for i, p in enumerate(spec.params):
        row[i] = p.default
    for key, value in (overrides or {}).items():
        if key not in known:
            raise _unknown(f"parameter of strategy '{name}':", key, known) if known else \
                StrategyError(f"strategy '{name}' has no parameters, got '{key}'")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise StrategyError(f"parameter '{key}' of strategy '{name}' must be a number, got {value!r}")
        row[known[key]] = float(value)
    return row
