"""What the three ways of sharing a warehouse (snapshot, export, publish) have in common: the
public tables they copy, identifier quoting, and small helpers over DuckDB.

Values are bound as parameters; the only identifiers spliced into SQL text are the constants
below and names passed through :func:`quote_identifier`.
"""
from __future__ import annotations

import duckdb

from pyeval.core.db import first_row, quote_identifier  # noqa: F401  (re-exported: pyeval.sharing.quote_identifier)

#: The stored public tables (docs/schema.md): what exports and publications copy.
PUBLIC_TABLES: tuple[str, ...] = (
    "campaigns",
    "campaign_derivations",
    "topics",
    "topic_texts",
    "intents",
    "intent_variants",
    "qrels",
    "runs",
    "run_tags",
    "run_entries",
    "document_lengths",
    "campaign_inputs",
    "gain_profiles",
    "evaluations",
    "topic_scores",
    "evaluation_inputs",
    "evaluation_measures",
    "evaluation_means",
    "measures",
    # meta-evaluation (migrations 0005 and 0008; docs/resampling.md)
    "resample_sets",
    "resample_replicates",
    "significance_tests",
    "pairwise_tests",
    "discriminative_power",
    "swap_rates",
    "swap_rate_summaries",
    "minority_rates",
    "rank_correlations",
    "concordance_tests",
    "gain_robustness",
    "mem_solutions",
    "mem_predictions",
    # the topic x run matrix analyses (migration 0012; docs/risk.md, docs/design.md)
    "risk_results",
    "risk_topic_values",
    "topic_set_designs",
    # fusion (migration 0013; docs/fusion.md)
    "run_derivations",
    "run_derivation_parents",
    "fusion_grids",
    "fusion_grid_points",
    # judgment sets and their comparisons (migration 0011; docs/judgments.md)
    "judgment_sets",
    "judgment_comparisons",
    "judgment_agreement",
    "judgment_confusion",
    "judgment_ranking_agreement",
    # pools, coverage and leave-one-group-out (migration 0014; docs/pools.md)
    "pools",
    "pool_runs",
    "pool_documents",
    "pool_coverage",
    "pool_leave_out",
    "pool_leave_out_rankings",
    # the stored current values the views scores and run_means read (migration 0015)
    "current_scores",
    "current_means",
)

#: The public views (docs/schema.md): what a snapshot for a BI client (``pyeval snapshot --for``)
#: keeps in its default schema beside :data:`PUBLIC_TABLES`; the metric engine's views and the
#: bookkeeping tables go to :data:`INTERNAL_SCHEMA` there.
PUBLIC_VIEWS: tuple[str, ...] = (
    "derived_run_status",
    "current_inputs",
    "stale_results",
    "score_history",
    "scores",
    "run_means",
    "monthly_means",
    "leaderboard",
    "campaign_overview",
    "run_overview",
    "topic_overview",
    "pool_unique_documents",
    "unique_relevant",
)

#: Where a snapshot for a BI client keeps what is not public API (docs/bi.md).
INTERNAL_SCHEMA = "pyeval_internal"



def database_path(con: duckdb.DuckDBPyConnection) -> str | None:
    """The file of ``con``'s current database (None in memory)."""
    row = first_row(con, "select path from duckdb_databases() where database_name = current_database()")
    return row[0] if row else None


def error_reason(exc: BaseException) -> str:
    """The first line of a DuckDB error, without the "IO Error: " style prefix kept twice."""
    return str(exc).strip().splitlines()[0]


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    """``(name, DuckDB type)`` of each column of ``table`` in the current database, in order."""
    return [
        (name, kind)
        for name, kind in con.execute(
            "select column_name, data_type from duckdb_columns() "
            "where table_name = $t and schema_name = 'main' and database_name = current_database() "
            "order by column_index",
            {"t": table},
        ).fetchall()
    ]
