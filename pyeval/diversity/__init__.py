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
:func:`pyeval.core.plan.plan` (pure) and executed by each engine; this module checks the campaign.
"""
from __future__ import annotations

import warnings

from pyeval.core.db import first_row
from ..errors import DataIntegrityError, MeasureParamError, SingleIntentWarning
from pyeval.core.plan import ADHOC, GLOBAL_STAGING, PER_INTENT_STAGING, SEPARATOR, probability_variants  # noqa: F401
from pyeval.core.request import EvaluationRequest
from pyeval.measures import registry


def check_campaign(con, request: EvaluationRequest) -> None:
    """A diversity campaign has intents, and the campaign every probability variant the measures
    read; DataIntegrityError or MeasureParamError naming what is missing. An ad hoc campaign needs
    neither: its topic is one intent of probability 1 (view diversity_judgments)."""
    campaign_id = request.campaign_id
    variants = probability_variants(request.measures)
    row = first_row(con, "select qrels_kind from campaigns where campaign_id = $c", {"c": campaign_id})
    names = ", ".join(str(m) for m in request.measures if m.definition.staging != ADHOC)
    diversity = row is not None and row[0] == "diversity"
    if diversity and first_row(con, "select count(*) from intents_by_set where campaign_id = $c",
                               {"c": campaign_id})[0] == 0:
        raise DataIntegrityError(
            f"campaign '{campaign_id}' has no intents; diversity measures ({names}) need intent "
            "probabilities: load them (pyeval load intents) or generate them (pyeval intents generate)"
        )
    stored = {r[0] for r in con.execute(
        "select distinct variant from intent_variants where campaign_id = $c", {"c": campaign_id}
    ).fetchall()}
    unknown = sorted(set(variants) - stored - {"given", "ndeval"})  # ndeval: uniform 1/N, no variant
    if unknown:
        raise MeasureParamError(
            f"unknown intent probability variant {unknown[0]!r} (campaign '{campaign_id}' has: given"
            + "".join(f", {v}" for v in sorted(stored))
            + "); store one with `pyeval intents generate` or `pyeval intents load`"
        )


def note_single_intent_topics(con, request: EvaluationRequest) -> None:
    """A SingleIntentWarning when diversity measures evaluate topics whose judgments name one
    relevant intent only (every topic of an ad hoc campaign, read as one intent of weight 1, as
    ndeval reads ad hoc qrels): there a diversity measure scores relevance to that intent alone."""
    names = [str(m) for m in request.measures if registry.reads_intents(m)]
    if not names:
        return
    single, total, kind = first_row(con, """
        select count(*) filter (where intents = 1), count(*), any_value(qrels_kind)
        from (select topic_id, count(distinct intent_id) filter (where level > 0) as intents
              from diversity_judgments where campaign_id = $c and judgment_set = $j group by topic_id)
        cross join (select qrels_kind from campaigns where campaign_id = $c)
    """, {"c": request.campaign_id, "j": request.judgment_set})
    if not single:
        return
    reading = " (ad hoc qrels: each topic is one intent of weight 1, as ndeval reads them)" if kind != "diversity" else ""
    warnings.warn(
        f"{', '.join(names[:3])}{', ...' if len(names) > 3 else ''}: {single} of {total} topics of campaign "
        f"'{request.campaign_id}' have one relevant intent{reading}; there a diversity measure scores "
        "relevance to that intent alone (docs/diversity-measures.md)", SingleIntentWarning, stacklevel=3)
