"""The cascade family (sql/metrics/metric_cascade.sql): ERR, nERR (stop rules gdeval, ntcir,
chapelle), EBR, nEBR, iRBU, niRBU, nRBP; and NTCIREVAL's RBP (metric_dcg.sql, gain_norm=gmax).

Oracles: NTCIREVAL 190111's README sample values and TRECRUN.test.nev (docs/adhoc-measures.md 6.1
and 6.2, %.4f); gdeval 1.2a through ir_measures 0.4.3 (ERR@k, printed with %.5f) on generated
campaigns; pyNTCIREVAL 0.0.3 (ERR, nERR, RBP) to 1e-12; hand computations for the 2019/2020
measures NTCIREVAL 190111 does not print (nEBR, iRBU, niRBU, nRBP); the seed's properties
(Chapelle's ERR is NTCIREVAL's with gains 2^x - 1; the ERR lower bound of a top-ranked level-h
document; normalised values of an ideal list are 1).
NTCIREVAL reads runs in file order: NTCIREVAL comparisons use ``ordering='file'``.
"""
from __future__ import annotations

import random
import shutil

import ir_measures
import pytest
from pyNTCIREVAL.metrics import ERR, RBP, nERR

import pyeval
from pyeval.errors import MeasureParamError
from pyeval.core.gains import define_gain_profile
from pyeval.measures import parse

from ..conftest import FIXTURES
from .helpers import campaign, qrels_text, values
from .ntcireval_cases import (
    canonical,
    generated_campaign,
    nev_values,
    per_topic,
    pyntcireval_inputs,
    sample_campaign,
)

NTCIR = FIXTURES / "ntcireval"

#: NTCIREVAL's RBP: gains divided by gmax, p = 0.95
NTCIR_RBP = "RBP(gain_norm=gmax, p=0.95)"


@pytest.fixture
def sample(write):
    con = pyeval.connect()
    sample_campaign(write, con)
    yield con
    con.close()


def test_names():
    """A bare ERR@k keeps ir_measures' (gdeval's) meaning; NTCIREVAL's is stop=ntcir."""
    assert parse("ERR@10")["stop"] == "gdeval"
    assert str(parse("ERR(stop=gdeval)@10")) == "ERR@10"
    assert str(parse("ERR(stop=ntcir)@10")) == "ERR(stop=ntcir)@10"
    assert str(parse("nERR(gain=g12, stop=ntcir)@10")) == "nERR(gain=g12, stop=ntcir)@10"
    assert str(parse("nRBP(p=0.95)@10")) == "nRBP@10"
    assert str(parse("iRBU(u=0.99)")) == "iRBU"
    assert str(parse("RBP(p=0.95, gain_norm=gmax)@10")) == "RBP(gain_norm=gmax, p=0.95)@10"
    assert str(parse("RBP(gain_norm=trec_eval, p=0.9)")) == "RBP(gain_norm=trec_eval, p=0.9)"


def test_readme_sample(sample):
    """docs/adhoc-measures.md 6.1, -g 1:2:3: RBP 0.0761, ERR 0.4062 (0.40625 exactly), EBR 0.4333,
    RBP@1000 0.0761, ERR@1000 0.4062, nERR@1000 0.4710, EBR@1000 0.4333, nERR@2 0.4444."""
    names = {
        "RBP": NTCIR_RBP, "ERR": "ERR(stop=ntcir)", "EBR": "EBR", "RBP@1000": NTCIR_RBP + "@1000",
        "ERR@1000": "ERR(stop=ntcir)@1000", "nERR@1000": "nERR(stop=ntcir)@1000",
        "EBR@1000": "EBR@1000", "nERR@2": "nERR(stop=ntcir)@2",
    }
    got = per_topic(sample, list(names.values()), "s")
    printed = {name: "%.4f" % got["sample", "1", canonical(m)] for name, m in names.items()}
    assert printed == {
        "RBP": "0.0761", "ERR": "0.4062", "EBR": "0.4333", "RBP@1000": "0.0761",
        "ERR@1000": "0.4062", "nERR@1000": "0.4710", "EBR@1000": "0.4333", "nERR@2": "0.4444",
    }
    # the README's derivations
    assert got["sample", "1", "ERR(stop=ntcir)"] == pytest.approx(0.5 * 0.75 + 0.25 * 0.25 * 0.5, abs=1e-15)
    assert got["sample", "1", canonical(NTCIR_RBP)] == pytest.approx(
        0.05 * (3 * 0.95 + 2 * 0.95**3) / 3, abs=1e-15
    )
    # EBR: BR(2) = (3 + 1)/(6 + 2), BR(4) = (5 + 2)/(11 + 4); pi = 3/4, 2/4
    assert got["sample", "1", "EBR"] == pytest.approx(0.5 * 0.75 + 7 / 15 * 0.5 * 0.25, abs=1e-15)


def test_readme_sample_other_gains_and_condensed(sample):
    """-g 1:4:9: ERR 0.4600, RBP 0.0666; -j (judged_only): ERR 0.4167, nERR@1000 0.4830."""
    define_gain_profile(sample, "s", "g149", "1:4:9")
    got = per_topic(sample, ["ERR(gain=g149, stop=ntcir)", "RBP(gain=g149, gain_norm=gmax, p=0.95)"], "s")
    assert "%.4f" % got["sample", "1", "ERR(gain=g149, stop=ntcir)"] == "0.4600"
    assert "%.4f" % got["sample", "1", "RBP(gain=g149, gain_norm=gmax, p=0.95)"] == "0.0666"
    condensed = per_topic(sample, ["ERR(stop=ntcir)", "nERR(stop=ntcir)@1000"], "s", judged_only=True)
    assert "%.4f" % condensed["sample", "1", "ERR(stop=ntcir)"] == "0.4167"
    assert "%.4f" % condensed["sample", "1", "nERR(stop=ntcir)@1000"] == "0.4830"


def test_trecrun_nev():
    """Every RBP, ERR, EBR, nERR value of TRECRUN.test.nev (-g 1:2 -cutoffs 10,1000): the
    qrels are binary, so gmax = 2 comes from the stored profile '1:2', not from the levels."""
    names = {"RBP": "RBP(gain=g12, gain_norm=gmax, p=0.95)", "ERR": "ERR(gain=g12, stop=ntcir)",
             "EBR": "EBR(gain=g12)"}
    for k in (10, 1000):
        names |= {
            f"RBP@{k:04d}": f"RBP(gain=g12, gain_norm=gmax, p=0.95)@{k}",
            f"ERR@{k:04d}": f"ERR(gain=g12, stop=ntcir)@{k}",
            f"nERR@{k:04d}": f"nERR(gain=g12, stop=ntcir)@{k}",
            f"EBR@{k:04d}": f"EBR(gain=g12)@{k}",
        }
    con = pyeval.connect()
    pyeval.load_qrels(con, "t", NTCIR / "test.qrels")
    pyeval.load_run(con, "t", NTCIR / "TRECRUN", name="TRECRUN")
    define_gain_profile(con, "t", "g12", "1:2")
    got = per_topic(con, list(names.values()), "t")
    con.close()
    checked = 0
    for (topic, name), text in nev_values().items():
        if name in names:
            assert "%.4f" % got["TRECRUN", topic, canonical(names[name])] == text, (topic, name)
            checked += 1
    assert checked == 3 * len(names)


@pytest.mark.parametrize("seed", [21, 22])
def test_generated_campaigns_match_pyntcireval(write, seed):
    """ERR, ERR@l, nERR@l and RBP (gain_norm=gmax), RBP@l under gains 1:2:3 and 1:3:7, per topic
    to 1e-12; cutoffs below, at and beyond the list lengths."""
    con = pyeval.connect()
    runs, qrels = generated_campaign(write, con, seed)
    profiles = {"linear": [1, 2, 3], "exp": [1, 3, 7]}
    names = {}
    for profile in profiles:
        for k in (None, 1, 5, 40, 1000):
            at = "" if k is None else f"@{k}"
            names["ERR", profile, k] = canonical(f"ERR(gain={profile}, stop=ntcir){at}")
            names["RBP", profile, k] = canonical(f"RBP(gain={profile}, gain_norm=gmax, p=0.95){at}")
            if k is not None:
                names["nERR", profile, k] = canonical(f"nERR(gain={profile}, stop=ntcir){at}")
    got = per_topic(con, list(names.values()), "g")
    con.close()
    for run, topics in runs.items():
        for topic, docs in topics.items():
            labelled, xrelnum = pyntcireval_inputs(qrels[topic], docs, 3)
            for (kind, profile, k), measure in names.items():
                grades = profiles[profile]
                if kind == "nERR":
                    metric = nERR(xrelnum, grades, k)
                else:
                    metric = ERR(xrelnum, grades) if kind == "ERR" else RBP(xrelnum, grades, 0.95)
                    metric.cutoff = k
                assert got[run, topic, measure] == pytest.approx(metric.compute(labelled), abs=1e-12), (
                    run, topic, measure)


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval (ir_measures' ERR) needs perl")
@pytest.mark.parametrize("seed", [31, 32])
def test_bare_err_matches_gdeval_through_ir_measures(write, seed):
    """ir_measures' ERR@k runs gdeval: stop probability (2^level - 1)/16 whatever the highest
    level; negative levels are not relevant. gdeval prints 5 decimals."""
    rng = random.Random(seed)
    qrels, runs = {}, {}
    for t in range(1, 16):
        topic = str(100 + t)
        judged = {f"d{t}-{i}": rng.choice([-1, 0, 0, 1, 2, 3, 4]) for i in range(rng.randint(1, 30))}
        qrels[topic] = judged
        docs = list(judged) + [f"x{t}-{i}" for i in range(rng.randint(0, 10))]
        rng.shuffle(docs)
        runs[topic] = {doc: float(rng.randint(0, 20)) for doc in docs[: rng.randint(1, len(docs))]}
    con = pyeval.connect()
    pyeval.load_qrels(con, "t", write("qrels.txt", qrels_text(qrels)))
    lines = [f"{topic} Q0 {doc} 0 {score} run" for topic, docs in runs.items() for doc, score in docs.items()]
    pyeval.load_run(con, "t", write("run.txt", "\n".join(lines) + "\n"), name="run")
    cutoffs = (1, 5, 20)
    got = values(con, [f"ERR@{k}" for k in cutoffs])
    con.close()
    checked = 0
    for k in cutoffs:
        for metric in ir_measures.gdeval.iter_calc([ir_measures.ERR @ k], qrels, runs):
            assert got["run", metric.query_id, f"ERR@{k}"] == pytest.approx(metric.value, abs=5.1e-6)
            checked += 1
    assert checked >= 3 * 10


def test_gdeval_refuses_levels_above_four(write):
    con = campaign(write, {"1": {"a": 5, "b": 1}}, {"run": {"1": ["a", "b"]}})
    with pytest.raises(MeasureParamError, match="^metric_cascade: stop=gdeval takes gains up to 4"):
        values(con, ["ERR@10"])
    assert values(con, ["ERR(stop=ntcir)@10"])["run", "1", "ERR(stop=ntcir)@10"] > 0


def test_stop_rules_by_hand(sample):
    """Levels by rank: L0, L3, unjudged, L2; the campaign's highest level is 3.
    chapelle (2^x - 1)/2^3: 7/8, 3/8; gdeval (2^x - 1)/16: 7/16, 3/16; ntcir x/4: 3/4, 2/4."""
    got = per_topic(sample, ["ERR", "ERR(stop=chapelle)", "ERR(stop=ntcir)", "ERR(gain=exp, stop=ntcir)",
                             "nERR(stop=chapelle)@1"], "s")
    assert got["sample", "1", "ERR"] == pytest.approx(7 / 16 / 2 + (9 / 16) * (3 / 16) / 4, abs=1e-15)
    chapelle = 7 / 8 / 2 + (1 / 8) * (3 / 8) / 4
    assert got["sample", "1", "ERR(stop=chapelle)"] == pytest.approx(chapelle, abs=1e-15)
    # Chapelle's ERR is NTCIREVAL's with gains 2^x - 1 (gmax 7: pi = g/8)
    assert got["sample", "1", "ERR(gain=exp, stop=ntcir)"] == pytest.approx(chapelle, abs=1e-15)
    assert got["sample", "1", "nERR(stop=chapelle)@1"] == 0.0  # rank 1 is L0


def test_chapelle_lower_bound(write):
    """A level-h document at rank 1 gives ERR >= (2^h - 1)/2^h (0.9375 for h = 4)."""
    qrels = {"1": {"a": 4, "b": 2, "c": 1, "d": 0}}
    con = campaign(write, qrels, {"run": {"1": ["a", "d", "b"]}, "top": {"1": ["a"]}})
    got = values(con, ["ERR(stop=chapelle)"])
    assert got["top", "1", "ERR(stop=chapelle)"] == pytest.approx(15 / 16, abs=1e-15)
    assert got["run", "1", "ERR(stop=chapelle)"] >= 15 / 16


def test_2020_measures_by_hand(sample):
    """nRBP, nEBR, iRBU, niRBU (NTCIREVAL 2019/2020; not in the 190111 outputs) and RBP@l.
    Run gains by rank 0, 3, 0, 2; ideal 3,3,3,2,2,2,1,1,1,1; gmax 3, pi = g/4."""
    got = per_topic(sample, ["nRBP@2", "nRBP(p=0.5)@10", "iRBU", "iRBU@3", "niRBU@10", "nEBR@2", "nEBR@10",
                             "EBR(beta=0)", NTCIR_RBP + "@3"], "s")
    point = ("sample", "1")
    assert got[(*point, "nRBP@2")] == pytest.approx(3 * 0.95 / (3 + 3 * 0.95), abs=1e-15)
    ideal = [3, 3, 3, 2, 2, 2, 1, 1, 1, 1]
    assert got[(*point, "nRBP(p=0.5)@10")] == pytest.approx(
        (3 * 0.5 + 2 * 0.5**3) / sum(g * 0.5**j for j, g in enumerate(ideal)), abs=1e-15
    )
    irbu = 0.99**2 * 0.75 + 0.99**4 * 0.5 * 0.25
    assert got[(*point, "iRBU")] == pytest.approx(irbu, abs=1e-15)
    assert got[(*point, "iRBU@3")] == pytest.approx(0.99**2 * 0.75, abs=1e-15)
    reach, ideal_irbu, ideal_sat = 1.0, 0.0, 0.0
    for rank, g in enumerate(ideal, start=1):
        ideal_irbu += 0.99**rank * g / 4 * reach
        ideal_sat += g / 4 * reach
        reach *= 1 - g / 4
    assert got[(*point, "niRBU@10")] == pytest.approx(irbu / ideal_irbu, abs=1e-15)
    ebr = 0.5 * 0.75 + 7 / 15 * 0.5 * 0.25
    assert got[(*point, "nEBR@10")] == pytest.approx(ebr / ideal_sat, abs=1e-15)
    assert got[(*point, "nEBR@2")] == pytest.approx(0.5 * 0.75 / (0.75 + 0.25 * 0.75), abs=1e-15)
    # beta = 0: BR(r) = C(r)/r, precision
    assert got[(*point, "EBR(beta=0.0)")] == pytest.approx(0.5 * 0.75 + 0.5 * 0.5 * 0.25, abs=1e-15)
    assert got[(*point, "RBP(gain_norm=gmax, p=0.95)@3")] == pytest.approx(0.05 * 0.95, abs=1e-15)


def test_ideal_list_normalises_to_one_and_empty_lists_score_zero(write):
    qrels = {"1": {"a": 3, "b": 2, "c": 2, "d": 1, "e": 0}, "2": {"f": 1}, "3": {"g": 0, "h": -1}}
    runs = {"1": ["a", "c", "b", "d", "e", "x"], "3": ["g", "h"]}
    con = campaign(write, qrels, {"run": runs})
    normalised = ["nERR", "nERR(stop=ntcir)@2", "nERR(stop=chapelle)@10", "nEBR", "nEBR@3", "niRBU", "nRBP@4"]
    others = ["ERR", "ERR(stop=ntcir)@3", "EBR", "iRBU", NTCIR_RBP]
    got = values(con, normalised + others, topics="qrels")
    for measure in (canonical(m) for m in normalised):
        assert got["run", "1", measure] == pytest.approx(1.0, abs=1e-15), measure
    for measure in (canonical(m) for m in normalised + others):
        assert got["run", "2", measure] == 0.0  # topic the run lacks
        assert got["run", "3", measure] == 0.0  # no relevant document
    assert got["run", "1", "EBR"] < 1


def test_gmax_is_the_profiles_last_value(write):
    """A level nobody judged still sets gmax when the profile lists it (-g 1:2:3 on a topic
    with L1 documents only): pi = 1/4, and RBP divides by 3."""
    con = campaign(write, {"1": {"a": 1, "b": 0}}, {"run": {"1": ["b", "a"]}})
    define_gain_profile(con, "t", "g123", "1:2:3")
    got = values(con, ["ERR(gain=g123, stop=ntcir)", "RBP(gain=g123, gain_norm=gmax)", "ERR(stop=ntcir)"])
    assert got["run", "1", "ERR(gain=g123, stop=ntcir)"] == pytest.approx(0.25 / 2, abs=1e-15)
    assert got["run", "1", "RBP(gain=g123, gain_norm=gmax)"] == pytest.approx(0.2 * 0.8 / 3, abs=1e-15)
    assert got["run", "1", "ERR(stop=ntcir)"] == pytest.approx(0.5 / 2, abs=1e-15)  # linear: gmax 1
