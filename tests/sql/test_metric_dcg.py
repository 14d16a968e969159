"""The dcg family (sql/metrics/metric_dcg.sql): nDCG, nDCG@k, nDCGRel, RnDCG, BinG, G, RBP.

Oracles: trec_eval 10.0's own test outputs (ndcg, ndcg_cut_k, ndcg_rel, Rndcg, binG, G, rbp
and the custom-gain ndcg of out.test.meas_params, per topic and 'all', exact '%6.4f' text);
pytrec_eval (trec_eval 9, same code for these measures) to 1e-12 on the NIST graded fixture
and on generated campaigns; hand computations for gain profiles, empty lists, R = 0 and ties.
"""
from __future__ import annotations

import math
import random

import pytest
import pytrec_eval

import pyeval
from pyeval.errors import MeasureParamError
from pyeval.core.evaluation import evaluate
from pyeval.measures import parse

from .helpers import CASES, TREC, campaign, qrels_text, trec_eval_values, values


#: trec_eval measure -> pyeval measure (binG takes -l: filled in per case)
TREC_NAMES = {
    "ndcg": "nDCG",
    **{f"ndcg_cut_{k}": f"nDCG@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)},
    "ndcg_rel": "nDCGRel",
    "Rndcg": "RnDCG",
    "binG": "BinG(rel={rel})",
    "G": "G",
    "rbp": "RBP(p=0.9, gain_norm=trec_eval)",
}


#: out.test.meas_params: -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 (23.4 read as 23)
CUSTOM_GAINS = {1: 3.0, 2: 9.0, 4: 4.5}
MEAS_PARAMS_NAMES = {
    "ndcg_1=3,2=9,4=4.5": "nDCG(gain='1=3,2=9,4=4.5')",
    "ndcg_cut_10": "nDCG@10",
    "ndcg_cut_20": "nDCG@20",
    "ndcg_cut_23": "nDCG@23",
}




def add_profile(con, profile: str, gains: dict[int, float], campaign_id: str = "t") -> None:
    for level, gain in gains.items():
        con.execute(
            "insert into gain_profiles (campaign_id, profile, topic_id, level, gain) "
            "values ($campaign_id, $profile, '', $level, $gain)",
            {"campaign_id": campaign_id, "profile": profile, "level": level, "gain": gain},
        )


def formatted(result, measure: str) -> dict[str, str]:
    """topic or 'all' -> '%6.4f' text of one measure of an Evaluation."""
    rows = result.per_topic[result.per_topic["measure"] == measure]
    got = {row.topic_id: "%6.4f" % row.value for row in rows.itertuples()}
    means = result.means[result.means["measure"] == measure]
    assert len(means) == 1
    got["all"] = "%6.4f" % means["value"].iloc[0]
    return got


def expected_for(expected_file: str, trec_name: str) -> dict[str, str]:
    expected = {
        topic: value
        for (measure, topic), value in trec_eval_values(expected_file).items()
        if measure == trec_name
    }
    assert expected, f"{trec_name} missing from {expected_file}"
    return expected


@pytest.fixture(scope="module")
def trec_results():
    """Every case evaluated once: expected file -> (Evaluation, trec_eval name -> measure)."""
    results = {}
    for name, (qrels, run, topics, max_depth, rel) in CASES.items():
        names = {trec: str(parse(measure.format(rel=rel))) for trec, measure in TREC_NAMES.items()}
        con = pyeval.connect()
        try:
            pyeval.load_qrels(con, "t", TREC / qrels)
            pyeval.load_run(con, "t", TREC / run)
            result = evaluate(
                con, "t", list(names.values()), topics=topics, max_depth=max_depth, store=False
            )
        finally:
            con.close()
        results[name] = (result, names)
    return results


@pytest.mark.parametrize("trec_name", list(TREC_NAMES))
@pytest.mark.parametrize("expected_file", list(CASES))
def test_matches_trec_eval(trec_results, expected_file, trec_name):
    result, names = trec_results[expected_file]
    assert formatted(result, names[trec_name]) == expected_for(expected_file, trec_name)


@pytest.fixture(scope="module")
def meas_params_result():
    con = pyeval.connect()
    try:
        pyeval.load_qrels(con, "t", TREC / "qrels.test")
        pyeval.load_run(con, "t", TREC / "results.test")
        add_profile(con, "1=3,2=9,4=4.5", CUSTOM_GAINS)
        return evaluate(
            con, "t", list(MEAS_PARAMS_NAMES.values()), topics="intersection", store=False
        )
    finally:
        con.close()


@pytest.mark.parametrize("trec_name", list(MEAS_PARAMS_NAMES))
def test_matches_trec_eval_measure_parameters(meas_params_result, trec_name):
    """Custom gains (-m ndcg.1=3,2=9,4=4.5) as a gain profile; odd cutoffs."""
    expected = expected_for("out.test.meas_params", trec_name)
    assert formatted(meas_params_result, MEAS_PARAMS_NAMES[trec_name]) == expected


# ---------------------------------------------------------------------------------------------
# pytrec_eval (trec_eval 9.0.x: ndcg, ndcg_cut, ndcg_rel, Rndcg, binG and G are unchanged in 10.0)

PYTREC_NAMES = {
    "ndcg": "nDCG",
    "ndcg_cut_5": "nDCG@5",
    "ndcg_cut_10": "nDCG@10",
    "ndcg_cut_30": "nDCG@30",
    "ndcg_rel": "nDCGRel",
    "Rndcg": "RnDCG",
    "G": "G",
    "binG": "BinG",
}


def read_trec_qrels(path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        topic, _, doc, level = line.split()
        qrels.setdefault(topic, {})[doc] = int(level)
    return qrels


def read_trec_run(path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        topic, _, doc, _, score, _ = line.split()
        run.setdefault(topic, {})[doc] = float(score)
    return run


def pytrec_values(qrels, run, relevance_level=1) -> dict[tuple[str, str], float]:
    """(topic, pyeval measure) -> pytrec_eval value."""
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg", "ndcg_cut.5,10,30", "ndcg_rel", "Rndcg", "G", "binG"},
        relevance_level=relevance_level,
    )
    return {
        (topic, PYTREC_NAMES[name]): value
        for topic, measures in evaluator.evaluate(run).items()
        for name, value in measures.items()
    }


def test_ndcg_matches_pytrec_eval_on_graded_fixture():
    """qrels.rel_level (levels -1..4) with results.test: nDCG, nDCG@k and the experimental
    measures to 1e-12 (nDCG and nDCG@k are in fact bit-identical)."""
    qrels = read_trec_qrels(TREC / "qrels.rel_level")
    expected = pytrec_values(qrels, read_trec_run(TREC / "results.test"))
    con = pyeval.connect()
    pyeval.load_qrels(con, "t", TREC / "qrels.rel_level")
    pyeval.load_run(con, "t", TREC / "results.test")
    result = evaluate(con, "t", list(PYTREC_NAMES.values()), topics="intersection", store=False)
    got = {(r.topic_id, r.measure): r.value for r in result.per_topic.itertuples()}
    assert got.keys() == expected.keys()
    for key in got:
        assert got[key] == pytest.approx(expected[key], abs=1e-12), key
    assert all(got[topic, "nDCG"] > 0 for topic in ("301", "302", "303"))


def generated_campaign(seed: int):
    """Graded qrels (levels -1..4, some topics without relevant documents) and three runs that
    mix judged, pooled-unjudged and unpooled documents, with tied scores and lists that end
    just before, at and after the positive part of the ideal list."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, dict[str, float]]] = {"a": {}, "b": {}, "c": {}}
    for t in range(1, 31):
        topic = f"q{t:02d}"
        top = rng.choice([0, 1, 2, 4])
        levels = [-1, *range(top + 1)]
        judged = {f"d{t}-{i:03d}": rng.choice(levels) for i in range(rng.randint(1, 40))}
        qrels[topic] = judged
        positives = sum(level > 0 for level in judged.values())
        for name in runs:
            docs = list(judged) + [f"x{t}-{i}" for i in range(rng.randint(0, 25))]
            rng.shuffle(docs)
            length = rng.choice([1, positives, positives + 1, positives + 2, len(docs)])
            length = max(1, min(length, len(docs)))
            runs[name][topic] = {doc: float(rng.randint(0, 12)) for doc in docs[:length]}
    return qrels, runs


def loaded_campaign(write, qrels, runs):
    """A warehouse holding a generated campaign (qrels and runs as nested dicts)."""
    con = pyeval.connect()
    pyeval.load_qrels(con, "t", write("qrels.txt", qrels_text(qrels)))
    for name, run in runs.items():
        lines = [
            f"{topic} Q0 {doc} 0 {score} {name}"
            for topic, docs in run.items()
            for doc, score in docs.items()
        ]
        pyeval.load_run(con, "t", write(f"{name}.txt", "\n".join(lines) + "\n"), name=name)
    return con


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_campaigns_match_pytrec_eval(write, seed):
    qrels, runs = generated_campaign(seed)
    con = loaded_campaign(write, qrels, runs)
    measures = [*PYTREC_NAMES.values(), "BinG(rel=2)"]
    result = evaluate(con, "t", measures, topics="intersection", store=False)
    got = {(r.run_id, r.topic_id, r.measure): r.value for r in result.per_topic.itertuples()}
    for name, run in runs.items():
        expected = pytrec_values(qrels, run)
        expected.update(
            ((topic, "BinG(rel=2)"), value)
            for (topic, measure), value in pytrec_values(qrels, run, relevance_level=2).items()
            if measure == "BinG"
        )
        for (topic, measure), value in expected.items():
            key = (name, topic, measure)
            assert got[key] == pytest.approx(value, abs=1e-12), key
        assert len([key for key in got if key[0] == name]) == len(expected)


# ---------------------------------------------------------------------------------------------
# Line-by-line ports of the C loops, for gain profiles pytrec_eval cannot take (its measure
# parameters stop at the first comma): level-0 gains, negative gains, levels sharing a gain


def c_setup_gains(judged_levels: list[int], pairs: dict[int, float]) -> list[list[float]]:
    """gain_init.c setup_gains: [level, gain, num_at_level] sorted by increasing gain (exact
    comparison: the generated profiles avoid comp_rel_gain's truncation quirk)."""
    counts: dict[int, int] = {}
    for level in judged_levels:
        if level >= 0:
            counts[level] = counts.get(level, 0) + 1
    num_rel_levels = max(counts) + 1 if counts else 0
    gains = [[level, gain, 0] for level, gain in pairs.items()]
    for level in range(num_rel_levels):
        for entry in gains:
            if entry[0] == level:
                entry[2] = counts.get(level, 0)
                break
        else:
            gains.append([level, float(level), counts.get(level, 0)])
    return sorted(gains, key=lambda entry: entry[1])


class IdealWalk:
    """The ideal-list cursor shared by m_ndcg.c, m_ndcg_rel.c, m_Rndcg.c and m_G.c."""

    def __init__(self, gains):
        self.gains = gains
        self.cur_level = len(gains) - 1
        self.gain = gains[self.cur_level][1] if self.cur_level >= 0 else 0.0
        self.num_at_level = 0

    def advance(self) -> float:
        self.num_at_level += 1
        while self.cur_level >= 0 and self.num_at_level > self.gains[self.cur_level][2]:
            self.num_at_level = 1
            self.cur_level -= 1
            self.gain = self.gains[self.cur_level][1] if self.cur_level >= 0 else 0.0
        return self.gain


def c_get_gain(label: int, gains) -> float:
    for level, gain, _ in gains:
        if level == label:
            return gain
    return 0.0


def c_ndcg(labels, gains) -> float:
    ideal, results_dcg, ideal_dcg, i = IdealWalk(gains), 0.0, 0.0, 0
    while i < len(labels) and ideal.gain > 0.0:
        results_gain = c_get_gain(labels[i], gains)
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        if ideal.advance() > 0.0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    while i < len(labels):
        results_gain = c_get_gain(labels[i], gains)
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        i += 1
    while ideal.gain > 0.0:
        if ideal.advance() > 0.0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    return results_dcg / ideal_dcg if ideal_dcg > 0.0 else 0.0


def c_ndcg_rel(labels, gains) -> float:
    ideal, results_dcg, ideal_dcg, i = IdealWalk(gains), 0.0, 0.0, 0
    total, num_rel_ret, num_rel = 0.0, 0, 0
    while i < len(labels) and ideal.gain > 0.0:
        results_gain = c_get_gain(labels[i], gains)
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        if ideal.advance() > 0.0:
            num_rel += 1
            ideal_dcg += ideal.gain / math.log2(i + 2)
        if results_gain > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while i < len(labels):
        results_gain = c_get_gain(labels[i], gains)
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        if results_gain > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while ideal.gain > 0.0:
        if ideal.advance() > 0.0:
            num_rel += 1
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    if ideal_dcg == 0.0:
        return 0.0  # C: 0 * x / 0 = NaN, and NaN > 0 is false
    total += (num_rel - num_rel_ret) * results_dcg / ideal_dcg
    return total / num_rel if total > 0.0 else 0.0


def c_rndcg(labels, gains, num_rel: int) -> float:
    if num_rel == 0:
        return 0.0
    ideal, results_dcg, ideal_dcg, i = IdealWalk(gains), 0.0, 0.0, 0
    old_ideal_gain, total, changes = ideal.gain, 0.0, 0
    while i < len(labels) and ideal.gain > 0.0:
        results_gain = c_get_gain(labels[i], gains)
        ideal.advance()
        if old_ideal_gain != ideal.gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old_ideal_gain = ideal.gain
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    if i < len(labels):
        while i < len(labels):
            results_gain = c_get_gain(labels[i], gains)
            if results_gain != 0:
                results_dcg += results_gain / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0.0:
            total += results_dcg / ideal_dcg
            changes += 1
    while ideal.gain > 0.0:
        ideal.advance()
        if old_ideal_gain != ideal.gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old_ideal_gain = ideal.gain
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    return total / changes if changes else math.nan  # C: 0/0 when no boundary is counted


def c_g(labels, gains) -> float:
    ideal, results_g, sum_results, sum_ideal, sum_cost, i = IdealWalk(gains), 0.0, 0.0, 0.0, 0.0, 0
    while i < len(labels) and ideal.gain > 0.0:
        results_gain = c_get_gain(labels[i], gains)
        sum_results += results_gain
        if ideal.advance() > 0.0:
            sum_ideal += ideal.gain
        sum_cost += ideal.gain if ideal.gain >= 1.0 else 1.0
        if results_gain != 0:
            results_g += results_gain / math.log2(2 + sum_cost - sum_results)
        i += 1
    while i < len(labels):
        results_gain = c_get_gain(labels[i], gains)
        sum_results += results_gain
        sum_cost += 1.0
        if results_gain != 0:
            results_g += results_gain / math.log2(2 + sum_cost - sum_results)
        i += 1
    while ideal.gain > 0.0:
        if ideal.advance() > 0.0:
            sum_ideal += ideal.gain
        i += 1
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


#: profile name -> custom gains (levels 0..4; distinct gains differ by at least 1)
PORT_PROFILES = {
    "linear": {},
    "1=3,2=9,4=4.5": {1: 3.0, 2: 9.0, 4: 4.5},  # levels 1 and 3 share gain 3
    "mixed": {0: 1.0, 1: -2.0, 3: 6.0},  # judged non-relevant documents gain 1
    "exp": {1: 1.0, 2: 3.0, 3: 7.0, 4: 15.0},
}


def ranked_labels(qrels_topic: dict[str, int], run_topic: dict[str, float]) -> list[int]:
    """Labels in trec_eval order (score desc, docno desc); -1 for any unjudged document."""
    docs = sorted(run_topic, key=lambda doc: (run_topic[doc], doc), reverse=True)
    return [qrels_topic[doc] if qrels_topic.get(doc, -1) >= 0 else -1 for doc in docs]


@pytest.mark.parametrize("seed", [4, 5])
def test_gain_profiles_match_c_ports(write, seed):
    qrels, runs = generated_campaign(seed)
    con = loaded_campaign(write, qrels, runs)
    for profile, pairs in PORT_PROFILES.items():
        if profile not in ("linear", "exp"):
            add_profile(con, profile, pairs)
    names = {
        (profile, kind): str(parse(f"{kind}(gain={profile!r})"))
        for profile in PORT_PROFILES
        for kind in ("nDCG", "nDCGRel", "RnDCG", "G")
    }
    result = evaluate(con, "t", list(names.values()), topics="intersection", store=False)
    got = {(r.run_id, r.topic_id, r.measure): r.value for r in result.per_topic.itertuples()}
    assert len(got) == sum(len(run) for run in runs.values()) * len(names)
    for name, run in runs.items():
        for topic, docs in run.items():
            labels = ranked_labels(qrels[topic], docs)
            judged = list(qrels[topic].values())
            num_rel = sum(level >= 1 for level in judged)
            for profile, pairs in PORT_PROFILES.items():
                gains = c_setup_gains(judged, pairs)
                expected = {
                    "nDCG": c_ndcg(labels, gains),
                    "nDCGRel": c_ndcg_rel(labels, gains),
                    "RnDCG": c_rndcg(labels, gains, num_rel),
                    "G": c_g(labels, gains),
                }
                for kind, value in expected.items():
                    key = (name, topic, names[profile, kind])
                    assert got[key] == pytest.approx(value, abs=1e-12, nan_ok=True), key




def lg(x: float) -> float:
    return math.log2(x)


#: topic 1: levels 0, 2, unpooled, 3, pooled-unjudged, 1 in rank order; d6 (level 1) is not
#: retrieved. Linear gains by rank: 0 2 0 3 0 1; ideal 3 2 1 1 (n+ = 4); L = 6.
HAND_QRELS = {"1": {"d1": 2, "d2": 1, "d3": 0, "d4": 3, "d5": -1, "d6": 1}}
HAND_RUN = {"1": ["d3", "d1", "x", "d4", "d5", "d2"]}


@pytest.fixture
def hand_campaign(write):
    con = campaign(write, HAND_QRELS, {"run": HAND_RUN})
    yield con
    con.close()


def test_ndcg_linear_and_exp_gains_by_hand(hand_campaign):
    got = values(hand_campaign, ["nDCG", "nDCG@3", "nDCG(gain=exp)", "nDCG(gain=exp)@3"])
    dcg = 2 / lg(3) + 3 / lg(5) + 1 / lg(7)
    idcg = 3 + 2 / lg(3) + 1 / lg(4) + 1 / lg(5)
    assert got["run", "1", "nDCG"] == pytest.approx(dcg / idcg, abs=1e-15)
    idcg3 = 3 + 2 / lg(3) + 1 / 2
    assert got["run", "1", "nDCG@3"] == pytest.approx((2 / lg(3)) / idcg3, abs=1e-15)
    # exp: 2^level - 1 = 3, 7, 1 for levels 2, 3, 1
    dcg_exp = 3 / lg(3) + 7 / lg(5) + 1 / lg(7)
    idcg_exp = 7 + 3 / lg(3) + 1 / 2 + 1 / lg(5)
    assert got["run", "1", "nDCG(gain=exp)"] == pytest.approx(dcg_exp / idcg_exp, abs=1e-15)
    assert got["run", "1", "nDCG(gain=exp)@3"] == pytest.approx(
        (3 / lg(3)) / (7 + 3 / lg(3) + 1 / 2), abs=1e-15
    )


def test_dcg_and_ideal_dcg_by_hand(hand_campaign):
    """trec_eval dcg and ideal_dcg (m_ndcg.c): nDCG's numerator and denominator."""
    got = values(hand_campaign, ["DCG", "IdealDCG", "DCG@3", "IdealDCG@3", "DCG(gain=exp)"])
    assert got["run", "1", "DCG"] == pytest.approx(2 / lg(3) + 3 / lg(5) + 1 / lg(7), abs=1e-15)
    assert got["run", "1", "IdealDCG"] == pytest.approx(3 + 2 / lg(3) + 1 / lg(4) + 1 / lg(5), abs=1e-15)
    assert got["run", "1", "DCG@3"] == pytest.approx(2 / lg(3), abs=1e-15)
    assert got["run", "1", "IdealDCG@3"] == pytest.approx(3 + 2 / lg(3) + 1 / 2, abs=1e-15)
    assert got["run", "1", "DCG(gain=exp)"] == pytest.approx(3 / lg(3) + 7 / lg(5) + 1 / lg(7), abs=1e-15)


def test_trec_eval_dcg_is_ndcg_numerator_and_denominator():
    from click.testing import CliRunner

    from pyeval.cli import main

    printed = CliRunner().invoke(main, [
        "trec_eval", "-q", "-m", "dcg", "-m", "ideal_dcg", "-m", "ndcg",
        str(TREC / "qrels.test"), str(TREC / "results.test"),
    ]).stdout
    table = {}
    for line in printed.splitlines():
        name, topic, value = line.split("\t")
        table[name.strip(), topic] = float(value)
    topics = {topic for _, topic in table if topic != "all"}
    assert len(topics) > 1
    for topic in topics:
        if table["ideal_dcg", topic] > 0:
            assert table["ndcg", topic] == pytest.approx(table["dcg", topic] / table["ideal_dcg", topic], abs=1e-4)


def test_experimental_measures_by_hand(hand_campaign):
    got = values(hand_campaign, ["nDCGRel", "RnDCG", "G", "BinG", "BinG(rel=2)"])
    # IDCG(1..4)
    ideal = [3, 3 + 2 / lg(3), 3 + 2 / lg(3) + 1 / 2, 3 + 2 / lg(3) + 1 / 2 + 1 / lg(5)]
    dcg2 = 2 / lg(3)
    dcg4 = dcg2 + 3 / lg(5)
    dcg6 = dcg4 + 1 / lg(7)
    # relevant retrieved at ranks 2, 4, 6; one ideal document (d6) never retrieved
    ndcg_rel = (dcg2 / ideal[1] + dcg4 / ideal[3] + dcg6 / ideal[3] + 1 * dcg6 / ideal[3]) / 4
    assert got["run", "1", "nDCGRel"] == pytest.approx(ndcg_rel, abs=1e-15)
    # R-levels end at ideal ranks 1 (gain 3), 2 (gain 2), 4 (gain 1); L = 6 >= n+ + 2 adds rank L
    rndcg = (0 / ideal[0] + dcg2 / ideal[1] + dcg4 / ideal[3] + dcg6 / ideal[3]) / 4
    assert got["run", "1", "RnDCG"] == pytest.approx(rndcg, abs=1e-15)
    # cost(r) = 3, 5, 6, 7, 8, 9; cumulative gain cg(r) = 0, 2, 2, 5, 5, 6; sum of ideal gains 7
    g = (2 / lg(2 + 5 - 2) + 3 / lg(2 + 7 - 5) + 1 / lg(2 + 9 - 6)) / 7
    assert got["run", "1", "G"] == pytest.approx(g, abs=1e-15)
    # binG: 1/log2(2 + non-relevant docs above), over R
    bing = (1 / lg(3) + 1 / lg(4) + 1 / lg(5)) / 4
    assert got["run", "1", "BinG"] == pytest.approx(bing, abs=1e-15)
    assert got["run", "1", "BinG(rel=2)"] == pytest.approx((1 / lg(3) + 1 / lg(4)) / 2, abs=1e-15)


def test_rbp_variants_by_hand(hand_campaign):
    got = values(
        hand_campaign,
        [
            "RBP", "RBP(rel=2)", "RBP(p=0.9, gain_norm=trec_eval)",
            "RBP(p=0.9, rel=1, gain_norm=trec_eval)",
        ],
    )
    # ir_measures default: p = 0.8, graded by the raw level
    graded = 0.2 * (2 * 0.8 + 3 * 0.8**3 + 1 * 0.8**5)
    assert got["run", "1", "RBP"] == pytest.approx(graded, abs=1e-15)
    assert got["run", "1", "RBP(rel=2)"] == pytest.approx(0.2 * (0.8 + 0.8**3), abs=1e-15)
    # trec_eval: levels rescaled by the highest judged level (3)
    trec = 0.1 * (2 / 3 * 0.9 + 1 * 0.9**3 + 1 / 3 * 0.9**5)
    assert got["run", "1", "RBP(gain_norm=trec_eval, p=0.9)"] == pytest.approx(trec, abs=1e-15)
    binary = 0.1 * (0.9 + 0.9**3 + 0.9**5)
    binary_name = "RBP(gain_norm=trec_eval, p=0.9, rel=1)"
    assert got["run", "1", binary_name] == pytest.approx(binary, abs=1e-15)


def test_equal_gains_share_one_r_level(hand_campaign):
    """A profile giving levels 1 and 2 the same gain: RnDCG's boundaries are gain changes."""
    add_profile(hand_campaign, "flat", {1: 2.0, 2: 2.0})
    got = values(hand_campaign, ["RnDCG(gain=flat)", "nDCG(gain=flat)"])
    ideal1 = 3
    ideal4 = 3 + 2 / lg(3) + 2 / 2 + 2 / lg(5)
    dcg4 = 2 / lg(3) + 3 / lg(5)
    dcg6 = dcg4 + 2 / lg(7)
    assert got["run", "1", "RnDCG(gain=flat)"] == pytest.approx(
        (0 / ideal1 + dcg4 / ideal4 + dcg6 / ideal4) / 3, abs=1e-15
    )
    assert got["run", "1", "nDCG(gain=flat)"] == pytest.approx(dcg6 / ideal4, abs=1e-15)


def test_negative_and_level_zero_gains(write):
    """trec_eval allows gains <= 0 and a gain for level 0: negative gains count in DCG, the
    ideal list keeps positive gains only."""
    qrels = {"1": {"d1": 2, "d2": 1, "d3": 0, "d4": 3}, "2": {"e1": 0, "e2": 0, "e3": -1}}
    runs = {"1": ["d3", "d1", "x", "d4", "d2"], "2": ["e1", "e3"]}
    con = campaign(write, qrels, {"run": runs})
    add_profile(con, "neg", {1: -1.0})
    add_profile(con, "zero", {0: 1.0})
    got = values(con, ["nDCG(gain=neg)", "nDCG(gain=zero)", "RnDCG(gain=zero)", "nDCG"])
    dcg = 2 / lg(3) + 3 / lg(5) - 1 / lg(6)
    assert got["run", "1", "nDCG(gain=neg)"] == pytest.approx(dcg / (3 + 2 / lg(3)), abs=1e-15)
    # topic 2 has no relevant document, but level 0 has gain 1: ideal 1, 1
    assert got["run", "2", "nDCG(gain=zero)"] == pytest.approx(1 / (1 + 1 / lg(3)), abs=1e-15)
    assert got["run", "2", "RnDCG(gain=zero)"] == 0.0  # m_Rndcg.c returns 0 when R = 0
    assert got["run", "2", "nDCG"] == 0.0


ALL_MEASURES = [
    "nDCG", "nDCG@5", "nDCG(gain=exp)", "nDCGRel", "RnDCG", "G", "BinG", "BinG(rel=2)",
    "RBP", "RBP(rel=1)", "RBP(p=0.9, gain_norm=trec_eval)",
]


def test_empty_list_and_no_relevant_documents_score_zero(write):
    """Topic 2 is missing from the run (empty ranking), topic 3 retrieves only unpooled
    documents, topic 4 has no relevant document (R = 0): every value is 0, never NaN."""
    qrels = {
        "1": {"a": 1, "b": 2},
        "2": {"c": 1},
        "3": {"d": 2, "e": 0},
        "4": {"f": 0, "g": 0, "h": -1},
    }
    runs = {"1": ["a", "b"], "3": ["x", "y"], "4": ["f", "h", "z"]}
    con = campaign(write, qrels, {"run": runs})
    got = values(con, ALL_MEASURES, topics="qrels")
    assert len(got) == 4 * len(ALL_MEASURES)
    for (_, topic, measure), value in got.items():
        if topic != "1":
            assert value == 0.0, (topic, measure)
    assert got["run", "1", "nDCG"] == pytest.approx((1 + 2 / lg(3)) / (2 + 1 / lg(3)), abs=1e-15)
    intersection = values(con, ALL_MEASURES, topics="intersection")
    assert {key[1] for key in intersection} == {"1", "3", "4"}


def test_tied_scores_follow_trec_eval_order(write):
    """Equal scores: docno descending (trec_eval), so b (non-relevant) precedes a."""
    con = pyeval.connect()
    pyeval.load_qrels(con, "t", write("qrels.txt", "1 0 a 1\n1 0 b 0\n"))
    pyeval.load_run(con, "t", write("run.txt", "1 Q0 a 1 2.5 run\n1 Q0 b 2 2.5 run\n"))
    got = values(con, ["nDCG", "BinG", "RBP(rel=1)"])
    assert got["run", "1", "nDCG"] == pytest.approx(1 / lg(3), abs=1e-15)
    assert got["run", "1", "BinG"] == pytest.approx(1 / lg(3), abs=1e-15)
    assert got["run", "1", "RBP(rel=1)"] == pytest.approx(0.2 * 0.8, abs=1e-15)
    by_rank = values(con, ["nDCG"], ordering="rank")
    assert by_rank["run", "1", "nDCG"] == 1.0


def test_depth_cut_and_judged_only(hand_campaign):
    """-M cuts the list before scoring; -J drops unjudged documents and renumbers ranks."""
    got = values(hand_campaign, ["nDCG", "RBP(rel=1)"], max_depth=2)
    idcg = 3 + 2 / lg(3) + 1 / lg(4) + 1 / lg(5)
    assert got["run", "1", "nDCG"] == pytest.approx((2 / lg(3)) / idcg, abs=1e-15)
    assert got["run", "1", "RBP(rel=1)"] == pytest.approx(0.2 * 0.8, abs=1e-15)
    judged = values(hand_campaign, ["nDCG"], judged_only=True)  # d3 d1 d4 d2: gains 0 2 3 1
    assert judged["run", "1", "nDCG"] == pytest.approx(
        (2 / lg(3) + 3 / lg(4) + 1 / lg(5)) / idcg, abs=1e-15
    )


def test_other_campaigns_do_not_interfere(write):
    """Judgment counts per level are found for the evaluated campaign only."""
    con = campaign(write, HAND_QRELS, {"run": HAND_RUN})
    before = values(con, ALL_MEASURES)
    other = "\n".join(f"1 0 d{i} {i % 4}" for i in range(1, 30)) + "\n"
    pyeval.load_qrels(con, "u", write("other.txt", other))
    pyeval.load_run(con, "u", write("other-run.txt", "1 Q0 d3 1 9 run\n"), name="run")
    assert values(con, ALL_MEASURES) == before
    pyeval.load_qrels(con, "copy", write("copy.txt", qrels_text(HAND_QRELS)))
    assert values(con, ALL_MEASURES) == before


def test_campaigns_differing_only_in_level_counts(write):
    con = campaign(write, {"1": {"a": 1, "b": 2, "e": 2}}, {"run": {"1": ["a", "x", "b"]}})
    pyeval.load_qrels(con, "twin", write("twin.txt", "1 0 a 1\n1 0 b 1\n1 0 e 2\n"))
    got = values(con, ["nDCG", "BinG"])
    assert got["run", "1", "BinG"] == pytest.approx((1 + 1 / lg(3)) / 3, abs=1e-15)
    assert got["run", "1", "nDCG"] == pytest.approx(
        (1 + 2 / lg(4)) / (2 + 2 / lg(3) + 1 / lg(4)), abs=1e-15
    )


def test_unknown_gain_profile_is_an_error(hand_campaign):
    with pytest.raises(MeasureParamError, match="unknown gain profile 'nosuch'"):
        values(hand_campaign, ["nDCG(gain=nosuch)"])


def test_rndcg_counts_relevance_at_its_threshold(write):
    # trec_eval's Rndcg returns 0 when num_rel (at -l) is 0: a topic with level-1 documents
    # only has R = 0 at rel=2
    con = pyeval.connect()
    pyeval.load_qrels(con, "t", write("q.txt", "1 0 a 1\n1 0 b 1\n"))
    pyeval.load_run(con, "t", write("r.txt", "1 Q0 a 1 2 r\n1 Q0 x 2 1 r\n1 Q0 y 3 0.5 r\n1 Q0 b 4 0.1 r\n"))
    result = evaluate(con, "t", ["RnDCG", "RnDCG(rel=2)"], store=False)
    values = dict(zip(result.per_topic.measure, result.per_topic.value))
    assert values["RnDCG"] > 0 and values["RnDCG(rel=2)"] == 0.0
    con.close()


def test_rbp_gain_profiles_cutoffs_and_gmax(hand_campaign):
    """RBP takes a gain profile and a cutoff; gain_norm=gmax divides by the profile's highest
    gain (NTCIREVAL's RBP: the last -g value, even when no document has that level)."""
    from pyeval.core.gains import define_gain_profile

    define_gain_profile(hand_campaign, "t", "g1234", "1:2:3:4")
    got = values(hand_campaign, [
        "RBP(gain=exp)", "RBP@4", "RBP(p=0.95, gain_norm=gmax)", "RBP(p=0.95, gain_norm=gmax)@2",
        "RBP(gain=g1234, gain_norm=gmax)", "RBP(gain=exp, gain_norm=trec_eval)", "RBP(rel=2)@3",
    ])
    # linear gains by rank 0 2 0 3 0 1; exp gains 0 3 0 7 0 1
    assert got["run", "1", "RBP(gain=exp)"] == pytest.approx(0.2 * (3 * 0.8 + 7 * 0.8**3 + 0.8**5), abs=1e-15)
    assert got["run", "1", "RBP@4"] == pytest.approx(0.2 * (2 * 0.8 + 3 * 0.8**3), abs=1e-15)
    gmax = 0.05 * (2 / 3 * 0.95 + 3 / 3 * 0.95**3 + 1 / 3 * 0.95**5)
    assert got["run", "1", "RBP(gain_norm=gmax, p=0.95)"] == pytest.approx(gmax, abs=1e-15)
    assert got["run", "1", "RBP(gain_norm=gmax, p=0.95)@2"] == pytest.approx(0.05 * 2 / 3 * 0.95, abs=1e-15)
    assert got["run", "1", "RBP(gain=g1234, gain_norm=gmax)"] == pytest.approx(
        0.2 * (2 / 4 * 0.8 + 3 / 4 * 0.8**3 + 1 / 4 * 0.8**5), abs=1e-15
    )
    assert got["run", "1", "RBP(gain=exp, gain_norm=trec_eval)"] == pytest.approx(
        0.2 * (3 / 7 * 0.8 + 7 / 7 * 0.8**3 + 1 / 7 * 0.8**5), abs=1e-15
    )
    assert got["run", "1", "RBP(rel=2)@3"] == pytest.approx(0.2 * 0.8, abs=1e-15)
