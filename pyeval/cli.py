"""The ``pyeval`` command: thin click glue over the library (no SQL, no arithmetic here).

Errors pyeval raises on purpose (:class:`pyeval.errors.PyevalError`) become a one-line
``Error: ...`` and exit status 1; anything else is a bug and keeps its traceback.
"""
from __future__ import annotations

import functools
import sys
import warnings

import click

from . import warehouse
from .errors import DuplicateEntryError, PyevalError


def _fail_cleanly(command):
    """Turn PyevalError into click's one-line error (exit 1)."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except PyevalError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


def _show_warning(message, category, filename, lineno, file=None, line=None):
    click.echo(f"warning: {message}", err=True)


def _open(ctx: click.Context, read_only: bool = False):
    con = warehouse.connect(ctx.obj["db"], read_only=read_only)
    ctx.call_on_close(con.close)
    return con


def _output_option(command):
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["table", "csv", "json", "markdown"]),
        default="table",
        show_default=True,
        help="How to print the result.",
    )(command)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    envvar="PYEVAL_DB",
    default=warehouse.DEFAULT_PATH,
    show_default=True,
    metavar="PATH",
    help="Warehouse file: loads and evaluate create or upgrade it; sql and list read an existing one. "
    "Environment variable PYEVAL_DB.",
)
@click.version_option(package_name="pyeval")
@click.pass_context
def main(ctx: click.Context, db: str) -> None:
    """pyeval: an SQL-backed evaluation warehouse for information retrieval."""
    warnings.showwarning = _show_warning
    ctx.ensure_object(dict)
    ctx.obj["db"] = db


@main.group()
def load() -> None:
    """Load qrels, runs, intents or document lengths into a campaign."""


_campaign = click.option("--campaign", "-C", required=True, help="Campaign (test collection) name.")
_replace = click.option("--replace", is_flag=True, help="Replace what the campaign holds already.")


@load.command("qrels")
@_campaign
@click.option(
    "--format",
    "qrels_format",
    type=click.Choice(["auto", "trec", "trec-diversity", "ntcir", "ntcir-diversity"]),
    default="auto",
    show_default=True,
    help="Qrels layout; auto tells NTCIR by L<k> levels and TREC diversity by a varying 2nd field.",
)
@click.option("--description", help="A description of the campaign (stored).")
@_replace
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_context
@_fail_cleanly
def load_qrels_command(ctx, campaign, qrels_format, description, replace, file):
    """Load a qrels FILE (.gz accepted); creates the campaign if it does not exist."""
    from .loaders import load_qrels

    con = _open(ctx)
    report = load_qrels(con, campaign, file, format=qrels_format, replace=replace, description=description)
    click.echo(report.summary())


@load.command("run")
@_campaign
@click.option("--name", help="Run name (one FILE only); default: the run tag of the first line.")
@_replace
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.pass_context
@_fail_cleanly
def load_run_command(ctx, campaign, name, replace, files):
    """Load TREC run FILES (6 columns, .gz accepted) into a campaign, all or none."""
    from .loaders import load_runs

    if name is not None and len(files) > 1:
        raise click.UsageError("--name applies to one FILE; load files of the same tag one by one")
    con = _open(ctx)
    for report in load_runs(con, campaign, list(files), names=[name] * len(files), replace=replace):
        click.echo(report.summary())


@load.command("intents")
@_campaign
@_replace
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_context
@_fail_cleanly
def load_intents_command(ctx, campaign, replace, file):
    """Load intent probabilities: Iprob (topic intent prob) or DINprob (... inf|nav)."""
    from .loaders import load_intents

    con = _open(ctx)
    click.echo(load_intents(con, campaign, file, replace=replace).summary())


@load.command("doclengths")
@_campaign
@_replace
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_context
@_fail_cleanly
def load_doclengths_command(ctx, campaign, replace, file):
    """Load document lengths in characters (docno length) for the U-measure family."""
    from .loaders import load_doclengths

    con = _open(ctx)
    click.echo(load_doclengths(con, campaign, file, replace=replace).summary())


@main.command("sql")
@click.argument("query")
@_output_option
@click.option(
    "--write",
    is_flag=True,
    help="Open the warehouse read-write (for statements that change it); default read-only.",
)
@click.pass_context
@_fail_cleanly
def sql_command(ctx, query, fmt, write):
    """Run an SQL QUERY on an existing warehouse and print its result."""
    from .output import render
    from .query import run_sql

    con = _open(ctx, read_only=not write)
    click.echo(render(run_sql(con, query), fmt))


@main.command("list")
@_output_option
@click.pass_context
@_fail_cleanly
def list_command(ctx, fmt):
    """Show the campaigns and runs of an existing warehouse with their counts."""
    from .output import render
    from .query import campaign_overview, run_overview

    con = _open(ctx, read_only=True)
    click.echo(render(campaign_overview(con), fmt))
    click.echo()
    click.echo(render(run_overview(con), fmt))


@main.command("demo")
@click.option(
    "--out",
    default="pyeval-demo.duckdb",
    show_default=True,
    metavar="PATH",
    help="Warehouse file the demo (re)builds.",
)
@_fail_cleanly
def demo_command(out):
    """Build a warehouse from the bundled TREC 2012 Web sample campaign and show it."""
    from .demo import run_demo

    run_demo(out, echo=click.echo)


@main.command("gains")
@_campaign
@click.option("--topic", help="Define the profile for one topic only (per-topic gains).")
@_replace
@click.argument("name")
@click.argument("spec")
@click.pass_context
@_fail_cleanly
def gains_command(ctx, campaign, topic, replace, name, spec):
    """Define gain profile NAME: SPEC is 'level=gain,...' or 'g1:g2:...' (levels 1, 2, ...)."""
    from .gains import define_gain_profile

    con = _open(ctx)
    gains = define_gain_profile(con, campaign, name, spec, topic_id=topic, replace=replace)
    shown = ", ".join(f"L{level}={gain:g}" for level, gain in sorted(gains.items()))
    click.echo(f"{campaign}: gain profile '{name}'" + (f" for topic {topic}" if topic else "") + f": {shown}")


@main.command("evaluate")
@_campaign
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="Measure (AP, nDCG@10, P(rel=2)@5, or a trec_eval name such as map, P.5,10); repeatable.")
@click.option("--runs", "runs", multiple=True, help="Runs to evaluate (repeatable or comma-separated); default all.")
@click.option("--ordering", type=click.Choice(["trec", "rank", "file"]), default="trec", show_default=True,
              help="trec: score desc, docno desc; rank: the rank column; file: file order.")
@click.option("--max-depth", type=click.IntRange(min=1), help="Keep the first N documents of each list.")
@click.option("--judged-only", is_flag=True, help="Drop unjudged documents first (trec_eval -J).")
@click.option("--topics", type=click.Choice(["qrels", "intersection"]), default="qrels", show_default=True,
              help="qrels: every judged topic (missing ones score 0); intersection: the run's topics.")
@click.option("--gains", help="Gain profile for gain-based measures that do not name one (e.g. exp).")
@click.option("--no-store", is_flag=True, help="Compute and print only; store nothing.")
@click.option("--per-topic", is_flag=True, help="Print per-topic values (long form) instead of means.")
@_output_option
@click.pass_context
@_fail_cleanly
def evaluate_command(ctx, campaign, measures, runs, ordering, max_depth, judged_only, topics, gains, no_store,
                     per_topic, fmt):
    """Compute measures for a campaign's runs, store per-topic scores, print the means."""
    from .evaluation import evaluate, with_default_gain
    from .output import render

    con = _open(ctx)
    chosen = with_default_gain(list(measures), gains) if gains else list(measures)
    run_names = [name for value in runs for name in value.split(",") if name]
    result = evaluate(con, campaign, chosen, runs=run_names or None, ordering=ordering,
                      max_depth=max_depth, judged_only=judged_only, topics=topics, store=not no_store)
    if per_topic:
        click.echo(render(result.per_topic, fmt))
        if len(result.texts):
            click.echo()
            click.echo(render(result.texts[["run_id", "topic_id", "measure", "value_text"]], fmt))
    else:
        click.echo(render(result.wide().reset_index(), fmt))
    if result.evaluation_id is not None:
        click.echo(f"stored as evaluation {result.evaluation_id}", err=True)


@main.command("trec_eval", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-q", "per_topic", is_flag=True, help="Print every topic's values, then the summary.")
@click.option("-c", "complete", is_flag=True, help="Average over every qrels topic (missing topics score 0).")
@click.option("-n", "no_summary", is_flag=True, help="No summary (the 'all' lines).")
@click.option("-J", "judged_only", is_flag=True, help="Judged documents only (unjudged are removed).")
@click.option("-M", "max_depth", type=click.IntRange(min=1), help="Documents per topic (after ordering).")
@click.option("-l", "relevance_level", type=int, default=1, show_default=True,
              help="Lowest level counted as relevant.")
@click.option("-N", "collection_size", type=int, default=0, help="Documents in the collection (utility).")
@click.option("-m", "measures", multiple=True, metavar="MEASURE[.PARAMS]",
              help="Measure or nickname (official, all_trec, set); repeatable.")
@click.option("-Z", "zscores", type=click.Path(dir_okay=False),
              help="Print z-scores against the 'topic measure mean sd' lines of this file.")
@click.option("-R", "rel_format", default="qrels", type=click.Choice(["qrels", "qrels_jg"]),
              help="Relevance format: qrels, or qrels_jg (judgment groups; the *_avgjg measures).")
@click.option("-T", "results_format", default="trec_results", help="Results format: only 'trec_results'.")
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("results", type=click.Path(dir_okay=False))
def trec_eval_command(per_topic, complete, no_summary, judged_only, max_depth, relevance_level,
                      collection_size, measures, zscores, rel_format, results_format, qrels, results):
    """trec_eval 10.0 on QRELS and a RESULTS run, through pyeval's SQL (byte-identical output)."""
    from .compat.trec_eval import TrecEvalError, TrecEvalOptions, run

    try:
        if results_format != "trec_results":
            raise TrecEvalError(f"trec_eval: -T {results_format} is not supported by pyeval (trec_results only)")
        options = TrecEvalOptions(
            per_topic=per_topic, complete=complete, no_summary=no_summary, max_depth=max_depth,
            relevance_level=relevance_level, judged_only=judged_only, collection_size=collection_size,
            measures=list(measures), zscores=zscores, rel_format=rel_format,
        )
        click.echo(run(qrels, results, options), nl=False)
    except TrecEvalError as exc:
        click.echo(str(exc), err=True)
        sys.exit(exc.status)
    except DuplicateEntryError as exc:  # trec_eval: "duplicate docs", a measure failure
        click.echo(f"trec_eval: {exc}", err=True)
        sys.exit(4)
    except PyevalError as exc:
        click.echo(f"trec_eval: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
