"""Measure names: parse(str(m)) == m, aliases, errors, and the documented catalogue."""
from __future__ import annotations

from pathlib import Path

import pytest

from pyeval.errors import MeasureNameError, MeasureParamError, UnknownMeasureError
from pyeval.measures import definitions, make, parse
from pyeval.measures.catalogue import catalogue

DOCS = Path(__file__).resolve().parents[2] / "docs" / "measures.md"


def _example(definition):
    params = {p.name: (0.5 if p.type is float else 10 if p.type is int else p.default)
              for p in definition.params if p.required}
    return make(definition, **params)


@pytest.mark.parametrize("definition", definitions(), ids=lambda d: d.name)
def test_round_trip(definition):
    measure = _example(definition)
    assert parse(str(measure)) == measure
    assert definition.reference


@pytest.mark.parametrize(
    "text,canonical",
    [
        ("AP", "AP"), ("MAP@100", "AP@100"), ("nDCG@10", "nDCG@10"), ("NDCG@10", "nDCG@10"),
        ("P(rel=2)@5", "P(rel=2)@5"), ("P(rel=1)@5", "P@5"), ("nDCG(gain=exp)@10", "nDCG(gain=exp)@10"),
        ("nDCG(gain='exp')@10", "nDCG(gain=exp)@10"), ("RBP(p=0.8)", "RBP"), ("RBP(p=0.9)", "RBP(p=0.9)"),
        ("IPrec@0.5", "IPrec@0.5"), ("MRR", "RR"), ("Judged@10", "Judged@10"), ("NumRelRet", "NumRet(rel=1)"), ("NumRelRet(rel=2)", "NumRet(rel=2)"),
        ("  Success@10 ", "Success@10"),
        ("IPrecAvg(points='0.9, 0.625')", "IPrecAvg(points='0.625,0.9')"),
    ],
)
def test_canonical_spelling(text, canonical):
    assert str(parse(text)) == canonical


@pytest.mark.parametrize(
    "text,error,message",
    [
        ("nDGC@10", UnknownMeasureError, "did you mean nDCG"),
        ("P", MeasureParamError, "P needs cutoff"),
        ("P(x=1)@5", MeasureParamError, "has no parameter 'x'"),
        ("P(rel='a')@5", MeasureParamError, "must be int"),
        ("P@0", MeasureParamError, r"must lie in \[1, "),
        ("Rprec@5", MeasureNameError, "takes no @ parameter"),
        ("P(1)@5", MeasureNameError, "must be named"),
        ("__import__('os')", MeasureNameError, "cannot read a parameter value|must be named|cannot parse"),
        ("RBP(gain_norm=other)", MeasureParamError, "must be one of"),
    ],
)
def test_errors(text, error, message):
    with pytest.raises(error, match=message):
        parse(text)


def test_docs_hold_the_generated_catalogue():
    assert catalogue() in DOCS.read_text(), "run: python -m pyeval.measures.catalogue, paste into docs/measures.md"


SHARED_WITH_IR_MEASURES = [
    "AP", "AP@100", "AP(rel=2)", "nDCG", "nDCG@10", "P@10", "P(rel=2)@5", "R@100", "RR", "RR@10", "Rprec",
    "Bpref", "infAP", "Success@10", "NumQ", "NumRel", "NumRet", "NumRet(rel=1)", "NumRelRet", "Judged@10",
    "IPrec@0.5", "RBP", "RBP(p=0.9)", "RBP(rel=2)", "SetP", "SetR", "SetF", "SetAP", "MAP", "MRR", "NDCG@10",
]


@pytest.mark.parametrize("text", SHARED_WITH_IR_MEASURES)
def test_same_spelling_as_ir_measures(text):
    ir_measures = pytest.importorskip("ir_measures")
    assert str(parse(text)) == str(ir_measures.parse_measure(text))
