"""Importing this module registers every measure (the registry imports it on first use)."""
from . import average_precision, counts, dcg, precision, relstring, unjudged  # noqa: F401
