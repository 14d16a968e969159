"""Properties of the diversity measures (issue 5; docs/diversity-measures.md sections 3 and 4) on the
bundled TREC 2012 Web diversity sample and on small campaigns."""
from __future__ import annotations

import pandas as pd
import pytest

import pyeval
from pyeval import sample
from pyeval.diversity.campaigns import to_traditional
from pyeval.core.evaluation import evaluate

from .test_diversity_seeds import diversity_campaign, values

D_MEASURES = ["D_nDCG@10", "D_Q@10", "D_nERR@10", "D_nCG@10", "D_Q", "D_AP", "D_PPlus", "D_nGAP@10"]


@pytest.fixture(scope="module")
def web():
    """The sample campaign with 6 runs; types as the topics XML gives them, and all informational."""
    con = pyeval.connect()
    runs = sample.run_paths()[:6]
    for campaign, intents in (("web", "intents.uniform.txt"), ("web-inf", "intents.uniform.txt")):
        pyeval.load_qrels(con, campaign, sample.path("qrels.diversity.txt.gz"))
        frame = pd.read_csv(sample.path(intents), sep=" ", header=None, dtype=str,
                            names=["query_id", "intent_id", "prob", "intent_type"])
        if campaign == "web-inf":
            frame["intent_type"] = "inf"
        pyeval.load_intents(con, campaign, frame)
        pyeval.load_runs(con, campaign, runs, names=[sample.run_name(p) for p in runs])
    yield con
    con.close()


def test_d_measures_lie_in_0_1(web):
    result = evaluate(web, "web", D_MEASURES + ["DIN_nDCG@10", "DIN_Q@10"], store=False).per_topic
    assert result.value.between(0, 1 + 1e-12).all()


def test_sharp_measures_lie_in_0_1_when_l_is_at_least_n_plus(web):
    n_plus = web.execute("select max(n) from (select topic_id, count(distinct intent_id) as n from qrels "
                         "where campaign_id = 'web' and level >= 1 group by topic_id)").fetchone()[0]
    assert n_plus <= 10
    measures = ["Dsharp_nDCG@10", "Dsharp_Q@10", "DINsharp_nDCG@10", "DINsharp_Q@10", "PplusQsharp@10", "IRec@10"]
    result = evaluate(web, "web", measures, store=False).per_topic
    assert result.value.between(0, 1 + 1e-12).all()


def test_din_equals_d_when_no_intent_is_navigational(web):
    got = values(web, ["D_nDCG@10", "DIN_nDCG@10", "D_Q@10", "DIN_Q@10", "EfP@10", "PAny@10"], campaign="web-inf")
    keys = {(run, topic) for run, topic, _ in got}
    for run, topic in keys:
        assert got[run, topic, "DIN_nDCG@10"] == pytest.approx(got[run, topic, "D_nDCG@10"], abs=1e-12)
        assert got[run, topic, "DIN_Q@10"] == pytest.approx(got[run, topic, "D_Q@10"], abs=1e-12)
        assert got[run, topic, "EfP@10"] == got[run, topic, "PAny@10"]


def test_navigational_intents_lower_din(web):
    d = evaluate(web, "web", ["D_nDCG@10", "DIN_nDCG@10"], store=False).means.pivot(
        index="run_id", columns="measure", values="value")
    assert (d["DIN_nDCG@10"] <= d["D_nDCG@10"] + 1e-12).all()
    assert (d["DIN_nDCG@10"] < d["D_nDCG@10"]).any()


def test_the_globally_ideal_list_scores_1():
    judgments = {"1": {"a": {"d1": 3, "d2": 1, "d3": 2}, "b": {"d2": 2, "d4": 1, "d5": 3}, "c": {"d6": 1, "d7": 0}}}
    intents = {"1": {"a": (0.5, "inf"), "b": (0.3, "inf"), "c": (0.2, "nav")}}
    con = diversity_campaign(judgments, intents, {"r": {"1": ["d6"]}})
    order = con.execute("select doc_id from global_gains where campaign_id = 't' and profile = 'linear' "
                        "and probs = 'given' and global_gain > 0 order by global_gain desc, doc_id").df().doc_id
    pyeval.load_run(con, "t", pd.DataFrame({"query_id": "1", "doc_id": order, "score": range(len(order), 0, -1)}),
                    name="ideal")
    measures = D_MEASURES + ["D_nDCG@3", "Dsharp_nDCG@10", "IRec@10", "D_PMeasure"]
    got = values(con, measures)
    for measure in measures:
        assert got["ideal", "1", measure] == pytest.approx(1.0), measure
        assert got["r", "1", measure] <= 1.0
    assert got["r", "1", "D_nDCG@10"] < 1


def test_with_one_intent_d_measures_are_the_ad_hoc_measures():
    judgments = {
        "1": {"x": {"d1": 3, "d2": 1, "d3": 2, "d4": 0, "d8": 1}},
        "2": {"x": {"e1": 1, "e2": 2, "e3": 0}},
    }
    intents = {"1": {"x": (1.0, "inf")}, "2": {"x": (1.0, "nav")}}
    runs = {"r": {"1": ["d4", "d2", "u1", "d1", "d3"], "2": ["e3", "u2", "e2"]},
            "s": {"1": ["d1", "d3", "d8"], "2": ["e1", "e2"]}}
    con = diversity_campaign(judgments, intents, runs)
    to_traditional(con, "t", "t2t")
    # (ERR-type measures differ where gmax does: the topic's largest global gain for a D-measure,
    # the campaign's highest level for the ad hoc one)
    adhoc = ["nDCG@10", "nDCG", "Q@10", "Q", "AP", "RR", "P@5", "PPlus", "JKnDCG@10", "nCG@3", "GAP"]
    got_d = values(con, [f"D_{m}" for m in adhoc], campaign="t")
    got_a = values(con, adhoc, campaign="t2t")
    for (run, topic, measure), value in got_a.items():
        assert got_d[run, topic, f"D_{measure}"] == pytest.approx(value, abs=1e-12), (run, topic, measure)
    ia = values(con, ["IA_nDCG@10", "IA_Q@10"], campaign="t")
    for (run, topic, measure), value in ia.items():
        assert value == pytest.approx(got_a[run, topic, measure.removeprefix("IA_")], abs=1e-12)


def test_ad_hoc_measures_are_refused_on_a_diversity_campaign(web):
    with pytest.raises(pyeval.errors.DataIntegrityError, match="D_nDCG@10"):
        evaluate(web, "web", ["nDCG@10"], store=False)
    with pytest.raises(pyeval.errors.DataIntegrityError, match="ad hoc measures need ad hoc qrels"):
        evaluate(web, "web", ["D_nDCG@10", "nDCG@10"], store=False)


NTCIR_FAMILY = ["D_nDCG@10", "D_Q", "D_nERR@10", "DIN_nDCG@10", "Dsharp_nDCG@10", "DINsharp_Q@10", "IRec@10",
                "IA_nDCG@10", "IA_Q@10", "PplusQ@10", "PplusQsharp@10", "EfP@10", "PAny@10"]


def test_an_ad_hoc_campaign_is_one_intent_of_weight_1_for_every_diversity_measure():
    """The one rule (docs/diversity-measures.md section 1.2): both families read an ad hoc
    campaign's topic as one intent of probability 1. Oracle: the same judgments loaded as a
    diversity campaign of one informational intent per topic (probability 1), the path tested
    against NTCIREVAL and ndeval; and, by hand, D-nDCG = nDCG (GG = g), I-rec = 1 when a relevant
    document is in the top l, D#-nDCG = (I-rec + D-nDCG) / 2, D-Q = Q."""
    import gzip
    import warnings

    from pyeval.errors import SingleIntentWarning

    con = pyeval.connect()
    runs = sample.run_paths()[:3]
    names = [sample.run_name(p) for p in runs]
    pyeval.load_qrels(con, "adhoc", sample.path("qrels.adhoc.txt.gz"))
    with gzip.open(sample.path("qrels.adhoc.txt.gz"), "rt") as handle:
        rows = [line.split() for line in handle if line.strip()]
    frame = pd.DataFrame([(q, "1", d, int(level)) for q, _, d, level in rows],
                         columns=["query_id", "iteration", "doc_id", "relevance"])
    pyeval.load_qrels(con, "one", frame, format="trec-diversity")
    pyeval.load_intents(con, "one", pd.DataFrame([(q, "1", 1.0, "inf") for q in sorted(frame.query_id.unique())],
                                                 columns=["query_id", "intent_id", "probability", "intent_type"]))
    for campaign in ("adhoc", "one"):
        pyeval.load_runs(con, campaign, runs, names=names)
    measures = NTCIR_FAMILY + ["alpha_nDCG@10", "ERR_IA@20", "NRBP"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingleIntentWarning)
        adhoc = values(con, measures + ["nDCG@10", "Q", "Success@10"], campaign="adhoc")
        one = values(con, measures, campaign="one")
    assert len(one) == len(names) * 50 * len(measures)
    for key, value in one.items():
        assert adhoc[key] == pytest.approx(value, abs=1e-12), key
    for run, topic, measure in one:
        if measure != "D_nDCG@10":
            continue
        got = {m: adhoc[run, topic, m] for m in ("D_nDCG@10", "nDCG@10", "IRec@10", "Success@10", "Dsharp_nDCG@10",
                                                 "D_Q", "Q")}
        assert got["D_nDCG@10"] == pytest.approx(got["nDCG@10"], abs=1e-12), (run, topic, got)
        assert got["IRec@10"] == got["Success@10"], (run, topic, got)
        assert got["Dsharp_nDCG@10"] == pytest.approx((got["IRec@10"] + got["D_nDCG@10"]) / 2, abs=1e-12)
        assert got["D_Q"] == pytest.approx(got["Q"], abs=1e-12), (run, topic, got)
    con.close()


def test_an_ad_hoc_campaign_refuses_an_unknown_probability_variant():
    con = pyeval.connect()
    pyeval.load_qrels(con, "a", pd.DataFrame([("q", "0", "a", 1)],
                                             columns=["query_id", "iteration", "doc_id", "relevance"]))
    pyeval.load_run(con, "a", pd.DataFrame([("q", "a", 1.0)], columns=["query_id", "doc_id", "score"]), name="r")
    with pytest.raises(pyeval.errors.MeasureParamError, match="unknown intent probability variant 'uniform'.*has: given"):
        evaluate(con, "a", ["D_nDCG(probs=uniform)@10"], store=False)
    con.close()


def test_ndeval_and_ntcir_measures_in_one_request(web):
    """ndeval's measures read probs=ndeval (uniform 1/N), which is no stored variant: asked beside
    an NTCIR measure, they are computed, not refused as an unknown variant."""
    both = values(web, ["alpha_nDCG@10", "D_nDCG@10"], campaign="web")
    alone = values(web, ["alpha_nDCG@10"], campaign="web")
    assert {k: v for k, v in both.items() if k[2] == "alpha_nDCG@10"} == alone
