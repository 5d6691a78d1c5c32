"""The one YAML loader of ttrsim: experiment files, map files and command-line values.

It is PyYAML's safe loader (plain data only) that also refuses what plain
PyYAML lets through silently or slowly:

- a key given twice in one mapping (PyYAML keeps the last one), unless the
  caller asks to keep them for its own messages
  (``keep_duplicates``: mappings are then :class:`YamlMapping`, whose
  ``duplicates`` lists them);
- aliases (``*name``) that repeat more than :data:`MAX_REPEATED` values in all:
  a "billion laughs" file of a few lines expands to 9**9 values and would hang
  whatever reads it (a sweep grid, a message showing the value, JSON);
- an alias inside its own anchor (a value containing itself);
- collections nested more than :data:`MAX_DEPTH` levels (libyaml's composer
  crashes the interpreter at a depth of about 100,000).

Every problem raises :class:`YamlError`, one line naming the source, the line
and what was expected:

>>> parse_yaml("a: 1\\nb: [x, y]\\n", source="s.yaml", expected="a mapping")
{'a': 1, 'b': ['x', 'y']}
>>> parse_yaml("a: 1\\na: 2\\n", source="s.yaml", expected="a mapping")
Traceback (most recent call last):
...
ttrsim.data.yamlfile.YamlError: s.yaml: line 2: duplicate key 'a' (first at line 1); expected each key once
>>> bomb = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\\n" + "".join(
...     f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\\n" for p, c in zip("abcdefgh", "bcdefghi"))
>>> try:
...     parse_yaml(bomb, source="bomb.yaml", expected="a mapping")
... except YamlError as e:
...     print(e)
bomb.yaml: line 4: the alias *c makes aliases repeat more than 1000 values; expected at most 1000
"""
from __future__ import annotations

from pathlib import Path

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, SequenceNode
from yaml.resolver import Resolver

from ttrsim.data.checks import describe

try:  # libyaml's scanner and parser: several times faster on the map files
    from yaml._yaml import CParser as _Parser
    _LIBYAML = True
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Parser(Reader, Scanner, Parser):
        def __init__(self, stream):
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
    _LIBYAML = False

__all__ = ["YamlError", "YamlMapping", "read_yaml", "parse_yaml", "MAX_REPEATED", "MAX_DEPTH"]

MAX_REPEATED = 1000  # values that aliases may repeat in one document, in all
MAX_DEPTH = 100      # nested lists and mappings
_DEPTH_REFUSAL = f"lists and mappings nested more than {MAX_DEPTH} deep; expected at most {MAX_DEPTH}"
_LIBYAML_DEPTH = "exceeded maximum nesting depth"  # libyaml's own limit (1000, in PyYAML 6.0.2 and newer)
_FALLBACK_CHARS = 1_000_000  # the most text PyYAML's pure-Python parser reads for a better message
_MERGE_TAG = "tag:yaml.org,2002:merge"


class YamlError(ValueError):
    """A YAML text that cannot be used: ``'<source>: <where>: <what>'`` on one line,
    ``where`` being ``'line N'`` or ``'(file)'``."""

    def __init__(self, source: str, where: str, what: str):
        self.source, self.where, self.what = source, where, what
        super().__init__(f"{source}: {where}: {what}")


class YamlMapping(dict):
    """A mapping read with ``keep_duplicates``: ``duplicates`` lists the keys given
    again (the dict holds their last value)."""

    def __init__(self):
        super().__init__()
        self.duplicates = []


def read_yaml(path, *, what: str, expected: str, keep_duplicates: bool = False):
    """The data of the YAML file ``path``; ``what`` names the file in messages
    ('an experiment YAML file'), ``expected`` what its text should be."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        problem = f"not found at {path.resolve()}; expected {what}"
    except UnicodeDecodeError as e:
        problem = f"not UTF-8 text (byte {e.start}); expected {what} in UTF-8"
    except OSError as e:
        problem = f"cannot be read ({e.strerror or type(e).__name__}); expected {what}"
    else:
        return parse_yaml(text, source=path.name, expected=expected, keep_duplicates=keep_duplicates)
    raise YamlError(path.name, "(file)", problem)


def parse_yaml(text: str, *, source: str, expected: str, keep_duplicates: bool = False):
    """The data of the YAML ``text``; messages name it ``source``."""
    loader = _Loader(text, keep_duplicates)
    try:
        return loader.get_single_data()
    except _Refused as e:
        raise YamlError(source, _where(e.mark), e.what) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        if _LIBYAML and _LIBYAML_DEPTH in str(getattr(e, "problem", "")):
            raise YamlError(source, _where(mark), _DEPTH_REFUSAL) from None
        if _LIBYAML and isinstance(e, (yaml.scanner.ScannerError, yaml.parser.ParserError, yaml.reader.ReaderError)):
            e = _python_parser_error(text, mark) or e
        raise YamlError(source, _where(getattr(e, "problem_mark", None)),
                        f"malformed YAML ({_problem(e)}); expected {expected}") from None
    finally:
        loader.dispose()


def _where(mark) -> str:
    return "(file)" if mark is None else f"line {mark.line + 1}"


def _problem(e: yaml.YAMLError) -> str:
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    context, mark = getattr(e, "context", None), getattr(e, "context_mark", None)
    if context and mark is not None:
        problem += f"; {context} at line {mark.line + 1}, column {mark.column + 1}"
    return " ".join(problem.split())


def _python_parser_error(text: str, mark) -> yaml.YAMLError | None:
    """PyYAML's own parser on a text libyaml rejected at ``mark``: its messages
    name the token found (``expected ',' or ']', but got ':'``), libyaml's do not.

    That parser is pure Python, and slow on some texts (more than quadratic in the
    nesting depth: 4,000 nested brackets take 20 s, 200,000 hours), so it reads
    only the lines up to libyaml's error, only when they are at most
    :data:`_FALLBACK_CHARS` long, and gives up past :data:`MAX_DEPTH` levels; its
    error is used only where it lies within those lines. Otherwise (``None``)
    libyaml's own message stands."""
    if mark is None:
        return None
    prefix = "".join(text.splitlines(keepends=True)[:mark.line + 1])
    if len(prefix) > _FALLBACK_CHARS:
        return None
    parser = _PythonParser(prefix)
    try:
        while parser.check_event():
            parser.get_event()
    except _TooDeep:
        return None
    except yaml.YAMLError as e:
        found = getattr(e, "problem_mark", None)
        # an error at the end of the lines read may be only where they were cut
        return e if found is not None and (found.index < len(prefix) or len(prefix) == len(text)) else None
    return None


class _TooDeep(Exception):
    """PyYAML's pure-Python parser went past :data:`MAX_DEPTH` levels."""


class _PythonParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's pure-Python scanner and parser, stopped past :data:`MAX_DEPTH`
    flow or block levels (where its cost grows fast)."""

    def __init__(self, text: str):
        yaml.reader.Reader.__init__(self, text)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)

    def fetch_flow_collection_start(self, token_class):
        if self.flow_level >= MAX_DEPTH:
            raise _TooDeep
        super().fetch_flow_collection_start(token_class)

    def add_indent(self, column):
        if len(self.indents) >= MAX_DEPTH:
            raise _TooDeep
        return super().add_indent(column)


class _Refused(yaml.YAMLError):
    """Valid YAML this loader refuses; ``what`` is the whole message."""

    def __init__(self, what: str, mark):
        super().__init__(what)
        self.what, self.mark = what, mark


class _Loader(Composer, _Parser, SafeConstructor, Resolver):
    """PyYAML's composer (it stops at the limits below) on libyaml's events, then
    the safe constructor. (Composer comes first: libyaml's own composer, which
    recurses in C, is never used.)"""

    def __init__(self, text: str, keep_duplicates: bool):
        _Parser.__init__(self, text)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        self.keep_duplicates = keep_duplicates
        self.depth = 0
        self.repeated = 0
        self.sizes = {}  # id(node) -> values in it, aliases expanded (set once the node is complete)

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            node = super().compose_node(parent, index)
            if id(node) not in self.sizes:
                raise _Refused(f"the alias *{event.anchor} is inside its own anchor &{event.anchor}; expected "
                               "an alias of a value defined before it", event.start_mark)
            self.repeated += self.sizes[id(node)]
            if self.repeated > MAX_REPEATED:
                raise _Refused(f"the alias *{event.anchor} makes aliases repeat more than {MAX_REPEATED} values; "
                               f"expected at most {MAX_REPEATED}", event.start_mark)
            return node
        if self.depth == MAX_DEPTH:
            raise _Refused(_DEPTH_REFUSAL, event.start_mark)
        self.depth += 1
        node = super().compose_node(parent, index)
        self.depth -= 1
        children = node.value if isinstance(node, SequenceNode) else \
            [n for pair in node.value for n in pair] if isinstance(node, MappingNode) else ()
        self.sizes[id(node)] = 1 + sum(self.sizes[id(c)] for c in children)
        return node

    def construct_checked_mapping(self, node):
        """A mapping without a key given twice (YAML merge keys ``<<`` may be overridden)."""
        data = YamlMapping() if self.keep_duplicates else {}
        yield data
        first_line = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG:
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                raise _Refused(f"a key is {describe(key)}; expected keys that are plain values (text, numbers)",
                               key_node.start_mark) from None
            if key in first_line:
                if not self.keep_duplicates:
                    raise _Refused(f"duplicate key '{key}' (first at line {first_line[key] + 1}); expected each "
                                   "key once", key_node.start_mark)
                data.duplicates.append(key)
            first_line.setdefault(key, key_node.start_mark.line)
        self.flatten_mapping(node)
        for key_node, value_node in node.value:
            data[self.construct_object(key_node, deep=True)] = self.construct_object(value_node)


_Loader.add_constructor("tag:yaml.org,2002:map", _Loader.construct_checked_mapping)
