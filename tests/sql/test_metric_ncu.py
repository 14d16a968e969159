"""sql/metrics/metric_ncu.sql: NCU(stop, util) and NCU(stop=rb)@l.

Oracles: NTCIREVAL 190111's TRECRUN.test.nev (NCUgu,P, NCUgu,BR, NCUrb,P, NCUrb,BR lines), the
README sample values of docs/adhoc-measures.md section 6.1 and their hand derivations, hand-worked
lists for the 2020 forms (NCUrb,IE and NCUrb,*@l, section 3.2: a perfect list scores
sum_{k<=m} gamma^(k-1)/m at l, m = min(l, R)), and pyNTCIREVAL 0.0.3 (NCUguP, NCUguBR, NCUrbP,
NCUrbBR) on generated campaigns, per topic to 1e-12.
"""
from __future__ import annotations

import pytest

import pyeval
from pyeval.errors import MeasureParamError
from pyeval.measures import parse

from .helpers import campaign
from .ntcireval_cases import (
    canonical,
    generated_campaign,
    nev_values,
    per_topic,
    printed,
    pyntcireval_inputs,
    sample_campaign,
    trecrun_values,
)

NEV_NAMES = {"NCUgu,P": "NCUguP", "NCUgu,BR": "NCUguBR", "NCUrb,P": "NCUrbP", "NCUrb,BR": "NCUrbBR"}


def test_aliases_are_the_ntcireval_combinations():
    assert {alias: canonical(alias) for alias in [*NEV_NAMES.values(), "NCUrbIE"]} == {
        "NCUguP": "NCU(stop=gu, util=P)",
        "NCUguBR": "NCU(stop=gu)",
        "NCUrbP": "NCU(util=P)",
        "NCUrbBR": "NCU",
        "NCUrbIE": "NCU(util=IE)",
    }


def test_trecrun_matches_ntcireval_output():
    expected = nev_values()
    got = trecrun_values(list(NEV_NAMES.values()))
    lines = [(topic, name) for topic, name in expected if name in NEV_NAMES]
    assert len(lines) == 12
    computed = {(t, n): printed(got[t, canonical(NEV_NAMES[n])]) for t, n in lines}
    assert computed == {line: expected[line] for line in lines}


def test_binary_graded_uniform_ncu_is_ap_and_q():
    # one relevance level: the stop values are all 1, so NCUgu,P = AP and NCUgu,BR = Q
    got = trecrun_values(["NCUguP", "AP", "NCUguBR", "Q"])
    for topic in ("0001", "0002", "0003"):
        assert got[topic, "NCU(stop=gu, util=P)"] == pytest.approx(got[topic, "AP"], abs=1e-15)
        assert got[topic, "NCU(stop=gu)"] == pytest.approx(got[topic, "Q"], abs=1e-15)


# NTCIREVAL's README sample: relevant at rank 2 (L3, C = 1, BR = 4/8) and rank 4 (L2, C = 2,
# BR = 7/15); R = 10 with R_3 = R_2 = 3, R_1 = 4, so sum_x R_x g_x = 19.
RB = sum(0.95**k for k in range(10))
SAMPLE_PRINTED = {"NCUguP": "0.1316", "NCUguBR": "0.1281", "NCUrbP": "0.1215", "NCUrbBR": "0.1175"}
SAMPLE_EXACT = {
    "NCUguP": (1 / 2 * 3 + 2 / 4 * 2) / 19,
    "NCUguBR": (4 / 8 * 3 + 7 / 15 * 2) / 19,
    "NCUrbP": (1 / 2 + 2 / 4 * 0.95) / RB,
    "NCUrbBR": (4 / 8 + 7 / 15 * 0.95) / RB,
    "NCUrbIE": (0.99**2 + 0.99**4 * 0.95) / RB,
    "NCU(util=IE, u=0.5)": (0.5**2 + 0.5**4 * 0.95) / RB,
    "NCU(gamma=0.5)": (4 / 8 + 7 / 15 * 0.5) / sum(0.5**k for k in range(10)),
    "NCU(beta=0.5, stop=gu)": ((0.5 * 3 + 1) / (0.5 * 6 + 2) * 3 + (0.5 * 5 + 2) / (0.5 * 11 + 4) * 2) / 19,
    "NCU@3": (4 / 8) / 3,
    "NCU@4": (4 / 8 + 7 / 15 * 0.95) / 4,
    "NCU(util=IE)@20": (0.99**2 + 0.99**4 * 0.95) / 10,
}


@pytest.fixture
def sample(con, write):
    return sample_campaign(write, con)


def test_sample_printed_values(sample):
    got = per_topic(sample, list(SAMPLE_PRINTED), "s")
    assert {m: printed(got["sample", "1", canonical(m)]) for m in SAMPLE_PRINTED} == SAMPLE_PRINTED


def test_sample_hand_derivations(sample):
    got = per_topic(sample, list(SAMPLE_EXACT), "s")
    for measure, expected in SAMPLE_EXACT.items():
        assert got["sample", "1", canonical(measure)] == pytest.approx(expected, abs=1e-15), measure


def test_sample_with_gains_1_4_9(sample):
    pyeval.define_gain_profile(sample, "s", "squares", "1:4:9")
    got = per_topic(sample, ["NCUguP(gain=squares)"], "s")
    value = got["sample", "1", "NCU(gain=squares, stop=gu, util=P)"]
    assert printed(value) == "0.1512"
    assert value == pytest.approx((1 / 2 * 9 + 2 / 4 * 4) / (3 * 9 + 3 * 4 + 4 * 1), abs=1e-15)


def test_perfect_list_at_a_cutoff_scores_below_one(con, write):
    # R = 12, all retrieved first: U(r) = 1 for P and BR, so NCU = 1 and NCU@10 =
    # sum_{k<=10} 0.95^(k-1) / 10 = 0.8025 (docs/adhoc-measures.md section 3.2)
    qrels = {"1": {f"r{i:02d}": 1 for i in range(12)} | {"n": 0}, "2": {"p": 1}, "3": {"z": 0}}
    con = campaign(write, qrels, {"perfect": {"1": [f"r{i:02d}" for i in range(12)] + ["n"], "3": ["z"]}})
    measures = ["NCU", "NCUrbP", "NCU@10", "NCUrbP@10", "NCU@12", "NCU@100", "NCUrbIE", "NCUrbIE@10"]
    got = per_topic(con, measures, "t")
    at_10 = sum(0.95**k for k in range(10)) / 10
    assert printed(at_10) == "0.8025"
    expected = {
        "NCU": 1.0, "NCUrbP": 1.0, "NCU@10": at_10, "NCUrbP@10": at_10,
        "NCU@12": sum(0.95**k for k in range(12)) / 12, "NCU@100": sum(0.95**k for k in range(12)) / 12,
        "NCUrbIE": sum(0.99 ** (k + 1) * 0.95**k for k in range(12)) / sum(0.95**k for k in range(12)),
        "NCUrbIE@10": sum(0.99 ** (k + 1) * 0.95**k for k in range(10)) / 10,
    }
    for measure, value in expected.items():
        assert got["perfect", "1", canonical(measure)] == pytest.approx(value, abs=1e-15), measure
        assert got["perfect", "2", canonical(measure)] == 0.0  # topic the run lacks
        assert got["perfect", "3", canonical(measure)] == 0.0  # R = 0


@pytest.mark.parametrize("measure", ["NCU(stop=gu, util=IE)", "NCU(stop=gu)@10", "NCUguP@10"])
def test_combinations_ntcireval_lacks_are_refused(measure):
    with pytest.raises(MeasureParamError, match="NTCIREVAL has no NCUgu"):
        parse(measure)


def _pyntcireval_values(qrels, docs, grades, gamma, beta):
    metrics = pytest.importorskip("pyNTCIREVAL.metrics")
    labelled, xrelnum = pyntcireval_inputs(qrels, docs, len(grades))
    values = {
        "NCUguP": metrics.NCUguP(xrelnum, grades, grades),
        "NCUguBR": metrics.NCUguBR(xrelnum, grades, grades, beta),
        "NCUrbP": metrics.NCUrbP(xrelnum, grades, gamma),
        "NCUrbBR": metrics.NCUrbBR(xrelnum, grades, gamma, beta),
    }
    return {name: metric.compute(labelled) for name, metric in values.items()}


@pytest.mark.parametrize(("profile", "grades", "gamma", "beta"), [
    ("linear", [1, 2, 3], 0.95, 1.0),
    ("cubes", [1, 3, 7], 0.8, 0.5),
])
def test_generated_campaigns_equal_pyntcireval(con, write, profile, grades, gamma, beta):
    pytest.importorskip("pyNTCIREVAL")
    runs, qrels = generated_campaign(write, con, seed=int(gamma * 100))
    if profile != "linear":
        pyeval.define_gain_profile(con, "g", profile, ":".join(map(str, grades)))
    measures = {
        "NCUguP": f"NCU(gain={profile}, stop=gu, util=P)",
        "NCUguBR": f"NCU(beta={beta}, gain={profile}, stop=gu)",
        "NCUrbP": f"NCU(gain={profile}, gamma={gamma}, util=P)",
        "NCUrbBR": f"NCU(beta={beta}, gain={profile}, gamma={gamma})",
    }
    measures = {name: canonical(measure) for name, measure in measures.items()}
    got = per_topic(con, list(measures.values()), "g")
    mismatches = []
    for run, topics in runs.items():
        for topic, docs in topics.items():
            expected = _pyntcireval_values(qrels[topic], docs, grades, gamma, beta)
            for name, measure in measures.items():
                if abs(got[run, topic, measure] - expected[name]) > 1e-12:
                    mismatches.append((run, topic, measure, got[run, topic, measure], expected[name]))
    assert mismatches == []
    assert sum(value > 0 for value in got.values()) > len(got) / 2
