"""Where chunks run: in this process, on a local process pool, or on Dask.

Every backend has ``submit(fn, *args) -> future``, ``wait_any(futures) ->
finished futures`` and ``close(kill)``; :func:`make_backend` picks one for an
experiment:

* ``local`` with one worker: :class:`InlineBackend` (chunks run in this process);
* ``local``: :class:`LocalBackend`, joblib's loky process pool (``workers``
  processes), kept warm between calls;
* ``dask``: :class:`DaskBackend`, a ``distributed`` cluster at ``scheduler``, or
  a ``LocalCluster`` of ``workers`` processes started for the run.
"""
from __future__ import annotations

import logging
from concurrent.futures import FIRST_COMPLETED
from concurrent.futures import wait as cf_wait

from joblib.externals.loky import get_reusable_executor

from .config import Experiment, ExperimentError


class _Done:
    """A finished 'future' of the in-process backend."""

    def __init__(self, fn, args):
        try:
            self._value, self._error = fn(*args), None
        except Exception as e:  # noqa: BLE001 (re-raised by result())
            self._value, self._error = None, e

    def result(self):
        if self._error is not None:
            raise self._error
        return self._value

    def cancel(self):
        return False


class InlineBackend:
    """``workers: 1`` on the local backend: chunks run in this process."""
    name = "local"

    def submit(self, fn, *args):
        return _Done(fn, args)

    def wait_any(self, futures):
        return list(futures)

    def close(self, kill=False):
        pass


class LocalBackend:
    """joblib's loky process pool (reused between runs, so workers stay warm)."""
    name = "local"

    def __init__(self, workers: int):
        self.executor = get_reusable_executor(max_workers=workers, timeout=300)

    def submit(self, fn, *args):
        return self.executor.submit(fn, *args)

    def wait_any(self, futures):
        return cf_wait(list(futures), return_when=FIRST_COMPLETED).done

    def close(self, kill=False):
        if kill:
            self.executor.shutdown(wait=False, kill_workers=True)


class DaskBackend:
    """A Dask ``distributed`` cluster: the given scheduler or a LocalCluster."""
    name = "dask"

    def __init__(self, workers: int, scheduler: str | None):
        # imported here: distributed takes seconds to import and only this backend needs it
        from distributed import Client, LocalCluster, wait
        self._wait = wait
        self.cluster = None
        if scheduler:
            try:
                self.client = Client(scheduler, timeout="20s")
            except OSError as e:
                raise ExperimentError(f"scheduler: cannot reach the Dask scheduler at {scheduler} ({e}); "
                                      "expected a running scheduler address") from None
        else:
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        dashboard_address=None, silence_logs=logging.ERROR)
            self.client = Client(self.cluster)

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def wait_any(self, futures):
        return self._wait(list(futures), return_when="FIRST_COMPLETED").done

    def close(self, kill=False):
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()


def make_backend(exp: Experiment):
    if exp.backend == "dask":
        return DaskBackend(exp.workers, exp.scheduler)
    if exp.workers == 1:
        return InlineBackend()
    return LocalBackend(exp.workers)
