"""The registry: every measure pyeval computes, by canonical name and alias.

Only the registry maps a measure to its family; code looks measures up here and never
dispatches on name strings elsewhere. A family is computed by ``sql/metrics/metric_<family>.sql``
unless a Python driver is registered for it (:func:`register_driver`).
"""
from __future__ import annotations

import threading

from .base import MeasureDef

_BY_NAME: dict[str, MeasureDef] = {}
_CANONICAL: dict[str, MeasureDef] = {}


def register(*definitions: MeasureDef) -> None:
    """Add declarations; a name or alias registered twice is an error."""
    for definition in definitions:
        if not definition.reference:
            raise ValueError(f"measure {definition.name} has no reference")
        for key in (definition.name, *definition.aliases):
            if key in _BY_NAME:
                raise ValueError(f"measure name {key!r} is registered twice")
            _BY_NAME[key] = definition
        _CANONICAL[definition.name] = definition


_PRESETS: dict[str, dict] = {}

#: family -> "module:function" of its Python driver (families that are not SQL files).
_DRIVERS: dict[str, str] = {}


def register_driver(family: str, target: str) -> None:
    """Compute ``family`` with a Python function instead of a SQL file.

    ``target`` is ``"package.module:function"``, imported on first use; the function is called
    as ``function(con, measures, inputs)`` with the family's measures and the evaluation's
    :class:`pyeval.evaluation.FamilyInputs`, and returns the SQL families' long form
    (``run_id, topic_id, measure, value``).
    """
    if family in _DRIVERS:
        raise ValueError(f"family {family!r} has a driver already")
    _DRIVERS[family] = target


def driver(family: str):
    """The Python function computing ``family``, or None for a SQL family."""
    _load()
    target = _DRIVERS.get(family)
    if target is None:
        return None
    import importlib

    module, _, function = target.partition(":")
    return getattr(importlib.import_module(module), function)


def sql_families() -> list[str]:
    """Families computed by ``sql/metrics/metric_<family>.sql``, sorted."""
    _load()
    return sorted({d.family for d in _CANONICAL.values()} - set(_DRIVERS))


def register_alias(alias: str, name: str, **params) -> None:
    """An alias that also sets parameters (ir_measures: ``NumRelRet`` is ``NumRet(rel=1)``)."""
    definition = _CANONICAL[name]
    if alias in _BY_NAME:
        raise ValueError(f"measure name {alias!r} is registered twice")
    _BY_NAME[alias] = definition
    _PRESETS[alias] = params


def presets(name: str) -> dict:
    """Parameters an alias sets (empty for canonical names and plain aliases)."""
    _load()
    return dict(_PRESETS.get(name, {}))


def lookup(name: str) -> MeasureDef | None:
    """The declaration registered under ``name`` (canonical or alias), or None."""
    _load()
    return _BY_NAME.get(name)


def definitions() -> list[MeasureDef]:
    """Every registered declaration, by canonical name."""
    _load()
    return [_CANONICAL[name] for name in sorted(_CANONICAL)]


def known_names() -> list[str]:
    _load()
    return sorted(_BY_NAME)


_loaded = False
#: Held while the declarations are imported: a thread that finds the registry unloaded waits
#: for the whole import. Re-entrant, because the declaring modules look measures up while they
#: load; ``_depth`` counts those nested calls, so that only the outermost one sets ``_loaded``.
_loading = threading.RLock()
_depth = 0


def _load() -> None:
    """Import every declaration once; ``_loaded`` turns true only after the import finished."""
    global _loaded, _depth
    if _loaded:
        return
    with _loading:
        if _loaded:
            return
        _depth += 1
        try:
            from . import declarations  # noqa: F401  (registers on import)
        finally:
            _depth -= 1
        if _depth == 0:
            _loaded = True
