"""Counts of documents and topics (trec_eval num_*). Computed by sql/metrics/metric_counts.sql."""
from __future__ import annotations

from .base import MeasureDef, Param  # noqa: F401
from .common import CUTOFF, GAIN, REL, REQUIRED_CUTOFF, TREC_EVAL  # noqa: F401
from .registry import register

register(
    MeasureDef("NumQ", "counts", "number of topics evaluated", TREC_EVAL.format("num_q"),
               aggregate="sum", empty_value=1.0),
    MeasureDef("NumRet", "counts", "documents retrieved (L)", TREC_EVAL.format("num_ret"),
               aggregate="sum"),
    MeasureDef("NumRel", "counts", "relevant documents of the topic (R)", TREC_EVAL.format("num_rel"),
               params=(REL,), aggregate="sum"),
    MeasureDef("NumRelRet", "counts", "relevant documents retrieved, C(L)",
               TREC_EVAL.format("num_rel_ret") + "; ir_measures NumRet(rel=1)",
               params=(REL,), aggregate="sum"),
    MeasureDef("NumNonRelJudgedRet", "counts", "judged non-relevant documents retrieved",
               TREC_EVAL.format("num_nonrel_judged_ret"), params=(REL,), aggregate="sum"),
)
