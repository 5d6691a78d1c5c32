"""Hand-built results folders for the report tests: a manifest, the description
files (map.json, rules.json) and Parquet part files in exactly the schema
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

import itertools
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ttrsim.data.maps import load_map
from ttrsim.data.rules import get_rules
from ttrsim.results.folder import map_to_json, routes_dim, rule_set_to_json, tickets_dim
from ttrsim.results.tables import SCHEMAS

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
