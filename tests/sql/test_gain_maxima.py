"""The view gain_maxima (sql/views/gain_maxima.sql) and its evaluation stage: gmax per
(campaign, profile, topic), NTCIREVAL's last -g value (docs/adhoc-measures.md section 3: "gmax:
compute = last -g value", even when no document of the topic has that level).

Oracles: NTCIREVAL's rule by hand; TRECRUN.test.nev needs gmax = 2 from ``-g 1:2`` on binary
qrels (its ERR and RBP values are checked in test_metric_cascade.py).
"""
from __future__ import annotations

from pyeval.core.request import EvaluationRequest

import pytest

import pyeval
from pyeval.core import stages
from pyeval.core.gains import define_gain_profile

from .helpers import qrels_text


def maxima(con, campaign_id: str = "t", profile: str | None = None) -> dict:
    rows = con.execute(
        "select profile, topic_id, max_gain from gain_maxima where campaign_id = $c",
        {"c": campaign_id},
    ).fetchall()
    return {(p, t): g for p, t, g in rows if profile is None or p == profile}


@pytest.fixture
def graded(write):
    """Topic 1 uses levels 0..3, topic 2 only 0 and 1, topic 3 only -1 and 0."""
    con = pyeval.connect()
    qrels = {
        "1": {"a": 3, "b": 2, "c": 1, "d": 0},
        "2": {"e": 1, "f": 0},
        "3": {"g": -1, "h": 0},
    }
    pyeval.load_qrels(con, "t", write("qrels.txt", qrels_text(qrels)))
    yield con
    con.close()


def test_builtin_profiles_use_the_campaigns_highest_level(graded):
    """h is the campaign's highest level: every topic gets it, even one that lacks it (as the
    -g list is one for all topics)."""
    assert maxima(graded, profile="linear") == {("linear", t): 3.0 for t in ("1", "2", "3")}
    assert maxima(graded, profile="exp") == {("exp", t): 7.0 for t in ("1", "2", "3")}


def test_a_stored_profile_gives_its_last_value(graded):
    """-g 1:2:3:4 on a campaign judged up to level 3: gmax 4 (the declared level 4)."""
    define_gain_profile(graded, "t", "g1234", "1:2:3:4")
    assert maxima(graded, profile="g1234") == {("g1234", t): 4.0 for t in ("1", "2", "3")}


def test_binary_qrels_with_g_1_2(write):
    """TRECRUN.test.nev's setting: qrels with L1 only and -g 1:2 give gmax = 2."""
    con = pyeval.connect()
    pyeval.load_qrels(con, "t", write("qrels.txt", "1 0 a 1\n1 0 b 0\n2 0 c 1\n"))
    define_gain_profile(con, "t", "g12", "1:2")
    assert maxima(con, profile="g12") == {("g12", "1"): 2.0, ("g12", "2"): 2.0}
    assert maxima(con, profile="linear") == {("linear", "1"): 1.0, ("linear", "2"): 1.0}
    con.close()


def test_unlisted_levels_keep_gain_equal_to_level(graded):
    """A stored profile naming only level 1 leaves levels 2 and 3 at gain = level (as
    gain_values does), so gmax is the largest of its value and the judged levels."""
    define_gain_profile(graded, "t", "low", "1=0.5")
    define_gain_profile(graded, "t", "high", "1=9")
    assert maxima(graded, profile="low") == {("low", t): 3.0 for t in ("1", "2", "3")}
    assert maxima(graded, profile="high") == {("high", t): 9.0 for t in ("1", "2", "3")}


def test_per_topic_rows_win_over_campaign_rows(graded):
    define_gain_profile(graded, "t", "mixed", "1:2:3")
    define_gain_profile(graded, "t", "mixed", "1:2:6", topic_id="2")
    assert maxima(graded, profile="mixed") == {
        ("mixed", "1"): 3.0, ("mixed", "2"): 6.0, ("mixed", "3"): 3.0,
    }


def test_other_campaigns_do_not_interfere(graded, write):
    pyeval.load_qrels(graded, "u", write("other.txt", "1 0 a 5\n9 0 z 1\n"))
    define_gain_profile(graded, "u", "g1234", "1:2:3:4:5:6")
    assert maxima(graded, profile="linear") == {("linear", t): 3.0 for t in ("1", "2", "3")}
    assert maxima(graded, profile="g1234") == {}
    assert maxima(graded, "u", profile="linear") == {("linear", "1"): 5.0, ("linear", "9"): 5.0}


def test_the_evaluation_stage_reads_one_campaign(graded, write):
    pyeval.load_qrels(graded, "u", write("other.txt", "1 0 a 5\n"))
    pyeval.load_run(graded, "t", write("run.txt", "1 Q0 a 1 1 r\n"), name="r")
    settings = EvaluationRequest("t", (), runs=tuple(["r"]), ordering="trec", max_depth=None, judged_only=False,
                                     topics="qrels").stage_parameters()
    tables = stages.run_stages(graded, stages.ADHOC_STAGING, {**settings, "profiles": ["linear"]})
    try:
        staged = graded.execute(
            "select profile, topic_id, max_gain from evaluation_gain_maxima"
        ).fetchall()
    finally:
        stages.drop_tables(graded, tables)
    assert {(p, t): g for p, t, g in staged} == maxima(graded)
