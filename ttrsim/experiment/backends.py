"""Where chunks run: in this process, on a local process pool, or on Dask.

Every backend has ``warm_up(spec, guard)`` (the chunk loop compiled, or
loaded from the cache, where the chunks will run, before the first is
submitted), ``submit(fn, *args) -> future``, ``wait_any(futures) ->
finished futures`` (it returns at least every ``WAIT_TICK`` seconds, maybe
with nothing finished, so that the run can look at its signals) and
``close(kill)``, and says whether a signal may interrupt its calls
(``atomic``: the run then acts on a signal only between them);
:func:`make_backend` picks one for an experiment:

* ``local`` with one worker: :class:`InlineBackend` (chunks run in this process);
* ``local``: :class:`LocalBackend`, joblib's loky process pool (``workers``
  processes), kept warm between calls;
* ``dask``: :class:`DaskBackend`, a ``distributed`` cluster at ``scheduler``, or
  a ``LocalCluster`` of ``workers`` processes started for the run. Before the
  first chunk every worker compiles the chunk loop (or loads it from the
  numba cache), also a worker that joins later (:meth:`DaskBackend.warm_up`,
  :mod:`ttrsim.experiment.cluster`), in ``cache_dir`` when it is given.

Worker processes started for the run (the local pool, a LocalCluster's
workers and nannies) watch this process and end when it is gone
(:func:`ttrsim.experiment.worker.watch_parent`), also after ``kill -9``. A
Dask cluster with no worker connected is said once, waited for, and given up
after ``worker_timeout`` seconds with a one-line error.

A stopped run's local pool (``close(kill=True)``) is ended by this process
itself: every worker is killed with SIGKILL and reaped, whatever it was doing
(starting, playing, or writing a result to its pipe), so that no worker is
left and nothing waits on a pipe at exit (loky's own kill path fails on a
cancelled future and then leaves its workers blocked). The local pool's
workers ignore SIGINT: a Ctrl-C in a terminal reaches the whole process group,
and stopping the run is this process's to do.
"""
from __future__ import annotations

import logging
import os
import signal
import threading
import time
import weakref
from concurrent.futures import FIRST_COMPLETED
from concurrent.futures import wait as cf_wait
from contextlib import contextmanager, nullcontext, suppress

from joblib.externals.loky import get_reusable_executor

from .config import Experiment, ExperimentError
from .worker import prepare, warm_up, watch_parent

WAIT_TICK = 0.25      # seconds: the longest wait_any blocks
KILL_WAIT = 5.0       # seconds to wait for a killed pool's worker (and loky's manager thread) to be gone
MANAGER_WAIT = 0.5    # seconds a killed pool's manager thread gets to end by itself
_KILLED = weakref.WeakSet()       # manager threads of pools killed here


def _quiet_killed_managers(hook):
    """``threading.excepthook`` silent on an ``OSError`` of a killed pool's
    manager thread (closing a pipe this process closed as it killed the
    pool: nothing is lost, the pool is gone)."""
    def excepthook(args):
        if not (args.thread in _KILLED and issubclass(args.exc_type, OSError)):
            hook(args)
    return excepthook


threading.excepthook = _quiet_killed_managers(threading.excepthook)


@contextmanager
def sigint_blocked():
    """SIGINT blocked in this thread meanwhile: a process it starts inherits
    the block through ``exec`` (Python leaves it so), and ignores Ctrl-C for
    good. A SIGINT that comes meanwhile is acted on at the end. POSIX only."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


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
    parent = None                     # no worker process to watch this one
    atomic = False                    # a signal stops a chunk played here at once (between slices)

    def warm_up(self, spec: dict, guard=nullcontext):
        """Compile (or load) the chunk loop of ``spec`` here."""
        warm_up(spec)

    def submit(self, fn, *args):
        return _Done(fn, args)

    def wait_any(self, futures):
        return list(futures)

    def close(self, kill=False):
        pass


class LocalBackend:
    """joblib's loky process pool (reused between runs, so workers stay warm);
    each worker watches this process from its start and ignores SIGINT (it
    is started with SIGINT blocked: :func:`sigint_blocked`). Its calls are
    ``atomic``: loky's bookkeeping (a future's lock, a work item half
    queued, a worker half started) must not be left by an exception."""
    name = "local"
    atomic = True

    def __init__(self, workers: int):
        self.parent, self.workers = os.getpid(), workers
        with sigint_blocked():            # loky's resource tracker may start here
            self.executor = get_reusable_executor(max_workers=workers, timeout=300, initializer=watch_parent,
                                                  initargs=(self.parent,))

    def warm_up(self, spec: dict, guard=nullcontext):
        """Start the workers on ``spec`` (the imports and the table:
        :func:`~ttrsim.experiment.worker.prepare`) while this process
        compiles the chunk loop they then load from the cache; ``guard()``
        around every call into the pool (the run's signal deferral)."""
        for _ in range(self.workers):
            with guard():
                self.submit(prepare, spec)
        warm_up(spec)

    def submit(self, fn, *args):
        with sigint_blocked():            # the workers start in the first submit
            return self.executor.submit(fn, *args)

    def wait_any(self, futures):
        return cf_wait(list(futures), timeout=WAIT_TICK, return_when=FIRST_COMPLETED).done

    def close(self, kill=False):
        """``kill``: end the pool now (a stopped or failed run). Its workers
        are killed and reaped here; loky's manager thread then finds the pool
        broken and ends (the parent's end of the result pipe is closed, so
        that a result a killed worker left half-written reads as the end of
        the pipe, not as a wait for ever); the next run starts a new pool."""
        if not kill:
            return
        ex = self.executor
        workers = list(getattr(ex, "_processes", {}).values())
        for p in workers:
            try:
                os.kill(p.pid, getattr(signal, "SIGKILL", signal.SIGTERM))  # (loky's processes have no kill())
            except (OSError, TypeError, ValueError):        # gone already, or never started (no pid)
                pass
        for p in workers:
            try:
                p.join(KILL_WAIT)
            except (AssertionError, ValueError):              # never started, or closed
                pass
        manager = getattr(ex, "_executor_manager_thread", None)
        if manager is not None:
            _KILLED.add(manager)
            manager.join(MANAGER_WAIT)        # it mostly sees the pool broken and closes the pipes itself
        results = getattr(ex, "_result_queue", None)
        if workers and results is not None and manager is not None and manager.is_alive():
            results._writer.close()
        if manager is not None and manager.is_alive():
            manager.join(KILL_WAIT)


class DaskBackend:
    """A Dask ``distributed`` cluster: the given scheduler or a LocalCluster
    (whose nannies and workers watch this process). ``cache_dir``: the
    workers' numba cache folder (``NUMBA_CACHE_DIR``; a LocalCluster's workers
    get it in their environment, the others from the warm-up plugin)."""
    name = "dask"
    atomic = False

    def __init__(self, workers: int, scheduler: str | None, worker_timeout: float, echo,
                 cache_dir: str | None = None):
        # imported here: distributed takes seconds to import and only this backend needs it
        from distributed import Client, LocalCluster, wait
        self._wait = wait
        self.cluster = None
        self.parent = None
        self.worker_timeout, self.echo, self.cache_dir = worker_timeout, echo, cache_dir
        self.idle_since = None           # when no worker was first seen connected
        self.plugin = None               # the name of this run's warm-up plugin, once registered
        if scheduler:
            try:
                self.client = Client(scheduler, timeout="20s")
            except OSError as e:
                raise ExperimentError(f"scheduler: cannot reach the Dask scheduler at {scheduler} ({e}); "
                                      "expected a running scheduler address") from None
            self.address = scheduler
        else:
            self.parent = os.getpid()
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        dashboard_address=None, silence_logs=logging.ERROR,
                                        env={"NUMBA_CACHE_DIR": cache_dir} if cache_dir else None)
            self.client = Client(self.cluster)
            self.address = self.cluster.scheduler_address
            for nanny in (True, False):
                self.client.run(watch_parent, self.parent, nanny=nanny)
        # the client's own error log (a traceback when it cannot reconnect to a lost scheduler) is left out
        # while the run holds it: the run says what went wrong in one line (lost)
        self._client_log = logging.getLogger("distributed.client")
        self._client_level = self._client_log.level
        self._client_log.setLevel(logging.CRITICAL)

    def warm_up(self, spec: dict, guard=None):
        """Make every worker compile (or load) the chunk loop of ``spec``
        before the first chunk is submitted, and say how long the slowest
        took: a worker plugin (:class:`ttrsim.experiment.cluster.WarmUp`), so
        that a worker joining later does the same before its first task.
        When the workers share a cache (``cache_dir``, or a LocalCluster) one
        of them warms up first, alone, and the others load its work. The
        plugin is this run's (removed by :meth:`close`). A Python strategy's
        error is raised as it is; any other failure is one line. (``guard``:
        unused; a signal may interrupt the client's calls.)"""
        import uuid

        from ttrsim.play.game import IllegalAction
        from ttrsim.play.guard import StrategyError

        from .cluster import WarmUp, warm_alone, warm_up_lines, warm_up_report
        name = f"ttrsim-warm-up-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        plugin, first = WarmUp(spec, self.cache_dir), {}
        try:
            if self.cache_dir or self.cluster is not None:      # one cache for all: one compiles, the others load
                workers = sorted(self.client.scheduler_info().get("workers") or {})
                if len(workers) > 1:
                    first = self.client.run(warm_alone, plugin, workers=workers[:1])
            self.client.register_plugin(plugin, name=name)
            self.plugin = name
            reports = self.client.run(warm_up_report, name)
            reports.update({a: r for a, r in first.items() if a in reports})    # its compile, not its second look
        except (StrategyError, IllegalAction):
            raise
        except Exception as e:          # a worker's error, whatever it is, is one line
            text = str(e).strip().splitlines()
            raise ExperimentError(f"scheduler: a Dask worker could not compile the kernels ({type(e).__name__}: "
                                  f"{text[0] if text else ''}); expected workers with ttrsim installed, the same "
                                  "version as here") from e
        for line in warm_up_lines(reports, self.cache_dir):
            self.echo(line)

    def submit(self, fn, *args):
        try:
            return self.client.submit(fn, *args, pure=False)
        except Exception as e:
            raise (self.lost(e) or e) from e

    def wait_any(self, futures):
        try:
            try:
                done = self._wait(list(futures), timeout=WAIT_TICK, return_when="FIRST_COMPLETED").done
            except TimeoutError:
                done = set()
            if not done:
                self._check_workers()
            return done
        except ExperimentError:
            raise
        except Exception as e:
            raise (self.lost(e) or e) from e

    def lost(self, e: BaseException) -> ExperimentError | None:
        """The one line of ``e`` when it comes from a lost scheduler (the
        client cancelled the chunks in flight, or has given up reconnecting
        and closed); None otherwise. (The run itself cancels only futures it
        no longer waits for.)"""
        if self.client.status == "running" and type(e).__name__ not in ("FuturesCancelledError", "CancelledError"):
            return None
        return ExperimentError(f"scheduler: lost the connection to the Dask scheduler at {self.address}; expected "
                               "a scheduler that runs until the run ends")

    def _check_workers(self):
        """Say when no worker is connected, and give up after ``worker_timeout`` seconds."""
        if self.client.scheduler_info(n_workers=1).get("workers"):
            if self.idle_since is not None:
                self.echo("a Dask worker connected: running")
            self.idle_since = None
            return
        t = time.monotonic()
        if self.idle_since is None:
            self.idle_since = t
            self.echo(f"waiting for a Dask worker: none is connected to the scheduler at {self.address} "
                      f"(giving up after {self.worker_timeout:g} s)")
        elif t - self.idle_since > self.worker_timeout:
            raise ExperimentError(f"scheduler: no Dask worker connected to {self.address} for "
                                  f"{self.worker_timeout:g} s; expected running workers (start some with "
                                  f"'dask worker {self.address}', or raise worker_timeout)")

    def close(self, kill=False):
        try:
            if self.plugin is not None and self.cluster is None and self.client.status == "running":
                with suppress(Exception):      # (the scheduler may be gone)
                    self.client.unregister_worker_plugin(self.plugin)
            self.client.close()
        finally:
            try:
                if self.cluster is not None:
                    self.cluster.close()
            finally:
                self._client_log.setLevel(self._client_level)


def make_backend(exp: Experiment, echo):
    """The backend of an experiment; ``echo`` prints its notes."""
    if exp.backend == "dask":
        return DaskBackend(exp.workers, exp.scheduler, exp.worker_timeout, echo, exp.cache_dir)
    if exp.workers == 1:
        return InlineBackend()
    return LocalBackend(exp.workers)
