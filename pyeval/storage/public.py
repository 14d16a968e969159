"""Which relations are pyeval's public API, and the schema that holds the rest.

The public tables and views (docs/schema.md) are in schema ``main``, the default schema every
client lists. pyeval's bookkeeping tables and the views of its metric engine (sql/views/ but
:data:`PUBLIC_VIEWS`) are in :data:`INTERNAL_SCHEMA` (migration 0018, docs/bi.md). pyeval's own
connections search that schema after ``main`` (:func:`use_internal_schema`), so its SQL names
them unqualified; a view in :data:`INTERNAL_SCHEMA` binds the names it reads in its own schema
first, then in ``main``, whatever the reading connection's search path. A cursor is a session
of its own: the functions that read the engine's views set the search path of the connection
they are given (evaluation, fusion, pools, judgment holes, MEM).
"""
from __future__ import annotations

from pyeval.core.db import INTERNAL_SCHEMA, use_internal_schema  # noqa: F401  (the warehouse's modules read them here)

#: The stored public tables (docs/schema.md), in schema ``main``: what exports and publications copy.
PUBLIC_TABLES: tuple[str, ...] = (
    "campaigns",
    "campaign_derivations",
    "topics",
    "topic_texts",
    "intents_by_set",
    "intent_variants",
    "qrels_by_set",
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
    # generated answers, nuggets and their judgments (migration 0020; docs/rag.md)
    "nugget_banks",
    "nuggets",
    "answers",
    "answer_sentences",
    "answer_citations",
    "answer_references",
    "nugget_assignments",
    "citation_support",
    # run relations, reproducibility and longitudinal results (migration 0021; docs/reproducibility.md)
    "run_relations",
    "run_snapshots",
    "run_metadata",
    "repro_experiments",
    "repro_results",
    "repro_topic_values",
    "longitudinal_experiments",
    "longitudinal_values",
    "longitudinal_rankings",
)

#: The public views (docs/schema.md), in schema ``main`` beside :data:`PUBLIC_TABLES`.
PUBLIC_VIEWS: tuple[str, ...] = (
    "qrels",
    "intents",
    "derived_run_status",
    "current_inputs",
    "stale_results",
    "score_history_by_set",
    "score_history",
    "scores_by_set",
    "scores",
    "answer_scores_by_set",
    "run_means_by_set",
    "run_means",
    "monthly_means",
    "leaderboard_by_set",
    "leaderboard",
    "campaign_overview",
    "run_overview",
    "topic_overview",
    "pool_unique_documents",
    "unique_relevant",
    "longeval_rows",
)

#: pyeval's bookkeeping tables (migration 0018 moved them to :data:`INTERNAL_SCHEMA`).
INTERNAL_TABLES: tuple[str, ...] = ("schema_migrations", "derived_objects")


def internal_view(name: str) -> bool:
    """Whether pyeval's view ``name`` (sql/views/) is made in :data:`INTERNAL_SCHEMA`."""
    return name not in PUBLIC_VIEWS
