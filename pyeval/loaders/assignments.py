"""Loading the judgments of generated answers (docs/rag.md "Formats" and "Loading"): nugget
assignments (nuggetizer's assign output in answers mode, Pradeep et al., arXiv 2411.09607; or an
assignments TSV file) into ``nugget_assignments``, and citation support judgments (a TSV file;
the support evaluation of TREC RAG, arXiv 2504.15205) into ``citation_support``.

An assignment set and a support set are judgment sets (``judgment_sets`` holds their kind, judge
and provenance; pyeval/loaders/judgment_sets.py): ``--judgments NAME``, default the campaign's
default set. Every assignment of one set labels the nuggets of one bank.
"""
from __future__ import annotations

import os

import duckdb

from pyeval.core import archive, sqlfiles
from pyeval.core.db import first_row, transaction
from .. import vocabulary
from ..errors import DataIntegrityError, PyevalError, already_stored
from ..vocabulary import names
from . import answers, judgment_sets, rag_files
from .judgment_sets import SetProvenance
from .nuggets import bank_names, check_bank_name
from .staging import LoadReport, TemporaryRelations, require_campaign

LABELS = names(vocabulary.NUGGET_LABELS)
SUPPORT_LABELS = names(vocabulary.SUPPORT_LABELS)


def load_assignments(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    source: str | os.PathLike[str],
    *,
    judgment_set: str | None = None,
    bank: str | None = None,
    format: str = "auto",
    provenance: SetProvenance | None = None,
    replace: bool = False,
) -> LoadReport:
    """Load nugget assignments into an existing campaign as assignment set ``judgment_set``, in
    one transaction.

    judgment_set
        The assignment set (a judgment set); default the campaign's default set (``official``
        unless changed). A set new to the campaign is recorded with ``provenance`` (kind human
        unless given, judge, guideline sha256, description); a set it has keeps its record.
    bank
        The bank whose nuggets are labelled; default the campaign's only bank.
    format
        ``auto`` (JSON lines when the first line is a JSON object, else TSV), ``jsonl`` or ``tsv``.
    replace
        Replace the set's assignments (of whatever bank); without it, a set that has assignments
        already is refused.

    nuggetizer's assign output names each nugget by its text and carries each run's answer: the
    answers the campaign does not have are stored (their text as one sentence, their length),
    creating runs it does not have. A TSV file names nuggets by id, and its runs must exist.

    Raises
    ------
    InputFormatError
        A bad line (not a JSON object, a nugget the bank lacks for the topic, a label other than
        support, partial_support or not_support, a nugget labelled twice for one answer), naming
        file and line.
    DataIntegrityError
        The set has assignments and ``replace`` is false.
    """
    provenance = provenance or SetProvenance()
    judgment_sets.check_provenance(provenance)
    with TemporaryRelations(con) as relations:
        staged = rag_files.stage_file(con, relations, source, format)
        if staged.format == rag_files.JSONL:
            rag_files.stage_rows(con, relations, "assignment_records", "assignment_json_records")
            rag_files.stage_rows(con, relations, "assignment_input", "assignment_json_input", view=True)
        else:
            fields = rag_files.tsv_columns(staged, ("run_id", "topic_id", "nugget_id", "label"), ("assessor",))
            rag_files.stage_rows(con, relations, "assignment_input", "assignment_tsv_input", {
                "run_field": fields["run_id"], "topic_field": fields["topic_id"], "nugget_field": fields["nugget_id"],
                "label_field": fields["label"], "assessor_field": fields["assessor"],
                **rag_files.tsv_parameters(staged)})
        with transaction(con):
            require_campaign(con, campaign_id, staged.label)
            judgment_set = _judgment_set(con, campaign_id, judgment_set)
            bank = _bank(con, campaign_id, bank, staged.label)
            keys = {"campaign_id": campaign_id, "bank": bank}
            rag_files.stage_rows(con, relations, "assignment_resolved", "assignment_resolved",
                                 {**keys, "assessor": provenance.judge})
            rag_files.raise_first_problem(con, staged.label, [
                *([("assignment_record_problems", {})] if staged.format == rag_files.JSONL else []),
                ("assignment_problems", {"campaign_id": campaign_id, "labels": list(LABELS),
                                         "runs_required": staged.format != rag_files.JSONL,
                                         "answer_per_line": staged.format == rag_files.JSONL})])
            _clear_set(con, "nugget_assignments", "nugget assignments", campaign_id, judgment_set,
                       staged.label, replace, bank)
            if staged.format == rag_files.JSONL:
                _store_answers(con, relations, campaign_id, staged)
            con.execute(sqlfiles.read("loaders/assignment_insert.sql"),
                        {**keys, "judgment_set": judgment_set, "source_file": staged.source_file,
                         "sha256": staged.sha256})
            _record_set(con, campaign_id, judgment_set, provenance, staged)
            archive.refresh(con, campaign_id)
            rows, topics = first_row(con, "select count(*), count(distinct topic_id) from assignment_resolved")
    return LoadReport("assignments", campaign_id, staged.source_file, staged.sha256, rows, topics,
                      notes=[f"judgment set {judgment_set}", f"bank {bank}",
                             f"format {'nuggetizer' if staged.format == rag_files.JSONL else 'tsv'}"])


def load_support(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    source: str | os.PathLike[str],
    *,
    judgment_set: str | None = None,
    format: str = "auto",
    provenance: SetProvenance | None = None,
    replace: bool = False,
) -> LoadReport:
    """Load citation support judgments (a TSV file) into an existing campaign as judgment set
    ``judgment_set`` (default the campaign's default set), in one transaction; each judges a
    citation of a stored answer. ``provenance`` records a set new to the campaign; ``replace``
    replaces the set's support judgments.

    Raises
    ------
    InputFormatError
        A bad line (a label other than full, partial or none, a sentence the campaign does not
        store, a document the sentence does not cite, a citation judged twice), naming file and
        line.
    DataIntegrityError
        The set has support judgments and ``replace`` is false.
    """
    provenance = provenance or SetProvenance()
    judgment_sets.check_provenance(provenance)
    with TemporaryRelations(con) as relations:
        staged = rag_files.stage_file(con, relations, source, format)
        if staged.format != rag_files.TSV:
            raise PyevalError(f"{staged.label}: citation support judgments are read from TSV files "
                              "(docs/rag.md \"Formats\"); this one is JSON lines")
        fields = rag_files.tsv_columns(staged, ("run_id", "topic_id", "sentence_number", "doc_id", "label"),
                                       ("assessor",))
        rag_files.stage_rows(con, relations, "support_input", "support_tsv_input", {
            "run_field": fields["run_id"], "topic_field": fields["topic_id"],
            "sentence_field": fields["sentence_number"], "doc_field": fields["doc_id"],
            "label_field": fields["label"], "assessor_field": fields["assessor"], "assessor": provenance.judge,
            **rag_files.tsv_parameters(staged)})
        with transaction(con):
            require_campaign(con, campaign_id, staged.label)
            judgment_set = _judgment_set(con, campaign_id, judgment_set)
            rag_files.raise_first_problem(con, staged.label, [
                ("support_problems", {"campaign_id": campaign_id, "labels": list(SUPPORT_LABELS)})])
            _clear_set(con, "citation_support", "citation support judgments", campaign_id, judgment_set,
                       staged.label, replace)
            con.execute(sqlfiles.read("loaders/support_insert.sql"),
                        {"campaign_id": campaign_id, "judgment_set": judgment_set,
                         "source_file": staged.source_file, "sha256": staged.sha256})
            _record_set(con, campaign_id, judgment_set, provenance, staged)
            archive.refresh(con, campaign_id)
            rows, topics = first_row(con, "select count(*), count(distinct topic_id) from support_input")
    return LoadReport("support", campaign_id, staged.source_file, staged.sha256, rows, topics,
                      notes=[f"judgment set {judgment_set}"])


def _judgment_set(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str | None) -> str:
    """The set named, checked, or the campaign's default set."""
    if judgment_set is None:
        return first_row(con, "select default_judgment_set from campaigns where campaign_id = $c",
                         {"c": campaign_id})[0]
    judgment_sets.check_name(judgment_set)
    return judgment_set


def _bank(con: duckdb.DuckDBPyConnection, campaign_id: str, bank: str | None, label: str) -> str:
    """The bank named (which the campaign must have), or the campaign's only bank."""
    banks = bank_names(con, campaign_id)
    if bank is not None:
        check_bank_name(bank)
        if bank not in banks:
            raise DataIntegrityError(f"{label}: campaign '{campaign_id}' has no nugget bank '{bank}'"
                                     + (f"; its banks: {', '.join(banks)}" if banks else "; load its nuggets first"))
        return bank
    if len(banks) == 1:
        return banks[0]
    if not banks:
        raise DataIntegrityError(f"{label}: campaign '{campaign_id}' has no nugget bank; load its nuggets first "
                                 "(pyeval load nuggets)")
    error = DataIntegrityError(f"{label}: campaign '{campaign_id}' has {len(banks)} nugget banks "
                               f"({', '.join(banks)}): name one (bank=)")
    error.command_line = (f"{label}: campaign '{campaign_id}' has {len(banks)} nugget banks ({', '.join(banks)}): "
                          "name one (--bank)")
    raise error


def _clear_set(con: duckdb.DuckDBPyConnection, table: str, what: str, campaign_id: str, judgment_set: str,
               label: str, replace: bool, bank: str | None = None) -> None:
    """A judgment set holds one load of ``what``: refuse a second unless ``replace``, and with
    it delete the set's rows of ``table`` (a constant of this module). For assignments the
    message names the bank the set labels when it is another one (a set names one bank)."""
    keys = {"c": campaign_id, "s": judgment_set}
    held = first_row(con, f"select count(*), min(bank) from {table} where campaign_id = $c and judgment_set = $s"
                     if table == "nugget_assignments" else
                     f"select count(*), null from {table} where campaign_id = $c and judgment_set = $s", keys)
    if not held[0]:
        return
    if not replace:
        other = f" (of bank '{held[1]}', not '{bank}': a set labels the nuggets of one bank)" \
            if held[1] is not None and held[1] != bank else ""
        raise already_stored(f"{label}: campaign '{campaign_id}' already has {what} in judgment set "
                             f"'{judgment_set}'{other}", them=True)
    con.execute(f"delete from {table} where campaign_id = $c and judgment_set = $s", keys)


def _record_set(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str, provenance: SetProvenance,
                staged: rag_files.RagFile) -> None:
    """Record a judgment set new to the campaign (its provenance, this file); a set the campaign
    has (its qrels, its other judgments) keeps its record."""
    if first_row(con, "select 1 from judgment_sets where campaign_id = $c and judgment_set = $s",
                 {"c": campaign_id, "s": judgment_set}) is None:
        judgment_sets.record_set(con, campaign_id, judgment_set, provenance, staged.source_file, staged.sha256)


def _store_answers(con: duckdb.DuckDBPyConnection, relations: TemporaryRelations, campaign_id: str,
                   staged: rag_files.RagFile) -> None:
    """Store the answers nuggetizer's assign output carries that the campaign lacks (their runs
    created when new): pyeval/loaders/answers.py stores them as it stores a TREC RAG file's."""
    rag_files.stage_rows(con, relations, "answer_input", "assignment_answers", {"campaign_id": campaign_id})
    rag_files.stage_rows(con, relations, "answer_sentence_input", "assignment_answer_sentences")
    rag_files.stage_rows(con, relations, "answer_citation_input", "answer_tsv_citations")
    rag_files.stage_rows(con, relations, "answer_reference_input", "answer_tsv_references")
    answers.store(con, campaign_id, staged, refresh=False)
