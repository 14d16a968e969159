"""What every loader shares: the transaction, staging lines in DuckDB, and the first problem.

A load stages its input as temporary relations, asks one SQL query for the first bad line,
and writes the stored tables only when there is none, all inside one transaction: a failed
load leaves the warehouse exactly as it was. Files are read before the transaction (a failed
DuckDB statement aborts a transaction, and the fast path may fail over to the general path);
:class:`TemporaryRelations` drops what a load staged however it ends, so that the connection
is left as it was too.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

import duckdb

from pyeval.core.db import first_row, unknown_campaign
from pyeval.core import archive
from pyeval.core import sqlfiles
from ..errors import DuplicateEntryError, InputFormatError, already_stored
from . import columnar
from .source import STAGED_TABLE, Lines, StagedFile, combined_sha256, expand_paths, is_frame, read_lines, stage_files

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

WHITESPACE = "whitespace"
SEMICOLON = ";"

Source: TypeAlias = "str | os.PathLike[str] | pd.DataFrame | pa.Table"


@dataclass
class LoadReport:
    """What one load stored: counts, provenance, and notes worth showing the user."""

    kind: str
    campaign_id: str
    source_file: str
    sha256: str
    rows: int
    topics: int
    name: str | None = None
    notes: list[str] = field(default_factory=list)
    tags: int = 1  # runs: how many different run tags the file carried

    def summary(self) -> str:
        what = f"run '{self.name}'" if self.name else self.kind
        counts = _plural(self.rows, "row")
        counts += f", {_plural(self.topics, 'topic')}" if self.kind != "doclengths" else " (documents)"
        text = f"{self.campaign_id}: loaded {what} from {self.source_file}: {counts}"
        return "; ".join([text, *self.notes])


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


class TemporaryRelations:
    """The temporary tables and views one load creates in its connection, dropped when it ends
    (committed, rolled back, or fallen back to the general path): use as a context manager
    around the load's transaction.

    The files of a load that the fast path reads share one table (source.STAGED_TABLE); the
    fixed names the shared SQL reads (``staged_file``, ``run_input``, ``input_fields``, ...) are
    views or tables created by the load.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = con
        self._names: list[str] = []  # fixed-name relations this load created, to drop at the end

    def __enter__(self) -> TemporaryRelations:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc_info: object) -> None:
        try:
            self.drop(*reversed(self._names))  # views before the tables they read
        except duckdb.Error:
            if exc_type is None:
                raise  # else the load's own error is the one to report

    def read_all(
        self,
        sources: Sequence[Source],
        frame_to_lines: Callable[[pd.DataFrame], Lines],
        fast_path: tuple[tuple[str, ...], str, str] | None = None,
        *,
        empty_ok: bool = False,
        columnar_kind: columnar.Kind | None = None,
    ) -> list[Lines | StagedFile]:
        """Sources read before the transaction, in order: a DataFrame through the loader's
        adapter; the files staged together by DuckDB when the loader has a fast path
        (``fast_path``: the fields, the typing query and the staged table of
        :func:`source.stage_files`), each file that does not fit it read by the general path
        (``empty_ok``: an empty file is no lines, not an error); Parquet files and folders and
        Arrow tables staged in the same table when the loader reads them (``columnar_kind``:
        :func:`columnar.stage`); lines read already as given."""
        staged: dict[int, StagedFile] = {}
        tables = {index: source for index, source in enumerate(sources)
                  if not isinstance(source, (Lines, StagedFile)) and columnar.is_columnar(source)}
        if tables and columnar_kind is None:
            _refuse_columnar(next(iter(tables.values())))
        files = {index: source for index, source in enumerate(sources)
                 if not is_frame(source) and not isinstance(source, (Lines, StagedFile)) and index not in tables}
        if fast_path is not None and files:
            fields, query, table = fast_path
            self.track(STAGED_TABLE, table)
            staged = stage_files(self.con, files, fields, query, table)
        if tables:
            staged.update(columnar.stage(self.con, columnar_kind, tables, self.track))
        return [
            staged[index] if index in staged
            else source if isinstance(source, (Lines, StagedFile))
            else frame_to_lines(source) if is_frame(source)
            else read_lines(source, empty_ok=empty_ok)
            for index, source in enumerate(sources)
        ]

    def expose(self, staged: StagedFile) -> None:
        """Make ``staged`` the view ``staged_file``: its rows with their line numbers."""
        self.track("staged_file")
        # file_index and first_row are integers pyeval computed, never user input.
        self.con.execute(
            f"create or replace temp view staged_file as "
            f"select rowid + 1 - {int(staged.first_row)} as line_number, * exclude (file_index) "
            f"from {staged.table} where file_index = {int(staged.file_index)}"
        )

    def view(self, relation: str, query: str) -> None:
        """Define the temporary view ``relation`` as ``sql/loaders/<query>.sql``."""
        self.track(relation)
        # relation and query are constants of the calling loader, never user input.
        self.con.execute(f"create or replace temp view {relation} as\n" + sqlfiles.read(f"loaders/{query}.sql"))

    def track(self, *relations: str) -> None:
        """Drop ``relations`` too when the load ends (those the general path stages)."""
        for relation in relations:
            if relation not in self._names:
                self._names.append(relation)

    def drop(self, *relations: str) -> None:
        """Drop temporary relations (tables, views, registered Arrow tables) if they exist, in
        the order given (a view before the table it reads)."""
        # a temporary relation is one of database temp: DuckDB 1.4 clears the temporary flag of
        # a temporary table it renames (source.stage_files renames staged_files)
        kinds = dict(self.con.execute(
            "select view_name, 'view' from duckdb_views() where database_name = 'temp' and list_contains($names, view_name) "
            "union all select table_name, 'table' from duckdb_tables() "
            "where database_name = 'temp' and list_contains($names, table_name)",
            {"names": list(relations)},
        ).fetchall())
        for relation in relations:
            self.con.unregister(relation)  # a registered Arrow table is a view too; no-op else
            if relation in kinds:
                self.con.execute(f"drop {kinds[relation]} if exists {relation}")


def input_list(source: Source | Lines | Sequence[Source | Lines], what: str) -> list[Source | Lines]:
    """The inputs of a load that takes one input or several: a path, a DataFrame or lines read
    already, or a list of them, folders and glob patterns standing for their files
    (:func:`source.expand_paths`)."""
    one = isinstance(source, (str, os.PathLike, Lines, StagedFile)) or is_frame(source) or columnar.is_arrow(source)
    sources: list[Source | Lines] = []
    for item in [source] if one else list(source):
        sources.extend([item] if isinstance(item, (Lines, StagedFile)) else expand_paths([item])[0])
    if not sources:
        raise InputFormatError(f"<no {what}>", None, f"no {what} file given")
    return sources


def batch_label(inputs: Sequence[Lines | StagedFile]) -> str:
    """How a load names its inputs in a message about all of them (one input: its label)."""
    return ", ".join(lines.label for lines in inputs)


def gather(con: duckdb.DuckDBPyConnection, relations: TemporaryRelations, staged: str, batch: str,
           file_index: int) -> None:
    """Append the rows of one input of a load (the temporary table ``staged``) to the load's
    temporary table ``batch``, each with the input's ``file_index``."""
    relations.track(batch)
    # staged and batch are constants of the calling loader, never user input.
    rows = f"select $file_index::integer as file_index, * from {staged}"
    con.execute(f"create temp table if not exists {batch} as {rows} limit 0", {"file_index": file_index})
    con.execute(f"insert into {batch} {rows}", {"file_index": file_index})


def stage_each(
    con: duckdb.DuckDBPyConnection,
    relations: TemporaryRelations,
    inputs: Sequence[Lines | StagedFile],
    stage_one: Callable[[Lines | StagedFile], None],
    staged: str,
    keys: str,
    given_again: str,
    *,
    conflicts_only: bool = False,
) -> None:
    """Stage the inputs of a load as the temporary table ``staged``: each input by ``stage_one``
    (which stages it as ``staged`` and raises for its first bad line); with several, their rows
    together in ``<kind>_batch`` (each with its ``file_index``), checked across inputs by
    :func:`raise_batch_repeat` (``keys``: the query of the batch's keys) before they become
    ``staged``."""
    batch = staged.removesuffix("_input") + "_batch"  # staged and batch: constants of the loader
    relations.track("input_fields", staged)
    for index, lines in enumerate(inputs):
        stage_one(lines)
        if len(inputs) > 1:
            gather(con, relations, staged, batch, index)
            relations.drop("input_fields", staged)
    if len(inputs) > 1:
        raise_batch_repeat(con, relations, inputs, keys, given_again, conflicts_only=conflicts_only)
        con.execute(f"create or replace temp table {staged} as select * exclude (file_index) from {batch}")


def clear_for_replace(
    con: duckdb.DuckDBPyConnection, table: str, campaign_id: str, label: str, what: str, replace: bool,
    judgment_set: str | None = None,
) -> None:
    """A campaign holds one set of ``what`` (intents, document lengths; intents per judgment
    set when ``judgment_set`` is given): refuse a second one unless ``replace``, and with it
    delete the campaign's rows of ``table`` (a constant of the loader)."""
    keys = {"campaign_id": campaign_id}
    where = "campaign_id = $campaign_id"
    if judgment_set is not None:
        keys["judgment_set"] = judgment_set
        where += " and judgment_set = $judgment_set"
    if first_row(con, f"select count(*) from {table} where {where}", keys)[0]:
        if not replace:
            named = "" if judgment_set in (None, "official") else f" in judgment set '{judgment_set}'"
            raise already_stored(f"{label}: campaign '{campaign_id}' already has {what}{named}", them=True)
        con.execute(f"delete from {table} where {where}", keys)


def raise_batch_repeat(
    con: duckdb.DuckDBPyConnection,
    relations: TemporaryRelations,
    inputs: Sequence[Lines | StagedFile],
    keys: str,
    given_again: str,
    *,
    conflicts_only: bool = False,
) -> None:
    """Raise for the first line of a later input that gives a key an earlier input of the load
    gives (sql/loaders/batch_repeats.sql): ``keys`` is the loader's query of its batch's
    ``file_index, line_number, batch_key, batch_value``; the message reads ``given_again`` and
    the earlier place. With ``conflicts_only`` only a different value is refused (and the
    error is a format error, not a duplicate)."""
    relations.track("batch_keys")
    # keys is a constant of the calling loader, never user input.
    con.execute(f"create or replace temp view batch_keys as {keys}")
    row = first_row(con, sqlfiles.read("loaders/batch_repeats.sql"), {"conflicts_only": conflicts_only})
    if row is not None:
        index, line_number, first_index, first_line = row
        error = InputFormatError if conflicts_only else DuplicateEntryError
        raise error(inputs[index].label, int(line_number),
                    f"{given_again} {inputs[first_index].label} line {first_line}")


def require_campaign(con: duckdb.DuckDBPyConnection, campaign_id: str, label: str) -> None:
    """Raise unless ``campaign_id`` exists (runs, intents and lengths need one)."""
    found = first_row(con, 
        "select count(*) from campaigns where campaign_id = $campaign_id",
        {"campaign_id": campaign_id},
    )[0]
    if not found:
        raise unknown_campaign(con, campaign_id, label=label, hint="; create it by loading its qrels first",
                               cli_hint=f"; create it by loading its qrels (pyeval load qrels --campaign "
                                        f"{campaign_id} QRELS)")


def split_fields(lines: Lines, *, separator: str, comments: bool, skip_blank: bool) -> pa.Table:
    """The data lines of an input as ``line_number, is_blank, fields`` (a list of strings).

    Fields are separated by runs of ASCII whitespace (TREC; a TAB too) or by ';' (NTCIR
    files that use it; runs of ';' collapse, as strtok does). A line whose first non-blank
    character is '#' is a comment when ``comments`` and the input has comments (a file, not a
    DataFrame or iterable: Lines.comments); blank lines are dropped when
    ``skip_blank``, else kept (flagged) for the caller to report. Vectorised in Arrow: 8x
    faster than DuckDB's string_split_regex on a 1M-line run.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    line = pc.ascii_trim_whitespace(lines.table.column("line"))
    is_blank = pc.invert(pc.match_substring_regex(line, pattern="(?s)."))  # no Python scalar: see detect_separator
    keep = None
    if comments and lines.comments:
        keep = pc.invert(pc.starts_with(line, pattern="#"))
    if skip_blank:
        keep = pc.invert(is_blank) if keep is None else pc.and_(keep, pc.invert(is_blank))
    if separator == SEMICOLON:
        fields = pc.split_pattern_regex(pc.utf8_trim(line, ";"), ";+")
    else:
        fields = pc.ascii_split_whitespace(line)
    table = pa.table(
        {"line_number": lines.table.column("line_number"), "is_blank": is_blank, "fields": fields}
    )
    return table if keep is None else table.filter(keep)


def stage_lines(
    con: duckdb.DuckDBPyConnection,
    lines: Lines,
    *,
    separator: str = WHITESPACE,
    comments: bool,
    skip_blank: bool,
    empty_ok: bool = False,
) -> None:
    """Expose the data lines of ``lines`` as the relation ``input_fields`` (see split_fields);
    InputFormatError when there are none, unless ``empty_ok``."""
    fields = split_fields(lines, separator=separator, comments=comments, skip_blank=skip_blank)
    con.register("input_fields", fields)
    if not empty_ok and not first_row(con, "select count(*) from input_fields where not is_blank")[0]:
        raise InputFormatError(lines.label, None, "no data lines (only comments or blank lines)")


def stage_rows(
    con: duckdb.DuckDBPyConnection, relation: str, query: str, parameters: dict[str, Any]
) -> None:
    """Materialise ``sql/loaders/<query>.sql`` as the temporary table ``relation``, after the
    loaders' macros (sql/loaders/macros.sql)."""
    # relation and query are constants of the calling loader, never user input.
    con.execute(sqlfiles.read("loaders/macros.sql"))
    con.execute(
        f"create or replace temp table {relation} as\n" + sqlfiles.read(f"loaders/{query}.sql"),
        parameters,
    )


def first_problem(
    con: duckdb.DuckDBPyConnection, query: str, parameters: dict[str, Any] | None = None
) -> tuple | None:
    """The row ``sql/loaders/<query>.sql`` returns (``line_number, problem[, is_duplicate]``), if any."""
    return first_row(con, sqlfiles.read(f"loaders/{query}.sql"), parameters or {})


def raise_problem(label: str, row: tuple) -> None:
    """Raise :class:`InputFormatError` (or :class:`DuplicateEntryError`) for a problem row."""
    line_number, problem, *kind = row
    error = DuplicateEntryError if kind and kind[0] else InputFormatError
    raise error(label, int(line_number), problem)


def raise_first_problem(
    con: duckdb.DuckDBPyConnection, label: str, query: str, parameters: dict[str, Any] | None = None
) -> None:
    """Run ``sql/loaders/<query>.sql``; raise :class:`InputFormatError` for the row it returns."""
    row = first_problem(con, query, parameters)
    if row is not None:
        raise_problem(label, row)


def drop_staging(con: duckdb.DuckDBPyConnection, *relations: str) -> None:
    con.unregister("input_fields")
    for relation in relations:
        con.execute(f"drop table if exists {relation}")


def _refuse_columnar(source: object) -> None:
    """InputFormatError: a loader that reads text only was given a Parquet file or folder, or
    an Arrow table (runs and qrels are read from them: pyeval/loaders/columnar.py)."""
    label = columnar.ARROW_LABEL if columnar.is_arrow(source) else str(source)
    raise InputFormatError(label, None, "a Parquet or Arrow input: only runs and qrels are read from them")


def lines_of(source: Source | Lines, frame_to_lines: Callable[[pd.DataFrame], Lines]) -> Lines:
    """The lines of a source for the general path: a DataFrame through the loader's own adapter,
    a file through the line reader (loaders with a fast path use :meth:`TemporaryRelations.read_all`)."""
    if isinstance(source, Lines):  # already read (e.g. from a file the loader does not parse itself)
        return source
    if columnar.is_columnar(source):
        _refuse_columnar(source)
    if is_frame(source):
        return frame_to_lines(source)
    return read_lines(source)


def detect_separator(lines: Lines) -> str:
    """NTCIR files may use ';' (test.Dqrels, test.DINprob): chosen when the first data line (not
    blank, not a '#' comment) has no whitespace but a ';'. Looks at that line only."""
    import pyarrow.compute as pc

    line = pc.ascii_trim_whitespace(lines.table.column("line"))
    # patterns as options, no Python scalar: converting one makes pyarrow import pandas
    data = line.filter(pc.match_substring_regex(line, pattern="(?s)."))  # not blank
    if lines.comments:
        data = data.filter(pc.invert(pc.starts_with(data, pattern="#")))
    first = data[0].as_py() if len(data) else ""
    if ";" in first and len(first.split()) == 1:
        return SEMICOLON
    return WHITESPACE


def refresh_topics(con: duckdb.DuckDBPyConnection, campaign_id: str) -> None:
    """Make the campaign's topic set the union of its qrels' and intents' topics."""
    con.execute("delete from topics where campaign_id = $campaign_id", {"campaign_id": campaign_id})
    con.execute(sqlfiles.read("loaders/topics_refresh.sql"), {"campaign_id": campaign_id})


@dataclass(frozen=True)
class Provenance:
    """What ``record_input`` stores of an input: its file and the sha256 of its content."""

    source_file: str
    sha256: str


def combined_provenance(inputs: Sequence[Lines | StagedFile]) -> Lines | StagedFile | Provenance:
    """The provenance of a load's inputs: one input's own; for several files (qrels, intents or
    lengths loaded from several files), their paths joined by ``' + '``, and the sha256 of their
    sha256s (hex, one per line, in the order given), so that a change to any file changes it."""
    if len(inputs) == 1:
        return inputs[0]
    return Provenance(" + ".join(lines.source_file for lines in inputs),
                      combined_sha256([lines.sha256 for lines in inputs]))


def record_input(
    con: duckdb.DuckDBPyConnection, campaign_id: str, input_kind: str, lines: Lines | StagedFile | Provenance,
    rows: int, judgment_set: str = "official",
) -> None:
    """Record the provenance of a qrels, intents or lengths input (replacing the previous one of
    the same judgment set)."""
    parameters = {"campaign_id": campaign_id, "input_kind": input_kind, "judgment_set": judgment_set}
    con.execute(
        "delete from campaign_inputs where campaign_id = $campaign_id and input_kind = $input_kind "
        "and judgment_set = $judgment_set",
        parameters,
    )
    con.execute(
        "insert into campaign_inputs (campaign_id, input_kind, source_file, source_sha256, row_count, "
        "judgment_set) values ($campaign_id, $input_kind, $source_file, $sha256, $rows, $judgment_set)",
        {**parameters, "source_file": lines.source_file, "sha256": lines.sha256, "rows": rows},
    )
    archive.refresh(con, campaign_id)  # values computed from replaced qrels turn stale
