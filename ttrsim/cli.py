"""The ``ttrsim`` command line: a thin shell over the library.

Every command's work is done by library functions; this module parses
options, prints tables or JSON, and turns library errors (``RulesError``,
``MapError``, ``ValueError``) into one-line ``Error: ...`` messages with exit
code 1.
"""
from __future__ import annotations

import functools
import json
import signal
import sys
import textwrap
from pathlib import Path

import click

from ttrsim.data.rules import PARAMS, PRESETS, RulesError, describe_presets, get_rules, preset_names

PLAYERS_RANGE = (2, 5)


# --------------------------------------------------------------------------- helpers

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


def library_errors(fn):
    """Run a command, turning library errors into ``click.ClickException``."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except click.ClickException:
            raise
        except (RulesError, ValueError) as e:   # MapError is a ValueError
            raise click.ClickException(one_line(e)) from None
    return wrapper


def parse_rules_list(text: str) -> list[str]:
    """``all`` or ``PRESET[,PRESET...]``, each checked (unknown names raise RulesError)."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise RulesError("--rules needs 'all' or preset names separated by commas")
    if names == ["all"]:
        return preset_names()
    for n in names:
        get_rules(n)
    return names


def parse_players_list(text: str) -> list[int]:
    """``2,3,4`` -> [2, 3, 4], each in 2..5 (R1.2)."""
    out = []
    for t in (t.strip() for t in text.split(",")):
        if not t:
            continue
        try:
            n = int(t)
        except ValueError:
            raise RulesError(f"--players: '{t}' is not a number; expected player counts like 2,3,4") from None
        check_players(n)
        out.append(n)
    if not out:
        raise RulesError("--players needs at least one player count, e.g. 2,4")
    return out


def check_players(n: int) -> int:
    lo, hi = PLAYERS_RANGE
    if not lo <= n <= hi:
        raise RulesError(f"players must be {lo} to {hi} (R1.2), got {n}")
    return n


def parse_overrides(items) -> dict:
    """``KEY=VALUE`` pairs; values are read as YAML (``15``, ``true``, ``[a, b]``)."""
    from ttrsim.data.yamlfile import YamlError, parse_yaml
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise RulesError(f"--set '{item}': expected PARAMETER=VALUE, e.g. globetrotter_points=15")
        try:
            out[key.strip()] = parse_yaml(value, source=f"--set '{item}'",
                                          expected="a value such as 15, true or [a, b]")
        except YamlError as e:
            raise RulesError(str(e)) from None
    return out


def value_text(v) -> str:
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v) if v else "[]"
    if isinstance(v, dict):
        return " ".join(f"{k}:{x}" for k, x in v.items())
    if v is None:
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
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as pkg_version
    try:
        return pkg_version("ttrsim")
    except PackageNotFoundError:   # running from a source tree
        return "unknown"


# --------------------------------------------------------------------------- the group

@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(version(), "--version", prog_name="ttrsim")
def main():
    """ttrsim: a fast, headless Monte Carlo simulator for Ticket to Ride
    (USA, USA 1910, Mega, Big Cities, Germany with passengers).

    \b
    Examples:
      ttrsim run experiments/quickstart.yaml && ttrsim report results/quickstart
      ttrsim play --rules germany --players 4 --seed 7
      ttrsim rules germany
      ttrsim maps
      ttrsim fuzz --rules all --players 2,3,4,5 --games 1000
      ttrsim bench --rules usa,germany --players 2,4
    """


# --------------------------------------------------------------------------- play

@main.command()
@click.option("--rules", "rules_name", default="usa", show_default=True, metavar="PRESET",
              help="Rule set preset (see `ttrsim rules`).")
@click.option("--players", default=2, show_default=True, type=int, help="Number of players, 2 to 5.")
@click.option("--seed", default=0, show_default=True, type=int, help="Game seed; the same seed replays the same game.")
@click.option("--strategy", default="random", show_default=True, metavar="NAME[,NAME...]",
              help="Compiled strategy for every seat, or one per seat separated by commas.")
@click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE",
              help="Override a rule parameter (repeatable), e.g. --set globetrotter_points=15.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the final score table and the end reason.")
@library_errors
def play(rules_name, players, seed, strategy, sets, quiet):
    """Play one game with compiled strategies and narrate it turn by turn.

    The game is exactly the one the compiled game loop (ttrsim.play.loop.play_game)
    plays for the seed: each decision is the strategy's choice, replayed
    through the Python Game API. The narrator is omniscient: it shows every
    hand and ticket. Output: the setup (face-up row, passengers, each seat's
    hand and tickets dealt and kept, Germany's announced short/long mix), one
    line per turn with notes for face-up resets, reshuffles and the last
    round, then each seat's tickets and the score table.

    \b
    Examples:
      ttrsim play --rules germany --players 4 --seed 7
      ttrsim play --rules usa-1910 --players 3 --seed 12 --quiet
      ttrsim play --rules usa --set globetrotter_points=15 --seed 1
    """
    from ttrsim.play.narrate import play_narrated

    check_players(players)
    strategies = [s.strip() for s in strategy.split(",") if s.strip()]
    play_narrated(rules_name, players, seed, strategies or ["random"], parse_overrides(sets),
                  out=click.echo, quiet=quiet)


# --------------------------------------------------------------------------- rules

def param_rows(values: dict, defaults: dict | None = None) -> list[list[str]]:
    rows = []
    for p in PARAMS:
        v = values[p.name]
        changed = defaults is not None and v != defaults[p.name]
        rows.append([p.name, value_text(v) + (" *" if changed else ""), p.rule,
                     "[choice]" if p.choice else "", p.doc])
    return rows


@main.command("rules")
@click.argument("preset", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@library_errors
def rules_cmd(preset, as_json):
    """List the rule set presets and their parameters (R7).

    Without PRESET: each preset with the parameters it changes, then every
    parameter with its default, rule id and description. With PRESET: that
    preset's full parameter list (values differing from the default are marked
    *). [choice] marks a rule docs/rules.md chose where the texts do not settle it.

    \b
    Examples:
      ttrsim rules
      ttrsim rules germany
      ttrsim rules usa-mega --json
    """
    defaults = {p.name: p.default for p in PARAMS}
    defaults = {k: (list(v) if isinstance(v, tuple) else v) for k, v in defaults.items()}
    meta = [{"name": p.name, "default": defaults[p.name], "rule": p.rule, "description": p.doc,
             "choice": p.choice, "min": p.lo, "max": p.hi} for p in PARAMS]
    if preset is None:
        presets = describe_presets()
        if as_json:
            echo_json({"presets": presets, "parameters": meta})
            return
        click.echo("Presets (parameters that differ from the defaults):")
        for d in presets:
            changed = [f"{k}={value_text(d[k])}" for k in defaults if d[k] != defaults[k]]
            click.echo(f"  {d['name']:<14} {d['doc']}")
            if changed:
                click.echo(textwrap.fill(", ".join(changed), 100, initial_indent=" " * 17,
                                         subsequent_indent=" " * 17, break_on_hyphens=False))
        click.echo("")
        click.echo("Parameters (defaults):")
        for line in table(["parameter", "default", "rule", "", "description"], param_rows(defaults)):
            click.echo("  " + line)
        click.echo("")
        click.echo("Show one preset in full: ttrsim rules PRESET")
        return
    rules = get_rules(preset)
    values = rules.params()
    if as_json:
        echo_json({"name": preset, "doc": PRESETS[preset]["doc"],
                   "parameters": [{**m, "value": values[m["name"]]} for m in meta]})
        return
    click.echo(f"{preset}: {PRESETS[preset]['doc']}")
    for line in table(["parameter", "value", "rule", "", "description"], param_rows(values, defaults)):
        click.echo("  " + line)
    click.echo("  (* differs from the default)")


# --------------------------------------------------------------------------- maps

def map_summary(m) -> dict:
    """Counts of one loaded map (R1.3)."""
    from collections import Counter

    import numpy as np

    sizes = Counter(np.bincount(m.route_group).tolist()) if m.n_routes else Counter()
    return {
        "name": m.name,
        "path": m.path,
        "cities": int((~m.location_is_country).sum()),
        "countries": int(m.location_is_country.sum()),
        "border_points": m.n_nodes - int((~m.location_is_country).sum()),
        "routes": m.n_routes,
        "spaces": int(m.route_len.sum()),
        "double": int(sizes.get(2, 0)),
        "triple": int(sizes.get(3, 0)),
        "route_lengths": f"{int(m.route_len.min())}-{int(m.route_len.max())}" if m.n_routes else "-",
        "tickets": m.n_tickets,
        "tickets_by_tag": {tag: len(m.deck(tag)) for tag in m.tags()},
        "passengers": int(m.passengers.sum()),
    }


@main.command("maps")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@library_errors
def maps_cmd(as_json):
    """List the packaged maps with their counts: cities, countries, routes,
    spaces (trains to fill every route), double and triple route groups,
    tickets per deck tag and passengers.

    \b
    Examples:
      ttrsim maps
      ttrsim maps --json
    """
    from ttrsim.data.maps import available_maps, load_map

    rows = [map_summary(load_map(name)) for name in available_maps()]
    if as_json:
        echo_json(rows)
        return
    headers = ["map", "cities", "countries", "routes", "spaces", "double", "triple", "lengths", "tickets",
               "passengers"]
    body = [[r["name"], r["cities"], r["countries"], r["routes"], r["spaces"], r["double"], r["triple"],
             r["route_lengths"], r["tickets"], r["passengers"]] for r in rows]
    for line in table(headers, body, right=set(range(1, len(headers)))):
        click.echo(line)
    click.echo("")
    click.echo("Tickets per deck tag (a ticket may carry several tags):")
    for r in rows:
        click.echo(f"  {r['name']}: " + ", ".join(f"{t} {n}" for t, n in r["tickets_by_tag"].items()))


# --------------------------------------------------------------------------- validate-map

@main.command("validate-map")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def validate_map(file):
    """Load and validate a custom map file (YAML, the format of the packaged
    usa.yaml and germany.yaml; see ttrsim.data.maps).

    Prints "FILE: ok (...)" with its counts, or every problem found, one line
    each ("<file>: <entry>: <what is wrong; what was expected>"), and exits
    with code 1.

    \b
    Examples:
      ttrsim validate-map my_map.yaml
      ttrsim validate-map maps/europe.yml
    """
    from ttrsim.data.maps import MapError, load_map

    try:
        m = load_map(file)
    except MapError as e:
        for line in e.problems:
            click.echo(line, err=True)
        n = len(e.problems)
        raise click.ClickException(f"{file}: invalid map ({n} problem{'s' if n != 1 else ''})") from None
    s = map_summary(m)
    tags = ", ".join(f"{t} {n}" for t, n in s["tickets_by_tag"].items())
    extra = f", {s['countries']} countries" if s["countries"] else ""
    extra += f", {s['passengers']} passengers" if s["passengers"] else ""
    click.echo(f"{file}: ok ({s['routes']} routes, {s['tickets']} tickets [{tags}], {s['cities']} cities{extra}, "
               f"{s['spaces']} spaces, {s['double']} double / {s['triple']} triple)")


# --------------------------------------------------------------------------- fuzz

@main.command()
@click.option("--rules", "rules_text", default="all", show_default=True, metavar="all|PRESET[,PRESET]",
              help="Rule sets to fuzz.")
@click.option("--players", "players_text", default="2,3,4,5", show_default=True, metavar="N[,N]",
              help="Player counts to fuzz.")
@click.option("--games", default=1000, show_default=True, type=click.IntRange(min=1),
              help="Games per rule set and player count.")
@click.option("--seed", default=0, show_default=True, type=int, help="First seed (games use seed, seed+1, ...).")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on stderr (default: when stderr is a terminal and not --json).")
@library_errors
def fuzz(rules_text, players_text, games, seed, as_json, progress):
    """Play random games and check the rule invariants after every action.

    Prints, per rule set and player count, the games played, how many distinct
    deals they were, the violations and the first examples (each names a seed:
    replay it with `ttrsim play`), then "fuzz: G games (D distinct deals), V
    violations". Exits with code 1 if any invariant was violated.

    \b
    Examples:
      ttrsim fuzz --rules all --players 2,3,4,5 --games 10000
      ttrsim fuzz --rules germany --players 4 --games 500 --seed 100
      ttrsim fuzz --rules usa,usa-mega --games 200 --json
    """
    rules = parse_rules_list(rules_text)
    players = parse_players_list(players_text)
    from ttrsim.play.fuzz import run_fuzz

    if progress is None:
        progress = not as_json and sys.stderr.isatty()
    rows = run_fuzz(rules, players, games, seed=seed, progress=progress)
    total_games = sum(int(r["games"]) for r in rows)
    total_viol = sum(int(r["violations"]) for r in rows)
    if as_json:
        echo_json(rows)
    else:
        body = [[r["rules"], r["players"], r["games"], r["distinct_deals"], r["violations"],
                 (r.get("examples") or ["-"])[0]] for r in rows]
        for line in table(["rules", "players", "games", "distinct deals", "violations", "first example"], body,
                          right={1, 2, 3, 4}):
            click.echo(line)
        for r in rows:
            examples = r.get("examples") or []
            for ex in examples[1:5]:
                click.echo(f"  {r['rules']} {r['players']}p: {ex}")
        distinct = sum(int(r["distinct_deals"]) for r in rows)
        click.echo(f"fuzz: {total_games} games ({distinct} distinct deals), {total_viol} violations")
    if total_viol:
        sys.exit(1)


# --------------------------------------------------------------------------- bench

@main.command()
@click.option("--rules", "rules_text", default="all", show_default=True, metavar="all|PRESET[,PRESET]",
              help="Rule sets to time.")
@click.option("--players", "players_text", default="2,4", show_default=True, metavar="N[,N]",
              help="Player counts to time.")
@click.option("--seconds", default=2.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="CPU seconds of play per rule set, player count and strategy (with --compare: per run).")
@click.option("--strategy", "strategy_text", default="random", show_default=True, metavar="all|NAME[,NAME]",
              help="Strategies to time, each in self-play at every seat.")
@click.option("--compare", "rev", metavar="REV",
              help="Time commit REV (old) against this code (new) in interleaved pairs on one core; print the ratio.")
@click.option("--pairs", default=7, show_default=True, type=click.IntRange(min=1),
              help="With --compare: interleaved pairs of runs per rule set, player count and strategy.")
@click.option("--core", type=click.IntRange(min=0), metavar="N",
              help="With --compare: the core both sides are pinned to (default: the highest one).")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@library_errors
def bench(rules_text, players_text, seconds, strategy_text, rev, pairs, core, as_json):
    """Time complete games (setup, play, final scoring) with compiled
    strategies on one core: games per CPU second of this process per rule
    set, player count and strategy (self-play). Waiting for a busy shared
    machine does not count; a core shared with another busy process still
    slows it, so compare strategies from one run. JSON rows also carry the
    CPU and wall seconds and the commit timed ("+" when the files differ
    from it).

    With --compare REV, commit REV of this repository and the code installed
    here play the same games in two worker processes pinned to one core,
    taking turns (PAIRS pairs, the order alternating); each pair gives a
    ratio new/old games per second, and the median ratio (with the range
    over the pairs) is the figure to quote: a speed claim is a ratio measured
    in one run.

    \b
    Examples:
      ttrsim bench
      ttrsim bench --rules usa,germany --players 2,4 --seconds 5
      ttrsim bench --rules usa --players 4 --strategy all --json
      ttrsim bench --compare main --rules usa --players 2,4 --seconds 1
    """
    from ttrsim.strategies import STRATEGY_NAMES, strategy_id

    rules = parse_rules_list(rules_text)
    players = parse_players_list(players_text)
    names = [t.strip() for t in strategy_text.split(",") if t.strip()]
    names = list(STRATEGY_NAMES) if names == ["all"] else names
    for name in names:
        strategy_id(name)
    from ttrsim.play import bench as benchmod

    if rev:
        progress = None if as_json else (lambda text: click.echo(f"  {text}", err=True))
        rows = benchmod.compare(rev, rules, players, names, seconds=seconds, pairs=pairs, core=core,
                                progress=progress)
        if as_json:
            echo_json(rows)
            return
        click.echo(f"old {rows[0]['old_commit']}, new {rows[0]['new_commit'] or 'installed'}, "
                   f"{pairs} interleaved pairs of {seconds:g} CPU s on core {rows[0]['core']}")
        body = [[r["rules"], r["players"], r["strategy"], f"{r['old_games_per_s']:,.0f}",
                 f"{r['new_games_per_s']:,.0f}", f"{r['ratio']:.3f}", f"{r['ratio_min']:.2f}-{r['ratio_max']:.2f}"]
                for r in rows]
        for line in table(["rules", "players", "strategy", "old games/s", "new games/s", "new/old", "range"],
                          body, right={1, 3, 4, 5}):
            click.echo(line)
        return
    rows = [row for name in names for row in benchmod.run_bench(rules, players, seconds=seconds, strategy=name)]
    if as_json:
        keys = ("rules", "players", "strategy", "games", "seconds", "wall_seconds", "games_per_s", "commit")
        echo_json([{k: r[k] for k in keys if k in r} for r in rows])
        return
    body = [[r["rules"], r["players"], r["strategy"], f"{float(r['games_per_s']):,.0f}"] for r in rows]
    for line in table(["rules", "players", "strategy", "games/s (1 core)"], body, right={1, 3}):
        click.echo(line)


# --------------------------------------------------------------------------- report

@main.command("report")
@click.argument("results", metavar="RESULTS")
@click.option("--output", "-o", metavar="DIR", help="Report folder (default RESULTS/report).")
@click.option("--format", "formats", default="md,html", show_default=True, metavar="md,html",
              help="Documents to write: md, html or both.")
@click.option("--svg/--no-svg", default=True, show_default=True,
              help="Also write every chart as SVG (PNG is always written).")
@click.option("--resamples", default=1000, show_default=True, type=click.IntRange(min=10),
              help="Block-bootstrap resamples of every 95% interval.")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on stderr (default: when stderr is a terminal).")
@library_errors
def report(results, output, formats, svg, resamples, progress):
    """Turn the results folder RESULTS (written by `ttrsim run`) into a report:
    report.md and a self-contained report.html (charts embedded), every table
    as CSV in tables/ and every chart as PNG (and SVG) in charts/.

    Sections: strategy comparison (win rates, head to head, ratings, seat
    advantage, score composition and distributions, game length, end
    reasons), ticket value, route contention with board maps (needs the turn
    log), passengers (Germany) and sweeps (balance charts). Prints the path
    of the report.

    \b
    Examples:
      ttrsim report results/quickstart
      ttrsim report results/sweep --output /tmp/sweep-report --format html
      ttrsim report results/strength_usa4 --no-svg --resamples 200
    """
    from ttrsim.report.document import build_report

    if progress is None:
        progress = sys.stderr.isatty()
    rep = build_report(results, output=output, formats=formats, images=("png", "svg") if svg else ("png",),
                       resamples=resamples, progress=progress)
    for problem in rep.problems:
        click.echo(f"warning: {problem}", err=True)
    click.echo(f"{len(rep.charts)} chart files, {len(rep.tables)} tables in {rep.seconds:.1f} s")
    if rep.markdown is not None and rep.html is not None:
        click.echo(f"markdown: {rep.markdown}")
    click.echo(f"report: {rep.main}")


# --------------------------------------------------------------------------- run

RUN_EPILOG = """\b
Examples:
  ttrsim run experiments/quickstart.yaml
  ttrsim run experiments/sweep.yaml --workers 8 --output results/globetrotter
  ttrsim run experiments/dask.yaml --backend dask --scheduler tcp://10.0.0.5:8786
  ttrsim run experiments/quickstart.yaml --overwrite      # start the folder over

Running the same file again resumes an interrupted run (also after kill -9);
a folder holding a different experiment is refused unless --overwrite.
Ctrl-C stops cleanly and keeps every finished chunk.
The file's schema: docs/experiments.md; examples: experiments/*.yaml.
"""


def _sigterm(signum, frame):
    raise KeyboardInterrupt


@main.command("run", epilog=RUN_EPILOG)
@click.argument("file", metavar="FILE")
@click.option("--output", "-o", metavar="DIR", help="results folder (default results/<name>)")
@click.option("--workers", "-w", type=click.IntRange(1, 1024), help="worker processes (default: the file's, "
              "else every core)")
@click.option("--backend", type=click.Choice(["local", "dask"]), help="local joblib processes or dask")
@click.option("--scheduler", metavar="ADDRESS", help="Dask scheduler tcp://HOST:PORT (implies --backend dask); "
              "none starts a local Dask cluster")
@click.option("--chunk-size", type=click.IntRange(1), help="games per chunk / part file")
@click.option("--games", type=click.IntRange(1), help="games per sweep point (overrides the file)")
@click.option("--seed", type=click.IntRange(0), help="experiment seed (overrides the file)")
@click.option("--log/--no-log", default=None, help="turn-level logging (default: the file's)")
@click.option("--resume/--overwrite", default=True, show_default=True,
              help="continue the folder's run, or delete its results and start over")
@click.option("--progress/--no-progress", default=True, show_default=True, help="the progress bar")
def run(file, output, workers, backend, scheduler, chunk_size, games, seed, log, resume, progress):
    """Run the experiment FILE (YAML) into a results folder of Parquet tables
    (games, players, tickets, turns) with a manifest.json, then print the win
    rates per strategy with 95% intervals and the results path."""
    from ttrsim.experiment.config import ExperimentError
    from ttrsim.experiment.runner import run_experiment
    extra = {k: v for k, v in (("games", games), ("seed", seed), ("log", log)) if v is not None}
    old = signal.signal(signal.SIGTERM, _sigterm) if _main_thread() else None
    try:
        result = run_experiment(file, output=output, workers=workers, backend=backend, scheduler=scheduler,
                                chunk_size=chunk_size, overwrite=not resume, progress=progress,
                                echo=lambda m: click.echo(m, err=True), **extra)
    except ExperimentError as e:
        raise click.ClickException(str(e).splitlines()[0]) from None
    except KeyboardInterrupt:
        sys.exit(130)
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)
    if result.games_run == 0:
        click.echo(f"nothing to do: {result.path} already holds the complete experiment")
    else:
        click.echo(f"{result.games_run:,} games in {result.seconds:.1f} s "
                   f"({result.games_run / max(result.seconds, 1e-9):,.0f} games/s)")
    click.echo(result.summary_text)
    click.echo(f"results: {result.path}")


def _main_thread() -> bool:
    import threading
    return threading.current_thread() is threading.main_thread()


if __name__ == "__main__":   # pragma: no cover
    main()
