"""Ad-hoc SQL over a warehouse (``pyeval sql``) and the overview tables (``pyeval list``).

The commands print plain rows (:func:`query_rows`, :func:`pyeval.output.render_rows`), so that
they start without pandas or numpy (issue 30, bench/bench_startup.py); :func:`run_sql` and the
overviews give DataFrames to the Python API.
"""
from __future__ import annotations

import decimal
import re
from typing import TYPE_CHECKING, NamedTuple

import duckdb

from .errors import QueryError

if TYPE_CHECKING:
    import pandas as pd

#: Statements a read-only query may not run (files and extensions): COPY, EXPORT DATABASE,
#: ATTACH/DETACH, INSTALL/LOAD, UPDATE EXTENSIONS. The connection refuses them too (pyeval.storage.ownership.LOCKED_DOWN);
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


#: The statement kinds a read-only query may run: queries (SELECT, DESCRIBE, SHOW, SUMMARIZE,
#: VALUES parse as SELECT), PRAGMA and CALL of table functions (the connection's settings are
#: locked, so neither can switch on a file), and EXPLAIN of one of these. Everything else (COPY,
#: EXPORT, ATTACH, INSTALL, LOAD, PREPARE, EXECUTE, SET, CREATE, INSERT, ...) is refused before
#: it runs: an allow-list, so a statement kind DuckDB adds later is refused too.
READ_ONLY_STATEMENTS = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.PRAGMA,
                                  duckdb.StatementType.CALL})


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


#: What EXPLAIN and its options look like before the statement it explains.
_EXPLAIN_PREFIX = re.compile(r"^\s*(?:(?:--[^\n]*\n|/\*.*?\*/)\s*)*explain\s*(?:\([^)]*\)\s*)?(?:analy[sz]e\b)?",
                             re.IGNORECASE | re.DOTALL)


def _refusal(con: duckdb.DuckDBPyConnection, statement) -> str | None:
    """Why a read-only query may not run ``statement`` (None: it may)."""
    kind = statement.type
    if kind in READ_ONLY_STATEMENTS:
        return None
    if kind is duckdb.StatementType.EXPLAIN:
        prefix = _EXPLAIN_PREFIX.match(statement.query)
        try:
            inner = con.extract_statements(statement.query[prefix.end():]) if prefix else []
        except (duckdb.Error, ValueError):
            inner = []
        if len(inner) == 1 and inner[0].type in READ_ONLY_STATEMENTS:
            return None
        return "EXPLAIN of a statement that is not a query is refused"
    return f"{FILE_STATEMENTS.get(kind, kind.name.replace('_', ' '))} statements are refused"


def run_sql(con: duckdb.DuckDBPyConnection, sql: str, *, files: bool = True) -> pd.DataFrame:
    """Run the user's statements; the last one's rows come back as a DataFrame.

    ``files=False``: a read-only query, which runs only :data:`READ_ONLY_STATEMENTS` (and
    EXPLAIN of them): it writes nothing, and reads no file or extension (docs/cli.md,
    ``pyeval sql``).

    Raises
    ------
    QueryError
        No statement, a refused one, or one DuckDB refused (syntax, unknown table, ...).
    """
    import pandas as pd

    return _run(con, sql, files, lambda result: pd.DataFrame() if result.description is None else result.df())


def _run(con: duckdb.DuckDBPyConnection, sql: str, files: bool, fetch):
    """Check and execute one user statement (:func:`run_sql`'s rules) and ``fetch`` its result."""
    try:
        try:
            statements = con.extract_statements(sql)
            for statement in statements:
                statement.type  # noqa: B018 - raises ValueError for a kind the binding does not name
        except ValueError:  # a statement type the Python binding does not name (UPDATE EXTENSIONS)
            raise QueryError(f"this statement is refused ({_READ_ONLY_HINT})" if not files
                             else "a statement pyeval cannot run (run it in DuckDB itself)") from None
        if not statements:
            raise QueryError("no SQL statement given")
        if not files:
            for statement in statements:
                reason = _refusal(con, statement)
                if reason:
                    raise QueryError(f"{reason} ({_READ_ONLY_HINT})")
        return fetch(con.execute(sql))
    except (duckdb.PermissionException, duckdb.InvalidInputException) as exc:
        message = str(exc).splitlines()[0]
        if not files and ("disabled" in message or "Cannot change configuration" in message):
            message += f" ({_READ_ONLY_HINT})"
        raise QueryError(message) from exc
    except duckdb.Error as exc:
        message = str(exc).splitlines()[0]
        if "base table" in message:  # a write to a view, such as qrels (migration 0019)
            message += (" (qrels, intents, scores, run_means and leaderboard are views of each campaign's "
                        "default judgment set: write qrels_by_set or intents_by_set; docs/judgments.md)")
        raise QueryError(message) from exc


#: The overviews ``pyeval list`` prints (public views campaign_overview and run_overview).
CAMPAIGN_OVERVIEW = "select * from campaign_overview order by campaign_id"
RUN_OVERVIEW = ("select campaign_id, run_id, run_tag, topics, entries, source_file, pooled "
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
