"""Meta-evaluation: significance tests, discriminative power, comparisons, swap rates,
stability, correlation, concordance, robustness and MEM.
"""
from __future__ import annotations

import click

from ..vocabulary import COMPARISONS, CORRECTIONS, CORRELATION_COLUMNS, CORRELATION_TESTS, FUZZ_MARGINS, MEM_EXPECTATIONS, MEM_SOLVERS, P_CONVENTIONS, REPORT_FORMATS, RESAMPLING_ENGINES, SIGNIFICANCE_TESTS, SWAP_RULES, SWAP_SAMPLING, names
from .base import (COUNT, DEFAULT_SET_HELP, NON_NEGATIVE, POSITIVE, PROBABILITY, REPLICATES, RISK_ALPHA, SEED, TRIALS,
                   campaign_option, checked_figure, checked_output, fail_cleanly, main, number_list, open_warehouse, output_option, run_names, storing)



def _resampling_options(command):
    """Options shared by significance, discpower and compare."""
    for option in reversed([
        click.option("--runs", "runs", multiple=True,
                     help="Runs to compare (repeatable or comma-separated); default every run with stored scores."),
        click.option("-B", "--replicates", type=REPLICATES,
                     help="Resamples: default 1000 (bootstrap), 5000 (tukey), 100000 (randomization; exact if 2^n <= B)."),
        click.option("--seed", type=SEED, default=0, show_default=True,
                     help="Seed of the replicates and of --runs-sample (NumPy PCG64)."),
        click.option("--alpha", type=PROBABILITY, default=0.05, show_default=True, help="Significance level."),
        click.option("--correction", type=click.Choice(names(CORRECTIONS)), default="none", show_default=True,
                     help="Multiple-comparison correction of pairwise p-values (not for tukey)."),
        click.option("--compare", "comparison", type=click.Choice(names(COMPARISONS)), default="ge", show_default=True,
                     help="Count resampled statistics >= the observed one (tie-aware) or > (JIP 2013 Fig. 4)."),
        click.option("--no-store", is_flag=True, help="Compute and print only; store nothing (read-only)."),
    ]):
        command = option(command)
    return command


def _plot_options(help_text: str):
    """--plot PATH (PNG, PDF or SVG by its suffix; a new file or a figure pyeval saved) and --dpi."""
    def decorate(command):
        command = click.option("--dpi", type=click.IntRange(min=10, max=2400),
                               help="Resolution of --plot in dots per inch (default the figure's, 110-120).")(command)
        return click.option("--plot", type=click.Path(dir_okay=False), callback=checked_figure,
                            help=help_text + " (.png, .pdf or .svg by the suffix; created, or replacing only a "
                            "figure pyeval saved).")(command)
    return decorate


#: The header of the CSV ``discpower --curves`` writes (what proves an existing file is one).
_CURVES_HEADER = "measure,rank,asl"


def _is_curves_csv(path) -> bool:
    from pyeval.storage import ownership

    return ownership.starts_with_line(path, _CURVES_HEADER)


_run_names = run_names


def _judgments_option(command):
    """--judgments NAME: the judgment set whose stored scores (mem: qrels) are read (docs/judgments.md)."""
    return click.option("--judgments", "judgment_set", metavar="NAME",
                        help="The judgment set whose stored scores (mem: whose qrels) are read (docs/judgments.md)."
                        + DEFAULT_SET_HELP)(command)


@main.command("significance")
@campaign_option
@click.option("-m", "--measure", required=True, help="A measure with stored scores (AP, nDCG@10, map, ...).")
@click.option("--test", type=click.Choice(names(SIGNIFICANCE_TESTS)), default="bootstrap", show_default=True,
              help="Paired bootstrap, randomised Tukey HSD, randomisation (sign flips), paired t, sign, Wilcoxon.")
@_resampling_options
@click.option("--runs-sample", type=click.IntRange(min=2, max=2**31 - 1), help="Test a seeded random sample of K runs.")
@click.option("--p-value", "p_convention", type=click.Choice(names(P_CONVENTIONS)), default="count",
              show_default=True, help="Resampled p-value: count/B, or (count+1)/(B+1).")
@click.option("--tau", type=NON_NEGATIVE, default=0.0, show_default=True, help="Sign test: tie band (|z| <= tau dropped).")
@click.option("--judgments", "judgment_set", metavar="NAME",
              help="Test the scores stored under this judgment set (docs/judgments.md)." + DEFAULT_SET_HELP)
@_plot_options("Save the matrix of the pairs' p-values (adjusted where corrected) as a figure")
@output_option
@click.pass_context
@fail_cleanly
def significance_command(ctx, campaign, measure, test, runs, replicates, seed, alpha, correction, comparison,
                         no_store, runs_sample, p_convention, tau, judgment_set, plot, dpi, fmt):
    """Test every pair of runs on a stored measure; store and print the pairwise results."""
    from ..resampling import significance

    con = open_warehouse(ctx, read_only=no_store, create=False)
    result = significance(con, campaign, measure, test, runs=_run_names(runs), runs_sample=runs_sample,
                          replicates=replicates, seed=seed, alpha=alpha, correction=correction,
                          comparison=comparison, p_convention=p_convention, tau=tau, store=not no_store,
                          judgment_set=judgment_set)
    click.echo(result.render(fmt, note=False))  # the table print(result) shows (pyeval/display.py)
    click.echo(result.summary(), err=True)
    if result.test_id is not None:
        click.echo(f"stored as test {result.test_id}", err=True)
    if plot:
        from ..resampling.plots import plot_significance

        plot_significance(plot, result, dpi)
        click.echo(f"p-values plotted to {plot}", err=True)


@main.command("discpower")
@campaign_option
@click.option("-m", "--measure", "measures", multiple=True, required=True, help="Measure (repeatable).")
@click.option("--test", type=click.Choice(names(SIGNIFICANCE_TESTS)), default="bootstrap", show_default=True,
              help="The test applied to every run pair of every measure.")
@_resampling_options
@click.option("--runs-sample", type=click.IntRange(min=2, max=2**31 - 1), help="Use a seeded random sample of K runs.")
@_plot_options("Save the ASL curves as a figure")
@click.option("--curves", type=click.Path(dir_okay=False), callback=checked_output("curves CSV", _is_curves_csv),
              help="Write the ASL curves as CSV (measure,rank,asl; created, or replacing only such a CSV).")
@click.option("--engine", type=click.Choice(names(RESAMPLING_ENGINES)), default="numpy", show_default=True,
              help="ray: one Ray task per shard of measures, bit-identical results (pip install 'pyeval[ray]').")
@click.option("--workers", type=click.IntRange(min=1, max=4096), help="--engine ray: shards (default the cluster's CPUs).")
@click.option("--ray-address", help="--engine ray: a running cluster (default a local one).")
@_judgments_option
@output_option
@click.pass_context
@fail_cleanly
def discpower_command(ctx, campaign, measures, test, runs, replicates, seed, alpha, correction, comparison,
                      no_store, runs_sample, plot, dpi, curves, engine, workers, ray_address, judgment_set, fmt):
    """Discriminative power of measures: significant run pairs at alpha, delta, ASL curves."""
    from ..resampling import discriminative_power

    con = open_warehouse(ctx, read_only=no_store, create=False)
    # a figure or curves that cannot be written take back what was stored (Ray's shards store apart)
    with storing(con, not no_store and engine != "ray"):
        if engine == "ray":
            from ..engines import ray_engine

            power = ray_engine.discriminative_power(
                con, campaign, list(measures), test, runs=_run_names(runs), runs_sample=runs_sample,
                replicates=replicates, seed=seed, alpha=alpha, correction=correction, comparison=comparison,
                store=not no_store, workers=workers, address=ray_address, judgment_set=judgment_set)
        else:
            power = discriminative_power(con, campaign, list(measures), test, runs=_run_names(runs),
                                         runs_sample=runs_sample, replicates=replicates, seed=seed, alpha=alpha,
                                         correction=correction, comparison=comparison, store=not no_store,
                                         judgment_set=judgment_set)
        click.echo(power.render(fmt, note=False))
        first = next(iter(power.results.values()))
        click.echo(f"{campaign}: {len(first.matrix.run_ids)} runs ({', '.join(first.matrix.run_ids)}), "
                   f"{len(first.matrix.topic_ids)} topics", err=True)
        if curves:
            from pyeval.storage import ownership

            ownership.require_replaceable_output(curves, "curves CSV", _is_curves_csv, warehouse=ctx.obj["db"])
            ownership.replace_file(curves, lambda temporary: power.curves.to_csv(temporary, index=False))
            click.echo(f"ASL curves written to {curves}", err=True)
        if plot:
            power.plot(plot, dpi=dpi)
            click.echo(f"ASL curves plotted to {plot}", err=True)
        if power.discpower_id is not None:
            click.echo(f"stored as discriminative power {power.discpower_id}", err=True)


@main.command("compare")
@campaign_option
@click.option("-m", "--measure", "measures", multiple=True, required=True, help="Measure (repeatable).")
@click.option("--baseline", help="Mark runs significantly better or worse than this run.")
@click.option("--test", type=click.Choice(names(SIGNIFICANCE_TESTS)), default="bootstrap", show_default=True,
              help="The test behind the marks (stored results are reused).")
@_resampling_options
@click.option("--format", "fmt", type=click.Choice(names(REPORT_FORMATS)), default="markdown", show_default=True,
              help="Markdown, or LaTeX (booktabs).")
@click.option("--risk-alpha", type=RISK_ALPHA,
              help="Add URisk (against --baseline, else the per-topic mean of the runs) and GeoRisk columns at this alpha.")
@_judgments_option
@_plot_options("Save the first measure's means with 95% confidence intervals and, with --baseline, each run's "
               "per-topic differences from it as a figure")
@click.pass_context
@fail_cleanly
def compare_command(ctx, campaign, measures, baseline, test, runs, replicates, seed, alpha, correction, comparison,
                    no_store, fmt, risk_alpha, judgment_set, plot, dpi):
    """A run x measure table of means with significance marks (Markdown or LaTeX booktabs)."""
    from ..resampling import compare

    con = open_warehouse(ctx, read_only=no_store, create=False)
    report = compare(con, campaign, list(measures), baseline=baseline, test=test, alpha=alpha,
                     correction=correction, runs=_run_names(runs), replicates=replicates, seed=seed,
                     comparison=comparison, store=not no_store, risk_alpha=risk_alpha, judgment_set=judgment_set)
    click.echo(report.render(fmt))
    if plot:
        from ..resampling.plots import plot_compared

        plot_compared(plot, con, report, dpi)
        click.echo(f"comparison plotted to {plot}", err=True)


def _stage2_options(command):
    """--runs, --no-store, --format shared by the stage II commands."""
    for option in reversed([
        click.option("--runs", "runs", multiple=True,
                     help="Runs (repeatable or comma-separated); default every run with stored scores for all measures."),
        click.option("--no-store", is_flag=True, help="Compute and print only; store nothing (read-only)."),
    ]):
        command = option(command)
    return output_option(_judgments_option(command))


def _subset_options(command):
    """--subset-size, --trials, --seed of swaprate and stability."""
    for option in reversed([
        click.option("-c", "--subset-size", type=COUNT,
                     help="Topics per subset c (default: half of the topics)."),
        click.option("--trials", type=TRIALS, default=1000, show_default=True,
                     help="Subsets (swaprate: subset pairs) drawn; shared by every run pair and measure."),
        click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the subsets (NumPy PCG64)."),
    ]):
        command = option(command)
    return command


def _stored_note(kind: str, identifier) -> None:
    if identifier is not None:
        click.echo(f"stored as {kind} {identifier}", err=True)


@main.command("swaprate")
@campaign_option
@click.option("-m", "--measure", "measures", multiple=True, required=True, help="Measure (repeatable).")
@_subset_options
@click.option("--sampling", type=click.Choice(names(SWAP_SAMPLING)), default="disjoint",
              show_default=True, help="Disjoint subset pairs (Voorhees-Buckley) or bootstrap samples (Soboroff).")
@click.option("--rule", type=click.Choice(names(SWAP_RULES)), default="strict", show_default=True,
              help="strict: exactly one zero difference is a swap too (Sakai 2005).")
@click.option("--bin-width", type=POSITIVE, default=0.01, show_default=True, help="Width of the difference bins.")
@click.option("--bins", type=click.IntRange(min=2, max=100_000), default=21, show_default=True,
              help="Number of bins; the last one is open (>= (bins-1) x width).")
@click.option("--max-swap-rate", type=PROBABILITY, default=0.05, show_default=True,
              help="Swap rate for the read-off (5 %: 95 % confidence).")
@click.option("--per-bin", is_flag=True, help="Print the swap rate of every bin (bin x measure).")
@_plot_options("Save swap rate against bin as a figure")
@_stage2_options
@click.pass_context
@fail_cleanly
def swaprate_command(ctx, campaign, measures, subset_size, trials, seed, sampling, rule, bin_width, bins,
                     max_swap_rate, per_bin, plot, dpi, runs, no_store, judgment_set, fmt):
    """Swap rates per difference bin and the difference needed for 95 % confidence."""
    from ..output import render
    from ..resampling import swap_rate

    con = open_warehouse(ctx, read_only=no_store, create=False)
    with storing(con, not no_store):  # a figure that cannot be written takes back what was stored
        result = swap_rate(con, campaign, list(measures), subset_size=subset_size, trials=trials, seed=seed,
                           sampling=sampling, rule=rule, bin_width=bin_width, bins=bins, max_swap_rate=max_swap_rate,
                           runs=_run_names(runs), store=not no_store, judgment_set=judgment_set)
        if per_bin:
            wide = result.table.pivot(index=["bin", "bin_low"], columns="measure", values="swap_rate")
            click.echo(render(wide[list(dict.fromkeys(result.table["measure"]))].reset_index(), fmt))
        else:
            click.echo(result.render(fmt, note=False))
        s = result.settings
        click.echo(f"{campaign}: {s['runs']} runs ({s['pairs']} pairs), {s['topic_count']} topics, "
                   f"c = {s['subset_size']}, "
                   f"{trials} trials ({sampling}, {rule} swaps), seed {seed}", err=True)
        if plot:
            result.plot(plot, dpi=dpi)
            click.echo(f"swap rates plotted to {plot}", err=True)
        _stored_note("swap-rate experiment", result.swaprate_id)


@main.command("stability")
@campaign_option
@click.option("-m", "--measure", "measures", multiple=True, required=True, help="Measure (repeatable).")
@_subset_options
@click.option("--fuzziness", "fuzziness", metavar="F[,F...]",
              help="Fuzziness values (default 0.01,0.02,...,0.20).")
@click.option("--fuzz", type=click.Choice(names(FUZZ_MARGINS)), default="relative", show_default=True,
              help="Margin f x max(a, b) (Buckley-Voorhees) or f.")
@click.option("--strict-bv-rule", is_flag=True, help="Equal means with a zero margin count as GT(y, x) (literal rule).")
@_plot_options("Save the MR/PT curves as a figure")
@_stage2_options
@click.pass_context
@fail_cleanly
def stability_command(ctx, campaign, measures, subset_size, trials, seed, fuzziness, fuzz, strict_bv_rule, plot, dpi,
                      runs, no_store, judgment_set, fmt):
    """Minority rate and proportion of ties over topic subsets, for each fuzziness."""
    from ..resampling import stability
    from ..resampling.stability import DEFAULT_FUZZINESS

    values = number_list([fuzziness], "--fuzziness", NON_NEGATIVE) if fuzziness else list(DEFAULT_FUZZINESS)
    con = open_warehouse(ctx, read_only=no_store, create=False)
    with storing(con, not no_store):  # a figure that cannot be written takes back what was stored
        result = stability(con, campaign, list(measures), fuzziness=values, subset_size=subset_size, trials=trials,
                           seed=seed, fuzz=fuzz, strict_bv_rule=strict_bv_rule, runs=_run_names(runs),
                           store=not no_store, judgment_set=judgment_set)
        click.echo(result.render(fmt, note=False))
        click.echo(result.summary(0.05), err=True)
        if plot:
            result.plot(plot, dpi=dpi)
            click.echo(f"MR/PT curves plotted to {plot}", err=True)
        _stored_note("stability experiment", result.stability_id)


@main.command("correlate")
@campaign_option
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="Measure (repeatable, at least 2; the first of a pair is tau_ap's reference).")
@click.option("--test", type=click.Choice(names(CORRELATION_TESTS)), default="bootstrap", show_default=True,
              help="Test behind the agreement of significant pairs (stored tests are reused); none: skip it.")
@click.option("-B", "--replicates", type=REPLICATES, help="Resamples of the test (its default).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the test's replicates.")
@click.option("--alpha", type=PROBABILITY, default=0.05, show_default=True, help="Significance level.")
@click.option("--matrix", "matrix_column", type=click.Choice(names(CORRELATION_COLUMNS)),
              help="Print a measure x measure matrix of this column instead of the pair table.")
@_plot_options("Save the runs' means (sorted by the first measure) as a figure")
@_stage2_options
@click.pass_context
@fail_cleanly
def correlate_command(ctx, campaign, measures, test, replicates, seed, alpha, matrix_column, plot, dpi, runs, no_store,
                      judgment_set, fmt):
    """Kendall's tau, tau_ap and the agreement of significant pairs between measures' rankings."""
    from ..output import render
    from ..resampling import correlate

    con = open_warehouse(ctx, read_only=no_store, create=False)
    with storing(con, not no_store):  # a figure that cannot be written takes back what was stored
        result = correlate(con, campaign, list(measures), runs=_run_names(runs), test=None if test == "none" else test,
                           alpha=alpha, replicates=replicates, seed=seed, store=not no_store, judgment_set=judgment_set)
        if matrix_column:
            from ..resampling.correlation import MATRIX_LEGENDS

            click.echo(render(result.matrix(matrix_column).reset_index(names="measure"), fmt))
            click.echo(MATRIX_LEGENDS[matrix_column], err=fmt in ("csv", "json"))  # csv/json: data only on stdout
        else:
            click.echo(result.render(fmt, note=False))
        data = result.matrices
        click.echo(f"{campaign}: {len(data.run_ids)} runs, {len(data.topic_ids)} topics"
                   + (f"; agreement under {test}, alpha = {alpha:g}" if test != "none" else ""), err=True)
        if result.table["tied_means"].any():
            click.echo("warning: tied means; tau_ap broke the ties by run id", err=True)
        if plot:
            result.plot(plot, dpi=dpi)
            click.echo(f"rankings plotted to {plot}", err=True)
        _stored_note("correlation experiment", result.correlation_id)


@main.command("concordance")
@campaign_option
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="Measure to compare (repeatable, at least 2; more give the matrix).")
@click.option("--gold", "golds", multiple=True, required=True,
              help="Gold-standard measure (once or twice; two are applied together), e.g. I-rec@10, P@10.")
@click.option("--each-gold", is_flag=True, help="With two --gold: also test against each alone (parts a, b, c).")
@click.option("--matrix", "show_matrix", is_flag=True,
              help="Print the seeds' layout (conc1/conc2 with dagger marks and disagreements).")
@_stage2_options
@click.pass_context
@fail_cleanly
def concordance_command(ctx, campaign, measures, golds, each_gold, show_matrix, runs, no_store, judgment_set, fmt):
    """Sakai's concordance test: which measure agrees more with a gold standard where they disagree."""
    from ..output import render
    from ..resampling import concordance

    con = open_warehouse(ctx, read_only=no_store, create=False)
    result = concordance(con, campaign, list(measures), list(golds), each_gold=each_gold, runs=_run_names(runs),
                         store=not no_store, judgment_set=judgment_set)
    if show_matrix:
        for gold in result.gold_sets:
            click.echo(f"gold standard: {' & '.join(gold)}")
            click.echo(render(result.matrix(gold).reset_index(names="measure_1"), fmt))
        from ..resampling.concordance import MATRIX_LEGEND

        click.echo(MATRIX_LEGEND, err=fmt in ("csv", "json"))  # csv/json: data only on stdout
    else:
        click.echo(result.render(fmt, note=False))
    data = result.data
    click.echo(f"{campaign}: {len(data.run_ids)} runs, {len(data.topic_ids)} topics, "
               f"{int(result.table['list_pairs'].iloc[0])} list pairs; sign test on the wins", err=True)
    _stored_note("concordance experiment", result.concordance_id)


@main.command("robustness")
@campaign_option
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="Gain-based measure (repeatable), e.g. nDCG@10, Q.")
@click.option("--profile", "profiles", multiple=True,
              help="Gain profile to compare with the default (repeatable; default flat, steep, adjust).")
@_stage2_options
@click.pass_context
@fail_cleanly
def robustness_command(ctx, campaign, measures, profiles, runs, no_store, judgment_set, fmt):
    """Kendall's tau between rankings under default and other gain assignments (evaluates what is missing)."""
    from ..resampling import gain_robustness
    from ..resampling.robustness import DEFAULT_PROFILES

    con = open_warehouse(ctx, read_only=no_store, create=False)
    result = gain_robustness(con, campaign, list(measures), profiles=list(profiles) or list(DEFAULT_PROFILES),
                             runs=_run_names(runs), store=not no_store, judgment_set=judgment_set)
    click.echo(result.render(fmt, note=False))
    _stored_note("robustness experiment", result.robustness_id)


@main.command("mem")
@campaign_option
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="MEM target (repeatable): ERR, RBP, DCG, AP, ERR-IA, NRBP, alpha-DCG, AP-IA.")
@click.option("--depth", type=click.IntRange(min=1, max=1000), default=10, show_default=True,
              help="List depth N (at most 1000: the model's tables grow as N squared).")
@click.option("--alpha", "alpha", type=PROBABILITY, default=0.5, show_default=True, help="Cascade alpha.")
@click.option("--beta", type=PROBABILITY, default=0.8, show_default=True, help="RBP/NRBP persistence beta.")
@click.option("--expectation", type=click.Choice(names(MEM_EXPECTATIONS)), default="exact", show_default=True,
              help="E[measure] by the exact DP, or the paper's printed recursion.")
@click.option("--solver", type=click.Choice(names(MEM_SOLVERS)), default="SLSQP", show_default=True,
              help="scipy.optimize method.")
@click.option("--runs-top", type=click.IntRange(min=2, max=2**31 - 1), help="Only the K runs retrieving most relevant documents.")
@click.option("--topics-top", type=COUNT, help="Only the K topics with most relevant documents.")
@_plot_options("Save predicted against actual run means as a figure")
@_stage2_options
@click.pass_context
@fail_cleanly
def mem_command(ctx, campaign, measures, depth, alpha, beta, expectation, solver, runs_top, topics_top, plot, dpi, runs,
                no_store, judgment_set, fmt):
    """Informativeness by the maximum entropy method: PR-curve errors and predicted measures."""
    from ..resampling import informativeness

    con = open_warehouse(ctx, read_only=no_store, create=False)
    with storing(con, not no_store):  # a figure that cannot be written takes back what was stored
        result = informativeness(con, campaign, list(measures), depth=depth, alpha=alpha, beta=beta,
                                 expectation=expectation, solver=solver, runs=_run_names(runs), runs_top=runs_top,
                                 topics_top=topics_top, store=not no_store, judgment_set=judgment_set)
        click.echo(result.render(fmt, note=False))
        failed = int((~result.solutions["converged"]).sum())
        click.echo(f"{campaign}: {result.predictions['runs'].iloc[0]} runs x {result.predictions['topics'].iloc[0]} "
                   f"topics, depth {depth}; {len(result.solutions)} problems, {failed} not converged", err=True)
        if plot:
            result.plot(plot, dpi=dpi)
            click.echo(f"predictions plotted to {plot}", err=True)
        _stored_note("MEM experiment", result.mem_id)
