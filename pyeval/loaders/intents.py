"""Loading intents: NTCIR Iprob (``topic intent prob``) and DINprob (``... inf|nav``) files.

Probabilities are stored as given (NTCIREVAL does not renormalise); a topic whose
probabilities stray from 1 by more than 0.01 draws a warning. Reference: formats.md 6.2.
"""
from __future__ import annotations

import dataclasses
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from .. import sqlfiles
from ..db import first_row, transaction
from ..errors import InputFormatError, InputWarning, already_stored
from . import staging
from .source import Lines, frame_lines, pick_column

if TYPE_CHECKING:
    import pandas as pd

PROBABILITY_SUM_TOLERANCE = 0.01


def _frame_lines(frame: pd.DataFrame) -> Lines:
    """Columns ``query_id, intent_id, prob[, intent_type]`` (conventions.md 3.1)."""
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
    source: staging.Source | Lines,
    *,
    replace: bool = False,
) -> staging.LoadReport:
    """Load intent probabilities (and types) into an existing campaign: a file, a DataFrame,
    or the :func:`intent_lines` of one.

    Raises
    ------
    InputFormatError
        A bad line (field count, a probability that is not a number in [0, 1], a type other
        than inf/nav, an intent listed twice), or an intent that the campaign's qrels judge
        relevant but the file does not list.
    DataIntegrityError
        The campaign has intents already and ``replace`` is false.
    """
    lines = staging.lines_of(source, _frame_lines)
    with transaction(con):
        staging.require_campaign(con, campaign_id, lines.label)
        separator = staging.detect_separator(lines)
        staging.stage_lines(con, lines, separator=separator, comments=True, skip_blank=False)
        staging.stage_rows(con, "intent_input", "intent_rows", {})
        staging.raise_first_problem(con, lines.label, "intent_problems")
        missing = first_row(
            con, sqlfiles.read("loaders/intents_missing_from_file.sql"), {"campaign_id": campaign_id}
        )
        if missing is not None:
            raise InputFormatError(
                lines.label,
                None,
                f"intent '{missing[1]}' of topic '{missing[0]}' is judged relevant in the qrels "
                "but not listed",
            )
        keys = {"campaign_id": campaign_id}
        if first_row(con, "select count(*) from intents where campaign_id = $campaign_id", keys)[0]:
            if not replace:
                raise already_stored(f"{lines.label}: campaign '{campaign_id}' already has intents", them=True)
            con.execute("delete from intents where campaign_id = $campaign_id", keys)
        con.execute(sqlfiles.read("loaders/intent_insert.sql"), keys)
        rows, topics = first_row(
            con, "select count(*), count(distinct topic_id) from intent_input where not is_blank"
        )
        off = con.execute(
            sqlfiles.read("loaders/intent_probability_sums.sql"),
            {"tolerance": PROBABILITY_SUM_TOLERANCE},
        ).fetchall()
        staging.record_input(con, campaign_id, "intents", lines, rows)
        staging.refresh_topics(con, campaign_id)
        staging.drop_staging(con, "intent_input")
    if off:
        topic, total = off[0]
        warnings.warn(
            f"{lines.label}: the probabilities of {len(off)} topics do not sum to 1 "
            f"(topic '{topic}': {total:.4f})",
            InputWarning,
            stacklevel=2,
        )
    return staging.LoadReport("intents", campaign_id, lines.source_file, lines.sha256, rows, topics)
