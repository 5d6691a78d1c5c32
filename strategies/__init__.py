"""Built-in strategies, registered by name.

A compiled strategy is a module with a ``SPEC`` (:class:`StrategySpec`: name,
description, parameters with defaults) and a kernel

    choose(b, s, m, legal, n_legal, params) -> action

``b`` the board and ``s`` the game state, both read only (a strategy reads
only what the acting seat ``s.meta[M_PLAYER]`` may see: public information,
its own hand and tickets); ``m`` the table's
:class:`~ttrsim.strategies.kit.memory.StrategyMemory`, whose rows of the acting
seat are the strategy's own: its random stream ``m.rng[seat]`` and what it
keeps between its decisions; ``legal[:n_legal]`` the legal actions (without
the claims for a strategy whose ``SPEC.lists_claims`` is False: it finds its
claims from the hand, see :func:`ttrsim.strategies.kit.dispatch.legal_for`);
``params`` the float64 parameter table, one row per seat: the acting seat's
parameters are ``params[seat, P_NAME]`` with ``P_NAME = SPEC.index("name")``
(rows are not sliced out in the hot loop: making an array view costs more
than a rule helper). :func:`ttrsim.strategies.kit.dispatch.pick` calls a kernel
by registry id inside the compiled game loop; adding a strategy = a module
(or a package, its ``SPEC`` and ``choose`` in its ``__init__.py``) and an entry
in :func:`_registry` (the dispatcher's branches are generated from it).

The modules: ``random_strategy`` and ``greedy``; the packages ``planner``
(its kernel in ``__init__``; ``plan``, ``tickets``, ``cards``, ``claims``,
``passengers``, ``params``), ``search`` (``rollout``, ``determinize``) and
``published`` (the four published agents and ``shared``); ``kit``, what
several strategies share (paths, plans, components, action picks, Europe's
moves, the strategy memory, the dispatcher); ``spec`` (parameters) and
``fitted`` (fitted parameter sets) for the registry; ``python_example``, a
Python strategy.
``tests/strategies/test_strategy_api.py`` checks every registered strategy against
these rules.

>>> strategy_id("random"), param_row("random", {}).shape
(0, (64,))
"""
from __future__ import annotations

import difflib

import numpy as np

from .fitted import fitted_for
from .planner.params import STYLES
from .spec import MAX_PARAMS, Param, StrategySpec  # noqa: F401  (re-exported)


class StrategyError(ValueError):
    """Unknown strategy or parameter, or a bad value (one line). For a bad
    value ``param`` names the parameter and ``problem`` is the line without
    it (an experiment's field already names it), e.g. ``-5 is out of range
    for search; expected an integer from 1 to 100000``."""

    def __init__(self, message: str, param: str = "", problem: str = ""):
        super().__init__(message)
        self.param = param
        self.problem = problem or message


def _registry():
    """The registry in id order: each strategy's spec and the module of its kernel."""
    from . import greedy, planner, random_strategy, search
    from .published import destination_hungry, long_route, one_step, route_focus
    entries = [(random_strategy.SPEC, random_strategy), (destination_hungry.SPEC, destination_hungry),
               (route_focus.SPEC, route_focus), (one_step.SPEC, one_step), (long_route.SPEC, long_route),
               (greedy.SPEC, greedy), (planner.SPEC, planner), (planner.PASSENGER_HUNTER_SPEC, planner),
               (planner.CLASSIC_SPEC, planner), (search.SPEC, search)]
    entries += [(spec, planner) for spec in planner.STYLE_SPECS]    # appended: the ids above stay
    return {s.name: s for s, _ in entries}, {s.name: module for s, module in entries}


# name -> StrategySpec, and name -> the module whose ``choose`` is its kernel
REGISTRY, KERNEL_MODULES = _registry()
STRATEGY_NAMES = tuple(REGISTRY)
STRATEGY_IDS = {name: i for i, name in enumerate(STRATEGY_NAMES)}
# the strategies that play a style (``STYLES``: style name -> the strategy fitted in it)
STYLE_FAMILY = tuple(STYLES.values())


def _unknown(kind: str, name: str, options) -> StrategyError:
    close = difflib.get_close_matches(name, list(options), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else f"; expected one of: {', '.join(options)}"
    return StrategyError(f"unknown {kind} '{name}'{hint}")


def strategy_id(name: str) -> int:
    if name not in STRATEGY_IDS:
        raise _unknown("strategy", name, STRATEGY_NAMES)
    return STRATEGY_IDS[name]


def param_row(name: str, overrides: dict | None = None, *, rules=None, players: int | None = None) -> np.ndarray:
    """The float64 parameter row of strategy ``name`` with ``overrides``
    applied; a value of the wrong type or out of its parameter's range
    (:meth:`Param.problem`) is a :class:`StrategyError` naming the parameter,
    the value and the range. With the rule set it plays (``rules``: a
    preset name or a :class:`~ttrsim.data.rules.RuleSet`) and ``players``,
    the strategy's fitted set there (:func:`.fitted.fitted_for`) comes
    first and ``overrides`` over it.

    >>> param_row("search", {"budget": -5})
    Traceback (most recent call last):
    ...
    ttrsim.strategies.StrategyError: budget: -5 is out of range for search; expected an integer from 1 to 100000
    """
    spec = REGISTRY[STRATEGY_NAMES[strategy_id(name)]]
    known = {p.name: i for i, p in enumerate(spec.params)}
    row = np.zeros(MAX_PARAMS, np.float64)
    for i, p in enumerate(spec.params):
        row[i] = p.default
    preset = getattr(rules, "preset", rules)
    for key, value in {**fitted_for(name, preset, players)[0], **(overrides or {})}.items():
        if key not in known:
            raise _unknown(f"parameter of strategy '{name}':", key, known) if known else \
                StrategyError(f"strategy '{name}' has no parameters, got '{key}'")
        problem = spec.params[known[key]].problem(value, name)
        if problem is not None:
            raise StrategyError(f"{key}: {problem}", key, problem)
        row[known[key]] = float(value)
    return row


def style_params(name: str, style: str, preset: str, players: int) -> dict:
    """The parameter values that make strategy ``name`` (one of :data:`STYLE_FAMILY`)
    play ``style`` on ``preset`` at ``players``: where the style's strategy, with
    its fitted set there, differs from ``name`` with its own.

    >>> style_params("planner", "balanced", "usa", 4)
    {}
    """
    mine = param_row(name, rules=preset, players=players)
    theirs = param_row(STYLES[style], rules=preset, players=players)
    return {p.name: float(theirs[i]) for i, p in enumerate(REGISTRY[name].params) if theirs[i] != mine[i]}
