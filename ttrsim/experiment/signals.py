"""The exception a run stops with on SIGINT or SIGTERM, light to import: the
CLI raises it from its own handlers while it is still importing the runner,
the runner from its handlers once a run is on (docs/reliability.md)."""
import signal


class Interrupted(KeyboardInterrupt):
    """A run stopped by a signal: ``signum`` is SIGINT (Ctrl-C) or SIGTERM.

    A subclass on purpose: a plain KeyboardInterrupt that escapes an ``exec``
    of a string (dataclasses and namedtuples do that while a module is
    imported) marks the interpreter to end by SIGINT even after it is caught,
    so ``sys.exit(143)`` would become "killed by SIGINT"; CPython marks only
    the exact type."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
