"""Parsing and printing measure names: ``Name(param=value, ...)@at`` (ir_measures syntax).

``parse(str(m)) == m`` for every measure. Parsing uses Python's ``ast`` (never ``eval``);
a bare identifier as a value is read as a string (``nDCG(gain=exp)@10``).
"""
from __future__ import annotations

import ast
import difflib
import re
from typing import Any

from ..errors import MeasureNameError, MeasureParamError, UnknownMeasureError
from . import registry
from .base import Measure, MeasureDef


def _literal(node: ast.AST, text: str) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool)):
        return node.value
    if isinstance(node, ast.Name):
        return node.id
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, (int, float))
    ):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    raise MeasureNameError(f"cannot read a parameter value in measure {text!r}")


def _coerce(definition: MeasureDef, name: str, value: Any, text: str) -> Any:
    try:
        param = definition.param(name)
    except KeyError:
        allowed = ", ".join(p.name for p in definition.params) or "none"
        raise MeasureParamError(
            f"{definition.name} has no parameter {name!r} (parameters: {allowed})"
        ) from None
    if value is None:
        return None
    expected = param.type
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        try:
            value = float(value)
        except OverflowError:
            raise MeasureParamError(f"{definition.name}: parameter {name} must be a finite number; "
                                    f"got an integer of {len(str(value))} digits in {text!r}") from None
    if expected is int and isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise MeasureParamError(
            f"{definition.name}: parameter {name} must be {expected.__name__}, got {value!r} in {text!r}"
        )
    if param.choices is not None and value not in param.choices:
        raise MeasureParamError(
            f"{definition.name}: parameter {name} must be one of {', '.join(map(str, param.choices))}; "
            f"got {value!r}"
        )
    if param.normalise is not None:
        try:
            value = param.normalise(value)
        except ValueError as exc:
            raise MeasureParamError(f"{definition.name}: parameter {name}: {exc}") from None
    problem = param.problem(value)
    if problem is not None:
        raise MeasureParamError(f"{definition.name}: parameter {name} {problem}")
    return value


def make(definition: MeasureDef, **given: Any) -> Measure:
    """A measure of ``definition`` with the given parameters (others at their defaults)."""
    text = definition.name
    values = {}
    for param in definition.params:
        value = given.pop(param.name, param.default)
        if value is None and param.required:
            raise MeasureParamError(f"{definition.name} needs {param.name} (e.g. {definition.name}@10)")
        values[param.name] = _coerce(definition, param.name, value, text) if value is not None else None
    if given:
        _coerce(definition, next(iter(given)), None, text)  # raises: unknown parameter
    if definition.check is not None:
        problem = definition.check(values)
        if problem:
            raise MeasureParamError(f"{definition.name}: {problem}")
    return Measure(definition, tuple(values.items()))


_HYPHENATED = re.compile(r"\s*([A-Za-z][\w]*(?:-[\w]+)+)(?=\s*(?:[(@]|$))")


def _unhyphenate(text: str) -> str:
    """A registered alias spelled with hyphens (ndeval's ``alpha-nDCG@20``, ``MAP-IA``) is not a
    Python name: replace it by its canonical name before parsing."""
    match = _HYPHENATED.match(text)
    if match is None:
        return text
    definition = registry.lookup(match.group(1))
    if definition is None:
        return text
    return definition.name + text[match.end():]


def parse(text: str) -> Measure:
    """Parse a measure string such as ``'P(rel=2)@5'``, ``'nDCG@10'`` or ``'AP'``.

    Raises
    ------
    MeasureNameError, UnknownMeasureError, MeasureParamError
    """
    text = _unhyphenate(text)
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise MeasureNameError(f"cannot parse measure {text!r}") from None
    at_value = None
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        at_value = _literal(tree.right, text)
        tree = tree.left
    keywords: dict[str, Any] = {}
    if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name):
        if tree.args:
            raise MeasureNameError(f"measure parameters must be named (k=v) in {text!r}")
        keywords = {kw.arg: _literal(kw.value, text) for kw in tree.keywords}
        tree = tree.func
    if isinstance(tree, ast.Name):
        keywords = {**registry.presets(tree.id), **keywords}
    if not isinstance(tree, ast.Name):
        raise MeasureNameError(f"cannot parse measure {text!r}")
    definition = registry.lookup(tree.id)
    if definition is None:
        close = difflib.get_close_matches(tree.id, registry.known_names(), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownMeasureError(f"unknown measure {tree.id!r}{hint}")
    if at_value is not None:
        if definition.at is None:
            raise MeasureNameError(f"{definition.name} takes no @ parameter: {text!r}")
        if definition.at in keywords:
            raise MeasureNameError(f"{definition.at} given twice in {text!r}")
        keywords[definition.at] = at_value
    return make(definition, **keywords)
