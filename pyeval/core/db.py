"""Small helpers over a DuckDB connection (DuckDB 2.0 wants every result fetched to the end)."""
from __future__ import annotations

import contextlib
import functools
import inspect
import shlex
from collections.abc import Iterator, Sequence
from typing import Any

import duckdb

from pyeval.errors import PyevalError, with_command_line


def quote_identifier(name: str) -> str:
    """``name`` as an SQL identifier in double quotes (``"`` doubled), for DuckDB and PostgreSQL."""
    if "\x00" in name:
        raise PyevalError(f"an SQL identifier cannot contain a NUL character: {name!r}")
    return '"' + name.replace('"', '""') + '"'


def string_literal(text: str) -> str:
    """``text`` as an SQL string literal (``'`` doubled), only where DuckDB takes no parameter:
    ``COMMENT ON`` (pyeval's own descriptions) and, before DuckDB 2.0, the file of ``attach``."""
    if "\x00" in text:
        raise PyevalError(f"an SQL string cannot contain a NUL character: {text!r}")
    return "'" + text.replace("'", "''") + "'"


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
    insert_bound_rows(con, table, rows)


def insert_bound_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[tuple]) -> None:
    """Insert ``rows`` into ``table`` (pyeval's own name) in one statement, the values bound
    as parameters."""
    if rows:
        row = "(" + ", ".join(["?"] * len(rows[0])) + ")"
        con.execute(f"insert into {table} values " + ", ".join([row] * len(rows)),
                    [value for values in rows for value in values])


def rollback_quietly(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back the open transaction, if there still is one.

    A failed ``commit()`` (disk full, a write conflict) has rolled back already; calling
    ``rollback()`` then raises "no transaction is active", which would hide the real error. A
    database invalidated by the failure (a write that found the disk full) raises again on
    rollback: that second error is not reported either (DuckDB discards the transaction).
    """
    try:
        con.rollback()
    except duckdb.Error:
        pass


#: Connections inside a :func:`transaction` (by id): a transaction opened inside another of the
#: same connection (a load inside ``pyeval load campaign``) is part of it.
_IN_TRANSACTION: set[int] = set()


@contextlib.contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """``begin``; ``commit`` when the block ends, ``rollback`` when it raises. The error that
    stopped the block, or the commit's own error, is what propagates. Inside another
    ``transaction`` of the same connection, the block is part of that one (all or nothing
    together): it neither begins nor commits."""
    if id(con) in _IN_TRANSACTION:
        yield con
        return
    con.begin()
    _IN_TRANSACTION.add(id(con))
    try:
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
    finally:
        _IN_TRANSACTION.discard(id(con))


def database_path(con: duckdb.DuckDBPyConnection) -> str | None:
    """The file of ``con``'s current database (None in memory)."""
    row = first_row(con, "select path from duckdb_databases() where database_name = current_database()")
    return row[0] if row and row[0] else None


def stores_in_one_transaction(function):
    """Run ``function(con, ...)`` in one :func:`transaction` of ``con`` when it stores (keyword
    ``store``, default True): everything it writes (replicate sets, tests, experiments) is
    committed together or not at all, so a failure (a full disk) leaves no rows behind."""
    @functools.wraps(function)
    def wrapper(con, *args, **kwargs):
        if con is None or not kwargs.get("store", True):
            return function(con, *args, **kwargs)
        with transaction(con):
            return function(con, *args, **kwargs)

    return wrapper


def unknown_campaign(con: duckdb.DuckDBPyConnection, campaign_id: str, *, label: str | None = None,
                     hint: str = "", cli_hint: str | None = None) -> PyevalError:
    """The error for a campaign the warehouse does not hold: "did you mean" the closest stored
    names (difflib's ratio, as Python's own NameError suggestions), else the names it holds.
    ``hint`` follows the message (``cli_hint`` on the command line, see PyevalError.command_line)."""
    import difflib

    from pyeval.errors import UnknownCampaignError

    names = [row[0] for row in con.execute("select campaign_id from campaigns order by campaign_id").fetchall()]
    close = difflib.get_close_matches(campaign_id, names, n=3, cutoff=0.6)
    if close:
        suggestion = f" (did you mean {' or '.join(repr(name) for name in close)}?)"
    elif names:
        suggestion = f" (campaigns: {', '.join(names[:10])}{', ...' if len(names) > 10 else ''})"
    else:
        suggestion = " (the warehouse holds no campaign yet)"
    message = f"{label + ': ' if label else ''}campaign '{campaign_id}' does not exist{suggestion}"
    error = UnknownCampaignError(message + hint)
    if cli_hint is not None:
        error.command_line = message + cli_hint
    return error


def no_runs(campaign_id: str) -> PyevalError:
    """The error for a campaign that holds no run yet, with the step that loads one."""
    return with_command_line(PyevalError(f"campaign '{campaign_id}' has no runs; load one first (pyeval.load_run)"),
                             f"campaign '{campaign_id}' has no runs; load one first: "
                             f"pyeval load run --campaign {shlex.quote(campaign_id)} RUN_FILE")


def judgment_set_or_default(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str | None) -> str:
    """``judgment_set``, or for None the campaign's default set (campaigns.default_judgment_set:
    what the views that name no set show; ``official`` for a campaign not stored): the set a
    command or function reads when it is given none (docs/judgments.md)."""
    if judgment_set is not None:
        return judgment_set
    row = first_row(con, "select default_judgment_set from campaigns where campaign_id = $c", {"c": campaign_id})
    return "official" if row is None else row[0]


def default_judgment_set(parameter: str = "judgment_set"):
    """Decorator of a function ``(con, campaign_id, ...)`` whose ``parameter`` names a judgment
    set: given None (its default), the function reads the campaign's default set
    (:func:`judgment_set_or_default`), as the views that name no set do."""
    def decorate(function):
        signature = inspect.signature(function)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            if bound.arguments.get(parameter) is None:
                bound.arguments[parameter] = judgment_set_or_default(
                    bound.arguments["con"], bound.arguments["campaign_id"], None)
            return function(*bound.args, **bound.kwargs)

        return wrapper

    return decorate


def check_judgment_set(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str) -> None:
    """PyevalError unless ``judgment_set`` is one of the campaign's judgment sets (table
    judgment_sets; ``official`` is always accepted: a campaign whose qrels came in by raw SQL has
    no row), naming the sets it has and the campaign a set of another campaign belongs to."""
    if judgment_set == "official":
        return
    names = [r[0] for r in con.execute(
        "select judgment_set from judgment_sets where campaign_id = $c order by judgment_set", {"c": campaign_id}
    ).fetchall()]
    if judgment_set in names:
        return
    others = [r[0] for r in con.execute(
        "select campaign_id from judgment_sets where judgment_set = $s order by campaign_id", {"s": judgment_set}
    ).fetchall()]
    where = f" (it is a set of campaign {', '.join(map(repr, others))})" if others else ""
    raise PyevalError(f"campaign '{campaign_id}' has no judgment set '{judgment_set}'{where}; "
                      f"its sets: {', '.join(names) or 'official'}")


#: The schema of what is not public API: the bookkeeping tables and the metric engine's views
#: (pyeval.storage.public lists which relations are public).
INTERNAL_SCHEMA = "pyeval_internal"


def use_internal_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Make ``con`` (a connection or cursor of a warehouse, or a scratch database) search
    :data:`INTERNAL_SCHEMA` after ``main``, when its database has that schema (DuckDB refuses a
    search path naming a schema it does not have). A session setting: every connection and
    cursor sets it once. Reads only."""
    found = con.execute(
        "select count(*) from duckdb_schemas() where database_name = current_database() and schema_name = $s",
        {"s": INTERNAL_SCHEMA}).fetchall()[0][0]
    if found:
        # the constant INTERNAL_SCHEMA: no user input reaches this SQL text
        con.execute(f"set search_path = 'main,{INTERNAL_SCHEMA}'")
