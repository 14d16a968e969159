"""Importing this module registers every measure (pyeval/measures/__init__.py imports it first)."""
from . import average_precision, cascade, compat, condensed, counts, cwl, dcg, diversity, gap, ncu, ndeval, ntcir_dcg, nuggets, precision, preferences, qmeasure, relstring, umeasure, unjudged  # noqa: F401
from . import spellings  # noqa: F401  (other tools' names, after the measures they name)
