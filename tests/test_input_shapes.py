"""Qrels and runs in the shapes notebooks hold them, wherever the Python API takes qrels or runs:
ranx ``Qrels``/``Run`` (which crashed numba before), ir_datasets' qrels and scored documents
(namedtuples with its field names; ir_datasets itself is not installed here), dicts of dicts,
pandas frames and generators: the same values as the TREC files they hold."""
from __future__ import annotations

from collections import namedtuple

import pandas as pd
import pytest

import pyeval

from .conftest import FIXTURES


def _ranx():
    """ranx, from the test-engines extra (it pulls numba, which compiles each typed-dict access of
    a process the first time: some 20 s, so that its tests are deselected by default)."""
    return pytest.importorskip("ranx", reason="ranx is not installed (pip install '.[test-engines]')")


QRELS_FILE = FIXTURES / "trec_eval" / "qrels.test"
RUN_FILE = FIXTURES / "trec_eval" / "results.test"
MEASURES = ["AP", "nDCG@10", "P@5", "RR"]

#: ir_datasets' record types, by their field names (ir_datasets.formats.TrecQrel, GenericScoredDoc).
TrecQrel = namedtuple("TrecQrel", ["query_id", "doc_id", "relevance", "iteration"])
GenericScoredDoc = namedtuple("GenericScoredDoc", ["query_id", "doc_id", "score"])


def _qrels_dict() -> dict[str, dict[str, int]]:
    judged: dict[str, dict[str, int]] = {}
    for line in QRELS_FILE.read_text().splitlines():
        topic, _, doc, level = line.split()
        judged.setdefault(topic, {})[doc] = int(level)
    return judged


def _run_dict() -> dict[str, dict[str, float]]:
    scored: dict[str, dict[str, float]] = {}
    for line in RUN_FILE.read_text().splitlines():
        topic, _, doc, _, score, _ = line.split()
        scored.setdefault(topic, {})[doc] = float(score)
    return scored


def _qrels_shapes() -> dict:
    judged = _qrels_dict()
    records = [TrecQrel(q, d, level, "0") for q, docs in judged.items() for d, level in docs.items()]
    return {
        "file": lambda: str(QRELS_FILE),
        "dict": lambda: judged,
        "ir_datasets records": lambda: list(records),
        "ir_datasets iterator": lambda: iter(records),
        "frame": lambda: pd.DataFrame(records)[["query_id", "doc_id", "relevance"]],
    }


def _run_shapes() -> dict:
    scored = _run_dict()
    records = [GenericScoredDoc(q, d, s) for q, docs in scored.items() for d, s in docs.items()]
    return {
        "file": lambda: str(RUN_FILE),
        "dict": lambda: scored,
        "ir_datasets records": lambda: list(records),
        "ir_datasets iterator": lambda: iter(records),
        "frame": lambda: pd.DataFrame(records),
    }


QRELS = _qrels_shapes()
RUNS = _run_shapes()


@pytest.fixture(scope="module")
def stored_means() -> dict:
    """The means of the TREC files loaded into a warehouse, by measure."""
    con = pyeval.connect()
    pyeval.load_qrels(con, "c", QRELS_FILE)
    pyeval.load_run(con, "c", RUN_FILE, name="given")
    means = pyeval.evaluate(con, "c", MEASURES, store=False).means
    return dict(zip(means["measure"], means["value"]))


@pytest.fixture(scope="module")
def expected() -> dict:
    return pyeval.calc_aggregate(MEASURES, str(QRELS_FILE), str(RUN_FILE))


@pytest.mark.parametrize("qrels, run", [*((shape, "dict") for shape in QRELS), *(("dict", shape) for shape in RUNS)])
def test_calc_aggregate_takes_every_shape(expected, qrels, run):
    got = pyeval.calc_aggregate(MEASURES, QRELS[qrels](), RUNS[run]())
    assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.engines
def test_ranx_objects_everywhere_the_api_takes_qrels_or_runs(expected):
    ranx = _ranx()
    qrels, run = ranx.Qrels(_qrels_dict()), ranx.Run(_run_dict(), name="r")
    assert pyeval.calc_aggregate(MEASURES, qrels, run) == pytest.approx(expected, abs=1e-12)
    assert pyeval.calc_aggregate(MEASURES, str(QRELS_FILE), run) == pytest.approx(expected, abs=1e-12)
    per_topic = {(m.query_id, str(m.measure)): m.value for m in pyeval.iter_calc(MEASURES, qrels, run)}
    from_files = {(m.query_id, str(m.measure)): m.value
                  for m in pyeval.iter_calc(MEASURES, str(QRELS_FILE), str(RUN_FILE))}
    assert per_topic == pytest.approx(from_files, abs=1e-12)
    evaluator = pyeval.evaluator(MEASURES, qrels)
    try:
        assert evaluator.calc_aggregate(run) == pytest.approx(expected, abs=1e-12)
        many = evaluator.calc_aggregate_many({"a": run, "b": _run_dict()})
    finally:
        evaluator.close()
    assert many["a"] == many["b"] == pytest.approx(expected, abs=1e-12)
    assert pyeval.calc_aggregate_many(MEASURES, qrels, {"x": run})["x"] == pytest.approx(expected, abs=1e-12)


def test_diversity_records_of_ir_datasets_keep_their_intents():
    records = [TrecQrel("1", "a", 1, "1"), TrecQrel("1", "b", 1, "2"), TrecQrel("1", "c", 0, "1")]
    run = [GenericScoredDoc("1", "a", 3.0), GenericScoredDoc("1", "c", 2.0), GenericScoredDoc("1", "b", 1.0)]
    as_frame = pd.DataFrame(records)
    measures = ["alpha-nDCG@3", "AP"]
    assert pyeval.calc_aggregate(measures, iter(records), iter(run)) == pyeval.calc_aggregate(
        measures, as_frame, pd.DataFrame(run))


@pytest.mark.parametrize("qrels, run", [*((shape, "frame") for shape in QRELS if shape != "file"),
                                       *(("frame", shape) for shape in RUNS if shape not in ("file", "frame"))])
def test_the_loaders_take_every_shape(stored_means, qrels, run):
    con = pyeval.connect()
    pyeval.load_qrels(con, "c", QRELS[qrels]())
    pyeval.load_run(con, "c", RUNS[run](), name="given")
    means = pyeval.evaluate(con, "c", MEASURES, store=False).means
    assert dict(zip(means["measure"], means["value"])) == pytest.approx(stored_means, abs=1e-12)


@pytest.mark.engines
def test_the_loaders_take_ranx_objects_a_run_under_its_name_unless_one_is_given(stored_means):
    ranx = _ranx()
    con = pyeval.connect()
    pyeval.load_qrels(con, "c", ranx.Qrels(_qrels_dict()))
    reports = pyeval.load_runs(con, "c", [ranx.Run(_run_dict(), name="bm25"), ranx.Run(_run_dict(), name="x")],
                               names=[None, "renamed"])
    assert [report.name for report in reports] == ["bm25", "renamed"]
    means = pyeval.evaluate(con, "c", MEASURES, store=False).means
    for run in ("bm25", "renamed"):
        part = means[means["run_id"] == run]
        assert dict(zip(part["measure"], part["value"])) == pytest.approx(stored_means, abs=1e-12)


def test_a_list_of_frames_is_still_a_list_of_inputs(stored_means):
    frame = pd.DataFrame(_qrels_shapes()["ir_datasets records"]())[["query_id", "doc_id", "relevance"]]
    con = pyeval.connect()
    pyeval.load_qrels(con, "c", [frame.iloc[:1000], frame.iloc[1000:]])
    pyeval.load_run(con, "c", iter(_run_shapes()["ir_datasets records"]()), name="given")
    means = pyeval.evaluate(con, "c", MEASURES, store=False).means
    assert dict(zip(means["measure"], means["value"])) == pytest.approx(stored_means, abs=1e-12)
