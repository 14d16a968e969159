"""Preference measures: how well a ranking honours judged document preferences (trec_eval
``-R prefs`` / ``-R qrels_prefs``, the ``prefs_*`` measures). Computed by
sql/metrics/metric_preferences.sql from the staged relation ``evaluation_preferences``.

``pairs`` says which preferences A > B are counted: ``all`` (every preference; one whose two
documents are both unretrieved counts as not fulfilled), ``ret`` (only preferences between two
retrieved documents) or ``imp`` (preferences with at least one retrieved document; a retrieved
document is implied to be ranked above an unretrieved one).
"""
from __future__ import annotations

from .base import MeasureDef, Param
from .registry import register

_REFERENCE = "trec_eval 10.0 (NIST), form_prefs_counts.c and m_prefs_{}.c"


def _pairs(choices: tuple[str, ...] = ("all", "ret", "imp")) -> Param:
    return Param(
        "pairs", str, "all",
        "which preferences count: all; ret (both documents retrieved); imp (at least one retrieved)",
        choices=choices,
    )


register(
    MeasureDef("PrefsPossible", "preferences",
               "number of preferences A > B of the topic's judgment groups (summed over groups)",
               _REFERENCE.format("num_prefs_poss"), params=(_pairs(),), aggregate="sum", higher_is_better=None, maximum=None,
               empty_value=None),
    MeasureDef("PrefsFulfilled", "preferences",
               "number of preferences A > B fulfilled: A retrieved above B, or A retrieved and B not",
               _REFERENCE.format("num_prefs_ful") + ", m_prefs_num_prefs_ful_ret.c",
               params=(_pairs(),), aggregate="sum", maximum=None),
    MeasureDef("PrefsSimp", "preferences", "preferences fulfilled / preferences possible",
               _REFERENCE.format("simp") + ", m_prefs_simp_ret.c, m_prefs_simp_imp.c", params=(_pairs(),)),
    MeasureDef("PrefsPair", "preferences",
               "mean over document pairs of the share of the pair's preferences (over all judgment "
               "groups) that the ranking fulfils",
               _REFERENCE.format("pair") + ", m_prefs_pair_ret.c, m_prefs_pair_imp.c", params=(_pairs(),)),
    MeasureDef("PrefsAvgJG", "preferences",
               "fulfilled / possible within each judgment group, averaged over the topic's groups",
               _REFERENCE.format("avgjg") + ", m_prefs_avgjg_ret.c, m_prefs_avgjg_imp.c", params=(_pairs(),)),
    MeasureDef("PrefsAvgJGRnonrel", "preferences",
               "PrefsAvgJG with each group's non-relevant documents (level 0) cut or padded to R, "
               "the group's relevant documents (akin to bpref)",
               _REFERENCE.format("avgjg_Rnonrel") + ", m_prefs_avgjg_Rnonrel_ret.c",
               params=(_pairs(("all", "ret")),)),
)
