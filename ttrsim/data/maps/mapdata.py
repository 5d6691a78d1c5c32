"""The validated map (:class:`MapData`, flat read-only numpy arrays), its error
(:class:`MapError`) and the limits a map file must keep."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from ttrsim.data.ids import ROUTE_COLOUR_NAMES

__all__ = ["MapData", "MapError", "MAX_ROUTE_LENGTH", "MAX_PARALLEL_TRACKS", "without_routes"]

MAX_ROUTE_LENGTH = 8      # Europe's Petrograd-Stockholm
MAX_PARALLEL_TRACKS = 3


def frozen(values, dtype, shape=None) -> np.ndarray:
    """A read-only array of ``values`` (the arrays of a :class:`MapData`)."""
    arr = np.array(values, dtype=dtype)
    if shape is not None:
        arr = arr.reshape(shape)
    arr.setflags(write=False)
    return arr


class MapError(ValueError):
    """A map file that cannot be used; ``problems`` holds one line per problem."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))

    def __str__(self):
        return "\n".join(self.problems)


class Problems:
    """Collects a map file's ``<file>: <entry>: <message>`` lines."""

    def __init__(self, file: str):
        self.file = file
        self.lines: list[str] = []

    def add(self, entry: str, message: str):
        self.lines.append(f"{self.file}: {entry}: {message}")

    def duplicates(self, mapping, entry: str, what: str):
        """One line per key the file gives twice in ``mapping`` (a ``YamlMapping``)."""
        for key in getattr(mapping, "duplicates", ()):
            self.add(f"{entry}[{key}]", f"duplicated {what} name; expected each {what} once")

    def __bool__(self):
        return bool(self.lines)


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
    route_tunnel: np.ndarray  # bool [R], tunnel routes (R8.3)
    route_ferry: np.ndarray  # int8 [R], locomotives a ferry needs at least (R8.2), 0 = not a ferry
    ticket_a: np.ndarray  # int16 [T] location ids
    ticket_b: np.ndarray  # int16 [T]
    ticket_points: np.ndarray  # int16 [T]
    ticket_tags: tuple[frozenset[str], ...]
    scoring: np.ndarray  # int16 [MAX_ROUTE_LENGTH + 1], points by route length, 0 where absent
    passengers: np.ndarray  # int16 [L], setup count per location
    removed_routes: tuple[int, ...] = ()  # ids in the map file of the routes left out (R9.2), increasing
    changed_routes: tuple[int, ...] = ()  # ids in the map file of the routes printed otherwise (R9.3)

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

    @property
    def file_route_ids(self) -> np.ndarray:
        """int16 [R]: each route's id in the map file (its own id unless routes were removed, R9.2)."""
        keep = np.ones(self.n_routes + len(self.removed_routes), bool)
        keep[list(self.removed_routes)] = False
        return np.flatnonzero(keep).astype(np.int16)

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

    def ticket_names(self, tags) -> dict[str, int]:
        """The tickets of the draw piles tagged ``tags`` by name, in map order:
        ``'From-To'``, or ``'From-To 20'`` (with its points) where two of them join
        the same places (the names an experiment's ``intervene: offer_ticket`` takes).

        >>> from ttrsim.data.maps import load_map
        >>> list(load_map("usa").ticket_names(["base"]))[:2]
        ['Boston-Miami', 'Calgary-Phoenix']
        """
        ids = sorted({int(t) for tag in tags for t in self.deck(tag)})
        pair = [f"{self.location_names[self.ticket_a[t]]}-{self.location_names[self.ticket_b[t]]}" for t in ids]
        return {f"{n} {int(self.ticket_points[t])}" if pair.count(n) > 1 else n: t for n, t in zip(pair, ids)}

    @functools.cached_property
    def _location_ids(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.location_names)}

    @functools.cached_property
    def _node_ids(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.node_names)}

    def __repr__(self):
        return (f"MapData({self.name!r}: {self.n_locations} locations, {self.n_nodes} nodes, "
                f"{self.n_routes} routes, {self.n_tickets} tickets)")


def without_routes(m: MapData, ids) -> MapData:
    """``m`` without the routes ``ids`` (R9.2): the routes after them move up,
    parallel groups are renumbered in order (a group whose tracks are all
    removed disappears), ``removed_routes`` keeps the file's ids of all routes
    left out. Places and tickets are unchanged.

    >>> from ttrsim.data.maps import load_map
    >>> m = without_routes(load_map("usa"), [3])
    >>> m.n_routes, m.route_label(3), m.removed_routes, int(m.file_route_ids[3])
    (99, 'Atlanta-New Orleans (4 yellow)', (3,), 4)
    """
    keep = np.ones(m.n_routes, bool)
    keep[list(ids)] = False
    kept = {f: frozen(getattr(m, f)[keep], getattr(m, f).dtype)
            for f in ("route_a", "route_b", "route_len", "route_colour", "route_tunnel", "route_ferry")}
    _, group = np.unique(m.route_group[keep], return_inverse=True)
    return dataclasses.replace(
        m, **kept, route_group=frozen(group.reshape(-1), np.int16),
        route_group_name=tuple(n for n, k in zip(m.route_group_name, keep) if k),
        removed_routes=tuple(sorted(m.removed_routes + tuple(int(r) for r in m.file_route_ids[~keep]))))
