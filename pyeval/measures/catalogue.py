"""The measure catalogue of docs/measures.md, generated from the registry.

``python -m pyeval.measures.catalogue`` prints it; a test checks docs/measures.md holds it,
so the documented names, parameters and defaults are the registered ones.
"""
from __future__ import annotations

from .registry import definitions


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
