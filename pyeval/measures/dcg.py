"""Gain-based measures: nDCG (alias MSnDCG), nDCGRel, RnDCG, BinG, G, RBP. Computed by
sql/metrics/metric_dcg.sql.

Formulas (ports of trec_eval 10.0; docs/adhoc-measures.md section 2.4) are in the SQL file's header.
"""
from __future__ import annotations

from .base import MeasureDef, Param  # noqa: F401
from .common import CUTOFF, GAIN, JUDGED_ONLY, REL, REQUIRED_CUTOFF, TREC_EVAL  # noqa: F401
from .registry import register

register(
    MeasureDef("nDCG", "dcg",
               "normalised DCG, gain/log2(r+1); the ideal list holds every judged document, "
               "cut at k like the ranking (Jarvelin & Kekalainen, TOIS 2002)",
               TREC_EVAL.format("ndcg") + " and m_ndcg_cut.c; NTCIREVAL MSnDCG@l (the same formula)",
               params=(GAIN, JUDGED_ONLY, CUTOFF), at="cutoff", aliases=("NDCG", "MSnDCG")),
    MeasureDef("DCG", "dcg", "discounted cumulative gain, gain/log2(r+1) summed to L (or k): nDCG's numerator",
               "trec_eval (NIST) m_ndcg.c (dcg); ranx dcg@k", params=(GAIN, CUTOFF), at="cutoff",
               maximum=None),
    MeasureDef("IdealDCG", "dcg",
               "the ideal list's DCG (every judged document with a positive gain, to k with @k): "
               "nDCG's denominator", "trec_eval (NIST) m_ndcg.c (ideal_dcg)",
               params=(GAIN, CUTOFF), at="cutoff", higher_is_better=None, maximum=None,
               empty_value=None),
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
               TREC_EVAL.format("rbp") + "; ir_measures RBP; NTCIREVAL RBP and RBP@l (gain_norm=gmax)",
               params=(Param("p", float, 0.8, "persistence", minimum=0, maximum=1, open_minimum=True,
                             open_maximum=True),
                       Param("rel", int, None,
                             "binary relevance threshold (gain and gain_norm then do not apply); "
                             "none: graded"),
                       GAIN,
                       Param("gain_norm", str, "none",
                             "none: the raw gain; trec_eval: the gain divided by the topic's highest "
                             "judged gain when that exceeds 1; gmax: the gain divided by the "
                             "profile's highest gain (NTCIREVAL: the last -g value)",
                             choices=("none", "trec_eval", "gmax")),
                       CUTOFF),
               at="cutoff"),
)
