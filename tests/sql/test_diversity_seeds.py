"""The seed papers' worked examples as tests: Sakai & Song, SIGIR 2011 Case G and Sakai, JIP 2013
Fig. 1; docs/diversity-measures.md sections 5, 6.1 and 11.4."""
from __future__ import annotations

import math

import pandas as pd
import pytest

import pyeval
from pyeval.diversity.campaigns import load_intent_variant
from pyeval.core.evaluation import evaluate


def diversity_campaign(judgments, intents, runs, campaign="t"):
    """judgments {topic: {intent: {doc: level}}}, intents {topic: {intent: (prob, type)}},
    runs {name: {topic: [docs in rank order]}}."""
    con = pyeval.connect()
    qrels = pd.DataFrame(
        [(t, i, d, lv) for t, by_intent in judgments.items() for i, docs in by_intent.items() for d, lv in docs.items()],
        columns=["query_id", "iteration", "doc_id", "relevance"],
    )
    pyeval.load_qrels(con, campaign, qrels, format="trec-diversity")
    pyeval.load_intents(con, campaign, pd.DataFrame(
        [(t, i, p, kind) for t, by_intent in intents.items() for i, (p, kind) in by_intent.items()],
        columns=["query_id", "intent_id", "prob", "intent_type"],
    ))
    for name, topics in runs.items():
        pyeval.load_run(con, campaign, pd.DataFrame(
            [(t, d, 1000.0 - r) for t, docs in topics.items() for r, d in enumerate(docs, start=1)],
            columns=["query_id", "doc_id", "score"],
        ), name=name)
    return con


def values(con, measures, campaign="t"):
    result = evaluate(con, campaign, measures, store=False)
    return {(r.run_id, r.topic_id, r.measure): r.value for r in result.per_topic.itertuples()}


def _ndcg_at_10(gains: dict[str, int], docs: list[str]) -> float:
    """trec_eval's ndcg_cut_10 (pytrec_eval) of ``docs`` in this order against integer ``gains``
    (trec_eval takes the qrels value as the gain; nDCG does not change when gains are scaled)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = {"q": {d: float(len(docs) - r) for r, d in enumerate(docs)}}
    return pytrec_eval.RelevanceEvaluator({"q": gains}, {"ndcg_cut.10"}).evaluate(run)["q"]["ndcg_cut_10"]


def test_case_g_of_sakai_and_song_sigir_2011():
    """MSRABASE retrieves the only (L2) document of intent i3 at rank 2: with gains 2^x - 1 its
    nDCG_3@10 = (3/log 3)/(3/log 2) = log 2/log 3 = .631, so nDCG-IA over 4 uniform intents is
    .158; THUIR09FuClu covers i1 and i2 (L2 documents at ranks 2 and 3), nDCG-IA = (nDCG_1 +
    nDCG_2)/4, lower (the paper's .066 = (.119 + .144)/4 on its own lists), although it is the
    more diversified list: D-nDCG and I-rec prefer it. Oracle: trec_eval's nDCG (pytrec_eval) per
    intent, and on the global gains for D-nDCG."""
    i1 = {f"a{k}": 2 for k in range(8)}
    i2 = {f"b{k}": 2 for k in range(8)}
    judgments = {"47": {"1": i1, "2": i2, "3": {"g": 2}, "4": {"n": 0}}}
    intents = {"47": {"1": (0.25, "inf"), "2": (0.25, "inf"), "3": (0.25, "nav"), "4": (0.25, "inf")}}
    runs = {"MSRABASE": {"47": ["x1", "g", "x2"]}, "THUIR09FuClu": {"47": ["x1", "a0", "b0"]}}
    con = diversity_campaign(judgments, intents, runs)
    ia, d = "IA_nDCG(gain=exp)@10", "D_nDCG(gain=exp)@10"
    got = values(con, [ia, d, "IRec@10"])
    exp_gains = {i: {doc: 2 ** level - 1 for doc, level in docs.items() if level > 0}
                 for i, docs in judgments["47"].items()}
    # every document is relevant to one intent only, so its global gain is 1/4 of 3: 4 x GG = 3
    global_gains = {doc: gain for gains in exp_gains.values() for doc, gain in gains.items()}
    for run, docs in runs.items():
        per_intent = [_ndcg_at_10(gains, docs["47"]) if gains else 0.0 for gains in exp_gains.values()]
        assert got[run, "47", ia] == pytest.approx(sum(per_intent) / 4, abs=1e-12)
        assert got[run, "47", d] == pytest.approx(_ndcg_at_10(global_gains, docs["47"]), abs=1e-12)
    assert got["MSRABASE", "47", ia] == pytest.approx(math.log(2) / math.log(3) / 4)
    assert round(got["MSRABASE", "47", ia], 3) == 0.158  # the paper's value
    assert got["THUIR09FuClu", "47", ia] < got["MSRABASE", "47", ia]
    assert got["THUIR09FuClu", "47", d] > got["MSRABASE", "47", d]
    assert got["THUIR09FuClu", "47", "IRec@10"] == pytest.approx(2 / 3)  # n+ = 3: i4 has no relevant document
    assert got["MSRABASE", "47", "IRec@10"] == pytest.approx(1 / 3)


def _fig_1(j_at_rank_2: int):
    """Sakai, JIP 2013 Fig. 1: informational i relevant at ranks 1 (L1), 2 (L3) and 5; navigational j
    at rank 2 (L1, or the given level) and rank 4 (L3)."""
    judgments = {"1": {"i": {"d1": 1, "d2": 3, "d5": 2}, "j": {"d2": j_at_rank_2, "d4": 3}}}
    intents = {"1": {"i": (0.5, "inf"), "j": (0.5, "nav")}}
    con = diversity_campaign(judgments, intents, {"r": {"1": ["d1", "d2", "d3", "d4", "d5"]}})
    only_j = pd.DataFrame({"query_id": ["1", "1"], "intent_id": ["i", "j"], "prob": [0.0, 1.0]})
    load_intent_variant(con, "t", "onlyj", only_j)
    return con


def test_fig_1_of_sakai_jip_2013():
    con = _fig_1(1)
    got = values(con, ["EfP@5", "PAny@5", "PplusQ@5", "IA_Q@5", "PplusQ(probs=onlyj)@5", "DIN_nDCG@5", "D_nDCG@5"])
    assert got["r", "1", "EfP@5"] == pytest.approx(0.6)  # rank 4 is redundant for j
    assert got["r", "1", "PAny@5"] == pytest.approx(0.8)
    # rp_j = 4 (the first L3 document of j), P+_j averages BR_j(2) = 2/6 and BR_j(4) = 6/8
    assert got["r", "1", "PplusQ(probs=onlyj)@5"] == pytest.approx((2 / 6 + 6 / 8) / 2)
    assert got["r", "1", "PplusQ@5"] == pytest.approx(got["r", "1", "IA_Q@5"])  # P+_j = Q_j@5 here
    assert got["r", "1", "DIN_nDCG@5"] < got["r", "1", "D_nDCG@5"]


def test_fig_1_of_sakai_jip_2013_with_rank_2_at_l3():
    """Had rank 2 been L3 for j, rank 4 would be ignored and P+Q < Q-IA."""
    con = _fig_1(3)
    got = values(con, ["PplusQ@5", "IA_Q@5"])
    assert got["r", "1", "PplusQ@5"] < got["r", "1", "IA_Q@5"]


def test_nonuniform_probabilities_of_sakai_and_song():
    from pyeval.loaders.topic_intents import intent_probabilities

    three = intent_probabilities(pd.DataFrame({"topic_id": ["q"] * 3}), "nonuniform")
    four = intent_probabilities(pd.DataFrame({"topic_id": ["q"] * 4}), "nonuniform")
    assert list(three) == pytest.approx([8 / 14, 4 / 14, 2 / 14])
    assert [round(p, 4) for p in four] == [0.5333, 0.2667, 0.1333, 0.0667]
    assert [round(p, 4) for p in three] == [0.5714, 0.2857, 0.1429]  # Dtest.Iprob
