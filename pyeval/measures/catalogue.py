"""The measure catalogue of docs/measures.md, generated from the registry.

``python -m pyeval.measures.catalogue`` prints it; a test checks docs/measures.md holds it,
so the documented names, parameters and defaults are the registered ones.
"""
from __future__ import annotations

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
