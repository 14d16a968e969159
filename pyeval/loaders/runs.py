"""Loading runs: TREC 6-column result files (or DataFrames) into run_entries.

Every line is kept with its rank as given, its score (parsed as a double) and its line
number, so that any ordering policy (trec_eval, rank column, file order) can be applied later.
Conventions: shared/reference/formats.md section 3, summarised in docs/loading.md.
"""
from __future__ import annotations

import datetime
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from .. import sqlfiles
from ..db import first_row
from ..errors import DataIntegrityError, InputFormatError, InputWarning, PyevalError
from . import staging
from .source import Lines, StagedFile, frame_lines, pick_column

if TYPE_CHECKING:
    import pandas as pd

#: The fields of a TREC run line as the fast path reads them (sql/loaders/run_fast_rows.sql).
RUN_FIELDS = ("topic_id", "iter", "doc_id", "rank_text", "score_text", "run_tag")


def _read_run(source: staging.Source, relations: staging.TemporaryRelations) -> Lines | StagedFile:
    """A run's rows: staged by DuckDB when the file fits the fast path, else its raw lines."""
    return relations.read(source, _frame_lines, RUN_FIELDS, "run_fast_rows")


def _frame_lines(frame: pd.DataFrame) -> Lines:
    """ir_measures columns (query_id, doc_id, score[, rank, run_id]) or PyTerrier's (qid,
    docno, score[, rank]). Without a rank column, ranks follow the frame's order per topic."""
    topic = pick_column(frame, ("query_id", "qid", "topic_id"), "topic")
    doc = pick_column(frame, ("doc_id", "docno"), "document")
    score = pick_column(frame, ("score",), "score")
    rank = pick_column(frame, ("rank", "rank_given"), "rank", required=False)
    if rank is None:
        rank = topic.groupby(topic, sort=False).cumcount().add(1).rename("rank")
    tag = pick_column(frame, ("run_id", "name"), "run id", required=False)
    return frame_lines(frame, [topic, "Q0", doc, rank, score, "frame" if tag is None else tag])


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
    with staging.transaction(con):
        found = first_row(con, "select count(*) from runs where campaign_id = $c and run_id = $r",
                          {"c": campaign_id, "r": run_id})[0]
        if not found:
            raise PyevalError(f"campaign '{campaign_id}' has no run named '{run_id}'")
        _annotate(con, campaign_id, run_id, metadata)
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


def _annotate(con, campaign_id: str, run_id: str, metadata: RunMetadata) -> None:
    keys = {"campaign_id": campaign_id, "run_id": run_id}
    con.execute(
        "update runs set system = coalesce($system, system), team = coalesce($team, team), "
        "run_date = coalesce($run_date, run_date) where campaign_id = $campaign_id and run_id = $run_id",
        {**keys, "system": metadata.system, "team": metadata.team, "run_date": _run_date(metadata.run_date)},
    )
    if metadata.clear_tags:
        con.execute("delete from run_tags where campaign_id = $campaign_id and run_id = $run_id", keys)
    if metadata.tags:
        con.execute(
            "insert or ignore into run_tags (campaign_id, run_id, tag) "
            "select $campaign_id, $run_id, unnest($tags)",
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
) -> staging.LoadReport:
    """Load one run into an existing campaign; see :func:`load_runs`."""
    return load_runs(con, campaign_id, [source], names=[name], replace=replace, metadata=metadata)[0]


def load_runs(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    sources: Sequence[staging.Source],
    *,
    names: Sequence[str | None] | None = None,
    replace: bool = False,
    metadata: RunMetadata | None = None,
) -> list[staging.LoadReport]:
    """Load runs into ``campaign_id``, all in one transaction (all or nothing).

    Parameters
    ----------
    sources
        Paths of TREC run files (``topic iter docno rank score tag``, ``.gz`` accepted) or
        DataFrames (``query_id, doc_id, score[, rank, run_id]``).
    names
        Run names, one per source; ``None`` takes the run tag of the file's first line
        (trec_eval takes the last, ndeval the first; files of several systems often share a
        tag, so name them).
    replace
        Replace a run of the same name instead of refusing. The scores stored for the old run
        stay in ``score_history``; ``scores`` no longer shows them unless the new file has the
        same content (sha256). The run's metadata and tags are kept.
    metadata
        System, team, date and tags given to every run loaded (see :func:`annotate_run`).

    Raises
    ------
    InputFormatError
        A bad line: fewer than 6 fields, a rank that is not an integer, a score that is not a
        finite number, a document retrieved twice for a topic.
    UnknownCampaignError
        The campaign does not exist.
    DataIntegrityError
        The run name exists already (without ``replace``) or appears twice among the sources.
    """
    names = list(names) if names is not None else [None] * len(sources)
    if len(names) != len(sources):
        raise ValueError("names must give one name (or None) per source")
    reports = []
    loaded_names: set[str] = set()
    with staging.TemporaryRelations(con) as relations:
        all_lines = [_read_run(source, relations) for source in sources]
        with staging.transaction(con):
            for lines, name in zip(all_lines, names):
                staging.require_campaign(con, campaign_id, lines.label)
                report = _load_one(con, relations, campaign_id, lines, name, replace, loaded_names)
                if metadata is not None:
                    _annotate(con, campaign_id, report.name, metadata)
                loaded_names.add(report.name)
                reports.append(report)
    for lines, report in zip(all_lines, reports):
        if report.tags > 1:
            warnings.warn(
                f"{lines.label}: the file carries {report.tags} different run tags; "
                f"it is loaded as one run, '{report.name}'",
                InputWarning,
                stacklevel=2,
            )
    return reports


def _load_one(
    con, relations: staging.TemporaryRelations, campaign_id, lines: Lines | StagedFile, name, replace, loaded_names
) -> staging.LoadReport:
    if lines.typed:
        relations.expose(lines)
        relations.view("run_input", "run_fast_input")
    else:
        relations.track("input_fields", "run_input")
        staging.stage_lines(con, lines, comments=True, skip_blank=True)
        staging.stage_rows(con, "run_input", "run_rows", {})
        staging.raise_first_problem(con, lines.label, "run_problems")
    has_duplicates, run_topics, unjudged, missing, entries, distinct_tags, first_tag = first_row(
        con, sqlfiles.read("loaders/run_summary.sql"), {"campaign_id": campaign_id}
    )
    if has_duplicates:  # the fast path's only possible problem (its lines have 6 typed fields)
        staging.raise_first_problem(con, lines.label, "run_problems")
    run_id = name if name is not None else first_tag
    if not run_id:
        raise InputFormatError(lines.label, None, "the run name is empty")
    if run_id in loaded_names:
        raise DataIntegrityError(
            f"{lines.label}: run '{run_id}' is loaded twice in this command; load such files one at a time with --name"
        )
    exists = first_row(
        con,
        "select count(*) from runs where campaign_id = $campaign_id and run_id = $run_id",
        {"campaign_id": campaign_id, "run_id": run_id},
    )[0]
    if exists and not replace:
        raise DataIntegrityError(
            f"{lines.label}: campaign '{campaign_id}' already has a run named '{run_id}'; "
            "give another name (--name) or use --replace"
        )
    keys = {"campaign_id": campaign_id, "run_id": run_id}
    con.execute("delete from run_entries where campaign_id = $campaign_id and run_id = $run_id", keys)
    # Stored scores of a replaced run stay (the archive is never rewritten); the view scores
    # hides them when the new content differs (sql/views/stale_results.sql).
    old = first_row(con, "select system, team, run_date from runs where campaign_id = $campaign_id "
                    "and run_id = $run_id", keys) or (None, None, None)
    con.execute("delete from runs where campaign_id = $campaign_id and run_id = $run_id", keys)
    con.execute(
        "insert into runs (campaign_id, run_id, run_tag, source_file, source_sha256, system, team, run_date) "
        "values ($campaign_id, $run_id, $run_tag, $source_file, $sha256, $system, $team, $run_date)",
        {**keys, "run_tag": first_tag, "source_file": lines.source_file, "sha256": lines.sha256,
         "system": old[0], "team": old[1], "run_date": old[2]},
    )
    con.execute(sqlfiles.read("loaders/run_insert.sql"), keys)
    relations.drop("run_input", "input_fields")  # the next file stages its own
    notes = []
    if unjudged:
        notes.append(f"{unjudged} of its topics have no judgments (ignored by evaluation)")
    if missing:
        notes.append(f"{missing} judged topics are missing from it (they score 0)")
    return staging.LoadReport(
        "run", campaign_id, lines.source_file, lines.sha256, entries, run_topics,
        name=run_id, notes=notes, tags=distinct_tags,
    )
