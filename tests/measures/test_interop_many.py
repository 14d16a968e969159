"""Many runs in one statement (pyeval.calc_aggregate_many, calc_many, Evaluator.*_many: issue 30)
and in-memory qrels staged by the fast path's SQL.

Oracle: the same API called once per run (itself checked against ir_measures and against
pyeval.evaluate in test_interop.py): the values must be equal bit for bit, per topic and
aggregated, whatever the runs' forms and however many are evaluated together.
"""
from __future__ import annotations

import math
import random

import pandas as pd
import pytest

import pyeval
from pyeval.errors import InputFormatError, PyevalError

ir_measures = pytest.importorskip("ir_measures")
from ir_measures import AP, P, ScoredDoc, nDCG  # noqa: E402

MEASURES = [AP, nDCG @ 10, P @ 5, "RR", "bpref", "NumRet", "ERR@10", "gm_map", "nDCG(gain='0=0,1=3,2=7,3=9')@10"]


def _qrels(rng: random.Random) -> dict:
    return {f"T{t}": {f"D{d}": rng.choice([0, 0, 1, 2, 3]) for d in rng.sample(range(40), 15)} for t in range(8)}


def _run(rng: random.Random, topics: int = 7) -> dict:
    """Tied scores, a topic the run lacks (T7 by default), lists of 0-25 documents."""
    return {f"T{t}": {f"D{d}": float(rng.choice([0.5, 1.0, 1.5, 2.0])) for d in rng.sample(range(40), rng.randint(0, 25))}
            for t in range(topics)}


def _forms(run: dict, form: str, tmp_path, name: str):
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    if form == "frame":
        return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    if form == "namedtuples":
        return [ScoredDoc(*row) for row in rows]
    if form == "file":
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} {i} {s} tag\n" for i, (q, d, s) in enumerate(rows)))
        return path
    return run


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def test_many_runs_in_one_statement_equal_one_call_per_run_bit_for_bit(tmp_path, monkeypatch):
    from pyeval import interop

    rng = random.Random(30)
    qrels = _qrels(rng)
    forms = ["dict", "frame", "namedtuples", "file"]
    runs = {f"r{i}": _forms(_run(rng, topics=5 + i % 3), forms[i % 4], tmp_path, f"r{i}") for i in range(12)}
    runs["nothing"] = {}  # scores the empty value on every judged topic
    singles = {name: pyeval.calc(MEASURES, qrels, run) for name, run in runs.items()}
    statements = []
    from pyeval.engines import resident

    run_plan = resident.Prepared.run
    monkeypatch.setattr(resident.Prepared, "run", lambda plan, con, names, batch=False: statements.append(names)
                        or run_plan(plan, con, names, batch))
    together = pyeval.calc_many(MEASURES, qrels, runs)
    assert statements == [list(runs)]  # one statement for all the runs
    assert list(together) == list(runs)
    for name, expected in singles.items():
        ours = together[name]
        assert list(ours.aggregated) == list(expected.aggregated)
        assert all(_same(ours.aggregated[m], v) for m, v in expected.aggregated.items()), name
        assert [m[:2] for m in ours.per_query] == [m[:2] for m in expected.per_query]
        assert all(_same(a.value, b.value) for a, b in zip(ours.per_query, expected.per_query)), name
    aggregates = pyeval.calc_aggregate_many(MEASURES, qrels, runs)
    assert {name: values for name, values in aggregates.items() if name != "nothing"} == {
        name: result.aggregated for name, result in singles.items() if name != "nothing"}
    evaluator = pyeval.evaluator(MEASURES, qrels)
    try:  # an engine kept across calls: N runs, then 1, then N again
        for batch in (runs, {"r3": runs["r3"]}, dict(reversed(list(runs.items())))):
            for name, values in evaluator.calc_aggregate_many(batch).items():
                assert all(_same(values[m], v) for m, v in singles[name].aggregated.items()), name
        assert evaluator.calc_aggregate(runs["r1"]) == singles["r1"].aggregated
        assert evaluator.calc_many({}) == {}
    finally:
        evaluator.close()


def test_measure_sets_without_a_prepared_plan_take_evaluate_for_all_runs():
    """judged_only and two orderings are not one prepared statement: evaluate() of all the runs."""
    rng = random.Random(7)
    qrels = _qrels(rng)
    runs = {name: _run(rng) for name in ("a", "b", "c")}
    for measures in (["AP(judged_only=True)", "P@5"], ["AP", "Q-measure"]):
        together = pyeval.calc_many(measures, qrels, runs)
        for name, run in runs.items():
            single = pyeval.calc(measures, qrels, run)
            assert together[name].aggregated == single.aggregated
            assert together[name].per_query == single.per_query


def test_errors_name_the_run_and_leave_the_engine_usable():
    rng = random.Random(3)
    qrels = _qrels(rng)
    good = _run(rng)
    twice = pd.DataFrame({"query_id": ["T0", "T0", "T1"], "doc_id": ["D0", "D0", "D3"], "score": [1.0, 2.0, 3.0]})
    evaluator = pyeval.evaluator([AP], qrels)
    try:
        expected = evaluator.calc_aggregate(good)
        with pytest.raises(InputFormatError, match=r"^<run twice>:2: a document is given twice for its topic$"):
            evaluator.calc_aggregate_many({"good": good, "twice": twice})
        with pytest.raises(InputFormatError, match=r"^<run bad>:1: the score nan is not a finite number$"):
            evaluator.calc_aggregate_many({"good": good, "bad": [ScoredDoc("T0", "D0", float("nan"))]})
        with pytest.raises(PyevalError, match=r"^<run odd>: cannot read tuple as a run entry"):
            evaluator.calc_aggregate_many({"good": good, "odd": [("T0", "D0", 1.0)]})
        with pytest.raises(PyevalError, match="two runs are named '1'"):
            evaluator.calc_aggregate_many({1: good, "1": good})
        with pytest.raises(PyevalError, match="runs must be a mapping of run name -> run"):
            pyeval.calc_aggregate_many([AP], qrels, [good])
        assert evaluator.calc_aggregate_many({"good": good}) == {"good": expected}
        # one run keeps ir_measures' label
        with pytest.raises(InputFormatError, match=r"^<run>:2: a document is given twice"):
            evaluator.calc_aggregate(twice)
    finally:
        evaluator.close()


@pytest.mark.parametrize("qrels, expected", [
    ({"Q 0": {"D0": 1}}, "<qrels>:1: query_id 'Q 0' holds whitespace"),  # refused as in every shape
    ({"Q0": {"D0": 1.0}}, "<qrels>:1: relevance level '1.0' is not an integer"),
    ({"Q0": {"": 1}}, "<qrels>:1: cannot tell the qrels format from a line of 3 fields"),
    ({"Q0": {"D0": None}}, "<qrels>:1: cannot tell the qrels format from a line of 3 fields"),
    ({"Q0": {"D0": 99999999999}}, "<qrels>:1: relevance level '99999999999' is not an integer"),
])
def test_in_memory_qrels_the_fast_path_does_not_fit_take_the_general_path(qrels, expected):
    """The fast path (sql/loaders/qrels_fast_rows.sql) takes in-memory qrels whose every field
    is what the general path would split them into; the others reach the general path, which
    names the row as it did when every in-memory qrels took it."""
    with pytest.raises(InputFormatError, match="^" + expected.replace("(", r"\(")):
        pyeval.calc_aggregate([AP], qrels, {"Q0": {"D0": 1.0}})


def test_in_memory_qrels_on_either_path_give_the_same_values():
    """NTCIR levels (L<k>) and '#' topics take the general path, plain ones the fast path: the
    values agree with the qrels given as a file (the loader's own paths)."""
    run = {"Q0": {"D0": 1.0, "D1": 0.5}, "#Q1": {"D2": 2.0, "D3": 1.0}}
    plain = {"Q0": {"D0": 0, "D1": 1}, "#Q1": {"D2": 2, "D3": 0}}
    ntcir = {"Q0": {"D0": "L0", "D1": "L1"}, "#Q1": {"D2": "L2", "D3": "L0"}}
    assert pyeval.calc_aggregate([AP, P @ 2], plain, run) == pyeval.calc_aggregate([AP, P @ 2], ntcir, run) \
        == {AP: 0.75, P @ 2: 0.5}


def test_threads_share_an_evaluator_for_many_runs():
    """Calls take turns on one engine: each thread's batch gets its own runs' values."""
    import threading

    rng = random.Random(11)
    qrels = _qrels(rng)
    batches = [{f"t{worker}r{i}": _run(rng) for i in range(3)} for worker in range(3)]
    singles = {name: pyeval.calc_aggregate(MEASURES[:4], qrels, run) for batch in batches for name, run in batch.items()}
    evaluator = pyeval.evaluator(MEASURES[:4], qrels)
    errors, results = [], {}

    def work(batch: dict) -> None:
        try:
            for _ in range(3):
                results.update(evaluator.calc_aggregate_many(batch))
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(batch,)) for batch in batches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    evaluator.close()
    assert not errors, errors
    assert results == singles
