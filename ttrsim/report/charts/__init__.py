"""Report charts: one function per chart, aggregated frames in, a matplotlib Figure out.

Every function takes the polars (or pandas) frames of the statistics library
(``ttrsim.report.strategies``, ``tickets``, ``routes``, ``passengers``,
``sweeps``), already reduced to what is drawn (usually one sweep point), and
returns a :class:`matplotlib.figure.Figure` with a title and labelled axes
(units in brackets). Nothing here touches pyplot's global state: figures are
built on the Agg canvas and can be saved with ``fig.savefig`` or dropped
(they are garbage collected like any object).

One module per subject, named like the statistics it draws: ``figures``
(what every chart shares: the Agg figure, the palette, axis helpers),
``strategies``, ``tickets``, ``routes``, ``passengers``, ``sweeps``. The
board map lives in ``ttrsim.report.boardmap``. Every chart is importable from
here:

>>> import polars as pl
>>> from ttrsim.report import charts
>>> df = pl.DataFrame({"point": [0, 0], "strategy": ["a", "b"], "games": [10, 10],
...                    "win_rate": [0.6, 0.4], "low": [0.3, 0.1], "high": [0.9, 0.7]})
>>> fig = charts.win_rates(df, players=2)
>>> fig.axes[0].get_xlabel()
'win rate (% of games; shared wins as fractions)'
"""
from .figures import PALETTE, new_figure, strategy_colours
from .passengers import passenger_outcomes, passenger_points, passengers_by_routes, passengers_vs_routes
from .routes import blocking, route_claim_rates
from .strategies import (
                         COMPONENTS,
                         end_reasons,
                         game_length,
                         head_to_head,
                         ratings,
                         score_components,
                         score_distribution,
                         seat_advantage,
                         strategy_profile,
                         win_rates,
)
from .sweeps import balance_lines
from .tickets import causal_value, ticket_completion, ticket_decks, ticket_points_vs_path

__all__ = [
    "PALETTE", "COMPONENTS", "strategy_colours", "new_figure", "win_rates", "head_to_head", "ratings",
    "seat_advantage", "score_components", "score_distribution", "game_length", "end_reasons", "strategy_profile",
    "ticket_completion", "ticket_points_vs_path", "ticket_decks", "route_claim_rates", "blocking",
    "passenger_outcomes", "passenger_points", "passengers_vs_routes", "passengers_by_routes", "balance_lines",
    "causal_value",
]
