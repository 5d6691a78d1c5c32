"""Dask workers made ready for a run: the kernels compiled before the first chunk.

:class:`WarmUp` is a ``distributed`` worker plugin. The Dask backend
(:meth:`ttrsim.experiment.backends.DaskBackend.warm_up`) registers it with
``Client.register_plugin``: every worker connected then runs its ``setup``, and
so does every worker that joins the cluster later, before it takes its first
task. ``setup`` points ttrsim's compiled-code cache at the run's ``cache_dir``
(``NUMBA_CACHE_DIR``, when given), then compiles the chunk loop the run needs,
or loads it from the cache, by playing one game of the first sweep point
(:func:`ttrsim.experiment.worker.warm_up`, what the local backend does in the
run's own process), in the worker's task thread pool, so that the worker
keeps talking to the scheduler meanwhile and a chunk an interrupted run left
running there ends first. The game is thrown away: results never depend on
it.
When the workers share one cache (``cache_dir`` given, or a LocalCluster's
workers on this machine) one worker warms up alone first
(:func:`warm_alone`), so that the others load what it compiled instead of
compiling it again at the same time.

This module imports no ttrsim kernels: a worker unpickles the plugin first,
and ttrsim fixes its cache folder when its compiled modules are imported (the
run's point spec travels pickled and is read only after ``NUMBA_CACHE_DIR`` is
set). A worker that had imported them before, for an earlier run, keeps its
folder: its report says which (:func:`warm_up_lines` notes it).
"""
from __future__ import annotations

import asyncio
import os
import pickle
import time

from distributed.diagnostics.plugin import WorkerPlugin


class WarmUp(WorkerPlugin):
    """Compile (or load) the run's chunk loop on a worker before its first
    chunk; ``report`` (after ``setup``): the seconds it took, the functions
    compiled (0: all loaded from the cache) and the cache folder used."""

    def __init__(self, spec: dict, cache_dir: str | None = None):
        self.spec = pickle.dumps(spec)          # read on the worker after NUMBA_CACHE_DIR is set
        self.cache_dir = cache_dir
        self.report = None

    async def setup(self, worker):
        # in the worker's own task threads: after a chunk still running there (one an earlier run left),
        # and the chunks that follow find the loop's buffers made
        self.report = await asyncio.get_running_loop().run_in_executor(worker.executor, self.warm)

    def warm(self) -> dict:
        t0 = time.perf_counter()
        if self.cache_dir:
            os.environ["NUMBA_CACHE_DIR"] = self.cache_dir
        from ttrsim.experiment.worker import warm_up
        from ttrsim.jit.cache import CompileWatch, cache_dir
        spec = pickle.loads(self.spec)
        with CompileWatch() as watch:
            warm_up(spec)
        return {"seconds": time.perf_counter() - t0, "compiled": watch.units, "cache": str(cache_dir()),
                "pid": os.getpid()}


async def warm_alone(plugin: WarmUp, dask_worker=None) -> dict:
    """``plugin``'s warm-up on this worker alone (for ``Client.run`` on one
    worker, before the plugin is registered on all: on a cache they share,
    the others then load what it compiled); returns its report."""
    return await asyncio.get_running_loop().run_in_executor(dask_worker.executor, plugin.warm)


def warm_up_report(name: str, dask_worker=None) -> dict | None:
    """The report of the :class:`WarmUp` plugin ``name`` on this worker (for
    ``Client.run``); None while it is still warming up, or without it."""
    plugin = dask_worker.plugins.get(name) if dask_worker is not None else None
    return getattr(plugin, "report", None)


def warm_up_lines(reports: dict, cache_dir: str | None = None) -> list[str]:
    """The run's lines about its workers' warm-up: ``reports`` maps a worker's
    address to its :class:`WarmUp` report (None: not ready yet).

    >>> warm_up_lines({"tcp://a:1": {"seconds": 41.27, "compiled": 180, "cache": "/c/numba-1"},
    ...               "tcp://b:1": {"seconds": 39.0, "compiled": 180, "cache": "/c/numba-1"}})
    ['dask: 2 workers ready, kernels compiled in 41.3 s (slowest worker)']
    >>> warm_up_lines({"tcp://a:1": {"seconds": 0.8, "compiled": 0, "cache": "/c/numba-1"}})
    ['dask: 1 worker ready, kernels loaded from the numba cache in 0.8 s (slowest worker)']
    >>> warm_up_lines({"tcp://a:1": {"seconds": 30.0, "compiled": 9, "cache": "/c/numba-1"},
    ...               "tcp://b:1": {"seconds": 2.0, "compiled": 0, "cache": "/c/numba-1"}})
    ['dask: 2 workers ready, kernels compiled in 30.0 s (slowest worker; compiled on 1, loaded from the cache on 1)']
    >>> warm_up_lines({"tcp://a:1": {"seconds": 1.0, "compiled": 0, "cache": "/home/u/.cache/ttrsim/numba-1"}},
    ...              "/shared/numba")[1]
    'note: 1 Dask worker (tcp://a:1) keeps its cache in /home/u/.cache/ttrsim/numba-1, not under cache_dir /shared/numba: it had loaded ttrsim before; restart it to use cache_dir'
    >>> warm_up_lines({})
    ['dask: no worker connected yet; each compiles the kernels as it joins, before its first chunk']
    """
    ready = {a: r for a, r in reports.items() if r is not None}
    if not ready:
        return ["dask: no worker connected yet; each compiles the kernels as it joins, before its first chunk"]
    n = len(ready)
    slowest = max(r["seconds"] for r in ready.values())
    compiled = sum(1 for r in ready.values() if r["compiled"])
    head = f"dask: {n} worker{'s' if n > 1 else ''} ready, kernels "
    if compiled == 0:
        lines = [f"{head}loaded from the numba cache in {slowest:.1f} s (slowest worker)"]
    elif compiled == n:
        lines = [f"{head}compiled in {slowest:.1f} s (slowest worker)"]
    else:
        lines = [f"{head}compiled in {slowest:.1f} s (slowest worker; compiled on {compiled}, loaded from the cache "
                 + f"on {n - compiled})"]
    if cache_dir:
        base = os.path.join(cache_dir, "")
        elsewhere = sorted(a for a, r in ready.items() if not r["cache"].startswith(base))
        if elsewhere:
            first = ready[elsewhere[0]]["cache"]
            k = len(elsewhere)
            lines.append(f"note: {k} Dask worker{'s' if k > 1 else ''} ({elsewhere[0]}{', ...' if k > 1 else ''}) "
                         f"keep{'' if k > 1 else 's'} {'their' if k > 1 else 'its'} cache in {first}, not under "
                         f"cache_dir {cache_dir}: {'they' if k > 1 else 'it'} had loaded ttrsim before; restart "
                         f"{'them' if k > 1 else 'it'} to use cache_dir")
    return lines
