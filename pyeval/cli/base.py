"""The ``pyeval`` command: thin click glue over the library (no SQL, no arithmetic here).

Errors pyeval raises on purpose (:class:`pyeval.errors.PyevalError`) become a one-line
``Error: ...`` and exit status 1; anything else is a bug and keeps its traceback.

This module holds the ``pyeval`` group and what its commands share; the commands live in
the modules named by their group (loading, evaluating, dropins, metaeval, sharing).
"""
from __future__ import annotations

import functools
import sys
import warnings

import click

from .. import warehouse
from ..vocabulary import OUTPUT_FORMATS, names
from ..errors import PyevalError


def fail_cleanly(command):
    """Turn PyevalError, and the environment's faults (disk full, a read-only file system, a
    folder without write permission), into click's one-line error (exit 1)."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        import duckdb

        try:
            return command(*args, **kwargs)
        except PyevalError as exc:
            raise click.ClickException(exc.command_line or str(exc)) from exc
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(f"{where}{exc.strerror or exc}") from exc
        except (duckdb.IOException, duckdb.OutOfMemoryException) as exc:
            raise click.ClickException(f"{_current_db()}: {str(exc).splitlines()[0]}") from exc
        except duckdb.TransactionException as exc:
            if "Failed to commit" not in str(exc):  # a write conflict or the like: a bug
                raise
            raise click.ClickException(f"{_current_db()}: {str(exc).splitlines()[0]}") from exc

    return wrapper


def _current_db() -> str:
    """The --db of the running command (for an error that names no file)."""
    ctx = click.get_current_context(silent=True)
    return (ctx.find_object(dict) or {}).get("db", warehouse.DEFAULT_PATH) if ctx else warehouse.DEFAULT_PATH


def _show_warning(message, category, filename, lineno, file=None, line=None):
    click.echo(f"warning: {message}", err=True)


def open_warehouse(ctx: click.Context, read_only: bool = False, *, create: bool = True, external_access: bool = True):
    """The --db warehouse. ``create``: a missing file may be created (loads); commands that need
    a stored campaign pass False, so a mistyped --db leaves no empty warehouse behind."""
    con = warehouse.connect(ctx.obj["db"], read_only=read_only, create=create and not read_only,
                            external_access=external_access)
    ctx.call_on_close(con.close)
    return con


def _non_empty(ctx, param, value):
    if value is not None and not value.strip():
        raise click.BadParameter("must not be empty")
    return value


def output_option(command):
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(names(OUTPUT_FORMATS)),
        default="table",
        show_default=True,
        help="How to print the result.",
    )(command)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    envvar="PYEVAL_DB",
    default=warehouse.DEFAULT_PATH,
    show_default=True,
    metavar="PATH",
    help="Warehouse file: loads and evaluate create or upgrade it; sql and list read an existing one. "
    "Environment variable PYEVAL_DB.",
)
@click.version_option(package_name="pyeval")
@click.pass_context
def main(ctx: click.Context, db: str) -> None:
    """pyeval: an SQL-backed evaluation warehouse for information retrieval."""
    warnings.showwarning = _show_warning
    ctx.ensure_object(dict)
    ctx.obj["db"] = db


campaign_option = click.option("--campaign", "-C", required=True, callback=_non_empty,
                         help="Campaign (test collection) name.")


def run_metadata_options(command):
    """--system, --team, --date and --tag: a run's metadata (load run, annotate)."""
    command = click.option("--tag", "tags", multiple=True, help="A tag of the run (repeatable), e.g. production.")(command)
    command = click.option("--date", "run_date", type=click.DateTime(formats=["%Y-%m-%d"]),
                           help="The date the run was made (YYYY-MM-DD), for trends by month.")(command)
    command = click.option("--team", help="The team that made the run.")(command)
    return click.option("--system", help="The system the run comes from (trend views group by it).")(command)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
