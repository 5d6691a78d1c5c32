"""Loading a map: find it (a packaged name or a path), read the YAML, check the
top-level fields and the scoring table, run the place and row checks in order,
and build :class:`~ttrsim.data.maps.mapdata.MapData`.

A map is parsed once per process: a packaged map by its name, a map file by
its path and content (an edited file is read afresh); the maps are frozen
(read-only arrays), so every caller may share one."""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

import numpy as np

from ttrsim.data.checks import describe, is_int
from ttrsim.data.yamlfile import YamlError, read_yaml

from .mapdata import MAX_ROUTE_LENGTH, MapData, MapError, Problems, frozen
from .places import Names, parse_passengers, parse_places
from .rows import CROSS_ROW_CHECKS, ROUTE_COLUMNS, ROUTE_DEFAULTS, TICKET_COLUMNS, parse_rows

MAPS_DIR = Path(__file__).resolve().parent


def available_maps() -> list[str]:
    """Names of the maps packaged with ttrsim (``load_map(name)``)."""
    return sorted(p.stem for p in MAPS_DIR.glob("*.yaml"))


def load_map(name_or_path) -> MapData:
    """Load and validate a map: a packaged map's name (``'usa'``) or a path to a YAML file."""
    text = os.fspath(name_or_path)
    is_path = (isinstance(name_or_path, os.PathLike) or text.endswith((".yaml", ".yml"))
               or any(sep in text for sep in ("/", os.sep, os.altsep) if sep))
    if is_path:
        return _load_file_once(Path(text))
    if text not in available_maps():
        raise MapError([f"map {text!r}: unknown map name; expected one of {', '.join(available_maps())}"
                        " or a path to a .yaml/.yml file"])
    return _load_packaged(text)


@functools.cache
def _load_packaged(name: str) -> MapData:
    # Safe to share: MapData is frozen and its arrays are read-only.
    return _load_file(MAPS_DIR / f"{name}.yaml")


_FILES: dict = {}           # (resolved path, SHA-256 of the file) -> MapData
_FILES_KEPT = 16


def _load_file_once(path: Path) -> MapData:
    """``_load_file`` memoized by the file's path and content."""
    try:
        key = (str(path.resolve()), hashlib.sha256(path.read_bytes()).hexdigest())
    except OSError:
        return _load_file(path)           # (says what is wrong with the path)
    m = _FILES.get(key)
    if m is None:
        m = _load_file(path)
        if len(_FILES) >= _FILES_KEPT:
            _FILES.clear()
        _FILES[key] = m
    return m


def _load_file(path: Path) -> MapData:
    try:
        doc = read_yaml(path, what="a map YAML file", expected="valid YAML", keep_duplicates=True)
    except YamlError as e:
        raise MapError([str(e)]) from None
    problems = Problems(path.name)
    data = _validate(doc, str(path.resolve()), problems)
    if problems:
        raise MapError(problems.lines)
    return data


# Top-level fields: name, type, required, what is expected.
_FIELDS = (
    ("name", str, True, "the map's name, a string"),
    ("scoring", dict, True, "a mapping route length -> points"),
    ("cities", dict, True, "a mapping city name -> [x, y]"),
    ("countries", dict, False, "a mapping country -> {label: [x, y], border_points: {name: [x, y]}}"),
    ("routes", list, True, "a list of [a, b, length, colour, group(, tunnel, ferry_locos)] rows"),
    ("tickets", list, True, "a list of [a, b, points, [deck tags]] rows"),
    ("passengers", dict, False, "a mapping location -> count"),
)


def _validate(doc, path: str, problems: Problems) -> MapData | None:
    if not isinstance(doc, dict):
        got = "an empty file" if doc is None else describe(doc)
        problems.add("(top level)", f"expected a mapping with fields {', '.join(f[0] for f in _FIELDS)}, got {got}")
        return None
    fields = _check_fields(doc, problems)
    scoring = _parse_scoring(fields.get("scoring"), problems)
    names, xy = parse_places(fields.get("cities"), fields.get("countries"), problems)
    if names is None:  # without the place names, routes and tickets cannot be checked
        return None
    names.scored = None if scoring is None else {n for n in range(1, MAX_ROUTE_LENGTH + 1) if scoring[n] > 0}
    routes = parse_rows(fields.get("routes"), "routes", ROUTE_COLUMNS, names, problems, ROUTE_DEFAULTS)
    tickets = parse_rows(fields.get("tickets"), "tickets", TICKET_COLUMNS, names, problems)
    for check in CROSS_ROW_CHECKS:
        check(routes, tickets, names, problems)
    passengers = parse_passengers(fields.get("passengers"), names, problems)
    if problems:
        return None
    return _build(fields["name"], path, names, xy, routes, tickets, scoring, passengers)


def _check_fields(doc: dict, problems: Problems) -> dict:
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
            problems.add(key, f"expected {expected}, got {describe(value)}")
        else:
            out[key] = value
    return out


def _parse_scoring(scoring, problems: Problems):
    """Points by route length (R1.4), or None when the table is missing or broken."""
    if scoring is None:
        return None
    table = np.zeros(MAX_ROUTE_LENGTH + 1, dtype=np.int16)
    ok = True
    problems.duplicates(scoring, "scoring", "length")
    for length, points in scoring.items():
        if not (is_int(length) and 1 <= length <= MAX_ROUTE_LENGTH):
            problems.add(f"scoring[{length}]", f"route length must be an integer in 1..{MAX_ROUTE_LENGTH}")
            ok = False
        elif not (is_int(points) and points > 0):
            problems.add(f"scoring[{length}]", f"points must be a positive integer, got {points!r}")
            ok = False
        else:
            table[length] = points
    return table if ok else None


def _build(name, path, names: Names, xy, routes, tickets, scoring, passengers) -> MapData:
    location_xy, node_xy = xy
    is_country = [n in names.country_points for n in names.locations]
    group_ids = {}  # group name (or the route's own key) -> group id, in order of first appearance
    route_group = [group_ids.setdefault(r.cells["group"] if r.cells["group"] is not None else ("single", r.index),
                                        len(group_ids)) for r in routes]
    return MapData(
        name=name,
        path=path,
        location_names=tuple(names.locations),
        location_is_country=frozen(is_country, bool),
        location_xy=frozen(location_xy, np.float32, (-1, 2)),
        node_names=tuple(names.nodes),
        node_loc=frozen(names.node_loc, np.int16),
        node_xy=frozen(node_xy, np.float32, (-1, 2)),
        route_a=frozen([r.cells["a"] for r in routes], np.int16),
        route_b=frozen([r.cells["b"] for r in routes], np.int16),
        route_len=frozen([r.cells["length"] for r in routes], np.int8),
        route_colour=frozen([r.cells["colour"] for r in routes], np.int8),
        route_group=frozen(route_group, np.int16),
        route_group_name=tuple(r.cells["group"] for r in routes),
        route_tunnel=frozen([r.cells["tunnel"] for r in routes], bool),
        route_ferry=frozen([r.cells["ferry_locos"] for r in routes], np.int8),
        ticket_a=frozen([t.cells["a"] for t in tickets], np.int16),
        ticket_b=frozen([t.cells["b"] for t in tickets], np.int16),
        ticket_points=frozen([t.cells["points"] for t in tickets], np.int16),
        ticket_tags=tuple(t.cells["tags"] for t in tickets),
        scoring=frozen(scoring, np.int16),
        passengers=frozen(passengers, np.int16),
    )
