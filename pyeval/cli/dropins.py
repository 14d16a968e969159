"""The drop-ins for the reference tools: ``pyeval trec_eval``, ``ntcireval`` and ``ndeval``
(their own options, their output byte for byte).
"""
from __future__ import annotations

import atexit
import gc
import sys

import click

from ..vocabulary import NTCIREVAL_VERSIONS, REL_FORMATS, names
from ..errors import DuplicateEntryError, PyevalError
from ..storage import resources
from .base import DEPTH, LEVEL, UNIT, FiniteFloat, main

#: ntcireval's real options: finite numbers here; their ranges are checked (and refused in the
#: tool's own words and exit status) by pyeval.compat.ntcireval.
FINITE = FiniteFloat()


def _out_of_memory_errors() -> type[Exception]:
    """DuckDB's out-of-memory error (the drop-ins print it in one line with the limit to raise)."""
    import duckdb

    return duckdb.OutOfMemoryException


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
@click.option("-M", "max_depth", type=DEPTH, help="Documents per topic (after ordering).")
@click.option("-l", "relevance_level", type=LEVEL, default=1, show_default=True,
              help="Lowest level counted as relevant.")
@click.option("-N", "collection_size", type=click.IntRange(min=0, max=2**53), default=0, help="Documents in the collection (utility).")
@click.option("-m", "measures", multiple=True, metavar="MEASURE[.PARAMS]",
              help="Measure or nickname (official, all_trec, set); repeatable.")
@click.option("-Z", "zscores", type=click.Path(dir_okay=False),
              help="Print z-scores against the 'topic measure mean sd' lines of this file.")
@click.option("-R", "rel_format", default="qrels",
              type=click.Choice(names(REL_FORMATS)),
              help="Relevance format: qrels; qrels_jg (judgment groups; the *_avgjg measures); "
                   "prefs or qrels_prefs (preference judgments; the prefs_* measures).")
@click.option("-T", "results_format", default="trec_results", help="Results format: only 'trec_results'.")
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("results", type=click.Path(dir_okay=False))
def trec_eval_command(per_topic, complete, no_summary, judged_only, max_depth, relevance_level,
                      collection_size, measures, zscores, rel_format, results_format, qrels, results):
    """trec_eval 10.0 on QRELS and a RESULTS run, through pyeval's SQL (byte-identical output)."""
    from ..compat.trec_eval import TrecEvalError, TrecEvalOptions, run

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
    except _out_of_memory_errors() as exc:
        click.echo(f"trec_eval: {resources.out_of_memory(exc)}", err=True)
        sys.exit(2)


@main.command("ntcireval", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-r", "qrels", required=True, type=click.Path(dir_okay=False),
              help="NTCIR qrels: 'topic docno Lk' lines.")
@click.option("-g", "gains", required=True, metavar="G1:G2[:...]",
              help="Gain of each relevance level, lowest first; its length is the highest level.")
@click.option("--cutoffs", default="1000", show_default=True, metavar="K[,K...]",
              help="Document cutoffs of the @ measures (at most 9), printed in the order given.")
@click.option("--beta", type=FINITE, default=1.0, show_default=True, help="Blended ratio's beta (Q-measure).")
@click.option("--gamma", type=FINITE, default=0.95, show_default=True, help="Rank-biased NCU's gamma.")
@click.option("--logb", type=FINITE, default=2.0, show_default=True,
              help="Log base of nDCG@l's discount (0: natural log).")
@click.option("--rbp", type=FINITE, default=0.95, show_default=True, help="RBP persistence p.")
@click.option("--rbup", type=FINITE, default=None,
              help="iRBU's u (190111: print iRBU@l; 2020: default 0.99, also NCUrb,IE's u).")
@click.option("-j", "condensed", is_flag=True, help="Condensed lists (unjudged removed) and the bpref family.")
@click.option("--gap", is_flag=True, help="Also print GAP and GAP@l.")
@click.option("--format", "version", type=click.Choice(names(NTCIREVAL_VERSIONS)), default="190111", show_default=True,
              help="Which NTCIREVAL version's measure set and names.")
@click.option("--truncate", type=DEPTH, default=1000, show_default=True,
              help="Documents kept per topic, in file order (TRECsplitruns' depth).")
@click.argument("results", metavar="RUN", type=click.Path(dir_okay=False))
def ntcireval_command(qrels, gains, cutoffs, beta, gamma, logb, rbp, rbup, condensed, gap, version, truncate,
                      results):
    """NTCIREVAL's NTCIR-eval/compute on NTCIR qrels and a TREC RUN (file order), its output lines."""
    from ..compat.ntcireval import NtcirevalError, NtcirevalOptions, run

    _skip_the_last_collection()

    options = NtcirevalOptions(gains=gains, cutoffs=cutoffs, beta=beta, gamma=gamma, logb=logb, rbp=rbp,
                               rbup=rbup, condensed=condensed, gap=gap, format=version, truncate=truncate)
    try:
        click.echo(run(qrels, results, options), nl=False)
        click.echo("pyeval ntcireval: no mean lines, as NTCIREVAL's compute prints none (its means come from "
                   "the separate NEV2mean script; pyeval evaluate prints and stores means)", err=True)
    except NtcirevalError as exc:
        click.echo(f"pyeval ntcireval: {exc}", err=True)
        sys.exit(exc.status)
    except PyevalError as exc:  # loaders: FILE:LINE: problem
        click.echo(f"pyeval ntcireval: {exc}", err=True)
        sys.exit(2)
    except _out_of_memory_errors() as exc:
        click.echo(f"pyeval ntcireval: {resources.out_of_memory(exc)}", err=True)
        sys.exit(2)


@main.command("ndeval", context_settings={"help_option_names": ["-h", "-help", "--help"]})
@click.option("-c", "complete", is_flag=True, help="Average over every qrels topic (missing topics count 0).")
@click.option("-alpha", "alpha", type=UNIT, default=0.5, show_default=True,
              help="Redundancy intolerance of alpha-nDCG, ERR-IA and NRBP.")
@click.option("-beta", "beta", type=UNIT, default=0.5, show_default=True, help="Patience of NRBP.")
@click.option("-traditional", "traditional", is_flag=True,
              help="Order by score, then docno descending, instead of the rank column.")
@click.option("-M", "depth", type=DEPTH, default=None, help="Keep the first N documents of each topic.")
@click.option("-baseline", "--baseline", "baseline", type=click.Path(dir_okay=False),
              help="Risk-sensitive mode (TREC Web 2013-14): print differences from this baseline run.")
@click.option("-riskAlpha", "--risk-alpha", "risk_alpha", default="0", show_default=True,
              help="Risk-sensitive mode: losses against the baseline weigh 1 + A.")
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("results", metavar="RUN", type=click.Path(dir_okay=False))
def ndeval_command(complete, alpha, beta, traditional, depth, baseline, risk_alpha, qrels, results):
    """ndeval 4.5 (TREC Web diversity) on QRELS and a TREC RUN: its CSV, byte for byte."""
    from ..compat.ndeval import NdevalError, NdevalOptions, run

    _skip_the_last_collection()

    options = NdevalOptions(alpha=alpha, beta=beta, traditional=traditional, complete=complete, depth=depth,
                            baseline=baseline, risk_alpha=risk_alpha)
    try:
        click.echo(run(qrels, results, options), nl=False)
    except NdevalError as exc:
        click.echo(f"ndeval: {exc}", err=True)
        sys.exit(exc.status)
    except PyevalError as exc:
        click.echo(f"ndeval: {exc}", err=True)
        sys.exit(1)
    except _out_of_memory_errors() as exc:
        click.echo(f"ndeval: {resources.out_of_memory(exc)}", err=True)
        sys.exit(1)
