"""The measure catalogue, generated from the registry: the markdown table of docs/measures.md
and the rows of the warehouse's ``measures`` table (docs/schema.md).

``python -m pyeval.measures.catalogue`` prints the markdown; a test checks docs/measures.md holds
it, so the documented names, parameters and defaults are the registered ones.
"""
from __future__ import annotations

import hashlib
import json

from .registry import definitions

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
    """A markdown table: one row per measure, by family."""
    lines = [
        "| measure | family | what it is | parameters | topics combined by | follows |",
        "|---|---|---|---|---|---|",
    ]
    for definition in sorted(definitions(), key=lambda d: (d.family, d.name)):
        name = f"`{definition.name}`" + (f"@{definition.at}" if definition.at else "")
        if definition.aliases:
            name += " (alias " + ", ".join(f"`{a}`" for a in definition.aliases) + ")"
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
