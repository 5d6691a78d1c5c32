"""Study interventions (docs/rules.md R9): the ticket offered at setup (R9.1)
and the routes left off the board (R9.2). An arm with an intervention and
its control dealt from the same seed differ by the change only: the same
train deck, face-up row and passengers, and the same ticket piles but for
the two tickets R9.1 swaps."""
import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from ttrsim.cli import main
from ttrsim.core.actions import A_CLAIM, A_KEEP, A_TICKETS, claims_end, decode_claim
from ttrsim.core.board import RP_OFFER_TICKET, build_board
from ttrsim.core.state import M_DECK_N
from ttrsim.data.maps import load_map
from ttrsim.data.rules import RulesError, get_rules, preset_names
from ttrsim.experiment.chunk_tables import ChunkContext, turns_table
from ttrsim.experiment.config import ExperimentError, load_experiment
from ttrsim.experiment.runner import run_experiment
from ttrsim.play.fuzz import VIOLATION_NAMES, fuzz_chunk
from ttrsim.play.game import Game
from ttrsim.play.turnlog import N_TURN_COLS, T_ROUTE

# one ticket of each preset's draw piles and one route of its map, for the checks over every preset
PER_PRESET = {
    "usa": ("Boston-Miami", "Atlanta-New Orleans (4 orange)"),
    "usa-1910": ("Chicago-Atlanta", "Denver-Omaha"),
    "usa-mega": ("Miami-Boston", "Atlanta-Raleigh (2 gray)"),
    "usa-bigcities": ("Boston-Miami 12", "Seattle-Vancouver (1 gray)"),
    "germany": ("Berlin-Leipzig", "Bremerhaven-Dänemark/1 (5 green)"),
    "europe": ("Athina-Angora", "Amsterdam-Essen"),
}


def offered(g) -> int:
    return int(g.board.rp[RP_OFFER_TICKET])


def pile(s, d) -> list[int]:
    """Ticket pile ``d``, top first."""
    cap = s.tk_buf.shape[1]
    return [int(s.tk_buf[d, (s.tk_head[d] + i) % cap]) for i in range(s.tk_len[d])]


def layout(g) -> dict:
    """Where every ticket of the setup is: each seat's offer, each pile, each holder."""
    s = g.state
    return {"offers": [[int(t) for t in s.offer[q, :s.offer_n[q]]] for q in range(g.n_players)],
            "piles": [pile(s, d) for d in range(s.tk_len.shape[0])], "holder": s.ticket_holder.tolist()}


def swapped(lay: dict, t: int, u: int) -> dict:
    """``lay`` with tickets ``t`` and ``u`` trading places."""
    swap = {t: u, u: t}
    holder = list(lay["holder"])
    holder[t], holder[u] = lay["holder"][u], lay["holder"][t]
    return {"offers": [[swap.get(x, x) for x in o] for o in lay["offers"]],
            "piles": [[swap.get(x, x) for x in p] for p in lay["piles"]], "holder": holder}


def where(lay: dict, t: int) -> str:
    """Whose offer holds ticket ``t``, or "pile"."""
    for q, o in enumerate(lay["offers"]):
        if t in o:
            return f"seat {q}"
    return "pile"


def displaced(arm, control, seat) -> int:
    """The ticket of ``seat``'s control offer in the slot where the arm has the offered ticket."""
    i = [int(x) for x in arm.state.offer[seat, :arm.state.offer_n[seat]]].index(offered(arm))
    return int(control.state.offer[seat, i])


def through_setup(g, mix=None):
    """Play the setup: every seat announces ``mix`` short tickets (Germany;
    default all short) and keeps every ticket offered."""
    while g.phase in ("setup-mix", "setup-keep"):
        acts = g.legal_actions()
        g.apply(A_TICKETS + mix if g.phase == "setup-mix" and mix is not None else max(acts))


# --------------------------------------------------------------------------- R9.1 the offer

@pytest.mark.parametrize("preset", ["usa", "usa-mega", "europe"])
def test_R9_1_offer_swaps_the_ticket_in_and_the_displaced_one_out(preset):
    """R9.1 seat 1's offer holds T; the ticket U of its slot in the control
    takes T's place (a pile position, or the offer of the seat dealt T
    before or after seat 1), everything else as dealt; U comes from T's pile."""
    text = PER_PRESET[preset][0]
    seen = set()
    for seed in range(150):
        control = Game(preset, 3, seed)
        arm = Game(preset, 3, seed, {"offer_ticket": text, "offer_seat": 1})
        t = offered(arm)
        before = layout(control)
        if t in before["offers"][1]:
            continue
        assert t in layout(arm)["offers"][1]
        u = displaced(arm, control, 1)
        assert layout(arm) == swapped(before, t, u)
        assert arm.board.ticket_deck[u] == arm.board.ticket_deck[t]
        seen.add(where(before, t))
    assert seen == {"pile", "seat 0", "seat 2"}, seen


@pytest.mark.parametrize("preset", preset_names())
def test_R9_1_the_game_stream_is_untouched(preset):
    """R9.1 after setup (every seat keeping all), the arm and the control have
    the same game stream, train deck, face-up row, hands, discards and
    passengers, and the same ticket piles and holders but for T and U."""
    text = PER_PRESET[preset][0]
    for seed in range(8):
        control = Game(preset, 4, seed)
        arm = Game(preset, 4, seed, {"offer_ticket": text, "offer_seat": 2})
        through_setup(control)
        through_setup(arm)
        a, c = arm.state, control.state
        assert a.rng[0] == c.rng[0]
        n = int(c.meta[M_DECK_N])
        assert a.meta[M_DECK_N] == n and np.array_equal(a.deck[:n], c.deck[:n])
        for field in ("faceup", "hand", "discard", "pass_loc", "trains", "meta"):
            assert np.array_equal(getattr(a, field), getattr(c, field)), field
        t = offered(arm)
        moved = np.flatnonzero(a.ticket_holder != c.ticket_holder)
        u = next((int(x) for x in moved if x != t), t)          # the displaced ticket; t itself: no swap
        assert layout(arm) == swapped(layout(control), t, u)
        assert a.ticket_holder[t] == 2


def test_R9_1_ticket_already_in_the_offer_changes_nothing():
    """R9.1 an offer that already holds T is left as dealt."""
    hits = 0
    for seed in range(100):
        control = Game("usa", 2, seed)
        arm = Game("usa", 2, seed, {"offer_ticket": "Boston-Miami", "offer_seat": 0, "offer_kept": True})
        if offered(arm) in layout(control)["offers"][0]:
            hits += 1
            assert layout(arm) == layout(control)
    assert hits >= 3


@pytest.mark.parametrize("preset,players", [("usa", 2), ("usa-mega", 3), ("europe", 4), ("germany", 3)])
def test_R9_1_forced_keep_only_lists_keeps_with_the_ticket(preset, players):
    """R9.1 with offer_kept every legal setup keep of seat 1 includes T and
    the keep minimum; the independent check agrees mask by mask; the other
    seats' choices are those of the control. Keeping the fewest it may, seat 1
    ends up holding T."""
    text = PER_PRESET[preset][0]
    for seed in range(6):
        control = Game(preset, players, seed)
        arm = Game(preset, players, seed, {"offer_ticket": text, "offer_seat": 1, "offer_kept": True})
        t = offered(arm)
        while arm.phase in ("setup-mix", "setup-keep"):
            acts, ctl = arm.legal_actions(), control.legal_actions()
            if arm.phase == "setup-keep":
                p = arm.player
                offer = [int(x) for x in arm.state.offer[p, :arm.state.offer_n[p]]]
                need = min(get_rules(preset).setup_keep, len(offer))
                masks = range(1 << len(offer))
                if p == 1:
                    bit = 1 << offer.index(t)
                    want = [A_KEEP + m for m in masks if m & bit and bin(m).count("1") >= need]
                    assert acts == want
                else:
                    assert acts == ctl
                assert [arm.is_legal(A_KEEP + m) for m in masks] == [A_KEEP + m in acts for m in masks]
            arm.apply(min(acts))
            control.apply(min(ctl))
        assert arm.state.ticket_holder[t] == 1
        assert (arm.state.ticket_holder == 1).sum() == get_rules(preset).setup_keep


def germany_arms(seed, mix_seat1, ticket="Berlin-Köln", players=3):
    """Germany control and arm (``ticket`` offered to seat 1) with seat 0
    announcing 2 short, seat 1 ``mix_seat1`` short; returned after seat 1's deal."""
    control = Game("germany", players, seed)
    arm = Game("germany", players, seed, {"offer_ticket": ticket, "offer_seat": 1})
    for g in (control, arm):
        g.apply(A_TICKETS + 2)
    assert layout(arm) == layout(control)          # nothing happens before seat 1's deal
    for g in (control, arm):
        g.apply(A_TICKETS + mix_seat1)
    return control, arm


def test_R9_1_germany_offer_is_dealt_when_the_seat_announces():
    """R9.1, R2.3 in Germany T (a long ticket) goes to seat 1 when its
    tickets are dealt after its announcement; asking for some long tickets,
    T trades places with one of them (in the long pile or seat 0's offer)."""
    seen = set()
    for seed in range(150):
        control, arm = germany_arms(seed, 2)
        t = offered(arm)
        if t in layout(control)["offers"][1]:
            continue
        u = displaced(arm, control, 1)
        assert arm.board.ticket_deck[u] == 1                     # one of its long tickets
        assert layout(arm) == swapped(layout(control), t, u)
        seen.add(where(layout(control), t))
        for g in (control, arm):                                 # the rest of the setup deals alike
            through_setup(g, mix=1)
        assert layout(arm) == swapped(layout(control), t, u)
    assert seen == {"pile", "seat 0"}, seen


def test_R9_1_germany_seat_asking_none_of_the_tickets_pile():
    """R9.1, R2.3 seat 1 asks for 4 short tickets and T is long: T replaces
    one of them, that short ticket goes back on top of the short pile and T
    leaves the long pile, the tickets beneath it moving up one place."""
    seen = set()
    for seed in range(150):
        control, arm = germany_arms(seed, 4)
        t = offered(arm)
        c, a = layout(control), layout(arm)
        u = displaced(arm, control, 1)
        assert arm.board.ticket_deck[u] == 0
        assert a["offers"][1] == [t if x == u else x for x in c["offers"][1]]
        if t in c["offers"][0]:                                   # dealt to seat 0 before: a plain swap
            assert a == swapped(c, t, u)
            seen.add("seat 0")
        else:
            assert a["offers"][0] == c["offers"][0]
            assert a["piles"] == [[u] + c["piles"][0], [x for x in c["piles"][1] if x != t]]
            seen.add("pile")
    assert seen == {"pile", "seat 0"}, seen


# --------------------------------------------------------------------------- R9.1, R9.2 bad values

BAD = [
    ("usa", {"offer_ticket": "Denver-Atlantis"}, "offer_ticket", "did you mean 'Atlanta'"),
    ("usa", {"offer_ticket": "Denver"}, "offer_ticket", "joined by '-'"),
    ("usa", {"offer_ticket": "Denver-Miami"}, "offer_ticket", "no such ticket"),
    ("usa", {"offer_ticket": "Boston-Miami 13"}, "offer_ticket", "'Boston-Miami 12'"),
    ("usa-1910", {"offer_ticket": "Boston-Miami"}, "offer_ticket", "not in the draw piles"),
    ("europe", {"offer_ticket": "Lisboa-Danzig"}, "offer_ticket", "long ticket"),
    ("usa", {"ticket_decks": ["base", "mega"], "offer_ticket": "Miami-Los Angeles"}, "offer_ticket",
     "'Los Angeles-Miami 20', 'Los Angeles-Miami 19'"),
    ("usa", {"remove_routes": "Atlanta-Raleigh"}, "remove_routes",
     "2 tracks between Atlanta and Raleigh: 'Atlanta-Raleigh (2 gray)', 'Atlanta-Raleigh (2 gray)'"),
    ("usa", {"remove_routes": ["Atlanta-Seattle"]}, "remove_routes", "no route joins Atlanta and Seattle"),
    ("usa", {"remove_routes": ["Atlanta-Atlantis"]}, "remove_routes", "did you mean 'Atlanta'"),
    ("usa", {"remove_routes": ["Atlanta-New Orleans (4 red)"]}, "remove_routes",
     "'Atlanta-New Orleans (4 orange)', 'Atlanta-New Orleans (4 yellow)'"),
    ("usa", {"remove_routes": ["Denver-Omaha", "Omaha-Denver"]}, "remove_routes", "named more often"),
    ("usa", {"offer_ticket": 5}, "offer_ticket", "From-To"),
    ("usa", {"remove_routes": [1]}, "remove_routes", "route labels"),
    ("usa", {"offer_seat": 5}, "offer_seat", "0..4"),
]


@pytest.mark.parametrize("preset,overrides,name,text", BAD, ids=[f"{b[2]}-{i}" for i, b in enumerate(BAD)])
def test_R9_1_R9_2_bad_names_are_one_line_errors(preset, overrides, name, text):
    """R9.1, R9.2 a ticket or route the rule set's map does not have, or has
    several of, is refused when the board is built: one line naming the
    parameter, the value and what was expected."""
    with pytest.raises(RulesError) as e:
        build_board(get_rules(preset, overrides))
    msg = str(e.value)
    assert "\n" not in msg and f"'{name}'" in msg and text in msg, msg


def test_R9_1_points_pick_one_of_several_tickets():
    """R9.1 'From-To points' picks the ticket of the piles with those points; either order of the places."""
    rules = get_rules("usa", {"ticket_decks": ["base", "mega"], "offer_ticket": "Miami-Los Angeles 19"})
    t = int(build_board(rules).rp[RP_OFFER_TICKET])
    m = load_map("usa")
    assert int(m.ticket_points[t]) == 19 and "mega" in m.ticket_tags[t]


def test_R9_1_seat_not_at_the_table():
    """R9.1 a seat beyond the players is refused when the table is set up, and
    by the experiment validator before anything runs; one line each."""
    with pytest.raises(RulesError, match=r"^rule parameter 'offer_seat' is 2 but the table has 2 players; "
                                         r"expected a seat in 0\.\.1$"):
        Game("usa", 2, 0, {"offer_ticket": "Boston-Miami", "offer_seat": 2})
    Game("usa", 2, 0, {"offer_seat": 4})                     # no ticket offered: the seat does not matter
    doc = {"name": "x", "rules": "usa", "players": 2, "lineup": ["random", "random"], "games": 4,
           "rule_overrides": {"offer_ticket": "Boston-Miami", "offer_seat": 3}}
    with pytest.raises(ExperimentError, match="offer_seat' is 3 but the table has 2 players") as e:
        load_experiment(doc)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("overrides,where", [({"offer_ticket": "Boston-Miamy"}, "rule_overrides.offer_ticket"),
                                             ({"remove_routes": ["Atlanta-Raleigh"]}, "rule_overrides.remove_routes")])
def test_R9_1_R9_2_experiment_validation_names_the_parameter(overrides, where):
    """R9.1, R9.2 a bad ticket or route name in an experiment file is one line before anything runs."""
    doc = {"name": "x", "rules": "usa", "players": 2, "lineup": ["random", "random"], "games": 4,
           "rule_overrides": overrides}
    with pytest.raises(ExperimentError) as e:
        load_experiment(doc)
    assert "\n" not in str(e.value) and where in str(e.value), str(e.value)


def test_R9_1_R9_2_rules_command_lists_the_parameters():
    """R9.1, R9.2 `ttrsim rules usa` lists the four parameters with their rule ids."""
    res = CliRunner().invoke(main, ["rules", "usa"])
    rows = {line.split()[0]: line.split() for line in res.output.splitlines() if line.startswith("  ")}
    assert rows["offer_ticket"][1:3] == ["-", "R9.1"] and rows["offer_seat"][1:3] == ["0", "R9.1"]
    assert rows["offer_kept"][1:3] == ["false", "R9.1"] and rows["remove_routes"][1:3] == ["[]", "R9.2"]


# --------------------------------------------------------------------------- R9.2 removed routes

REMOVED = ["Atlanta-New Orleans (4 orange)", "Denver-Omaha", "Atlanta-Raleigh (2 gray)", "Atlanta-Raleigh (2 gray)"]


def test_R9_2_removed_route_is_off_the_board_and_never_claimed():
    """R9.2 the board and Game.map (whose labels narration prints) have the
    map without the routes; each board route is the map file's route ``route_map_id``; the
    remaining track of a double is a single route; random games never claim
    a removed route."""
    full = load_map("usa")
    gone = {3, 34, 5, 6}
    assert {full.route_label(r) for r in gone} == set(REMOVED) - {"Denver-Omaha"} | {"Denver-Omaha (4 pink)"}
    g = Game("usa", 2, 0, {"remove_routes": REMOVED})
    b, m = g.board, g.map
    assert len(b.route_len) == m.n_routes == 96
    assert sorted(set(range(100)) - set(b.route_map_id.tolist())) == sorted(gone)
    for r in range(m.n_routes):
        f = int(b.route_map_id[r])
        assert m.route_label(r) == full.route_label(f)
        assert (b.route_a[r], b.route_b[r], b.route_len[r]) == (full.route_a[f], full.route_b[f], full.route_len[f])
    yellow = m.route_label(list(b.route_map_id).index(4))
    assert yellow == "Atlanta-New Orleans (4 yellow)"
    group = b.route_group[list(b.route_map_id).index(4)]
    assert (b.group_routes[group] >= 0).sum() == 1
    rng = np.random.default_rng(0)
    for seed in range(5):
        g.reset(seed)
        while not g.over:
            acts = g.legal_actions()
            assert all(decode_claim(a)[0] < 96 for a in acts if A_CLAIM <= a < claims_end(96))
            g.apply(int(rng.choice(acts)))
        owned = np.flatnonzero(g.state.route_owner >= 0)
        assert not {int(b.route_map_id[r]) for r in owned} & gone


def test_R9_2_turns_table_writes_the_map_files_route_ids():
    """R9.2 the turns table's route is the map file's id (Board.route_map_id),
    so every arm uses the one dims/routes.parquet."""
    b = build_board(get_rules("usa", {"remove_routes": ["Atlanta-Charleston (2 gray)"]}))
    turns = np.full((3, N_TURN_COLS), 0, np.int32)
    turns[:, T_ROUTE] = [0, -1, 98]
    ctx = ChunkContext(0, "usa", 2, ["a", "b"], np.array([[0, 1]]), np.zeros(99), b.route_map_id)
    assert turns_table(ctx, np.array([7]), turns)["route"].to_pylist() == [1, None, 99]


def test_R9_2_experiment_tables_use_the_map_files_route_ids(tmp_path):
    """R9.2 in a run without a route, each claim's route (a map-file id, never
    the removed one) has the length whose points the claim scored."""
    doc = {"name": "x", "rules": "usa", "players": 2, "lineup": ["random", "random"], "games": 6, "seed": 1,
           "log": True, "workers": 1, "rule_overrides": {"remove_routes": ["Atlanta-Charleston (2 gray)"]}}
    r = run_experiment(doc, output=tmp_path / "out", progress=False, echo=False)
    routes = pl.read_parquet(r.path / "dims" / "routes.parquet")
    assert routes.height == 100
    turns = pl.concat([pl.read_parquet(f) for f in sorted((r.path / "turns").glob("*.parquet"))])
    turns = turns.sort(["game", "turn"]).with_columns(
        gained=pl.col("score") - pl.col("score").shift(1, fill_value=0).over(["game", "seat"]))
    claims = turns.filter(pl.col("action") == "claim").join(routes.select("route", "length"), on="route")
    assert claims.height > 20 and 0 not in claims["route"].to_list()
    points = {1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15}
    assert claims["gained"].to_list() == [points[x] for x in claims["length"].to_list()]


# --------------------------------------------------------------------------- fuzz

@pytest.mark.parametrize("preset", preset_names())
def test_R9_1_R9_2_random_play_keeps_every_invariant(preset):
    """R9.1, R9.2 random games with a ticket offered (and kept) and a route
    removed keep every invariant of the fuzzer, at every table size."""
    ticket, route = PER_PRESET[preset]
    for players in (2, 3, 5):
        overrides = {"offer_ticket": ticket, "offer_seat": players - 1, "offer_kept": players == 3,
                     "remove_routes": [route]}
        counts, first, _ = fuzz_chunk(preset, players, np.arange(40, dtype=np.int64), overrides)
        bad = {VIOLATION_NAMES[v]: int(first[v]) for v in range(len(counts)) if counts[v]}
        assert not bad, (players, bad)


def test_R9_3_a_changed_route_costs_and_scores_its_new_length():
    """R9.3 Atlanta-Nashville (1 gray) printed as 2 red: claimable with two red cards, not with one
    red or with two blue; the claim pays two red cards and two trains and scores the points of
    length 2; the route keeps its id, so nothing else on the board moves."""
    from ttrsim.data.ids import ROUTE_COLOUR_IDS
    g = Game("usa", 2, 0, {"change_routes": ["Atlanta-Nashville (1 gray) -> 2 red"]})
    b, full = g.board, load_map("usa")
    r = 2
    assert full.route_label(r) == "Atlanta-Nashville (1 gray)" and g.map.route_label(r) == "Atlanta-Nashville (2 red)"
    assert (int(b.route_len[r]), int(b.route_colour[r]), int(b.route_points[r])) == (2, ROUTE_COLOUR_IDS["red"], 2)
    assert len(b.route_len) == 100 and b.route_map_id.tolist() == list(range(100))
    while g.phase != "main":
        g.apply(int(g.legal_actions()[-1]))
    s, p = g.state, g.player
    red, blue = ROUTE_COLOUR_IDS["red"], ROUTE_COLOUR_IDS["blue"]

    def claims_of_route(hand):
        s.hand[p, :] = 0
        for c, n in hand.items():
            s.hand[p, c] = n
        return [a for a in g.legal_actions() if A_CLAIM <= a < claims_end(100) and decode_claim(a)[0] == r]

    assert claims_of_route({red: 1}) == [] and claims_of_route({blue: 2}) == []
    (claim,) = claims_of_route({red: 2})
    trains, score = int(s.trains[p]), int(s.score[p])
    g.apply(int(claim))
    assert (int(s.hand[p, red]), int(s.trains[p]), int(s.score[p])) == (0, trains - 2, score + 2)


@pytest.mark.parametrize("value,expect", [
    (["Atlanta-Nashville -> 9 red"], "a length 1..8"),
    (["Atlanta-Nashville -> 2 mauve"], "a colour of"),
    (["Atlanta-Nashville 2 red"], "must be a list of 'ROUTE -> LENGTH COLOUR'"),
    (["Atlanta-Raleigh -> 3 red"], "is one of 2 tracks"),
    (["Atlanta-Nashville -> 2 red", "Atlanta-Nashville -> 3 red"], "changed twice"),
])
def test_R9_3_a_bad_change_is_one_line_naming_the_parameter(value, expect):
    with pytest.raises(RulesError) as e:
        build_board(get_rules("usa", {"change_routes": value}))
    assert str(e.value).startswith("rule parameter 'change_routes'") and expect in str(e.value)
    assert "\n" not in str(e.value)
