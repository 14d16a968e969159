"""Runs and qrels from Parquet files, Parquet folders and Arrow tables: columns, not lines.

A columnar input is read by DuckDB (``read_parquet``, or an Arrow table registered with the
connection) in one statement into the table the loader's fast path stages text files in
(``staged_run_files``, ``staged_qrels_files``: sql/loaders/columnar_run_rows.sql,
columnar_qrels_rows.sql), one row per input row in its order, so that the loaders' own checks
(run_summary.sql, run_problems.sql, qrels_problems.sql) and inserts (run_insert.sql,
qrels_insert.sql) read it as they read a text file: the same stored rows as the same data
written as text (docs/loading.md, "Parquet and Arrow inputs").

The columns a role may come from (:data:`RUN_COLUMNS`, :data:`QRELS_COLUMNS`) are the
DataFrame adapters' too (pyeval/loaders/runs.py, qrels.py, pyeval/interop.py). A column is
told by its name; a columnar input may hold one column of each role (two are refused, where a
DataFrame takes the first), each of a type the role reads (:data:`KINDS`); other columns are
ignored. A row is numbered from 1 in the input's order; in a folder, across its files in name
order, and an error names the file and its row too.
"""
from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import first_row
from ..errors import InputFormatError
from .source import StagedFile, combined_sha256, content_sha256, dataset_files, is_parquet_file, run_name_of_file

if TYPE_CHECKING:
    import pyarrow as pa

#: What errors call an Arrow table given in memory (a DataFrame is ``<DataFrame>``).
ARROW_LABEL = "<Arrow table>"


@dataclass(frozen=True)
class Column:
    """One role of a columnar input: the staged column it becomes, the names it may have (in the
    order a DataFrame's are looked up), the kind of type it must have (:data:`KINDS`), and
    whether an input must have it."""

    role: str
    names: tuple[str, ...]
    kind: str
    what: str  # what messages call it: "topic", "document", ...
    required: bool = True


#: The kinds of column type a role reads, as DuckDB names the types of a Parquet file's columns
#: or of an Arrow table's (DECIMAL(p,s) and ENUM(...) by their first word).
_INTEGERS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
             "UBIGINT", "UHUGEINT")
KINDS = {
    "identifier": ("text or an integer", ("VARCHAR", "ENUM", *_INTEGERS)),
    "number": ("a number (integer, decimal or floating point)", ("FLOAT", "DOUBLE", "DECIMAL", *_INTEGERS)),
    "integer": ("an integer", _INTEGERS),
}

_TOPIC = Column("topic_id", ("query_id", "qid", "topic_id", "q_id"), "identifier", "topic")
_DOCUMENT = Column("doc_id", ("doc_id", "docno"), "identifier", "document")

#: A run's columns: ir_measures and ir_datasets (query_id, doc_id, score), ranx (q_id, doc_id,
#: score: Run.save(kind="parquet")), PyTerrier (qid, docno, score, rank), the warehouse's own
#: (topic_id, rank_given) and what ``pyeval export-run --format parquet`` writes (run_tag).
RUN_COLUMNS = (
    _TOPIC,
    _DOCUMENT,
    Column("score", ("score",), "number", "score"),
    Column("rank_given", ("rank", "rank_given"), "integer", "rank", required=False),
    Column("run_tag", ("run_id", "name", "run_tag"), "identifier", "run tag", required=False),
)

#: Qrels' columns: ir_measures and ir_datasets (query_id, doc_id, relevance, iteration), ranx
#: (q_id, doc_id, score: Qrels.save(kind="parquet")), PyTerrier (qid, docno, label) and the
#: warehouse's own (topic_id, level, intent_id). The iteration is the TREC qrels' second field:
#: a constant one is ad hoc qrels, a varying one a diversity subtopic (format auto).
QRELS_COLUMNS = (
    _TOPIC,
    _DOCUMENT,
    Column("level", ("relevance", "label", "level", "score"), "integer", "relevance"),
    Column("iteration", ("iteration", "subtopic_id", "intent_id"), "identifier", "intent", required=False),
)


def column(columns: Sequence[Column], role: str) -> Column:
    """The column of ``columns`` that plays ``role``."""
    return next(c for c in columns if c.role == role)


@dataclass(frozen=True)
class Kind:
    """What a loader reads from columnar inputs: its columns, the query typing them into its
    staged table (sql/loaders/<rows>.sql), that table, and what an absent optional column
    stands for in the query (SQL literals of this module)."""

    columns: tuple[Column, ...]
    rows: str
    problems: str
    table: str
    absent: Mapping[str, str]


RUNS = Kind(RUN_COLUMNS, "columnar_run_rows", "columnar_run_problems", "staged_run_files",
            {"rank_given": "null::bigint", "run_tag": "null::varchar"})
QRELS = Kind(QRELS_COLUMNS, "columnar_qrels_rows", "columnar_qrels_problems", "staged_qrels_files",
             {"iteration": "'0'"})


@dataclass(frozen=True)
class ColumnarFile(StagedFile):
    """A columnar input staged in the loader's table, as :class:`StagedFile` is: ``name`` is
    the run name it takes when it gives no run tag (its file's name, run_name_of_file)."""

    name: str | None = None


def is_arrow(source: object) -> bool:
    """Whether ``source`` is a pyarrow Table, without importing pyarrow."""
    pyarrow = sys.modules.get("pyarrow")
    return pyarrow is not None and isinstance(source, pyarrow.Table)


def is_columnar(source: object) -> bool:
    """Whether a loader's ``source`` is read by this module: an Arrow table, a Parquet file, or a
    folder that is a Parquet dataset."""
    if is_arrow(source):
        return True
    if not isinstance(source, (str, os.PathLike)):
        return False
    path = Path(source)
    return is_parquet_file(path) if path.is_file() else path.is_dir() and dataset_files(path) is not None


def _found(described: list[tuple[str, str]]) -> str:
    return "columns found: " + (", ".join(f"{name} {kind}" for name, kind in described) or "none")


def chosen_columns(label: str, described: list[tuple[str, str]], columns: Sequence[Column]) -> dict[str, str]:
    """The input's column of each role (role -> column name) from its ``described`` columns
    (name, DuckDB type); InputFormatError in one line naming what is wrong and the columns found:
    a required role without a column, a role given by two columns, a column of the wrong type."""
    types = dict(described)
    chosen = {}
    for role in columns:
        present = [name for name in role.names if name in types]
        if len(present) > 1:
            raise InputFormatError(label, None, f"columns {' and '.join(map(repr, present))} both give the "
                                   f"{role.what}: keep one ({_found(described)})")
        if not present:
            if role.required:
                raise InputFormatError(label, None, f"no {role.what} column (expected one of "
                                       f"{', '.join(role.names)}; {_found(described)})")
            continue
        name = present[0]
        meaning, accepted = KINDS[role.kind]
        if types[name].split("(")[0] not in accepted:
            raise InputFormatError(label, None, f"column {name!r} is {types[name]}: the {role.what} must be "
                                   f"{meaning} ({_found(described)})")
        chosen[role.role] = name
    return chosen


def _quoted(name: str) -> str:
    """A column name as an SQL identifier (names of :data:`RUN_COLUMNS` and :data:`QRELS_COLUMNS` only)."""
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class _Source:
    """A columnar input: ``relation``, a select of its rows (``parameters`` bound), read by
    :func:`stage` as the common table expression ``columnar_raw``."""

    label: str
    source_file: str
    sha256: str
    files: list[Path]  # its Parquet files (none: an Arrow table)
    name: str | None  # the run name of its file
    relation: str
    parameters: dict[str, Any]

    def reading(self, statement: str) -> str:
        """``statement`` after the common table expression ``columnar_raw`` of this input's rows."""
        return f"with columnar_raw as ({self.relation})\n{statement}"


def _open(con: duckdb.DuckDBPyConnection, source: Any) -> _Source:
    """An Arrow table (registered as the temporary relation ``columnar_arrow``), a Parquet file
    or the Parquet files of a folder (read by read_parquet, a folder's rows with the file each
    comes from and its row there) as a :class:`_Source`."""
    if is_arrow(source):
        con.register("columnar_arrow", source)
        return _Source(ARROW_LABEL, ARROW_LABEL, arrow_sha256(source), [], None, "select * from columnar_arrow", {})
    path = Path(source)
    files = [path] if path.is_file() else dataset_files(path) or []
    sha256 = content_sha256(files[0]) if len(files) == 1 else combined_sha256([content_sha256(p) for p in files])
    several = ", union_by_name = true, filename = true, file_row_number = true" if len(files) > 1 else ""
    return _Source(str(source), str(path.resolve()), sha256, files, run_name_of_file(path),
                   f"select * from read_parquet($columnar_files{several})",
                   {"columnar_files": [str(p) for p in files]})


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def arrow_sha256(table: pa.Table) -> str:
    """sha256 of an Arrow table's buffers and schema: the provenance (and cache key) of an
    in-memory table."""
    digest = hashlib.sha256()
    for batch in table.to_batches():
        for array in batch.columns:
            for buffer in array.buffers():
                if buffer is not None:
                    digest.update(memoryview(buffer))
    digest.update(str(table.schema).encode("utf-8"))
    return digest.hexdigest()


def stage(con: duckdb.DuckDBPyConnection, kind: Kind, sources: Mapping[int, Any], track) -> dict[int, ColumnarFile]:
    """Stage each columnar input of ``sources`` (input index -> source) into ``kind.table`` (made
    if the fast path made none) in one statement, each with its index as ``file_index`` and its
    rows in order, checked as it is staged (:func:`_raise_bad_value`). ``track`` is the load's
    TemporaryRelations.track: what this creates is dropped when the load ends."""
    track(kind.table, "columnar_arrow")
    con.execute(sqlfiles.read("loaders/macros.sql"))  # identifier_problem
    staged = {}
    for index, source in sources.items():
        opened = _open(con, source)
        try:
            try:
                described = [(row[0], row[1]) for row in con.execute(
                    f"describe {opened.relation}", opened.parameters).fetchall()]
            except duckdb.Error as exc:
                raise InputFormatError(opened.label, None, f"cannot read it as Parquet: {_first_line(exc)}") from None
            chosen = chosen_columns(opened.label, described, kind.columns)
            # column names are this module's constants (RUN_COLUMNS, QRELS_COLUMNS) the input has
            selects = [f"{_quoted(chosen[c.role]) if c.role in chosen else kind.absent[c.role]} as {c.role}"
                       for c in kind.columns]
            rows = opened.reading(f", columnar_input as (select {', '.join(selects)} from columnar_raw)\n"
                                  + sqlfiles.read(f"loaders/{kind.rows}.sql"))
            parameters = {**opened.parameters, "file_index": index}
            preserving = first_row(con, "select current_setting('preserve_insertion_order')")[0]
            try:
                con.execute(f"create temp table if not exists {kind.table} as select * from ({rows}) limit 0",
                            parameters)
                if not preserving:  # rowid must follow the input's rows: they are its row numbers
                    con.execute("set preserve_insertion_order = true")
                con.execute(f"insert into {kind.table} by name {rows}", parameters)
            except duckdb.Error as exc:  # a damaged file
                raise InputFormatError(opened.label, None, f"cannot read it as Parquet: {_first_line(exc)}") from None
            finally:
                if not preserving:
                    con.execute("set preserve_insertion_order = false")
            first, last, count = first_row(
                con, f"select min(rowid), max(rowid), count(*) from {kind.table} where file_index = $i", {"i": index})
            if count and last - first + 1 != count:
                raise RuntimeError(f"{opened.label}: its staged rows are not contiguous")  # rowids of one insert are
            first = first if count else 0
            _raise_bad_value(con, kind, opened, chosen, index, first)
        finally:
            con.unregister("columnar_arrow")
        staged[index] = ColumnarFile(opened.label, opened.source_file, opened.sha256, kind.table, count,
                                     file_index=index, first_row=first, name=opened.name)
    return staged


def _raise_bad_value(con: duckdb.DuckDBPyConnection, kind: Kind, opened: _Source, chosen: Mapping[str, str],
                     index: int, first: int) -> None:
    """InputFormatError for the first staged row of input ``index`` holding a value the text
    loaders could not read (sql/loaders/columnar_run_problems.sql, columnar_qrels_problems.sql): a
    null, an empty identifier or one holding whitespace, a score that is not finite, a rank or
    level that does not fit its type; the value as the input holds it is read again for the
    message (this row only)."""
    row = first_row(con, sqlfiles.read(f"loaders/{kind.problems}.sql"),
                    {"file_index": index, "first_row": first, "roles": list(chosen)})
    if row is None:
        return
    line_number, role, problem = row
    name = chosen[role]
    several = len(opened.files) > 1
    original = first_row(con, opened.reading(f"select {_quoted(name)}::varchar"
                                             + (", filename, file_row_number + 1" if several else "")
                                             + " from columnar_raw limit 1 offset $offset"),
                         {**opened.parameters, "offset": line_number - 1})
    value = original[0]
    if problem == "null" and value is not None:
        problem = "range"
    reasons = {
        "null": f"column {name!r} has no value",
        "empty": f"column {name!r} is empty",
        "whitespace": f"column {name!r} holds whitespace: {value!r}",
        "not finite": f"column {name!r} holds {value}, not a finite number",
        "range": f"column {name!r} holds {value}, which does not fit "
                 + ("a 64-bit integer" if role == "rank_given" else "a 32-bit integer"),
    }
    where = f" ({original[1]} row {original[2]})" if several else ""
    raise InputFormatError(opened.label, int(line_number), reasons[problem] + where)


def last_run_tag(path: str | os.PathLike[str]) -> str | None:
    """The run tag of a Parquet run's last row (of its last file, for a folder), as trec_eval
    takes a run's id from its last line; the name of its file when it has no run tag column
    (or no rows): the name its run is loaded under. None when ``path`` is not a Parquet file or
    folder (``pyeval trec_eval`` reads a text file's last line itself)."""
    return _run_tag(path, last=True)


def first_run_tag(path: str | os.PathLike[str]) -> str | None:
    """The run tag of a Parquet run's first row (the name the loader gives it without a name),
    or its file's name as :func:`last_run_tag`; None when ``path`` is not Parquet."""
    return _run_tag(path, last=False)


def _run_tag(path: str | os.PathLike[str], *, last: bool) -> str | None:
    if not is_columnar(path):
        return None
    path = Path(path)
    files = [path] if path.is_file() else dataset_files(path)
    read = str(files[-1] if last else files[0])
    con = duckdb.connect()
    try:
        names = [row[0] for row in con.execute("describe select * from read_parquet($f)", {"f": read}).fetchall()]
        present = [name for name in column(RUN_COLUMNS, "run_tag").names if name in names]
        row = None
        if len(present) == 1:  # a column name of RUN_COLUMNS, never the file's own text
            row = first_row(con, f"select {_quoted(present[0])}::varchar from read_parquet($f, file_row_number = true) "
                            f"order by file_row_number {'desc' if last else 'asc'} limit 1", {"f": read})
    except duckdb.Error:
        row = None  # a damaged file: the loader says what is wrong with it
    finally:
        con.close()
    return row[0] if row is not None and row[0] is not None else run_name_of_file(path)
