"""Turning a file or a DataFrame into rows DuckDB can check: no Python loop per line.

Every file takes one of two read paths (docs/loading.md, "Two read paths"), and both give the
same fields for every line the general path accepts:

* Fast path (:func:`stage_files`): DuckDB's own CSV reader reads a TREC run or qrels file whose
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
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import first_row
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
    #: whether a line can be a '#' comment: files yes (docs/input-files.md), frames and
    #: iterables no (every row is data, a topic id starting with '#' included)
    comments: bool = True
    #: whether the rank field is the input's own: False for a DataFrame without a rank column,
    #: whose rank field is a placeholder that the load stores as null, so that
    #: sql/loaders/run_insert.sql ranks it by its scores (its ranks and its file order)
    ranks_given: bool = True


@dataclass(frozen=True)
class StagedFile:
    """A file the fast path read into the temporary table ``table``: one row per line, in file
    order, so that ``rowid + 1 - first_row`` is the line number (:func:`stage_files`)."""

    label: str  # the path as given, for error messages
    source_file: str  # stored provenance: the absolute path
    sha256: str  # of the decompressed bytes, as for Lines
    table: str  # the temporary table holding it (STAGED_TABLE)
    rows: int
    file_index: int = 0  # its position among the load's inputs (the table's file_index)
    first_row: int = 0  # the rowid of its first line in ``table``
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


def combined_sha256(digests: Sequence[str]) -> str:
    """The sha256 of several inputs' sha256s (hex, one per line, in the order given): the
    provenance of inputs stored as one, which changes when any of them does."""
    return hashlib.sha256("".join(f"{digest}\n" for digest in digests).encode("ascii")).hexdigest()


def _first_bad_utf8_line(path: Path) -> int:
    # Error path only: the reader refused the file, find the line to name in the message.
    with _open(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                return number
    return 1


#: The general path's read block. pyarrow reads no line that straddles two block boundaries:
#: a file with a longer line is read again with blocks twice its longest line.
_BLOCK_SIZE = 16 << 20


#: The longest line read (bytes): pyarrow's block size, twice the longest line, must fit in 32
#: bits, and no qrels, run, intents or lengths line comes near it.
LONGEST_LINE = 512 * 2**20


def _longest_line(path: Path) -> int:
    """The length in bytes of the longest line (rare path only: a line of more than 16 MiB);
    InputFormatError naming the first line longer than :data:`LONGEST_LINE`, as soon as it is met."""
    longest = length = 0
    number = 1
    with _open(path) as handle:
        while chunk := handle.readline(_BLOCK_SIZE):
            length += len(chunk)
            if length > LONGEST_LINE:
                raise InputFormatError(str(path), number, f"a line longer than {LONGEST_LINE // 2**20} MiB; "
                                       "no qrels, run, intents or lengths file has one (a damaged file?)")
            if chunk.endswith(b"\n"):
                longest, length = max(longest, length), 0
                number += 1
    return max(longest, length)


def _refuse_nul(lines_table, label: str) -> None:
    """A NUL byte is no text: the first line holding one is an error (a file or a frame)."""
    import pyarrow.compute as pc

    has_nul = pc.match_substring(lines_table.column("line"), "\x00")
    if pc.any(has_nul).as_py():
        number = lines_table.column("line_number")[pc.index(has_nul, True).as_py()].as_py()
        raise InputFormatError(label, number, "holds a NUL byte (0x00), which no qrels, run, intents or "
                               "lengths file allows")


def _read_csv(path: Path, columns: dict[str, pa.DataType], delimiter: str, block_size: int = _BLOCK_SIZE
              ) -> pa.Table:
    """pyarrow's multi-threaded reader with no quoting, no empty-line skipping (row i is line
    i) and no nulls; gzip decompressed on the fly."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    stream = pa.OSFile(str(path))  # an open stream: pyarrow must not guess compression by name
    return pacsv.read_csv(
        pa.CompressedInputStream(stream, "gzip") if is_gzip(path) else stream,
        read_options=pacsv.ReadOptions(column_names=list(columns), block_size=block_size),
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


def read_lines(path: str | os.PathLike[str], *, empty_ok: bool = False) -> Lines:
    """Read a text file (optionally ``.gz``) into :class:`Lines`; ``empty_ok``: an empty file
    is no lines (a run that retrieved nothing), not an error.

    Raises
    ------
    InputFormatError
        The file is missing, empty (unless ``empty_ok``), not UTF-8, or holds a 0x1F control
        character or a NUL byte (its line named). Lines of any length are read.
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
        if empty_ok:
            return Lines(label, str(path.resolve()), content_sha256(path), _no_lines())
        raise InputFormatError(label, None, "the file is empty")
    if path.stat().st_size > LONGEST_LINE and not is_gzip(path):
        _longest_line(path)  # a file that may hold an over-long line: named before pyarrow reads it
    try:
        try:
            table = _read_csv(path, {"line": pa.string()}, _NO_DELIMITER)
        except pa.ArrowInvalid as exc:
            if "straddl" not in str(exc):
                raise
            table = _read_csv(path, {"line": pa.string()}, _NO_DELIMITER, 2 * _longest_line(path) + (1 << 20))
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
    _refuse_nul(table, label)
    return Lines(label, str(path.resolve()), content_sha256(path), table)


#: The first bytes (and last) of every Parquet file.
PARQUET_MAGIC = b"PAR1"


def is_parquet_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a file starting with Parquet's magic bytes (told by them, never the name)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == PARQUET_MAGIC
    except OSError:
        return False


def dataset_files(folder: str | os.PathLike[str]) -> list[Path] | None:
    """The Parquet files of a folder that is one Parquet dataset, in name order: every file below
    it (hidden ones and those starting with ``_``, such as Spark's ``_SUCCESS`` and Arrow's
    ``_metadata``, left out) is a Parquet file, and there is at least one; None otherwise (a
    folder of text files stands for its files, each one input: :func:`expand_paths`)."""
    root = Path(folder)
    files = sorted((p for p in root.rglob("*") if p.is_file()
                    and not any(part.startswith((".", "_")) for part in p.relative_to(root).parts)),
                   key=lambda p: p.relative_to(root).parts)
    if files and all(is_parquet_file(p) for p in files):
        return files
    return None


def run_name_of_file(path: Path) -> str:
    """A run's name from its file: the name without ``.gz`` and one more suffix (``.txt``,
    ``.run``, ``.parquet``), and without TREC's ``input.`` prefix: ``input.uogTrA1.gz`` is
    ``uogTrA1``, ``indri-ql.txt.gz`` is ``indri-ql``, ``bm25.parquet`` is ``bm25``."""
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    name = name.removeprefix("input.")
    stem, dot, suffix = name.rpartition(".")
    return stem if dot and stem and suffix.lower() in ("txt", "run", "res", "trec", "parquet", "parq") else name


def expand_paths(sources: Sequence, names: Sequence | None = None) -> tuple[list, list]:
    """The inputs a load names, one per file: a directory stands for the files in it (not
    hidden, not in subdirectories) and a path that does not exist but holds a glob character
    (``*?[``) for the files it matches, each in name order; anything else (a file, a missing
    path, a DataFrame, an Arrow table, a directory that is one Parquet dataset:
    :func:`dataset_files`) for itself. ``names`` (one per source, or None) follow their
    sources; a name given to a directory or a pattern is refused.

    Raises
    ------
    InputFormatError
        A directory with no file, or a pattern that matches none.
    """
    names = list(names) if names is not None else [None] * len(sources)
    paths: list = []
    chosen: list = []
    for source, name in zip(sources, names):
        if not isinstance(source, (str, os.PathLike)):  # a DataFrame, an Arrow table
            found = None
        elif Path(source).is_dir() and dataset_files(source) is not None:
            found = None  # one Parquet dataset
        elif Path(source).is_dir():
            found = sorted(p for p in Path(source).iterdir() if p.is_file() and not p.name.startswith("."))
        elif not Path(source).exists() and _GLOB_CHARACTERS & set(str(source)):
            found = sorted(p for p in Path(source).parent.glob(Path(source).name) if p.is_file())
        else:
            found = None
        if found is None:
            paths.append(source)
            chosen.append(name)
            continue
        if not found:
            raise InputFormatError(str(source), None, "no file to load there" if Path(source).is_dir()
                                   else "no file matches this pattern")
        if name is not None:
            raise InputFormatError(str(source), None, "a run name applies to one file, not to a folder or pattern")
        paths.extend(str(p) for p in found)
        chosen.extend([None] * len(found))
    return paths, chosen


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


def _no_lines() -> pa.Table:
    """The lines of an empty input."""
    import pyarrow as pa

    return pa.table({"line_number": pa.array([], type=pa.int64()), "line": pa.array([], type=pa.string())})


def frame_lines(frame: pd.DataFrame, columns: list[pd.Series | str], *, empty_ok: bool = False) -> Lines:
    """Render the chosen columns of ``frame`` as whitespace-separated lines.

    The frame then goes through exactly the checks a file does, and errors name
    ``<DataFrame>:ROW`` (1-based). A value holding whitespace is refused, as it would be in
    a file. An empty frame is refused unless ``empty_ok`` (a run that retrieved nothing).
    """
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    if len(frame) == 0:
        if empty_ok:
            return Lines("<DataFrame>", "<DataFrame>", frame_sha256(frame), _no_lines(), comments=False)
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
    _refuse_nul(table, "<DataFrame>")
    return Lines("<DataFrame>", "<DataFrame>", frame_sha256(frame), table, comments=False)


def is_ranx(source: object) -> bool:
    """Whether ``source`` is a ranx ``Qrels`` or ``Run`` (without importing ranx)."""
    return type(source).__module__.startswith("ranx.") and hasattr(source, "to_dict")


#: The fields of an in-memory record (ir_datasets' TrecQrel and ScoredDoc, ir_measures' Qrel):
#: the identifiers, the value, and optionally the intent.
_RECORD_FIELDS = ("query_id", "doc_id")


def in_memory_frame(source: object, value: str) -> object:
    """Qrels or a run given in memory in a form the loaders do not read as it is, as a
    DataFrame they read: a ranx ``Qrels`` or ``Run`` (its ``to_dataframe()``: ``q_id, doc_id,
    score``), a mapping ``{query_id: {doc_id: value}}`` (ir_measures', pytrec_eval's), or a list
    or iterator of records with ``query_id``, ``doc_id`` and ``value`` (``relevance`` for qrels,
    ``score`` for a run; ir_datasets' and ir_measures' namedtuples; ``iteration`` kept). Anything
    else is returned as it is (an iterator as a list of its items)."""
    import itertools
    from collections.abc import Iterator

    if is_ranx(source):
        return source.to_dataframe()
    if isinstance(source, Mapping) and all(isinstance(docs, Mapping) for docs in source.values()):
        import pandas as pd

        rows = [(query, doc, level) for query, docs in source.items() for doc, level in docs.items()]
        return pd.DataFrame(rows, columns=["query_id", "doc_id", value])
    if not isinstance(source, (list, tuple, Iterator)):
        return source
    items = iter(source)
    first = next(items, None)
    if first is None or is_frame(first) or not all(hasattr(first, name) for name in (*_RECORD_FIELDS, value)):
        # a list of paths or of frames (a frame's columns are attributes too) is a list of inputs
        return source if not isinstance(source, Iterator) else ([first] if first is not None else []) + list(items)
    import pandas as pd

    records = list(itertools.chain([first], items))
    fields = [name for name in (*_RECORD_FIELDS, value, "iteration") if hasattr(first, name)]
    return pd.DataFrame({name: [getattr(record, name) for record in records] for name in fields})


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

#: The temporary table the fast path stages files into (staged_file_fits.sql reads it), renamed
#: to the loader's own table once checked.
STAGED_TABLE = "staged_files"


@dataclass(frozen=True)
class _ByteFacts:
    """What the fast path learns from a file's bytes (decompressed) while DuckDB parses it."""

    sha256: str
    lines: int  # physical lines as the general path counts them (when ``plain``)
    plain: bool  # no stray byte (_STRAY_BYTES) and no lone CR: every CR ends a CRLF


def _scan_bytes(path: Path, stray: tuple[bytes, ...], stop: threading.Event, digest: bool = True
                ) -> _ByteFacts | None:
    """sha256 (``digest``; else ``""``), line count and stray bytes of a file's content in one
    pass (hashlib releases the GIL, so this overlaps DuckDB's parse). Lines end with LF (or
    CRLF; a lone CR, a line end to the general path, makes the file not plain); a last line
    without one counts too. None when ``stop`` is set (the parse failed and the result is not
    wanted)."""
    hashed = hashlib.sha256() if digest else None
    newlines = carriage_returns = crlf = 0
    plain = True
    last = b""
    with _open(path) as handle:
        while chunk := handle.read(1 << 20):
            if stop.is_set():
                return None
            if hashed is not None:
                hashed.update(chunk)
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
    return _ByteFacts(hashed.hexdigest() if hashed is not None else "", lines, plain and carriage_returns == crlf)


class _Scans:
    """:func:`_scan_bytes` of each file of ``jobs`` (index -> path and stray bytes) on up to
    ``os.cpu_count()`` threads started at once, each taking every n-th file (a thread, not
    concurrent.futures, whose import costs a drop-in's start-up 4 ms)."""

    def __init__(self, jobs: Mapping[int, tuple[Path, tuple[bytes, ...]]], stop: threading.Event, digest: bool):
        self._results: dict[int, tuple[_ByteFacts | None, BaseException | None]] = {}
        items = list(jobs.items())
        workers = max(1, min(os.cpu_count() or 2, len(items)))
        self._threads = [threading.Thread(target=self._work, args=(items[start::workers], stop, digest), daemon=True)
                         for start in range(workers)]
        for thread in self._threads:
            thread.start()

    def _work(self, items: list, stop: threading.Event, digest: bool) -> None:
        for index, (path, stray) in items:
            try:
                self._results[index] = (_scan_bytes(path, stray, stop, digest), None)
            except BaseException as exc:  # raised again by result()
                self._results[index] = (None, exc)

    def join(self) -> None:
        for thread in self._threads:
            thread.join()

    def result(self, index: int) -> _ByteFacts | None:
        """The facts of file ``index`` (waiting for every scan); its scan's exception raised."""
        self.join()
        facts, error = self._results[index]
        if error is not None:
            raise error
        return facts


@dataclass(frozen=True)
class _FileLayout:
    """How the fast path reads one file, told from its first line and magic bytes."""

    delimiter: str  # one TAB, or one space when the first line has no TAB
    spaced: bool  # TAB-separated, and the first line holds spaces too (fast_file_fields.sql)
    compression: str  # 'gzip' or 'none', from the magic bytes, never the name

    @property
    def stray(self) -> tuple[bytes, ...]:
        if self.spaced:
            return _STRAY_BYTES
        return (*_STRAY_BYTES, b" " if self.delimiter == "\t" else b"\t")


def _layout(path: Path) -> _FileLayout | None:
    """The fast path's reading of ``path``, or None when it cannot take the file (missing, a
    glob character in its name, unreadable, an empty or blank first line)."""
    if not path.is_file() or _GLOB_CHARACTERS & set(str(path.resolve())):
        return None
    try:
        with _open(path) as handle:
            first = handle.readline(65536)
    except (OSError, EOFError, zlib.error):
        return None  # the general path reports it
    if first.startswith(PARQUET_MAGIC) and is_parquet_file(path):  # not text: pyeval/loaders/columnar.py reads it
        return None
    if not first.strip():
        return None
    delimiter = "\t" if b"\t" in first else " "
    return _FileLayout(delimiter, delimiter == "\t" and b" " in first, "gzip" if is_gzip(path) else "none")


def stage_files(
    con: duckdb.DuckDBPyConnection,
    paths: Mapping[int, str | os.PathLike[str]],
    fields: tuple[str, ...],
    query: str,
    table: str,
    *,
    digest: bool = True,
) -> dict[int, StagedFile]:
    """The fast path for a whole load: read every file of ``paths`` that it can take with
    DuckDB's CSV reader (sql/loaders/fast_file_fields.sql), in one scan per file layout
    (delimiter and compression; a campaign's runs usually share one), into the temporary table
    ``table`` (a name of the loader's: ``staged_run_files``, ``staged_qrels_files``):
    ``file_index`` (the file's key in ``paths``) and the columns of ``query``, one row per line,
    each file's lines in file order and together.

    A file's fields must be separated by single TABs, or by single spaces when its first line
    has no TAB, and each line must have exactly ``len(fields)`` of them; they are read as text
    (an empty one as null). ``query``, a file of sql/loaders/ reading ``file_fields`` (the lines
    as read), types them on the way in. While DuckDB reads, threads hash the files and count
    their lines (:func:`_scan_bytes`).

    ``digest``: each file's sha256 is its provenance (False: a command that stores nothing
    of the files, ``pyeval trec_eval``, skips it and the StagedFile's sha256 is ``""``).

    Returns the staged files by key. A file is left out (no row of it staged) when it does
    not fit: DuckDB refuses it, it holds a stray byte (_STRAY_BYTES) or a lone CR, DuckDB read
    fewer rows than it has lines (blank lines are skipped, whose numbers would be lost), or it
    holds what the general path reads otherwise (staged_file_fits.sql). The caller reads those
    with :func:`read_lines`, which reports what is wrong.
    """
    if not first_row(con, "select current_setting('preserve_insertion_order')")[0]:
        return {}  # rowid would not follow the files' order
    layouts: dict[_FileLayout, list[int]] = {}
    for index, path in paths.items():
        layout = _layout(Path(path))
        if layout is not None:
            layouts.setdefault(layout, []).append(index)
    if not layouts:
        return {}
    con.execute(sqlfiles.read("loaders/macros.sql"))  # the typing rules of ``query``
    stop = threading.Event()
    staged_any = False
    scans = _Scans({index: (Path(paths[index]), layout.stray) for layout, indexes in layouts.items()
                    for index in indexes}, stop, digest)
    try:
        try:
            for layout, indexes in layouts.items():
                staged_any |= _read_group(con, [paths[i] for i in indexes], indexes, layout, query,
                                          fields, create=not staged_any)
        except BaseException:
            stop.set()
            raise
        bounds = {}
        if staged_any:
            bounds = {
                index: (first, last, rows)
                for index, first, last, rows in con.execute(
                    f"select file_index, min(rowid), max(rowid), count(*) from {STAGED_TABLE} group by file_index"
                ).fetchall()
            }
        else:
            stop.set()  # nothing staged: no hash is wanted
        facts = {}
        for index in bounds:
            try:
                facts[index] = scans.result(index)
            except (OSError, EOFError, zlib.error):
                facts[index] = None
    finally:
        scans.join()
    if not staged_any:
        return {}
    fits = {row[0]: all(row[1:]) for row in con.execute(sqlfiles.read("loaders/staged_file_fits.sql")).fetchall()}
    staged, refused = {}, []
    for index, (first, last, rows) in bounds.items():
        fact = facts[index]
        if fact is None or not fact.plain or fact.lines != rows or last - first + 1 != rows or not fits[index]:
            refused.append(index)
            continue
        path = Path(paths[index])
        staged[index] = StagedFile(str(paths[index]), str(path.resolve()), fact.sha256, table, rows,
                                   file_index=index, first_row=first)
    if refused:  # free what the general path reads again; the others' row ids do not move
        con.execute(f"delete from {STAGED_TABLE} where list_contains($refused, file_index)", {"refused": refused})
    # Staged and checked under the name the shared SQL reads, then given the loader's own, so
    # that a load of several kinds (pyeval load campaign) stages each kind before its transaction.
    con.execute(f"alter table {STAGED_TABLE} rename to {table}")  # pyeval's own names
    return staged


def _read_group(
    con: duckdb.DuckDBPyConnection,
    paths: list,
    indexes: list[int],
    layout: _FileLayout,
    query: str,
    fields: tuple[str, ...],
    *,
    create: bool,
) -> bool:
    """Stage the files of one layout in one statement; if DuckDB refuses the scan, each file
    alone, so that only the refused ones are left out. Returns whether anything was staged."""
    statement = (
        (f"create temp table {STAGED_TABLE} as\n" if create else f"insert into {STAGED_TABLE}\n")
        + f"with file_fields as (\n{sqlfiles.read('loaders/fast_file_fields.sql')}\n)\n"
        + "select * replace (($file_indexes::integer[])[file_index::bigint + 1] as file_index) from (\n"
        + sqlfiles.read(f"loaders/{query}.sql") + "\n)"
    )
    common = {"delimiter": layout.delimiter, "columns": {name: "VARCHAR" for name in fields},
              "compression": layout.compression, "spaced": layout.spaced}
    try:
        first_row(con, statement, {**common, "path": [str(Path(p).resolve()) for p in paths], "file_indexes": indexes})
        return True
    except duckdb.Error:
        if len(paths) == 1:
            return False  # refused by the reader: the general path reads it again and says why
    staged = False
    for path, index in zip(paths, indexes):
        staged |= _read_group(con, [path], [index], layout, query, fields, create=create and not staged)
    return staged
