"""The unjudged family (sql/metrics/metric_unjudged.sql): Unjudged@k, Judged@k, RBPResid.

Oracles: trec_eval 10.0's own test outputs (unj_5/10/20, rbp_resid per topic and 'all', exact
'%6.4f' text), ir_measures' Judged test case, a line-by-line Python port of m_rbp_resid.c and
m_unjudged.c on generated lists, and hand cases for empty and short lists.
"""
from __future__ import annotations

import random

import pytest

import pyeval
from pyeval.core.evaluation import evaluate

from .helpers import CASES, TREC, campaign, trec_eval_values, values


#: trec_eval name -> pyeval measure
TREC_NAMES = {
    "unj_5": "Unjudged@5",
    "unj_10": "Unjudged@10",
    "unj_20": "Unjudged@20",
    "rbp_resid": "RBPResid",
}




@pytest.fixture(scope="module")
def trec_results():
    """Every case evaluated once: expected file -> Evaluation."""
    results = {}
    for name, (qrels, run, topics, max_depth, _rel) in CASES.items():  # -l does not change these
        con = pyeval.connect()
        try:
            pyeval.load_qrels(con, "t", TREC / qrels)
            pyeval.load_run(con, "t", TREC / run)
            results[name] = evaluate(
                con, "t", list(TREC_NAMES.values()), topics=topics, max_depth=max_depth, store=False
            )
        finally:
            con.close()
    return results


@pytest.mark.parametrize("trec_name", list(TREC_NAMES))
@pytest.mark.parametrize("expected_file", list(CASES))
def test_matches_trec_eval(trec_results, expected_file, trec_name):
    expected = {
        topic: value
        for (measure, topic), value in trec_eval_values(expected_file).items()
        if measure == trec_name
    }
    assert expected, f"{trec_name} missing from {expected_file}"
    result = trec_results[expected_file]
    measure = TREC_NAMES[trec_name]
    rows = result.per_topic[result.per_topic["measure"] == measure]
    got = {row.topic_id: "%6.4f" % row.value for row in rows.itertuples()}
    means = result.means[result.means["measure"] == measure]
    assert len(means) == 1
    got["all"] = "%6.4f" % means["value"].iloc[0]
    assert got == expected


# ---------------------------------------------------------------------------------------------
# Small campaigns written by the tests




def test_judged_ir_measures_case(write):
    """ir_measures test/test_judged.py (values from a manual run of cwl-eval)."""
    qrels = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0}, "1": {"D0": 1, "D3": 2, "D5": 2}}
    # ir_measures' run lists scores; in score order: topic 0 D0 D2 D3 D1 D4, topic 1 D1 D3 D2 D4
    run = {"0": ["D0", "D2", "D3", "D1", "D4"], "1": ["D1", "D3", "D2", "D4"]}
    con = campaign(write, qrels, {"run": run})
    got = values(con, ["Judged@1000", "Judged@10", "Judged@3", "Judged@1"])
    expected = {
        "Judged@1000": (1.0, 0.25), "Judged@10": (1.0, 0.25),
        "Judged@3": (1.0, 1 / 3), "Judged@1": (1.0, 0.0),
    }
    for measure, (topic0, topic1) in expected.items():
        assert got["run", "0", measure] == topic0
        assert got["run", "1", measure] == topic1


def test_short_list_denominators(write):
    """Unjudged@k divides by k (trec_eval pads with judged docs); Judged@k by min(k, L)."""
    qrels = {"1": {"a": 1, "b": 0, "c": -1}}
    con = campaign(write, qrels, {"run": {"1": ["x", "a", "c"]}})  # unpooled, judged, pooled-unjudged
    got = values(con, ["Unjudged@10", "Unjudged@2", "Judged@10", "Judged@1", "Judged@2"])
    assert got["run", "1", "Unjudged@10"] == 2 / 10
    assert got["run", "1", "Unjudged@2"] == 1 / 2
    # ir_measures: a qrels line of any level makes a document judged (`did in qrels`)
    assert got["run", "1", "Judged@10"] == 2 / 3
    assert got["run", "1", "Judged@1"] == 0.0
    assert got["run", "1", "Judged@2"] == 1 / 2


def test_empty_list_scores_zero(write):
    """A judged topic the run lacks (trec_eval -c: unj and rbp_resid are reset to 0)."""
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    con = campaign(write, qrels, {"run": {"1": ["x", "y"]}})
    measures = ["Unjudged@5", "Judged@5", "RBPResid", "RBPResid(p=0.5)"]
    got = values(con, measures, topics="qrels")
    for measure in measures:
        assert got["run", "2", measure] == 0.0
    assert got["run", "1", "Unjudged@5"] == 2 / 5
    assert got["run", "1", "Judged@5"] == 0.0
    assert got["run", "1", "RBPResid"] == pytest.approx(1.0, abs=1e-15)  # nothing judged
    assert ("run", "2", "RBPResid") not in values(con, ["RBPResid"], topics="intersection")


def test_rbp_resid_edge_cases(write):
    qrels = {"1": {"a": 1, "b": 0}, "2": {"a": 1}, "3": {"a": 1, "b": 0}}
    runs = {"1": ["a", "b"], "2": ["x", "a"], "3": ["a", "x", "b"]}
    con = campaign(write, qrels, {"run": runs})
    got = values(con, ["RBPResid", "RBPResid(p=0.5)", "RBPResid(p=0.0)", "RBPResid(p=1.0)"])
    assert got["run", "1", "RBPResid"] == 0.0  # all judged
    # unjudged rank 1 then judged rank 2: p^2 + (1-p) * 1
    assert got["run", "2", "RBPResid"] == pytest.approx(0.81 + 0.1, abs=1e-15)
    assert got["run", "2", "RBPResid(p=0.5)"] == pytest.approx(0.25 + 0.5, abs=1e-15)
    # unjudged rank 2 of 3: p^3 + (1-p) p
    assert got["run", "3", "RBPResid"] == pytest.approx(0.729 + 0.09, abs=1e-15)
    assert got["run", "2", "RBPResid(p=0.0)"] == 1.0  # C: p^0 = 1 at rank 1
    assert got["run", "3", "RBPResid(p=0.0)"] == 0.0
    assert got["run", "3", "RBPResid(p=1.0)"] == 1.0
    judged_only = values(con, ["RBPResid", "Unjudged@5", "Judged@5"], judged_only=True)
    assert all(value == (1.0 if key[2] == "Judged@5" else 0.0) for key, value in judged_only.items())


# ---------------------------------------------------------------------------------------------
# Ports of the C loops, checked on generated lists


def c_rbp_resid(labels: list[int], p: float) -> float:
    """m_rbp_resid.c, te_calc_rbp_resid: labels in rank order (-1 unpooled, -2 pooled-unjudged)."""
    unj_so_far, total, cur_p = 0, 0.0, 1.0
    for label in labels:
        if label < 0:
            unj_so_far += 1
            total += cur_p
        cur_p = cur_p * p
    return cur_p + (1 - p) * total if unj_so_far else 0.0


def c_unj(labels: list[int], cutoff: int) -> float:
    """m_unjudged.c, te_calc_unj for one cutoff."""
    unj_so_far = 0
    for i, label in enumerate(labels):
        if i == cutoff:
            return unj_so_far / i
        if label in (-1, -2):
            unj_so_far += 1
    return unj_so_far / cutoff


def test_generated_lists_match_c_ports(write):
    rng = random.Random(20240611)
    qrels, run, labels = {}, {}, {}
    for t in range(1, 41):
        topic = str(t)
        length = rng.choice([1, 2, 3, 7, 20, 50, 300])
        share = rng.choice([0.0, 0.02, 0.3, 0.7, 1.0])  # share of unjudged docs
        docs, topic_qrels, topic_labels = [], {}, []
        for rank in range(1, length + 1):
            doc = f"d{rank}"
            docs.append(doc)
            if rng.random() < share:
                if rng.random() < 0.5:
                    topic_qrels[doc] = -1
                    topic_labels.append(-2)
                else:
                    topic_labels.append(-1)  # unpooled
            else:
                level = rng.choice([0, 0, 1, 2])
                topic_qrels[doc] = level
                topic_labels.append(level)
        topic_qrels["judged-not-retrieved"] = 1
        qrels[topic], run[topic], labels[topic] = topic_qrels, docs, topic_labels
    con = campaign(write, qrels, {"run": run})
    ps = [0.9, 0.5, 0.95, 0.99]
    measures = ["Unjudged@5", "Unjudged@20", "Unjudged@100"] + [f"RBPResid(p={p})" for p in ps]
    got = values(con, measures)
    for topic, topic_labels in labels.items():
        for cutoff in (5, 20, 100):
            assert got["run", topic, f"Unjudged@{cutoff}"] == c_unj(topic_labels, cutoff)
        for p in ps:
            name = "RBPResid" if p == 0.9 else f"RBPResid(p={p})"
            assert got["run", topic, name] == c_rbp_resid(topic_labels, p)  # the same double


def test_rbp_resid_small_residual_keeps_precision(write):
    """Only the last of 1000 documents is unjudged: the residual is p^999 (about 1.7e-46); the
    form 1 - (1 - p) * sum over judged ranks would give rounding noise instead."""
    docs = [f"d{rank}" for rank in range(1, 1001)]
    qrels = {"1": {doc: 0 for doc in docs[:-1]}}
    con = campaign(write, qrels, {"run": {"1": docs}})
    got = values(con, ["RBPResid"])
    assert got["run", "1", "RBPResid"] == pytest.approx(0.9**999, rel=1e-12)
    assert got["run", "1", "RBPResid"] == pytest.approx(c_rbp_resid([0] * 999 + [-1], 0.9), rel=1e-12)


def test_depth_cut(write):
    """max_depth (trec_eval -M) cuts before labelling: unjudged docs below it do not count."""
    qrels = {"1": {"a": 1, "b": 0}}
    con = campaign(write, qrels, {"run": {"1": ["a", "b", "x", "y"]}})
    got = values(con, ["Unjudged@5", "RBPResid", "Judged@5"], max_depth=2)
    assert got["run", "1", "Unjudged@5"] == 0.0
    assert got["run", "1", "RBPResid"] == 0.0
    assert got["run", "1", "Judged@5"] == 1.0
