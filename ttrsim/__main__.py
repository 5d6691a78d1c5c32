"""``python -m ttrsim`` and the ``ttrsim`` command (:func:`main`).

A stop signal ends the command quietly from here on, also while it is still
importing or reading its command line: SIGINT with exit code 130, SIGTERM
with 143, no traceback (a command that has work to save, as ``ttrsim run``,
takes the signals over meanwhile: :mod:`ttrsim.cli`). Only the interpreter's
own start, before this module runs, is left to Python's defaults."""
import signal


def _stop(signum, frame):
    raise SystemExit(128 + signum)


def main():
    """The ``ttrsim`` command line (:data:`ttrsim.cli.main`)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _stop)
    from ttrsim.cli import main as cli
    return cli()


if __name__ == "__main__":
    main()
