"""pyeval swapped in for ir_measures (pyeval/interop.py) on ir_measures' own documented examples.

The examples of ir_measures 0.4.3's README: its qrels and run in every documented form (dict of
dicts, DataFrame, Qrel/ScoredDoc namedtuples, generators, TREC files), its measures as
ir_measures objects; pyeval.calc_aggregate, iter_calc, calc and evaluator must return what
ir_measures returns, keyed by the same objects.
"""
from __future__ import annotations

import pandas as pd
import pytest

import pyeval
from pyeval.errors import PyevalError, UnknownMeasureError

from ..conftest import IMPORTED_BY_DUCKDB

ir_measures = pytest.importorskip("ir_measures")
from ir_measures import AP, RR, Judged, NumQ, NumRel, NumRelRet, NumRet, P, Qrel, ScoredDoc, nDCG  # noqa: E402

README_MEASURES = [AP, nDCG, RR, nDCG @ 10, P(rel=2) @ 10]
README_AGGREGATE = {AP: 0.75, nDCG: 0.8154648767857288, RR: 0.75, nDCG @ 10: 0.8154648767857288, P(rel=2) @ 10: 0.05}
README_PER_QUERY = {
    ("Q0", AP): 0.5, ("Q0", RR): 0.5, ("Q0", nDCG): 0.6309297535714575, ("Q0", nDCG @ 10): 0.6309297535714575,
    ("Q1", AP): 1.0, ("Q1", RR): 1.0, ("Q1", nDCG): 1.0, ("Q1", nDCG @ 10): 1.0,
    ("Q0", P(rel=2) @ 10): 0.0, ("Q1", P(rel=2) @ 10): 0.1,
}

QRELS_DICT = {"Q0": {"D0": 0, "D1": 1}, "Q1": {"D0": 0, "D3": 2}}
RUN_DICT = {"Q0": {"D0": 1.2, "D1": 1.0}, "Q1": {"D0": 2.4, "D3": 3.6}}


def _qrels_forms(tmp_path):
    rows = [("Q0", "D0", 0), ("Q0", "D1", 1), ("Q1", "D0", 0), ("Q1", "D3", 2)]
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in rows))
    return {
        "dict": QRELS_DICT,
        "frame": pd.DataFrame([{"query_id": q, "doc_id": d, "relevance": r} for q, d, r in rows]),
        "namedtuples": [Qrel(*row) for row in rows],
        "generator": (Qrel(*row) for row in rows),
        "file": str(path),
        "ir_measures.read_trec_qrels": list(ir_measures.read_trec_qrels(str(path))),
    }


def _run_forms(tmp_path):
    rows = [("Q0", "D0", 1.2), ("Q0", "D1", 1.0), ("Q1", "D0", 2.4), ("Q1", "D3", 3.6)]
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} Q0 {d} {i} {s} r\n" for i, (q, d, s) in enumerate(rows)))
    return {
        "dict": RUN_DICT,
        "frame": pd.DataFrame([{"query_id": q, "doc_id": d, "score": s} for q, d, s in rows]),
        "namedtuples": [ScoredDoc(*row) for row in rows],
        "file": path,
    }


@pytest.mark.parametrize("qrels_form", ["dict", "frame", "namedtuples", "generator", "file",
                                        "ir_measures.read_trec_qrels"])
@pytest.mark.parametrize("run_form", ["dict", "frame", "namedtuples", "file"])
def test_readme_calc_aggregate(tmp_path, qrels_form, run_form):
    qrels = _qrels_forms(tmp_path)[qrels_form]
    run = _run_forms(tmp_path)[run_form]
    result = pyeval.calc_aggregate(README_MEASURES, qrels, run)
    assert list(result) == README_MEASURES  # keyed by the caller's objects, in order
    assert result == pytest.approx(README_AGGREGATE, abs=1e-12)
    assert result == pytest.approx(ir_measures.calc_aggregate(README_MEASURES, QRELS_DICT, RUN_DICT), abs=1e-12)


def test_readme_iter_calc():
    metrics = list(pyeval.iter_calc(README_MEASURES, QRELS_DICT, RUN_DICT))
    assert {(m.query_id, m.measure): m.value for m in metrics} == pytest.approx(README_PER_QUERY, abs=1e-12)
    assert all(m._fields == ("query_id", "measure", "value") for m in metrics)
    theirs = {(m.query_id, m.measure): m.value for m in ir_measures.iter_calc(README_MEASURES, QRELS_DICT, RUN_DICT)}
    assert {(m.query_id, m.measure): m.value for m in metrics} == pytest.approx(theirs, abs=1e-12)


def test_calc_and_evaluator():
    aggregated, per_query = pyeval.calc(README_MEASURES, QRELS_DICT, RUN_DICT)
    assert aggregated == pytest.approx(README_AGGREGATE, abs=1e-12)
    assert len(per_query) == len(README_PER_QUERY)
    evaluator = pyeval.evaluator(README_MEASURES, QRELS_DICT)
    assert evaluator.calc_aggregate(RUN_DICT) == pytest.approx(README_AGGREGATE, abs=1e-12)
    assert {(m.query_id, m.measure) for m in evaluator.iter_calc(RUN_DICT)} == set(README_PER_QUERY)


def test_cli_example_measures_and_strings():
    """The README's command-line measures, as objects and as strings (string keys stay strings)."""
    measures = [P @ 10, P(rel=2) @ 5, nDCG @ 15, Judged @ 10, NumQ, NumRel, NumRet, NumRelRet]
    ours = pyeval.calc_aggregate(measures, QRELS_DICT, RUN_DICT)
    theirs = ir_measures.calc_aggregate(measures, QRELS_DICT, RUN_DICT)
    assert ours == pytest.approx(theirs, abs=1e-12)
    by_name = pyeval.calc_aggregate(["P@10", "nDCG@15", "NumRelRet"], QRELS_DICT, RUN_DICT)
    assert by_name == pytest.approx({"P@10": theirs[P @ 10], "nDCG@15": theirs[nDCG @ 15],
                                     "NumRelRet": theirs[NumRelRet]}, abs=1e-12)


def test_bad_inputs_are_one_line_errors():
    with pytest.raises(UnknownMeasureError, match="did you mean"):
        pyeval.calc_aggregate(["nDGC@10"], QRELS_DICT, RUN_DICT)
    with pytest.raises(PyevalError, match="needs query_id, doc_id and score"):
        pyeval.calc_aggregate([AP], QRELS_DICT, [("Q0", "D0", 1.0)])
    with pytest.raises(PyevalError, match="needs query_id, doc_id and relevance"):
        pyeval.calc_aggregate([AP], [("Q0", "D0")], RUN_DICT)


def test_diversity_qrels_with_iteration(fixtures):
    """ir_measures' pyndeval example: Qrel.iteration names the intent (ndeval's subtopic)."""
    qrels = []
    for line in (fixtures / "ndeval" / "irm-example.qrels.ndeval").read_text().splitlines():
        topic, intent, doc, level = line.split()
        qrels.append(Qrel(topic, doc, int(level), intent))
    run = []
    for line in (fixtures / "ndeval" / "irm-example.run.trec").read_text().splitlines():
        topic, _, doc, _, score, _ = line.split()
        run.append(ScoredDoc(topic, doc, float(score)))
    measures = [ir_measures.ERR_IA @ 20, ir_measures.alpha_nDCG @ 20, ir_measures.StRecall @ 20]
    ours = pyeval.calc_aggregate(measures, qrels, run, ordering="trec-asc")  # pyndeval's tie order
    assert ours == pytest.approx(ir_measures.calc_aggregate(measures, qrels, run), abs=1e-12)


def _random_run(seed: int) -> dict:
    import numpy as np

    rng = np.random.default_rng(seed)
    return {q: {f"D{d}": float(rng.integers(0, 5)) for d in rng.choice(6, 4, replace=False)} for q in ("Q0", "Q1", "Q2")}


def test_resident_engine_is_reused_and_thread_safe():
    """The module functions reuse one engine per thread and qrels content; an evaluator's engine
    is shared by threads (calls take turns). Values equal ir_measures' for every run, ties in
    scores included (trec_eval's docno order)."""
    import threading

    from pyeval import interop

    qrels = {"Q0": {"D0": 0, "D1": 1, "D2": 2}, "Q1": {"D0": 1, "D3": 2, "D5": 1}, "Q2": {"D4": 1}}
    engine, kept = interop.engine_for(qrels)
    assert kept and interop.engine_for({k: dict(v) for k, v in qrels.items()})[0] is engine  # same content
    assert interop.engine_for({**qrels, "Q2": {"D4": 2}})[0] is not engine
    measures = [AP, nDCG @ 10, P @ 2, RR]
    evaluator = pyeval.evaluator(measures, qrels)
    errors, results = [], {}

    def work(worker: int) -> None:
        try:
            for seed in range(worker * 10, worker * 10 + 4):
                run = _random_run(seed)
                expected = ir_measures.calc_aggregate(measures, qrels, run)
                results[seed] = (pyeval.calc_aggregate(measures, qrels, run), evaluator.calc_aggregate(run), expected)
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert len(results) == 16
    for module_level, from_evaluator, expected in results.values():
        assert module_level == pytest.approx(expected, abs=1e-12)
        assert from_evaluator == pytest.approx(expected, abs=1e-12)
    evaluator.close()


def test_run_forms_checked_without_the_text_loader():
    frame = pd.DataFrame({"query_id": ["Q0", "Q0", "Q1"], "doc_id": ["D0", "D0", "D3"], "score": [1.0, 2.0, 3.0]})
    with pytest.raises(PyevalError, match=r"<run>:2: a document is given twice"):
        pyeval.calc_aggregate([AP], QRELS_DICT, frame)
    with pytest.raises(PyevalError, match=r"<run>:1: the score nan is not a finite number"):
        pyeval.calc_aggregate([AP], QRELS_DICT, [ScoredDoc("Q0", "D0", float("nan"))])
    with pytest.raises(PyevalError, match=r"<run>:2: doc_id has no value"):
        pyeval.calc_aggregate([AP], QRELS_DICT, [ScoredDoc("Q0", "D0", 1.0), ScoredDoc("Q0", None, 1.0)])
    # numbers as identifiers read as their text, as a file's would; a rank column orders 'rank'
    numeric = {0: {1: 0, 2: 1}}
    assert pyeval.calc_aggregate([AP], numeric, {0: {1: 1.0, 2: 2.0}}) == {AP: 1.0}
    ranked = pd.DataFrame({"query_id": ["Q0", "Q0"], "doc_id": ["D0", "D1"], "score": [2.0, 1.0], "rank": [2, 1]})
    assert pyeval.calc_aggregate([AP], QRELS_DICT, ranked, ordering="rank") == {AP: 0.5}  # Q1 missing: 0
    assert pyeval.calc_aggregate([AP], QRELS_DICT, ranked) == {AP: 0.25}
def test_a_topic_id_starting_with_hash_is_data_in_frames_and_iterables(tmp_path):
    """Frames and iterables have no comments (issue 32: a topic '#1' was dropped as one, NumQ 1
    instead of 2, AP 1.0 instead of 0.5); ir_measures is the oracle. In a file a line whose first
    field starts with '#' stays a comment (docs/input-files.md)."""
    qrels = [Qrel("#1", "a", 1), Qrel("#1", "b", 1), Qrel("2", "c", 1)]
    run = [ScoredDoc("#1", "x", 3.0), ScoredDoc("#1", "a", 2.0), ScoredDoc("2", "c", 1.0)]
    expected = ir_measures.calc_aggregate([AP, NumQ], qrels, run)
    assert expected == {AP: pytest.approx(0.625), NumQ: 2}
    frames = (pd.DataFrame(qrels), pd.DataFrame(run))
    dicts = ({"#1": {"a": 1, "b": 1}, "2": {"c": 1}}, {"#1": {"x": 3.0, "a": 2.0}, "2": {"c": 1.0}})
    for qrels_form, run_form in ((qrels, run), frames, dicts):
        assert pyeval.calc_aggregate([AP, NumQ], qrels_form, run_form) == pytest.approx(expected)
    (tmp_path / "qrels").write_text("#1 0 a 1\n2 0 c 1\n")
    (tmp_path / "run").write_text("#1 Q0 a 1 2.0 r\n2 Q0 c 1 1.0 r\n")
    assert pyeval.calc_aggregate([NumQ], str(tmp_path / "qrels"), str(tmp_path / "run")) == {NumQ: 1}


@pytest.mark.filterwarnings("ignore:the qrels have no rows")  # tested in test_interop_diversity_qrels
def test_empty_run_and_empty_qrels_score_as_ir_measures_providers_do():
    """Issue 32: an empty run scores the measure's empty value (0) on every judged topic, and empty
    qrels judge no topic (no per-topic value; a mean over none is NaN, a count 0), as
    ir_measures' providers (pytrec_eval, gdeval, judged, msmarco, compat) give them; pyeval
    refused both. NumQ and NumRel count a topic the run lacks (documented difference)."""
    qrels = [Qrel("0", "D0", 0), Qrel("0", "D1", 1), Qrel("0", "D3", 2), Qrel("1", "D0", 1), Qrel("1", "D5", 2)]
    run = [ScoredDoc("0", "D0", 0.8), ScoredDoc("0", "D1", 0.3), ScoredDoc("1", "D1", 0.8)]
    providers = {P @ 5: ir_measures.pytrec_eval, ir_measures.ERR @ 5: ir_measures.gdeval,
                 Judged @ 5: ir_measures.judged, RR @ 5: ir_measures.msmarco,
                 ir_measures.Compat(p=0.8): ir_measures.compat, AP: ir_measures.pytrec_eval,
                 nDCG @ 10: ir_measures.pytrec_eval}
    for measure, provider in providers.items():
        expected = {(m.query_id, m.value) for m in provider.iter_calc([measure], qrels, [])}
        assert expected == {("0", 0.0), ("1", 0.0)}, measure
        for empty in ([], {}, pd.DataFrame(columns=["query_id", "doc_id", "score"])):
            assert {(m.query_id, m.value) for m in pyeval.iter_calc([measure], qrels, empty)} == expected, measure
        assert list(provider.iter_calc([measure], [], run)) == list(pyeval.iter_calc([measure], [], run)) == []
        assert pyeval.calc_aggregate([measure], qrels, []) == ir_measures.calc_aggregate([measure], qrels, [])
    means = pyeval.calc_aggregate([AP, NumRet], [], run)
    assert str(means[AP]) == str(ir_measures.calc_aggregate([AP], [], run)[AP]) == "nan"
    assert means[NumRet] == 0


def test_a_run_that_retrieved_nothing_is_stored(tmp_path):
    """An empty (or comments-only) run file is a run that retrieved nothing, as trec_eval reads
    it; without lines it has no run tag, so it needs a name. Empty qrels stay refused."""
    from pyeval.errors import InputFormatError

    (tmp_path / "qrels").write_text("1 0 a 1\n2 0 b 1\n")
    (tmp_path / "empty").write_text("")
    (tmp_path / "comments").write_text("# retrieved nothing\n")
    (tmp_path / "none").write_text("")
    con = pyeval.connect()
    pyeval.load_qrels(con, "c", tmp_path / "qrels")
    for name in ("empty", "comments"):
        report = pyeval.load_run(con, "c", tmp_path / name, name=name)
        assert (report.rows, report.notes) == (0, ["2 judged topics are missing from it (they score 0)"])
    with pytest.raises(InputFormatError, match="no run tag to name the run by"):
        pyeval.load_run(con, "c", tmp_path / "empty")
    with pytest.raises(InputFormatError, match="the file is empty"):
        pyeval.load_qrels(con, "d", tmp_path / "none")
    means = pyeval.evaluate(con, "c", ["AP", "NumQ", "NumRet"], store=False).means
    assert means.set_index(["run_id", "measure"])["value"].to_dict() == {
        (run, measure): value for run in ("comments", "empty")
        for measure, value in (("AP", 0.0), ("NumQ", 2.0), ("NumRet", 0.0))}
    con.close()


def test_one_prepared_statement_gives_what_evaluate_gives():
    """The resident engine's prepared statement (resident.Prepared: the stages that read only the
    qrels made once, the rest in one select) runs the files evaluate runs one by one: the same
    values, bit for bit, for families, aggregates (mean, sum, geometric mean), cutoffs, gain
    profiles (built in and inline) and ties; sets it cannot compute take evaluate."""
    import math
    import random

    from pyeval import interop
    from pyeval.core.evaluation import evaluate
    from pyeval.measures import parse_measures

    rng = random.Random(30)
    qrels = {f"T{t}": {f"D{d}": rng.choice([0, 0, 1, 2, 3]) for d in rng.sample(range(40), 15)} for t in range(8)}
    run = {f"T{t}": {f"D{d}": float(rng.choice([0.5, 1.0, 1.5, 2.0]))
                     for d in rng.sample(range(40), rng.randint(0, 25))}
           for t in range(7)}  # T7 missing, scores tied
    names = ["AP", "nDCG@10", "P@5", "RR", "Rprec", "bpref", "NumRet", "NumQ", "ERR@10", "RBP(p=0.8)", "Judged@10",
             "nDCG(gain=exp)@5", "nDCG(gain='0=0,1=3,2=7,3=9')@10", "IPrec@0.5", "infAP", "Q-measure", "gm_map",
             "map_cut.5", "SetF", "ndcg_rel", "Rndcg", "binG", "G", "recall.10", "success.1"]
    measures = list(dict.fromkeys(m for name in names for m in parse_measures(name)))
    engine = interop.resident_engine(qrels)
    shaped = interop.run_table(run)
    try:
        per_topic, means = engine.evaluate(measures, shaped, "trec")  # Q-measure's own ordering is 'file'
        engine._load({interop.RUN: shaped}, {interop.RUN: "<run>"})  # the same run stored, for evaluate
        assert [plan is not None for plan in engine._plans.values()] == [True]
        expected = evaluate(engine.con, interop.CAMPAIGN, measures, ordering="trec", store=False)
        same = lambda a, b: a == b or (math.isnan(a) and math.isnan(b))  # noqa: E731
        wanted = list(zip(expected.per_topic["topic_id"], expected.per_topic["measure"], expected.per_topic["value"]))
        assert len(per_topic) == len(wanted) == 8 * len(measures)
        assert all(ours[:2] == theirs[:2] and same(ours[2], theirs[2]) for ours, theirs in zip(per_topic, wanted))
        assert all(same(means[m], v) for m, v in zip(expected.means["measure"], expected.means["value"]))
        assert list(means) == [str(m) for m in measures]
        # a plan of one pass is prepared whatever its stage parameters (its own judged_only);
        # two passes (two orderings) take evaluate
        judged = parse_measures("AP(judged_only=True)")
        per_topic, means = engine.evaluate(judged, shaped, None)
        assert list(engine._plans.values())[-1] is not None
        expected = evaluate(engine.con, interop.CAMPAIGN, judged, store=False)
        assert [value for _, _, value in per_topic] == list(expected.per_topic["value"])
        assert means == dict(zip(expected.means["measure"], expected.means["value"]))
        engine.evaluate(parse_measures("AP") + parse_measures("Q-measure"), shaped, None)
        assert list(engine._plans.values())[-1] is None
    finally:
        engine.close()


def test_dicts_are_evaluated_without_pandas():
    """Mappings (and namedtuples) reach DuckDB as numpy arrays and the qrels loader as lines:
    the first call imports no pandas (0.4 s of a first call otherwise)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    code = ("import sys, pyeval\n"
            "print(pyeval.calc_aggregate(['AP', 'P@2'], {'Q0': {'D0': 0, 'D1': 1}}, {'Q0': {'D0': 1.2, 'D1': 1.0}}),"
            " 'pandas' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(repo) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True, cwd=repo)
    values, pandas = done.stdout.strip().rsplit(" ", 1)
    assert values == "{'AP': 0.5, 'P@2': 0.5}"
    assert pandas == "False" or "pandas" in IMPORTED_BY_DUCKDB  # before DuckDB 2.0: its own import


def test_every_preparable_measure_alone_gives_what_evaluate_gives():
    """Registry-wide: every ad hoc SQL measure the resident engine prepares, asked alone and with
    its family, gives evaluate's values bit for bit (graded qrels with -2 levels, tied scores, a
    missing topic). Asked alone is what a compiled statement holding only what one measure reads
    must keep (issue 39)."""
    import math
    import random

    from pyeval import interop
    from pyeval.core.evaluation import evaluate
    from pyeval.engines import resident
    from pyeval.measures import make, registry
    from pyeval.measures.registry import definitions

    rng = random.Random(39)
    qrels = {f"T{t}": {f"D{d}": rng.choice([-2, 0, 0, 1, 2, 3]) for d in rng.sample(range(40), 15)} for t in range(6)}
    run = {f"T{t}": {f"D{d}": float(rng.choice([0.5, 1.0, 1.5, 2.0])) for d in rng.sample(range(40), rng.randint(1, 25))}
           for t in range(5)}  # T5 missing, scores tied
    measures = []
    for definition in definitions():
        if (definition.staging == "adhoc" and definition.storable and registry.driver(definition.family) is None
                and definition.family != "preferences"):
            measures.append(make(definition, **{p.name: (0.5 if p.type is float else 5 if p.type is int else p.default)
                                                for p in definition.params if p.required}))
    assert len(measures) > 50 and all(resident.supports([m], "trec") for m in measures)
    same = lambda a, b: a == b or (math.isnan(a) and math.isnan(b))  # noqa: E731
    engine = interop.resident_engine(qrels)
    run = interop.run_table(run)
    try:
        engine._load({interop.RUN: run}, {interop.RUN: "<run>"})  # the run stored, for evaluate
        families = {}
        for measure in measures:
            families.setdefault(measure.family, []).append(measure)
        for asked in [[m] for m in measures] + list(families.values()):
            per_topic, means = engine.evaluate(asked, run, "trec")  # the runs of the call, as a batch
            prepared = list(engine._plans.values())[-1]
            assert prepared is not None, asked  # the prepared statement ran
            assert prepared.run(engine.con, [interop.RUN]) == {interop.RUN: (per_topic, means)}, asked  # stored
            expected = evaluate(engine.con, interop.CAMPAIGN, asked, ordering="trec", store=False)
            wanted = list(zip(expected.per_topic["topic_id"], expected.per_topic["measure"],
                              expected.per_topic["value"]))
            assert len(per_topic) == len(wanted), asked
            assert all(ours[:2] == theirs[:2] and same(ours[2], theirs[2])
                       for ours, theirs in zip(per_topic, wanted)), asked
            assert all(same(means[m], v) for m, v in zip(expected.means["measure"], expected.means["value"])), asked
    finally:
        engine.close()
