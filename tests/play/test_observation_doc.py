"""The observation a Python strategy gets is what docs/strategies.md ("The
observation") documents: every key of its table, with its type, and the keys
of the route, ticket and player records, at every phase of whole games on the
USA, Germany (passengers, two ticket piles) and Europe (stations, tunnels) maps."""
import re
from pathlib import Path

import pytest

from ttrsim.play.game import Game

DOC = (Path(__file__).resolve().parents[2] / "docs" / "strategies.md").read_text()
SECTION = DOC[DOC.index("### The observation"):DOC.index("### In an experiment")]
RECORD_TYPES = {"route", "ticket", "player"}


def documented_keys() -> dict:
    """key -> (type, only sometimes) from the section's first table."""
    out = {}
    for line in SECTION.splitlines():
        m = re.match(r"^\| `(\w+)` \| `([^`]+)` \| (.*) \|$", line)
        if m:
            out[m[1]] = (m[2], m[3].startswith("only "))
    return out


def documented_record(kind: str) -> set:
    text = SECTION[SECTION.index(f"A **{kind}** record"):]
    text = text[:text.index(". A **") if ". A **" in text else text.index("\n\n")]
    return {w for w in re.findall(r"`([a-z_]+)`", text)} - {"int", "str", "gray", "dict"}


def conforms(value, typ: str) -> bool:
    """``value`` has the documented type ``typ`` (int, str, bool, list[T],
    tuple[T], dict[K, V], T or None, or a record name)."""
    typ = typ.strip()
    if typ.endswith(" or None"):
        return value is None or conforms(value, typ[:-len(" or None")])
    if typ in RECORD_TYPES:
        return dict(value).keys() == documented_record(typ)
    simple = {"int": int, "str": str, "bool": bool}
    if typ in simple:
        return type(value) is simple[typ]
    m = re.match(r"^(list|tuple|dict)\[(.*)\]$", typ)
    assert m, f"unknown documented type {typ!r}"
    outer, inner = m[1], m[2]
    if outer == "dict":
        k, v = split_top(inner)
        return isinstance(value, dict) and all(conforms(a, k) and conforms(b, v) for a, b in value.items())
    return type(value) is {"list": list, "tuple": tuple}[outer] and all(conforms(x, inner) for x in value)


def split_top(inner: str) -> tuple:
    depth = 0
    for i, ch in enumerate(inner):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            return inner[:i], inner[i + 1:]
    raise AssertionError(inner)


def test_the_documentation_names_every_record_field():
    assert documented_record("route") == {"id", "from", "to", "from_place", "to_place", "length", "colour", "group"}
    assert documented_record("ticket") == {"id", "from", "to", "points", "penalty"}
    assert documented_record("player") == {"seat", "trains", "score", "cards", "tickets", "passengers"}


EUROPE_KEYS = {"stations_left", "stations", "tunnel_route", "tunnel_extra", "tunnel_shown"}


@pytest.mark.parametrize("rules, players", [("usa", 3), ("germany", 4), ("europe", 3)])
def test_every_observation_is_as_documented(rules, players):
    docs = documented_keys()
    always = {k for k, (_, sometimes) in docs.items() if not sometimes}
    seen_keys, seen_phases = set(), set()
    for seed in range(3):
        g = Game(rules, players, seed=seed)
        while True:
            obs = g.observation()
            seen_phases.add(obs["phase"])
            assert always <= obs.keys() <= docs.keys(), set(obs) ^ always
            for key, value in obs.items():
                assert conforms(value, docs[key][0]), (key, value)
            seen_keys |= obs.keys()
            if g.over:
                break
            g.apply(g.legal_actions()[-1 if seed % 2 else 0])
        for r, route in enumerate(obs["routes"]):
            assert route["id"] == r and route["length"] == obs["route_lengths"][r]
    if rules == "germany":
        assert seen_keys == docs.keys() - EUROPE_KEYS       # passengers and ticket piles too
    if rules == "europe":
        assert EUROPE_KEYS <= seen_keys and "tunnel" in seen_phases          # stations and tunnels (R8)
    assert {"setup-keep", "main", "over"} <= seen_phases


def test_the_keep_mask_keeps_the_offer_in_bit_order():
    g = Game("usa", 2, seed=5)
    offer = g.observation()["offer"]
    assert g.phase == "setup-keep" and len(offer) == 3
    seat = g.player
    g.apply(19 + 0b101)
    while g.phase == "setup-keep":            # the other seat keeps all (offers are settled together)
        g.apply(19 + 0b111)
    kept = g.observation(seat)["tickets"]
    assert [t["id"] for t in kept] == sorted([offer[0]["id"], offer[2]["id"]])
