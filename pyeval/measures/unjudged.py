"""Measures of unjudged documents: Unjudged@k, Judged@k, RBPResid. Computed by sql/metrics/metric_unjudged.sql."""
from __future__ import annotations

from .base import MeasureDef, Param  # noqa: F401
from .common import CUTOFF, GAIN, REL, REQUIRED_CUTOFF, TREC_EVAL  # noqa: F401
from .registry import register

register(
    MeasureDef("Unjudged", "unjudged", "unpooled or pooled-unjudged documents in the top k, divided by k",
               TREC_EVAL.format("unjudged") + " (unj)", params=(REQUIRED_CUTOFF,), at="cutoff",
               higher_is_better=None),
    MeasureDef("Judged", "unjudged",
               "documents with a qrels line (any level) in the top k (without k: the whole list), "
               "divided by min(k, L); 0 if L = 0",
               "ir_measures Judged (OpenNIR)", params=(CUTOFF,), at="cutoff",
               higher_is_better=None),
    MeasureDef("RBPResid", "unjudged", "RBP residual: p^L + (1-p) * sum of p^(r-1) over unjudged ranks, if any",
               TREC_EVAL.format("rbp_resid") + "; Moffat & Zobel, TOIS 2008",
               params=(Param("p", float, 0.9, "persistence (0 and 1 included: trec_eval's "
                                  "residual is defined at both)", minimum=0, maximum=1),),
               higher_is_better=None),
)
