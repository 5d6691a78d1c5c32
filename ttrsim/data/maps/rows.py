"""The ``routes`` and ``tickets`` rows of a map file: each cell checked (names
looked up in :class:`~ttrsim.data.maps.places.Names`), then the checks across
rows (self-loops, parallel-track groups, unused border points, duplicated
tickets)."""

from __future__ import annotations

from dataclasses import dataclass

from ttrsim.data.checks import describe, is_int
from ttrsim.data.ids import ROUTE_COLOUR_ALIASES, ROUTE_COLOUR_IDS

from .mapdata import MAX_PARALLEL_TRACKS, MAX_ROUTE_LENGTH, Problems
from .places import Bad, Names

# The order colours are listed in messages.
_COLOUR_LIST = "gray, red, orange, yellow, green, blue, pink, white, black"


# Cell checks: (names, value) -> parsed value, or raise Bad(message).

def _length(names: Names, value) -> int:
    if not (is_int(value) and 1 <= value <= MAX_ROUTE_LENGTH):
        raise Bad(f"length {value!r} is not an integer in 1..{MAX_ROUTE_LENGTH}")
    if names.scored is not None and value not in names.scored:
        raise Bad(f"length {value} is missing from the scoring table; scored lengths are "
                  f"{', '.join(map(str, sorted(names.scored)))}")
    return value


def _colour(names: Names, value) -> int:
    colour = ROUTE_COLOUR_IDS.get(value, ROUTE_COLOUR_ALIASES.get(value)) if isinstance(value, str) else None
    if colour is None:
        raise Bad(f"unknown colour {value!r}; expected one of {_COLOUR_LIST}")
    return colour


def _group(names: Names, value):
    if value is None or (isinstance(value, str) and value):
        return value
    raise Bad(f"parallel group {value!r} must be a name (e.g. D01) or null")


def _tunnel(names: Names, value) -> bool:
    if isinstance(value, bool):
        return value
    raise Bad(f"tunnel flag {value!r} must be true or false")


def _ferry_locos(names: Names, value) -> int:
    if is_int(value) and 0 <= value <= MAX_ROUTE_LENGTH:
        return value
    raise Bad(f"ferry locomotives {value!r} must be an integer in 0..{MAX_ROUTE_LENGTH} (0: not a ferry)")


def _points(names: Names, value) -> int:
    if is_int(value) and value > 0:
        return value
    raise Bad(f"points {value!r} must be a positive integer")


def _tags(names: Names, value) -> frozenset:
    # An unquoted tag such as 1910 reads as an integer; it still names a deck.
    if isinstance(value, list) and value and all(isinstance(t, str) and t or is_int(t) for t in value):
        return frozenset(map(str, value))
    raise Bad(f"deck tags must be a non-empty list of names such as [base], got {value!r}")


ROUTE_COLUMNS = (("a", Names.node), ("b", Names.node), ("length", _length), ("colour", _colour), ("group", _group),
                 ("tunnel", _tunnel), ("ferry_locos", _ferry_locos))
# trailing columns a row may leave out, with their value then (maps without tunnels and ferries)
ROUTE_DEFAULTS = {"tunnel": False, "ferry_locos": 0}
TICKET_COLUMNS = (("a", Names.location), ("b", Names.location), ("points", _points), ("tags", _tags))


@dataclass
class _Row:
    index: int
    entry: str  # e.g. "routes[3] (Atlanta-New Orleans)"
    raw: list
    cells: dict  # column -> parsed value, or None when that cell is bad
    ok: bool


def parse_rows(rows, section: str, columns, names: Names, problems: Problems,
               defaults: dict | None = None) -> list[_Row] | None:
    """Check each row's cells; the trailing columns named in ``defaults`` may be left out."""
    if rows is None:
        return None
    defaults = defaults or {}
    shape = f"[{', '.join(c for c, _ in columns)}]"
    sizes = sorted({len(columns), len(columns) - len(defaults)})
    out = []
    for i, row in enumerate(rows):
        label = f" ({row[0]}-{row[1]})" if isinstance(row, list) and len(row) >= 2 else ""
        entry = f"{section}[{i}]{label}"
        if not isinstance(row, list) or len(row) not in sizes:
            got = f"{len(row)} items" if isinstance(row, list) else describe(row)
            problems.add(entry, f"expected a row {shape} of {' or '.join(map(str, sizes))} items, got {got}")
            continue
        cells, ok = {}, True
        row = row + [defaults[c] for c, _ in columns[len(row):]]
        for (column, check), value in zip(columns, row):
            try:
                cells[column] = check(names, value)
            except Bad as e:
                problems.add(entry, str(e))
                cells[column], ok = None, False
        out.append(_Row(i, entry, row, cells, ok))
    return out


# Whole-table checks: (routes, tickets, names, problems); routes/tickets are None when missing.

def _check_self_loops(routes, tickets, names, problems):
    for rows, what in ((routes or [], "route joins {} to itself; expected two different endpoints"),
                       (tickets or [], "ticket from {} to itself; expected two different places")):
        for row in rows:
            a, b = row.cells["a"], row.cells["b"]
            if a is not None and a == b:
                problems.add(row.entry, what.format(repr(row.raw[0])))
                row.ok = False


def _check_groups(routes, tickets, names, problems):
    """Parallel tracks: one group per endpoint pair, at most 3 tracks, of equal length."""
    first_by_pair, members = {}, {}
    for row in routes or []:
        a, b, group = row.cells["a"], row.cells["b"], row.cells["group"]
        if a is None or b is None or not row.ok:
            continue
        pair = frozenset((a, b))
        if group is not None:
            members.setdefault(group, []).append(row)
            first = members[group][0]
            first_pair = frozenset((first.cells["a"], first.cells["b"]))
            if first_pair != pair:
                problems.add(row.entry, f"parallel group {group} joins other endpoints in {first.entry}; "
                                        "expected all tracks of a group to join the same two endpoints")
            elif first.cells["length"] != row.cells["length"]:
                problems.add(row.entry, f"parallel group {group} has length {first.cells['length']} in "
                                        f"{first.entry}; expected all tracks of a group to have one length")
        prev = first_by_pair.setdefault(pair, row)
        if prev is row:
            continue
        prev_group = prev.cells["group"]
        if prev_group is None or group is None:
            problems.add(row.entry, f"joins the same endpoints as {prev.entry} but "
                                    f"{'that route' if prev_group is None else 'this route'} has no parallel "
                                    "group; expected parallel tracks to share a group name")
        elif prev_group != group:
            problems.add(row.entry, f"joins the same endpoints as {prev.entry} (group {prev_group}) but is in "
                                    f"group {group}; expected one group per pair of endpoints")
    for group, rows in members.items():
        if len(rows) > MAX_PARALLEL_TRACKS:
            problems.add(rows[MAX_PARALLEL_TRACKS].entry, f"parallel group {group} has {len(rows)} tracks; "
                                                          f"expected at most {MAX_PARALLEL_TRACKS}")


def _check_ferries(routes, tickets, names, problems):
    """A ferry's locomotive spaces are some of its spaces (R8.2)."""
    for row in routes or []:
        c = row.cells
        if row.ok and c["ferry_locos"] > c["length"]:
            problems.add(row.entry, f"ferry locomotives {c['ferry_locos']} exceed the length {c['length']}; "
                                    "expected at most one locomotive per space")
            row.ok = False


def _check_border_points_used(routes, tickets, names, problems):
    if routes is None:
        return
    used = {row.cells[end] for row in routes for end in "ab"}
    named = {row.raw[k] for row in routes for k in (0, 1) if isinstance(row.raw[k], str)}
    for country, points in names.country_points.items():
        for point in points if country not in named else ():  # else already reported by Names.node
            if names.nodes[point] not in used:
                problems.add(f"countries[{country}].border_points[{point}]",
                             "reached by no route; expected at least one route ending there")


def _check_duplicate_tickets(routes, tickets, names, problems):
    seen = {}
    for row in tickets or []:
        if not row.ok:
            continue
        c = row.cells
        key = (frozenset((c["a"], c["b"])), c["points"], c["tags"])
        if key in seen:
            problems.add(row.entry, f"duplicates {seen[key].entry} (same endpoints, points and tags); "
                                    "expected each ticket once")
        else:
            seen[key] = row


def _check_network(routes, tickets, names, problems):
    """Every city is reached by a route and the routes form one network (a
    country's border points are one place, as for its tickets), so every
    ticket can be completed. Checked only on an otherwise valid map."""
    if routes is None or problems:
        return
    parent = list(range(len(names.locations)))

    def root(x):
        while parent[x] != x:
            parent[x] = x = parent[parent[x]]
        return x

    reached = set()
    for row in routes:
        a, b = names.node_loc[row.cells["a"]], names.node_loc[row.cells["b"]]
        reached.update((a, b))
        parent[root(a)] = root(b)
    for city, loc in names.locations.items():
        if loc not in reached and city not in names.country_points:   # a country's border points: checked above
            ends = next((t.entry for t in tickets or [] if loc in (t.cells["a"], t.cells["b"])), None)
            problems.add(f"cities[{city}]", "reached by no route" + (f" but {ends} ends there" if ends else "")
                         + "; expected at least one route to every city")
    networks = {}
    for name, loc in names.locations.items():
        if loc in reached:
            networks.setdefault(root(loc), name)
    if len(networks) > 1:
        first = list(networks.values())
        problems.add("routes", f"the routes form {len(first)} networks that no route joins ({first[0]}'s and "
                               f"{first[1]}'s{' and more' if len(first) > 2 else ''}); expected one connected "
                               "network, so that every ticket can be completed")


CROSS_ROW_CHECKS = (_check_self_loops, _check_groups, _check_ferries, _check_border_points_used, _check_duplicate_tickets,
                    _check_network)
