"""Sharing a warehouse with BI tools and other databases: its SQLAlchemy URL, read-only
snapshots, Parquet exports (and reading them back), and publishing to PostgreSQL.

DuckDB lets one process write a file and no other process open it meanwhile, so dashboards
read a copy: a snapshot file (:func:`snapshot`), a Parquet tree (:func:`export_parquet`) or a
PostgreSQL database (:func:`publish`). Every copy is taken inside one transaction, so it shows
whole evaluations only. Values are bound as parameters; the only identifiers spliced into SQL
text are the constants below and names passed through :func:`quote_identifier`.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import secrets
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from . import sqlfiles
from .db import first_row, rollback_quietly
from .errors import NotOwnedError, PyevalError, already_stored
from .ownership import LOCKED_DOWN, Ownership, inside, listed_files, probe_warehouse_file, require_export, seal

if TYPE_CHECKING:
    import pandas as pd

#: The stored public tables (docs/schema.md): what exports and publications copy.
PUBLIC_TABLES: tuple[str, ...] = (
    "campaigns",
    "campaign_derivations",
    "topics",
    "intents",
    "intent_variants",
    "qrels",
    "runs",
    "run_tags",
    "run_entries",
    "document_lengths",
    "campaign_inputs",
    "gain_profiles",
    "evaluations",
    "topic_scores",
    "evaluation_inputs",
    "evaluation_measures",
    "evaluation_means",
    # meta-evaluation (migrations 0005 and 0008; docs/resampling.md)
    "resample_sets",
    "resample_replicates",
    "significance_tests",
    "pairwise_tests",
    "discriminative_power",
    "swap_rates",
    "swap_rate_summaries",
    "minority_rates",
    "rank_correlations",
    "concordance_tests",
    "gain_robustness",
    "mem_solutions",
    "mem_predictions",
)

#: Tables whose rows belong to one evaluation and never change: published incrementally.
EVALUATION_TABLES: tuple[str, ...] = (
    "evaluations",
    "topic_scores",
    "evaluation_inputs",
    "evaluation_measures",
    "evaluation_means",
)

#: Large input tables published per campaign input (kind in campaign_inputs) when it changed.
CAMPAIGN_INPUT_TABLES: dict[str, str] = {
    "qrels": "qrels",
    "intents": "intents",
    "document_lengths": "doclengths",
}

#: Views whose SQL is portable: PostgreSQL gets them as views, created from sql/views/ text.
PORTABLE_VIEWS: tuple[str, ...] = (
    "stale_results",
    "score_history",
    "scores",
    "run_means",
    "monthly_means",
    "campaign_overview",
    "run_overview",
)

#: DuckDB-only views the portable ones read: PostgreSQL gets their rows as a table.
MATERIALIZED_VIEWS: tuple[str, ...] = ("current_inputs",)

MANIFEST = "manifest.json"
EXPORT_FORMAT = "pyeval-parquet-export"
PUBLICATIONS_TABLE = "pyeval_publications"
_STORAGE_VERSION = re.compile(r"^v\d+\.\d+\.\d+$")


def quote_identifier(name: str) -> str:
    """``name`` as an SQL identifier in double quotes (``"`` doubled), for DuckDB and PostgreSQL."""
    if "\x00" in name:
        raise PyevalError(f"an SQL identifier cannot contain a NUL character: {name!r}")
    return '"' + name.replace('"', '""') + '"'


# ---------------------------------------------------------------------------------- URL


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


# ---------------------------------------------------------------------------------- snapshot


@dataclass(frozen=True)
class SnapshotReport:
    """What :func:`snapshot` wrote: the file, its last evaluation and its size in bytes."""

    path: str
    last_evaluation_id: int | None
    bytes: int


def _replaceable_snapshot_target(path: Path) -> bool:
    """Whether ``path`` may be replaced by a snapshot: a pyeval warehouse or snapshot (not the
    demo's, which ``pyeval demo`` owns); a file that is no DuckDB database or holds someone
    else's tables is not."""
    try:
        found, _ = probe_warehouse_file(path)
    except NotOwnedError:
        return False
    return found is Ownership.PYEVAL


def _database_path(con: duckdb.DuckDBPyConnection) -> str | None:
    row = first_row(con, "select path from duckdb_databases() where database_name = current_database()")
    return row[0] if row else None


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
    reading it). ``out`` may exist only as an earlier pyeval warehouse or snapshot.

    Parameters
    ----------
    storage_version
        DuckDB storage format to write, e.g. ``'v1.5.0'`` for BI tools embedding DuckDB 1.5.
    """
    out = Path(out).resolve()
    if storage_version is not None and not _STORAGE_VERSION.match(storage_version):
        raise PyevalError(f"storage version must look like v1.5.0; got {storage_version!r}")
    source = _database_path(con)
    if source and Path(source).resolve() == out:
        raise PyevalError(f"{out}: a snapshot cannot overwrite the warehouse it copies")
    if out.is_dir():
        raise PyevalError(f"{out}: is a directory")
    if out.is_symlink() or (out.exists() and not _replaceable_snapshot_target(out)):
        raise NotOwnedError(f"{out}: exists and is not a pyeval warehouse or snapshot; pyeval leaves it alone "
                            "(choose another file)")
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
        raise PyevalError(f"{out}: cannot write the snapshot: {_reason(exc)}") from exc
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


def _reason(exc: BaseException) -> str:
    """The first line of a DuckDB error, without the "IO Error: " style prefix kept twice."""
    return str(exc).strip().splitlines()[0]


# ---------------------------------------------------------------------------------- Parquet


@dataclass(frozen=True)
class ExportReport:
    """What :func:`export_parquet` wrote: the directory and the rows of each table."""

    directory: str
    rows: dict[str, int]
    last_evaluation_id: int | None


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    return [
        (name, kind)
        for name, kind in con.execute(
            "select column_name, data_type from duckdb_columns() "
            "where table_name = $t and schema_name = 'main' and database_name = current_database() "
            "order by column_index",
            {"t": table},
        ).fetchall()
    ]


def _file_sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def export_parquet(
    con: duckdb.DuckDBPyConnection, directory: str | os.PathLike[str], *, replace: bool = False
) -> ExportReport:
    """Write every public table as Parquet under ``directory``, with ``manifest.json``.

    Tables with a ``campaign_id`` column are partitioned by campaign (Hive layout
    ``TABLE/campaign_id=<percent-encoded>/``, the column kept inside the files; a campaign whose
    folder name would be too long goes to ``TABLE/campaign-sha256-<digest>/``, its id in the
    files and in the manifest); the others are one file each. The manifest lists each table's
    columns, rows and files with their sha256. All tables are read in one transaction. ``directory`` must be new or empty, or (with
    ``replace``) an earlier export that holds nothing else (pyeval.ownership.require_export).
    """
    target = Path(directory).absolute()
    if target.is_symlink():
        raise NotOwnedError(f"{target}: is a symbolic link; pyeval leaves it alone (choose another directory)")
    target = target.resolve()
    if target.exists() and not target.is_dir():
        raise NotOwnedError(f"{target}: exists and is not a directory; pyeval leaves it alone")
    if target.is_dir() and any(target.iterdir()):
        require_export(target, MANIFEST, EXPORT_FORMAT, _file_sha256)
        if not replace:
            raise already_stored(f"{target}: holds an export already", error=PyevalError)
    if not target.parent.is_dir():
        raise PyevalError(f"{target.parent}: no such directory")
    try:
        building = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        umask = os.umask(0)
        os.umask(umask)
        building.chmod(0o777 & ~umask)  # mkdtemp makes it private; an export is for sharing
    except OSError as exc:
        raise PyevalError(f"{target.parent}: cannot write the export there: {exc.strerror or exc}") from exc
    try:
        return _write_export(con, target, building)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise


def _write_export(con: duckdb.DuckDBPyConnection, target: Path, building: Path) -> ExportReport:
    """Fill ``building`` (a fresh folder next to ``target``), then put it in ``target``'s place."""
    from . import __version__

    cursor = con.cursor()
    tables = {}
    try:
        cursor.begin()
        for table in PUBLIC_TABLES:
            columns = _columns(cursor, table)
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
        migrations = cursor.execute("select version, name, checksum from schema_migrations order by version").fetchall()
        cursor.commit()
    except BaseException as exc:
        rollback_quietly(cursor)
        if isinstance(exc, duckdb.Error):
            raise PyevalError(f"{target}: export failed: {_reason(exc)}") from exc
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
        "source": _database_path(con),
        "last_evaluation_id": last,
        "migrations": [list(m) for m in migrations],
        "tables": tables,
    }
    manifest["seal"] = seal(manifest)
    old = None
    try:
        (building / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        if target.exists():
            old = target.with_name(f".{target.name}.old.{os.getpid()}.{secrets.token_hex(4)}")
            target.rename(old)
        building.rename(target)
    except OSError as exc:
        if old is not None and not target.exists():
            old.rename(target)  # put the earlier export back
        raise PyevalError(f"{exc.filename or target}: cannot write the export: {exc.strerror or exc}") from exc
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return ExportReport(str(target), {t: info["rows"] for t, info in tables.items()}, last)


#: Longest folder name written (most file systems allow 255 bytes per name).
_MAX_FOLDER_NAME = 255


def _partition_folder_fits(campaign_id: str) -> bool:
    """Whether DuckDB's Hive folder ``campaign_id=<percent-encoded id>`` fits in a file name
    (``urllib.parse.quote`` encodes at least what DuckDB does, so this errs on the safe side)."""
    from urllib.parse import quote

    return len("campaign_id=") + len(quote(campaign_id, safe="")) <= _MAX_FOLDER_NAME


def digest_folder(campaign_id: str) -> str:
    """The folder of a campaign whose Hive folder name would be too long: ``campaign-sha256-``
    and the sha256 of its UTF-8 id (no ``=``, so Hive readers take the id from the files)."""
    return "campaign-sha256-" + hashlib.sha256(campaign_id.encode("utf-8")).hexdigest()


def _write_partitions(cursor: duckdb.DuckDBPyConnection, table: str, folder: Path) -> dict[str, str]:
    """Write ``table`` (which has a ``campaign_id`` column) under ``folder``, one folder per
    campaign: the Hive folder ``campaign_id=<id>`` when its name fits, else :func:`digest_folder`
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
    and its settings are locked (:data:`pyeval.ownership.LOCKED_DOWN`), unless
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
            con.execute("set lock_configuration = true")
        for table in PUBLIC_TABLES:
            info = manifest["tables"].get(table)
            if info is None:
                raise PyevalError(f"{root}: the export has no table {table}")
            files = [str(inside(root, entry["path"], f"table {table}")) for entry in info["files"]]
            con.read_parquet(files, hive_partitioning=False).create_view(table)
            found = first_row(con, f"select count(*) from {table}")[0]
            if found != info["rows"]:
                raise PyevalError(f"{root}: table {table} has {found} rows; the manifest says {info['rows']}")
        for name in sqlfiles.VIEW_ORDER:
            con.execute(f"create view {name} as\n{sqlfiles.view_sql(name)}")
    except duckdb.Error as exc:
        con.close()
        raise PyevalError(f"{root}: cannot read the export: {str(exc).splitlines()[0]}") from exc
    except BaseException:
        con.close()
        raise
    return con


# ---------------------------------------------------------------------------------- PostgreSQL


@dataclass
class PublishReport:
    """What :func:`publish` copied: rows per table, and the evaluations now published."""

    url: str
    rows: dict[str, int] = field(default_factory=dict)
    full: bool = False
    last_evaluation_id: int | None = None
    new_evaluations: int = 0

    def summary(self) -> str:
        copied = sum(self.rows.values())
        how = "full copy" if self.full else "incremental"
        return (f"published to {self.url} ({how}): {copied} rows copied, "
                f"{self.new_evaluations} new evaluations, last evaluation {self.last_evaluation_id}")


def _pg_engine(url: str):
    try:
        import sqlalchemy as sa
        from sqlalchemy.engine import make_url
    except ImportError as exc:  # pragma: no cover - a dependency
        raise PyevalError(f"publishing needs SQLAlchemy: {exc}") from exc
    try:
        parsed = make_url(url)
    except Exception as exc:  # sqlalchemy.exc.ArgumentError
        raise PyevalError(f"not a database URL: {url!r}") from exc
    if parsed.get_backend_name() != "postgresql":
        raise PyevalError(f"publish needs a postgresql:// URL; got {parsed.get_backend_name()}://")
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise PyevalError("publishing needs the PostgreSQL driver psycopg: pip install 'pyeval[postgres]'") from exc
    parsed = parsed.set(drivername="postgresql+psycopg")
    engine = sa.create_engine(parsed, connect_args={"connect_timeout": 10})
    return engine, parsed.render_as_string(hide_password=True)


def _pg_type(duckdb_type: str):
    import sqlalchemy as sa
    from sqlalchemy.dialects import postgresql

    types = {
        "VARCHAR": sa.Text, "BIGINT": sa.BigInteger, "INTEGER": sa.Integer,
        "DOUBLE": postgresql.DOUBLE_PRECISION, "BOOLEAN": sa.Boolean,
        "TIMESTAMP": sa.DateTime, "DATE": sa.Date,
    }
    if duckdb_type.endswith("[]"):  # DuckDB lists become PostgreSQL arrays
        return postgresql.ARRAY(_pg_type(duckdb_type[:-2]))
    if duckdb_type not in types:
        raise PyevalError(f"cannot publish a column of DuckDB type {duckdb_type}")
    return types[duckdb_type]()


def _primary_key(con, table: str) -> list[str]:
    row = first_row(
        con,
        "select constraint_column_names from duckdb_constraints() where table_name = $t "
        "and constraint_type = 'PRIMARY KEY' and database_name = current_database()",
        {"t": table},
    )
    return list(row[0]) if row else []


def _pg_table(metadata, con, name: str, columns: list[tuple[str, str]]):
    import sqlalchemy as sa

    key = set(_primary_key(con, name)) if name in PUBLIC_TABLES else set()
    table = sa.Table(
        name, metadata,
        *[sa.Column(column, _pg_type(kind), primary_key=column in key) for column, kind in columns],
    )
    if name in _PG_INDEXES:
        sa.Index(f"{name}_publish_key", *[table.c[c] for c in _PG_INDEXES[name]])
    return table


#: Indexes for the deletes and counts of an incremental publication (tables without a key).
_PG_INDEXES: dict[str, tuple[str, ...]] = {
    "topic_scores": ("evaluation_id",),
    "run_entries": ("campaign_id", "run_id"),
    "qrels": ("campaign_id",),
    "document_lengths": ("campaign_id",),
}


def _copy_rows(con, pg, table: str, columns: list[str], query: str, parameters: dict) -> int:
    """Stream ``query``'s rows (DuckDB, in ``con``'s transaction) into ``table`` (PostgreSQL)
    with COPY, through a CSV file (NULL unquoted and empty, '' quoted: both servers agree);
    rows with list columns go through parameterised inserts instead."""
    from psycopg import sql

    con.execute(f"select * from ({query}) limit 0", parameters)
    if any(str(column[1]).endswith("[]") for column in con.description):
        # list columns: psycopg sends Python lists as PostgreSQL arrays (CSV has no array form)
        rows = con.execute(query, parameters).fetchall()
        statement = sql.SQL("insert into {} ({}) values ({})").format(
            sql.Identifier(table), sql.SQL(", ").join(sql.Identifier(c) for c in columns),
            sql.SQL(", ").join(sql.Placeholder() * len(columns)),
        )
        with pg.connection.driver_connection.cursor() as pg_cursor:
            pg_cursor.executemany(statement, rows)
        return len(rows)
    with tempfile.TemporaryDirectory(prefix="pyeval-publish-") as folder:
        path = Path(folder) / "rows.csv"
        con.execute(f"copy ({query}) to $path (format csv, header false)", {**parameters, "path": str(path)})
        statement = sql.SQL("copy {} ({}) from stdin (format csv)").format(
            sql.Identifier(table), sql.SQL(", ").join(sql.Identifier(c) for c in columns)
        )
        raw = pg.connection.driver_connection
        with raw.cursor() as pg_cursor:
            with pg_cursor.copy(statement) as copy, open(path, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    copy.write(chunk)
            return pg_cursor.rowcount


def publish(con: duckdb.DuckDBPyConnection, url: str, *, full: bool = False) -> PublishReport:
    """Copy the public schema into a PostgreSQL database (one transaction there).

    Tables get the warehouse's columns and primary keys. Evaluation tables are copied
    incrementally (rows of evaluations after the last one published), ``qrels``, ``intents``,
    ``document_lengths`` and ``run_entries`` per campaign input or run whose sha256 or load time
    changed, the small tables whole. The portable views are created from the same SQL text as in
    DuckDB; ``current_inputs`` (DuckDB-only SQL) is copied as a table. The metric engine's views
    are not published. ``full`` copies everything again.

    Raises
    ------
    PyevalError
        A URL that is not ``postgresql://``, no driver, or a server that cannot be reached.
    """
    import sqlalchemy as sa

    from . import __version__

    engine, shown = _pg_engine(url)
    report = PublishReport(shown, full=full)
    cursor = con.cursor()
    try:
        cursor.begin()
        try:
            with engine.begin() as pg:
                _publish(cursor, pg, report)
                pg.execute(
                    sa.text(f"insert into {PUBLICATIONS_TABLE} (published_at, pyeval_version, source, "
                            "last_evaluation_id, rows_copied) values (now(), :v, :s, :e, :n)"),
                    {"v": __version__, "s": _database_path(con), "e": report.last_evaluation_id,
                     "n": sum(report.rows.values())},
                )
        finally:
            cursor.rollback()
    except sa.exc.OperationalError as exc:
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig is not None else str(exc).splitlines()[0]
        raise PyevalError(f"cannot publish to {shown}: {reason}") from exc
    except sa.exc.DBAPIError as exc:
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig is not None else str(exc).splitlines()[0]
        raise PyevalError(f"publishing to {shown} failed: {reason}") from exc
    finally:
        cursor.close()
        engine.dispose()
    return report


def _publish(con, pg, report: PublishReport) -> None:
    import sqlalchemy as sa

    inspector = sa.inspect(pg)
    existing = set(inspector.get_table_names())
    _require_publication_target(existing | set(inspector.get_view_names()), report.url)
    for view in reversed(PORTABLE_VIEWS):
        pg.exec_driver_sql(f"drop view if exists {quote_identifier(view)} cascade")
    metadata = sa.MetaData()
    sa.Table(
        PUBLICATIONS_TABLE, metadata,
        sa.Column("publication_id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("pyeval_version", sa.Text, nullable=False),
        sa.Column("source", sa.Text),
        sa.Column("last_evaluation_id", sa.BigInteger),
        sa.Column("rows_copied", sa.BigInteger, nullable=False),
    )
    columns = {name: _columns(con, name) for name in (*PUBLIC_TABLES, *MATERIALIZED_VIEWS)}
    fresh = set()  # tables (re)created now: they need every row
    for name, cols in columns.items():
        table = _pg_table(metadata, con, name, cols)
        if name in existing:
            published = [c["name"] for c in inspector.get_columns(name)]
            if published == [c for c, _ in cols]:
                continue
            pg.exec_driver_sql(f"drop table {quote_identifier(name)} cascade")
        table.create(pg)
        fresh.add(name)
    metadata.tables[PUBLICATIONS_TABLE].create(pg, checkfirst=True)

    last = first_row(con, "select max(evaluation_id) from evaluations")[0]
    watermark = None if report.full or fresh & set(EVALUATION_TABLES) else _watermark(con, pg)
    report.full = watermark is None
    for name in EVALUATION_TABLES:
        cols = [c for c, _ in columns[name]]
        if watermark is None:
            pg.exec_driver_sql(f"delete from {quote_identifier(name)}")
            query, parameters = f"select * from {name}", {}
        else:
            query, parameters = f"select * from {name} where evaluation_id > $after", {"after": watermark}
        report.rows[name] = _copy_rows(con, pg, name, cols, query, parameters)
    report.new_evaluations = report.rows["evaluations"]
    report.last_evaluation_id = last

    # run entries: per run whose file or load time changed (compared before runs is refreshed)
    changed_runs = _changed_keys(
        con, pg, "select campaign_id, run_id, source_sha256, loaded_at from runs",
        "runs", ("campaign_id", "run_id", "source_sha256", "loaded_at"),
    )
    changed_inputs = _changed_keys(
        con, pg, "select campaign_id, input_kind, source_sha256, loaded_at from campaign_inputs",
        "campaign_inputs", ("campaign_id", "input_kind", "source_sha256", "loaded_at"),
    )
    parts = {"run_entries": (("campaign_id", "run_id"), changed_runs)}
    for name, kind in CAMPAIGN_INPUT_TABLES.items():
        parts[name] = (("campaign_id",), {(c,) for c, k in changed_inputs if k == kind})
    for name, (key, changed) in parts.items():
        if report.full or name in fresh:
            changed = None  # every row
        report.rows[name] = _replace_parts(con, pg, name, columns, key, changed)
    for name in (*PUBLIC_TABLES, *MATERIALIZED_VIEWS):
        if name in EVALUATION_TABLES or name in parts:
            continue
        pg.exec_driver_sql(f"delete from {quote_identifier(name)}")
        report.rows[name] = _copy_rows(con, pg, name, [c for c, _ in columns[name]], f"select * from {name}", {})
    raw = pg.connection.driver_connection
    for view in PORTABLE_VIEWS:
        # the view's own SQL text, run by PostgreSQL: no parameters, no placeholders
        raw.execute(f"create view {quote_identifier(view)} as\n{sqlfiles.view_sql(view)}")


def _require_publication_target(relations: set[str], shown_url: str) -> None:
    """Refuse a database that holds tables or views with pyeval's names but was never published
    to (no ``pyeval_publications`` table): publishing would drop or empty them."""
    ours = {*PUBLIC_TABLES, *MATERIALIZED_VIEWS, *PORTABLE_VIEWS}
    clashing = sorted(relations & ours)
    if clashing and PUBLICATIONS_TABLE not in relations:
        shown = ", ".join(clashing[:3]) + (", ..." if len(clashing) > 3 else "")
        raise NotOwnedError(f"{shown_url}: holds {shown}, which pyeval did not publish (no {PUBLICATIONS_TABLE} "
                            "table); pyeval leaves the database alone (publish to another database or schema)")


def _watermark(con, pg) -> int | None:
    """The last evaluation published, if PostgreSQL holds exactly the warehouse's rows up to it;
    None when the evaluation tables must be copied whole."""
    import sqlalchemy as sa

    row = pg.execute(sa.text(
        "select evaluation_id, created_at from evaluations order by evaluation_id desc limit 1"
    )).first()
    if row is None:
        return 0
    evaluation_id, created_at = row
    ours = first_row(con, "select created_at from evaluations where evaluation_id = $e", {"e": evaluation_id})
    if ours is None or ours[0] != created_at:
        return None  # another warehouse, or a different history
    for name in EVALUATION_TABLES:
        here = first_row(con, f"select count(*) from {name} where evaluation_id <= $e", {"e": evaluation_id})[0]
        there = pg.execute(
            sa.text(f"select count(*) from {quote_identifier(name)} where evaluation_id <= :e"), {"e": evaluation_id}
        ).scalar_one()
        if here != there:
            return None
    return evaluation_id


def _changed_keys(con, pg, query: str, table: str, key: tuple[str, ...]) -> set[tuple]:
    """Leading key parts (all but the last two: sha256, loaded_at) whose rows differ between
    the warehouse and PostgreSQL's copy of ``table``."""
    ours = {tuple(row) for row in con.execute(query).fetchall()}
    columns = ", ".join(quote_identifier(c) for c in key)
    theirs = {tuple(row) for row in pg.exec_driver_sql(f"select {columns} from {quote_identifier(table)}").fetchall()}
    return {row[:-2] for row in ours ^ theirs}


def _replace_parts(con, pg, name: str, columns: dict, key: tuple[str, ...], parts: set[tuple] | None) -> int:
    """Delete then copy the rows of ``name`` whose ``key`` is in ``parts`` (None: every row)."""
    import pandas as pd
    import sqlalchemy as sa

    if parts is None:
        pg.exec_driver_sql(f"delete from {quote_identifier(name)}")
        return _copy_rows(con, pg, name, [c for c, _ in columns[name]], f"select * from {name}", {})
    if not parts:
        return 0
    where = " and ".join(f"{quote_identifier(k)} = :{k}" for k in key)
    pg.execute(sa.text(f"delete from {quote_identifier(name)} where {where}"),
               [dict(zip(key, part)) for part in parts])
    frame = pd.DataFrame(sorted(parts), columns=list(key), dtype=object)
    con.register("publish_parts", frame)
    try:
        return _copy_rows(
            con, pg, name, [c for c, _ in columns[name]],
            f"select {name}.* from {name} semi join publish_parts using ({', '.join(key)})", {},
        )
    finally:
        con.unregister("publish_parts")
