"""What the three ways of sharing a warehouse (snapshot, export, publish) have in common:
identifier quoting and small helpers over DuckDB (the public tables they copy are
:mod:`pyeval.storage.public`'s).

Values are bound as parameters; the only identifiers spliced into SQL text are pyeval's
constant names and names passed through :func:`quote_identifier`.
"""
from __future__ import annotations

import duckdb

# re-exported: pyeval.sharing.quote_identifier; database_path for export, publish and snapshot
from pyeval.core.db import database_path, quote_identifier  # noqa: F401


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
