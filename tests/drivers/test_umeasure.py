"""U, D-U and U-IA (pyeval/drivers/umeasure.py): hand-worked values and the properties of
Sakai, AIRS 2013 (docs/diversity-measures.md section 9). There is no reference implementation."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pyeval
from pyeval.errors import MeasureParamError
from pyeval.core.evaluation import evaluate


def campaign(qrels, run, lengths, intents=None, name="c"):
    """qrels: (topic, intent, doc, level); run: (topic, doc) in rank order; lengths: {doc: n}."""
    con = pyeval.connect()
    frame = pd.DataFrame(qrels, columns=["query_id", "iteration", "doc_id", "relevance"])
    diversity = any(intent != "" for _, intent, _, _ in qrels)
    pyeval.load_qrels(con, name, frame if diversity else frame.drop(columns="iteration"),
                      format="trec-diversity" if diversity else "trec")
    pyeval.load_run(con, name, pd.DataFrame([(t, d, float(len(run) - i)) for i, (t, d) in enumerate(run)],
                                            columns=["query_id", "doc_id", "score"]), name="r")
    if lengths:
        pyeval.load_doclengths(con, name, pd.DataFrame(list(lengths.items()), columns=["doc_id", "length"]))
    if intents:
        pyeval.load_intents(con, name, pd.DataFrame(intents, columns=["query_id", "intent_id", "prob"]))
    return con


def values(con, measures, name="c"):
    result = evaluate(con, name, measures, store=False)
    return {(t, m): v for t, m, v in zip(result.per_topic["topic_id"], result.per_topic["measure"],
                                         result.per_topic["value"])}


LENGTHS = {"d1": 10_000, "d2": 5_000, "d3": 20_000}
RUN = [("q", "d1"), ("q", "d2"), ("q", "d3")]
HALVES = [("q", "i1", 0.5), ("q", "i2", 0.5)]


def case(b: bool):
    """docs/diversity-measures.md 9.4: H = 3, two intents of probability 1/2, l = 3."""
    qrels = [("q", "i1", "d1", 3), ("q", "i2", "d1", 1 if b else 0), ("q", "i1", "d2", 0), ("q", "i2", "d2", 0),
             ("q", "i1", "d3", 1), ("q", "i2", "d3", 2)]
    return campaign(qrels, RUN, LENGTHS, HALVES)


def test_worked_example_case_a():
    got = values(case(False), ["D_U@3", "U_IA@3", "D_U(H=3)@3"])
    assert got[("q", "D_U@3")] == pytest.approx(641 / 960, abs=1e-12)  # 0.6677083333
    assert got[("q", "D_U(H=3)@3")] == got[("q", "D_U@3")]  # H = the campaign's highest level
    u1 = 7 / 8 * (1 - 2200 / 132000) + 1 / 8 * (1 - 6600 / 132000)  # 0.9791666667
    u2 = 3 / 8 * (1 - 4600 / 132000)  # 0.3619318182: d1 costs its snippet only
    assert got[("q", "U_IA@3")] == pytest.approx((u1 + u2) / 2, abs=1e-12)
    assert got[("q", "U_IA@3")] == pytest.approx(0.6705492424, abs=1e-10)


def test_worked_example_case_b_no_strictly_locally_relevant_document():
    got = values(case(True), ["D_U@3", "U_IA@3"])
    assert got[("q", "D_U@3")] == pytest.approx(0.7291666667, abs=1e-10)
    assert got[("q", "U_IA@3")] == pytest.approx(got[("q", "D_U@3")], abs=1e-12)


def test_adhoc_u_by_hand_and_its_diversity_versions_agree():
    qrels = [("q", "", "a", 2), ("q", "", "b", 0), ("q", "", "c", 1)]
    con = campaign(qrels, [("q", "a"), ("q", "b"), ("q", "c")], {"a": 3000, "c": 40_000})
    got = values(con, ["U@10", "D_U@10", "U_IA@10", "U(snippet=100, F=0.5, L=100000, gains=linear)@2"])
    pa, pc = 200 + 600, 600 + 8000 + 200 * 2  # c: 3 snippets, 20 % of a and of c
    expected = 3 / 4 * (1 - pa / 132000) + 1 / 4 * (1 - (pc + 200) / 132000)
    assert got[("q", "U@10")] == pytest.approx(expected, abs=1e-12)
    assert got[("q", "D_U@10")] == got[("q", "U_IA@10")] == pytest.approx(expected, abs=1e-12)
    assert got[("q", "U(F=0.5, L=100000, gains=linear, snippet=100)@2")] == pytest.approx(2 * (1 - 1600 / 100000))


def test_u_needs_adhoc_qrels():
    with pytest.raises(MeasureParamError, match="U reads ad hoc judgments"):
        values(case(False), ["U@10"])


def test_non_relevant_document_costs_its_snippet_only():
    qrels = [("q", "i1", "a", 1), ("q", "i1", "n", 0)]
    without = values(campaign(qrels, [("q", "a")], {"a": 5000}), ["U_IA@10", "D_U@10"])
    # a non-relevant document of any length (even of unknown length) before a costs 200 characters
    with_n = values(campaign(qrels, [("q", "n"), ("q", "a")], {"a": 5000}), ["U_IA@10", "D_U@10"])
    with_long_n = values(campaign(qrels, [("q", "n"), ("q", "a")], {"a": 5000, "n": 10**6}), ["U_IA@10"])
    gain = 1 / 2  # (2^1 - 1)/2^1: H = 1
    for m in ("U_IA@10", "D_U@10"):
        assert without[("q", m)] - with_n[("q", m)] == pytest.approx(gain * 200 / 132000, abs=1e-15)
    assert with_long_n[("q", "U_IA@10")] == with_n[("q", "U_IA@10")]


def test_a_longer_relevant_document_before_another_lowers_u():
    qrels = [("q", "", "long", 1), ("q", "", "short", 1), ("q", "", "x", 2)]
    lengths = {"long": 50_000, "short": 5_000, "x": 8_000}
    first_long = values(campaign(qrels, [("q", "long"), ("q", "x")], lengths), ["U@10"])[("q", "U@10")]
    first_short = values(campaign(qrels, [("q", "short"), ("q", "x")], lengths), ["U@10"])[("q", "U@10")]
    assert first_long < first_short
    # x itself is read 0.2 * 45,000 characters later: its gain 3/4 decays by 9000/132000 more
    assert first_short - first_long == pytest.approx((1 / 4 + 3 / 4) * 9000 / 132000)


def random_campaign(seed: int, strictly_local: bool):
    """Topics with 1-4 intents; without strictly locally relevant documents, every relevant
    retrieved document is relevant to all the intents the list covers (levels may differ)."""
    rng = np.random.default_rng(seed)
    qrels, run, lengths, intents = [], [], {}, []
    for t in range(12):
        topic = f"t{t}"
        n = int(rng.integers(1, 5))
        probs = rng.dirichlet(np.ones(n))
        intents += [(topic, f"i{i}", float(p)) for i, p in enumerate(probs)]
        covered = rng.random(n) < 0.6 if not strictly_local else np.ones(n, dtype=bool)
        for d in range(int(rng.integers(3, 15))):
            doc = f"{topic}-d{d}"
            lengths[doc] = int(rng.integers(500, 60_000))
            relevant = rng.random() < 0.5
            for i in range(n):
                if strictly_local:
                    level = int(rng.integers(0, 4)) if relevant else 0
                else:
                    level = int(rng.integers(1, 4)) if relevant and covered[i] else 0
                qrels.append((topic, f"i{i}", doc, level))
            run.append((topic, doc))
    return qrels, run, lengths, intents


@pytest.mark.parametrize("seed", range(5))
def test_du_equals_uia_without_strictly_locally_relevant_documents(seed):
    qrels, run, lengths, intents = random_campaign(seed, strictly_local=False)
    got = values(campaign(qrels, run, lengths, intents), ["D_U@10", "U_IA@10", "D_U@5", "U_IA@5"])
    for (topic, measure), value in got.items():
        if measure.startswith("D_U"):
            assert value == pytest.approx(got[(topic, "U_IA" + measure[3:])], abs=1e-12)


def test_du_and_uia_differ_with_strictly_locally_relevant_documents():
    qrels, run, lengths, intents = random_campaign(7, strictly_local=True)
    got = values(campaign(qrels, run, lengths, intents), ["D_U@10", "U_IA@10"])
    differences = [abs(got[(t, "D_U@10")] - got[(t, "U_IA@10")]) for t, m in got if m == "D_U@10"]
    assert max(differences) > 1e-6


def test_single_intent_lists_give_du_equal_uia():
    # the list covers one intent only (the corollary in Sakai, AIRS 2013)
    qrels = [("q", "i1", "a", 2), ("q", "i2", "a", 0), ("q", "i1", "b", 1), ("q", "i2", "b", 0),
             ("q", "i1", "c", 0), ("q", "i2", "c", 3)]
    got = values(campaign(qrels, [("q", "a"), ("q", "b")], {"a": 7000, "b": 900}, HALVES), ["D_U@10", "U_IA@10"])
    assert got[("q", "D_U@10")] == pytest.approx(got[("q", "U_IA@10")], abs=1e-15)


def test_missing_length_is_an_error_naming_the_documents_unless_a_default_is_chosen():
    qrels = [("q", "", "a", 1), ("q", "", "b", 1), ("q", "", "n", 0)]
    con = campaign(qrels, [("q", "a"), ("q", "n"), ("q", "b")], {"a": 1000})
    with pytest.raises(MeasureParamError, match=r"no document length for 1 relevant document\(s\).*: b;"):
        values(con, ["U@10"])
    got = values(con, ["U(missing_length='5000')@10", "U(missing_length=zero)@10", "U(missing_length=mean)@10"])
    u = values(campaign(qrels, [("q", "a"), ("q", "n"), ("q", "b")], {"a": 1000, "b": 5000}), ["U@10"])
    assert got[("q", "U(missing_length='5000')@10")] == u[("q", "U@10")]
    assert got[("q", "U(missing_length=mean)@10")] == pytest.approx(1 / 2 * (1 - 400 / 132000) + 1 / 2 * (
        1 - (600 + 400) / 132000))
    assert got[("q", "U(missing_length=zero)@10")] > got[("q", "U(missing_length=mean)@10")]
    with pytest.raises(MeasureParamError, match="missing_length must be"):
        values(con, ["U(missing_length=huge)@10"])


def test_u_ia_uses_uniform_probabilities_without_intents():
    qrels = [("q", "i1", "a", 1), ("q", "i2", "a", 0), ("q", "i3", "a", 0)]
    got = values(campaign(qrels, [("q", "a")], {"a": 1000}), ["U_IA@10"])
    assert got[("q", "U_IA@10")] == pytest.approx(1 / 3 * 1 / 2 * (1 - 400 / 132000))


def test_stored_and_named_with_their_parameters():
    con = case(False)
    result = evaluate(con, "c", ["U_IA(F=0.5)@3", "D-U@3"])
    stored = con.execute("select measure, value from scores order by measure").fetchall()
    assert [m for m, _ in stored] == ["D_U@3", "U_IA(F=0.5)@3"]
    assert result.evaluation_id is not None
