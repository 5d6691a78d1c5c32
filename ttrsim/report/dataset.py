"""Open a results folder (``ttrsim run`` output) for the report statistics.

The reader is :class:`ttrsim.results.reader.Results`, the one reader of
results folders (the results layer, below both the experiment and the report):
the run summary uses it too, so the summary and the report read the same games
the same way. It reads only the folder (the manifest, ``map.json``, ``rules.json`` and
the Parquet tables), never the map file or today's presets.

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4, "seed": 1,
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> res = Results.open(path)
>>> res.labels, res.players, res.rules, res.n_games
(['random', 'route_focus'], 2, 'usa', 4)
>>> res.map.n_routes, res.rules_at(0).trains
(100, 45)
>>> tmp.cleanup()
"""
from ttrsim.results.reader import DIMS, TABLES, Results, ResultsError

__all__ = ["Results", "ResultsError", "TABLES", "DIMS"]
