"""The relstring family (sql/metrics/metric_relstring.sql): RelString@k, text valued.

Oracle: trec_eval 10.0's test outputs (relstring per topic, relstring_20 of out.test.aql);
hand cases for every label of m_relstring.c, short and empty lists, -J and -M.
"""
from __future__ import annotations

import pandas as pd
import pytest

import pyeval
from pyeval.core.request import EvaluationRequest
from pyeval.core.evaluation import compute, evaluate
from pyeval.measures import parse

from ..conftest import FIXTURES

TREC = FIXTURES / "trec_eval"

#: expected output -> (qrels, run, topic policy, max_depth, trec_eval name -> pyeval measure)
CASES = {
    "out.test.aq": ("qrels.test", "results.test", "intersection", None, {"relstring": "RelString"}),
    "out.test.aqc": ("qrels.test", "results.trunc", "qrels", None, {"relstring": "RelString"}),
    "out.test.aqcM": ("qrels.test", "results.trunc", "qrels", 100, {"relstring": "RelString"}),
    "out.test.aql": ("qrels.rel_level", "results.test", "intersection", None, {"relstring_20": "RelString@20"}),
}


def trec_eval_strings(name: str, trec_name: str) -> dict[str, str]:
    """topic -> relstring of a trec_eval -q output file, without the quotes."""
    strings = {}
    for line in (TREC / name).read_text().splitlines():
        measure, topic, value = line.split("\t")
        if measure.strip() == trec_name:
            assert value.startswith("'") and value.endswith("'")
            strings[topic] = value[1:-1]
    return strings


def texts(con, measures, **settings) -> dict[tuple[str, str, str], str]:
    """(run_id, topic_id, measure) -> value_text, through evaluate()."""
    result = evaluate(con, "t", measures, store=False, **settings)
    assert "value_text" in result.texts.columns
    return {(r.run_id, r.topic_id, r.measure): r.value_text for r in result.texts.itertuples()}


@pytest.mark.parametrize("expected_file", list(CASES))
def test_matches_trec_eval(expected_file):
    qrels, run, topics, max_depth, names = CASES[expected_file]
    con = pyeval.connect()
    try:
        pyeval.load_qrels(con, "t", TREC / qrels)
        pyeval.load_run(con, "t", TREC / run)
        got = texts(con, list(names.values()), topics=topics, max_depth=max_depth)
    finally:
        con.close()
    for trec_name, measure in names.items():
        expected = trec_eval_strings(expected_file, trec_name)
        assert expected
        canonical = str(parse(measure))
        assert {topic: text for (_, topic, m), text in got.items() if m == canonical} == expected


def test_relstring_10_is_a_prefix_of_relstring_20():
    """out.test.aql prints relstring_20 only; relstring (10) is its first 10 labels."""
    con = pyeval.connect()
    try:
        pyeval.load_qrels(con, "t", TREC / "qrels.rel_level")
        pyeval.load_run(con, "t", TREC / "results.test")
        got = texts(con, ["RelString"], topics="intersection")
    finally:
        con.close()
    expected = {topic: text[:10] for topic, text in trec_eval_strings("out.test.aql", "relstring_20").items()}
    assert {topic: text for (_, topic, _), text in got.items()} == expected
    assert expected["303"] == "0000.....0"  # pooled-unjudged (-1 in qrels.rel_level) is '.'


# ---------------------------------------------------------------------------------------------
# Hand cases


@pytest.fixture
def small(write):
    """Topic 1: every label; topic 2: a short list; topic 3: judged, absent from the run."""
    qrels = (
        "1 0 a 0\n1 0 b 3\n1 0 c 9\n1 0 d 10\n1 0 e 12\n1 0 f -1\n1 0 g -2\n1 0 h -7\n"
        "2 0 a 1\n3 0 a 1\n"
    )
    ranking = ["a", "x", "b", "c", "d", "e", "f", "g", "h", "y", "z"]
    run = "".join(f"1 Q0 {doc} {rank} {100 - rank} r\n" for rank, doc in enumerate(ranking, start=1))
    run += "2 Q0 q 1 5 r\n2 Q0 a 2 4 r\n"
    con = pyeval.connect()
    pyeval.load_qrels(con, "t", write("qrels.txt", qrels))
    pyeval.load_run(con, "t", write("run.txt", run), name="r")
    yield con
    con.close()


def test_labels(small):
    got = texts(small, ["RelString", "RelString@3", "RelString@100"])
    # digit for 0-9, '>' above 9, '-' not in the pool, '.' any negative level ('<' never
    # happens: form_res_rels.c labels every negative level -2)
    assert got["r", "1", "RelString@10"] == "0-39>>...-"
    assert got["r", "1", "RelString@3"] == "0-3"
    assert got["r", "1", "RelString@100"] == "0-39>>...--"  # min(k, L) labels
    assert got["r", "2", "RelString@100"] == "-1"
    assert got["r", "3", "RelString@10"] == ""  # missing topic: trec_eval -c prints ''


def test_intersection_skips_missing_topic(small):
    got = texts(small, ["RelString"], topics="intersection")
    assert sorted(topic for _, topic, _ in got) == ["1", "2"]


def test_judged_only_and_depth(small):
    judged = texts(small, ["RelString@100"], judged_only=True)
    assert judged["r", "1", "RelString@100"] == "039>>"
    assert judged["r", "2", "RelString@100"] == "1"
    cut = texts(small, ["RelString@100"], max_depth=4)
    assert cut["r", "1", "RelString@100"] == "0-39"


def test_compute_frame_and_mixed_families(small):
    """The family returns value (null double) and value_text; evaluate keeps text measures
    out of per_topic and means, next to numeric families."""
    measures = [parse("RelString@5"), parse("Unjudged@5")]
    frame = compute(small, EvaluationRequest("t", tuple(measures), runs=("r",)))
    text_rows = frame[frame["measure"] == "RelString@5"]
    assert list(text_rows["value_text"]) == ["0-39>", "-1", ""]
    assert text_rows["value"].isna().all()
    result = evaluate(small, "t", ["RelString@5", "Unjudged@5"], store=False)
    assert set(result.per_topic["measure"]) == {"Unjudged@5"}
    assert set(result.means["measure"]) == {"Unjudged@5"}
    assert list(result.texts["measure"]) == ["RelString@5"] * 3


def test_relstring_output_columns(small):
    """The family file's output, as compute() returns it for a text-only request."""
    frame = compute(small, EvaluationRequest("t", (parse("RelString@4"),), runs=("r",)))
    assert list(frame.columns) == ["run_id", "topic_id", "measure", "value", "value_text"]
    expected = pd.DataFrame({
        "run_id": ["r"] * 3, "topic_id": ["1", "2", "3"], "measure": ["RelString@4"] * 3,
        "value_text": ["0-39", "-1", ""],
    })
    pd.testing.assert_frame_equal(frame[expected.columns], expected, check_dtype=False)
    assert frame["value"].isna().all()
