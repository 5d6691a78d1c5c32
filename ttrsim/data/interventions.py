"""The study interventions of docs/rules.md R9, resolved against a map: the
ticket offered at setup (R9.1, ``offer_ticket``) and the routes left off the
board (R9.2, ``remove_routes``). Names that do not fit the map are a one-line
:class:`~ttrsim.data.rules.RulesError` naming the parameter;
:func:`ttrsim.core.board.build_board` resolves them, so a bad name fails where
a board is built (an experiment's validation builds one before anything runs).

>>> from ttrsim.data.rules import get_rules
>>> m = played_map(get_rules("usa", {"remove_routes": ["Atlanta-New Orleans (4 orange)", "Denver-Omaha"]}))
>>> m.n_routes, m.removed_routes
(98, (3, 34))
>>> removed_route_ids(load_map("usa"), ["Atlanta-Raleigh (2 gray)", "Atlanta-Raleigh (2 gray)"])
[5, 6]
>>> removed_route_ids(load_map("usa"), ["Atlanta-Raleigh"])    # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ttrsim.data.rules.RulesError: rule parameter 'remove_routes': 'Atlanta-Raleigh' is one of 2 tracks between ...
"""
from __future__ import annotations

import dataclasses
import re

import numpy as np

from ttrsim.data.checks import close_match
from ttrsim.data.ids import ROUTE_COLOUR_ALIASES, ROUTE_COLOUR_IDS
from ttrsim.data.maps import MAX_ROUTE_LENGTH, MapData, load_map, without_routes
from ttrsim.data.maps.mapdata import frozen
from ttrsim.data.rules import RulesError, RuleSet

TRAILING_POINTS = re.compile(r"(.+?)\s+(\d+)")                   # 'From-To 20'
ROUTE_LABEL = re.compile(r"(.+?)\s*\(\s*(\d+)\s+(\w+)\s*\)")      # 'A-B (4 orange)'


def played_map(rules: RuleSet, map_data: MapData | None = None) -> MapData:
    """The map as ``rules`` plays it: the map file's (``map_data``, loaded
    unless given) with the routes of ``change_routes`` printed otherwise
    (R9.3) and without the routes of ``remove_routes`` (R9.2), both named as
    the map file prints them. A map given with routes already removed or
    changed is taken as played."""
    m = map_data if map_data is not None else load_map(rules.map)
    if not (rules.remove_routes or rules.change_routes) or m.removed_routes or m.changed_routes:
        return m
    removed = removed_route_ids(m, rules.remove_routes) if rules.remove_routes else []
    if rules.change_routes:
        m = with_changed_routes(m, route_changes(m, rules.change_routes))
    return without_routes(m, removed) if removed else m


CHANGE = re.compile(r"(.+?)\s*->\s*(\d+)\s+(\w+)")        # 'A-B (4 orange) -> 5 gray'


def route_changes(m: MapData, refs) -> list[tuple[int, int, int]]:
    """(route id, new length, new colour id) of each ``'ROUTE -> LENGTH COLOUR'``
    of ``change_routes`` (R9.3), ROUTE named as for ``remove_routes``.

    >>> route_changes(load_map("usa"), ["Atlanta-Nashville -> 2 red"])
    [(2, 2, 7)]
    """
    out = []
    for ref in refs:
        bad = f"rule parameter 'change_routes': {ref!r}"
        c = CHANGE.fullmatch(ref)
        if not c:
            raise RulesError(f"{bad}: expected 'ROUTE -> LENGTH COLOUR', e.g. 'Atlanta-Nashville (1 gray) -> 2 red'")
        length, colour = int(c.group(2)), c.group(3).lower()
        colour_id = ROUTE_COLOUR_IDS.get(colour, ROUTE_COLOUR_ALIASES.get(colour, -1))
        if not 1 <= length <= MAX_ROUTE_LENGTH or colour_id < 0:
            raise RulesError(f"{bad}: expected a length 1..{MAX_ROUTE_LENGTH} and a colour of "
                             f"{', '.join(ROUTE_COLOUR_IDS)}")
        (r,) = removed_route_ids(m, [c.group(1)], "change_routes")
        if any(r == x for x, _, _ in out):
            raise RulesError(f"{bad}: the route is changed twice; expected each route once")
        out.append((r, length, colour_id))
    return out


def with_changed_routes(m: MapData, changes) -> MapData:
    """``m`` with each route of ``changes`` ((id, length, colour id)) printed
    at its new length and colour (R9.3); ids, ends and groups unchanged."""
    length, colour = m.route_len.copy(), m.route_colour.copy()
    for r, n, c in changes:
        length[r], colour[r] = n, c
    return dataclasses.replace(m, route_len=frozen(length, m.route_len.dtype),
                               route_colour=frozen(colour, m.route_colour.dtype),
                               changed_routes=tuple(sorted(int(r) for r, _, _ in changes)))


def _place_pairs(text: str, names: dict) -> set[frozenset]:
    """Every reading of ``text`` as ``'A-B'`` with A and B in ``names`` (name
    -> id), as unordered id pairs (a name may itself hold a '-')."""
    pairs = set()
    for i, ch in enumerate(text):
        a, b = text[:i].strip(), text[i + 1:].strip()
        if ch == "-" and a in names and b in names and a != b:
            pairs.add(frozenset((names[a], names[b])))
    return pairs


def _unknown_places(text: str, names: dict, map_name: str) -> str:
    """Why ``text`` is no ``'A-B'`` of two of ``names``: a near miss if there is one."""
    for part in (p.strip() for p in text.split("-")):
        if part not in names:
            close = close_match(part, names)
            if close:
                return f"'{part}' is no place of map '{map_name}'; did you mean '{close}'?"
    return f"expected two places of map '{map_name}' joined by '-'"


def removed_route_ids(m: MapData, refs, name: str = "remove_routes") -> list[int]:
    """The ids in ``m`` of the routes ``refs`` names (R9.2): each a label as
    :meth:`~ttrsim.data.maps.MapData.route_label` prints it (of identical
    tracks the first not yet named), or ``'A-B'`` when one track alone joins
    A and B (either order)."""
    nodes = {n: i for i, n in enumerate(m.node_names)}
    ends = [frozenset((int(a), int(b))) for a, b in zip(m.route_a, m.route_b)]
    out: list[int] = []
    for ref in refs:
        bad = f"rule parameter '{name}': {ref!r}"
        label = ROUTE_LABEL.fullmatch(ref)
        text = label.group(1) if label else ref
        pairs = _place_pairs(text, nodes)
        if not pairs:
            raise RulesError(f"{bad} names no route: {_unknown_places(text, nodes, m.name)}")
        tracks = [r for r in range(m.n_routes) if ends[r] in pairs]
        a, b = (m.node_names[n] for n in sorted(next(iter(pairs))))
        labels = ", ".join(repr(m.route_label(r)) for r in tracks)
        if not tracks:
            raise RulesError(f"{bad}: no route joins {a} and {b} on map '{m.name}'; expected a route of the map "
                             f"(its label as in dims/routes, e.g. {m.route_label(0)!r})")
        if label:
            colour = label.group(3).lower()
            colour = ROUTE_COLOUR_IDS.get(colour, ROUTE_COLOUR_ALIASES.get(colour, -1))
            match = [r for r in tracks if m.route_len[r] == int(label.group(2)) and m.route_colour[r] == colour]
            if not match:
                raise RulesError(f"{bad}: no such track between {a} and {b}; expected one of {labels}")
        elif len(tracks) > 1:
            raise RulesError(f"{bad} is one of {len(tracks)} tracks between {a} and {b}: {labels}; expected one "
                             f"of these labels (the first of identical tracks is {name.split('_')[0]}d first)")
        else:
            match = tracks
        free = [r for r in match if r not in out]
        if not free:
            raise RulesError(f"{bad} is named more often than there are such tracks ({len(match)}); "
                             "expected each track once")
        out.append(free[0])
    return out


def ticket_text(m: MapData, t: int) -> str:
    """Ticket ``t`` as ``offer_ticket`` names it: ``'From-To points'``."""
    return f"{m.location_names[m.ticket_a[t]]}-{m.location_names[m.ticket_b[t]]} {int(m.ticket_points[t])}"


def offered_ticket_id(m: MapData, rules: RuleSet, ticket_deck: np.ndarray) -> int:
    """The id of ``rules.offer_ticket`` (R9.1), -1 for none: a ticket of the
    draw piles (``ticket_deck[t] >= 0``, the pile of each ticket) named
    ``'From-To'`` by its two places (either order), or ``'From-To points'``
    with its printed points when several tickets of the piles join them (of
    identical ones, the first in map order)."""
    value = rules.offer_ticket
    if not value:
        return -1
    bad = f"rule parameter 'offer_ticket' is {value!r}"
    places = {n: i for i, n in enumerate(m.location_names)}
    text, points = value, None
    pairs = _place_pairs(text, places)
    with_points = TRAILING_POINTS.fullmatch(value)
    if not pairs and with_points:
        text, points = with_points.group(1), int(with_points.group(2))
        pairs = _place_pairs(text, places)
    if not pairs:
        raise RulesError(f"{bad}: {_unknown_places(text, places, m.name)} "
                         "(and optionally the points, 'From-To 20')")
    joining = [t for t in range(m.n_tickets) if frozenset((int(m.ticket_a[t]), int(m.ticket_b[t]))) in pairs]
    named = [t for t in joining if points is None or m.ticket_points[t] == points]
    expected = f"expected a ticket of the draw piles ({', '.join(rules.ticket_decks)})"
    if not named:
        texts = dict.fromkeys(repr(ticket_text(m, t)) for t in joining)
        others = f"; the map has {', '.join(texts)}" if texts else ""
        raise RulesError(f"{bad}: map '{m.name}' has no such ticket{others}; {expected}")
    dealt = [t for t in named if ticket_deck[t] >= 0]
    if not dealt:
        if rules.long_deck and any(rules.long_deck in m.ticket_tags[t] for t in named):
            raise RulesError(f"{bad}: a long ticket (long_deck '{rules.long_deck}', R8.1) is dealt apart from the "
                             f"draw piles and cannot be offered; {expected}")
        raise RulesError(f"{bad}: not in the draw piles of this rule set; {expected}")
    if len({int(m.ticket_points[t]) for t in dealt}) > 1:
        raise RulesError(f"{bad}: {len(dealt)} tickets of the draw piles join these places; expected one of "
                         f"{', '.join(repr(ticket_text(m, t)) for t in dealt)}")
    return dealt[0]
