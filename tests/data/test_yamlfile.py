"""The one YAML loader (ttrsim.data.yamlfile) and the shared checks
(ttrsim.data.checks): duplicate keys, the alias budget, the nesting limit,
one-line messages naming source and line. The catalogues of bad experiments
and bad maps use it through their loaders; this file checks its edges."""
import time

import pytest
from click.testing import CliRunner

import ttrsim.data.yamlfile
from ttrsim.cli import main
from ttrsim.data.yamlfile import MAX_DEPTH, MAX_REPEATED, YamlError, YamlMapping, parse_yaml, read_yaml
from ttrsim.experiment.config import load_experiment

# A bound against a hang, not a speed test: each refusal takes milliseconds with
# any PyYAML 6.x (libyaml's composer would crash the interpreter on the deep texts,
# PyYAML's pure-Python parser would take hours), so 10 s is only ever passed by a
# loader that has started reading them the slow way.
HANG = 10.0


def parse(text, **kw):
    return parse_yaml(text, source="t.yaml", expected="a test value", **kw)


def refused(text, **kw) -> str:
    with pytest.raises(YamlError) as e:
        parse(text, **kw)
    assert "\n" not in str(e.value)
    return str(e.value)


def bomb(levels=9) -> str:
    """A flow-style billion laughs: ``levels`` lists of 9 aliases each."""
    parts = ["&a [" + ", ".join(["1"] * 9) + "]"]
    names = "abcdefghijklmnop"
    for p, c in zip(names, names[1:levels]):
        parts.append(f"&{c} [" + ", ".join([f"*{p}"] * 9) + "]")
    return "[" + ", ".join(parts) + "]"


def test_duplicate_keys_are_refused_or_kept():
    assert refused("a: 1\nb:\n  c: 1\n  c: 2\n") == \
        "t.yaml: line 4: duplicate key 'c' (first at line 3); expected each key once"
    doc = parse("a: 1\na: 2\nb: {c: 1, c: 2, d: 3}\n", keep_duplicates=True)
    assert isinstance(doc, YamlMapping) and doc == {"a": 2, "b": {"c": 2, "d": 3}}
    assert doc.duplicates == ["a"] and doc["b"].duplicates == ["c"]
    assert type(parse("a: {b: 1}")["a"]) is dict       # plain dicts unless duplicates are kept


def test_merge_keys_and_small_aliases_are_fine():
    doc = parse("base: &b {x: 1, y: 2}\none: {<<: *b, x: 3}\ntwo: *b\n")
    assert doc == {"base": {"x": 1, "y": 2}, "one": {"x": 3, "y": 2}, "two": {"x": 1, "y": 2}}


def test_the_alias_budget_counts_every_repeated_value():
    anchor = "a: &a [" + ", ".join(["1"] * (MAX_REPEATED - 1)) + "]\n"    # the list and its items
    assert len(parse(anchor + "b: *a\n")["b"]) == MAX_REPEATED - 1
    assert refused(anchor + "b: *a\nc: *a\n") == (f"t.yaml: line 3: the alias *a makes aliases repeat more than "
                                                  f"{MAX_REPEATED} values; expected at most {MAX_REPEATED}")


def test_a_billion_laughs_is_refused_at_once():
    start = time.perf_counter()
    assert refused(bomb()).startswith("t.yaml: line 1: the alias *c makes aliases repeat more than")
    assert time.perf_counter() - start < HANG       # expanded, 9**9 values would take hours


def test_an_alias_inside_its_own_anchor_is_refused():
    assert refused("a: &x {b: *x}\n") == ("t.yaml: line 1: the alias *x is inside its own anchor &x; expected an "
                                          "alias of a value defined before it")


def test_nesting_is_limited():
    doc, depth = parse("[" * MAX_DEPTH + "]" * MAX_DEPTH), 0
    while isinstance(doc, list):
        doc, depth = doc[0] if doc else None, depth + 1
    assert depth == MAX_DEPTH
    assert refused("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)) == \
        f"t.yaml: line 1: lists and mappings nested more than {MAX_DEPTH} deep; expected at most {MAX_DEPTH}"


@pytest.mark.parametrize("text", [
    "a: " + "[" * 200_000,                                   # libyaml >= 0.2.5 refuses it itself (depth 1000)
    "[" * 200_000 + "]" * 200_000,
    "a: " + "{b: " * 100_000,
    "a: " + "[" * 5_000 + "x: : ]",                           # malformed as well as deep
    "".join(" " * i + f"k{i}:\n" for i in range(2_000)),     # block mappings, 2 million characters
], ids=["open flow", "closed flow", "flow mappings", "malformed", "block"])
def test_deep_nesting_is_refused_without_reading_it_slowly(text):
    start = time.perf_counter()
    assert refused(text).endswith(f"lists and mappings nested more than {MAX_DEPTH} deep; expected at most "
                                  f"{MAX_DEPTH}")
    assert time.perf_counter() - start < HANG


def test_the_better_message_is_read_only_from_short_texts(monkeypatch):
    """PyYAML's pure-Python parser names the token it found, libyaml does not; it
    reads only the lines up to libyaml's error, and only when they are short."""
    text = "a: [1, 2\nb: 3\n"
    assert "but got ':'" in refused(text)
    monkeypatch.setattr(ttrsim.data.yamlfile, "_FALLBACK_CHARS", len("a: [1, 2\n") - 1)
    assert refused(text) == ("t.yaml: line 2: malformed YAML (did not find expected ',' or ']'; while parsing a "
                             "flow sequence at line 1, column 4); expected a test value")


@pytest.mark.parametrize("text, message", [
    ("? [1, 2]\n: 3\n", "line 1: a key is a list; expected keys that are plain values (text, numbers)"),
    ("a: [1, 2\nb: 3\n", "line 2: malformed YAML (expected ',' or ']', but got ':'; while parsing a flow sequence "
                         "at line 1, column 4); expected a test value"),
    ("a: *nope\n", "line 1: malformed YAML (found undefined alias 'nope'); expected a test value"),
    ("a: !!python/object:os.system x\n", "line 1: malformed YAML (could not determine a constructor for the tag "
                                         "'tag:yaml.org,2002:python/object:os.system'); expected a test value"),
])
def test_one_line_messages(text, message):
    assert refused(text) == f"t.yaml: {message}"


def test_file_problems(tmp_path):
    with pytest.raises(YamlError, match=r"^nope\.yaml: \(file\): not found at .*nope\.yaml; expected a test file$"):
        read_yaml(tmp_path / "nope.yaml", what="a test file", expected="x")
    (tmp_path / "latin.yaml").write_bytes("name: Sa\xefd\n".encode("latin-1"))
    with pytest.raises(YamlError, match=r"^latin\.yaml: \(file\): not UTF-8 text \(byte 8\); expected a test file "
                                        r"in UTF-8$"):
        read_yaml(tmp_path / "latin.yaml", what="a test file", expected="x")
    (tmp_path / "folder.yaml").mkdir()
    with pytest.raises(YamlError, match=r"^folder\.yaml: \(file\): cannot be read \(Is a directory\)"):
        read_yaml(tmp_path / "folder.yaml", what="a test file", expected="x")


def test_an_experiment_may_use_anchors(tmp_path):
    f = tmp_path / "e.yaml"
    f.write_text("name: anchors\nplayers: 2\ngames: 2\noutput: out\n"
                 "lineup:\n  - &p {strategy: planner, params: {keep_margin: 3}}\n  - *p\n")
    e = load_experiment(f)
    assert [x.params for x in e.entrants] == [{"keep_margin": 3.0}] * 2
    assert [x.label for x in e.entrants] == ["planner", "planner-2"]


def test_cli_set_values_use_the_loader(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    r = CliRunner().invoke(main, ["play", "--set", f"ticket_decks={bomb()}"])
    assert time.perf_counter() - start < HANG       # a guard against a hang: the bomb expanded would take hours
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit)           # a bad --set is a usage error
    line = r.output.splitlines()[-1]
    assert line.startswith("Error: Invalid value for '--set': 'ticket_decks=[&a [1,") and \
        line.endswith("': line 1: the alias *c makes aliases repeat more than 1000 values; expected at most 1000")
    r = CliRunner().invoke(main, ["play", "--set", "trains=[1"])
    assert r.exit_code == 2
    assert r.output.strip().splitlines()[-1] == (
        "Error: Invalid value for '--set': 'trains=[1': line 1: malformed YAML (expected ',' or ']', but got "
        "'<stream end>'; while parsing a flow sequence at line 1, column 1); expected a value such as 15, true or "
        "[a, b]")
    assert list(tmp_path.iterdir()) == []
