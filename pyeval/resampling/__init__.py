"""Resampling: significance tests, discriminative power, Δ, stored replicates, reports (stage I);
swap rates, minority rates, rank correlations, concordance tests, gain robustness and MEM
informativeness (stage II).

Procedures: docs/meta-evaluation.md sections 1-13 (Sakai SIGIR 2006 and JIP 2013 Figs 2-5;
Carterette TOIS 2012); conventions and tables: docs/resampling.md.

On stored scores (a warehouse connection)::

    from pyeval.resampling import significance, discriminative_power, compare
    result = significance(con, "web2012-adhoc", "AP", "bootstrap", replicates=1000, seed=0)
    result.pvalue, result.statistic, result.pairs, result.delta
    power = discriminative_power(con, "web2012-adhoc", ["AP", "nDCG@10"], "tukey")
    power.table, power.curves, power.plot("asl.png")
    print(compare(con, "web2012-adhoc", ["AP", "nDCG@10"], baseline="indri-ql").to_markdown())

Stage II on stored scores (each stores its result table unless ``store=False``)::

    from pyeval.resampling import swap_rate, stability, correlate, concordance, gain_robustness, informativeness
    swap_rate(con, "web2012-adhoc", ["AP", "nDCG@10"], subset_size=25).summary
    stability(con, "web2012-adhoc", ["AP"]).table          # minority_rate, proportion_of_ties per f
    correlate(con, "web2012-adhoc", ["AP", "nDCG@10"]).table  # tau, tau_ap, agreement
    concordance(con, "web2012", ["alpha-nDCG@10", "D#-nDCG@10"], ["I-rec@10"]).matrix()
    gain_robustness(con, "web2012-adhoc", ["Q"]).table
    informativeness(con, "web2012", ["ERR-IA"]).predictions  # tau, rmsr, mare, rms, mae

The topic x run matrix analyses (docs/risk.md, docs/design.md; stored unless ``store=False``)::

    from pyeval.resampling import risk, topic_set_design
    risk(con, "web2012-adhoc", ["nDCG@20"], ["indri-ql", "mean"], [0, 1, 5, 10]).wide()
    topic_set_design(con, "web2012-adhoc", ["AP"], designs=["paired-t", "anova", "ci"]).table

On a topic x run matrix (scipy.stats style, nothing stored)::

    from pyeval.resampling import paired_bootstrap, randomised_tukey_hsd
    paired_bootstrap(x, y, seed=0).pvalue
    randomised_tukey_hsd(X, seed=0).pvalue
"""
from __future__ import annotations

import numpy as np

from . import replicates, stats
from .concordance import Concordance, concordance
from .correlation import Correlations, correlate, kendall_tau, tau_ap
from .discpower import DiscriminativePower, asl_curve, discriminative_power
from .matrix import ScoreMatrix, score_matrix
from .design import TopicSetDesign, topic_set_design, topics_required
from .mem import Informativeness, informativeness
from .report import Comparison, compare
from .risk import RiskResult, risk
from .robustness import Robustness, gain_robustness
from .significance import (
    DEFAULT_REPLICATES,
    TESTS,
    SignificanceResult,
    significance,
    test_matrix,
)
from .stability import Stability, stability
from .stats import (
    PairwiseResult,
    benjamini_hochberg,
    holm,
    randomisation_test,
    sign_test,
    t_test,
    wilcoxon_test,
)
from .swaprate import SwapRates, swap_rate


def _matrix(columns) -> np.ndarray:
    return np.column_stack([np.asarray(c, dtype=float) for c in columns])


def paired_bootstrap(x, y, *, replicates: int = 1000, seed: int = 0, alpha: float = 0.05,
                     comparison: str = "ge", p_convention: str = "count") -> PairwiseResult:
    """Paired bootstrap test of two runs' per-topic scores (Sakai 2006; JIP 2013 Figs 2-3):
    ``.statistic`` (t), ``.pvalue`` (ASL), ``.delta``; indices from ``seed`` as stored ones."""
    X = _matrix([x, y])
    indices = replicates_module.bootstrap_indices(seed, X.shape[0], replicates)
    return stats.bootstrap_test(X, indices, runs=("x", "y"), alpha=alpha, comparison=comparison,
                                p_convention=p_convention)


def randomised_tukey_hsd(X, *, replicates: int = 5000, seed: int = 0, alpha: float = 0.05,
                         comparison: str = "ge", p_convention: str = "count",
                         runs: tuple[str, ...] | None = None) -> PairwiseResult:
    """Randomised Tukey HSD over the columns of the topic x run matrix ``X`` (JIP 2013 Figs 4-5)."""
    X = np.asarray(X, dtype=float)
    chunks = replicates_module.permutation_chunks(seed, X.shape[0], X.shape[1], replicates)
    return stats.tukey_hsd(X, chunks, runs=runs, alpha=alpha, comparison=comparison, p_convention=p_convention)


def paired_randomisation(x, y, *, replicates: int = 100_000, seed: int = 0, comparison: str = "ge",
                         p_convention: str = "count") -> PairwiseResult:
    """Fisher's paired randomisation test (exact when 2^n <= replicates), statistic |z̄|."""
    X = _matrix([x, y])
    n = X.shape[0]
    flips = None if 2 ** n <= replicates else replicates_module.signflip_draws(seed, n, replicates)
    return stats.randomisation_test(X, flips, runs=("x", "y"), comparison=comparison, p_convention=p_convention)


replicates_module = replicates

__all__ = [
    "DEFAULT_REPLICATES",
    "TESTS",
    "Comparison",
    "Concordance",
    "Correlations",
    "DiscriminativePower",
    "Informativeness",
    "PairwiseResult",
    "RiskResult",
    "Robustness",
    "ScoreMatrix",
    "SignificanceResult",
    "Stability",
    "SwapRates",
    "TopicSetDesign",
    "asl_curve",
    "benjamini_hochberg",
    "compare",
    "concordance",
    "correlate",
    "discriminative_power",
    "gain_robustness",
    "holm",
    "informativeness",
    "kendall_tau",
    "paired_bootstrap",
    "paired_randomisation",
    "randomisation_test",
    "randomised_tukey_hsd",
    "replicates",
    "risk",
    "score_matrix",
    "sign_test",
    "significance",
    "stability",
    "stats",
    "swap_rate",
    "t_test",
    "tau_ap",
    "test_matrix",
    "topic_set_design",
    "topics_required",
    "wilcoxon_test",
]
