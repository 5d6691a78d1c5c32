"""What ships with ttrsim: ``ttrsim strategies`` (the built-in strategies with
their parameters) and ``ttrsim examples`` (the packaged experiments, listed or
copied to edit)."""
from __future__ import annotations

from pathlib import Path

import click

from .common import Strategies, echo_json, json_option, library_errors, table
from .examples import ExampleName, copy_example, example_info, example_names, tune_example_names


def strategy_info(name: str) -> dict:
    """A built-in strategy as ``ttrsim strategies --json`` lists it."""
    from ttrsim.strategies import REGISTRY, strategy_id
    spec = REGISTRY[name]
    return {"name": name, "id": strategy_id(name), "description": spec.doc,
            "parameters": [{"name": p.name, "default": p.default, "type": p.kind, "min": p.lo, "max": p.hi,
                            "min_exclusive": p.open_lo, "max_exclusive": p.open_hi, "description": p.doc}
                           for p in spec.params]}


@click.command("strategies", short_help="The built-in strategies and their parameters.")
@click.argument("name", required=False, type=Strategies(many=False))
@json_option("a list of strategies: name, id, description, parameters (each: name, default, type (int, float "
             "or bool: 0 or 1), min, max, min_exclusive, max_exclusive, description); with NAME that strategy alone.")
@library_errors
def strategies_cmd(name, as_json):
    """List the built-in compiled strategies with their parameters, defaults,
    types and ranges (NAME: one of them; [a, b] includes its bounds, (a, b]
    not a). An experiment seats them by name in its lineup and sets
    parameters with {strategy: NAME, params: {...}}, each checked against its
    type and range before anything runs; a Python strategy is seated with
    {python: "module:Class"} (docs/strategies.md).

    \b
    Examples:
      ttrsim strategies
      ttrsim strategies planner
      ttrsim strategies --json
    """
    from ttrsim.strategies import REGISTRY, STRATEGY_NAMES

    infos = [strategy_info(n) for n in ([name] if name else STRATEGY_NAMES)]
    if as_json:
        echo_json(infos[0] if name else infos)
        return
    for info in infos:
        click.echo(f"{info['name']}: {info['description']}")
        if info["parameters"]:
            spec = REGISTRY[info["name"]]
            rows = [[p.name, f"{p.default:g}", p.kind, p.interval(), p.doc] for p in spec.params]
            for line in table(["parameter", "default", "type", "range", "description"], rows):
                click.echo("  " + line)
        elif name:
            click.echo("  (no parameters)")
    if not name:
        click.echo("")
        click.echo("One strategy with its parameters: ttrsim strategies NAME")


@click.command("examples", short_help="The packaged example experiments; copy one to edit.")
@click.argument("name", required=False, type=ExampleName())
@click.option("--to", "folder", default=".", show_default=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder to copy NAME into.")
@click.option("--force", is_flag=True, help="Overwrite files of the same name.")
@json_option("without NAME a list of examples: name, path, title; with NAME {files} (the files written).")
def examples_cmd(name, folder, force, as_json):
    """List the packaged example experiments, or copy the example NAME into
    the current folder (or --to DIR) to edit it. Any of them runs by name
    as it is (`ttrsim run NAME`); each file's header says what it shows.

    \b
    Examples:
      ttrsim examples
      ttrsim examples quickstart               # writes ./quickstart.yaml
      ttrsim run quickstart.yaml               # runs the copy
      ttrsim examples study_first_seat_4p --to studies/
    """
    if name is None:
        infos = [example_info(n) for n in example_names()]
        if as_json:
            echo_json(infos)
            return
        width = max(len(i["name"]) for i in infos)
        for i in infos:
            click.echo(f"{i['name']:<{width}}  {i['title']}")
        click.echo("")
        click.echo("Run one: ttrsim run NAME; copy one to edit: ttrsim examples NAME")
        tunes = tune_example_names()
        if tunes:
            click.echo(f"Tune files (ttrsim tune NAME, docs/tune.md): {', '.join(tunes)}")
        return
    files = copy_example(name, folder, force=force)
    if as_json:
        echo_json({"files": files})
        return
    for f in files:
        click.echo(f"wrote {f}")
    click.echo(f"run it: ttrsim run {files[0]}")

