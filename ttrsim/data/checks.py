"""Small checks and phrases shared by every validator of user input (map
files, rule parameters, experiment files), so their messages read alike.

>>> is_int(3), is_int(True), is_number(2.5)
(True, False, True)
>>> describe([1]), describe(None), describe(True)
('a list', 'nothing (null)', 'a boolean')
>>> kind(4), kind("x"), kind(False), kind({"a": 1})
('4', "'x'", 'false', 'a mapping')
>>> close_match("trainz", ["trains", "face_up"])
'trains'
>>> did_you_mean("trainz", ["trains", "face_up"]), did_you_mean("zzz", ["trains", "face_up"])
("; did you mean 'trains'?", '; expected one of: trains, face_up')
"""
from __future__ import annotations

import difflib

__all__ = ["is_int", "is_number", "describe", "kind", "close_match", "did_you_mean"]

# Checked in order with isinstance (bool before int: True is an int).
_TYPE_NAMES = ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "a string"),
               (list, "a list"), (dict, "a mapping"), (type(None), "nothing (null)"))


def is_int(v) -> bool:
    """An integer that is not a boolean."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v) -> bool:
    """An integer or a float, not a boolean."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def describe(v) -> str:
    """The kind of value ``v`` is, for "expected X, got Y" messages: ``'a list'``."""
    return next((name for typ, name in _TYPE_NAMES if isinstance(v, typ)), type(v).__name__)


def kind(v) -> str:
    """``v`` itself when it is short (a number, text, true/false), else what it is."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, str)):
        return repr(v)
    return describe(v)


def close_match(name, options) -> str | None:
    """The option closest to ``name`` (a likely typo), or None."""
    close = difflib.get_close_matches(str(name), [str(o) for o in options], n=1)
    return close[0] if close else None


def did_you_mean(name, options) -> str:
    """``"; did you mean 'x'?"``, or else ``"; expected one of: a, b"``."""
    close = close_match(name, options)
    return f"; did you mean '{close}'?" if close else f"; expected one of: {', '.join(map(str, options))}"
