"""The ntcir_dcg family (sql/metrics/metric_ntcir_dcg.sql): JKnDCG@l, nCG@l, AnCG@l, AnDCG@l,
and the aliases MSnDCG (= nDCG) and PDoc (= P).

Oracles: NTCIREVAL 190111's README sample values and TRECRUN.test.nev (docs/adhoc-measures.md
sections 6.1 and 6.2, printed with %.4f); pyNTCIREVAL 0.0.3 (nDCG with -logb, MSnDCG) on
generated campaigns to 1e-12; the hand-computed checks of docs/adhoc-measures.md section 6.4 (arosh/
ireval, pyNTCIREVAL's own tests); the properties Sakai's AIRS 2005 paper states (nCG freezes
after R; an ideal list scores 1); hand computations for the carry-forward, b = 0 and b = 3.
NTCIREVAL reads runs in file order: evaluations use ``ordering='file'``.
"""
from __future__ import annotations

import math

import pytest
from pyNTCIREVAL.metrics import MSnDCG, nDCG

import pyeval
from pyeval.errors import MeasureParamError
from pyeval.core.gains import define_gain_profile
from pyeval.measures import parse

from .helpers import campaign, values
from .ntcireval_cases import (
    canonical,
    generated_campaign,
    nev_values,
    per_topic,
    pyntcireval_inputs,
    sample_campaign,
    trecrun_values,
)


def lg(x: float) -> float:
    return math.log2(x)


@pytest.fixture
def sample(write):
    con = pyeval.connect()
    sample_campaign(write, con)
    yield con
    con.close()


def test_names_and_aliases():
    assert str(parse("JKnDCG@10")) == "JKnDCG@10"
    assert str(parse("JKnDCG(b=2)@10")) == "JKnDCG@10"
    assert str(parse("JKnDCG(b=3, gain=exp)@10")) == "JKnDCG(b=3, gain=exp)@10"
    assert str(parse("AnDCG(b=2)@5")) == "AnDCG@5"
    # MSnDCG is nDCG: the same formula, one canonical name; PDoc (AIRS 2005) is P
    assert parse("MSnDCG(gain=exp)@10") == parse("nDCG(gain=exp)@10")
    assert str(parse("PDoc@10")) == "P@10"
    assert str(parse("Hit@10")) == "Success@10"
    for name in ("nCG", "AnCG", "AnDCG"):
        with pytest.raises(MeasureParamError, match="needs cutoff"):
            parse(name)
    with pytest.raises(MeasureParamError, match="log base"):
        parse("JKnDCG(b=1)@10")


def test_readme_sample(sample):
    """docs/adhoc-measures.md 6.1, -g 1:2:3 (linear gains): nDCG@1000 0.3380, MSnDCG@1000 0.2760,
    and with --cutoffs 2: nDCG@2 0.5, MSnDCG@2 0.3869."""
    got = per_topic(sample, ["JKnDCG@1000", "MSnDCG@1000", "JKnDCG@2", "MSnDCG@2", "PDoc@1000", "PDoc@2"], "s")
    printed = {measure: "%.4f" % value for (_, _, measure), value in got.items()}
    assert printed == {
        "JKnDCG@1000": "0.3380", "nDCG@1000": "0.2760", "JKnDCG@2": "0.5000", "nDCG@2": "0.3869",
        "P@1000": "0.0020", "P@2": "0.5000",
    }
    # the README's derivation: (3/1 + 2/log2 4) / IDCG, ideal 3,3,3,2,2,2,1,1,1,1
    ideal = [3, 3, 3, 2, 2, 2, 1, 1, 1, 1]
    idcg = sum(g / (lg(r) if r > 2 else 1) for r, g in enumerate(ideal, start=1))
    assert got["sample", "1", "JKnDCG@1000"] == pytest.approx((3 + 2 / lg(4)) / idcg, abs=1e-15)


def test_readme_sample_other_gains_and_condensed(sample):
    """-g 1:4:9: nDCG@1000 0.3636, MSnDCG@1000 0.2947; -j (judged_only): 0.3601, 0.2899."""
    define_gain_profile(sample, "s", "g149", "1:4:9")
    got = per_topic(sample, ["JKnDCG(gain=g149)@1000", "MSnDCG(gain=g149)@1000"], "s")
    assert "%.4f" % got["sample", "1", "JKnDCG(gain=g149)@1000"] == "0.3636"
    assert "%.4f" % got["sample", "1", "nDCG(gain=g149)@1000"] == "0.2947"
    condensed = per_topic(sample, ["JKnDCG@1000", "MSnDCG@1000"], "s", judged_only=True)
    assert "%.4f" % condensed["sample", "1", "JKnDCG@1000"] == "0.3601"
    assert "%.4f" % condensed["sample", "1", "nDCG@1000"] == "0.2899"


#: TRECRUN.test.nev (-g 1:2 -cutoffs 10,1000) name -> pyeval measure, for this family and its
#: aliases. The qrels are binary (L1), so the gains of -g 1:2 and the linear profile agree.
TRECRUN_NAMES = {
    f"{name}@{k:04d}": measure.format(k=k)
    for k in (10, 1000)
    for name, measure in {
        "nDCG": "JKnDCG@{k}", "MSnDCG": "MSnDCG@{k}", "P": "PDoc@{k}", "Hit": "Hit@{k}",
    }.items()
}


def test_trecrun_nev():
    got = trecrun_values(list(TRECRUN_NAMES.values()))
    expected = nev_values()
    checked = 0
    for (topic, name), text in expected.items():
        if name in TRECRUN_NAMES:
            assert "%.4f" % got[topic, canonical(TRECRUN_NAMES[name])] == text, (topic, name)
            checked += 1
    assert checked == 3 * len(TRECRUN_NAMES)


def test_msndcg_equals_ndcg_with_gains_to_the_cutoff(write):
    """docs/adhoc-measures.md 6.4 (arosh/ireval, hand-computed): q1 gains in run order [0,3,3,1,1],
    q2 [2,1,3,0,1]; runs are permutations of the judged documents."""
    qrels = {
        "1": {"a": 0, "b": 3, "c": 3, "d": 1, "e": 1},
        "2": {"a": 2, "b": 1, "c": 3, "d": 0, "e": 1},
    }
    con = campaign(write, qrels, {"run": {"1": list("abcde"), "2": list("abcde")}})
    got = values(con, ["MSnDCG@5", "MSnDCG@3"])
    assert got["run", "1", "nDCG@5"] == pytest.approx(4.210318626 / 5.823465819, abs=1e-9)
    assert got["run", "2", "nDCG@5"] == pytest.approx(4.517782561 / 5.192536065, abs=1e-9)
    assert got["run", "1", "nDCG@3"] == pytest.approx(3.392789261 / 5.392789261, abs=1e-9)
    assert got["run", "2", "nDCG@3"] == pytest.approx(4.130929754 / 4.761859507, abs=1e-9)


def test_pyntcireval_own_msndcg_cases(write):
    """pyNTCIREVAL's tests: qrels {0:2, 2:1, 4:1, 7:2} (others 0), run 0..9: MSnDCG@5 is
    0.6885695823073614 with gains (1, 2) and 0.6131471927654584 with gains (0, 1)."""
    levels = {0: 2, 2: 1, 4: 1, 7: 2}
    con = campaign(write, {"1": {f"d{i}": levels.get(i, 0) for i in range(10)}},
                   {"run": {"1": [f"d{i}" for i in range(10)]}})
    define_gain_profile(con, "t", "g01", "0:1")
    got = values(con, ["MSnDCG@5", "MSnDCG(gain=g01)@5"])
    assert got["run", "1", "nDCG@5"] == pytest.approx(0.6885695823073614, abs=1e-15)
    assert got["run", "1", "nDCG(gain=g01)@5"] == pytest.approx(0.6131471927654584, abs=1e-15)


@pytest.mark.parametrize("seed", [11, 12])
def test_generated_campaigns_match_pyntcireval(write, seed):
    """JKnDCG (b = 2 and 3, gains 1:2:3 and 1:3:7) and MSnDCG at cutoffs below, at and beyond
    the list lengths, per topic to 1e-12. Unjudged documents occupy ranks; file order."""
    con = pyeval.connect()
    runs, qrels = generated_campaign(write, con, seed)
    profiles = {"linear": [1, 2, 3], "exp": [1, 3, 7]}
    cutoffs = (1, 5, 10, 40, 1000)
    names = {
        (kind, profile, b, k): canonical(
            f"JKnDCG(gain={profile}, b={b})@{k}" if kind == "JK" else f"MSnDCG(gain={profile})@{k}"
        )
        for profile in profiles
        for k in cutoffs
        for kind, b in (("JK", 2), ("JK", 3), ("MS", None))
    }
    got = per_topic(con, list(dict.fromkeys(names.values())), "g")
    checked = 0
    for run, topics in runs.items():
        for topic, docs in topics.items():
            labelled, xrelnum = pyntcireval_inputs(qrels[topic], docs, 3)
            for (kind, profile, b, k), measure in names.items():
                grades = profiles[profile]
                metric = nDCG(xrelnum, grades, b, k) if kind == "JK" else MSnDCG(xrelnum, grades, k)
                assert got[run, topic, measure] == pytest.approx(metric.compute(labelled), abs=1e-12)
                checked += 1
    assert checked == 2 * 30 * len(names)
    con.close()


#: one topic: levels by rank L0, L3, unjudged, L2 (sample.res) with ideal 3,3,3,2,2,2,1,1,1,1
def test_cumulative_gain_measures_by_hand(sample):
    got = per_topic(sample, ["nCG@1", "nCG@2", "nCG@4", "nCG@10", "nCG@20", "AnCG@4", "AnCG@12",
                             "AnDCG@4", "AnDCG@12", "JKnDCG@12"], "s")
    ideal = [3, 3, 3, 2, 2, 2, 1, 1, 1, 1]
    run = [0, 3, 0, 2]
    cg = [sum(run[:r]) for r in range(1, 13)]
    icg = [sum(ideal[:r]) for r in range(1, 13)]
    disc = [1 if r <= 2 else lg(r) for r in range(1, 13)]
    dcg = [sum(g / d for g, d in zip(run[:r], disc)) for r in range(1, 13)]
    idcg = [sum(g / d for g, d in zip(ideal[:r], disc)) for r in range(1, 13)]
    assert got["sample", "1", "nCG@1"] == 0.0
    assert got["sample", "1", "nCG@2"] == pytest.approx(3 / 6, abs=1e-15)
    assert got["sample", "1", "nCG@4"] == pytest.approx(5 / 11, abs=1e-15)
    assert got["sample", "1", "nCG@10"] == pytest.approx(5 / 19, abs=1e-15)
    assert got["sample", "1", "nCG@20"] == pytest.approx(5 / 19, abs=1e-15)  # frozen after R
    assert got["sample", "1", "AnCG@4"] == pytest.approx(sum(c / i for c, i in zip(cg[:4], icg)) / 4, abs=1e-15)
    # past L (4) and past R (10) the ratios carry forward
    assert got["sample", "1", "AnCG@12"] == pytest.approx(sum(c / i for c, i in zip(cg, icg)) / 12, abs=1e-15)
    assert got["sample", "1", "AnDCG@4"] == pytest.approx(sum(d / i for d, i in zip(dcg[:4], idcg)) / 4, abs=1e-15)
    assert got["sample", "1", "AnDCG@12"] == pytest.approx(sum(d / i for d, i in zip(dcg, idcg)) / 12, abs=1e-15)
    assert got["sample", "1", "JKnDCG@12"] == pytest.approx(dcg[-1] / idcg[-1], abs=1e-15)


def test_log_bases_by_hand(sample):
    """b = 3: ranks 1..3 undiscounted; b = 0 (NTCIREVAL -logb 0): natural log from rank 2, so
    rank 2 is divided by ln 2 (the C program; pyNTCIREVAL leaves rank 2 undiscounted)."""
    got = per_topic(sample, ["JKnDCG(b=3)@4", "JKnDCG(b=0)@4", "AnDCG(b=0)@2"], "s")
    assert got["sample", "1", "JKnDCG(b=3)@4"] == pytest.approx(
        (3 + 2 / math.log(4, 3)) / (3 + 3 + 3 + 2 / math.log(4, 3)), abs=1e-15
    )
    ln = math.log
    assert got["sample", "1", "JKnDCG(b=0)@4"] == pytest.approx(
        (3 / ln(2) + 2 / ln(4)) / (3 + 3 / ln(2) + 3 / ln(3) + 2 / ln(4)), abs=1e-15
    )
    assert got["sample", "1", "AnDCG(b=0)@2"] == pytest.approx(
        (0 + (3 / ln(2)) / (3 + 3 / ln(2))) / 2, abs=1e-15
    )


def test_ncg_freezes_after_r(write):
    """AIRS 2005: R = R(B) = 5; one relevant document at rank 5 or at rank 1000 gives
    nCG_1000 = 1/5 either way."""
    qrels = {"1": {f"r{i}": 1 for i in range(5)} | {f"n{i}": 0 for i in range(999)}}
    early = [f"n{i}" for i in range(4)] + ["r0"] + [f"n{i}" for i in range(4, 999)]
    late = [f"n{i}" for i in range(999)] + ["r0"]
    con = campaign(write, qrels, {"early": {"1": early}, "late": {"1": late}})
    got = values(con, ["nCG@1000", "nCG@5", "nCG@2000"])
    assert got["early", "1", "nCG@1000"] == pytest.approx(0.2, abs=1e-15)
    assert got["late", "1", "nCG@1000"] == pytest.approx(0.2, abs=1e-15)
    assert got["early", "1", "nCG@5"] == pytest.approx(0.2, abs=1e-15)
    assert got["late", "1", "nCG@5"] == 0.0
    assert got["late", "1", "nCG@2000"] == pytest.approx(0.2, abs=1e-15)


def test_ideal_list_scores_one_and_empty_lists_zero(write):
    qrels = {"1": {"a": 3, "b": 2, "c": 2, "d": 1, "e": 0}, "2": {"f": 1}, "3": {"g": 0, "h": -1}}
    runs = {"1": ["a", "c", "b", "d", "e", "x"], "3": ["g", "h"]}
    con = campaign(write, qrels, {"run": runs})
    measures = ["JKnDCG", "JKnDCG@2", "nCG@3", "AnCG@10", "AnDCG@10", "AnDCG(b=0, gain=exp)@3"]
    got = values(con, measures, topics="qrels")
    for measure in (canonical(m) for m in measures):
        assert got["run", "1", measure] == pytest.approx(1.0, abs=1e-15), measure
        assert got["run", "2", measure] == 0.0  # topic the run lacks
        assert got["run", "3", measure] == 0.0  # no relevant document


def test_unknown_gain_profile_is_an_error(sample):
    with pytest.raises(MeasureParamError, match="unknown gain profile 'nosuch'"):
        per_topic(sample, ["JKnDCG(gain=nosuch)@10"], "s")
