"""Average precision, reciprocal rank, interpolated precision, bpref, infAP and YAAP. Computed by sql/metrics/metric_average_precision.sql."""
from __future__ import annotations

from .base import MeasureDef, Param  # noqa: F401
from .common import CUTOFF, ELEVEN_POINTS, GAIN, JUDGED_ONLY, REL, REQUIRED_CUTOFF, TREC_EVAL, recall_points  # noqa: F401
from .registry import register

register(
    MeasureDef("AP", "average_precision", "average precision (divided by R)", TREC_EVAL.format("map"),
               params=(REL, JUDGED_ONLY, CUTOFF), at="cutoff", aliases=("MAP",)),
    MeasureDef("GMAP", "average_precision", "AP, combined by geometric mean (floor 1e-5)",
               TREC_EVAL.format("gm_map"), params=(REL,), aggregate="gmean"),
    MeasureDef("RR", "average_precision", "reciprocal rank of the first relevant document",
               TREC_EVAL.format("recip_rank"), params=(REL, JUDGED_ONLY, CUTOFF), at="cutoff", aliases=("MRR",)),
    MeasureDef("IPrec", "average_precision", "interpolated precision at a recall level",
               TREC_EVAL.format("iprec_at_recall") + " (v10 lround cutoff)",
               params=(REL, JUDGED_ONLY,
                       Param("recall", float, None, "recall level", minimum=0, maximum=1, required=True)),
               at="recall"),
    MeasureDef("IPrecAvg", "average_precision", "mean interpolated precision over recall points",
               TREC_EVAL.format("11pt_avg"),
               params=(REL, Param("points", str, ELEVEN_POINTS, "comma-separated recall points",
                                  normalise=recall_points))),
    MeasureDef("infAP", "average_precision", "inferred AP (Yilmaz & Aslam, CIKM 2006)",
               TREC_EVAL.format("infap"), params=(REL,)),
    MeasureDef("Bpref", "average_precision", "binary preference (Buckley & Voorhees, SIGIR 2004)",
               TREC_EVAL.format("bpref"), params=(REL,), aliases=("BPref",)),
    MeasureDef("GMBpref", "average_precision", "Bpref, combined by geometric mean (floor 1e-5)",
               TREC_EVAL.format("gm_bpref"), params=(REL,), aggregate="gmean"),
    MeasureDef("YAAP", "average_precision",
               "yet another AP: ln((1 + S)/(1 + R - S)), S = AP x R (Robertson, ECIR 2012)",
               TREC_EVAL.format("yaap"), params=(REL,), minimum=None, maximum=None),
)
