"""kendall_tau_b (numpy, no scipy import: pyeval pool loo) against scipy.stats.kendalltau on the
tolerance-snapped means, and rank_agreement against correlate_means."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from pyeval.resampling.correlation import _snapped, correlate_means, kendall_tau_b, rank_agreement


@pytest.mark.parametrize("seed", range(20))
def test_kendall_tau_b_is_scipys_statistic(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    x = rng.integers(0, 5, n) / 4.0 + (rng.random(n) < 0.3) * 1e-13  # ties, some within the tolerance
    y = rng.integers(0, 5, n) / 4.0
    ours = kendall_tau_b(x, y)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert np.isnan(ours)
        return
    theirs = scipy.stats.kendalltau(_snapped(x, float(np.abs(x).max())), _snapped(y, float(np.abs(y).max())))
    assert ours == pytest.approx(theirs.statistic, abs=1e-12) or (np.isnan(ours) and np.isnan(theirs.statistic))


def test_rank_agreement_is_correlate_means_without_p():
    rng = np.random.default_rng(3)
    a, b = rng.random(12), rng.random(12)
    runs = [f"r{i}" for i in range(12)]
    full = correlate_means(a, b, runs)
    assert rank_agreement(a, b, runs) == (full.tau, full.tau_b, full.tau_ap)
    assert full.tau_b == pytest.approx(scipy.stats.kendalltau(a, b).statistic, abs=1e-12)
