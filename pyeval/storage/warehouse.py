"""Opening a warehouse: one DuckDB file, upgraded by migrations/, with the views of sql/views/.

The migration bookkeeping follows sqlite-utils' ``_sqlite_migrations``: each file of
migrations/ runs once, in version order, in its own transaction, and is recorded with the
sha256 of its text. Views are derived, never migrated: a read-write open recreates them from
sql/views/ when their recorded sha256 (table ``derived_objects``) differs from the files', and
with them the measure catalogue (table ``measures``) and the descriptions of every public
table, view and column. Only a file pyeval made (or an empty one) is ever written to:
pyeval/storage/ownership.py. The public tables and views are in schema ``main``; the
bookkeeping tables and the metric engine's views in ``pyeval_internal``, which every
connection pyeval opens searches after ``main`` (pyeval/storage/public.py).

The drop-ins (``pyeval trec_eval``, ``ntcireval``, ``ndeval``) evaluate in a throw-away
warehouse instead (:func:`scratch`): in memory, holding only the tables (from schema/, the
current DDL) and views they read, without migration history.
"""
from __future__ import annotations

import functools
import hashlib
import os
import shlex
import threading
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

import duckdb

from pyeval.core import archive
from pyeval.storage import compat, ownership, resources
from pyeval.storage.public import INTERNAL_SCHEMA, internal_view, use_internal_schema
from pyeval.core import sqlfiles
from pyeval.core.sqlfiles import migration_checksum
from pyeval.core.db import first_row, transaction
from pyeval.errors import NotAWarehouseError, PyevalWarning, SchemaVersionError, WarehouseLockedError, with_command_line

#: The CLI's warehouse when neither --db nor $PYEVAL_DB is given.
DEFAULT_PATH = "pyeval.duckdb"


def connect(
    path: str | os.PathLike[str] = ":memory:",
    *,
    read_only: bool = False,
    migrations: list[tuple[int, str, Path]] | None = None,
    create: bool = True,
    external_access: bool = True,
) -> duckdb.DuckDBPyConnection:
    """Open (creating or upgrading) the warehouse at ``path``.

    Parameters
    ----------
    path
        A DuckDB file, or ``":memory:"`` for a throw-away warehouse.
    read_only
        Open without writing: the file must exist and be a pyeval warehouse. One made by an
        older pyeval is upgraded first, with a warning.
    migrations
        ``(version, name, path)`` triples to apply instead of the shipped migrations/
        (for tests of the upgrade path).
    create
        Whether a missing file may be created (False: commands that need a stored campaign).
    external_access
        False (read-only only): the connection cannot read or write other files, install or
        load extensions, or change its settings (``pyeval sql`` without ``--write``).

    Raises
    ------
    SchemaVersionError
        A recorded migration is unknown to this pyeval or its file was changed since it was
        applied.
    NotAWarehouseError
        The file is not a DuckDB file, or holds a database pyeval did not make (it is left
        as it was; docs/reliability.md).
    """
    path = str(path)
    if not external_access and not read_only:
        raise ValueError("external_access=False needs read_only=True")
    if path != ":memory:":
        kind = ownership.file_kind(path)
        if kind == "missing" and (read_only or not create):
            raise _no_such_warehouse(path)
        if kind == "empty" and read_only:
            raise NotAWarehouseError(f"{path}: an empty file, not a pyeval warehouse")
        ownership.require_duckdb_file(path)
        if kind == "empty":
            Path(path).unlink()  # 0 bytes, which DuckDB cannot open: it becomes a warehouse
    config = ownership.LOCKED_DOWN if not external_access else {}
    try:
        con = _connect(path, read_only, config)
    except (duckdb.IOException, duckdb.ConnectionException) as exc:  # locked, or open with other settings
        if (newer := compat.newer_file(path, exc)) is not None:  # written by a newer DuckDB
            raise SchemaVersionError(newer) from exc
        raise WarehouseLockedError(f"{path}: cannot open the warehouse: {_one_line(exc)}") from exc
    except duckdb.Error as exc:  # e.g. a damaged DuckDB file
        raise SchemaVersionError(f"{path}: not a DuckDB warehouse: {str(exc).splitlines()[0]}") from exc
    try:
        if read_only and ownership.marker(con) == ownership.CLIENT_SNAPSHOT_MARKER:
            return con  # a `snapshot --for` copy: read as it was written, never upgraded (docs/bi.md)
        if read_only:
            ownership.require_warehouse(con, path, migrations=migrations)
            pending = _check(con, migrations, path)
            if pending or not views_current(con):
                # An older file: upgrade it once (saying so), then serve it read-only.
                what = f"migrations {', '.join(f'{v:04d}' for v in pending)}" if pending else "its views"
                warnings.warn(f"{path}: made by an older pyeval; upgrading it ({what}) before reading it",
                              PyevalWarning, stacklevel=2)
                con.close()
                connect(path, migrations=migrations).close()
                con = _connect(path, True, config)
        else:
            with _path_lock(path):
                migrate(con, migrations, path)
    except BaseException:
        con.close()
        raise
    return con


def _no_such_warehouse(path: str) -> SchemaVersionError:
    """The error for a missing warehouse file, with the step that makes one: loading qrels."""
    return with_command_line(
        SchemaVersionError(f"{path}: no such warehouse; a warehouse is made by loading qrels into it first "
                           "(pyeval.load_qrels)"),
        f"{path}: no such warehouse; load qrels first to make it: "
        f"pyeval --db {shlex.quote(path)} load qrels --campaign NAME QRELS_FILE")


def _one_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


_PATH_LOCKS: dict[str, threading.Lock] = {}
_PATH_LOCKS_GUARD = threading.Lock()


def _path_lock(path: str) -> threading.Lock:
    """One lock per warehouse file: threads of one process share DuckDB's database instance, so
    their migrations and view checks take turns (another process cannot open the file meanwhile)."""
    if path == ":memory:":
        return threading.Lock()  # every :memory: connection is its own database
    key = os.path.realpath(path)
    with _PATH_LOCKS_GUARD:
        return _PATH_LOCKS.setdefault(key, threading.Lock())


def _connect(path: str, read_only: bool, config: dict) -> duckdb.DuckDBPyConnection:
    """``duckdb.connect`` with ``config``, then the process's memory limit and spill folder
    (:func:`pyeval.storage.resources.connection_config`) unless ``config`` sets them (a
    locked-down connection spills nothing); DuckDB's own progress bar off (pyeval prints only its
    own output), set before ``lock_configuration`` takes effect."""
    locked = config.get("lock_configuration", False)
    con = duckdb.connect(path, read_only=read_only, config={k: v for k, v in config.items() if k != "lock_configuration"})
    try:
        # set, not given to connect: another connection of the process to the same file (a
        # plain duckdb.connect) shares DuckDB's database, which refuses a second configuration
        for key, value in resources.connection_config().items():
            if key not in config:  # a locked-down connection's own temp_directory ('') stays
                con.execute(f"set {key} = $value", {"value": value})  # key: resources' own names
        _progress_bar_off(con)
    except BaseException:
        con.close()
        raise
    use_internal_schema(con)
    if locked:
        con.execute("set lock_configuration = true")
    return con


def _progress_bar_off(con: duckdb.DuckDBPyConnection) -> None:
    """DuckDB's progress bar off. In a Jupyter kernel without ipywidgets DuckDB starts with it off
    and refuses any ``set enable_progress_bar`` (it could not draw one): it is set only when on."""
    if first_row(con, "select current_setting('enable_progress_bar')")[0]:
        con.execute("set enable_progress_bar = false")


def _recorded(con: duckdb.DuckDBPyConnection) -> dict[int, tuple[str, str]]:
    schema = ownership.migrations_schema(con)  # 'main' or 'pyeval_internal', from the catalogue
    if schema is None:
        return {}
    rows = con.execute(f"select version, name, checksum from {schema}.schema_migrations").fetchall()
    return {version: (name, checksum) for version, name, checksum in rows}


def _check(con: duckdb.DuckDBPyConnection, migrations, path: str = "") -> list[int]:
    """Validate the recorded migrations; return the versions still to apply."""
    files = migrations if migrations is not None else _shipped_migrations()
    known = {version: (name, migration_checksum(p)) for version, name, p in files}
    recorded = _recorded(con)
    for version, (name, checksum) in sorted(recorded.items()):
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
    return [version for version in sorted(known) if version not in recorded]


def _shipped_migrations() -> list[tuple[int, str, Path]]:
    try:
        return sqlfiles.migration_files()
    except ValueError as exc:
        raise SchemaVersionError(str(exc)) from exc


def migrate(con: duckdb.DuckDBPyConnection, migrations=None, path: str = "") -> list[int]:
    """Apply pending migrations, each in a transaction, then recreate the views unless they are
    current. Only an empty database or a pyeval warehouse is written to.

    Returns the versions applied now.
    """
    files = migrations if migrations is not None else _shipped_migrations()
    found = ownership.require_warehouse(con, path or "the database", migrations=files, allow_empty=True)
    use_internal_schema(con)  # a connection made before the file was attached or copied in
    if found is ownership.Ownership.EMPTY:
        with transaction(con):
            con.execute(sqlfiles.table_sql("schema_migrations"))
            ownership.mark(con)
        marked = ownership.marker(con)
    else:
        marked = ownership.marker(con)
        if not marked.startswith(ownership.WAREHOUSE_MARKER) or marked == ownership.SNAPSHOT_MARKER:
            # made by a pyeval that wrote no marker, or a snapshot opened to be written: from now
            # on a working warehouse, which no later snapshot replaces
            with transaction(con):
                ownership.mark(con)
            marked = ownership.marker(con)
    pending = _check(con, files, path)
    by_version = {version: (name, file) for version, name, file in files}
    for version in pending:
        name, file = by_version[version]
        sql, later = compat.migration_sql(file.read_text(encoding="utf-8"))
        try:
            with transaction(con):
                con.execute(sql)
                use_internal_schema(con)  # bookkeeping moved to pyeval_internal (0018): found there
                if marked and ownership.marker(con) != marked:  # a moved schema_migrations lost its comment
                    ownership.mark(con, marked, table=f"{INTERNAL_SCHEMA}.schema_migrations")
                con.execute(
                    "insert into schema_migrations (version, name, checksum) values ($v, $n, $c)",
                    {"v": version, "n": name, "c": migration_checksum(file)},
                )
            for statement in later:  # DuckDB 1.x only (pyeval/storage/compat.py)
                with transaction(con):
                    con.execute(statement)
        except duckdb.Error as exc:
            raise SchemaVersionError(
                f"{path}: migration {version:04d}_{name} failed: {str(exc).splitlines()[0]}"
            ) from exc
    if pending or not views_current(con):
        with transaction(con):  # the stored current values follow the views' rule (pyeval/core/archive.py)
            create_views(con)
            archive.rebuild(con)
    elif not _sealed(con):  # current, stamped before the seal existed: seal it once
        stamp_seal(con)
    return pending


def _view_checksum(name: str) -> str:
    return hashlib.sha256(sqlfiles.view_sql(name).encode("utf-8")).hexdigest()


#: The rows of ``derived_objects`` that are not views: the measure catalogue (table ``measures``)
#: and the descriptions (``COMMENT ON``) of the public tables, views and columns.
CATALOGUE, DESCRIPTIONS = "measures", "descriptions"


@functools.cache
def _derived_checksums() -> dict[str, tuple[str, str]]:
    """``object name -> (kind, sha256)`` of what this pyeval makes: every view of sql/views/ (the
    sha256 of its file), the measure catalogue (of its rows) and the descriptions (of their text)."""
    found = _cheap_checksums()
    found[CATALOGUE] = ("table", _catalogue_checksum())
    return found


@functools.cache
def _cheap_checksums() -> dict[str, tuple[str, str]]:
    """:func:`_derived_checksums` but the measure catalogue's, which needs the measure registry
    (imported, it costs a command's start-up ~50 ms: bench/bench_startup.py)."""
    from pyeval.storage import descriptions  # not at the top: the drop-ins' scratch warehouses need none

    found = {name: ("view", _view_checksum(name)) for name in sqlfiles.VIEW_ORDER}
    found[DESCRIPTIONS] = ("comments", descriptions.sha256())
    return found


@functools.cache
def _catalogue_checksum() -> str:
    from pyeval.measures import catalogue

    return catalogue.rows_sha256(catalogue.rows())


#: The row of ``derived_objects`` that seals the catalogue's sha256 to the source it was made
#: from (:func:`_catalogue_seal`), so that an open checks the catalogue without importing the
#: measure registry.
CATALOGUE_SEAL = "measures_source"


@functools.cache
def _measure_sources_sha256() -> str:
    """sha256 of the source files of pyeval/measures/ (the code the catalogue's rows come from)."""
    root = Path(__file__).parent / "measures"
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _catalogue_seal(catalogue_sha256: str) -> str:
    """The seal of a catalogue sha256: it was made by the measure sources of this pyeval."""
    return hashlib.sha256(f"{_measure_sources_sha256()}:{catalogue_sha256}".encode("utf-8")).hexdigest()


def views_current(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether every view, the measure catalogue and the descriptions were made by this pyeval:
    ``derived_objects`` records the sha256 each was made from (:func:`create_views`).

    The catalogue's recorded sha256 is trusted without recomputing it when its seal
    (:data:`CATALOGUE_SEAL`) says it was made from this pyeval's measure sources; a read-only
    open then reads files only (no import of the measure registry, no write)."""
    exists = first_row(con, "select count(*) from duckdb_tables() where table_name = 'derived_objects' "
                            "and database_name = current_database() and schema_name in ('main', $s)",
                       {"s": INTERNAL_SCHEMA})[0]
    if not exists:
        return False
    stored = {name: (kind, digest) for name, kind, digest in
              con.execute("select object_name, object_kind, sha256 from derived_objects").fetchall()}
    seal = stored.pop(CATALOGUE_SEAL, None)
    views = set(con.execute("select schema_name, view_name from duckdb_views() where not internal "
                            "and database_name = current_database()").fetchall())
    if not {(_view_schema(name), name) for name in sqlfiles.VIEW_ORDER} <= views:
        return False
    recorded = stored.get(CATALOGUE)
    if seal is not None and recorded is not None and seal[1] == _catalogue_seal(recorded[1]):
        return stored == {**_cheap_checksums(), CATALOGUE: ("table", recorded[1])}
    return stored == _derived_checksums()


def stamp_seal(con: duckdb.DuckDBPyConnection) -> None:
    """Record the catalogue's seal (:data:`CATALOGUE_SEAL`) in a warehouse whose derived objects
    are current but were stamped by a pyeval that wrote none."""
    with transaction(con):
        con.execute("delete from derived_objects where object_name = $n", {"n": CATALOGUE_SEAL})
        con.execute("insert into derived_objects (object_name, object_kind, sha256) values ($n, 'seal', $s)",
                    {"n": CATALOGUE_SEAL, "s": _catalogue_seal(_catalogue_checksum())})


def _sealed(con: duckdb.DuckDBPyConnection) -> bool:
    return first_row(con, "select count(*) from derived_objects where object_name = $n", {"n": CATALOGUE_SEAL})[0] > 0


def _view_schema(name: str) -> str:
    """The schema pyeval makes its view ``name`` in: ``main`` for the public API, else
    :data:`~pyeval.storage.public.INTERNAL_SCHEMA`."""
    return INTERNAL_SCHEMA if internal_view(name) else "main"


def create_views(
    con: duckdb.DuckDBPyConnection, names: Sequence[str] = sqlfiles.VIEW_ORDER, *, stamp: bool = True
) -> None:
    """(Re)create the views ``names`` (default: every view of sql/views/) in that order, in one
    transaction, the public ones in ``main`` and the others in ``pyeval_internal``; ``stamp``: a warehouse's open, which also rewrites the measure catalogue, puts
    the descriptions on every public table, view and column, and records in ``derived_objects``
    what each was made from (:func:`views_current`)."""
    with transaction(con):
        if any(map(internal_view, names)):
            con.execute(f"create schema if not exists {INTERNAL_SCHEMA}")
            use_internal_schema(con)
        for name in names:
            # View names come from the constant VIEW_ORDER: no user input reaches this SQL text.
            con.execute(f"create or replace view {_view_schema(name)}.{name} as\n{sqlfiles.view_sql(name)}")
        if stamp:
            from pyeval.storage import descriptions  # not at the top: see _derived_checksums
            from pyeval.measures import catalogue

            con.execute("delete from measures")
            placeholders = ", ".join("?" * len(catalogue.COLUMNS))
            con.executemany(f"insert into measures ({', '.join(catalogue.COLUMNS)}) values ({placeholders})",
                            catalogue.rows())
            for statement in descriptions.statements(views=set(sqlfiles.VIEW_ORDER)):
                con.execute(statement)
            con.execute("delete from derived_objects")
            made = [(name, kind, digest) for name, (kind, digest) in _derived_checksums().items()]
            made.append((CATALOGUE_SEAL, "seal", _catalogue_seal(_catalogue_checksum())))
            con.executemany("insert into derived_objects (object_name, object_kind, sha256) values (?, ?, ?)", made)


#: Stored tables that loading qrels and a run (pyeval/loaders/) writes or checks: the campaign,
#: its input provenance and topics, the judgments, the intents judgments are checked against,
#: the run and its entries.
LOADED_TABLES = ("campaigns", "campaign_inputs", "qrels_by_set", "intents_by_set", "topics", "runs", "run_entries", "judgment_sets")

#: What computing ad hoc measures reads besides the loaded tables (sql/evaluation/ stagings,
#: sql/metrics/ families): stored gain profiles and the level, gain and ranking views.
ADHOC_EVALUATION = ("gain_profiles", "topic_levels", "ranked_entries", "gain_values", "gain_maxima")


def scratch(relations: Iterable[str]) -> duckdb.DuckDBPyConnection:
    """A throw-away in-memory warehouse holding only ``relations`` (stored tables and views) and
    what their views read (:func:`pyeval.core.sqlfiles.with_dependencies`): tables created from
    schema/, the current DDL, with no migration history (no ``schema_migrations``), views from
    sql/views/. For a command that loads its inputs, evaluates and forgets (the drop-ins)."""
    tables, views = sqlfiles.with_dependencies(relations)
    con = _connect(":memory:", False, {})  # DuckDB's progress bar off: the drop-ins' output is byte-exact
    try:
        for table in tables:
            con.execute(sqlfiles.table_sql(table))  # our own DDL; table names are pyeval's
        create_views(con, views, stamp=False)  # never reopened: no checksums to compare
    except BaseException:
        con.close()
        raise
    return con
