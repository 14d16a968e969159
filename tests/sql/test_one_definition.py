"""Rules pyeval computes in two places on purpose, and the equality that keeps the two in step.

- The intent-aware measures of ndeval's family (pyeval/drivers/ndeval.py: P_IA, AP_IA,
  StRecall) and of the per-intent staging (sql/metrics/metric_intent_average.sql: IA_P, IA_AP,
  IRec): the driver repeats ndeval's arithmetic operation by operation (its doubles, its @1 and
  1/N conventions), the SQL family composes any ad hoc measure per intent (IA_nDCG, IA_Q, ...).
  With the campaign's probabilities they are the same numbers.
- The ideal list: the stage evaluation_ideal_gains (every staging's, read by the families) and
  the public views ideal_gains, intent_ideal_gains and global_ideal_gains (for users: a view
  cannot read an evaluation's temporary stage). trec_eval's ndcg (sql/metrics/metric_dcg.sql)
  keeps its own: its ideal list holds every judged document with a positive gain, level 0
  included under a stored profile that gives level 0 a gain (m_ndcg.c), where the stage holds
  the relevant documents (level >= 1) as NTCIREVAL does; the two agree when no level below 1
  has a positive gain.
"""
from __future__ import annotations

from pyeval.core.request import EvaluationRequest

import math
import random

import pandas as pd
import pytest

import pyeval
from pyeval.core import stages
from pyeval.diversity import GLOBAL_STAGING, PER_INTENT_STAGING, SEPARATOR
from pyeval.core.evaluation import evaluate
from pyeval.core.gains import define_gain_profile

from .test_diversity_seeds import diversity_campaign


def _random_campaign(seed: int):
    rng = random.Random(seed)
    judgments, intents, run = {}, {}, {}
    for topic in map(str, range(1, 6)):
        names = [f"{topic}.{i}" for i in range(1, rng.randint(2, 4) + 1)]
        weights = [rng.random() + 0.1 for _ in names]
        intents[topic] = {name: (w / sum(weights), "inf") for name, w in zip(names, weights)}
        docs = [f"d{topic}_{k}" for k in range(12)]
        judgments[topic] = {name: {d: rng.choice([0, 0, 1, 2]) for d in rng.sample(docs, 7)} for name in names}
        run[topic] = rng.sample(docs + [f"u{topic}_{k}" for k in range(4)], 10)
    return diversity_campaign(judgments, intents, {"r": run, "s": {t: list(reversed(d)) for t, d in run.items()}})


@pytest.fixture(scope="module", params=[1, 2])
def campaign(request):
    con = _random_campaign(request.param)
    yield con
    con.close()


def _values(con, names):
    result = evaluate(con, "t", names, ordering="trec", store=False)  # one order for both definitions
    return {(r.run_id, r.topic_id, r.measure): r.value for r in result.per_topic.itertuples()}


@pytest.mark.parametrize("sql_name, driver_name", [
    ("IA_P@5", "P_IA(probs=given)@5"), ("IA_P@10", "P_IA(probs=given)@10"), ("IA_AP", "AP_IA(probs=given)"),
    ("IRec@5", "StRecall@5"),
    ("IRec@10", "StRecall@10"),
])
def test_intent_aware_measures_agree_between_sql_and_the_ndeval_driver(campaign, sql_name, driver_name):
    values = _values(campaign, [sql_name, driver_name])
    pairs = {(run, topic) for run, topic, _ in values}
    assert len(pairs) == 10
    for run, topic in pairs:
        assert values[run, topic, sql_name] == pytest.approx(values[run, topic, driver_name], abs=1e-12), \
            (run, topic)


def _stage_rows(con, files, settings) -> dict:
    tables = stages.run_stages(con, files, settings)
    try:
        rows = con.execute("select profile, topic_id, ideal_rank, gain from evaluation_ideal_gains").fetchall()
    finally:
        stages.drop_tables(con, tables)
    return {(profile, topic, rank): gain for profile, topic, rank, gain in rows}


def _settings(**extra):
    settings = EvaluationRequest("t", (), runs=tuple(["r", "s"]), ordering="trec", max_depth=None, judged_only=False,
                                     topics="qrels").stage_parameters()
    return {**settings, **extra}


def test_the_global_ideal_list_view_is_the_global_stagings(campaign):
    staged = _stage_rows(campaign, GLOBAL_STAGING, _settings(
        probs="given", profile="linear", din=False, profiles=["linear"], negative_is_judged=True))
    view = {("linear", topic, rank): gain for topic, rank, gain in campaign.execute(
        "select topic_id, ideal_rank, gain from global_ideal_gains "
        "where campaign_id = 't' and probs = 'given' and profile = 'linear'").fetchall()}
    assert staged.keys() == view.keys()
    assert all(math.isclose(staged[key], view[key], abs_tol=1e-12) for key in view)


def test_the_intent_ideal_list_view_is_the_per_intent_stagings(campaign):
    staged = _stage_rows(campaign, PER_INTENT_STAGING, _settings(
        separator=SEPARATOR, profiles=["linear", "exp"], negative_is_judged=True))
    view = {(profile, f"{topic}{SEPARATOR}{intent}", rank): gain
            for profile, topic, intent, rank, gain in campaign.execute(
                "select profile, topic_id, intent_id, ideal_rank, gain from intent_ideal_gains "
                "where campaign_id = 't' and profile in ('linear', 'exp')").fetchall()}
    assert staged == view


@pytest.fixture(scope="module")
def adhoc():
    rng = random.Random(7)
    qrels = [(str(t), f"d{k}", rng.choice([-1, 0, 0, 1, 2, 3])) for t in range(1, 6) for k in range(15)]
    run = [(str(t), f"d{k}", rng.random()) for t in range(1, 6) for k in rng.sample(range(20), 12)]
    con = pyeval.connect()
    pyeval.load_qrels(con, "a", pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]))
    pyeval.load_run(con, "a", pd.DataFrame(run, columns=["query_id", "doc_id", "score"]), name="r")
    define_gain_profile(con, "a", "steeper", "1:4:9")
    define_gain_profile(con, "a", "zero_gains", "0=1,1=2,2=3,3=5")
    yield con
    con.close()


def test_the_ideal_list_view_is_the_adhoc_stagings(adhoc):
    settings = EvaluationRequest("a", (), runs=tuple(["r"]), ordering="trec", max_depth=None, judged_only=False,
                                     topics="qrels").stage_parameters()
    staged = _stage_rows(adhoc, stages.ADHOC_STAGING, {**settings, "profiles": ["linear"]})
    view = {("linear", topic, rank): gain for topic, rank, gain in adhoc.execute(
        "select topic_id, ideal_rank, gain from ideal_gains where campaign_id = 'a'").fetchall()}
    assert staged == view


@pytest.mark.parametrize("profile, same", [("linear", True), ("exp", True), ("steeper", True), ("zero_gains", False)])
def test_trec_evals_ideal_dcg_is_the_stages_unless_a_level_below_1_gains(adhoc, profile, same):
    settings = EvaluationRequest("a", (), runs=tuple(["r"]), ordering="trec", max_depth=None, judged_only=False,
                                     topics="qrels").stage_parameters()
    staged = _stage_rows(adhoc, stages.ADHOC_STAGING, {**settings, "profiles": [profile]})
    ideal = {}
    for (_, topic, rank), gain in sorted(staged.items()):
        if gain > 0:
            ideal[topic] = ideal.get(topic, 0.0) + gain / math.log2(rank + 1)
    result = evaluate(adhoc, "a", [f"IdealDCG(gain={profile})"], store=False).per_topic
    got = dict(zip(result["topic_id"], result["value"]))
    agree = all(math.isclose(got[topic], ideal.get(topic, 0.0), rel_tol=1e-12) for topic in got)
    assert agree is same
