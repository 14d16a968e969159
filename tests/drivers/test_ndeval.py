"""The ndeval family (pyeval/drivers/ndeval.py) against its oracles.

* the pyndeval README example, full precision (recomputed.ndeval-format.csv) and ir_measures'
  pyndeval test (ERR-IA@20, 4 places);
* pyndeval (ndeval.c) on the TREC 2012 Web diversity qrels with the two real Indri runs, and on
  generated campaigns (ties in the greedy ideal list, topics without relevant documents,
  unjudged and run-only documents, subtopic 0, alpha and beta other than 0.5): every measure at
  every cutoff 1..20, as the same double;
* hand-worked values for what ndeval does not have: cutoffs above 20, normalised @1, weights
  Pr(i|q) from the campaign's intents.
"""
from __future__ import annotations

import gzip
import math

import numpy as np
import pandas as pd
import pytest

import pyeval
from pyeval import sample
from pyeval.core.evaluation import evaluate
from pyeval.measures import parse

from ..conftest import FIXTURES
from .helpers import measure_pairs, pyndeval_values, same

NDEVAL = FIXTURES / "ndeval"


def _frame_values(result) -> dict:
    return {(r.run_id, r.topic_id, r.measure): r.value for r in result.per_topic.itertuples()}


def test_readme_example_full_precision():
    con = pyeval.connect()
    pyeval.load_qrels(con, "ex", NDEVAL / "qrels.ndeval", format="trec-diversity")
    pyeval.load_run(con, "ex", NDEVAL / "run.trec", name="example")
    lines = (NDEVAL / "recomputed.ndeval-format.csv").read_text().splitlines()
    header, row = lines[0].split(","), lines[1].split(",")
    names = [name for name, _ in measure_pairs((5, 10, 20))]
    pairs = dict(measure_pairs((5, 10, 20)))
    result = evaluate(con, "ex", [pairs[n] for n in names], ordering="rank", store=False)
    values = {m: v for m, v in zip(result.per_topic["measure"], result.per_topic["value"])}
    for column, expected in zip(header[2:], row[2:]):
        assert "%.6f" % values[str(parse(pairs[column]))] == expected, column


def test_readme_example_default_names_and_aliases():
    con = pyeval.connect()
    pyeval.load_qrels(con, "ex", NDEVAL / "qrels.ndeval", format="trec-diversity")
    pyeval.load_run(con, "ex", NDEVAL / "run.trec", name="example")
    result = evaluate(con, "ex", ["alpha-nDCG@20", "ERR-IA@20", "MAP-IA", "strec@10", "P-IA@5", "α_nDCG@5"],
                      store=False)
    got = dict(zip(result.per_topic["measure"], result.per_topic["value"].round(6)))
    assert got == {"alpha_nDCG@20": 0.786896, "ERR_IA@20": 0.39073, "AP_IA": 0.5, "StRecall@10": 0.666667,
                   "P_IA@5": 0.2, "alpha_nDCG@5": 0.786896}


def test_ir_measures_err_ia_example_under_both_orderings():
    # ir_measures test_pyndeval: ERR-IA@20 topic 0 = 0.4659, topic 1 = 0.1803 (4 places); the
    # rank column and the scores disagree on one pair with equal marginal gain
    con = pyeval.connect()
    pyeval.load_qrels(con, "irm", NDEVAL / "irm-example.qrels.ndeval", format="trec-diversity")
    pyeval.load_run(con, "irm", NDEVAL / "irm-example.run.trec", name="run")
    for ordering in ("rank", "trec"):
        result = evaluate(con, "irm", ["ERR_IA@20"], ordering=ordering, store=False)
        got = dict(zip(result.per_topic["topic_id"], result.per_topic["value"]))
        assert round(got["0"], 4) == 0.4659 and round(got["1"], 4) == 0.1803
        assert round(result.means["value"].iloc[0], 4) == 0.3231


# --- pyndeval on the TREC 2012 Web diversity qrels and the two real runs ------------------------


@pytest.fixture(scope="module")
def web2012():
    con = pyeval.connect()
    # the raw NIST diversity qrels (-2 spam kept): binarised at level >= 1 they judge exactly what
    # NIST's qrels-for-ndeval (the oracle's input) judges
    pyeval.load_qrels(con, "web", sample.path("qrels.diversity.txt.gz"))
    for name in ("indri-ql", "indri-rm"):
        pyeval.load_run(con, "web", sample.path(f"runs/{name}.txt.gz"), name=name)
    with gzip.open(NDEVAL / "qrels-for-ndeval.txt.gz", "rt") as handle:
        qrels = pd.read_csv(handle, sep=" ", header=None, names=["topic", "subtopic", "doc_id", "level"], dtype=str)
    qrels["level"] = qrels["level"].astype(int)
    yield con, qrels
    con.close()


@pytest.mark.parametrize("ordering", ["rank", "trec"])
def test_web2012_real_runs_equal_pyndeval(web2012, ordering):
    con, qrels = web2012
    pairs = measure_pairs()
    result = evaluate(con, "web", [m for _, m in pairs], ordering=ordering, topics="intersection", store=False)
    ours = _frame_values(result)
    ranked = con.execute(
        "select run_id, topic_id as topic, doc_id, rank from ranked_entries "
        "where campaign_id = 'web' and ordering = $o", {"o": ordering}
    ).df()
    checked = 0
    for run_id, lists in ranked.groupby("run_id"):
        oracle = pyndeval_values(qrels, lists, [name for name, _ in pairs])
        assert len({topic for topic, _ in oracle}) == 50
        for name, measure in pairs:
            key = str(parse(measure))
            for topic in sorted({topic for topic, _ in oracle}):
                assert same(ours[(run_id, topic, key)], oracle[(topic, name)]), (run_id, topic, name)
                checked += 1
    assert checked == 2 * 50 * 123


def test_web2012_ndevals_names_give_ndevals_numbers_by_default(web2012):
    """Issue 31: a name of ndeval's, with no probs and no ordering given, is ndeval's number
    (probs=ndeval, the rank column's order: the declarations' defaults); ERR_IA@20 of indri-ql
    was 0.2824 (campaign probabilities, trec_eval's order) where ndeval gives 0.2904. The other
    choice stays one parameter away."""
    con, qrels = web2012
    names = {"ERR-IA@20": "ERR_IA@20", "nERR-IA@20": "nERR_IA@20", "alpha-nDCG@20": "alpha_nDCG@20",
             "alpha-DCG@20": "alpha_DCG@20", "P-IA@20": "P_IA@20", "strec@20": "StRecall@20",
             "NRBP": "NRBP", "nNRBP": "nNRBP", "MAP-IA": "AP_IA"}
    result = evaluate(con, "web", list(names.values()), topics="intersection", store=False)
    ours = _frame_values(result)
    ranked = con.execute(
        "select run_id, topic_id as topic, doc_id, rank from ranked_entries "
        "where campaign_id = 'web' and ordering = 'rank'"
    ).df()
    checked = 0
    for run_id, lists in ranked.groupby("run_id"):
        oracle = pyndeval_values(qrels, lists, list(names))
        for name, measure in names.items():
            for topic in sorted({topic for topic, _ in oracle}):
                assert same(ours[(run_id, topic, measure)], oracle[(topic, name)]), (run_id, topic, name)
                checked += 1
    assert checked == 2 * 50 * len(names)
    means = result.means.set_index(["run_id", "measure"])["value"]
    assert round(means[("indri-ql", "ERR_IA@20")], 4) == 0.2904
    # the campaign's probabilities (its intents, as `pyeval demo` loads them) and trec_eval's
    # order: one parameter each
    own = pyeval.connect()
    pyeval.load_qrels(own, "web", sample.path("qrels.diversity.txt.gz"))
    pyeval.load_run(own, "web", sample.path("runs/indri-ql.txt.gz"), name="indri-ql")
    pyeval.load_intents(own, "web", sample.path("intents.uniform.txt"))
    default = evaluate(own, "web", ["ERR_IA@20"], store=False).means["value"].iloc[0]
    other = evaluate(own, "web", ["ERR_IA(probs=given)@20"], ordering="trec", store=False).means["value"].iloc[0]
    assert (round(default, 4), round(other, 4)) == (0.2904, 0.2824)
    own.close()


# --- pyndeval on generated campaigns --------------------------------------------------------------


def generated(seed: int):
    """Qrels (topic, subtopic, doc_id, level) and a run (topic, doc_id, rank_given, score) with
    what stresses ndeval: many documents covering the same subtopics (greedy ties broken by
    docno), a topic whose judgments are all 0, subtopic 0 as a real subtopic, unjudged and
    duplicate-score documents, a run-only topic and a qrels-only topic."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for topic in range(1, 9):
        subtopics = int(rng.integers(1, 7))
        first = int(rng.integers(0, 2))
        docs = [f"d{topic}-{int(i):03d}" for i in rng.choice(400, size=int(rng.integers(5, 40)), replace=False)]
        for doc in docs:
            pattern = rng.random(subtopics) < (0.0 if topic == 3 else 0.35)
            for s in range(subtopics):
                qrels.append((str(topic), str(first + s), doc, int(rng.integers(1, 3)) if pattern[s] else 0))
        if topic == 8:
            continue  # judged, never retrieved
        pool = docs + [f"u{topic}-{i}" for i in range(int(rng.integers(0, 30)))]
        chosen = rng.permutation(pool)[: int(rng.integers(1, len(pool) + 1))]
        scores = np.round(rng.normal(5, 1, len(chosen)), 1)
        ranks = rng.permutation(len(chosen)) + 1 + 3 * (topic % 2)  # gaps are fine
        run += [(str(topic), str(doc), int(rank), float(score)) for doc, rank, score in zip(chosen, ranks, scores)]
    run += [("99", "x1", 1, 1.0), ("99", "x2", 2, 0.5)]
    return (pd.DataFrame(qrels, columns=["topic", "subtopic", "doc_id", "level"]),
            pd.DataFrame(run, columns=["topic", "doc_id", "rank_given", "score"]))


@pytest.mark.parametrize(("seed", "alpha", "beta"), [(1, 0.5, 0.5), (2, 0.5, 0.5), (3, 0.3, 0.8), (4, 0.9, 0.2),
                                                     (5, 1.0, 1.0), (6, 0.0, 0.5)])
@pytest.mark.parametrize("ordering", ["rank", "trec"])
def test_generated_campaigns_equal_pyndeval(seed, alpha, beta, ordering):
    qrels, run = generated(seed)
    con = pyeval.connect()
    pyeval.load_qrels(con, "g", qrels.rename(columns={"topic": "query_id", "subtopic": "iteration",
                                                     "level": "relevance"}), format="trec-diversity")
    pyeval.load_run(con, "g", run.rename(columns={"topic": "query_id", "rank_given": "rank"}), name="r")
    pairs = measure_pairs(alpha=alpha, beta=beta)
    result = evaluate(con, "g", [m for _, m in pairs], ordering=ordering, topics="intersection", store=False)
    ours = _frame_values(result)
    ranked = con.execute(
        "select topic_id as topic, doc_id, rank from ranked_entries where ordering = $o", {"o": ordering}
    ).df()
    oracle = pyndeval_values(qrels, ranked, [name for name, _ in pairs], alpha=alpha, beta=beta)
    topics = sorted({topic for topic, _ in oracle})
    assert topics == [str(t) for t in range(1, 8)]  # run topics with judgments
    assert set(result.per_topic["topic_id"]) == set(topics)
    for name, measure in pairs:
        for topic in topics:
            assert same(ours[("r", topic, str(parse(measure)))], oracle[(topic, name)]), (topic, name)


def test_topic_without_relevant_documents_and_missing_topic():
    qrels, run = generated(1)
    con = pyeval.connect()
    pyeval.load_qrels(con, "g", qrels.rename(columns={"topic": "query_id", "subtopic": "iteration",
                                                     "level": "relevance"}), format="trec-diversity")
    pyeval.load_run(con, "g", run.rename(columns={"topic": "query_id", "rank_given": "rank"}), name="r")
    result = evaluate(con, "g", ["nNRBP", "nNRBP(ndeval_quirks=True)", "alpha_nDCG@10", "AP_IA"], store=False)
    got = _frame_values(result)
    assert got[("r", "3", "nNRBP")] == 0.0 and math.isnan(got[("r", "3", "nNRBP(ndeval_quirks=True)")])
    assert got[("r", "3", "alpha_nDCG@10")] == 0.0
    # topic 8 is judged but not retrieved: scored 0 under the default topic policy (qrels)
    assert got[("r", "8", "alpha_nDCG@10")] == 0.0 and got[("r", "8", "AP_IA")] == 0.0
    assert ("r", "99", "AP_IA") not in got  # run-only topics are not evaluated


# --- beyond ndeval: cutoffs above 20, @1, weights ----------------------------------------------


@pytest.fixture
def two_intents():
    """Topic q: intents 1 and 2; a covers 1, b covers 2, c covers both; d non-relevant.
    Run: a, d, c, b. The greedy ideal list is c, b, a (c scores 2 at rank 1; then b and a tie
    at 0.5 and the larger docno, b, wins)."""
    con = pyeval.connect()
    qrels = [("q", "1", "a", 1), ("q", "2", "a", 0), ("q", "1", "b", 0), ("q", "2", "b", 1),
             ("q", "1", "c", 1), ("q", "2", "c", 1), ("q", "1", "d", 0), ("q", "2", "d", 0)]
    pyeval.load_qrels(con, "t", pd.DataFrame(qrels, columns=["query_id", "iteration", "doc_id", "relevance"]),
                      format="trec-diversity")
    pyeval.load_run(con, "t", pd.DataFrame([("q", d, 4.0 - i) for i, d in enumerate("adcb")],
                                           columns=["query_id", "doc_id", "score"]), name="r")
    yield con
    con.close()


def _values(con, measures, **kwargs):
    result = evaluate(con, "t", measures, store=False, **kwargs)
    return dict(zip(result.per_topic["measure"], result.per_topic["value"]))


def test_hand_worked_two_intents(two_intents):
    d = [1 / math.log2(r + 1) for r in range(1, 6)]
    g = [1, 0, 1.5, 0.5]  # a: 1; d: 0; c: 0.5 (intent 1 seen) + 1; b: 0.5 (intent 2 seen)
    ideal = [2, 0.5, 0.5]
    ii = [2 * 0.5 ** r * d[r] for r in range(5)]  # ideal-ideal with N = 2
    got = _values(two_intents, ["alpha_DCG@4", "alpha_nDCG@4", "alpha_nDCG@25", "alpha_DCG@1",
                                "alpha_DCG(ndeval_quirks=True)@1", "ERR_IA@1", "StRecall@1", "StRecall@3",
                                "P_IA@3", "AP_IA", "NRBP", "nNRBP"])
    run_dcg = sum(gi * di for gi, di in zip(g, d))
    ideal_dcg = sum(gi * di for gi, di in zip(ideal, d))
    assert got["alpha_DCG@4"] == pytest.approx(run_dcg / sum(ii[:4]))
    assert got["alpha_nDCG@4"] == pytest.approx(run_dcg / ideal_dcg)
    assert got["alpha_nDCG@25"] == pytest.approx(run_dcg / ideal_dcg)  # any cutoff; no 20 cap
    assert got["alpha_DCG@1"] == pytest.approx(0.5)  # normalised by N = 2 (ndeval: raw, quirk 1)
    assert got["alpha_DCG(ndeval_quirks=True)@1"] == 1.0
    assert got["ERR_IA@1"] == pytest.approx(0.5)
    assert got["StRecall@1"] == 0.5 and got["StRecall@3"] == 1.0
    assert got["P_IA@3"] == pytest.approx(3 / (3 * 2))
    ap1 = (1 / 1 + 2 / 3) / 2  # intent 1: a (1), c (3); R = 2
    ap2 = (1 / 3 + 2 / 4) / 2  # intent 2: c (3), b (4); R = 2
    assert got["AP_IA"] == pytest.approx((ap1 + ap2) / 2)
    nrbp = (1 - 0.5 * 0.5) / 2 * sum(gi * 0.5 ** i for i, gi in enumerate(g))
    assert got["NRBP"] == pytest.approx(nrbp)
    ideal_nrbp = (1 - 0.5 * 0.5) / 2 * sum(gi * 0.5 ** i for i, gi in enumerate(ideal))
    assert got["nNRBP"] == pytest.approx(nrbp / ideal_nrbp)


def test_ideal_run_scores_one(two_intents):
    pyeval.load_run(two_intents, "t", pd.DataFrame([("q", d, 4.0 - i) for i, d in enumerate("cbad")],
                                                   columns=["query_id", "doc_id", "score"]), name="ideal")
    result = evaluate(two_intents, "t", ["alpha_nDCG@3", "nERR_IA@10", "nNRBP"], runs=["ideal"], store=False)
    assert result.per_topic["value"].tolist() == [1.0, 1.0, 1.0]


def test_campaign_probabilities_weight_the_intents(two_intents):
    pyeval.load_intents(two_intents, "t", pd.DataFrame([("q", "1", 0.8), ("q", "2", 0.2)],
                                                       columns=["query_id", "intent_id", "prob"]))
    d = [1 / math.log2(r + 1) for r in range(1, 6)]
    g = [0.8, 0, 0.8 * 0.5 + 0.2, 0.2 * 0.5]  # weighted novelty gains of a, d, c, b
    ideal = [1.0, 0.8 * 0.5, 0.2 * 0.5]  # c; then a (0.4) beats b (0.1); then b
    ii = sum(0.5 ** r * d[r] for r in range(4))  # ideal-ideal starts at 1 (probabilities sum to 1)
    given = ["alpha_DCG(probs=given)@4", "alpha_nDCG(probs=given)@4", "P_IA(probs=given)@2", "AP_IA(probs=given)"]
    got = _values(two_intents, [*given, "alpha_nDCG@4"])
    assert got[given[0]] == pytest.approx(sum(a * b for a, b in zip(g, d)) / ii)
    assert got[given[1]] == pytest.approx(sum(a * b for a, b in zip(g, d)) / sum(a * b for a, b in zip(ideal, d)))
    assert got[given[2]] == pytest.approx(0.8 / 2)
    assert got[given[3]] == pytest.approx(0.8 * (1 + 2 / 3) / 2 + 0.2 * (1 / 3 + 2 / 4) / 2)
    # ndeval's names default to ndeval's 1/N weights (probs=ndeval)
    uniform = evaluate(two_intents, "t", ["alpha_nDCG(probs=ndeval)@4"], store=False).per_topic["value"][0]
    assert got["alpha_nDCG@4"] == uniform != got[given[1]]


def test_evaluate_stores_ndeval_measures_in_scores(web2012):
    con, _ = web2012
    result = evaluate(con, "web", ["alpha_nDCG@20", "ERR_IA@20"], runs=["indri-ql"])
    stored = con.execute(
        "select measure, count(*), avg(value) from scores where campaign_id = 'web' group by measure order by measure"
    ).fetchall()
    means = dict(zip(result.means["measure"], result.means["value"]))
    assert [(m, n) for m, n, _ in stored] == [("ERR_IA@20", 50), ("alpha_nDCG@20", 50)]
    assert {m: v for m, _, v in stored} == pytest.approx(means)


def test_parameters_are_checked():
    with pytest.raises(pyeval.errors.MeasureParamError, match="alpha must lie in"):
        parse("alpha_nDCG(alpha=1.5)@10")
    with pytest.raises(pyeval.errors.MeasureParamError, match="needs cutoff"):
        parse("alpha_nDCG")
    assert str(parse("alpha-nDCG(alpha=0.5)@20")) == "alpha_nDCG@20"
    assert str(parse("MAP_IA")) == "AP_IA"


def test_unknown_probability_variant_is_an_error(two_intents):
    with pytest.raises(pyeval.errors.MeasureParamError, match="no probability variant 'nonuni'"):
        evaluate(two_intents, "t", ["alpha_nDCG(probs=nonuni)@4"], store=False)


@pytest.mark.parametrize("ordering", ["rank", "trec", "file"])
def test_depth_and_judged_only_as_a_cut_run(ordering):
    """max_depth keeps the first documents after ordering; judged_only then drops the unjudged
    ones and renumbers: the same values as evaluating a run cut that way by hand."""
    qrels, run = generated(2)
    frame = qrels.rename(columns={"topic": "query_id", "subtopic": "iteration", "level": "relevance"})
    con = pyeval.connect()
    pyeval.load_qrels(con, "g", frame, format="trec-diversity")
    pyeval.load_run(con, "g", run.rename(columns={"topic": "query_id", "rank_given": "rank"}), name="r")
    ranked = con.execute("select topic_id, doc_id, score, rank from ranked_entries where ordering = $o",
                         {"o": ordering}).df()
    cut = ranked[ranked["rank"] <= 7]
    cut = cut[cut["doc_id"].isin(set(qrels["doc_id"]))].sort_values(["topic_id", "rank"])
    cut = cut.assign(rank=cut.groupby("topic_id").cumcount() + 1, score=-cut["rank"].astype(float))
    pyeval.load_run(con, "g", cut.rename(columns={"topic_id": "query_id"})[["query_id", "doc_id", "score", "rank"]],
                    name="cut")
    measures = [m for _, m in measure_pairs((1, 3, 10))]
    wanted = evaluate(con, "g", measures, runs=["r"], ordering=ordering, max_depth=7, judged_only=True, store=False)
    by_hand = evaluate(con, "g", measures, runs=["cut"], ordering="rank", store=False)
    a = wanted.per_topic.drop(columns="run_id").reset_index(drop=True)
    b = by_hand.per_topic.drop(columns="run_id").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_a_diversity_measure_notes_topics_of_one_intent(two_intents):
    """Both families note, at run time, the topics they read with one relevant intent: every
    topic of an ad hoc campaign (ndeval's reading), or such topics of a diversity campaign;
    ad hoc measures, and topics of two intents, get no note."""
    import warnings

    from pyeval.errors import SingleIntentWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", SingleIntentWarning)
        _values(two_intents, ["alpha_nDCG@4", "ERR_IA@4"])  # topic q has two relevant intents
    pyeval.load_qrels(two_intents, "a", pd.DataFrame([("q", "0", "a", 1), ("q", "0", "b", 0)],
                                                     columns=["query_id", "iteration", "doc_id", "relevance"]))
    pyeval.load_run(two_intents, "a", pd.DataFrame([("q", "a", 1.0)], columns=["query_id", "doc_id", "score"]),
                    name="r")
    with pytest.warns(SingleIntentWarning, match=r"ERR_IA@4: 1 of 1 topics of campaign 'a' have one relevant "
                      r"intent \(ad hoc qrels: each topic is one intent of weight 1, as ndeval reads them\)"):
        evaluate(two_intents, "a", ["ERR_IA@4"], store=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingleIntentWarning)
        evaluate(two_intents, "a", ["nDCG@4", "U(missing_length=zero)@4"], store=False)
    pyeval.load_qrels(two_intents, "d", pd.DataFrame([("q", "1", "a", 1), ("q", "2", "b", 0)],
                                                     columns=["query_id", "iteration", "doc_id", "relevance"]),
                      format="trec-diversity")
    pyeval.load_run(two_intents, "d", pd.DataFrame([("q", "a", 1.0)], columns=["query_id", "doc_id", "score"]),
                    name="r")
    pyeval.load_intents(two_intents, "d", pd.DataFrame([("q", "1", 0.5), ("q", "2", 0.5)],
                                                       columns=["query_id", "intent_id", "probability"]))
    with pytest.warns(SingleIntentWarning, match=r"D#-nDCG@4|Dsharp_nDCG@4: 1 of 1 topics of campaign 'd' have one "
                      r"relevant intent; there"):
        evaluate(two_intents, "d", ["D#-nDCG@4"], store=False)


def test_the_cli_prints_the_one_intent_note_on_stderr(tmp_path):
    from click.testing import CliRunner

    from pyeval.cli import main

    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q 0 a 1\nq 0 b 0\n")
    run.write_text("q Q0 a 1 1.0 r\n")
    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    assert runner.invoke(main, ["--db", db, "load", "qrels", "-C", "c", str(qrels)]).exit_code == 0
    assert runner.invoke(main, ["--db", db, "load", "run", "-C", "c", str(run)]).exit_code == 0
    result = runner.invoke(main, ["--db", db, "evaluate", "-C", "c", "-m", "alpha_nDCG@10", "--no-store"])
    assert result.exit_code == 0 and "alpha_nDCG@10" in result.stdout
    assert "1 of 1 topics of campaign 'c' have one relevant intent" in result.stderr
