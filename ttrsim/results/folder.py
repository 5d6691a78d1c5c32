"""The results folder: its layout, the manifest, part files and the files that
describe the games (the map and the rules they were played with).

``ttrsim run`` writes, and :mod:`ttrsim.results.reader` reads::

    manifest.json         resolved config, versions, layout, chunks, runs, summary
    map.json              the map the games were played on (map_to_json)
    rules.json            the resolved rule set of every sweep point (rules_to_json)
    <table>/part-<point:04d>-<chunk:06d>.parquet   games, players, tickets, turns
    dims/*.parquet        routes, tickets, strategies, points (names for the ids)

``map.json`` and ``rules.json`` make the folder describe itself: a report
reads them instead of the map file and today's presets, so a folder copied to
another machine, or made before its map file was edited, is reported on the
map and rules its games were played with. Every file is written to a
temporary name of its own process (``<name>.<pid>.tmp``) and renamed
(``os.replace``), so a file is always whole. Every part file carries its
experiment's config hash, chunk and games in its Parquet metadata
(:func:`part_tag`), and the manifest records every part file's size, rows and
SHA-256 (:func:`digest`, the same as ``sha256sum``) when its chunk is
recorded: :func:`check_part` checks a part file against that entry (size,
rows, tag and content), so a damaged byte is found even where size, rows and
tag are right. A chunk recorded before checksums is checked by size, rows and
tag, and (``decode``) by reading its data whole.

A run holds the folder's lock (:class:`FolderLock`, ``ttrsim.lock``: an
exclusive ``flock`` with the owner's pid, host and start time inside) from
before its first write to its end: a second run on the folder is refused, and
the lock of a run that died is free again (the system releases it).

>>> from ttrsim.data.rules import get_rules
>>> m = load_map("germany")
>>> back = map_from_json(json.loads(json.dumps(map_to_json(m))))
>>> back.route_label(0) == m.route_label(0)
True
>>> [back.node_names[n] for n in back.location_nodes(back.location_id("Dänemark"))]
['Dänemark/1', 'Dänemark/2']
>>> r = get_rules("usa", {"scoring": {6: 18}})
>>> rule_set_from_json(json.loads(json.dumps(rule_set_to_json(r)))) == r
True
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import platform
import shutil
import socket
import subprocess
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ttrsim.data.ids import ROUTE_COLOUR_IDS, ROUTE_COLOUR_NAMES
from ttrsim.data.maps import MAX_ROUTE_LENGTH, MapData, load_map
from ttrsim.data.rules import DEFAULTS, TUPLE_PARAMS, RuleSet

from .errors import ExperimentError
from .tables import with_descriptions

MANIFEST = "manifest.json"
MAP_FILE = "map.json"
RULES_FILE = "rules.json"
LOCK = "ttrsim.lock"
TAG = b"ttrsim"                 # the Parquet metadata key of a part file's tag
FORMAT = 1
TABLES = ("games", "players", "tickets", "turns")
DIMS = ("routes", "tickets", "strategies", "points")
PART_FILES = "<table>/part-<point:04d>-<chunk:06d>.parquet"
# the columns of the dimension tables, stored as their fields' metadata (b"description", as in the part files)
DIM_DESCRIPTIONS = {
    "routes": {"route": "route id (turns.route)", "label": "the route as the map names it: from-to (length colour)",
               "from": "one end (a city, or a country's border point)", "to": "the other end",
               "length": "trains to claim it", "colour": "card colour to pay with (gray: any one colour)",
               "group": "parallel-track group id (the tracks of a double or triple route share it)",
               "tunnel": "a tunnel (Europe)", "ferry_locos": "locomotives a ferry needs (0: no ferry)"},
    "tickets": {"ticket": "ticket id (tickets.ticket)", "from": "one end (a city or a country)",
                "to": "the other end", "points": "the ticket's printed points",
                "decks": "deck tags, comma-separated (base, 1910, mega, bigcities, short, long, ...)"},
    "strategies": {"strategy": "the label in the tables", "name": "the built-in strategy (MODULE:CLASS for Python)",
                   "params": "parameter overrides (JSON)"},
    "points": {"point": "sweep point", "values": "the swept keys' values at the point (JSON)",
               "rule_overrides": "every rule override of the point (JSON)",
               "strategy_params": "each entrant's parameter overrides at the point (JSON list)"},
}


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def versions() -> dict:
    """ttrsim and dependency versions (and the source commit when in a git checkout)."""
    out = {"python": platform.python_version()}
    for pkg in ("ttrsim", "numpy", "numba", "polars", "pyarrow", "pandas", "joblib", "dask", "distributed",
                "tqdm", "click", "pyyaml"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    try:
        src = Path(__file__).resolve().parent.parent
        commit = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=5)
        dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5)
        if commit.returncode == 0:
            out["ttrsim_commit"] = commit.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return out


class Folder:
    """A results folder on disk: atomic writes of the manifest, part files,
    dimension tables and description files. (A folder at a URL is a
    :class:`ttrsim.results.store.UrlFolder`, with the same methods.)"""
    TABLE_DIRS = TABLES + ("dims",)
    fs = None                 # the fsspec file system of a folder at a URL
    writer = None             # where workers write the part files themselves: none, the run's process writes them

    def __init__(self, root: Path):
        self.root = Path(root)

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    def file(self, *parts: str) -> Path:
        return self.root.joinpath(*parts)

    def exists(self, *parts: str) -> bool:
        return self.file(*parts).exists()

    def has_manifest(self) -> bool:
        return self.manifest_path.exists()

    def has_other_files(self) -> bool:
        """Anything in the folder but the lock."""
        return any(f.name != LOCK for f in self.root.iterdir())

    def foreign(self) -> bool:
        """The folder exists and holds something else than a ttrsim run's files."""
        return self.root.is_dir() and not self.has_manifest() and not self.leftovers_only()

    def create(self):
        self.root.mkdir(parents=True, exist_ok=True)

    def lock(self) -> FolderLock:
        return FolderLock(self.root)

    def check(self, table: str, key: str, record: dict, config_hash: str | None, decode: bool = False) -> str | None:
        """:func:`check_part` of the part file of ``table`` and chunk ``key``."""
        return check_part(self.part(table, key), record, table, config_hash, decode, self.fs)

    def digest(self, table: str, key: str) -> str:
        return file_digest(self.part(table, key), self.fs)

    def unreadable(self, table: str, key: str) -> str | None:
        return unreadable(self.part(table, key), self.fs)

    def read_bytes(self, path) -> bytes:
        return Path(path).read_bytes()

    def read_json(self, name: str, source: str = "<dict>", what: str = "a ttrsim description file") -> dict | None:
        """A JSON file of the folder (None when missing); a damaged one is a one-line ExperimentError."""
        path = self.file(name)
        try:
            return json.loads(self.read_bytes(path))
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ExperimentError(f"{source}: output: {path} is damaged (not JSON); expected {what} "
                                  "(or --overwrite to start over)") from None

    def read_manifest(self, source: str = "<dict>") -> dict | None:
        return self.read_json(MANIFEST, source, "a ttrsim manifest")

    def write_atomic(self, path: Path, data: bytes):
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:         # a folder turned read-only: the write's own error says so
                pass
            raise

    def write_json(self, name: str, data: dict):
        self.write_atomic(self.file(name), json.dumps(data, indent=1, default=str).encode())

    def write_manifest(self, manifest: dict):
        manifest["updated"] = now()
        self.write_json(MANIFEST, manifest)

    def write_manifest_last(self, manifest: dict):
        """The manifest at the end of a run, even in a folder that turned
        read-only for new files (``chmod -w``): when the atomic write is
        refused, ``manifest.json`` is rewritten in place (it is the run's last
        write, so that a run that failed on it still says so). Raises the
        atomic write's ``OSError`` when that is refused too (a read-only file
        system)."""
        try:
            self.write_manifest(manifest)
        except OSError as e:
            if e.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise
            data = json.dumps(manifest, indent=1, default=str).encode()
            try:
                with open(self.manifest_path, "r+b") as f:
                    f.write(data)
                    f.truncate()
            except OSError:
                raise e from None

    def part(self, table: str, key: str) -> Path:
        return self.file(table, f"part-{key}.parquet")

    def prepare(self, tables):
        for t in tables:
            (self.root / t).mkdir(parents=True, exist_ok=True)
        (self.root / "dims").mkdir(parents=True, exist_ok=True)

    def write_description(self, exp, m: MapData, described: dict):
        """The dimension tables and the description files (``described``: :func:`describe`) of
        ``exp`` (a :class:`ttrsim.experiment.config.Experiment`)."""
        for name, tab in (("routes", routes_dim(m)), ("tickets", tickets_dim(m)),
                          ("strategies", strategies_dim(exp.entrants)), ("points", points_dim(exp.points))):
            sink = pa.BufferOutputStream()
            pq.write_table(with_descriptions(tab, DIM_DESCRIPTIONS[name]), sink)
            self.write_atomic(self.file("dims", f"{name}.parquet"), sink.getvalue().to_pybytes())
        for name, data in described.items():
            self.write_json(name, data)

    def leftovers_only(self) -> bool:
        """The folder holds nothing but what a ttrsim run writes before its
        manifest (the lock, temporary files, empty or part-file table folders,
        description files): the remains of a run killed before it started."""
        for f in self.root.iterdir():
            if f.name in (LOCK, MAP_FILE, RULES_FILE) or (f.name.endswith(".tmp") and f.is_file()):
                continue
            if f.name not in self.TABLE_DIRS or not f.is_dir():
                return False
            if any(not (g.is_file() and (g.name.endswith((".parquet", ".tmp")))) for g in f.iterdir()):
                return False
        return True

    def clean_strays(self, keep: set[str]):
        """Delete temporary files (the folder's own and its tables') and part
        files of chunks the manifest does not list."""
        for f in self.root.glob("*.tmp"):
            if f.is_file():
                f.unlink()
        for t in self.TABLE_DIRS:
            d = self.root / t
            if not d.is_dir():
                continue
            for f in d.iterdir():
                if f.name.endswith(".tmp"):
                    f.unlink()
                elif t != "dims" and f.name.startswith("part-") and f.name.endswith(".parquet"):
                    if f.name[5:-8] not in keep:
                        f.unlink()

    def remove_results(self):
        """Delete ttrsim's own files (tables, dims, manifest, description and
        temporary files), nothing else (not the lock)."""
        for t in self.TABLE_DIRS:
            shutil.rmtree(self.root / t, ignore_errors=True)
        for f in self.root.iterdir():
            if f.name in (MANIFEST, MAP_FILE, RULES_FILE) or (f.name.endswith(".tmp") and f.is_file()):
                f.unlink()


class FolderLock:
    """The lock of a results folder (``ttrsim.lock``): an exclusive ``flock``
    held while a run writes, with the owner's pid, host and start time inside.
    The system releases it when its process dies, so the lock of a killed run
    is simply taken over; the file is deleted on release."""

    def __init__(self, root: Path):
        self.path = Path(root) / LOCK
        self.fd = None

    def acquire(self, source: str = "<dict>") -> dict | None:
        """Take the lock, or ExperimentError naming its owner when a live run
        holds it. Returns what the file said of an earlier owner that is gone
        (a run killed with the lock), else None."""
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                owner = _owner(_read_fd(fd))
                os.close(fd)
                raise ExperimentError(f"{source}: output: {self.path.parent} is in use by another ttrsim run "
                                      f"({owner}); expected one run at a time per folder: wait for it to end or "
                                      "stop it") from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:                       # else the owner deleted the file as we opened it: take the new one
                break
            os.close(fd)
        previous = _read_fd(fd)
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": now()}).encode(), 0)
        self.fd = fd
        return previous

    def release(self):
        """Delete the lock file and let go of the lock. In a folder that
        turned read-only the file stays, emptied where it can be (the next
        run takes it over as the lock of a run that is gone)."""
        if self.fd is not None:
            try:
                self.path.unlink(missing_ok=True)
            except OSError:
                try:
                    os.ftruncate(self.fd, 0)
                except OSError:
                    pass
            finally:
                os.close(self.fd)
                self.fd = None


def _read_fd(fd) -> dict | None:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"null")
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _owner(info: dict | None) -> str:
    if not info:
        return "its owner is starting"
    return f"pid {info.get('pid')} on {info.get('host')}, started {info.get('started')}"


# --------------------------------------------------------------------------- part files


def part_tag(config_hash: str, key: str, lo: int, hi: int) -> dict:
    """The tag of a part file: the experiment's config hash, the chunk and its games."""
    return {"config": config_hash, "chunk": key, "games": [int(lo), int(hi)]}


def digest(data: bytes) -> str:
    """The checksum the manifest records of a part file: SHA-256 of its bytes, in hex."""
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path, fs=None) -> str:
    """:func:`digest` of a file (of the fsspec file system ``fs``, if given), read in blocks."""
    h = hashlib.sha256()
    with (fs.open(path, "rb") if fs is not None else open(path, "rb")) as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def check_part(path: Path, record: dict, table: str, config_hash: str | None, decode: bool = False,
               fs=None) -> str | None:
    """Why part file ``path`` of ``table`` does not hold what the manifest's
    chunk ``record`` says (None when it does): missing, another size, not
    Parquet (truncated or damaged), another row count, tagged for another
    experiment (``config_hash``) or chunk, or other bytes than the SHA-256 the
    record holds (``sha256``: a damage of the right size). A record without
    a checksum (written by an older ttrsim) is checked by the footer only, and
    with ``decode`` also by reading the data whole (a damaged page does not
    decompress). A part file without a tag (written before tags) is checked
    by size and rows. Never raises for a damaged file: any read error is the
    reason returned. ``fs``: the fsspec file system ``path`` is in (a folder
    at a URL)."""
    try:
        size = fs.size(path) if fs is not None else path.stat().st_size
    except FileNotFoundError:
        return "missing"
    except OSError as e:
        return f"unreadable ({e.strerror or e})"
    want = (record.get("bytes") or {}).get(table)
    if want is not None and size != want:
        return f"{size} bytes, not {want}"
    try:
        meta = pq.read_metadata(path, filesystem=fs)
    except (OSError, pa.ArrowException):
        return "not a whole Parquet file"
    rows = (record.get("rows") or {}).get(table)
    if rows is not None and meta.num_rows != rows:
        return f"{meta.num_rows} rows, not {rows}"
    raw = (meta.metadata or {}).get(TAG)
    if raw is not None:
        try:
            tag = json.loads(raw)
        except ValueError:
            return "its ttrsim tag is damaged"
        if not isinstance(tag, dict):
            return "its ttrsim tag is damaged"
        if config_hash is not None and tag.get("config") != config_hash:
            return "written by another experiment"
        if tag.get("games") != [record.get("lo"), record.get("hi")]:
            return "holds other games"
    sha = (record.get("sha256") or {}).get(table)
    if sha is not None:
        try:
            if file_digest(path, fs) != sha:
                return "damaged (its SHA-256 is not the one recorded)"
        except OSError as e:
            return f"unreadable ({e.strerror or e})"
    elif decode:
        return unreadable(path, fs)
    return None


def unreadable(path: Path, fs=None) -> str | None:
    """Why the data of a Parquet file cannot be read whole (its first line), or None."""
    try:
        pq.read_table(path, filesystem=fs)
    except (OSError, pa.ArrowException, ValueError) as e:
        text = str(e).strip().splitlines()
        return f"unreadable ({text[0] if text else type(e).__name__})"
    return None


# --------------------------------------------------------------------------- description files


def describe(exp) -> tuple[MapData, dict]:
    """The map of experiment ``exp`` (a :class:`ttrsim.experiment.config.Experiment`)
    and the contents of ``map.json`` and ``rules.json``
    (plain JSON values, so they compare equal to the files read back)."""
    m = load_map(exp.rules_for(exp.points[0]).map)       # a sweep never changes the map
    rules = {"base": rule_set_to_json(exp.base_rules()),
             "points": [{"point": p.index, **rule_set_to_json(exp.rules_for(p))} for p in exp.points]}
    return m, {MAP_FILE: _plain(map_to_json(m)), RULES_FILE: _plain(rules)}


def _plain(data):
    return json.loads(json.dumps(data, default=str))


def rule_set_to_json(r: RuleSet) -> dict:
    """``{"preset", "overrides", "params"}``: every parameter's value (``scoring`` keys as text)."""
    params = r.params()
    if params["scoring"] is not None:
        params["scoring"] = {str(k): v for k, v in params["scoring"].items()}
    return _plain({"preset": r.preset, "overrides": r.overrides, "params": params})


def rule_set_from_json(d: dict) -> RuleSet:
    """The :class:`~ttrsim.data.rules.RuleSet` of :func:`rule_set_to_json`. A
    parameter the folder does not name (it is newer than the folder's ttrsim)
    takes its default."""
    params = {**DEFAULTS, **{k: v for k, v in d["params"].items() if k in DEFAULTS}}
    for key in TUPLE_PARAMS:
        params[key] = tuple(params[key])
    if params["scoring"] is not None:
        params["scoring"] = tuple(sorted((int(k), int(v)) for k, v in params["scoring"].items()))
    return RuleSet(preset=d["preset"], overrides=dict(d.get("overrides") or {}), **params)


def map_to_json(m: MapData) -> dict:
    """The map as columns: locations (cities, then countries) with coordinates
    and setup passengers; nodes (cities, then border points) with their
    location and coordinates; routes (node ids, length, colour, parallel
    group); tickets (location ids, points, deck tags); scoring (length -> points).
    Ids are list positions, as in the tables."""
    return {
        "name": m.name, "source": m.path,
        "scoring": {str(n): int(p) for n, p in enumerate(m.scoring) if p},
        "locations": {"name": list(m.location_names), "country": m.location_is_country.tolist(),
                      "x": m.location_xy[:, 0].tolist(), "y": m.location_xy[:, 1].tolist(),
                      "passengers": m.passengers.tolist()},
        "nodes": {"name": list(m.node_names), "location": m.node_loc.tolist(),
                  "x": m.node_xy[:, 0].tolist(), "y": m.node_xy[:, 1].tolist()},
        "routes": {"from": m.route_a.tolist(), "to": m.route_b.tolist(), "length": m.route_len.tolist(),
                   "colour": [ROUTE_COLOUR_NAMES[c] for c in m.route_colour], "group": m.route_group.tolist(),
                   "group_name": list(m.route_group_name), "tunnel": m.route_tunnel.tolist(),
                   "ferry_locos": m.route_ferry.tolist()},
        "tickets": {"from": m.ticket_a.tolist(), "to": m.ticket_b.tolist(), "points": m.ticket_points.tolist(),
                    "decks": [sorted(t) for t in m.ticket_tags]},
    }


def map_from_json(d: dict) -> MapData:
    """The :class:`~ttrsim.data.maps.MapData` of :func:`map_to_json` (read-only arrays)."""
    loc, node, route, ticket = d["locations"], d["nodes"], d["routes"], d["tickets"]

    def arr(values, dtype):
        a = np.array(values, dtype=dtype)
        a.setflags(write=False)
        return a

    scoring = np.zeros(MAX_ROUTE_LENGTH + 1, np.int16)
    for n, p in d["scoring"].items():
        scoring[int(n)] = p
    scoring.setflags(write=False)
    return MapData(
        name=d["name"], path=d["source"],
        location_names=tuple(loc["name"]), location_is_country=arr(loc["country"], bool),
        location_xy=arr(np.stack([loc["x"], loc["y"]], axis=1), np.float32),
        node_names=tuple(node["name"]), node_loc=arr(node["location"], np.int16),
        node_xy=arr(np.stack([node["x"], node["y"]], axis=1), np.float32),
        route_a=arr(route["from"], np.int16), route_b=arr(route["to"], np.int16),
        route_len=arr(route["length"], np.int8),
        route_colour=arr([ROUTE_COLOUR_IDS[c] for c in route["colour"]], np.int8),
        route_group=arr(route["group"], np.int16), route_group_name=tuple(route["group_name"]),
        route_tunnel=arr(route.get("tunnel", [False] * len(route["from"])), bool),     # older folders: none
        route_ferry=arr(route.get("ferry_locos", [0] * len(route["from"])), np.int8),
        ticket_a=arr(ticket["from"], np.int16), ticket_b=arr(ticket["to"], np.int16),
        ticket_points=arr(ticket["points"], np.int16), ticket_tags=tuple(frozenset(t) for t in ticket["decks"]),
        scoring=scoring, passengers=arr(loc["passengers"], np.int16),
    )


# --------------------------------------------------------------------------- dimension tables


def routes_dim(m: MapData) -> pa.Table:
    """One row per route of map ``m``: id, label, endpoints, length, colour,
    parallel group, tunnel flag and ferry locomotives (R8.2, R8.3)."""
    r = np.arange(m.n_routes)
    return pa.table({
        "route": pa.array(r.astype(np.int16)),
        "label": [m.route_label(i) for i in r],
        "from": [m.node_names[m.route_a[i]] for i in r],
        "to": [m.node_names[m.route_b[i]] for i in r],
        "length": pa.array(np.asarray(m.route_len, np.int8)),
        "colour": [ROUTE_COLOUR_NAMES[m.route_colour[i]] for i in r],
        "group": pa.array(np.asarray(m.route_group, np.int16)),
        "tunnel": pa.array(np.asarray(m.route_tunnel, bool)),
        "ferry_locos": pa.array(np.asarray(m.route_ferry, np.int8)),
    })


def tickets_dim(m: MapData) -> pa.Table:
    """One row per ticket of map ``m``: id, endpoints, points, deck tags."""
    t = np.arange(m.n_tickets)
    return pa.table({
        "ticket": pa.array(t.astype(np.int16)),
        "from": [m.location_names[m.ticket_a[i]] for i in t],
        "to": [m.location_names[m.ticket_b[i]] for i in t],
        "points": pa.array(np.asarray(m.ticket_points, np.int16)),
        "decks": [",".join(sorted(m.ticket_tags[i])) for i in t],
    })


def strategies_dim(entrants) -> pa.Table:
    """One row per label at the table: label, strategy, parameter overrides (JSON)."""
    return pa.table({
        "strategy": [e.label for e in entrants],
        "name": [e.strategy for e in entrants],
        "params": [json.dumps(e.params, sort_keys=True) for e in entrants],
    })


def points_dim(points) -> pa.Table:
    """One row per sweep point: point, its sweep values (JSON) and its rule overrides (JSON)."""
    return pa.table({
        "point": pa.array(np.array([p.index for p in points], np.uint16)),
        "values": [json.dumps(p.values, sort_keys=True, default=str) for p in points],
        "rule_overrides": [json.dumps(p.rule_overrides, sort_keys=True, default=str) for p in points],
        "strategy_params": [json.dumps(list(p.entrant_params), default=str) for p in points],
    })
