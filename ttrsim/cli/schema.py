"""``ttrsim schema``: the fields of a results folder (every table's columns
with type and description, :func:`ttrsim.results.load.folder_schema`) or,
with ``--experiment``, the JSON Schema of an experiment file for editors
(:func:`ttrsim.experiment.file_schema.experiment_schema`)."""
from __future__ import annotations

from pathlib import Path

import click

from .common import echo_json, json_option, library_errors, table


@click.command("schema", short_help="The fields of a results folder, or the JSON Schema of experiment files.")
@click.argument("results", metavar="[RESULTS]", required=False)
@click.option("--experiment", is_flag=True,
              help="Print the JSON Schema (draft 2020-12) of an experiment file instead, for editors: "
                   "ttrsim schema --experiment > experiment.schema.json.")
@json_option("with RESULTS {path, tables: {TABLE: [{name, type, description, added}]}} (TABLE: games, players, "
             "tickets, turns, dims/routes, dims/tickets, dims/strategies, dims/points; added: a column ttrsim.open "
             "joins in); --experiment prints JSON in any case.")
@library_errors
def schema_cmd(results, experiment, as_json):
    """List every table of the results folder RESULTS with its fields, their
    type and description (stored in the Parquet files; a folder written before
    descriptions were stored gets this ttrsim's), and the columns
    ttrsim.open adds (marked +). With --experiment: print the JSON Schema of
    an experiment file, made from the checks of `ttrsim run`; the comment
    `# yaml-language-server: $schema=experiment.schema.json` in a file
    makes VS Code and other YAML editors complete and check it
    (docs/experiments.md).

    \b
    Examples:
      ttrsim schema results/quickstart
      ttrsim schema results/quickstart --json
      ttrsim schema --experiment > experiment.schema.json
    """
    if experiment:
        if results is not None:
            raise click.UsageError("give RESULTS or --experiment, not both")
        from ttrsim.experiment.file_schema import experiment_schema
        echo_json(experiment_schema())
        return
    if results is None:
        raise click.UsageError("expected RESULTS (a results folder of ttrsim run) or --experiment (the JSON Schema "
                               "of experiment files)")
    if Path(results).suffix in (".yaml", ".yml") and not Path(results).is_dir():
        raise click.UsageError(f"{results} is an experiment file, not a results folder; the schema of experiment "
                               "files: ttrsim schema --experiment")
    from ttrsim.results.load import folder_schema

    doc = folder_schema(results)
    if as_json:
        echo_json(doc)
        return
    for name, fields in doc["tables"].items():
        added = sum(f["added"] for f in fields)
        more = f" (+ {added} added by ttrsim.open)" if added else ""
        click.echo(f"{name}: {len(fields) - added} fields{more}")
        rows = [["+" if f["added"] else "", f["name"], f["type"], f["description"]] for f in fields]
        for line in table(["", "field", "type", "description"], rows):
            click.echo("  " + line)
        click.echo("")
    click.echo("+: added by ttrsim.open (the names joined in); the files hold the others. "
               "Load them: ttrsim.open(RESULTS) (docs/results.md)")
