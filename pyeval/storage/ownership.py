"""Proof that a file or folder is pyeval's before pyeval changes, replaces or deletes it.

Warehouses. pyeval writes a marker when it creates a warehouse: the comment
:data:`WAREHOUSE_MARKER` on its ``schema_migrations`` table (the comment travels with
``copy from database``, so snapshots carry it too). A warehouse made by an older pyeval, which
wrote no marker, is recognised by its bookkeeping: a ``schema_migrations`` row for migration
0001 holding the sha256 of pyeval's own ``migrations/0001_initial.sql``, a value no other tool
writes. Its first read-write open adds the marker. A DuckDB file with no tables, views,
sequences or macros may become a warehouse; any other file is foreign and is refused, and a
file that is not a DuckDB database is refused before DuckDB opens it (DuckDB would try to
install a reader extension for a SQLite file).

Exports. ``manifest.json`` carries a seal, the sha256 of :data:`EXPORT_SEAL_PREFIX` and the
manifest's canonical JSON (docs/reliability.md); an export made before seals existed is
recognised when every file it lists has its recorded sha256. Either way a folder is replaced
only when it holds nothing but the manifest and the files it lists, and no path of a manifest
may leave its folder.
"""
from __future__ import annotations

import enum
import hashlib
import json
import os
import stat
from pathlib import Path, PurePosixPath
from typing import Any, Callable

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import database_path
from pyeval.errors import NotAWarehouseError, NotOwnedError, with_command_line
from pyeval.storage.public import INTERNAL_SCHEMA

#: The comment pyeval puts on a warehouse's ``schema_migrations`` table when it creates one.
WAREHOUSE_MARKER = "pyeval warehouse"
#: The marker of a warehouse ``pyeval demo`` built (which ``pyeval demo`` may rebuild).
DEMO_MARKER = "pyeval warehouse (demo)"
#: The marker of a copy ``pyeval snapshot`` wrote (which a later snapshot may replace; a working
#: warehouse never is). A snapshot opened read-write becomes a working warehouse (marker
#: :data:`WAREHOUSE_MARKER`).
SNAPSHOT_MARKER = "pyeval warehouse (snapshot)"
#: The marker of a snapshot written for a BI client (``pyeval snapshot --for``), on
#: its ``schema_migrations``: a copy in the storage format of a client's DuckDB, with no table
#: of anyone else's in its default schema, so it is no working warehouse (pyeval opens it for
#: ``url`` and replaces it with a later snapshot).
CLIENT_SNAPSHOT_MARKER = "pyeval snapshot for BI clients"

#: Bytes 8-11 of every DuckDB database file (its header's magic).
_DUCKDB_MAGIC = b"DUCK"


class Ownership(enum.Enum):
    """What a DuckDB database holds, as far as pyeval is concerned."""

    EMPTY = "empty"  # no tables, views, sequences or macros: may become a warehouse
    PYEVAL = "pyeval"  # a warehouse pyeval made (marker or pyeval's migration 0001 checksum)
    FOREIGN = "foreign"  # anything else: never written to


# ---------------------------------------------------------------------------------- files


def special_kind(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is when it exists and is not a regular file (after symbolic links): ``'a
    directory'``, ``'a character device'``, ``'a block device'``, ``'a FIFO'``, ``'a socket'``;
    None for a regular file or a missing path. Reads the file's status only: it opens nothing, so
    a FIFO cannot block and a device is never read."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise NotAWarehouseError(f"{path}: cannot read it: {exc.strerror}") from exc
    if stat.S_ISREG(mode):
        return None
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def file_kind(path: str | os.PathLike[str]) -> str:
    """``'missing'``, ``'empty'`` (0 bytes), ``'duckdb'``, ``'other'`` (a regular file of another
    format) or ``'special'`` (a directory, device, FIFO or socket: :func:`special_kind`), from the
    file's status and header alone."""
    path = Path(path)
    if special_kind(path) is not None:
        return "special"
    if not path.exists():
        return "missing"
    try:
        with open(path, "rb") as handle:
            head = handle.read(12)
    except OSError as exc:
        raise NotAWarehouseError(f"{path}: cannot read it: {exc.strerror}") from exc
    if not head:
        return "empty"
    return "duckdb" if head[8:12] == _DUCKDB_MAGIC else "other"


def require_duckdb_file(path: str | os.PathLike[str]) -> None:
    """Refuse a path that exists and is not a DuckDB database file (before DuckDB opens it): a
    regular file of another format, or a directory, device, FIFO or socket."""
    kind = file_kind(path)
    if kind in ("other", "special"):
        what = special_kind(path) or "not a DuckDB database file"
        raise with_command_line(NotAWarehouseError(f"{path}: {what}; pyeval leaves it alone (choose another path)"),
                                f"{path}: {what}; pyeval leaves it alone (choose another --db)")


# ---------------------------------------------------------------------------------- warehouses


def _first_migration_checksum(migrations: list[tuple[int, str, Path]] | None) -> tuple[str, str]:
    files = migrations if migrations is not None else sqlfiles.migration_files()
    version, name, path = min(files, key=lambda item: item[0])
    return name, sqlfiles.migration_checksum(path)


def _user_objects(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Names of the tables, views, sequences and macros of the open database (macros only of a
    file: listing functions costs 10 ms, and an in-memory database starts empty)."""
    rows = con.execute(
        "select table_name from duckdb_tables() where database_name = current_database() and not temporary "
        "union all select view_name from duckdb_views() where database_name = current_database() "
        "and not internal and not temporary "
        "union all select sequence_name from duckdb_sequences() where database_name = current_database() "
        "and not temporary"
    ).fetchall()
    if not rows and con.execute(
        "select coalesce(path, '') <> '' from duckdb_databases() where database_name = current_database()"
    ).fetchall() == [(True,)]:
        rows = con.execute(
            "select function_name from duckdb_functions() where database_name = current_database() "
            "and not internal and function_type in ('macro', 'table_macro')"
        ).fetchall()
    return sorted(row[0] for row in rows)


def marker(con: duckdb.DuckDBPyConnection) -> str | None:
    """The comment on the open database's ``schema_migrations`` table (None: no such table):
    in schema ``pyeval_internal``, or ``main`` in a warehouse migration 0018 has not moved yet."""
    found = _migrations_table(con)
    return found[1] if found else None


def migrations_schema(con: duckdb.DuckDBPyConnection) -> str | None:
    """The schema of the open database's ``schema_migrations`` table (None: no such table)."""
    found = _migrations_table(con)
    return found[0] if found else None


def _migrations_table(con: duckdb.DuckDBPyConnection) -> tuple[str, str] | None:
    """``(schema, comment)`` of the open database's ``schema_migrations`` table: in
    ``pyeval_internal``, or ``main`` in a warehouse migration 0018 has not moved yet (``main``
    first should both exist)."""
    rows = con.execute(
        "select schema_name, coalesce(comment, '') from duckdb_tables() where database_name = current_database() "
        "and schema_name in ('main', $s) and table_name = 'schema_migrations' and not temporary "
        "order by schema_name = 'main' desc limit 1", {"s": INTERNAL_SCHEMA}
    ).fetchall()
    return rows[0] if rows else None


def ownership(
    con: duckdb.DuckDBPyConnection, migrations: list[tuple[int, str, Path]] | None = None
) -> Ownership:
    """Whether the open database is empty, a pyeval warehouse, or someone else's. Reads only."""
    comment = marker(con)
    if comment is not None and comment.startswith(WAREHOUSE_MARKER):  # the marked table: not empty
        return Ownership.PYEVAL
    if not _user_objects(con):
        return Ownership.EMPTY
    if comment is None or comment == CLIENT_SNAPSHOT_MARKER:  # a copy for clients is no warehouse
        return Ownership.FOREIGN
    name, checksum = _first_migration_checksum(migrations)
    schema = migrations_schema(con)  # 'main' or 'pyeval_internal', from the catalogue
    try:
        rows = con.execute(
            f"select count(*) from {schema}.schema_migrations where version = 1 and name = $n and checksum = $c",
            {"n": name, "c": checksum},
        ).fetchall()
    except duckdb.Error:  # a table of that name with other columns
        return Ownership.FOREIGN
    return Ownership.PYEVAL if rows[0][0] == 1 else Ownership.FOREIGN


def require_warehouse(
    con: duckdb.DuckDBPyConnection,
    path: str,
    *,
    migrations: list[tuple[int, str, Path]] | None = None,
    allow_empty: bool = False,
) -> Ownership:
    """Raise :class:`NotOwnedError` unless the open database is a pyeval warehouse (or, with
    ``allow_empty``, an empty database that may become one)."""
    found = ownership(con, migrations)
    if found is Ownership.PYEVAL or (found is Ownership.EMPTY and allow_empty):
        return found
    if found is Ownership.EMPTY:
        raise NotAWarehouseError(f"{path}: an empty DuckDB database, not a pyeval warehouse (load something first)")
    if marker(con) == CLIENT_SNAPSHOT_MARKER:
        raise NotAWarehouseError(
            f"{path}: a snapshot for BI clients (pyeval snapshot --for), not a warehouse; read it with a BI "
            "client or `pyeval url`, or take a plain `pyeval snapshot` for pyeval to open")
    objects = _user_objects(con)
    shown = ", ".join(objects[:3]) + (", ..." if len(objects) > 3 else "")
    raise NotAWarehouseError(
        f"{path}: not a pyeval warehouse (it holds {shown}, which pyeval did not make); "
        "pyeval leaves it alone (choose another --db)"
    )


def mark(con: duckdb.DuckDBPyConnection, text: str = WAREHOUSE_MARKER, *,
         table: str = "schema_migrations") -> None:
    """Write the marker (``text``: :data:`WAREHOUSE_MARKER`, :data:`DEMO_MARKER` or
    :data:`SNAPSHOT_MARKER`) on ``table`` (pyeval's own name of that table, qualified by an
    attached database of pyeval's naming for a snapshot)."""
    # text is one of this module's constants: no user input reaches this SQL text
    if text not in (WAREHOUSE_MARKER, DEMO_MARKER, SNAPSHOT_MARKER, CLIENT_SNAPSHOT_MARKER):
        raise ValueError(f"not a pyeval marker: {text!r}")
    con.execute(f"comment on table {table} is '{text}'")


def probe_warehouse_file(path: str | os.PathLike[str]) -> tuple[Ownership, str | None]:
    """The ownership and marker of a DuckDB file, opened read-only (never written).

    Raises :class:`NotOwnedError` for a file that is not a DuckDB database or cannot be read.
    """
    path = Path(path)
    kind = file_kind(path)
    if kind == "missing":
        raise NotAWarehouseError(f"{path}: no such file")
    if kind != "duckdb":
        what = special_kind(path) or "not a DuckDB database file"
        raise NotAWarehouseError(f"{path}: {what}; pyeval leaves it alone")
    try:
        probe = duckdb.connect(str(path), read_only=True, config=_NO_EXTENSIONS)
    except duckdb.Error as exc:
        raise NotAWarehouseError(f"{path}: cannot open it: {str(exc).splitlines()[0]}") from exc
    try:
        return ownership(probe), marker(probe)
    finally:
        probe.close()


#: DuckDB settings that stop it from downloading or loading extensions on its own.
_NO_EXTENSIONS: dict[str, Any] = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}

#: DuckDB settings of a read-only query (``pyeval sql``, the read-only URL, ``pyeval attach``):
#: no file but the database itself, no extension installed or loaded, no temporary files,
#: settings locked.
#: ``temp_directory`` empty: nothing is spilled to ``<warehouse>.tmp/`` (or ``./.tmp/``).
LOCKED_DOWN: dict[str, Any] = {
    "enable_external_access": False,
    **_NO_EXTENSIONS,
    "temp_directory": "",
    "lock_configuration": True,
}


# ---------------------------------------------------------------------------------- exports

#: Prefix of the bytes an export's seal hashes (so the seal is not a plain hash of the JSON).
EXPORT_SEAL_PREFIX = b"pyeval-parquet-export seal v1\n"


def _canonical(manifest: dict) -> bytes:
    body = {key: value for key, value in manifest.items() if key != "seal"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def seal(manifest: dict) -> str:
    """The seal of a manifest: ``sha256:`` and the hex sha256 of the prefix and its canonical JSON."""
    return "sha256:" + hashlib.sha256(EXPORT_SEAL_PREFIX + _canonical(manifest)).hexdigest()


def inside(root: Path, relative: Any, what: str) -> Path:
    """``root / relative`` for a manifest path that stays inside ``root`` (relative, no ``..``,
    no symbolic link on the way); :class:`NotOwnedError` otherwise."""
    if not isinstance(relative, str) or not relative or "\\" in relative or "\x00" in relative:
        raise NotOwnedError(f"{root}: {what}: not a relative path: {relative!r}")
    parts = PurePosixPath(relative).parts
    if PurePosixPath(relative).is_absolute() or any(part in ("..", ".") for part in parts):
        raise NotOwnedError(f"{root}: {what}: path {relative!r} leaves the export folder")
    path = root.joinpath(*parts)
    current = root
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise NotOwnedError(f"{root}: {what}: {relative!r} goes through a symbolic link")
    return path


def listed_files(root: Path, manifest: dict) -> dict[str, dict]:
    """``relative path -> entry`` of every file a manifest lists, each checked by :func:`inside`."""
    tables = manifest.get("tables")
    if not isinstance(tables, dict):
        raise NotOwnedError(f"{root}: the manifest lists no tables")
    files = {}
    for table, info in tables.items():
        entries = info.get("files") if isinstance(info, dict) else None
        if not isinstance(entries, list):
            raise NotOwnedError(f"{root}: the manifest's table {table!r} lists no files")
        for entry in entries:
            if not isinstance(entry, dict):
                raise NotOwnedError(f"{root}: the manifest's table {table!r} has a malformed file entry")
            inside(root, entry.get("path"), f"table {table}")
            files[entry["path"]] = entry
    return files


def require_export(root: Path, manifest_name: str, export_format: str, file_sha256) -> None:
    """Raise :class:`NotOwnedError` unless folder ``root`` is an export pyeval wrote, holding
    nothing else: a sealed manifest (or, from before seals, one whose files all have their
    recorded sha256) and only the files it lists."""
    manifest_path = root / manifest_name
    if manifest_path.is_symlink() or not manifest_path.is_file():
        raise NotOwnedError(f"{root}: is not empty and holds no pyeval export; choose another directory")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise NotOwnedError(f"{manifest_path}: not a pyeval export manifest ({exc}); choose another directory") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != export_format:
        raise NotOwnedError(f"{manifest_path}: not a pyeval export manifest; choose another directory")
    files = listed_files(root, manifest)
    sealed = manifest.get("seal")
    if sealed is not None and sealed != seal(manifest):
        raise NotOwnedError(f"{manifest_path}: its seal does not match (edited by hand?); pyeval leaves it alone")
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        for name in [*filenames, *(d for d in dirnames if (here / d).is_symlink())]:
            relative = (here / name).relative_to(root).as_posix()
            if relative == manifest_name:
                continue
            if relative not in files or (here / name).is_symlink():
                raise NotOwnedError(
                    f"{root}: holds {relative}, which the export did not write; pyeval leaves the folder alone"
                )
    if sealed is None:  # an export from before seals: every file must be the one it wrote
        for relative, entry in files.items():
            path = root / relative
            if not path.is_file() or file_sha256(path) != entry.get("sha256"):
                raise NotOwnedError(f"{root}: {relative} is not the file the export wrote; pyeval leaves it alone")


# ---------------------------------------------------------------------------------- figures and curves

#: The mark pyeval writes into every figure it saves (PNG ``Software`` text chunk, PDF and SVG
#: ``Creator``): a figure file holding it may be replaced by a later ``--plot``.
FIGURE_MARKER = "pyeval figure"
#: Figure formats ``--plot`` writes, by suffix, with the bytes each file starts with.
FIGURE_FORMATS: dict[str, tuple[str, tuple[bytes, ...]]] = {
    ".png": ("png", (b"\x89PNG\r\n\x1a\n",)),
    ".pdf": ("pdf", (b"%PDF-",)),
    ".svg": ("svg", (b"<?xml", b"<svg")),
}
#: Figure metadata carrying :data:`FIGURE_MARKER`, by format (matplotlib's ``savefig(metadata=)``).
FIGURE_METADATA = {"png": {"Software": FIGURE_MARKER}, "pdf": {"Creator": FIGURE_MARKER},
                   "svg": {"Creator": FIGURE_MARKER}}
#: A figure larger than this is not read to look for the marker (pyeval's are a few hundred KiB).
_LARGEST_FIGURE = 64 * 2**20


def figure_format(path: str | os.PathLike[str]) -> str:
    """The format a figure path's suffix names (``png``, ``pdf``, ``svg``); PyevalError otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in FIGURE_FORMATS:
        from pyeval.errors import PyevalError

        raise PyevalError(f"{path}: unknown figure suffix {suffix or '(none)'!r}; use .png, .pdf or .svg")
    return FIGURE_FORMATS[suffix][0]


def is_pyeval_figure(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a regular file in the format its suffix names that carries
    :data:`FIGURE_MARKER` (a figure pyeval saved)."""
    suffix = Path(path).suffix.lower()
    if suffix not in FIGURE_FORMATS or special_kind(path) is not None or Path(path).is_symlink():
        return False
    try:
        if os.path.getsize(path) > _LARGEST_FIGURE:
            return False
        data = Path(path).read_bytes()
    except OSError:
        return False
    _, magics = FIGURE_FORMATS[suffix]
    marker_bytes = FIGURE_MARKER.encode("ascii")
    return data.lstrip().startswith(magics) and marker_bytes in data


def starts_with_line(path: str | os.PathLike[str], line: str) -> bool:
    """Whether the regular file ``path`` begins with the text line ``line`` (a CSV pyeval wrote:
    its header)."""
    if special_kind(path) is not None or Path(path).is_symlink():
        return False
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(line) + 2)
    except OSError:
        return False
    return head.rstrip(b"\r\n") == line.encode("utf-8") or head.startswith((line + "\n").encode("utf-8"))


def require_replaceable_output(path: str | os.PathLike[str], what: str, is_ours=None, *, replace: bool = False,
                               warehouse: str | os.PathLike[str] | None = None,
                               replace_hint: str | None = None) -> Path:
    """The one check of every output file pyeval writes (``--out``, ``--plot``, ``--curves``,
    ``pool export FILE``, ``snapshot OUT``), made before any work: ``path`` is missing (its folder
    exists), or a regular file that ``is_ours(path)`` proves pyeval wrote as output of this kind,
    or (``replace``: the user asked to replace it) any regular file that is not a DuckDB database.

    Never written whatever the options: the warehouse ``warehouse`` (the same file, also through
    a hard link), any other DuckDB database that ``is_ours`` does not prove (a warehouse by its
    header), the write-ahead log ``X.wal`` of a DuckDB database ``X``, a symbolic link, a
    directory, device, FIFO or socket (told by the file's status alone: a FIFO is never opened). ``replace_hint`` (e.g. ``'--replace'``) names how to replace
    a file pyeval cannot prove its own; the error says it. Raises :class:`NotOwnedError`."""
    path = Path(path)
    if not path.parent.is_dir():
        raise NotOwnedError(f"{path.parent}: no such directory ({what})")
    if path.is_symlink():
        raise NotOwnedError(f"{path}: a symbolic link; pyeval leaves it alone and never writes through one "
                            f"(choose another path for the {what})")
    kind = special_kind(path)
    if kind is not None:
        raise NotOwnedError(f"{path}: {kind}; pyeval leaves it alone (choose another path for the {what})")
    if not path.exists():
        return path
    if warehouse is not None and _same_file(path, warehouse):
        raise NotOwnedError(f"{path}: the warehouse itself (--db); pyeval leaves it alone: a {what} cannot "
                            "overwrite the warehouse (choose another path)")
    if path.name.endswith(".wal") and file_kind(path.with_name(path.name[:-4])) == "duckdb":
        raise NotOwnedError(f"{path}: the write-ahead log of the DuckDB database {path.name[:-4]}; pyeval leaves "
                            "it alone (choose another path)")
    if is_ours is not None and is_ours(path):
        return path
    noun = what if what.endswith("file") else f"{what} file"
    if file_kind(path) == "duckdb":
        raise NotOwnedError(f"{path}: a DuckDB database (a working warehouse?) that is not a {noun} pyeval "
                            "wrote; pyeval leaves it alone (choose another path)")
    if replace:
        return path
    how = f", or give {replace_hint} to replace it" if replace_hint else ""
    raise NotOwnedError(f"{path}: exists and is not a {noun} pyeval wrote; pyeval leaves it alone "
                        f"(choose another path{how})")


def _same_file(path: Path, other: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file (same device and inode: a hard link too)."""
    try:
        return os.path.samefile(path, other)
    except OSError:
        return False


def holds_marker(marker_file: str | os.PathLike[str], text: str) -> bool:
    """Whether ``marker_file`` is a small regular file (not a link) holding exactly ``text``: the
    proof pyeval writes before a build folder or a half-written copy that recovery may remove
    (an export's build, a snapshot's copy)."""
    marker_file = Path(marker_file)
    try:
        return (not marker_file.is_symlink() and marker_file.is_file() and marker_file.stat().st_size < 4096
                and marker_file.read_text(encoding="utf-8") == text)
    except (OSError, UnicodeDecodeError):
        return False


def write_output(con: duckdb.DuckDBPyConnection | None, path: str | os.PathLike[str], what: str,
                 text: str | Callable[[Path], None], *, replace: bool = False) -> Path:
    """Write ``text`` to the output file ``path`` of the library's functions (a run file, a pool
    file; ``text`` may instead be a function writing the file it is given, a Parquet file): checked by :func:`require_replaceable_output` (``replace``: an existing regular file
    may be replaced; never the warehouse ``con`` reads), then written beside it and renamed over
    it (:func:`replace_file`), so nothing is ever written through a FIFO or a link, and a failed
    write leaves the old file. The swap is checked too: a path missing at the check is created
    only if still missing (a hard link, which fails on any file put there meanwhile), and an
    existing one is replaced only if it is still the regular file checked."""
    require_replaceable_output(path, what, replace=replace, warehouse=database_path(con) if con is not None else None,
                               replace_hint="--replace (replace=True)")
    checked = _status(path)

    def write(temporary: Path) -> None:
        if callable(text):
            text(temporary)
            return
        with open(temporary, "x", encoding="utf-8", newline="\n") as handle:
            handle.write(text)

    def swap(temporary: Path, target: Path) -> None:
        if checked is None:
            try:
                os.link(temporary, target)
            except FileExistsError:
                raise NotOwnedError(f"{target}: appeared while pyeval wrote its {what}; pyeval leaves it alone "
                                    "(run the command again)") from None
            temporary.unlink()
            return
        now = _status(target)
        if now is None or not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (checked.st_dev, checked.st_ino):
            raise NotOwnedError(f"{target}: changed while pyeval wrote its {what}; pyeval leaves it alone "
                                "(run the command again)")
        os.replace(temporary, target)
    return replace_file(path, write, swap)


def _status(path: str | os.PathLike[str]) -> os.stat_result | None:
    """The status of ``path`` itself (a link's, not its target's); None when it is missing."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def replace_file(path: str | os.PathLike[str], write, swap=os.replace) -> Path:
    """``write(temporary_path)`` next to ``path``, then rename it over ``path`` (``swap(temporary,
    path)``): a failed or killed write leaves ``path`` as it was (and removes its half-written
    copy)."""
    import secrets

    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp{path.suffix}")
    try:
        write(temporary)
        swap(temporary, path)
    except BaseException:
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass
        raise
    return path
