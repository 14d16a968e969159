"""Turning a file or a DataFrame into rows DuckDB can check: no Python loop per line.

A file is read by pyarrow's multi-threaded CSV reader as one string column (one row per
physical line, blank lines kept so that row i is line i), gzip is decompressed on the fly,
a UTF-8 byte-order mark and CR of CRLF line ends are dropped. Field splitting, type checks and
duplicate detection then run in Arrow compute and SQL (staging.py, sql/loaders/).

Fast path (:func:`read_typed`): a file whose every line has the same number of fields, each
separated by one TAB or one space (as nearly every run and qrels file is), is read straight
into typed columns by the same reader; anything it cannot take (comments, blank lines, runs of
spaces, extra fields, a value of the wrong type) sends the file down the general path above,
which finds and names the bad line. Both paths store the same values: Arrow's and DuckDB's
decimal-to-double conversions are both correctly rounded.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..errors import InputFormatError

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
    typed: bool = False  # True: table holds typed columns from read_typed, not raw lines


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


def read_typed(
    path: str | os.PathLike[str], columns: dict[str, pa.DataType]
) -> Lines | None:
    """The fast path: ``path`` read into typed ``columns`` (plus ``line_number``), or None
    when the file does not fit (then :func:`read_lines` and the SQL checks take over).

    The file's fields must be separated by single TABs, or by single spaces when its first
    line has no TAB; every line must have exactly ``len(columns)`` fields of the given types,
    none empty, and no line may be a '#' comment.
    """
    path = Path(path)
    if not path.is_file():
        return None
    try:
        with _open(path) as handle:
            first = handle.readline(65536)
    except (OSError, EOFError, zlib.error):
        return None  # the general path reports it
    if not first.strip():
        return None
    delimiter = "\t" if b"\t" in first else " "
    with ThreadPoolExecutor(max_workers=1) as pool:
        digest = pool.submit(content_sha256, path)  # hashing overlaps the parse
        try:
            table = _read_csv(path, columns, delimiter)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError, EOFError, zlib.error):
            digest.cancel()
            return None  # the general path reads it again and reports what is wrong
        sha256 = digest.result()
    first_column = table.column(0)
    if pc.any(pc.starts_with(first_column, "#")).as_py():
        return None  # comment lines: the general path skips them
    inner = " " if delimiter == "\t" else "\t"
    for name, kind in columns.items():
        # fields are whitespace-separated: a TAB file whose field holds a space (the junk after
        # the run tag in trec_eval's results.trunc) takes the general path, and vice versa; so
        # do empty fields (two separators in a row) and 0x1F, which the general path refuses
        if kind == pa.string():
            column = table.column(name)
            if (
                table.num_rows
                and pc.min(pc.binary_length(column)).as_py() == 0
                or pc.any(pc.match_substring(column, inner)).as_py()
                or pc.any(pc.match_substring(column, _NO_DELIMITER)).as_py()
            ):
                return None
    numbers = pa.array(np.arange(1, table.num_rows + 1, dtype=np.int64))
    table = table.add_column(0, "line_number", numbers)
    return Lines(str(path), str(path.resolve()), sha256, table, typed=True)
