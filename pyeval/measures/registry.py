"""The registry: every measure pyeval computes, by canonical name and alias.

Only the registry maps a measure to its family; code looks measures up here and never
dispatches on name strings elsewhere. A family is computed by ``sql/metrics/metric_<family>.sql``
unless a Python driver is registered for it (pyeval.family_drivers.register_driver, by pyeval/drivers/).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyeval import family_drivers

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


def driver(family: str):
    """The Python function computing ``family``, or None for a SQL family (pyeval.family_drivers:
    pyeval/drivers/ registers them)."""
    return family_drivers.driver(family)


def has_driver(family: str) -> bool:
    """Whether ``family`` is computed by a Python driver."""
    return family_drivers.driver(family) is not None


def reads_adhoc_qrels(measure) -> bool:
    """Whether ``measure`` reads only the ad hoc judgments (``intent_id = ''``): a SQL family
    staged ad hoc. Drivers and the diversity stagings read diversity qrels too (the rule
    pyeval.core.evaluation.evaluate checks a diversity campaign by)."""
    return not has_driver(measure.family) and measure.definition.staging == "adhoc"


def reads_intents(measure) -> bool:
    """Whether ``measure`` is a diversity measure: it reads per-intent judgments (a diversity
    staging: D-, DIN-, IA-measures, I-rec, ...; ndeval's family; D_U and U_IA)."""
    return (measure.definition.staging not in ("adhoc", "answers") or measure.family == "ndeval"
            or (measure.family == "umeasure" and measure.kind != "U"))


def sql_families() -> list[str]:
    """Families computed by ``sql/metrics/metric_<family>.sql``, sorted."""
    return sorted({d.family for d in _CANONICAL.values()} - family_drivers.driven_families())


#: spelling -> the tool or paper that uses it (docs/measures.md lists them)
_SOURCES: dict[str, str] = {}
#: spelling -> the warning printed when it is parsed (a name two tools give different meanings)
_NOTES: dict[str, str] = {}
#: NTCIREVAL's printed names with a zero-padded cutoff (``nDCG@0010``) whose meaning differs
#: from the same name with a plain cutoff: spelling -> (canonical name, parameters)
_PADDED: dict[str, tuple[str, dict]] = {}
#: (canonical name, parameter) -> function(value, other parameters) -> (canonical name,
#: parameters): a parameter another tool spells differently (ir_measures ``SetP(relative=True)``)
_REWRITES: dict[tuple[str, str], Callable[[Any, dict], tuple[str, dict]]] = {}


def register_alias(alias: str, name: str, *, source: str = "", note: str = "", **params) -> None:
    """An alias, which may also set parameters (ir_measures: ``NumRelRet`` is ``NumRet(rel=1)``).

    ``source`` names the tool or paper that spells the measure so; ``note`` is a warning given
    whenever the alias is parsed (for a name that another tool uses for another measure)."""
    definition = _CANONICAL[name]
    if alias in _BY_NAME:
        raise ValueError(f"measure name {alias!r} is registered twice")
    _BY_NAME[alias] = definition
    _PRESETS[alias] = params
    if source:
        _SOURCES[alias] = source
    if note:
        _NOTES[alias] = note


def register_padded(spelling: str, name: str, **params) -> None:
    """What NTCIREVAL means by ``spelling@0010`` (its zero-padded cutoff) where that differs
    from ``spelling@10`` (ir_measures' meaning): ``nDCG@0010`` is ``JKnDCG@10``."""
    _CANONICAL[name]  # noqa: B018  (a KeyError for an unknown measure)
    _PADDED[spelling] = (name, params)


#: canonical name -> [(spelling, source)] of the rewritten parameters that mean it
_REWRITTEN: dict[str, list[tuple[str, str]]] = {}


def register_rewrite(name: str, param: str, rewrite: Callable[[Any, dict], tuple[str, dict]], *,
                     spelled: dict[str, str], source: str) -> None:
    """A parameter of another tool's spelling of measure ``name`` that pyeval expresses by
    another measure or parameter: ``rewrite(value, other parameters)`` returns the canonical
    name and parameters (``SetP(relative=True)`` -> ``SetRelP``). ``spelled`` maps each
    canonical name it can give to the spelling docs/measures.md shows."""
    _REWRITES[(name, param)] = rewrite
    for target, text in spelled.items():
        _REWRITTEN.setdefault(target, []).append((text, source))


def presets(name: str) -> dict:
    """Parameters an alias sets (empty for canonical names and plain aliases)."""
    return dict(_PRESETS.get(name, {}))


def note(name: str) -> str:
    """The warning given when ``name`` is parsed ('' for most names)."""
    return _NOTES.get(name, "")


def padded(name: str) -> tuple[MeasureDef, dict] | None:
    """NTCIREVAL's meaning of ``name`` with a zero-padded cutoff, where it differs; or None."""
    entry = _PADDED.get(name)
    return None if entry is None else (_CANONICAL[entry[0]], dict(entry[1]))


def rewrites(name: str) -> dict[str, Callable[[Any, dict], tuple[str, dict]]]:
    """parameter -> rewrite, for the parameters of other tools' spellings of ``name``."""
    return {param: rewrite for (measure, param), rewrite in _REWRITES.items() if measure == name}


def spellings(name: str) -> list[tuple[str, dict, str]]:
    """Every registered spelling of canonical measure ``name`` as (spelling, parameters it
    sets, source), the canonical name first, then the aliases by name."""
    found = [(name, {}, "")]
    for key in sorted(_BY_NAME, key=str.casefold):
        if key != name and _BY_NAME[key].name == name:
            found.append((key, dict(_PRESETS.get(key, {})), _SOURCES.get(key, "")))
    return found


def rewritten_spellings(name: str) -> list[tuple[str, str]]:
    """(spelling, source) of the other tools' parameters that mean canonical measure ``name``."""
    return list(_REWRITTEN.get(name, []))


def padded_spellings(name: str) -> list[tuple[str, dict]]:
    """The zero-padded NTCIREVAL spellings that mean canonical measure ``name``."""
    return [(key, dict(params)) for key, (target, params) in sorted(_PADDED.items()) if target == name]


def fold(name: str) -> str | None:
    """The registered spelling equal to ``name`` but for case, when there is exactly one
    meaning among those spellings (``ndcg`` -> ``nDCG``); else None."""
    matches = [key for key in _BY_NAME if key.casefold() == name.casefold()]
    meanings = {(_BY_NAME[key].name, tuple(sorted(_PRESETS.get(key, {}).items()))) for key in matches}
    if len(meanings) != 1:
        return None
    return min(matches, key=lambda key: (key != _BY_NAME[key].name, key))


def lookup(name: str) -> MeasureDef | None:
    """The declaration registered under ``name`` (canonical or alias), or None."""
    return _BY_NAME.get(name)


def definitions() -> list[MeasureDef]:
    """Every registered declaration, by canonical name."""
    return [_CANONICAL[name] for name in sorted(_CANONICAL)]


def known_names() -> list[str]:
    """Every registered spelling (canonical names and aliases), sorted."""
    return sorted(_BY_NAME)
