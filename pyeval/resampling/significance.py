"""Significance tests on stored scores: read X, draw or reuse the shared replicates, run the
test over every run pair, correct, and store (tables significance_tests, pairwise_tests).

Procedures: docs/meta-evaluation.md sections 1-4, 11 and 13; docs/resampling.md.
"""
from __future__ import annotations


import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from ..display import Displayed
from ..vocabulary import COMPARISONS, CORRECTIONS, P_CONVENTIONS, SIGNIFICANCE_TESTS, TEST_NAMES, names, significance_test
from pyeval.core.db import default_judgment_set, first_row, rollback_quietly, stores_in_one_transaction, transaction
from ..errors import PyevalError, with_command_line, require_choice
from . import replicates as rep
from . import stats
from .matrix import (
    ScoreMatrix,
    campaign_runs,
    canonical_measure,
    score_matrix,
    scored_runs,
)

#: The tests and their traits are pyeval.vocabulary.SIGNIFICANCE_TESTS; these are views of it.
TESTS = TEST_NAMES
#: B when none is given (each resampling test's ``default_b``).
DEFAULT_REPLICATES = {t.name: t.default_b for t in SIGNIFICANCE_TESTS if t.default_b is not None}
DEFAULT_SEED = 0
#: Each closed-form test's function, by name: called as ``function(X, runs=runs, **options)`` on
#: the topic x run matrix ``X`` (options: the test's ``options`` in the vocabulary), returning a
#: ``stats.PairwiseResult``.
CLOSED_FORM_TESTS: dict[str, Callable[..., stats.PairwiseResult]] = {
    "t": stats.t_test,
    "sign": stats.sign_test,
    "wilcoxon": stats.wilcoxon_test,
}


@dataclass(repr=False)
class SignificanceResult(Displayed):
    """A test over every run pair of one measure (scipy.stats style: ``statistic``, ``pvalue``).

    ``pairs``: run_a, run_b, mean_a, mean_b, mean_diff, statistic, pvalue, p_adjusted,
    significant (p_adjusted < alpha), and the test's extras (count, mc_error, effect_size,
    ci_low, ci_high, delta, delta_replicate). ``delta``: the metric's Δ (bootstrap: max over
    pairs of the borderline difference; Tukey: smallest significant difference); ``hsd``: the
    Tukey HSD_α. ``test_id``/``replicate_set_id``: the stored rows (None when not stored).
    """

    matrix: ScoreMatrix
    test: str
    pairs: pd.DataFrame
    alpha: float
    correction: str
    replicates: int | None
    seed: int | None
    delta: float | None
    hsd: float | None
    settings: dict
    replicate_set_id: int | None = None
    test_id: int | None = None

    def df(self) -> pd.DataFrame:
        """``pairs``: every pair's result, every column."""
        return self.pairs

    def _display_frame(self) -> pd.DataFrame:
        return stats.shown_pairs(self.pairs)

    def _display_note(self) -> str:
        return self.summary() + (f"\nstored as test {self.test_id}" if self.test_id is not None else "")

    def _display_options(self) -> dict:
        return stats.display_options(self.test, self.replicates)

    @property
    def statistic(self) -> np.ndarray:
        return self.pairs["statistic"].to_numpy()

    @property
    def pvalue(self) -> np.ndarray:
        return self.pairs["pvalue"].to_numpy()

    @property
    def significant_pairs(self) -> int:
        return int(self.pairs["significant"].sum())

    @property
    def total_pairs(self) -> int:
        return len(self.pairs)

    def summary(self) -> str:
        """One line: what was tested, how many pairs are significant, Δ."""
        parts = [
            f"{self.matrix.campaign_id} {self.matrix.measure}: {self.test}",
            f"{len(self.matrix.run_ids)} runs x {len(self.matrix.topic_ids)} topics",
        ]
        if self.replicates:
            parts.append(f"B = {self.replicates}" + (f", seed {self.seed}" if self.seed is not None else ""))
        parts.append(f"{self.significant_pairs}/{self.total_pairs} pairs significant at alpha = {self.alpha:g}"
                     + (f" ({self.correction})" if self.correction != "none" else ""))
        if self.delta is not None:
            parts.append(f"delta = {self.delta:.4f}")
        if self.hsd is not None:
            parts.append(f"HSD = {self.hsd:.4f}")
        if self.matrix.filled:
            parts.append(f"{self.matrix.filled} missing cells scored 0")
        return "; ".join(parts)


def _options_iv(test: str, alpha: float, replicates: int | None, correction: str, comparison: str,
                p_convention: str) -> None:
    require_choice("test", test, TESTS)
    if not 0 < alpha < 1:
        raise PyevalError(f"alpha must be between 0 and 1; got {alpha}")
    if replicates is not None and replicates < 1:
        raise PyevalError(f"the number of replicates B must be positive; got {replicates}")
    for what, vocabulary, value in (("correction", CORRECTIONS, correction), ("comparison", COMPARISONS, comparison),
                                    ("p-value convention", P_CONVENTIONS, p_convention)):
        require_choice(what, value, names(vocabulary))


@default_judgment_set()
def choose_runs(con: duckdb.DuckDBPyConnection, campaign_id: str, measures: Sequence[str],
                runs: Sequence[str] | None, runs_sample: int | None, seed: int,
                judgment_set: str | None = None) -> list[str] | None:
    """The runs to test: ``runs`` (default every run scored on every measure under
    ``judgment_set``), or a seeded random sample of ``runs_sample`` of them (the 20 sampled runs
    of Sakai & Song, SIGIR 2011)."""
    if not runs_sample:
        return list(runs) if runs else None
    campaign_runs(con, campaign_id)
    pool = list(runs) if runs else None
    if pool is None:
        scored = [set(scored_runs(con, campaign_id, canonical_measure(m), judgment_set)) for m in measures]
        pool = sorted(set.intersection(*scored)) if scored else []
    if runs_sample < 2:
        raise with_command_line(PyevalError(f"runs_sample must be at least 2; got {runs_sample}"),
                                f"--runs-sample must be at least 2; got {runs_sample}")
    if runs_sample > len(pool):
        raise PyevalError(f"cannot sample {runs_sample} runs: campaign '{campaign_id}' has {len(pool)} "
                          "runs with stored scores for the measures")
    return rep.sample_runs(pool, runs_sample, seed)


def test_matrix(
    matrix: ScoreMatrix,
    test: str = "bootstrap",
    *,
    con: duckdb.DuckDBPyConnection | None = None,
    replicates: int | None = None,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    correction: str = "none",
    comparison: str = "ge",
    p_convention: str = "count",
    tau: float = 0.0,
    wilcoxon_method: str = "auto",
    store_replicates: bool = True,
    progress: bool | None = None,
) -> SignificanceResult:
    """Run ``test`` on a score matrix; replicates come from (or go to) ``con`` when given."""
    _options_iv(test, alpha, replicates, correction, comparison, p_convention)
    X, runs, topics = matrix.values, matrix.run_ids, matrix.topic_ids
    traits = significance_test(test)
    B = replicates or traits.default_b
    set_id = None
    used_seed: int | None = seed
    options = {"alpha": alpha, "tau": tau, "method": wilcoxon_method}  # what a test may take and record
    if test == "bootstrap":
        draws = rep.obtain(con, "bootstrap", matrix.campaign_id, topics, B, seed, store=store_replicates)
        set_id = draws.replicate_set_id
        result = stats.bootstrap_test(X, draws.draws, runs=runs, alpha=alpha, comparison=comparison,
                                      p_convention=p_convention, progress=progress)
    elif test == "tukey":
        draws = rep.obtain(con, "permutation", matrix.campaign_id, topics, B, seed, len(runs),
                           store=store_replicates)
        set_id = draws.replicate_set_id
        result = stats.tukey_hsd(X, draws.chunks, runs=runs, alpha=alpha, comparison=comparison,
                                 p_convention=p_convention, expected_sha256=draws.sha256, progress=progress,
                                 chunks=-(-B // draws.chunk_size))
    elif test == "randomization":
        if 2 ** len(topics) <= B:
            result = stats.randomisation_test(X, None, runs=runs, comparison=comparison, progress=progress)
            used_seed = None
        else:
            draws = rep.obtain(con, "signflip", matrix.campaign_id, topics, B, seed, store=store_replicates)
            set_id = draws.replicate_set_id
            result = stats.randomisation_test(X, draws.draws, runs=runs, comparison=comparison,
                                              p_convention=p_convention, progress=progress)
        B = result.replicates
    else:  # a closed-form test: its function (CLOSED_FORM_TESTS)
        result, B, used_seed = CLOSED_FORM_TESTS[test](X, runs=runs, **{k: options[k] for k in traits.options}), None, None
    pairs = result.pairs.copy()
    applied = correction if traits.corrected else "none"
    pairs.insert(pairs.columns.get_loc("pvalue") + 1, "p_adjusted", stats.adjust(pairs["pvalue"].to_numpy(), applied))
    pairs.insert(pairs.columns.get_loc("p_adjusted") + 1, "significant", pairs["p_adjusted"] < alpha)
    delta, hsd = result.delta, result.hsd
    if test == "tukey":  # Δ of JIP 2013 Fig. 5 follows the significance decision
        significant = pairs["significant"].to_numpy()
        delta = float(np.abs(pairs["mean_diff"].to_numpy())[significant].min()) if significant.any() else None
    settings = {k: v for k, v in result.settings.items() if k != "ranges"}
    settings.update(fill="missing cells = 0", filled_cells=matrix.filled)
    settings.update({k: options[k] for k in traits.recorded})
    return SignificanceResult(matrix, test, pairs, alpha, applied, B, used_seed, delta, hsd, settings, set_id)


@stores_in_one_transaction
@default_judgment_set()
def significance(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measure: str,
    test: str = "bootstrap",
    *,
    runs: Sequence[str] | None = None,
    runs_sample: int | None = None,
    replicates: int | None = None,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    correction: str = "none",
    comparison: str = "ge",
    p_convention: str = "count",
    tau: float = 0.0,
    wilcoxon_method: str = "auto",
    store: bool = True,
    progress: bool | None = None,
    judgment_set: str | None = None,
) -> SignificanceResult:
    """Test every pair of runs of ``campaign_id`` on the stored scores of ``measure``.

    ``test``: bootstrap (B = 1000), tukey (randomised Tukey HSD, B = 5000), randomization
    (sign flips, B = 100,000, exact when 2^n <= B), t, sign, wilcoxon. ``runs_sample``: test a
    random sample of that many runs (seeded by ``seed``). ``correction``: none, holm or bh
    (not applied to tukey). ``comparison``: 'ge' (tie-aware >=, default) or 'gt'.
    ``p_convention``: 'count' (count/B, default) or 'plus-one' ((count+1)/(B+1)). With
    ``store``, the replicates and the results are stored (result.test_id). ``judgment_set``:
    the scores tested are those stored under that judgment set (docs/judgments.md).
    """
    _options_iv(test, alpha, replicates, correction, comparison, p_convention)
    chosen = choose_runs(con, campaign_id, [measure], runs, runs_sample, seed)
    matrix = score_matrix(con, campaign_id, measure, chosen, judgment_set)
    result = test_matrix(matrix, test, con=con, replicates=replicates, seed=seed, alpha=alpha,
                         correction=correction, comparison=comparison, p_convention=p_convention, tau=tau,
                         wilcoxon_method=wilcoxon_method, store_replicates=store, progress=progress)
    if runs_sample:
        result.settings["runs_sample"] = runs_sample
    if store:
        result.test_id = store_result(con, result)
    return result


def store_result(con: duckdb.DuckDBPyConnection, result: SignificanceResult) -> int:
    """Insert one significance_tests row and its pairwise_tests rows; returns the test_id."""
    from .. import __version__

    m = result.matrix
    with transaction(con):  # part of the command's transaction, if any (pyeval.core.db)
        test_id = first_row(con, "select coalesce(max(test_id), 0) + 1 from significance_tests")[0]
        con.execute(
            "insert into significance_tests (test_id, campaign_id, measure, test, run_ids, topic_count, "
            "filled_cells, evaluation_id, replicates, seed, replicate_set_id, alpha, correction, comparison, "
            "p_convention, tolerance, significant_pairs, total_pairs, delta, hsd, settings, pyeval_version, "
            "judgment_set) values ($id, $campaign, $measure, $test, $runs, $topics, $filled, $evaluation, $b, "
            "$seed, $set, $alpha, $correction, $comparison, $convention, $tolerance, $significant, $total, "
            "$delta, $hsd, $settings, $version, $judgment_set)",
            {"id": test_id, "campaign": m.campaign_id, "measure": m.measure, "test": result.test,
             "runs": list(m.run_ids), "topics": len(m.topic_ids), "filled": m.filled,
             "evaluation": m.evaluation_id, "b": result.replicates, "seed": result.seed,
             "set": result.replicate_set_id, "alpha": result.alpha, "correction": result.correction,
             "comparison": result.settings.get("comparison"), "convention": result.settings.get("p_convention"),
             "tolerance": stats.TOLERANCE, "significant": result.significant_pairs, "total": result.total_pairs,
             "delta": result.delta, "hsd": result.hsd, "settings": json.dumps(result.settings, default=str),
             "version": __version__, "judgment_set": m.judgment_set},
        )
        frame = result.pairs
        rows = pd.DataFrame({
            "run_a": frame["run_a"], "run_b": frame["run_b"], "mean_a": frame["mean_a"],
            "mean_b": frame["mean_b"], "mean_diff": frame["mean_diff"], "statistic": frame["statistic"],
            "p": frame["pvalue"], "p_adjusted": frame["p_adjusted"], "significant": frame["significant"],
            **{c: frame.get(c, np.nan) for c in ("mc_error", "effect_size", "ci_low", "ci_high",
                                                               "delta")},
            "delta_replicate": (frame["delta_replicate"] if "delta_replicate" in frame
                                else pd.Series(pd.NA, index=frame.index)).astype("Int32"),
        })
        con.register("new_pairs", rows)
        try:
            con.execute(
                "insert into pairwise_tests (test_id, campaign_id, measure, test, run_a, run_b, mean_a, mean_b, "
                "mean_diff, statistic, p, p_adjusted, significant, mc_error, effect_size, ci_low, ci_high, delta, "
                "delta_replicate, replicates, seed, evaluation_id, judgment_set) select $id, $campaign, $measure, $test, "
                "run_a, run_b, mean_a, mean_b, mean_diff, statistic, p, p_adjusted, significant, mc_error, "
                "effect_size, ci_low, ci_high, delta, delta_replicate, $b, $seed, $evaluation, $judgment_set "
                "from new_pairs",
                {"id": test_id, "campaign": m.campaign_id, "measure": m.measure, "test": result.test,
                 "b": result.replicates, "seed": result.seed, "evaluation": m.evaluation_id,
                 "judgment_set": m.judgment_set},
            )
        finally:
            con.unregister("new_pairs")
    return test_id
