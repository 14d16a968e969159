"""Significance tests over a topic x run score matrix X (n topics x m runs), all run pairs at once.

Procedures of docs/meta-evaluation.md (sections 1-4, 11, 13) and the seed papers' figures:

- :func:`bootstrap_test`: paired, studentised, shifted, two-sided bootstrap (Sakai SIGIR 2006;
  JIP 2013 Fig. 2) with Sakai's borderline Δ (Fig. 3) and percentile CIs of the mean difference;
- :func:`tukey_hsd`: randomised Tukey HSD (Carterette TOIS 2012; JIP 2013 Fig. 4) and its Δ (Fig. 5);
- :func:`randomisation_test`: Fisher's paired randomisation (sign-flip) test, exact or Monte Carlo;
- :func:`t_test`, :func:`sign_test`, :func:`wilcoxon_test`: scipy.stats distributions;
- :func:`holm`, :func:`benjamini_hochberg`: p-value corrections.

Pairs are the m(m-1)/2 pairs (a, b), a < b in column order; differences are X[:, a] - X[:, b].
Every resampled statistic is compared with the observed one with the tolerance of
:func:`tolerance` (IR scores sit on coarse grids, so exact ties are common and must survive a
different summation order). Nothing here loops over replicates: each chunk of replicates is one
array operation over every pair.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import vocabulary
from ..display import Displayed

#: Relative tolerance of tie-aware comparisons: stat* >= stat_obs - 1e-9 * max(1, |stat_obs|).
TOLERANCE = 1e-9
COMPARISONS = vocabulary.names(vocabulary.COMPARISONS)
P_CONVENTIONS = {term.name: term.meaning for term in vocabulary.P_CONVENTIONS}
#: Replicates per chunk of the vectorised bootstrap (memory: chunk x n x pairs doubles).
BOOTSTRAP_CHUNK = 100


def tolerance(observed: np.ndarray | float) -> np.ndarray:
    """Absolute tolerance for comparing resampled statistics with ``observed`` (docs/meta-evaluation.md 13)."""
    return TOLERANCE * np.maximum(1.0, np.abs(observed))


def at_least(resampled: np.ndarray, observed: np.ndarray, comparison: str = "ge") -> np.ndarray:
    """Tie-aware ``resampled >= observed`` ('ge') or ``resampled > observed`` ('gt')."""
    observed = np.asarray(observed, dtype=float)
    finite = np.isfinite(observed)
    margin = np.where(finite, tolerance(np.where(finite, observed, 0.0)), 0.0)
    if comparison == "ge":
        return resampled >= observed - margin
    if comparison == "gt":
        return resampled > observed + margin
    raise ValueError(f"comparison must be one of {', '.join(COMPARISONS)}; got {comparison!r}")


def p_value(count: np.ndarray, replicates: int, convention: str = "count") -> np.ndarray:
    """ASL from a count of resampled statistics at least as extreme: ``count/B`` (Sakai,
    default) or ``(count+1)/(B+1)`` ('plus-one', Phipson & Smyth; never 0)."""
    count = np.asarray(count, dtype=float)
    if convention == "count":
        return count / replicates
    if convention == "plus-one":
        return (count + 1) / (replicates + 1)
    raise ValueError(f"p-value convention must be one of {', '.join(P_CONVENTIONS)}; got {convention!r}")


def pair_indices(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Column indices (a, b), a < b, of every run pair in canonical order."""
    return np.triu_indices(m, 1)


def differences(X: np.ndarray) -> np.ndarray:
    """n x P matrix of per-topic differences X[:, a] - X[:, b] for every pair."""
    a, b = pair_indices(X.shape[1])
    return X[:, a] - X[:, b]


def _snap(values: np.ndarray, scale: float) -> np.ndarray:
    """Values within floating-point noise of zero set to exactly zero."""
    return np.where(np.abs(values) <= TOLERANCE * scale, 0.0, values)


def _studentised(mean: np.ndarray, sd: np.ndarray, n: int, scale: float) -> np.ndarray:
    """mean / (sd / sqrt(n)) with docs/meta-evaluation.md 1's conventions: sd = 0 and mean = 0 gives 0,
    sd = 0 and mean != 0 gives +-inf."""
    degenerate = sd <= TOLERANCE * scale
    zero_mean = np.abs(mean) <= TOLERANCE * scale
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / math.sqrt(n))
    t = np.where(degenerate & zero_mean, 0.0, t)
    return np.where(degenerate & ~zero_mean, np.copysign(np.inf, mean), t)


def _progress(iterable: Iterable, total: int, progress: bool | None, label: str) -> Iterable:
    """``iterable`` with a bar of its chunks where :func:`pyeval.progress.shown` says so."""
    from .. import progress as bars

    return bars.bar(iterable, progress=progress, total=total, desc=label, unit="chunk")


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------


#: The columns of a test's pairs that ``pyeval significance`` prints (those the test gives).
SHOWN_COLUMNS = ("run_a", "run_b", "mean_diff", "statistic", "pvalue", "p_adjusted", "significant", "effect_size",
                 "ci_low", "ci_high", "delta")


def shown_pairs(pairs: pd.DataFrame) -> pd.DataFrame:
    """A test's ``pairs`` as ``pyeval significance`` prints them (``pvalue`` as ``p``)."""
    return pairs[[c for c in SHOWN_COLUMNS if c in pairs]].rename(columns={"pvalue": "p"})


def display_options(test: str, replicates: int | None) -> dict:
    """How a test's pairs print: counts and rank sums as integers (sign, Wilcoxon: 24, not
    24.0000), p-values below 1/B as ``< 1/B``."""
    counts = ("statistic",) if test in ("sign", "wilcoxon") else ()
    return {"integer_columns": counts, "p_resolution": 1 / replicates if replicates else None}


@dataclass(repr=False)
class PairwiseResult(Displayed):
    """All-pairs result of one test, in the style of scipy.stats results.

    ``pairs`` has one row per run pair: run_a, run_b, mean_a, mean_b, mean_diff, statistic,
    pvalue, count (resampled statistics at least as extreme; null for closed-form tests),
    mc_error (Monte Carlo standard error sqrt(p(1-p)/B)), effect_size, ci_low, ci_high, delta,
    delta_replicate (bootstrap). ``statistic`` and ``pvalue`` are the same columns as arrays.
    """

    test: str
    runs: tuple[str, ...]
    pairs: pd.DataFrame
    replicates: int | None = None
    delta: float | None = None  # the metric's Δ (bootstrap: max over pairs; Tukey: min significant)
    hsd: float | None = None  # Tukey: the (1 - alpha) quantile of the range distribution
    settings: dict = field(default_factory=dict)

    def df(self) -> pd.DataFrame:
        """``pairs``: every pair's result, every column."""
        return self.pairs

    def _display_frame(self) -> pd.DataFrame:
        return shown_pairs(self.pairs)

    def _display_options(self) -> dict:
        return display_options(self.test, self.replicates)

    @property
    def statistic(self) -> np.ndarray:
        return self.pairs["statistic"].to_numpy()

    @property
    def pvalue(self) -> np.ndarray:
        return self.pairs["pvalue"].to_numpy()

    def significant(self, alpha: float = 0.05, column: str = "pvalue") -> pd.DataFrame:
        """Pairs with ``column`` < alpha."""
        return self.pairs[self.pairs[column] < alpha]


def _frame(X: np.ndarray, runs: tuple[str, ...], **columns) -> pd.DataFrame:
    a, b = pair_indices(X.shape[1])
    means = X.mean(axis=0)
    frame = pd.DataFrame({
        "run_a": [runs[i] for i in a], "run_b": [runs[j] for j in b],
        "mean_a": means[a], "mean_b": means[b], "mean_diff": means[a] - means[b],
    })
    for name, values in columns.items():
        frame[name] = values
    return frame


def _runs(X: np.ndarray, runs) -> tuple[str, ...]:
    if X.ndim != 2 or X.shape[1] < 2 or X.shape[0] < 1:
        raise ValueError(f"X must be a topics x runs matrix with at least 2 runs; got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be complete and finite: fill missing (topic, run) cells first")
    if runs is None:
        return tuple(str(j) for j in range(X.shape[1]))
    if len(runs) != X.shape[1]:
        raise ValueError(f"{len(runs)} run names for {X.shape[1]} columns")
    return tuple(runs)


# ---------------------------------------------------------------------------------------------
# Paired bootstrap test and Δ (docs/meta-evaluation.md 1, 1.1)
# ---------------------------------------------------------------------------------------------


def bootstrap_test(
    X: np.ndarray,
    indices: np.ndarray,
    *,
    runs: tuple[str, ...] | None = None,
    alpha: float = 0.05,
    comparison: str = "ge",
    p_convention: str = "count",
    chunk: int = BOOTSTRAP_CHUNK,
    progress: bool | None = None,
) -> PairwiseResult:
    """Two-sided paired bootstrap test for every run pair (JIP 2013 Fig. 2) with Δ (Fig. 3).

    ``indices`` is the shared B x n bootstrap index matrix. For each pair: t(z) = z̄/(s_z/√n);
    w = z - z̄; t*b = mean(w*b)/(sd(w*b)/√n); ASL = #{|t*b| >= |t(z)|}/B. Δ_α(pair) = |mean(w*b)|
    of the sample at position ceil(Bα) of |t*b| descending (ties: ascending b); the metric's Δ
    is the maximum over pairs. CIs: percentile interval of mean(z*b) at α/2, 1 - α/2.
    """
    X = np.asarray(X, dtype=float)
    runs = _runs(X, runs)
    n = X.shape[0]
    B = indices.shape[0]
    Z = differences(X)
    scale = max(1.0, float(np.abs(Z).max(initial=0.0)))
    z_mean = Z.mean(axis=0)
    z_sd = Z.std(axis=0, ddof=1) if n > 1 else np.zeros(Z.shape[1])
    t_obs = _studentised(z_mean, z_sd, n, scale)
    W = _snap(Z - z_mean, scale)
    abs_t = np.empty((B, Z.shape[1]))
    boot_mean = np.empty((B, Z.shape[1]))
    starts = range(0, B, chunk)
    for start in _progress(starts, len(starts), progress, "bootstrap"):
        sample = W[indices[start:start + chunk]]  # c x n x P
        mean = sample.mean(axis=1)
        sd = sample.std(axis=1, ddof=1) if n > 1 else np.zeros_like(mean)
        abs_t[start:start + chunk] = np.abs(_studentised(mean, sd, n, scale))
        boot_mean[start:start + chunk] = mean
    count = at_least(abs_t, np.abs(t_obs), comparison).sum(axis=0)
    identical = (z_sd <= TOLERANCE * scale) & (np.abs(z_mean) <= TOLERANCE * scale)
    count = np.where(identical, B, count)  # s_z = 0 and z̄ = 0: ASL = 1
    pvalue = p_value(count, B, p_convention)
    k = max(1, math.ceil(B * alpha - 1e-9))
    order = np.argsort(-abs_t, axis=0, kind="stable")
    chosen = order[min(k, B) - 1]
    columns = np.arange(Z.shape[1])
    delta = np.abs(boot_mean[chosen, columns])
    ci = np.quantile(boot_mean + z_mean, [alpha / 2, 1 - alpha / 2], axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(z_sd > TOLERANCE * scale, z_mean / z_sd, np.where(np.abs(z_mean) > 0, np.copysign(np.inf, z_mean), 0.0))
    frame = _frame(
        X, runs, statistic=t_obs, pvalue=pvalue, count=count.astype(np.int64),
        mc_error=np.sqrt(pvalue * (1 - pvalue) / B), effect_size=effect, ci_low=ci[0], ci_high=ci[1],
        delta=delta, delta_replicate=chosen + 1,
    )
    return PairwiseResult("bootstrap", runs, frame, B, float(delta.max()),
                          settings={"comparison": comparison, "p_convention": P_CONVENTIONS[p_convention],
                                    "delta_rank": k})


# ---------------------------------------------------------------------------------------------
# Randomised Tukey HSD and Δ (docs/meta-evaluation.md 2, 2.1)
# ---------------------------------------------------------------------------------------------


def residual_variance(X: np.ndarray) -> float:
    """V_E of the two-way ANOVA without replication (topics x systems; df (m-1)(n-1))."""
    n, m = X.shape
    residual = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0, keepdims=True) + X.mean()
    df = (m - 1) * (n - 1)
    return float((residual ** 2).sum() / df) if df else float("nan")


def tukey_ranges(X: np.ndarray, permutations: Iterable[np.ndarray], *, total: int | None = None,
                 progress: bool | None = None, digest=None) -> np.ndarray:
    """range_b = max_j mean(X*b[:, j]) - min_j mean(X*b[:, j]) for each row-permuted X*b."""
    n = X.shape[0]
    rows = np.arange(n)[None, :, None]
    ranges = []
    for perm in _progress(permutations, total or 0, progress, "Tukey HSD"):
        if digest is not None:
            digest.update(np.ascontiguousarray(perm, dtype="<i4").tobytes())
        means = X[rows, perm].sum(axis=1) / n  # c x m
        ranges.append(means.max(axis=1) - means.min(axis=1))
    return np.concatenate(ranges) if ranges else np.empty(0)


def tukey_hsd(
    X: np.ndarray,
    permutations: Iterable[np.ndarray] | Callable[[], Iterator[np.ndarray]],
    *,
    runs: tuple[str, ...] | None = None,
    alpha: float = 0.05,
    comparison: str = "ge",
    p_convention: str = "count",
    expected_sha256: str | None = None,
    progress: bool | None = None,
    chunks: int | None = None,
) -> PairwiseResult:
    """Randomised Tukey HSD over all runs (JIP 2013 Fig. 4) with its Δ (Fig. 5) and HSD_α.

    ``permutations`` yields chunks c x n x m of row permutations. ASL(a, b) = #{range_b >=
    |x̄_a - x̄_b|}/B ('ge', tie-aware; 'gt' is the figure's strict '>'). Δ_α = the smallest
    |x̄_a - x̄_b| among pairs with ASL < α; HSD_α = the (1 - α) quantile of the ranges.
    Effect size: (x̄_a - x̄_b)/√V_E (two-way ANOVA residual, docs/meta-evaluation.md 11).
    """
    import hashlib

    from ..errors import DataIntegrityError

    X = np.asarray(X, dtype=float)
    runs = _runs(X, runs)
    digest = hashlib.sha256() if expected_sha256 else None
    source = permutations() if callable(permutations) else permutations
    ranges = tukey_ranges(X, source, total=chunks, progress=progress, digest=digest)
    if digest is not None and digest.hexdigest() != expected_sha256:
        raise DataIntegrityError(
            "regenerated permutations do not match the stored sha256 (a different NumPy random stream?)"
        )
    B = len(ranges)
    means = X.mean(axis=0)
    a, b = pair_indices(X.shape[1])
    observed = np.abs(means[a] - means[b])
    ordered = np.sort(ranges)
    if comparison == "ge":
        count = B - np.searchsorted(ordered, observed - tolerance(observed), side="left")
    elif comparison == "gt":
        count = B - np.searchsorted(ordered, observed + tolerance(observed), side="right")
    else:
        raise ValueError(f"comparison must be one of {', '.join(COMPARISONS)}; got {comparison!r}")
    pvalue = p_value(count, B, p_convention)
    significant = pvalue < alpha
    delta = float(observed[significant].min()) if significant.any() else None
    hsd = float(np.quantile(ranges, 1 - alpha))
    v_e = residual_variance(X)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = (means[a] - means[b]) / math.sqrt(v_e) if v_e > 0 else np.full(len(a), np.nan)
    frame = _frame(X, runs, statistic=observed, pvalue=pvalue, count=count.astype(np.int64),
                   mc_error=np.sqrt(pvalue * (1 - pvalue) / B), effect_size=effect)
    return PairwiseResult("tukey", runs, frame, B, delta, hsd,
                          settings={"comparison": comparison, "p_convention": P_CONVENTIONS[p_convention],
                                    "ranges": ranges})


# ---------------------------------------------------------------------------------------------
# Fisher randomisation (sign-flip) test (docs/meta-evaluation.md 3)
# ---------------------------------------------------------------------------------------------


def _signflip_count(Z: np.ndarray, signs: Iterable[np.ndarray], observed: np.ndarray, comparison: str,
                    total: int, progress: bool | None) -> np.ndarray:
    count = np.zeros(Z.shape[1], dtype=np.int64)
    n = Z.shape[0]
    for chunk in _progress(signs, total, progress, "randomisation"):
        means = np.abs(chunk @ Z) / n  # c x P
        count += at_least(means, observed, comparison).sum(axis=0)
    return count


def _all_signs(n: int, chunk: int = 1 << 16) -> Iterator[np.ndarray]:
    """Every vector of {-1, +1}^n (identity first), in chunks."""
    bits = np.arange(n, dtype=np.int64)
    for start in range(0, 1 << n, chunk):
        k = np.arange(start, min(start + chunk, 1 << n), dtype=np.int64)
        yield 1.0 - 2.0 * ((k[:, None] >> bits[None, :]) & 1)


def randomisation_test(
    X: np.ndarray,
    flips: np.ndarray | None = None,
    *,
    runs: tuple[str, ...] | None = None,
    comparison: str = "ge",
    p_convention: str = "count",
    chunk: int = 4096,
    progress: bool | None = None,
) -> PairwiseResult:
    """Paired randomisation test, statistic |z̄| (docs/meta-evaluation.md 3). ``flips`` None: exact, over all
    2^n sign vectors, p = count/2^n; else a B x n 0/1 matrix (1 = swap the pair's scores on the
    topic) shared by every pair, p by ``p_convention``."""
    X = np.asarray(X, dtype=float)
    runs = _runs(X, runs)
    Z = differences(X)
    n = Z.shape[0]
    observed = np.abs(Z.mean(axis=0))
    if flips is None:
        total = 1 << n
        count = _signflip_count(Z, _all_signs(n), observed, comparison, -(-total // (1 << 16)), progress)
        pvalue = count / total
        B, exact, mc = total, True, np.zeros(len(count))
    else:
        B = flips.shape[0]
        signs = (1.0 - 2.0 * flips[start:start + chunk] for start in range(0, B, chunk))
        count = _signflip_count(Z, signs, observed, comparison, -(-B // chunk), progress)
        pvalue = p_value(count, B, p_convention)
        exact, mc = False, np.sqrt(pvalue * (1 - pvalue) / B)
    sd = Z.std(axis=0, ddof=1) if n > 1 else np.zeros(Z.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(sd > 0, Z.mean(axis=0) / sd, np.nan)
    frame = _frame(X, runs, statistic=observed, pvalue=pvalue, count=count, mc_error=mc, effect_size=effect)
    return PairwiseResult("randomization", runs, frame, B,
                          settings={"exact": exact, "comparison": comparison,
                                    "p_convention": "exact" if exact else P_CONVENTIONS[p_convention]})


# ---------------------------------------------------------------------------------------------
# Closed-form tests: paired t, sign, Wilcoxon signed-rank (docs/meta-evaluation.md 4, 11)
# ---------------------------------------------------------------------------------------------


def t_test(X: np.ndarray, *, runs: tuple[str, ...] | None = None, alpha: float = 0.05) -> PairwiseResult:
    """Paired t-test for every pair (scipy.stats.ttest_rel); effect size z̄/s_z; t CI of z̄.

    s_z = 0 (same difference on every topic): t = 0 and p = 1 when z̄ = 0, else t = ±inf, p = 0.
    """
    from scipy import stats

    X = np.asarray(X, dtype=float)
    runs = _runs(X, runs)
    Z = differences(X)
    n = Z.shape[0]
    scale = max(1.0, float(np.abs(Z).max(initial=0.0)))
    a, b = pair_indices(X.shape[1])
    mean = Z.mean(axis=0)
    sd = Z.std(axis=0, ddof=1) if n > 1 else np.zeros(Z.shape[1])
    degenerate = sd <= TOLERANCE * scale
    with np.errstate(divide="ignore", invalid="ignore"):
        result = stats.ttest_rel(X[:, a], X[:, b], axis=0)
        statistic = np.where(degenerate, _studentised(mean, sd, n, scale), result.statistic)
        pvalue = np.where(degenerate, np.where(np.abs(mean) <= TOLERANCE * scale, 1.0, 0.0), result.pvalue)
        half = stats.t.ppf(1 - alpha / 2, n - 1) * sd / math.sqrt(n) if n > 1 else np.full(len(a), np.nan)
        effect = np.where(degenerate, np.where(np.abs(mean) <= TOLERANCE * scale, 0.0, np.copysign(np.inf, mean)),
                          mean / sd)
    frame = _frame(X, runs, statistic=statistic, pvalue=pvalue, effect_size=effect,
                   ci_low=mean - half, ci_high=mean + half)
    return PairwiseResult("t", runs, frame, settings={"df": n - 1})


def sign_test(X: np.ndarray, *, runs: tuple[str, ...] | None = None, tau: float = 0.0) -> PairwiseResult:
    """Two-sided sign test (docs/meta-evaluation.md 4): wins z > τ, losses z < -τ, the rest dropped;
    p = min(1, 2 P[Bin(n, 1/2) <= min(wins, losses)]) (= scipy.stats.binomtest); p = 1 if n = 0.
    Statistic: the wins of run_a."""
    from scipy import stats

    X = np.asarray(X, dtype=float)
    runs = _runs(X, runs)
    Z = differences(X)
    band = tau + tolerance(tau)
    wins = (Z > band).sum(axis=0)
    losses = (Z < -band).sum(axis=0)
    total = wins + losses
    pvalue = np.where(total > 0, np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(wins, losses), total, 0.5)), 1.0)
    frame = _frame(X, runs, statistic=wins.astype(float), pvalue=pvalue, wins=wins, losses=losses,
                   ties=Z.shape[0] - total)
    return PairwiseResult("sign", runs, frame, settings={"tau": tau})


def wilcoxon_test(X: np.ndarray, *, runs: tuple[str, ...] | None = None, method: str = "auto",
                  correction: bool = False) -> PairwiseResult:
    """Wilcoxon signed-rank test for every pair: scipy.stats.wilcoxon (zero_method 'wilcox';
    SciPy's defaults; ``method='approx', correction=True`` reproduces R's wilcox.test).
    Differences within the tolerance of 0 count as zeros; a pair with no non-zero difference
    has statistic 0 and p = 1."""
    from scipy import stats

    X = np.asarray(X, dtype=float)
    runs = _runs(X, runs)
    Z = differences(X)
    scale = max(1.0, float(np.abs(Z).max(initial=0.0)))
    Z = _snap(Z, scale)
    statistic = np.zeros(Z.shape[1])
    pvalue = np.ones(Z.shape[1])
    live = np.any(Z != 0, axis=0)
    if live.any():
        result = stats.wilcoxon(Z[:, live], axis=0, zero_method="wilcox", method=method, correction=correction)
        statistic[live] = result.statistic
        pvalue[live] = result.pvalue
    frame = _frame(X, runs, statistic=statistic, pvalue=pvalue)
    return PairwiseResult("wilcoxon", runs, frame, settings={"method": method, "correction": correction})


# ---------------------------------------------------------------------------------------------
# Corrections
# ---------------------------------------------------------------------------------------------


def holm(pvalues: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values: max over j <= i of min(1, (P - j + 1) p_(j))."""
    p = np.asarray(pvalues, dtype=float)
    order = np.argsort(p, kind="stable")
    factors = len(p) - np.arange(len(p))
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * factors))
    result = np.empty_like(adjusted)
    result[order] = adjusted
    return result


def benjamini_hochberg(pvalues: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (scipy.stats.false_discovery_control)."""
    from scipy import stats

    p = np.asarray(pvalues, dtype=float)
    return stats.false_discovery_control(p, method="bh") if len(p) else p


CORRECTIONS = {"none": lambda p: np.asarray(p, dtype=float), "holm": holm, "bh": benjamini_hochberg}


def adjust(pvalues: np.ndarray, correction: str) -> np.ndarray:
    """Adjusted p-values: 'none', 'holm' or 'bh'."""
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}; got {correction!r}")
    return CORRECTIONS[correction](pvalues)
