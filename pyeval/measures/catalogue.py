"""The measure catalogue, generated from the registry: the markdown table of docs/measures.md
and the rows of the warehouse's ``measures`` table (docs/schema.md).

``python -m pyeval.measures.catalogue`` prints the markdown; a test checks docs/measures.md holds
it, so the documented names, parameters and defaults are the registered ones.
"""
from __future__ import annotations

import hashlib
import json

from . import registry
from .registry import definitions
from .trec_eval_names import TREC_MEASURES, TrecEvalOptions


def _trec_eval_spellings() -> dict[str, list[str]]:
    """canonical name -> trec_eval's names for it (``P_k``/``P.k``, ``map``), at trec_eval's
    defaults (-l 1)."""
    options = TrecEvalOptions()
    found: dict[str, list[str]] = {}
    for spec in TREC_MEASURES:
        if spec.judgment_groups or spec.preferences:
            continue
        if spec.kind == "single":
            measure, spelling = spec.build(options), spec.name
        elif spec.kind == "int_cutoffs":
            measure, spelling = spec.build(options, 10), f"{spec.name}_k"
        elif spec.kind == "float_cutoffs":
            measure, spelling = spec.build(options, 0.5), f"{spec.name}_x"
        else:
            measure, spelling = spec.build(options, spec.default), spec.name
        found.setdefault(measure.name, []).append(spelling)
    return found


def spelled(definition) -> list[str]:
    """Every other accepted spelling of ``definition``, with the parameters it sets and who
    spells it so (aliases, other tools' parameters, NTCIREVAL's zero-padded names)."""
    items = []
    for spelling, params, source in registry.spellings(definition.name)[1:]:
        text = f"`{spelling}`"
        notes = [", ".join(f"{k}={v!r}" for k, v in sorted(params.items()))] if params else []
        notes += [source] if source else []
        items.append(text + (f" ({'; '.join(notes)})" if notes else ""))
    items += [f"`{spelling}` ({source})" for spelling, source in registry.rewritten_spellings(definition.name)]
    items += [f"`{spelling}` (trec_eval)" for spelling in _trec_eval_spellings().get(definition.name, [])]
    for spelling, params in registry.padded_spellings(definition.name):
        shown = ", ".join(f"{k}={v!r}" for k, v in sorted(params.items()))
        items.append(f"`{spelling}@00NN` (NTCIREVAL{'; ' + shown if shown else ''})")
    return items

#: The columns of the ``measures`` table (migrations/0010_bi.sql), in order.
COLUMNS: tuple[str, ...] = (
    "measure_name", "family", "description", "parameters", "cutoff_parameter", "aliases",
    "higher_is_better", "minimum_value", "maximum_value", "aggregate", "storable", "reference",
)


def _json_value(value):
    return value if value is None or isinstance(value, (bool, int, float, str)) else repr(value)


def rows() -> list[tuple]:
    """One row per registered measure (canonical name), in :data:`COLUMNS` order: parameters
    and aliases as JSON text, ``aggregate`` as ``evaluation_measures.aggregate`` spells it."""
    found = []
    for definition in definitions():
        parameters = [
            {"name": p.name, "type": p.type.__name__, "default": _json_value(p.default),
             "required": p.required, "domain": p.domain() or None, "doc": p.doc}
            for p in definition.params
        ]
        found.append((
            definition.name, definition.family, definition.description,
            json.dumps(parameters, ensure_ascii=False), definition.at,
            json.dumps(list(definition.aliases), ensure_ascii=False), definition.higher_is_better,
            definition.minimum, definition.maximum, definition.aggregate, definition.storable,
            definition.reference,
        ))
    return found


def rows_sha256(catalogue_rows: list[tuple]) -> str:
    """The sha256 of the rows as JSON: what ``derived_objects`` records for the table."""
    return hashlib.sha256(json.dumps(catalogue_rows, ensure_ascii=False).encode("utf-8")).hexdigest()


def _param(param) -> str:
    default = "required" if param.required else ("none" if param.default is None else repr(param.default))
    domain = f"; {param.domain()}" if param.domain() else ""
    return f"`{param.name}` ({param.type.__name__}, {default}{domain}): {param.doc}"


def catalogue() -> str:
    """A markdown table: one row per measure, by family, with every accepted spelling."""
    lines = [
        "| measure | family | what it is | parameters | topics combined by | follows |",
        "|---|---|---|---|---|---|",
    ]
    for definition in sorted(definitions(), key=lambda d: (d.family, d.name)):
        name = f"`{definition.name}`" + (f"@{definition.at}" if definition.at else "")
        also = spelled(definition)
        if also:
            name += "<br>also: " + ", ".join(also)
        params = "<br>".join(_param(p) for p in definition.params if p.name != definition.at) or "-"
        if definition.at:
            at = definition.param(definition.at)
            params = (params + "<br>" if params != "-" else "") + "@: " + _param(at)
        combined = {"mean": "mean", "sum": "sum", "gmean": "geometric mean"}[definition.aggregate]
        if not definition.storable:
            combined = "not combined (text)"
        lines.append(
            f"| {name} | {definition.family} | {definition.description} | {params} | {combined} | "
            f"{definition.reference} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(catalogue(), end="")
