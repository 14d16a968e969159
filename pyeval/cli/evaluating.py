"""Evaluating and querying: ``pyeval evaluate``, ``sql``, ``list``, ``demo`` and ``sample``."""
from __future__ import annotations

from collections.abc import Callable

import click

from ..errors import PyevalError
from ..vocabulary import OVERVIEW_TABLES, names
from .base import COUNT, DEFAULT_SET_HELP, DEPTH, campaign_option, checked_figure, fail_cleanly, main, open_warehouse, output_option, run_names


@main.command("sql")
@click.argument("query")
@output_option
@click.option(
    "--write",
    is_flag=True,
    help="Open the warehouse read-write (for statements that change it); the query may also use "
    "files and extensions. Default: read-only, no files, no extensions.",
)
@click.option(
    "--external-access",
    is_flag=True,
    help="Let a read-only query read and write files (read_csv, COPY ... TO, ATTACH) and load "
    "extensions; the warehouse itself stays read-only.",
)
@click.pass_context
@fail_cleanly
def sql_command(ctx, query, fmt, write, external_access):
    """Run an SQL QUERY on an existing warehouse and print its result."""
    from ..output import render_rows
    from ..query import query_rows

    files = write or external_access
    con = open_warehouse(ctx, read_only=not write, create=False, external_access=files)
    click.echo(render_rows(*query_rows(con, query, files=files), fmt))


@main.command("list")
@output_option
@click.option("--only", type=click.Choice(names(OVERVIEW_TABLES)),
              help="Print one of the two tables (needed with --format csv: a CSV stream holds one table).")
@click.pass_context
@fail_cleanly
def list_command(ctx, fmt, only):
    """Show the campaigns and runs of an existing warehouse with their counts."""
    from ..output import render_rows
    from ..query import overview_rows

    if fmt == "csv" and only is None:
        raise click.UsageError("a CSV stream holds one table: add --only campaigns or --only runs")
    con = open_warehouse(ctx, read_only=True)
    campaigns, runs = overview_rows(con)
    tables = {"campaigns": campaigns, "runs": runs}
    if only is not None:
        click.echo(render_rows(*tables[only], fmt))
    elif fmt == "json":  # one JSON document: {"campaigns": [...], "runs": [...]}
        click.echo("{\n" + ",\n".join(f'"{name}": {render_rows(*table, fmt)}' for name, table in tables.items())
                   + "\n}")
    else:
        click.echo(render_rows(*campaigns, fmt))
        click.echo()
        click.echo(render_rows(*runs, fmt))


@main.command("demo")
@click.option(
    "--out",
    metavar="PATH",
    help="Warehouse file the demo (re)builds; default: a --db given on the command line, else "
    "pyeval-demo.duckdb.",
)
@click.pass_context
@fail_cleanly
def demo_command(ctx, out):
    """Build a warehouse from the bundled TREC 2012 Web sample campaign and show it."""
    from ..demo import run_demo

    if out is None:
        given = ctx.parent.get_parameter_source("db") is click.core.ParameterSource.COMMANDLINE
        out = ctx.obj["db"] if given else "pyeval-demo.duckdb"
    run_demo(out, echo=click.echo)


@main.command("sample")
@click.argument("directory", type=click.Path(file_okay=False))
@fail_cleanly
def sample_command(directory):
    """Write the bundled TREC 2012 Web sample campaign into DIRECTORY as plain files: qrels (ad
    hoc, diversity), intents, topics, document lengths, runs/ (the README's examples use them) and rag/
    (generated answers of the simulated runs, their nuggets and judgments: docs/rag.md)."""
    from ..sample import write_sample

    written = write_sample(directory)
    click.echo(f"wrote {len(written)} files of the TREC 2012 Web sample campaign to {directory} "
               f"(its README.md says what each is)")


def request_options(command):
    """The options of an evaluation request (pyeval.core.request.EvaluationRequest's settings),
    shared by ``evaluate`` and ``explain``: measures, runs, ordering, depth, judged-only, topic
    policy, gain profile, probability variant and judgment set. Each option's name is its
    field's: the command passes them on as they came (:func:`request_from`)."""
    for option in reversed(_REQUEST_OPTIONS):
        command = option(command)
    return command


def request_from(campaign: str, settings: dict):
    """The EvaluationRequest of a command's :func:`request_options` (taken out of
    ``settings``, which keeps the command's own options): each option is the field of its name."""
    import dataclasses

    from pyeval.core.request import EvaluationRequest

    given = {field.name: settings.pop(field.name) for field in dataclasses.fields(EvaluationRequest)
             if field.name in settings}
    given["runs"] = run_names(given.get("runs", ()))
    return EvaluationRequest.build(campaign, list(given.pop("measures")), **given)


def _request_option(field) -> Callable:
    """The click option of one field of the request, from its metadata
    (pyeval.core.request._setting): flags, kind, choices, help."""
    meta = field.metadata
    flags = (meta["option"] or "--" + field.name.replace("_", "-")).split("/")
    help_text = meta["help"] + (DEFAULT_SET_HELP if meta["default_set"] else "")
    kind, choices = meta["kind"], meta["choices"]
    settings: dict = {"help": help_text, "metavar": meta["metavar"], "required": meta["required"]}
    if kind == "flag":
        settings.update(is_flag=True, metavar=None)
    elif kind == "multiple":
        settings["multiple"] = True
    elif kind == "depth":
        settings["type"] = DEPTH
    if choices is not None:
        settings.update(type=click.Choice(names(choices)), default=field.default,
                        show_default=field.default is not None)
    return click.option(*flags, field.name, **settings)


def _request_options() -> list[Callable]:
    """The options of every field of the request that has one, in the fields' order."""
    import dataclasses

    from pyeval.core.request import EvaluationRequest

    return [_request_option(field) for field in dataclasses.fields(EvaluationRequest)
            if "option" in field.metadata and field.metadata["option"] is not None]


_REQUEST_OPTIONS = _request_options()


@main.command("explain")
@click.option("--campaign", "-C", help="A stored campaign: its runs and default judgment set fill the plan "
                                       "(read-only). Default: the plan alone, with no warehouse.")
@request_options
@click.option("--sql", "show_sql", is_flag=True, help="Print each step's SQL too.")
@click.pass_context
@fail_cleanly
def explain_command(ctx, campaign, show_sql, **settings):
    """Print what an evaluation of these measures runs, step by step, and nothing else.

    Each pass (a staging of the ranked lists, an ordering) and its steps: the file of sql/ each
    runs and the relation it makes, the parameters it binds, each family's measures; --sql adds
    the SQL. pyeval evaluate runs a pass of stages and SQL families as one statement of them on
    DuckDB (a pass with a Python driver: one by one; Spark runs the same plan); the Python API
    prepares an ad hoc pass as one statement."""
    from pyeval.core.plan import describe, plan

    request = request_from(campaign or "CAMPAIGN", settings)
    if campaign is not None:
        from pyeval.core.evaluation import resolve

        request = resolve(open_warehouse(ctx, read_only=True, create=False), request)
    click.echo(describe(plan(request), sql=show_sql))


@main.command("evaluate")
@campaign_option
@request_options
@click.option("--no-store", is_flag=True, help="Compute and print only; store nothing.")
@click.option("--per-topic", is_flag=True, help="Print per-topic values (long form) instead of means.")
@click.option("--export", "export_dir", type=click.Path(file_okay=False),
              help="--engine spark: read the tables from this `pyeval export --parquet` tree.")
@click.option("--spark-cores", type=COUNT, metavar="N",
              help="--engine spark: threads of the local Spark session (default: every core, at most 8).")
@click.option("--spark-memory", metavar="SIZE",
              help="--engine spark: driver memory of the local Spark session, a JVM size (default 2g).")
@click.option("--plot", type=click.Path(dir_okay=False), callback=checked_figure,
              help="Save each measure's run means with 95% confidence intervals as a figure (.png, .pdf or .svg by "
                   "the suffix; created, or replacing only a figure pyeval saved).")
@click.option("--dpi", type=click.IntRange(min=10, max=2400), help="Resolution of --plot in dots per inch.")
@output_option
@click.pass_context
@fail_cleanly
def evaluate_command(ctx, campaign, no_store, per_topic, export_dir, spark_cores, spark_memory, plot, dpi, fmt,
                     **settings):
    """Compute measures for a campaign's runs, store per-topic scores, print the means."""
    from pyeval.core.evaluation import evaluate_summary, run, summed_measures
    from ..output import fitting_rows, render, whole_counts

    con = open_warehouse(ctx, read_only=no_store, create=False)
    request = request_from(campaign, settings)
    spark_options = {"export": export_dir, "cores": spark_cores, "memory": spark_memory}
    given = [f"--{name.replace('_', '-')}" for name, value in
             (("export", export_dir), ("spark_cores", spark_cores), ("spark_memory", spark_memory)) if value]
    if given and request.engine != "spark":
        raise PyevalError(f"{', '.join(given)} {'needs' if len(given) == 1 else 'need'} --engine spark")
    engine_options = spark_options if request.engine == "spark" else {}
    if not per_topic and not plot:  # the means only: computed, stored and combined in SQL, no pandas
        summary = evaluate_summary(con, request, store=not no_store, **engine_options)
        click.echo(fitting_rows(["run_id", *summary.measures], summary.rows, fmt,
                                integer_columns=summed_measures(summary.measures)))
        if summary.evaluation_id is not None:
            click.echo(f"stored as evaluation {summary.evaluation_id}", err=True)
        return
    result = run(con, request, store=not no_store, **engine_options)
    if plot:  # the intervals need the per-topic values
        from ..resampling.plots import plot_evaluation

        plot_evaluation(plot, result, dpi)
        click.echo(f"means plotted to {plot}", err=True)
    if not per_topic:  # the means, as evaluate_summary gives them
        measures = [str(m) for m in request.numeric]
        wide = result.means.pivot(index="run_id", columns="measure", values="value").reindex(columns=measures)
        rows = [(run_id, *(None if value != value else value for value in values))
                for run_id, values in zip(wide.index, wide.to_numpy(dtype=object).tolist())]
        click.echo(fitting_rows(["run_id", *measures], sorted(rows, key=lambda row: row[0]), fmt,
                                integer_columns=summed_measures(measures)))
        if result.evaluation_id is not None:
            click.echo(f"stored as evaluation {result.evaluation_id}", err=True)
        return
    per_topic_values = result.per_topic
    click.echo(render(whole_counts(per_topic_values, summed_measures(per_topic_values["measure"].unique())), fmt))
    if len(result.texts):
        click.echo()
        click.echo(render(result.texts[["run_id", "topic_id", "measure", "value_text"]], fmt))
    if result.evaluation_id is not None:
        click.echo(f"stored as evaluation {result.evaluation_id}", err=True)
