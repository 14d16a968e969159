"""Discriminative power and ASL curves (Sakai SIGIR 2006; Sakai & Song, SIGIR 2011 Figs 1-2, Sakai, JIP 2013 Figs 8-9;
docs/meta-evaluation.md section 5).

For each measure, one test over every run pair with the same runs and the same replicates;
discriminative power at α = the number (and share) of pairs with ASL < α, reported with Δ. The
ASL curve is the pairs' ASLs sorted ascending, plotted against the pair rank: curves closer to
the origin mean more discriminative measures.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from ..display import Displayed
from ..vocabulary import TEST_NAMES
from pyeval.core.db import default_judgment_set, first_row, rollback_quietly, stores_in_one_transaction, transaction
from ..errors import PyevalError, with_command_line
from .matrix import canonical_measure
from .store import announce, few_runs
from .significance import DEFAULT_SEED, SignificanceResult, choose_runs, significance

DISCPOWER_TESTS = TEST_NAMES  # every significance test (pyeval.vocabulary.SIGNIFICANCE_TESTS)


@dataclass(repr=False)
class DiscriminativePower(Displayed):
    """``table``: measure, test, alpha, significant_pairs, total_pairs, share, delta, test_id;
    ``curves``: measure, rank (1 = smallest ASL), asl; ``results``: each measure's test."""

    campaign_id: str
    test: str
    alpha: float
    table: pd.DataFrame
    curves: pd.DataFrame
    results: dict[str, SignificanceResult] = field(repr=False)
    discpower_id: int | None = None
    judgment_set: str = "official"  # the judgment set whose scores were tested

    def df(self) -> pd.DataFrame:
        """``table``: one row per measure."""
        return self.table

    def _display_frame(self) -> pd.DataFrame:
        return self.table.drop(columns=["test_id", "warnings"])

    def _display_note(self) -> str:
        first = next(iter(self.results.values())).matrix
        return (f"{self.campaign_id}: {len(first.run_ids)} runs ({', '.join(first.run_ids)}), "
                f"{len(first.topic_ids)} topics") + (f"\nstored as discriminative power {self.discpower_id}" if self.discpower_id is not None else "")

    def plot(self, path: str | Path, title: str | None = None, dpi: float | None = None) -> Path:
        """Save the ASL curves (matplotlib, Agg backend; PNG, PDF or SVG by ``path``'s suffix,
        :func:`pyeval.resampling.store.save_figure`): ASL against pair rank, one line per
        measure, the α level dashed."""
        from .store import pyplot, save_figure

        plt = pyplot()
        path = Path(path)
        figure, axes = plt.subplots(figsize=(6.4, 4.4), dpi=120)
        try:
            for measure, curve in self.curves.groupby("measure", sort=False):
                row = self.table[self.table["measure"] == measure].iloc[0]
                axes.plot(curve["rank"], curve["asl"], marker=".", markersize=3, linewidth=1,
                          label=f"{measure} ({row.significant_pairs}/{row.total_pairs})")
            axes.axhline(self.alpha, color="grey", linestyle="--", linewidth=0.8)
            axes.annotate(f"α = {self.alpha:g}", (0, self.alpha), xytext=(4, 3), textcoords="offset points",
                          fontsize=7, color="grey")
            first = next(iter(self.results.values()))
            axes.set_xlabel("run pairs sorted by ASL")
            axes.set_ylabel("ASL (p-value)")
            axes.set_ylim(0, 1 if self.curves["asl"].max() > 0.5 else None)
            axes.set_xlim(0, len(first.pairs) + 1)
            replicates = f", B = {first.replicates}" if first.replicates else ""
            axes.set_title(title or f"ASL curves: {self.campaign_id}, {self.test}{replicates}, "
                                    f"{len(first.matrix.run_ids)} runs x {len(first.matrix.topic_ids)} topics",
                           fontsize=9)
            axes.legend(fontsize=8, title=f"significant at {self.alpha:g}", title_fontsize=8)
            axes.grid(alpha=0.3)
        except BaseException:
            plt.close(figure)
            raise
        save_figure(figure, path, dpi)
        return path


def asl_curve(result: SignificanceResult) -> np.ndarray:
    """The pairs' ASLs (unadjusted p-values), ascending."""
    return np.sort(result.pvalue)


@stores_in_one_transaction
@default_judgment_set()
def discriminative_power(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[str],
    test: str = "bootstrap",
    *,
    alpha: float = 0.05,
    runs: Sequence[str] | None = None,
    runs_sample: int | None = None,
    replicates: int | None = None,
    seed: int = DEFAULT_SEED,
    store: bool = True,
    progress: bool | None = None,
    judgment_set: str | None = None,
    **options,
) -> DiscriminativePower:
    """Discriminative power of each measure with one test (bootstrap B = 1000 or randomised
    Tukey HSD B = 5000, or any test of :data:`DISCPOWER_TESTS`), on the same runs (``runs``,
    or a seeded random sample of ``runs_sample`` runs scored on every measure) and the same
    replicates, on the scores stored under ``judgment_set`` (docs/judgments.md). Stored in
    discriminative_power (one row per measure, with the ASL curve)."""
    if not measures:
        raise with_command_line(PyevalError("no measure requested (measures=['AP', 'nDCG@10'], say)"),
                                "no measure requested (e.g. -m AP -m nDCG@10)")
    names = list(dict.fromkeys(canonical_measure(m) for m in measures))
    chosen = choose_runs(con, campaign_id, names, runs, runs_sample, seed, judgment_set)
    results = {}
    for name in names:
        results[name] = significance(con, campaign_id, name, test, runs=chosen, replicates=replicates, seed=seed,
                                     alpha=alpha, store=store, progress=progress, judgment_set=judgment_set,
                                     **options)
        if runs_sample:
            results[name].settings["runs_sample"] = runs_sample
    return finish(con, campaign_id, test, alpha, results, store)


def finish(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    test: str,
    alpha: float,
    results: dict[str, SignificanceResult],
    store: bool,
) -> DiscriminativePower:
    """Discriminative power from each measure's test result (in measure order): the table, the
    ASL curves and (``store``) the rows of discriminative_power. Shared by every engine."""
    rows, curves = [], []
    notes = few_runs(len(next(iter(results.values())).matrix.run_ids)) if results else []
    announce(notes)
    for name, result in results.items():
        curve = asl_curve(result)
        rows.append({"measure": name, "test": test, "alpha": alpha, "significant_pairs": result.significant_pairs,
                     "total_pairs": result.total_pairs, "share": result.significant_pairs / result.total_pairs,
                     "delta": result.delta, "test_id": result.test_id, "warnings": list(notes)})
        curves.append(pd.DataFrame({"measure": name, "rank": np.arange(1, len(curve) + 1), "asl": curve}))
    table = pd.DataFrame(rows)
    judgment_set = next(iter(results.values())).matrix.judgment_set if results else "official"
    power = DiscriminativePower(campaign_id, test, alpha, table, pd.concat(curves, ignore_index=True), results,
                                judgment_set=judgment_set)
    if store:
        power.discpower_id = _store(con, power)
    return power


def _store(con: duckdb.DuckDBPyConnection, power: DiscriminativePower) -> int:
    with transaction(con):  # part of the command's transaction, if any (pyeval.core.db)
        discpower_id = first_row(con, "select coalesce(max(discpower_id), 0) + 1 from discriminative_power")[0]
        for row in power.table.itertuples(index=False):
            result = power.results[row.measure]
            con.execute(
                "insert into discriminative_power (discpower_id, test_id, campaign_id, measure, test, alpha, "
                "significant_pairs, total_pairs, share, delta, replicates, seed, asl_curve, warnings, judgment_set) "
                "values ($d, $t, $c, $m, $test, $alpha, $sig, $total, $share, $delta, $b, $seed, $curve, $warnings, "
                "$judgment_set)",
                {"d": discpower_id, "t": row.test_id, "c": power.campaign_id, "m": row.measure, "test": row.test,
                 "alpha": row.alpha, "sig": row.significant_pairs, "total": row.total_pairs, "share": row.share,
                 "delta": result.delta, "b": result.replicates, "seed": result.seed,
                 "curve": asl_curve(result).tolist(), "warnings": row.warnings, "judgment_set": power.judgment_set},
            )
    return discpower_id


__all__ = ["DiscriminativePower", "asl_curve", "discriminative_power"]
