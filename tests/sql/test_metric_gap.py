"""The gap family (sql/metrics/metric_gap.sql): GAP, GAP@l, nGAP@l.

Oracles: a literal transcription of docs/adhoc-measures.md 3.2 / 4.6 (the double sum over rank
pairs, NTCIREVAL's m(m + 1) form) on generated campaigns, to 1e-12, with linear gains
(NTCIREVAL compute: v = level) and a stored profile (gcompute: v = gain); hand computations on
NTCIREVAL's README sample; the seed papers' stated properties (nGAP@l = GAP@l once l >= R; an ideal
list scores 1; with one relevance level GAP is AP).
"""
from __future__ import annotations

import random

import pytest

import pyeval
from pyeval.core.gains import define_gain_profile

from .helpers import campaign, values
from .ntcireval_cases import per_topic, sample_campaign


def literal_gap(gains: list[float], ideal: list[float], cutoff: int | None, normalised: bool) -> float:
    """GAP@l as written: sum over relevant r <= l of (1/r) sum over k <= r of m(m + 1)."""
    top = gains if cutoff is None else gains[:cutoff]
    numerator = sum(
        sum(min(v, w) * (min(v, w) + 1) for w in top[:r]) / r
        for r, v in enumerate(top, start=1)
        if v > 0
    )
    kept = ideal[:cutoff] if normalised and cutoff is not None else ideal
    denominator = sum(v * (v + 1) for v in kept)
    return numerator / denominator if denominator > 0 else 0.0


def test_readme_sample_by_hand(write):
    """Levels by rank L0, L3, unjudged, L2: G(2) = 3*4, G(4) = 2*3 + 2*3; ideal 3x3, 2x3, 1x4
    gives the denominator 3*12 + 3*6 + 4*2 = 62."""
    con = pyeval.connect()
    sample_campaign(write, con)
    got = per_topic(con, ["GAP", "GAP@2", "nGAP@2", "nGAP@4", "GAP@1", "nGAP@1000"], "s")
    con.close()
    assert got["sample", "1", "GAP"] == pytest.approx((12 / 2 + 12 / 4) / 62, abs=1e-15)
    assert got["sample", "1", "GAP@2"] == pytest.approx(6 / 62, abs=1e-15)
    assert got["sample", "1", "nGAP@2"] == pytest.approx(6 / 24, abs=1e-15)
    assert got["sample", "1", "nGAP@4"] == pytest.approx(9 / 42, abs=1e-15)
    assert got["sample", "1", "GAP@1"] == 0.0
    assert got["sample", "1", "nGAP@1000"] == got["sample", "1", "GAP"]


@pytest.mark.parametrize("seed", [41, 42, 43])
def test_generated_campaigns_match_the_literal_definition(write, seed):
    rng = random.Random(seed)
    qrels, runs = {}, {"a": {}, "b": {}}
    for t in range(1, 21):
        topic = f"{t:02d}"
        qrels[topic] = {f"d{t}-{i}": rng.choice([-1, 0, 0, 1, 2, 3]) for i in range(rng.randint(1, 40))}
        for topics in runs.values():
            docs = list(qrels[topic]) + [f"x{t}-{i}" for i in range(rng.randint(0, 10))]
            rng.shuffle(docs)
            topics[topic] = docs[: rng.randint(1, len(docs))]
    con = campaign(write, qrels, runs)
    profiles = {"linear": {1: 1.0, 2: 2.0, 3: 3.0}, "steep4": {1: 0.5, 2: 4.0, 3: 4.0}}
    define_gain_profile(con, "t", "steep4", profiles["steep4"])
    measures = {
        (profile, kind, k): f"{kind}(gain={profile})" + ("" if k is None else f"@{k}")
        for profile in profiles
        for kind in ("GAP", "nGAP")
        for k in (None, 1, 3, 10, 100)
    }
    measures = {key: name.replace("(gain=linear)", "") for key, name in measures.items()}
    got = values(con, list(measures.values()))
    con.close()
    for name, topics in runs.items():
        for topic, docs in topics.items():
            for (profile, kind, k), measure in measures.items():
                gain = profiles[profile]
                gains = [gain.get(qrels[topic].get(doc, -1), 0.0) for doc in docs]
                ideal = sorted((gain.get(level, 0.0) for level in qrels[topic].values()), reverse=True)
                ideal = [g for g in ideal if g > 0]
                expected = literal_gap(gains, ideal, k, kind == "nGAP")
                assert got[name, topic, measure] == pytest.approx(expected, abs=1e-12), (name, topic, measure)


def test_seed_properties(write):
    """nGAP@l = GAP@l for l >= R; an ideal list scores 1; with one relevance level GAP = AP."""
    qrels = {
        "1": {"a": 3, "b": 2, "c": 2, "d": 1, "e": 0},
        "2": {"p": 1, "q": 1, "r": 0, "s": 1},
        "3": {"z": 0},
    }
    runs = {
        "ideal": {"1": ["a", "b", "c", "d", "e"], "2": ["p", "q", "s"]},
        "other": {"1": ["e", "d", "x", "a", "c", "b"], "2": ["r", "p", "x", "s"]},
    }
    con = campaign(write, qrels, runs)
    got = values(con, ["GAP", "GAP@4", "nGAP@4", "GAP@2", "nGAP@2", "AP", "nGAP@1000"], topics="qrels")
    for measure in ("GAP", "GAP@4", "nGAP@4", "nGAP@2"):
        assert got["ideal", "1", measure] == pytest.approx(1.0, abs=1e-15)
    assert got["ideal", "1", "GAP@2"] < 1  # the seed's GAP@l is undernormalised for l < R
    assert got["other", "1", "nGAP@4"] == got["other", "1", "GAP@4"]
    assert got["other", "1", "nGAP@2"] > got["other", "1", "GAP@2"]
    assert got["other", "1", "nGAP@1000"] == got["other", "1", "GAP"]
    assert got["other", "2", "GAP"] == pytest.approx(got["other", "2", "AP"], abs=1e-15)
    for run in runs:
        assert got[run, "3", "GAP"] == 0.0  # R = 0
        assert got[run, "3", "nGAP@2"] == 0.0
