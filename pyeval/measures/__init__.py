"""Measures: declarations, the registry, and the name parser (``parse``)."""
from .base import Measure, MeasureDef, Param
from .names import make, parse
from .registry import definitions, lookup

__all__ = ["Measure", "MeasureDef", "Param", "definitions", "lookup", "make", "parse"]
