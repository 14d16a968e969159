"""Swap rates (Voorhees & Buckley SIGIR 2002, with Sakai's stricter swap counting, AIRS 2005;
docs/meta-evaluation.md section 6; Sakai, AIRS 2005 Fig. 2 and Tables 2-3).

For T trials, a pair of topic subsets Q_t, Q'_t of size c (disjoint by default) is drawn once and
shared by every run pair and measure (stored as a replicate set of kind ``disjoint_pair``, or
``bootstrap_pair`` for sampling with replacement). For each run pair (x, y) and trial,
d = M(x, Q_t) − M(y, Q_t) and d' = M(x, Q'_t) − M(y, Q'_t); the comparison goes to bin
k = min(20, ⌊round(|d|/0.01, 9)⌋) and is a swap when d and d' have opposite signs or, under the
default ``strict`` rule, exactly one of them is zero (tolerance-aware zero, docs/meta-evaluation.md 13).
swap_rate[k] = swaps[k] / comparisons[k].

Read-off: the required difference is the lower edge of the smallest bin b such that every bin
b' ≥ b with comparisons has swap_rate ≤ 5 %; ``share_reaching`` is the share of all comparisons
(pairs × T) in bins ≥ b (Sakai, AIRS 2005: Relaxed AveP, c = 20, 0.11 and 23.7 % of 435,000).
Everything is vectorised: each chunk of trials is one gather and one comparison over all pairs.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pandas as pd

from ..display import Displayed
from .. import __version__
from .. import progress as bars
from pyeval.core.db import default_judgment_set, stores_in_one_transaction
from ..errors import PyevalError, require_choice
from . import replicates as rep
from .significance import DEFAULT_SEED
from .stats import pair_indices
from .store import (
    announce,
    few_runs,
    insert_experiment,
    measure_matrices,
    measure_names,
    pyplot,
    save_figure,
    signs,
)

TABLE = "swap_rates"
SUMMARY_TABLE = "swap_rate_summaries"
SAMPLINGS = {"disjoint": "disjoint_pair", "with_replacement": "bootstrap_pair"}
SWAP_RULES = ("strict", "original")
TRIAL_CHUNK = 250


@dataclass(frozen=True)
class SwapCounts:
    """Per-bin comparisons and swaps of one measure (arrays of length ``bins``)."""

    comparisons: np.ndarray
    swaps: np.ndarray

    @property
    def swap_rate(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.comparisons > 0, self.swaps / np.maximum(self.comparisons, 1), np.nan)


def swap_counts(X: np.ndarray, draws: np.ndarray, subset_size: int, *, bin_width: float = 0.01, bins: int = 21,
                rule: str = "strict", chunk: int = TRIAL_CHUNK) -> SwapCounts:
    """Comparisons and swaps per bin for the topic x run matrix ``X`` and the T x 2c subset draws
    (first c positions Q_t, last c Q'_t)."""
    if rule not in SWAP_RULES:
        raise ValueError(f"swap rule must be one of {', '.join(SWAP_RULES)}; got {rule!r}")
    X = np.asarray(X, dtype=float)
    c = subset_size
    a, b = pair_indices(X.shape[1])
    scale = float(np.abs(X).max(initial=0.0))
    comparisons = np.zeros(bins, dtype=np.int64)
    swaps = np.zeros(bins, dtype=np.int64)
    for start in range(0, draws.shape[0], chunk):
        part = draws[start:start + chunk]
        first = X[part[:, :c]].mean(axis=1)  # chunk x m
        second = X[part[:, c:]].mean(axis=1)
        d, d2 = first[:, a] - first[:, b], second[:, a] - second[:, b]
        s, s2 = signs(d, scale), signs(d2, scale)
        swapped = (s.astype(np.int16) * s2) < 0
        if rule == "strict":
            swapped |= (s == 0) ^ (s2 == 0)
        magnitude = np.where(s == 0, 0.0, np.abs(d))
        k = np.minimum(bins - 1, np.floor(np.round(magnitude / bin_width, 9))).astype(np.int64).ravel()
        comparisons += np.bincount(k, minlength=bins)
        swaps += np.bincount(k[swapped.ravel()], minlength=bins)
    return SwapCounts(comparisons, swaps)


def required_bin(counts: SwapCounts, max_swap_rate: float = 0.05) -> int | None:
    """The smallest bin b with swap_rate ≤ ``max_swap_rate`` in every non-empty bin ≥ b (None
    when the last non-empty bin exceeds it)."""
    rate = counts.swap_rate
    ok = (counts.comparisons == 0) | (rate <= max_swap_rate + 1e-12)
    suffix = np.logical_and.accumulate(ok[::-1])[::-1]
    if not suffix[-1] or not suffix.any():
        return None
    return int(np.argmax(suffix))


@dataclass(repr=False)
class SwapRates(Displayed):
    """``table``: measure, bin, bin_low, bin_high, comparisons, swaps, swap_rate;
    ``summary``: measure, required_difference, relative_difference, comparisons,
    comparisons_reaching, share_reaching, warnings (what makes the read-off say little)."""

    campaign_id: str
    table: pd.DataFrame
    summary: pd.DataFrame
    settings: dict = field(default_factory=dict)
    swaprate_id: int | None = None

    def df(self) -> pd.DataFrame:
        """``summary``: one row per measure (the per-bin rates: ``table``)."""
        return self.summary

    def _display_frame(self) -> pd.DataFrame:
        return self.summary.drop(columns=["evaluation_id", "bin_width", "warnings"])

    def _display_note(self) -> str:
        s = self.settings
        return (f"{self.campaign_id}: {s['runs']} runs ({s['pairs']} pairs), {s['topic_count']} topics, "
                f"c = {s['subset_size']}, {s['trials']} trials ({s['sampling']}, {s['swap_rule']} swaps), "
                f"seed {s['seed']}") + (f"\nstored as swap-rate experiment {self.swaprate_id}" if self.swaprate_id is not None else "")

    def plot(self, path, title: str | None = None, dpi: float | None = None):
        """Swap rate against the performance-difference bin, one line per measure, 5 % dashed."""
        plt = pyplot()
        figure, axes = plt.subplots(figsize=(6.4, 4.4), dpi=120)
        for measure, rows in self.table.groupby("measure", sort=False):
            axes.plot(rows["bin_low"], rows["swap_rate"], marker=".", linewidth=1, label=measure)
        axes.axhline(self.settings.get("max_swap_rate", 0.05), color="grey", linestyle="--", linewidth=0.8)
        axes.set_xlabel("performance difference bin (lower edge)")
        axes.set_ylabel("swap rate")
        s = self.settings
        axes.set_title(title or f"swap rates: {self.campaign_id}, c = {s.get('subset_size')}, "
                                f"{s.get('trials')} trials, {s.get('runs')} runs", fontsize=9)
        axes.legend(fontsize=8)
        axes.grid(alpha=0.3)
        save_figure(figure, path, dpi)
        return path


def _iv(trials: int, bins: int, bin_width: float, sampling: str, rule: str, max_swap_rate: float) -> None:
    if trials < 1:
        raise PyevalError(f"the number of trials must be positive; got {trials}")
    if bins < 2 or bin_width <= 0:
        raise PyevalError(f"bins must be at least 2 and the bin width positive; got {bins} bins of {bin_width}")
    require_choice("sampling", sampling, SAMPLINGS)
    require_choice("swap rule", rule, SWAP_RULES)
    if not 0 < max_swap_rate < 1:
        raise PyevalError(f"the maximum swap rate must be between 0 and 1; got {max_swap_rate}")


def subset_size_iv(subset_size: int | None, n: int, per_trial: int) -> int:
    """The subset size c: default ⌊n/per_trial⌋; c·per_trial distinct topics must exist."""
    c = subset_size if subset_size is not None else n // per_trial
    if c < 1 or c * per_trial > n:
        need = "2c <= n" if per_trial == 2 else "c <= n"
        raise PyevalError(f"subset size c = {c} does not fit {n} topics ({need}, c >= 1)")
    return c


@stores_in_one_transaction
@default_judgment_set()
def swap_rate(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[str],
    *,
    subset_size: int | None = None,
    trials: int = 1000,
    seed: int = DEFAULT_SEED,
    sampling: str = "disjoint",
    rule: str = "strict",
    bin_width: float = 0.01,
    bins: int = 21,
    max_swap_rate: float = 0.05,
    runs: Sequence[str] | None = None,
    store: bool = True,
    judgment_set: str | None = None,
    progress: bool | None = None,
) -> SwapRates:
    """Swap rates of ``measures`` on the runs scored on all of them (or ``runs``) under
    ``judgment_set``, with the same T subset pairs for every measure. ``subset_size`` c defaults
    to ⌊n/2⌋ (disjoint) or n (with replacement). Stored in swap_rates (per bin) and
    swap_rate_summaries. ``progress``: a bar over the measures (:func:`pyeval.progress.shown`)."""
    _iv(trials, bins, bin_width, sampling, rule, max_swap_rate)
    names = measure_names(measures)
    data = measure_matrices(con, campaign_id, names, runs, judgment_set)
    n = len(data.topic_ids)
    kind = SAMPLINGS[sampling]
    if sampling == "disjoint":
        c = subset_size_iv(subset_size, n, 2)
    else:
        c = subset_size if subset_size is not None else n
        if c < 1:
            raise PyevalError(f"subset size c must be positive; got {c}")
    draws = rep.obtain(con, kind, campaign_id, data.topic_ids, trials, seed, store=store, subset_size=c)
    pairs = len(data.run_ids) * (len(data.run_ids) - 1) // 2
    common = {"campaign_id": campaign_id, "run_ids": list(data.run_ids), "topic_count": n, "subset_size": c,
              "trials": trials, "sampling": sampling, "swap_rule": rule, "seed": seed,
              "replicate_set_id": draws.replicate_set_id, "judgment_set": judgment_set}
    tables, summaries = [], []
    shared_warnings = few_runs(len(data.run_ids))
    for name in bars.bar(names, progress=progress, desc="swap rates", unit="measure"):
        X = data.values[name]
        counts = swap_counts(X, draws.draws, c, bin_width=bin_width, bins=bins, rule=rule)
        low = np.round(np.arange(bins) * bin_width, 12)
        high = np.append(low[1:], np.nan)
        tables.append(pd.DataFrame({"measure": name, "evaluation_id": data.evaluation_ids[name], "bin": np.arange(bins),
                                    "bin_low": low, "bin_high": high, "comparisons": counts.comparisons,
                                    "swaps": counts.swaps, "swap_rate": counts.swap_rate}))
        b = required_bin(counts, max_swap_rate)
        total = int(counts.comparisons.sum())
        reaching = int(counts.comparisons[b:].sum()) if b is not None else None
        denominator = float(X.mean())
        required = float(low[b]) if b is not None else None
        notes = list(shared_warnings)
        if b is not None and not reaching:
            notes.append(f"{name}: none of the {total} comparisons reaches the required difference {required:g}, "
                         f"which no data support")
        elif b is None:
            notes.append(f"{name}: no difference keeps the swap rate at or below {max_swap_rate:g}")
        summaries.append({
            "measure": name, "evaluation_id": data.evaluation_ids[name], "bin_width": bin_width,
            "max_swap_rate": max_swap_rate, "required_difference": required,
            "relative_denominator": denominator,
            "relative_difference": required / denominator if required is not None and denominator > 0 else None,
            "comparisons": total, "comparisons_reaching": reaching,
            "share_reaching": reaching / total if reaching is not None and total else None,
            "warnings": notes,
        })
    table = pd.concat(tables, ignore_index=True)
    summary = pd.DataFrame(summaries)
    result = SwapRates(campaign_id, table, summary,
                       {**common, "runs": len(data.run_ids), "pairs": pairs, "max_swap_rate": max_swap_rate,
                        "bin_width": bin_width, "bins": bins})
    announce([note for notes in summary["warnings"] for note in notes])
    if store:
        result.swaprate_id = _store(con, table, summary, common)
    return result


def _store(con, table: pd.DataFrame, summary: pd.DataFrame, common: dict) -> int:
    def with_common(frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.copy()
        for key, value in common.items():
            out[key] = [value] * len(out) if isinstance(value, list) else value
        return out.astype({"evaluation_id": "Int64", "replicate_set_id": "Int64"})

    rows = with_common(table).astype({"swap_rate": "Float64", "bin_high": "Float64"})
    summary_rows = with_common(summary).astype({
        "required_difference": "Float64", "relative_difference": "Float64", "comparisons_reaching": "Int64",
        "share_reaching": "Float64"})
    summary_rows["pyeval_version"] = __version__
    return insert_experiment(con, TABLE, "swaprate_id", rows, **{SUMMARY_TABLE: summary_rows})


__all__ = ["SwapCounts", "SwapRates", "required_bin", "swap_counts", "swap_rate"]
