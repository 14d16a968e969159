"""Declarations of the ad hoc (single-intent) measures: the trec_eval ``all_trec`` set and
ir_measures' names for it. Definitions: shared/reference/metrics-adhoc.md section 2;
docs/measures.md. Each family is computed by ``sql/metrics/metric_<family>.sql``.
"""
from __future__ import annotations

from .base import MeasureDef, Param
from .registry import register

TREC_EVAL = "trec_eval 10.0 (NIST), m_{}.c"

REL = Param("rel", int, 1, "minimum level counted as relevant (trec_eval -l)")
CUTOFF = Param("cutoff", int, None, "rank cutoff; none: the whole ranking", minimum=1)
REQUIRED_CUTOFF = Param("cutoff", int, None, "rank cutoff", minimum=1, required=True)
GAIN = Param("gain", str, "linear", "gain profile: linear, exp, or a profile of gain_profiles")

register(
    # --- counts -------------------------------------------------------------------------------
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
    # --- precision and recall -----------------------------------------------------------------
    MeasureDef("P", "precision", "precision at k: C(k)/k", TREC_EVAL.format("P"),
               params=(REL, REQUIRED_CUTOFF), at="cutoff", aliases=("Precision",)),
    MeasureDef("R", "precision", "recall at k: C(k)/R", TREC_EVAL.format("recall"),
               params=(REL, REQUIRED_CUTOFF), at="cutoff", aliases=("Recall",)),
    MeasureDef("RelP", "precision", "relative precision: C(k)/min(k, R)", TREC_EVAL.format("rel_P"),
               params=(REL, REQUIRED_CUTOFF), at="cutoff"),
    MeasureDef("Success", "precision", "1 if a relevant document is in the top k", TREC_EVAL.format("success"),
               params=(REL, REQUIRED_CUTOFF), at="cutoff", aliases=("Hit",)),
    MeasureDef("Rprec", "precision", "precision at R", TREC_EVAL.format("Rprec"),
               params=(REL,), aliases=("RPrec",)),
    MeasureDef("RprecMult", "precision", "precision at floor(m*R + 0.9)", TREC_EVAL.format("Rprec_mult"),
               params=(REL, Param("m", float, 1.0, "multiple of R", minimum=0))),
    MeasureDef("SetP", "precision", "C(L)/L", TREC_EVAL.format("set_P"), params=(REL,)),
    MeasureDef("SetR", "precision", "C(L)/R", TREC_EVAL.format("set_recall"), params=(REL,)),
    MeasureDef("SetRelP", "precision", "C(L)/min(L, R)", TREC_EVAL.format("set_rel_P"), params=(REL,)),
    MeasureDef("SetAP", "precision", "C(L)^2/(L*R)", TREC_EVAL.format("set_map"), params=(REL,)),
    MeasureDef("SetF", "precision", "(beta+1)PR/(beta*P+R), beta not squared", TREC_EVAL.format("set_F"),
               params=(REL, Param("beta", float, 1.0, "weight of recall (trec_eval: not squared)", minimum=0))),
    MeasureDef("Utility", "precision", "p1*relret + p2*nonrelret + p3*relnotret + p4*nonrelnotret",
               TREC_EVAL.format("utility"),
               params=(REL, Param("p1", float, 1.0, "gain per relevant retrieved"),
                       Param("p2", float, -1.0, "gain per non-relevant retrieved"),
                       Param("p3", float, 0.0, "gain per relevant not retrieved"),
                       Param("p4", float, 0.0, "gain per non-relevant not retrieved"),
                       Param("collection_size", int, 0, "documents in the collection (trec_eval -N)"))),
    # --- average precision and reciprocal rank ------------------------------------------------
    MeasureDef("AP", "average_precision", "average precision (divided by R)", TREC_EVAL.format("map"),
               params=(REL, CUTOFF), at="cutoff", aliases=("MAP",)),
    MeasureDef("GMAP", "average_precision", "AP, combined by geometric mean (floor 1e-5)",
               TREC_EVAL.format("gm_map"), params=(REL,), aggregate="gmean"),
    MeasureDef("RR", "average_precision", "reciprocal rank of the first relevant document",
               TREC_EVAL.format("recip_rank"), params=(REL, CUTOFF), at="cutoff", aliases=("MRR",)),
    MeasureDef("IPrec", "average_precision", "interpolated precision at a recall level",
               TREC_EVAL.format("iprec_at_recall") + " (v10 lround cutoff)",
               params=(REL, Param("recall", float, None, "recall level in [0, 1]", minimum=0, required=True)),
               at="recall"),
    MeasureDef("IPrecAvg", "average_precision", "mean interpolated precision over recall points",
               TREC_EVAL.format("11pt_avg"),
               params=(REL, Param("points", str, "0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1",
                                  "comma-separated recall points"))),
    MeasureDef("infAP", "average_precision", "inferred AP (Yilmaz & Aslam, CIKM 2006)",
               TREC_EVAL.format("infap"), params=(REL,)),
    MeasureDef("Bpref", "average_precision", "binary preference (Buckley & Voorhees, SIGIR 2004)",
               TREC_EVAL.format("bpref"), params=(REL,), aliases=("BPref",)),
    MeasureDef("GMBpref", "average_precision", "Bpref, combined by geometric mean (floor 1e-5)",
               TREC_EVAL.format("gm_bpref"), params=(REL,), aggregate="gmean"),
    # --- unjudged documents -------------------------------------------------------------------
    MeasureDef("Unjudged", "unjudged", "unjudged documents in the top k, divided by k",
               TREC_EVAL.format("unjudged") + " (unj)", params=(REQUIRED_CUTOFF,), at="cutoff"),
    MeasureDef("Judged", "unjudged", "judged documents in the top k, divided by min(k, L)",
               "ir_measures Judged (OpenNIR)", params=(REQUIRED_CUTOFF,), at="cutoff"),
    MeasureDef("RBPResid", "unjudged", "RBP residual: weight of unjudged documents",
               TREC_EVAL.format("rbp_resid") + "; Moffat & Zobel, TOIS 2008",
               params=(Param("p", float, 0.9, "persistence", minimum=0),)),
    # --- gain-based ---------------------------------------------------------------------------
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
    # --- text ---------------------------------------------------------------------------------
    MeasureDef("RelString", "relstring", "the labels of the top k documents, as text",
               TREC_EVAL.format("relstring"), params=(Param("cutoff", int, 10, "documents shown", minimum=1),),
               at="cutoff", storable=False),
)
