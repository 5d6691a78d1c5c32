"""Report charts: every chart function returns a Figure with a title and
labelled axes (units in the labels), from small hand-made frames; the board
map draws every route of USA and Germany with parallel tracks side by side.
Texts are checked, not pixels."""
import io

import numpy as np
import polars as pl
import pytest
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from ttrsim.data.maps import load_map
from ttrsim.report import charts
from ttrsim.report.boardmap import board_map, track_segments

LABELS = ["planner", "route_focus", "one_step"]


def texts(fig: Figure) -> str:
    """Every text of a figure (titles, labels, tick labels, annotations, legends), one per line."""
    return "\n".join(t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text")) if t.get_text())


def main_axes(fig):
    """The axes that carry the data (not colour bars)."""
    return [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]


def check(fig, title_part: str, xunit: str | None = None, yunit: str | None = None):
    assert isinstance(fig, Figure)
    titles = " ".join([ax.get_title(loc) for ax in fig.axes for loc in ("left", "center", "right")]
                      + [fig._suptitle.get_text() if fig._suptitle else ""])
    assert title_part in titles, titles
    axes = [ax for ax in main_axes(fig) if ax.axison]      # a map has no axes to label
    for ax in axes:
        if ax.get_visible() and ax.has_data():
            assert ax.get_xlabel() or ax.get_ylabel()
    ax = axes[0] if axes else None
    assert ax is None or (ax.get_xlabel() and ax.get_ylabel()), (ax.get_xlabel(), ax.get_ylabel())
    if xunit:
        assert xunit in ax.get_xlabel(), ax.get_xlabel()
    if yunit:
        assert yunit in ax.get_ylabel(), ax.get_ylabel()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=40)       # it renders
    assert buf.getvalue()[:4] == b"\x89PNG"
    legible(fig)


def legible(fig):
    """No axis label, title, annotation or legend text is cut by the figure's
    edge, and no legend covers an annotation of its axes (a bar's value label)."""
    fig.canvas.draw()                            # the layout at the figure's own dpi
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    shown = [t for ax in fig.axes
             for t in (ax.xaxis.label, ax.yaxis.label, ax.title, ax._left_title, ax._right_title, *ax.texts,
                       *(ax.get_legend().get_texts() if ax.get_legend() else ()))
             if t.get_text().strip() and t.get_visible()]
    shown += [t for leg in fig.legends for t in leg.get_texts()]
    for t in shown:
        e = t.get_window_extent(renderer)
        assert e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1 and e.y0 >= box.y0 - 1 and e.y1 <= box.y1 + 1, \
            f"cut by the figure's edge: {t.get_text()!r}"
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        lb = leg.get_window_extent(renderer)
        inside = {id(x) for x in leg.findobj()}
        for t in ax.texts:
            if id(t) not in inside and t.get_text().strip():
                assert not lb.overlaps(t.get_window_extent(renderer)), f"the legend covers {t.get_text()!r}"


def win_frame():
    return pl.DataFrame({"point": [0, 0, 0], "strategy": LABELS, "games": [30, 30, 30], "wins": [15.5, 9.0, 5.5],
                         "win_rate": [0.5167, 0.3, 0.1833], "low": [0.4, 0.2, 0.1], "high": [0.6, 0.4, 0.3],
                         "mean_score": [100.0, 80.0, 70.0]})


def test_win_rates():
    fig = charts.win_rates(win_frame(), players=3)
    check(fig, "Win rate per strategy", xunit="%", yunit="strategy")
    t = texts(fig)
    assert "fair share 1/3" in t and "51.7%" in t and "route_focus" in t
    # error bars: the intervals are drawn
    assert fig.axes[0].containers


def test_win_rates_accepts_pandas():
    check(charts.win_rates(win_frame().to_pandas(), players=3), "Win rate")


def test_head_to_head_matrix():
    rows = [(a, b, 0.7 if a < b else 0.3) for a in LABELS for b in LABELS if a != b]
    df = pl.DataFrame({"point": [0] * len(rows), "strategy": [r[0] for r in rows], "opponent": [r[1] for r in rows],
                       "games": [30] * len(rows), "ahead_rate": [r[2] for r in rows], "low": [0.1] * len(rows),
                       "high": [0.9] * len(rows)})
    fig = charts.head_to_head(df)
    check(fig, "Head to head", xunit="column", yunit="row")
    t = texts(fig)
    # issue 12 point 3: labelled as what it is (finished ahead of, not a win rate), with intervals and n
    assert "finished ahead of" in t and "win rate" not in t
    assert "70.0%\n[10.0%, 90.0%]\nn=30" in t and "30.0%\n[10.0%, 90.0%]\nn=30" in t
    assert any("finished ahead" in ax.get_ylabel() for ax in fig.axes if ax.get_label() == "<colorbar>")


def test_ratings():
    df = pl.DataFrame({"point": [0] * 3, "strategy": LABELS, "rating": [150.0, -50.0, -100.0],
                       "low": [120.0, -80.0, -130.0], "high": [180.0, -20.0, -70.0]})
    fig = charts.ratings(df)
    check(fig, "ratings", xunit="Elo-like points", yunit="strategy")
    assert "+150" in texts(fig)


def test_seat_advantage():
    df = pl.DataFrame({"point": [0, 0, 0], "seat": [1, 2, 3], "games": [30] * 3, "win_rate": [0.4, 0.33, 0.27],
                       "low": [0.3, 0.25, 0.2], "high": [0.5, 0.4, 0.35], "fair": [1 / 3] * 3,
                       "mean_score": [90.0, 85.0, 80.0]})
    fig = charts.seat_advantage(df)
    check(fig, "Seat advantage", xunit="seat", yunit="%")
    t = texts(fig)
    assert "seat 1" in t and "seat 3" in t and "40.0%" in t


def test_score_components_stacks_and_subtracts_failed_tickets():
    df = pl.DataFrame({"point": [0, 0], "strategy": LABELS[:2], "games": [10, 10], "total": [100.0, 70.0],
                       "routes": [70.0, 50.0], "tickets_won": [30.0, 25.0], "tickets_lost": [10.0, 15.0],
                       "longest_bonus": [10.0, 0.0], "globetrotter": [0.0, 10.0], "passenger_points": [0.0, 0.0],
                       "sd_total": [10.0, 12.0]})
    fig = charts.score_components(df)
    check(fig, "Score composition", yunit="(points)")
    t = texts(fig)
    assert "tickets failed (lost)" in t and "Globetrotter bonus" in t and "mean total" in t
    assert "passenger majorities" not in t          # an all-zero component is left out
    ymin, _ = fig.axes[0].get_ylim()
    assert ymin < -10                                # failed tickets drawn below zero


def test_score_distribution():
    df = pl.DataFrame({"point": [0] * 6, "strategy": ["planner"] * 3 + ["one_step"] * 3,
                       "bin": [50, 55, 60, 50, 55, 60], "games": [1, 3, 1, 2, 2, 1]})
    fig = charts.score_distribution(df)
    check(fig, "score distribution", xunit="points", yunit="%")
    assert "planner (n=5)" in texts(fig)


def test_game_length_shows_every_end_reason():
    df = pl.DataFrame({"point": [0] * 4, "turns": [100, 104, 400, 1000], "end": ["normal", "normal", "stalled",
                                                                                  "capped"],
                       "games": [5, 3, 1, 1]})
    fig = charts.game_length(df, players=4)
    check(fig, "Game length", xunit="turns", yunit="games")
    t = texts(fig)
    assert "stalled: 1 games (10.00%)" in t and "capped: 1 games" in t


def test_game_length_legend_lists_zero_counts():
    df = pl.DataFrame({"point": [0], "turns": [100], "end": ["normal"], "games": [7]})
    t = texts(charts.game_length(df))
    assert "stalled: 0 games" in t and "capped: 0 games" in t


def test_end_reasons_log_scale_keeps_rare_ends_visible():
    df = pl.DataFrame({"point": [0] * 3, "end": ["normal", "stalled", "capped"], "games": [9998, 2, 0],
                       "share": [0.9998, 0.0002, 0.0]})
    fig = charts.end_reasons(df)
    check(fig, "How games ended", xunit="games", yunit="end reason")
    assert fig.axes[0].get_xscale() == "log"
    t = texts(fig)
    assert "2 (0.02%)" in t and "0 (0.00%)" in t


def ticket_frame():
    return pl.DataFrame({
        "point": [0] * 4, "ticket": [0, 1, 2, 3], "from": ["Los Angeles", "Boston", "Denver", "Denver"],
        "to": ["New York", "Miami", "El Paso", "Pittsburgh"], "points": [21, 12, 4, 11], "decks": ["base"] * 4,
        "shortest_path": [21, 12, 4, 11], "offered": [40, 40, 40, 40], "kept": [20, 30, 35, 0],
        "keep_rate": [0.5, 0.75, 0.875, 0.0], "completed": [12, 24, 33, 0],
        "completion_rate": [0.6, 0.8, 0.943, None], "mean_net_points": [4.2, 7.2, 3.5, None],
        "win_rate_kept": [0.4, 0.3, 0.25, None], "baseline": [0.25] * 4, "lift": [0.15, 0.05, 0.0, None]})


def test_ticket_completion_labels_every_kept_ticket():
    fig = charts.ticket_completion(ticket_frame())
    check(fig, "Ticket completion rate", xunit="points", yunit="%")
    t = texts(fig)
    assert "LA-NYor" in t or "LAng-NYor" in t or "LosA-NYor" in t
    assert "Bost-Miam" in t and "Denv-EPas" in t
    assert "Denv-Pitt" not in t                       # never kept: no completion rate to show
    assert any("keep rate" in ax.get_ylabel() for ax in fig.axes)


def test_ticket_points_vs_path():
    check(charts.ticket_points_vs_path(ticket_frame()), "shortest path", xunit="trains", yunit="points")


def test_ticket_decks():
    df = pl.DataFrame({"point": [0, 0], "deck": ["short", "long"], "tickets": [55, 34], "offered": [500, 200],
                       "keep_rate": [0.7, 0.5], "completion_rate": [0.8, 0.6], "mean_net_points": [5.0, 2.0]})
    fig = charts.ticket_decks(df)
    check(fig, "Ticket decks", xunit="deck", yunit="%")
    assert "short\n(55 tickets)" in texts(fig)
    assert any("points" in ax.get_ylabel() for ax in fig.axes[1:])


def route_frame(m, rate=None):
    n = m.n_routes
    rate = np.linspace(0, 1, n) if rate is None else rate
    med = [None if r == 0 else float(5 + 20 * r) for r in rate]
    return pl.DataFrame({"point": [0] * n, "route": list(range(n)), "label": [m.route_label(r) for r in range(n)],
                         "claims": [int(100 * r) for r in rate], "claim_rate": list(rate), "median_round": med,
                         "q25_round": [None if v is None else v - 3 for v in med],
                         "q75_round": [None if v is None else v + 3 for v in med]})


def test_route_claim_rates():
    m = load_map("usa")
    fig = charts.route_claim_rates(route_frame(m), top=10)
    check(fig, "most claimed", xunit="%", yunit="route")
    assert "round" in fig.axes[1].get_xlabel()
    assert len(fig.axes[0].get_yticklabels()) == 10


def test_blocking():
    """Issue 12 point 4: the exact rate (bars) and both bounds (whiskers), or the bounds alone."""
    df = pl.DataFrame({"point": [0, 0], "strategy": LABELS[:2], "claims": [100, 80], "blocking_claims": [12, 4],
                       "blocking_rate": [0.12, 0.05], "blocking_claims_low": [10, 2], "blocking_rate_low": [0.1, 0.025],
                       "blocking_claims_high": [20, 8], "blocking_rate_high": [0.2, 0.1], "excess": [0.031, None]})
    fig = charts.blocking(df)
    check(fig, "Blocking", xunit="%", yunit="strategy")
    t = texts(fig)
    assert "12.0% of 100 claims; +3.1 pp vs another deal" in t and "5.0% of 80 claims\n" in t
    assert "bounds" in t and fig.axes[0].containers
    fig = charts.blocking(df.with_columns(pl.lit(None, pl.Float64).alias("blocking_rate")))
    assert "10.0% to 20.0% of 100 claims" in texts(fig) and "between the bounds" in texts(fig)


def test_percent_ticks_are_not_rounded_wrongly():
    """Issue 12 point 9: 2.5% is never shown as '2%'."""
    from ttrsim.report.charts.figures import PercentTicks
    f = PercentTicks()
    assert f.format_ticks([0, 0.025, 0.05, 0.075]) == ["0.0%", "2.5%", "5.0%", "7.5%"]
    assert f.format_ticks([0, 0.1, 0.2]) == ["0%", "10%", "20%"]
    assert f.format_ticks([0.0125, 0.025]) == ["1.25%", "2.50%"]
    fig = charts.blocking(pl.DataFrame({"point": [0], "strategy": ["a"], "claims": [100], "blocking_claims": [3],
                                        "blocking_rate": [0.03], "blocking_claims_low": [2],
                                        "blocking_rate_low": [0.02], "blocking_claims_high": [4],
                                        "blocking_rate_high": [0.04]}))
    fig.canvas.draw()
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    values = [float(t.rstrip("%")) for t in ticks]
    assert all(abs(v - 100 * x) < 1e-9 for v, x in zip(values, fig.axes[0].get_xticks())), ticks


def test_passenger_charts():
    outcomes = ["single winner", "tie for first", "tie for second", "no second", "nobody"]
    rows = [(c, o, s) for c in ["black", "blue"] for o, s in zip(outcomes, [0.5, 0.3, 0.2, 0.0, 0.0])]
    df = pl.DataFrame({"point": [0] * len(rows), "colour": [r[0] for r in rows], "outcome": [r[1] for r in rows],
                       "games": [10] * len(rows), "share": [r[2] for r in rows]})
    fig = charts.passenger_outcomes(df)
    check(fig, "Passenger majority outcomes", xunit="colour", yunit="%")
    assert "tie for first" in texts(fig) and "50%" in texts(fig)
    pts = pl.DataFrame({"point": [0, 0], "strategy": ["passenger_hunter", "planner"], "games": [10, 10],
                        "mean_passengers": [20.0, 15.0], "mean_passenger_points": [90.0, 60.0],
                        "share_of_total": [0.6, 0.4]})
    fig = charts.passenger_points(pts)
    check(fig, "Passenger points", xunit="(points)", yunit="strategy")
    assert "60% of score" in texts(fig)
    pvr = pts.with_columns(pl.Series("mean_routes_claimed", [18.0, 15.0]), pl.Series("corr_routes", [0.3, 0.2]))
    fig = charts.passengers_vs_routes(pvr)
    check(fig, "Passengers collected", xunit="routes claimed", yunit="passengers")
    assert "passenger_hunter (r = 0.30)" in texts(fig)
    pbr = pl.DataFrame({"point": [0] * 5, "strategy": ["passenger_hunter"] * 3 + ["planner"] * 2,
                        "routes_claimed": [10, 11, 30, 10, 12], "seats": [40, 50, 0, 30, 20],
                        "mean_passengers": [18.0, 19.0, 40.0, 12.0, 14.0]})
    fig = charts.passengers_by_routes(pbr)
    check(fig, "Passengers collected by routes claimed", xunit="routes", yunit="passengers")
    assert "planner (n=50)" in texts(fig)
    hunter = fig.axes[0].lines[0]
    assert list(hunter.get_xdata()) == [10, 11]          # a route count without seat-games is left out


@pytest.mark.parametrize("fn", [charts.win_rates, charts.head_to_head, charts.ratings, charts.seat_advantage,
                                charts.score_components, charts.score_distribution, charts.game_length,
                                charts.end_reasons, charts.ticket_completion, charts.ticket_points_vs_path,
                                charts.ticket_decks, charts.route_claim_rates, charts.blocking,
                                charts.passenger_outcomes, charts.passenger_points, charts.passengers_vs_routes,
                                charts.passengers_by_routes])
def test_empty_frames_give_a_titled_placeholder(fn):
    fig = fn(pl.DataFrame())
    assert fig.axes[0].get_title() and fig.axes[0].get_xlabel()
    assert "no " in texts(fig)


def test_balance_lines_one_key():
    df = pl.DataFrame({"point": [0, 0, 1, 1, 2, 2], "strategy": ["a", "b"] * 3,
                       "win_rate": [0.6, 0.4, 0.5, 0.5, 0.45, 0.55], "low": [0.5, 0.3, 0.4, 0.4, 0.35, 0.45],
                       "high": [0.7, 0.5, 0.6, 0.6, 0.55, 0.65], "rules.globetrotter_points": [0, 10, 20] * 2})
    df = df.with_columns(pl.Series("rules.globetrotter_points", [0, 0, 10, 10, 20, 20]))
    fig = charts.balance_lines(df, "rules.globetrotter_points", fair=0.5)
    check(fig, "Balance: win rate against globetrotter_points", xunit="globetrotter_points", yunit="%")
    ax = fig.axes[0]
    assert len(ax.collections) >= 2                 # one interval band per strategy
    assert "95% intervals" in fig._suptitle.get_text()
    xs = sorted(set(ax.lines[0].get_xdata()))
    assert xs == [0, 10, 20]                         # numeric values on a numeric axis


def test_balance_lines_two_keys_one_panel_per_other_value():
    rows = []
    for p, (g, s) in enumerate([(0, '{"6": 15}'), (0, '{"6": 18}'), (10, '{"6": 15}'), (10, '{"6": 18}')]):
        for lab, w in (("a", 0.6), ("b", 0.4)):
            rows.append({"point": p, "strategy": lab, "win_rate": w, "low": w - 0.1, "high": w + 0.1,
                         "rules.globetrotter_points": g, "rules.scoring": s})
    fig = charts.balance_lines(pl.DataFrame(rows), "rules.globetrotter_points")
    panels = [ax for ax in fig.axes if ax.has_data()]
    assert len(panels) == 2
    assert 'scoring={"6": 15}' in panels[0].get_title()


def test_balance_lines_text_values_are_placed_in_order():
    df = pl.DataFrame({"point": [0, 1], "strategy": ["a", "a"], "win_rate": [0.5, 0.6],
                       "rules.ticket_decks": ['["base"]', '["1910"]']})
    fig = charts.balance_lines(df, "rules.ticket_decks", percent=False, ylabel="win rate (fraction)")
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ['["base"]', '["1910"]']


# --------------------------------------------------------------------------- board map

@pytest.mark.parametrize("name", ["usa", "germany"])
def test_board_map_draws_every_route(name):
    m = load_map(name)
    df = route_frame(m)
    fig = board_map(m, df, "claim_rate")
    ax = fig.axes[0]
    assert ax.get_title().startswith(f"Track claim rate on the {name} board")
    assert not ax.axison and "pixel" not in texts(fig)          # issue 12 point 9: a map, no pixel axes
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert sum(len(c.get_segments()) for c in lines) == m.n_routes
    cbar = [a for a in fig.axes if a.get_label() == "<colorbar>"]
    assert cbar and "claim rate" in cbar[0].get_ylabel()
    t = texts(fig)
    assert m.node_names[0] in t
    if name == "germany":
        assert "Dänemark" in t                    # countries written at their label
    assert ax.get_ylim()[0] > ax.get_ylim()[1]     # board coordinates: y grows downwards
    check(fig, "Track claim rate")


@pytest.mark.parametrize("name", ["usa", "germany"])
def test_board_map_of_city_pairs_draws_one_line_per_pair(name):
    """Issue 12 point 5: coloured by city pair, one line each, whichever track was taken."""
    m = load_map(name)
    groups = sorted(set(np.asarray(m.route_group).tolist()))
    df = pl.DataFrame({"point": 0, "group": groups, "claim_rate": np.linspace(0, 1, len(groups))})
    fig = board_map(m, df, "claim_rate")
    ax = fig.axes[0]
    assert ax.get_title().startswith(f"Route claim rate (any track of a city pair) on the {name} board")
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert sum(len(c.get_segments()) for c in lines) == len(groups) < m.n_routes
    check(fig, "Route claim rate")


def test_board_map_median_round_marks_unclaimed_routes_dotted():
    m = load_map("usa")
    rate = np.full(m.n_routes, 0.5)
    rate[:7] = 0.0
    fig = board_map(m, route_frame(m, rate), "median_round")
    ax = fig.axes[0]
    assert "7 tracks without a value" in ax.get_title()
    dotted = [c for c in ax.collections if isinstance(c, LineCollection) and len(c.get_segments()) == 7]
    assert dotted
    cbar = [a for a in fig.axes if a.get_label() == "<colorbar>"]
    assert "round" in cbar[0].get_ylabel()


@pytest.mark.parametrize("name", ["usa", "germany"])
def test_parallel_tracks_are_drawn_side_by_side(name):
    m = load_map(name)
    seg = track_segments(m)
    group = np.asarray(m.route_group)
    sizes = np.bincount(group)
    for g in np.flatnonzero(sizes > 1):
        members = np.flatnonzero(group == g)
        mids = seg[members].mean(axis=1)
        # distinct, and each track parallel to the straight line between the cities
        assert len({tuple(np.round(x, 3)) for x in mids}) == len(members)
        d0 = seg[members[0], 1] - seg[members[0], 0]
        for r in members[1:]:
            d = seg[r, 1] - seg[r, 0]
            assert abs(d0[0] * d[1] - d0[1] * d[0]) < 1e-6 * (np.hypot(*d0) * np.hypot(*d) + 1)
    if name == "germany":
        assert (sizes == 3).any()                  # triple routes exist and were checked
    single = np.flatnonzero(sizes[group] == 1)
    xy = np.asarray(m.node_xy, dtype=float)
    assert np.allclose(seg[single, 0], xy[np.asarray(m.route_a)[single]])
