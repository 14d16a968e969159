"""Text-valued RelString@k (shown, not stored). Computed by sql/metrics/metric_relstring.sql."""
from __future__ import annotations

from .base import MAX_RANK, MeasureDef, Param  # noqa: F401
from .common import CUTOFF, GAIN, REL, REQUIRED_CUTOFF, TREC_EVAL  # noqa: F401
from .registry import register

register(
    MeasureDef("RelString", "relstring", "the labels of the top k documents, as text",
               TREC_EVAL.format("relstring"), params=(Param("cutoff", int, 10, "documents shown", minimum=1, maximum=MAX_RANK),),
               at="cutoff", storable=False, higher_is_better=None, minimum=None, maximum=None),
)
