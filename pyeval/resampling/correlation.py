"""Rank correlations between measures' system rankings and agreement of significant pairs
(docs/meta-evaluation.md sections 8-9; Sakai & Song, SIGIR 2011 Table 5, Sakai, JIP 2013 Tables 4-5; Yilmaz, Aslam & Robertson
SIGIR 2008 for τ_ap).

Runs are ranked by their mean value, descending; ties in the means (tolerance of docs/meta-evaluation.md 13)
are broken by run id for τ_ap and flagged (``tied_means``). τ is Kendall's τ_a,
(C − D)/(m(m − 1)/2); ``tau_b`` is scipy.stats.kendalltau's τ_b (equal to τ_a without ties).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import duckdb
import numpy as np
import pandas as pd

from pyeval.core.db import default_judgment_set, stores_in_one_transaction
from ..display import Displayed
from ..errors import PyevalError
from .significance import DEFAULT_SEED, TESTS
from .stats import pair_indices
from .store import (
    MeasureMatrices,
    announce,
    few_runs,
    insert_experiment,
    measure_matrices,
    measure_names,
    signs,
)

TABLE = "rank_correlations"


def ranking(means: np.ndarray, run_ids: Sequence[str]) -> np.ndarray:
    """Column indices ordered by mean descending; equal means (within tolerance) by run id."""
    means = np.asarray(means, dtype=float)
    scale = float(np.abs(means).max(initial=0.0))
    # snap means within the tolerance of each other to one value, so the run id decides
    order = np.lexsort((np.asarray(run_ids), -_snapped(means, scale)))
    return order


def _snapped(means: np.ndarray, scale: float) -> np.ndarray:
    tol = 1e-9 * max(1.0, scale)
    ordered = np.sort(means)
    starts = np.concatenate([[True], np.diff(ordered) > tol])  # each group of near-equal means starts here
    representative = ordered[np.flatnonzero(starts)][np.cumsum(starts) - 1]  # its first (smallest) mean
    return representative[np.searchsorted(ordered, means)]


def has_ties(means: np.ndarray) -> bool:
    """Whether two runs have equal means (within the tolerance)."""
    a, b = pair_indices(len(means))
    return bool(np.any(signs(np.asarray(means)[a] - np.asarray(means)[b]) == 0))


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's τ_a of two score vectors (one value per run): (C − D)/(m(m − 1)/2), with
    tolerance-aware signs (a tie is neither concordant nor discordant)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) != len(y) or len(x) < 2:
        raise ValueError("kendall_tau needs two vectors of the same length, at least 2")
    a, b = pair_indices(len(x))
    product = signs(x[a] - x[b]).astype(int) * signs(y[a] - y[b])
    return float(product.sum() / len(a))


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's τ_b of two score vectors, means within the tolerance counted as ties (snapped
    to one value first): (C − D)/sqrt((P − T_x)(P − T_y)), P pairs, T_x (T_y) pairs tied in x
    (y); the statistic of scipy.stats.kendalltau (variant b) on the snapped values, in numpy
    (no scipy import: `pyeval pool loo`). NaN when either vector is constant."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) != len(y) or len(x) < 2:
        raise ValueError("kendall_tau_b needs two vectors of the same length, at least 2")
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    x, y = _snapped(x, float(np.abs(x).max())), _snapped(y, float(np.abs(y).max()))
    a, b = pair_indices(len(x))
    sx, sy = np.sign(x[a] - x[b]), np.sign(y[a] - y[b])
    pairs = len(a)
    untied = (pairs - np.sum(sx == 0)) * (pairs - np.sum(sy == 0))
    return float((sx * sy).sum() / np.sqrt(untied)) if untied else float("nan")


def tau_ap(reference: np.ndarray, evaluated: np.ndarray, run_ids: Sequence[str] | None = None) -> float:
    """τ_ap(B | A) (Yilmaz, Aslam & Robertson 2008): A = the ranking by ``reference`` scores,
    B = the ranking by ``evaluated`` scores (both descending, ties by run id).

    τ_ap = (2/(m − 1)) Σ_{i=2..m} C(i)/(i − 1) − 1, C(i) = the items above position i in B that
    A also ranks above that item.
    """
    reference, evaluated = np.asarray(reference, dtype=float), np.asarray(evaluated, dtype=float)
    m = len(reference)
    if len(evaluated) != m or m < 2:
        raise ValueError("tau_ap needs two vectors of the same length, at least 2")
    ids = list(run_ids) if run_ids is not None else [f"{j:09d}" for j in range(m)]
    position_a = np.empty(m, dtype=int)
    position_a[ranking(reference, ids)] = np.arange(m)
    in_b = position_a[ranking(evaluated, ids)]  # A-positions of B's items, in B order
    above = np.tril(in_b[None, :] < in_b[:, None], k=-1)  # [i, j]: j above i in B and in A
    correct = above.sum(axis=1)[1:]
    return float(2.0 / (m - 1) * np.sum(correct / np.arange(1, m)) - 1.0)


def rank_agreement(reference: np.ndarray, evaluated: np.ndarray, run_ids: Sequence[str] | None = None
                   ) -> tuple[float, float, float]:
    """(τ, τ_b, τ_ap with ``reference`` as the reference ranking) of two run-mean vectors, as
    :func:`correlate_means` gives them, without its p-value (so without scipy)."""
    return (kendall_tau(reference, evaluated), kendall_tau_b(reference, evaluated),
            tau_ap(reference, evaluated, run_ids))


@dataclass(frozen=True)
class Correlation:
    """τ, τ_b (and its p-value), τ_ap with ``measure_a`` as reference, the reverse, symmetric τ_ap."""

    tau: float
    tau_b: float
    tau_b_pvalue: float
    tau_ap: float
    tau_ap_reverse: float
    tau_ap_symmetric: float
    tied_means: bool


def correlate_means(a: np.ndarray, b: np.ndarray, run_ids: Sequence[str] | None = None) -> Correlation:
    """Every rank correlation of two measures' run means (``a`` is the reference of τ_ap)."""
    from scipy import stats

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    tau, tau_b, forward = rank_agreement(a, b, run_ids)
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        p = float("nan")
    else:  # scipy for the p-value of τ_b (its statistic is kendall_tau_b's)
        p = float(stats.kendalltau(_snapped(a, float(np.abs(a).max())), _snapped(b, float(np.abs(b).max()))).pvalue)
    reverse = tau_ap(b, a, run_ids)
    return Correlation(tau, tau_b, p, forward, reverse, (forward + reverse) / 2, has_ties(a) or has_ties(b))


#: the legend printed under each matrix of :meth:`Correlation.matrix` (docs/meta-evaluation.md 8, 9)
MATRIX_LEGENDS = {
    "tau": "cell: Kendall's tau between the runs' rankings by the row and the column measure (symmetric)",
    "tau_b": "cell: Kendall's tau_b (ties counted apart) between the runs' rankings by the row and the column "
             "measure (symmetric)",
    "tau_ap": "cell: tau_ap of the column measure's ranking with the row measure's as the reference (Yilmaz, "
              "Aslam & Robertson 2008: top ranks weigh more; not symmetric)",
    "tau_ap_symmetric": "cell: the mean of tau_ap both ways between the row and the column measure (symmetric)",
    "agreement": "cell: agreement of the significant pairs, |A and B| / |A or B| of the run pairs the row (A) and "
                 "the column (B) measure find significant, in the same direction (symmetric; blank on the "
                 "diagonal)",
}


def significant_pair_agreement(pairs_a: pd.DataFrame, pairs_b: pd.DataFrame, alpha: float) -> dict:
    """|A − B|, |A ∩ B|, |B − A|, conflicts and |A ∩ B|/|A ∪ B| (docs/meta-evaluation.md 9).

    ``pairs_*``: run_a, run_b, mean_a, mean_b, p_adjusted of the same run pairs. A pair is in
    A ∩ B when both find it significant in the same direction; both significant in opposite
    directions is a conflict (in A ∪ B, not in A ∩ B).
    """
    keys = ["run_a", "run_b"]
    merged = pairs_a[keys + ["mean_a", "mean_b", "p_adjusted"]].merge(
        pairs_b[keys + ["mean_a", "mean_b", "p_adjusted"]], on=keys, suffixes=("_x", "_y"), validate="one_to_one")
    sig_a = merged["p_adjusted_x"].to_numpy() < alpha
    sig_b = merged["p_adjusted_y"].to_numpy() < alpha
    same = signs(merged["mean_a_x"] - merged["mean_b_x"]) == signs(merged["mean_a_y"] - merged["mean_b_y"])
    both = int(np.sum(sig_a & sig_b & same))
    conflicts = int(np.sum(sig_a & sig_b & ~same))
    a_only, b_only = int(np.sum(sig_a & ~sig_b)), int(np.sum(sig_b & ~sig_a))
    union = a_only + both + b_only + conflicts
    return {"significant_a": int(sig_a.sum()), "significant_b": int(sig_b.sum()), "a_only": a_only,
            "in_both": both, "b_only": b_only, "conflicts": conflicts,
            "agreement": both / union if union else None}


#: The columns of ``table`` that ``pyeval correlate`` prints (those the experiment gives).
SHOWN_COLUMNS = ("measure_a", "measure_b", "tau", "tau_b", "tau_ap", "tau_ap_reverse", "tau_ap_symmetric", "a_only",
                 "in_both", "b_only", "conflicts", "agreement")


@dataclass(repr=False)
class Correlations(Displayed):
    """``table``: one row per measure pair (measure_a, measure_b, tau, tau_b, tau_ap, tau_ap_reverse,
    tau_ap_symmetric, tied_means and, with a test, the agreement columns); ``means``: run x
    measure means."""

    campaign_id: str
    table: pd.DataFrame
    means: pd.DataFrame
    matrices: MeasureMatrices
    correlation_id: int | None = None

    def df(self) -> pd.DataFrame:
        """``table``: one row per measure pair."""
        return self.table

    def _display_frame(self) -> pd.DataFrame:
        return self.table[[c for c in SHOWN_COLUMNS if c in self.table]]

    def _display_note(self) -> str:
        data = self.matrices
        return f"{self.campaign_id}: {len(data.run_ids)} runs, {len(data.topic_ids)} topics" + (f"\nstored as correlation experiment {self.correlation_id}" if self.correlation_id is not None else "")

    def matrix(self, column: str = "tau") -> pd.DataFrame:
        """A measure x measure matrix of ``column`` (row = measure_a, the τ_ap reference)."""
        names = list(self.matrices.measures)
        square = pd.DataFrame(np.nan, index=names, columns=names)
        for row in self.table.itertuples(index=False):
            square.loc[row.measure_a, row.measure_b] = getattr(row, column)
            mirrored = {"tau_ap": "tau_ap_reverse", "tau_ap_reverse": "tau_ap"}.get(column, column)
            square.loc[row.measure_b, row.measure_a] = getattr(row, mirrored)
        for name in names:
            square.loc[name, name] = 1.0 if column.startswith("tau") else square.loc[name, name]
        return square

    def plot(self, path, title: str | None = None, dpi: float | None = None):
        """Scatter the runs' ranks by the first measure against each other measure (Sakai, AIRS 2005 Fig. 5 style)."""
        from .store import pyplot, save_figure

        plt = pyplot()
        names = list(self.matrices.measures)
        reference = names[0]
        order = self.means.sort_values(reference, ascending=False, kind="stable").index
        figure, axes = plt.subplots(figsize=(6.4, 4.4), dpi=120)
        x = np.arange(1, len(order) + 1)
        for name in names:
            axes.plot(x, self.means.loc[order, name].to_numpy(), marker=".", linewidth=1, label=name)
        from matplotlib.ticker import MaxNLocator

        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlim(0.5, len(order) + 0.5)
        axes.set_xlabel(f"run rank by {reference} (1 = best)")
        axes.set_ylabel("mean over topics")
        taus = "; ".join(f"{row.measure_b}: {row.tau:.3f}" for row in self.table.itertuples(index=False)
                         if row.measure_a == reference)
        import textwrap

        text = title or (f"system rankings: {self.campaign_id}, {len(order)} runs "
                         f"(Kendall's tau with {reference}: {taus})")
        axes.set_title(textwrap.fill(text, 80), fontsize=9)  # wrapped: a long title is not cut at the edges
        axes.legend(fontsize=8)
        axes.grid(alpha=0.3)
        save_figure(figure, path, dpi)
        return path


@stores_in_one_transaction
@default_judgment_set()
def correlate(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[str],
    *,
    runs: Sequence[str] | None = None,
    test: str | None = "bootstrap",
    alpha: float = 0.05,
    replicates: int | None = None,
    seed: int = DEFAULT_SEED,
    store: bool = True,
    judgment_set: str | None = None,
) -> Correlations:
    """Rank correlations of every pair of ``measures`` (in the order given: measure_a is the
    earlier one and the reference of τ_ap) over the runs scored on all of them, and, unless
    ``test`` is None, the agreement of their significant pairs under that test (stored tests of
    the same runs, scores, B and seed are reused, else run and stored as by `pyeval compare`).
    ``judgment_set``: the scores read are those stored under that set (docs/judgments.md)."""
    from .report import compare

    names = measure_names(measures, at_least=2)
    if test is not None and test not in TESTS:
        raise PyevalError(f"test must be one of {', '.join(TESTS)} or none; got {test!r}")
    if not 0 < alpha < 1:
        raise PyevalError(f"alpha must be between 0 and 1; got {alpha}")
    data = measure_matrices(con, campaign_id, names, runs, judgment_set)
    means = pd.DataFrame({name: data.means(name) for name in names}, index=list(data.run_ids))
    pairs = tests = None
    if test is not None:
        report = compare(con, campaign_id, names, test=test, alpha=alpha, runs=list(data.run_ids),
                         replicates=replicates, seed=seed, store=store, judgment_set=judgment_set)
        pairs = {name: frame for name, frame in report.pairs.groupby("measure")}
        tests = report
    rows = []
    notes = few_runs(len(data.run_ids))
    for a, b in combinations(names, 2):
        corr = correlate_means(means[a].to_numpy(), means[b].to_numpy(), data.run_ids)
        row = {"campaign_id": campaign_id, "measure_a": a, "measure_b": b, "evaluation_id": data.evaluation_id,
               "evaluation_ids": [data.evaluation_ids[a], data.evaluation_ids[b]], "run_ids": list(data.run_ids),
               "topic_count": len(data.topic_ids), **corr.__dict__, "warnings": list(notes),
               "judgment_set": judgment_set}
        if tests is not None:
            row.update(test=test, alpha=alpha, replicates=tests.replicates, seed=tests.seed,
                       test_id_a=tests.test_ids.get(a), test_id_b=tests.test_ids.get(b),
                       **significant_pair_agreement(pairs[a], pairs[b], alpha))
        rows.append(row)
    table = pd.DataFrame(rows)
    announce(notes)
    result = Correlations(campaign_id, table, means, data)
    if store:
        result.correlation_id = insert_experiment(con, TABLE, "correlation_id", _stored(table))
    return result


_COLUMNS = ("campaign_id", "measure_a", "measure_b", "evaluation_id", "evaluation_ids", "run_ids", "topic_count",
            "tau", "tau_b", "tau_b_pvalue", "tau_ap", "tau_ap_reverse", "tau_ap_symmetric", "tied_means", "test",
            "alpha", "replicates", "seed", "test_id_a", "test_id_b", "significant_a", "significant_b", "a_only",
            "in_both", "b_only", "conflicts", "agreement", "warnings", "judgment_set")


def _stored(table: pd.DataFrame) -> pd.DataFrame:
    frame = table.reindex(columns=list(_COLUMNS))
    for column in ("test_id_a", "test_id_b", "significant_a", "significant_b", "a_only", "in_both", "b_only",
                   "conflicts", "replicates", "seed", "evaluation_id"):
        frame[column] = frame[column].astype("Int64")
    for column in ("alpha", "agreement", "tau", "tau_b", "tau_b_pvalue", "tau_ap", "tau_ap_reverse",
                   "tau_ap_symmetric"):
        frame[column] = frame[column].astype("Float64")
    frame["test"] = frame["test"].astype("string")
    return frame


__all__ = ["Correlation", "Correlations", "correlate", "correlate_means", "kendall_tau", "kendall_tau_b",
           "rank_agreement", "ranking",
           "significant_pair_agreement", "tau_ap"]
