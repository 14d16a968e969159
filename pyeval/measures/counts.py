"""Counts of documents and topics (trec_eval num_*). Computed by sql/metrics/metric_counts.sql."""
from __future__ import annotations

from .base import MeasureDef, Param  # noqa: F401
from .common import CUTOFF, GAIN, REL, REQUIRED_CUTOFF, TREC_EVAL  # noqa: F401
from .registry import register, register_alias

register(
    MeasureDef("NumQ", "counts", "number of topics evaluated", TREC_EVAL.format("num_q"),
               aggregate="sum", empty_value=1.0, higher_is_better=None, maximum=None),
    MeasureDef("NumRet", "counts", "documents retrieved (L); with rel=k, relevant ones retrieved (C(L))",
               TREC_EVAL.format("num_ret") + " and m_num_rel_ret.c; ir_measures NumRet",
               params=(Param("rel", int, None, "count only documents of level >= rel; none: all"),),
               aggregate="sum", higher_is_better=None, maximum=None),
    MeasureDef("NumRel", "counts", "relevant documents of the topic (R)", TREC_EVAL.format("num_rel"),
               params=(REL,), aggregate="sum", higher_is_better=None, maximum=None, empty_value=None),
    MeasureDef("NumNonRelJudgedRet", "counts", "judged non-relevant documents retrieved",
               TREC_EVAL.format("num_nonrel_judged_ret"), params=(REL,), aggregate="sum", higher_is_better=None, maximum=None),
)
# ir_measures: NumRelRet is NumRet(rel=1)
register_alias("NumRelRet", "NumRet", rel=1, source="ir_measures")
