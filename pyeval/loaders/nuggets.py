"""Loading nugget banks (docs/rag.md "Formats" and "Loading"): nuggetizer's create output (JSON
lines ``{"qid", "query", "nuggets": [{"text", "importance"}]}``, Pradeep et al., arXiv
2411.09607; castorini/nuggetizer) or a TSV file, into ``nuggets`` and ``nugget_banks``.

A campaign holds any number of named banks (a manual one, each automatic nuggetizer's), as it
holds judgment sets; loading a bank creates the campaign if it does not exist.
"""
from __future__ import annotations

import os
import re

import duckdb

from pyeval.core import archive, sqlfiles
from pyeval.core.db import first_row, transaction
from .. import vocabulary
from ..errors import DataIntegrityError, PyevalError, already_stored, require_choice
from ..vocabulary import names
from . import rag_files
from .staging import LoadReport, TemporaryRelations

DEFAULT_BANK = "official"
IMPORTANCE = names(vocabulary.NUGGET_IMPORTANCE)
CREATORS = names(vocabulary.NUGGET_CREATORS)
_BANK = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:+-]{0,99}")


def check_bank_name(bank: str) -> None:
    """PyevalError for a bank name that is not a word of letters, digits and ``_.:+-`` (the rule
    of judgment set names)."""
    if not isinstance(bank, str) or not _BANK.fullmatch(bank):
        raise PyevalError(f"nugget bank name {bank!r}: use letters, digits and _ . : + - "
                          "(starting with a letter or digit, at most 100 characters)")


def bank_names(con: duckdb.DuckDBPyConnection, campaign_id: str) -> list[str]:
    """The campaign's nugget banks, by name."""
    return [row[0] for row in con.execute(
        "select bank from nugget_banks where campaign_id = $c order by bank", {"c": campaign_id}).fetchall()]


def load_nuggets(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    source: str | os.PathLike[str],
    *,
    bank: str = DEFAULT_BANK,
    format: str = "auto",
    creator: str = "llm",
    description: str | None = None,
    replace: bool = False,
) -> LoadReport:
    """Load a nugget bank from nuggetizer's create output or a nuggets TSV file, in one
    transaction; creates the campaign if it does not exist.

    bank
        The bank's name (default ``official``); a campaign holds several.
    format
        ``auto`` (JSON lines when the first line is a JSON object, else TSV), ``jsonl`` or ``tsv``.
    creator
        Who wrote the nuggets, ``llm`` (default: nuggetizer's output) or ``human``; a TSV file's
        ``creator`` column overrides it per nugget.
    replace
        Replace the bank's nuggets; refused while an assignment set labels a nugget the new bank
        lacks.

    Raises
    ------
    InputFormatError
        A bad line (not a JSON object, no qid, a nugget without text or with an importance other
        than vital or okay, a topic or nugget given twice), naming file and line.
    DataIntegrityError
        The bank exists and ``replace`` is false, or it is replaced by one without a nugget an
        assignment set labels.
    """
    check_bank_name(bank)
    require_choice("creator", creator, CREATORS)
    with TemporaryRelations(con) as relations:
        staged = rag_files.stage_file(con, relations, source, format)
        _stage(con, relations, staged, creator)
        with transaction(con):
            rag_files.create_campaign(con, campaign_id)
            _clear_bank(con, campaign_id, bank, staged.label, replace)
            keys = {"campaign_id": campaign_id, "bank": bank}
            con.execute(sqlfiles.read("loaders/nugget_insert.sql"), keys)
            con.execute(
                "insert into nugget_banks (campaign_id, bank, source_file, source_sha256, description, format) "
                "values ($campaign_id, $bank, $file, $sha, $description, $format)",
                {**keys, "file": staged.source_file, "sha": staged.sha256, "description": description,
                 "format": "nuggetizer" if staged.format == rag_files.JSONL else "tsv"})
            if staged.format == rag_files.JSONL:
                con.execute(sqlfiles.read("loaders/nugget_topic_texts.sql"),
                            {"campaign_id": campaign_id, "source_file": staged.source_file})
            archive.refresh(con, campaign_id)  # values computed from the replaced bank turn stale
            rows, topics = first_row(con, "select count(*), count(distinct topic_id) from nugget_input")
    return LoadReport("nuggets", campaign_id, staged.source_file, staged.sha256, rows, topics,
                      notes=[f"bank {bank}", f"format {'nuggetizer' if staged.format == rag_files.JSONL else 'tsv'}"])


def _stage(con: duckdb.DuckDBPyConnection, relations: TemporaryRelations, staged: rag_files.RagFile,
           creator: str) -> None:
    """Stage the file's nuggets as ``nugget_input`` and raise for its first bad line."""
    if staged.format == rag_files.JSONL:
        rag_files.stage_rows(con, relations, "nugget_records", "nugget_json_records")
        rag_files.stage_rows(con, relations, "nugget_input", "nugget_json_input", {"creator": creator})
        checks = [("nugget_record_problems", {})]
    else:
        fields = rag_files.tsv_columns(staged, ("topic_id", "text", "importance"), ("nugget_id", "creator"))
        rag_files.stage_rows(con, relations, "nugget_input", "nugget_tsv_input", {
            "topic_field": fields["topic_id"], "id_field": fields["nugget_id"], "text_field": fields["text"],
            "importance_field": fields["importance"], "creator_field": fields["creator"], "creator": creator})
        checks = []
    rag_files.raise_first_problem(con, staged.label, [
        *checks,
        ("nugget_problems", {**rag_files.tsv_parameters(staged), "importance": list(IMPORTANCE),
                             "creators": list(CREATORS)}),
    ])


def _clear_bank(con: duckdb.DuckDBPyConnection, campaign_id: str, bank: str, label: str, replace: bool) -> None:
    """Make room for bank ``bank``: refuse an existing one unless ``replace``; with it, refuse
    when an assignment set labels a nugget the new bank lacks, else delete the old bank."""
    keys = {"campaign_id": campaign_id, "bank": bank}
    if first_row(con, "select 1 from nugget_banks where campaign_id = $campaign_id and bank = $bank", keys) is None:
        return
    if not replace:
        raise already_stored(f"{label}: campaign '{campaign_id}' already has nugget bank '{bank}'")
    orphan = first_row(con, sqlfiles.read("loaders/nugget_bank_orphans.sql"), keys)
    if orphan is not None:
        judgment_set, topic_id, nugget_id, count = orphan
        raise DataIntegrityError(
            f"{label}: judgment set '{judgment_set}' labels nugget '{nugget_id}' of topic '{topic_id}' in bank "
            f"'{bank}', which the new nuggets lack ({count} such labels); replace or remove those assignments first")
    for table in ("nuggets", "nugget_banks"):  # table: a constant of this loop
        con.execute(f"delete from {table} where campaign_id = $campaign_id and bank = $bank", keys)
