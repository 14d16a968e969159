"""Small helpers over a DuckDB connection (DuckDB 2.0 wants every result fetched to the end)."""
from __future__ import annotations

from typing import Any

import duckdb


def first_row(
    con: duckdb.DuckDBPyConnection, sql: str, parameters: dict[str, Any] | None = None
) -> tuple | None:
    """The first row of a query (or None), with the result consumed."""
    rows = con.execute(sql, parameters or {}).fetchall()
    return rows[0] if rows else None

