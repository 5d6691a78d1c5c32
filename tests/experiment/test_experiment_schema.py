"""The JSON Schema of an experiment file (``ttrsim schema --experiment``,
issue 35): generated from the validator's own definitions, it accepts every
shipped example of experiments/ and refuses what an editor can see (an
unknown key, strategy, preset or parameter, a value out of its range); the
bad files it lets through (a missing map file or Python module, a rule set
that cannot deal, an output outside the folder, ...) are still refused by
ttrsim's own checks (``ttrsim run``), which alone decide (tests/experiment/test_experiment_bad.py
checks every file's message). A small validator here reads exactly the
keywords the schema uses (checked: an unknown keyword fails the test), so no
``jsonschema`` package is needed."""
import json
import math
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ttrsim.cli import main
from ttrsim.data.rules import PARAMS, preset_names
from ttrsim.data.yamlfile import YamlError, read_yaml
from ttrsim.experiment.config import ExperimentError, load_experiment
from ttrsim.experiment.file_schema import DRAFT, experiment_schema
from ttrsim.experiment.runner import run_experiment
from ttrsim.experiment.schema import KEYS
from ttrsim.strategies import REGISTRY

from helpers import expected

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = [f for f in sorted((ROOT / "experiments").glob("*.yaml")) if not f.stem.startswith("tune_")]
BAD = sorted((ROOT / "tests" / "fixtures" / "bad_experiments").glob("*.yaml"))
SCHEMA = experiment_schema()

# --------------------------------------------------------------------------- a validator of the schema's subset

ANNOTATIONS = {"$schema", "title", "description", "default", "examples"}
KEYWORDS = {"$ref", "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
            "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "items", "properties",
            "required", "additionalProperties", "propertyNames", "minProperties", "anyOf", "allOf", "if", "then",
            "$defs"} | ANNOTATIONS
TYPES = {"null": lambda v: v is None, "boolean": lambda v: isinstance(v, bool),
         "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
                              or (isinstance(v, float) and v.is_integer()),
         "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
         "string": lambda v: isinstance(v, str), "array": lambda v: isinstance(v, list),
         "object": lambda v: isinstance(v, dict)}


def keywords(schema) -> set:
    """Every keyword used anywhere in ``schema``."""
    if isinstance(schema, list):
        return set().union(*map(keywords, schema)) if schema else set()
    if not isinstance(schema, dict):
        return set()
    out = set(schema)
    for k, v in schema.items():
        if k in ("properties", "$defs"):
            out |= set().union(*map(keywords, v.values())) if v else set()
        elif k not in ANNOTATIONS | {"enum", "const", "required"}:
            out |= keywords(v)
    return out


def same(a, b) -> bool:
    """JSON equality (1 == 1.0, but true is not 1)."""
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


def errors(value, schema, root=SCHEMA, where="") -> list[str]:
    """Why ``value`` does not match ``schema`` (empty: it does), for the keywords of KEYWORDS."""
    out = []
    if "$ref" in schema:
        node = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        out += errors(value, node, root, where)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](value) for t in types):
            return out + [f"{where}: not {types}"]
    if "enum" in schema and not any(same(value, e) for e in schema["enum"]):
        out.append(f"{where}: {value!r} not in the enum")
    if "const" in schema and not same(value, schema["const"]):
        out.append(f"{where}: not {schema['const']!r}")
    if TYPES["number"](value):
        for key, bad in (("minimum", lambda v, b: v < b), ("maximum", lambda v, b: v > b),
                         ("exclusiveMinimum", lambda v, b: v <= b), ("exclusiveMaximum", lambda v, b: v >= b)):
            if key in schema and ((isinstance(value, float) and not math.isfinite(value)) or bad(value, schema[key])):
                out.append(f"{where}: {value} breaks {key} {schema[key]}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", math.inf):
            out.append(f"{where}: length {len(value)}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{where}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", math.inf):
            out.append(f"{where}: {len(value)} items")
        if schema.get("uniqueItems") and len({json.dumps(v, sort_keys=True) for v in value}) < len(value):
            out.append(f"{where}: items repeat")
        if "items" in schema:
            for i, v in enumerate(value):
                out += errors(v, schema["items"], root, f"{where}[{i}]")
    if isinstance(value, dict):
        keys = {str(k): v for k, v in value.items()}          # JSON keys are text (a YAML 6: 15 too)
        out += [f"{where}: {k} missing" for k in schema.get("required", []) if k not in keys]
        if len(keys) < schema.get("minProperties", 0):
            out.append(f"{where}: too few keys")
        props = schema.get("properties", {})
        for k, v in keys.items():
            if "propertyNames" in schema:
                out += errors(k, schema["propertyNames"], root, f"{where}.{k} (key)")
            if k in props:
                out += errors(v, props[k], root, f"{where}.{k}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{where}.{k}: not allowed")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += errors(v, schema["additionalProperties"], root, f"{where}.{k}")
    for sub in schema.get("allOf", []):
        out += errors(value, sub, root, where)
    if "anyOf" in schema and all(errors(value, sub, root, where) for sub in schema["anyOf"]):
        out.append(f"{where}: matches none of anyOf")
    if "if" in schema and not errors(value, schema["if"], root, where):
        out += errors(value, schema.get("then", {}), root, where)
    return out


def test_the_schema_uses_only_the_keywords_this_validator_reads():
    assert keywords(SCHEMA) <= KEYWORDS, keywords(SCHEMA) - KEYWORDS
    assert SCHEMA["$schema"] == DRAFT == "https://json-schema.org/draft/2020-12/schema"
    json.dumps(SCHEMA)                                               # JSON as it is


def test_the_schema_comes_from_the_validators_definitions():
    props = SCHEMA["properties"]
    assert list(props) == list(KEYS) and all(props[k]["description"] == KEYS[k] for k in KEYS)
    assert props["rules"]["enum"] == preset_names()
    assert SCHEMA["$defs"]["strategy"]["enum"] == list(REGISTRY)
    assert set(props["rule_overrides"]["properties"]) == {p.name for p in PARAMS}
    planner = next(s["then"]["properties"]["params"]["anyOf"][0]["properties"]
                   for s in SCHEMA["$defs"]["entrant"]["anyOf"][1]["allOf"]
                   if s["if"]["properties"]["strategy"]["const"] == "planner")
    assert set(planner) == {p.name for p in REGISTRY["planner"].params}


@pytest.mark.parametrize("path", EXAMPLES, ids=[f.stem for f in EXAMPLES])
def test_every_shipped_example_matches_the_schema(path):
    assert errors(read_yaml(path, what="an experiment", expected="a mapping"), SCHEMA) == []


def base(**kw):
    d = {"name": "x", "players": 2, "lineup": ["random", {"strategy": "search", "params": {"budget": 10}}],
         "games": 10}
    d.update(kw)
    return {k: v for k, v in d.items() if v is not None}


@pytest.mark.parametrize("doc", [
    base(plyers=2), base(players=6), base(players=True), base(rules="usa-2"), base(games=0), base(games=None),
    base(lineup=None), base(lineup=[]), base(lineup=["randon"]), base(seating="rotated"), base(seed=-1),
    base(lineup=[{"strategy": "planner", "params": {"budgett": 1}}, "random"]),
    base(lineup=[{"strategy": "search", "params": {"budget": 0}}, "random"]),
    base(lineup=[{"strategy": "random", "label": "a.b"}, "random"]), base(lineup=[{"python": "mod"}, "random"]),
    base(lineup=[{"strategy": "random", "python": "m:C"}, "random"]),
    base(rule_overrides={"trains": 0}), base(rule_overrides={"setup_return": "top"}), base(rule_overrides={"x": 1}),
    base(sweep={"rules.trainz": [1]}), base(sweep={"rules.trains": []}), base(sweep={"rules.map": ["usa"]}),
    base(stop={"strategy": "random", "width": 1.5, "max_games": 10}, games=None),
    base(workers=0), base(backend="slurm"), base(python_time_limit=0), base(log="yes"), base(name="a b"),
], ids=lambda d: next((f"{k}={d[k]}" for k in d if k not in base() or d[k] != base()[k]),
                      "-".join(sorted(set(base()) - set(d)))))
def test_the_schema_refuses_what_an_editor_can_see_and_so_does_the_validator(doc, tmp_path, monkeypatch):
    assert errors(doc, SCHEMA) != []
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ExperimentError):
        load_experiment(doc)


def test_a_good_file_with_every_kind_of_value_matches():
    doc = base(description=None, rules="germany", rule_overrides={"scoring": {6: 18}, "tiebreaks": ["tickets"],
                                                                   "ticket_decks": "short"},
               seating="permute", seed=3, log=True, workers="auto", chunk_size=100, backend="dask",
               scheduler="tcp://h:8786", cache_dir="/shared/numba", python_time_limit=2.5,
               sweep={"rules.trains": [40, 45], "strategies.s.budget": [5]},
               lineup=["random", {"strategy": "search", "params": {"budget": 10.0, "keeps": True}, "label": "s"}])
    assert errors(doc, SCHEMA) == []
    assert errors(base(lineup=[{"python": "mod:Cls", "params": {"depth": "any"}}, "random"]), SCHEMA) == []


def readable(path):
    try:
        return read_yaml(path, what="an experiment", expected="a mapping")
    except YamlError:
        return None


@pytest.mark.parametrize("path", [f for f in BAD if not errors(readable(f) or {}, SCHEMA) and readable(f)],
                         ids=lambda f: f.stem)
def test_bad_files_the_schema_lets_through_are_refused_by_the_validator(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "occupied").mkdir()
    (tmp_path / "occupied" / "notes.txt").write_text("not results")
    with pytest.raises(ExperimentError) as e:
        run_experiment(path, progress=False, echo=False)
    assert str(e.value) == expected(path, tmp_path)


def test_the_schema_refuses_most_bad_files():
    """Of the bad files that are YAML mappings, the schema alone refuses these kinds."""
    refused = {f.stem for f in BAD if readable(f) is not None and errors(readable(f), SCHEMA)}
    for kind in ("unknown_key", "unknown_rules", "unknown_strategy", "unknown_strategy_parameter",
                 "unknown_rule_parameter", "players_type", "games_zero", "games_negative", "param_budget_negative",
                 "param_budget_zero", "param_budget_fraction", "param_keep_factor_negative", "param_number_as_bool"):
        assert kind in refused


# --------------------------------------------------------------------------- the command and the docs

def test_the_docs_show_the_editor_comment_on_a_file_that_matches(tmp_path, monkeypatch):
    doc = (ROOT / "docs" / "experiments.md").read_text()
    block = doc[doc.index("**In an editor.**"):]
    block = block[block.index("```yaml\n") + 8:]
    block = block[:block.index("```")]
    assert block.splitlines()[0] == "# yaml-language-server: $schema=experiment.schema.json"
    f = tmp_path / "mine.yaml"
    f.write_text(block)
    assert errors(read_yaml(f, what="an experiment", expected="a mapping"), SCHEMA) == []
    monkeypatch.chdir(tmp_path)
    assert load_experiment(f).name == "mine"
    assert "ttrsim schema --experiment > experiment.schema.json" in doc

def test_schema_experiment_prints_the_schema():
    r = CliRunner().invoke(main, ["schema", "--experiment"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output) == SCHEMA

