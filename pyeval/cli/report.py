"""Per-run reports: ``pyeval report`` (docs/reports.md)."""
from __future__ import annotations

import click

from ..vocabulary import CORRECTIONS, SIGNIFICANCE_TESTS, names
from .base import DEFAULT_SET_HELP, PROBABILITY, campaign_option, fail_cleanly, main, open_warehouse, run_names


def _checked_folder(ctx, param, value):
    """The report folder's check, before any work: new, empty, or a report folder pyeval wrote."""
    from ..errors import PyevalError
    from ..reports.folder import ReportFolder
    from .base import one_line

    try:
        ReportFolder.open(value)
    except PyevalError as exc:
        raise click.ClickException(one_line(str(exc))) from exc
    return value


@main.command("report")
@campaign_option
@click.option("--runs", "runs", multiple=True,
              help="The runs that get a page (repeatable or comma-separated); default every run. Median, best, "
                   "ranks and tests are always over every run of the campaign.")
@click.option("-m", "--measure", "measures", multiple=True,
              help="A measure of the tables (repeatable); the first is the main one (per-topic bars, significance). "
                   "Default: every stored measure, AP the main one.")
@click.option("--judgments", "judgment_set", metavar="NAME",
              help="Report the scores stored under this judgment set (docs/judgments.md)." + DEFAULT_SET_HELP)
@click.option("--test", type=click.Choice(names(SIGNIFICANCE_TESTS)), default="t", show_default=True,
              help="The significance test of every pair of runs on the main measure.")
@click.option("--correction", type=click.Choice(names(CORRECTIONS)), default="holm", show_default=True,
              help="Multiple-comparison correction over the campaign's run pairs (not for tukey).")
@click.option("--alpha", type=PROBABILITY, default=0.05, show_default=True, help="Significance level.")
@click.option("--no-pdf", is_flag=True, help="Write the HTML pages only (a PDF beside each is the default).")
@click.option("--no-store", is_flag=True,
              help="Read-only: a measure some run has no stored mean of is an error instead of being evaluated "
                   "and stored.")
@click.option("-o", "--out", required=True, type=click.Path(file_okay=False), callback=_checked_folder,
              help="The folder to write: created, empty, or one pyeval report wrote (its files replaced); any "
                   "other folder is left alone.")
@click.pass_context
@fail_cleanly
def report_command(ctx, campaign, runs, measures, judgment_set, test, correction, alpha, no_pdf, no_store, out):
    """Write a page (HTML, and PDF) for each run of a campaign and an index with the leaderboard.

    Each page, in the manner of TREC's appendix: the run's metadata, its measures with the
    campaign's median and best and its rank, per-topic bars of the main measure against each
    topic's median with the best marked, the interpolated precision-recall curve, and its
    significance against every other run. Measures (and the curve's IPrec@0.0 ... IPrec@1.0)
    that some run lacks are evaluated and stored first, unless --no-store."""
    from ..reports import write_reports

    con = open_warehouse(ctx, read_only=no_store, create=False)
    written = write_reports(con, campaign, out, runs=run_names(runs), measures=list(measures) or None,
                            judgment_set=judgment_set, test=test, correction=correction, alpha=alpha,
                            store=not no_store, pdf=not no_pdf)
    click.echo(written.summary(), err=True)
    click.echo(written.index)
