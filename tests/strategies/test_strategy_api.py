"""One API test over every registered strategy (as pgx runs one API test over
every game), through the compiled dispatcher the game loop calls.

Each strategy plays games of every preset with 2 to 5 players (its own picks
at every seat, one decision in five replaced by a random legal action to
reach more positions), carrying the table's strategy memory as the game loop
does. At every ``EVERY``-th decision it must:

* pick a legal action (one of the full legal list);
* pick the same action, and leave the same memory, from the same inputs;
* be its own kernel (``KERNEL_MODULES[name].choose``) behind the dispatcher;
* leave the game state unchanged (the engine applies the action);
* write only the acting seat's rows of the memory (its stream included);
* read no parameter beyond its spec (columns past ``len(SPEC.params)`` set
  to NaN change nothing);
* play fair: changing what the seat cannot see (other hands, other tickets
  and offers, deck order, ticket pile order) does not change its pick.

Every parameter of a spec has a type and a finite range holding its default
and the values the docs quote; ``param_row`` refuses any other value in one
line (issue 30).
"""
import math
import re
from pathlib import Path

import numpy as np
import pytest

from ttrsim.core.actions import legal_buffer
from ttrsim.core.state import M_DECK_N, M_PLAYER, PHASE_NAMES, copy_state
from ttrsim.data.rules import preset_names
from ttrsim.play.game import Game
from ttrsim.strategies import (
    KERNEL_MODULES,
    MAX_PARAMS,
    REGISTRY,
    STRATEGY_NAMES,
    StrategyError,
    param_row,
    strategy_id,
)
from ttrsim.strategies.kit import dispatch
from ttrsim.strategies.kit.memory import MEMORY_FIELDS, allocate_memory, copy_memory, reset_memory
from ttrsim.strategies.planner import params as planner_params
from ttrsim.strategies.spec import KINDS

ROOT = Path(__file__).resolve().parents[2]

SETTINGS = [(rules, players) for rules in preset_names() for players in (2, 3, 4, 5)]
EVERY = 7                 # check every 7th decision
MAX_DECISIONS = 420       # per game
# parameters other than the defaults, to keep the test short (search: a rollout per candidate and round)
TEST_PARAMS = {"search": {"budget": 2}}


def hide_and_shuffle(g, state, rng):
    """A copy of ``state`` that differs only in what the acting seat cannot see."""
    s = copy_state(state)
    me = int(s.meta[M_PLAYER])
    n_players = s.hand.shape[0]
    deck_n = int(s.meta[M_DECK_N])
    for q in range(n_players):                       # other hands: swap cards with the deck
        if q == me or deck_n == 0:
            continue
        for _ in range(10):
            kinds = np.flatnonzero(s.hand[q] > 0)
            if len(kinds) == 0:
                break
            k = rng.choice(kinds)
            i = rng.integers(deck_n)
            s.hand[q, k] -= 1
            s.hand[q, s.deck[i]] += 1
            s.deck[i] = k
    rng.shuffle(s.deck[:deck_n])                     # deck order
    cap = s.tk_buf.shape[1]
    for d in range(s.tk_buf.shape[0]):               # pile order, and other seats' tickets
        live = [(int(s.tk_head[d]) + i) % cap for i in range(int(s.tk_len[d]))]
        if not live:
            continue
        for t in np.flatnonzero((s.ticket_holder >= 0) & (s.ticket_holder != me)):
            if g.board.ticket_deck[t] != d or rng.random() < 0.5:
                continue
            j = live[rng.integers(len(live))]
            other = int(s.tk_buf[d, j])
            s.tk_buf[d, j] = t
            s.ticket_holder[other] = s.ticket_holder[t]
            s.ticket_holder[t] = -1
        vals = s.tk_buf[d, live].copy()
        rng.shuffle(vals)
        s.tk_buf[d, live] = vals
    return s


def pick(g, s, m, name, params, kernel=False):
    """Strategy ``name``'s pick in state ``s`` with memory ``m`` (changed in
    place): through the dispatcher, or (``kernel``) its module's kernel."""
    buf = legal_buffer(g.board)
    n = dispatch.legal_for(strategy_id(name), g.board, s, buf)
    if kernel:
        return int(KERNEL_MODULES[name].choose(g.board, s, m, buf, n, params))
    return int(dispatch.choose(strategy_id(name), g.board, s, m, buf, n, params))


def same_memory(x, y, rows=slice(None)):
    return all(np.array_equal(getattr(x, f)[rows], getattr(y, f)[rows]) for f in MEMORY_FIELDS)


def check_position(g, m, name, params, rng):
    """Every property of the module doc at the position of game ``g`` with
    memory ``m``; returns the pick and the memory after it."""
    s, me = g.state, g.player
    where = (g.rules.preset, g.n_players, g.seed, g.turn, g.phase)
    state_before = copy_state(s)
    m1, m2, m3 = copy_memory(m), copy_memory(m), copy_memory(m)
    a = pick(g, s, m1, name, params)
    assert a in g.legal_actions(), where
    assert pick(g, s, m2, name, params) == a and same_memory(m1, m2), where
    assert pick(g, s, m3, name, params, kernel=True) == a and same_memory(m1, m3), where
    for field, now, before in zip(s._fields, s, state_before):
        assert np.array_equal(now, before), (where, field)
    others = [q for q in range(g.n_players) if q != me]
    assert same_memory(m1, m, others), where
    beyond = params.copy()
    beyond[:, len(REGISTRY[name].params):] = np.nan
    assert pick(g, s, copy_memory(m), name, beyond) == a, where
    for _ in range(2):
        assert pick(g, hide_and_shuffle(g, s, rng), copy_memory(m), name, params) == a, where
    return a, m1


@pytest.mark.parametrize("name", STRATEGY_NAMES)
def test_strategy_api(name):
    rng = np.random.default_rng(strategy_id(name))
    checked = 0
    phases = set()
    for i, (rules, players) in enumerate(SETTINGS):
        g = Game(rules, players, seed=100 + i)
        m = allocate_memory(g.board, players)
        reset_memory(m, g.seed)
        params = np.tile(param_row(name, TEST_PARAMS.get(name)), (players, 1))
        for step in range(MAX_DECISIONS):
            if g.over:
                break
            if step % EVERY == 0 or g.phase == "tunnel":        # tunnels are rare: each one
                phases.add(g.phase)
                a, m = check_position(g, m, name, params, rng)
                checked += 1
            else:
                a = pick(g, g.state, m, name, params)
            if rng.random() < 0.2:
                acts = g.legal_actions()
                a = acts[rng.integers(len(acts))]
            g.apply(a)
    assert checked > 600
    assert phases >= set(PHASE_NAMES) - {"keep", "over"}, phases


def test_parameter_rows_follow_the_specs():
    """Every strategy is registered under its name with a description and
    documented parameters; its spec fits a row, which holds its defaults in
    spec order and zeros beyond (kernels read ``params[seat, P_NAME]``)."""
    for name, spec in REGISTRY.items():
        assert spec.name == name and spec.doc and all(p.doc for p in spec.params)
        row = param_row(name)
        k = len(spec.params)
        assert row.shape == (MAX_PARAMS,) and k <= MAX_PARAMS
        assert row[:k].tolist() == [p.default for p in spec.params] and not row[k:].any(), name


def test_every_default_lies_within_its_range():
    """Every parameter of every strategy has a type (int, float or bool) and a
    finite range, and its default (each parameter set's: planner,
    passenger_hunter, planner_classic) is a value of that type within it."""
    for name, spec in REGISTRY.items():
        for p in spec.params:
            assert p.kind in KINDS and math.isfinite(p.lo) and math.isfinite(p.hi) and p.lo < p.hi, (name, p)
            assert p.problem(p.default, name) is None, (name, p.name, p.default, p.interval())
            assert p.kind == "float" or float(p.default).is_integer(), (name, p.name)


def test_documented_parameter_values_lie_within_their_ranges():
    """The parameter values docs/strategies.md and the benchmarks quote
    (``race: 1, budget: 128``, ``--params '{"budget": 32}'``) are accepted by a
    strategy that has the parameter (the packaged experiments are validated by
    tests/cli/test_cli_setup.py)."""
    params = {}
    for name, spec in REGISTRY.items():
        for p in spec.params:
            params.setdefault(p.name, []).append((name, p))
    checked = 0
    for path in [ROOT / "docs" / "strategies.md", *sorted((ROOT / "benchmarks").glob("*.py"))]:
        for key, value in re.findall(r'"?\b(\w+)"?\s*:\s*(-?\d+(?:\.\d+)?)\b', path.read_text(encoding="utf-8")):
            if key in params:
                v = float(value) if "." in value else int(value)
                assert any(p.problem(v, name) is None for name, p in params[key]), (path.name, key, value)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("strategy, overrides, message", [
    ("search", {"budget": -5}, "budget: -5 is out of range for search; expected an integer from 1 to 100000"),
    ("search", {"budget": 2.5}, "budget: 2.5 is not an integer for search; expected an integer from 1 to 100000"),
    ("search", {"budget": np.float64("inf")},
     "budget: inf is not a finite number for search; expected an integer from 1 to 100000"),
    ("search", {"z": float("nan")}, "z: nan is not a finite number for search; expected a number from -100 to 100"),
    ("search", {"keeps": 0.5}, "keeps: 0.5 is out of range for search; expected 0 or 1 (false or true)"),
    ("search", {"keep_factor": 0},
     "keep_factor: 0 is out of range for search; expected a number above 0 and at most 100"),
    ("planner", {"keep_margin": "lots"},
     "keep_margin: 'lots' is not a number for planner; expected a number from -200 to 200"),
    ("planner", {"ticket_ev": None}, "ticket_ev: nothing (null) is not a number for planner; expected 0 or 1 "
                                     "(false or true)"),
    ("one_step", {"draw_min_trains": True},
     "draw_min_trains: true is not a number for one_step; expected an integer from 0 to 200"),
])
def test_param_row_refuses_a_value_outside_its_type_and_range(strategy, overrides, message):
    """The library entry that seats a compiled strategy with parameters
    (``param_row``, which the experiment validator, the workers and the
    environments use) refuses a value of the wrong type or range in one line
    naming the parameter, the value, the strategy and the range."""
    with pytest.raises(StrategyError) as e:
        param_row(strategy, overrides)
    assert str(e.value) == message
    assert e.value.param == next(iter(overrides)) and message == f"{e.value.param}: {e.value.problem}"


def test_param_row_takes_the_bounds_and_numpy_or_boolean_values():
    """Inclusive bounds are values; a bool parameter takes false/true; numpy
    scalars are the numbers they hold."""
    search = REGISTRY["search"]
    row = param_row("search", {"budget": 1, "middle_budget": 100_000, "keep_factor": 100, "keeps": False,
                               "contested": True, "z": np.float64(-100), "claims": np.int64(3)})
    assert [row[search.index(k)] for k in ("budget", "middle_budget", "keep_factor", "keeps", "contested", "z",
                                           "claims")] == [1, 100_000, 100, 0, 1, -100, 3]
    assert param_row("search", {"budget": 64.0})[search.index("budget")] == 64


def test_parameter_columns_are_derived_from_the_specs():
    """A kernel module's ``P_<NAME>`` constants are the columns of the spec's
    parameters of that name, and every parameter has one (the planner's are
    in ``planner.params``, shared by its two parameter sets; the search's
    ``rollout_<key>`` parameters are its ``ROLLOUT_COLUMNS``, in
    ``ROLLOUT_KEYS`` order)."""
    modules = {name: planner_params if module.__name__.endswith(".planner") else module
               for name, module in KERNEL_MODULES.items()}
    for name, module in modules.items():
        spec = REGISTRY[name]
        columns = {k[2:].lower(): v for k, v in vars(module).items() if k.startswith("P_")}
        keys = getattr(module, "ROLLOUT_KEYS", ())
        assert list(getattr(module, "ROLLOUT_COLUMNS", [])) == [spec.index(f"rollout_{k}") for k in keys]
        assert columns == {p.name: spec.index(p.name) for p in spec.params
                           if p.name not in {f"rollout_{k}" for k in keys}}, name


def test_every_registered_strategy_has_its_own_dispatch_branch():
    """The dispatcher's ids are the registry's, by name; an id past the
    registry is an error, not another strategy's kernel."""
    names = {"RANDOM", "DESTINATION_HUNGRY", "ROUTE_FOCUS", "ONE_STEP", "LONG_ROUTE", "GREEDY", "PLANNER",
             "PASSENGER_HUNTER", "PLANNER_CLASSIC", "SEARCH", "PLANNER_TICKETS", "PLANNER_ROUTES"}
    assert {name.upper() for name in STRATEGY_NAMES} == names
    assert {getattr(dispatch, n) for n in names} == set(range(len(STRATEGY_NAMES)))
    assert all(getattr(dispatch, name.upper()) == strategy_id(name) for name in STRATEGY_NAMES)
    g = Game("usa", 2, seed=1)
    m = allocate_memory(g.board, 2)
    buf = legal_buffer(g.board)
    n = dispatch.legal_for(0, g.board, g.state, buf)
    with pytest.raises(ValueError, match="unknown strategy"):
        dispatch.choose(len(STRATEGY_NAMES), g.board, g.state, m, buf, n, np.zeros((2, MAX_PARAMS)))
