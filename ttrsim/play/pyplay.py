"""Games played step by step in Python, seating compiled strategies (by name)
and user-written Python strategies side by side.

A Python strategy is any object with one method::

    choose(observation: dict, legal_actions: list[int]) -> int

``observation`` is :meth:`ttrsim.play.game.Game.observation` for the acting seat
(public information plus its own hand, tickets and ticket offer);
``legal_actions`` are action ints (codec in :mod:`ttrsim.core.actions`;
:func:`ttrsim.core.actions.action_name` names them). A strategy may also have
``start(game, seat)``: it is told the :class:`ttrsim.play.game.Game` and its
seat before the game's first move (:class:`ttrsim.env.PolicyStrategy` reads
its tensors from it). Compiled seats choose exactly as
in :func:`ttrsim.play.loop.play_game`, so an all-compiled game here equals the
compiled game of the same seed.

>>> class FirstLegal:
...     def choose(self, observation, legal_actions):
...         return legal_actions[0]
>>> g = play("usa", 2, seed=3, seats=[FirstLegal(), "random"])
>>> g.over, g.result()["end"]
(True, 'normal')

Experiments seat a Python strategy by its class (``{python: "module:Class",
params: {...}}``, :func:`load_strategy_class`); the runner plays games with a
Python seat with :func:`play_logged_py`, which records the same tables as the
compiled loop, every call of a Python strategy under a time limit and any
failure one line (:mod:`ttrsim.play.guard`); :func:`first_difference` replays
a game to check that a strategy is deterministic. The docs and the schema of
the observation: ``docs/strategies.md`` ("The observation").
"""
from __future__ import annotations

import importlib
import inspect
import operator
import sys
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from ttrsim.core.actions import legal_buffer
from ttrsim.core.engine import apply_action, legal_actions
from ttrsim.core.state import M_PHASE, M_PLAYER, M_TURN, PH_OVER, GameState, copy_state

from .game import Game, IllegalAction
from .guard import DEFAULT_TIME_LIMIT, StrategyError, call, watching


class PythonStrategy(Protocol):
    def choose(self, observation: dict, legal_actions: list[int]) -> int: ...


def seat_list(seats: Sequence, n_players: int) -> list:
    """One entry for every seat, or one per seat; names are checked."""
    from ttrsim.strategies import strategy_id

    seats = list(seats) * n_players if len(seats) == 1 else list(seats)
    if len(seats) != n_players:
        raise ValueError(f"give one strategy or one per seat ({n_players}), got {len(seats)}")
    for seat in seats:
        if isinstance(seat, str):
            strategy_id(seat)
        elif not callable(getattr(seat, "choose", None)):
            raise ValueError(f"strategy {seat!r} is neither a strategy name nor an object with "
                             f"choose(observation, legal_actions)")
    return seats


def play(rules, n_players: int, seed: int, seats: Sequence, params: np.ndarray | None = None,
         overrides: dict | None = None, on_start: Callable[[Game], None] | None = None,
         on_step: Callable[[GameState, int, GameState], None] | None = None) -> Game:
    """Play one game to the end and return it. ``seats``: strategy names or
    Python strategy objects (one for all seats, or one per seat). ``params``:
    the compiled strategies' float64 table, one row per seat (default: each
    named strategy's defaults). ``on_start(game)`` sees the dealt game and
    ``on_step(before, action, after)`` every action with state snapshots (the
    narrator uses both)."""
    from ttrsim.strategies import param_row, strategy_id
    from ttrsim.strategies.kit.dispatch import choose, legal_for
    from ttrsim.strategies.kit.memory import allocate_memory, reset_memory

    g = Game(rules, n_players, seed, overrides)
    seats = seat_list(seats, n_players)
    ids = np.array([strategy_id(x) if isinstance(x, str) else 0 for x in seats], np.int64)
    if params is None:
        params = np.array([param_row(x, rules=g.rules, players=n_players) if isinstance(x, str)
                           else param_row("random") for x in seats])
    buf = legal_buffer(g.board)
    m = allocate_memory(g.board, n_players)
    reset_memory(m, seed)
    start_seats(g, seats)
    if on_start:
        on_start(g)
    before = copy_state(g.state) if on_step else None
    while not g.over:
        p = g.player
        if isinstance(seats[p], str):
            n = legal_for(ids[p], g.board, g.state, buf)
            a = int(choose(ids[p], g.board, g.state, m, buf, n, params))
        else:
            a = int(seats[p].choose(g.observation(p), g.legal_actions()))
        g.apply(a)
        if on_step:
            after = copy_state(g.state)
            on_step(before, a, after)
            before = after
    return g


def start_seats(game: Game, seats: Sequence) -> None:
    """Call ``start(game, seat)`` of every Python seat that has it."""
    for p, seat in enumerate(seats):
        start = getattr(seat, "start", None)
        if callable(start):
            start(game, p)


# --------------------------------------------------------------------------- classes named in experiments


class StrategyLoadError(ValueError):
    """A Python strategy reference or its parameters cannot be used: one line
    without the location; ``param`` names the parameter at fault ("" if none)."""

    def __init__(self, message: str, param: str = ""):
        super().__init__(message)
        self.param = param


def load_strategy_class(ref: str, search_path: Sequence[str] = ()) -> type:
    """The class named by ``ref`` = ``"package.module:Class"``: imported like any
    module, with the folders of ``search_path`` appended to ``sys.path`` (an
    installed module wins over a file of the same name there). The class must
    have a ``choose`` method. Raises :class:`StrategyLoadError` naming what is
    wrong and what was expected.

    >>> load_strategy_class("ttrsim.strategies.python_example:GreedyLongest").__name__
    'GreedyLongest'
    """
    import difflib

    if not isinstance(ref, str) or ref.count(":") != 1 or not all(ref.partition(":")[::2]):
        raise StrategyLoadError(f"expected 'module:Class' (e.g. 'ttrsim.strategies.python_example:GreedyLongest'), "
                                f"got {ref!r}")
    module_name, _, qualname = (x.strip() for x in ref.partition(":"))
    for d in search_path:
        if d not in sys.path:
            sys.path.append(d)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        where = f", or a .py file or package in {' or '.join(search_path)}" if search_path else ""
        raise StrategyLoadError(f"cannot import module '{module_name}' ({_one_line(e)}); expected an importable "
                                f"module (installed{where})") from None
    except Exception as e:  # noqa: BLE001 (any error while importing the user's module)
        raise StrategyLoadError(f"importing module '{module_name}' failed ({type(e).__name__}: {_one_line(e)}); "
                                "expected a module that imports cleanly") from None
    obj = module
    for part in qualname.split("."):
        if not hasattr(obj, part):
            classes = [n for n, v in vars(obj).items() if inspect.isclass(v) and not n.startswith("_")]
            close = difflib.get_close_matches(part, classes, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else \
                f"; expected one of: {', '.join(classes)}" if classes else "; expected a class name"
            raise StrategyLoadError(f"module '{module_name}' has no class '{qualname}'{hint}")
        obj = getattr(obj, part)
    if not inspect.isclass(obj):
        what = "a function" if callable(obj) else f"a {type(obj).__name__} value"
        raise StrategyLoadError(f"'{ref}' is {what}, not a class; expected a class with a "
                                "choose(observation, legal_actions) method")
    if not callable(getattr(obj, "choose", None)):
        raise StrategyLoadError(f"class '{qualname}' has no choose method; expected "
                                "choose(observation, legal_actions) -> action")
    return obj


def check_strategy_params(cls: type, ref: str, params: dict, time_limit: float = DEFAULT_TIME_LIMIT) -> dict:
    """Check that the constructor of ``cls`` (named ``ref``) accepts ``params``
    as keyword arguments: known names (with a suggestion for a typo), no
    missing required one, and ``cls(**params)`` succeeds within ``time_limit``
    seconds. Returns every constructor argument with its value (the defaults
    filled in; ``params`` when the signature cannot be read). Raises
    :class:`StrategyLoadError` (``param`` set for an unknown name)."""
    import difflib

    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        kinds = {n: p.kind for n, p in sig.parameters.items()}
        named = [n for n, k in kinds.items() if k in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                       inspect.Parameter.KEYWORD_ONLY)]
        if inspect.Parameter.VAR_KEYWORD not in kinds.values():
            for k in params:
                if k not in named:
                    close = difflib.get_close_matches(k, named, n=1)
                    hint = f"; did you mean '{close[0]}'?" if close else \
                        f"; expected one of: {', '.join(named)}" if named else "; it takes no parameters"
                    raise StrategyLoadError(f"unknown parameter of '{ref}': '{k}'{hint}", k)
        try:
            bound = sig.bind(**params)
        except TypeError as e:
            raise StrategyLoadError(f"{ref}: {_one_line(e)}; expected the parameters of its constructor") from None
        bound.apply_defaults()
        params_in_full = dict(bound.arguments)
        for k, p in sig.parameters.items():
            if p.kind == inspect.Parameter.VAR_KEYWORD:          # **kwargs: its names, as given
                params_in_full.update(params_in_full.pop(k, {}))
            elif p.kind == inspect.Parameter.VAR_POSITIONAL:
                params_in_full.pop(k, None)
    else:
        params_in_full = dict(params)
    try:
        with watching():
            call(cls, (), time_limit, lambda: (ref, "in its constructor"), params)
    except StrategyError as e:
        raise StrategyLoadError(f"{ref}({_call_args(params)}) failed ({e.what}); expected parameters its "
                                "constructor accepts" + (" within python_time_limit" if e.what.startswith("took")
                                                         else "")) from None
    return params_in_full


def _one_line(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    return lines[0] if lines else type(e).__name__


def _call_args(params: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


# --------------------------------------------------------------------------- the runner's Python-stepped loop


def build_seats(strategies: Sequence, labels: Sequence[str], seed: int,
                time_limit: float = DEFAULT_TIME_LIMIT) -> list:
    """Fresh strategy objects for the game of ``seed``: ``strategies[p]`` is a
    ``(class, parameters)`` pair, built as ``class(**parameters)`` within
    ``time_limit`` seconds, or ``None`` for a compiled seat. A constructor
    that raises, exits or takes too long is a :class:`StrategyError`."""
    return [None if x is None else
            call(x[0], (), time_limit, lambda p=p: (_who(labels, p, x[0]), f"in its constructor for the game of "
                                                                          f"seed {seed}"), x[1])
            for p, x in enumerate(strategies)]


def play_logged_py(game: Game, index: int, seed: int, seats: Sequence, strategy_ids: np.ndarray,
                   params: np.ndarray, log, with_turns: bool, hand_before: np.ndarray,
                   pass_before: np.ndarray, labels: Sequence[str] = (),
                   time_limit: float = DEFAULT_TIME_LIMIT) -> list[int]:
    """The Python-stepped twin of :func:`ttrsim.play.turnlog.play_logged`: play game
    ``seed`` on ``game`` (its board and state) recording ticket offers and (if
    ``with_turns``) turns into ``log`` under game index ``index``; returns the
    actions played. ``seats[p]`` is a Python strategy object, or ``None`` for
    the compiled strategy ``strategy_ids[p]`` (parameters ``params[p]``; the
    compiled seats share a strategy memory made for the game and reset from
    ``seed``, as in the compiled loop). Every action is recorded and applied by
    the same compiled :func:`ttrsim.play.turnlog.log_step` as in the compiled
    loop, so the same decisions give the same log rows.

    A Python seat's ``choose`` runs within ``time_limit`` seconds
    (:func:`ttrsim.play.guard.call`): one that raises, exits or takes too long
    is a :class:`StrategyError`, one that returns anything but a legal action
    an :class:`ttrsim.play.game.IllegalAction`, each one line naming the
    strategy (``labels[p]``), the game seed and the turn."""
    from .turnlog import log_finish, log_step

    b, s = game.board, game.state
    row = -1
    first_offer = int(log.n_offers[0])
    actions = []
    for a in _decisions(game, seed, seats, strategy_ids, params, labels, time_limit):
        row = log_step(b, s, index, a, log, with_turns, row, hand_before, pass_before)
        actions.append(a)
    log_finish(b, s, log, first_offer)
    return actions


def first_difference(game: Game, seed: int, seats: Sequence, strategy_ids: np.ndarray, params: np.ndarray,
                     actions: Sequence[int], labels: Sequence[str] = (),
                     time_limit: float = DEFAULT_TIME_LIMIT) -> tuple[int, int] | None:
    """Play the game of ``seed`` again with ``seats`` (fresh objects) and
    compare its decisions with ``actions`` (what :func:`play_logged_py`
    returned): ``None`` when they are the same, else ``(seat, turn)`` of the
    first decision that differs (a Python seat's: the compiled ones are
    deterministic). The runner's cheap check of a strategy's determinism."""
    for i, a in enumerate(_decisions(game, seed, seats, strategy_ids, params, labels, time_limit)):
        if i >= len(actions) or a != actions[i]:
            return game.player, game.turn
        apply_action(game.board, game.state, a)
    return None


def _decisions(game: Game, seed: int, seats: Sequence, strategy_ids: np.ndarray, params: np.ndarray,
               labels: Sequence[str], time_limit: float):
    """Deal the game of ``seed`` and yield the action of every decision (the
    caller applies it before asking for the next)."""
    from ttrsim.strategies.kit.dispatch import choose, legal_for
    from ttrsim.strategies.kit.memory import allocate_memory, reset_memory

    b, s, buf = game.board, game.state, game._buf
    m = allocate_memory(b, s.hand.shape[0])
    game.reset(seed)
    reset_memory(m, seed)
    start_seats(game, seats)
    meta = s.meta
    while meta[M_PHASE] != PH_OVER:
        p = int(meta[M_PLAYER])
        seat = seats[p]
        if seat is None:
            n = legal_for(strategy_ids[p], b, s, buf)
            yield int(choose(strategy_ids[p], b, s, m, buf, n, params))
            continue
        n = legal_actions(b, s, buf)
        legal = buf[:n].tolist()
        raw = call(seat.choose, (game.observation(p), legal), time_limit,
                   lambda: (_who(labels, p, type(seat)), f"in the game of seed {seed}, turn {int(meta[M_TURN])}"))
        try:
            a = operator.index(raw)
        except TypeError:
            a = None
        if a is None or a not in legal:
            raise IllegalAction(f"{_who(labels, p, type(seat))} returned {_shown(raw)} in the game of seed {seed}, "
                                f"turn {int(meta[M_TURN])}; expected one of its {n} legal actions")
        yield a


def _who(labels: Sequence[str], p: int, cls: type) -> str:
    return f"strategy {labels[p] if p < len(labels) else cls.__name__} (seat {p})"


def _shown(value) -> str:
    """A returned value for a message: its repr, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
