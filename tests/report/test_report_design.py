"""Issue 12 on hand-built results with known answers: games that replay one
another counted once, rates fixed by design without an interval, texts that
follow the seating design, one interval source for the run summary and the
report, seats numbered from 1, the key findings, and each strategy's profile."""
import numpy as np
import polars as pl
import pytest

from ttrsim.report import Results, seat_advantage, strategy_profile, win_rates
from ttrsim.report.document import build_report
from ttrsim.report.sections.strategies import seat_text
from ttrsim.results.stats import distinct_games, replays
from ttrsim.results.summary import design_text, format_summary, notes, summary_from_tables

from helpers import game, make_results

CLONES = ("planner", "planner-2", "planner-3", "planner-4")


def rotated_clones(tmp_path, last=None, strategies=("planner",) * 4):
    """4 seats, seating rotate, blocks of 4 games. Block 0 replays one game 4 times
    (seat 1 wins); block 1 replays another (seat 2 wins), unless ``last`` gives
    its last game other totals."""
    g0, g1 = [10, 8, 6, 4], [3, 12, 5, 7]
    games = [game(g0) for _ in range(4)] + [game(g1) for _ in range(3)] + [game(last or g1)]
    return Results.open(make_results(tmp_path / "clones", labels=CLONES, strategies=list(strategies), games=games))


def test_rotated_identical_strategies_replay_one_game_per_block(tmp_path):
    res = rotated_clones(tmp_path)
    rep = replays(res)
    assert rep is not None and rep["copies"].to_list() == [4] * 8 and rep["group"].n_unique() == 2
    assert distinct_games(res).row(0, named=True) == {"point": 0, "games": 8, "distinct": 2, "replayed": 8}
    w = win_rates(res)
    assert w["win_rate"].to_list() == [0.25] * 4 and w["fixed"].all()
    assert w["low"].is_null().all() and w["high"].is_null().all()         # no interval around 25% by construction
    assert w["games"].to_list() == [8] * 4 and w["distinct"].to_list() == [2.0] * 4
    seats = seat_advantage(res)
    assert seats["seat"].to_list() == [1, 2, 3, 4]                           # seats from 1 for a reader
    assert seats["win_rate"].to_list() == [0.5, 0.5, 0.0, 0.0] and seats["distinct"].to_list() == [2.0] * 4
    rows = summary_from_tables(res)
    assert [r["distinct"] for r in rows] == [2] * 4 and all(r["low"] is None for r in rows)
    text = format_summary(rows)
    assert "by design" in text and "[" not in text
    assert "2 distinct games of 8 played" in text


def test_one_different_game_breaks_only_its_own_group(tmp_path):
    res = rotated_clones(tmp_path, last=[9, 1, 1, 1])
    d = distinct_games(res).row(0, named=True)
    assert (d["games"], d["distinct"]) == (8, 3)        # block 0: 1; block 1: 3 copies (1) + 1 other game
    w = win_rates(res)
    assert not w["fixed"].any() and w["low"].is_not_null().all()
    # weights: block 0's copies 1/4 each, block 1's three copies 1/3 each, the other game 1
    assert w["wins"].sum() == pytest.approx(3.0)


def test_different_strategies_are_never_replays(tmp_path):
    res = rotated_clones(tmp_path, strategies=("planner", "route_focus", "one_step", "long_route"))
    assert replays(res) is None
    assert distinct_games(res)["distinct"].to_list() == [8]
    assert not win_rates(res)["fixed"].any()


def fixed_run(tmp_path, labels, strategies=None, games=None):
    games = games or [game([10, 5]) for _ in range(6)] + [game([5, 10]) for _ in range(2)]
    return Results.open(make_results(tmp_path / "fixed", labels=labels, strategies=strategies, games=games,
                                     seating="fixed", seatings=[[0, 1]]))


def test_fixed_seating_text_follows_the_design(tmp_path):
    clones = fixed_run(tmp_path / "c", ("planner", "planner-2"), ["planner", "planner"])
    rows = summary_from_tables(clones)
    assert [r["seat"] for r in rows] == [1, 2] and rows[1]["same_as"] == "planner"
    assert any("seat effects" in n for n in notes(rows))
    assert "turn order, not strategy" in seat_text(clones)
    assert "the differences between seats are the seats' own" in design_text(clones)
    two = fixed_run(tmp_path / "t", ("A", "B"))
    assert "mixes seat and strategy" in seat_text(two)
    assert any("includes that seat's advantage" in n for n in notes(summary_from_tables(two)))
    md = build_report(two, output=tmp_path / "rt", resamples=20, progress=False, images=(), formats=("md",)) \
        .markdown.read_text()
    assert "fairly" not in md and "seat and strategy are confounded" in md
    assert "**Seat advantage not measured**" in md


def test_rotated_design_text(tmp_path):
    path = make_results(tmp_path / "r", games=[game([10, 5]), game([7, 7]), game([3, 9]), game([4, 8])])
    md = build_report(path, output=tmp_path / "rr", resamples=20, progress=False, images=(), formats=("md",)) \
        .markdown.read_text()
    assert "seat and strategy are not confounded" in md and "Every strategy sits in every seat" in md


def test_run_summary_and_report_give_the_same_intervals_in_the_same_order(tmp_path):
    games = []
    for b in range(10):
        games += [game([10, 5 + b % 3]), game([4 + b % 2, 8])] if b % 3 else [game([3, 9]), game([9, 3])]
    path = make_results(tmp_path / "s", games=games)
    rows = summary_from_tables(path)
    w = win_rates(Results.open(path))
    assert [r["strategy"] for r in rows] == w["strategy"].to_list()
    assert [(r["low"], r["high"]) for r in rows] == list(zip(w["low"], w["high"]))
    md = build_report(path, output=tmp_path / "rs", resamples=20, progress=False, images=(), formats=("md",)) \
        .markdown.read_text()
    text = format_summary(rows)
    for r in rows:
        line = next(x for x in text.splitlines() if x.strip().startswith(r["strategy"] + " "))
        shown = line[line.index("["):line.index("]") + 1]
        assert f"| {shown} |" in md                                           # the same rounding everywhere


def test_key_findings_come_first_and_link_to_their_sections(tmp_path):
    games = [game([10, 5]), game([5, 10])] * 10                             # A wins every game
    path = make_results(tmp_path / "k", games=games)
    md = build_report(path, output=tmp_path / "rk", resamples=20, progress=False, images=(), formats=("md",)) \
        .markdown.read_text()
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[:2] == ["## Key findings", "## The experiment"]
    # the answer first: the title, one line on what was played, then the findings; the details after them
    top = [line for line in md[:md.index("## Key findings")].splitlines() if line.strip()]
    assert top == ["# Report: k", "hand-built", "`usa`, 2 players, 20 games of `A`, `B`; run `complete`. The details "
                   "of the experiment and how to read the numbers follow the findings."]       # title, question
    assert md.index("## Key findings") < md.index("**Rules**") < md.index("**How to read it.**") \
        < md.index("**Contents**")
    block = md[md.index("## Key findings"):md.index("## Strategy comparison")]
    assert "**Strongest strategy: `A`**" in block and "[win rates](#win-rates)" in block
    assert "**No seat advantage detected**" in block and "[seat advantage](#seat-advantage)" in block
    assert "**Route claims not measured**" in block                    # no turn log: said, not guessed
    for anchor in ("win-rates", "seat-advantage"):
        assert f"\n### {anchor.replace('-', ' ').capitalize()}" in md


def test_close_strategies_are_not_told_apart(tmp_path):
    games = [game([10, 5]), game([10, 5]), game([5, 10]), game([5, 10])] * 3    # each wins half
    path = make_results(tmp_path / "c", games=games)
    md = build_report(path, output=tmp_path / "rc", resamples=20, progress=False, images=(), formats=("md",)) \
        .markdown.read_text()
    assert "are not told apart" in md and "Strongest strategy" not in md


def test_strategy_profile_known_answers(tmp_path):
    # 2 players, A and B rotated; game 0: A in seat 0, 101 turns (seat 0 takes 51, seat 1 50);
    # game 1: B in seat 0, 80 turns (40 each)
    games = [game([30, 20], turns=101, tickets_completed=[2, 1], tickets_failed=[0, 1], tickets_won=[15, 8],
                  tickets_lost=[0, 5], longest_path=[12, 9], longest_bonus=[10, 0], trains_left=[1, 7]),
             game([25, 40], turns=80, tickets_completed=[1, 3], tickets_failed=[1, 0], tickets_won=[4, 20],
                  tickets_lost=[6, 0], longest_path=[6, 14], longest_bonus=[0, 10], trains_left=[0, 2])]
    tickets = [  # A keeps 2 then 3 at setup, draws once in game 0 (keeps 1 of 3) and twice in game 1
        dict(g=0, seat=0, ticket=0), dict(g=0, seat=0, ticket=1), dict(g=0, seat=0, ticket=2, kept=False),
        dict(g=0, seat=0, ticket=3, turn=20, setup=False), dict(g=0, seat=0, ticket=4, turn=20, setup=False,
                                                                kept=False),
        dict(g=1, seat=1, ticket=0), dict(g=1, seat=1, ticket=1), dict(g=1, seat=1, ticket=2),
        dict(g=1, seat=1, ticket=5, turn=11, setup=False, kept=False),
        dict(g=1, seat=1, ticket=6, turn=31, setup=False, kept=False),
        dict(g=1, seat=0, ticket=7), dict(g=1, seat=0, ticket=8),           # B keeps 2 at setup in game 1 only
    ]
    res = Results.open(make_results(tmp_path / "p", games=games, tickets=tickets))
    prof = strategy_profile(res)
    assert prof["strategy"].unique(maintain_order=True).to_list() == ["A", "B"]   # A won more (ranked)

    def get(s, m):
        return prof.filter((pl.col("strategy") == s) & (pl.col("measure") == m)).row(0, named=True)
    assert get("A", "tickets_kept_setup")["mean"] == 2.5
    assert get("A", "ticket_draws")["mean"] == 1.5 and get("A", "tickets_kept_drawn")["mean"] == 0.5
    assert get("B", "tickets_kept_setup")["mean"] == 1.0 and get("B", "ticket_draws")["mean"] == 0.0
    assert get("A", "tickets_completed")["mean"] == 2.5 and get("A", "tickets_failed")["mean"] == 0.0
    assert get("A", "ticket_points")["mean"] == 17.5 and get("B", "ticket_points")["mean"] == 0.5
    assert get("A", "longest_path")["mean"] == 13.0 and get("A", "longest_bonus_won")["mean"] == 1.0
    assert get("A", "longest_bonus_won")["median"] is None                    # a share has no quantiles
    assert get("A", "final_score")["mean"] == 35.0 and get("A", "winning_score")["mean"] == 35.0
    assert get("A", "winning_score")["games"] == 2                          # B won no game: no row
    assert prof.filter((pl.col("strategy") == "B") & (pl.col("measure") == "winning_score")).height == 0
    assert get("A", "turns")["mean"] == 45.5 and get("B", "turns")["mean"] == 45.0     # (51 + 40), (50 + 40)
    assert get("A", "trains_left")["mean"] == 1.5 and get("A", "trains_left")["p10"] == pytest.approx(1.1)
    assert "globetrotter_won" not in prof["measure"].to_list()               # USA base scores no Globetrotter


# ------------------------------------------------- findings picked among many (issue 32)

def test_holm_controls_a_most_picked_among_many():
    from ttrsim.results.stats import holm
    p = np.array([0.004, 0.02, 0.03, 0.5, np.nan])
    adj = holm(p)
    assert adj[:4].tolist() == pytest.approx([0.016, 0.06, 0.06, 0.5]) and np.isnan(adj[4])
    assert (adj[:4] >= p[:4]).all()                                  # never below the raw p-value


def test_rate_difference_is_paired_on_the_blocks():
    """The difference of two rates over the same blocks: its variance is that of the
    per-block residuals of both together (worked by hand: 3 blocks of 10 games)."""
    from ttrsim.results.stats import rate_difference
    a, b, n = np.array([6.0, 5, 7]), np.array([4.0, 4, 3]), np.full(3, 10.0)
    d, lo, hi, p = rate_difference(a, n, b, n)
    r = (a - 0.6 * n) / 30 - (b - 11 / 30 * n) / 30                       # residuals of both rates per block
    se = np.sqrt(3 / 2 * (r * r).sum())
    assert d == pytest.approx(0.6 - 11 / 30) and (hi - lo) / 2 == pytest.approx(1.959964 * se)
    assert p == pytest.approx(0.0082, abs=1e-4)
    assert np.isnan(rate_difference(a[:1], n[:1], b[:1], n[:1])[3])       # one block: no variance, no p-value


def three_strategies(tmp_path, blocks, name="s"):
    """A, B, C rotated through 3 seats; ``blocks``: per seed block the wins of
    (A, B, C) in its 3 games (each game won by one strategy)."""
    games = []
    for wins in blocks:
        winners = [e for e, w in enumerate(wins) for _ in range(w)]
        for k, e in enumerate(winners):                 # seating k puts entrant i in seat (i + k) % 3
            games.append(game([10 if seat == (e + k) % 3 else 5 - seat for seat in range(3)]))
    return make_results(tmp_path / name, labels=("A", "B", "C"), games=games)


def test_the_strongest_is_named_only_when_its_margin_over_each_other_survives_holm(tmp_path):
    """Planted: A wins 2 of 3 games in most blocks. Noise for a family of 2: A's margin
    over B and over C has a raw p of 0.034 each (significant alone), Holm-adjusted 0.068."""
    from ttrsim.report import player_win_rates
    strong = three_strategies(tmp_path, [(2, 1, 0), (2, 0, 1)] * 5 + [(1, 1, 1)], "strong")
    pw = player_win_rates(strong)
    assert pw["player"].to_list() == ["A", "B", "C"] and pw["behind"][0] is None
    assert pw["behind_p_holm"][1:].max() < 0.05
    block = findings_of(strong, tmp_path / "rs")
    assert "**Strongest strategy: `A`**" in block and "(picked from 3 strategies; Holm-adjusted p" in block
    assert "against each of the 2 others)" in block
    close = three_strategies(tmp_path, [(1, 1, 1)] + [(2, 1, 0), (2, 0, 1)] * 2 + [(1, 2, 0), (1, 0, 2)], "close")
    pw = player_win_rates(close)
    raw, adjusted = pw["behind_p"][1:].to_list(), pw["behind_p_holm"][1:].to_list()
    assert raw == pytest.approx([0.0339, 0.0339], abs=1e-4) and adjusted == pytest.approx([2 * raw[0]] * 2)
    block = findings_of(close, tmp_path / "rc")
    assert "**`A` is not told apart from `B`, `C`**" in block and "Strongest strategy" not in block
    assert "(picked from 3 strategies; Holm-adjusted p = 0.07)" in block


def two_seats(tmp_path, blocks, name):
    """A and B rotated through 2 seats; ``blocks``: per seed block the games seat 1 wins (0, 1 or 2 of 2)."""
    games = []
    for won in blocks:
        games += [game([10, 5]) if k < won else game([5, 10]) for k in range(2)]
    return make_results(tmp_path / name, games=games)


def test_a_seat_advantage_counts_the_seats_compared(tmp_path):
    """Seat 1 wins both games of 4 blocks in 7 (the other 3 split): raw p 0.033,
    Holm over the 2 seats 0.065, so no seat advantage is detected; with 10 such
    blocks in 12 it is."""
    noise = two_seats(tmp_path, [2] * 4 + [1] * 3, "noise")
    s = seat_advantage(noise)
    assert s["p"].to_list() == pytest.approx([0.0325, 0.0325], abs=1e-4)
    assert s["p_holm"].to_list() == pytest.approx((2 * s["p"]).to_list())
    block = findings_of(noise, tmp_path / "rn")
    assert "**No seat advantage detected** (picked from 2 seats; Holm-adjusted)" in block
    assert "adjusted p = 0.07)" in block
    planted = two_seats(tmp_path, [2] * 10 + [1] * 2, "planted")
    block = findings_of(planted, tmp_path / "rp")
    assert "**Seat advantage** (picked from 2 seats; Holm-adjusted): seat 1 (plays first) wins 91.7%" in block
    assert "seat 2 wins least, 8.3%" in block


def ticket_study(tmp_path, n_tickets, keeps, lucky_wins, blocks=10):
    """2 players, A and B rotated, ``blocks`` seed blocks of 2 games; B wins every
    game but the first ``lucky_wins``, which A wins. A keeps ticket 0 (the lucky
    one) in the first ``keeps`` games, else one of tickets 1..``n_tickets``; B
    keeps one of those in every game."""
    games, tickets = [], []
    for n in range(2 * blocks):
        a_seat = n % 2                                # rotate: A sits in seat n % 2
        winner = a_seat if n < lucky_wins else 1 - a_seat
        games.append(game([10 if s == winner else 5 for s in range(2)]))
        tickets.append({"g": n, "seat": a_seat, "ticket": 0 if n < keeps else 1 + n % n_tickets})
        tickets.append({"g": n, "seat": 1 - a_seat, "ticket": 1 + (n + 1) % n_tickets})
    return make_results(tmp_path / f"t{n_tickets}-{keeps}-{lucky_wins}", games=games, tickets=tickets)


def findings_of(path, out) -> str:
    md = build_report(path, output=out, resamples=20, progress=False, images=(), formats=("md",)).markdown.read_text()
    for word in ("over-valued", "under-valued", "generous", "worth"):    # no causal wording for an association
        assert word not in md
    return md[md.index("## Key findings"):md.index("## Strategy comparison")]


def test_a_ticket_that_survives_the_number_compared_is_named_as_an_association(tmp_path):
    """A's lucky ticket, kept in the 8 games A wins, among 3 tickets kept."""
    from ttrsim.report import ticket_value
    path = ticket_study(tmp_path, 2, keeps=8, lucky_wins=8)
    tv = ticket_value(path)
    lucky = tv.filter(pl.col("ticket") == 0).row(0, named=True)
    assert (lucky["kept"], lucky["lift"]) == (8, pytest.approx(0.6))
    assert lucky["lift_p"] < 0.001 and lucky["lift_p_holm"] == pytest.approx(3 * lucky["lift_p"])   # 3 compared
    block = findings_of(path, tmp_path / "r")
    assert ("**Tickets whose keepers win more or less than their usual rate** (picked from 3 tickets; "
            "Holm-adjusted; 1 of 3 differ): most above, **Boston - Miami**") in block
    assert "most below" not in block and "adjusted p = 0.002" in block
    assert "an association, which selection drives" in block and "`study_ticket_values_usa4.yaml`" in block


def test_no_ticket_stands_out_when_the_correction_removes_it(tmp_path):
    """The same kind of lucky ticket among 10 kept: significant alone (p = 0.028),
    not once the 10 compared are counted (Holm: 0.28)."""
    from ttrsim.report import ticket_value
    path = ticket_study(tmp_path, 9, keeps=8, lucky_wins=6, blocks=15)
    tv = ticket_value(path)
    lucky = tv.filter(pl.col("ticket") == 0).row(0, named=True)
    assert lucky["lift"] == pytest.approx(0.55) and 0.02 < lucky["lift_p"] < 0.05
    assert tv["lift_p_holm"].drop_nulls().len() == 10
    assert lucky["lift_p_holm"] == pytest.approx(10 * lucky["lift_p"]) and tv["lift_p_holm"].min() > 0.05
    block = findings_of(path, tmp_path / "r")
    assert ("**No ticket stands out** (picked from 10 tickets; Holm-adjusted): no ticket's keepers win "
            "detectably more or less than their usual rate (the largest lift") in block
    assert "adjusted p = 0.28" in block


def test_one_player_under_several_labels_is_pooled_for_the_strongest(tmp_path):
    """Labels P and P-2 are one strategy; R is another. P wins 3 of 4 rotations
    of each deal between them, R one."""
    games = []
    for _ in range(6):
        games += [game([10, 5, 1]), game([5, 10, 1]), game([1, 5, 10]), game([10, 1, 5]), game([5, 10, 1]),
                  game([1, 5, 10])]
    path = make_results(tmp_path / "pool", labels=("P", "P-2", "R"), strategies=["planner", "planner", "route_focus"],
                        games=games, seatings=[[0, 1, 2], [2, 0, 1], [1, 2, 0], [0, 2, 1], [1, 0, 2], [2, 1, 0]])
    from ttrsim.report import player_win_rates
    pw = player_win_rates(path)
    w = win_rates(path)
    assert pw["player"].to_list()[0] in ("P", "R") and set(pw["player"]) == {"P", "R"}
    p_row = pw.filter(pl.col("player") == "P").row(0, named=True)
    assert p_row["labels"] == "P, P-2" and p_row["seats"] == 2
    per_label = w.filter(pl.col("strategy").is_in(["P", "P-2"]))
    assert p_row["wins"] == pytest.approx(per_label["wins"].sum())
    assert p_row["distinct"] == pytest.approx(per_label["distinct"].sum())
    md = build_report(path, output=tmp_path / "rp", resamples=20, progress=False, images=(),
                      formats=("md",)).markdown.read_text()
    block = md[md.index("## Key findings"):md.index("## Strategy comparison")]
    assert "`P` pools 2 labels (P, P-2)" in block
    assert "**One player under several labels, pooled**" in md
    # head to head and ratings pool the labels too: P against R is both labels' seat pairs against R
    from ttrsim.report import head_to_head, player_head_to_head, player_ratings
    h, ph = head_to_head(path), player_head_to_head(path)
    assert ph.columns == ["point", "player", "opponent", "games", "ahead_rate", "low", "high"]
    assert sorted(zip(ph["player"], ph["opponent"])) == [("P", "R"), ("R", "P")]      # no P against P-2
    labels = h.filter(pl.col("opponent") == "R")
    p_r = ph.filter(pl.col("player") == "P").row(0, named=True)
    assert p_r["games"] == labels["games"].sum()
    assert p_r["ahead_rate"] == pytest.approx((labels["ahead_rate"] * labels["games"]).sum() / labels["games"].sum())
    assert player_ratings(path, resamples=20)["player"].to_list() == ["P", "R"]
    for a, b in (("### Head to head", "### Ratings"), ("### Ratings", "### Seat advantage")):
        part = md[md.index(a):md.index(b)]
        assert "**One player under several labels, pooled**" in part and "Per label (the seat detail)" in part
        assert "| P-2 |" not in part                                      # the labels are in the CSV


def test_pair_rates_and_ratings_of_replayed_clones_say_by_design(tmp_path):
    """Four labels of one strategy rotated: every rating is 0 by construction, and so is
    the rate of two labels two seats apart (each sits before the other equally often),
    so the report says "by design" instead of a zero-width interval; neighbours are
    not 50% by design: planner sits right before planner-2, which finishes behind it in
    3 of block 0's 4 copies (order 1 > 2 > 3 > 4) and 2 of block 1's (2 > 4 > 3 > 1)."""
    from ttrsim.report import head_to_head
    res = rotated_clones(tmp_path)
    h = head_to_head(res)
    pair = lambda a, b: h.filter((pl.col("strategy") == a) & (pl.col("opponent") == b)).row(0, named=True)  # noqa
    assert pair("planner", "planner-2")["ahead_rate"] == pytest.approx(0.625)
    assert pair("planner", "planner-3")["ahead_rate"] == 0.5
    md = build_report(res.path, output=tmp_path / "r", resamples=20, progress=False, images=(),
                      formats=("md",)).markdown.read_text()
    h2h = md[md.index("### Head to head"):md.index("### Ratings")]
    row = next(line for line in h2h.splitlines() if line.startswith("| planner |"))
    cells = row.split(" | ")[1:4]
    assert cells[0] == "-" and cells[1].startswith("62.5% [") and cells[2] == "50% by design"
    assert "[50.0%, 50.0%]" not in h2h
    assert "**One strategy under every label: these numbers compare seats, not strategies**" in h2h
    rat = md[md.index("### Ratings"):md.index("### Seat advantage")]
    assert "| planner | 0 by design | by design |" in rat and "[+0, +0]" not in rat


def test_ratings_say_how_far_the_model_misses_the_pair_rates(tmp_path):
    """Three strategies that beat one another in a circle (A > B > C > A, every game):
    Bradley-Terry rates them equal, so it predicts 50% where every pair is 100%."""
    seatings = [[0, 1], [1, 0], [1, 2], [2, 1], [2, 0], [0, 2]]
    beats = {0: 1, 1: 2, 2: 0}
    games = [game([10, 5] if beats[s[0]] == s[1] else [5, 10]) for _ in range(4) for s in seatings]
    path = make_results(tmp_path / "k", labels=("A", "B", "C"), games=games, seatings=seatings)
    md = build_report(path, output=tmp_path / "r", resamples=20, progress=False, images=(),
                      formats=("md",)).markdown.read_text()
    rat = md[md.index("### Ratings"):md.index("### Seat advantage")]
    assert "The model fits the pairs it summarises to within 50.0 percentage points" in rat
    assert "observed 100.0%); a larger miss means the pair rates are not one ranking" in rat


def test_fixed_seating_carries_its_caveat_in_head_to_head_and_ratings(tmp_path):
    games = [game([10, 5]), game([5, 10])] * 5
    path = make_results(tmp_path / "f", games=games, seating="fixed", seatings=[[0, 1]])
    md = build_report(path, output=tmp_path / "r", resamples=20, progress=False, images=(),
                      formats=("md",)).markdown.read_text()
    for a, b in (("### Head to head", "### Ratings"), ("### Ratings", "### Seat advantage")):
        assert "**Seating `fixed`: each strategy keeps its seat" in md[md.index(a):md.index(b)]


def test_the_published_agents_are_said_to_follow_the_papers_description(tmp_path):
    games = [game([10, 5]), game([5, 10])] * 3
    path = make_results(tmp_path / "pub", labels=("R", "O"), strategies=["route_focus", "one_step"], games=games)
    md = build_report(path, output=tmp_path / "r", resamples=20, progress=False, images=(),
                      formats=("md",)).markdown.read_text()
    assert ("`route_focus`, `one_step` are two of the four published agents of de Mesentier Silva et al. (FDG "
            "2017): ttrsim plays them as the paper describes them, so their strength and the four agents' order "
            "need not match the paper's tables.") in md
    from ttrsim.strategies import REGISTRY
    from ttrsim.strategies.published.shared import PUBLISHED, PUBLISHED_NOTE
    assert all(REGISTRY[n].doc.endswith(PUBLISHED_NOTE) for n in PUBLISHED)      # and so does `ttrsim strategies`
