"""Diversity evaluation: what a diversity campaign must hold before its plan runs.

One definition of each formula: a D-measure is its ad hoc measure's family SQL
(``sql/metrics/metric_<family>.sql``) run over a *global* staging of the campaign, in which
every judged document's gain is its global gain GG(d) = sum_i Pr(i|q) g_i(d) (view
global_gains), a document is relevant when GG > 0 (as NTCIREVAL's gcompute has it) and the
ideal list holds every document sorted by GG (global_ideal_gains). The families read levels and
a level -> gain map (evaluation_ranks, evaluation_gains), so the staging gives each distinct
gain of a topic a *level code* (0 for gain 0, then 1, 2, ... by increasing gain:
sql/evaluation/diversity_gain_codes.sql). DIN-measures use the same staging with the DIN global
gain of each ranked document (din_rank_gains: a navigational intent's gain counts at its first
relevant document only) and the same ideal list. Intent-aware measures, I-rec and P+Q compute an
ad hoc measure on every (topic, intent) as a list of its own (the *per-intent* staging: the
intent's levels, gains and ideal list), and a small family averages the per-intent values
(metric_intent_average.sql); D#, DIN# and P+Q# combine I-rec with a D-, DIN-measure or P+Q
(metric_sharp.sql). Stagings: sql/evaluation/diversity_*.sql, per_intent_*.sql.

The passes (which staging each measure reads, the composites' components) are planned by
:func:`pyeval.core.plan.plan` (pure) and executed by each engine; the orchestrator
(pyeval.core.evaluation: ``check_campaign``, ``note_single_intent_topics``) checks the campaign
first. This package holds the diversity campaign tools (:mod:`pyeval.diversity.campaigns`).
"""
from __future__ import annotations

from pyeval.core.plan import ADHOC, GLOBAL_STAGING, PER_INTENT_STAGING, SEPARATOR, probability_variants  # noqa: F401
