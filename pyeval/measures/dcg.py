"""Gain-based measures: nDCG, nDCGRel, RnDCG, BinG, G, RBP. Computed by sql/metrics/metric_dcg.sql.

Formulas (ports of trec_eval 10.0; metrics-adhoc.md section 2.4) are in the SQL file's header.
"""
from __future__ import annotations

from .base import MeasureDef, Param  # noqa: F401
from .common import CUTOFF, GAIN, REL, REQUIRED_CUTOFF, TREC_EVAL  # noqa: F401
from .registry import register

register(
    MeasureDef("nDCG", "dcg",
               "normalised DCG, gain/log2(r+1); the ideal list holds every judged document, "
               "cut at k like the ranking (Jarvelin & Kekalainen, TOIS 2002)",
               TREC_EVAL.format("ndcg") + " and m_ndcg_cut.c", params=(GAIN, CUTOFF), at="cutoff",
               aliases=("NDCG",)),
    MeasureDef("nDCGRel", "dcg",
               "nDCG averaged over the documents with a positive gain, unretrieved ones at the end "
               "of the ranking (experimental; Jarvelin & Kekalainen, TOIS 2002)",
               TREC_EVAL.format("ndcg_rel"), params=(GAIN,)),
    MeasureDef("RnDCG", "dcg",
               "nDCG averaged over the R-levels, the ideal ranks where the gain changes "
               "(experimental; Jarvelin & Kekalainen, TOIS 2002)",
               TREC_EVAL.format("Rndcg"), params=(GAIN, REL)),
    MeasureDef("BinG", "dcg",
               "binary G: (1/R) sum over relevant retrieved documents of 1/log2(2 + non-relevant "
               "above) (experimental; C. Buckley, trec_eval, 2008)",
               TREC_EVAL.format("binG"), params=(REL,)),
    MeasureDef("G", "dcg",
               "graded G: gain/log2(2 + ideal cost - gain so far), over the total ideal gain "
               "(experimental; C. Buckley, trec_eval, 2008)",
               TREC_EVAL.format("G"), params=(GAIN,)),
    MeasureDef("RBP", "dcg", "rank-biased precision (Moffat & Zobel, TOIS 2008)",
               TREC_EVAL.format("rbp") + "; ir_measures RBP",
               params=(Param("p", float, 0.8, "persistence", minimum=0),
                       Param("rel", int, None, "binary relevance threshold; none: graded by level"),
                       Param("gain_norm", str, "none",
                             "none: the raw level; trec_eval: the level divided by the topic's "
                             "highest judged level when that exceeds 1",
                             choices=("none", "trec_eval")))),
)
