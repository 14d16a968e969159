"""Opening a warehouse: one DuckDB file, upgraded by migrations/, with the views of sql/views/.

The migration bookkeeping follows sqlite-utils' ``_sqlite_migrations``: each file of
migrations/ runs once, in version order, in its own transaction, and is recorded with the
sha256 of its text. Views are derived, never migrated: they are recreated from sql/views/ on
every read-write open.

The drop-ins (``pyeval trec_eval``, ``ntcireval``, ``ndeval``) evaluate in a throw-away
warehouse instead (:func:`scratch`): in memory, holding only the tables (from schema/, the
current DDL) and views they read, without migration history.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import duckdb

from .db import first_row
from . import sqlfiles
from .errors import SchemaVersionError

#: The CLI's warehouse when neither --db nor $PYEVAL_DB is given.
DEFAULT_PATH = "pyeval.duckdb"


def migration_checksum(path: Path) -> str:
    """sha256 of a migration's text, line endings normalised (a CRLF checkout stays valid)."""
    text = path.read_bytes().replace(b"\r\n", b"\n")
    return hashlib.sha256(text).hexdigest()


def connect(
    path: str | os.PathLike[str] = ":memory:",
    *,
    read_only: bool = False,
    migrations: list[tuple[int, str, Path]] | None = None,
) -> duckdb.DuckDBPyConnection:
    """Open (creating or upgrading) the warehouse at ``path``.

    Parameters
    ----------
    path
        A DuckDB file, or ``":memory:"`` for a throw-away warehouse.
    read_only
        Open without writing: the file must exist and be fully migrated.
    migrations
        ``(version, name, path)`` triples to apply instead of the shipped migrations/
        (for tests of the upgrade path).

    Raises
    ------
    SchemaVersionError
        A recorded migration is unknown to this pyeval or its file was changed since it was
        applied, or (read-only) the file needs an upgrade.
    """
    path = str(path)
    if read_only and path != ":memory:" and not Path(path).exists():
        raise SchemaVersionError(f"{path}: no such warehouse")
    try:
        con = duckdb.connect(path, read_only=read_only)
    except duckdb.IOException as exc:
        raise SchemaVersionError(f"{path}: cannot open the warehouse: {exc}") from exc
    except duckdb.Error as exc:  # e.g. not a DuckDB file
        raise SchemaVersionError(f"{path}: not a DuckDB warehouse: {exc}") from exc
    try:
        if read_only:
            if _check(con, migrations, path) or not views_current(con):
                # An older file: upgrade it once, then serve it read-only.
                con.close()
                connect(path, migrations=migrations).close()
                con = duckdb.connect(path, read_only=True)
        else:
            migrate(con, migrations, path)
    except BaseException:
        con.close()
        raise
    return con


def _recorded(con: duckdb.DuckDBPyConnection) -> dict[int, tuple[str, str]]:
    exists = first_row(con, 
        "select count(*) from duckdb_tables() where table_name = 'schema_migrations'"
    )[0]
    if not exists:
        return {}
    rows = con.execute("select version, name, checksum from schema_migrations").fetchall()
    return {version: (name, checksum) for version, name, checksum in rows}


def _check(con: duckdb.DuckDBPyConnection, migrations, path: str = "") -> list[int]:
    """Validate the recorded migrations; return the versions still to apply."""
    files = migrations if migrations is not None else _shipped_migrations()
    known = {version: (name, migration_checksum(p)) for version, name, p in files}
    for version, (name, checksum) in sorted(_recorded(con).items()):
        if version not in known:
            raise SchemaVersionError(
                f"{path}: the warehouse records migration {version:04d}_{name}, which this pyeval "
                "does not have (made by a newer pyeval?)"
            )
        if known[version][1] != checksum:
            raise SchemaVersionError(
                f"{path}: migration {version:04d}_{name} was changed after it was applied "
                f"(recorded sha256 {checksum[:12]}..., file {known[version][1][:12]}...)"
            )
    recorded = _recorded(con)
    return [version for version in sorted(known) if version not in recorded]


def _shipped_migrations() -> list[tuple[int, str, Path]]:
    try:
        return sqlfiles.migration_files()
    except ValueError as exc:
        raise SchemaVersionError(str(exc)) from exc


def migrate(con: duckdb.DuckDBPyConnection, migrations=None, path: str = "") -> list[int]:
    """Apply pending migrations, each in a transaction, then recreate the views.

    Returns the versions applied now.
    """
    files = migrations if migrations is not None else _shipped_migrations()
    con.execute(sqlfiles.table_sql("schema_migrations"))
    pending = _check(con, files, path)
    by_version = {version: (name, file) for version, name, file in files}
    for version in pending:
        name, file = by_version[version]
        con.begin()
        try:
            con.execute(file.read_text(encoding="utf-8"))
            con.execute(
                "insert into schema_migrations (version, name, checksum) values ($v, $n, $c)",
                {"v": version, "n": name, "c": migration_checksum(file)},
            )
            con.commit()
        except duckdb.Error as exc:
            con.rollback()
            raise SchemaVersionError(f"{path}: migration {version:04d}_{name} failed: {exc}") from exc
    create_views(con)
    return pending


def _view_checksum(name: str) -> str:
    return hashlib.sha256(sqlfiles.view_sql(name).encode("utf-8")).hexdigest()


def views_current(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether every view exists and was made from this pyeval's sql/views/ text.

    Each view carries the sha256 of its defining file as its comment.
    """
    stored = dict(
        con.execute("select view_name, comment from duckdb_views() where not internal").fetchall()
    )
    return all(stored.get(name) == f"sha256:{_view_checksum(name)}" for name in sqlfiles.VIEW_ORDER)


def create_views(
    con: duckdb.DuckDBPyConnection, names: Sequence[str] = sqlfiles.VIEW_ORDER, *, stamp: bool = True
) -> None:
    """(Re)create the views ``names`` (default: every view of sql/views/) in that order, in one
    transaction; ``stamp``: comment each with the sha256 of its file (:func:`views_current`)."""
    con.begin()
    try:
        for name in names:
            # View names come from the constant VIEW_ORDER and the comment is a hex digest we
            # computed: no user input reaches this SQL text.
            con.execute(f"create or replace view {name} as\n{sqlfiles.view_sql(name)}")
            if stamp:
                con.execute(f"comment on view {name} is 'sha256:{_view_checksum(name)}'")
        con.commit()
    except BaseException:
        con.rollback()
        raise


def scratch(relations: Iterable[str]) -> duckdb.DuckDBPyConnection:
    """A throw-away in-memory warehouse holding only ``relations`` (stored tables and views) and
    what their views read (:func:`pyeval.sqlfiles.with_dependencies`): tables created from
    schema/, the current DDL, with no migration history (no ``schema_migrations``), views from
    sql/views/. For a command that loads its inputs, evaluates and forgets (the drop-ins)."""
    tables, views = sqlfiles.with_dependencies(relations)
    con = duckdb.connect(":memory:")
    try:
        for table in tables:
            con.execute(sqlfiles.table_sql(table))  # our own DDL; table names are pyeval's
        create_views(con, views, stamp=False)  # never reopened: no checksums to compare
    except BaseException:
        con.close()
        raise
    return con
