"""What the three ways of sharing a warehouse (snapshot, export, publish) have in common:
identifier quoting and small helpers over DuckDB (the public tables they copy are
:mod:`pyeval.storage.public`'s).

Values are bound as parameters; the only identifiers spliced into SQL text are pyeval's
constant names and names passed through :func:`quote_identifier`.
"""
from __future__ import annotations

import duckdb

from pyeval.core.db import first_row, quote_identifier  # noqa: F401  (re-exported: pyeval.sharing.quote_identifier)

def database_path(con: duckdb.DuckDBPyConnection) -> str | None:
    """The file of ``con``'s current database (None in memory)."""
    row = first_row(con, "select path from duckdb_databases() where database_name = current_database()")
    return row[0] if row else None


def error_reason(exc: BaseException) -> str:
    """The first line of a DuckDB error, without the "IO Error: " style prefix kept twice."""
    return str(exc).strip().splitlines()[0]


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    """``(name, DuckDB type)`` of each column of ``table`` in the current database, in order."""
    return [
        (name, kind)
        for name, kind in con.execute(
            "select column_name, data_type from duckdb_columns() "
            "where table_name = $t and schema_name = 'main' and database_name = current_database() "
            "order by column_index",
            {"t": table},
        ).fetchall()
    ]
