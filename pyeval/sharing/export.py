"""Parquet exports of a warehouse, and reading them back (docs/bi.md)."""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from pyeval.core import archive
from pyeval.storage import warehouse
from pyeval.core import sqlfiles
from pyeval.core.db import first_row, rollback_quietly
from ..errors import NotOwnedError, PyevalError, already_stored
from pyeval.storage.ownership import LOCKED_DOWN, holds_marker, inside, listed_files, require_export, seal
from pyeval.storage.public import INTERNAL_SCHEMA, PUBLIC_TABLES

from .common import database_path, error_reason, table_columns

if TYPE_CHECKING:
    import pandas as pd

MANIFEST = "manifest.json"
EXPORT_FORMAT = "pyeval-parquet-export"


@dataclass(frozen=True)
class ExportReport:
    """What :func:`export_parquet` wrote: the directory and the rows of each table."""

    directory: str
    rows: dict[str, int]
    last_evaluation_id: int | None



def _file_sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def export_parquet(
    con: duckdb.DuckDBPyConnection, directory: str | os.PathLike[str], *, replace: bool = False
) -> ExportReport:
    """Write every public table, and the views ``scores`` (each campaign's default judgment set)
    and ``scores_by_set`` (every set; :data:`EXPORTED_VIEWS`), as Parquet
    under ``directory``, with ``manifest.json``.

    Tables with a ``campaign_id`` column are written one folder per campaign,
    ``TABLE/campaign-<percent-encoded id>/`` (no ``=``: readers infer no partition column and
    read ``campaign_id`` from the files, where it always is), or
    ``TABLE/campaign-sha256-<digest>/`` when that name would be too long (its id in the files
    and in the manifest); the others are one file each. The manifest lists each table's columns,
    rows and files with their sha256. Everything is read in one transaction. ``directory`` must
    be new or empty, or (with ``replace``) an earlier export that holds nothing else
    (pyeval.storage.ownership.require_export).
    """
    target = Path(directory).absolute()
    if target.is_symlink():
        raise NotOwnedError(f"{target}: is a symbolic link; pyeval leaves it alone (choose another directory)")
    target = target.resolve()
    recover_export(target)
    if target.exists() and not target.is_dir():
        raise NotOwnedError(f"{target}: exists and is not a directory; pyeval leaves it alone")
    if target.is_dir() and any(target.iterdir()):
        require_export(target, MANIFEST, EXPORT_FORMAT, _file_sha256)
        if not replace:
            raise already_stored(f"{target}: holds an export already", error=PyevalError)
    if not target.parent.is_dir():
        raise PyevalError(f"{target.parent}: no such directory")
    try:
        building = _sibling(target, "build")
        building.mkdir()  # with the umask's permissions: an export is for sharing
        (building / BUILD_MARKER).write_text(_build_marker_text(building), encoding="utf-8")
    except OSError as exc:
        raise PyevalError(f"{target.parent}: cannot write the export there: {exc.strerror or exc}") from exc
    try:
        return _write_export(con, target, building)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise


def _write_export(con: duckdb.DuckDBPyConnection, target: Path, building: Path) -> ExportReport:
    """Fill ``building`` (a fresh folder next to ``target``), then put it in ``target``'s place."""
    from .. import __version__

    cursor = con.cursor()
    tables = {}
    try:
        cursor.begin()
        for table in (*PUBLIC_TABLES, *EXPORTED_VIEWS):
            columns = table_columns(cursor, table)
            # table names are the constants of PUBLIC_TABLES
            count = first_row(cursor, f"select count(*) from {table}")[0]
            folder = building / table
            folder.mkdir()
            partitioned = any(name == "campaign_id" for name, _ in columns) and count > 0
            digest_folders: dict[str, str] = {}
            if partitioned:
                digest_folders = _write_partitions(cursor, table, folder)
            else:
                cursor.execute(f"copy (select * from {table}) to $path (format parquet)",
                               {"path": str(folder / "data.parquet")})
            files = sorted(folder.rglob("*.parquet"))
            file_rows = dict(cursor.execute(
                "select file_name, sum(num_rows) from parquet_file_metadata($files) group by file_name",
                {"files": [str(f) for f in files]},
            ).fetchall())
            tables[table] = {
                "rows": count,
                "columns": [[name, kind] for name, kind in columns],
                "partitioned_by": "campaign_id" if partitioned else None,
                "files": [
                    {"path": f.relative_to(building).as_posix(), "rows": int(file_rows[str(f)]),
                     "sha256": _file_sha256(f),
                     **({"campaign_id": digest_folders[f.parent.name]} if f.parent.name in digest_folders else {})}
                    for f in files
                ],
            }
        last = first_row(cursor, "select max(evaluation_id) from evaluations")[0]
        migrations = cursor.execute(f"select version, name, checksum from {INTERNAL_SCHEMA}.schema_migrations "
                                    "order by version").fetchall()
        cursor.commit()
    except BaseException as exc:
        rollback_quietly(cursor)
        if isinstance(exc, duckdb.Error):
            raise PyevalError(f"{target}: export failed: {error_reason(exc)}") from exc
        if isinstance(exc, OSError):
            raise PyevalError(f"{exc.filename or target}: export failed: {exc.strerror or exc}") from exc
        raise
    finally:
        cursor.close()
    manifest = {
        "format": EXPORT_FORMAT,
        "format_version": 1,
        "pyeval_version": __version__,
        "created_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "source": database_path(con),
        "last_evaluation_id": last,
        "migrations": [list(m) for m in migrations],
        "tables": tables,
    }
    manifest["seal"] = seal(manifest)
    old = None
    try:
        (building / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        (building / BUILD_MARKER).unlink()  # a finished build is proven by its sealed manifest
        if target.exists():
            old = _sibling(target, "old")
            target.rename(old)
        building.rename(target)
    except OSError as exc:
        if old is not None and not target.exists():
            old.rename(target)  # put the earlier export back
        raise PyevalError(f"{exc.filename or target}: cannot write the export: {exc.strerror or exc}") from exc
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return ExportReport(str(target), {t: info["rows"] for t, info in tables.items()}, last)


#: The file an export writes first into its build folder (holding :func:`_build_marker_text`):
#: the proof that a ``.DIR.build.<pid>.<token>`` folder is pyeval's, which recovery needs
#: before it removes one (a folder of that name without it is someone else's).
BUILD_MARKER = ".pyeval-export-build"


def _build_marker_text(building: Path) -> str:
    return f"pyeval export build {building.name}\n"


def _is_our_build(folder: Path) -> bool:
    """Whether ``folder`` is a build folder an export made: it holds :data:`BUILD_MARKER` with
    the folder's own name, or it is a finished export (its sealed manifest written last)."""
    return holds_marker(folder / BUILD_MARKER, _build_marker_text(folder)) or _is_export(folder)


def _sibling(target: Path, kind: str) -> Path:
    """A folder beside ``target`` for an export under way: ``.<name>.build.<pid>.<token>`` (being
    written) or ``.<name>.old.<pid>.<token>`` (the export it replaces, between the two renames)."""
    return target.with_name(f".{target.name}.{kind}.{os.getpid()}.{secrets.token_hex(4)}")


def _abandoned(target: Path) -> dict[str, list[Path]]:
    """The build and old folders beside ``target`` (named by :func:`_sibling`) whose export is no
    longer running, newest first."""
    import re

    from .snapshot import _process_is_running

    pattern = re.compile(re.escape(f".{target.name}.") + r"(build|old)\.(\d+)\.[0-9a-f]{8}")
    found: dict[str, list[Path]] = {"build": [], "old": []}
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return found
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match and entry.is_dir(follow_symlinks=False) and not _process_is_running(int(match.group(2))):
            found[match.group(1)].append(Path(entry.path))
    for paths in found.values():
        paths.sort(key=lambda path: path.stat().st_mtime, reverse=True)
    return found


def _is_export(folder: Path) -> bool:
    try:
        require_export(folder, MANIFEST, EXPORT_FORMAT, _file_sha256)
    except NotOwnedError:
        return False
    return True


def recover_export(directory: str | os.PathLike[str], *, remove: bool = True) -> None:
    """Finish or undo what a killed export left beside ``directory`` (docs/reliability.md): when
    the export is missing because one was killed between its two renames, its finished build (a
    sealed manifest written last) takes its place, else the export it was replacing goes back.
    With ``remove`` (``export``; not the read-only ``attach``, which deletes nothing), the
    abandoned build folders and replaced exports are then removed. Only what pyeval provably
    made is moved or removed (a build folder holding :data:`BUILD_MARKER`, an export with its
    manifest); folders of an export still running, and anything else, are left alone."""
    target = Path(directory).absolute()
    if target.is_symlink() or not target.parent.is_dir():
        return
    found = _abandoned(target)
    if not found["build"] and not found["old"]:
        return
    try:
        if not target.exists() and found["old"]:  # killed between the renames
            finished = [folder for folder in found["build"] if _is_export(folder)]
            source = finished[0] if finished else next((f for f in found["old"] if _is_export(f)), None)
            if source is not None:
                source.rename(target)
        if not remove:
            return
        for folder in found["build"]:
            if folder.exists() and _is_our_build(folder):
                shutil.rmtree(folder, ignore_errors=True)
        for folder in found["old"]:
            if folder.exists() and _is_export(folder):
                shutil.rmtree(folder, ignore_errors=True)
    except OSError as exc:
        raise PyevalError(f"{target}: cannot recover what a killed export left: {exc.strerror or exc}") from exc


#: Longest folder name written (most file systems allow 255 bytes per name).
_MAX_FOLDER_NAME = 255


def _partition_folder_fits(campaign_id: str) -> bool:
    """Whether DuckDB's Hive folder ``campaign_id=<percent-encoded id>`` fits in a file name
    (``urllib.parse.quote`` encodes at least what DuckDB does, so this errs on the safe side)."""
    from urllib.parse import quote

    return len("campaign_id=") + len(quote(campaign_id, safe="")) <= _MAX_FOLDER_NAME


#: A campaign's folder: ``campaign-`` and its percent-encoded id (or :func:`digest_folder`).
FOLDER_PREFIX = "campaign-"
#: Views exported with the tables, as their rows at export time, for readers that do not run
#: pyeval's views: the current per-topic scores.
EXPORTED_VIEWS: tuple[str, ...] = ("scores", "scores_by_set")


#: Public tables added after the export format (migrations 0010, 0012): an older export lacks
#: them, and ``attach`` reads it with them empty.
LATER_TABLES: tuple[str, ...] = ("measures", "topic_texts", "risk_results", "risk_topic_values", "topic_set_designs",
                                  "current_scores", "current_means")


#: Public tables renamed since the export format (migration 0019): an older export holds them
#: under their old name (whose rows held every judgment set).
RENAMED_TABLES: dict[str, str] = {"qrels_by_set": "qrels", "intents_by_set": "intents"}

#: Columns added since the export format (migration 0019), with the value an older export's rows
#: had: ``table -> (column, SQL literal)``.
LATER_COLUMNS: dict[str, tuple[str, str]] = {"campaigns": ("default_judgment_set", "'official'"),
                                             "judgment_sets": ("working_set", "false")}


def digest_folder(campaign_id: str) -> str:
    """The folder of a campaign whose folder name would be too long: ``campaign-sha256-`` and
    the sha256 of its UTF-8 id (readers take the id from the files)."""
    return "campaign-sha256-" + hashlib.sha256(campaign_id.encode("utf-8")).hexdigest()


def _write_partitions(cursor: duckdb.DuckDBPyConnection, table: str, folder: Path) -> dict[str, str]:
    """Write ``table`` (which has a ``campaign_id`` column) under ``folder``, one folder per
    campaign: ``campaign-<percent-encoded id>`` when its name fits, else :func:`digest_folder`
    (the id is in the files, and in the manifest). Returns digest folder -> campaign id."""
    # table names are the constants of PUBLIC_TABLES
    campaigns = [row[0] for row in cursor.execute(f"select distinct campaign_id from {table}").fetchall()]
    long_ids = sorted(c for c in campaigns if not _partition_folder_fits(c))
    if len(long_ids) < len(campaigns):
        cursor.execute(
            f"copy (select * from {table} where not list_contains($long_ids, campaign_id)) to $path "
            "(format parquet, partition_by (campaign_id), write_partition_columns true)",
            {"path": str(folder), "long_ids": long_ids},
        )
        # campaign_id=<id> -> campaign-<id>: no "=", so pandas, pyarrow, Polars and DuckDB infer
        # no Hive partition column; campaign_id comes from the files, a string everywhere
        for hive in folder.iterdir():
            hive.rename(folder / (FOLDER_PREFIX + hive.name.removeprefix("campaign_id=")))
    folders = {}
    for campaign_id in long_ids:
        part = folder / digest_folder(campaign_id)
        part.mkdir()
        cursor.execute(f"copy (select * from {table} where campaign_id = $id) to $path (format parquet)",
                       {"id": campaign_id, "path": str(part / "data_0.parquet")})
        folders[part.name] = campaign_id
    return folders


def read_manifest(directory: str | os.PathLike[str], *, verify: bool = True) -> dict:
    """The manifest of an export, after checking that every file it lists is there (and, with
    ``verify``, has its recorded sha256)."""
    root = Path(directory)
    path = root / MANIFEST
    recover_export(root, remove=False)  # reading deletes nothing
    if not root.is_dir():
        raise PyevalError(f"{root}: no such directory")
    if not path.is_file():
        raise PyevalError(f"{root}: not a pyeval export (no {MANIFEST})")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise PyevalError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != EXPORT_FORMAT:
        raise PyevalError(f"{path}: not a pyeval export manifest")
    if verify and manifest.get("seal") is not None and manifest["seal"] != seal(manifest):
        raise PyevalError(f"{path}: its seal does not match: the manifest was changed after the export")
    listed_files(root, manifest)  # every path stays inside the folder
    for table, info in manifest["tables"].items():
        for entry in info["files"]:
            file = inside(root, entry["path"], f"table {table}")
            if not file.is_file():
                raise PyevalError(f"{root}: table {table}: file {entry['path']} is missing")
            if verify and _file_sha256(file) != entry["sha256"]:
                raise PyevalError(f"{root}: table {table}: file {entry['path']} was changed after the export")
    return manifest


def export_tables(directory: str | os.PathLike[str]) -> pd.DataFrame:
    """One row per table of an export: ``table``, ``rows``, ``files``, ``partitioned_by``."""
    import pandas as pd

    manifest = read_manifest(directory, verify=False)
    return pd.DataFrame(
        [(name, info["rows"], len(info["files"]), info["partitioned_by"] or "")
         for name, info in manifest["tables"].items()],
        columns=["table", "rows", "files", "partitioned_by"],
    )


def attach_export(
    directory: str | os.PathLike[str], *, verify: bool = True, external_access: bool = False
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection that reads an export: one view per table over its Parquet
    files, and every view of sql/views/ on top, so queries written for the warehouse run as is.

    The connection reads the export's files and no others, installs and loads no extension,
    and its settings are locked (:data:`pyeval.storage.ownership.LOCKED_DOWN`), unless
    ``external_access``.
    """
    root = Path(directory).resolve()
    manifest = read_manifest(root, verify=verify)
    con = duckdb.connect(config={} if external_access else
                         {k: v for k, v in LOCKED_DOWN.items() if k not in ("enable_external_access", "lock_configuration")})
    try:
        paths = [str(inside(root, entry["path"], f"table {table}"))
                 for table, info in manifest["tables"].items() for entry in info["files"]]
        if not external_access:
            con.execute("set allowed_paths = $paths", {"paths": paths})
            con.execute("set enable_external_access = false")
        for table in PUBLIC_TABLES:
            info = manifest["tables"].get(table, manifest["tables"].get(RENAMED_TABLES.get(table, table)))
            if info is None:
                if table in LATER_TABLES:  # an export by an older pyeval: the table is empty
                    con.execute(sqlfiles.table_sql(table))
                    continue
                raise PyevalError(f"{root}: the export has no table {table}")
            files = [str(inside(root, entry["path"], f"table {table}")) for entry in info["files"]]
            relation = con.read_parquet(files, hive_partitioning=False)
            if table in LATER_COLUMNS and LATER_COLUMNS[table][0] not in relation.columns:
                column, value = LATER_COLUMNS[table]  # pyeval's constants: no user input in this SQL
                relation = relation.project(f"*, {value} as {column}")
            relation.create_view(table)
            found = first_row(con, f"select count(*) from {table}")[0]
            if found != info["rows"]:
                raise PyevalError(f"{root}: table {table} has {found} rows; the manifest says {info['rows']}")
        # the public views in main, the engine's in pyeval_internal, searched after main
        warehouse.create_views(con, stamp=False)
        if "current_scores" not in manifest["tables"]:  # exported before migration 0015: from the history
            archive.rebuild(con)
        if not external_access:
            con.execute("set lock_configuration = true")  # after the search path the views set
    except duckdb.Error as exc:
        con.close()
        raise PyevalError(f"{root}: cannot read the export: {str(exc).splitlines()[0]}") from exc
    except BaseException:
        con.close()
        raise
    return con

