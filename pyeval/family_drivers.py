"""Which measure families are computed by a Python driver, and the driver of each, as function
objects: pyeval/drivers/ registers them (:mod:`pyeval.drivers`, imported with ``pyeval``); the
plan, the engines and the measures' registry (pyeval.measures.registry) read them here. A leaf
module: it imports nothing, so the measures can read it without importing the drivers (which
import the evaluation kernel, which imports the measures).
"""
from __future__ import annotations

from collections.abc import Callable

#: family -> its Python driver, called as ``driver(con, measures, request)`` with the family's
#: measures and the evaluation's pyeval.core.request.EvaluationRequest; it returns the SQL
#: families' long form (``run_id, topic_id, measure, value``).
_DRIVERS: dict[str, Callable] = {}


def register_driver(family: str, function: Callable) -> None:
    """Compute ``family`` with ``function`` instead of a SQL file; ValueError when the family has
    a driver already."""
    if family in _DRIVERS:
        raise ValueError(f"family {family!r} has a driver already")
    _DRIVERS[family] = function


def driver(family: str) -> Callable | None:
    """The Python function computing ``family``, or None for a SQL family."""
    return _DRIVERS.get(family)


def driven_families() -> frozenset[str]:
    """The families computed by a Python driver."""
    return frozenset(_DRIVERS)
