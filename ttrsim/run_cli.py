"""``ttrsim run FILE``: run an experiment file into a results folder.

Registered on the main group by ``ttrsim/cli.py`` (``main.add_command(run)``).
"""
from __future__ import annotations

import signal
import sys

import click

from .experiment import ExperimentError

EPILOG = """\b
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


@click.command("run", epilog=EPILOG)
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
    from .runner import run_experiment
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


if __name__ == "__main__":      # python -m ttrsim.run_cli FILE ... (= ttrsim run FILE ...)
    run()
