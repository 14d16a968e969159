"""Gain profiles as data (pyeval/gains.py, table gain_profiles, view gain_values)."""
from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main
from pyeval.errors import MeasureParamError
from pyeval.gains import parse_gains

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
    pyeval.define_gain_profile(con, "c", "steep", "1:5:10")
    pyeval.define_gain_profile(con, "c", "steep", "1=1,3=100", topic_id="1")
    result = pyeval.evaluate(con, "c", ["nDCG(gain=steep)", "nDCG(gain=exp)", "nDCG"], store=False)
    values = {(t, m): v for t, m, v in zip(result.per_topic.topic_id, result.per_topic.measure, result.per_topic.value)}
    # topic 1 uses its own row for levels 1 and 3 and the campaign row for level 2: gains 100, 5, 1
    dcg = 1 / math.log2(2) + 100 / math.log2(3)
    ideal = 100 + 5 / math.log2(3) + 1 / math.log2(4)
    assert values[("1", "nDCG(gain=steep)")] == pytest.approx(dcg / ideal, abs=1e-12)
    exp_dcg = 1 + 7 / math.log2(3)
    exp_ideal = 7 + 3 / math.log2(3) + 1 / math.log2(4)
    assert values[("1", "nDCG(gain=exp)")] == pytest.approx(exp_dcg / exp_ideal, abs=1e-12)
    with pytest.raises(MeasureParamError, match="exists"):
        pyeval.define_gain_profile(con, "c", "steep", "1:2:3")
    with pytest.raises(MeasureParamError, match="identifier other than linear, exp"):
        pyeval.define_gain_profile(con, "c", "exp", "1:2:3")


def test_gains_command_and_evaluate_default_gain(tmp_path, write):
    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    for args in (["load", "qrels", "-C", "c", str(write("q.txt", QRELS))], ["load", "run", "-C", "c", str(write("r.txt", RUN))]):
        assert runner.invoke(main, ["--db", db, *args]).exit_code == 0
    out = runner.invoke(main, ["--db", db, "gains", "-C", "c", "flat", "1:1:1"])
    assert out.exit_code == 0 and out.output == "c: gain profile 'flat': L1=1, L2=1, L3=1\n"
    result = runner.invoke(main, ["--db", db, "evaluate", "-C", "c", "-m", "nDCG@2", "-m", "P@2", "--gains", "flat",
                                  "--format", "csv", "--no-store"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "run_id,nDCG(gain=flat)@2,P@2"
