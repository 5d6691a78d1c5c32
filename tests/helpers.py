"""The tests' shared helpers (one module, importable from every folder of
tests/: pytest's ``pythonpath`` in pyproject.toml puts tests/ on the path);
fixtures and hooks, should the tests need any, go in a conftest.py.

Paths: :data:`ROOT` is the repository, :data:`FIXTURES` the test data
(tests/fixtures/: the bad-file catalogues bad_experiments/, bad_maps/,
bad_tunes/ and tiny_map.yaml).

Game positions: builders of hand-made game states for the rule tests.

``setup_game`` returns a :class:`ttrsim.play.game.Game` past setup (every seat keeps
all its setup tickets) with the seat to act in the main phase; the ``put_*``
helpers overwrite parts of the state so a test can build exactly the position
it needs. Every helper keeps the 110 cards conserved where it moves cards.

Bad-file catalogues (tests/fixtures/bad_experiments/, tests/fixtures/bad_tunes/):
each file's first line ``# expect: MESSAGE`` is its exact one-line error, with
``{here}`` for the catalogue's folder and ``{cwd}`` for the folder the command
starts in; :func:`snapshot` tells that nothing was written.

Results folders: hand-built results folders for the report tests: a manifest,
the description files (map.json, rules.json) and Parquet part files in exactly the schema
``ttrsim run`` writes (``ttrsim.results.tables.SCHEMAS``), from a few games
described in Python, so every statistic has a known answer.

>>> path = make_results(tmp_path / "r", labels=("A", "B"), games=[
...     game([10, 5]), game([7, 7])])          # doctest: +SKIP

``game(totals, **seat_columns)`` describes one game (seat order); the seats'
strategies follow the seatings (default: the line-up rotated, as ``ttrsim run``
does). Winners follow R6.8 unless ``winners`` is given: the highest total, then
the rule set's tie-breaks; still tied = a shared win.
"""
from __future__ import annotations

import importlib.util
import itertools
import json
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ttrsim.core.actions import A_TICKETS, legal_buffer
from ttrsim.core.claims import sync_route_open
from ttrsim.core.state import M_DECK_N, PH_MAIN
from ttrsim.data.ids import LOCO
from ttrsim.data.maps import load_map
from ttrsim.data.rules import get_rules
from ttrsim.play.game import Game
from ttrsim.results.folder import map_to_json, routes_dim, rule_set_to_json, tickets_dim
from ttrsim.results.tables import SCHEMAS
from ttrsim.strategies import param_row, strategy_id
from ttrsim.strategies.kit import dispatch
from ttrsim.strategies.kit.memory import allocate_memory, reset_memory

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


# ---- game positions ----


def setup_game(rules="usa", n_players=2, seed=0, overrides=None, mix=None):
    """A game past setup: in Germany each seat takes ``mix`` tickets from the
    short pile (default: all of them); every seat keeps all its tickets."""
    g = Game(rules, n_players, seed, overrides)
    while g.phase in ("setup-mix", "setup-keep"):
        if g.phase == "setup-mix":
            acts = [a for a in g.legal_actions() if a >= A_TICKETS]
            g.apply(A_TICKETS + mix if mix is not None else max(acts))
        else:
            g.apply(max(g.legal_actions()))   # largest mask = keep every ticket
    assert g.state.meta[1] == PH_MAIN
    return g


def put_hand(g, seat, counts):
    """Give ``seat`` exactly ``counts`` (dict card kind -> n); cards come from /
    go back to the deck so the total stays 110."""
    s = g.state
    for kind in range(LOCO + 1):
        want = counts.get(kind, 0)
        while s.hand[seat, kind] > want:
            s.hand[seat, kind] -= 1
            s.deck[s.meta[M_DECK_N]] = kind
            s.meta[M_DECK_N] += 1
        while s.hand[seat, kind] < want:
            take_from_deck(g, kind)
            s.hand[seat, kind] += 1


def take_from_deck(g, kind):
    """Remove one card of ``kind`` from the deck (or the discards), failing the test if none."""
    s = g.state
    n = s.meta[M_DECK_N]
    idx = np.flatnonzero(s.deck[:n] == kind)
    if len(idx):
        i = idx[-1]
        s.deck[i:n - 1] = s.deck[i + 1:n].copy()
        s.meta[M_DECK_N] -= 1
        return
    if s.discard[kind] > 0:
        s.discard[kind] -= 1
        return
    pytest.fail(f"no card of kind {kind} left to move")


def put_faceup(g, kinds):
    """Set the face-up row to ``kinds`` (card kinds, -1 for empty), swapping with the deck."""
    s = g.state
    for c in s.faceup:       # old row back on the deck
        if c >= 0:
            s.deck[s.meta[M_DECK_N]] = c
            s.meta[M_DECK_N] += 1
    s.faceup[:] = -1
    for i, kind in enumerate(kinds):
        if kind >= 0:
            take_from_deck(g, kind)
            s.faceup[i] = kind


def put_deck_top(g, kinds):
    """Make ``kinds`` the next cards drawn from the deck, first element drawn first."""
    s = g.state
    for kind in kinds:
        take_from_deck(g, kind)
    n = s.meta[M_DECK_N]
    for j, kind in enumerate(reversed(kinds)):
        s.deck[n + j] = kind
    s.meta[M_DECK_N] = n + len(kinds)


def card_total(g):
    """Train cards in every place: deck, discards, face-up, hands (R1.1)."""
    s = g.state
    return int(s.meta[M_DECK_N] + s.discard.sum() + (s.faceup >= 0).sum() + s.hand.sum())


def route_id(g, a, b, colour=None):
    """The id of the route between cities ``a`` and ``b`` (of ``colour`` when it is a double)."""
    m = g.map
    for r in range(m.n_routes):
        ends = {m.node_names[m.route_a[r]], m.node_names[m.route_b[r]]}
        if ends == {a, b} and (colour is None or m.route_colour[r] == colour):
            return r
    raise KeyError(f"no route {a}-{b} colour {colour}")


def ticket_id(g, a, b):
    """The ticket of the rule set joining locations named ``a`` and ``b``."""
    m = g.map
    for t in range(m.n_tickets):
        ends = {m.location_names[m.ticket_a[t]], m.location_names[m.ticket_b[t]]}
        if ends == {a, b} and g.board.ticket_deck[t] >= 0:
            return t
    raise KeyError(f"no ticket {a}-{b}")


def fresh_memory(g):
    """The strategies' memory of game ``g``'s table as the game loop sets it
    up at the start of the game (streams seeded from ``g.seed``)."""
    m = allocate_memory(g.board, g.n_players)
    reset_memory(m, g.seed)
    return m


def decide(g, name="planner", overrides=None, memory=None):
    """The action strategy ``name`` (parameters ``overrides``, the same row at
    every seat) picks for the seat to act in game ``g``, through the compiled
    dispatcher with the list the game loop gives it; checked legal.
    ``memory``: the table's strategy memory, carried from decision to decision
    by the caller (default: :func:`fresh_memory`). The seats' open routes
    are set from the route owners first, which tests set by hand
    (:func:`ttrsim.core.claims.sync_route_open`)."""
    sync_route_open(g.board, g.state)
    buf = legal_buffer(g.board)
    n = dispatch.legal_for(strategy_id(name), g.board, g.state, buf)
    params = np.tile(param_row(name, overrides), (g.n_players, 1))
    m = fresh_memory(g) if memory is None else memory
    a = int(dispatch.choose(strategy_id(name), g.board, g.state, m, buf, n, params))
    assert a in g.legal_actions(), f"{name} chose an illegal action {a}"
    return a


# ---- bad-file catalogues ----


def expected(path: Path, cwd: Path) -> str:
    """The message the first line of ``path`` expects."""
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name}: first line must be '# expect: MESSAGE'"
    return first[len("# expect: "):].replace("{here}", str(path.parent)).replace("{cwd}", str(cwd))


def snapshot(root: Path):
    """Every path under ``root`` with its size."""
    return sorted((str(p.relative_to(root)), p.stat().st_size) for p in root.rglob("*"))


# ---- results folders ----
PASSENGER_COLOURS = ("black", "blue", "green", "red", "white", "yellow")
_TB = {"tickets": "tickets_completed", "longest_path": "longest_path", "passengers": "passengers",
       "stations": "stations_used", "longest_bonus": "longest_bonus", "stations_built": "stations_built"}


def game(totals, *, point=0, end="normal", turns=100, winners=None, **seat_columns):
    """One game: ``totals`` per seat; any players column as a per-seat list
    (e.g. ``tickets_completed=[2, 1]``, ``passengers_red=[3, 0]``)."""
    return {"totals": list(totals), "point": point, "end": end, "turns": turns, "winners": winners,
            "cols": seat_columns}


def rotations(n):
    """The ``rotate`` seatings of a line-up of n: seating k puts entry i in seat (i + k) % n."""
    out = []
    for k in range(n):
        seats = [0] * n
        for i in range(n):
            seats[(i + k) % n] = i
        out.append(seats)
    return out


def _winners(rows, tiebreaks):
    keys = [tuple([r["total"]] + [-r.get(_TB[t], 0) if t in ("stations", "stations_built") else r.get(_TB[t], 0) for t in tiebreaks])
            for r in rows]
    best = max(keys)
    return [i for i, k in enumerate(keys) if k == best]


def make_results(path, *, labels=("A", "B"), games=(), rules="usa", seatings=None, tickets=(), turns=(),
                 sweep=(), point_overrides=None, rule_overrides=None, status="complete", chunk_games=None,
                 log=None, with_turns_table=None, seating="rotate", strategies=None, intervene=None):
    """Write a results folder at ``path`` and return it.

    ``games``: :func:`game` dicts; their order within a point gives the game
    number n (block n // block_size, seating n % block_size).
    ``tickets``: dicts with ``g`` (index into ``games``), seat, ticket, and
    optionally setup (default True), turn, kept (True), completed (False when
    kept), completed_turn (None), points (the map's).
    ``turns``: dicts with ``g``, turn, seat, action ('claim', 'cards', ...), route.
    ``sweep``: [(key, [values])]; ``point_overrides``: per point rule overrides.
    ``seating``: the design named in the manifest (``seatings`` gives its seatings);
    ``strategies``: the strategy of each label (default: the label), so two labels
    can be one strategy; ``intervene``: the manifest's intervention record
    (``ttrsim.experiment.intervene.arms``), whose arms are the
    values of the sweep key ``arm``.
    """
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    labels = list(labels)
    seatings = [list(s) for s in (seatings or rotations(len(labels)))]
    players = len(seatings[0])
    block = len(seatings)
    n_points = max([g["point"] for g in games] + [0]) + 1
    ro_all = [dict(rule_overrides or {}, **((point_overrides or {}).get(p, {}))) for p in range(n_points)]
    rulesets = [get_rules(rules, ro) for ro in ro_all]
    m = load_map(rulesets[0].map)
    # game numbers per point
    nums, counters = [], [0] * n_points
    for g in games:
        nums.append(counters[g["point"]])
        counters[g["point"]] += 1
    per_point = max(counters + [1])
    stride = -(-per_point // block) * block
    ids = [g["point"] * stride + n for g, n in zip(games, nums)]

    def strategies_of(n):
        return [labels[e] for e in seatings[n % block]]

    games_rows, player_rows = [], []
    for g, n, gid in zip(games, nums, ids):
        strat = strategies_of(n)
        rows = []
        for s in range(players):
            r = {"game": gid, "point": g["point"], "seat": s, "strategy": strat[s], "total": g["totals"][s]}
            for c, vals in g["cols"].items():
                r[c] = vals[s]
            rows.append(r)
        win = g["winners"] if g["winners"] is not None else _winners(rows, rulesets[g["point"]].tiebreaks)
        for s, r in enumerate(rows):
            r["winner"] = s in win
            r["win_share"] = 1.0 / len(win) if s in win else 0.0
            if "routes" not in g["cols"]:
                r["routes"] = r["total"] - sum(r.get(c, 0) for c in ("tickets_won", "longest_bonus", "globetrotter",
                                                                     "passenger_points")) + r.get("tickets_lost", 0)
        player_rows += rows
        row = {"game": gid, "point": g["point"], "block": n // block, "seating": n % block, "seed": n // block,
               "rules": rules, "players": players, "end": g["end"], "turns": g["turns"], "winners": win,
               "n_winners": len(win)}
        for s in range(5):
            row[f"strategy_{s}"] = strat[s] if s < players else None
        games_rows.append(row)

    ticket_rows = []
    for t in tickets:
        g = games[t["g"]]
        kept = t.get("kept", True)
        ticket_rows.append({"game": ids[t["g"]], "point": g["point"], "seat": t["seat"], "ticket": t["ticket"],
                            "setup": t.get("setup", t.get("turn") is None), "turn": t.get("turn"), "kept": kept,
                            "completed": t.get("completed", False) if kept else None,
                            "completed_turn": t.get("completed_turn") if kept else None,
                            "points": t.get("points", int(m.ticket_points[t["ticket"]]))})
    turn_rows = [{"game": ids[t["g"]], "point": games[t["g"]]["point"], "turn": t["turn"], "seat": t["seat"],
                  "action": t.get("action", "claim"), "route": t.get("route")} for t in turns]
    log = bool(turns) if log is None else log
    with_turns_table = log if with_turns_table is None else with_turns_table

    tables = {"games": games_rows, "players": player_rows, "tickets": ticket_rows}
    if with_turns_table:
        tables["turns"] = turn_rows
    chunk_games = chunk_games or stride
    chunks = {}
    for p in range(n_points):
        for index, lo in enumerate(range(0, counters[p], chunk_games)):
            hi = min(lo + chunk_games, counters[p])
            key = f"{p:04d}-{index:06d}"
            chunks[key] = {"point": p, "index": index, "lo": lo, "hi": hi}
            for name, rows in tables.items():
                sel = [r for r in rows if r["point"] == p and lo <= r["game"] - p * stride < hi]
                _write(path / name / f"part-{key}.parquet", name, sel)

    dims = path / "dims"
    dims.mkdir(exist_ok=True)
    pq.write_table(routes_dim(m), dims / "routes.parquet")
    pq.write_table(tickets_dim(m), dims / "tickets.parquet")
    pq.write_table(pa.table({"strategy": labels, "name": labels, "params": ["{}"] * len(labels)}),
                   dims / "strategies.parquet")
    keys = [k for k, _ in sweep]
    grid = _grid([v for _, v in sweep]) if sweep else [()]
    points = [{"point": i, "values": dict(zip(keys, combo)), "rule_overrides": ro_all[i] if i < n_points else {},
               "entrant_params": [{} for _ in labels]} for i, combo in enumerate(grid)]
    pq.write_table(pa.table({"point": pa.array([p["point"] for p in points], pa.uint16()),
                             "values": [json.dumps(p["values"], sort_keys=True) for p in points],
                             "rule_overrides": [json.dumps(p["rule_overrides"], sort_keys=True) for p in points],
                             "strategy_params": ["[]"] * len(points)}), dims / "points.parquet")
    manifest = {
        "format": 1, "experiment": "<dict>", "description": "hand-built",
        "config": {"name": path.name, "rules": rules, "map": None, "rule_overrides": dict(rule_overrides or {}),
                   "players": players, "seating": seating,
                   "entrants": [{"label": x, "strategy": y, "params": {}}
                                for x, y in zip(labels, strategies or labels)],
                   "seatings": seatings, "games": stride, "stop": None, "seed": 0,
                   "sweep": [[k, list(v)] for k, v in sweep], "log": log, "points": points,
                   **({"intervene": intervene} if intervene else {})},
        "execution": {}, "versions": {},
        "layout": {"block_size": block, "chunk_games": chunk_games, "stride": stride, "games_per_point": stride,
                   "tables": list(tables)},
        "status": status, "chunks": chunks,
    }
    (path / "manifest.json").write_text(json.dumps(manifest, indent=1))
    (path / "map.json").write_text(json.dumps(map_to_json(m)))
    rules_points = [{"point": p["point"], **rule_set_to_json(get_rules(rules, p["rule_overrides"]))} for p in points]
    (path / "rules.json").write_text(json.dumps({"points": rules_points}))
    return path


def _grid(lists):
    return list(itertools.product(*lists))


def _write(file: Path, name: str, rows: list[dict]):
    schema = SCHEMAS[name]
    cols = {}
    for f in schema:
        vals = [r.get(f.name, _default(f)) for r in rows]
        if pa.types.is_dictionary(f.type):
            cols[f.name] = pa.array(vals, pa.string()).dictionary_encode().cast(f.type)
        else:
            cols[f.name] = pa.array(vals, f.type)
    file.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(cols, schema=schema), file)


def _default(f):
    if pa.types.is_dictionary(f.type) or f.name in ("route", "turn", "completed_turn", "tunnel_extra",
                                                      "tunnel_paid", "station"):
        return None
    if pa.types.is_boolean(f.type):
        return False
    if pa.types.is_floating(f.type):
        return 0.0
    if pa.types.is_list(f.type):
        return []
    return 0


__all__ = ["game", "make_results", "rotations", "PASSENGER_COLOURS"]


# --------------------------------------------------------------------------- a results folder's tables
# the order the tables are compared in: by game, then seat or turn
SORT = {"games": ["game"], "players": ["game", "seat"], "tickets": ["game"], "turns": ["game", "turn"]}


def tables(path, names=("games", "players", "tickets", "turns")):
    out = {}
    for n in names:
        files = sorted((Path(path) / n).glob("*.parquet"))
        if not files and not (Path(path) / n).exists():
            continue
        out[n] = pl.concat([pl.read_parquet(f) for f in files]).sort(SORT[n], maintain_order=True)
    return out


def assert_same_tables(a, b):
    ta, tb = tables(a), tables(b)
    for n in ta:
        assert ta[n].equals(tb[n]), n


def benchmark_script(name):
    """``benchmarks/<name>.py`` loaded as a module (the benchmarks are
    scripts, not package modules)."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
