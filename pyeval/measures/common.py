"""Shared parameters of the ad hoc (single-intent) measures.

Definitions of the measures: shared/reference/metrics-adhoc.md section 2 and docs/measures.md.
Each family module declares its measures; ``sql/metrics/metric_<family>.sql`` computes them.
"""
from __future__ import annotations

from .base import Param

TREC_EVAL = "trec_eval 10.0 (NIST), m_{}.c"

REL = Param("rel", int, 1, "minimum level counted as relevant (trec_eval -l)")
CUTOFF = Param("cutoff", int, None, "rank cutoff; none: the whole ranking", minimum=1)
REQUIRED_CUTOFF = Param("cutoff", int, None, "rank cutoff", minimum=1, required=True)
GAIN = Param("gain", str, "linear", "gain profile: linear, exp, or a profile of gain_profiles")
