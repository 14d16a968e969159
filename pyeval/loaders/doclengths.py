"""Loading document lengths (``docno length``, in characters) for the U-measure family.

Format: shared/reference/formats.md section 7. Lengths are per collection (campaign), not
per topic; identical duplicate lines are stored once, conflicting ones are an error.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb

from .. import sqlfiles
from ..db import first_row, transaction
from ..errors import already_stored
from . import staging
from .source import Lines, frame_lines, pick_column

if TYPE_CHECKING:
    import pandas as pd


def _frame_lines(frame: pd.DataFrame) -> Lines:
    """Columns ``doc_id, length`` (or PyTerrier's ``docno``)."""
    doc = pick_column(frame, ("doc_id", "docno"), "document")
    length = pick_column(frame, ("length",), "length")
    return frame_lines(frame, [doc, length])


def load_doclengths(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    source: staging.Source,
    *,
    replace: bool = False,
) -> staging.LoadReport:
    """Load document lengths into an existing campaign.

    Raises
    ------
    InputFormatError
        A line without exactly 2 fields, a length that is not a non-negative integer, or two
        different lengths for one document.
    DataIntegrityError
        The campaign has lengths already and ``replace`` is false.
    """
    lines = staging.lines_of(source, _frame_lines)
    with transaction(con):
        staging.require_campaign(con, campaign_id, lines.label)
        staging.stage_lines(con, lines, comments=True, skip_blank=True)
        staging.stage_rows(con, "doclength_input", "doclength_rows", {})
        staging.raise_first_problem(con, lines.label, "doclength_problems")
        keys = {"campaign_id": campaign_id}
        if first_row(con, "select count(*) from document_lengths where campaign_id = $campaign_id", keys)[0]:
            if not replace:
                raise already_stored(f"{lines.label}: campaign '{campaign_id}' already has document lengths",
                                     them=True)
            con.execute("delete from document_lengths where campaign_id = $campaign_id", keys)
        con.execute(sqlfiles.read("loaders/doclength_insert.sql"), keys)
        rows = first_row(con, "select count(distinct doc_id) from doclength_input")[0]
        staging.record_input(con, campaign_id, "doclengths", lines, rows)
        staging.drop_staging(con, "doclength_input")
    return staging.LoadReport("doclengths", campaign_id, lines.source_file, lines.sha256, rows, 0)
