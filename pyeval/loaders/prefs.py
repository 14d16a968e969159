"""Preference judgments (trec_eval ``-R prefs`` and ``-R qrels_prefs``), staged for one evaluation.

A preference file has lines ``topic jg jsg docno rel_level`` (trec_eval 10.0 get_prefs.c):
within judgment group ``jg`` and sub-group ``jsg`` a document is preferred to every document
with a lower ``rel_level``; a judgment group's sub-groups combine transitively. ``qrels_prefs``
reads an ordinary qrels file ``topic iter docno level`` the same way, with ``iter`` as the
judgment group and one sub-group ``0`` (get_qrels_prefs.c).

Preferences are not stored in the warehouse's tables: :func:`stage_preferences` checks a file
and leaves it in the temporary table ``evaluation_preferences`` (topic_id, jg, jsg, doc_id,
rel_level), with its transitive closure ``preference_closure``; sql/metrics/
metric_preferences.sql reads both.
"""
from __future__ import annotations

import os

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import first_row
from ..errors import InputFormatError
from . import staging
from .source import read_lines

PREFS_FORMATS = ("prefs", "qrels_prefs")
_LAYOUTS = {
    "prefs": (5, "topic jg jsg docno rel_level", 4),
    "qrels_prefs": (4, "topic jg docno rel_level", 0),
}


def stage_preferences(
    con: duckdb.DuckDBPyConnection, path: str | os.PathLike[str], *, format: str = "prefs"
) -> int:
    """Read a preference file (``format`` prefs or qrels_prefs) into the temporary table
    ``evaluation_preferences``, replacing any earlier one; returns its number of judgments.

    Raises
    ------
    InputFormatError
        ``FILE:LINE: ...`` for a bad line: a wrong number of fields, a level that is not a
        number, a level 0 and a level > 0 for one document in one judgment group; ``FILE: ...``
        for preferences that conflict (A > B and B > A within one judgment group).
    DuplicateEntryError
        A document listed twice in one judgment sub-group.
    """
    if format not in PREFS_FORMATS:
        raise ValueError(f"format must be one of {', '.join(PREFS_FORMATS)}; got {format!r}")
    field_count, layout, sub_group_field = _LAYOUTS[format]
    lines = read_lines(path)
    staging.stage_lines(con, lines, comments=True, skip_blank=False)
    try:
        staging.stage_rows(con, "prefs_input", "prefs_rows", {"sub_group_field": sub_group_field})
        staging.raise_first_problem(
            con, lines.label, "prefs_problems", {"field_count": field_count, "layout": layout}
        )
        con.execute(
            "create or replace temp table evaluation_preferences as "
            "select topic_id, jg, jsg, doc_id, rel_level from prefs_input where not is_blank"
        )
        stage_closure(con)
        conflict = first_row(con, sqlfiles.read("loaders/prefs_conflicts.sql"))
        if conflict is not None:
            drop_preferences(con)
            topic, group, first, second = conflict
            raise InputFormatError(
                lines.label, None,
                f"topic '{topic}', judgment group '{group}': its sub-groups prefer '{first}' to "
                f"'{second}' and '{second}' to '{first}' (inconsistent preferences)",
            )
        return first_row(con, "select count(*) from evaluation_preferences")[0]
    finally:
        staging.drop_staging(con, "prefs_input")


def stage_closure(con: duckdb.DuckDBPyConnection) -> None:
    """The transitive closure of the staged ``evaluation_preferences`` (judgment groups with
    several sub-groups), as the temporary table ``preference_closure``."""
    con.execute(
        "create or replace temp table preference_closure as\n"
        + sqlfiles.read("evaluation/preference_closure.sql")
    )


def drop_preferences(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("drop table if exists evaluation_preferences")
    con.execute("drop table if exists preference_closure")
