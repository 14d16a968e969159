"""NTCIREVAL's condensed-list measures (compute -j): the bpref variants and rpref. Computed by
sql/metrics/metric_condensed.sql, always on the condensed list (unjudged documents removed,
ranks renumbered), whatever judged_only says.

NTCIREVAL's plain ``bpref`` on the condensed list is trec_eval's ``Bpref`` (same formula, same
R and N) whenever every level >= 1 has a positive gain; it is not declared twice.
"""
from __future__ import annotations

from .base import NTCIREVAL_ORDERING, MeasureDef
from .common import GAIN
from .qmeasure import NTCIREVAL
from .registry import register

_J = NTCIREVAL + " -j ({}); Sakai, SIGIR 2007 (Alternatives to Bpref)"

register(
    MeasureDef("BprefR", "condensed",
               "(1/R) sum over relevant r with gain > 0 of 1 - min(R, n(r))/R, n(r) the judged "
               "non-relevant documents above r (condensed list)",
               _J.format("bpref_R"), params=(GAIN,), aliases=("bpref_R",), ordering=NTCIREVAL_ORDERING),
    MeasureDef("BprefN", "condensed", "(1/R) sum over relevant r with gain > 0 of 1 - n(r)/N",
               _J.format("bpref_N"), params=(GAIN,), aliases=("bpref_N",), ordering=NTCIREVAL_ORDERING),
    MeasureDef("BprefRelative", "condensed",
               "(1/R) sum over relevant r > 1 with gain > 0 of 1 - n(r)/(r - 1) (rank 1 adds 0)",
               _J.format("bpref_relative"), params=(GAIN,), aliases=("bpref_relative",),
               ordering=NTCIREVAL_ORDERING),
    MeasureDef("RprefN", "condensed",
               "graded bpref: sum over r with g(r) > 0 of g(r)(1 - pen(r)/(R + N - cg*(R)/gmax)), "
               "over cg*(R); pen(r) = sum over j < r with g(j) < g(r) of (g(r) - g(j))/g(r)",
               _J.format("rpref_N"), params=(GAIN,), aliases=("rpref_N",), ordering=NTCIREVAL_ORDERING),
    MeasureDef("RprefRelative", "condensed",
               "as RprefN with pen(r)/(r - 1) (rank 1 adds 0)",
               _J.format("rpref_relative"), params=(GAIN,), aliases=("rpref_relative",),
               ordering=NTCIREVAL_ORDERING),
    MeasureDef("RprefRelative2", "condensed", "as RprefN with pen(r)/r",
               _J.format("rpref_relative2"), params=(GAIN,), aliases=("rpref_relative2",),
               ordering=NTCIREVAL_ORDERING),
)
