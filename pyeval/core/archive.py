"""The archive's current values as stored tables (migration 0015; docs/schema.md).

``current_scores`` and ``current_means`` hold what the views ``scores`` and ``run_means`` show:
for each key, the value of the latest evaluation whose inputs (qrels, run, gain profile) still
hold. The rule is stated once, in SQL: score_history's ``is_latest`` for per-topic values,
sql/archive/current_means_of_campaign.sql for means. These functions keep the tables equal to
it, inside the caller's transaction:

- :func:`record_evaluation` after an evaluation is stored: its values replace those of the
  keys it wrote (an evaluation just stored is the latest, and its inputs are the warehouse's);
- :func:`refresh` after anything that may change which values are stale (loading qrels or a
  run again, storing a fused run or a gain profile, deriving a judgment set, deleting a run):
  the campaign's rows are recomputed from its history;
- :func:`runs_annotated` after runs' system, team or date were set: the means' copies of them;
- :func:`rebuild` when the views are (re)created (a new warehouse, an upgrade): every row.

So a whole-archive query reads stored rows, and its cost grows with the current values, not
with the history (bench/bench_archive.py, docs/benchmarks.md).
"""
from __future__ import annotations

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import first_row

#: The maintained tables and, for each, the columns of its key besides campaign_id.
TABLES = {
    "current_scores": ("judgment_set", "run_id", "topic_id", "measure"),
    "current_means": ("judgment_set", "run_id", "measure"),
}
#: Where each table's rows come from: per campaign (its history) and per evaluation.
_OF_CAMPAIGN = {"current_scores": "archive/current_scores_of_campaign.sql",
                "current_means": "archive/current_means_of_campaign.sql"}
_OF_EVALUATION = {"current_scores": ("topic_scores", "archive/current_scores_of_evaluation.sql"),
                  "current_means": ("evaluation_means", "archive/current_means_of_evaluation.sql")}


def _maintained(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether this warehouse keeps the tables (not a drop-in's scratch warehouse, nor one
    opened with migrations before 0015)."""
    return first_row(con, "select count(*) from duckdb_tables() where table_name = 'current_scores' "
                          "and database_name = current_database() and schema_name = 'main'")[0] > 0


def record_evaluation(con: duckdb.DuckDBPyConnection, evaluation_id: int) -> None:
    """Make the values and means evaluation ``evaluation_id`` just stored the current ones of
    their keys (inside the evaluation's transaction). An evaluation that read a stored gain
    profile may have stored an inline one: its campaign is refreshed whole instead."""
    if not _maintained(con):
        return
    campaign_id, profiles = first_row(
        con, "select evaluations.campaign_id, count(evaluation_inputs.evaluation_id) from evaluations "
             "left join evaluation_inputs on evaluation_inputs.evaluation_id = evaluations.evaluation_id "
             "and evaluation_inputs.input_kind = 'gains' where evaluations.evaluation_id = $id "
             "group by evaluations.campaign_id", {"id": evaluation_id})
    if profiles:
        refresh(con, campaign_id)
        return
    for table, key in TABLES.items():
        source, insert = _OF_EVALUATION[table]
        matches = " and ".join(f"{table}.{column} = {source}.{column}" for column in ("campaign_id", *key))
        # table, source and key are this module's constants: no user input reaches the SQL text
        con.execute(f"delete from {table} using {source} where {source}.evaluation_id = $id "
                    f"and {table}.campaign_id = $c and {matches}", {"id": evaluation_id, "c": campaign_id})
        con.execute(sqlfiles.read(insert), {"id": evaluation_id})


def refresh(con: duckdb.DuckDBPyConnection, campaign_id: str) -> None:
    """Recompute the current values and means of ``campaign_id`` from its stored history
    (inside the caller's transaction): after a change of what makes values stale."""
    if not _maintained(con):
        return
    if first_row(con, "select count(*) from evaluations where campaign_id = $c", {"c": campaign_id})[0] == 0:
        return  # nothing stored for it: nothing is current
    for table in TABLES:  # the module's constant names
        con.execute(f"delete from {table} where campaign_id = $c", {"c": campaign_id})
        con.execute(sqlfiles.read(_OF_CAMPAIGN[table]), {"campaign_id": campaign_id})


def runs_annotated(con: duckdb.DuckDBPyConnection, campaign_id: str) -> None:
    """Copy the runs' system, team and date to the current means of ``campaign_id`` (inside the
    caller's transaction): after they were set."""
    if _maintained(con):
        con.execute(sqlfiles.read("archive/current_means_metadata.sql"), {"campaign_id": campaign_id})


def rebuild(con: duckdb.DuckDBPyConnection) -> None:
    """Recompute every row (inside the caller's transaction): when the views that state the
    rule were (re)created, and once for a warehouse upgraded by migration 0015."""
    if not _maintained(con):
        return
    for table in TABLES:
        con.execute(f"delete from {table}")  # the module's constant names
        con.execute(sqlfiles.read(_OF_CAMPAIGN[table]), {"campaign_id": None})  # every campaign at once
