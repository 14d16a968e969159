"""Loading: ``pyeval load`` (qrels, runs, campaigns, intents, document lengths; nuggets, answers,
nugget assignments and citation support of generated answers),
``pyeval intents``, ``pyeval gains`` and ``pyeval to-traditional``.
"""
from __future__ import annotations

import click

from ..vocabulary import (ANSWER_FILE_FORMATS, INTENT_PROBABILITIES, JUDGMENT_SET_KINDS, NEGATIVE_JUDGMENTS,
                          NUGGET_CREATORS, QRELS_FORMATS, RUN_NAMES, TRADITIONAL_LEVELS, names)
from .base import campaign_option, fail_cleanly, main, open_warehouse, run_metadata_options


@main.group()
def load() -> None:
    """Load qrels, runs, intents, document lengths, or nuggets, answers and their judgments."""


_replace = click.option("--replace", is_flag=True, help="Replace what the campaign holds already.")


@load.command("qrels")
@campaign_option
@click.option(
    "--format",
    "qrels_format",
    type=click.Choice(names(QRELS_FORMATS)),
    default="auto",
    show_default=True,
    help="Qrels layout; auto tells NTCIR by L<k> levels and TREC diversity by a varying 2nd field.",
)
@click.option("--description", help="A description of the campaign (stored; with --judgments: of the set).")
@click.option("--judgments", "judgment_set", default="official", show_default=True, metavar="NAME",
              help="The judgment set these qrels are (docs/judgments.md); another name adds a set to the campaign.")
@click.option("--kind", type=click.Choice(names(JUDGMENT_SET_KINDS)), default="human", show_default=True,
              help="Who made the set.")
@click.option("--judge", metavar="WHO", help="The assessor group or the model (and version) that judged.")
@click.option("--guideline", "guideline_file", type=click.Path(exists=True, dir_okay=False),
              help="The prompt or assessment guidelines used: its sha256 is stored.")
@click.option("--guideline-sha256", metavar="HEX", help="The sha256 of the prompt or guidelines, when the file is elsewhere.")
@click.option("--from-pool", "from_pool", metavar="POOL", help="These are the judgments of pool POOL (its export, "
              "judged): recorded in the set's provenance (found without it when the set judges exactly a pool's "
              "documents).")
@_replace
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.pass_context
@fail_cleanly
def load_qrels_command(ctx, campaign, qrels_format, description, judgment_set, kind, judge, guideline_file,
                       guideline_sha256, from_pool, replace, files):
    """Load qrels FILES (.gz accepted; several files, a folder or a quoted pattern give one set of
    judgments together); creates the campaign if it does not exist. With --judgments NAME, adds the
    judgment set NAME to a campaign that has its official qrels.

    A FILE may be Parquet (a file, or a folder of Parquet files as one input) with the columns
    query_id (or topic_id, qid, q_id), doc_id (or docno), relevance (or label, level, score:
    an integer) and optionally iteration (docs/loading.md, "Parquet and Arrow inputs")."""
    from ..loaders import load_qrels

    provenance = _set_provenance(kind, judge, guideline_file, guideline_sha256,
                                 description=None if judgment_set == "official" else description)
    from ..pools.judged import link_judgments

    con = open_warehouse(ctx)
    links: list = []  # the judgments and their pool's link together, in the load's transaction, or nothing
    report = load_qrels(con, campaign, list(files), format=qrels_format, replace=replace,
                        description=description if judgment_set == "official" else None,
                        judgment_set=judgment_set, provenance=provenance,
                        on_stored=lambda stored: links.append(link_judgments(stored, campaign, judgment_set, from_pool)))
    link = links[0] if links else None
    click.echo(report.summary())
    if link:
        click.echo(f"{campaign}: judgment set '{judgment_set}' judges pool '{link['pool']}' ({link['linked']}): "
                   f"{link['judged_pool_documents']} of its {link['pool_documents']} documents, "
                   f"{link['judgments_outside_pool']} judgments outside it")


def _run_metadata(system, team, run_date, tags):
    """The RunMetadata of the --system, --team, --date and --tag options (None when none is given)."""
    from ..loaders import RunMetadata

    if not (system or team or run_date or tags):
        return None
    return RunMetadata(system=system, team=team, run_date=run_date.date() if run_date else None, tags=tuple(tags))


_evaluate_option = click.option(
    "--evaluate", "evaluate_measures", multiple=True, metavar="MEASURE",
    help="Also evaluate the runs loaded with these measures (repeatable; e.g. official, AP, nDCG@10) "
         "and store the scores, in the load's transaction; prints the means.")


def _evaluation_hook(measures: tuple[str, ...], summaries: list):
    """The loaders' ``on_stored`` for --evaluate (None without it): evaluate the runs just
    stored, inside the load's transaction (pyeval.core.evaluation.evaluate_summary). The measures are
    parsed first, so that a mistyped one fails before anything is read."""
    if not measures:
        return None
    from pyeval.core.evaluation import evaluate_summary, parse_requested

    parse_requested(measures)

    def hook(con, campaign_id: str, run_ids: list[str]) -> None:
        summaries.append(evaluate_summary(con, campaign_id, list(measures), runs=run_ids))

    return hook


def _echo_evaluations(summaries: list, fmt: str = "table") -> None:
    """Print the means of --evaluate, as ``pyeval evaluate`` does."""
    from pyeval.core.evaluation import summed_measures
    from ..output import render_rows

    for summary in summaries:
        click.echo(render_rows(["run_id", *summary.measures], summary.rows, fmt,
                               integer_columns=summed_measures(summary.measures)))
        if summary.evaluation_id is not None:
            click.echo(f"stored as evaluation {summary.evaluation_id}", err=True)


@load.command("run")
@campaign_option
@click.option("--name", help="Run name (one FILE only); default: the run tag of the first line (a Parquet run "
              "without a run tag column: its file's name).")
@click.option("--run-names", type=click.Choice(names(RUN_NAMES)), default="tag", show_default=True,
              help="Name each run by its first line's run tag, or by its file name (runs that share a tag), "
                   "as load campaign does.")
@_replace
@run_metadata_options
@_evaluate_option
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.pass_context
@fail_cleanly
def load_run_command(ctx, campaign, name, run_names, replace, system, team, run_date, tags, evaluate_measures, files):
    """Load TREC run FILES (6 columns, .gz accepted) into a campaign, all or none.

    A FILE may be a folder (its files) or a quoted glob pattern ('runs/*.gz'), or Parquet: a file,
    or a folder of Parquet files as one run, with the columns query_id (or topic_id, qid, q_id),
    doc_id (or docno), score and optionally rank and run_tag (or run_id, name); ranx's files load
    as written (docs/loading.md, "Parquet and Arrow inputs")."""
    from ..loaders import load_runs

    if name is not None and len(files) > 1:
        raise click.UsageError("--name applies to one FILE; load files of the same tag one by one")
    sources, given = list(files), [name] * len(files)
    if run_names == "file":
        from ..loaders.campaign import file_run_names
        from ..loaders.source import expand_paths

        if name is not None:
            raise click.UsageError("--name and --run-names file both name the run: give one of them")
        sources, _ = expand_paths(sources)
        given = file_run_names(sources)
    metadata = _run_metadata(system, team, run_date, tags)
    summaries: list = []
    hook = _evaluation_hook(evaluate_measures, summaries)
    con = open_warehouse(ctx)
    reports = load_runs(con, campaign, sources, names=given, replace=replace, metadata=metadata, on_stored=hook)
    for report in reports:
        click.echo(report.summary())
    _echo_evaluations(summaries)


@load.command("campaign")
@click.option("--campaign", "-C", help="Campaign name; default: the folder's name.")
@click.option("--qrels", "qrels_name", metavar="NAME", help="The qrels file to load, when the folder has several.")
@click.option("--intents", "intents_name", metavar="NAME", help="The intents file to load, when the folder has several.")
@click.option("--description", help="A description of the campaign (stored).")
@click.option("--run-names", type=click.Choice(names(RUN_NAMES)), default="tag", show_default=True,
              help="Name each run by its first line's run tag, or by its file name (runs that share a tag).")
@_replace
@run_metadata_options
@_evaluate_option
@click.option("--dry-run", is_flag=True, help="List what would be loaded (and what skipped); read and store nothing.")
@click.argument("folder", type=click.Path(file_okay=False))
@click.pass_context
@fail_cleanly
def load_campaign_command(ctx, campaign, qrels_name, intents_name, description, run_names, replace, system, team,
                          run_date, tags, evaluate_measures, dry_run, folder):
    """Load a campaign FOLDER in one transaction: its qrels, optional intents, topics and
    document lengths, and every run in its runs/ folder (docs/loading.md)."""
    from pathlib import Path

    from ..loaders import load_campaign
    from ..loaders.campaign import campaign_folder

    if dry_run:
        layout = campaign_folder(folder, qrels=qrels_name, intents=intents_name)
        click.echo(layout.plan(campaign or Path(folder).resolve().name, run_names))
        return
    summaries: list = []
    hook = _evaluation_hook(evaluate_measures, summaries)
    con = open_warehouse(ctx)
    report = load_campaign(con, folder, campaign_id=campaign, qrels=qrels_name, intents=intents_name,
                           replace=replace, description=description,
                           metadata=_run_metadata(system, team, run_date, tags), run_names=run_names,
                           on_stored=hook)
    click.echo(report.summary())
    _echo_evaluations(summaries)


@load.command("intents")
@campaign_option
@click.option("--judgments", "judgment_set", default="official", show_default=True, metavar="NAME",
              help="The judgment set these intents belong to (its qrels loaded first).")
@_replace
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.pass_context
@fail_cleanly
def load_intents_command(ctx, campaign, judgment_set, replace, files):
    """Load intent probabilities from FILES: Iprob (topic intent prob) or DINprob (... inf|nav).

    Several FILES (a folder, a quoted glob) are the campaign's intents together, all or none."""
    from ..loaders import load_intents

    con = open_warehouse(ctx)
    click.echo(load_intents(con, campaign, list(files), replace=replace, judgment_set=judgment_set).summary())


@load.command("doclengths")
@campaign_option
@_replace
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.pass_context
@fail_cleanly
def load_doclengths_command(ctx, campaign, replace, files):
    """Load document lengths in characters (docno length) for the U-measure family.

    Several FILES (a folder, a quoted glob) are the campaign's lengths together, all or none."""
    from ..loaders import load_doclengths

    con = open_warehouse(ctx)
    click.echo(load_doclengths(con, campaign, list(files), replace=replace).summary())


@load.command("topics")
@campaign_option
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_context
@fail_cleanly
def load_topics_command(ctx, campaign, file):
    """Load topic titles (a TREC topics file, or topic_id<TAB>title) for dashboards."""
    from ..loaders import load_topics

    con = open_warehouse(ctx)
    click.echo(load_topics(con, campaign, file).summary())


_answer_format = click.option(
    "--format", "file_format", type=click.Choice(names(ANSWER_FILE_FORMATS)), default="auto", show_default=True,
    help="How FILE is read: auto takes JSON lines when its first line is a JSON object, else TSV (docs/rag.md).")
_answer_judgments = click.option(
    "--judgments", "judgment_set", metavar="NAME",
    help="The judgment set these judgments are (default: the campaign's default set, official unless changed).")


def _answer_set_options(function):
    """--kind, --judge, --guideline, --guideline-sha256: the provenance of a judgment set new to the campaign."""
    for option in reversed((
        click.option("--kind", type=click.Choice(names(JUDGMENT_SET_KINDS)), default="human", show_default=True,
                     help="Who made the set (recorded when the set is new to the campaign)."),
        click.option("--judge", metavar="WHO", help="The assessor group or the model (and version) that judged; "
                     "also each row's assessor when the file names none."),
        click.option("--guideline", "guideline_file", type=click.Path(exists=True, dir_okay=False),
                     help="The prompt or assessment guidelines used: its sha256 is stored."),
        click.option("--guideline-sha256", metavar="HEX", help="The sha256 of the prompt or guidelines."),
    )):
        function = option(function)
    return function


def _set_provenance(kind, judge, guideline_file, guideline_sha256, description=None):
    """A judgment set's provenance from the --kind, --judge, --guideline and --guideline-sha256
    options (the file's sha256 when it is given)."""
    from ..loaders.judgment_sets import SetProvenance, file_sha256

    return SetProvenance(kind=kind, judge=judge, description=description,
                         guideline_sha256=file_sha256(guideline_file) if guideline_file else guideline_sha256)


@load.command("nuggets")
@campaign_option
@click.option("--bank", default="official", show_default=True, metavar="NAME",
              help="The nugget bank these nuggets are; a campaign holds several (manual, automatic).")
@_answer_format
@click.option("--creator", type=click.Choice(names(NUGGET_CREATORS)), default="llm", show_default=True,
              help="Who wrote the nuggets (a TSV creator column overrides it per nugget).")
@click.option("--description", help="A description of the bank (stored).")
@_replace
@click.argument("file", type=click.Path())
@click.pass_context
@fail_cleanly
def load_nuggets_command(ctx, campaign, bank, file_format, creator, description, replace, file):
    """Load a nugget bank from FILE: nuggetizer's create output (JSON lines {qid, query, nuggets:
    [{text, importance}]}) or a TSV file (topic_id [nugget_id] text importance [creator]);
    creates the campaign if it does not exist (docs/rag.md)."""
    from ..loaders import load_nuggets

    con = open_warehouse(ctx)
    click.echo(load_nuggets(con, campaign, file, bank=bank, format=file_format, creator=creator,
                            description=description, replace=replace).summary())


@load.command("answers")
@campaign_option
@_answer_format
@click.option("--replace", is_flag=True, help="Replace the answers the campaign holds of the file's runs.")
@click.argument("file", type=click.Path())
@click.pass_context
@fail_cleanly
def load_answers_command(ctx, campaign, file_format, replace, file):
    """Load generated answers from FILE: a TREC RAG 2024 or 2025 answer file (JSON lines, citations
    as indexes into references) or a TSV file (run_id topic_id sentence_number text [citations]);
    creates the runs the campaign lacks (docs/rag.md)."""
    from ..loaders import load_answers

    con = open_warehouse(ctx, create=False)
    click.echo(load_answers(con, campaign, file, format=file_format, replace=replace).summary())


@load.command("assignments")
@campaign_option
@_answer_judgments
@click.option("--bank", metavar="NAME", help="The bank whose nuggets are labelled (default: the campaign's only bank).")
@_answer_format
@_answer_set_options
@click.option("--replace", is_flag=True, help="Replace the set's nugget assignments.")
@click.argument("file", type=click.Path())
@click.pass_context
@fail_cleanly
def load_assignments_command(ctx, campaign, judgment_set, bank, file_format, kind, judge, guideline_file,
                             guideline_sha256, replace, file):
    """Load nugget assignments from FILE as an assignment set: nuggetizer's assign output in
    answers mode (JSON lines {qid, run_id, answer_text, response_length, nuggets: [{text,
    importance, assignment}]}, whose answers are stored when the campaign lacks them) or a TSV file
    (run_id topic_id nugget_id label [assessor]) (docs/rag.md)."""
    from ..loaders import load_assignments

    provenance = _set_provenance(kind, judge, guideline_file, guideline_sha256)
    con = open_warehouse(ctx, create=False)
    click.echo(load_assignments(con, campaign, file, judgment_set=judgment_set, bank=bank, format=file_format,
                                provenance=provenance, replace=replace).summary())


@load.command("support")
@campaign_option
@_answer_judgments
@_answer_format
@_answer_set_options
@click.option("--replace", is_flag=True, help="Replace the set's citation support judgments.")
@click.argument("file", type=click.Path())
@click.pass_context
@fail_cleanly
def load_support_command(ctx, campaign, judgment_set, file_format, kind, judge, guideline_file, guideline_sha256,
                         replace, file):
    """Load citation support judgments from FILE, a TSV file (run_id topic_id sentence_number doc_id
    label [assessor], label full, partial or none), each judging a citation of a stored answer
    (docs/rag.md)."""
    from ..loaders import load_support

    provenance = _set_provenance(kind, judge, guideline_file, guideline_sha256)
    con = open_warehouse(ctx, create=False)
    click.echo(load_support(con, campaign, file, judgment_set=judgment_set, format=file_format,
                            provenance=provenance, replace=replace).summary())


@main.command("gains")
@campaign_option
@click.option("--topic", help="Define the profile for one topic only (per-topic gains).")
@_replace
@click.argument("name")
@click.argument("spec")
@click.pass_context
@fail_cleanly
def gains_command(ctx, campaign, topic, replace, name, spec):
    """Define gain profile NAME: SPEC is 'level=gain,...' or 'g1:g2:...' (levels 1, 2, ...)."""
    from pyeval.core.gains import define_gain_profile

    con = open_warehouse(ctx, create=False)
    gains = define_gain_profile(con, campaign, name, spec, topic_id=topic, replace=replace)
    shown = ", ".join(f"L{level}={gain:g}" for level, gain in sorted(gains.items()))
    click.echo(f"{campaign}: gain profile '{name}'" + (f" for topic {topic}" if topic else "") + f": {shown}")


@main.group("intents")
def intents_group() -> None:
    """Intent probability variants and intent types of a diversity campaign."""


@intents_group.command("generate")
@campaign_option
@click.option("--method", type=click.Choice(names(INTENT_PROBABILITIES)), required=True,
              help="uniform: 1/n; nonuniform: the j-th of n intents gets 2^(n-j+1)/sum_k 2^k (Sakai & Song).")
@_replace
@click.argument("name")
@click.pass_context
@fail_cleanly
def intents_generate_command(ctx, campaign, method, replace, name):
    """Store generated probabilities of the campaign's intents as variant NAME (probs=NAME)."""
    from ..diversity.campaigns import generate_intent_variant

    con = open_warehouse(ctx, create=False)
    rows = generate_intent_variant(con, campaign, name, method, replace=replace)
    click.echo(f"{campaign}: probability variant '{name}' ({method}): {rows} intents")


@intents_group.command("load")
@campaign_option
@_replace
@click.argument("name")
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_context
@fail_cleanly
def intents_load_command(ctx, campaign, replace, name, file):
    """Store the probabilities of an Iprob/DINprob FILE as variant NAME (types are not changed)."""
    from ..diversity.campaigns import load_intent_variant

    con = open_warehouse(ctx, create=False)
    rows = load_intent_variant(con, campaign, name, file, replace=replace)
    click.echo(f"{campaign}: probability variant '{name}' from {file}: {rows} intents")


@intents_group.command("topics")
@campaign_option
@click.option("--probs", type=click.Choice(names(INTENT_PROBABILITIES)), default="uniform", show_default=True,
              help="Probabilities to give the subtopics (the XML has none).")
@click.option("--types-only", is_flag=True, help="Only set the types of the intents the campaign has.")
@_replace
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_context
@fail_cleanly
def intents_topics_command(ctx, campaign, probs, types_only, replace, file):
    """Intents from a TREC topics XML FILE: every <subtopic> with its type (type="nav")."""
    from ..loaders.topic_intents import load_intents_from_topics, set_intent_types

    con = open_warehouse(ctx, create=False)
    if types_only:
        click.echo(f"{campaign}: types of {set_intent_types(con, campaign, file)} intents set from {file}")
    else:
        click.echo(load_intents_from_topics(con, campaign, file, probs=probs, replace=replace).summary())


@main.command("to-traditional")
@click.option("--method", type=click.Choice(names(TRADITIONAL_LEVELS)), default="max", show_default=True,
              help="max: the highest level over the intents; count: the number of intents covered.")
@click.option("--negative-as", type=click.Choice(names(NEGATIVE_JUDGMENTS)), default="unjudged",
              show_default=True, help="A document judged negative (spam) for all its intents.")
@click.option("--description", help="A description of the new campaign.")
@click.argument("source")
@click.argument("target")
@click.pass_context
@fail_cleanly
def to_traditional_command(ctx, method, negative_as, description, source, target):
    """Store the "2T" ad hoc conversion of diversity campaign SOURCE as new campaign TARGET."""
    from ..diversity.campaigns import to_traditional

    con = open_warehouse(ctx, create=False)
    rows = to_traditional(con, source, target, method=method, negative_as=negative_as, description=description)
    click.echo(f"{target}: {rows} judgments converted from {source} ({method}), with its runs")
