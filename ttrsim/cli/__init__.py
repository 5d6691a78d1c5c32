"""The ``ttrsim`` command line: a thin shell over the library.

Every command's work is done by library functions; this package parses
options, prints tables or JSON, and turns library errors into one-line
``Error: ...`` messages: exit code 2 for a usage error, 1 for a failure
(:mod:`ttrsim.cli.common`). ``ttrsim strategies`` and ``ttrsim examples`` are in
:mod:`ttrsim.cli.catalog`; ``ttrsim bench`` in :mod:`ttrsim.cli.bench`; compiling with a notice and progress, ``ttrsim
warmup`` and ``ttrsim cache`` in :mod:`ttrsim.cli.compiling`.

Size: the commands' options and their one-line errors live together here;
the larger commands have their own modules (bench, tune, schema, compiling).
"""
from __future__ import annotations

import os
import signal
import sys
import textwrap
from pathlib import Path

import click

from ttrsim.data.rules import PARAMS, PRESETS, describe_presets, get_rules
from ttrsim.experiment.signals import Interrupted

from .bench import bench_cmd
from .catalog import examples_cmd, strategies_cmd
from .common import (
    EXIT_CODES,
    PLAYER_LIST,
    PLAYERS,
    PRESET,
    PRESET_LIST,
    Strategies,
    echo_err,
    echo_json,
    extras_errors,
    json_option,
    library_errors,
    progress_option,
    stdout_to_stderr,
    table,
    value_text,
    want_progress,
)
from .compiling import (
    add_compile_seconds,
    cache_cmd,
    compile_on_two_cores,
    compile_seconds,
    experiment_kernels,
    mark_compiled,
    start_helper,
    stop_helper,
    warmup_cmd,
    watch_compiles,
)
from .examples import ExperimentFile
from .schema import schema_cmd
from .tune import tune_cmd


def parse_overrides(items) -> dict:
    """``KEY=VALUE`` pairs; values are read as YAML (``15``, ``true``, ``[a, b]``)."""
    from ttrsim.data.yamlfile import YamlError, parse_yaml
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"'{item}': expected PARAMETER=VALUE, e.g. globetrotter_points=15",
                                     param_hint="'--set'")
        try:
            out[key.strip()] = parse_yaml(value, source=f"'{item}'",
                                          expected="a value such as 15, true or [a, b]")
        except YamlError as e:
            raise click.BadParameter(str(e), param_hint="'--set'") from None
    return out


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as pkg_version
    try:
        return pkg_version("ttrsim")
    except PackageNotFoundError:   # running from a source tree
        return "unknown"


# --------------------------------------------------------------------------- the group

class _Group(click.Group):
    """The command group: a stop (Ctrl-C, or a signal a command turned into
    :class:`Interrupted`) ends any command with 128 + the signal's number
    and no message (click's own says "Aborted!" with exit code 1)."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as e:
            sys.exit(128 + getattr(e, "signum", signal.SIGINT))


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog=EXIT_CODES + """

\b
Shell completion (commands, options, presets, strategies, examples):
  eval "$(_TTRSIM_COMPLETE=bash_source ttrsim)"     # in ~/.bashrc (zsh: zsh_source)""")
@click.version_option(version(), "--version", prog_name="ttrsim")
def main():
    """ttrsim: a fast, headless Monte Carlo simulator for Ticket to Ride
    (USA, USA 1910, Mega, Big Cities, Germany with passengers).

    \b
    Examples:
      ttrsim run quickstart && ttrsim report results/quickstart
      ttrsim examples                      # the packaged experiments
      ttrsim play --rules germany --players 4 --seed 7
      ttrsim strategies planner
      ttrsim rules germany
      ttrsim fuzz --rules all --players 2,3,4,5 --games 1000
      ttrsim warmup                        # compile now (the first run does it otherwise)
      ttrsim tune tune_example             # fit planner parameters to a rule set
    """


# --------------------------------------------------------------------------- play

@main.command(short_help="Play one game and narrate it turn by turn.")
@click.option("--rules", "rules_name", default="usa", show_default=True, type=PRESET,
              help="Rule set preset (see `ttrsim rules`).")
@click.option("--players", default=2, show_default=True, type=PLAYERS, help="Number of players, 2 to 5.")
@click.option("--seed", default=0, show_default=True, type=int, help="Game seed; the same seed replays the same game.")
@click.option("--strategy", "strategies", default="random", show_default=True, type=Strategies(),
              help="Compiled strategy for every seat, or one per seat separated by commas (see `ttrsim strategies`).")
@click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE",
              help="Override a rule parameter (repeatable), e.g. --set globetrotter_points=15.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the final score table and the end reason.")
@click.option("--render", "render_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also draw the final position (claimed routes, face-up row, scores) to FILE (.png, .svg or .pdf).")
@json_option("the game record: rules, players, seed, strategies, overrides, actions (turn, seat, action, text) "
             "and result (seats with their score breakdown, winners, end, turns).")
@library_errors
@watch_compiles
def play(rules_name, players, seed, strategies, sets, quiet, as_json, render_path):
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
      ttrsim play --rules usa --players 3 --strategy planner,greedy,random --json
      ttrsim play --players 4 --strategy planner --quiet --render board.png
    """
    overrides = parse_overrides(sets)
    get_rules(rules_name, overrides)          # an unknown parameter or a bad value is a usage error
    if as_json:
        echo_json(game_record(rules_name, players, seed, strategies, overrides))
        return
    from ttrsim.play.narrate import play_narrated

    game = play_narrated(rules_name, players, seed, strategies, overrides, out=click.echo, quiet=quiet)
    if render_path:
        render_board(game, Path(render_path))
        click.echo(f"board drawn to {render_path}")


def render_board(game, path: Path) -> None:
    """``--render``: the board drawn to a temporary file beside ``path``, then
    renamed, so a full disk or a read-only folder leaves no half picture and
    is one line."""
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp{path.suffix}")    # the suffix names the format
    try:
        game.render(tmp)
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise click.ClickException(f"--render: cannot write {path} ({e.strerror or e}); expected a writable "
                                   "folder with free space") from None
    except ValueError as e:
        raise click.ClickException(str(e).replace(str(tmp), str(path))) from None


def game_record(rules_name: str, players: int, seed: int, strategies: list[str], overrides: dict) -> dict:
    """The game ``ttrsim play`` narrates, as a JSON-ready record."""
    from ttrsim.core.state import M_PLAYER, M_TURN
    from ttrsim.play.narrate import narrate_action
    from ttrsim.play.pyplay import play, seat_list

    actions, games = [], []

    def step(before, action, after):
        actions.append({"turn": int(before.meta[M_TURN]), "seat": int(before.meta[M_PLAYER]), "action": int(action),
                        "text": narrate_action(games[0], before, after, action)})

    seats = seat_list(strategies, players)
    g = play(rules_name, players, seed, seats, None, overrides, on_start=games.append, on_step=step)
    return {"rules": rules_name, "players": players, "seed": seed, "strategies": seats, "overrides": overrides,
            "actions": actions, "result": g.result()}


# --------------------------------------------------------------------------- rules

def param_rows(values: dict, defaults: dict | None = None) -> list[list[str]]:
    rows = []
    for p in PARAMS:
        v = values[p.name]
        changed = defaults is not None and v != defaults[p.name]
        rows.append([p.name, value_text(v) + (" *" if changed else ""), p.rule,
                     "[choice]" if p.choice else "", p.doc])
    return rows


@main.command("rules", short_help="The rule-set presets and every rule parameter.")
@click.argument("preset", required=False, type=PRESET)
@json_option("without PRESET {presets, parameters}; with PRESET {name, doc, parameters} (each parameter: name, "
             "default, value, rule, description, choice, min, max).")
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


@main.command("maps", short_help="The packaged maps with their counts.")
@json_option("a list of maps: name, path, cities, countries, border_points, routes, spaces, double, triple, "
             "route_lengths, tickets, tickets_by_tag, passengers.")
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

@main.command("validate-map", short_help="Check a custom map file.")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@json_option("{file, ok, problems, summary} (summary: the counts of `ttrsim maps --json`, null when invalid).")
def validate_map(file, as_json):
    """Load and validate a custom map file (YAML, the format of the packaged
    usa.yaml and germany.yaml; see ttrsim.data.maps).

    Prints "FILE: ok (...)" with its counts, or every problem found, one line
    each ("<file>: <entry>: <what is wrong; what was expected>"), and exits
    with code 1.

    \b
    Examples:
      ttrsim validate-map my_map.yaml
      ttrsim validate-map maps/europe.yml --json
    """
    from ttrsim.data.maps import MapError, load_map

    try:
        m = load_map(file)
    except MapError as e:
        if as_json:
            echo_json({"file": str(file), "ok": False, "problems": e.problems, "summary": None})
        else:
            for line in e.problems:
                click.echo(line, err=True)
        n = len(e.problems)
        raise click.ClickException(f"{file}: invalid map ({n} problem{'s' if n != 1 else ''})") from None
    s = map_summary(m)
    if as_json:
        echo_json({"file": str(file), "ok": True, "problems": [], "summary": s})
        return
    tags = ", ".join(f"{t} {n}" for t, n in s["tickets_by_tag"].items())
    extra = f", {s['countries']} countries" if s["countries"] else ""
    extra += f", {s['passengers']} passengers" if s["passengers"] else ""
    click.echo(f"{file}: ok ({s['routes']} routes, {s['tickets']} tickets [{tags}], {s['cities']} cities{extra}, "
               f"{s['spaces']} spaces, {s['double']} double / {s['triple']} triple)")


# --------------------------------------------------------------------------- fuzz

@main.command(short_help="Random games checking the rule invariants.")
@click.option("--rules", default="all", show_default=True, type=PRESET_LIST, help="Rule sets to fuzz.")
@click.option("--players", default="2,3,4,5", show_default=True, type=PLAYER_LIST, help="Player counts to fuzz.")
@click.option("--games", default=1000, show_default=True, type=click.IntRange(min=1),
              help="Games per rule set and player count.")
@click.option("--seed", default=0, show_default=True, type=int, help="First seed (games use seed, seed+1, ...).")
@json_option("a list of rows: rules, players, games, distinct_deals, violations, examples.")
@progress_option
@library_errors
@watch_compiles
def fuzz(rules, players, games, seed, as_json, progress):
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
    from ttrsim.play.fuzz import run_fuzz

    rows = run_fuzz(rules, players, games, seed=seed, progress=want_progress(progress, as_json))
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


# --------------------------------------------------------------------------- report

@main.command("report", short_help="Turn a results folder into a report.")
@click.argument("results", metavar="RESULTS")
@click.option("--output", "-o", metavar="DIR", help="Report folder (default RESULTS/report).")
@click.option("--format", "formats", default="md,html", show_default=True, metavar="md,html",
              help="Documents to write: md, html or both.")
@click.option("--svg/--no-svg", default=False, show_default=True,
              help="Also write every chart as SVG (PNG is always written; SVG doubles the chart time and files).")
@click.option("--resamples", default=1000, show_default=True, type=click.IntRange(10, 100_000),
              help="Block-bootstrap resamples of the ratings' 95% intervals, 10 to 100,000 (the win rates' "
                   "intervals are Wilson intervals, no resampling).")
@json_option("{report, markdown, html, folder, tables, charts, problems, seconds, resamples, findings} (resamples: "
             "the ratings' bootstrap resamples used; findings: each "
             "strategy's win rate with its 95% interval per sweep point, as `ttrsim run --json` gives them).")
@progress_option
@library_errors
def report(results, output, formats, svg, resamples, as_json, progress):
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
    if Path(results).suffix in (".yaml", ".yml") and not Path(results).is_dir():
        name = Path(results).stem
        raise click.UsageError(f"{results} is an experiment file, not a results folder; run it first "
                               f"(ttrsim run {results}), then report its folder (ttrsim report results/{name})")
    from ttrsim.report.document import build_report

    rep = build_report(results, output=output, formats=formats, images=("png", "svg") if svg else ("png",),
                       resamples=resamples, progress=want_progress(progress, as_json))
    for problem in rep.problems:
        echo_err(f"warning: {problem}")
    if as_json:
        from ttrsim.results.summary import summary_from_tables
        echo_json({"report": rep.main, "markdown": rep.markdown, "html": rep.html, "folder": rep.folder,
                   "tables": rep.tables, "charts": rep.charts, "problems": rep.problems,
                   "seconds": round(rep.seconds, 3), "resamples": rep.resamples,
                   "findings": summary_from_tables(results)})
        return
    click.echo(f"{len(rep.charts)} chart files, {len(rep.tables)} tables in {rep.seconds:.1f} s")
    if rep.markdown is not None and rep.html is not None:
        click.echo(f"markdown: {rep.markdown}")
    click.echo(f"report: {rep.main}")


# --------------------------------------------------------------------------- run

RUN_EPILOG = """\b
Examples:
  ttrsim run quickstart                           # a packaged example, by name
  ttrsim run experiments/sweep.yaml --workers 8 --output results/globetrotter
  ttrsim run experiments/dask.yaml --backend dask --scheduler tcp://10.0.0.5:8786
  ttrsim run experiments/dask.yaml --scheduler tcp://10.0.0.5:8786 --cache-dir /shared/numba
  ttrsim run quickstart --overwrite               # start the folder over
  ttrsim run quickstart --games 40000             # grow a finished run
  ttrsim run quickstart --games 400 --json

Running the same file again resumes an interrupted run (also after kill -9)
or grows a finished one to more games; a folder holding a different
experiment is refused unless --overwrite, and so is a folder another run is
writing. Ctrl-C (exit code 130) or SIGTERM (143) stops at once and keeps
every finished chunk. The file's schema and the run's life:
docs/experiments.md; what is guaranteed: docs/reliability.md; Dask clusters
(several machines, SLURM/PBS, Kubernetes): docs/cluster.md; the examples:
`ttrsim examples`. The first run compiles the engine and strategies (once;
`ttrsim warmup` does it ahead): a notice and a progress line say so.
"""


MIN_TIMED_S = 0.2      # a run's play shorter than this gets no games/s (mostly timer noise)


@main.command("run", epilog=RUN_EPILOG, short_help="Run an experiment into a results folder.")
@click.argument("file", type=ExperimentFile())
@click.option("--output", "-o", metavar="DIR", help="Results folder (default results/<name>).")
@click.option("--workers", "-w", type=click.IntRange(1, 1024), help="Worker processes (default: the file's, "
              "else every core).")
@click.option("--backend", type=click.Choice(["local", "dask"]), help="Local joblib processes or Dask.")
@click.option("--scheduler", metavar="ADDRESS", help="Dask scheduler tcp://HOST:PORT (implies --backend dask); "
              "none starts a local Dask cluster.")
@click.option("--chunk-size", type=click.IntRange(1), help="Games per chunk / part file.")
@click.option("--games", type=click.IntRange(1), help="Games per sweep point (overrides the file; more than the "
              "folder holds grows it).")
@click.option("--seed", type=click.IntRange(0), help="Experiment seed (overrides the file).")
@click.option("--log/--no-log", default=None, help="Turn-level logging (default: the file's).")
@click.option("--python-time-limit", type=click.FloatRange(0, 86400, min_open=True), metavar="SECONDS",
              help="Seconds a Python strategy may take per decision or constructor (default: the file's, else 10).")
@click.option("--worker-timeout", type=click.FloatRange(0, 86400, min_open=True), metavar="SECONDS",
              help="Seconds to wait for a Dask worker while none is connected (default: the file's, else 60).")
@click.option("--cache-dir", metavar="DIR", help="Dask: an absolute folder every worker caches the compiled "
              "kernels in (their NUMBA_CACHE_DIR; a shared folder compiles once for all); docs/cluster.md.")
@click.option("--resume/--overwrite", default=True, show_default=True,
              help="Continue the folder's run, or delete its results and start over.")
@json_option("{path, status, games, games_run, seconds, compile_seconds, games_per_s, summary} (summary: one "
             "row per sweep point and strategy as ttrsim.results.summary.summary_from_tables gives them: point, "
             "values, strategy, games, wins, win_rate, low, high, mean_total, ...; games_per_s excludes the "
             "compile time (with --backend dask: the workers' warm-up before the first chunk), null for a run too "
             "short to time).")
@progress_option
@extras_errors
@watch_compiles
def run(file, output, workers, backend, scheduler, chunk_size, games, seed, log, python_time_limit, worker_timeout,
        cache_dir, resume, as_json, progress):
    """Run the experiment FILE (a YAML file, or the name of a packaged example)
    into a results folder of Parquet tables (games, players, tickets, turns)
    with a manifest.json, then print the win rates per strategy with 95%
    intervals and the results path."""
    def stop(signum, frame):          # until the runner takes the signals over (importing it takes seconds)
        raise Interrupted(signum)
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)} if _main_thread() else {}
    helper = None
    quiet_stdout = stdout_to_stderr(as_json)     # stdout is the JSON document alone
    quiet_stdout.__enter__()
    try:
        if not scheduler and backend != "dask" and not cache_dir:     # (cache_dir: a Dask run, or refused)
            helper = start_helper()          # a first run: it compiles the engine while the experiment is read
        from ttrsim.experiment import runner
        from ttrsim.experiment.config import ExperimentError
        from ttrsim.experiment.runner import run_experiment
        from ttrsim.tune.refit import refit_experiment
        runner.ABANDON_HELD_STOP = True       # a stop within seconds, also while the first compile holds it up
        extra = {k: v for k, v in (("games", games), ("seed", seed), ("log", log),
                                   ("python_time_limit", python_time_limit), ("worker_timeout", worker_timeout),
                                   ("cache_dir", cache_dir))
                 if v is not None}
        kernels = experiment_kernels(file, "dask" if scheduler else backend, cache_dir)
        if kernels is not None:
            add_compile_seconds(compile_on_two_cores(kernels, helper))
        compiled_before = compile_seconds()         # the run's own seconds include the compile from here on
        result = run_experiment(file, output=output, workers=workers, backend=backend, scheduler=scheduler,
                                chunk_size=chunk_size, overwrite=not resume,
                                progress=want_progress(progress, as_json),
                                echo=lambda m: click.echo(m, err=True), refitter=refit_experiment, **extra)
    except KeyboardInterrupt as e:          # Ctrl-C: 130, SIGTERM: 143
        sys.exit(128 + getattr(e, "signum", signal.SIGINT))
    except ExperimentError as e:
        raise click.ClickException(str(e).splitlines()[0]) from None
    finally:
        stop_helper(helper)
        quiet_stdout.__exit__(None, None, None)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if kernels is not None:
        mark_compiled(kernels)
    # the Dask workers' warm-up (their compile, or load, before the first chunk) counts as compile time
    compile_s = compile_seconds() + result.warm_up_seconds
    play_s = max(result.seconds - (compile_s - compiled_before), 0.0)
    rate = result.games_run / play_s if play_s >= MIN_TIMED_S else None
    if as_json:
        echo_json({"path": result.path, "status": result.status, "games": result.games,
                   "games_run": result.games_run, "seconds": round(result.seconds, 3),
                   "compile_seconds": round(compile_s, 3), "games_per_s": rate and round(rate, 1),
                   "summary": result.summary})
        return
    if result.games_run == 0:
        click.echo(f"nothing to do: {result.path} already holds the complete experiment")
    else:
        compiled = f", after {compile_s:.0f} s compiling (first run only)" if compile_s >= 0.5 else ""
        if result.warm_up_seconds >= 0.5:     # (compiled or loaded: the warm-up line says which)
            compiled = f", after {compile_s:.0f} s compiling or loading the kernels"
        speed = f"{rate:,.0f} games/s" if rate else "too short to time"
        click.echo(f"{result.games_run:,} games in {play_s:.1f} s ({speed}){compiled}")
    click.echo(result.summary_text)
    click.echo(f"results: {result.path}")


def _main_thread() -> bool:
    import threading
    return threading.current_thread() is threading.main_thread()


for _command in (bench_cmd, examples_cmd, strategies_cmd, warmup_cmd, cache_cmd, tune_cmd, schema_cmd):
    main.add_command(_command)

if __name__ == "__main__":   # pragma: no cover
    main()
