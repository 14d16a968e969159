"""The formulas of repro_eval (Breuer et al., SIGIR 2020; irgroup/repro_eval 0.5.0) and of CLEF
LongEval's evaluator, over numpy arrays: one definition each (docs/reproducibility.md).

Document order (per topic; :func:`document_order`): Kendall's tau Union (KTU), rank-biased overlap
(RBO, Webber et al. 2010, truncated at a depth and normalised as repro_eval's ``_rbo``) and RBO with
Corsi & Urbano's tie-aware "a" treatment (SIGIR 2024). Per-topic scores of a measure: RMSE,
nRMSE, ER, DeltaRI, the paired or unpaired t-test, ARP, mean ARP and relative change.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: repro_eval's defaults (repro_eval/__init__.py): runs trimmed to 1000, RBO depth 1000, p 0.95.
TRIM = 1000
RBO_DEPTH = 1000
RBO_P = 0.95


@dataclass(frozen=True)
class RankedLists:
    """Two runs' ranked lists over the topics both have (``sql/repro/repro_lists.sql``), as flat
    arrays sorted by topic then rank: ``topic`` indexes ``topic_ids``; ``code`` numbers a
    topic's documents over both lists in byte order of their ids; ``first`` and ``last`` are the
    first and last rank (1-based) of the document's tie group."""

    topic_ids: tuple[str, ...]
    topic: tuple[np.ndarray, np.ndarray]
    rank: tuple[np.ndarray, np.ndarray]
    code: tuple[np.ndarray, np.ndarray]
    first: tuple[np.ndarray, np.ndarray]
    last: tuple[np.ndarray, np.ndarray]


def _rbo_weights(depth: int, p: float) -> tuple[np.ndarray, np.ndarray, float]:
    """``w[d] = p^(d-1) / d`` for d = 1..depth (index d), the suffix sums ``tail[d] = sum of w
    from d to depth`` (``tail[depth + 1] = 0``) and the normaliser ``sum of p^(d-1)``."""
    d = np.arange(1, depth + 1, dtype=float)
    weight = p ** (d - 1)
    w = np.zeros(depth + 2)
    w[1:depth + 1] = weight / d
    tail = np.zeros(depth + 2)
    tail[1:depth + 1] = np.cumsum(w[1:depth + 1][::-1])[::-1]
    return w, tail, float(weight.sum())


#: The most (document, depth) terms of tie groups expanded at once (memory: a few arrays of this size).
_EXPANDED = 1 << 21


def _overlap_sums(lists: RankedLists, depth: int, p: float, ties: bool) -> np.ndarray:
    """Per topic, ``sum over d <= depth of p^(d-1) X_d / d`` divided by ``sum of p^(d-1)``:
    repro_eval's RBO (X_d: documents in both top-d prefixes) or, with ``ties``, Corsi & Urbano's
    RBO^a, where a document of a tie group spanning ranks t..b counts ``(d - t + 1) / (b - t + 1)``
    of itself in a prefix of depth d in that range (its probability of being there under a random
    order of the ties), so X_d is the expected overlap."""
    (t0, t1), (r0, r1), (c0, c1) = lists.topic, lists.rank, lists.code
    width = int(max(c0.max(initial=0), c1.max(initial=0))) + 1
    common, i0, i1 = np.intersect1d(t0 * width + c0, t1 * width + c1, assume_unique=True, return_indices=True)
    topic = t0[i0]
    if ties:
        first0, last0, first1, last1 = lists.first[0][i0], lists.last[0][i0], lists.first[1][i1], lists.last[1][i1]
    else:
        first0 = last0 = r0[i0]
        first1 = last1 = r1[i1]
    w, tail, norm = _rbo_weights(depth, p)
    start = np.maximum(first0, first1)  # below it one of the two prefixes cannot hold the document
    end = np.maximum(last0, last1)  # from it on both hold it for sure
    keep = start <= depth
    topic, first0, last0, first1, last1, start, end = (a[keep] for a in (topic, first0, last0, first1, last1,
                                                                           start, end))
    end = np.minimum(end, depth)
    sums = np.bincount(topic, weights=tail[end + 1], minlength=len(lists.topic_ids))
    length = end - start + 1  # depths with a partial (or the first full) contribution
    block = (np.cumsum(length) - length) // _EXPANDED  # a constant-score run's lists are one tie group:
    for part in np.split(np.arange(len(start)), np.flatnonzero(np.diff(block)) + 1):  # expand a block at a time
        if not len(part):
            continue
        which = np.repeat(part, length[part])
        offsets = np.repeat(np.cumsum(length[part]) - length[part], length[part])
        d = start[which] + (np.arange(len(which)) - offsets)
        share0 = np.clip((d - first0[which] + 1) / (last0[which] - first0[which] + 1), 0.0, 1.0)
        share1 = np.clip((d - first1[which] + 1) / (last1[which] - first1[which] + 1), 0.0, 1.0)
        sums += np.bincount(topic[which], weights=w[d] * share0 * share1, minlength=len(lists.topic_ids))
    return sums / norm


def rbo(lists: RankedLists, depth: int = RBO_DEPTH, p: float = RBO_P) -> np.ndarray:
    """Per-topic RBO as repro_eval's ``_rbo`` (Clarke et al.'s truncated RBO): the p-weighted
    average of the overlap proportions X_d / d for d = 1..depth, normalised by the weights' sum."""
    return _overlap_sums(lists, depth, p, ties=False)


def rbo_ties(lists: RankedLists, depth: int = RBO_DEPTH, p: float = RBO_P) -> np.ndarray:
    """Per-topic RBO with Corsi & Urbano's treatment of ties (SIGIR 2024, variant ``a``): the
    expected value of :func:`rbo` over the orders of each run's tied documents; :func:`rbo` when
    no document shares its score."""
    return _overlap_sums(lists, depth, p, ties=True)


#: Lists longer than this are compared by scipy's kendalltau (O(n log n)) rather than an n x n array.
_KTU_PAIRWISE = 4000


def ktu(lists: RankedLists) -> np.ndarray:
    """Per-topic Kendall's tau Union (repro_eval's ``KTU``): Kendall's tau between the two lists'
    documents rank by rank, documents compared by their place in the sorted union of both lists
    (i.e. by id). Both lists are cut to the shorter one's length (repro_eval requires equal
    lengths); NaN for a topic with fewer than 2 documents in a list. A list holds no document
    twice, so there are no ties and tau = 1 - 2 D / (n (n - 1) / 2), D the discordant pairs
    (scipy's tau-b, which repro_eval calls, is that value)."""
    values = np.full(len(lists.topic_ids), np.nan)
    (t0, t1), (c0, c1) = lists.topic, lists.code
    bounds0 = np.searchsorted(t0, np.arange(len(lists.topic_ids) + 1))
    bounds1 = np.searchsorted(t1, np.arange(len(lists.topic_ids) + 1))
    for k in range(len(lists.topic_ids)):  # one n x n comparison per topic (n <= the trim length)
        x, y = c0[bounds0[k]:bounds0[k + 1]], c1[bounds1[k]:bounds1[k + 1]]
        n = min(len(x), len(y))
        if n > _KTU_PAIRWISE:  # a long --trim: scipy's O(n log n) count instead of an n x n array
            from scipy.stats import kendalltau

            values[k] = kendalltau(x[:n], y[:n]).statistic
        elif n >= 2:
            z = y[:n][np.argsort(x[:n])]
            discordant = np.count_nonzero(np.triu(z[:, None] > z[None, :], 1))
            values[k] = 1.0 - 4.0 * discordant / (n * (n - 1))
    return values


def rmse(original: np.ndarray, reproduced: np.ndarray) -> float:
    """Root mean square error of the per-topic scores (repro_eval's ``RMSE``)."""
    return math.sqrt(float(np.mean((original - reproduced) ** 2)))


def nrmse(original: np.ndarray, reproduced: np.ndarray) -> float:
    """RMSE divided by the largest RMSE a reproduction could have for scores in [0, 1],
    ``sqrt(mean(max(x, 1 - x)^2))`` over the original scores x (repro_eval's ``nRMSE``)."""
    worst = math.sqrt(float(np.mean(np.maximum(original, 1.0 - original) ** 2)))
    return _ratio(rmse(original, reproduced), worst)


def _ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator; NaN when the denominator is 0 (repro_eval: NaN or +-inf)."""
    return numerator / denominator if denominator != 0 else math.nan


def effect_ratio(baseline: np.ndarray, advanced: np.ndarray, rep_baseline: np.ndarray,
                 rep_advanced: np.ndarray) -> float:
    """ER: the reproduction's mean per-topic improvement of advanced over baseline divided by the
    original's (repro_eval's ``ER``)."""
    return _ratio(float(np.mean(rep_advanced - rep_baseline)), float(np.mean(advanced - baseline)))


def relative_improvement(baseline: np.ndarray, advanced: np.ndarray) -> float:
    """(ARP(advanced) - ARP(baseline)) / ARP(baseline) (repro_eval's ``rel_improve``)."""
    return _ratio(float(np.mean(advanced) - np.mean(baseline)), float(np.mean(baseline)))


def delta_relative_improvement(baseline: np.ndarray, advanced: np.ndarray, rep_baseline: np.ndarray,
                               rep_advanced: np.ndarray) -> float:
    """DeltaRI: the original's relative improvement minus the reproduction's (repro_eval's ``DRI``)."""
    return relative_improvement(baseline, advanced) - relative_improvement(rep_baseline, rep_advanced)


def t_test(original: np.ndarray, reproduced: np.ndarray, paired: bool) -> float:
    """Two-sided p-value of Student's t-test between the original and reproduced per-topic scores:
    paired (reproducibility; scipy's ``ttest_rel``, which repro_eval calls) or unpaired with pooled
    variance (replicability; ``ttest_ind``); 1 when the two are identical (repro_eval's rule for
    identical score distributions), NaN when undefined otherwise. The t distribution's tail is
    scipy.special's (scipy.stats takes a second to import)."""
    from scipy.special import stdtr

    original, reproduced = np.asarray(original, dtype=float), np.asarray(reproduced, dtype=float)
    if len(original) == len(reproduced) and np.array_equal(original, reproduced):
        return 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        if paired:
            d = original - reproduced
            df = len(d) - 1
            t = np.mean(d) / np.sqrt(np.var(d, ddof=1) / len(d)) if df > 0 else math.nan
        else:
            n1, n2 = len(original), len(reproduced)
            df = n1 + n2 - 2
            pooled = ((n1 - 1) * np.var(original, ddof=1) + (n2 - 1) * np.var(reproduced, ddof=1)) / df \
                if n1 > 1 and n2 > 1 else math.nan
            t = (np.mean(original) - np.mean(reproduced)) / np.sqrt(pooled * (1 / n1 + 1 / n2))
    return float(2 * stdtr(df, -abs(t))) if df > 0 and not math.isnan(t) else math.nan


def arp(scores: np.ndarray) -> float:
    """Average retrieval performance: the mean over topics (repro_eval's ``arp``)."""
    return float(np.mean(scores))


def mean_arp(arp_reference: float, arp_snapshot: float) -> float:
    """LongEval's mean ARP of two snapshots (core.py ``mean_arp``)."""
    return (arp_reference + arp_snapshot) / 2


def relative_change(arp_reference: float, arp_snapshot: float) -> float:
    """LongEval's relative change (ARP_ref - ARP_snapshot) / ARP_ref, 0 when ARP_ref is 0 (core.py
    ``relative_change``)."""
    return 0.0 if arp_reference == 0 else (arp_reference - arp_snapshot) / arp_reference
