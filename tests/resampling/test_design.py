"""Topic set size design (pyeval/resampling/design.py) against statsmodels' power functions
(TTestPower, FTestAnovaPower), Sakai's textbook matrix, and closed forms; storage, guards, CLI."""
from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as sps
from statsmodels.stats.power import FTestAnovaPower, TTestPower

from pyeval.cli import main
from pyeval.errors import PyevalError
from pyeval.resampling import design as D

from .helpers import grid_matrix, sakai_book, scored_warehouse, store_matrix


def test_variance_estimates_on_sakai_book_matrix():
    X = sakai_book()  # 20 topics x 3 systems
    v2, df2 = D.variance_estimate(X, "two-way")
    assert (round(v2, 4), df2) == (0.0219, 38)  # V_E of Sakai's Table 5.1 (two-way ANOVA without replication)
    v1, df1 = D.variance_estimate(X, "one-way")
    within = sum(((X[:, j] - X[:, j].mean()) ** 2).sum() for j in range(3)) / 57
    assert (v1, df1) == (pytest.approx(within), 57)
    assert v1 == pytest.approx(np.mean([np.var(X[:, j], ddof=1) for j in range(3)]))
    assert D.pooled_variance([(0.02, 10), (0.04, 30)]) == (pytest.approx(0.035), 40)


@pytest.mark.parametrize("n", [5, 20, 50, 120])
@pytest.mark.parametrize("min_diff, variance", [(0.05, 0.02), (0.1, 0.05)])
def test_paired_t_power_is_statsmodels(n, min_diff, variance):
    effect = min_diff / math.sqrt(2 * variance)
    assert D.paired_t_power(n, min_diff, variance, 0.05) == pytest.approx(TTestPower().power(effect, n, 0.05), rel=1e-9)
    normal = D.paired_t_power(n, min_diff, variance, 0.05, method="normal")
    assert normal == pytest.approx(TTestPower().power(effect, n, 0.05), abs=0.02)  # Nagata: close, not exact


@pytest.mark.parametrize("m, n", [(2, 10), (5, 30), (10, 60)])
def test_anova_power_is_statsmodels(m, n):
    variance, min_range = 0.03, 0.1
    f = math.sqrt(min_range ** 2 / (2 * variance) / m)  # Cohen's f of the least favourable configuration
    expected = FTestAnovaPower().power(f, m * n, 0.05, k_groups=m)
    assert D.anova_power(n, m, min_range, variance, 0.05) == pytest.approx(expected, rel=1e-9)
    assert D.anova_power(n, m, min_range, variance, 0.05, method="normal") == pytest.approx(expected, abs=0.02)


def test_topics_required_matches_statsmodels_solve_power():
    variance = 0.02
    n = D.topics_required("paired-t", 0.05, variance, alpha=0.05, beta=0.2)
    solved = TTestPower().solve_power(0.05 / math.sqrt(2 * variance), power=0.8, alpha=0.05)
    assert n == math.ceil(solved) == 128
    assert TTestPower().solve_power(0.5, power=0.8, alpha=0.05) == pytest.approx(33.37, abs=0.01)
    assert D.topics_required("paired-t", 0.5, 0.5, alpha=0.05, beta=0.2) == 34  # d = 0.5
    n = D.topics_required("anova", 0.1, variance, alpha=0.05, beta=0.2, systems=5)
    solved = FTestAnovaPower().solve_power(math.sqrt(0.1 ** 2 / (2 * variance) / 5), power=0.8, alpha=0.05,
                                           k_groups=5) / 5
    assert n == math.ceil(solved)
    for design, kwargs in (("paired-t", {}), ("anova", {"systems": 5})):
        n = D.topics_required(design, 0.08, variance, **kwargs)
        power = D.paired_t_power if design == "paired-t" else (lambda k, *a: D.anova_power(k, 5, *a))
        assert power(n, 0.08, variance) >= 0.8 > power(n - 1, 0.08, variance)


def test_ci_design():
    variance, h = 0.02, 0.05
    n = D.topics_required("ci", h, variance, alpha=0.05)
    assert D.ci_half_width(n, variance) <= h < D.ci_half_width(n - 1, variance)
    # E[s] exactly: the chi distribution's mean
    phi = 9
    expected = sps.t.ppf(0.975, phi) * math.sqrt(2 * variance) * sps.chi.mean(phi) / math.sqrt(phi) / math.sqrt(10)
    assert D.ci_half_width(10, variance) == pytest.approx(expected)
    assert D.ci_half_width(10, variance, method="normal") == pytest.approx(
        sps.t.ppf(0.975, phi) * math.sqrt(2 * variance) * (1 - 1 / 36) / math.sqrt(10))


def test_achieved_power_and_detectable_difference_invert():
    power, detectable = D.achieved("paired-t", 50, 0.05, 0.02)
    assert power == pytest.approx(D.paired_t_power(50, 0.05, 0.02))
    assert D.paired_t_power(50, detectable, 0.02) == pytest.approx(0.8, abs=1e-9)
    effect = TTestPower().solve_power(None, nobs=50, alpha=0.05, power=0.8)
    assert detectable == pytest.approx(effect * math.sqrt(2 * 0.02), rel=1e-6)


def test_stored_design_and_pooling(tmp_path):
    con = scored_warehouse()
    store_matrix(con, grid_matrix(20, 5, 11), "AP", campaign="other", evaluation_id=5)
    result = D.topic_set_design(con, ["c", "other"], ["AP"], designs=["paired-t", "anova", "ci"], min_diff=0.1)
    v1, d1 = D.variance_estimate(D.score_matrix(con, "c", "AP").values)
    v2, d2 = D.variance_estimate(D.score_matrix(con, "other", "AP").values)
    assert result.table["variance"].tolist() == pytest.approx([(v1 * d1 + v2 * d2) / (d1 + d2)] * 3)
    rows = con.execute("select campaign_ids, measure, judgment_set, design, systems, topics_required, current_topics "
                       "from topic_set_designs order by design").fetchall()
    assert [r[3] for r in rows] == ["anova", "ci", "paired-t"]
    assert rows[0][:3] == (["c", "other"], "AP", "official") and rows[0][4] == 6 and rows[0][6] == 12
    result.plot(tmp_path / "n.png", differences=[0.05, 0.1])
    assert (tmp_path / "n.png").read_bytes()[:4] == b"\x89PNG"
    curve = result.curve([0.05, 0.1])
    assert curve["topics_required"].tolist() == [
        D.topics_required("paired-t", d, result.table["variance"].iloc[0], alpha=0.05, beta=0.2) for d in (0.05, 0.1)]
    ci_only = D.topic_set_design(con, "c", ["AP"], designs=["ci"], store=False)
    ci_only.plot(tmp_path / "ci.png", differences=[0.05, 0.1])
    assert (tmp_path / "ci.png").exists()
    with pytest.raises(PyevalError, match="beta must lie strictly between 0 and 1"):
        D.topic_set_design(con, "c", ["AP"], beta=1.5)
    with pytest.raises(PyevalError, match="minimum detectable difference"):
        D.topic_set_design(con, "c", ["AP"], min_diff=0)
    store_matrix(con, np.array([[0.1, 0.3]]), "AP", campaign="tiny", evaluation_id=8)
    with pytest.raises(PyevalError, match="at least 2 topics"):
        D.topic_set_design(con, "tiny", ["AP"])
    store_matrix(con, np.array([[0.1], [0.3]]), "AP", campaign="lonely", evaluation_id=9)
    with pytest.raises(PyevalError, match="needs at least 2 runs with stored scores for 'AP' in campaign 'lonely'"):
        D.topic_set_design(con, "lonely", ["AP"])
    assert con.execute("select count(distinct design_id) from topic_set_designs").fetchall() == [(1,)]
    con.close()


def test_cli_design(tmp_path):
    import pyeval

    db = tmp_path / "w.duckdb"
    con = pyeval.connect(str(db))
    store_matrix(con, grid_matrix(25, 6, 2), "AP")
    con.close()
    result = CliRunner().invoke(main, ["--db", str(db), "design", "-C", "c", "-m", "AP", "--alpha", "0.05",
                                       "--beta", "0.2", "--min-diff", "0.05", "--plot", str(tmp_path / "d.png")])
    assert result.exit_code == 0, result.output
    assert "paired-t" in result.output and "anova" in result.output and "stored as topic set design 1" in result.output
    result = CliRunner().invoke(main, ["--db", str(db), "design", "-C", "c", "-m", "AP", "--design", "paired-t",
                                       "--g-study", "25", "--g-study", "100", "--no-store"])
    assert result.exit_code == 0, result.output
    assert "Erho2" in result.output and "var_system" in result.output
    result = CliRunner().invoke(main, ["--db", str(db), "design", "-C", "c", "-m", "AP", "--beta", "0"])
    assert result.exit_code == 2 and "Invalid value for '--beta': 0 is not in the range 0 < x < 1" in result.output


def test_g_study_mean_squares_are_statsmodels_anova():
    import pandas as pd
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    X = sakai_book()
    g = D.g_study(X)
    frame = pd.DataFrame([(t, s, X[t, s]) for t in range(20) for s in range(3)], columns=["t", "s", "y"])
    table = anova_lm(smf.ols("y ~ C(t) + C(s)", frame).fit())
    assert g.ms_topic == pytest.approx(table.at["C(t)", "mean_sq"])
    assert g.ms_system == pytest.approx(table.at["C(s)", "mean_sq"])
    assert g.ms_residual == pytest.approx(table.at["Residual", "mean_sq"]) == pytest.approx(D.variance_estimate(X)[0])
    assert g.var_system == pytest.approx((g.ms_system - g.ms_residual) / 20)
    assert g.var_topic == pytest.approx((g.ms_topic - g.ms_residual) / 3)


def test_d_study_textbook_values():
    """Brennan, Generalizability Theory (2001), synthetic data set 4, Tables 6.2 and 6.5, as
    gt4ireval's tests give them: 10 systems x 12 topics, σ²_s = .6258, σ²_t = .8840, σ²_e = 2.7872;
    at 12 topics Eρ² = .729 and Φ = .672."""
    g = D.GStudy(10, 12, 0.6258, 0.8840, 2.7872, 10.2963, 11.6273, 2.7872)
    assert (10.2963 - 2.7872) / 12 == pytest.approx(0.6258, abs=1e-4)  # the components from the mean squares
    d = g.d_study([12, 50], stability=0.95)
    assert d["Erho2"].round(3).tolist()[0] == 0.729 and d["Phi"].round(3).tolist()[0] == 0.672
    assert d["topics_for_Erho2"].iloc[0] == math.ceil(0.95 * 2.7872 / (0.6258 * 0.05))
    assert d["Phi"].iloc[1] == pytest.approx(0.6258 / (0.6258 + (0.8840 + 2.7872) / 50))
    with pytest.raises(PyevalError, match="stability strictly between 0 and 1"):
        g.d_study([12], stability=1.0)
