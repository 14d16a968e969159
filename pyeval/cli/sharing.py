"""Sharing the warehouse: ``pyeval annotate``, ``url``, ``snapshot``, ``export``, ``attach``
and ``publish``.
"""
from __future__ import annotations

import click

from .base import (campaign_option, checked_output, fail_cleanly, main, open_warehouse, output_option,
                   run_metadata_options)


@main.command("annotate")
@campaign_option
@run_metadata_options
@click.option("--clear-tags", is_flag=True, help="Remove the run's tags first.")
@click.argument("run")
@click.pass_context
@fail_cleanly
def annotate_command(ctx, campaign, system, team, run_date, tags, clear_tags, run):
    """Set a stored RUN's system, team, date or tags (what is not given is kept)."""
    from ..loaders import RunMetadata, annotate_run

    con = open_warehouse(ctx, create=False)
    metadata = RunMetadata(system=system, team=team, run_date=run_date.date() if run_date else None,
                           tags=tuple(tags), clear_tags=clear_tags)
    shown = annotate_run(con, campaign, run, metadata)
    date = shown["run_date"].isoformat() if shown["run_date"] else "-"
    click.echo(f"{campaign}: run '{run}': system {shown['system'] or '-'}, team {shown['team'] or '-'}, "
               f"date {date}, tags {', '.join(shown['tags']) or '-'}")


@main.command("url")
@click.option("--read-write", is_flag=True, help="A URL without access_mode=read_only.")
@click.option("--settable", is_flag=True,
              help="Read-only, but without lock_configuration: for clients that set options on "
              "connecting (Ibis sets timezone).")
@click.pass_context
@fail_cleanly
def url_command(ctx, read_write, settable):
    """Print the SQLAlchemy URL of the warehouse (for Superset, Metabase, pandas.read_sql)."""
    from ..errors import PyevalError
    from ..sharing import sqlalchemy_url
    from ..sharing.snapshot import is_client_snapshot

    if read_write and settable:
        raise PyevalError("--read-write and --settable: choose one")
    if is_client_snapshot(ctx.obj["db"]):
        if read_write:
            raise PyevalError(f"{ctx.obj['db']}: a snapshot for BI clients is read-only; no --read-write URL")
    else:
        open_warehouse(ctx, read_only=True).close()  # it must exist (and is upgraded if older)
        if not read_write:
            click.echo(f"note: {ctx.obj['db']} is a working warehouse: a client cannot open it while pyeval "
                       "writes it, and an older client's DuckDB cannot read its file format; for dashboards, "
                       "`pyeval snapshot --for CLIENT OUT` and the URL of OUT (docs/bi.md)", err=True)
    click.echo(sqlalchemy_url(ctx.obj["db"], read_only=not read_write, settable=settable))


def _is_snapshot(path) -> bool:
    from ..sharing.snapshot import is_snapshot

    return is_snapshot(path)


@main.command("snapshot")
@click.option("--storage-version", metavar="vX.Y.Z",
              help="DuckDB storage format to write (e.g. v1.5.0 for tools embedding DuckDB 1.5).")
@click.option("--for", "client", metavar="CLIENT",
              help="A BI client (superset, jupysql, ibis, harlequin, evidence, duckdb): the file format its "
              "DuckDB reads, and only the public tables and views in the default schema (docs/bi.md).")
@click.option("--duckdb-version", metavar="X.Y", help="Write the file format DuckDB X.Y reads.")
@click.argument("out", type=click.Path(dir_okay=False), callback=checked_output("pyeval snapshot", _is_snapshot))
@click.pass_context
@fail_cleanly
def snapshot_command(ctx, storage_version, client, duckdb_version, out):
    """Write a consistent, read-only copy of the warehouse to OUT (replaced if it exists)."""
    from ..sharing import snapshot
    from ..sharing.snapshot import storage_version_for

    storage_version_for(client, duckdb_version)  # an unknown client or version: one line, before opening
    con = open_warehouse(ctx, read_only=True)
    report = snapshot(con, out, storage_version=storage_version, client=client, duckdb_version=duckdb_version)
    click.echo(f"snapshot {report.path}: last evaluation {report.last_evaluation_id}, {report.bytes} bytes"
               + (f"; {report.storage_version} format, catalog {report.catalog}" if report.storage_version else ""))


@main.command("export")
@click.option("--parquet", "directory", required=True, type=click.Path(file_okay=False),
              help="Directory to write: one folder per table, Parquet files, manifest.json.")
@click.option("--replace", is_flag=True, help="Replace an earlier export in that directory.")
@click.pass_context
@fail_cleanly
def export_command(ctx, directory, replace):
    """Write the public tables as Parquet, partitioned by campaign, with a manifest."""
    from ..sharing import export_parquet

    con = open_warehouse(ctx, read_only=True)
    report = export_parquet(con, directory, replace=replace)
    click.echo(f"exported {sum(report.rows.values())} rows of {len(report.rows)} tables to {report.directory}")


@main.command("attach")
@click.argument("directory", type=click.Path())
@click.argument("query", required=False)
@output_option
@click.option("--no-verify", is_flag=True, help="Skip the sha256 check of the files.")
@click.option("--external-access", is_flag=True,
              help="Let QUERY read and write files other than the export's (read_csv, COPY ... TO, ATTACH) "
              "and load extensions; default: the export's files only, read-only.")
@fail_cleanly
def attach_command(directory, query, fmt, no_verify, external_access):
    """Read an export made by `pyeval export`: run QUERY on it, or list its tables."""
    from ..output import render
    from ..query import run_sql
    from ..sharing import attach_export, export_tables

    con = attach_export(directory, verify=not no_verify, external_access=external_access)
    try:
        # an empty QUERY is an error, as in pyeval sql; only an omitted one lists the tables
        click.echo(render(run_sql(con, query, files=external_access) if query is not None
                          else export_tables(directory), fmt))
    finally:
        con.close()


@main.command("publish")
@click.argument("url")
@click.option("--full", is_flag=True, help="Copy everything again, not only what changed.")
@click.option("--grant-select", "grant_select", multiple=True, metavar="ROLE",
              help="Grant this PostgreSQL role SELECT on every published table and view, now and at "
              "every later publication (repeatable).")
@click.pass_context
@fail_cleanly
def publish_command(ctx, url, full, grant_select):
    """Copy the public tables and views into the PostgreSQL database at URL (postgresql://...)."""
    from ..sharing import publish

    con = open_warehouse(ctx, read_only=True)
    click.echo(publish(con, url, full=full, grant_select=grant_select).summary())
