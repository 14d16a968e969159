"""Ad hoc measures on diversity qrels (an ``iteration`` column that varies) through the Python
API: computed as ir_measures computes them (its dict of dicts: one level per document, the
last row's), never an empty result."""
from __future__ import annotations

import pandas as pd
import pytest

import pyeval
from pyeval.errors import PyevalError

ir_measures = pytest.importorskip("ir_measures")
from ir_measures import AP, P, Qrel, ScoredDoc, alpha_nDCG, nDCG  # noqa: E402

# document a judged 2 for intent 1 and 0 for intent 2 (its last row): ir_measures reads 0
ROWS = [("q1", "a", 2, "1"), ("q1", "b", 1, "2"), ("q1", "a", 0, "2"), ("q1", "d", 2, "1"),
        ("q2", "a", 1, "1"), ("q2", "e", 3, "2"), ("q2", "e", 1, "1")]
RUN = [ScoredDoc("q1", "a", 1.0), ScoredDoc("q1", "b", 0.5), ScoredDoc("q1", "c", 0.7), ScoredDoc("q1", "d", 0.2),
       ScoredDoc("q2", "e", 0.9), ScoredDoc("q2", "a", 0.4)]
ADHOC = [AP(rel=2), AP, P(rel=2) @ 5, nDCG @ 10]


def _forms():
    return {"namedtuples": [Qrel(*row) for row in ROWS],
            "generator": (Qrel(*row) for row in ROWS),
            "frame": pd.DataFrame(ROWS, columns=["query_id", "doc_id", "relevance", "iteration"])}


def _values(metrics):
    return {(m.query_id, m.measure): m.value for m in metrics}


@pytest.mark.parametrize("form", ["namedtuples", "generator", "frame"])
def test_ad_hoc_measures_on_diversity_qrels_are_ir_measures_values(form):
    expected = _values(ir_measures.iter_calc(ADHOC, [Qrel(*row) for row in ROWS], RUN))
    got = _values(pyeval.iter_calc(ADHOC, _forms()[form], RUN))
    assert len(expected) == 8 and got == pytest.approx(expected)
    assert pyeval.calc_aggregate(ADHOC, _forms()[form], RUN) == pytest.approx(
        ir_measures.calc_aggregate(ADHOC, [Qrel(*row) for row in ROWS], RUN))


def test_ad_hoc_and_diversity_measures_together():
    measures = [AP(rel=2), alpha_nDCG @ 5, AP]
    got = list(pyeval.iter_calc(measures, _forms()["frame"], RUN))
    assert [(m.query_id, m.measure) for m in got] == [(q, m) for q in ("q1", "q2") for m in measures]
    alone = _values(pyeval.iter_calc([alpha_nDCG @ 5], _forms()["frame"], RUN))
    adhoc = _values(ir_measures.iter_calc([AP(rel=2), AP], [Qrel(*row) for row in ROWS], RUN))
    assert _values(got) == pytest.approx({**alone, **adhoc})
    evaluator = pyeval.evaluator(measures, _forms()["namedtuples"])
    assert _values(evaluator.iter_calc(RUN)) == pytest.approx(_values(got))
    evaluator.close()


def test_diversity_qrels_file_refuses_ad_hoc_measures_clearly(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} {i} {d} {r}\n" for q, d, r, i in ROWS))
    with pytest.raises(PyevalError, match="ad hoc measures read ad hoc judgments"):
        pyeval.iter_calc([AP(rel=2)], str(path), RUN)


def test_a_measure_without_a_value_is_an_error_not_an_empty_result(monkeypatch):
    """The last guard: judged qrels and a measure with no value raise (a KeyError or an empty
    list before)."""
    from pyeval import interop

    monkeypatch.setattr(interop.Engine, "evaluate_many",  # pyeval.engines.resident.Engine
                        lambda self, measures, runs, *args, **kwargs: {key: ([], {}) for key in runs})
    with pytest.raises(PyevalError, match="AP: no value on these qrels"):
        list(pyeval.iter_calc([AP], {"q": {"a": 1}}, {"q": {"a": 1.0}}))


def test_qrels_without_rows_warn_in_every_shape_and_entry_point():
    """An empty result for a reason says so: qrels without rows (a list, a generator, a dict, a
    DataFrame) judge no topic, so no per-topic value (ir_measures' result) and an InputWarning;
    a generator or an evaluator of them was a DuckDB traceback."""
    from pyeval.errors import InputWarning

    run = {"q": {"a": 1.0}}
    for empty in ([], iter([]), {}, pd.DataFrame(columns=["query_id", "doc_id", "relevance"])):
        with pytest.warns(InputWarning, match="the qrels have no rows"):
            assert list(pyeval.iter_calc([AP], empty, run)) == []
    with pytest.warns(InputWarning, match="no topic is judged"):
        evaluator = pyeval.evaluator([AP], iter([]))
        assert list(evaluator.iter_calc(run)) == []
        assert str(evaluator.calc_aggregate_many({"r": run})["r"][AP]) == "nan"
        evaluator.close()
    with pytest.warns(InputWarning):
        assert str(pyeval.calc_aggregate_many([AP], [], {"r": run})["r"][AP]) == "nan"
    assert list(pyeval.iter_calc([AP], (Qrel("q", "a", 1) for _ in range(1)), run))[0].value == 1.0
