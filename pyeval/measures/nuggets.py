"""Measures of generated answers (RAG): nugget scores, citation support, answer shape.

Computed by sql/metrics/metric_nuggets.sql over the stages sql/evaluation/evaluation_nugget_*.sql
(docs/rag.md, "Measures"). Evaluated under a judgment set that is a nugget assignment set (the
nugget scores) or a citation support set (CitationPrecision, CitationRecall); AnswerLength and
CitationsPerSentence read the answers alone. An answer missing for a scored topic scores 0.
"""
from __future__ import annotations

from .base import MeasureDef, Param
from .registry import register, register_alias

NUGGETIZER = "nuggetizer 0.0.5 (castorini), core/metrics.py calculate_nugget_scores: {}"
SUPPORT = "Thakur et al., Support Evaluation for the TREC 2024 RAG Track, arXiv 2504.15205: {}"

#: What each kind of answer measure reads besides the answers (MeasureDef.answer_inputs).
ASSIGNMENTS, SUPPORT_LABELS, ANSWERS = "assignments", "support", "answers"

PARTIAL_WEIGHT = Param("partial_weight", float, 0.5, "credit of a partial_support label (support: 1, "
                       "not_support: 0)", minimum=0, maximum=1)
SUPPORT_PARTIAL_WEIGHT = Param("partial_weight", float, 0.5, "credit of a partial support label (full: 1, "
                               "none: 0)", minimum=0, maximum=1)


def _nugget(name: str, description: str, key: str) -> MeasureDef:
    return MeasureDef(name, "nuggets", description, NUGGETIZER.format(key), staging=ANSWERS,
                      answer_inputs=ASSIGNMENTS)


register(
    _nugget("VitalScore", "(support + 0.5 partial_support) / vital nuggets, over the vital nuggets of the "
                          "topic in the set's bank (0 without vital nuggets)", "vital_score"),
    _nugget("StrictVitalScore", "supported vital nuggets / vital nuggets (partial_support counts 0)",
            "strict_vital_score"),
    _nugget("AllScore", "(support + 0.5 partial_support) / nuggets, over every nugget of the topic in the "
                        "set's bank", "all_score"),
    _nugget("StrictAllScore", "supported nuggets / nuggets (partial_support counts 0)", "strict_all_score"),
    MeasureDef("WeightedScore", "nuggets",
               "sum of w_i l_i / sum of w_i over the topic's nuggets: w_i vital_weight or okay_weight by "
               "importance, l_i 1 (support), partial_weight (partial_support) or 0; okay_weight=0 is "
               "VitalScore, okay_weight=1 AllScore, partial_weight=0 their strict forms",
               "Pradeep et al., arXiv 2411.09607 and 2504.15068 (vital and okay nuggets, partial support)",
               params=(PARTIAL_WEIGHT,
                       Param("vital_weight", float, 1.0, "weight of a vital nugget", minimum=0),
                       Param("okay_weight", float, 0.5, "weight of an okay nugget", minimum=0)),
               staging=ANSWERS, answer_inputs=ASSIGNMENTS,
               check=lambda p: ("vital_weight and okay_weight cannot both be 0"
                                if p["vital_weight"] == 0 and p["okay_weight"] == 0 else None)),
    MeasureDef("CitationPrecision", "nuggets",
               "support credit of the answer's citations (full 1, partial partial_weight, none or "
               "unjudged 0) / citations; average=sentence: the mean over cited sentences of each "
               "sentence's own precision (0 without a citation)",
               SUPPORT.format("weighted precision"),
               params=(SUPPORT_PARTIAL_WEIGHT,
                       Param("average", str, "citation", "citation: over the answer's citations; sentence: "
                             "mean of the cited sentences' precisions", choices=("citation", "sentence"))),
               staging=ANSWERS, answer_inputs=SUPPORT_LABELS),
    MeasureDef("CitationRecall", "nuggets",
               "sum over the answer's sentences of the best support credit among its citations (a sentence "
               "without a citation 0) / sentences",
               SUPPORT.format("weighted recall"), params=(SUPPORT_PARTIAL_WEIGHT,), staging=ANSWERS,
               answer_inputs=SUPPORT_LABELS),
    MeasureDef("AnswerLength", "nuggets", "the answer's length in words (its response_length)",
               "TREC RAG 2024/2025 answer format, response_length", staging=ANSWERS, answer_inputs=ANSWERS,
               higher_is_better=None, maximum=None),
    MeasureDef("CitationsPerSentence", "nuggets", "citations / sentences of the answer (0 without a sentence)",
               "TREC RAG 2024/2025 answer format (citations per sentence)", staging=ANSWERS, answer_inputs=ANSWERS,
               higher_is_better=None, maximum=None),
)

# nuggetizer's names (the keys calculate_nugget_scores and calculate_global_metrics print)
for _spelling, _canonical in (("vital_score", "VitalScore"), ("strict_vital_score", "StrictVitalScore"),
                              ("all_score", "AllScore"), ("strict_all_score", "StrictAllScore")):
    register_alias(_spelling, _canonical, source="nuggetizer")
