"""Judgment sets: ``pyeval judgments list``, ``compare``, ``derive`` and ``holes``
(pyeval.judgments; docs/judgments.md)."""
from __future__ import annotations

import click

from ..vocabulary import AGREEMENT_TESTS, DERIVATIONS, DERIVED_SET_KINDS, ON_MISSING, REPORT_FORMATS, UNION_RULES, names
from .base import (COUNT, DEFAULT_SET_HELP, DEPTH, PROBABILITY, campaign_option, fail_cleanly, main, open_warehouse,
                   output_option)


@main.group("judgments")
def judgments_group():
    """The judgment sets of a campaign (named qrels) and how far they agree (docs/judgments.md)."""


@judgments_group.command("list")
@click.option("--campaign", "-C", help="Only this campaign's sets.")
@click.option("--all", "working", is_flag=True,
              help="Also the leave-one-group-out working sets of pool analyses (pyeval pool loo).")
@output_option
@click.pass_context
@fail_cleanly
def list_command(ctx, campaign, working, fmt):
    """List judgment sets with their provenance and judgment counts; `default` marks the set a
    query that names none reads."""
    from ..judgments import list_sets
    from ..output import render

    con = open_warehouse(ctx, read_only=True, create=False)
    frame = list_sets(con, campaign, working=working)
    frame["parent_sets"] = frame["parent_sets"].map(lambda parents: ", ".join(parents) if len(parents) else "")
    hidden = ["source_sha256", "guideline_sha256", "description", "created_at"] + ([] if working else ["working_set"])
    click.echo(render(frame.drop(columns=hidden), fmt))


@judgments_group.command("default")
@campaign_option
@click.argument("name", required=False, metavar="[NAME]")
@click.pass_context
@fail_cleanly
def default_command(ctx, campaign, name):
    """Print the campaign's default judgment set, or make NAME its default: the set that qrels,
    intents, scores, run_means, leaderboard, monthly_means and the overviews show (every set is
    in qrels_by_set, scores_by_set, run_means_by_set, leaderboard_by_set; docs/judgments.md)."""
    from ..judgments import default_set, set_default

    if name is None:
        con = open_warehouse(ctx, read_only=True, create=False)
        click.echo(default_set(con, campaign))
        return
    con = open_warehouse(ctx, create=False)
    before = default_set(con, campaign)
    set_default(con, campaign, name)
    click.echo(f"campaign '{campaign}': default judgment set '{name}'"
               + (" (unchanged)" if before == name else f" (was '{before}')"))


@judgments_group.command("compare")
@campaign_option
@click.option("--reference", default="official", show_default=True, metavar="NAME", help="The reference set.")
@click.option("--candidate", "candidates", multiple=True, required=True, metavar="NAME",
              help="A set compared with the reference (repeatable: all in one call).")
@click.option("-m", "--measure", "measures", multiple=True,
              help="Also compare the scores of this measure under both sets (repeatable; evaluated first when "
                   "a set has no stored scores of it).")
@click.option("--threshold", type=COUNT, default=None,
              help="Relevance threshold of the chosen binary kappa, Jaccard and overlap (relevant: level >= it); "
                   "default 1, and 2 (support against the rest) for nugget assignment sets (docs/rag.md).")
@click.option("--top-k", "top_k", type=COUNT, multiple=True, default=(10,), show_default=True,
              help="Rank correlations over the reference's best K runs too (repeatable).")
@click.option("--test", type=click.Choice(names(AGREEMENT_TESTS)),
              default="t", show_default=True, help="Significance test of the pairs whose verdict is kept.")
@click.option("--alpha", type=PROBABILITY, default=0.05, show_default=True, help="Significance level of --test.")
@click.option("--on-missing", type=click.Choice(names(ON_MISSING)), default="error", show_default=True,
              help="Runs or topics scored under one set only: an error, left out with a stored warning, or left out.")
@click.option("--per-topic", is_flag=True, help="Print the per-topic label agreement instead of the summary.")
@click.option("--table", "table_format", type=click.Choice(names(REPORT_FORMATS)),
              help="Print the summary as a table for a paper instead.")
@click.option("--plot", "plot_prefix", metavar="PREFIX",
              help="Save PREFIX-<candidate>-<measure>-means.png (y = x) and -bland-altman.png for each measure.")
@click.option("--no-store", is_flag=True, help="Compute and print only; store nothing.")
@output_option
@click.pass_context
@fail_cleanly
def compare_command(ctx, campaign, reference, candidates, measures, threshold, top_k, test, alpha, on_missing,
                    per_topic, table_format, plot_prefix, no_store, fmt):
    """Compare candidate judgment sets with a reference set (qrels, or nugget assignment sets:
    docs/rag.md): label agreement (kappa, alpha, confusion, Jaccard) and, with -m, score and
    ranking agreement (tau-b, tau_ap, Spearman, Pearson, best run's rank, significant pairs
    kept, Bland-Altman); stored unless --no-store."""
    from pyeval.core.db import transaction
    from ..judgments import compare
    from ..output import render

    if plot_prefix:  # every figure file checked before any work
        from ..judgments import canonical
        from .base import require_figure_paths

        require_figure_paths(f"{_figure_stem(plot_prefix, candidate, canonical(measure))}-{kind}.png"
                             for candidate in candidates for measure in measures for kind in ("means", "bland-altman"))
    con = open_warehouse(ctx, create=False)
    with transaction(con):  # what it stores (scores it evaluated too) goes back if a figure cannot be written
        result = compare(con, campaign, reference, list(candidates), list(measures), threshold=threshold,
                         top_k=list(top_k), test=test, alpha=alpha, on_missing=on_missing, store=not no_store)
        if table_format:
            click.echo(result.table(table_format))
        elif per_topic:
            frame = result.agreement()
            click.echo(render(frame[["candidate_set", "topic_id", "coefficient", "threshold", "value", "units",
                                     "reference_only", "candidate_only", "warning"]], fmt))
        else:
            click.echo(render(result.summary(), fmt))
        if plot_prefix:
            for candidate, measure in result.rankings:
                stem = _figure_stem(plot_prefix, candidate, measure)
                result.plot_means(f"{stem}-means.png", candidate, measure)
                result.plot_bland_altman(f"{stem}-bland-altman.png", candidate, measure)
                click.echo(f"plotted {stem}-means.png and {stem}-bland-altman.png", err=True)
    if result.comparison_ids:
        click.echo(f"stored as {result.stored_text()}", err=True)


def _figure_stem(prefix: str, candidate: str, measure: str) -> str:
    """The start of the figure files ``judgments compare --plot PREFIX`` writes for a candidate
    and a measure (``-means.png`` and ``-bland-altman.png`` follow)."""
    return f"{prefix}-{candidate.replace('/', '_')}-{measure.replace('/', '_')}"


@judgments_group.command("derive")
@campaign_option
@click.argument("name")
@click.option("--from", "parents", multiple=True, required=True, metavar="SET",
              help="A parent set (repeatable; in precedence order for union and fill).")
@click.option("--how", "derivation", type=click.Choice(names(DERIVATIONS)),
              required=True, help="union: merge by --rule; fill: holes of the first set from the second; "
                                  "binarise: at --threshold; common: the first set on what both judged; "
                                  "minus: the set without the documents of --exclude.")
@click.option("--rule", type=click.Choice(names(UNION_RULES)), default="first", show_default=True,
              help="union: the first parent's label, the highest or the lowest.")
@click.option("--threshold", type=COUNT, help="binarise: relevant when level >= this.")
@click.option("--exclude", "exclude_file", type=click.Path(exists=True, dir_okay=False),
              help="minus: a file of 'topic docno' lines (or qrels/run lines: their topic and docno fields).")
@click.option("--kind", type=click.Choice(names(DERIVED_SET_KINDS)), default=None,
              help="The kind recorded (default: merged for union and fill, else derived).")
@click.option("--description", help="Free text stored with the set.")
@click.option("--replace", is_flag=True, help="Replace a derived set of that name.")
@click.pass_context
@fail_cleanly
def derive_command(ctx, campaign, name, parents, derivation, rule, threshold, exclude_file, kind, description,
                   replace):
    """Store the judgment set NAME derived in SQL from stored sets, with its parents and parameters."""
    from ..judgments import derive

    excluded = _excluded(exclude_file) if exclude_file else None
    con = open_warehouse(ctx, create=False)
    kind = kind or ("merged" if derivation in ("union", "fill") else "derived")
    rows = derive(con, campaign, name, derivation, list(parents), rule=rule, threshold=threshold,
                  excluded=excluded, kind=kind, description=description, replace=replace)
    click.echo(f"{campaign}: derived judgment set '{name}' ({derivation} of {', '.join(parents)}): {rows} judgments")


def _excluded(path: str):
    """The (topic, docno) pairs of a file: 'topic docno' lines, or TREC qrels/run lines."""
    import pandas as pd

    from ..errors import InputFormatError

    pairs = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) == 2:
                pairs.append((fields[0], fields[1]))
            elif len(fields) >= 4:
                pairs.append((fields[0], fields[2]))
            else:
                raise InputFormatError(path, number, f"expected 'topic docno' or a qrels/run line; got {len(fields)} fields")
    return pd.DataFrame(pairs, columns=["topic_id", "doc_id"])


@judgments_group.command("holes")
@campaign_option
@click.option("--judgments", "judgment_set", metavar="NAME",
              help="The judgment set whose holes are listed." + DEFAULT_SET_HELP)
@click.option("--depth", type=DEPTH, default=10, show_default=True,
              help="Documents retrieved at this rank or better.")
@click.option("--runs", "runs", multiple=True, help="Only these runs (repeatable or comma-separated).")
@output_option
@click.pass_context
@fail_cleanly
def holes_command(ctx, campaign, judgment_set, depth, runs, fmt):
    """List the holes of a judgment set: unjudged documents the runs retrieved above a depth."""
    from ..judgments import holes
    from ..output import render

    con = open_warehouse(ctx, read_only=True, create=False)
    run_names = [name for value in runs for name in value.split(",") if name]
    click.echo(render(holes(con, campaign, judgment_set, depth=depth, runs=run_names), fmt))
