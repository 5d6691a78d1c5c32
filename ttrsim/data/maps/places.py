"""The places of a map file: ``cities``, ``countries`` with their border points,
and ``passengers``; the name tables (:class:`Names`) that the route and ticket
rows look their endpoints up in.

Every name is used once, whatever it names. Cities are locations and nodes
(the same id); countries are locations only; each border point is a node of its
country's location (R6.4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ttrsim.data.checks import close_match, is_int, is_number

from .mapdata import Problems


class Bad(Exception):
    """One bad cell or value; its text is the message."""


@dataclass
class Names:
    """Name tables built from cities and countries, shared by the row checks."""

    locations: dict  # name -> location id (cities, then countries)
    nodes: dict  # name -> node id (cities, then border points)
    node_loc: list  # node id -> location id
    country_points: dict  # country -> [border point names]
    scored: set | None = None  # lengths with points; None when the scoring table is broken

    def node(self, value) -> int:
        """The node a route ends at: a city or a border point."""
        if not isinstance(value, str):
            raise Bad(f"endpoint {value!r} is not a name; expected a city or border point")
        if value in self.nodes:
            return self.nodes[value]
        if value in self.country_points:
            points = ", ".join(self.country_points[value]) or "none"
            raise Bad(f"{value!r} is a country; a route must end at one of its border points: {points}")
        raise Bad(f"unknown city {value!r}; expected one of the cities or border points"
                  + _did_you_mean(value, self.nodes))

    def location(self, value) -> int:
        """The location a ticket or passenger count names: a city or a country."""
        if not isinstance(value, str):
            raise Bad(f"endpoint {value!r} is not a name; expected a city or country")
        if value in self.locations:
            return self.locations[value]
        if value in self.nodes:
            country = next(c for c, pts in self.country_points.items() if value in pts)
            raise Bad(f"{value!r} is a border point; expected a city or a country (here {country!r})")
        raise Bad(f"unknown city or country {value!r}; expected one of the cities or countries"
                  + _did_you_mean(value, self.locations))


def _did_you_mean(name, pool) -> str:
    close = close_match(name, pool)
    return f" (did you mean {close!r}?)" if close else ""


def xy(value):
    if isinstance(value, list) and len(value) == 2 and all(map(is_number, value)):
        return value
    raise Bad(f"coordinates must be [x, y] numbers, got {value!r}")


def parse_places(cities, countries, problems: Problems):
    """Cities, countries and border points -> name tables and coordinates
    ``(names, (location_xy, node_xy))``; ``(None, None)`` when a section is missing."""
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

    problems.duplicates(cities, "cities", "city")
    for name, value in cities.items():
        entry = f"cities[{name}]"
        try:
            pos = xy(value)
        except Bad as e:
            problems.add(entry, str(e))
            pos = [0, 0]
        if claim(name, "city", entry):
            locations[name] = nodes[name] = len(node_loc)
            node_loc.append(len(node_loc))
            location_xy.append(pos)
            node_xy.append(pos)

    problems.duplicates(countries, "countries", "country")
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
            location_xy.append(xy(value["label"]))
        except Bad as e:
            problems.add(f"{entry}.label", str(e))
            location_xy.append([0, 0])
        locations[country] = len(location_xy) - 1
        points = value["border_points"]
        country_points[country] = []
        if not points:
            problems.add(entry, "has no border points; expected at least one (R6.4)")
        problems.duplicates(points, f"{entry}.border_points", "border point")
        for point, pxy in points.items():
            pentry = f"{entry}.border_points[{point}]"
            try:
                pxy = xy(pxy)
            except Bad as e:
                problems.add(pentry, str(e))
            if claim(point, "border point", pentry):
                nodes[point] = len(node_loc)
                node_loc.append(locations[country])
                node_xy.append(pxy)
                country_points[country].append(point)

    return Names(locations, nodes, node_loc, country_points), (location_xy, node_xy)


def parse_passengers(passengers, names: Names, problems: Problems) -> np.ndarray:
    """Setup passengers per location (R1.5); zeros without the section."""
    counts = np.zeros(len(names.locations), dtype=np.int16)
    if passengers is None:
        return counts
    problems.duplicates(passengers, "passengers", "location")
    for place, count in passengers.items():
        entry = f"passengers[{place}]"
        try:
            loc = names.location(place)
        except Bad as e:
            problems.add(entry, str(e))
            continue
        if not (is_int(count) and count >= 0):
            problems.add(entry, f"count {count!r} must be a non-negative integer")
            continue
        counts[loc] = count
    return counts
