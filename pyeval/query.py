"""Ad-hoc SQL over a warehouse (``pyeval sql``) and the overview tables (``pyeval list``)."""
from __future__ import annotations

import duckdb
import pandas as pd

from .errors import QueryError

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


def run_sql(con: duckdb.DuckDBPyConnection, sql: str, *, files: bool = True) -> pd.DataFrame:
    """Run one user statement; a query's rows come back as a DataFrame.

    ``files=False``: a read-only query, which may not read or write files or install or load
    extensions (docs/cli.md, ``pyeval sql``).

    Raises
    ------
    QueryError
        DuckDB refused the statement (syntax, unknown table, ...): a user mistake.
    """
    try:
        if not files:
            try:
                kinds = [statement.type for statement in con.extract_statements(sql)]
            except ValueError:  # a statement type the Python binding does not name (UPDATE EXTENSIONS)
                raise QueryError(f"this statement is refused ({_READ_ONLY_HINT})") from None
            for kind in kinds:
                if kind in FILE_STATEMENTS:
                    raise QueryError(f"{FILE_STATEMENTS[kind]} statements are refused ({_READ_ONLY_HINT})")
        result = con.execute(sql)
        return result.df()
    except (duckdb.PermissionException, duckdb.InvalidInputException) as exc:
        message = str(exc).splitlines()[0]
        if not files and ("disabled" in message or "Cannot change configuration" in message):
            message += f" ({_READ_ONLY_HINT})"
        raise QueryError(message) from exc
    except duckdb.Error as exc:
        raise QueryError(str(exc).splitlines()[0]) from exc


def campaign_overview(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per campaign with its counts (the public view ``campaign_overview``)."""
    return con.execute("select * from campaign_overview order by campaign_id").df()


def run_overview(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """One row per run with its size and provenance (the public view ``run_overview``)."""
    return con.execute(
        "select campaign_id, run_id, run_tag, topics, entries, source_file "
        "from run_overview order by campaign_id, run_id"
    ).df()
