"""A sweep point's rules and board, resolved and built once per process.

The validator resolves every sweep point's rules once
(:func:`resolved_rules`) and keeps them with the point
(:attr:`~ttrsim.experiment.schema.Point.rules`), building its board to check
them; a worker needs the same board to play the point's chunks. Boards are
compiled records (numba StructRefs) that are not sent between processes:
what travels is the resolved :class:`~ttrsim.data.rules.RuleSet`, and
:func:`point_board` builds the board of a rule set once per process (the
validator's boards serve the chunks a run plays in its own process). The map
file is parsed once per process too (:func:`ttrsim.data.maps.load_map`
memoizes it by name, a file by its content), and a board kept here is used
again only while its map's file is unchanged.

Boards are read-only (the game state is separate), so one board serves every
thread and every :class:`~ttrsim.play.game.Game` of its rules.
"""
from __future__ import annotations

import threading

from ttrsim.core.board import build_board
from ttrsim.data.interventions import played_map
from ttrsim.data.maps import load_map
from ttrsim.data.rules import RuleSet, get_rules

KEPT = 32                     # boards kept per process (a tune runs many rule sets one after another)
_BOARDS: dict = {}            # RuleSet -> (the map file's MapData, the played map, the board)
_RULES: dict = {}             # (preset, overrides as text) -> RuleSet
_LOCK = threading.Lock()


def resolved_rules(preset: str, overrides: dict) -> RuleSet:
    """The rules of ``preset`` with ``overrides``
    (:func:`~ttrsim.data.rules.get_rules`), their board built (the check
    that they fit the map: :func:`point_board`); a ``RulesError`` says what
    is wrong. Resolved once per process."""
    key = (preset, repr(sorted(overrides.items())))
    rules = _RULES.get(key)
    if rules is None:
        rules = get_rules(preset, overrides)
    point_board(rules)                # (again for a map file edited since)
    with _LOCK:
        if key not in _RULES and len(_RULES) >= KEPT:
            _RULES.pop(next(iter(_RULES)))
        _RULES[key] = rules
    return rules


def point_board(rules: RuleSet) -> tuple:
    """(the map as played, the board) of ``rules``, built once per process
    (a ``RulesError`` when the rules do not fit the map, as
    :func:`~ttrsim.core.board.build_board` says)."""
    source = load_map(rules.map)
    kept = _BOARDS.get(rules)
    if kept is not None and kept[0] is source:
        return kept[1], kept[2]
    played = played_map(rules, source)
    board = build_board(rules, played)
    with _LOCK:
        if rules not in _BOARDS and len(_BOARDS) >= KEPT:
            _BOARDS.pop(next(iter(_BOARDS)))
        _BOARDS[rules] = (source, played, board)
    return played, board


def clear():
    """Forget the rules and boards kept (tests)."""
    with _LOCK:
        _BOARDS.clear()
        _RULES.clear()
