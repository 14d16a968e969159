"""Loading runs: TREC 6-column result files (or DataFrames) into run_entries.

Every line is kept with its rank as given, its score (parsed as a double) and its line
number, so that any ordering policy (trec_eval, rank column, file order) can be applied later.
Conventions: docs/input-files.md section 3, summarised in docs/loading.md.
"""
from __future__ import annotations

import dataclasses
import datetime
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from pyeval.core import archive
from pyeval.core import sqlfiles
from pyeval.core.db import create_rows, first_row, transaction
from ..errors import DataIntegrityError, InputFormatError, InputWarning, PyevalError, already_stored, require_printable, with_command_line
from .. import progress as bars
from . import columnar, staging
from .source import Lines, StagedFile, expand_paths, frame_lines, in_memory_frame, is_ranx, pick_column

if TYPE_CHECKING:
    import pandas as pd

#: What a load calls inside its transaction once its runs are stored: ``(con, campaign, run names)``.
StoredHook = Callable[[duckdb.DuckDBPyConnection, str, list[str]], None]

#: The fields of a TREC run line as the fast path reads them (sql/loaders/run_fast_rows.sql).
RUN_FIELDS = ("topic_id", "iter", "doc_id", "rank_text", "score_text", "run_tag")

#: The fast path of runs (source.stage_files): fields, typing query, staged table.
_FAST_PATH = (RUN_FIELDS, "run_fast_rows", "staged_run_files")


def read(sources: Sequence[staging.Source], relations: staging.TemporaryRelations) -> list[Lines | StagedFile]:
    """Runs' rows: the files that fit the fast path staged by DuckDB together, the others (and
    DataFrames) as raw lines."""
    return relations.read_all(sources, _frame_lines, _FAST_PATH, empty_ok=True,  # a run may retrieve nothing
                              columnar_kind=columnar.RUNS)


def read_one(source: staging.Source, relations: staging.TemporaryRelations) -> Lines | StagedFile:
    """One run's rows, as :func:`read` reads them."""
    return read([source], relations)[0]


def _frame_lines(frame: pd.DataFrame) -> Lines:
    """ir_measures columns (query_id, doc_id, score[, rank, run_id]), PyTerrier's (qid,
    docno, score[, rank]) or ranx's (q_id, doc_id, score): columnar.RUN_COLUMNS. Without a
    rank column the frame is a run given without ranks, as a dict is through the Python API:
    its ranks and its file order come from its scores in trec_eval's order
    (sql/loaders/run_insert.sql), never from its row order; its rows keep their numbers for
    error messages."""
    topic, doc, score, rank, tag = (pick_column(frame, c.names, c.what, c.required) for c in columnar.RUN_COLUMNS)
    lines = frame_lines(frame, [topic, "Q0", doc, "1" if rank is None else rank, score,
                                "frame" if tag is None else tag], empty_ok=True)
    return lines if rank is not None else dataclasses.replace(lines, ranks_given=False)


@dataclass(frozen=True)
class RunMetadata:
    """What a run is, for trend queries: None leaves a field as it is; tags are added."""

    system: str | None = None
    team: str | None = None
    run_date: datetime.date | str | None = None
    tags: tuple[str, ...] = ()
    clear_tags: bool = False


def _run_date(value: datetime.date | str | None) -> datetime.date | None:
    if value is None or isinstance(value, datetime.date):
        return value
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise PyevalError(f"a run date must be YYYY-MM-DD; got {value!r}") from None


def annotate_run(
    con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str, metadata: RunMetadata
) -> dict:
    """Set a stored run's system, team, date and tags (columns of ``runs``, rows of ``run_tags``).

    Returns the run's metadata afterwards: ``system``, ``team``, ``run_date``, ``tags``.

    Raises
    ------
    PyevalError
        The campaign has no such run, or the date is not ``YYYY-MM-DD``.
    """
    with transaction(con):
        found = first_row(con, "select count(*) from runs where campaign_id = $c and run_id = $r",
                          {"c": campaign_id, "r": run_id})[0]
        if not found:
            raise PyevalError(f"campaign '{campaign_id}' has no run named '{run_id}'")
        _annotate(con, campaign_id, [run_id], metadata)
    return run_metadata(con, campaign_id, run_id)


def run_metadata(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str) -> dict:
    """A run's ``system``, ``team``, ``run_date`` and sorted ``tags``."""
    keys = {"c": campaign_id, "r": run_id}
    system, team, run_date = first_row(
        con, "select system, team, run_date from runs where campaign_id = $c and run_id = $r", keys
    )
    tags = [row[0] for row in con.execute(
        "select tag from run_tags where campaign_id = $c and run_id = $r order by tag", keys
    ).fetchall()]
    return {"system": system, "team": team, "run_date": run_date, "tags": tags}


def _annotate(con, campaign_id: str, run_ids: Sequence[str], metadata: RunMetadata) -> None:
    """Give ``metadata`` to the stored runs ``run_ids`` of ``campaign_id``."""
    for what, value in (("system", metadata.system), ("team", metadata.team), *(("tag", t) for t in metadata.tags)):
        require_printable(what, value)
    keys = {"campaign_id": campaign_id, "run_ids": list(run_ids)}
    con.execute(
        "update runs set system = coalesce($system, system), team = coalesce($team, team), "
        "run_date = coalesce($run_date, run_date) "
        "where campaign_id = $campaign_id and list_contains($run_ids, run_id)",
        {**keys, "system": metadata.system, "team": metadata.team, "run_date": _run_date(metadata.run_date)},
    )
    archive.runs_annotated(con, campaign_id)  # run_means' stored copies
    if metadata.clear_tags:
        con.execute("delete from run_tags where campaign_id = $campaign_id and list_contains($run_ids, run_id)",
                    keys)
    if metadata.tags:
        con.execute(
            "insert or ignore into run_tags (campaign_id, run_id, tag) "
            "select $campaign_id, run_id, tag from unnest($run_ids) as runs(run_id), unnest($tags) as tags(tag)",
            {**keys, "tags": list(dict.fromkeys(metadata.tags))},
        )


def load_run(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    source: staging.Source,
    *,
    name: str | None = None,
    replace: bool = False,
    metadata: RunMetadata | None = None,
    on_stored: StoredHook | None = None,
) -> staging.LoadReport:
    """Load one run into an existing campaign; see :func:`load_runs`."""
    return load_runs(con, campaign_id, [source], names=[name], replace=replace, metadata=metadata,
                     on_stored=on_stored)[0]


def load_runs(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    sources: Sequence[staging.Source],
    *,
    names: Sequence[str | None] | None = None,
    replace: bool = False,
    metadata: RunMetadata | None = None,
    on_stored: StoredHook | None = None,
    progress: bool | None = None,
) -> list[staging.LoadReport]:
    """Load runs into ``campaign_id``, all in one transaction (all or nothing).

    The files are read together: DuckDB scans all of them at once (one scan per file layout)
    while threads hash them, one set-based pass checks every line of every file, and one
    statement stores them (docs/loading.md, "Loading many runs").

    Parameters
    ----------
    sources
        Paths of TREC run files (``topic iter docno rank score tag``, ``.gz`` accepted),
        directories (every file in them) or glob patterns (:func:`expand_paths`), DataFrames
        (``query_id, doc_id, score[, rank, run_id]``), or Parquet files, Parquet folders (one
        run each) and Arrow tables (``query_id, doc_id, score[, rank, run_tag]``, ranx's
        ``q_id``...: :data:`columnar.RUN_COLUMNS`, docs/loading.md); a ranx ``Run`` (named by
        its ``name`` unless ``names`` gives one), a mapping ``{query_id: {doc_id: score}}`` or
        records with ``query_id, doc_id, score`` (ir_datasets' ``scoreddocs_iter()``):
        :func:`in_memory_frame`.
    names
        Run names, one per source; ``None`` takes the run tag of the file's first line
        (trec_eval takes the last, ndeval the first; files of several systems often share a
        tag, so name them); a Parquet run without a run tag column takes its file's name
        (:func:`pyeval.loaders.source.run_name_of_file`).
    replace
        Replace a run of the same name instead of refusing. The scores stored for the old run
        stay in ``score_history``; ``scores`` no longer shows them unless the new file has the
        same content (sha256). The run's metadata and tags are kept.
    metadata
        System, team, date and tags given to every run loaded (see :func:`annotate_run`).
    on_stored
        Called with the connection, the campaign and the names of the runs stored, inside the load's
        transaction (``pyeval load run --evaluate``: the evaluation is part of the load, all
        or nothing).
    progress
        A bar over the steps (read, check, store) of a load of many runs (default: where a
        human watches, :func:`pyeval.progress.shown`; shown after 2 s).

    Raises
    ------
    InputFormatError
        A bad line: fewer than 6 fields, a rank that is not an integer, a score that is not a
        finite number, a document retrieved twice for a topic (the first one, in file order).
    UnknownCampaignError
        The campaign does not exist.
    DataIntegrityError
        The run name exists already (without ``replace``) or appears twice among the sources.
    """
    if names is not None and len(names) != len(sources):
        raise ValueError("names must give one name (or None) per source")
    names = [name if name is not None or not is_ranx(source) else source.name
             for source, name in zip(sources, names if names is not None else [None] * len(sources))]
    sources, names = expand_paths([in_memory_frame(source, "score") for source in sources], names)
    with bars.bar(progress=progress, total=3, desc=f"read {len(sources)} runs", unit="step") as steps, \
            staging.TemporaryRelations(con) as relations:
        inputs = read(sources, relations)
        steps.update()
        steps.set_description(f"check {len(sources)} runs")
        problems = check(con, relations, inputs)
        steps.update()
        steps.set_description(f"store {len(sources)} runs")
        with transaction(con):
            reports = store(con, campaign_id, inputs, names, problems, replace, metadata)
            if on_stored is not None:
                on_stored(con, campaign_id, [report.name for report in reports])
            steps.update()
            return reports


def store(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    inputs: list[Lines | StagedFile],
    names: list[str | None],
    problems: dict[int, tuple],
    replace: bool,
    metadata: RunMetadata | None,
) -> list[staging.LoadReport]:
    """The loaders' protocol (read -> check -> store), step 3: check the run names and store the
    runs :func:`check` staged, inside the caller's transaction."""
    staging.require_campaign(con, campaign_id, inputs[0].label)
    summaries = {
        row[0]: row[1:]
        for row in con.execute(sqlfiles.read("loaders/run_summary.sql"), {"campaign_id": campaign_id}).fetchall()
    }
    if len(summaries) < len(inputs):  # a run without lines retrieved nothing: every judged topic is missing
        judged = first_row(con, "select count(distinct topic_id) from qrels_by_set where campaign_id = $c",
                           {"c": campaign_id})[0]
        for index in range(len(inputs)):
            summaries.setdefault(index, (False, 0, 0, judged, 0, 0, None))
    runs = _run_names(con, campaign_id, inputs, names, summaries, problems, replace)
    _store(con, campaign_id, inputs, runs, summaries)
    if metadata is not None:
        _annotate(con, campaign_id, runs, metadata)
    reports = []
    for index, (lines, run_id) in enumerate(zip(inputs, runs)):
        _, run_topics, unjudged, missing, entries, distinct_tags, _ = summaries[index]
        notes = []
        if unjudged:
            notes.append(f"{unjudged} of its topics {'has' if unjudged == 1 else 'have'} no judgments "
                         "(ignored by evaluation)")
        if missing:
            notes.append("1 judged topic is missing from it (it scores 0)" if missing == 1 else
                         f"{missing} judged topics are missing from it (they score 0)")
        reports.append(staging.LoadReport(
            "run", campaign_id, lines.source_file, lines.sha256, entries, run_topics,
            name=run_id, notes=notes, tags=distinct_tags,
        ))
        if distinct_tags > 1:
            warnings.warn(
                f"{lines.label}: the file carries {distinct_tags} different run tags; "
                f"it is loaded as one run, '{run_id}'",
                InputWarning,
                stacklevel=3,
            )
    return reports


def check(
    con: duckdb.DuckDBPyConnection, relations: staging.TemporaryRelations, inputs: list[Lines | StagedFile]
) -> dict[int, tuple]:
    """Make the temporary view ``run_batch`` the lines of every input, each with its
    ``file_index`` and line number: the fast path's staged files (run_fast_input.sql, their first
    rows in ``run_file_starts``, a row for each input) and the general path's inputs, checked one by one (run_rows.sql,
    run_problems.sql) into ``run_general_rows`` (run_general_rows.sql). Returns the first problem
    of each general-path input that has one."""
    problems = {}
    general = [index for index, lines in enumerate(inputs) if not lines.typed]
    relations.track("run_file_starts", "run_general_rows", "input_fields", "run_input", "run_batch")
    if len(general) < len(inputs):
        assert all(lines.file_index == index for index, lines in enumerate(inputs) if lines.typed)
        create_rows(con, "run_file_starts", {"file_index": "integer", "first_row": "bigint"},
                    [(index, lines.first_row if lines.typed else None) for index, lines in enumerate(inputs)])
    for index in general:
        staging.stage_lines(con, inputs[index], comments=True, skip_blank=True, empty_ok=True)
        staging.stage_rows(con, "run_input", "run_rows", {})
        problem = staging.first_problem(con, "run_problems")
        if problem is not None:
            problems[index] = problem
        rows = f"select * from (\n{sqlfiles.read('loaders/run_general_rows.sql')}\n)"
        parameters = {"file_index": index, "ranks_given": inputs[index].ranks_given}
        con.execute(f"create temp table if not exists run_general_rows as {rows} limit 0", parameters)
        con.execute(f"insert into run_general_rows {rows}", parameters)
        relations.drop("input_fields", "run_input")
    parts = [sqlfiles.read("loaders/run_fast_input.sql")] if len(general) < len(inputs) else []
    if general:
        parts.append("select * from run_general_rows")
    # The parts are pyeval's own SQL; the view reads only temporary relations of this load.
    con.execute("create or replace temp view run_batch as\n" + "\nunion all by name\n".join(
        f"(\n{part}\n)" for part in parts))
    return problems


def _run_names(
    con, campaign_id: str, inputs: list, names: list, summaries: dict, problems: dict, replace: bool
) -> list[str]:
    """Each input's run name, after its lines' checks, in input order: the first bad input is
    the one reported."""
    run_ids: list[str] = []
    for index, (lines, name) in enumerate(zip(inputs, names)):
        if index in problems:
            staging.raise_problem(lines.label, problems[index])
        may_have_duplicates, *_, first_tag = summaries[index]
        # the fast path's only possible problem (its lines have 6 typed fields); the general path's
        # lines were checked by run_problems.sql in check(), their docnos included
        if may_have_duplicates and lines.typed:
            # a run given without ranks (a Parquet file without a rank column) has null ranks,
            # which run_problems.sql would take for bad ones: only its duplicates are asked for
            con.execute("create or replace temp table run_input as select * replace "
                        "(coalesce(rank_given, 0) as rank_given) from run_batch "
                        "where file_index = $file_index", {"file_index": index})
            problem = staging.first_problem(con, "run_problems")  # the docnos themselves
            if problem is not None:  # else two docnos' hashes collided: no duplicate
                staging.raise_problem(lines.label, problem)
        run_id = name if name is not None else first_tag
        if run_id is None and isinstance(lines, columnar.ColumnarFile):
            run_id = lines.name  # no run tag column (ranx's runs): the file's name, as --run-names file
        if run_id is None:
            missing = (f"no run tag column ({', '.join(columnar.column(columnar.RUN_COLUMNS, 'run_tag').names)})"
                       if isinstance(lines, columnar.ColumnarFile) and lines.rows else "no run lines, so no run tag")
            raise InputFormatError(lines.label, None, f"{missing} to name the run by: give it a name (name=, --name)")
        if not run_id:
            raise InputFormatError(lines.label, None, "the run name is empty")
        require_printable(f"{lines.label}: run name", run_id)
        if run_id in run_ids:
            twice = f"{lines.label}: run '{run_id}' is loaded twice in this command; load such files one at a time"
            raise with_command_line(DataIntegrityError(f"{twice} with name= (load_campaign: run_names='file')"),
                                    f"{twice} with --name (pyeval load campaign: --run-names file)")
        run_ids.append(run_id)
    derived = replace and con.execute(  # a fused run is replaced or deleted only with its derivation (pyeval fuse)
        "select run_id from run_derivations where campaign_id = $campaign_id and list_contains($run_ids, run_id)",
        {"campaign_id": campaign_id, "run_ids": run_ids},
    ).fetchall()
    if derived:
        raise DataIntegrityError(
            f"run '{derived[0][0]}' of campaign '{campaign_id}' is a fused run: replace it with pyeval fuse "
            "--replace, or delete it with pyeval delete-run first")
    if not replace:
        existing = con.execute(
            "select run_id from runs where campaign_id = $campaign_id and list_contains($run_ids, run_id)",
            {"campaign_id": campaign_id, "run_ids": run_ids},
        ).fetchall()
        if existing:
            clash = {row[0] for row in existing}
            index = next(i for i, run_id in enumerate(run_ids) if run_id in clash)
            raise already_stored(
                f"{inputs[index].label}: campaign '{campaign_id}' already has a run named '{run_ids[index]}'",
                python_remedy="give another name (name=) or replace=True replaces it",
                cli_remedy="give another name (--name) or use --replace")
    return run_ids


#: About how many lines one insert statement stores (run_insert.sql's window holds them all).
_SLICE_LINES = 1_000_000

#: The fewest lines of one insert statement's runs for which sql/loaders/run_insert.sql takes ranks
#: from the file's order (the loaders and the trec_eval drop-in alike): on fewer lines the check
#: costs what it saves (docs/benchmarks.md, "Ranks from the file's order").
ORDER_CHECK_LINES = 1_000_000


def _slices(entries: list[int]) -> list[tuple[int, int]]:
    """Consecutive runs ``(first, last)`` (positions) of about :data:`_SLICE_LINES` lines each,
    at least one run each."""
    slices, first, lines = [], 0, 0
    for index, count in enumerate(entries):
        if lines and lines + count > _SLICE_LINES:
            slices.append((first, index - 1))
            first, lines = index, 0
        lines += count
    slices.append((first, len(entries) - 1))
    return slices


def _store(con, campaign_id: str, inputs: list, run_ids: list[str], summaries: dict) -> None:
    """Store the runs (replacing those of the same names) and all their entries in one statement
    (sql/loaders/run_insert.sql). A replaced run keeps its metadata; the scores stored for it
    stay in the archive, and the view scores hides them when the new content differs
    (sql/views/stale_results.sql)."""
    create_rows(
        con, "batch_runs",
        {"file_index": "integer", "run_id": "varchar", "run_tag": "varchar", "source_file": "varchar",
         "source_sha256": "varchar", "system": "varchar", "team": "varchar", "run_date": "date"},
        [(index, run_id, summaries[index][-1], lines.source_file, lines.sha256, None, None, None)
         for index, (lines, run_id) in enumerate(zip(inputs, run_ids))],
    )
    keys = {"campaign_id": campaign_id}
    try:
        con.execute(
            "update batch_runs set system = runs.system, team = runs.team, run_date = runs.run_date "
            "from runs where runs.campaign_id = $campaign_id and runs.run_id = batch_runs.run_id", keys)
        for table in ("run_entries", "runs"):  # table: a constant of this loop, never user input
            con.execute(f"delete from {table} where campaign_id = $campaign_id "
                        "and run_id in (select run_id from batch_runs)", keys)
        con.execute(
            "insert into runs (campaign_id, run_id, run_tag, source_file, source_sha256, system, team, run_date) "
            "select $campaign_id, run_id, run_tag, source_file, source_sha256, system, team, run_date "
            "from batch_runs order by file_index", keys)
        entries = [summaries[index][4] for index in range(len(inputs))]
        for first, last in _slices(entries):
            con.execute(sqlfiles.read("loaders/run_insert.sql"),
                        {**keys, "first_file": first, "last_file": last, "order_check_lines": ORDER_CHECK_LINES})
        archive.refresh(con, campaign_id)  # a replaced run's stored values turn stale
    finally:
        _drop_quietly(con, "batch_runs")


def _drop_quietly(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Drop pyeval's temporary ``table`` on the way out; when the transaction was aborted (a full
    disk), leave it to the rollback, so the error that stopped the load is the one reported and
    not DuckDB's "Current transaction is aborted"."""
    try:
        con.execute(f"drop table if exists {table}")  # table: pyeval's own constant name
    except duckdb.TransactionException:
        pass
