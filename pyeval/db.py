"""Small helpers over a DuckDB connection (DuckDB 2.0 wants every result fetched to the end)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb


def first_row(
    con: duckdb.DuckDBPyConnection, sql: str, parameters: dict[str, Any] | None = None
) -> tuple | None:
    """The first row of a query (or None), with the result consumed."""
    rows = con.execute(sql, parameters or {}).fetchall()
    return rows[0] if rows else None



def create_rows(con: duckdb.DuckDBPyConnection, table: str, columns: dict[str, str], rows: Sequence[tuple]) -> None:
    """A temporary table ``table`` with ``columns`` (name -> SQL type) holding ``rows``, the
    values bound as parameters (no pandas needed). Table and column names are pyeval's own."""
    con.execute(f"create or replace temp table {table} ({', '.join(f'{c} {t}' for c, t in columns.items())})")
    if rows:
        row = "(" + ", ".join(["?"] * len(columns)) + ")"
        con.execute(
            f"insert into {table} values " + ", ".join([row] * len(rows)),
            [value for values in rows for value in values],
        )
