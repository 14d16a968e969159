"""A run given without ranks is ranked by its scores through the Python API (pyeval/interop.py):
the order its rows come in (dict insertion, DataFrame rows, namedtuples) never changes a value,
under any measure's default ordering (ndeval's 'rank', NTCIREVAL's and cwl_eval's 'file' too:
sql/loaders/run_insert.sql ranks such a run in trec_eval's order); and ndeval's names give
pyndeval's numbers on ir_measures' own test_pyndeval case."""
from __future__ import annotations

import math
import random

import pandas as pd
import pytest

import pyeval
from pyeval.errors import PyevalError
from pyeval.measures import definitions, make

ir_measures = pytest.importorskip("ir_measures")
from ir_measures import ScoredDoc  # noqa: E402

# diversity qrels (intents "1", "2"), several levels; a run with tied scores among documents of
# different levels, so that any ordering reading the input order would show
QRELS = [("q1", "1", "a", 2), ("q1", "1", "b", 1), ("q1", "2", "c", 2), ("q1", "2", "d", 0), ("q1", "1", "e", 1),
         ("q1", "2", "f", 3), ("q2", "1", "a", 1), ("q2", "2", "g", 2), ("q2", "1", "h", 0), ("q2", "2", "i", 1)]
RUN = [("q1", "a", 0.5), ("q1", "b", 0.9), ("q1", "c", 0.1), ("q1", "d", 0.5), ("q1", "e", 0.3), ("q1", "x", 0.3),
       ("q1", "f", 0.2), ("q2", "a", 1.0), ("q2", "g", 1.0), ("q2", "h", 2.0), ("q2", "i", 0.0), ("q2", "y", 0.7)]


def _qrels(kind):
    """The qrels as ad hoc judgments (the highest level per document) or as diversity ones."""
    frame = pd.DataFrame([{"query_id": q, "iteration": i, "doc_id": d, "relevance": r} for q, i, d, r in QRELS])
    if kind == "adhoc":
        return frame.groupby(["query_id", "doc_id"], as_index=False)["relevance"].max()
    return frame


def _shapes(rows):
    """The run in every in-memory shape the API takes, its rows in the order given."""
    mapping = {}
    for query, doc, score in rows:
        mapping.setdefault(query, {})[doc] = score
    return {"dict": mapping, "frame": pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]),
            "namedtuples": [ScoredDoc(*row) for row in rows]}


def _default(definition):
    params = {p.name: (0.5 if p.type is float else 10 if p.type is int else p.default)
              for p in definition.params if p.required}
    return make(definition, **params)


@pytest.fixture(scope="module")
def computable():
    """Every registered measure, at its defaults, that the API computes on these data, by the
    qrels it takes: diversity ones (ndeval's and the intent-aware measures) or ad hoc ones. The
    API cannot be given intent probabilities or document lengths: only the measures that need
    them are refused by both."""
    run = _shapes(RUN)["dict"]
    measures, refused = {"adhoc": [], "diversity": []}, {}
    # not the text-valued RelString, nor the measures of generated answers (stored answers, not a
    # run: the API refuses them, tests/sql/test_metric_nuggets.py)
    for definition in (d for d in definitions() if d.storable and d.answer_inputs is None):
        measure = _default(definition)
        diversity = definition.staging != "adhoc" or definition.family == "ndeval"
        for kind in ("diversity", "adhoc") if diversity else ("adhoc", "diversity"):
            try:
                pyeval.calc_aggregate([measure], _qrels(kind), run)
            except PyevalError as exc:
                refused.setdefault(str(measure), []).append(str(exc))
                continue
            measures[kind].append(measure)
            refused.pop(str(measure), None)
            break
    unexpected = {name: why for name, why in refused.items()
                  if not any("has no intents" in text or "no document length" in text for text in why)}
    assert unexpected == {}
    assert len(measures["adhoc"]) > 60 and len(measures["diversity"]) >= 9  # ndeval's; the others need intents
    return measures


def _values(kind, measures, run):
    return {(m.query_id, str(m.measure)): m.value for m in pyeval.iter_calc(measures, _qrels(kind), run)}


def _same(a, b):
    """Equal but for the last bits (DuckDB's parallel sums add in no fixed order: INSQ, Compat)."""
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("kind", ["adhoc", "diversity"])
def test_every_measure_gives_the_same_values_whatever_the_input_order(computable, kind):
    measures = computable[kind]
    expected = _values(kind, measures, _shapes(RUN)["dict"])
    assert {measure for _, measure in expected} == {str(m) for m in measures}
    shuffler = random.Random(38)
    orders = [list(reversed(RUN))] + [shuffler.sample(RUN, len(RUN)) for _ in range(2)]
    for rows in orders:
        for shape, run in _shapes(rows).items():
            got = _values(kind, measures, run)
            differ = sorted(key for key in expected if not _same(got[key], expected[key]))
            assert differ == [], (shape, [(key, expected[key], got[key]) for key in differ[:10]])


def test_ap_ia_of_the_issue_is_pyndevals_in_every_order():
    qrels = {"q": {"a": 2, "b": 0, "c": 2}}
    values = set()
    rows = [("q", "a", 0.5), ("q", "b", 0.9), ("q", "c", 0.1)]
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        for run in _shapes([rows[i] for i in order]).values():
            values.add(pyeval.calc_aggregate(["AP_IA(rel=2)"], qrels, run)["AP_IA(rel=2)"])
    assert len(values) == 1 and values.pop() == pytest.approx(0.5833333333333333)


# ir_measures 0.4.3's test/test_pyndeval.py (terrierteam/ir_measures): its qrels, run and the
# 16 measures of test_measures, on its 2 topics: 32 values
IRM_QRELS = [("0", "0", "D0", 0), ("0", "0", "D1", 1), ("0", "0", "D2", 1), ("0", "1", "D2", 1), ("0", "1", "D3", 2),
             ("0", "0", "D4", 0), ("1", "0", "D0", 1), ("1", "0", "D3", 2), ("1", "1", "D5", 2)]
IRM_RUN = [("0", "D0", 0.8), ("0", "D2", 0.7), ("0", "D1", 0.3), ("0", "D3", 0.4), ("0", "D4", 0.1),
           ("1", "D1", 0.8), ("1", "D3", 0.7), ("1", "D4", 0.3), ("1", "D2", 0.4)]
# (ir_measures name, pyndeval name, relevance level)
IRM_MEASURES = [
    ("ERR_IA@5", "ERR-IA@5", 1), ("ERR_IA(rel=2)@10", "ERR-IA@10", 2), ("nERR_IA@5", "nERR-IA@5", 1),
    ("nERR_IA(rel=2)@10", "nERR-IA@10", 2), ("alpha_DCG@5", "alpha-DCG@5", 1), ("alpha_nDCG@5", "alpha-nDCG@5", 1),
    ("NRBP", "NRBP", 1), ("NRBP(rel=2)", "NRBP", 2), ("nNRBP", "nNRBP", 1), ("nNRBP(rel=2)", "nNRBP", 2),
    ("AP_IA", "MAP-IA", 1), ("AP_IA(rel=2)", "MAP-IA", 2), ("P_IA@5", "P-IA@5", 1), ("P_IA(rel=2)@10", "P-IA@10", 2),
    ("StRecall@5", "strec@5", 1), ("StRecall(rel=2)@10", "strec@10", 2),
]


def test_ir_measures_test_pyndeval_all_32_values_are_pyndevals():
    """pyndeval itself is the oracle (ir_measures' pyndeval provider hands its run, a
    generator, to the first of its per-level evaluators only, so it reports 0 for rel=2)."""
    pyndeval = pytest.importorskip("pyndeval")
    qrels = pd.DataFrame([{"query_id": q, "iteration": i, "doc_id": d, "relevance": r} for q, i, d, r in IRM_QRELS])
    measures = [ir_measures.parse_measure(name) for name, _, _ in IRM_MEASURES]
    for rows in (IRM_RUN, list(reversed(IRM_RUN))):
        for shape, run in _shapes(rows).items():
            got = {(m.query_id, str(m.measure)): m.value for m in pyeval.iter_calc(measures, qrels, run)}
            checked = 0
            for (name, oracle_name, level), measure in zip(IRM_MEASURES, measures):
                oracle = pyndeval.RelevanceEvaluator(IRM_QRELS, [oracle_name], relevance_level=level).evaluate(IRM_RUN)
                for topic in ("0", "1"):
                    assert got[(topic, str(measure))] == pytest.approx(oracle[topic][oracle_name], abs=1e-12), \
                        (shape, topic, name)
                    checked += 1
            assert checked == 32


def test_ir_measures_test_pyndeval_err_ia_case():
    """ir_measures 0.4.3's test_ERR_IA (test/test_pyndeval.py): ERR_IA@20 per topic and mean."""
    qrels = pd.DataFrame([{"query_id": q, "iteration": i, "doc_id": d, "relevance": r} for q, i, d, r in IRM_QRELS])
    measure = ir_measures.ERR_IA @ 20
    for shape, run in _shapes(list(reversed(IRM_RUN))).items():
        result = list(pyeval.iter_calc([measure], qrels, run))
        assert [m.query_id for m in result] == ["0", "1"], shape
        assert result[0].value == pytest.approx(0.4659, abs=5e-5) and result[1].value == pytest.approx(0.1803, abs=5e-5)
        assert pyeval.calc_aggregate([measure], qrels, run)[measure] == pytest.approx(0.3231, abs=5e-5)


# tied scores among documents that ndeval's measures tell apart: intent 1 has "a", intent 2 "a" and "d"
TIED_QRELS = [("q", "1", "a", 1), ("q", "1", "b", 0), ("q", "2", "a", 1), ("q", "2", "c", 0), ("q", "2", "d", 1)]
TIED_RUN = [("q", "a", 1.0), ("q", "b", 1.0), ("q", "c", 1.0), ("q", "d", 0.5)]
NDEVAL_NAMES = [("AP_IA", "MAP-IA"), ("ERR_IA@5", "ERR-IA@5"), ("nERR_IA@5", "nERR-IA@5"), ("NRBP", "NRBP"),
                ("alpha_nDCG@5", "alpha-nDCG@5"), ("P_IA@1", "P-IA@1"), ("StRecall@1", "strec@1")]


def test_tied_scores_follow_ndeval_traditional_and_trec_asc_follows_pyndeval():
    """A run without ranks under ndeval's names: ties by docno descending, as ndeval -traditional
    (resultCompareByScore) and trec_eval sort; pyndeval (and so ir_measures) breaks them by docno
    ascending, which ``ordering='trec-asc'`` gives. Either way the input order never counts."""
    pyndeval = pytest.importorskip("pyndeval")
    qrels = pd.DataFrame(TIED_QRELS, columns=["query_id", "iteration", "doc_id", "relevance"])
    descending = sorted(TIED_RUN, key=lambda row: (-row[2], [-ord(c) for c in row[1]]))
    # pyndeval on the trec_eval order: scores that leave no tie, in that order
    untied = [(q, d, float(len(descending) - i)) for i, (q, d, _) in enumerate(descending)]
    names = [name for name, _ in NDEVAL_NAMES]
    oracle_names = [oracle for _, oracle in NDEVAL_NAMES]
    traditional = pyndeval.RelevanceEvaluator(TIED_QRELS, oracle_names).evaluate(untied)["q"]
    ascending = pyndeval.RelevanceEvaluator(TIED_QRELS, oracle_names).evaluate(TIED_RUN)["q"]
    assert traditional != ascending  # the ties matter to these data
    for rows in (TIED_RUN, list(reversed(TIED_RUN))):
        for shape, run in _shapes(rows).items():
            default = pyeval.calc_aggregate(names, qrels, run)
            asc = pyeval.calc_aggregate(names, qrels, run, ordering="trec-asc")
            for name, oracle in NDEVAL_NAMES:
                assert default[name] == pytest.approx(traditional[oracle], abs=1e-12), (shape, name)
                assert asc[name] == pytest.approx(ascending[oracle], abs=1e-12), (shape, name)


def test_every_entry_point_ranks_a_run_without_ranks_by_its_scores():
    """calc_aggregate, the evaluator's methods and calc_aggregate_many give one value per measure
    whatever the input order (each loads the run the same way: Engine._load)."""
    qrels = _qrels("diversity")
    measures = ["AP_IA(rel=2)", "NRBP(rel=2)", "alpha_nDCG@5", "P_IA@2", "AP", "nDCG@3", "INST", "Q"]
    expected = pyeval.calc_aggregate(measures, qrels, _shapes(RUN)["dict"])
    shuffled = random.Random(7).sample(RUN, len(RUN))
    runs = {f"{shape}-{i}": run for i, rows in enumerate((shuffled, list(reversed(RUN))))
            for shape, run in _shapes(rows).items()}
    evaluator = pyeval.evaluator(measures, qrels)
    try:
        got = [evaluator.calc_aggregate(run) for run in runs.values()]
        got += list(evaluator.calc_aggregate_many(runs).values())
    finally:
        evaluator.close()
    got += list(pyeval.calc_aggregate_many(measures, qrels, runs).values())
    for values in got:
        assert all(_same(values[m], expected[m]) for m in measures), (values, expected)
