"""Small helpers over a DuckDB connection (DuckDB 2.0 wants every result fetched to the end)."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import duckdb


def first_row(
    con: duckdb.DuckDBPyConnection, sql: str, parameters: dict[str, Any] | None = None
) -> tuple | None:
    """The first row of a query (or None), with the result consumed."""
    rows = con.execute(sql, parameters or {}).fetchall()
    return rows[0] if rows else None


def rollback_quietly(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back the open transaction, if there still is one.

    A failed ``commit()`` (disk full, a write conflict) has rolled back already; calling
    ``rollback()`` then raises "no transaction is active", which would hide the real error.
    """
    try:
        con.rollback()
    except duckdb.TransactionException:
        pass


@contextlib.contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """``begin``; ``commit`` when the block ends, ``rollback`` when it raises. The error that
    stopped the block, or the commit's own error, is what propagates."""
    con.begin()
    try:
        yield con
    except BaseException:
        rollback_quietly(con)
        raise
    try:
        con.commit()
    except BaseException:
        rollback_quietly(con)
        raise
