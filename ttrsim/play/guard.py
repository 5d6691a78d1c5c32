"""Calling a user's Python strategy: a time limit on every call, and whatever
goes wrong reported as one line.

:func:`call` runs a strategy's constructor or its ``choose`` and returns what
it returned. When the call raises, calls ``sys.exit`` or runs past ``limit``
seconds it raises :class:`StrategyError` instead, one line naming the
strategy and the moment (``context()`` returns them, ``(who, when)``: built
only for the message), what happened and the last line of the strategy's own
traceback:

>>> import time
>>> def boom():
...     raise ValueError("no route")
>>> call(boom, (), 10, lambda: ("strategy mine (seat 1)", "in the game of seed 5, turn 12"))
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ttrsim.play.guard.StrategyError: strategy mine (seat 1) raised ValueError: no route in the game of seed 5, turn 12 (at <doctest ...>, line 2, in boom: raise ValueError("no route"))
>>> with watching():
...     call(time.sleep, (5,), 0.2, lambda: ("strategy slow (seat 0)", "in its constructor"))
Traceback (most recent call last):
...
ttrsim.play.guard.StrategyError: strategy slow (seat 0) took more than 0.2 s in its constructor (python_time_limit is 0.2 s; expected a faster strategy or a larger limit)

The time limit. A watchdog thread (one per process, started on first use)
looks at the running call every ``TICK`` seconds; past its limit it
interrupts it: in the main thread inside :func:`watching` with ``SIGALRM``,
which stops Python code and also wakes a blocking ``sleep`` or read;
elsewhere (a Dask worker's task thread) with an asynchronous exception, which
stops Python code but not a call blocked inside C code (there the limit is
not enforced; ``docs/reliability.md``). The interruption is a
:class:`StrategyTimeout`, a ``BaseException``, so a strategy's ``except
Exception`` does not swallow it; a strategy that swallows it anyway is still
reported as too slow when it returns.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
import time
import traceback

DEFAULT_TIME_LIMIT = 10.0      # seconds a Python strategy may take for one decision or its constructor
TICK = 0.05                    # seconds between the watchdog's looks


class StrategyError(ValueError):
    """A Python strategy failed: it raised, called ``sys.exit`` or took too
    long. The message is one line naming the strategy, the game seed and the
    turn; ``what`` is what happened alone (``ValueError: ...``, ``called
    sys.exit(3)``, ``took more than 10 s``)."""

    def __init__(self, message: str, what: str = ""):
        super().__init__(message)
        self.what = what

    def __reduce__(self):                   # unpickled whole in the main process
        return type(self), (str(self), self.what)


class StrategyTimeout(BaseException):
    """Raised inside a strategy's code when its time is up."""


class _Slot:
    """The call running in one thread: ``token`` counts the calls, ``fired``
    is the token of the call the watchdog interrupted."""
    __slots__ = ("token", "deadline", "limit", "active", "fired", "main")

    def __init__(self, main: bool):
        self.token, self.deadline, self.limit, self.active, self.fired, self.main = 0, 0.0, 0.0, False, -1, main


_LOCK = threading.Lock()
_SLOTS: dict[int, _Slot] = {}
_WATCHDOG: list = []              # the watchdog thread of this process (a fork starts its own)
_ALARM = {"installed": 0}         # watching() depth in the main thread


def _after_fork():
    global _LOCK
    _LOCK = threading.Lock()
    _SLOTS.clear()
    _WATCHDOG.clear()
    _ALARM["installed"] = 0


os.register_at_fork(after_in_child=_after_fork)


def _slot() -> _Slot:
    ident = threading.get_ident()
    slot = _SLOTS.get(ident)
    if slot is None:
        with _LOCK:
            slot = _SLOTS[ident] = _Slot(threading.current_thread() is threading.main_thread())
        _start_watchdog()
    return slot


def _start_watchdog():
    with _LOCK:
        if _WATCHDOG and _WATCHDOG[0][0] == os.getpid():
            return
        t = threading.Thread(target=_watch, name="ttrsim-strategy-watchdog", daemon=True)
        _WATCHDOG[:] = [(os.getpid(), t)]
    t.start()


def _watch():
    while True:
        time.sleep(TICK)
        now = time.monotonic()
        with _LOCK:
            for ident, slot in _SLOTS.items():
                if slot.active and now > slot.deadline:
                    slot.fired = slot.token
                    slot.deadline = now + max(slot.limit, 1.0)    # again, should the strategy swallow it
                    if slot.main and _ALARM["installed"]:
                        signal.pthread_kill(ident, signal.SIGALRM)
                    else:
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident),
                                                                   ctypes.py_object(StrategyTimeout))


def _on_alarm(signum, frame):
    slot = _SLOTS.get(threading.get_ident())
    if slot is not None and slot.active and slot.fired == slot.token:
        raise StrategyTimeout


@contextlib.contextmanager
def watching():
    """Let the watchdog interrupt calls of this (main) thread with ``SIGALRM``
    (the previous handler is restored at the end); elsewhere a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _on_alarm) if not _ALARM["installed"] else None
    _ALARM["installed"] += 1
    try:
        yield
    finally:
        _ALARM["installed"] -= 1
        if not _ALARM["installed"]:
            signal.signal(signal.SIGALRM, previous)


def call(fn, args: tuple, limit: float, context, kwargs: dict | None = None):
    """``fn(*args, **kwargs)`` within ``limit`` seconds, or :class:`StrategyError`."""
    slot = _slot()
    slot.token += 1
    slot.limit = limit
    slot.deadline = time.monotonic() + limit
    slot.active = True
    error = None
    try:
        value = fn(*args, **kwargs) if kwargs else fn(*args)
    except StrategyTimeout as e:
        error = e
    except SystemExit as e:
        error = e
    except Exception as e:  # noqa: BLE001 (any error of the user's strategy)
        error = e
    finally:
        with _LOCK:
            slot.active = False
            fired = slot.fired == slot.token
            if fired and not slot.main:      # an exception sent but not yet raised: withdraw it
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(threading.get_ident()), None)
    if error is None and not fired:
        return value
    who, when = context()
    at = _last_line(error) if error is not None else None
    if fired or isinstance(error, StrategyTimeout):
        what = f"took more than {limit:g} s"
        tail = f" ({'stopped at ' + at + '; ' if at else ''}python_time_limit is {limit:g} s; expected a faster " \
               "strategy or a larger limit)"
        raise StrategyError(f"{who} {what} {when}{tail}", what) from None
    if isinstance(error, SystemExit):
        what, verb = f"called sys.exit({error.code!r})", ""
    else:
        text = str(error).strip().splitlines()
        what, verb = f"{type(error).__name__}{': ' + text[0] if text else ''}", "raised "
    raise StrategyError(f"{who} {verb}{what} {when}{f' (at {at})' if at else ''}", what) from None


def _last_line(error: BaseException) -> str | None:
    """The innermost frame of the error's traceback, outside this module:
    ``file, line N, in function: code`` (None without one)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename != __file__]
    if not frames:
        return None
    f = frames[-1]
    code = f" {f.line.strip()}" if f.line else ""
    return f"{os.path.basename(f.filename)}, line {f.lineno}, in {f.name}:{code}"
