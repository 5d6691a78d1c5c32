"""The report's contents: every part and section, the statistics each computes
and the function that writes it, in the order they appear in the report.

A :class:`Part` is a ``##`` heading (listed with the sections in the report's contents);
its :class:`Section` s are ``###`` headings, each with the statistics
(:class:`Stat`) computed before it is written: their frames go to the
section's writer (``sections.<module>.<function>(ctx, t)``, ``t``: name ->
DataFrame, None when the statistic failed) and to ``tables/<name>.csv``.
Adding a section is adding a ``Section`` here and its writer.

>>> [part.title for part in CONTENTS]
['Intervention effects', 'Strategy comparison', 'Tickets', 'Route claims', 'Passengers', 'Europe: stations, tunnels, ferries', 'Sweeps']
>>> [s.name for s in CONTENTS[1].sections[1].stats]
['win_rates', 'player_win_rates']
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from . import europe, interventions, passengers, routes, sections, strategies, sweeps, tickets
from .context import Context

__all__ = ["Stat", "Section", "Part", "CONTENTS"]


@dataclass(frozen=True)
class Stat:
    """A statistic computed for a section: ``fn(res, **options)``, kept as the
    table named after the function. ``bootstrap``: it takes the report's
    ``resamples``; ``needs_turns``: without the
    turn log it is not computed (None, not a problem)."""
    fn: Callable
    options: dict = field(default_factory=dict)
    bootstrap: bool = False
    needs_turns: bool = False

    @property
    def name(self) -> str:
        return self.fn.__name__

    def compute(self, ctx: Context):
        """The frame, or None if it failed (``ctx.problems`` says why) or needs a turn log there is not."""
        if self.needs_turns and not ctx.res.has_turns:
            return None
        kw = dict(self.options)
        if self.bootstrap:
            kw["resamples"] = ctx.resamples
        return ctx.stat(self.name, self.fn, **kw)


@dataclass(frozen=True)
class Section:
    """A ``###`` heading (none: the part's opening text), the statistics it
    computes, and the function writing its text, tables and charts."""
    title: str | None
    stats: tuple[Stat, ...]
    write: Callable[[Context, dict], None]


@dataclass(frozen=True)
class Part:
    """A ``##`` heading and its sections. ``shown(ctx)``: whether the report
    has this part at all; ``skipped(ctx)``: a note written instead of its
    sections (None: write them)."""
    title: str
    sections: tuple[Section, ...]
    shown: Callable[[Context], bool] | None = None
    skipped: Callable[[Context], str | None] | None = None


CONTENTS = (
    Part("Intervention effects", (
        Section(None, (Stat(interventions.intervention_effects),), sections.interventions.overview),
        Section("Effects per arm", (), sections.interventions.effects),
        Section("Causal ticket value", (Stat(interventions.ticket_offers),), sections.interventions.ticket_values),
    ), shown=sections.interventions.shown),
    Part("Strategy comparison", (
        Section(None, (), sections.strategies.per_point_charts_note),
        Section("Win rates", (Stat(strategies.win_rates, bootstrap=True), Stat(strategies.player_win_rates)),
                sections.strategies.win_rates),
        Section("Head to head", (Stat(strategies.head_to_head, bootstrap=True), Stat(strategies.player_head_to_head)),
                sections.strategies.head_to_head),
        Section("Ratings", (Stat(strategies.ratings, bootstrap=True), Stat(strategies.player_ratings, bootstrap=True)),
                sections.strategies.ratings),
        Section("Seat advantage", (Stat(strategies.seat_advantage, bootstrap=True),),
                sections.strategies.seat_advantage),
        Section("Score composition", (Stat(strategies.score_components),), sections.strategies.score_composition),
        Section("How each strategy plays", (Stat(strategies.strategy_profile),), sections.strategies.profile),
        Section("Score distributions", (Stat(strategies.score_histogram, {"bin_width": 5}),),
                sections.strategies.score_distributions),
        Section("Game length and end reasons",
                (Stat(strategies.game_length), Stat(sections.strategies.game_length_distribution),
                 Stat(strategies.end_reasons)),
                sections.strategies.game_length),
    )),
    Part("Tickets", (
        Section(None, (Stat(tickets.ticket_value),), sections.tickets.ticket_value),
        Section("By deck", (Stat(tickets.ticket_decks),), sections.tickets.ticket_decks),
    )),
    Part("Route claims", (
        Section(None, (Stat(routes.route_pairs), Stat(routes.route_contention), Stat(routes.route_claimers)),
                sections.routes.route_contention),
        Section("Blocking", (Stat(routes.blocking),), sections.routes.blocking),
    ), skipped=sections.routes.without_turn_log),
    Part("Passengers", (
        Section("Majority outcomes", (Stat(passengers.majority_outcomes),), sections.passengers.majority_outcomes),
        Section("Passenger points and decisive majorities",
                (Stat(passengers.passenger_points), Stat(passengers.passenger_decisive)),
                sections.passengers.passenger_points),
        Section("Passengers against routes",
                (Stat(passengers.passengers_vs_routes), Stat(passengers.passengers_by_routes, needs_turns=True)),
                sections.passengers.passengers_vs_routes),
    ), shown=sections.passengers.has_passengers),
    Part("Europe: stations, tunnels, ferries", (
        Section("Station value", (Stat(europe.station_value),), sections.europe.station_value),
        Section("Tunnel outcomes", (Stat(europe.tunnel_outcomes, needs_turns=True),
                                    Stat(europe.tunnel_routes, needs_turns=True)), sections.europe.tunnel_outcomes),
        Section("Ferry use", (Stat(europe.ferry_use, needs_turns=True), Stat(europe.ferry_routes, needs_turns=True)),
                sections.europe.ferry_use),
    ), shown=sections.europe.has_europe),
    Part("Sweeps", (
        Section(None, (Stat(sweeps.swept_win_rates, bootstrap=True),), sections.sweeps.sweep_balance),
        Section("Does play change across the sweep", (Stat(sweeps.play_changes),), sections.sweeps.play_changes),
        Section("Effects of the sweep, paired", (Stat(sweeps.sweep_effects),), sections.sweeps.sweep_effects),
    ), shown=sections.sweeps.has_sweep),
)
