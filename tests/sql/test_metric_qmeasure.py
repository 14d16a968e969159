"""sql/metrics/metric_qmeasure.sql: Q, Q@l, OMeasure, PMeasure, PPlus, RMeasure, APntcir@l.

Oracles:

* NTCIREVAL 190111's own output TRECRUN.test.nev (tests/fixtures/ntcireval): every RR,
  O-measure, P-measure, P-plus, AP, Q-measure, AP@l and Q@l line, printed with %.4f;
* the README sample of NTCIREVAL (sample.rel / sample.res) with the values of
  docs/adhoc-measures.md section 6.1 (gains 1:2:3 and 1:4:9, cutoff 2, condensed list) and its hand
  derivations;
* hand-worked lists from the formulas (docs/adhoc-measures.md sections 3.1, 3.2, 4.1, 4.2; the
  arosh/ireval checks of section 6.4), including truncation and a level with gain 0;
* pyNTCIREVAL 0.0.3 on generated campaigns, per topic to 1e-12 (positive gains only: it counts a
  level with gain 0 as relevant in AP and Q sums, docs/adhoc-measures.md section 3.7 item 7).
"""
from __future__ import annotations

import pytest

import pyeval
from pyeval.measures import make, parse

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

# NTCIREVAL output name -> canonical measure. RR and AP are the existing trec_eval measures:
# NTCIREVAL's RR (first rank with level >= 1) and AP (over the whole list, divided by R) are
# the same numbers, which this oracle checks too.
NEV_NAMES = {
    "RR": "RR",
    "O-measure": "OMeasure",
    "P-measure": "PMeasure",
    "P-plus": "PPlus",
    "AP": "AP",
    "Q-measure": "Q",
    "AP@0010": "APntcir@10",
    "Q@0010": "Q@10",
    "AP@1000": "APntcir@1000",
    "Q@1000": "Q@1000",
}


def test_trecrun_matches_ntcireval_output():
    expected = nev_values()
    got = trecrun_values(list(NEV_NAMES.values()))
    lines = [(topic, name) for topic, name in expected if name in NEV_NAMES]
    assert len(lines) == 30  # 10 metrics x 3 topics
    computed = {(t, n): printed(got[t, canonical(NEV_NAMES[n])]) for t, n in lines}
    assert computed == {line: expected[line] for line in lines}


# ---------------------------------------------------------------------------------------------
# NTCIREVAL's README sample: ideal gains 3,3,3,2,2,2,1,1,1,1 (R = 10); the run is L0, L3,
# unjudged, L2. BR(2) = (3 + 1)/(6 + 2), BR(4) = (5 + 2)/(11 + 4).
SAMPLE_PRINTED = {  # docs/adhoc-measures.md section 6.1, -g 1:2:3 (190111 output)
    "RR": "0.5000", "OMeasure": "0.5000", "PMeasure": "0.5000", "PPlus": "0.5000",
    "AP": "0.1000", "Q": "0.0967", "APntcir@1000": "0.1000", "Q@1000": "0.0967",
    "APntcir@2": "0.2500", "Q@2": "0.2500",
}
BR2, BR4 = 4 / 8, 7 / 15
SAMPLE_EXACT = {
    "OMeasure": BR2, "PMeasure": BR2, "PPlus": BR2 / 1,
    "Q": (BR2 + BR4) / 10, "Q@1000": (BR2 + BR4) / 10, "Q@2": BR2 / 2, "Q@3": BR2 / 3,
    "APntcir@2": (1 / 2) / 2, "APntcir@4": (1 / 2 + 2 / 4) / 4, "APntcir@1000": (1 / 2 + 2 / 4) / 10,
    "Q(beta=0)": (1 / 2 + 2 / 4) / 10,  # beta = 0: BR(r) = C(r)/r, Q = AP
    "Q(beta=0.5)": ((0.5 * 3 + 1) / (0.5 * 6 + 2) + (0.5 * 5 + 2) / (0.5 * 11 + 4)) / 10,
    "RMeasure": (5 + 2) / (19 + 10),  # BR(R): cg(10) = 5, C(10) = 2, cg*(10) = 19
    "PPlus(truncate=3)": BR2, "PMeasure(truncate=1)": 0.0, "Q(truncate=3)": BR2 / 10,
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
    got = per_topic(sample, ["Q(gain=squares)"], "s")
    assert printed(got["sample", "1", "Q(gain=squares)"]) == "0.0929"
    # ideal 9,9,9,4,4,4,1,1,1,1: BR(2) = (9 + 1)/(18 + 2), BR(4) = (13 + 2)/(31 + 4)
    assert got["sample", "1", "Q(gain=squares)"] == pytest.approx((10 / 20 + 15 / 35) / 10, abs=1e-15)


def test_sample_condensed_list(sample):
    # -j: dummy12 (unjudged) removed; L0, L3, L2 at ranks 1..3
    got = per_topic(sample, ["AP", "Q"], "s", judged_only=True)
    assert (printed(got["sample", "1", "AP"]), printed(got["sample", "1", "Q"])) == ("0.1167", "0.1083")
    # BR(2) = (3 + 1)/(6 + 2), BR(3) = (5 + 2)/(9 + 3)
    assert got["sample", "1", "Q"] == pytest.approx((4 / 8 + 7 / 12) / 10, abs=1e-15)


# ---------------------------------------------------------------------------------------------
# arosh/ireval's hand-computed Q (docs/adhoc-measures.md section 6.4): the runs are permutations of the
# judged items; gains in run order q1 [0, 3, 3, 1, 1], q2 [2, 1, 3, 0, 1] (linear gains).
def test_ireval_hand_computed_q(con, write):
    from .helpers import campaign

    con = campaign(write, {"q1": {"a": 0, "b": 3, "c": 3, "d": 1, "e": 1},
                           "q2": {"a": 2, "b": 1, "c": 3, "d": 0, "e": 1}},
                   {"r": {"q1": list("abcde"), "q2": list("abcde")}})
    got = per_topic(con, ["Q"], "t")
    assert got["r", "q1", "Q"] == pytest.approx((4 / 8 + 8 / 10 + 10 / 12 + 12 / 13) / 4, abs=1e-15)
    assert got["r", "q2", "Q"] == pytest.approx((3 / 4 + 5 / 7 + 9 / 9 + 11 / 12) / 4, abs=1e-15)


# JIP 2013's P+ example (docs/adhoc-measures.md section 4.2): L1 at rank 1, L2 at ranks 5 and 10, L3 at
# rank 20, judged non-relevant documents elsewhere; R = 4, ideal gains 3, 2, 2, 1 (cg* 3, 5, 7, 8).
# rp = 20 on the whole list, 5 when the list is truncated at 10.
JIP_QRELS = {"1": {"a": 1, "b": 2, "c": 2, "d": 3, **{f"n{i:02d}": 0 for i in range(1, 17)}},
             "2": {"p": 1, "q": 0},  # judged, missing from the run: 0 everywhere
             "3": {"z": 0}}  # R = 0: 0 everywhere
JIP_RUN = {"1": ["a", "n01", "n02", "n03", "b", "n04", "n05", "n06", "n07", "c",
                 "n08", "n09", "n10", "n11", "n12", "n13", "n14", "n15", "n16", "d"],
           "3": ["z"]}
BR1, BR5, BR10, BR20 = 2 / 4, 5 / 13, 8 / 18, 12 / 28
JIP = {
    "OMeasure": BR1,
    "PMeasure": BR20,
    "PPlus": (BR1 + BR5 + BR10 + BR20) / 4,
    "PMeasure(truncate=10)": BR5,
    "PPlus(truncate=10)": (BR1 + BR5) / 2,
    "OMeasure(truncate=1)": BR1,
    "Q": (BR1 + BR5 + BR10 + BR20) / 4,
    "Q(truncate=10)": (BR1 + BR5 + BR10) / 4,
    "Q@10": (BR1 + BR5 + BR10) / 4,  # min(10, R) = 4
    "Q@3": BR1 / 3,  # min(3, R) = 3
    "Q(beta=0)": (1 / 1 + 2 / 5 + 3 / 10 + 4 / 20) / 4,
    "APntcir@5": (1 / 1 + 2 / 5) / 4,
    "APntcir@3": (1 / 1) / 3,
    "RMeasure": (1 + 1) / (8 + 4),  # cg(4) = 1, C(4) = 1
    "RMeasure(beta=2)": (2 * 1 + 1) / (2 * 8 + 4),
}


@pytest.fixture
def jip(con, write):
    from .helpers import campaign

    return campaign(write, JIP_QRELS, {"r": JIP_RUN})


def test_hand_worked_truncation_and_preferred_rank(jip):
    got = per_topic(jip, list(JIP), "t")
    for measure, expected in JIP.items():
        assert got["r", "1", canonical(measure)] == pytest.approx(expected, abs=1e-15), measure
        assert got["r", "2", canonical(measure)] == 0.0, measure
        assert got["r", "3", canonical(measure)] == 0.0, measure


def test_a_level_with_gain_zero_counts_in_c_but_adds_nothing(jip):
    # NTCIREVAL -g 0:2:3: the L1 document at rank 1 is relevant (C(1) = 1, r1 = 1) but its gain is
    # 0, so the sums skip it; the ideal gains are 3, 2, 2, 0 (cg* 3, 5, 7, 7)
    pyeval.define_gain_profile(jip, "t", "z", "0:2:3")
    br5, br10, br20 = (2 + 2) / (7 + 5), (4 + 3) / (7 + 10), (7 + 4) / (7 + 20)
    expected = {
        "OMeasure(gain=z)": (0 + 1) / (3 + 1),
        "Q(gain=z)": (br5 + br10 + br20) / 4,
        "APntcir(gain=z)@10": (2 / 5 + 3 / 10) / 4,
        "PPlus(gain=z)": (br5 + br10 + br20) / 4,
        "PPlus(gain=z, truncate=10)": br5 / 2,
        "RMeasure(gain=z)": (0 + 1) / (7 + 4),
    }
    got = per_topic(jip, list(expected), "t")
    for measure, value in expected.items():
        assert got["r", "1", canonical(measure)] == pytest.approx(value, abs=1e-15), measure


def test_q_equals_one_iff_ideal(con, write):
    # Sakai AIRS 2005: Q = 1 iff the output (L >= R) is an ideal list; R-measure = 1 iff the top R
    # documents hold the ideal gain (any order of them)
    from .helpers import campaign

    qrels = {"1": {"a": 3, "b": 2, "c": 2, "d": 1, "e": 0}}
    con = campaign(write, qrels, {"ideal": {"1": ["a", "c", "b", "d", "e"]},
                                  "swap": {"1": ["a", "d", "b", "c", "e"]},
                                  "late": {"1": ["a", "c", "b", "e", "d"]}})
    got = per_topic(con, ["Q", "RMeasure", "PPlus", "Q(gain=exp)"], "t")
    assert got["ideal", "1", "Q"] == 1.0 and got["ideal", "1", "RMeasure"] == 1.0
    assert got["ideal", "1", "Q(gain=exp)"] == 1.0 and got["ideal", "1", "PPlus"] == 1.0
    assert got["swap", "1", "Q"] < 1.0 and got["swap", "1", "RMeasure"] == 1.0
    assert got["late", "1", "Q"] < 1.0 and got["late", "1", "RMeasure"] < 1.0


def test_binary_rmeasure_is_rprec_and_q_beta_zero_is_ap(con, write):
    generated_campaign(write, con, seed=7, max_level=1)
    got = per_topic(con, ["RMeasure", "Rprec", "Q(beta=0)", "AP", "APntcir@1000", "AP@1000"], "g")
    keys = {(run, topic) for run, topic, _ in got}
    for run, topic in keys:
        assert got[run, topic, "RMeasure"] == pytest.approx(got[run, topic, "Rprec"], abs=1e-15)
        assert got[run, topic, canonical("Q(beta=0)")] == pytest.approx(got[run, topic, "AP"], abs=1e-15)
        # l >= R: min(l, R) = R, so NTCIREVAL's AP@l is trec_eval's
        assert got[run, topic, "APntcir@1000"] == pytest.approx(got[run, topic, "AP@1000"], abs=1e-15)


# ---------------------------------------------------------------------------------------------
# pyNTCIREVAL 0.0.3 on generated campaigns (graded, unjudged documents, truncation).
def _pyntcireval_values(qrels, docs, grades, truncate=None):
    metrics = pytest.importorskip("pyNTCIREVAL.metrics")
    labelled, xrelnum = pyntcireval_inputs(qrels, docs, len(grades), truncate)
    values = {
        "OMeasure": metrics.OMeasure(xrelnum, grades, 1.0),
        "PMeasure": metrics.PMeasure(xrelnum, grades, 1.0),
        "PPlus": metrics.PPlusMeasure(xrelnum, grades, 1.0),
        "Q": metrics.QMeasure(xrelnum, grades, 1.0),
        "Q(beta=0.3)": metrics.QMeasure(xrelnum, grades, 0.3),
        "PPlus(beta=2.5)": metrics.PPlusMeasure(xrelnum, grades, 2.5),
        "Q@5": metrics.QMeasure(xrelnum, grades, 1.0, cutoff=5),
        "Q@20": metrics.QMeasure(xrelnum, grades, 1.0, cutoff=20),
        "APntcir@5": metrics.AP(xrelnum, grades, cutoff=5),
        "APntcir@20": metrics.AP(xrelnum, grades, cutoff=20),
        "AP": metrics.AP(xrelnum, grades),
        "RR": metrics.RR(),
    }
    return {name: metric.compute(labelled) for name, metric in values.items()}


def _with(name: str, **params) -> str:
    """The canonical name of ``name`` with the parameters it declares among ``params``."""
    measure = parse(name)
    values = dict(measure.values)
    return str(make(measure.definition, **values | {k: v for k, v in params.items() if k in values}))


@pytest.mark.parametrize(("profile", "grades", "truncate"), [
    ("linear", [1, 2, 3], None),
    ("cubes", [1, 3, 7], None),
    ("linear", [1, 2, 3], 12),
])
def test_generated_campaigns_equal_pyntcireval(con, write, profile, grades, truncate):
    pytest.importorskip("pyNTCIREVAL")
    runs, qrels = generated_campaign(write, con, seed=len(grades) * 31 + (truncate or 0) + len(profile))
    if profile != "linear":
        pyeval.define_gain_profile(con, "g", profile, ":".join(map(str, grades)))
    names = list(_pyntcireval_values({"x": 1}, ["x"], grades))
    truncatable = {"OMeasure", "PMeasure", "PPlus", "Q", "Q(beta=0.3)", "PPlus(beta=2.5)"}
    measures = {}
    for name in names:
        if name in ("AP", "RR"):
            if truncate is None and profile == "linear":
                measures[name] = name  # NTCIREVAL's AP and RR are the trec_eval ones
            continue
        if truncate is not None and name not in truncatable:
            continue
        params = {"gain": profile} | ({"truncate": truncate} if truncate else {})
        measures[name] = _with(name, **params)
    got = per_topic(con, list(measures.values()), "g")
    mismatches = []
    for run, topics in runs.items():
        for topic, docs in topics.items():
            expected = _pyntcireval_values(qrels[topic], docs, grades, truncate)
            for name, measure in measures.items():
                if abs(got[run, topic, measure] - expected[name]) > 1e-12:
                    mismatches.append((run, topic, measure, got[run, topic, measure], expected[name]))
    assert mismatches == []
    assert sum(value > 0 for value in got.values()) > len(got) / 2  # not a test of zeros
