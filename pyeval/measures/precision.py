"""Set and cutoff precision and recall measures. Computed by sql/metrics/metric_precision.sql."""
from __future__ import annotations

from .base import MeasureDef, Param  # noqa: F401
from .common import CUTOFF, GAIN, JUDGED_ONLY, REL, REQUIRED_CUTOFF, TREC_EVAL  # noqa: F401
from .registry import register

register(
    MeasureDef("P", "precision", "precision at k: C(k)/k", TREC_EVAL.format("P"),
               params=(REL, JUDGED_ONLY, REQUIRED_CUTOFF), at="cutoff", aliases=("Precision",)),
    MeasureDef("R", "precision", "recall at k: C(k)/R", TREC_EVAL.format("recall"),
               params=(REL, JUDGED_ONLY, REQUIRED_CUTOFF), at="cutoff", aliases=("Recall",)),
    MeasureDef("RelP", "precision", "relative precision: C(k)/min(k, R)", TREC_EVAL.format("rel_P"),
               params=(REL, REQUIRED_CUTOFF), at="cutoff"),
    MeasureDef("Success", "precision", "1 if a relevant document is in the top k", TREC_EVAL.format("success"),
               params=(REL, JUDGED_ONLY, REQUIRED_CUTOFF), at="cutoff", aliases=("Hit",)),
    MeasureDef("Hits", "precision",
               "relevant documents in the top k (without k: retrieved): C(k), a count averaged over topics",
               "ranx hits@k (Bassani, ECIR 2022)", params=(REL, CUTOFF), at="cutoff"),
    MeasureDef("Accuracy", "precision",
               "share of (relevant, non-relevant) pairs in the top k (without k: the whole list) "
               "ranked relevant first: 1 - sum_j (r_j - j)/(m(n - m)); 0 without a relevant "
               "document, 1 without a non-relevant one",
               "ir_measures Accuracy (accuracy_provider.py)", params=(REL, CUTOFF), at="cutoff"),
    MeasureDef("Rprec", "precision", "precision at R", TREC_EVAL.format("Rprec"),
               params=(REL, JUDGED_ONLY), aliases=("RPrec",)),
    MeasureDef("RprecMult", "precision", "precision at floor(m*R + 0.9)", TREC_EVAL.format("Rprec_mult"),
               params=(REL, Param("m", float, 1.0, "multiple of R", minimum=0, maximum=1e6))),
    MeasureDef("SetP", "precision", "C(L)/L; SetP@k: C(k')/k' on the list cut at k, k' = min(k, L)",
               TREC_EVAL.format("set_P") + " (@k: set_P with -M k); ir_measures SetP",
               params=(REL, JUDGED_ONLY, CUTOFF), at="cutoff"),
    MeasureDef("SetR", "precision", "C(L)/R", TREC_EVAL.format("set_recall"), params=(REL,)),
    MeasureDef("SetRelP", "precision", "C(L)/min(L, R)", TREC_EVAL.format("set_rel_P"), params=(REL, JUDGED_ONLY)),
    MeasureDef("SetAP", "precision", "C(L)^2/(L*R)", TREC_EVAL.format("set_map"), params=(REL, JUDGED_ONLY)),
    MeasureDef("SetF", "precision", "(beta+1)PR/(beta*P+R), beta not squared", TREC_EVAL.format("set_F"),
               params=(REL, Param("beta", float, 1.0, "weight of recall (trec_eval: not squared)", minimum=0),
                       JUDGED_ONLY)),
    MeasureDef("Utility", "precision", "p1*relret + p2*nonrelret + p3*relnotret + p4*nonrelnotret",
               TREC_EVAL.format("utility"),
               params=(REL, Param("p1", float, 1.0, "gain per relevant retrieved"),
                       Param("p2", float, -1.0, "gain per non-relevant retrieved"),
                       Param("p3", float, 0.0, "gain per relevant not retrieved"),
                       Param("p4", float, 0.0, "gain per non-relevant not retrieved"),
                       Param("collection_size", int, 0, "documents in the collection (trec_eval -N)", minimum=0)),
               minimum=None, maximum=None),
)
