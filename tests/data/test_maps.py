"""Map files, loader and validator (R1.3, R1.4, R1.5, R6.4).

The packaged maps must match the facts in docs/rules.md R1; every file in
``tests/fixtures/bad_maps/`` holds exactly one problem (``several_problems.yaml`` holds
several) and must be rejected with a one-line message naming file and entry,
in well under a second (``alias_bomb.yaml``: 9**9 values once expanded).
"""

import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ttrsim.cli import main
from ttrsim.data.ids import BLUE, GRAY, PINK, ROUTE_COLOUR_IDS
from ttrsim.data.maps import MapData, MapError, available_maps, load_map

BAD = Path(__file__).resolve().parents[1] / "fixtures" / "bad_maps"
# A guard against a hang, not a speed test: a bad map is refused in milliseconds;
# only a loader reading a bomb or a deep nesting the slow way passes 10 s.
HANG = 10.0

GERMAN_COUNTRIES = ("Dänemark", "Frankreich", "Niederlande", "Österreich", "Schweiz")


@pytest.fixture(scope="module")
def usa() -> MapData:
    return load_map("usa")


@pytest.fixture(scope="module")
def germany() -> MapData:
    return load_map("germany")


def group_sizes(m: MapData) -> Counter:
    """Number of parallel groups by their track count."""
    return Counter(np.bincount(m.route_group).tolist())


def pair_of(m: MapData, r: int) -> frozenset:
    return frozenset((int(m.route_a[r]), int(m.route_b[r])))


# --------------------------------------------------------------------------- packaged maps


def test_available_maps():
    assert available_maps() == ["europe", "germany", "usa"]


def test_R1_3_usa_map_counts(usa):
    """R1.3 USA: 36 cities, 100 routes, 309 spaces, 22 double routes."""
    assert usa.name == "usa"
    assert usa.n_locations == usa.n_nodes == 36
    assert not usa.location_is_country.any()
    assert usa.n_routes == 100
    assert int(usa.route_len.sum()) == 309
    assert group_sizes(usa) == {1: 56, 2: 22}
    assert np.bincount(usa.route_len).tolist() == [0, 9, 36, 20, 16, 10, 9]
    # each of the 8 colours 7 routes; 44 gray (reference/SOURCES.md)
    assert np.bincount(usa.route_colour, minlength=9).tolist() == [7] * 8 + [44]
    assert usa.passengers.tolist() == [0] * 36


def test_R1_3_germany_map_counts(germany):
    """R1.3 Germany: 35 cities + 5 countries, 14 border points, 110 routes, 313 spaces,
    21 double and 2 triple routes, lengths 1 to 7."""
    g = germany
    cities = [n for n, c in zip(g.location_names, g.location_is_country) if not c]
    countries = [n for n, c in zip(g.location_names, g.location_is_country) if c]
    assert len(cities) == 35
    assert sorted(countries) == sorted(GERMAN_COUNTRIES)
    assert g.n_locations == 40
    assert g.n_nodes == 35 + 14
    assert g.n_routes == 110
    assert int(g.route_len.sum()) == 313
    assert group_sizes(g) == {1: 62, 2: 21, 3: 2}
    assert sorted(set(g.route_len.tolist())) == [1, 2, 3, 4, 5, 6, 7]
    triples = {g.route_label(r) for r in range(g.n_routes) if np.sum(g.route_group == g.route_group[r]) == 3}
    assert triples == {"Dortmund-Düsseldorf (1 gray)", "Düsseldorf-Köln (1 gray)"}


def test_R1_3_tickets_and_decks(usa, germany):
    """R1.3/R7: ticket decks base 30, 1910 35, mega 69, bigcities 35; short 55, long 34."""
    assert usa.n_tickets == 99
    assert {t: len(usa.deck(t)) for t in usa.tags()} == {"base": 30, "1910": 35, "mega": 69, "bigcities": 35}
    assert {t: len(germany.deck(t)) for t in germany.tags()} == {"short": 55, "long": 34}
    assert int(usa.ticket_points[usa.deck("base")].sum()) == 349
    assert int(usa.ticket_points[usa.deck("mega")].sum()) == 754
    assert int(usa.ticket_points[usa.deck("bigcities")].sum()) == 389
    assert int(germany.ticket_points[germany.deck("short")].sum()) == 415
    assert int(germany.ticket_points[germany.deck("long")].sum()) == 526
    # base and 1910 are disjoint; the 1910 deck and the big-cities deck lie inside the mega deck
    base, mega = set(usa.deck("base")), set(usa.deck("mega"))
    assert not base & mega
    assert set(usa.deck("1910")) <= mega and set(usa.deck("bigcities")) <= mega


def test_R1_4_scoring_table(usa, germany):
    """R1.4: 1:1, 2:2, 3:4, 4:7, 5:10, 6:15, 7:18 (USA has no length-7 routes; the table has
    room for Europe's 8, R8.6)."""
    assert germany.scoring.tolist() == [0, 1, 2, 4, 7, 10, 15, 18, 0]
    assert usa.scoring.tolist() == [0, 1, 2, 4, 7, 10, 15, 0, 0]
    for m in (usa, germany):
        assert (m.scoring[m.route_len] > 0).all()


def test_R1_5_passenger_setup_counts(germany):
    """R1.5: 60 passengers; Berlin 5, Hamburg/Köln/Frankfurt/München 4, Leipzig/Stuttgart 3, others 1."""
    g = germany
    assert int(g.passengers.sum()) == 60
    special = {"Berlin": 5, "Hamburg": 4, "Köln": 4, "Frankfurt": 4, "München": 4, "Leipzig": 3, "Stuttgart": 3}
    for loc, name in enumerate(g.location_names):
        assert g.passengers[loc] == special.get(name, 1), name


def test_R6_4_border_points_are_separate_nodes(germany):
    """R6.4: Freiburg's and Saarbrücken's Frankreich routes end at different nodes of one location."""
    g = germany
    france = g.location_id("Frankreich")

    def france_end(city):
        """The node at the French end of the city's only route to Frankreich."""
        c = g.node_id(city)
        (end,) = [int(other) for a, b in zip(g.route_a, g.route_b) for me, other in ((a, b), (b, a))
                  if me == c and g.node_loc[other] == france]
        return end

    freiburg, saarbruecken = france_end("Freiburg"), france_end("Saarbrücken")
    assert freiburg != saarbruecken
    assert g.node_loc[freiburg] == g.node_loc[saarbruecken] == france
    assert g.location_nodes(france).tolist() == [g.node_id(f"Frankreich/{i}") for i in (1, 2, 3)]
    # every border point is a dead end with exactly one route, and no route ends at a country location
    for country in GERMAN_COUNTRIES:
        for node in g.location_nodes(g.location_id(country)):
            assert np.sum((g.route_a == node) | (g.route_b == node)) == 1
    assert g.n_nodes - g.n_locations == 14 - 5


def test_R6_4_tickets_and_passengers_name_countries(germany):
    g = germany
    countries = set(np.flatnonzero(g.location_is_country).tolist())
    ticket_ends = set(g.ticket_a.tolist()) | set(g.ticket_b.tolist())
    assert countries <= ticket_ends
    assert all(g.passengers[c] == 1 for c in countries)


def test_ids_and_dtypes(usa, germany):
    for m in (usa, germany):
        L, N, R, T = m.n_locations, m.n_nodes, m.n_routes, m.n_tickets
        assert m.location_is_country.dtype == bool and m.location_is_country.shape == (L,)
        assert m.location_xy.dtype == np.float32 and m.location_xy.shape == (L, 2)
        assert m.node_loc.dtype == np.int16 and m.node_xy.shape == (N, 2) and m.node_xy.dtype == np.float32
        for arr, dtype, n in ((m.route_a, np.int16, R), (m.route_b, np.int16, R), (m.route_len, np.int8, R),
                              (m.route_colour, np.int8, R), (m.route_group, np.int16, R),
                              (m.ticket_a, np.int16, T), (m.ticket_b, np.int16, T),
                              (m.ticket_points, np.int16, T), (m.scoring, np.int16, 9),
                              (m.passengers, np.int16, L)):
            assert arr.dtype == dtype and arr.shape == (n,)
            assert not arr.flags.writeable
        assert len(m.route_group_name) == R and len(m.ticket_tags) == T
        # cities keep the same id as node and location
        cities = np.flatnonzero(~m.location_is_country)
        assert m.node_loc[cities].tolist() == cities.tolist()
        assert m.node_names[: len(cities)] == m.location_names[: len(cities)]
        # groups are numbered 0..G-1 by first appearance
        first = [int(g) for i, g in enumerate(m.route_group) if g not in m.route_group[:i]]
        assert first == list(range(m.route_group.max() + 1))
        # every parallel group joins one endpoint pair
        for g in set(m.route_group.tolist()):
            assert len({pair_of(m, r) for r in np.flatnonzero(m.route_group == g)}) == 1


def test_helpers(usa):
    m = usa
    assert m.route_label(3) == "Atlanta-New Orleans (4 orange)"
    assert m.route_group_name[3] == "D01" and m.route_group_name[0] is None
    assert m.route_colour[3] == ROUTE_COLOUR_IDS["orange"] and m.route_colour[0] == GRAY
    atlanta = m.location_id("Atlanta")
    assert m.location_nodes(atlanta).tolist() == [atlanta]
    assert m.location_xy[atlanta].tolist() == [1395, 726]
    assert m.tags() == ["1910", "base", "bigcities", "mega"]
    assert m.deck("base").dtype == np.int16
    assert m.deck("base").tolist() == list(range(30))
    with pytest.raises(KeyError):
        m.deck("nope")
    assert "100 routes" in repr(m)
    assert "Montréal" in m.location_names


def test_load_by_path_and_name_agree(usa):
    by_path = load_map(Path(usa.path))
    assert by_path.location_names == usa.location_names
    assert np.array_equal(by_path.route_a, usa.route_a)
    assert load_map("usa") is usa  # packaged maps are loaded once


def test_colour_aliases_and_unquoted_tags(tmp_path):
    text = (BAD / "unknown_colour.yaml").read_text(encoding="utf-8")
    text = text.replace("purpel", "purple").replace("[base]", "[1910]")
    p = tmp_path / "aliases.yaml"
    p.write_text(text, encoding="utf-8")
    m = load_map(p)
    assert m.route_colour.tolist() == [PINK, GRAY, BLUE]
    assert m.tags() == ["1910"]


# --------------------------------------------------------------------------- bad maps

BAD_MAPS = {
    "unknown_colour.yaml": "routes[0] (Atlanta-Boston): unknown colour 'purpel'; expected one of gray, red, "
                           "orange, yellow, green, blue, pink, white, black",
    "unknown_city_route.yaml": "routes[0] (Atlanta-Nowhere): unknown city 'Nowhere'; expected one of the cities "
                               "or border points",
    "unknown_city_ticket.yaml": "tickets[0] (Atlanta-Denver): unknown city or country 'Denver'; expected one of "
                                "the cities or countries",
    "length_9.yaml": "routes[0] (Atlanta-Boston): length 9 is not an integer in 1..8",
    "length_not_scored.yaml": "routes[0] (Atlanta-Boston): length 5 is missing from the scoring table; "
                              "scored lengths are 1, 2, 3",
    "duplicate_city.yaml": "cities[Atlanta]: duplicated city name; expected each city once",
    "inconsistent_group.yaml": "routes[2] (Atlanta-Chicago): parallel group D01 joins other endpoints in "
                               "routes[1] (Boston-Chicago); expected all tracks of a group to join the same "
                               "two endpoints",
    "malformed.yaml": "line 11: malformed YAML (expected ',' or ']', but got '['; while parsing a flow sequence at "
                      "line 10, column 5); expected valid YAML",
    "missing_routes.yaml": "routes: missing top-level field; expected a list of [a, b, length, colour, group(, tunnel, "
                         "ferry_locos)] rows",
    "route_wrong_shape.yaml": "routes[0] (Atlanta-Boston): expected a row [a, b, length, colour, group, tunnel, "
                              "ferry_locos] of 5 or 7 items, got 4 items",
    "four_tracks.yaml": "routes[4] (Boston-Chicago): parallel group D01 has 4 tracks; expected at most 3",
    "double_without_group.yaml": "routes[2] (Boston-Chicago): joins the same endpoints as routes[1] "
                                 "(Boston-Chicago) but this route has no parallel group",
    "zero_points.yaml": "tickets[0] (Atlanta-Chicago): points 0 must be a positive integer",
    "ticket_to_itself.yaml": "tickets[0] (Atlanta-Atlanta): ticket from 'Atlanta' to itself",
    "duplicate_ticket.yaml": "tickets[2] (Chicago-Atlanta): duplicates tickets[0] (Atlanta-Chicago)",
    "unknown_field.yaml": "scorin: unknown top-level field; expected one of name, scoring, cities, countries, "
                          "routes, tickets, passengers",
    "route_to_country.yaml": "routes[4] (Atlanta-Canada): 'Canada' is a country; a route must end at one of "
                             "its border points: Canada/1, Canada/2",
    "unused_border_point.yaml": "countries[Canada].border_points[Canada/2]: reached by no route",
    "ticket_to_border_point.yaml": "tickets[0] (Atlanta-Canada/1): 'Canada/1' is a border point; expected a "
                                   "city or a country (here 'Canada')",
    "passengers_unknown.yaml": "passengers[Denver]: unknown city or country 'Denver'",
    "passengers_negative.yaml": "passengers[Boston]: count -1 must be a non-negative integer",
    "alias_bomb.yaml": "line 20: the alias *c makes aliases repeat more than 1000 values; expected at most 1000",
    "nested_unclosed.yaml": "line 11: lists and mappings nested more than 100 deep; expected at most 100",
    "city_without_routes.yaml": "cities[Denver]: reached by no route but tickets[1] (Boston-Denver) ends there; "
                                "expected at least one route to every city",
    "disconnected.yaml": "routes: the routes form 2 networks that no route joins (Atlanta's and Chicago's); "
                         "expected one connected network, so that every ticket can be completed",
}


def test_bad_map_catalogue_is_complete():
    files = {p.name for p in BAD.glob("*.yaml")}
    assert files == set(BAD_MAPS) | {"several_problems.yaml"}


@pytest.mark.parametrize("fname", sorted(BAD_MAPS))
def test_bad_map_is_rejected_with_one_line(fname):
    start = time.perf_counter()
    with pytest.raises(MapError) as info:
        load_map(BAD / fname)
    assert time.perf_counter() - start < HANG
    err = info.value
    assert isinstance(err, ValueError)
    assert len(err.problems) == 1, str(err)
    assert "\n" not in err.problems[0]
    assert str(err) == err.problems[0]
    assert err.problems[0].startswith(f"{fname}: {BAD_MAPS[fname]}"), err.problems[0]


def test_bad_maps_differ_from_a_good_map_by_one_edit(tmp_path):
    """The catalogue's base (unknown_colour.yaml with the colour fixed) is a valid map."""
    text = (BAD / "unknown_colour.yaml").read_text(encoding="utf-8").replace("purpel", "red")
    p = tmp_path / "good.yaml"
    p.write_text(text, encoding="utf-8")
    m = load_map(str(p))
    assert (m.n_locations, m.n_routes, m.n_tickets) == (3, 3, 2)
    assert m.route_group.tolist() == [0, 1, 1]


def test_several_problems_are_all_reported():
    with pytest.raises(MapError) as info:
        load_map(BAD / "several_problems.yaml")
    problems = info.value.problems
    expected = [
        "cities[Boston]: duplicated city name",
        "routes[0] (Atlanta-Boston): unknown colour 'purpel'",
        "routes[1] (Boston-Nowhere): unknown city 'Nowhere'",
        "routes[2] (Boston-Chicago): expected a row [a, b, length, colour, group, tunnel, ferry_locos] of 5 or 7 "
        "items, got 4 items",
        "tickets[0] (Atlanta-Atlanta): ticket from 'Atlanta' to itself",
        "tickets[1] (Boston-Chicago): points -2 must be a positive integer",
    ]
    assert len(problems) == len(expected), "\n".join(problems)
    for want in expected:
        assert any(p.startswith(f"several_problems.yaml: {want}") for p in problems), want
    assert str(info.value) == "\n".join(problems)


def test_unknown_map_name_lists_available_maps():
    with pytest.raises(MapError) as info:
        load_map("usaa")
    assert info.value.problems == [
        "map 'usaa': unknown map name; expected one of europe, germany, usa or a path to a .yaml/.yml file"]


def test_missing_file(tmp_path):
    with pytest.raises(MapError) as info:
        load_map(tmp_path / "nowhere.yaml")
    (line,) = info.value.problems
    assert line.startswith("nowhere.yaml: (file): not found at ")


@pytest.mark.parametrize("text, message", [
    ("", "(top level): expected a mapping with fields name, scoring, cities, countries, routes, tickets, "
         "passengers, got an empty file"),
    ("- 1\n", "(top level): expected a mapping"),
    ("name: x\nscoring: {1: 1}\ncities: []\nroutes: []\ntickets: []\n",
     "cities: expected a mapping city name -> [x, y], got a list"),
    ("name: x\nscoring: {1: 1}\ncities: {}\nroutes: []\ntickets:\n",
     "tickets: expected a list of [a, b, points, [deck tags]] rows, got nothing (null)"),
    ("name: x\nname: y\nscoring: {1: 1}\ncities: {}\nroutes: []\ntickets: []\n",
     "name: top-level field given twice"),
    ("name: x\nscoring: {1: 1, 9: 20}\ncities: {}\nroutes: []\ntickets: []\n",
     "scoring[9]: route length must be an integer in 1..8"),
    ("name: x\nscoring: {1: 1}\ncities: {A: [1, 2, 3]}\nroutes: []\ntickets: []\n",
     "cities[A]: coordinates must be [x, y] numbers"),
])
def test_top_level_problems(tmp_path, text, message):
    p = tmp_path / "top.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(MapError) as info:
        load_map(p)
    (line,) = info.value.problems
    assert line.startswith(f"top.yaml: {message}"), line


def test_validate_map_command_refuses_an_alias_bomb_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    r = CliRunner().invoke(main, ["validate-map", str(BAD / "alias_bomb.yaml")])
    assert time.perf_counter() - start < HANG
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit)
    assert r.stderr.splitlines() == [f"alias_bomb.yaml: {BAD_MAPS['alias_bomb.yaml']}",
                                     f"Error: {BAD / 'alias_bomb.yaml'}: invalid map (1 problem)"]
    assert r.stdout == "" and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["city_without_routes.yaml", "disconnected.yaml"])
def test_validate_map_command_fails_on_a_map_whose_tickets_cannot_all_be_completed(name):
    r = CliRunner().invoke(main, ["validate-map", str(BAD / name)])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit)
    assert r.stderr.splitlines() == [f"{name}: {BAD_MAPS[name]}", f"Error: {BAD / name}: invalid map (1 problem)"]
