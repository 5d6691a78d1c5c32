"""Reports on a results folder: statistics as polars DataFrames (this package),
charts (``charts``, ``boardmap``) and the report document (``document.build_report``;
its sections are listed in ``contents``).

>>> import tempfile
>>> from ttrsim.experiment.runner import run_experiment
>>> tmp = tempfile.TemporaryDirectory()          # a tiny run: 4 games
>>> path = run_experiment({"name": "doc", "players": 2, "lineup": ["random", "route_focus"], "games": 4, "seed": 1,
...                        "log": True, "workers": 1},
...                       output=f"{tmp.name}/doc", progress=False, echo=False).path
>>> from ttrsim.report import Results, ticket_value, win_rates
>>> res = Results.open(path)
>>> win_rates(res).select("strategy", "games", "win_rate").rows()
[('route_focus', 4, 1.0), ('random', 4, 0.0)]
>>> ticket_value(res).height                # one row per ticket of the rule set
30
>>> tmp.cleanup()

Every function returns a polars DataFrame (``.to_pandas()`` with the
``pandas`` extra).

The functions and their columns are listed in ``ttrsim/report/API.md``.
"""
from .dataset import Results, ResultsError
from .passengers import (
                         majority_outcomes,
                         passenger_decisive,
                         passenger_points,
                         passengers_by_routes,
                         passengers_vs_routes,
)
from .routes import blocking, route_claimers, route_contention, route_pairs
from .strategies import (
                         end_reasons,
                         game_length,
                         head_to_head,
                         player_head_to_head,
                         player_ratings,
                         player_win_rates,
                         ratings,
                         score_components,
                         score_histogram,
                         seat_advantage,
                         strategy_profile,
                         win_rates,
)
from .sweeps import play_changes, sweep_effects, sweep_keys, swept_win_rates, with_sweep_values
from .tickets import ticket_decks, ticket_value

__all__ = ["Results", "ResultsError",
           "win_rates", "player_win_rates", "head_to_head", "player_head_to_head", "ratings", "player_ratings",
           "seat_advantage", "score_components", "score_histogram",
           "game_length", "end_reasons", "strategy_profile",
           "ticket_value", "ticket_decks",
           "route_contention", "route_pairs", "route_claimers", "blocking",
           "majority_outcomes", "passenger_points", "passenger_decisive", "passengers_vs_routes",
           "passengers_by_routes",
           "sweep_keys", "swept_win_rates", "with_sweep_values", "play_changes", "sweep_effects"]
