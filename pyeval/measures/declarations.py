"""Importing this module registers every measure (the registry imports it on first use)."""
from . import average_precision, cascade, condensed, counts, dcg, diversity, gap, ncu, ndeval, ntcir_dcg, precision, preferences, qmeasure, relstring, umeasure, unjudged  # noqa: F401
