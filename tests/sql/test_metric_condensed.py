"""sql/metrics/metric_condensed.sql: NTCIREVAL's -j measures BprefR, BprefN, BprefRelative,
RprefN, RprefRelative, RprefRelative2 (always on the condensed list).

Oracles: the README sample of NTCIREVAL and small lists worked by hand from docs/adhoc-measures.md
section 3.4; random campaigns against a line-by-line Python port of the loops of NTCIREVAL
190111's eval_compute with -j (ntcir_eval.c), which also shows that NTCIREVAL's plain bpref is
trec_eval's ``Bpref``. pyNTCIREVAL prints no bpref family (docs/adhoc-measures.md section 3.7).
"""
from __future__ import annotations

import random

import pytest

import pyeval

from .helpers import campaign
from .ntcireval_cases import canonical, per_topic, sample_campaign

MEASURES = ["BprefR", "BprefN", "BprefRelative", "RprefN", "RprefRelative", "RprefRelative2"]


def test_ntcireval_output_names_are_aliases():
    names = ["bpref_R", "bpref_N", "bpref_relative", "rpref_N", "rpref_relative", "rpref_relative2"]
    assert [canonical(name) for name in names] == MEASURES


# NTCIREVAL's README sample, condensed: L0, L3, L2 (dummy12 removed); R = 10, N = 1, gains 1:2:3,
# gmax 3, cg*(R) = 19, so R + N - cg*(R)/gmax = 11 - 19/3. n = 1 above both relevant documents;
# pen(2) = 1 (the L0 document), pen(3) = 1 (the L0 document; the L3 one has a higher gain).
DENOMINATOR = 11 - 19 / 3
SAMPLE = {
    "BprefR": ((1 - 1 / 10) + (1 - 1 / 10)) / 10,
    "BprefN": ((1 - 1 / 1) + (1 - 1 / 1)) / 10,
    "BprefRelative": ((1 - 1 / 1) + (1 - 1 / 2)) / 10,
    "RprefN": (3 * (1 - 1 / DENOMINATOR) + 2 * (1 - 1 / DENOMINATOR)) / 19,
    "RprefRelative": (3 * (1 - 1 / 1) + 2 * (1 - 1 / 2)) / 19,
    "RprefRelative2": (3 * (1 - 1 / 2) + 2 * (1 - 1 / 3)) / 19,
    "Bpref": 0.0,  # 1 - min(R, n)/min(R, N) = 0 for both
}


@pytest.mark.parametrize("judged_only", [False, True])
def test_sample(con, write, judged_only):
    sample_campaign(write, con)
    got = per_topic(con, list(SAMPLE), "s", judged_only=judged_only)
    for measure, expected in SAMPLE.items():
        assert got["sample", "1", measure] == pytest.approx(expected, abs=1e-15), measure


# Hand-worked: topic 1 has a (L1), b and c (L2), n1 and n2 (L0), d (pooled, unjudged: -2);
# x is not in the pool. R = 3, N = 2, cg*(R) = 5, gmax = 2 (the campaign's highest level), so
# R + N - cg*(R)/gmax = 2.5. The run x n1 a d b n2 condenses to n1 a b n2: a at 2 (n = 1,
# pen = 1), b at 3 (n = 1, pen = 1 + 1/2). Topic 2 is missing from the run, topic 3 has R = 0.
QRELS = {"1": {"a": 1, "b": 2, "c": 2, "n1": 0, "n2": 0, "d": -2}, "2": {"p": 1, "q": 0}, "3": {"z": 0}}
RUN = {"1": ["x", "n1", "a", "d", "b", "n2"], "3": ["z"]}
HAND = {
    "BprefR": ((1 - 1 / 3) + (1 - 1 / 3)) / 3,
    "BprefN": ((1 - 1 / 2) + (1 - 1 / 2)) / 3,
    "BprefRelative": ((1 - 1 / 1) + (1 - 1 / 2)) / 3,
    "RprefN": (1 * (1 - 1 / 2.5) + 2 * (1 - 1.5 / 2.5)) / 5,
    "RprefRelative": (1 * (1 - 1 / 1) + 2 * (1 - 1.5 / 2)) / 5,
    "RprefRelative2": (1 * (1 - 1 / 2) + 2 * (1 - 1.5 / 3)) / 5,
    "Bpref": ((1 - 1 / 2) + (1 - 1 / 2)) / 3,
}


@pytest.fixture
def hand(write):
    return campaign(write, QRELS, {"r": RUN})


@pytest.mark.parametrize("judged_only", [False, True])
def test_hand_worked_list(hand, judged_only):
    got = per_topic(hand, list(HAND), "t", judged_only=judged_only)
    for measure, expected in HAND.items():
        assert got["r", "1", measure] == pytest.approx(expected, abs=1e-15), measure
        assert got["r", "2", measure] == 0.0, measure
        assert got["r", "3", measure] == 0.0, measure


def test_depth_cut_comes_before_condensing(hand):
    # max_depth 3: x n1 a, condensed to n1 a
    got = per_topic(hand, MEASURES, "t", max_depth=3)
    assert got["r", "1", "BprefR"] == pytest.approx((1 - 1 / 3) / 3, abs=1e-15)
    assert got["r", "1", "RprefN"] == pytest.approx(1 * (1 - 1 / 2.5) / 5, abs=1e-15)
    assert got["r", "1", "RprefRelative"] == 0.0


def test_a_level_with_gain_zero_is_skipped_in_the_sums(hand):
    # -g 0:2: a (L1) still counts in C(r) and R but adds no term and has gain 0 in pen(b);
    # cg*(R) = 4, gmax = 2, R + N - cg*(R)/gmax = 3; pen(b) = 1 + (2 - 0)/2 = 2
    pyeval.define_gain_profile(hand, "t", "z", "0:2")
    measures = [f"{name}(gain=z)" for name in ("BprefR", "BprefN", "RprefN", "RprefRelative2")]
    got = per_topic(hand, measures, "t")
    assert got["r", "1", "BprefR(gain=z)"] == pytest.approx((1 - 1 / 3) / 3, abs=1e-15)
    assert got["r", "1", "BprefN(gain=z)"] == pytest.approx((1 - 1 / 2) / 3, abs=1e-15)
    assert got["r", "1", "RprefN(gain=z)"] == pytest.approx(2 * (1 - 2 / 3) / 4, abs=1e-15)
    assert got["r", "1", "RprefRelative2(gain=z)"] == pytest.approx(2 * (1 - 2 / 3) / 4, abs=1e-15)


def test_no_judged_nonrelevant_document(write):
    # NTCIREVAL -j refuses N = 0; here n(r) = 0 so n(r)/N counts 0. Topic 1: gains 1 and 2
    # (gmax 2), R + N - cg*(R)/gmax = 2 - 3/2; topic 2: both at gmax, that denominator is 0 and
    # so is every penalty.
    con = campaign(write, {"1": {"a": 1, "b": 2}, "2": {"c": 2, "d": 2}},
                   {"r": {"1": ["a", "b"], "2": ["c", "d"]}})
    got = per_topic(con, MEASURES, "t")
    assert got["r", "1", "BprefN"] == 1.0 and got["r", "1", "BprefR"] == 1.0
    assert got["r", "1", "BprefRelative"] == pytest.approx(0.5, abs=1e-15)
    assert got["r", "1", "RprefN"] == pytest.approx((1 + 2 * (1 - 0.5 / 0.5)) / 3, abs=1e-15)
    assert got["r", "2", "RprefN"] == 1.0 and got["r", "2", "RprefRelative2"] == 1.0


# ---------------------------------------------------------------------------------------------
# A line-by-line port of eval_compute's -j loops (NTCIREVAL 190111, ntcir_eval.c), test oracle.
def ntcireval_condensed(levels: list[int], gains: dict[int, float], xrelnum: dict[int, int],
                        gmax: float) -> dict[str, float]:
    """The -j values of one condensed list of levels (0 = judged non-relevant)."""
    jrelnum = sum(n for level, n in xrelnum.items() if level >= 1)
    jnonrel = xrelnum.get(0, 0)
    ideal = sorted((gains[level] for level, n in xrelnum.items() if level >= 1 for _ in range(n)),
                   reverse=True)
    cgi = 0.0
    for gain in ideal:
        cgi += gain
    gs = [gains[level] if level > 0 else 0.0 for level in levels]
    count, so_far = [], 0.0
    for level in levels:
        so_far += 1 if level > 0 else 0
        count.append(so_far)
    out = {name: 0.0 for name in ("bpref", *MEASURES)}
    sums = dict.fromkeys(out, 0.0)
    for index, gain in enumerate(gs):
        i = index + 1
        if gain <= 0:
            continue
        mini = min(i - count[index], jrelnum)
        sums["bpref"] += 1 - mini / jnonrel if jrelnum > jnonrel else 1 - mini / jrelnum
        sums["BprefR"] += 1 - mini / jrelnum
        sums["BprefN"] += 1 - (i - count[index]) / jnonrel
        sums["BprefRelative"] += 1 - (i - count[index]) / (i - 1) if i > 1 else 0.0
        penalty = 0.0
        for j in range(index):
            if gain - gs[j] > 0:
                penalty += (gain - gs[j]) / gain
        sums["RprefN"] += gain * (1 - penalty / (jrelnum + jnonrel - cgi / gmax))
        sums["RprefRelative"] += gain * (1 - penalty / (i - 1) if i > 1 else 0.0)
        sums["RprefRelative2"] += gain * (1 - penalty / i)
    for name in ("bpref", "BprefR", "BprefN", "BprefRelative"):
        out[name] = sums[name] / jrelnum
    for name in ("RprefN", "RprefRelative", "RprefRelative2"):
        out[name] = sums[name] / cgi
    return out


@pytest.mark.parametrize(("profile", "gains"), [("linear", {1: 1.0, 2: 2.0, 3: 3.0}),
                                                 ("cubes", {1: 1.0, 2: 3.0, 3: 7.0})])
def test_random_lists_equal_the_ntcireval_loops(con, write, profile, gains):
    rng = random.Random(20190111 + len(profile))
    qrels_lines, run_lines, inputs = [], [], {}
    for number in range(1, 41):
        topic = str(number)
        pool = [f"d{n:03d}" for n in range(rng.randint(5, 80))]
        judged = {doc: rng.choice([-2, 0, 0, 0, 1, 1, 2, 3]) for doc in pool if rng.random() < 0.7}
        judged.setdefault(pool[0], 1)
        judged.setdefault(pool[-1], 0)  # NTCIREVAL -j needs N >= 1
        qrels_lines += [f"{topic} 0 {doc} {level}" for doc, level in judged.items()]
        retrieved = rng.sample(pool, rng.randint(1, len(pool)))
        run_lines += [f"{topic} Q0 {doc} {rank} {1000 - rank} r" for rank, doc in enumerate(retrieved, 1)]
        condensed = [judged[doc] for doc in retrieved if judged.get(doc, -1) >= 0]
        xrelnum = {}
        for level in judged.values():
            if level >= 0:
                xrelnum[level] = xrelnum.get(level, 0) + 1
        inputs[topic] = (condensed, xrelnum)
    pyeval.load_qrels(con, "r", write("qrels.txt", "\n".join(qrels_lines) + "\n"))
    pyeval.load_run(con, "r", write("run.txt", "\n".join(run_lines) + "\n"), name="r")
    if profile != "linear":
        pyeval.define_gain_profile(con, "r", profile, ":".join(str(gains[level]) for level in (1, 2, 3)))
    measures = {name: canonical(f"{name}(gain={profile})") for name in MEASURES} | {"bpref": "Bpref"}
    got = per_topic(con, list(measures.values()), "r")
    gmax = max(gains.values())
    mismatches = []
    for topic, (condensed, xrelnum) in inputs.items():
        expected = ntcireval_condensed(condensed, gains, xrelnum, gmax)
        for name, measure in measures.items():
            if abs(got["r", topic, measure] - expected[name]) > 1e-12:
                mismatches.append((topic, measure, got["r", topic, measure], expected[name]))
    assert mismatches == []
    assert sum(value > 0 for value in got.values()) > len(got) / 2
