"""Rule sets as data: the R7 presets and every rule parameter.

A :class:`RuleSet` is a frozen set of named parameters. The presets of R7 are
plain dicts of overrides over :data:`DEFAULTS`; every entry, and every
**[choice]** of docs/rules.md, is a parameter an experiment can override.

>>> r = get_rules("usa-mega", {"globetrotter_points": 15})
>>> (r.setup_deal, r.setup_keep, r.globetrotter_points, r.longest_path_points)
(5, 3, 15, 10)
>>> get_rules("usa", {"trainz": 40})
Traceback (most recent call last):
...
ttrsim.data.rules.RulesError: rule parameter 'trainz' is unknown; did you mean 'trains'?
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ttrsim.data.checks import did_you_mean, is_int
from ttrsim.data.maps import MAX_ROUTE_LENGTH

TIEBREAK_NAMES = ("tickets", "longest_path", "passengers", "stations", "longest_bonus", "stations_built")
TIEBREAK_FEWEST = ("stations", "stations_built")      # tie-break steps won by the fewest; the others by the most
MAX_TUNNEL_CARDS = 3      # the action codec has room for tunnel extras of up to 3 cards
MAX_STATION_COST = 3      # the action codec has room for station payments of up to 3 cards
MAX_OFFER = 8             # tickets offered at once (the keep masks of the action codec have 8 bits)
RETURN_MODES = ("bottom", "shuffle")
SETUP_RETURN_MODES = ("bottom", "shuffle", "box")   # box: the setup tickets not kept leave the game (R2.2)


class RulesError(ValueError):
    """An unknown rule set or parameter, or a bad value (one line)."""


@dataclass(frozen=True)
class Param:
    name: str
    default: object
    rule: str
    doc: str
    choice: bool = False       # a [choice] docs/rules.md makes that the texts do not settle
    lo: int | None = None      # inclusive bounds for ints
    hi: int | None = None


PARAMS: tuple[Param, ...] = (
    Param("map", "usa", "R1.3", "map name or path of a map file"),
    Param("ticket_decks", ("base",), "R7", "ticket deck tags of the map, one draw pile each (Germany: short, long)"),
    Param("scoring", None, "R1.4", "route points by length {length: points}; null = the map's table"),
    Param("trains", 45, "R1.2", "trains per player", lo=1, hi=200),
    Param("cards_per_colour", 12, "R1.1", "train cards of each of the 8 colours", lo=1, hi=100),
    Param("locomotives", 14, "R1.1", "locomotive cards", lo=0, hi=100),
    Param("hand_size", 4, "R2.1", "train cards dealt to each player", lo=0, hi=20),
    Param("face_up", 5, "R2.1", "face-up train cards", lo=1, hi=8),
    Param("first_seat", 0, "R2.5", "the seat that starts (seat order is clockwise from it)", choice=True,
          lo=0, hi=4),
    Param("setup_deal", 3, "R2.2", "tickets dealt to each player at setup", lo=1, hi=8),
    Param("setup_keep", 2, "R2.2", "tickets a player keeps at least at setup", lo=1, hi=8),
    Param("setup_return", "bottom", "R2.2",
          "returned setup tickets: 'bottom' of their deck, 'shuffle' back in, or 'box' (out of the game)"),
    Param("draw_tickets", 3, "R5.1", "tickets drawn by the draw-tickets action", lo=1, hi=8),
    Param("draw_keep", 1, "R5.1", "tickets a player keeps at least after a draw", lo=1, hi=8),
    Param("draw_return", "bottom", "R5.1", "returned drawn tickets: 'bottom' of their deck, or 'shuffle' back in"),
    Param("loco_reset_count", 3, "R3.4", "face-up locomotives that trigger a reset of the row", lo=1, hi=8),
    Param("max_loco_resets", 3, "R3.4", "resets in a row at most; after that the row stays", choice=True, lo=0, hi=100),
    Param("end_trains", 2, "R6.1", "a player ending a turn with this many trains or fewer triggers the last round",
          lo=0, hi=200),
    Param("lock_parallel_max_players", 3, "R4.5",
          "with this many players or fewer, claiming one track of a double/triple closes the others", lo=0, hi=5),
    Param("ticket_points_percent", 100, "R6.3",
          "a completed ticket scores its printed points x this / 100 (rounded half away from zero)", lo=0, hi=1000),
    Param("ticket_penalty_percent", 100, "R6.3",
          "a failed ticket loses its printed points x this / 100 (rounded likewise); 0 = no penalty", lo=0, hi=1000),
    Param("longest_path_points", 10, "R6.5", "longest continuous path bonus; 0 = no bonus", lo=0, hi=1000),
    Param("globetrotter_points", 0, "R6.6", "most completed tickets bonus; 0 = no bonus", lo=0, hi=1000),
    Param("passenger_first", 0, "R6.7", "passenger majority points for most of a colour; 0 = no passengers",
          lo=0, hi=1000),
    Param("passenger_second", 0, "R6.7", "passenger majority points for second most", lo=0, hi=1000),
    Param("passenger_zero_scores", False, "R6.7",
          "a player with no passenger of a colour may still score a majority place", choice=True),
    Param("bonus_needs_score", True, "R6.5",
          "longest path and Globetrotter go only to players with a path / a completed ticket",
          choice=True),
    Param("tiebreaks", ("tickets", "longest_path"), "R6.8",
          "tie-break steps in order, from: tickets, longest_path, passengers, longest_bonus (most), "
          "stations (fewest borrowing a route), stations_built (fewest built)", choice=True),
    Param("long_deck", "", "R8.1", "deck tag of the long tickets dealt at setup ('' = none); the rest are removed"),
    Param("setup_long", 0, "R8.1", "long tickets dealt to each player at setup, on top of setup_deal", lo=0, hi=2),
    Param("tunnel_cards", 3, "R8.3", "cards turned over when a tunnel is claimed", lo=0, hi=MAX_TUNNEL_CARDS),
    Param("stations", 0, "R8.4", "train stations per player; 0 = no stations", lo=0, hi=5),
    Param("station_costs", (1, 2, 3), "R8.4",
          "cards the 1st, 2nd, 3rd ... station costs (later ones cost the last entry)"),
    Param("station_points", 4, "R8.5", "points for each station a player did not build", lo=0, hi=1000),
    Param("max_turns", 1000, "R6.2", "turn cap (all players' turns together); the game ends 'capped'",
          choice=True, lo=1, hi=1_000_000),
    Param("stall_rounds", 1, "R6.2", "full rounds of passes by every player that end the game 'stalled'",
          choice=True, lo=1, hi=100),
    Param("offer_ticket", "", "R9.1", "study intervention: the ticket 'From-To' (or 'From-To points') of the draw "
          "piles dealt to seat offer_seat at setup in place of a random one of its offer; '' = none"),
    Param("offer_seat", 0, "R9.1", "the seat (0-based table position) offered offer_ticket", lo=0, hi=4),
    Param("offer_kept", False, "R9.1", "seat offer_seat must keep offer_ticket at setup"),
    Param("remove_routes", (), "R9.2", "study intervention: routes left off the board, each a label "
          "'A-B (4 orange)' or 'A-B' (one track only)"),
    Param("change_routes", (), "R9.3", "study intervention: routes printed otherwise, each 'ROUTE -> LENGTH "
          "COLOUR' (ROUTE as remove_routes names it; COLOUR a colour or gray)"),
)
PARAM_BY_NAME = {p.name: p for p in PARAMS}
DEFAULTS = {p.name: p.default for p in PARAMS}
TUPLE_PARAMS = tuple(p.name for p in PARAMS if isinstance(p.default, tuple))   # lists in YAML and JSON

PRESETS: dict[str, dict] = {
    "usa": {"doc": "USA 2004 base game"},
    "usa-1910": {"doc": "USA 1910: the 35 new tickets, Globetrotter instead of longest path",
                 "ticket_decks": ("1910",), "longest_path_points": 0, "globetrotter_points": 10},
    "usa-mega": {"doc": "USA 1910 Mega game: all 69 tickets, both bonuses",
                 "ticket_decks": ("mega",), "setup_deal": 5, "setup_keep": 3, "draw_tickets": 4,
                 "globetrotter_points": 10},
    "usa-bigcities": {"doc": "USA 1910 Big Cities: the 35 big-city tickets, no bonus",
                      "ticket_decks": ("bigcities",), "setup_deal": 4, "draw_tickets": 4,
                      "longest_path_points": 0},
    "germany": {"doc": "Germany with passengers: short and long decks, Globetrotter 15",
                "map": "germany", "ticket_decks": ("short", "long"), "setup_deal": 4, "draw_tickets": 4,
                "setup_return": "shuffle", "longest_path_points": 0, "globetrotter_points": 15,
                "passenger_first": 20, "passenger_second": 10, "tiebreaks": ("tickets", "passengers")},
    "europe": {"doc": "Europe: tunnels, ferries, 3 stations, one long ticket each",
               "map": "europe", "ticket_decks": ("regular",), "long_deck": "long", "setup_long": 1,
               "stations": 3, "setup_return": "box", "tiebreaks": ("tickets", "stations", "longest_bonus")},
}


@dataclass(frozen=True)
class RuleSet:
    preset: str
    map: str
    ticket_decks: tuple
    scoring: tuple | None
    trains: int
    cards_per_colour: int
    locomotives: int
    hand_size: int
    face_up: int
    first_seat: int
    setup_deal: int
    setup_keep: int
    setup_return: str
    draw_tickets: int
    draw_keep: int
    draw_return: str
    loco_reset_count: int
    max_loco_resets: int
    end_trains: int
    lock_parallel_max_players: int
    ticket_points_percent: int
    ticket_penalty_percent: int
    longest_path_points: int
    globetrotter_points: int
    passenger_first: int
    passenger_second: int
    passenger_zero_scores: bool
    bonus_needs_score: bool
    tiebreaks: tuple
    long_deck: str
    setup_long: int
    tunnel_cards: int
    stations: int
    station_costs: tuple
    station_points: int
    max_turns: int
    stall_rounds: int
    offer_ticket: str
    offer_seat: int
    offer_kept: bool
    remove_routes: tuple
    change_routes: tuple
    overrides: dict = field(default_factory=dict, compare=False)

    def params(self) -> dict:
        """Every parameter with its value (scoring as a dict)."""
        d = {p.name: getattr(self, p.name) for p in PARAMS}
        if d["scoring"] is not None:
            d["scoring"] = dict(d["scoring"])
        for name in TUPLE_PARAMS:
            d[name] = list(d[name])
        return d


def _check_value(p: Param, value):
    """Return the normalised value or raise RulesError naming the parameter."""
    bad = f"rule parameter '{p.name}'"
    if isinstance(p.default, bool):
        if not isinstance(value, bool):
            raise RulesError(f"{bad} must be true or false, got {value!r}")
        return value
    if isinstance(p.default, int):
        if not is_int(value):
            raise RulesError(f"{bad} must be an integer, got {value!r}")
        if (p.lo is not None and value < p.lo) or (p.hi is not None and value > p.hi):
            raise RulesError(f"{bad} must be in {p.lo}..{p.hi}, got {value}")
        return value
    if p.name in ("setup_return", "draw_return"):
        modes = SETUP_RETURN_MODES if p.name == "setup_return" else RETURN_MODES
        if value not in modes:
            raise RulesError(f"{bad} must be one of {', '.join(modes)}, got {value!r}")
        return value
    if p.name == "long_deck":
        if not isinstance(value, str):
            raise RulesError(f"{bad} must be a deck tag or '', got {value!r}")
        return value
    if p.name == "offer_ticket":
        if not isinstance(value, str):
            raise RulesError(f"{bad} must be a ticket 'From-To' (or 'From-To points') or '', got {value!r}")
        return value.strip()
    if p.name == "change_routes":
        if isinstance(value, str):
            value = (value,)
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and "->" in v for v in value):
            raise RulesError(f"{bad} must be a list of 'ROUTE -> LENGTH COLOUR' ('Atlanta-Nashville (1 gray) -> 2 "
                             f"red'), got {value!r}")
        return tuple(" -> ".join(x.strip() for x in v.split("->", 1)) for v in value)
    if p.name == "remove_routes":
        if isinstance(value, str):
            value = (value,)
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
            raise RulesError(f"{bad} must be a list of route labels ('A-B (4 orange)' or 'A-B'), got {value!r}")
        return tuple(v.strip() for v in value)
    if p.name == "station_costs":
        if not isinstance(value, (list, tuple)) or not value or \
                not all(is_int(v) and 1 <= v <= MAX_STATION_COST for v in value):
            raise RulesError(f"{bad} must be a non-empty list of card counts in 1..{MAX_STATION_COST}, "
                             f"got {value!r}")
        return tuple(value)
    if p.name == "map":
        if not isinstance(value, str) or not value:
            raise RulesError(f"{bad} must be a map name or path, got {value!r}")
        return value
    if p.name == "ticket_decks":
        if isinstance(value, str):
            value = (value,)
        if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= 2 or \
                not all(isinstance(v, str) for v in value):
            raise RulesError(f"{bad} must be a list of one or two deck tags, got {value!r}")
        return tuple(value)
    if p.name == "tiebreaks":
        if not isinstance(value, (list, tuple)) or len(value) > 3 or \
                any(v not in TIEBREAK_NAMES for v in value) or len(set(value)) != len(value):
            raise RulesError(f"{bad} must be a list of distinct steps from {', '.join(TIEBREAK_NAMES)}, "
                             f"got {value!r}")
        return tuple(value)
    if p.name == "scoring":
        if value is None:
            return None
        if not isinstance(value, dict) or not value or not all(
                is_int(k) and 1 <= k <= MAX_ROUTE_LENGTH and is_int(v) for k, v in value.items()):
            raise RulesError(f"{bad} must map route lengths 1..{MAX_ROUTE_LENGTH} to integer points, got {value!r}")
        return tuple(sorted(value.items()))
    raise AssertionError(p.name)  # every parameter is handled above


def percent_of(points, percent: int):
    """``points x percent / 100`` rounded half away from zero, for positive
    ``points`` (an int or an int array): what a ticket scores or loses under
    ``ticket_points_percent`` / ``ticket_penalty_percent`` (R6.3).

    >>> percent_of(5, 50), percent_of(7, 150), percent_of(9, 0), percent_of(1, 50)
    (3, 11, 0, 1)
    """
    return (points * percent + 50) // 100


def check_offer_seat(offered: bool, seat: int, players: int):
    """R9.1: the seat offered a ticket (``offered``) sits at a table of
    ``players``; else a one-line RulesError (the player count is known only
    where a table is set up).

    >>> check_offer_seat(True, 3, 3)
    Traceback (most recent call last):
    ...
    ttrsim.data.rules.RulesError: rule parameter 'offer_seat' is 3 but the table has 3 players; expected a seat in 0..2
    """
    if offered and seat >= players:
        raise RulesError(f"rule parameter 'offer_seat' is {seat} but the table has {players} players; "
                         f"expected a seat in 0..{players - 1}")


def preset_names() -> list[str]:
    return list(PRESETS)


def get_rules(preset: str = "usa", overrides: dict | None = None) -> RuleSet:
    """The preset ``preset`` with ``overrides`` applied and validated."""
    if preset not in PRESETS:
        raise RulesError(f"unknown rule set '{preset}'{did_you_mean(preset, PRESETS)}")
    overrides = dict(overrides or {})
    values = dict(DEFAULTS)
    values.update({k: v for k, v in PRESETS[preset].items() if k != "doc"})
    for name, value in overrides.items():
        if name not in PARAM_BY_NAME:
            raise RulesError(f"rule parameter '{name}' is unknown{did_you_mean(name, PARAM_BY_NAME)}")
        values[name] = value
    values = {name: _check_value(PARAM_BY_NAME[name], v) for name, v in values.items()}
    if values["setup_keep"] > values["setup_deal"] + values["setup_long"]:
        raise RulesError(f"rule parameter 'setup_keep' ({values['setup_keep']}) must not exceed "
                         f"'setup_deal' ({values['setup_deal']})"
                         + (f" + 'setup_long' ({values['setup_long']})" if values["setup_long"] else ""))
    if values["setup_deal"] + values["setup_long"] > MAX_OFFER:
        raise RulesError(f"rule parameters 'setup_deal' + 'setup_long' must not exceed {MAX_OFFER}")
    if values["setup_long"] > 0 and len(values["ticket_decks"]) > 1:
        raise RulesError("rule parameter 'setup_long' needs a single draw pile ('ticket_decks' of one tag)")
    if values["setup_long"] > 0 and not values["long_deck"]:
        raise RulesError("rule parameter 'setup_long' needs 'long_deck', the deck tag of the long tickets")
    if values["draw_keep"] > values["draw_tickets"]:
        raise RulesError(f"rule parameter 'draw_keep' ({values['draw_keep']}) must not exceed "
                         f"'draw_tickets' ({values['draw_tickets']})")
    if values["passenger_second"] > values["passenger_first"]:
        raise RulesError("rule parameter 'passenger_second' must not exceed 'passenger_first'")
    return RuleSet(preset=preset, overrides=overrides, **values)


def describe_presets() -> list[dict]:
    """One dict per preset: name, description and the full parameter set."""
    return [{"name": n, "doc": PRESETS[n]["doc"], **get_rules(n).params()} for n in PRESETS]


def with_overrides(rules: RuleSet, overrides: dict) -> RuleSet:
    """``rules`` with more overrides on top (validated)."""
    return get_rules(rules.preset, {**rules.overrides, **overrides})


assert set(DEFAULTS) == {f.name for f in dataclasses.fields(RuleSet)} - {"preset", "overrides"}
