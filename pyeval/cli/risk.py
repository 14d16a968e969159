"""The topic x run matrix analyses: ``pyeval risk`` (URisk, TRisk, ZRisk, GeoRisk; docs/risk.md)
and ``pyeval design`` (topic set size design; docs/design.md)."""
from __future__ import annotations

import click

from ..vocabulary import MAX_DESIGN_TOPICS, DESIGNS, DESIGN_METHODS, REPORT_TABLE_FORMATS, SE_CONVENTIONS, VARIANCE_METHODS, names
from .base import (DEFAULT_SET_HELP, POSITIVE, PROBABILITY, RISK_ALPHA, checked_figure, fail_cleanly, main, number_list, open_warehouse,
                   storing)



def _format_option(command):
    return click.option("--format", "fmt", type=click.Choice(names(REPORT_TABLE_FORMATS)), default="table", show_default=True,
                        help="How to print the result (latex: a booktabs tabular).")(command)


def _judgments_option(command):
    return click.option("--judgments", metavar="NAME",
                        help="The judgment set whose scores are read (docs/judgments.md)." + DEFAULT_SET_HELP)(command)


@main.command("risk")
@click.option("--campaign", "-C", required=True, help="Campaign (test collection) name.")
@click.option("-m", "--measure", "measures", multiple=True, required=True, help="A measure with stored scores (repeatable).")
@click.option("--baseline", "baselines", multiple=True, required=True,
              help="A run, several runs (repeatable or comma-separated), 'mean' (per-topic mean of every run) "
                   "or 'mean:RUN,RUN' (of those runs).")
@click.option("--alpha", "alphas", multiple=True, default=("0",), show_default=True,
              help="Risk weights: losses weigh 1 + alpha (--alpha 0 1 5 10, --alpha 0,1,5 or repeated).")
@click.argument("more_alphas", nargs=-1, metavar="[ALPHA]...")
@click.option("--se", type=click.Choice(names(SE_CONVENTIONS)), default="population", show_default=True,
              help="TRisk's standard error: sd with divisor c (rmit-ir/trisk) or c - 1.")
@click.option("--per-topic", is_flag=True, help="Print the per-topic risk-rewards and exploratory TRisk instead.")
@_judgments_option
@click.option("--no-store", is_flag=True, help="Compute and print only; store nothing (read-only).")
@_format_option
@click.pass_context
@fail_cleanly
def risk_command(ctx, campaign, measures, baselines, alphas, more_alphas, se, per_topic, judgments, no_store, fmt):
    """Risk-sensitive evaluation of every run: URisk, TRisk (p), ZRisk, GeoRisk per baseline and alpha."""
    from ..output import render
    from ..resampling.risk import risk

    con = open_warehouse(ctx, read_only=no_store, create=False)
    values = number_list([*alphas, *more_alphas], "--alpha", RISK_ALPHA)
    result = risk(con, campaign, list(measures), list(baselines), values, se=se, judgments=judgments,
                  store=not no_store)
    for note in result.warnings:
        click.echo(f"warning: {note}", err=True)
    if per_topic:
        from ..resampling.risk import COUNT_COLUMNS

        click.echo(render(result.topics.rename(columns={"p_value": "p"}), fmt, integer_columns=COUNT_COLUMNS))
    else:
        click.echo(result.render(fmt, note=False))  # the table print(result) shows (pyeval/display.py)
    if result.risk_id is not None:
        click.echo(f"stored as risk experiment {result.risk_id}", err=True)


@main.command("design")
@click.option("--campaign", "-C", "campaigns", multiple=True, required=True,
              help="Campaign whose scores estimate the variance (repeat to pool campaigns).")
@click.option("-m", "--measure", "measures", multiple=True, required=True, help="A measure with stored scores (repeatable).")
@click.option("--design", "designs", multiple=True, type=click.Choice(names(DESIGNS)),
              help="paired-t, anova (one-way, --systems), ci (--half-width); default all three.")
@click.option("--alpha", type=PROBABILITY, default=0.05, show_default=True,
              help="Significance level (CI: 1 - confidence).")
@click.option("--beta", type=PROBABILITY, default=0.2, show_default=True, help="Type II error rate (power 1 - beta).")
@click.option("--min-diff", type=POSITIVE, default=0.05, show_default=True,
              help="Minimum detectable difference (paired t) and range (anova).")
@click.option("--systems", type=click.IntRange(min=2, max=1_000_000), help="anova: systems compared (default: the campaign's runs).")
@click.option("--half-width", type=POSITIVE, help="ci: the largest expected half-width (default --min-diff).")
@click.option("--variance", "variance_method", type=click.Choice(names(VARIANCE_METHODS)), default="two-way",
              show_default=True, help="Residual variance of two-way ANOVA without replication, or one-way.")
@click.option("--method", type=click.Choice(names(DESIGN_METHODS)), default="exact", show_default=True,
              help="Exact noncentral t and F, or Sakai's normal approximations.")
@click.option("--plot", type=click.Path(dir_okay=False), callback=checked_figure,
              help="Save topics required against the minimum detectable difference (paired t) as PNG "
                   "(created, or replacing only a figure pyeval saved).")
@click.option("--g-study", "g_study_topics", multiple=True, type=click.IntRange(min=1, max=MAX_DESIGN_TOPICS),
              help="Also print the G-study (first campaign) and the D-study's Erho2 and Phi at these topic counts "
                   "(repeatable; not stored).")
@click.option("--stability", type=PROBABILITY, default=0.95, show_default=True,
              help="--g-study: the Erho2 and Phi whose topic counts are printed.")
@_judgments_option
@click.option("--no-store", is_flag=True, help="Compute and print only; store nothing (read-only).")
@_format_option
@click.pass_context
@fail_cleanly
def design_command(ctx, campaigns, measures, designs, alpha, beta, min_diff, systems, half_width, variance_method,
                   method, plot, g_study_topics, stability, judgments, no_store, fmt):
    """Topic set size design (Sakai, IRJ 2016): topics needed, and power at the campaign's topics."""
    con = open_warehouse(ctx, read_only=no_store, create=False)
    with storing(con, not no_store):  # the stored design goes back if the G-study or the plot fails
        _design(con, campaigns, measures, designs, alpha, beta, min_diff, systems, half_width, variance_method,
                method, plot, g_study_topics, stability, judgments, not no_store, fmt)


def _design(con, campaigns, measures, designs, alpha, beta, min_diff, systems, half_width, variance_method, method,
            plot, g_study_topics, stability, judgments, store, fmt) -> None:
    """design's work, in the command's transaction."""
    from ..output import render
    from ..resampling.design import topic_set_design

    result = topic_set_design(con, list(campaigns), list(measures), designs=list(designs) or ["paired-t", "anova", "ci"],
                              alpha=alpha, beta=beta, min_diff=min_diff, systems=systems, half_width=half_width,
                              variance_method=variance_method, method=method, judgments=judgments, store=store)
    click.echo(result.render(fmt, note=False))
    if g_study_topics:
        import pandas as pd

        from ..resampling.design import design_matrices, g_study

        frames = []
        for name in dict.fromkeys(result.table["measure"]):
            g = g_study(design_matrices(con, [campaigns[0]], name, judgments)[0].values)
            d = g.d_study(sorted(set(g_study_topics)), stability)
            d.insert(0, "measure", name)
            for column, value in (("var_system", g.var_system), ("var_topic", g.var_topic),
                                  ("var_residual", g.var_residual)):
                d[column] = value
            frames.append(d)
        click.echo()
        click.echo(render(pd.concat(frames, ignore_index=True), fmt, integer_columns=("topics_for_Erho2", "topics_for_Phi")))
    if plot:
        result.plot(plot)
        click.echo(f"topic set sizes plotted to {plot}", err=True)
    if result.design_id is not None:
        click.echo(f"stored as topic set design {result.design_id}", err=True)
