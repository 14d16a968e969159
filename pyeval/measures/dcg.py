"""Gain-based measures: nDCG, nDCGRel, RnDCG, BinG, G, RBP. Computed by sql/metrics/metric_dcg.sql."""
from __future__ import annotations

from .base import MeasureDef, Param  # noqa: F401
from .common import CUTOFF, GAIN, REL, REQUIRED_CUTOFF, TREC_EVAL  # noqa: F401
from .registry import register

register(
    MeasureDef("nDCG", "dcg", "normalised DCG, log2(r+1) discount (Jarvelin & Kekalainen, TOIS 2002)",
               TREC_EVAL.format("ndcg") + " and m_ndcg_cut.c", params=(GAIN, CUTOFF), at="cutoff",
               aliases=("NDCG",)),
    MeasureDef("nDCGRel", "dcg", "nDCG averaged over the relevant documents (experimental)",
               TREC_EVAL.format("ndcg_rel"), params=(GAIN,)),
    MeasureDef("RnDCG", "dcg", "nDCG averaged over the R-level boundaries (experimental)",
               TREC_EVAL.format("Rndcg"), params=(GAIN,)),
    MeasureDef("BinG", "dcg", "binary G (experimental)", TREC_EVAL.format("binG"), params=(REL,)),
    MeasureDef("G", "dcg", "graded G (experimental)", TREC_EVAL.format("G"), params=(GAIN,)),
    MeasureDef("RBP", "dcg", "rank-biased precision (Moffat & Zobel, TOIS 2008)",
               TREC_EVAL.format("rbp") + "; ir_measures RBP",
               params=(Param("p", float, 0.8, "persistence", minimum=0),
                       Param("rel", int, None, "binary relevance threshold; none: graded by level"),
                       Param("gain_norm", str, "none", "none: raw level; trec_eval: level/max level",
                             choices=("none", "trec_eval")))),
)
