"""``ttrsim tune``: fit a strategy's parameters to a rule set, or a rule
parameter to a balance target (a thin shell over :func:`ttrsim.tune.tune`,
exit codes as ``ttrsim run``)."""
from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

import click

from ttrsim.experiment.signals import Interrupted

from .common import echo_json, extras_errors, json_option
from .compiling import watch_compiles

TUNE_EPILOG = """\b
Examples:
  ttrsim tune experiments/tune_example.yaml
  ttrsim tune tune_example --workers 2 --output results/my_tune
  ttrsim tune my_tune.yaml --overwrite --json
  ttrsim tune tune_globetrotter --workers 2   # a rule to a balance target

Running the same file again resumes an interrupted tune (the finished
evaluations are kept) and gives the same tune.json, trace.csv and best.yaml;
a folder holding another tune is refused unless --overwrite. Ctrl-C (exit
code 130) or SIGTERM (143) stops at once. The method, the files and the
limits: docs/tune.md.
"""


class TuneFile(click.ParamType):
    """A tune YAML file, or the name of a packaged tune example (``tune_example``)."""
    name = "FILE|EXAMPLE"

    def convert(self, value, param, ctx):
        from .examples import examples_dir, tune_example_names
        p = Path(value)
        if p.is_file():
            return str(p)
        name = p.name.removesuffix(".yaml")
        if p.parent in (Path("."), Path("experiments")) and name in tune_example_names():
            return str(examples_dir() / f"{name}.yaml")
        self.fail(f"no tune file or packaged tune example '{value}' (packaged: "
                  f"{', '.join(tune_example_names())})", param, ctx)

    def shell_complete(self, ctx, param, incomplete):
        from click.shell_completion import CompletionItem

        from .examples import tune_example_names
        return [CompletionItem(n) for n in tune_example_names() if n.startswith(incomplete)] + \
            [CompletionItem(incomplete, type="file")]


@click.command("tune", epilog=TUNE_EPILOG, short_help="Fit a strategy's parameters, or a rule to a target.")
@click.argument("file", type=TuneFile())
@click.option("--output", "-o", metavar="DIR", help="Tune folder (default results/<name>).")
@click.option("--workers", "-w", type=click.IntRange(1, 1024), help="Worker processes (default: the file's, "
              "else every core).")
@click.option("--overwrite", is_flag=True, help="Delete the folder's tune and start over.")
@json_option("{path, status, best, final, games, games_run, seconds, stages} (best: the fitted parameters as "
             "best.yaml has them; final: games, win_share, low, high, fair of the fitted set against the start, "
             "null when no stage moved it; stages: per stage its best candidate, its score and accepted). A rule "
             "tune: {path, status, best, final, games, games_run, seconds, stopped, evaluations} (best: {parameter: "
             "the chosen value}; final: the target at it: value, games, estimate, low, high, goal, tolerance, met; "
             "evaluations: per value its games, estimate, low, high and verdict).")
@click.option("--progress/--no-progress", default=None,
              help="A line per stage and round on stderr (default: on, off with --json).")
@extras_errors
@watch_compiles
def tune_cmd(file, output, workers, overwrite, as_json, progress):
    """Fit the parameters a tune FILE names (tune.yaml: rules, players,
    strategy, fit ranges, budget) by self-play: best-response stages of
    successive halving, each candidate one seat against copies of the
    incumbent on common seeds. Prints a line per stage and round on stderr,
    then the fitted values, the final head-to-head against the start with
    its 95% interval, and the folder. A rule tune (fit_rules, lineup,
    target) searches one rule parameter for the value where the target
    holds, and prints the chosen value with the target's interval there."""
    def stop(signum, frame):          # until the runner takes the signals over
        raise Interrupted(signum)
    main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)} if main else {}
    try:
        from ttrsim.experiment.config import ExperimentError
        from ttrsim.tune import tune
        result = tune(file, output=output, workers=workers, overwrite=overwrite,
                      progress=progress is not False and not as_json, echo=lambda m: click.echo(m, err=True))
    except KeyboardInterrupt as e:          # Ctrl-C: 130, SIGTERM: 143
        sys.exit(128 + getattr(e, "signum", signal.SIGINT))
    except ExperimentError as e:            # TuneError is one
        raise click.ClickException(str(e).splitlines()[0]) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    rec = result.record
    if rec.get("kind") == "rules":
        _rule_result(result, as_json)
        return
    if as_json:
        echo_json({"path": result.path, "status": result.status, "best": result.best, "final": result.final,
                   "games": result.games, "games_run": result.games_run, "seconds": result.seconds,
                   "stages": [{"stage": s["stage"], "best": s["best"], "accepted": s["accepted"],
                               **{k: c[k] for c in s["candidates"] if c["id"] == s["best"]
                                  for k in ("params", "games", "win_share", "low", "high")}}
                              for s in rec["stages"]]})
        return
    click.echo(f"{result.games:,} games ({result.games_run:,} played now) in {result.seconds:.1f} s; "
               f"{len(rec['stages'])} stage{'s' if len(rec['stages']) != 1 else ''}, stopped: {rec['stopped']}")
    click.echo("fitted: " + ", ".join(f"{k} {v}" for k, v in rec["incumbent"].items())
               + "   (start: " + ", ".join(f"{k} {v}" for k, v in rec["start"].items()) + ")")
    f = result.final
    if f:
        click.echo(f"final head-to-head, one fitted seat vs the start on fresh seeds: {100 * f['win_share']:.1f}% "
                   f"[{100 * f['low']:.1f}%, {100 * f['high']:.1f}%] over {f['games']:,} games "
                   f"(fair {100 * f['fair']:.1f}%)")
    else:
        click.echo("final head-to-head: none (no stage replaced the start)")
    click.echo(f"tune: {result.path}")


def _rule_result(result, as_json: bool):
    """The result of a rule tune: the chosen value and the target's interval there."""
    rec = result.record
    (param, value), = result.best.items()
    if as_json:
        echo_json({"path": result.path, "status": result.status, "best": result.best, "final": result.final,
                   "games": result.games, "games_run": result.games_run, "seconds": result.seconds,
                   "stopped": rec["stopped"],
                   "evaluations": [{k: e[k] for k in ("value", "games", "estimate", "low", "high", "verdict")}
                                   for e in rec["evaluations"]]})
        return
    n = len(rec["evaluations"])
    click.echo(f"{result.games:,} games ({result.games_run:,} played now) in {result.seconds:.1f} s; {n} value"
               f"{'s' if n != 1 else ''} evaluated, stopped: {rec['stopped']}")
    click.echo(f"chosen: {param} {value}   (target {rec['target']}: {'met' if result.final['met'] else 'NOT met'})")
    click.echo(f"at {param} {value}: {result.final['text']}")
    click.echo(f"tune: {result.path}")
