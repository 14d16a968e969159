"""A qrels file and a run read for one evaluation that stores nothing (``pyeval trec_eval``).

Both files take the loaders' fast path (:func:`pyeval.loaders.source.stage_files`, without
hashing their content: no provenance is kept; a Parquet file or folder is staged in the same table
by :func:`pyeval.loaders.columnar.stage`) and the loaders' own checks
(sql/loaders/staged_file_fits.sql, qrels_problems.sql, run_summary.sql), and their rows are
stored as the loaders store them (qrels_insert.sql, run_insert.sql) in ``qrels_by_set`` and
``run_entries``, the only tables an evaluation reads of them: no campaign, provenance, topic or
run rows. The run may instead stay staged (``store_run=False``): :func:`run_relations` is then
run_entries as run_insert.sql would store it, for a statement to define itself. Whatever the loaders would refuse or warn about (a file the fast path does not take,
a bad or duplicate line, a run file of several run tags) makes :func:`stage_pair` return False
with nothing stored: the caller then loads the files with :func:`pyeval.loaders.load_qrels` and
:func:`pyeval.loaders.load_run`, which say what is wrong, as they would have from the start.
"""
from __future__ import annotations

import os

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import create_rows, first_row
from pyeval.core.stages import DefinedRelations
from .qrels import QRELS_LAYOUTS, TREC_QRELS_FIELDS
from . import staging
from .runs import ORDER_CHECK_LINES, RUN_FIELDS, check
from ..errors import InputFormatError
from . import columnar
from .source import StagedFile, stage_files
from .staging import TemporaryRelations

#: The stored tables :func:`stage_pair` writes or its checks read.
TABLES = ("qrels_by_set", "intents_by_set", "run_entries")

_QRELS_TABLE, _RUN_TABLE = "staged_qrels_files", "staged_run_files"


def stage_pair(con: duckdb.DuckDBPyConnection, campaign_id: str, qrels: str | os.PathLike[str],
               run: str | os.PathLike[str], run_id: str, *, store_run: bool = True) -> bool:
    """Store the judgments of the TREC ad hoc qrels file ``qrels`` (as ``load_qrels(format="trec")``
    stores them, judgment set ``official``) and the lines of the run file ``run`` (as
    ``load_run(name=run_id)`` does) for ``campaign_id`` in ``qrels_by_set`` and
    ``run_entries`` of ``con``, a scratch warehouse holding :data:`TABLES`. Returns False, with
    nothing stored, when either file does not take the fast path or the loaders would refuse or
    warn about it. What it stages stays in ``con`` (a scratch warehouse is thrown away whole);
    ``store_run=False``: the run's lines are checked but not stored, :func:`run_relations` reads them."""
    # The scratch warehouse is thrown away after the evaluation: what is staged here stays in it
    # (dropping it would cost a look-up of the catalogue, TemporaryRelations.drop).
    relations = TemporaryRelations(con)
    staged_qrels = _stage(con, relations, qrels, (TREC_QRELS_FIELDS, "qrels_fast_rows", _QRELS_TABLE), columnar.QRELS)
    if 0 not in staged_qrels:
        return False
    staged_run = _stage(con, relations, run, (RUN_FIELDS, "run_fast_rows", _RUN_TABLE), columnar.RUNS)
    if 0 not in staged_run:
        return False
    relations.expose(staged_qrels[0])
    layout = QRELS_LAYOUTS["trec"]
    keys = {"campaign_id": campaign_id, "judgment_set": "official"}
    staging.stage_rows(con, "qrels_input", "qrels_fast_input", {"intent_field": layout.intent_field})
    if staging.first_problem(con, "qrels_problems", {"field_count": layout.field_count, "layout": layout.field_names,
                                                      "level_form": layout.level_form, **keys}) is not None:
        return False
    check(con, relations, [staged_run[0]])  # the run's lines as run_batch, as load_run reads them
    # the qrels' rows are stored first: run_summary.sql reads the campaign's judged topics
    con.execute(sqlfiles.read("loaders/qrels_insert.sql"), keys)
    summary = first_row(con, sqlfiles.read("loaders/run_summary.sql"), {"campaign_id": campaign_id})
    may_have_duplicates, distinct_tags = summary[1], summary[6]
    if may_have_duplicates or distinct_tags > 1:  # nothing stored: the loaders say what to
        con.execute("delete from qrels_by_set where campaign_id = $campaign_id", {"campaign_id": campaign_id})
        return False
    create_rows(con, "batch_runs", {"file_index": "integer", "run_id": "varchar"}, [(0, run_id)])
    if store_run:
        con.execute(sqlfiles.read("loaders/run_insert.sql"), dict(run_relations(campaign_id).params))
    return True


def _stage(con: duckdb.DuckDBPyConnection, relations: TemporaryRelations, path: str | os.PathLike[str],
           fast_path: tuple[tuple[str, ...], str, str], kind: columnar.Kind) -> dict[int, StagedFile]:
    """``path`` staged as input 0 the way the loaders stage it: a text file by the fast path
    (:func:`pyeval.loaders.source.stage_files`, not hashed), a Parquet file or folder by
    :func:`pyeval.loaders.columnar.stage` into the same table; empty when neither takes it or a
    value is bad (the loaders then say what is wrong). (Reading a Parquet file in place, a view
    instead of the copy, was measured slower at 1M x 100: docs/benchmarks.md.)"""
    if columnar.is_columnar(path):
        try:
            return columnar.stage(con, kind, {0: path}, relations.track)
        except InputFormatError:
            return {}
    fields, query, table = fast_path
    return stage_files(con, {0: path}, fields, query, table, digest=False)


def run_relations(campaign_id: str) -> DefinedRelations:
    """The run :func:`stage_pair` staged (``store_run=False``) as relations a statement defines:
    ``run_entries`` as sql/loaders/run_insert.sql would store it for ``campaign_id`` (its
    select, with the loaders' rule for ranks from the file's order), and the view that reads
    it, ``ranked_entries``."""
    return DefinedRelations(
        {"run_entries": sqlfiles.insert_select("loaders/run_insert.sql"),
         "ranked_entries": sqlfiles.view_sql("ranked_entries")},
        {"campaign_id": campaign_id, "first_file": 0, "last_file": 0,
         "order_check_lines": ORDER_CHECK_LINES})
