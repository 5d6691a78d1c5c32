"""Map files: the boards, tickets and scoring tables, loaded and validated.

A map file is YAML (see ``usa.yaml`` and ``germany.yaml`` next to this module):

``name``        the map's name
``scoring``     route length -> points (R1.4)
``cities``      city name -> [x, y] board pixel coordinates
``countries``   optional; country name -> {label: [x, y], border_points: {name: [x, y]}}.
                Each border point is its own graph node (R6.4).
``routes``      rows [a, b, length, colour, group]; a and b are cities or border points,
                group names the parallel tracks between the same two endpoints (or null)
``tickets``     rows [a, b, points, [deck tags]]; a and b are cities or countries
``passengers``  optional; location -> passengers placed there at setup (R1.5)

Ids. *Locations* are the places tickets and passengers name: the cities, then the
countries. *Nodes* are the graph's vertices: the cities (same id as their location),
then every border point. Routes join nodes; tickets join locations; a country's
ticket is met at any of its nodes (``location_nodes``).

Loading checks the whole file and raises ``MapError`` listing every problem found,
one line each: ``<file>: <entry>: <what is wrong; what was expected>``.

>>> m = load_map('usa'); m.n_routes
100
>>> m.route_label(3)
'Atlanta-New Orleans (4 orange)'
>>> len(m.deck('base')), m.tags()
(30, ['1910', 'base', 'bigcities', 'mega'])
>>> g = load_map('germany'); g.n_locations, g.n_nodes
(40, 49)
>>> [g.node_names[n] for n in g.location_nodes(g.location_id('Dänemark'))]
['Dänemark/1', 'Dänemark/2']
"""

from __future__ import annotations

import difflib
import functools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from ttrsim.data.ids import ROUTE_COLOUR_ALIASES, ROUTE_COLOUR_IDS, ROUTE_COLOUR_NAMES

__all__ = ["MapError", "MapData", "load_map", "available_maps", "MAX_ROUTE_LENGTH"]

MAPS_DIR = Path(__file__).resolve().parent
MAX_ROUTE_LENGTH = 7
MAX_PARALLEL_TRACKS = 3
# The order colours are listed in messages.
_COLOUR_LIST = "gray, red, orange, yellow, green, blue, pink, white, black"


class MapError(ValueError):
    """A map file that cannot be used; ``problems`` holds one line per problem."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))

    def __str__(self):
        return "\n".join(self.problems)


# --------------------------------------------------------------------------- data


@dataclass(frozen=True, eq=False, repr=False)
class MapData:
    """One validated map as flat numpy arrays (all arrays are read-only).

    ``eq=False``: two loads of the same file are different objects; comparing
    array fields with ``==`` would be ambiguous anyway.
    """

    name: str
    path: str
    location_names: tuple[str, ...]
    location_is_country: np.ndarray  # bool [L]
    location_xy: np.ndarray  # float32 [L, 2]; countries: their label
    node_names: tuple[str, ...]
    node_loc: np.ndarray  # int16 [N]
    node_xy: np.ndarray  # float32 [N, 2]
    route_a: np.ndarray  # int16 [R] node ids
    route_b: np.ndarray  # int16 [R]
    route_len: np.ndarray  # int8 [R]
    route_colour: np.ndarray  # int8 [R], ttrsim.data.ids route colour ids (gray = 8)
    route_group: np.ndarray  # int16 [R], parallel-track group 0..G-1
    route_group_name: tuple[str | None, ...]
    ticket_a: np.ndarray  # int16 [T] location ids
    ticket_b: np.ndarray  # int16 [T]
    ticket_points: np.ndarray  # int16 [T]
    ticket_tags: tuple[frozenset[str], ...]
    scoring: np.ndarray  # int16 [8], points by route length, 0 where absent
    passengers: np.ndarray  # int16 [L], setup count per location

    @property
    def n_locations(self) -> int:
        return len(self.location_names)

    @property
    def n_nodes(self) -> int:
        return len(self.node_names)

    @property
    def n_routes(self) -> int:
        return len(self.route_a)

    @property
    def n_tickets(self) -> int:
        return len(self.ticket_a)

    def tags(self) -> list[str]:
        """All deck tags used by the tickets, sorted."""
        return sorted(set().union(*self.ticket_tags))

    def deck(self, tag: str) -> np.ndarray:
        """Ticket ids carrying ``tag``, in file order. KeyError for a tag no ticket has."""
        ids = [t for t, tags in enumerate(self.ticket_tags) if tag in tags]
        if not ids:
            raise KeyError(f"map {self.name!r} has no ticket tagged {tag!r}; tags: {', '.join(self.tags())}")
        return np.array(ids, dtype=np.int16)

    def location_nodes(self, loc: int) -> np.ndarray:
        """Node ids of a location: the city's own node, or a country's border points."""
        return np.flatnonzero(self.node_loc == loc).astype(np.int16)

    def location_id(self, name: str) -> int:
        return self._location_ids[name]

    def node_id(self, name: str) -> int:
        return self._node_ids[name]

    def route_label(self, r: int) -> str:
        """E.g. ``'Atlanta-New Orleans (4 orange)'``."""
        a, b = self.node_names[self.route_a[r]], self.node_names[self.route_b[r]]
        return f"{a}-{b} ({self.route_len[r]} {ROUTE_COLOUR_NAMES[self.route_colour[r]]})"

    @functools.cached_property
    def _location_ids(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.location_names)}

    @functools.cached_property
    def _node_ids(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.node_names)}

    def __repr__(self):
        return (f"MapData({self.name!r}: {self.n_locations} locations, {self.n_nodes} nodes, "
                f"{self.n_routes} routes, {self.n_tickets} tickets)")


# --------------------------------------------------------------------------- loading


def available_maps() -> list[str]:
    """Names of the maps packaged with ttrsim (``load_map(name)``)."""
    return sorted(p.stem for p in MAPS_DIR.glob("*.yaml"))


def load_map(name_or_path) -> MapData:
    """Load and validate a map: a packaged map's name (``'usa'``) or a path to a YAML file."""
    text = os.fspath(name_or_path)
    is_path = (isinstance(name_or_path, os.PathLike) or text.endswith((".yaml", ".yml"))
               or any(sep in text for sep in ("/", os.sep, os.altsep) if sep))
    if is_path:
        return _load_file(Path(text))
    if text not in available_maps():
        raise MapError([f"map {text!r}: unknown map name; expected one of {', '.join(available_maps())}"
                        " or a path to a .yaml/.yml file"])
    return _load_packaged(text)


@functools.lru_cache(maxsize=None)
def _load_packaged(name: str) -> MapData:
    # Safe to share: MapData is frozen and its arrays are read-only.
    return _load_file(MAPS_DIR / f"{name}.yaml")


def _load_file(path: Path) -> MapData:
    problems = _Problems(path.name)
    doc = _read_yaml(path, problems)
    if problems:
        raise MapError(problems.lines)
    data = _validate(doc, str(path.resolve()), problems)
    if problems:
        raise MapError(problems.lines)
    return data


class _Problems:
    """Collects ``<file>: <entry>: <message>`` lines."""

    def __init__(self, file: str):
        self.file = file
        self.lines: list[str] = []

    def add(self, entry: str, message: str):
        self.lines.append(f"{self.file}: {entry}: {message}")

    def __bool__(self):
        return bool(self.lines)


# YAML: a safe loader whose mappings remember keys given more than once (plain
# PyYAML silently keeps the last one, which would hide a duplicated city).

class _YamlMap(dict):
    duplicates: list


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    pass


def _construct_map(loader, node):
    loader.flatten_mapping(node)
    data = _YamlMap()
    data.duplicates = []
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, f"a key must be a plain value, got {_describe(key)}", key_node.start_mark)
        if key in data:
            data.duplicates.append(key)
        data[key] = loader.construct_object(value_node, deep=True)
    return data


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)


def _read_yaml(path: Path, problems: _Problems):
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        problems.add("(file)", f"not found at {path.resolve()}; expected an existing map file")
        return None
    except UnicodeDecodeError as e:
        problems.add("(file)", f"not UTF-8 text (byte {e.start}); expected a UTF-8 YAML file")
        return None
    except OSError as e:
        problems.add("(file)", f"cannot be read ({e.strerror}); expected a readable map file")
        return None
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as e:
        mark, what = getattr(e, "problem_mark", None), getattr(e, "problem", None) or str(e)
        where = f"line {mark.line + 1}" if mark is not None else "(file)"
        context, cmark = getattr(e, "context", None), getattr(e, "context_mark", None)
        detail = f" ({context} at line {cmark.line + 1}, column {cmark.column + 1})" if context and cmark else ""
        problems.add(where, " ".join(f"malformed YAML: {what}{detail}; expected valid YAML".split()))
        return None


# --------------------------------------------------------------------------- validation

_TYPE_NAMES = {dict: "a mapping", _YamlMap: "a mapping", list: "a list", str: "a string",
               int: "an integer", float: "a number", bool: "a boolean", type(None): "nothing (null)"}


def _describe(value) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# Top-level fields: name, type, required, what is expected.
_FIELDS = (
    ("name", str, True, "the map's name, a string"),
    ("scoring", dict, True, "a mapping route length -> points"),
    ("cities", dict, True, "a mapping city name -> [x, y]"),
    ("countries", dict, False, "a mapping country -> {label: [x, y], border_points: {name: [x, y]}}"),
    ("routes", list, True, "a list of [a, b, length, colour, group] rows"),
    ("tickets", list, True, "a list of [a, b, points, [deck tags]] rows"),
    ("passengers", dict, False, "a mapping location -> count"),
)


@dataclass
class _Names:
    """Name tables built from cities and countries, shared by the cell checks."""

    locations: dict  # name -> location id (cities, then countries)
    nodes: dict  # name -> node id (cities, then border points)
    node_loc: list  # node id -> location id
    country_points: dict  # country -> [border point names]
    scored: set | None  # lengths with points; None when the scoring table is broken

    def suggest(self, name, pool) -> str:
        close = difflib.get_close_matches(str(name), list(pool), n=1)
        return f" (did you mean {close[0]!r}?)" if close else ""


class _Bad(Exception):
    """One bad cell; its text is the message."""


def _validate(doc, path: str, problems: _Problems) -> MapData | None:
    if not isinstance(doc, dict):
        got = "an empty file" if doc is None else _describe(doc)
        problems.add("(top level)", f"expected a mapping with fields {', '.join(f[0] for f in _FIELDS)}, got {got}")
        return None
    fields = _check_fields(doc, problems)
    scoring = _parse_scoring(fields.get("scoring"), problems)
    names, xy = _parse_places(fields.get("cities"), fields.get("countries"), problems)
    if names is None:  # without the place names, routes and tickets cannot be checked
        return None
    names.scored = None if scoring is None else {n for n in range(1, MAX_ROUTE_LENGTH + 1) if scoring[n] > 0}
    routes = _parse_rows(fields.get("routes"), "routes", _ROUTE_COLUMNS, names, problems)
    tickets = _parse_rows(fields.get("tickets"), "tickets", _TICKET_COLUMNS, names, problems)
    for check in (_check_self_loops, _check_groups, _check_border_points_used, _check_duplicate_tickets):
        check(routes, tickets, names, problems)
    passengers = _parse_passengers(fields.get("passengers"), names, problems)
    if problems:
        return None
    return _build(fields["name"], path, names, xy, routes, tickets, scoring, passengers)


def _check_fields(doc: dict, problems: _Problems) -> dict:
    """Top-level fields present and of the right type; broken ones are left out."""
    out = {}
    for key in doc.duplicates:
        problems.add(str(key), "top-level field given twice; expected each field once")
    known = [f[0] for f in _FIELDS]
    for key in doc:
        if key not in known:
            problems.add(str(key), f"unknown top-level field; expected one of {', '.join(known)}")
    for key, typ, required, expected in _FIELDS:
        value = doc.get(key)
        if value is None and not required:
            value = typ()
        if key not in doc and required:
            problems.add(key, f"missing top-level field; expected {expected}")
        elif not isinstance(value, typ):
            problems.add(key, f"expected {expected}, got {_describe(value)}")
        else:
            out[key] = value
    return out


def _duplicates(mapping, entry: str, what: str, problems: _Problems):
    for key in getattr(mapping, "duplicates", ()):
        problems.add(f"{entry}[{key}]", f"duplicated {what} name; expected each {what} once")


def _xy(value):
    if isinstance(value, list) and len(value) == 2 and all(map(_is_number, value)):
        return value
    raise _Bad(f"coordinates must be [x, y] numbers, got {value!r}")


def _parse_scoring(scoring, problems: _Problems):
    if scoring is None:
        return None
    table = np.zeros(MAX_ROUTE_LENGTH + 1, dtype=np.int16)
    ok = True
    _duplicates(scoring, "scoring", "length", problems)
    for length, points in scoring.items():
        if not (_is_int(length) and 1 <= length <= MAX_ROUTE_LENGTH):
            problems.add(f"scoring[{length}]", f"route length must be an integer in 1..{MAX_ROUTE_LENGTH}")
            ok = False
        elif not (_is_int(points) and points > 0):
            problems.add(f"scoring[{length}]", f"points must be a positive integer, got {points!r}")
            ok = False
        else:
            table[length] = points
    return table if ok else None


def _parse_places(cities, countries, problems: _Problems):
    """Cities, countries and border points -> name tables and coordinates."""
    if cities is None or countries is None:
        return None, None
    locations, nodes, node_loc = {}, {}, []
    location_xy, node_xy = [], []
    country_points = {}
    taken = {}  # any name -> what it is, to catch the same name used twice

    def claim(name, what, entry) -> bool:
        if not isinstance(name, str) or not name:
            problems.add(entry, f"{what} name must be a non-empty string, got {name!r}")
            return False
        if name in taken:
            problems.add(entry, f"duplicated name {name!r}, already a {taken[name]}; expected distinct names")
            return False
        taken[name] = what
        return True

    _duplicates(cities, "cities", "city", problems)
    for name, value in cities.items():
        entry = f"cities[{name}]"
        try:
            xy = _xy(value)
        except _Bad as e:
            problems.add(entry, str(e))
            xy = [0, 0]
        if claim(name, "city", entry):
            locations[name] = nodes[name] = len(node_loc)
            node_loc.append(len(node_loc))
            location_xy.append(xy)
            node_xy.append(xy)

    _duplicates(countries, "countries", "country", problems)
    for country, value in countries.items():
        entry = f"countries[{country}]"
        if not (isinstance(value, dict) and set(value) == {"label", "border_points"}
                and isinstance(value["border_points"], dict)):
            problems.add(entry, "expected {label: [x, y], border_points: {name: [x, y], ...}}, "
                                f"got {value!r}")
            continue
        if not claim(country, "country", entry):
            continue
        try:
            location_xy.append(_xy(value["label"]))
        except _Bad as e:
            problems.add(f"{entry}.label", str(e))
            location_xy.append([0, 0])
        locations[country] = len(location_xy) - 1
        points = value["border_points"]
        country_points[country] = []
        if not points:
            problems.add(entry, "has no border points; expected at least one (R6.4)")
        _duplicates(points, f"{entry}.border_points", "border point", problems)
        for point, pxy in points.items():
            pentry = f"{entry}.border_points[{point}]"
            try:
                pxy = _xy(pxy)
            except _Bad as e:
                problems.add(pentry, str(e))
            if claim(point, "border point", pentry):
                nodes[point] = len(node_loc)
                node_loc.append(locations[country])
                node_xy.append(pxy)
                country_points[country].append(point)

    names = _Names(locations, nodes, node_loc, country_points, None)
    return names, (location_xy, node_xy)


# Cell checks: (value, names) -> parsed value, or raise _Bad(message).

def _node(value, names: _Names) -> int:
    if not isinstance(value, str):
        raise _Bad(f"endpoint {value!r} is not a name; expected a city or border point")
    if value in names.nodes:
        return names.nodes[value]
    if value in names.country_points:
        points = ", ".join(names.country_points[value]) or "none"
        raise _Bad(f"{value!r} is a country; a route must end at one of its border points: {points}")
    raise _Bad(f"unknown city {value!r}; expected one of the cities or border points"
               + names.suggest(value, names.nodes))


def _location(value, names: _Names) -> int:
    if not isinstance(value, str):
        raise _Bad(f"endpoint {value!r} is not a name; expected a city or country")
    if value in names.locations:
        return names.locations[value]
    if value in names.nodes:
        country = next(c for c, pts in names.country_points.items() if value in pts)
        raise _Bad(f"{value!r} is a border point; expected a city or a country (here {country!r})")
    raise _Bad(f"unknown city or country {value!r}; expected one of the cities or countries"
               + names.suggest(value, names.locations))


def _length(value, names: _Names) -> int:
    if not (_is_int(value) and 1 <= value <= MAX_ROUTE_LENGTH):
        raise _Bad(f"length {value!r} is not an integer in 1..{MAX_ROUTE_LENGTH}")
    if names.scored is not None and value not in names.scored:
        raise _Bad(f"length {value} is missing from the scoring table; scored lengths are "
                   f"{', '.join(map(str, sorted(names.scored)))}")
    return value


def _colour(value, names: _Names) -> int:
    colour = ROUTE_COLOUR_IDS.get(value, ROUTE_COLOUR_ALIASES.get(value)) if isinstance(value, str) else None
    if colour is None:
        raise _Bad(f"unknown colour {value!r}; expected one of {_COLOUR_LIST}")
    return colour


def _group(value, names: _Names):
    if value is None or (isinstance(value, str) and value):
        return value
    raise _Bad(f"parallel group {value!r} must be a name (e.g. D01) or null")


def _points(value, names: _Names) -> int:
    if _is_int(value) and value > 0:
        return value
    raise _Bad(f"points {value!r} must be a positive integer")


def _tags(value, names: _Names) -> frozenset:
    # An unquoted tag such as 1910 reads as an integer; it still names a deck.
    if isinstance(value, list) and value and all(isinstance(t, str) and t or _is_int(t) for t in value):
        return frozenset(map(str, value))
    raise _Bad(f"deck tags must be a non-empty list of names such as [base], got {value!r}")


_ROUTE_COLUMNS = (("a", _node), ("b", _node), ("length", _length), ("colour", _colour), ("group", _group))
_TICKET_COLUMNS = (("a", _location), ("b", _location), ("points", _points), ("tags", _tags))


@dataclass
class _Row:
    index: int
    entry: str  # e.g. "routes[3] (Atlanta-New Orleans)"
    raw: list
    cells: dict  # column -> parsed value, or None when that cell is bad
    ok: bool


def _parse_rows(rows, section: str, columns, names: _Names, problems: _Problems) -> list[_Row] | None:
    if rows is None:
        return None
    shape = f"[{', '.join(c for c, _ in columns)}]"
    out = []
    for i, row in enumerate(rows):
        label = f" ({row[0]}-{row[1]})" if isinstance(row, list) and len(row) >= 2 else ""
        entry = f"{section}[{i}]{label}"
        if not isinstance(row, list) or len(row) != len(columns):
            got = f"{len(row)} items" if isinstance(row, list) else _describe(row)
            problems.add(entry, f"expected a row {shape} of {len(columns)} items, got {got}")
            continue
        cells, ok = {}, True
        for (column, check), value in zip(columns, row):
            try:
                cells[column] = check(value, names)
            except _Bad as e:
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


def _check_border_points_used(routes, tickets, names, problems):
    if routes is None:
        return
    used = {row.cells[end] for row in routes for end in "ab"}
    named = {row.raw[k] for row in routes for k in (0, 1) if isinstance(row.raw[k], str)}
    for country, points in names.country_points.items():
        for point in points if country not in named else ():  # else already reported by _node
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


def _parse_passengers(passengers, names: _Names, problems: _Problems):
    counts = np.zeros(len(names.locations), dtype=np.int16)
    if passengers is None:
        return counts
    _duplicates(passengers, "passengers", "location", problems)
    for place, count in passengers.items():
        entry = f"passengers[{place}]"
        try:
            loc = _location(place, names)
        except _Bad as e:
            problems.add(entry, str(e))
            continue
        if not (_is_int(count) and count >= 0):
            problems.add(entry, f"count {count!r} must be a non-negative integer")
            continue
        counts[loc] = count
    return counts


# --------------------------------------------------------------------------- building


def _frozen(values, dtype, shape=None) -> np.ndarray:
    arr = np.array(values, dtype=dtype)
    if shape is not None:
        arr = arr.reshape(shape)
    arr.setflags(write=False)
    return arr


def _build(name, path, names: _Names, xy, routes, tickets, scoring, passengers) -> MapData:
    location_xy, node_xy = xy
    is_country = [n in names.country_points for n in names.locations]
    group_ids = {}  # group name (or the route's own key) -> group id, in order of first appearance
    route_group = [group_ids.setdefault(r.cells["group"] if r.cells["group"] is not None else ("single", r.index),
                                        len(group_ids)) for r in routes]
    return MapData(
        name=name,
        path=path,
        location_names=tuple(names.locations),
        location_is_country=_frozen(is_country, bool),
        location_xy=_frozen(location_xy, np.float32, (-1, 2)),
        node_names=tuple(names.nodes),
        node_loc=_frozen(names.node_loc, np.int16),
        node_xy=_frozen(node_xy, np.float32, (-1, 2)),
        route_a=_frozen([r.cells["a"] for r in routes], np.int16),
        route_b=_frozen([r.cells["b"] for r in routes], np.int16),
        route_len=_frozen([r.cells["length"] for r in routes], np.int8),
        route_colour=_frozen([r.cells["colour"] for r in routes], np.int8),
        route_group=_frozen(route_group, np.int16),
        route_group_name=tuple(r.cells["group"] for r in routes),
        ticket_a=_frozen([t.cells["a"] for t in tickets], np.int16),
        ticket_b=_frozen([t.cells["b"] for t in tickets], np.int16),
        ticket_points=_frozen([t.cells["points"] for t in tickets], np.int16),
        ticket_tags=tuple(t.cells["tags"] for t in tickets),
        scoring=_frozen(scoring, np.int16),
        passengers=_frozen(passengers, np.int16),
    )
