"""The procedures of pyeval/resampling/stats.py against closed forms, exhaustive enumeration,
scipy.stats, published values (Sakai's textbook data, docs/meta-evaluation.md 14.1) and independent
Monte Carlo computations."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as sps

from pyeval.resampling import (
    paired_bootstrap,
    paired_randomisation,
    randomised_tukey_hsd,
    stats,
)
from pyeval.resampling import replicates as rep

from .helpers import grid_matrix, sakai_book


def mc_bound(p: float, *replicate_counts: int) -> float:
    """4.5 standard errors of a difference of independent Monte Carlo estimates, plus 1e-3."""
    return 4.5 * math.sqrt(sum(max(p * (1 - p), 1e-4) / b for b in replicate_counts)) + 1e-3


# --- exactness -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exact_randomisation_equals_enumeration_in_integer_arithmetic(seed):
    X = grid_matrix(9, 4, seed)  # multiples of 0.1: many tied |mean| values
    result = stats.randomisation_test(X)
    units = np.rint(X * 10).astype(int)
    a, b = stats.pair_indices(4)
    for k, (i, j) in enumerate(zip(a, b)):
        z = units[:, i] - units[:, j]
        observed = abs(int(z.sum()))
        count = sum(abs(sum(s * int(v) for s, v in zip(signs, z))) >= observed
                    for signs in itertools.product((1, -1), repeat=len(z)))
        assert result.pairs["count"][k] == count
        assert result.pvalue[k] == Fraction(count, 2 ** len(z))


def test_textbook_exact_sign_flip_ties_counted():
    # docs/meta-evaluation.md 14.1 S4: A-B exact two-sided p = 69,120 / 2^20; strict '>' gives 34,560 / 2^20
    X = sakai_book()
    assert stats.randomisation_test(X).pairs["count"][0] == 69_120
    assert stats.randomisation_test(X).pvalue[0] == pytest.approx(0.065918, abs=1e-6)
    assert stats.randomisation_test(X, comparison="gt").pairs["count"][0] == 34_560


def test_textbook_t_test_and_effect_sizes():
    X = sakai_book()
    t = stats.t_test(X)
    assert t.statistic[0] == pytest.approx(2.1158, abs=1e-4)  # S1
    assert t.pvalue[0] == pytest.approx(0.0478, abs=1e-4)
    assert t.pairs["effect_size"][0] == pytest.approx(0.4731, abs=1e-4)
    assert stats.residual_variance(X) == pytest.approx(0.0219, abs=1e-4)  # S2 V_E
    tukey = randomised_tukey_hsd(X, replicates=200, seed=1)
    assert tukey.pairs["effect_size"].round(3).tolist() == [0.507, 0.676, 0.169]  # S3


@pytest.mark.parametrize("comparison, expected", [
    ("ge", [0.3036, 0.1066, 0.8917]),  # S5: tie-aware '>=' (B = 2e6, s.e. <= 0.0004)
    ("gt", [0.2543, 0.0828, 0.8488]),  # S6: JIP 2013 Fig. 4's strict '>'
])
def test_textbook_randomised_tukey_hsd(comparison, expected):
    B = 40_000
    result = randomised_tukey_hsd(sakai_book(), replicates=B, seed=11, comparison=comparison)
    for p, reference in zip(result.pvalue, expected):
        assert abs(p - reference) <= mc_bound(reference, B, 2_000_000)


def test_t_sign_wilcoxon_equal_scipy():
    X = grid_matrix(30, 5, 4, step=0.05)
    a, b = stats.pair_indices(5)
    t, sign, wilcoxon = stats.t_test(X), stats.sign_test(X), stats.wilcoxon_test(X)
    approx = stats.wilcoxon_test(X, method="approx", correction=True)
    for k, (i, j) in enumerate(zip(a, b)):
        reference = sps.ttest_rel(X[:, i], X[:, j])
        assert t.statistic[k] == pytest.approx(reference.statistic, rel=1e-12)
        assert t.pvalue[k] == pytest.approx(reference.pvalue, rel=1e-12)
        z = X[:, i] - X[:, j]
        wins, losses = int((z > 1e-9).sum()), int((z < -1e-9).sum())
        assert (sign.pairs["wins"][k], sign.pairs["losses"][k]) == (wins, losses)
        assert sign.pvalue[k] == pytest.approx(sps.binomtest(wins, wins + losses).pvalue, rel=1e-12)
        zs = np.where(np.abs(z) < 1e-9, 0.0, z)
        reference = sps.wilcoxon(zs)
        assert wilcoxon.statistic[k] == reference.statistic
        assert wilcoxon.pvalue[k] == pytest.approx(reference.pvalue, rel=1e-12)
        assert approx.pvalue[k] == pytest.approx(sps.wilcoxon(zs, method="approx", correction=True).pvalue,
                                                 rel=1e-12)


def test_sign_test_tie_band():
    z = np.array([0.005, -0.005, 0.01, 0.02, -0.03, 0.04, 0.0, 0.015])
    X = np.column_stack([z + 0.5, np.full_like(z, 0.5)])
    result = stats.sign_test(X, tau=0.01)  # |z| <= 0.01 dropped: 3 wins (0.02, 0.04, 0.015), 1 loss
    assert (result.pairs["wins"][0], result.pairs["losses"][0], result.pairs["ties"][0]) == (3, 1, 4)
    assert result.pvalue[0] == pytest.approx(sps.binomtest(3, 4).pvalue)
    assert stats.sign_test(np.column_stack([np.full(5, 0.3), np.full(5, 0.3)])).pvalue[0] == 1.0


# --- Monte Carlo agreement with independent computations --------------------------------------


def naive_bootstrap(x, y, B, rng):
    """Fig. 2 of JIP 2013, one replicate at a time (independent of pyeval's vectorised code)."""
    z = x - y
    n = len(z)
    t_obs = z.mean() / (z.std(ddof=1) / math.sqrt(n))
    w = z - z.mean()
    count = 0
    for _ in range(B):
        sample = w[rng.integers(0, n, n)]
        sd = sample.std(ddof=1)
        t = sample.mean() / (sd / math.sqrt(n)) if sd > 1e-12 else (0.0 if abs(sample.mean()) < 1e-12 else math.inf)
        count += abs(t) >= abs(t_obs) - 1e-9 * max(1, abs(t_obs))
    return count / B


def test_bootstrap_agrees_with_an_independent_large_b_computation():
    X = grid_matrix(25, 4, 9, step=0.01)
    ours = stats.bootstrap_test(X, rep.bootstrap_indices(3, 25, 2000))
    rng = np.random.default_rng(12345)
    a, b = stats.pair_indices(4)
    for k, (i, j) in enumerate(zip(a, b)):
        reference = naive_bootstrap(X[:, i], X[:, j], 20_000, rng)
        assert abs(ours.pvalue[k] - reference) <= mc_bound(reference, 2000, 20_000), (k, ours.pvalue[k], reference)


def test_tukey_agrees_with_an_independent_large_b_computation():
    X = grid_matrix(15, 5, 21, step=0.05)
    ours = randomised_tukey_hsd(X, replicates=5000, seed=4)
    rng = np.random.default_rng(999)
    B = 40_000
    perms = rng.random((B, 15, 5)).argsort(axis=2)  # a different generator and method
    permuted = np.take_along_axis(np.broadcast_to(X, (B, 15, 5)), perms, axis=2).mean(axis=1)
    ranges = permuted.max(axis=1) - permuted.min(axis=1)
    means = X.mean(axis=0)
    a, b = stats.pair_indices(5)
    for k, (i, j) in enumerate(zip(a, b)):
        observed = abs(means[i] - means[j])
        reference = float((ranges >= observed - 1e-9).mean())
        assert abs(ours.pvalue[k] - reference) <= mc_bound(reference, 5000, B)


def test_tukey_with_two_runs_is_the_randomisation_test():
    X = grid_matrix(12, 2, 5)
    exact = stats.randomisation_test(X).pvalue[0]
    tukey = randomised_tukey_hsd(X, replicates=20_000, seed=2).pvalue[0]
    assert abs(tukey - exact) <= mc_bound(exact, 20_000)


def test_monte_carlo_randomisation_agrees_with_exact():
    X = grid_matrix(14, 3, 8)
    exact = stats.randomisation_test(X)
    mc = stats.randomisation_test(X, rep.signflip_draws(5, 14, 20_000))
    for p_exact, p_mc, error in zip(exact.pvalue, mc.pvalue, mc.pairs["mc_error"]):
        assert abs(p_exact - p_mc) <= mc_bound(p_exact, 20_000)
        assert error == pytest.approx(math.sqrt(p_mc * (1 - p_mc) / 20_000))


# --- bootstrap details --------------------------------------------------------------------------


def test_bootstrap_delta_follows_fig_3():
    X = grid_matrix(20, 3, 13, step=0.01)
    B, alpha = 1000, 0.05
    indices = rep.bootstrap_indices(8, 20, B)
    result = stats.bootstrap_test(X, indices, alpha=alpha)
    a, b = stats.pair_indices(3)
    deltas = []
    for k, (i, j) in enumerate(zip(a, b)):
        z = X[:, i] - X[:, j]
        w = z - z.mean()
        samples = w[indices]
        t = np.abs(samples.mean(axis=1) / (samples.std(axis=1, ddof=1) / math.sqrt(20)))
        order = sorted(range(B), key=lambda r: (-t[r], r))  # |t| descending, ties by ascending b
        chosen = order[50 - 1]  # the 50th largest for B = 1000, alpha = 0.05
        assert result.pairs["delta_replicate"][k] == chosen + 1
        assert result.pairs["delta"][k] == pytest.approx(abs(samples[chosen].mean()), abs=1e-12)
        deltas.append(abs(samples[chosen].mean()))
        ci = np.quantile(z[indices].mean(axis=1), [0.025, 0.975])
        assert (result.pairs["ci_low"][k], result.pairs["ci_high"][k]) == pytest.approx(tuple(ci), abs=1e-12)
    assert result.delta == pytest.approx(max(deltas))


def test_bootstrap_degenerate_pairs():
    base = np.linspace(0, 0.9, 10)
    X = np.column_stack([base, base, base + 0.1])
    result = stats.bootstrap_test(X, rep.bootstrap_indices(0, 10, 500))
    assert result.pvalue[0] == 1.0 and result.statistic[0] == 0.0  # identical runs
    assert result.pvalue[1] == 0.0 and result.statistic[1] == -math.inf  # same difference everywhere
    plus_one = stats.bootstrap_test(X, rep.bootstrap_indices(0, 10, 500), p_convention="plus-one")
    assert plus_one.pvalue[1] == pytest.approx(1 / 501) and plus_one.pvalue[0] == 1.0


def test_chunking_and_repetition_do_not_change_results():
    X = grid_matrix(30, 6, 17)
    indices = rep.bootstrap_indices(1, 30, 1000)
    first = stats.bootstrap_test(X, indices)
    for chunk in (1, 7, 1000):
        again = stats.bootstrap_test(X, indices, chunk=chunk)
        assert again.pairs.equals(first.pairs)
    one = randomised_tukey_hsd(X, replicates=3000, seed=5)
    two = randomised_tukey_hsd(X, replicates=3000, seed=5)
    assert one.pairs.equals(two.pairs)
    assert not randomised_tukey_hsd(X, replicates=3000, seed=6).pairs.equals(one.pairs)


def test_scipy_style_two_sample_functions():
    X = grid_matrix(16, 2, 30, step=0.01)
    result = paired_bootstrap(X[:, 0], X[:, 1], replicates=500, seed=3)
    assert result.statistic.shape == result.pvalue.shape == (1,)
    exact = paired_randomisation(X[:, 0], X[:, 1], replicates=1 << 16)
    assert exact.settings["exact"] and exact.replicates == 1 << 16


# --- corrections ----------------------------------------------------------------------------------


def test_holm_and_benjamini_hochberg_follow_their_definitions():
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.2, 0.04])
    P = len(p)
    order = np.argsort(p, kind="stable")
    holm = np.empty(P)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (P - rank) * p[index]))
        holm[index] = running
    assert stats.holm(p) == pytest.approx(holm)
    bh = np.empty(P)
    for index in range(P):
        bh[index] = min(min(1.0, P * p[j] / (rank + 1)) for rank, j in enumerate(order) if p[j] >= p[index])
    assert stats.benjamini_hochberg(p) == pytest.approx(bh)
    assert stats.adjust(p, "none") == pytest.approx(p)
