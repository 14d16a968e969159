"""Loading intents: NTCIR Iprob (``topic intent prob``) and DINprob (``... inf|nav``) files.

Probabilities are stored as given (NTCIREVAL does not renormalise); a topic whose
probabilities stray from 1 by more than 0.01 draws a warning. Reference: docs/input-files.md 6.2.
"""
from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import first_row, transaction
from ..errors import InputFormatError, InputWarning
from . import judgment_sets, staging
from .source import Lines, frame_lines, pick_column

if TYPE_CHECKING:
    import pandas as pd

PROBABILITY_SUM_TOLERANCE = 0.01


def _frame_lines(frame: pd.DataFrame) -> Lines:
    """Columns ``query_id, intent_id, prob[, intent_type]`` (docs/tool-rules.md 3.1)."""
    topic = pick_column(frame, ("query_id", "qid", "topic_id"), "topic")
    intent = pick_column(frame, ("intent_id", "iteration", "subtopic_id"), "intent")
    probability = pick_column(frame, ("prob", "probability"), "probability")
    kind = pick_column(frame, ("intent_type", "type"), "intent type", required=False)
    return frame_lines(frame, [topic, intent, probability, "inf" if kind is None else kind])


def intent_lines(frame: pd.DataFrame, read_from: str | os.PathLike[str]) -> Lines:
    """The intents of ``frame`` (as :func:`load_intents` takes them) as derived from the file
    ``read_from`` (a topics XML): errors and the stored provenance name that file instead of
    ``<DataFrame>``. The sha256 stays the one of the intents themselves, so that other generated
    probabilities from the same file count as a changed input."""
    path = Path(read_from)
    return dataclasses.replace(_frame_lines(frame), label=str(path), source_file=str(path.resolve()))


def load_intents(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    source: staging.Source | Lines | Sequence[staging.Source | Lines],
    *,
    replace: bool = False,
    judgment_set: str = "official",
) -> staging.LoadReport:
    """Load intent probabilities (and types) into an existing campaign: a file, a DataFrame,
    or the :func:`intent_lines` of one.

    ``source`` is a path or DataFrame, or a list of them (folders and glob patterns too), whose
    lines together are the campaign's intents: each file is checked on its own, then an intent
    listed by two files is refused, naming both places. ``judgment_set``: the campaign's
    judgment set the intents belong to (docs/judgments.md; a set other than ``official`` must
    have its qrels loaded first).

    Raises
    ------
    InputFormatError
        A bad line (field count, a probability that is not a number in [0, 1], a type other
        than inf/nav, an intent listed twice), or an intent that the campaign's qrels judge
        relevant but no file lists.
    DataIntegrityError
        The campaign has intents already and ``replace`` is false.
    """
    inputs = [staging.lines_of(one, _frame_lines) for one in staging.input_list(source, "intents")]
    with staging.TemporaryRelations(con) as relations, transaction(con):
        report, off = _store_intents(con, relations, campaign_id, inputs, replace, judgment_set)
    if off:
        topic, total = off[0]
        warnings.warn(
            f"{staging.batch_label(inputs)}: the probabilities of {len(off)} topics do not sum to 1 "
            f"(topic '{topic}': {total:.4f})",
            InputWarning,
            stacklevel=2,
        )
    return report


def _store_intents(
    con: duckdb.DuckDBPyConnection,
    relations: staging.TemporaryRelations,
    campaign_id: str,
    inputs: list[Lines],
    replace: bool,
    judgment_set: str = "official",
) -> tuple[staging.LoadReport, list[tuple]]:
    """Check each input, then the inputs together, and store them, inside the caller's
    transaction: the report, and the topics whose probabilities do not sum to 1."""
    label = staging.batch_label(inputs)
    staging.require_campaign(con, campaign_id, label)
    if judgment_set != "official":
        judgment_sets.check_judgment_set(con, campaign_id, judgment_set)
    def stage_one(lines: Lines) -> None:
        separator = staging.detect_separator(lines)
        staging.stage_lines(con, lines, separator=separator, comments=True, skip_blank=False)
        staging.stage_rows(con, "intent_input", "intent_rows", {})
        staging.raise_first_problem(con, lines.label, "intent_problems")

    staging.stage_each(
        con, relations, inputs, stage_one, "intent_input",
        "select file_index, line_number, row(topic_id, intent_id) as batch_key, null as batch_value "
        "from intent_batch where not is_blank",
        "intent listed already by",
    )
    missing = first_row(
        con, sqlfiles.read("loaders/intents_missing_from_file.sql"),
        {"campaign_id": campaign_id, "judgment_set": judgment_set}
    )
    if missing is not None:
        raise InputFormatError(
            label,
            None,
            f"intent '{missing[1]}' of topic '{missing[0]}' is judged relevant in the qrels "
            "but not listed",
        )
    staging.clear_for_replace(con, "intents_by_set", campaign_id, label, "intents", replace, judgment_set)
    keys = {"campaign_id": campaign_id, "judgment_set": judgment_set}
    con.execute(sqlfiles.read("loaders/intent_insert.sql"), keys)
    rows, topics = first_row(
        con, "select count(*), count(distinct topic_id) from intent_input where not is_blank"
    )
    off = con.execute(
        sqlfiles.read("loaders/intent_probability_sums.sql"),
        {"tolerance": PROBABILITY_SUM_TOLERANCE},
    ).fetchall()
    provenance = staging.combined_provenance(inputs)
    staging.record_input(con, campaign_id, "intents", provenance, rows, judgment_set)
    if judgment_set == "official":
        staging.refresh_topics(con, campaign_id)
    report = staging.LoadReport("intents", campaign_id, provenance.source_file, provenance.sha256, rows, topics)
    return report, off
