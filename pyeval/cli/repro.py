"""Reproducibility and longitudinal evaluation: ``pyeval relate``, ``repro`` and ``longitudinal``
(docs/reproducibility.md)."""
from __future__ import annotations

import click

from pyeval.vocabulary import REPORT_TABLE_FORMATS, REPRO_KINDS, names
from .base import (DEFAULT_SET_HELP, DEPTH, PROBABILITY, campaign_option, checked_figure, fail_cleanly, main, open_warehouse,
                   storing)

_FORMAT = click.option("--format", "fmt", type=click.Choice(names(REPORT_TABLE_FORMATS)), default="table",
                       show_default=True, help="How to print the result.")
_NO_STORE = click.option("--no-store", is_flag=True, help="Compute and print only; store nothing (read-only).")


def _stored_note(kind: str, identifier) -> None:
    if identifier is not None:
        click.echo(f"stored as {kind} {identifier}", err=True)


@main.command("relate")
@campaign_option
@click.argument("run")
@click.option("--reproduces", metavar="ORIGINAL", help="RUN reproduces run ORIGINAL (same collection).")
@click.option("--replicates", metavar="ORIGINAL", help="RUN replicates run ORIGINAL (another collection).")
@click.option("--original-campaign", metavar="CAMPAIGN",
              help="The campaign of ORIGINAL (default: RUN's campaign).")
@click.option("--system", help="With --snapshot: the system RUN is (default: the --ir-metadata file's tag).")
@click.option("--snapshot", metavar="LABEL", help="RUN is --system at snapshot LABEL of the longitudinal campaign.")
@click.option("--snapshot-date", type=click.DateTime(formats=["%Y-%m-%d"]),
              help="The date of the snapshot (YYYY-MM-DD); snapshots are ordered by it.")
@click.option("--judgments", "judgment_set", metavar="NAME",
              help="With --snapshot: the judgment set holding that snapshot's qrels." + DEFAULT_SET_HELP)
@click.option("--pivot-run", metavar="RUN", help="With --snapshot: the pivot system's run at that snapshot.")
@click.option("--provenance", help="Free text: how the run was made (code, commit, machine, who).")
@click.option("--ir-metadata", "ir_metadata", type=click.Path(dir_okay=False),
              help="An ir-metadata YAML file of RUN: stored as JSON; sets the run's team (actor.team) and "
              "system (tag).")
@click.pass_context
@fail_cleanly
def relate_command(ctx, campaign, run, reproduces, replicates, original_campaign, system, snapshot, snapshot_date,
                   judgment_set, pivot_run, provenance, ir_metadata):
    """Record what stored RUN is: a reproduction or replication of another run, a system at a
    snapshot of a longitudinal campaign, and its ir-metadata."""
    from ..errors import PyevalError
    from ..repro.relations import load_ir_metadata, record_relation, record_snapshot

    if reproduces and replicates:
        raise PyevalError("--reproduces and --replicates: choose one")
    if system and not snapshot:
        raise PyevalError("--system names the system at a --snapshot; give one (or use pyeval annotate --system)")
    if snapshot and not (system or ir_metadata):
        raise PyevalError("--snapshot needs --system (or an --ir-metadata file whose tag names the system)")
    if (snapshot_date or judgment_set or pivot_run) and not snapshot:
        raise PyevalError("--snapshot-date, --judgments and --pivot-run describe a --snapshot; give one")
    if original_campaign and not (reproduces or replicates):
        raise PyevalError("--original-campaign names the campaign of --reproduces or --replicates")
    if not (reproduces or replicates or snapshot or ir_metadata):
        raise PyevalError("give --reproduces, --replicates, --snapshot or --ir-metadata")
    con = open_warehouse(ctx, create=False)
    with storing(con, True):
        if ir_metadata:
            typed = load_ir_metadata(con, campaign, run, ir_metadata)
            click.echo(f"{campaign}: run '{run}': ir-metadata {ir_metadata} (team {typed['team'] or '-'}, "
                       f"system {typed['system'] or '-'})")
        if reproduces or replicates:
            relation, original = ("reproduces", reproduces) if reproduces else ("replicates", replicates)
            record_relation(con, campaign, run, relation, original, original_campaign_id=original_campaign,
                            provenance=provenance)
            click.echo(f"{campaign}: run '{run}' {relation} {original_campaign or campaign}: '{original}'")
        if snapshot:
            system = system or typed["system"]
            if not system:
                raise PyevalError(f"{ir_metadata}: no tag to name the system; give --system")
            record_snapshot(con, campaign, run, system, snapshot,
                            snapshot_date=snapshot_date.date() if snapshot_date else None, judgment_set=judgment_set,
                            pivot_run_id=pivot_run, provenance=provenance)
            click.echo(f"{campaign}: run '{run}' is system '{system}' at snapshot '{snapshot}'")


@main.command("repro")
@campaign_option
@click.option("--baseline", required=True, help="The original baseline run.")
@click.option("--advanced", required=True, help="The original advanced run.")
@click.option("--rep-baseline", help="The reproduced (replicated) baseline run (default: the run recorded as "
              "reproducing --baseline, pyeval relate).")
@click.option("--rep-advanced", help="The reproduced (replicated) advanced run (default: the run recorded as "
              "reproducing --advanced).")
@click.option("--rep-campaign", metavar="CAMPAIGN", help="The campaign of the reproduced runs (default: -C).")
@click.option("--kind", type=click.Choice(names(REPRO_KINDS)),
              help="Same collection (paired t-test; KTU, RBO and RMSE too) or another collection (unpaired). "
              "Default: reproducibility within one campaign, replicability across two.")
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="Measure (repeatable): any pyeval measure; scores read from the warehouse, evaluated if missing.")
@click.option("--trim", type=DEPTH, default=1000, show_default=True,
              help="Documents of each list the document-order measures read (repro_eval's trim).")
@click.option("--rbo-depth", type=DEPTH, default=1000, show_default=True, help="RBO's evaluation depth.")
@click.option("--rbo-p", type=PROBABILITY, default=0.95, show_default=True, help="RBO's persistence p.")
@click.option("--judgments", "judgment_set", metavar="NAME",
              help="The judgment set of the original runs' scores." + DEFAULT_SET_HELP)
@click.option("--rep-judgments", "rep_judgment_set", metavar="NAME",
              help="The judgment set of the reproduced runs' scores (default: that campaign's default set).")
@_NO_STORE
@_FORMAT
@click.pass_context
@fail_cleanly
def repro_command(ctx, campaign, baseline, advanced, rep_baseline, rep_advanced, rep_campaign, kind, measures, trim,
                  rbo_depth, rbo_p, judgment_set, rep_judgment_set, no_store, fmt):
    """How closely a reproduction matches the original (repro_eval's measures): KTU, RBO, RBO with
    ties, RMSE, nRMSE, ER, DeltaRI and t-test p-values."""
    from ..output import render
    from ..repro import reproduce

    con = open_warehouse(ctx, read_only=no_store, create=False)
    result = reproduce(con, campaign, baseline, advanced, rep_baseline, rep_advanced, list(measures),
                       rep_campaign=rep_campaign, kind=kind, trim=trim, rbo_depth=rbo_depth, rbo_p=rbo_p,
                       judgment_set=judgment_set, rep_judgment_set=rep_judgment_set, store=not no_store)
    click.echo(render(result.table(), fmt))
    click.echo(f"{result.kind}: {campaign} ({baseline}, {advanced}) against {result.rep_campaign} "
               f"({result.rep_baseline}, {result.rep_advanced})", err=True)
    _stored_note("repro experiment", result.repro_id)


@main.command("longitudinal")
@campaign_option
@click.option("--pivot", required=True, help="The pivot system (LongEval's baseline) every system is compared with.")
@click.option("-m", "--measure", "measures", multiple=True, required=True, help="Measure (repeatable).")
@click.option("--reference", metavar="SNAPSHOT", help="The reference snapshot (default: the first by date).")
@click.option("--plot", type=click.Path(dir_okay=False), callback=checked_figure,
              help="Save ARP across the snapshots per system (.png, .pdf or .svg by the suffix; created, or "
              "replacing only a figure pyeval saved).")
@click.option("--dpi", type=click.IntRange(min=10, max=2400), help="Resolution of --plot in dots per inch.")
@_NO_STORE
@_FORMAT
@click.pass_context
@fail_cleanly
def longitudinal_command(ctx, campaign, pivot, measures, reference, plot, dpi, no_store, fmt):
    """Systems across the snapshots of a longitudinal campaign (CLEF LongEval): ARP, ER, DRI,
    t-test, mean ARP and relative change against the reference snapshot, and the stability of
    the system ranking (tau, tau_ap)."""
    from ..output import render
    from ..repro.longitudinal import longitudinal

    con = open_warehouse(ctx, read_only=no_store, create=False)
    with storing(con, not no_store):  # a figure that cannot be written takes back what was stored
        result = longitudinal(con, campaign, pivot, list(measures), reference=reference, store=not no_store)
        click.echo(render(result.summary(), fmt))
        click.echo("")
        click.echo(render(result.rankings, fmt))
        if plot:
            result.plot(plot, dpi=dpi)
            click.echo(f"ARP across snapshots plotted to {plot}", err=True)
        _stored_note("longitudinal experiment", result.longitudinal_id)
