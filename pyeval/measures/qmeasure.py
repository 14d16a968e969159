"""NTCIREVAL's blended-ratio measures: Q and Q@l, OMeasure, PMeasure, PPlus, RMeasure, and
APntcir@l. Computed by sql/metrics/metric_qmeasure.sql.

Definitions: docs/adhoc-measures.md sections 3.1, 3.2 and 4.1 (docs/measures.md,
"NTCIREVAL measures"). NTCIREVAL's ``RR`` is the existing ``RR`` (first rank with level >= 1).
"""
from __future__ import annotations

from .base import MAX_RANK, NTCIREVAL_ORDERING, MeasureDef, Param
from .common import CUTOFF, GAIN, REQUIRED_CUTOFF
from .registry import register

#: the C program all these measures follow (NTCIR-eval compute, version 190111)
NTCIREVAL = "NTCIREVAL 190111 (T. Sakai), ntcir_eval.c compute"

BETA = Param("beta", float, 1.0, "weight of cumulative gain in the blended ratio (NTCIREVAL -beta); "
             "0 turns BR(r) into precision C(r)/r", minimum=0)
TRUNCATE = Param("truncate", int, None, "cut the evaluated list at this rank first (NTCIREVAL label "
                 "-truncate, D-NTCIR-eval); none: the whole list", minimum=1,
                 maximum=MAX_RANK)

register(
    MeasureDef("Q", "qmeasure",
               "Q-measure: (1/R) sum of BR(r) over retrieved documents with gain > 0, "
               "BR(r) = (beta cg(r) + C(r))/(beta cg*(r) + r); Q@l sums to l and divides by min(l, R)",
               NTCIREVAL + " (Q-measure, Q@l); Sakai, AIRS 2005",
               params=(GAIN, BETA, TRUNCATE, CUTOFF), at="cutoff", aliases=("QMeasure",),
               ordering=NTCIREVAL_ORDERING),
    MeasureDef("OMeasure", "qmeasure", "O-measure: BR(r1), r1 the first rank with level >= 1",
               NTCIREVAL + " (O-measure); Sakai, IPSJ TOD 2007",
               params=(GAIN, BETA, TRUNCATE), ordering=NTCIREVAL_ORDERING),
    MeasureDef("PMeasure", "qmeasure",
               "P-measure: BR(rp), rp the first rank of the highest level present in the "
               "(possibly truncated) list",
               NTCIREVAL + " (P-measure); Sakai, IPSJ TOD 2007",
               params=(GAIN, BETA, TRUNCATE), ordering=NTCIREVAL_ORDERING),
    MeasureDef("PPlus", "qmeasure",
               "P-plus: sum of BR(r) over ranks r <= rp with gain > 0, divided by C(rp)",
               NTCIREVAL + " (P-plus); Sakai, IPSJ TOD 2007",
               params=(GAIN, BETA, TRUNCATE), aliases=("PPlusMeasure",), ordering=NTCIREVAL_ORDERING),
    MeasureDef("RMeasure", "qmeasure",
               "R-measure: BR(R) = (beta cg(R) + C(R))/(beta cg*(R) + R)",
               "Sakai, AIRS 2005 (R-measure)", params=(GAIN, BETA, TRUNCATE), ordering=NTCIREVAL_ORDERING),
    MeasureDef("APntcir", "qmeasure",
               "NTCIREVAL AP@l: sum of C(r)/r over ranks r <= l with gain > 0, divided by min(l, R) "
               "(AP@l divides by R)",
               NTCIREVAL + " (AP@l)", params=(GAIN, REQUIRED_CUTOFF), at="cutoff",
               ordering=NTCIREVAL_ORDERING),
)
