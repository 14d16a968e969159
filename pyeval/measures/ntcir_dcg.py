"""Cumulative-gain measures of NTCIREVAL and Sakai (AIRS 2005): JKnDCG, nCG, AnCG, AnDCG.

Computed by sql/metrics/metric_ntcir_dcg.sql (formulas in its header; docs/adhoc-measures.md
sections 3.3 and 4.1). Two NTCIREVAL / seed names are the same formula as a measure declared
elsewhere and are aliases of it: ``MSnDCG`` is ``nDCG`` (dcg.py: 1/log(r+1) discount, ideal list
cut at l, values carried forward past the list) and ``PDoc`` is ``P`` (precision.py: C(l)/l).
"""
from __future__ import annotations

from . import precision  # noqa: F401  (P must be registered before its alias PDoc)
from .base import NTCIREVAL_ORDERING, MeasureDef, Param
from .common import CUTOFF, GAIN, REQUIRED_CUTOFF
from .registry import register, register_alias

NTCIREVAL = "NTCIREVAL (T. Sakai) {}"
AIRS_2005 = "Sakai, AIRS 2005 (The reliability of metrics based on graded relevance), {}"


def _log_base(value: int) -> int:
    if value == 1:
        raise ValueError("a log base must be 0 (natural log) or at least 2")
    return value


LOG_BASE = Param(
    "b", int, 2,
    "log base of the Jarvelin-Kekalainen discount: ranks <= b undiscounted, log_b(r) after; "
    "0: natural log from rank 2 (NTCIREVAL -logb 0)",
    minimum=0, normalise=_log_base,
)

register(
    MeasureDef("JKnDCG", "ntcir_dcg",
               "normalised DCG with Jarvelin and Kekalainen's discount (1 up to rank b, log_b(r) "
               "after), ideal list cut at l (Jarvelin & Kekalainen, TOIS 2002)",
               NTCIREVAL.format("nDCG@l; AIRS 2005 nDCG_l"), params=(GAIN, LOG_BASE, CUTOFF),
               at="cutoff", ordering=NTCIREVAL_ORDERING),
    MeasureDef("nCG", "ntcir_dcg", "normalised cumulative gain: cg(l)/cg*(l)",
               AIRS_2005.format("nCG_l"), params=(GAIN, REQUIRED_CUTOFF), at="cutoff",
               ordering=NTCIREVAL_ORDERING),
    MeasureDef("AnCG", "ntcir_dcg", "average normalised cumulative gain: (1/l) sum over r <= l of "
               "cg(r)/cg*(r)", AIRS_2005.format("AnCG_l"), params=(GAIN, REQUIRED_CUTOFF),
               at="cutoff", ordering=NTCIREVAL_ORDERING),
    MeasureDef("AnDCG", "ntcir_dcg", "average normalised DCG: (1/l) sum over r <= l of "
               "dcg(r)/dcg*(r), Jarvelin and Kekalainen's discount",
               AIRS_2005.format("AnDCG_l"), params=(GAIN, LOG_BASE, REQUIRED_CUTOFF), at="cutoff",
               ordering=NTCIREVAL_ORDERING),
)

register_alias("PDoc", "P")
