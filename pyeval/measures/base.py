"""Measures as data: declarations (what a measure is) and values (a measure with parameters).

Follows ir_measures (terrierteam/ir_measures): one small declaration per measure, no
arithmetic in it; a measure value prints as ``Name(param=value)@cutoff`` with default
parameters left out, and that string is its identity (the ``measure`` column of ``scores``).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: The integer type of the SQL families' parameters (BIGINT): every int parameter lies in it.
BIGINT_RANGE = (-(2**63), 2**63 - 1)
#: The integer type of stored relevance levels (``qrels.level``, ``gain_profiles.level``:
#: INTEGER), and a bound for counts that a family multiplies (characters, levels as exponents).
INTEGER_MAX = 2**31 - 1
#: The order NTCIREVAL reads a run in: its lines' order in the file (MeasureDef.ordering of the
#: measures named after NTCIREVAL's).
NTCIREVAL_ORDERING = "file"
#: The largest rank cutoff: the drivers index ranks by ``list * (cutoff + 1) + rank`` in int64.
MAX_RANK = INTEGER_MAX


@dataclass(frozen=True)
class Param:
    """One parameter of a measure: its type, default and allowed values.

    The allowed values are declared here and nowhere else: ``choices``, or the interval from
    ``minimum`` to ``maximum`` (each end closed unless ``open_minimum``/``open_maximum``),
    within the type's own range (int: BIGINT; float: finite numbers), and ``normalise``.
    """

    name: str
    type: type
    default: Any
    doc: str
    choices: tuple | None = None
    minimum: float | None = None
    required: bool = False
    normalise: Any = None  # a function: value -> canonical value, raising ValueError if invalid
    maximum: float | None = None
    open_minimum: bool = False
    open_maximum: bool = False

    def domain(self) -> str:
        """The declared allowed values as text: ``(0, 1)``, ``[0, 1]``, ``>= 1``, ``one of a, b``
        (an int also lies in BIGINT, a float is finite)."""
        if self.choices is not None:
            return "one of " + ", ".join(map(str, self.choices))
        low, high = self.minimum, self.maximum
        show = (lambda v: f"{v:g}") if self.type is float else (lambda v: str(int(v)))
        if low is not None and high is not None:
            return f"{'(' if self.open_minimum else '['}{show(low)}, {show(high)}{')' if self.open_maximum else ']'}"
        if low is not None:
            return f"{'>' if self.open_minimum else '>='} {show(low)}"
        if high is not None:
            return f"{'<' if self.open_maximum else '<='} {show(high)}"
        return ""

    def problem(self, value: Any) -> str | None:
        """Why ``value`` (already of the parameter's type) is not allowed, or None."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        if isinstance(value, float) and not math.isfinite(value):
            return f"must be a finite number; got {value!r}"
        low, high = self.minimum, self.maximum
        below = low is not None and (value <= low if self.open_minimum else value < low)
        above = high is not None and (value >= high if self.open_maximum else value > high)
        if below or above:
            text = self.domain()
            return f"must {'lie in' if text[0] in '([' else 'be'} {text}; got {value!r}"
        if isinstance(value, int) and not BIGINT_RANGE[0] <= value <= BIGINT_RANGE[1]:
            lowest = BIGINT_RANGE[0] if low is None else int(low)
            return f"must lie in [{lowest}, {BIGINT_RANGE[1]}] (a BIGINT); got {_short(value)}"
        return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 30 else f"{text[:12]}... ({len(text)} digits)"


@dataclass(frozen=True)
class MeasureDef:
    """The declaration of a measure (no computation: the SQL of its family computes it).

    Attributes
    ----------
    name : canonical name (ir_measures spelling where ir_measures has the measure)
    family : the SQL file computing it, ``sql/metrics/metric_<family>.sql``
    params : declared parameters; the family's SQL receives every one of them
    at : the parameter ``@`` binds (``cutoff``, or ``recall`` for IPrec), if any
    aggregate : how topics are combined: ``mean``, ``sum`` or ``gmean`` (floor 1e-5)
    empty_value : the value of a judged topic the run did not retrieve anything for; None for a
        value of the judgments alone (NumRel, IdealDCG), the same whether the run retrieves or not
        (tests/sql/test_family_contract.py evaluates every measure and checks it)
    storable : False for text-valued measures (RelString), shown but not stored
    check : parameters -> the reason a combination of values is not a measure, or None
    kind : the formula the family computes, passed to its SQL as ``kind``: a D-measure
        (``D_nDCG``) is its ad hoc measure's formula (``nDCG``) over global gains; None: the name
    staging : what the family's SQL reads (pyeval/diversity): ``adhoc`` (the campaign's
        ad hoc qrels), ``global`` (global gains of a diversity campaign: D-measures), ``din``
        (DIN global gains), ``intents`` (a diversity campaign's intents: composite measures) or
        ``answers`` (generated answers, no ranked list: pyeval/measures/nuggets.py, staged with
        the ad hoc pass, pyeval.core.plan.NUGGET_STAGING)
    components : measure -> ``[(role, staging, component measure), ...]``, the values a composite
        measure (I-rec, IA, D#) combines; its family reads them as ``evaluation_components``
    family_params : the parameters the family's SQL reads (None: all); the others only choose
        what is staged or computed first (``probs``, a component's parameters)
    higher_is_better : True for a measure of effectiveness (a better run scores higher), False
        for one where lower is better, None for a count or diagnostic that ranks no run (NumRel,
        Judged): the ``measures`` table of the warehouse (docs/schema.md)
    minimum, maximum : the range of a per-topic value with non-negative gains (None: unbounded)
    ordering : the order of a run's documents the tool the measure is named after reads
        (pyeval.core.evaluation.ORDERINGS): ``trec`` (trec_eval's), ``rank`` (ndeval's: the rank
        column) or ``file`` (NTCIREVAL's, cwl_eval's: the file's line order); an evaluation
        that names no ordering ranks each measure's lists this way (docs/measures.md, "Whose
        conventions a name follows")
    answer_inputs : a measure of generated answers (pyeval/measures/nuggets.py): what it reads
        besides the answers, ``assignments`` (the evaluation's judgment set is a nugget
        assignment set), ``support`` (a citation support set) or ``answers`` (the answers
        alone); None for a measure of ranked lists
    """

    name: str
    family: str
    description: str
    reference: str
    params: tuple[Param, ...] = ()
    at: str | None = None
    aliases: tuple[str, ...] = ()
    aggregate: str = "mean"
    empty_value: float | None = 0.0
    storable: bool = True
    check: Callable[[dict[str, Any]], str | None] | None = None
    kind: str | None = None
    staging: str = "adhoc"
    components: Callable[[Measure], list[tuple[str, str, Measure]]] | None = None
    family_params: tuple[str, ...] | None = None
    higher_is_better: bool | None = True
    minimum: float | None = 0.0
    maximum: float | None = 1.0
    ordering: str = "trec"
    answer_inputs: str | None = None

    def param(self, name: str) -> Param:
        for param in self.params:
            if param.name == name:
                return param
        raise KeyError(name)


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return value if value.isidentifier() else repr(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return repr(value)
    return repr(value)


@dataclass(frozen=True)
class Measure:
    """A measure with all its parameters bound. ``str(m)`` is its canonical name."""

    definition: MeasureDef
    values: tuple[tuple[str, Any], ...] = field(default=())

    def has(self, name: str) -> bool:
        """Whether the measure's definition has the parameter ``name``."""
        return any(key == name for key, _ in self.values)

    def __getitem__(self, name: str) -> Any:
        for key, value in self.values:
            if key == name:
                return value
        raise KeyError(name)

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def family(self) -> str:
        return self.definition.family

    @property
    def kind(self) -> str:
        """The formula its family computes (``kind`` of requested_measures)."""
        return self.definition.kind or self.definition.name

    def __str__(self) -> str:
        definition = self.definition
        shown = [
            (key, value)
            for key, value in self.values
            if key != definition.at and value != definition.param(key).default
        ]
        text = definition.name
        if shown:
            text += "(" + ", ".join(f"{key}={_format_value(value)}" for key, value in sorted(shown)) + ")"
        if definition.at is not None:
            at_value = self[definition.at]
            if at_value is not None:
                text += "@" + _format_value(at_value)
        return text

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Measure) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))
