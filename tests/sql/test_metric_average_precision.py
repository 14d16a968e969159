"""sql/metrics/metric_average_precision.sql: AP, AP@k, GMAP, RR, RR@k, IPrec, IPrecAvg, infAP,
Bpref and GMBpref.

Two kinds of checks:

* the trec_eval 10.0 test suite (tests/fixtures/trec_eval/out.test.*, NIST, see the fixtures
  README): every per-topic and ``all`` value of map, gm_map, recip_rank, iprec_at_recall_*,
  11pt_avg, infAP, bpref, gm_bpref and map_cut_* must print identically with ``%6.4f``;
* small lists worked by hand (ties, unpooled and pooled-but-unjudged documents, R = 0, a topic
  the run lacks, rel=2, -M and -J), with expected values written as the formulas of
  docs/adhoc-measures.md section 2;
* random lists with many ties against a line-by-line Python port of the C loops, to the bit.
"""
from __future__ import annotations

import math
import re

import pytest

import pyeval
from pyeval.core.evaluation import evaluate
from pyeval.measures import Measure, make, parse

from ..conftest import FIXTURES

TREC = FIXTURES / "trec_eval"

# trec_eval measure name -> pyeval measure at the default threshold
_FIXED = {
    "map": "AP",
    "gm_map": "GMAP",
    "recip_rank": "RR",
    "11pt_avg": "IPrecAvg",
    "infAP": "infAP",
    "bpref": "Bpref",
    "gm_bpref": "GMBpref",
}
_PATTERNS = (
    (re.compile(r"map_cut_(\d+)"), lambda m: f"AP@{m[1]}"),
    (re.compile(r"iprec_at_recall_([0-9.]+)"), lambda m: f"IPrec@{float(m[1])!r}"),
    (re.compile(r"11pt_avg_([0-9.,]+)"), lambda m: f"IPrecAvg(points={m[1]!r})"),
)

# expected file -> (qrels, run, evaluate() settings, relevance threshold -l)
ORACLES = {
    "out.test.aq": ("qrels.test", "results.test", {"topics": "intersection"}, 1),
    "out.test.aqc": ("qrels.test", "results.trunc", {"topics": "qrels"}, 1),
    "out.test.aqcM": ("qrels.test", "results.trunc", {"topics": "qrels", "max_depth": 100}, 1),
    "out.test.aql": ("qrels.rel_level", "results.test", {"topics": "intersection"}, 2),
    "out.test.meas_params": ("qrels.test", "results.test", {"topics": "intersection"}, 1),
}


def pyeval_name(trec_name: str, rel: int) -> str | None:
    """The canonical pyeval measure for a trec_eval output name, or None if not in this family."""
    base = _FIXED.get(trec_name)
    for pattern, build in _PATTERNS:
        match = pattern.fullmatch(trec_name)
        if match:
            base = build(match)
    return None if base is None else str(with_rel(parse(base), rel))


def with_rel(measure: Measure, rel: int) -> Measure:
    return make(measure.definition, **{**dict(measure.values), "rel": rel})


def expected_lines(file: str, rel: int) -> dict[tuple[str, str], str]:
    """(pyeval measure, topic or 'all') -> the value text trec_eval printed."""
    expected = {}
    for line in (TREC / file).read_text().splitlines():
        name, topic, value = line.split("\t")
        measure = pyeval_name(name.strip(), rel)
        if measure is not None:
            expected[(measure, topic)] = value
    return expected


_computed: dict[str, dict[tuple[str, str], str]] = {}


def computed_lines(file: str) -> dict[tuple[str, str], str]:
    """pyeval's values for the measures of an expected file, formatted like trec_eval."""
    if file not in _computed:
        qrels, run, settings, rel = ORACLES[file]
        measures = sorted({measure for measure, _ in expected_lines(file, rel)})
        con = pyeval.connect()
        try:
            pyeval.load_qrels(con, "t", TREC / qrels)
            pyeval.load_run(con, "t", TREC / run)
            result = evaluate(con, "t", measures, store=False, **settings)
        finally:
            con.close()
        per_topic = result.per_topic[["measure", "topic_id", "value"]].itertuples(index=False)
        means = result.means[["measure", "value"]].itertuples(index=False)
        lines = {(measure, topic): "%6.4f" % value for measure, topic, value in per_topic}
        lines |= {(measure, "all"): "%6.4f" % value for measure, value in means}
        _computed[file] = lines
    return _computed[file]


def _oracle_cases():
    for file, (_, _, _, rel) in ORACLES.items():
        by_measure: dict[str, list[str]] = {}
        for measure, topic in expected_lines(file, rel):
            by_measure.setdefault(measure, []).append(topic)
        for measure, topics in by_measure.items():
            yield pytest.param(file, measure, topics, id=f"{file}:{measure}")


@pytest.mark.parametrize(("file", "measure", "topics"), list(_oracle_cases()))
def test_matches_trec_eval_text(file, measure, topics):
    _, _, _, rel = ORACLES[file]
    expected = expected_lines(file, rel)
    computed = computed_lines(file)
    got = {topic: computed.get((measure, topic)) for topic in topics}
    assert got == {topic: expected[(measure, topic)] for topic in topics}


def test_every_family_measure_of_the_oracles_is_checked():
    counts = {file: len(expected_lines(file, rel)) for file, (_, _, _, rel) in ORACLES.items()}
    # 3 topics + all for map, recip_rank, 11 iprec, 11pt_avg, infAP, bpref, 9 map_cut (= 25
    # measures, 100 lines) plus the summary-only gm_map and gm_bpref
    assert counts == {
        "out.test.aq": 102, "out.test.aqc": 102, "out.test.aqcM": 102, "out.test.aql": 102,
        "out.test.meas_params": 24,
    }


# ---------------------------------------------------------------------------------------------
# Hand-worked lists. Topic 1: R = 4 (a, c, h at level 1, e at level 2), N = 3 (b, f, g), d is
# pooled but unjudged (-2), x is not in the pool (-1). The run ranks (ties broken by docno
# descending, so c before a):
#   1 x (unpooled)  2 b (0)  3 c (1)  4 a (1)  5 d (-2)  6 f (0)  7 e (2)
# Topic 2 is judged but missing from the run; topic 3 has no relevant document (R = 0).
QRELS = """\
1 0 a 1
1 0 b 0
1 0 c 1
1 0 d -2
1 0 e 2
1 0 f 0
1 0 g 0
1 0 h 1
2 0 p 1
2 0 q 0
3 0 z 0
"""
RUN = """\
1 Q0 x 1 10 hand
1 Q0 b 2 9 hand
1 Q0 a 3 8 hand
1 Q0 c 4 8 hand
1 Q0 d 5 7 hand
1 Q0 f 6 6 hand
1 Q0 e 7 5 hand
3 Q0 z 1 1 hand
"""
EPS = 1e-5


def infap_term(rank: int, rel_above: int, nonrel_above: int, unjudged_above: int) -> float:
    """trec_eval m_infap.c term of a relevant document at 1-based ``rank``."""
    j = float(rank - 1)
    if j == 0:
        return 1.0
    return (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_above + nonrel_above + unjudged_above) / j)
            * ((rel_above + EPS) / (rel_above + nonrel_above + 2 * EPS)))


HAND = {
    # relevant at ranks 3, 4, 7: precisions 1/3, 2/4, 3/7
    "AP": (1 / 3 + 2 / 4 + 3 / 7) / 4,
    "GMAP": (1 / 3 + 2 / 4 + 3 / 7) / 4,
    "AP@3": (1 / 3) / 4,
    "AP@6": (1 / 3 + 2 / 4) / 4,  # divided by R, not min(k, R)
    "AP@1000": (1 / 3 + 2 / 4 + 3 / 7) / 4,
    "RR": 1 / 3,
    "RR@2": 0.0,
    "RR@3": 1 / 3,
    # interpolated precision at the j-th relevant: 1/2, 1/2, 3/7; c = lround(x * 4)
    "IPrec@0.0": 0.5,  # c = 0: max over the whole list
    "IPrec@0.1": 0.5,  # c = lround(0.4) = 0
    "IPrec@0.5": 0.5,  # c = 2
    "IPrec@0.625": 3 / 7,  # c = lround(2.5) = 3 (half away from zero; banker's rounding gives 2)
    "IPrec@0.75": 3 / 7,
    "IPrec@0.9": 0.0,  # c = 4 > 3 relevant retrieved
    "IPrec@1.0": 0.0,
    # 11 points: c = 0,0,1,1,2,2,2,3,3,4,4
    "IPrecAvg": (7 * 0.5 + 2 * 3 / 7) / 11,
    "IPrecAvg(points='0.625,0.9')": (3 / 7 + 0.0) / 2,  # any order of points: one name (test_names)
    # one judged non-relevant doc above c and a, two above e; min(N, R) = 3
    "Bpref": ((1 - 1 / 3) + (1 - 1 / 3) + (1 - 2 / 3)) / 4,
    "GMBpref": ((1 - 1 / 3) + (1 - 1 / 3) + (1 - 2 / 3)) / 4,
    # above c: b; above a: b, c; above e: b, c, a, d (unjudged), f; x is never counted
    "infAP": (infap_term(3, 0, 1, 0) + infap_term(4, 1, 1, 0) + infap_term(7, 2, 2, 1)) / 4,
    # rel=2: R = 1 (e), N = 6 (a, b, c, f, g, h)
    "AP(rel=2)": (1 / 7) / 1,
    "RR(rel=2)": 1 / 7,
    "IPrec(rel=2)@0.5": 1 / 7,
    "Bpref(rel=2)": 1 - min(4, 1) / min(6, 1),
    "infAP(rel=2)": infap_term(7, 0, 4, 1) / 1,
}


@pytest.fixture
def hand(con, write):
    pyeval.load_qrels(con, "h", write("qrels.txt", QRELS))
    pyeval.load_run(con, "h", write("run.txt", RUN))
    return con


def per_topic_values(result) -> dict[tuple[str, str], float]:
    rows = result.per_topic[["measure", "topic_id", "value"]].itertuples(index=False)
    return {(measure, topic): value for measure, topic, value in rows}


def values(con, measures, **settings) -> dict[tuple[str, str], float]:
    return per_topic_values(evaluate(con, "h", measures, store=False, **settings))


def test_hand_worked_list(hand):
    got = values(hand, list(HAND))
    for measure, expected in HAND.items():
        assert got[(measure, "1")] == pytest.approx(expected, abs=1e-12), measure


def test_missing_topic_and_no_relevant_score_zero(hand):
    got = values(hand, list(HAND), topics="qrels")
    assert {t for _, t in got} == {"1", "2", "3"}
    for measure in HAND:
        assert got[(measure, "2")] == 0.0, measure  # judged topic the run lacks (L = 0)
        assert got[(measure, "3")] == 0.0, measure  # R = 0, one judged non-relevant retrieved
    assert not any(math.isnan(v) for v in got.values())


def test_intersection_drops_the_missing_topic(hand):
    got = values(hand, ["AP", "IPrec@0.0"], topics="intersection")
    assert {t for _, t in got} == {"1", "3"}


def test_geometric_means_floor_zero_at_1e_5(hand):
    result = evaluate(hand, "h", ["GMAP", "GMBpref", "AP"], store=False, topics="qrels")
    means = dict(result.means[["measure", "value"]].itertuples(index=False))
    assert means["GMAP"] == pytest.approx(math.exp((math.log(HAND["AP"]) + 2 * math.log(1e-5)) / 3))
    assert means["GMBpref"] == pytest.approx(math.exp((math.log(HAND["Bpref"]) + 2 * math.log(1e-5)) / 3))
    assert means["AP"] == pytest.approx(HAND["AP"] / 3)


def test_depth_cut(hand):
    # -M4: x b c a; relevant at 3 and 4
    got = values(hand, ["AP", "IPrec@0.75", "IPrec@0.5", "Bpref", "RR"], max_depth=4)
    assert got[("AP", "1")] == pytest.approx((1 / 3 + 2 / 4) / 4)
    assert got[("IPrec@0.75", "1")] == 0.0  # c = 3 > 2 relevant retrieved
    assert got[("IPrec@0.5", "1")] == pytest.approx(0.5)
    assert got[("Bpref", "1")] == pytest.approx(2 * (1 - 1 / 3) / 4)
    assert got[("RR", "1")] == pytest.approx(1 / 3)


def test_judged_only_renumbers_ranks(hand):
    # -J: b c a f e; x (unpooled) and d (pooled, unjudged) removed
    got = values(hand, ["AP", "infAP", "RR", "Bpref"], judged_only=True)
    assert got[("AP", "1")] == pytest.approx((1 / 2 + 2 / 3 + 3 / 5) / 4)
    assert got[("infAP", "1")] == pytest.approx(got[("AP", "1")], abs=1e-4)  # = AP when all judged
    expected_infap = (infap_term(2, 0, 1, 0) + infap_term(3, 1, 1, 0) + infap_term(5, 2, 2, 0)) / 4
    assert got[("infAP", "1")] == pytest.approx(expected_infap, abs=1e-12)
    assert got[("RR", "1")] == pytest.approx(1 / 2)
    assert got[("Bpref", "1")] == pytest.approx(HAND["Bpref"])  # bpref ignores unjudged docs anyway


def test_every_requested_measure_of_every_pair_is_returned(hand):
    measures = ["AP", "AP@5", "GMAP", "RR", "RR@1", "IPrec@0.3", "IPrecAvg", "infAP", "Bpref", "GMBpref"]
    result = evaluate(hand, "h", measures, store=False, topics="qrels")
    assert len(result.per_topic) == 3 * len(measures)
    assert result.per_topic["value"].notna().all()


# ---------------------------------------------------------------------------------------------
# Random lists against a line-by-line Python port of the trec_eval 10.0 loops (m_map.c,
# m_map_cut.c, m_recip_rank.c, m_iprec_at_recall.c, m_11pt_avg.c, m_infap.c, m_bpref.c), used
# only as a test oracle: the values must be equal to the last bit, which checks that the SQL
# adds and divides in the C code's order.
NONPOOL, UNJUDGED = -1, -2


def _lround(x: float) -> int:
    whole = math.floor(x)
    return whole + 1 if x - whole >= 0.5 else whole  # x >= 0: half away from zero, like C lround


def _iprec_loop(labels, rel, num_rel, points, *, average):
    cutoffs = [_lround(p * num_rel) for p in points]
    num_rel_ret = sum(1 for label in labels if label >= rel)
    values = [0.0] * len(points)
    total = 0.0
    current = len(points) - 1
    while current >= 0 and cutoffs[current] > num_rel_ret:
        current -= 1
    int_precis = num_rel_ret / len(labels)
    rel_so_far = num_rel_ret
    i = len(labels)
    while i > 0 and rel_so_far > 0:
        int_precis = max(int_precis, rel_so_far / i)
        if labels[i - 1] >= rel:
            while current >= 0 and rel_so_far == cutoffs[current]:
                values[current] = int_precis
                total += int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = int_precis
        total += int_precis
        current -= 1
    return total / len(points) if average else values


def trec_eval_port(labels: list[int], rel: int, num_rel: int, num_nonrel: int) -> dict[str, float]:
    """Per-topic values of one non-empty ranked list of labels (level, -1 unpooled, -2 pooled
    unjudged), R and N at threshold ``rel``."""
    out = {}
    precision_sum, rel_so_far = 0.0, 0
    cut_sums = {}
    for i, label in enumerate(labels):
        for k in (1, 3, 10):
            if i == k:
                cut_sums.setdefault(k, precision_sum)
        if label >= rel:
            rel_so_far += 1
            precision_sum += rel_so_far / (i + 1)
    out["AP"] = precision_sum / num_rel if rel_so_far else 0.0
    for k in (1, 3, 10):
        out[f"AP@{k}"] = cut_sums.get(k, precision_sum) / num_rel if num_rel else 0.0
    first = next((i for i, label in enumerate(labels) if label >= rel), None)
    out["RR"] = 0.0 if first is None else 1.0 / (first + 1)
    out["RR@3"] = out["RR"] if first is not None and first < 3 else 0.0
    points = [i / 10 for i in range(11)]
    for point, value in zip(points, _iprec_loop(labels, rel, num_rel, points, average=False)):
        out[f"IPrec@{point!r}"] = value
    out["IPrecAvg"] = _iprec_loop(labels, rel, num_rel, points, average=True)
    out["IPrecAvg(points='.25,.5,.75')"] = _iprec_loop(labels, rel, num_rel, [0.25, 0.5, 0.75],
                                                       average=True)
    nonrel_so_far = rel_so_far = unjudged_so_far = 0
    bpref = inf_ap = 0.0
    for j, label in enumerate(labels):
        if label == NONPOOL:
            continue
        if label == UNJUDGED:
            unjudged_so_far += 1
            continue
        if 0 <= label < rel:
            nonrel_so_far += 1
            continue
        rel_so_far += 1
        if nonrel_so_far > 0:
            bpref += 1.0 - min(nonrel_so_far, num_rel) / min(num_nonrel, num_rel)
        else:
            bpref += 1.0
        if j == 0:
            inf_ap += 1.0
        else:
            fj = float(j)
            inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
                (rel_so_far - 1 + nonrel_so_far + unjudged_so_far) / fj
            ) * ((rel_so_far - 1 + EPS) / (rel_so_far - 1 + nonrel_so_far + 2 * EPS))
    out["Bpref"] = bpref / num_rel if num_rel else bpref
    out["infAP"] = inf_ap / num_rel if num_rel else inf_ap
    return out


@pytest.mark.parametrize("rel", [1, 2])
def test_random_lists_equal_trec_eval_loops_to_the_bit(con, write, rel):
    import numpy as np

    rng = np.random.default_rng(20240611 + rel)
    qrels_lines, run_lines, expected_inputs = [], [], {}
    for topic in range(1, 41):
        docs = [f"d{n:03d}" for n in range(rng.integers(5, 120))]
        judged = {doc: int(rng.choice([-2, 0, 0, 0, 1, 1, 2])) for doc in docs if rng.random() < 0.6}
        if not judged:
            judged = {docs[0]: 0}
        qrels_lines += [f"{topic} 0 {doc} {level}" for doc, level in judged.items()]
        retrieved = [doc for doc in docs if rng.random() < 0.7] or [docs[-1]]
        scores = {doc: float(rng.integers(0, 15)) for doc in retrieved}  # many ties
        run_lines += [f"{topic} Q0 {doc} 0 {scores[doc]} rnd" for doc in retrieved]
        ordered = sorted(sorted(retrieved, reverse=True), key=lambda doc: -scores[doc])
        labels = [judged.get(doc, NONPOOL) for doc in ordered]
        num_rel = sum(1 for level in judged.values() if level >= rel)
        num_nonrel = sum(1 for level in judged.values() if 0 <= level < rel)
        expected_inputs[str(topic)] = (labels, num_rel, num_nonrel)
    pyeval.load_qrels(con, "r", write("qrels.txt", "\n".join(qrels_lines) + "\n"))
    pyeval.load_run(con, "r", write("run.txt", "\n".join(run_lines) + "\n"))
    names = list(trec_eval_port([1], 1, 1, 0))
    measures = {name: with_rel(parse(name), rel) for name in names}
    result = evaluate(con, "r", list(measures.values()), store=False, topics="intersection")
    got = per_topic_values(result)
    mismatches = []
    for topic, (labels, num_rel, num_nonrel) in expected_inputs.items():
        expected = trec_eval_port(labels, rel, num_rel, num_nonrel)
        for name, measure in measures.items():
            if got[(str(measure), topic)] != expected[name]:
                mismatches.append((topic, str(measure), got[(str(measure), topic)], expected[name]))
    assert mismatches == []
    assert sum(value > 0 for value in got.values()) > len(got) / 3  # not a test of zeros



def test_yaap_by_hand(write):
    """trec_eval m_yaap.c: ln((1 + S)/(1 + R - S)), S the sum of precisions at the relevant
    ranks; a topic the run lacks keeps 0 (trec_eval -c initialises values to 0)."""
    from .helpers import campaign, values

    con = campaign(write, {"1": {"a": 1, "b": 0, "c": 2, "d": 1}, "2": {"x": 1}},
                   {"r": {"1": ["a", "b", "c", "z"]}})
    got = values(con, ["YAAP", "YAAP(rel=2)"])
    precision_sum = 1 / 1 + 2 / 3  # a at rank 1, c at rank 3; d not retrieved; R = 3
    assert got["r", "1", "YAAP"] == pytest.approx(math.log((1 + precision_sum) / (1 + 3 - precision_sum)), abs=1e-15)
    assert got["r", "1", "YAAP(rel=2)"] == pytest.approx(math.log((1 + 1 / 3) / (1 + 1 - 1 / 3)), abs=1e-15)
    assert got["r", "2", "YAAP"] == 0.0


@pytest.mark.parametrize("kinds", [
    ("AP", "GMAP", "RR", "IPrec", "Bpref"),  # trec_eval's official measures of the family
    ("AP", "GMAP", "RR", "IPrec", "IPrecAvg", "infAP", "Bpref", "GMBpref", "YAAP"),
])
def test_the_family_sorts_each_list_once(kinds):
    """The compiled family sorts once: one ordered aggregate of each list's pooled documents, no
    window (j, the documents above and the interpolated precisions are read from the lists;
    each window or ordered aggregate more would sort every pooled document again)."""
    from pyeval.core import compile

    statement = compile.family("average_precision", frozenset(kinds)).upper()
    assert re.findall(r"\bOVER\b", statement) == []
    assert len(re.findall(r"\bORDER BY\b", statement)) == 1
