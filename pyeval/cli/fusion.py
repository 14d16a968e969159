"""Run fusion: ``pyeval fuse`` (a fused run stored with its recipe, or a parameter grid in one
pass), ``pyeval fusions`` (the fused runs and whether they are stale), ``pyeval export-run``
and ``pyeval delete-run`` (docs/fusion.md)."""
from __future__ import annotations

import click

from ..errors import PyevalError
from ..vocabulary import (ABSENT_SCORES, NORM_STAGES, ORDERINGS, PAIR_TESTS, REPORT_TABLE_FORMATS, RUN_FILE_FORMATS,
                          TIE_ORDERS, names)
from .base import (DEFAULT_SET_HELP, DEPTH, NON_NEGATIVE, POSITIVE, PROBABILITY, campaign_option, checked_figure, checked_output,
                   fail_cleanly, main, number_list, open_warehouse, output_option, replace_option)


def _names(values) -> list[str]:
    return [name for value in values for name in value.split(",") if name]


@main.command("fuse")
@campaign_option
@click.option("--method", default=None,
              help="combsum, wsum, combmnz, combgmnz, combanz, combmax, combmin, combmed, rrf, isr, log-isr, "
                   "logn-isr, borda or rbp (ranx's names sum, mnz, gmnz, rbc, ... too).")
@click.option("--runs", "runs", multiple=True,
              help="The runs to fuse, in order (--runs a b, --runs a,b or --runs a --runs b).")
@click.option("--name", help="Store the fused run under this name (with --grid: the best point, with --keep-best).")
@click.option("--weights", help="One weight per run, e.g. 0.3,0.7 (wsum needs them; default 1 each).")
@click.option("--norm", default="min-max", show_default=True,
              help="Score normalisation per input and topic: none, min-max, min-max-inverted, max, sum, zmuv "
                   "(z-score), rank, borda.")
@click.option("--norm-stage", type=click.Choice(names(NORM_STAGES)), default="before", show_default=True,
              help="Normalise the scores before weighting them (ranx) or the weighted scores after.")
@click.option("--absent", type=click.Choice(names(ABSENT_SCORES)),
              help="What a document an input did not retrieve contributes: nothing (default), 0, the input's "
                   "lowest contribution, or (borda, its default) ranx's unranked points.")
@click.option("--k", "k", type=POSITIVE, default=60.0, show_default=True, help="RRF's k.")
@click.option("--p", "p", type=PROBABILITY, default=0.8, show_default=True,
              help="RBP fusion's persistence p (ranx rbc's phi).")
@click.option("--gamma", "gamma", type=click.FloatRange(min=0, max=1e6), default=1.0, show_default=True,
              help="CombGMNZ's exponent of the number of inputs that retrieved a document.")
@click.option("--sigma", "sigma", type=click.FloatRange(min=0, max=1), default=0.01, show_default=True,
              help="logn-isr's smoothing: ln(inputs that retrieved a document + sigma).")
@click.option("--input-depth", type=DEPTH, help="Read the first N documents of each input (default all).")
@click.option("--output-depth", type=DEPTH, help="Keep the first N documents of the fused list (default all).")
@click.option("--input-ordering", type=click.Choice(names(ORDERINGS)), default="trec",
              show_default=True, help="How each input is ranked (trec: score desc, docno desc).")
@click.option("--tie-order", type=click.Choice(names(TIE_ORDERS)), default="docno-desc",
              show_default=True, help="Order of equal fused scores (docno-desc: trec_eval's).")
@click.option("--replace", is_flag=True, help="Replace a fused run of that name (with its derivation).")
@click.option("--refresh", "refresh_run", metavar="NAME",
              help="Make the fused run NAME again from its stored recipe and its parents as they are now.")
@click.option("--grid", "grid", multiple=True, metavar="KEY=VALUES",
              help="Evaluate a grid in one pass: k=10,20,60, p=0.5:0.9:0.1, weights=0.1:0.9:0.1 or "
                   "weights=0.3/0.7,0.5/0.5 (repeatable).")
@click.option("-m", "--measure", "measures", multiple=True,
              help="--grid: the measure that chooses the point (default nDCG@10); otherwise measures to "
                   "compare the fused run with its inputs on (evaluated and stored).")
@click.option("--train-topics", type=click.Path(dir_okay=False, exists=True),
              help="--grid: a file of training topic ids (one a line); the point is chosen on them and "
                   "reported on the others.")
@click.option("--folds", type=click.IntRange(min=2, max=2**31 - 1),
              help="--grid: N-fold cross-validation over the topics.")
@click.option("--keep-best", is_flag=True, help="--grid: store the best point as the fused run --name.")
@click.option("--test", type=click.Choice(names(PAIR_TESTS)),
              default="randomization", show_default=True,
              help="The test of the best point (or the fused run) against the best input run.")
@click.option("--judgments", metavar="NAME",
              help="The judgment set the grid and -m evaluate under (docs/judgments.md)." + DEFAULT_SET_HELP)
@click.option("--plot", type=click.Path(dir_okay=False), callback=checked_figure,
              help="--grid: save the grid as a PNG line plot or heat map (created, or replacing only a figure "
                   "pyeval saved).")
@click.option("--format", "fmt", type=click.Choice(names(REPORT_TABLE_FORMATS)), default="table",
              show_default=True, help="How to print the result (latex: the comparison with -m).")
@click.argument("more_runs", nargs=-1)
@click.pass_context
@fail_cleanly
def fuse_command(ctx, campaign, method, runs, name, weights, norm, norm_stage, absent, k, p, gamma, sigma,
                 input_depth, output_depth, input_ordering, tie_order, replace, refresh_run, grid, measures,
                 train_topics, folds, keep_best, test, judgments, plot, fmt, more_runs):
    """Fuse stored runs of a campaign into a derived run (stored with its recipe), or evaluate a
    parameter grid of a fusion in one pass."""
    from .. import fusion
    from ..output import render

    con = open_warehouse(ctx, create=False)
    if refresh_run:
        frame = fusion.refresh(con, campaign, refresh_run)
        click.echo(f"refreshed fused run '{refresh_run}': {len(frame)} entries, {frame['topic_id'].nunique()} topics")
        return
    if method is None:
        raise PyevalError("give --method (e.g. --method rrf) or --refresh NAME")
    if measures and not grid:  # a mistyped measure or set is refused before anything is fused or stored
        from pyeval.core.db import check_judgment_set, judgment_set_or_default
        from pyeval.core.request import parse_requested

        if name is None:
            raise PyevalError("-m compares the stored fused run with its inputs: give --name")
        parse_requested(measures)
        judgments = judgment_set_or_default(con, campaign, judgments)
        check_judgment_set(con, campaign, judgments)
    run_names = _names(runs) + list(more_runs)
    weight_list = (tuple(number_list([weights.replace("/", ",")], "--weights", NON_NEGATIVE))
                   if weights is not None else None)
    conventions = dict(weights=weight_list, norm=norm, norm_stage=norm_stage, absent=absent, k=k,
                       p=p, gamma=gamma, sigma=sigma, input_depth=input_depth, output_depth=output_depth,
                       input_ordering=input_ordering, tie_order=tie_order)
    if grid:
        if keep_best and not name:
            raise PyevalError("--keep-best stores the best point as --name: give --name")
        topics = None
        if train_topics:
            with open(train_topics, encoding="utf-8") as handle:
                topics = [line.strip() for line in handle if line.strip()]
        measure = measures[0] if measures else "nDCG@10"
        result = fusion.evaluate_grid(
            con, campaign, fusion.Recipe(method, tuple(run_names), **conventions), list(grid), measure=measure,
            train_topics=topics, folds=folds, keep_best=name if keep_best else None, replace=replace, test=test,
            judgment_set=judgments, plot=plot)
        shown = result.shown_points()
        if "weights" in shown:
            shown["weights"] = ["/".join(f"{w:g}" for w in ws) for ws in shown["weights"]]
        click.echo(render(shown, fmt if fmt != "latex" else "markdown"))
        click.echo(result.summary())
        if result.grid_id is not None:
            click.echo(f"stored as grid {result.grid_id}" + (f"; best point kept as run '{result.kept_run_id}'"
                                                            if result.kept_run_id else ""), err=True)
        return
    if not measures:
        frame = fusion.fuse(con, campaign, run_names, method, name=name, replace=replace, **conventions)
        if name is None:
            click.echo(render(frame, fmt if fmt != "latex" else "table"))
        else:
            _echo_stored(name, frame)
        return
    from pyeval.core.db import transaction
    from pyeval.core.evaluation import evaluate
    from ..resampling import compare

    with transaction(con):  # the fused run, its evaluation and the comparison: all or nothing
        frame = fusion.fuse(con, campaign, run_names, method, name=name, replace=replace, **conventions)
        evaluate(con, campaign, list(measures), runs=[name, *run_names], judgment_set=judgments)
        report = compare(con, campaign, list(measures), runs=[name, *run_names], test=test, baseline=name,
                         judgment_set=judgments)
    _echo_stored(name, frame)
    click.echo(report.render("latex" if fmt == "latex" else "markdown"))


def _echo_stored(name: str, frame) -> None:
    click.echo(f"stored fused run '{name}' ({frame.attrs['recipe'].describe()}): {len(frame)} entries, "
               f"{frame['topic_id'].nunique()} topics, sha256 {frame.attrs['sha256']}", err=True)


@main.command("fusions")
@click.option("--campaign", "-C", help="Campaign name; default every campaign.")
@output_option
@click.pass_context
@fail_cleanly
def fusions_command(ctx, campaign, fmt):
    """Show the fused runs: method, parents, recipe, and whether a parent changed since (stale)."""
    from ..fusion import derived_runs
    from ..output import render

    con = open_warehouse(ctx, read_only=True)
    click.echo(render(derived_runs(con, campaign), fmt))


@main.command("export-run")
@campaign_option
@click.argument("run")
@click.option("--out", "-o", type=click.Path(dir_okay=False), callback=checked_output("run file", replaceable=True),
              help="Write the file here (default: standard output); an existing file only with --replace.")
@click.option("--format", "run_format", type=click.Choice(names(RUN_FILE_FORMATS)), default="trec", show_default=True,
              help="trec: topic Q0 docno rank score tag lines; parquet: the columns query_id, doc_id, score, rank, "
                   "run_tag (pyeval load run reads them back; needs --out).")
@replace_option
@click.pass_context
@fail_cleanly
def export_run_command(ctx, campaign, run, out, run_format, replace):
    """Write a stored run (a fused run too) as a TREC run file, or as Parquet."""
    from ..fusion import export_run

    if run_format == "parquet":
        from ..fusion.store import export_run_parquet

        if out is None:
            raise click.UsageError("--format parquet writes a file: give it with --out")
        rows = export_run_parquet(open_warehouse(ctx, read_only=True), campaign, run, out, replace=replace)
        _said_written(campaign, run, f"{rows} rows", out, run_format)
        return
    con = open_warehouse(ctx, read_only=True)
    text = export_run(con, campaign, run, out, replace=replace)
    if out is None:
        click.echo(text, nl=False)
    _said_written(campaign, run, f"{text.count(chr(10))} lines", out, run_format)


def _said_written(campaign: str, run: str, amount: str, out, run_format: str) -> None:
    """One line on standard error saying what export-run wrote: run, how much, where, format
    (standard output keeps the run file alone)."""
    where = out if out is not None else "standard output"
    click.echo(f"{campaign}: run '{run}': {amount} written to {where} (format {run_format})", err=True)


@main.command("delete-run")
@campaign_option
@click.argument("run")
@click.pass_context
@fail_cleanly
def delete_run_command(ctx, campaign, run):
    """Delete a stored run (a fused run with its derivation); refused while a fused run is made from it."""
    from ..fusion import delete_run

    con = open_warehouse(ctx, create=False)
    delete_run(con, campaign, run)
    click.echo(f"deleted run '{run}' of campaign '{campaign}'")
