"""Ad-hoc SQL over a warehouse (``pyeval sql``) and the overview tables (``pyeval list``).

The commands print plain rows (:func:`query_rows`, :func:`pyeval.output.render_rows`), so that
they start without pandas or numpy (issue 30, bench/bench_startup.py); :func:`run_sql` and the
overviews give DataFrames to the Python API.
"""
from __future__ import annotations

import decimal
from typing import TYPE_CHECKING, NamedTuple

import duckdb

from .errors import QueryError

if TYPE_CHECKING:
    import pandas as pd

#: Statements a read-only query may not run (files and extensions): COPY, EXPORT DATABASE,
#: ATTACH/DETACH, INSTALL/LOAD, UPDATE EXTENSIONS. The connection refuses them too (pyeval.ownership.LOCKED_DOWN);
#: this names the rule in the error, and guards ``pyeval attach``, whose export files must stay
#: readable.
FILE_STATEMENTS: dict[duckdb.StatementType, str] = {
    duckdb.StatementType.COPY: "COPY",
    duckdb.StatementType.COPY_DATABASE: "COPY FROM DATABASE",
    duckdb.StatementType.EXTENSION: "extension",
    duckdb.StatementType.EXPORT: "EXPORT DATABASE",
    duckdb.StatementType.ATTACH: "ATTACH",
    duckdb.StatementType.DETACH: "DETACH",
    duckdb.StatementType.LOAD: "INSTALL and LOAD",
}

_READ_ONLY_HINT = "read-only query: --external-access lets it use files and extensions, --write also changes the warehouse"


class Rows(NamedTuple):
    """A query's column names and rows (plain Python values; a DECIMAL as a float, as in a
    DataFrame)."""

    headers: list[str]
    rows: list[tuple]


def _plain(result: duckdb.DuckDBPyConnection) -> Rows:
    """Fetch a result as :class:`Rows`."""
    if result.description is None:  # a statement without a result set
        return Rows([], [])
    headers = [column[0] for column in result.description]
    rows = result.fetchall()
    if any(isinstance(value, decimal.Decimal) for row in rows[:1] for value in row):
        rows = [tuple(float(v) if isinstance(v, decimal.Decimal) else v for v in row) for row in rows]
    return Rows(headers, rows)


def query_rows(con: duckdb.DuckDBPyConnection, sql: str, *, files: bool = True) -> Rows:
    """:func:`run_sql` with the rows as plain tuples (no pandas): what ``pyeval sql`` prints."""
    return _run(con, sql, files, _plain)


def run_sql(con: duckdb.DuckDBPyConnection, sql: str, *, files: bool = True) -> pd.DataFrame:
    """Run one user statement; a query's rows come back as a DataFrame.

    ``files=False``: a read-only query, which may not read or write files or install or load
    extensions (docs/cli.md, ``pyeval sql``).

    Raises
    ------
    QueryError
        DuckDB refused the statement (syntax, unknown table, ...): a user mistake.
    """
    return _run(con, sql, files, lambda result: result.df())


def _run(con: duckdb.DuckDBPyConnection, sql: str, files: bool, fetch):
    """Check and execute one user statement (:func:`run_sql`'s rules) and ``fetch`` its result."""
    try:
        if not files:
            try:
                kinds = [statement.type for statement in con.extract_statements(sql)]
            except ValueError:  # a statement type the Python binding does not name (UPDATE EXTENSIONS)
                raise QueryError(f"this statement is refused ({_READ_ONLY_HINT})") from None
            for kind in kinds:
                if kind in FILE_STATEMENTS:
                    raise QueryError(f"{FILE_STATEMENTS[kind]} statements are refused ({_READ_ONLY_HINT})")
        return fetch(con.execute(sql))
    except (duckdb.PermissionException, duckdb.InvalidInputException) as exc:
        message = str(exc).splitlines()[0]
        if not files and ("disabled" in message or "Cannot change configuration" in message):
            message += f" ({_READ_ONLY_HINT})"
        raise QueryError(message) from exc
    except duckdb.Error as exc:
        raise QueryError(str(exc).splitlines()[0]) from exc


#: The overviews ``pyeval list`` prints (public views campaign_overview and run_overview).
CAMPAIGN_OVERVIEW = "select * from campaign_overview order by campaign_id"
RUN_OVERVIEW = ("select campaign_id, run_id, run_tag, topics, entries, source_file "
                "from run_overview order by campaign_id, run_id")


def overview_rows(con: duckdb.DuckDBPyConnection) -> tuple[Rows, Rows]:
    """The campaigns' and the runs' overviews as :class:`Rows` (no pandas)."""
    return _plain(con.execute(CAMPAIGN_OVERVIEW)), _plain(con.execute(RUN_OVERVIEW))


def campaign_overview(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per campaign with its counts (the public view ``campaign_overview``)."""
    return con.execute(CAMPAIGN_OVERVIEW).df()


def run_overview(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per run with its size and provenance (the public view ``run_overview``)."""
    return con.execute(RUN_OVERVIEW).df()
