"""Diversity measures against NTCIREVAL's README.diversity example (docs/diversity-measures.md section
11.1): TRECRUN in file order on Dtest.Dqrels with Dtest.DINprob's probabilities and types, l = 10,
gamma = 0.5, per-intent gains = level. Every value to 4 decimals."""
from __future__ import annotations

import pandas as pd
import pytest

import pyeval
from pyeval.diversity.campaigns import load_intent_variant
from pyeval.core.evaluation import evaluate

from ..conftest import FIXTURES

NTCIR = FIXTURES / "ntcireval"

#: topic 0001 (README.diversity's D-NTCIR-eval and DIN-NTCIR-eval output at l = 10)
TOPIC_1_AT_10 = {
    "IRec@10": 0.6667,
    "D_Q@10": 0.1263,
    "D_nDCG@10": 0.2085,
    "Dsharp_Q@10": 0.3965,
    "Dsharp_nDCG@10": 0.4376,
    "DIN_Q@10": 0.0627,
    "DIN_nDCG@10": 0.1117,
    "DINsharp_Q@10": 0.3647,
    "DINsharp_nDCG@10": 0.3892,
}
#: topic 0001, D-measures on the untruncated list (r1 = 3)
TOPIC_1_UNTRUNCATED = {
    "D_RR": 1 / 3,
    "D_OMeasure": 0.2941,
    "D_PMeasure": 0.1287,
    "D_PPlus": 0.1617,
    "D_AP": 0.0919,
    "D_Q": 0.0989,
    "D_ERR": 0.1646,
    "D_EBR": 0.3130,
}
#: topic 0002, intent-aware (D-NTCIR-IAeval at l = 10: intents 3 and 4 have relevant documents)
TOPIC_2_IA = {"IA_ERR@10": 0.0167, "IA_nERR@10": 0.0241, "IA_nDCG@10": 0.0116}
#: topic 0002, intent 4 alone (jrel = 7, r1 = 2), the list truncated at 10 as D-NTCIR-IAeval
#: computes every per-intent value (AP@10 divides by R, as NTCIREVAL's truncated AP)
INTENT_4 = {
    "IA_AP(probs=only4)@10": 0.0714,
    "IA_RR(probs=only4)": 0.5,
    "IA_JKnDCG(probs=only4)@10": 0.2323,
    "IA_nDCG(probs=only4)@10": 0.1734,
    "IA_ERR(probs=only4)@10": 0.2500,
    "IA_nERR(probs=only4)@10": 0.3611,
}


@pytest.fixture(scope="module")
def dtest():
    con = pyeval.connect()
    pyeval.load_qrels(con, "d", NTCIR / "Dtest.Dqrels")
    pyeval.load_intents(con, "d", NTCIR / "Dtest.DINprob")
    pyeval.load_run(con, "d", NTCIR / "TRECRUN", name="TRECRUN")
    intents = con.execute("select topic_id as query_id, intent_id, 0.0 as prob from intents "
                          "where campaign_id = 'd'").df()
    intents.loc[(intents.query_id == "0002") & (intents.intent_id == "4"), "prob"] = 1.0
    load_intent_variant(con, "d", "only4", intents)
    yield con
    con.close()


def _values(con, measures, **settings):
    result = evaluate(con, "d", measures, ordering="file", store=False, **settings)
    return {(r.topic_id, r.measure): r.value for r in result.per_topic.itertuples()}


def test_topic_1_at_cutoff_10(dtest):
    values = _values(dtest, list(TOPIC_1_AT_10))
    for measure, expected in TOPIC_1_AT_10.items():
        assert round(values["0001", measure], 4) == expected, measure


def test_sharp_from_the_printed_parts(dtest):
    """NTCIREVAL forms D# from the 4-decimal I-rec and D-nDCG: 0.5 * 0.6667 + 0.5 * 0.2085."""
    values = _values(dtest, ["Dsharp_nDCG(ntcireval=True)@10", "DINsharp_Q(ntcireval=True)@10"])
    assert values["0001", "Dsharp_nDCG(ntcireval=True)@10"] == pytest.approx(0.5 * 0.6667 + 0.5 * 0.2085)
    assert round(values["0001", "DINsharp_Q(ntcireval=True)@10"], 4) == 0.3647


def test_topic_1_untruncated(dtest):
    values = _values(dtest, list(TOPIC_1_UNTRUNCATED))
    for measure, expected in TOPIC_1_UNTRUNCATED.items():
        assert round(values["0001", measure], 4) == round(expected, 4), measure


def test_topic_1_rp_is_424_untruncated_and_3_truncated(dtest):
    """P-measure is BR(rp): truncating at 10 moves rp from 424 to 3, where D_PMeasure equals
    D_OMeasure (r1 = 3)."""
    truncated = _values(dtest, ["D_PMeasure(truncate=10)", "D_OMeasure"])
    assert truncated["0001", "D_PMeasure(truncate=10)"] == pytest.approx(truncated["0001", "D_OMeasure"])


def test_topic_2_intent_aware(dtest):
    values = _values(dtest, list(TOPIC_2_IA))
    for measure, expected in TOPIC_2_IA.items():
        assert round(values["0002", measure], 4) == expected, measure
    sump = dtest.execute("select sum(probability) from intents where campaign_id = 'd' and topic_id = '0002' "
                         "and intent_id in (select intent_id from qrels where campaign_id = 'd' "
                         "and topic_id = '0002' and level >= 1)").fetchone()[0]
    assert round(sump, 4) == 0.2000


def test_topic_2_intent_4_alone(dtest):
    values = _values(dtest, list(INTENT_4))
    for measure, expected in INTENT_4.items():
        assert round(values["0002", measure], 4) == expected, measure
    jrel = dtest.execute("select count(*) from qrels where campaign_id = 'd' and topic_id = '0002' "
                         "and intent_id = '4' and level >= 1").fetchone()[0]
    assert jrel == 7


def test_irec_counts_intents_with_relevant_documents(dtest):
    """Topic 0002 lists 4 intents, but only 3 and 4 have relevant documents: n+ = 2."""
    values = _values(dtest, ["IRec@10", "IRec(irec_denom=listed)@10", "IRec@1000"])
    assert values["0002", "IRec@10"] == pytest.approx(2 * values["0002", "IRec(irec_denom=listed)@10"])
    assert values["0002", "IRec@1000"] == 1.0


def test_scores_are_stored_like_all_others(dtest):
    result = evaluate(dtest, "d", ["Dsharp_nDCG@10", "IA_nERR@10"], ordering="file")
    stored = dtest.execute("select measure, count(*) from scores where campaign_id = 'd' group by measure "
                           "order by measure").fetchall()
    assert stored == [("Dsharp_nDCG@10", 3), ("IA_nERR@10", 3)]
    assert set(result.means.measure) == {"Dsharp_nDCG@10", "IA_nERR@10"}
    families = dict(dtest.execute("select measure, family from evaluation_measures").fetchall())
    assert families == {"Dsharp_nDCG@10": "sharp", "IA_nERR@10": "intent_average"}
