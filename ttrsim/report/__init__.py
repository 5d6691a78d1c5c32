"""Reports on a results folder: statistics as polars DataFrames (this package),
charts (``charts``, ``boardmap``) and the report document (``document.build_report``;
its sections are listed in ``contents``).

>>> from ttrsim.report import Results, win_rates, ticket_value   # doctest: +SKIP
>>> res = Results.open("results/quickstart")                      # doctest: +SKIP
>>> win_rates(res)                                                # doctest: +SKIP
>>> win_rates(res).to_pandas()                                    # doctest: +SKIP

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
