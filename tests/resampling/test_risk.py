"""Risk-sensitive measures (pyeval/resampling/risk.py): hand-worked cases from the papers'
definitions, the rmit-ir/trisk README's URisk and TRisk columns, storage, guards, CLI."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as sps

from pyeval.cli import main
from pyeval.errors import PyevalError
from pyeval.resampling.risk import Baseline, parse_baselines, risk, trisk, zrisk
from pyeval.core import archive

from .helpers import scored_warehouse, store_matrix


def test_urisk_and_trisk_worked_by_hand():
    # d = run - baseline = (0.2, -0.2, 0, 0.1); alpha = 1: r = (0.2, -0.4, 0, 0.1)
    run, base = np.array([0.5, 0.2, 0.4, 0.1]), np.array([0.3, 0.4, 0.4, 0.0])
    out = trisk((run - base)[:, None], [0.0, 1.0])
    assert out["urisk"][:, 0] == pytest.approx([0.1 / 4, -0.1 / 4])
    # alpha 1: population sd = sqrt(((0.225)^2 + (0.375)^2 + (0.025)^2 + (0.125)^2) / 4) = sqrt(0.051875)
    sd = math.sqrt(0.2075 / 4)
    assert out["trisk"][1, 0] == pytest.approx(-0.025 / (sd / 2))
    assert out["p_value"][1, 0] == pytest.approx(2 * sps.t.sf(0.025 / (sd / 2), 3))
    assert out["topic_trisk"][1, :, 0] == pytest.approx(np.array([0.2, -0.4, 0.0, 0.1]) / sd)
    sample = trisk((run - base)[:, None], [1.0], se="sample")
    assert sample["trisk"][0, 0] == pytest.approx(-0.025 / (math.sqrt(0.2075 / 3) / 2))


def test_trisk_of_identical_runs_is_zero_with_p_one():
    out = trisk(np.zeros((5, 1)), [0.0, 5.0])
    assert out["trisk"].tolist() == [[0.0], [0.0]] and out["p_value"].tolist() == [[1.0], [1.0]]


def test_trisk_readme_columns():
    """rmit-ir/trisk README (trec_eval map, TREC Robust 2004's 249 topics: its p-values for
    positive t fit df = 248): URisk(a) = W - (1 + a) L with W = 0.091973, L = 0.01525, and TRisk
    from the second moments E[w^2] = 0.0225167, E[l^2] = 0.00223017 fitted to the table. A run
    with those moments over 249 topics reproduces both columns (and the p-values for a <= 5; the
    README's p-values above 1 predate the tool's 2018 fix)."""
    c, W, L, P, Q = 249, 0.091973, 0.01525, 0.0225167, 0.00223017
    kw, kl = 150, 40  # win topics, loss topics (the rest tie), each split in two values
    def two_values(k, mean_total, square_total):
        mu, var = mean_total / k, square_total / k - (mean_total / k) ** 2
        return [mu - math.sqrt(var)] * (k // 2) + [mu + math.sqrt(var)] * (k // 2)
    wins, losses = two_values(kw, c * W, c * P), two_values(kl, c * L, c * Q)
    d = np.array(wins + [-x for x in losses] + [0.0] * (c - kw - kl))
    assert min(wins) > 0 and min(losses) > 0
    out = trisk(d[:, None], np.arange(11.0))
    readme_urisk = [0.0767, 0.0615, 0.0462, 0.031, 0.0157, 0.0005, -0.0148, -0.03, -0.0453, -0.0605, -0.0758]
    readme_trisk = [8.8167, 5.8329, 3.6263, 2.0425, 0.888, 0.0231, -0.643, -1.1688, -1.5932, -1.942, -2.2334]
    readme_p = [0.0, 0.0, 0.0003, 0.0422, 0.375, 0.982]
    assert np.round(out["urisk"][:, 0], 4).tolist() == pytest.approx(readme_urisk, abs=1e-4)
    assert out["trisk"][:, 0] == pytest.approx(readme_trisk, abs=2e-3)
    assert np.round(out["p_value"][:6, 0], 4) == pytest.approx(readme_p, abs=6e-4)


def test_zrisk_and_georisk_worked_by_hand():
    # X = [[1, 0], [0, 1]]: e = 0.5 everywhere, z = +-1/sqrt(2)
    out = zrisk(np.array([[1.0, 0.0], [0.0, 1.0]]), [0.0, 1.0])
    z = 1 / math.sqrt(2)
    assert out["zrisk"][0] == pytest.approx([0.0, 0.0]) and out["zrisk"][1] == pytest.approx([-z, -z])
    assert out["georisk"][1] == pytest.approx([math.sqrt(0.5 * sps.norm.cdf(-z / 2))] * 2)
    # 3 topics x 2 runs: T = (0.8, 0.5, 0.2), S = (0.9, 0.6), N = 1.5
    X = np.array([[0.6, 0.2], [0.1, 0.4], [0.2, 0.0]])
    e = np.outer([0.8, 0.5, 0.2], [0.9, 0.6]) / 1.5
    zz = (X - e) / np.sqrt(e)
    out = zrisk(X, [5.0])
    expected = [sum(v if v >= 0 else 6 * v for v in zz[:, j]) for j in range(2)]
    assert out["zrisk"][0] == pytest.approx(expected)
    assert out["georisk"][0] == pytest.approx([math.sqrt(s / 3 * sps.norm.cdf(z / 3)) for s, z in zip([0.9, 0.6], expected)])


def test_a_topic_nobody_scores_on_contributes_nothing():
    X = np.array([[0.0, 0.0], [0.5, 0.3], [0.2, 0.4]])
    with_zero = zrisk(X, [2.0])["zrisk"]
    assert np.isfinite(with_zero).all()
    assert zrisk(X, [2.0])["z"][0].tolist() == [0.0, 0.0]


def test_baselines_parse():
    assert parse_baselines(["a,b", "mean", "mean:c,d", "a"]) == [
        Baseline("a", ("a",)), Baseline("b", ("b",)), Baseline("mean", ()), Baseline("mean:c,d", ("c", "d"))]


@pytest.fixture
def scored():
    con = scored_warehouse()
    yield con
    con.close()


def test_stored_rows_name_measure_judgments_baseline_and_parameters(scored):
    result = risk(scored, "c", ["AP", "map"], ["run00", "mean", "mean:run01,run02"], [0, 5])
    assert result.measures == ("AP",) and result.risk_id == 1
    rows = scored.execute(
        "select risk_measure, baseline, count(*), count(distinct run_id), min(judgment_set), min(topic_count) "
        "from risk_results group by all order by all").fetchall()
    assert [r[:4] for r in rows] == [
        ("GeoRisk", "all runs", 12, 6), ("TRisk", "mean", 12, 6), ("TRisk", "mean:run01,run02", 12, 6),
        ("TRisk", "run00", 12, 6), ("URisk", "mean", 12, 6), ("URisk", "mean:run01,run02", 12, 6),
        ("URisk", "run00", 12, 6), ("ZRisk", "all runs", 12, 6)]
    assert {r[4] for r in rows} == {"official"} and {r[5] for r in rows} == {12}
    assert scored.execute("select distinct se_convention from risk_results where risk_measure = 'TRisk'").fetchall() == [
        ("population",)]
    # the values are those of the matrix arithmetic
    from pyeval.resampling import score_matrix

    X = score_matrix(scored, "c", "AP").values
    mean_baseline = X.mean(axis=1)
    value = scored.execute("select value from risk_results where risk_measure = 'URisk' and baseline = 'mean' "
                           "and alpha = 5 and run_id = 'run03'").fetchall()[0][0]
    d = X[:, 3] - mean_baseline
    assert value == pytest.approx(np.where(d >= 0, d, 6 * d).mean())
    pair = X[:, [1, 2]].mean(axis=1)
    value = scored.execute("select value from risk_results where risk_measure = 'URisk' and baseline = "
                           "'mean:run01,run02' and alpha = 0 and run_id = 'run00'").fetchall()[0][0]
    assert value == pytest.approx((X[:, 0] - pair).mean())
    assert scored.execute("select count(*) from risk_topic_values").fetchall()[0][0] == 2 * 12 * 6 * 3
    headline = scored.execute("select distinct baseline, alpha from risk_results where headline order by all").fetchall()
    assert headline == [("all runs", 0.0), ("run00", 0.0)]


def test_leaderboard_shows_the_latest_headline_risk(scored):
    scored.execute("insert into evaluation_means (evaluation_id, campaign_id, run_id, measure, value, topics) "
                   "select evaluation_id, campaign_id, run_id, measure, avg(value), count(*) from topic_scores "
                   "group by all")
    archive.refresh(scored, "c")  # a hand-written change: the current means follow it (docs/schema.md)
    risk(scored, "c", ["AP"], ["run00"], [0])
    risk(scored, "c", ["AP"], ["run01", "mean"], [1, 5])
    rows = scored.execute("select run_id, risk_baseline, risk_alpha, urisk, trisk, trisk_p, zrisk, georisk "
                          "from leaderboard where measure = 'AP' order by run_id").fetchall()
    assert rows[1][1:5] == ("run01", 1.0, 0.0, 0.0)
    assert all(r[6] is not None and r[7] is not None for r in rows)
    assert scored.execute("select risk_baseline from leaderboard where measure = 'nDCG@10'").fetchall()[0][0] is None


@pytest.mark.parametrize("kwargs, message", [
    ({"baselines": ["nope"]}, "baseline run 'nope' is not a run of campaign 'c'"),
    ({"baselines": ["mean:run00,nope"]}, "baseline run 'nope' is not a run of campaign 'c'"),
    ({"baselines": ["run00"], "alphas": [-1]}, "risk alpha must be a number from 0 to 1000; got -1"),
    ({"baselines": ["run00"], "alphas": [1e308]}, "risk alpha must be a number from 0 to 1000; got 1e\\+308"),
    ({"baselines": ["run00"], "judgments": "llm"}, "campaign 'c' has no judgment set 'llm'; its sets: official"),
    ({"baselines": ["run00"], "se": "half"}, "standard error must be one of population, sample"),
])
def test_guards_change_nothing(scored, kwargs, message):
    with pytest.raises(PyevalError, match=message):
        risk(scored, "c", ["AP"], **kwargs)
    assert scored.execute("select count(*) from risk_results").fetchall() == [(0,)]


def test_too_few_runs_or_topics(scored):
    store_matrix(scored, np.array([[0.1, 0.2]]), "AP", campaign="one-topic", evaluation_id=9)
    with pytest.raises(PyevalError, match="at least 2 topics"):
        risk(scored, "one-topic", ["AP"], ["run00"])
    store_matrix(scored, np.array([[0.1], [0.2]]), "AP", campaign="one-run", evaluation_id=10)
    with pytest.raises(PyevalError, match="risk measures need at least 2 runs with stored scores for 'AP' in "
                                          "campaign 'one-run'; found 1"):
        risk(scored, "one-run", ["AP"], ["run00"])
    assert scored.execute("select count(*) from risk_results").fetchall() == [(0,)]


def test_cli_risk(tmp_path):
    import pyeval

    db = tmp_path / "w.duckdb"
    con = pyeval.connect(str(db))
    from .helpers import grid_matrix

    store_matrix(con, grid_matrix(10, 4, 3), "nDCG@20")
    con.close()
    runner = CliRunner()
    result = runner.invoke(main, ["--db", str(db), "risk", "-C", "c", "-m", "nDCG@20", "--baseline", "run00",
                                  "--baseline", "mean", "--alpha", "0", "1", "5", "10"])
    assert result.exit_code == 0, result.output
    assert "URisk" in result.output and "GeoRisk" in result.output and "stored as risk experiment 1" in result.output
    result = runner.invoke(main, ["--db", str(db), "risk", "-C", "c", "-m", "nDCG@20", "--baseline", "run00",
                                  "--alpha", "1", "--format", "latex", "--no-store"])
    assert result.exit_code == 0, result.output
    assert "\\begin{tabular}" in result.output and "\\toprule" in result.output
    result = runner.invoke(main, ["--db", str(db), "risk", "-C", "c", "-m", "nDCG@20", "--baseline", "zzz"])
    assert result.exit_code == 1 and result.output.strip() == (
        "Error: baseline run 'zzz' is not a run of campaign 'c'")
    result = runner.invoke(main, ["--db", str(db), "risk", "-C", "c", "-m", "nDCG@20", "--baseline", "run00",
                                  "--alpha", "-2"])
    assert result.exit_code == 2 and "Invalid value for --alpha: -2 is not in the range 0 <= x <= 1000" in result.output
    con = pyeval.connect(str(db))
    assert con.execute("select count(distinct risk_id) from risk_results").fetchall() == [(1,)]
    con.close()


def test_compare_shows_risk_columns(scored):
    from pyeval.resampling import compare, score_matrix

    report = compare(scored, "c", ["AP"], baseline="run02", test="t", risk_alpha=5, store=False)
    X = score_matrix(scored, "c", "AP").values
    d = X[:, 4] - X[:, 2]
    assert report.risk.at["run04", "URisk@5 AP"] == pytest.approx(np.where(d >= 0, d, 6 * d).mean())
    assert report.risk.at["run04", "GeoRisk@5 AP"] == pytest.approx(zrisk(X, [5])["georisk"][0, 4])
    assert list(report.risk.index) == list(report.means.index)
    text = report.render("markdown")
    assert text.splitlines()[0] == "| run | AP | URisk@5 AP | GeoRisk@5 AP |"
    assert text.splitlines()[1] == "|---|---:|---:|---:|"
    assert "\\begin{tabular}{lrrr}" in report.render("latex")
    with pytest.raises(PyevalError, match="risk alpha must be a number from 0 to 1000"):
        compare(scored, "c", ["AP"], test="t", risk_alpha=-1, store=False)
    plain = compare(scored, "c", ["AP"], test="t", store=False)
    assert plain.risk is None and "URisk" not in plain.render("markdown")


GDEVAL = Path(__file__).resolve().parents[1] / "fixtures" / "gdeval-risk"


def test_stored_risk_is_trec_web_2014_gdeval():
    """gdeval.pl of trec-web/trec-web-2014 (`-baseline indri-ql -riskAlpha A`, TREC 2012 ad hoc
    qrels, the sample runs): its per-topic nDCG@20 and ERR@20 risk-rewards are
    risk_topic_values.risk_reward of nDCG(gain=exp)@20 and ERR@20, its amean URisk (%.5f)."""
    import pandas as pd

    import pyeval
    from pyeval import sample
    from pyeval.core.evaluation import evaluate
    from pyeval.loaders import load_qrels, load_run

    con = pyeval.connect()
    load_qrels(con, "w", str(sample.path("qrels.adhoc.txt.gz")))
    for name in ("indri-ql", "indri-rm", "sim01"):
        load_run(con, "w", str(sample.path(f"runs/{name}.txt.gz")), name=name)
    evaluate(con, "w", ["nDCG(gain=exp)@20", "ERR@20"])
    result = risk(con, "w", ["nDCG(gain=exp)@20", "ERR@20"], ["indri-ql"], [0, 1, 5])
    con.close()
    cases = [("indri-rm", 0, "gd.rm.ql.0.csv"), ("indri-rm", 1, "gd.rm.ql.1.csv"), ("indri-rm", 5, "gd.rm.ql.5.csv"),
             ("sim01", 5, "gd.sim01.ql.5.csv")]
    for run, alpha, name in cases:
        expected = pd.read_csv(GDEVAL / name, dtype={"topic": str}).set_index("topic")
        assert expected.index[0].startswith("15") and len(expected) == 51
        for measure, column in (("nDCG(gain=exp)@20", "ndcg@20"), ("ERR@20", "err@20")):
            rows = result.topics[(result.topics["measure"] == measure) & (result.topics["alpha"] == alpha)
                                 & (result.topics["run_id"] == run)].set_index("topic_id")["risk_reward"]
            topics = expected.drop(index="amean")[column]
            assert [f"{v:.5f}" for v in rows.loc[topics.index]] == [f"{v:.5f}" for v in topics], (name, measure)
            urisk = result.table[(result.table["measure"] == measure) & (result.table["alpha"] == alpha)
                                 & (result.table["run_id"] == run) & (result.table["risk_measure"] == "URisk")]
            assert f"{urisk['value'].iloc[0]:.5f}" == f"{expected.at['amean', column]:.5f}"
