"""The figures of ``evaluate --plot``, ``compare --plot`` and ``significance --plot``
(matplotlib, Agg; PNG, PDF or SVG by the path's suffix, saved by :func:`store.save_figure`):

- the runs' means with 95 % confidence intervals (Student's t over the topics: mean ± t(0.975,
  n-1) · sd / √n), one panel per measure, runs sorted by the first;
- the per-topic differences of each run against a baseline run (a box of the topics'
  differences, the mean marked), beside the means (``compare --baseline``);
- the matrix of a significance test's p-values (adjusted where a correction applied), run by
  run, the significant pairs marked.

docs/cli.md says what each command draws.
"""
from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np

from . import store
from .store import pyplot

#: The confidence level of the intervals drawn around means.
LEVEL = 0.95
#: At most this many panels of means in one figure (evaluate --plot of many measures).
MAX_PANELS = 6


def mean_interval(values: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The Student t confidence interval of the mean of ``values`` (NaN dropped); (nan, nan)
    with fewer than 2 values."""
    from scipy import stats

    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if len(values) < 2:
        return math.nan, math.nan
    mean = float(values.mean())
    half = float(stats.t.ppf(0.5 + level / 2, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values)))
    return mean - half, mean + half


def _means_panel(axes, measure: str, runs: Sequence[str], means: Sequence[float],
                 per_topic: Sequence[np.ndarray] | None) -> None:
    """One measure's means (dots) with their intervals (bars), a run per row, the first run on top."""
    y = np.arange(len(runs))[::-1]
    means = np.asarray(means, dtype=float)
    if per_topic is not None:
        low, high = np.array([mean_interval(values) for values in per_topic]).T
        errors = np.vstack([np.clip(means - low, 0, None), np.clip(high - means, 0, None)])
        axes.errorbar(means, y, xerr=np.where(np.isfinite(errors), errors, 0), fmt="o", color="#4477aa",
                      ecolor="#88a6cc", elinewidth=2, capsize=2, markersize=4)
    else:
        axes.plot(means, y, "o", color="#4477aa", markersize=4)
    axes.set_yticks(y, list(runs), fontsize=7)
    axes.set_title(measure + (f" (mean, {LEVEL:.0%} CI)" if per_topic is not None else " (as aggregated)"), fontsize=9)
    axes.grid(axis="x", alpha=0.3)
    axes.set_ylim(-0.7, len(runs) - 0.3)


def plot_means(path: str | os.PathLike[str], panels: Sequence[tuple[str, Sequence[str], Sequence[float],
                                                                   Sequence[np.ndarray] | None]],
               dpi: float | None = None) -> None:
    """Save the means of each panel (measure, runs, means, each run's per-topic values or None
    for a measure not averaged over topics: no interval) side by side (at most
    :data:`MAX_PANELS`)."""
    plt = pyplot()
    shown = list(panels)[:MAX_PANELS]
    runs = max((len(p[1]) for p in shown), default=1)
    figure, axes = plt.subplots(1, len(shown), figsize=(3.2 * len(shown) + 1, 1.2 + 0.22 * runs), squeeze=False)
    for ax, (measure, run_ids, means, per_topic) in zip(axes[0], shown):
        _means_panel(ax, measure, run_ids, means, per_topic)
    store.save_figure(figure, path, dpi)


def plot_comparison(path: str | os.PathLike[str], measure: str, runs: Sequence[str], means: Sequence[float],
                    per_topic: Sequence[np.ndarray], baseline: str | None, dpi: float | None = None) -> None:
    """Save ``measure``'s means with intervals and, with a ``baseline``, each other run's
    per-topic differences from it (run minus baseline: a box of the topics, the mean a dot)."""
    plt = pyplot()
    panels = 2 if baseline is not None else 1
    figure, axes = plt.subplots(1, panels, figsize=(4.2 * panels + 1, 1.2 + 0.24 * len(runs)), squeeze=False)
    _means_panel(axes[0][0], measure, runs, means, per_topic)
    if baseline is not None:
        ax = axes[0][1]
        base = per_topic[list(runs).index(baseline)]
        others = [(run, values - base) for run, values in zip(runs, per_topic) if run != baseline]
        y = np.arange(len(others))[::-1]
        ax.boxplot([d[np.isfinite(d)] for _, d in others], positions=y, vert=False, widths=0.6, showfliers=True,
                   flierprops={"markersize": 2}, medianprops={"color": "#cc6677"})
        ax.plot([np.nanmean(d) for _, d in others], y, "o", color="#4477aa", markersize=4, label="mean")
        ax.axvline(0, color="#888888", linewidth=0.8)
        ax.set_yticks(y, [run for run, _ in others], fontsize=7)
        ax.set_title(f"{measure}: per-topic difference from {baseline}", fontsize=9)
        ax.legend(loc="lower right", fontsize=7, frameon=False)
    store.save_figure(figure, path, dpi)


def plot_p_values(path: str | os.PathLike[str], runs: Sequence[str], pairs, alpha: float, title: str,
                  corrected: bool, dpi: float | None = None) -> None:
    """Save the run x run matrix of p-values (``pairs``: run_a, run_b, p_adjusted, significant;
    ``corrected``: whether p_adjusted was corrected), the significant cells marked with a star;
    runs in the order given."""
    plt = pyplot()
    from matplotlib.colors import LogNorm

    column = "p_adjusted"
    index = {run: i for i, run in enumerate(runs)}
    matrix = np.full((len(runs), len(runs)), np.nan)
    significant = np.zeros_like(matrix, dtype=bool)
    for a, b, p, s in zip(pairs["run_a"], pairs["run_b"], pairs[column], pairs["significant"]):
        for i, j in ((index[a], index[b]), (index[b], index[a])):
            matrix[i, j] = p
            significant[i, j] = bool(s)
    size = 1.5 + 0.32 * len(runs)
    figure, ax = plt.subplots(figsize=(size + 1.2, size))
    floor = max(float(np.nanmin(matrix)) if np.isfinite(matrix).any() else 1e-4, 1e-6)
    image = ax.imshow(np.clip(matrix, floor, 1), cmap="viridis", norm=LogNorm(vmin=min(floor, alpha / 10), vmax=1))
    colorbar = figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    colorbar.set_label("adjusted p-value" if corrected else "p-value", fontsize=8)
    colorbar.ax.axhline(alpha, color="white", linewidth=1.5)
    if len(runs) <= 30:
        for i, j in zip(*np.nonzero(significant)):
            ax.text(j, i, "*", ha="center", va="center", color="white", fontsize=8)
    ax.set_xticks(range(len(runs)), list(runs), rotation=90, fontsize=7)
    ax.set_yticks(range(len(runs)), list(runs), fontsize=7)
    ax.set_title(f"{title}\n* p < {alpha:g}", fontsize=9)
    store.save_figure(figure, path, dpi)


def plot_evaluation(path: str | os.PathLike[str], evaluation, dpi: float | None = None) -> None:
    """``evaluate --plot``: each measure's run means (as printed) with the interval of the
    per-topic values where the measure is averaged over topics (a sum or a geometric mean has
    none), runs sorted by the first measure's mean, best on top."""
    from ..measures import parse_measures

    means = evaluation.wide()
    if means.empty:
        return
    order = means.sort_values(means.columns[0], ascending=False, kind="stable").index.tolist()
    per_topic = evaluation.per_topic
    panels = []
    for measure in means.columns:
        averaged = parse_measures(measure)[0].definition.aggregate == "mean"
        values = None
        if averaged:
            rows = per_topic[per_topic["measure"] == measure]
            grouped = {run: group["value"].to_numpy(dtype=float) for run, group in rows.groupby("run_id")}
            values = [grouped.get(run, np.zeros(0)) for run in order]
        panels.append((measure, order, means.loc[order, measure].to_numpy(dtype=float), values))
    plot_means(path, panels, dpi)


def plot_compared(path: str | os.PathLike[str], con, comparison, dpi: float | None = None) -> None:
    """``compare --plot``: the first measure's means (the comparison's, in its order) with
    intervals, and with a baseline each run's per-topic differences from it, from the score
    matrix the comparison tested (missing cells 0, docs/meta-evaluation.md 0)."""
    from .matrix import score_matrix

    measure = comparison.means.columns[0]
    runs = list(comparison.means.index)
    matrix = score_matrix(con, comparison.campaign_id, measure, runs, comparison.judgment_set)
    columns = [matrix.run_ids.index(run) for run in runs]
    plot_comparison(path, measure, runs, comparison.means[measure].to_numpy(dtype=float),
                    [matrix.values[:, j] for j in columns], comparison.baseline, dpi)


def plot_significance(path: str | os.PathLike[str], result, dpi: float | None = None) -> None:
    """``significance --plot``: the p-value matrix of a test, runs by mean (best first)."""
    matrix = result.matrix
    order = [matrix.run_ids[j] for j in np.argsort(-matrix.values.mean(axis=0), kind="stable")]
    corrected = "" if result.correction == "none" else f", {result.correction} correction"
    title = f"{matrix.campaign_id} {matrix.measure}: {result.test}{corrected}"
    plot_p_values(path, order, result.pairs, result.alpha, title, result.correction != "none", dpi)
