"""Read-only snapshots of a warehouse for dashboards, and the SQLAlchemy URL BI tools open
them with (docs/bi.md).

DuckDB lets one process write a file and no other process open it meanwhile, so dashboards
read a copy: :func:`snapshot` writes one in one transaction, so it shows whole evaluations only.
"""
from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pyeval.core import duckdb_trees
from pyeval.core.db import first_row, rollback_quietly
from ..errors import NotOwnedError, PyevalError, with_command_line
from pyeval.storage.ownership import (CLIENT_SNAPSHOT_MARKER, LOCKED_DOWN, SNAPSHOT_MARKER, Ownership, holds_marker,
                                      mark, probe_warehouse_file, require_replaceable_output)
from pyeval.storage import compat
from pyeval.storage.public import INTERNAL_SCHEMA, PUBLIC_TABLES

from .common import database_path, error_reason, quote_identifier

_STORAGE_VERSION = re.compile(r"^v\d+\.\d+\.\d+$")
_DUCKDB_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.\d+)?$")

#: The DuckDB (major.minor) that each BI client's recipe in docs/bi.md embeds, as verified by
#: tools/bi_clients_check.py: ``pyeval snapshot --for CLIENT`` writes the storage format it reads.
CLIENT_DUCKDB: dict[str, str] = {
    "superset": "1.5",
    "jupysql": "1.5",
    "ibis": "1.5",
    "harlequin": "2.0",
    "evidence": "1.4",
    "duckdb": "2.0",
}

#: The settings a read-only URL carries that a client may not change (``--settable`` leaves out
#: only ``lock_configuration``: DuckDB refuses at run time to re-enable external access or
#: extension loading, or to leave read-only mode, so the connection stays read-only).
_LOCK = "lock_configuration"


#: The temporary folder of a read-only URL, inside the warehouse file (so it never exists).
NO_TEMPORARY_FOLDER = ".pyeval-no-temporary-files"


def sqlalchemy_url(path: str | os.PathLike[str], *, read_only: bool = True, settable: bool = False) -> str:
    """The SQLAlchemy URL of a warehouse file (duckdb-sqlalchemy dialect), read-only by default.

    A read-only URL also carries the settings of ``pyeval sql`` without ``--write``
    (:data:`pyeval.storage.ownership.LOCKED_DOWN`): no file but the warehouse, no extension installed
    or loaded, settings locked. ``settable``: the same without ``lock_configuration``, for
    clients that set options on connecting (Ibis sets ``timezone``); still read-only, since
    DuckDB refuses to turn external access or write access back on while a database is open.
    """
    from sqlalchemy.engine import URL

    database = str(Path(path).resolve())
    query = {"access_mode": "read_only"} if read_only else {}
    if read_only:
        query.update({key: str(value).lower() for key, value in LOCKED_DOWN.items()
                      if not (settable and key == _LOCK)})
        # a URL drops an empty value, and DuckDB would then spill to <warehouse>.tmp/ and let
        # COPY ... TO write there though external access is off: a folder inside the warehouse
        # file, which cannot exist, takes temporary files (and COPY) nowhere
        query["temp_directory"] = f"{database}/{NO_TEMPORARY_FOLDER}"
    return URL.create("duckdb", database=database, query=query).render_as_string()


def storage_version_for(client: str | None = None, duckdb_version: str | None = None) -> str | None:
    """The DuckDB ``storage_version`` a snapshot for ``client`` (a key of :data:`CLIENT_DUCKDB`)
    or for a reader embedding DuckDB ``duckdb_version`` (``X.Y``) must be written with; the
    version wins over the client's. None: DuckDB's default format. A client whose DuckDB is
    newer than the installed one gets the installed one's format (a version is refused then)."""
    if client is not None and client not in CLIENT_DUCKDB:
        unknown = f"unknown client {client!r}: choose one of {', '.join(CLIENT_DUCKDB)}"
        raise with_command_line(PyevalError(f"{unknown} (or give duckdb_version='X.Y')"),
                                f"{unknown} (or give --duckdb-version X.Y)")
    version = duckdb_version if duckdb_version is not None else CLIENT_DUCKDB.get(client)
    if version is None:
        return None
    found = _DUCKDB_VERSION.match(version)
    if not found:
        raise PyevalError(f"DuckDB version must look like 1.4 or 1.4.2; got {version!r}")
    major, minor = int(found.group(1)), int(found.group(2))
    if (major, minor) < (1, 0):
        raise PyevalError(f"DuckDB {version} reads no file pyeval can write (DuckDB 1.0 or later)")
    if (major, minor) > duckdb_trees.DUCKDB_VERSION:
        if duckdb_version is not None:
            raise PyevalError(f"DuckDB {version} is newer than the DuckDB writing the snapshot ({duckdb.__version__})")
        # a client's DuckDB newer than the installed one (pyeval on DuckDB 1.x) reads the
        # installed one's own format
        major, minor = duckdb_trees.DUCKDB_VERSION
    return f"v{major}.{minor}.0"


def is_client_snapshot(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a snapshot written for BI clients (``pyeval snapshot --for``): its
    ``pyeval_internal.schema_migrations`` carries :data:`pyeval.storage.ownership.CLIENT_SNAPSHOT_MARKER`."""
    path = Path(path)
    if path.is_symlink() or not path.is_file():
        return False
    try:
        return probe_warehouse_file(path)[1] == CLIENT_SNAPSHOT_MARKER
    except NotOwnedError:
        return False



@dataclass(frozen=True)
class SnapshotReport:
    """What :func:`snapshot` wrote: the file, its last evaluation and its size in bytes."""

    path: str
    last_evaluation_id: int | None
    bytes: int
    #: The DuckDB storage format written (``v1.4.0``), None for DuckDB's default.
    storage_version: str | None = None

    @property
    def catalog(self) -> str:
        """The name DuckDB gives the file's database when a client opens it: the file's stem
        (what Superset shows as ``<catalog>.main``)."""
        return Path(self.path).stem


def is_snapshot(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a copy ``pyeval snapshot`` wrote (which a later snapshot replaces)."""
    return _replaceable_snapshot_target(Path(path))


def _replaceable_snapshot_target(path: Path) -> bool:
    """Whether ``path`` may be replaced by a snapshot: a copy a snapshot wrote (marker
    :data:`pyeval.storage.ownership.SNAPSHOT_MARKER`). A working warehouse, the demo's, a file that is
    no DuckDB database or holds someone else's tables is not."""
    try:
        found, marker = probe_warehouse_file(path)
    except NotOwnedError:
        return False
    return (found is Ownership.PYEVAL and marker == SNAPSHOT_MARKER) or marker == CLIENT_SNAPSHOT_MARKER


def _move_user_tables_out(cursor: duckdb.DuckDBPyConnection, database: str) -> None:
    """In the copy ``database``, leave only the public API (:data:`PUBLIC_TABLES`,
    :data:`~pyeval.storage.public.PUBLIC_VIEWS`) in ``main``: a table someone made there (``pyeval sql --write``) moves
    to :data:`INTERNAL_SCHEMA`, where every warehouse keeps pyeval's bookkeeping tables and
    engine views (migration 0018). A view someone made stays where it is."""
    schema = f"{database}.{INTERNAL_SCHEMA}"
    tables = [name for name, in cursor.execute(
        "select table_name from duckdb_tables() where database_name = $d and schema_name = 'main' "
        "and not temporary order by table_name", {"d": database}).fetchall()]
    for table in tables:
        if table not in PUBLIC_TABLES:
            quoted = quote_identifier(table)
            cursor.execute(f"create table {schema}.{quoted} as select * from {database}.main.{quoted}")
            cursor.execute(f"drop table {database}.main.{quoted}")



def snapshot(
    con: duckdb.DuckDBPyConnection,
    out: str | os.PathLike[str],
    *,
    storage_version: str | None = None,
    client: str | None = None,
    duckdb_version: str | None = None,
) -> SnapshotReport:
    """Write a consistent copy of the warehouse to ``out`` (a DuckDB file) for dashboards.

    The copy is read in one transaction of a cursor of ``con``: an evaluation or load running
    on ``con`` meanwhile is in it whole or not at all. It is written next to ``out`` and renamed
    over it, so a reader never sees a half-written file (a reader holding the old file keeps
    reading it). ``out`` may exist only as an earlier snapshot (marked as one, see
    :data:`pyeval.storage.ownership.SNAPSHOT_MARKER`), never as a working warehouse.

    Parameters
    ----------
    storage_version
        DuckDB storage format to write, e.g. ``'v1.5.0'`` for BI tools embedding DuckDB 1.5.
    client
        A BI client of :data:`CLIENT_DUCKDB` (``superset``, ``evidence``, ...): the copy is in
        the storage format that client's DuckDB reads, and holds only the public API in its
        default schema (the rest in ``pyeval_internal``); docs/bi.md.
    duckdb_version
        ``X.Y``: the storage format DuckDB X.Y reads (instead of the client's).
    """
    out = Path(out).absolute()  # not resolved: a symbolic link is refused, never written through
    if storage_version is not None and not _STORAGE_VERSION.match(storage_version):
        raise PyevalError(f"storage version must look like v1.5.0; got {storage_version!r}")
    if storage_version is not None and duckdb_version is not None:
        raise with_command_line(PyevalError("give storage_version or duckdb_version, not both"),
                                "give --storage-version or --duckdb-version, not both")
    if client is not None or duckdb_version is not None:
        storage_version = storage_version or storage_version_for(client, duckdb_version)
    source = database_path(con)
    require_replaceable_output(out, "pyeval snapshot", _replaceable_snapshot_target, warehouse=source or None)
    _remove_abandoned_snapshot_files(out)
    temporary = out.with_name(f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:  # the proof, written first, that the copy is pyeval's (see _remove_abandoned_snapshot_files)
        with open(_copy_marker(temporary), "x", encoding="utf-8") as handle:
            handle.write(_copy_marker_text(temporary))
    except OSError as exc:
        raise PyevalError(f"{out}: cannot write the snapshot: {exc.strerror or exc}") from exc
    cursor = con.cursor()
    try:
        source_name = first_row(cursor, "select current_database()")[0]
        # bound on DuckDB 2.0; a quoted literal before 2.0, whose attach takes no parameter there
        target, options = compat.attached_file(str(temporary))
        if storage_version is None:
            cursor.execute(f"attach {target} as pyeval_snapshot (read_write)", options)
        else:
            cursor.execute(f"attach {target} as pyeval_snapshot (read_write, storage_version $version)",
                           {**options, "version": storage_version})
        try:
            cursor.begin()
            # source_name is DuckDB's name of the open database, quoted
            cursor.execute(f"copy from database {quote_identifier(source_name)} to pyeval_snapshot")
            if client is None:
                mark(cursor, SNAPSHOT_MARKER, table=f"pyeval_snapshot.{INTERNAL_SCHEMA}.schema_migrations")
            else:
                _move_user_tables_out(cursor, "pyeval_snapshot")
                mark(cursor, CLIENT_SNAPSHOT_MARKER, table=f"pyeval_snapshot.{INTERNAL_SCHEMA}.schema_migrations")
            last = first_row(cursor, "select max(evaluation_id) from evaluations")[0]
            cursor.commit()
            # the copy's rows into its file now (its write-ahead log would not follow it to
            # ``out``): detaching checkpoints only when no transaction of the process is open,
            # and an evaluation running on another cursor keeps one open
            cursor.execute("force checkpoint pyeval_snapshot")
        except BaseException:
            rollback_quietly(cursor)
            raise
        finally:
            cursor.execute("detach pyeval_snapshot")
        if temporary.with_name(temporary.name + ".wal").exists():
            raise PyevalError(f"{out}: cannot write the snapshot: its rows did not reach the file "
                              "(DuckDB left a write-ahead log); nothing was written")
        os.replace(temporary, out)
        _copy_marker(temporary).unlink(missing_ok=True)
    except duckdb.Error as exc:
        _remove_snapshot_files(temporary)
        raise PyevalError(f"{out}: cannot write the snapshot: {error_reason(exc)}") from exc
    except OSError as exc:
        _remove_snapshot_files(temporary)
        raise PyevalError(f"{out}: cannot write the snapshot: {exc.strerror or exc}") from exc
    finally:
        cursor.close()
    return SnapshotReport(str(out), last, out.stat().st_size, storage_version)


def _process_is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: someone else's process
        return True
    return True


def _copy_marker(temporary: Path) -> Path:
    """The file a snapshot writes beside its copy ``temporary`` before the copy (``<copy>.pyeval``)."""
    return temporary.with_name(temporary.name + ".pyeval")


def _copy_marker_text(temporary: Path) -> str:
    return f"pyeval snapshot copy {temporary.name}\n"


def _remove_abandoned_snapshot_files(out: Path) -> None:
    """Remove the half-written copies beside ``out`` that a snapshot killed mid-way left
    (``.<name>.<pid>.<token>.tmp`` and its ``.wal``, named by :func:`snapshot`), when their
    process is no longer running and pyeval proves them its own: the marker file
    (:func:`_copy_marker`, naming the copy) the snapshot wrote before the copy. A running
    snapshot's copy, and a file of such a name without the marker, are left alone."""
    pattern = re.compile(re.escape(f".{out.name}.") + r"(\d+)\.[0-9a-f]{8}\.tmp\.pyeval")
    try:
        names = [entry.name for entry in os.scandir(out.parent)]
    except OSError:
        return
    for name in names:
        found = pattern.fullmatch(name)
        if not found or _process_is_running(int(found.group(1))):
            continue
        temporary = out.parent / name.removesuffix(".pyeval")
        if holds_marker(_copy_marker(temporary), _copy_marker_text(temporary)):
            _remove_snapshot_files(temporary)


def _remove_snapshot_files(temporary: Path) -> None:
    """Remove the half-written copy (and its write-ahead log), which this call created, then its
    marker."""
    for path in (temporary, temporary.with_name(temporary.name + ".wal"), _copy_marker(temporary)):
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass

