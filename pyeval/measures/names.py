"""Parsing and printing measure names: ``Name(param=value, ...)@at`` (ir_measures syntax).

``parse(str(m)) == m`` for every measure. The name is any registered spelling (docs/measures.md
lists them); parameters are read with Python's ``ast`` (never ``eval``); a bare identifier as
a value is read as a string (``nDCG(gain=exp)@10``).
"""
from __future__ import annotations

import ast
import difflib
import re
import warnings
from typing import Any

from ..errors import MeasureNameError, MeasureNameWarning, MeasureParamError, UnknownMeasureError
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


#: ``@`` and a number at the end of a measure string (``@10``, ``@0.5``, NTCIREVAL's ``@0010``)
_AT = re.compile(r"@\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*$")
#: a measure name: anything but parentheses, ``@``, quotes and spaces (``D#-nDCG``, ``P+Q#``,
#: ``NCUgu,P``, ``α_nDCG``)
_NAME = re.compile(r"[^\s()@'\"]+")
#: a name with its cutoff glued on (``P10``, ``ndcg10``): only ever a suggestion
_GLUED = re.compile(r"(.*?[A-Za-z_])(\d+)")


#: the general form of a measure string, which parse errors name
FORM = "write NAME, NAME@K or NAME(param=value, ...)@K, e.g. AP, nDCG@10, P(rel=2)@5"
#: characters a typed number may hold by mistake: O for 0, l and I for 1
_DIGIT_LOOKALIKES = str.maketrans({"O": "0", "o": "0", "l": "1", "I": "1"})


def at_form(definition: MeasureDef) -> str:
    """How ``definition``'s ``@`` parameter is written: ``nDCG@K with K a positive integer``."""
    param = definition.param(definition.at)
    domain = param.domain()
    if param.type is int and param.minimum == 1 and domain.startswith("[1,"):
        what = "a positive integer"
    else:
        what = ("an integer" if param.type is int else "a number") + (
            f" in {domain}" if domain[:1] in "([" else f" {domain}" if domain else "")
    example = param.default if param.default is not None else (10 if param.type is int else 0.5)
    return f"{definition.name}@K with K {what} (e.g. {definition.name}@{example})"


def _unparsable(text: str) -> MeasureNameError:
    """The error for a measure string the grammar does not read: for a known name with a bad
    ``@`` part (``nDCG@``, ``P@x``, ``nDCG@1O``) the form its ``@`` takes and, where the value
    is a number but for a look-alike letter, that number; else the general form."""
    head, at, tail = text.strip().rpartition("@")
    name = head.partition("(")[0].strip()
    if at and _NAME.fullmatch(name):
        key = name if registry.lookup(name) is not None else registry.fold(name)
        if key is None:
            _resolve(name, False)  # raises: unknown measure, with the names closest to it
        definition = registry.lookup(key)
        if definition.at is None:
            return MeasureNameError(f"{definition.name} takes no @ parameter: {text!r}")
        hint = ""
        number = tail.strip().translate(_DIGIT_LOOKALIKES)
        if number != tail.strip() and _AT.fullmatch("@" + number):
            hint = f"; did you mean {head.strip()}@{number}?"
        return MeasureNameError(f"cannot parse measure {text!r}: write {at_form(definition)}{hint}")
    return MeasureNameError(f"cannot parse measure {text!r}; {FORM}")


def _at(text: str) -> tuple[int | float, bool]:
    """The value after ``@``, and whether it is NTCIREVAL's zero-padded cutoff (``0010``)."""
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text), len(text) > 1 and text.startswith("0")
    return float(text), False


def _keywords(call: str, text: str) -> dict[str, Any]:
    """``(k=v, ...)`` as a dict, read with ``ast`` (never ``eval``)."""
    if not call:
        return {}
    try:
        tree = ast.parse("measure" + call, mode="eval").body
    except SyntaxError:
        raise MeasureNameError(f"cannot parse measure {text!r}; {FORM}") from None
    if not isinstance(tree, ast.Call) or not isinstance(tree.func, ast.Name):
        raise MeasureNameError(f"cannot parse measure {text!r}; {FORM}")
    if tree.args:
        raise MeasureNameError(f"measure parameters must be named (k=v) in {text!r}")
    keywords = {}
    for keyword in tree.keywords:
        if keyword.arg is None or keyword.arg in keywords:
            raise MeasureNameError(f"cannot parse measure {text!r}")
        keywords[keyword.arg] = _value(keyword.value, text)
    return keywords


def _value(node: ast.AST, text: str) -> Any:
    """A parameter value: a literal, a bare name (read as a string), or ir_measures' gains
    dict ``{level: gain, ...}``."""
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise MeasureNameError(f"cannot read a parameter value in measure {text!r}")
        return {_literal(key, text): _literal(value, text) for key, value in zip(node.keys, node.values)}
    return _literal(node, text)


def suggestions(name: str) -> list[str]:
    """The canonical names closest to an unknown ``name`` (case ignored), at most three."""
    canonical = {d.name.casefold(): d.name for d in registry.definitions()}
    spelled: dict[str, list[str]] = {}
    for key in registry.known_names():
        spelled.setdefault(key.casefold(), []).append(registry.lookup(key).name)
    close = difflib.get_close_matches(name.casefold(), list(spelled), n=6, cutoff=0.6)
    found = list(dict.fromkeys(found for key in close for found in sorted(spelled[key])))
    glued = _GLUED.fullmatch(name)
    if glued is not None:
        key = registry.fold(glued.group(1)) or glued.group(1)
        definition = registry.lookup(key)
        if definition is not None and definition.at is not None:
            found.insert(0, f"{definition.name}@{glued.group(2)}")
    if not found:
        found = [canonical[key] for key in difflib.get_close_matches(name.casefold(), list(canonical), n=3)]
    return found[:3]


def _resolve(name: str, padded: bool) -> tuple[MeasureDef, dict, str]:
    """The declaration a spelling names, the parameters it sets, and its warning (if any)."""
    if padded:
        entry = registry.padded(name) or registry.padded(registry.fold(name) or name)
        if entry is not None:
            return entry[0], entry[1], ""
    key = name if registry.lookup(name) is not None else registry.fold(name)
    if key is None:
        close = suggestions(name)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownMeasureError(f"unknown measure {name!r}{hint}")
    return registry.lookup(key), registry.presets(key), registry.note(key)


def parse(text: str) -> Measure:
    """Parse a measure string such as ``'P(rel=2)@5'``, ``'nDCG@10'`` or ``'AP'``.

    Accepts every registered spelling (ir_measures', NTCIREVAL's, ndeval's and the papers'
    names, docs/measures.md), case-insensitively where that is unambiguous. NTCIREVAL's
    zero-padded cutoff (``nDCG@0010``) gives a name NTCIREVAL's meaning where it differs from
    ir_measures' (``JKnDCG@10``).

    Raises
    ------
    MeasureNameError, UnknownMeasureError, MeasureParamError
    """
    stripped = text.strip()
    at_value, padded = None, False
    at_match = _AT.search(stripped)
    if at_match is not None:
        at_value, padded = _at(at_match.group(1))
        stripped = stripped[: at_match.start()].rstrip()
    name, paren, call = stripped.partition("(")
    name = name.strip()
    if not _NAME.fullmatch(name) or "@" in call:
        raise _unparsable(text)
    keywords = _keywords(paren + call, text)
    definition, preset, warning = _resolve(name, padded)
    if warning:
        warnings.warn(warning, MeasureNameWarning, stacklevel=2)
    keywords = {**preset, **keywords}
    for param, rewrite in registry.rewrites(definition.name).items():
        if param in keywords:
            target, keywords = rewrite(keywords.pop(param), keywords)
            definition = registry.lookup(target)
    if at_value is not None:
        if definition.at is None:
            raise MeasureNameError(f"{definition.name} takes no @ parameter: {text!r}")
        keywords[definition.at] = at_value  # @ wins over the same parameter in (...), as in ir_measures
    return make(definition, **keywords)
