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

from ..db import first_row, rollback_quietly
from ..errors import NotOwnedError, PyevalError
from ..ownership import LOCKED_DOWN, SNAPSHOT_MARKER, Ownership, mark, probe_warehouse_file
from .common import database_path, error_reason, quote_identifier

_STORAGE_VERSION = re.compile(r"^v\d+\.\d+\.\d+$")


def sqlalchemy_url(path: str | os.PathLike[str], *, read_only: bool = True) -> str:
    """The SQLAlchemy URL of a warehouse file (duckdb-sqlalchemy dialect), read-only by default.

    A read-only URL also carries the settings of ``pyeval sql`` without ``--write``
    (:data:`pyeval.ownership.LOCKED_DOWN`): no file but the warehouse, no extension installed
    or loaded, settings locked.
    """
    from sqlalchemy.engine import URL

    query = {"access_mode": "read_only"} if read_only else {}
    if read_only:
        query.update({key: str(value).lower() for key, value in LOCKED_DOWN.items()})
    return URL.create("duckdb", database=str(Path(path).resolve()), query=query).render_as_string()



@dataclass(frozen=True)
class SnapshotReport:
    """What :func:`snapshot` wrote: the file, its last evaluation and its size in bytes."""

    path: str
    last_evaluation_id: int | None
    bytes: int


def _replaceable_snapshot_target(path: Path) -> bool:
    """Whether ``path`` may be replaced by a snapshot: a copy a snapshot wrote (marker
    :data:`pyeval.ownership.SNAPSHOT_MARKER`). A working warehouse, the demo's, a file that is
    no DuckDB database or holds someone else's tables is not."""
    try:
        found, marker = probe_warehouse_file(path)
    except NotOwnedError:
        return False
    return found is Ownership.PYEVAL and marker == SNAPSHOT_MARKER



def snapshot(
    con: duckdb.DuckDBPyConnection,
    out: str | os.PathLike[str],
    *,
    storage_version: str | None = None,
) -> SnapshotReport:
    """Write a consistent copy of the warehouse to ``out`` (a DuckDB file) for dashboards.

    The copy is read in one transaction of a cursor of ``con``: an evaluation or load running
    on ``con`` meanwhile is in it whole or not at all. It is written next to ``out`` and renamed
    over it, so a reader never sees a half-written file (a reader holding the old file keeps
    reading it). ``out`` may exist only as an earlier snapshot (marked as one, see
    :data:`pyeval.ownership.SNAPSHOT_MARKER`), never as a working warehouse.

    Parameters
    ----------
    storage_version
        DuckDB storage format to write, e.g. ``'v1.5.0'`` for BI tools embedding DuckDB 1.5.
    """
    out = Path(out).resolve()
    if storage_version is not None and not _STORAGE_VERSION.match(storage_version):
        raise PyevalError(f"storage version must look like v1.5.0; got {storage_version!r}")
    source = database_path(con)
    if source and Path(source).resolve() == out:
        raise PyevalError(f"{out}: a snapshot cannot overwrite the warehouse it copies")
    if out.is_dir():
        raise PyevalError(f"{out}: is a directory")
    if out.is_symlink() or (out.exists() and not _replaceable_snapshot_target(out)):
        raise NotOwnedError(f"{out}: exists and is not a pyeval snapshot (a working warehouse or another "
                            "file); pyeval leaves it alone (choose another file)")
    if not out.parent.is_dir():
        raise PyevalError(f"{out.parent}: no such directory")
    _remove_abandoned_snapshot_files(out)
    temporary = out.with_name(f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    cursor = con.cursor()
    try:
        source_name = first_row(cursor, "select current_database()")[0]
        options = {"path": str(temporary)}
        if storage_version is None:
            cursor.execute("attach $path as pyeval_snapshot (read_write)", options)
        else:
            cursor.execute("attach $path as pyeval_snapshot (read_write, storage_version $version)",
                           {**options, "version": storage_version})
        try:
            cursor.begin()
            # source_name is DuckDB's name of the open database, quoted
            cursor.execute(f"copy from database {quote_identifier(source_name)} to pyeval_snapshot")
            mark(cursor, SNAPSHOT_MARKER, table="pyeval_snapshot.main.schema_migrations")
            last = first_row(cursor, "select max(evaluation_id) from evaluations")[0]
            cursor.commit()
        except BaseException:
            rollback_quietly(cursor)
            raise
        finally:
            cursor.execute("detach pyeval_snapshot")
        os.replace(temporary, out)
    except duckdb.Error as exc:
        _remove_snapshot_files(temporary)
        raise PyevalError(f"{out}: cannot write the snapshot: {error_reason(exc)}") from exc
    except OSError as exc:
        _remove_snapshot_files(temporary)
        raise PyevalError(f"{out}: cannot write the snapshot: {exc.strerror or exc}") from exc
    finally:
        cursor.close()
    return SnapshotReport(str(out), last, out.stat().st_size)


def _process_is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: someone else's process
        return True
    return True


def _remove_abandoned_snapshot_files(out: Path) -> None:
    """Remove the half-written copies beside ``out`` that a snapshot killed mid-way left
    (``.<name>.<pid>.<token>.tmp`` and its ``.wal``, named by :func:`snapshot`), when their
    process is no longer running; a running snapshot's copy is left alone."""
    pattern = re.compile(re.escape(f".{out.name}.") + r"(\d+)\.[0-9a-f]{8}\.tmp(\.wal)?")
    try:
        names = [entry.name for entry in os.scandir(out.parent)]
    except OSError:
        return
    for name in names:
        found = pattern.fullmatch(name)
        if found and not _process_is_running(int(found.group(1))):
            try:
                (out.parent / name).unlink()
            except OSError:
                pass


def _remove_snapshot_files(temporary: Path) -> None:
    """Remove the half-written copy (and its write-ahead log), which this call created."""
    for path in (temporary, temporary.with_name(temporary.name + ".wal")):
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass

