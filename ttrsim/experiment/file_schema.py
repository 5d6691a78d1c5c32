"""The JSON Schema (draft 2020-12) of an experiment file, for editors
(``ttrsim schema --experiment``; docs/experiments.md shows the one-line
``# yaml-language-server: $schema=...`` comment that makes VS Code and other
YAML editors complete and check a file with it).

It is generated from the definitions the checks use: the keys and their
one-line descriptions (:data:`~ttrsim.experiment.schema.KEYS`, the entrant
and stop keys), the limits of :mod:`~ttrsim.experiment.schema` (players,
seed, workers, chunk size, seconds, the name and label patterns), the
seatings, the presets and every rule parameter with its range
(:data:`ttrsim.data.rules.PARAMS`), the packaged maps, and every built-in
strategy with its parameters, their types and ranges
(``ttrsim.strategies.REGISTRY``). The schema is looser than the checks: a
map file that exists, a Python class that imports, a sweep over the labels
at the table, a rule set that deals every seat, an output folder that can
be written are for the validator alone (``ttrsim run`` still refuses a bad
file in one line).

>>> s = experiment_schema()
>>> s["$schema"], s["properties"]["players"]["minimum"], s["properties"]["players"]["maximum"]
('https://json-schema.org/draft/2020-12/schema', 2, 5)
>>> "germany" in s["properties"]["rules"]["enum"], "planner" in s["$defs"]["strategy"]["enum"]
(True, True)
"""
from __future__ import annotations

from ttrsim.data.maps import MAX_ROUTE_LENGTH, available_maps
from ttrsim.data.rules import (
    MAX_STATION_COST,
    PARAMS,
    RETURN_MODES,
    SETUP_RETURN_MODES,
    TIEBREAK_NAMES,
    preset_names,
)

from .schema import (
    BACKENDS,
    CHUNK_RANGE,
    DEFAULT_CHUNK,
    DEFAULT_MIN_GAMES,
    DEFAULT_TIME_LIMIT,
    DEFAULT_WORKER_TIMEOUT,
    ENTRANT_KEYS,
    KEYS,
    LABEL_PATTERN,
    MAX_SECONDS,
    NAME_PATTERN,
    PLAYERS_RANGE,
    SEED_RANGE,
    STOP_KEYS,
    WORKERS_RANGE,
)
from .seating import SEATINGS
from .validator import NAME_MAX

__all__ = ["experiment_schema", "DRAFT"]

DRAFT = "https://json-schema.org/draft/2020-12/schema"
PYTHON_PATTERN = r"^[^:]+:[^:]+$"          # module:Class (ttrsim.play.pyplay.load_strategy_class)


def _rule_value(p) -> dict:
    """The values rule parameter ``p`` takes (as ``ttrsim.data.rules`` checks them)."""
    if isinstance(p.default, bool):
        out = {"type": "boolean"}
    elif isinstance(p.default, int):
        out = {"type": "integer", "minimum": p.lo, "maximum": p.hi}
    elif p.name == "setup_return":
        out = {"enum": list(SETUP_RETURN_MODES)}
    elif p.name == "draw_return":
        out = {"enum": list(RETURN_MODES)}
    elif p.name in ("long_deck", "offer_ticket"):
        out = {"type": "string"}
    elif p.name in ("remove_routes", "change_routes"):
        label = {"type": "string", "minLength": 1}
        out = {"anyOf": [label, {"type": "array", "items": label}]}
    elif p.name == "map":
        out = {"type": "string", "minLength": 1, "examples": available_maps()}
    elif p.name == "station_costs":
        out = {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 1,
                                                         "maximum": MAX_STATION_COST}}
    elif p.name == "ticket_decks":
        out = {"anyOf": [{"type": "string"},
                         {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string"}}]}
    elif p.name == "tiebreaks":
        out = {"type": "array", "maxItems": 3, "uniqueItems": True, "items": {"enum": list(TIEBREAK_NAMES)}}
    elif p.name == "scoring":
        out = {"anyOf": [{"type": "null"},
                         {"type": "object", "minProperties": 1,
                          "propertyNames": {"pattern": _lengths_pattern()},
                          "additionalProperties": {"type": "integer"}}]}
    else:                                    # a new kind of parameter: give it its schema here
        raise AssertionError(f"rule parameter '{p.name}' has no JSON Schema")
    return {"description": f"{p.doc} ({p.rule})", **out}


def _lengths_pattern() -> str:
    """Route lengths 1..MAX_ROUTE_LENGTH as text (the keys of a scoring table)."""
    return "^(" + "|".join(str(n) for n in range(MAX_ROUTE_LENGTH, 0, -1)) + ")$"


def _strategy_param(p) -> dict:
    """The values strategy parameter ``p`` takes (``ttrsim.strategies.spec.Param.problem``)."""
    if p.kind == "bool":
        return {"description": p.doc, "default": bool(p.default),
                "anyOf": [{"type": "boolean"}, {"enum": [0, 1]}]}
    out = {"description": f"{p.doc} ({p.interval()})", "type": "integer" if p.kind == "int" else "number",
           "default": int(p.default) if p.kind == "int" else p.default}
    out["exclusiveMinimum" if p.open_lo else "minimum"] = p.lo
    out["exclusiveMaximum" if p.open_hi else "maximum"] = p.hi
    return out


def _entrant(registry) -> dict:
    """A strategy at the table: a name, ``{strategy, params, label}`` or ``{python, params, label}``."""
    label = {"type": "string", "pattern": LABEL_PATTERN,
             "description": "names it in the tables and the summary (default: the strategy's name)"}
    params_file = {"type": "string", "description": "a YAML file of parameters, such as a tune's best.yaml"}
    by_strategy = [{"if": {"properties": {"strategy": {"const": name}}, "required": ["strategy"]},
                    "then": {"properties": {"params": {"anyOf": [
                        {"type": "object", "additionalProperties": False,
                         "properties": {p.name: _strategy_param(p) for p in spec.params}},
                        params_file, {"type": "null"}]}}}}
                   for name, spec in registry.items()]
    keys = dict.fromkeys(ENTRANT_KEYS)
    built_in = {"type": "object", "required": ["strategy"], "additionalProperties": False,
                "properties": {"strategy": {"$ref": "#/$defs/strategy"},
                               "params": {"description": "parameter overrides {parameter: number}, or a file"},
                               "label": label},
                "allOf": by_strategy}
    python = {"type": "object", "required": ["python"], "additionalProperties": False,
              "properties": {"python": {"type": "string", "pattern": PYTHON_PATTERN,
                                        "description": "a Python strategy class, module:Class"},
                             "params": {"type": ["object", "null"], "description": "constructor arguments"},
                             "label": label}}
    assert set(built_in["properties"]) | set(python["properties"]) == set(keys), keys
    return {"anyOf": [{"$ref": "#/$defs/strategy"}, built_in, python]}


def experiment_schema() -> dict:
    """The JSON Schema of an experiment file (a dict, JSON-able)."""
    from ttrsim.strategies import REGISTRY, STYLES

    rules = {p.name: _rule_value(p) for p in PARAMS}
    seconds = {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_SECONDS}
    strategies = {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/entrant"}}
    count = {"type": "integer", "minimum": 1}
    refit_entry = {"type": "object", "required": ["label", "fit", "budget"], "additionalProperties": False,
                   "description": "a strategy tune at every sweep point (docs/tune.md: its keys)",
                   "properties": {"label": {"type": "string", "pattern": LABEL_PATTERN},
                                  "fit": {"type": "object", "minProperties": 1,
                                          "additionalProperties": {"type": "array", "minItems": 2, "maxItems": 2}},
                                  "budget": count, "candidates": count, "stages": count, "final_games": count,
                                  "margin": {"type": "number", "minimum": 0}}}
    props = {
        "name": {"type": "string", "pattern": NAME_PATTERN, "maxLength": NAME_MAX},
        "description": {"type": ["string", "null"]},
        "rules": {"enum": preset_names(), "default": "usa"},
        "map": {"type": "string", "minLength": 1, "examples": available_maps()},
        "rule_overrides": {"type": ["object", "null"], "additionalProperties": False, "properties": rules},
        "players": {"type": "integer", "minimum": PLAYERS_RANGE[0], "maximum": PLAYERS_RANGE[1]},
        "seating": {"enum": list(SEATINGS), "default": SEATINGS[0]},
        "lineup": strategies,
        "pool": strategies,
        "games": {"type": "integer", "minimum": 1},
        "stop": {"type": "object", "required": ["strategy", "width", "max_games"], "additionalProperties": False,
                 "properties": {"strategy": {"type": "string", "description": "the label whose win rate decides"},
                                "width": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
                                          "description": "the width of the 95% interval to reach, e.g. 0.02"},
                                "min_games": {"type": "integer", "minimum": 1, "default": DEFAULT_MIN_GAMES},
                                "max_games": {"type": "integer", "minimum": 1}}},
        "seed": {"type": "integer", "minimum": SEED_RANGE[0], "maximum": SEED_RANGE[1], "default": 0},
        "sweep": {"type": ["object", "null"],
                  "propertyNames": {"anyOf": [{"enum": [f"rules.{p}" for p in rules if p != "map"]},
                                              {"pattern": r"^strategies\." + LABEL_PATTERN[1:-1] + r"\.[A-Za-z0-9_]+$"}]},
                  "properties": {f"rules.{p}": {"type": "array", "minItems": 1, "items": v}
                                 for p, v in rules.items() if p != "map"},
                  "additionalProperties": {"type": "array", "minItems": 1}},
        "styles": {"type": ["array", "null"], "minItems": 1, "uniqueItems": True, "items": {"enum": list(STYLES)}},
        "intervene": {"type": ["object", "null"], "minProperties": 1,
                      "properties": {"offer_ticket": {"anyOf": [{"const": "all"}, {"type": "array", "minItems": 1,
                                                                                    "items": {"type": "string"}}],
                                                      "description": "tickets 'From-To' offered at setup, or all"},
                                     "seat": {"type": "integer", "minimum": 0, "maximum": PLAYERS_RANGE[1] - 1,
                                              "default": 0, "description": "the seat offered the ticket (0 = first)"},
                                     "kept": {"type": "boolean", "default": False,
                                              "description": "the seat must keep the offered ticket"},
                                     "change_route": {"type": "array", "minItems": 1, "items": {"type": "string"},
                                                      "description": "'ROUTE -> LENGTH COLOUR', each changed in an "
                                                                     "arm"},
                                     "remove_route": {"type": "array", "minItems": 1, "items": {"type": "string"},
                                                      "description": "route labels, each removed in an arm"}},
                      "additionalProperties": {"type": "array", "minItems": 1}},
        "refit": {"anyOf": [refit_entry, {"type": "array", "minItems": 1, "items": refit_entry}, {"type": "null"}]},
        "log": {"type": "boolean", "default": False},
        "workers": {"anyOf": [{"type": "integer", "minimum": WORKERS_RANGE[0], "maximum": WORKERS_RANGE[1]},
                              {"enum": ["auto", None]}]},
        "chunk_size": {"type": "integer", "minimum": CHUNK_RANGE[0], "maximum": CHUNK_RANGE[1],
                       "default": DEFAULT_CHUNK},
        "backend": {"enum": [*BACKENDS, None], "default": BACKENDS[0]},
        "scheduler": {"type": ["string", "null"], "pattern": "://", "examples": ["tcp://HOST:8786"]},
        "output": {"type": "string", "minLength": 1, "examples": ["results/mine", "s3://BUCKET/FOLDER"]},
        "python_time_limit": {**seconds, "default": DEFAULT_TIME_LIMIT},
        "worker_timeout": {**seconds, "default": DEFAULT_WORKER_TIMEOUT},
        "cache_dir": {"type": ["string", "null"], "minLength": 1, "examples": ["/shared/numba"]},
        "storage_options": {"type": ["object", "null"], "examples": [{"endpoint_url": "http://127.0.0.1:9000"}]},
    }
    assert set(props) == set(KEYS) and set(props["stop"]["properties"]) == set(STOP_KEYS)
    return {
        "$schema": DRAFT,
        "title": "ttrsim experiment",
        "description": "An experiment file of ttrsim run (docs/experiments.md); ttrsim run checks it further.",
        "type": "object",
        "additionalProperties": False,
        "required": ["name", "players"],
        "allOf": [{"anyOf": [{"required": ["games"]}, {"required": ["stop"]}]},
                  {"anyOf": [{"required": ["lineup"]}, {"required": ["pool"]}]}],
        "properties": {k: {"description": KEYS[k], **props[k]} for k in KEYS},
        "$defs": {"strategy": {"enum": list(REGISTRY), "description": "a built-in strategy (ttrsim strategies)"},
                  "entrant": _entrant(REGISTRY)},
    }
