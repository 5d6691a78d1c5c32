"""``python -m ttrsim`` and the ``ttrsim`` command (:func:`main`).

A stop signal ends the command quietly from here on, also while it is still
importing or reading its command line: SIGINT with exit code 130, SIGTERM
with 143, no traceback (a command that has work to save, as ``ttrsim run``,
takes the signals over meanwhile: :mod:`ttrsim.cli`). Only the interpreter's
own start, before this module runs, is left to Python's defaults.

A signal can land while Python runs a callback whose exceptions it ignores
(the import system's module-lock cleanup, a ``__del__``): the ``SystemExit``
is then printed as "ignored" and the command would go on. So the handler
also starts a watchdog that ends the process with the same code a few
seconds later unless the exit happened first.

The objects a command leaves are frozen as it ends (``gc.freeze``), so the
interpreter's exit does not go through them once more: after a first run's
compile that was a second of the exit."""
import gc
import os
import signal
import threading
import time

WATCHDOG_SECONDS = 3.0


def _stop(signum, frame):
    threading.Thread(target=_exit_later, args=(128 + signum,), daemon=True).start()
    raise SystemExit(128 + signum)


def _exit_later(code: int):
    time.sleep(WATCHDOG_SECONDS)
    os._exit(code)


def main():
    """The ``ttrsim`` command line (:data:`ttrsim.cli.main`)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _stop)
    from ttrsim.cli import main as cli
    try:
        return cli()
    finally:
        gc.freeze()


if __name__ == "__main__":
    main()
