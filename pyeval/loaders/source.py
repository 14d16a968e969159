"""Turning a file or a DataFrame into rows DuckDB can check: no Python loop per line.

Every file takes one of two read paths (docs/loading.md, "Two read paths"), and both give the
same fields for every line the general path accepts:

* Fast path (:func:`stage_file`): DuckDB's own CSV reader reads a TREC run or qrels file whose
  fields are separated by single TABs, or single spaces, into a temporary table of the loader's
  connection, one row per line in file order (its ``rowid + 1`` is the line number). A file the
  reader refuses (a line with another number of fields, text that is not UTF-8, ...), or whose
  bytes it would read differently from the general path (a blank line it skips, a lone CR,
  other whitespace or 0x1F inside a field), is not staged; the loader then takes the general path.
* General path (:func:`read_lines`): pyarrow's multi-threaded CSV reader reads each physical line
  whole (blank lines kept so that row i is line i); a UTF-8 byte-order mark and the CR of CRLF
  line ends are dropped. Field splitting, type checks and duplicate detection then run in Arrow
  compute and SQL (staging.py, sql/loaders/), which find and name a bad line.

gzip is told by its magic bytes on both paths and decompressed on the fly. Neither pandas nor
pyarrow is imported until the general path or a DataFrame needs it.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import sys
import threading
import uuid
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import duckdb

from .. import sqlfiles
from ..errors import InputFormatError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

#: A character that never appears in text files of these formats; it is the "delimiter" handed
#: to the CSV reader so that each line arrives whole.
_NO_DELIMITER = "\x1f"


@dataclass(frozen=True)
class Lines:
    """The lines of one input: ``table`` has ``line_number`` (1-based) and ``line``."""

    label: str  # what error messages call the input: a path, or "<DataFrame>"
    source_file: str  # stored provenance: the absolute path, or "<DataFrame>"
    sha256: str  # of the decompressed bytes (files) or of the canonical CSV (frames)
    table: pa.Table
    typed: ClassVar[bool] = False  # raw lines (general path), not a StagedFile


@dataclass(frozen=True)
class StagedFile:
    """A file the fast path read into the temporary table ``table``: one row per line, in file
    order, so that ``rowid + 1`` is the line number (:func:`stage_file`)."""

    label: str  # the path as given, for error messages
    source_file: str  # stored provenance: the absolute path
    sha256: str  # of the decompressed bytes, as for Lines
    table: str  # the temporary table's generated name (letters, digits and '_')
    rows: int
    typed: ClassVar[bool] = True


_GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == _GZIP_MAGIC


def _open(path: Path):
    """Open for reading bytes, decompressing gzip (told by its magic bytes, not the name)."""
    return gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")


def content_sha256(path: Path) -> str:
    """sha256 of a file's content (after gzip decompression, so x and x.gz hash alike)."""
    with _open(path) as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _first_bad_utf8_line(path: Path) -> int:
    # Error path only: the reader refused the file, find the line to name in the message.
    with _open(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                return number
    return 1


def _read_csv(path: Path, columns: dict[str, pa.DataType], delimiter: str) -> pa.Table:
    """pyarrow's multi-threaded reader with no quoting, no empty-line skipping (row i is line
    i) and no nulls; gzip decompressed on the fly."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    stream = pa.OSFile(str(path))  # an open stream: pyarrow must not guess compression by name
    return pacsv.read_csv(
        pa.CompressedInputStream(stream, "gzip") if is_gzip(path) else stream,
        read_options=pacsv.ReadOptions(column_names=list(columns), block_size=16 << 20),
        parse_options=pacsv.ParseOptions(
            delimiter=delimiter,
            quote_char=False,
            escape_char=False,
            ignore_empty_lines=False,
            newlines_in_values=False,
        ),
        convert_options=pacsv.ConvertOptions(
            column_types=columns,
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            null_values=[],
        ),
    )


def read_lines(path: str | os.PathLike[str]) -> Lines:
    """Read a text file (optionally ``.gz``) into :class:`Lines`.

    Raises
    ------
    InputFormatError
        The file is missing, empty, not UTF-8, or holds a 0x1F control character.
    """
    import numpy as np
    import pyarrow as pa

    path = Path(path)
    label = str(path)
    if not path.is_file():
        raise InputFormatError(label, None, "no such file")
    try:
        with _open(path) as handle:
            first = handle.read(4)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputFormatError(label, None, f"cannot read the file: {exc}") from exc
    if first in (b"", b"\xef\xbb\xbf"):
        raise InputFormatError(label, None, "the file is empty")
    try:
        table = _read_csv(path, {"line": pa.string()}, _NO_DELIMITER)
    except (OSError, EOFError, zlib.error) as exc:  # a damaged gzip stream
        raise InputFormatError(label, None, f"cannot read the file: {exc}") from exc
    except pa.ArrowInvalid as exc:
        text = str(exc)
        if "UTF8" in text or "utf8" in text.lower():
            line = _first_bad_utf8_line(path)
            raise InputFormatError(label, line, "not valid UTF-8 text") from exc
        if "columns" in text:
            raise InputFormatError(
                label, None, "holds a 0x1F control character, which no qrels or run format allows"
            ) from exc
        raise InputFormatError(label, None, f"cannot read the file: {text}") from exc
    numbers = pa.array(np.arange(1, table.num_rows + 1, dtype=np.int64))
    table = pa.table({"line_number": numbers, "line": table.column("line")})
    return Lines(label, str(path.resolve()), content_sha256(path), table)


def frame_sha256(frame: pd.DataFrame) -> str:
    """sha256 of a frame's canonical CSV text: the provenance of an in-memory input."""
    text = frame.to_csv(index=False, lineterminator="\n").encode("utf-8")
    return hashlib.sha256(text).hexdigest()


def pick_column(frame: pd.DataFrame, names: tuple[str, ...], what: str, required: bool = True):
    """The first of ``names`` that ``frame`` has (adapters for ir_measures, PyTerrier, ranx).

    A missing value (NaN, None, NA) is an error naming its row, as a short line would be.
    """
    import numpy as np

    for name in names:
        if name in frame.columns:
            column = frame[name]
            missing = column.isna().to_numpy()
            if missing.any():
                row = int(np.argmax(missing)) + 1
                raise InputFormatError("<DataFrame>", row, f"column {name!r} has no value")
            return column
    if required:
        raise InputFormatError(
            "<DataFrame>", None, f"no {what} column (expected one of {', '.join(names)})"
        )
    return None


def frame_lines(frame: pd.DataFrame, columns: list[pd.Series | str]) -> Lines:
    """Render the chosen columns of ``frame`` as whitespace-separated lines.

    The frame then goes through exactly the checks a file does, and errors name
    ``<DataFrame>:ROW`` (1-based). A value holding whitespace is refused, as it would be in
    a file.
    """
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    if len(frame) == 0:
        raise InputFormatError("<DataFrame>", None, "the DataFrame is empty")
    parts = []
    for column in columns:
        if isinstance(column, str):
            parts.append(pd.Series(column, index=frame.index, dtype="string"))
        else:
            text = column.astype("string")
            has_space = text.str.contains(r"\s", regex=True).fillna(False).to_numpy()
            if has_space.any():
                row = int(np.argmax(has_space)) + 1
                raise InputFormatError(
                    "<DataFrame>", row, f"column {column.name!r} holds whitespace: {text.iloc[row - 1]!r}"
                )
            parts.append(text)
    line = parts[0]
    for part in parts[1:]:
        line = line + " " + part
    table = pa.table(
        {
            "line_number": pa.array(np.arange(1, len(frame) + 1, dtype=np.int64)),
            "line": pa.array(line.to_numpy(dtype=object), type=pa.string()),
        }
    )
    return Lines("<DataFrame>", "<DataFrame>", frame_sha256(frame), table)


def is_frame(source: object) -> bool:
    """Whether ``source`` is a pandas DataFrame, without importing pandas (a frame cannot exist
    unless pandas was imported)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(source, pandas.DataFrame)


#: Characters the general path splits on or refuses that DuckDB's reader, told to split on one
#: separator, would keep inside a field: vertical tab, form feed, 0x1F (docs/loading.md, "Rules
#: shared by every file"), NUL, and the other separator (but spaces in a TAB-separated file whose
#: first line has some: fast_file_fields.sql handles them). A file holding one takes the general
#: path. (A CR is a line end to both readers; a lone one is checked apart.)
_STRAY_BYTES = (b"\x0b", b"\x0c", b"\x1f", b"\x00")

#: Characters that make DuckDB's read_csv read a path as a glob pattern.
_GLOB_CHARACTERS = frozenset("*?[{")


@dataclass(frozen=True)
class _ByteFacts:
    """What the fast path learns from a file's bytes (decompressed) while DuckDB parses it."""

    sha256: str
    lines: int  # physical lines as the general path counts them (when ``plain``)
    plain: bool  # no stray byte (_STRAY_BYTES) and no lone CR: every CR ends a CRLF


def _scan_bytes(path: Path, stray: tuple[bytes, ...], stop: threading.Event) -> _ByteFacts | None:
    """sha256, line count and stray bytes of a file's content in one pass (hashlib releases the
    GIL, so this overlaps DuckDB's parse). Lines end with LF (or CRLF; a lone CR, a line end to
    the general path, makes the file not plain); a last line without one counts too. None when
    ``stop`` is set (the parse failed and the result is not wanted)."""
    digest = hashlib.sha256()
    newlines = carriage_returns = crlf = 0
    plain = True
    last = b""
    with _open(path) as handle:
        while chunk := handle.read(1 << 20):
            if stop.is_set():
                return None
            digest.update(chunk)
            newlines += chunk.count(b"\n")
            if plain:
                plain = not any(byte in chunk for byte in stray)
                if last == b"\r" and chunk[:1] == b"\n":
                    crlf += 1  # a CRLF split between two chunks
                if b"\r" in chunk:
                    carriage_returns += chunk.count(b"\r")
                    crlf += chunk.count(b"\r\n")
            last = chunk[-1:]
    lines = newlines + (last not in (b"", b"\n"))
    return _ByteFacts(digest.hexdigest(), lines, plain and carriage_returns == crlf)


def stage_file(
    con: duckdb.DuckDBPyConnection,
    path: str | os.PathLike[str],
    fields: tuple[str, ...],
    query: str,
) -> StagedFile | None:
    """The fast path: read ``path`` with DuckDB's CSV reader (sql/loaders/fast_file_fields.sql)
    into a new temporary table of ``con``, one row per line in file order.

    The file's fields must be separated by single TABs, or by single spaces when its first line
    has no TAB, and each line must have exactly ``len(fields)`` of them; they are read as text
    (an empty one as null). ``query``, a file of sql/loaders/ reading ``file_fields`` (the lines
    as read), types them on the way in.

    Returns None, leaving nothing staged, when the file does not fit: DuckDB refuses it, it holds
    a stray byte (_STRAY_BYTES) or a lone CR, or DuckDB read fewer rows than the file has lines
    (it skips blank lines, whose line numbers the table would lose). The caller then reads it
    with :func:`read_lines`, which reports what is wrong.
    """
    path = Path(path)
    if not path.is_file():
        return None
    absolute = str(path.resolve())
    if _GLOB_CHARACTERS & set(absolute):
        return None
    try:
        with _open(path) as handle:
            first = handle.readline(65536)
    except (OSError, EOFError, zlib.error):
        return None  # the general path reports it
    if not first.strip():
        return None
    if not con.execute("select current_setting('preserve_insertion_order')").fetchone()[0]:
        return None  # rowid would not follow the file's order
    delimiter = "\t" if b"\t" in first else " "
    spaced = delimiter == "\t" and b" " in first
    stray = _STRAY_BYTES if spaced else (*_STRAY_BYTES, b" " if delimiter == "\t" else b"\t")
    table = f"pyeval_staged_{uuid.uuid4().hex}"
    statement = (
        f"create temp table {table} as\n"
        f"with file_fields as (\n{sqlfiles.read('loaders/fast_file_fields.sql')}\n)\n"
        f"select * from (\n{sqlfiles.read(f'loaders/{query}.sql')}\n)"
    )
    parameters = {
        "path": absolute,
        "delimiter": delimiter,
        "columns": {name: "VARCHAR" for name in fields},
        "compression": "gzip" if is_gzip(path) else "none",
        "spaced": spaced,
    }
    con.execute(sqlfiles.read("loaders/macros.sql"))  # the typing rules of ``query``
    stop = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as pool:
        scan = pool.submit(_scan_bytes, path, stray, stop)
        try:
            rows = con.execute(statement, parameters).fetchone()[0]
        except duckdb.Error:
            rows = None  # refused by the reader: the general path reads it again and says why
        except BaseException:
            stop.set()
            raise
        if rows is None:
            stop.set()
            return None
        try:
            facts = scan.result()
        except (OSError, EOFError, zlib.error):
            facts = None
    if facts is None or not facts.plain or facts.lines != rows:
        con.execute(f"drop table {table}")
        return None
    return StagedFile(str(path), absolute, facts.sha256, table, rows)
