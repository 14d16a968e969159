"""Graded average precision: GAP, GAP@l and nGAP@l. Computed by sql/metrics/metric_gap.sql
(formulas in its header; docs/adhoc-measures.md section 4.6).

Uniform threshold probabilities in NTCIREVAL's m(m + 1) form (the seed papers' denominator). The
seed's GAP@l keeps the full denominator; NTCIREVAL's GAP@l divides by the ideal list's value at
l and is pyeval's ``nGAP@l``.
"""
from __future__ import annotations

from .base import NTCIREVAL_ORDERING, MeasureDef
from .common import CUTOFF, GAIN
from .registry import register

register(
    MeasureDef("GAP", "gap",
               "graded average precision: sum over relevant r of (1/r) sum over k <= r of m(m + 1), "
               "m = min(g(r), g(k)), over the ideal list's sum of g*(g* + 1); @l sums to l with the "
               "same denominator",
               "Robertson, Kanoulas & Yilmaz, SIGIR 2010; NTCIREVAL (T. Sakai) -gap; Sakai & Song, "
               "SIGIR 2011 (GAP@l)",
               params=(GAIN, CUTOFF), at="cutoff", ordering=NTCIREVAL_ORDERING),
    MeasureDef("nGAP", "gap",
               "GAP@l over the ideal list's value at l: the denominator sums g*(g* + 1) over the top "
               "min(l, R) ideal documents",
               "Sakai & Song, SIGIR 2011 (nGAP@l); NTCIREVAL (T. Sakai) GAP@l",
               params=(GAIN, CUTOFF), at="cutoff", ordering=NTCIREVAL_ORDERING),
)
