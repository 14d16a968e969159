"""The ``pyeval`` command: thin click glue over the library (no SQL, no arithmetic here).

Errors pyeval raises on purpose (:class:`pyeval.errors.PyevalError`) become a one-line
``Error: ...`` and exit status 1; anything else is a bug and keeps its traceback.
"""
from __future__ import annotations

import atexit
import functools
import gc
import sys
import warnings

import click

from . import warehouse
from .errors import DuplicateEntryError, PyevalError


def _fail_cleanly(command):
    """Turn PyevalError, and the environment's faults (disk full, a read-only file system, a
    folder without write permission), into click's one-line error (exit 1)."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        import duckdb

        try:
            return command(*args, **kwargs)
        except PyevalError as exc:
            raise click.ClickException(exc.command_line or str(exc)) from exc
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(f"{where}{exc.strerror or exc}") from exc
        except (duckdb.IOException, duckdb.OutOfMemoryException) as exc:
            raise click.ClickException(f"{_current_db()}: {str(exc).splitlines()[0]}") from exc
        except duckdb.TransactionException as exc:
            if "Failed to commit" not in str(exc):  # a write conflict or the like: a bug
                raise
            raise click.ClickException(f"{_current_db()}: {str(exc).splitlines()[0]}") from exc

    return wrapper


def _current_db() -> str:
    """The --db of the running command (for an error that names no file)."""
    ctx = click.get_current_context(silent=True)
    return (ctx.find_object(dict) or {}).get("db", warehouse.DEFAULT_PATH) if ctx else warehouse.DEFAULT_PATH


def _show_warning(message, category, filename, lineno, file=None, line=None):
    click.echo(f"warning: {message}", err=True)


def _open(ctx: click.Context, read_only: bool = False, *, create: bool = True, external_access: bool = True):
    """The --db warehouse. ``create``: a missing file may be created (loads); commands that need
    a stored campaign pass False, so a mistyped --db leaves no empty warehouse behind."""
    con = warehouse.connect(ctx.obj["db"], read_only=read_only, create=create and not read_only,
                            external_access=external_access)
    ctx.call_on_close(con.close)
    return con


def _non_empty(ctx, param, value):
    if value is not None and not value.strip():
        raise click.BadParameter("must not be empty")
    return value


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


_campaign = click.option("--campaign", "-C", required=True, callback=_non_empty,
                         help="Campaign (test collection) name.")
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
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.pass_context
@_fail_cleanly
def load_qrels_command(ctx, campaign, qrels_format, description, replace, files):
    """Load qrels FILES (.gz accepted; several files, a folder or a quoted pattern give one set of
    judgments together); creates the campaign if it does not exist."""
    from .loaders import load_qrels

    con = _open(ctx)
    report = load_qrels(con, campaign, list(files), format=qrels_format, replace=replace, description=description)
    click.echo(report.summary())


def _run_metadata_options(command):
    """--system, --team, --date and --tag: a run's metadata (load run, annotate)."""
    command = click.option("--tag", "tags", multiple=True, help="A tag of the run (repeatable), e.g. production.")(command)
    command = click.option("--date", "run_date", type=click.DateTime(formats=["%Y-%m-%d"]),
                           help="The date the run was made (YYYY-MM-DD), for trends by month.")(command)
    command = click.option("--team", help="The team that made the run.")(command)
    return click.option("--system", help="The system the run comes from (trend views group by it).")(command)


def _run_metadata(system, team, run_date, tags):
    """The RunMetadata of the --system, --team, --date and --tag options (None when none is given)."""
    from .loaders import RunMetadata

    if not (system or team or run_date or tags):
        return None
    return RunMetadata(system=system, team=team, run_date=run_date.date() if run_date else None, tags=tuple(tags))


@load.command("run")
@_campaign
@click.option("--name", help="Run name (one FILE only); default: the run tag of the first line.")
@_replace
@_run_metadata_options
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.pass_context
@_fail_cleanly
def load_run_command(ctx, campaign, name, replace, system, team, run_date, tags, files):
    """Load TREC run FILES (6 columns, .gz accepted) into a campaign, all or none.

    A FILE may be a folder (its files) or a quoted glob pattern ('runs/*.gz')."""
    from .loaders import load_runs

    if name is not None and len(files) > 1:
        raise click.UsageError("--name applies to one FILE; load files of the same tag one by one")
    metadata = _run_metadata(system, team, run_date, tags)
    con = _open(ctx)
    reports = load_runs(con, campaign, list(files), names=[name] * len(files), replace=replace, metadata=metadata)
    for report in reports:
        click.echo(report.summary())


@load.command("campaign")
@click.option("--campaign", "-C", help="Campaign name; default: the folder's name.")
@click.option("--qrels", "qrels_name", metavar="NAME", help="The qrels file to load, when the folder has several.")
@click.option("--intents", "intents_name", metavar="NAME", help="The intents file to load, when the folder has several.")
@click.option("--description", help="A description of the campaign (stored).")
@click.option("--run-names", type=click.Choice(["tag", "file"]), default="tag", show_default=True,
              help="Name each run by its first line's run tag, or by its file name (runs that share a tag).")
@_replace
@_run_metadata_options
@click.argument("folder", type=click.Path(file_okay=False))
@click.pass_context
@_fail_cleanly
def load_campaign_command(ctx, campaign, qrels_name, intents_name, description, run_names, replace, system, team,
                          run_date, tags, folder):
    """Load a campaign FOLDER in one transaction: its qrels, optional intents, topics XML and
    document lengths, and every run in its runs/ folder (docs/loading.md)."""
    from .loaders import load_campaign

    con = _open(ctx)
    report = load_campaign(con, folder, campaign_id=campaign, qrels=qrels_name, intents=intents_name,
                           replace=replace, description=description,
                           metadata=_run_metadata(system, team, run_date, tags), run_names=run_names,
                           progress=True)
    click.echo(report.summary())


@load.command("intents")
@_campaign
@_replace
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.pass_context
@_fail_cleanly
def load_intents_command(ctx, campaign, replace, files):
    """Load intent probabilities from FILES: Iprob (topic intent prob) or DINprob (... inf|nav).

    Several FILES (a folder, a quoted glob) are the campaign's intents together, all or none."""
    from .loaders import load_intents

    con = _open(ctx)
    click.echo(load_intents(con, campaign, list(files), replace=replace).summary())


@load.command("doclengths")
@_campaign
@_replace
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.pass_context
@_fail_cleanly
def load_doclengths_command(ctx, campaign, replace, files):
    """Load document lengths in characters (docno length) for the U-measure family.

    Several FILES (a folder, a quoted glob) are the campaign's lengths together, all or none."""
    from .loaders import load_doclengths

    con = _open(ctx)
    click.echo(load_doclengths(con, campaign, list(files), replace=replace).summary())


@load.command("topics")
@_campaign
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_context
@_fail_cleanly
def load_topics_command(ctx, campaign, file):
    """Load topic titles (a TREC topics file, or topic_id<TAB>title) for dashboards."""
    from .loaders import load_topics

    con = _open(ctx)
    click.echo(load_topics(con, campaign, file).summary())


@main.command("sql")
@click.argument("query")
@_output_option
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
@_fail_cleanly
def sql_command(ctx, query, fmt, write, external_access):
    """Run an SQL QUERY on an existing warehouse and print its result."""
    from .output import render
    from .query import run_sql

    files = write or external_access
    con = _open(ctx, read_only=not write, create=False, external_access=files)
    click.echo(render(run_sql(con, query, files=files), fmt))


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
    metavar="PATH",
    help="Warehouse file the demo (re)builds; default: a --db given on the command line, else "
    "pyeval-demo.duckdb.",
)
@click.pass_context
@_fail_cleanly
def demo_command(ctx, out):
    """Build a warehouse from the bundled TREC 2012 Web sample campaign and show it."""
    from .demo import run_demo

    if out is None:
        given = ctx.parent.get_parameter_source("db") is click.core.ParameterSource.COMMANDLINE
        out = ctx.obj["db"] if given else "pyeval-demo.duckdb"
    run_demo(out, echo=click.echo)


@main.command("sample")
@click.argument("directory", type=click.Path(file_okay=False))
@_fail_cleanly
def sample_command(directory):
    """Write the bundled TREC 2012 Web sample campaign into DIRECTORY as plain files: qrels (ad
    hoc, diversity), intents, topics, document lengths and runs/ (the README's examples use them)."""
    from .sample import write_sample

    written = write_sample(directory)
    click.echo(f"wrote {len(written)} files of the TREC 2012 Web sample campaign to {directory} "
               f"(its README.md says what each is)")


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

    con = _open(ctx, create=False)
    gains = define_gain_profile(con, campaign, name, spec, topic_id=topic, replace=replace)
    shown = ", ".join(f"L{level}={gain:g}" for level, gain in sorted(gains.items()))
    click.echo(f"{campaign}: gain profile '{name}'" + (f" for topic {topic}" if topic else "") + f": {shown}")


@main.group("intents")
def intents_group() -> None:
    """Intent probability variants and intent types of a diversity campaign."""


@intents_group.command("generate")
@_campaign
@click.option("--method", type=click.Choice(["uniform", "nonuniform"]), required=True,
              help="uniform: 1/n; nonuniform: the j-th of n intents gets 2^(n-j+1)/sum_k 2^k (Sakai & Song).")
@_replace
@click.argument("name")
@click.pass_context
@_fail_cleanly
def intents_generate_command(ctx, campaign, method, replace, name):
    """Store generated probabilities of the campaign's intents as variant NAME (probs=NAME)."""
    from .diversity.campaigns import generate_intent_variant

    con = _open(ctx, create=False)
    rows = generate_intent_variant(con, campaign, name, method, replace=replace)
    click.echo(f"{campaign}: probability variant '{name}' ({method}): {rows} intents")


@intents_group.command("load")
@_campaign
@_replace
@click.argument("name")
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_context
@_fail_cleanly
def intents_load_command(ctx, campaign, replace, name, file):
    """Store the probabilities of an Iprob/DINprob FILE as variant NAME (types are not changed)."""
    from .diversity.campaigns import load_intent_variant

    con = _open(ctx, create=False)
    rows = load_intent_variant(con, campaign, name, file, replace=replace)
    click.echo(f"{campaign}: probability variant '{name}' from {file}: {rows} intents")


@intents_group.command("topics")
@_campaign
@click.option("--probs", type=click.Choice(["uniform", "nonuniform"]), default="uniform", show_default=True,
              help="Probabilities to give the subtopics (the XML has none).")
@click.option("--types-only", is_flag=True, help="Only set the types of the intents the campaign has.")
@_replace
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_context
@_fail_cleanly
def intents_topics_command(ctx, campaign, probs, types_only, replace, file):
    """Intents from a TREC topics XML FILE: every <subtopic> with its type (type="nav")."""
    from .loaders.topic_intents import load_intents_from_topics, set_intent_types

    con = _open(ctx, create=False)
    if types_only:
        click.echo(f"{campaign}: types of {set_intent_types(con, campaign, file)} intents set from {file}")
    else:
        click.echo(load_intents_from_topics(con, campaign, file, probs=probs, replace=replace).summary())


@main.command("to-traditional")
@click.option("--method", type=click.Choice(["max", "count"]), default="max", show_default=True,
              help="max: the highest level over the intents; count: the number of intents covered.")
@click.option("--negative-as", type=click.Choice(["unjudged", "nonrelevant"]), default="unjudged",
              show_default=True, help="A document judged negative (spam) for all its intents.")
@click.option("--description", help="A description of the new campaign.")
@click.argument("source")
@click.argument("target")
@click.pass_context
@_fail_cleanly
def to_traditional_command(ctx, method, negative_as, description, source, target):
    """Store the "2T" ad hoc conversion of diversity campaign SOURCE as new campaign TARGET."""
    from .diversity.campaigns import to_traditional

    con = _open(ctx, create=False)
    rows = to_traditional(con, source, target, method=method, negative_as=negative_as, description=description)
    click.echo(f"{target}: {rows} judgments converted from {source} ({method}), with its runs")


@main.command("evaluate")
@_campaign
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="Measure (AP, nDCG@10, P(rel=2)@5, or a trec_eval name such as map, P.5,10); repeatable.")
@click.option("--runs", "runs", multiple=True, help="Runs to evaluate (repeatable or comma-separated); default all.")
@click.option("--ordering", type=click.Choice(["trec", "trec-asc", "rank", "file"]), default="trec", show_default=True,
              help="trec: score desc, docno desc; trec-asc: score desc, docno asc; rank: the rank column; "
                   "file: file order.")
@click.option("--max-depth", type=click.IntRange(min=1), help="Keep the first N documents of each list.")
@click.option("--judged-only", is_flag=True, help="Drop unjudged documents first (trec_eval -J).")
@click.option("--topics", type=click.Choice(["qrels", "intersection"]), default="qrels", show_default=True,
              help="qrels: every judged topic (missing ones score 0); intersection: the run's topics.")
@click.option("--gains", help="Gain profile for gain-based measures that do not name one (e.g. exp).")
@click.option("--probs", help="Intent probability variant for diversity measures that do not name one.")
@click.option("--no-store", is_flag=True, help="Compute and print only; store nothing.")
@click.option("--per-topic", is_flag=True, help="Print per-topic values (long form) instead of means.")
@click.option("--engine", type=click.Choice(["duckdb", "spark"]), default="duckdb", show_default=True,
              help="spark: run the metric SQL on a local Spark session (pip install 'pyeval[spark]').")
@click.option("--export", "export_dir", type=click.Path(file_okay=False),
              help="--engine spark: read the tables from this `pyeval export --parquet` tree.")
@_output_option
@click.pass_context
@_fail_cleanly
def evaluate_command(ctx, campaign, measures, runs, ordering, max_depth, judged_only, topics, gains, probs,
                     no_store, per_topic, engine, export_dir, fmt):
    """Compute measures for a campaign's runs, store per-topic scores, print the means."""
    from .evaluation import evaluate, evaluate_summary, summed_measures, with_default_gain, with_default_probs
    from .output import render, render_rows

    con = _open(ctx, read_only=no_store, create=False)
    chosen = with_default_gain(list(measures), gains) if gains else list(measures)
    if probs:
        chosen = with_default_probs(chosen, probs)
    run_names = [name for value in runs for name in value.split(",") if name]
    settings = dict(runs=run_names or None, ordering=ordering, max_depth=max_depth, judged_only=judged_only,
                    topics=topics, store=not no_store)
    if export_dir and engine != "spark":
        raise PyevalError("--export needs --engine spark")
    if engine == "duckdb" and not per_topic:  # the means only: computed, stored and combined in SQL, no pandas
        summary = evaluate_summary(con, campaign, chosen, **settings)
        click.echo(render_rows(["run_id", *summary.measures], summary.rows, fmt,
                               integer_columns=summed_measures(summary.measures)))
        if summary.evaluation_id is not None:
            click.echo(f"stored as evaluation {summary.evaluation_id}", err=True)
        return
    if engine == "spark":
        from .engines import spark

        result = spark.evaluate(con, campaign, chosen, export=export_dir, **settings)
    else:
        result = evaluate(con, campaign, chosen, **settings)
    if per_topic:
        click.echo(render(result.per_topic, fmt))
        if len(result.texts):
            click.echo()
            click.echo(render(result.texts[["run_id", "topic_id", "measure", "value_text"]], fmt))
    else:
        wide = result.wide()
        click.echo(render(wide.reset_index(), fmt, integer_columns=summed_measures(wide.columns)))
    if result.evaluation_id is not None:
        click.echo(f"stored as evaluation {result.evaluation_id}", err=True)


def _skip_the_last_collection() -> None:
    """For a drop-in, whose process ends with the command: at exit, freeze every object out of
    the cyclic garbage collector, so that the interpreter's finalisation does not traverse them
    all once more (about 20 ms of a 0.35 s `pyeval trec_eval`, docs/benchmarks.md). The command
    closes its in-memory warehouse and its files itself; objects are still freed by reference
    counting."""
    atexit.unregister(gc.freeze)  # registered once however many commands run in this process
    atexit.register(gc.freeze)


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
@click.option("-R", "rel_format", default="qrels",
              type=click.Choice(["qrels", "qrels_jg", "prefs", "qrels_prefs"]),
              help="Relevance format: qrels; qrels_jg (judgment groups; the *_avgjg measures); "
                   "prefs or qrels_prefs (preference judgments; the prefs_* measures).")
@click.option("-T", "results_format", default="trec_results", help="Results format: only 'trec_results'.")
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("results", type=click.Path(dir_okay=False))
def trec_eval_command(per_topic, complete, no_summary, judged_only, max_depth, relevance_level,
                      collection_size, measures, zscores, rel_format, results_format, qrels, results):
    """trec_eval 10.0 on QRELS and a RESULTS run, through pyeval's SQL (byte-identical output)."""
    from .compat.trec_eval import TrecEvalError, TrecEvalOptions, run

    _skip_the_last_collection()

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


@main.command("ntcireval", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-r", "qrels", required=True, type=click.Path(dir_okay=False),
              help="NTCIR qrels: 'topic docno Lk' lines.")
@click.option("-g", "gains", required=True, metavar="G1:G2[:...]",
              help="Gain of each relevance level, lowest first; its length is the highest level.")
@click.option("--cutoffs", default="1000", show_default=True, metavar="K[,K...]",
              help="Document cutoffs of the @ measures (at most 9), printed in the order given.")
@click.option("--beta", type=float, default=1.0, show_default=True, help="Blended ratio's beta (Q-measure).")
@click.option("--gamma", type=float, default=0.95, show_default=True, help="Rank-biased NCU's gamma.")
@click.option("--logb", type=float, default=2.0, show_default=True,
              help="Log base of nDCG@l's discount (0: natural log).")
@click.option("--rbp", type=float, default=0.95, show_default=True, help="RBP persistence p.")
@click.option("--rbup", type=float, default=None,
              help="iRBU's u (190111: print iRBU@l; 2020: default 0.99, also NCUrb,IE's u).")
@click.option("-j", "condensed", is_flag=True, help="Condensed lists (unjudged removed) and the bpref family.")
@click.option("--gap", is_flag=True, help="Also print GAP and GAP@l.")
@click.option("--format", "version", type=click.Choice(["190111", "2020"]), default="190111", show_default=True,
              help="Which NTCIREVAL version's measure set and names.")
@click.option("--truncate", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Documents kept per topic, in file order (TRECsplitruns' depth).")
@click.argument("results", metavar="RUN", type=click.Path(dir_okay=False))
def ntcireval_command(qrels, gains, cutoffs, beta, gamma, logb, rbp, rbup, condensed, gap, version, truncate,
                      results):
    """NTCIREVAL's NTCIR-eval/compute on NTCIR qrels and a TREC RUN (file order), its output lines."""
    from .compat.ntcireval import NtcirevalError, NtcirevalOptions, run

    _skip_the_last_collection()

    options = NtcirevalOptions(gains=gains, cutoffs=cutoffs, beta=beta, gamma=gamma, logb=logb, rbp=rbp,
                               rbup=rbup, condensed=condensed, gap=gap, format=version, truncate=truncate)
    try:
        click.echo(run(qrels, results, options), nl=False)
    except NtcirevalError as exc:
        click.echo(f"pyeval ntcireval: {exc}", err=True)
        sys.exit(exc.status)
    except PyevalError as exc:  # loaders: FILE:LINE: problem
        click.echo(f"pyeval ntcireval: {exc}", err=True)
        sys.exit(2)


@main.command("ndeval", context_settings={"help_option_names": ["-h", "-help", "--help"]})
@click.option("-c", "complete", is_flag=True, help="Average over every qrels topic (missing topics count 0).")
@click.option("-alpha", "alpha", type=float, default=0.5, show_default=True,
              help="Redundancy intolerance of alpha-nDCG, ERR-IA and NRBP.")
@click.option("-beta", "beta", type=float, default=0.5, show_default=True, help="Patience of NRBP.")
@click.option("-traditional", "traditional", is_flag=True,
              help="Order by score, then docno descending, instead of the rank column.")
@click.option("-M", "depth", type=int, default=None, help="Keep the first N documents of each topic.")
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("results", metavar="RUN", type=click.Path(dir_okay=False))
def ndeval_command(complete, alpha, beta, traditional, depth, qrels, results):
    """ndeval 4.5 (TREC Web diversity) on QRELS and a TREC RUN: its CSV, byte for byte."""
    from .compat.ndeval import NdevalError, NdevalOptions, run

    _skip_the_last_collection()

    options = NdevalOptions(alpha=alpha, beta=beta, traditional=traditional, complete=complete, depth=depth)
    try:
        click.echo(run(qrels, results, options), nl=False)
    except NdevalError as exc:
        click.echo(f"ndeval: {exc}", err=True)
        sys.exit(exc.status)
    except PyevalError as exc:
        click.echo(f"ndeval: {exc}", err=True)
        sys.exit(1)


# --- resampling (issue 7): significance, discpower, compare ---------------------------------

_RESAMPLING_TESTS = ["bootstrap", "tukey", "randomization", "t", "sign", "wilcoxon"]


def _resampling_options(command):
    """Options shared by significance, discpower and compare."""
    for option in reversed([
        click.option("--runs", "runs", multiple=True,
                     help="Runs to compare (repeatable or comma-separated); default every run with stored scores."),
        click.option("-B", "--replicates", type=click.IntRange(min=1),
                     help="Resamples: default 1000 (bootstrap), 5000 (tukey), 100000 (randomization; exact if 2^n <= B)."),
        click.option("--seed", type=int, default=0, show_default=True,
                     help="Seed of the replicates and of --runs-sample (NumPy PCG64)."),
        click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level."),
        click.option("--correction", type=click.Choice(["none", "holm", "bh"]), default="none", show_default=True,
                     help="Multiple-comparison correction of pairwise p-values (not for tukey)."),
        click.option("--compare", "comparison", type=click.Choice(["ge", "gt"]), default="ge", show_default=True,
                     help="Count resampled statistics >= the observed one (tie-aware) or > (JIP 2013 Fig. 4)."),
        click.option("--no-store", is_flag=True, help="Compute and print only; store nothing (read-only)."),
    ]):
        command = option(command)
    return command


def _run_names(runs) -> list[str] | None:
    names = [name for value in runs for name in value.split(",") if name]
    return names or None


@main.command("significance")
@_campaign
@click.option("-m", "--measure", required=True, help="A measure with stored scores (AP, nDCG@10, map, ...).")
@click.option("--test", type=click.Choice(_RESAMPLING_TESTS), default="bootstrap", show_default=True,
              help="Paired bootstrap, randomised Tukey HSD, randomisation (sign flips), paired t, sign, Wilcoxon.")
@_resampling_options
@click.option("--runs-sample", type=click.IntRange(min=2), help="Test a seeded random sample of K runs.")
@click.option("--p-value", "p_convention", type=click.Choice(["count", "plus-one"]), default="count",
              show_default=True, help="Resampled p-value: count/B, or (count+1)/(B+1).")
@click.option("--tau", type=float, default=0.0, show_default=True, help="Sign test: tie band (|z| <= tau dropped).")
@_output_option
@click.pass_context
@_fail_cleanly
def significance_command(ctx, campaign, measure, test, runs, replicates, seed, alpha, correction, comparison,
                         no_store, runs_sample, p_convention, tau, fmt):
    """Test every pair of runs on a stored measure; store and print the pairwise results."""
    from .output import render
    from .resampling import significance

    con = _open(ctx, read_only=no_store, create=False)
    result = significance(con, campaign, measure, test, runs=_run_names(runs), runs_sample=runs_sample,
                          replicates=replicates, seed=seed, alpha=alpha, correction=correction,
                          comparison=comparison, p_convention=p_convention, tau=tau, store=not no_store,
                          progress=True)
    shown = [c for c in ("run_a", "run_b", "mean_diff", "statistic", "pvalue", "p_adjusted", "significant",
                         "effect_size", "ci_low", "ci_high", "delta") if c in result.pairs]
    click.echo(render(result.pairs[shown].rename(columns={"pvalue": "p"}), fmt,
                      p_resolution=1 / result.replicates if result.replicates else None))
    click.echo(result.summary(), err=True)
    if result.test_id is not None:
        click.echo(f"stored as test {result.test_id}", err=True)


@main.command("discpower")
@_campaign
@click.option("-m", "--measure", "measures", multiple=True, required=True, help="Measure (repeatable).")
@click.option("--test", type=click.Choice(_RESAMPLING_TESTS), default="bootstrap", show_default=True,
              help="The test applied to every run pair of every measure.")
@_resampling_options
@click.option("--runs-sample", type=click.IntRange(min=2), help="Use a seeded random sample of K runs.")
@click.option("--plot", type=click.Path(dir_okay=False), help="Save the ASL curves as a PNG file.")
@click.option("--curves", type=click.Path(dir_okay=False), help="Write the ASL curves as CSV (measure,rank,asl).")
@click.option("--engine", type=click.Choice(["numpy", "ray"]), default="numpy", show_default=True,
              help="ray: one Ray task per shard of measures, bit-identical results (pip install 'pyeval[ray]').")
@click.option("--workers", type=click.IntRange(min=1), help="--engine ray: shards (default the cluster's CPUs).")
@click.option("--ray-address", help="--engine ray: a running cluster (default a local one).")
@_output_option
@click.pass_context
@_fail_cleanly
def discpower_command(ctx, campaign, measures, test, runs, replicates, seed, alpha, correction, comparison,
                      no_store, runs_sample, plot, curves, engine, workers, ray_address, fmt):
    """Discriminative power of measures: significant run pairs at alpha, delta, ASL curves."""
    from .output import render
    from .resampling import discriminative_power

    con = _open(ctx, read_only=no_store, create=False)
    if engine == "ray":
        from .engines import ray_engine

        power = ray_engine.discriminative_power(
            con, campaign, list(measures), test, runs=_run_names(runs), runs_sample=runs_sample,
            replicates=replicates, seed=seed, alpha=alpha, correction=correction, comparison=comparison,
            store=not no_store, workers=workers, address=ray_address)
    else:
        power = discriminative_power(con, campaign, list(measures), test, runs=_run_names(runs),
                                     runs_sample=runs_sample, replicates=replicates, seed=seed, alpha=alpha,
                                     correction=correction, comparison=comparison, store=not no_store,
                                     progress=True)
    click.echo(render(power.table.drop(columns=["test_id", "warnings"]), fmt))
    first = next(iter(power.results.values()))
    click.echo(f"{campaign}: {len(first.matrix.run_ids)} runs ({', '.join(first.matrix.run_ids)}), "
               f"{len(first.matrix.topic_ids)} topics", err=True)
    if curves:
        power.curves.to_csv(curves, index=False)
        click.echo(f"ASL curves written to {curves}", err=True)
    if plot:
        power.plot(plot)
        click.echo(f"ASL curves plotted to {plot}", err=True)
    if power.discpower_id is not None:
        click.echo(f"stored as discriminative power {power.discpower_id}", err=True)


@main.command("compare")
@_campaign
@click.option("-m", "--measure", "measures", multiple=True, required=True, help="Measure (repeatable).")
@click.option("--baseline", help="Mark runs significantly better or worse than this run.")
@click.option("--test", type=click.Choice(_RESAMPLING_TESTS), default="bootstrap", show_default=True,
              help="The test behind the marks (stored results are reused).")
@_resampling_options
@click.option("--format", "fmt", type=click.Choice(["markdown", "latex"]), default="markdown", show_default=True,
              help="Markdown, or LaTeX (booktabs).")
@click.pass_context
@_fail_cleanly
def compare_command(ctx, campaign, measures, baseline, test, runs, replicates, seed, alpha, correction, comparison,
                    no_store, fmt):
    """A run x measure table of means with significance marks (Markdown or LaTeX booktabs)."""
    from .resampling import compare

    con = _open(ctx, read_only=no_store, create=False)
    report = compare(con, campaign, list(measures), baseline=baseline, test=test, alpha=alpha,
                     correction=correction, runs=_run_names(runs), replicates=replicates, seed=seed,
                     comparison=comparison, store=not no_store)
    click.echo(report.render(fmt))


# --- resampling stage II (issue 8): swaprate, stability, correlate, concordance, robustness, mem ---


def _stage2_options(command):
    """--runs, --no-store, --format shared by the stage II commands."""
    for option in reversed([
        click.option("--runs", "runs", multiple=True,
                     help="Runs (repeatable or comma-separated); default every run with stored scores for all measures."),
        click.option("--no-store", is_flag=True, help="Compute and print only; store nothing (read-only)."),
    ]):
        command = option(command)
    return _output_option(command)


def _subset_options(command):
    """--subset-size, --trials, --seed of swaprate and stability."""
    for option in reversed([
        click.option("-c", "--subset-size", type=click.IntRange(min=1),
                     help="Topics per subset c (default: half of the topics)."),
        click.option("--trials", type=click.IntRange(min=1), default=1000, show_default=True,
                     help="Subsets (swaprate: subset pairs) drawn; shared by every run pair and measure."),
        click.option("--seed", type=int, default=0, show_default=True, help="Seed of the subsets (NumPy PCG64)."),
    ]):
        command = option(command)
    return command


def _stored_note(kind: str, identifier) -> None:
    if identifier is not None:
        click.echo(f"stored as {kind} {identifier}", err=True)


@main.command("swaprate")
@_campaign
@click.option("-m", "--measure", "measures", multiple=True, required=True, help="Measure (repeatable).")
@_subset_options
@click.option("--sampling", type=click.Choice(["disjoint", "with_replacement"]), default="disjoint",
              show_default=True, help="Disjoint subset pairs (Voorhees-Buckley) or bootstrap samples (Soboroff).")
@click.option("--rule", type=click.Choice(["strict", "original"]), default="strict", show_default=True,
              help="strict: exactly one zero difference is a swap too (Sakai 2005).")
@click.option("--bin-width", type=float, default=0.01, show_default=True, help="Width of the difference bins.")
@click.option("--bins", type=click.IntRange(min=2), default=21, show_default=True,
              help="Number of bins; the last one is open (>= (bins-1) x width).")
@click.option("--max-swap-rate", type=float, default=0.05, show_default=True,
              help="Swap rate for the read-off (5 %: 95 % confidence).")
@click.option("--per-bin", is_flag=True, help="Print the swap rate of every bin (bin x measure).")
@click.option("--plot", type=click.Path(dir_okay=False), help="Save swap rate against bin as a PNG file.")
@_stage2_options
@click.pass_context
@_fail_cleanly
def swaprate_command(ctx, campaign, measures, subset_size, trials, seed, sampling, rule, bin_width, bins,
                     max_swap_rate, per_bin, plot, runs, no_store, fmt):
    """Swap rates per difference bin and the difference needed for 95 % confidence."""
    from .output import render
    from .resampling import swap_rate

    con = _open(ctx, read_only=no_store, create=False)
    result = swap_rate(con, campaign, list(measures), subset_size=subset_size, trials=trials, seed=seed,
                       sampling=sampling, rule=rule, bin_width=bin_width, bins=bins, max_swap_rate=max_swap_rate,
                       runs=_run_names(runs), store=not no_store)
    if per_bin:
        wide = result.table.pivot(index=["bin", "bin_low"], columns="measure", values="swap_rate")
        click.echo(render(wide[list(dict.fromkeys(result.table["measure"]))].reset_index(), fmt))
    else:
        click.echo(render(result.summary.drop(columns=["evaluation_id", "bin_width", "warnings"]), fmt))
    s = result.settings
    click.echo(f"{campaign}: {s['runs']} runs ({s['pairs']} pairs), {s['topic_count']} topics, c = {s['subset_size']}, "
               f"{trials} trials ({sampling}, {rule} swaps), seed {seed}", err=True)
    if plot:
        result.plot(plot)
        click.echo(f"swap rates plotted to {plot}", err=True)
    _stored_note("swap-rate experiment", result.swaprate_id)


def _floats(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated numbers, got {text!r}") from None


@main.command("stability")
@_campaign
@click.option("-m", "--measure", "measures", multiple=True, required=True, help="Measure (repeatable).")
@_subset_options
@click.option("--fuzziness", "fuzziness", metavar="F[,F...]",
              help="Fuzziness values (default 0.01,0.02,...,0.20).")
@click.option("--fuzz", type=click.Choice(["relative", "absolute"]), default="relative", show_default=True,
              help="Margin f x max(a, b) (Buckley-Voorhees) or f.")
@click.option("--strict-bv-rule", is_flag=True, help="Equal means with a zero margin count as GT(y, x) (literal rule).")
@click.option("--plot", type=click.Path(dir_okay=False), help="Save the MR/PT curves as a PNG file.")
@_stage2_options
@click.pass_context
@_fail_cleanly
def stability_command(ctx, campaign, measures, subset_size, trials, seed, fuzziness, fuzz, strict_bv_rule, plot,
                      runs, no_store, fmt):
    """Minority rate and proportion of ties over topic subsets, for each fuzziness."""
    from .output import render
    from .resampling import stability
    from .resampling.stability import DEFAULT_FUZZINESS

    values = _floats(fuzziness) or list(DEFAULT_FUZZINESS)
    con = _open(ctx, read_only=no_store, create=False)
    result = stability(con, campaign, list(measures), fuzziness=values, subset_size=subset_size, trials=trials,
                       seed=seed, fuzz=fuzz, strict_bv_rule=strict_bv_rule, runs=_run_names(runs),
                       store=not no_store)
    click.echo(render(result.table[["measure", "fuzziness", "minority_rate", "proportion_of_ties"]], fmt))
    click.echo(result.summary(0.05), err=True)
    if plot:
        result.plot(plot)
        click.echo(f"MR/PT curves plotted to {plot}", err=True)
    _stored_note("stability experiment", result.stability_id)


@main.command("correlate")
@_campaign
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="Measure (repeatable, at least 2; the first of a pair is tau_ap's reference).")
@click.option("--test", type=click.Choice([*_RESAMPLING_TESTS, "none"]), default="bootstrap", show_default=True,
              help="Test behind the agreement of significant pairs (stored tests are reused); none: skip it.")
@click.option("-B", "--replicates", type=click.IntRange(min=1), help="Resamples of the test (its default).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the test's replicates.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level.")
@click.option("--matrix", "matrix_column", type=click.Choice(["tau", "tau_b", "tau_ap", "tau_ap_symmetric", "agreement"]),
              help="Print a measure x measure matrix of this column instead of the pair table.")
@click.option("--plot", type=click.Path(dir_okay=False), help="Save the runs' means (sorted by the first measure) as PNG.")
@_stage2_options
@click.pass_context
@_fail_cleanly
def correlate_command(ctx, campaign, measures, test, replicates, seed, alpha, matrix_column, plot, runs, no_store,
                      fmt):
    """Kendall's tau, tau_ap and the agreement of significant pairs between measures' rankings."""
    from .output import render
    from .resampling import correlate

    con = _open(ctx, read_only=no_store, create=False)
    result = correlate(con, campaign, list(measures), runs=_run_names(runs), test=None if test == "none" else test,
                       alpha=alpha, replicates=replicates, seed=seed, store=not no_store)
    if matrix_column:
        click.echo(render(result.matrix(matrix_column).reset_index(names="measure"), fmt))
    else:
        shown = [c for c in ("measure_a", "measure_b", "tau", "tau_b", "tau_ap", "tau_ap_reverse", "tau_ap_symmetric",
                             "a_only", "in_both", "b_only", "conflicts", "agreement") if c in result.table]
        click.echo(render(result.table[shown], fmt))
    data = result.matrices
    click.echo(f"{campaign}: {len(data.run_ids)} runs, {len(data.topic_ids)} topics"
               + (f"; agreement under {test}, alpha = {alpha:g}" if test != "none" else ""), err=True)
    if result.table["tied_means"].any():
        click.echo("warning: tied means; tau_ap broke the ties by run id", err=True)
    if plot:
        result.plot(plot)
        click.echo(f"rankings plotted to {plot}", err=True)
    _stored_note("correlation experiment", result.correlation_id)


@main.command("concordance")
@_campaign
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="Measure to compare (repeatable, at least 2; more give the matrix).")
@click.option("--gold", "golds", multiple=True, required=True,
              help="Gold-standard measure (once or twice; two are applied together), e.g. I-rec@10, P@10.")
@click.option("--each-gold", is_flag=True, help="With two --gold: also test against each alone (parts a, b, c).")
@click.option("--matrix", "show_matrix", is_flag=True,
              help="Print the seeds' layout (conc1/conc2 with dagger marks and disagreements).")
@_stage2_options
@click.pass_context
@_fail_cleanly
def concordance_command(ctx, campaign, measures, golds, each_gold, show_matrix, runs, no_store, fmt):
    """Sakai's concordance test: which measure agrees more with a gold standard where they disagree."""
    from .output import render
    from .resampling import concordance

    con = _open(ctx, read_only=no_store, create=False)
    result = concordance(con, campaign, list(measures), list(golds), each_gold=each_gold, runs=_run_names(runs),
                         store=not no_store)
    if show_matrix:
        for gold in result.gold_sets:
            click.echo(f"gold standard: {' & '.join(gold)}")
            click.echo(render(result.matrix(gold).reset_index(names="measure_1"), fmt))
    else:
        click.echo(render(result.table[["gold", "measure_1", "measure_2", "disagreements", "concordance_1",
                                        "concordance_2", "wins_1", "wins_2", "p_value"]], fmt))
    data = result.data
    click.echo(f"{campaign}: {len(data.run_ids)} runs, {len(data.topic_ids)} topics, "
               f"{int(result.table['list_pairs'].iloc[0])} list pairs; sign test on the wins", err=True)
    _stored_note("concordance experiment", result.concordance_id)


@main.command("robustness")
@_campaign
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="Gain-based measure (repeatable), e.g. nDCG@10, Q.")
@click.option("--profile", "profiles", multiple=True,
              help="Gain profile to compare with the default (repeatable; default flat, steep, adjust).")
@_stage2_options
@click.pass_context
@_fail_cleanly
def robustness_command(ctx, campaign, measures, profiles, runs, no_store, fmt):
    """Kendall's tau between rankings under default and other gain assignments (evaluates what is missing)."""
    from .output import render
    from .resampling import gain_robustness
    from .resampling.robustness import DEFAULT_PROFILES

    con = _open(ctx, read_only=no_store, create=False)
    result = gain_robustness(con, campaign, list(measures), profiles=list(profiles) or list(DEFAULT_PROFILES),
                             runs=_run_names(runs), store=not no_store)
    click.echo(render(result.table[["measure", "profile", "variant", "tau", "tau_b", "tau_ap"]], fmt))
    _stored_note("robustness experiment", result.robustness_id)


@main.command("mem")
@_campaign
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="MEM target (repeatable): ERR, RBP, DCG, AP, ERR-IA, NRBP, alpha-DCG, AP-IA.")
@click.option("--depth", type=click.IntRange(min=1), default=10, show_default=True, help="List depth N.")
@click.option("--alpha", "alpha", type=float, default=0.5, show_default=True, help="Cascade alpha.")
@click.option("--beta", type=float, default=0.8, show_default=True, help="RBP/NRBP persistence beta.")
@click.option("--expectation", type=click.Choice(["exact", "paper"]), default="exact", show_default=True,
              help="E[measure] by the exact DP, or the paper's printed recursion.")
@click.option("--solver", type=click.Choice(["SLSQP", "trust-constr"]), default="SLSQP", show_default=True,
              help="scipy.optimize method.")
@click.option("--runs-top", type=click.IntRange(min=2), help="Only the K runs retrieving most relevant documents.")
@click.option("--topics-top", type=click.IntRange(min=1), help="Only the K topics with most relevant documents.")
@click.option("--plot", type=click.Path(dir_okay=False), help="Save predicted against actual run means as PNG.")
@_stage2_options
@click.pass_context
@_fail_cleanly
def mem_command(ctx, campaign, measures, depth, alpha, beta, expectation, solver, runs_top, topics_top, plot, runs,
                no_store, fmt):
    """Informativeness by the maximum entropy method: PR-curve errors and predicted measures."""
    from .output import render
    from .resampling import informativeness

    con = _open(ctx, read_only=no_store, create=False)
    result = informativeness(con, campaign, list(measures), depth=depth, alpha=alpha, beta=beta,
                             expectation=expectation, solver=solver, runs=_run_names(runs), runs_top=runs_top,
                             topics_top=topics_top, store=not no_store, progress=True)
    click.echo(render(result.predictions[["target", "predicted", "tau", "rmsr", "mare", "rms", "mae",
                                          "runs_excluded"]], fmt))
    failed = int((~result.solutions["converged"]).sum())
    click.echo(f"{campaign}: {result.predictions['runs'].iloc[0]} runs x {result.predictions['topics'].iloc[0]} "
               f"topics, depth {depth}; {len(result.solutions)} problems, {failed} not converged", err=True)
    if plot:
        result.plot(plot)
        click.echo(f"predictions plotted to {plot}", err=True)
    _stored_note("MEM experiment", result.mem_id)


@main.command("annotate")
@_campaign
@_run_metadata_options
@click.option("--clear-tags", is_flag=True, help="Remove the run's tags first.")
@click.argument("run")
@click.pass_context
@_fail_cleanly
def annotate_command(ctx, campaign, system, team, run_date, tags, clear_tags, run):
    """Set a stored RUN's system, team, date or tags (what is not given is kept)."""
    from .loaders import RunMetadata, annotate_run

    con = _open(ctx, create=False)
    metadata = RunMetadata(system=system, team=team, run_date=run_date.date() if run_date else None,
                           tags=tuple(tags), clear_tags=clear_tags)
    shown = annotate_run(con, campaign, run, metadata)
    date = shown["run_date"].isoformat() if shown["run_date"] else "-"
    click.echo(f"{campaign}: run '{run}': system {shown['system'] or '-'}, team {shown['team'] or '-'}, "
               f"date {date}, tags {', '.join(shown['tags']) or '-'}")


@main.command("url")
@click.option("--read-write", is_flag=True, help="A URL without access_mode=read_only.")
@click.pass_context
@_fail_cleanly
def url_command(ctx, read_write):
    """Print the SQLAlchemy URL of the warehouse (for Superset, Metabase, pandas.read_sql)."""
    from .sharing import sqlalchemy_url

    _open(ctx, read_only=True).close()  # it must exist (and is upgraded if older)
    click.echo(sqlalchemy_url(ctx.obj["db"], read_only=not read_write))


@main.command("snapshot")
@click.option("--storage-version", metavar="vX.Y.Z",
              help="DuckDB storage format to write (e.g. v1.5.0 for tools embedding DuckDB 1.5).")
@click.argument("out", type=click.Path(dir_okay=False))
@click.pass_context
@_fail_cleanly
def snapshot_command(ctx, storage_version, out):
    """Write a consistent, read-only copy of the warehouse to OUT (replaced if it exists)."""
    from .sharing import snapshot

    con = _open(ctx, read_only=True)
    report = snapshot(con, out, storage_version=storage_version)
    click.echo(f"snapshot {report.path}: last evaluation {report.last_evaluation_id}, {report.bytes} bytes")


@main.command("export")
@click.option("--parquet", "directory", required=True, type=click.Path(file_okay=False),
              help="Directory to write: one folder per table, Parquet files, manifest.json.")
@click.option("--replace", is_flag=True, help="Replace an earlier export in that directory.")
@click.pass_context
@_fail_cleanly
def export_command(ctx, directory, replace):
    """Write the public tables as Parquet, partitioned by campaign, with a manifest."""
    from .sharing import export_parquet

    con = _open(ctx, read_only=True)
    report = export_parquet(con, directory, replace=replace)
    click.echo(f"exported {sum(report.rows.values())} rows of {len(report.rows)} tables to {report.directory}")


@main.command("attach")
@click.argument("directory", type=click.Path())
@click.argument("query", required=False)
@_output_option
@click.option("--no-verify", is_flag=True, help="Skip the sha256 check of the files.")
@click.option("--external-access", is_flag=True,
              help="Let QUERY read and write files other than the export's (read_csv, COPY ... TO, ATTACH) "
              "and load extensions; default: the export's files only, read-only.")
@_fail_cleanly
def attach_command(directory, query, fmt, no_verify, external_access):
    """Read an export made by `pyeval export`: run QUERY on it, or list its tables."""
    from .output import render
    from .query import run_sql
    from .sharing import attach_export, export_tables

    con = attach_export(directory, verify=not no_verify, external_access=external_access)
    try:
        click.echo(render(run_sql(con, query, files=external_access) if query else export_tables(directory), fmt))
    finally:
        con.close()


@main.command("publish")
@click.argument("url")
@click.option("--full", is_flag=True, help="Copy everything again, not only what changed.")
@click.option("--grant-select", "grant_select", multiple=True, metavar="ROLE",
              help="Grant this PostgreSQL role SELECT on every published table and view, now and at "
              "every later publication (repeatable).")
@click.pass_context
@_fail_cleanly
def publish_command(ctx, url, full, grant_select):
    """Copy the public tables and views into the PostgreSQL database at URL (postgresql://...)."""
    from .sharing import publish

    con = _open(ctx, read_only=True)
    click.echo(publish(con, url, full=full, grant_select=grant_select).summary())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
