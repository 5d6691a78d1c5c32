"""Open a results folder (``ttrsim run`` output) for the report statistics.

The reader is :class:`ttrsim.results.reader.Results`, the one reader of
results folders (the results layer, below both the experiment and the report):
the run summary uses it too, so the summary and the report read the same games
the same way. It reads only the folder (the manifest, ``map.json``, ``rules.json`` and
the Parquet tables), never the map file or today's presets.

>>> res = Results.open("results/quickstart")                       # doctest: +SKIP
>>> res.labels, res.players, res.rules, res.n_games                 # doctest: +SKIP
(['planner', 'route_focus', 'one_step', 'long_route'], 4, 'usa', 20000)
>>> res.map.n_routes, res.rules_at(0).trains                        # doctest: +SKIP
(100, 45)
"""
from ttrsim.results.reader import DIMS, TABLES, Results, ResultsError

__all__ = ["Results", "ResultsError", "TABLES", "DIMS"]
