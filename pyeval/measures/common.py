"""Shared parameters of the ad hoc (single-intent) measures.

Definitions of the measures: docs/adhoc-measures.md section 2 and docs/measures.md.
Each family module declares its measures; ``sql/metrics/metric_<family>.sql`` computes them.
"""
from __future__ import annotations

from ..errors import MeasureParamError
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


#: A measure's own ``judged_only`` (ir_measures): its value is computed with the unjudged
#: documents dropped from the ranking first, as the whole evaluation's ``judged_only`` setting
#: (trec_eval -J) does for every measure. It chooses what is staged, so no family SQL reads it
#: (:data:`STAGING_PARAMS`).
JUDGED_ONLY = Param("judged_only", bool, False, "drop unjudged documents from the ranking before "
                    "computing this measure (ir_measures judged_only; trec_eval -J)")
#: parameters that choose the staging rather than the formula: never passed to a family's SQL
STAGING_PARAMS = frozenset({"judged_only"})

ELEVEN_POINTS = recall_points("0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1")
CUTOFF = Param("cutoff", int, None, "rank cutoff; none: the whole ranking", minimum=1, maximum=MAX_RANK)
REQUIRED_CUTOFF = Param("cutoff", int, None, "rank cutoff", minimum=1, maximum=MAX_RANK, required=True)
GAIN = Param("gain", str, "linear", "gain profile: linear, exp, flat, steep, adjust, a profile of "
              "gain_profiles, or level=gain pairs such as '0=1,1=4' (levels not listed: gain = level)",
             normalise=lambda value: _gain_profile(value))

#: The two halves of a gain profile's ``level=gain`` pair (pyeval/core/gains.py, ``pyeval gains``):
#: a level is stored as INTEGER (gain_profiles.level), a gain is any finite number.
PROFILE_LEVEL = Param("level", int, None, "relevance level of a gain profile entry", minimum=0,
                      maximum=INTEGER_MAX)
PROFILE_GAIN = Param("gain", float, None, "gain of that level")

#: gain profiles every campaign has without rows in gain_profiles (sql/views/profile_gains.sql)
BUILTIN_GAIN_PROFILES = ("linear", "exp", "flat", "steep", "adjust")


def inline_profile(gains: dict) -> str:
    """The name of an inline gain profile, its ``level=gain`` pairs by level (``'0=1,1=4'``):
    ir_measures' ``nDCG(gains={0: 1, 1: 4})`` is ``nDCG(gain='0=1,1=4')``. Levels it does not
    list keep gain = level, as in every stored profile (ir_measures and trec_eval do the same)."""
    pairs = []
    for level, gain in sorted(gains.items()):
        if isinstance(level, bool) or not isinstance(level, int) or PROFILE_LEVEL.problem(level):
            raise MeasureParamError(f"gains: level {level!r} must be an integer in [0, {INTEGER_MAX}]")
        if isinstance(gain, bool) or not isinstance(gain, (int, float)) or PROFILE_GAIN.problem(float(gain)):
            raise MeasureParamError(f"gains: the gain of level {level} must be a finite number; got {gain!r}")
        gain = float(gain)
        pairs.append(f"{level}={int(gain) if gain.is_integer() and abs(gain) < 1e15 else repr(gain)}")
    return ",".join(pairs)


def is_inline_profile(name: str) -> bool:
    """Whether a gain profile name is an inline profile (:func:`inline_profile`)."""
    return "=" in name


def level_gain_pairs(text: str) -> dict[int, float]:
    """``'1=3,2=9'`` (trec_eval's ndcg parameters) as ``{1: 3.0, 2: 9.0}``; ValueError if not."""
    return {int(level): float(gain) for level, gain in (pair.split("=") for pair in text.replace(" ", "").split(","))}


def _gain_profile(value: str) -> str:
    """A profile name; an inline profile in its canonical form (:func:`inline_profile`)."""
    if not is_inline_profile(value):
        return value
    try:
        pairs = level_gain_pairs(value)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"an inline gain profile is level=gain pairs such as '0=1,1=4'; got {value!r}") from exc
    try:
        return inline_profile(pairs)
    except MeasureParamError:  # a level outside [0, INTEGER_MAX]: trec_eval's own profiles keep their text
        return value
