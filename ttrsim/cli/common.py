"""What every command shares: the exit-code convention, library errors as one
line, the parameter types of presets, strategies, player counts and
experiments (validated like ``click.Choice``, completed by the shell), the
``--json`` and ``--progress`` options, and plain text tables.

Exit codes: 2 for a usage error (an unknown option, preset, strategy or rule
parameter, a value out of range: click's ``UsageError``), 1 for a failure (a
bad file, a failed run, a missing optional dependency, violated invariants),
130 when interrupted (Ctrl-C; 143 for SIGTERM), with no traceback from the
first line of ``ttrsim.__main__`` on.

>>> from click.testing import CliRunner
>>> @click.command()
... @click.option("--rules", type=PRESET)
... def show(rules):
...     click.echo(rules)
>>> r = CliRunner().invoke(show, ["--rules", "germny"])
>>> r.exit_code, r.output.splitlines()[-1]
(2, "Error: Invalid value for '--rules': unknown rule set 'germny'; did you mean 'germany'?")
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from pathlib import Path

import click
from click.shell_completion import CompletionItem

from ttrsim.data.rules import RulesError, get_rules, preset_names

PLAYERS_RANGE = (2, 5)

# optional dependencies: the top-level module -> the extra that installs it
EXTRAS = {"dask": "dask", "distributed": "dask", "pandas": "pandas", "playwright": "browser",
          "pettingzoo": "env", "gymnasium": "env", "scipy": "test", "pytest": "test", "hypothesis": "test",
          "s3fs": "s3", "fsspec": "s3"}

EXIT_CODES = """\b
Exit codes: 0 done; 1 failed (a bad file, a failed run, a missing optional
dependency, violated invariants); 2 usage error (an unknown option, preset,
strategy or parameter, a value out of range); 130 interrupted (143: SIGTERM)."""


# --------------------------------------------------------------------------- errors

def one_line(err: Exception) -> str:
    """A library error as one line (a MapError lists several problems: the
    first, and how many more)."""
    problems = getattr(err, "problems", None)
    if problems:
        more = f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})" \
            if len(problems) > 1 else ""
        return problems[0] + more
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def missing_extra(err: ImportError) -> str | None:
    """The one line for a missing optional dependency (None: not one of ours)."""
    top = (getattr(err, "name", None) or "").split(".")[0]
    if top not in EXTRAS:
        return None
    extra = EXTRAS[top]
    return f"this needs the optional dependency '{top}': pip install 'ttrsim[{extra}]'"


def extras_errors(fn):
    """Run a command, turning a missing optional dependency into one line naming its extra."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ImportError as e:
            line = missing_extra(e)
            if line is None:
                raise
            raise click.ClickException(line) from None
    return wrapper


def library_errors(fn):
    """Run a command, turning library errors into one line: an unknown rule
    set, rule parameter or strategy named on the command line is a usage error
    (exit 2), any other ``ValueError`` (a bad map, file or value) a failure
    (exit 1); a missing optional dependency names its extra."""
    @extras_errors
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except click.ClickException:
            raise
        except ValueError as e:   # MapError is a ValueError
            strategies = sys.modules.get("ttrsim.strategies")   # (not imported: not one of its errors)
            if isinstance(e, RulesError) or (strategies is not None and isinstance(e, strategies.StrategyError)):
                raise click.UsageError(one_line(e)) from None
            raise click.ClickException(one_line(e)) from None
    return wrapper


# --------------------------------------------------------------------------- parameter types

def _complete_list(names, incomplete: str) -> list[CompletionItem]:
    """Complete the last item of a comma-separated list."""
    head, sep, last = incomplete.rpartition(",")
    return [CompletionItem(head + sep + n) for n in names if n.startswith(last)]


class _Names(click.ParamType):
    """Names from a known list: one, or (``many``) several separated by
    commas; ``all`` for every one if ``allow_all``. A subclass gives the list
    (``known``), checks one name (``check``: a library ``ValueError`` with a
    suggestion) and says what a name is (``what``)."""
    what = "name"

    def __init__(self, many: bool, allow_all: bool, metavar: str):
        self.many, self.allow_all = many, allow_all
        self.name = ("all|" if allow_all else "") + (f"{metavar}[,{metavar}]" if many else metavar)

    def known(self) -> list[str]:
        raise NotImplementedError

    def check(self, name: str) -> None:
        raise NotImplementedError

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        names = [t.strip() for t in value.split(",") if t.strip()]
        if self.allow_all and names == ["all"]:
            return list(self.known())
        if not names or (len(names) > 1 and not self.many):
            expected = (("'all' or " if self.allow_all else "") + f"{self.what} names separated by commas"
                        if self.many else f"one {self.what} name")
            self.fail(f"expected {expected}: {', '.join(self.known())}", param, ctx)
        for n in names:
            try:
                self.check(n)
            except ValueError as e:
                self.fail(str(e), param, ctx)
        return names if self.many else names[0]

    def shell_complete(self, ctx, param, incomplete):
        names = (["all"] if self.allow_all else []) + list(self.known())
        return _complete_list(names, incomplete) if self.many else \
            [CompletionItem(n) for n in names if n.startswith(incomplete)]


class Preset(_Names):
    """A rule-set preset (``ttrsim rules``); with ``many``: ``all`` or presets
    separated by commas (a list)."""
    what = "preset"

    def __init__(self, many: bool = False):
        super().__init__(many, allow_all=many, metavar="PRESET")

    def known(self):
        return preset_names()

    def check(self, name):
        get_rules(name)


class Strategies(_Names):
    """Compiled strategy names separated by commas (``ttrsim strategies``);
    ``all`` for every one if ``allow_all``; with ``many`` False: one name."""
    what = "strategy"

    def __init__(self, many: bool = True, allow_all: bool = False):
        super().__init__(many, allow_all, metavar="NAME")

    def known(self):
        from ttrsim.strategies import STRATEGY_NAMES
        return STRATEGY_NAMES

    def check(self, name):
        from ttrsim.strategies import strategy_id
        strategy_id(name)


class Players(click.ParamType):
    """A player count, 2 to 5 (R1.2); with ``many``: counts separated by commas."""

    def __init__(self, many: bool = False):
        self.many = many
        self.name = "N[,N]" if many else "N"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not self.many:
            texts = [str(value)]
        elif isinstance(value, list):
            return value
        else:
            texts = [t.strip() for t in str(value).split(",") if t.strip()]
        out = []
        for t in texts:
            try:
                n = int(t)
            except ValueError:
                self.fail(f"'{t}' is not a number; expected player counts like 2,3,4", param, ctx)
            lo, hi = PLAYERS_RANGE
            if not lo <= n <= hi:
                self.fail(f"players must be {lo} to {hi} (R1.2), got {n}", param, ctx)
            out.append(n)
        if not out:
            self.fail("expected at least one player count, e.g. 2,4", param, ctx)
        return out if self.many else out[0]

    def shell_complete(self, ctx, param, incomplete):
        counts = [str(n) for n in range(PLAYERS_RANGE[0], PLAYERS_RANGE[1] + 1)]
        return _complete_list(counts, incomplete) if self.many else \
            [CompletionItem(n) for n in counts if n.startswith(incomplete)]


PRESET, PRESET_LIST = Preset(), Preset(many=True)
PLAYERS, PLAYER_LIST = Players(), Players(many=True)


# --------------------------------------------------------------------------- shared options

def json_option(keys: str):
    """``--json``: print one JSON document (``keys`` documents it) instead of text."""
    return click.option("--json", "as_json", is_flag=True, help=f"Print JSON instead of text: {keys}")


def progress_option(fn):
    """``--progress/--no-progress``: progress bars on stderr, by default only when stderr is a terminal."""
    return click.option("--progress/--no-progress", default=None,
                        help="Show progress bars on stderr (default: only when stderr is a terminal and "
                             "not --json).")(fn)


def want_progress(progress: bool | None, as_json: bool = False) -> bool:
    """``--progress``'s value: as given, else on a terminal (never with --json)."""
    if progress is not None:
        return progress
    return not as_json and sys.stderr.isatty()


# --------------------------------------------------------------------------- output

def value_text(v) -> str:
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v) if v else "[]"
    if isinstance(v, dict):
        return " ".join(f"{k}:{x}" for k, x in v.items())
    if v is None or v == "":
        return "-"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def table(headers: list[str], rows: list[list], right: set[int] = frozenset()) -> list[str]:
    """A plain text table; columns in ``right`` are right-aligned."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max([len(headers[i])] + [len(r[i]) for r in cells]) for i in range(len(headers))]

    def fmt(row):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
    return [fmt(headers), fmt(["-" * w for w in widths])] + [fmt(r) for r in cells]


def echo_json(data) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=_jsonable))


def _jsonable(v):
    if isinstance(v, Path):
        return str(v)
    if hasattr(v, "item"):          # numpy scalars
        return v.item()
    return str(v)


def echo_err(message: str) -> None:
    click.echo(message, err=True)


@contextlib.contextmanager
def stdout_to_stderr(on: bool = True):
    """Inside the block, file descriptor 1 is stderr (``on``): what anything
    else writes there (a Python strategy's C code, a subprocess, a worker
    process started meanwhile) cannot mix into a ``--json`` document printed
    after it. Nothing where stdout is no file descriptor (click's CliRunner)."""
    try:
        fd = sys.stdout.fileno() if on else None
    except (AttributeError, OSError, ValueError):     # io.UnsupportedOperation is an OSError
        fd = None
    if fd != 1:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
