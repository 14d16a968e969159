"""Measures: declarations, the registry, and the name parser (``parse``, ``parse_measures``)."""
from .base import Measure, MeasureDef, Param
from . import declarations  # noqa: F401  (registers every measure, before any lookup)
from .names import make, parse
from .registry import definitions, lookup
from .trec_eval_names import parse_measure, parse_measures

__all__ = ["Measure", "MeasureDef", "Param", "definitions", "lookup", "make", "parse", "parse_measure", "parse_measures"]
