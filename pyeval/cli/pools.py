"""Pools: ``pyeval pool build``, ``list``, ``export``, ``coverage``, ``uniques`` and ``loo``
(pyeval.pools; docs/pools.md)."""
from __future__ import annotations

import click

from ..vocabulary import ORDERINGS, POOL_GROUPINGS, REPORT_FORMATS, names
from .base import (COUNT, DEFAULT_SET_HELP, DEPTH, SEED, campaign_option, checked_output, fail_cleanly, main,
                   open_warehouse, output_option, replace_option)

pool_option = click.option("--pool", "-P", "pool_name", metavar="NAME",
                           help="The pool (default: the campaign's only pool).")
table_option = click.option("--table", "table_format", type=click.Choice(names(REPORT_FORMATS)),
                            help="Print a table for a paper (markdown or LaTeX) instead.")


def _pool(con, campaign: str, pool_name: str | None) -> str:
    from ..errors import PyevalError
    from ..pools.build import pool_names

    if pool_name:
        return pool_name
    names = pool_names(con, campaign)
    if len(names) != 1:
        raise PyevalError(f"campaign '{campaign}' has {len(names) or 'no'} pools"
                          f"{': ' + ', '.join(names) if names else ''}; name one with --pool"
                          if names else f"campaign '{campaign}' has no pool (pyeval pool build)")
    return names[0]


def _run_depth(ctx, param, values):
    depths = {}
    for value in values:
        run, _, depth = value.rpartition("=")
        if not run or not depth.isdigit():
            raise click.BadParameter(f"{value!r}: write RUN=DEPTH")
        depths[run] = int(depth)
    return depths


@main.group("pool")
def pool_group():
    """Pools built from stored runs, their coverage, and leave-one-group-out (docs/pools.md)."""


@pool_group.command("build")
@campaign_option
@click.option("--name", required=True, help="The pool's name.")
@click.option("--depth", type=DEPTH, default=100, show_default=True,
              help="Depth each run is pooled to (beyond a run's longest list: the whole list).")
@click.option("--runs", "runs", multiple=True, metavar="RUN", help="A run to pool, in pooling order (repeatable; "
              "default every run by name).")
@click.option("--pooled-tag", "tag", metavar="TAG", help="Pool the runs tagged TAG.")
@click.option("--run-depth", "run_depths", multiple=True, callback=_run_depth, metavar="RUN=K",
              help="This run's own depth (repeatable).")
@click.option("--budget", type=COUNT, help="At most this many documents per topic (make-pools.pl -b).")
@click.option("--stratum", "strata", multiple=True, metavar="FROM:TO[:RATE]",
              help="A rank stratum drawn at RATE, or from the budget without one (make-pools.pl -s; repeatable, "
                   "in order).")
@click.option("--seed", type=SEED, default=None, help="Seed of the sampling draws.")
@click.option("--ordering", type=click.Choice(names(ORDERINGS)), default="trec",
              show_default=True, help="How each run is ranked (trec: score desc, docno desc).")
@click.option("--replace", is_flag=True, help="Replace a pool of that name (and its coverage and leave-out results).")
@click.pass_context
@fail_cleanly
def build_command(ctx, campaign, name, depth, runs, tag, run_depths, budget, strata, seed, ordering, replace):
    """Build a pool from the campaign's stored runs and store it."""
    from ..pools import DEFAULT_SEED, build

    con = open_warehouse(ctx, create=False)
    count = build(con, campaign, name, depth=depth, runs=list(runs), tag=tag, run_depths=run_depths, budget=budget,
                  strata=list(strata), seed=DEFAULT_SEED if seed is None else seed, ordering=ordering,
                  replace=replace)
    click.echo(f"{campaign}: pool '{name}': {count} documents")


@pool_group.command("list")
@click.option("--campaign", "-C", help="Only this campaign's pools.")
@output_option
@click.pass_context
@fail_cleanly
def list_command(ctx, campaign, fmt):
    """List the stored pools with their parameters."""
    from ..output import render_rows
    from ..pools.build import POOLS_QUERY

    con = open_warehouse(ctx, read_only=True, create=False)
    cursor = con.execute(POOLS_QUERY, {"c": campaign})
    headers = [d[0] for d in cursor.description]
    click.echo(render_rows(headers, cursor.fetchall(), fmt, integer_columns=("depth", "budget", "seed", "documents",
                                                                             "runs")))


@pool_group.command("export")
@campaign_option
@click.argument("name")
@click.argument("file", type=click.Path(dir_okay=False), callback=checked_output("pool file", replaceable=True))
@replace_option
@click.pass_context
@fail_cleanly
def export_command(ctx, campaign, name, file, replace):
    """Write pool NAME to FILE as assessors receive it: 'topic 0 docno -1', a block per topic (an
    existing FILE only with --replace)."""
    from ..pools import export

    con = open_warehouse(ctx, read_only=True, create=False)
    lines = export(con, campaign, name, file, replace=replace)
    click.echo(f"{campaign}: pool '{name}': {lines} lines written to {file}")


@pool_group.command("coverage")
@campaign_option
@pool_option
@click.option("--judgments", "judgment_set", metavar="NAME", help="The judgment set judged against." + DEFAULT_SET_HELP)
@click.option("--runs", "runs", multiple=True, metavar="RUN", help="Only these runs (repeatable).")
@click.option("--per-topic", is_flag=True, help="Print every run, topic and k instead of the means per run.")
@click.option("--no-store", is_flag=True, help="Compute and print only; store nothing.")
@table_option
@output_option
@click.pass_context
@fail_cleanly
def coverage_command(ctx, campaign, pool_name, judgment_set, runs, per_topic, no_store, table_format, fmt):
    """Judged@k, unjudged fraction and documents no other team retrieved, per run (pooled runs
    marked *); stored in pool_coverage."""
    from ..output import render, render_rows
    from ..pools.coverage import ROWS_TABLE, coverage_into, summary_rows

    con = open_warehouse(ctx, create=False)
    name = _pool(con, campaign, pool_name)
    coverage_into(con, campaign, name, judgment_set=judgment_set, runs=list(runs), store=not no_store)
    try:
        if per_topic:
            click.echo(render(con.execute(f"select * from {ROWS_TABLE} order by run_id, topic_id, k").df(), fmt,
                              integer_columns=("k", "retrieved", "judged", "relevant", "unique_to_team")))
            return
        pooled = [r[0] for r in con.execute("select run_id from pool_runs where campaign_id = $c and pool_name = $p",
                                            {"c": campaign, "p": name}).fetchall()]
        headers, rows = summary_rows(con, pooled)
    finally:
        con.execute(f"drop table if exists {ROWS_TABLE}")
    if table_format:
        import pandas as pd

        from ..pools.report import paper_table

        click.echo(paper_table(pd.DataFrame(rows, columns=headers), table_format, digits=3,
                               caption=f"coverage of pool {name} ({campaign})"))
    else:
        click.echo(render_rows(headers, rows, fmt))


@pool_group.command("uniques")
@campaign_option
@pool_option
@click.option("--judgments", "judgment_set", metavar="NAME", help="The judgment set judged against." + DEFAULT_SET_HELP)
@click.option("--by", "grouping", type=click.Choice(names(POOL_GROUPINGS)), default="team", show_default=True)
@table_option
@output_option
@click.pass_context
@fail_cleanly
def uniques_command(ctx, campaign, pool_name, judgment_set, grouping, table_format, fmt):
    """Per team (or run): the judged and relevant documents of the pool only it contributed."""
    from ..output import render
    from ..pools import unique_relevant
    from ..pools.report import paper_table

    con = open_warehouse(ctx, read_only=True, create=False)
    frame = unique_relevant(con, campaign, _pool(con, campaign, pool_name), judgment_set=judgment_set,
                            grouping=grouping)
    click.echo(paper_table(frame, table_format) if table_format else render(frame, fmt))


@pool_group.command("loo")
@campaign_option
@pool_option
@click.option("-m", "--measure", "measures", multiple=True, required=True, help="A measure (repeatable).")
@click.option("--by", "grouping", type=click.Choice(names(POOL_GROUPINGS)), default="team", show_default=True,
              help="Leave out one team (gloo-eval.pl) or one run at a time.")
@click.option("--judgments", "judgment_set", metavar="NAME",
              help="The judgment set left out of." + DEFAULT_SET_HELP)
@click.option("--runs", "runs", multiple=True, metavar="RUN", help="Only these runs (repeatable).")
@click.option("--team", "teams", multiple=True, metavar="NAME",
              help="Leave out only this team (or run, with --by run; repeatable); the others keep official values.")
@click.option("--rankings", is_flag=True, help="Print Kendall's tau and tau_ap per measure instead.")
@click.option("--plot", "plot_prefix", metavar="PREFIX", help="Save PREFIX-<measure>.png: official vs leave-out, "
              "y = x, pooled runs marked.")
@click.option("--no-store", is_flag=True, help="Compute and print only; store no result (the derived sets are kept).")
@table_option
@output_option
@click.pass_context
@fail_cleanly
def loo_command(ctx, campaign, pool_name, measures, grouping, judgment_set, runs, teams, rankings, plot_prefix,
                no_store, table_format, fmt):
    """Leave-one-group-out: each run under the judgments without its team's (or run's) unique
    documents, with loo-summarize.pl's columns (pooled runs marked *) and rank changes."""
    from pyeval.core.db import transaction
    from ..output import render
    from ..pools import leave_out
    from ..pools.report import paper_table

    if plot_prefix:  # every figure file checked before any work
        from ..pools.leave_out import measure_names
        from .base import require_figure_paths

        require_figure_paths(_loo_figure(plot_prefix, measure) for measure in measure_names(measures))
    con = open_warehouse(ctx, create=False)
    with transaction(con):  # what it stores (the derived sets too) goes back if a figure cannot be written
        name = _pool(con, campaign, pool_name)
        result = leave_out(con, campaign, name, list(measures), grouping=grouping, judgment_set=judgment_set,
                           runs=list(runs) or None, teams=list(teams) or None, store=not no_store)
        frame = result.rankings if rankings else result.summary()
        if table_format:
            click.echo(paper_table(frame, table_format, caption=f"leave-one-{grouping}-out, pool {name} ({campaign})"))
        else:
            from ..pools.leave_out import RANK_COLUMNS

            click.echo(render(frame, fmt, integer_columns=RANK_COLUMNS))
        if plot_prefix:
            for measure in result.rankings["measure"]:
                result.plot(_loo_figure(plot_prefix, measure), measure)


def _loo_figure(prefix: str, measure: str) -> str:
    """The figure file ``pool loo --plot PREFIX`` writes for a measure."""
    return f"{prefix}-{measure.replace('/', '_')}.png"
