"""Shared parameters of the ad hoc (single-intent) measures.

Definitions of the measures: docs/metrics-adhoc.md section 2 and docs/measures.md.
Each family module declares its measures; ``sql/metrics/metric_<family>.sql`` computes them.
"""
from __future__ import annotations

from .base import INTEGER_MAX, MAX_RANK, Param

TREC_EVAL = "trec_eval 10.0 (NIST), m_{}.c"

REL = Param("rel", int, 1, "minimum level counted as relevant (trec_eval -l)", minimum=0)


def recall_points(text: str) -> str:
    """Comma-separated recall levels in [0, 1], in canonical form: distinct, ascending
    ('0.0,0.5,1.0'), so that one mean has one name."""
    try:
        points = [float(item) for item in text.split(",")]
    except ValueError:
        raise ValueError(f"recall points must be numbers separated by commas, got {text!r}") from None
    if not all(0 <= point <= 1 for point in points):
        raise ValueError(f"recall points must lie in [0, 1], got {text!r}")
    return ",".join(repr(point) for point in sorted(set(points)))


ELEVEN_POINTS = recall_points("0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1")
CUTOFF = Param("cutoff", int, None, "rank cutoff; none: the whole ranking", minimum=1, maximum=MAX_RANK)
REQUIRED_CUTOFF = Param("cutoff", int, None, "rank cutoff", minimum=1, maximum=MAX_RANK, required=True)
GAIN = Param("gain", str, "linear", "gain profile: linear, exp, flat, steep, adjust, or a profile of "
              "gain_profiles")

#: The two halves of a gain profile's ``level=gain`` pair (pyeval/gains.py, ``pyeval gains``):
#: a level is stored as INTEGER (gain_profiles.level), a gain is any finite number.
PROFILE_LEVEL = Param("level", int, None, "relevance level of a gain profile entry", minimum=0,
                      maximum=INTEGER_MAX)
PROFILE_GAIN = Param("gain", float, None, "gain of that level")
