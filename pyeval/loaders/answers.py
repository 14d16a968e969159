"""Loading generated answers (docs/rag.md "Formats" and "Loading"): TREC RAG 2024 and 2025
answer files (JSON lines; ragnarok's rag24/rag25 validators, castorini/ragnarok) or an answers
TSV file, into ``answers``, ``answer_sentences``, ``answer_citations`` and ``answer_references``.

Answers belong to runs: a run the campaign does not have is created (its source the answer file);
a run it has (its ranked list loaded from a TREC run file, say) keeps its row and entries, and
gets its answers beside them, so that a team's retrieval and answer scores join on the run.
"""
from __future__ import annotations

import os

import duckdb

from pyeval.core import archive, sqlfiles
from pyeval.core.db import first_row, transaction
from ..errors import already_stored
from . import rag_files
from .staging import LoadReport, TemporaryRelations, require_campaign

#: The tables of answers, the order their rows are deleted in and their insert files.
ANSWER_TABLES = (("answer_citations", "answer_citation_insert"), ("answer_references", "answer_reference_insert"),
                 ("answer_sentences", "answer_sentence_insert"), ("answers", "answer_insert"))


def load_answers(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    source: str | os.PathLike[str],
    *,
    format: str = "auto",
    replace: bool = False,
) -> LoadReport:
    """Load the answers of one or more runs from a TREC RAG answer file (2024 or 2025) or an
    answers TSV file into an existing campaign, in one transaction.

    format
        ``auto`` (JSON lines when the first line is a JSON object, else TSV), ``jsonl`` or ``tsv``.
    replace
        Replace every answer of the file's runs that the campaign holds (their runs' rows and
        ranked lists are kept); without it, a run that has answers already is refused.

    Raises
    ------
    InputFormatError
        A bad line (not a JSON object, no run or topic id, a citation index outside the
        references, a sentence without text, an answer given twice), naming file and line.
    DataIntegrityError
        A run of the file has answers in the campaign and ``replace`` is false.
    UnknownCampaignError
        The campaign does not exist.
    """
    with TemporaryRelations(con) as relations:
        staged = rag_files.stage_file(con, relations, source, format)
        stage(con, relations, staged)
        with transaction(con):
            require_campaign(con, campaign_id, staged.label)
            stored = first_row(
                con, "select answer_input.run_id from answer_input where answer_input.run_id in "
                     "(select run_id from answers where campaign_id = $c) order by line_number limit 1",
                {"c": campaign_id})
            if stored is not None:
                if not replace:
                    raise already_stored(f"{staged.label}: campaign '{campaign_id}' already has answers of run "
                                         f"'{stored[0]}'", them=True)
                for table, _ in ANSWER_TABLES:  # table: a constant of this module
                    con.execute(f"delete from {table} where campaign_id = $c "
                                "and run_id in (select run_id from answer_input)", {"c": campaign_id})
            store(con, campaign_id, staged)
            rows, topics, runs = first_row(
                con, "select count(*), count(distinct topic_id), count(distinct run_id) from answer_input")
    return LoadReport("answers", campaign_id, staged.source_file, staged.sha256, rows, topics,
                      notes=[f"{runs} run{'s' if runs != 1 else ''}",
                             f"format {'trec-rag' if staged.format == rag_files.JSONL else 'tsv'}"])


def stage(con: duckdb.DuckDBPyConnection, relations: TemporaryRelations, staged: rag_files.RagFile) -> None:
    """Stage the answers of a TREC RAG or TSV file as ``answer_input``, ``answer_sentence_input``,
    ``answer_citation_input`` and ``answer_reference_input``; raise for its first bad line."""
    if staged.format == rag_files.JSONL:
        rag_files.stage_rows(con, relations, "answer_records", "answer_json_records")
        rag_files.stage_rows(con, relations, "answer_sentence_input", "answer_json_sentences")
        rag_files.stage_rows(con, relations, "answer_reference_input", "answer_json_references")
        rag_files.stage_rows(con, relations, "answer_citation_input", "answer_json_citations")
        rag_files.stage_rows(con, relations, "answer_input", "answer_json_input")
        checks = [("answer_record_problems", {})]
    else:
        fields = rag_files.tsv_columns(staged, ("run_id", "topic_id", "sentence_number", "text"), ("citations",))
        rag_files.stage_rows(con, relations, "answer_sentence_input", "answer_tsv_sentences", {
            "run_field": fields["run_id"], "topic_field": fields["topic_id"],
            "sentence_field": fields["sentence_number"], "text_field": fields["text"],
            "citations_field": fields["citations"], **rag_files.tsv_parameters(staged)})
        rag_files.stage_rows(con, relations, "answer_citation_input", "answer_tsv_citations")
        rag_files.stage_rows(con, relations, "answer_reference_input", "answer_tsv_references")
        rag_files.stage_rows(con, relations, "answer_input", "answer_tsv_input")
        checks = []
    rag_files.raise_first_problem(con, staged.label, [*checks, ("answer_problems", {})])


def store(con: duckdb.DuckDBPyConnection, campaign_id: str, staged: rag_files.RagFile, *,
          refresh: bool = True) -> None:
    """Store the staged answers (inside the caller's transaction): their runs first (created
    when new, a missing team filled in), then the four tables, and the topic texts as titles of
    topics without one; stored values turn stale (unless ``refresh`` is false: the caller
    refreshes them)."""
    provenance = {"campaign_id": campaign_id, "source_file": staged.source_file, "sha256": staged.sha256}
    con.execute(sqlfiles.read("loaders/answer_runs_insert.sql"), provenance)
    con.execute(sqlfiles.read("loaders/answer_runs_team.sql"), {"campaign_id": campaign_id})
    for _, insert in reversed(ANSWER_TABLES):  # insert: a constant of this module
        con.execute(sqlfiles.read(f"loaders/{insert}.sql"),
                    provenance if insert == "answer_insert" else {"campaign_id": campaign_id})
    con.execute(sqlfiles.read("loaders/answer_topic_texts.sql"),
                {"campaign_id": campaign_id, "source_file": staged.source_file})
    if refresh:
        archive.refresh(con, campaign_id)
