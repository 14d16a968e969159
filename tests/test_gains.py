"""Gain profiles as data (pyeval/core/gains.py, table gain_profiles, view gain_values)."""
from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main
from pyeval.errors import MeasureParamError
from pyeval.core.gains import parse_gains

QRELS = "1 0 a 3\n1 0 b 1\n1 0 c 2\n2 0 a 1\n"
RUN = "1 Q0 b 1 3 r\n1 Q0 a 2 2 r\n2 Q0 a 1 1 r\n"


@pytest.mark.parametrize(
    "spec,gains",
    [("1:5:10", {1: 1.0, 2: 5.0, 3: 10.0}), ("1=3,2=9,4=4.5", {1: 3.0, 2: 9.0, 4: 4.5}), ({2: 7}, {2: 7.0})],
)
def test_parse(spec, gains):
    assert parse_gains(spec) == gains


@pytest.mark.parametrize("spec", ["", "a:b", "1=x", "-1=2"])
def test_parse_errors(spec):
    with pytest.raises(MeasureParamError):
        parse_gains(spec)


def test_profiles_change_ndcg_and_per_topic_rows_win(con, write):
    pyeval.load_qrels(con, "c", write("q.txt", QRELS))
    pyeval.load_run(con, "c", write("r.txt", RUN))
    pyeval.define_gain_profile(con, "c", "graded", "1:5:10")
    pyeval.define_gain_profile(con, "c", "graded", "1=1,3=100", topic_id="1")
    result = pyeval.evaluate(con, "c", ["nDCG(gain=graded)", "nDCG(gain=exp)", "nDCG"], store=False)
    values = {(t, m): v for t, m, v in zip(result.per_topic.topic_id, result.per_topic.measure, result.per_topic.value)}
    # topic 1 uses its own row for levels 1 and 3 and the campaign row for level 2: gains 100, 5, 1
    dcg = 1 / math.log2(2) + 100 / math.log2(3)
    ideal = 100 + 5 / math.log2(3) + 1 / math.log2(4)
    assert values[("1", "nDCG(gain=graded)")] == pytest.approx(dcg / ideal, abs=1e-12)
    exp_dcg = 1 + 7 / math.log2(3)
    exp_ideal = 7 + 3 / math.log2(3) + 1 / math.log2(4)
    assert values[("1", "nDCG(gain=exp)")] == pytest.approx(exp_dcg / exp_ideal, abs=1e-12)
    with pytest.raises(MeasureParamError, match="exists"):
        pyeval.define_gain_profile(con, "c", "graded", "1:2:3")
    with pytest.raises(MeasureParamError, match="identifier other than linear, exp, flat, steep, adjust"):
        pyeval.define_gain_profile(con, "c", "exp", "1:2:3")


def test_gains_command_and_evaluate_default_gain(tmp_path, write):
    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    for args in (["load", "qrels", "-C", "c", str(write("q.txt", QRELS))], ["load", "run", "-C", "c", str(write("r.txt", RUN))]):
        assert runner.invoke(main, ["--db", db, *args]).exit_code == 0
    out = runner.invoke(main, ["--db", db, "gains", "-C", "c", "ones", "1:1:1"])
    assert out.exit_code == 0 and out.output == "c: gain profile 'ones': L1=1, L2=1, L3=1\n"
    result = runner.invoke(main, ["--db", db, "evaluate", "-C", "c", "-m", "nDCG@2", "-m", "P@2", "--gains", "ones",
                                  "--format", "csv", "--no-store"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "run_id,nDCG(gain=ones)@2,P@2"


# Sakai, AIRS 2005, section 4.5: default 3:2:1 (= linear for h = 3), flat 1:1:1,
# steep 10:5:1 and the per-topic "adjust" assignment (docs/adhoc-measures.md section 1.2,
# reconstructed) as built-in profiles.
SEED_QRELS = (
    "1 0 s1 3\n1 0 a1 2\n1 0 b1 1\n1 0 b2 1\n1 0 b3 1\n1 0 n1 0\n"  # R = 5: R(3) = 1, R(2) = 1, R(1) = 3
    "2 0 b1 1\n2 0 b2 1\n2 0 n1 0\n"  # R(1) = R = 2: adjust leaves the gains alone
    "3 0 a1 2\n3 0 b1 1\n3 0 b2 1\n3 0 x -1\n"  # no L3 document: gmax of adjust stays 3
)


def _gains(con, profile):
    rows = con.execute(
        "select topic_id, level, gain from gain_values where campaign_id = 'c' and profile = $p",
        {"p": profile},
    ).fetchall()
    return {(topic, level): gain for topic, level, gain in rows}


def _maxima(con, profile):
    rows = con.execute(
        "select topic_id, max_gain from gain_maxima where campaign_id = 'c' and profile = $p", {"p": profile}
    ).fetchall()
    return dict(rows)


def test_seed_profiles_flat_steep(con, write):
    pyeval.load_qrels(con, "c", write("q.txt", SEED_QRELS))
    assert _gains(con, "flat") == {
        ("1", 3): 1.0, ("1", 2): 1.0, ("1", 1): 1.0, ("1", 0): 0.0, ("2", 1): 1.0, ("2", 0): 0.0,
        ("3", 2): 1.0, ("3", 1): 1.0, ("3", -1): 0.0,
    }
    steep = _gains(con, "steep")
    assert (steep["1", 3], steep["1", 2], steep["1", 1], steep["1", 0], steep["3", -1]) == (10.0, 5.0, 1.0, 0.0, 0.0)
    assert _maxima(con, "flat") == {"1": 1.0, "2": 1.0, "3": 1.0}
    assert _maxima(con, "steep") == {"1": 10.0, "2": 10.0, "3": 10.0}
    # the default 3:2:1 of the seed is the built-in linear profile
    linear = _gains(con, "linear")
    assert (linear["1", 3], linear["1", 2], linear["1", 1]) == (3.0, 2.0, 1.0)


def test_seed_profile_adjust_by_hand(con, write):
    """gain'(X) = gain(Y) + (gain(X) - gain(Y)) (1 - R(X)/R) for 0 < R(X) < R, Y one level
    below X, gain(0) = 0, on the default 3:2:1."""
    pyeval.load_qrels(con, "c", write("q.txt", SEED_QRELS))
    adjust = _gains(con, "adjust")
    # topic 1, R = 5: S: 2 + (3 - 2)(1 - 1/5) = 2.8; A: 1 + (2 - 1)(1 - 1/5) = 1.8; B: 0 + 1 (1 - 3/5) = 0.4
    assert adjust["1", 3] == pytest.approx(2.8, abs=1e-15)
    assert adjust["1", 2] == pytest.approx(1.8, abs=1e-15)
    assert adjust["1", 1] == pytest.approx(0.4, abs=1e-15)
    assert adjust["1", 0] == 0.0
    # topic 2: R(B) = R, not adjusted
    assert adjust["2", 1] == 1.0
    # topic 3, R = 3: A: 1 + 1 (1 - 1/3); B: 1 - 2/3
    assert adjust["3", 2] == pytest.approx(5 / 3, abs=1e-15)
    assert adjust["3", 1] == pytest.approx(1 / 3, abs=1e-15)
    assert adjust["3", -1] == 0.0
    # gmax: the highest adjusted gain over the campaign's levels (a level the topic lacks keeps its gain)
    assert _maxima(con, "adjust") == pytest.approx({"1": 2.8, "2": 3.0, "3": 3.0}, abs=1e-15)


def test_adjust_profile_in_a_measure(con, write):
    pyeval.load_qrels(con, "c", write("q.txt", SEED_QRELS))
    pyeval.load_run(con, "c", write("r.txt", "1 Q0 b1 1 3 r\n1 Q0 s1 2 2 r\n1 Q0 a1 3 1 r\n"))
    result = pyeval.evaluate(con, "c", ["nDCG(gain=adjust)", "nDCG(gain=flat)@3", "nDCG(gain=steep)"],
                             store=False)
    got = {(t, m): v for t, m, v in zip(result.per_topic.topic_id, result.per_topic.measure, result.per_topic.value)}
    lg = math.log2
    dcg = 0.4 + 2.8 / lg(3) + 1.8 / lg(4)
    ideal = 2.8 + 1.8 / lg(3) + 0.4 / lg(4) + 0.4 / lg(5) + 0.4 / lg(6)
    assert got["1", "nDCG(gain=adjust)"] == pytest.approx(dcg / ideal, abs=1e-12)
    assert got["1", "nDCG(gain=flat)@3"] == pytest.approx(1.0, abs=1e-12)
    steep_dcg = 1 + 10 / lg(3) + 5 / lg(4)
    steep_ideal = 10 + 5 / lg(3) + 1 / lg(4) + 1 / lg(5) + 1 / lg(6)
    assert got["1", "nDCG(gain=steep)"] == pytest.approx(steep_dcg / steep_ideal, abs=1e-12)


@pytest.mark.parametrize("name", ["flat", "steep", "adjust"])
def test_seed_profile_names_are_reserved(con, write, name):
    pyeval.load_qrels(con, "c", write("q.txt", SEED_QRELS))
    with pytest.raises(MeasureParamError, match="identifier other than"):
        pyeval.define_gain_profile(con, "c", name, "1:2:3")


def test_stored_rows_under_a_builtin_name_replace_it(con, write):
    """Rows written by raw SQL under a built-in name replace the built-in for that campaign only."""
    pyeval.load_qrels(con, "c", write("q.txt", SEED_QRELS))
    pyeval.load_qrels(con, "d", write("q2.txt", SEED_QRELS))
    con.execute("insert into gain_profiles values ('c', 'flat', '', 1, 2.0), ('c', 'flat', '', 2, 2.0)")
    flat = _gains(con, "flat")
    assert flat["1", 1] == 2.0 and flat["1", 3] == 3.0  # level 3 unlisted: gain = level
    assert con.execute(
        "select count(*) from gain_values where campaign_id = 'c' and profile = 'flat' "
        "group by topic_id, level order by 1 desc limit 1"
    ).fetchone()[0] == 1
    assert con.execute(
        "select gain from gain_values where campaign_id = 'd' and profile = 'flat' and topic_id = '1' and level = 3"
    ).fetchone()[0] == 1.0
