"""Reading the files of generated answers, nuggets and their judgments (docs/rag.md "Formats").

Every such file is JSON lines (nuggetizer's and TREC RAG's files) or TSV with a header line. A
file is read whole by DuckDB's CSV reader into the temporary view ``rag_lines (line_number,
line, is_blank)`` of the loading connection (sql/loaders/rag_file_lines.sql), and every JSON
object is parsed in SQL (``from_json``) by the loader's ``*_rows.sql``: no line is handled in
Python. A file the reader refuses (text that is not UTF-8, a line longer than 2 MB, a 0x1F
byte) is read by the general path's line reader (pyeval/loaders/source.py), which names the bad
line, or reads it. TSV lines are split on TAB in SQL (the view ``rag_fields``).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import first_row
from .. import vocabulary
from ..errors import InputFormatError, require_choice, require_printable
from .source import content_sha256, is_gzip, read_lines
from .staging import TemporaryRelations, raise_problem

FORMATS = vocabulary.names(vocabulary.ANSWER_FILE_FORMATS)
JSONL, TSV = "jsonl", "tsv"


@dataclass(frozen=True)
class RagFile:
    """One file staged as ``rag_lines``: how messages name it, its provenance, the format it is
    read as, and, for TSV, its header's column names and line."""

    label: str
    source_file: str
    sha256: str
    format: str
    header: tuple[str, ...] = ()
    header_line: int = 0


def stage_file(con: duckdb.DuckDBPyConnection, relations: TemporaryRelations,
               path: str | os.PathLike[str], format: str = "auto") -> RagFile:
    """Stage the lines of ``path`` as ``rag_lines`` and tell its format (``auto``: JSON lines
    when its first non-blank line starts with ``{``, else TSV). Read before the load's
    transaction (a refused read aborts a transaction).

    Raises InputFormatError: no such file, the file is empty or only blank lines, not UTF-8."""
    require_choice("format", format, FORMATS)
    label = str(path)
    if isinstance(path, (str, os.PathLike)) and Path(path).is_dir():
        raise InputFormatError(label, None, "a folder: give one file")
    if not isinstance(path, (str, os.PathLike)) or not Path(path).is_file():
        raise InputFormatError(label, None, "no such file")
    path = Path(path)
    relations.track("rag_lines", "rag_file_rows")
    digest = _Digest(path)  # hashed while DuckDB reads the file (both release the GIL)
    try:
        con.execute("create or replace temp table rag_file_rows as\n" + sqlfiles.read("loaders/rag_file_lines.sql"),
                    {"path": str(path.resolve()), "compression": "gzip" if is_gzip(path) else "none"})
    except duckdb.Error:
        lines = read_lines(path, empty_ok=True)  # names the bad line (not UTF-8, ...) or reads it
        con.register("rag_file_lines_read", lines.table)
        try:
            con.execute("create or replace temp table rag_file_rows as "
                        "select line from rag_file_lines_read order by line_number")
        finally:
            con.unregister("rag_file_lines_read")
    # rowid: the order of the file's lines, kept by the table's insertion order; a line is blank
    # when null or empty (DuckDB's reader gives null, the line reader '') or only whitespace
    # (trimmed only when it starts with some)
    con.execute("create or replace temp view rag_lines as select rowid + 1 as line_number, "
                "coalesce(line, '') as line, case when line is null or line = '' then true "
                "when left(line, 1) in (' ', chr(9), chr(11), chr(12), chr(13)) then trim(line) = '' "
                "else false end as is_blank from rag_file_rows")
    first_line, first_text = first_row(
        con, "select line_number, line from rag_lines where not is_blank order by line_number limit 1") or (None, None)
    if first_line is None:
        empty = first_row(con, "select count(*) from rag_lines")[0] == 0
        raise InputFormatError(label, None, "the file is empty" if empty else "no data lines (only blank lines)")
    chosen = format if format != "auto" else (JSONL if first_text.lstrip().startswith("{") else TSV)
    header: tuple[str, ...] = ()
    if chosen == TSV:
        header = tuple(name.strip() for name in first_text.split("\t"))
        relations.track("rag_fields")
        con.execute("create or replace temp view rag_fields as select line_number, string_split(line, chr(9)) "
                    f"as fields from rag_lines where not is_blank and line_number > {int(first_line)}")
    return RagFile(label, str(path.resolve()), digest.result(), chosen, header,
                   int(first_line) if chosen == TSV else 0)


class _Digest:
    """The sha256 of a file's content (source.content_sha256), computed in a thread."""

    def __init__(self, path: Path):
        import threading

        self._value: str | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(path,), daemon=True)
        self._thread.start()

    def _run(self, path: Path) -> None:
        try:
            self._value = content_sha256(path)
        except BaseException as exc:  # re-raised in the loading thread by result()
            self._error = exc

    def result(self) -> str:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value


def tsv_columns(staged: RagFile, required: Sequence[str], optional: Sequence[str] = ()) -> dict[str, int]:
    """The 1-based field of each column of a TSV file's header (0: an optional column it lacks).

    Raises InputFormatError naming the header line: a required column missing, a column named
    twice or one no format of this kind has."""
    known = (*required, *optional)
    listed = f"columns {', '.join(required)}" + (f" (and optionally {', '.join(optional)})" if optional else "")
    seen: dict[str, int] = {}
    for index, name in enumerate(staged.header, 1):
        if name in seen:
            raise InputFormatError(staged.label, staged.header_line, f"column '{name}' is named twice in the header")
        if name not in known:
            raise InputFormatError(staged.label, staged.header_line,
                                   f"unknown column '{name}' in the header; a TSV file here has the {listed}")
        seen[name] = index
    missing = [name for name in required if name not in seen]
    if missing:
        raise InputFormatError(staged.label, staged.header_line,
                               f"the header has no column '{missing[0]}'; a TSV file here has the {listed}")
    return {name: seen.get(name, 0) for name in known}


def stage_rows(con: duckdb.DuckDBPyConnection, relations: TemporaryRelations, relation: str, query: str,
               parameters: dict | None = None, *, view: bool = False) -> None:
    """Materialise ``sql/loaders/<query>.sql`` as the temporary table ``relation``, after the
    macros of generated answers (sql/loaders/rag_macros.sql); with ``view``, define it as a
    temporary view instead, for a relation that one statement reads once (not copied); a view
    takes no parameters."""
    relations.track(relation)
    con.execute(sqlfiles.read("loaders/macros.sql"))
    con.execute(sqlfiles.read("loaders/rag_macros.sql"))
    # relation and query are constants of the calling loader, never user input.
    if view:
        if parameters:
            raise ValueError(f"{query}: a staged view takes no parameters")
        con.execute(f"create or replace temp view {relation} as\n" + sqlfiles.read(f"loaders/{query}.sql"))
        return
    con.execute(f"create or replace temp table {relation} as\n" + sqlfiles.read(f"loaders/{query}.sql"),
                parameters or {})


def raise_first_problem(con: duckdb.DuckDBPyConnection, label: str, checks: Sequence[tuple[str, dict]]) -> None:
    """Run each problems query (``sql/loaders/<name>.sql`` with its parameters, each returning
    ``line_number, problem[, is_duplicate]``) and raise for the problem on the lowest line."""
    found = [row for name, parameters in checks
             if (row := first_row(con, sqlfiles.read(f"loaders/{name}.sql"), parameters)) is not None]
    if found:
        raise_problem(label, min(found, key=lambda row: row[0]))


def tsv_parameters(staged: RagFile) -> dict:
    """The parameters every *_problems.sql of a TSV file reads: its header's field count and text
    (0 and '' for JSON lines)."""
    if staged.format != TSV:
        return {"field_count": 0, "header": ""}
    return {"field_count": len(staged.header), "header": " ".join(staged.header)}


def create_campaign(con: duckdb.DuckDBPyConnection, campaign_id: str) -> None:
    """Create ``campaign_id`` if it does not exist (loading nuggets creates it, as loading qrels
    does); a campaign without qrels has no qrels kind or format until they are loaded."""
    if first_row(con, "select 1 from campaigns where campaign_id = $c", {"c": campaign_id}) is None:
        require_printable("campaign name", campaign_id)
        con.execute("insert into campaigns (campaign_id) values ($c)", {"c": campaign_id})
