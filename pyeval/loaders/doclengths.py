"""Loading document lengths (``docno length``, in characters) for the U-measure family.

Format: docs/input-files.md section 7. Lengths are per collection (campaign), not
per topic; identical duplicate lines are stored once, conflicting ones are an error.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import first_row, transaction
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
    source: staging.Source | Sequence[staging.Source],
    *,
    replace: bool = False,
) -> staging.LoadReport:
    """Load document lengths into an existing campaign.

    ``source`` is a path or DataFrame, or a list of them (folders and glob patterns too), whose
    lines together are the campaign's lengths: each file is checked on its own, then a
    document given two different lengths by two files is refused, naming both places
    (identical lengths are stored once, as within a file).

    Raises
    ------
    InputFormatError
        A line without exactly 2 fields, a length that is not a non-negative integer, or two
        different lengths for one document.
    DataIntegrityError
        The campaign has lengths already and ``replace`` is false.
    """
    inputs = [staging.lines_of(one, _frame_lines) for one in staging.input_list(source, "document lengths")]
    label = staging.batch_label(inputs)

    def stage_one(lines: Lines) -> None:
        staging.stage_lines(con, lines, comments=True, skip_blank=True)
        staging.stage_rows(con, "doclength_input", "doclength_rows", {})
        staging.raise_first_problem(con, lines.label, "doclength_problems")

    with staging.TemporaryRelations(con) as relations, transaction(con):
        staging.require_campaign(con, campaign_id, label)
        staging.stage_each(
            con, relations, inputs, stage_one, "doclength_input",
            "select file_index, line_number, doc_id as batch_key, length as batch_value from doclength_batch",
            "a different length for this document is given by", conflicts_only=True,
        )
        staging.clear_for_replace(con, "document_lengths", campaign_id, label, "document lengths", replace)
        keys = {"campaign_id": campaign_id}
        con.execute(sqlfiles.read("loaders/doclength_insert.sql"), keys)
        rows = first_row(con, "select count(distinct doc_id) from doclength_input")[0]
        provenance = staging.combined_provenance(inputs)
        staging.record_input(con, campaign_id, "doclengths", provenance, rows)
    return staging.LoadReport("doclengths", campaign_id, provenance.source_file, provenance.sha256, rows, 0)
