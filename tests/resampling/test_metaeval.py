"""Resampling stage II (issue 8): swap rate, minority rate, rank correlations, agreement of
significant pairs, concordance test, gain robustness and MEM informativeness; hand-worked cases,
brute-force oracles, scipy cross-checks, stored tables, the CLI and the demo step."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

import pyeval
from pyeval.cli import main
from pyeval.errors import PyevalError
from pyeval.resampling import replicates as rep
from pyeval.resampling.concordance import concordance, concordance_of
from pyeval.resampling.correlation import (
    correlate,
    correlate_means,
    kendall_tau,
    significant_pair_agreement,
    tau_ap,
)
from pyeval.resampling.mem import (
    Settings,
    ap_expectation,
    cascade_expectation,
    entropy,
    expectation,
    gain_table,
    informativeness,
    solve,
)
from pyeval.resampling.stability import stability, stability_counts
from pyeval.resampling.swaprate import required_bin, swap_counts, swap_rate

from .helpers import grid_matrix, scored_warehouse, store_matrix

# ---------------------------------------------------------------------------------------------
# Rank correlations (docs/meta-evaluation.md 8) and agreement (9)
# ---------------------------------------------------------------------------------------------


def test_kendall_tau_matches_scipy_without_ties():
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = rng.random(12)
        y = x + rng.normal(0, 0.3, 12)
        assert kendall_tau(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)


def test_kendall_tau_with_ties_is_tau_a_and_tau_b_is_scipys():
    x = np.array([0.5, 0.5, 0.3, 0.2])
    y = np.array([0.4, 0.3, 0.3, 0.1])
    # pairs: (0,1) tie in x; (0,2) C; (0,3) C; (1,2) tie in y; (1,3) C; (2,3) C -> (4 - 0)/6
    assert kendall_tau(x, y) == pytest.approx(4 / 6)
    corr = correlate_means(x, y)
    assert corr.tau_b == pytest.approx(stats.kendalltau(x, y).statistic)
    assert corr.tied_means


def test_tau_ap_hand_worked():
    reference = np.array([4.0, 3.0, 2.0, 1.0])  # A: items 0 > 1 > 2 > 3
    top_swap = np.array([3.0, 4.0, 2.0, 1.0])  # B swaps the top two
    bottom_swap = np.array([4.0, 3.0, 1.0, 2.0])  # B swaps the bottom two
    # top swap: C(2) = 0, C(3) = 2, C(4) = 3 -> 2/3 (0/1 + 2/2 + 3/3) - 1 = 1/3
    assert tau_ap(reference, top_swap) == pytest.approx(1 / 3)
    # bottom swap: C = 1, 2, 2 -> 2/3 (1 + 1 + 2/3) - 1 = 7/9; τ is 2/3 for both
    assert tau_ap(reference, bottom_swap) == pytest.approx(7 / 9)
    assert kendall_tau(reference, top_swap) == kendall_tau(reference, bottom_swap) == pytest.approx(2 / 3)
    assert tau_ap(reference, reference) == pytest.approx(1.0)
    assert tau_ap(reference, -reference) == pytest.approx(-1.0)
    corr = correlate_means(reference, top_swap)
    assert corr.tau_ap_symmetric == pytest.approx((corr.tau_ap + corr.tau_ap_reverse) / 2)


def test_tau_ap_equals_tau_for_uniformly_spread_errors_in_expectation():
    rng = np.random.default_rng(0)
    m = 8
    reference = np.arange(m, 0, -1, dtype=float)
    taus = [tau_ap(reference, rng.permutation(reference)) for _ in range(4000)]
    assert np.mean(taus) == pytest.approx(0.0, abs=0.02)


def test_agreement_seed_arithmetic_and_conflicts():
    # 116 pairs significant in both, 9 only in A, 10 only in B: 116/135 (Sakai & Song, SIGIR 2011)
    n = 116 + 9 + 10 + 5
    frame = pd.DataFrame({"run_a": [f"a{i}" for i in range(n)], "run_b": "z", "mean_a": 1.0, "mean_b": 0.0})
    pa = np.r_[np.zeros(116), np.zeros(9), np.ones(10), np.ones(5)]
    pb = np.r_[np.zeros(116), np.ones(9), np.zeros(10), np.ones(5)]
    result = significant_pair_agreement(frame.assign(p_adjusted=pa), frame.assign(p_adjusted=pb), 0.05)
    assert (result["a_only"], result["in_both"], result["b_only"]) == (9, 116, 10)
    assert result["agreement"] == pytest.approx(116 / 135)
    flipped = frame.assign(mean_a=0.0, mean_b=1.0)  # B says the opposite direction everywhere
    conflict = significant_pair_agreement(frame.assign(p_adjusted=pa), flipped.assign(p_adjusted=pb), 0.05)
    assert conflict["in_both"] == 0 and conflict["conflicts"] == 116 and conflict["agreement"] == 0


# ---------------------------------------------------------------------------------------------
# Concordance test (docs/meta-evaluation.md 10)
# ---------------------------------------------------------------------------------------------


def test_concordance_hand_worked_one_gold():
    # 2 runs (one pair), 4 topics: Δ per topic = X[:, 0] - X[:, 1]
    M1 = np.array([[0.5, 0.2], [0.1, 0.4], [0.3, 0.3], [0.6, 0.1]])  # Δ1 = +, -, 0, +
    M2 = np.array([[0.1, 0.4], [0.5, 0.2], [0.2, 0.1], [0.1, 0.6]])  # Δ2 = -, +, +, -
    gold = np.array([[0.2, 0.1], [0.3, 0.3], [0.0, 0.4], [0.1, 0.5]])  # Δ* = +, 0, -, -
    result = concordance_of(M1, M2, [gold])
    # disagreements: topics 1, 2, 4 (topic 3 has Δ1 = 0)
    assert result["disagreements"] == 3
    # topic 1: M1 agrees (+,+), M2 not; topic 2: gold tie -> both; topic 4: M2 agrees
    assert (result["correct_1"], result["correct_2"]) == (2, 2)
    assert (result["wins_1"], result["wins_2"]) == (1, 1)
    assert result["concordance_1"] == pytest.approx(2 / 3)
    assert result["p_value"] == pytest.approx(stats.binomtest(1, 2).pvalue)


def test_concordance_two_golds_need_both():
    M1 = np.array([[0.5, 0.2], [0.6, 0.1]])  # Δ1 = +, +
    M2 = np.array([[0.1, 0.4], [0.1, 0.6]])  # Δ2 = -, -
    gold_a = np.array([[0.9, 0.1], [0.9, 0.1]])  # +, +
    gold_b = np.array([[0.1, 0.9], [0.5, 0.5]])  # -, 0
    one = concordance_of(M1, M2, [gold_a])
    two = concordance_of(M1, M2, [gold_a, gold_b])
    assert (one["correct_1"], one["correct_2"]) == (2, 0)
    # topic 1: M1 agrees with gold_a, not gold_b; M2 the reverse -> neither; topic 2: M1 only
    assert (two["correct_1"], two["correct_2"], two["wins_1"], two["wins_2"]) == (1, 0, 1, 0)


def test_concordance_matches_a_loop_oracle():
    rng = np.random.default_rng(5)
    X1, X2, G = (np.round(rng.random((15, 6)), 1) for _ in range(3))
    expected = {"disagreements": 0, "correct_1": 0, "correct_2": 0}
    for a, b in itertools.combinations(range(6), 2):
        for t in range(15):
            d1, d2, dg = X1[t, a] - X1[t, b], X2[t, a] - X2[t, b], G[t, a] - G[t, b]
            d1, d2, dg = (0.0 if abs(v) < 1e-9 else v for v in (d1, d2, dg))
            if d1 * d2 < 0:
                expected["disagreements"] += 1
                expected["correct_1"] += d1 * dg >= 0
                expected["correct_2"] += d2 * dg >= 0
    result = concordance_of(X1, X2, [G])
    assert {k: result[k] for k in expected} == expected


# ---------------------------------------------------------------------------------------------
# Swap rate (docs/meta-evaluation.md 6) and minority rate (7)
# ---------------------------------------------------------------------------------------------


def _swap_oracle(X, draws, c, rule="strict"):
    comparisons, swaps = np.zeros(21, int), np.zeros(21, int)
    for row in draws:
        first, second = X[row[:c]].mean(axis=0), X[row[c:]].mean(axis=0)
        for a, b in itertools.combinations(range(X.shape[1]), 2):
            d, d2 = first[a] - first[b], second[a] - second[b]
            d, d2 = (0.0 if abs(v) < 1e-9 else v for v in (d, d2))
            k = min(20, int(np.floor(round(abs(d) * 100, 9))))
            comparisons[k] += 1
            swaps[k] += (d * d2 < 0) or (rule == "strict" and (d == 0) != (d2 == 0))
    return comparisons, swaps


@pytest.mark.parametrize("rule", ["strict", "original"])
def test_swap_counts_match_the_definition(rule):
    X = grid_matrix(16, 5, 2)
    draws = rep.subset_draws("disjoint_pair", 1, 16, 8, 60)
    counts = swap_counts(X, draws, 8, rule=rule)
    comparisons, swaps = _swap_oracle(X, draws, 8, rule)
    assert counts.comparisons.tolist() == comparisons.tolist() and counts.swaps.tolist() == swaps.tolist()


def test_swap_draws_are_disjoint_and_seeded():
    draws = rep.subset_draws("disjoint_pair", 4, 30, 15, 200)
    assert draws.shape == (200, 30)
    assert all(len(set(row)) == 30 for row in draws)
    assert np.array_equal(draws, rep.subset_draws("disjoint_pair", 4, 30, 15, 200))
    assert not np.array_equal(draws, rep.subset_draws("disjoint_pair", 5, 30, 15, 200))
    subsets = rep.subset_draws("subset", 4, 30, 10, 50)
    assert subsets.shape == (50, 10) and all(len(set(row)) == 10 for row in subsets)


def test_constant_measure_has_no_swaps_and_identical_runs_tie():
    X = np.full((20, 4), 0.3)
    draws = rep.subset_draws("disjoint_pair", 0, 20, 10, 100)
    counts = swap_counts(X, draws, 10)
    assert counts.swaps.sum() == 0 and counts.comparisons[0] == 100 * 6
    assert required_bin(counts) == 0
    table = stability_counts(X, rep.subset_draws("subset", 0, 20, 10, 100), [0.0, 0.05])
    assert table["minority_rate"].tolist() == [0.0, 0.0] and table["proportion_of_ties"].tolist() == [1.0, 1.0]
    literal = stability_counts(X, rep.subset_draws("subset", 0, 20, 10, 100), [0.0], strict_bv_rule=True)
    assert literal["proportion_of_ties"].iloc[0] == 0.0  # the literal rule counts GT(y, x)


def test_one_bad_bin_raises_the_required_difference():
    from pyeval.resampling.swaprate import SwapCounts

    counts = SwapCounts(np.array([10, 10, 10, 0, 10]), np.array([5, 0, 2, 0, 0]))
    assert required_bin(counts, 0.05) == 3  # bin 2 fails (20 %), bin 3 is empty
    assert required_bin(SwapCounts(np.array([10, 10]), np.array([0, 1])), 0.05) is None


def test_stability_matches_the_definition():
    X = grid_matrix(14, 4, 9)
    draws = rep.subset_draws("subset", 2, 14, 7, 40)
    f = 0.1
    gt = np.zeros((4, 4), int)
    eq = 0
    for row in draws:
        means = X[row].mean(axis=0)
        for x, y in itertools.combinations(range(4), 2):
            a, b = means[x], means[y]
            if abs(a - b) < f * max(a, b) - 1e-9 or abs(a - b) <= 1e-9:
                eq += 1
            elif a > b:
                gt[x, y] += 1
            else:
                gt[y, x] += 1
    minority = sum(min(gt[x, y], gt[y, x]) for x, y in itertools.combinations(range(4), 2))
    table = stability_counts(X, draws, [f])
    assert table["minority"].iloc[0] == minority and table["ties"].iloc[0] == eq
    assert table["minority_rate"].iloc[0] == pytest.approx(minority / (40 * 6))


# ---------------------------------------------------------------------------------------------
# On stored scores: tables, shared subsets, reproducibility, errors
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def scored():
    con = scored_warehouse(n=20, m=6)
    yield con
    con.close()


def test_swap_rate_and_stability_are_stored_and_reproducible(scored):
    first = swap_rate(scored, "c", ["AP", "nDCG@10"], trials=200, seed=3)
    again = swap_rate(scored, "c", ["AP", "nDCG@10"], trials=200, seed=3)
    assert first.table.equals(again.table)
    sets = scored.execute("select kind, subset_size, replicates, count(*) from resample_sets group by all").fetchall()
    assert sets == [("disjoint_pair", 10, 200, 1)]  # shared by both measures and both calls
    assert scored.execute("select count(*) from resample_replicates").fetchall() == [(200,)]
    rows = scored.execute("select measure, count(*), sum(comparisons) from swap_rates where swaprate_id = 1 "
                          "group by measure order by measure").fetchall()
    assert rows == [("AP", 21, 200 * 15), ("nDCG@10", 21, 200 * 15)]
    summary = scored.execute("select measure, evaluation_id, required_difference, share_reaching "
                             "from swap_rate_summaries where swaprate_id = 1 order by measure").df()
    assert summary["evaluation_id"].tolist() == [1, 2]
    np.testing.assert_array_equal(summary["required_difference"].to_numpy(dtype=float),
                                  first.summary["required_difference"].to_numpy(dtype=float))
    other = swap_rate(scored, "c", ["AP"], trials=200, seed=4, store=False)
    assert not other.table["swaps"].equals(first.table[first.table["measure"] == "AP"]["swaps"].reset_index(drop=True))
    result = stability(scored, "c", ["AP", "nDCG@10"], fuzziness=[0.02, 0.1], trials=150, seed=3)
    assert result.stability_id == 1
    stored = scored.execute("select measure, fuzziness, minority_rate, proportion_of_ties from minority_rates "
                            "order by measure, fuzziness").df()
    assert len(stored) == 4 and (stored["proportion_of_ties"].diff().fillna(1) != 0).all()
    ap = stored[stored["measure"] == "AP"]
    assert ap["proportion_of_ties"].iloc[1] >= ap["proportion_of_ties"].iloc[0]
    assert ap["minority_rate"].iloc[1] <= ap["minority_rate"].iloc[0]


def test_correlate_and_concordance_are_stored(scored):
    result = correlate(scored, "c", ["AP", "nDCG@10"], replicates=300)
    row = scored.execute("select tau, tau_ap, in_both, agreement, evaluation_ids, test from rank_correlations").fetchall()[0]
    assert row[0] == pytest.approx(result.table["tau"].iloc[0]) and row[4] == [1, 2] and row[5] == "bootstrap"
    assert scored.execute("select count(*) from significance_tests").fetchall() == [(2,)]
    correlate(scored, "c", ["AP", "nDCG@10"], replicates=300)  # the stored tests are reused
    assert scored.execute("select count(*) from significance_tests").fetchall() == [(2,)]
    store_matrix(scored, grid_matrix(20, 6, 11), "P@10", evaluation_id=3)
    conc = concordance(scored, "c", ["AP", "nDCG@10"], "P@10")
    stored = scored.execute("select measure_1, measure_2, gold_1, gold_2, disagreements, concordance_1, "
                            "concordance_2, wins_1, wins_2, p_value, list_pairs from concordance_tests").fetchall()
    assert stored[0][:4] == ("AP", "nDCG@10", "P@10", None)
    assert stored[0][4] == conc.table["disagreements"].iloc[0] and stored[0][10] == 20 * 15


def test_bad_input_is_one_line_errors(scored):
    with pytest.raises(PyevalError, match="at least 2 different measures"):
        correlate(scored, "c", ["AP", "map"])
    with pytest.raises(PyevalError, match="does not fit"):
        swap_rate(scored, "c", ["AP"], subset_size=11)
    with pytest.raises(PyevalError, match="fuzziness"):
        stability(scored, "c", ["AP"], fuzziness=[1.5])
    with pytest.raises(PyevalError, match="one or two gold"):
        concordance(scored, "c", ["AP", "nDCG@10"], ["P@10", "P@5", "RR"])
    with pytest.raises(PyevalError, match="both a compared measure and a gold"):
        concordance(scored, "c", ["AP", "nDCG@10"], "AP")
    with pytest.raises(PyevalError, match="no stored scores"):
        concordance(scored, "c", ["AP", "nDCG@10"], "RR")
    runner = CliRunner()
    for args in (["swaprate", "-C", "c", "-m", "AP", "--sampling", "x"], ["correlate", "-C", "nope", "-m", "AP", "-m", "RR"],
                 ["mem", "-C", "c", "-m", "XYZ"], ["stability", "-C", "c", "-m", "AP", "--fuzziness", "a,b"]):
        result = runner.invoke(main, ["--db", ":memory:", *args])
        errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
        assert result.exit_code != 0 and len(errors) == 1 and result.exception.__class__ is SystemExit, result.output
    result = runner.invoke(main, ["--db", ":memory:", "concordance", "-C", "nope", "-m", "AP", "-m", "RR", "--gold", "P@10"])
    assert (result.exit_code, result.output) == (1, "Error: campaign 'nope' does not exist (the warehouse holds no campaign yet)\n")


def test_cli_runs_stage_two_commands(tmp_path):
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    store_matrix(con, grid_matrix(20, 6, 7), "AP", evaluation_id=1)
    store_matrix(con, grid_matrix(20, 6, 8), "nDCG@10", evaluation_id=2)
    store_matrix(con, grid_matrix(20, 6, 9), "P@10", evaluation_id=3)
    con.close()
    runner = CliRunner()
    db = ["--db", str(path)]
    plot = tmp_path / "swap.png"
    result = runner.invoke(main, [*db, "swaprate", "-C", "c", "-m", "AP", "-m", "P@10", "--trials", "100",
                                  "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    assert "required_difference" in result.output and plot.stat().st_size > 1000
    result = runner.invoke(main, [*db, "stability", "-C", "c", "-m", "AP", "--trials", "50", "--fuzziness", "0.05"])
    assert result.exit_code == 0 and "minority_rate" in result.output
    result = runner.invoke(main, [*db, "correlate", "-C", "c", "-m", "AP", "-m", "nDCG@10", "--test", "none",
                                  "--no-store"])
    assert result.exit_code == 0 and "tau_ap" in result.output
    for column in ("tau_ap", "agreement"):  # every matrix says what its cells are
        result = runner.invoke(main, [*db, "correlate", "-C", "c", "-m", "AP", "-m", "nDCG@10", "-m", "P@10",
                                      "--matrix", column, "--no-store"])
        assert result.exit_code == 0 and result.output.splitlines()[0].split() == ["measure", "AP", "nDCG@10", "P@10"]
        assert result.stdout.rstrip("\n").splitlines()[-1].startswith("cell: ")
    result = runner.invoke(main, [*db, "concordance", "-C", "c", "-m", "AP", "-m", "nDCG@10", "--gold", "P@10",
                                  "--matrix", "--format", "markdown"])
    assert result.exit_code == 0 and "| AP" in result.output
    assert "cell: concordance of the row measure / of the column measure" in result.output  # the legend
    con = pyeval.connect(path, read_only=True)
    counts = [con.execute(f"select count(*) from {t}").fetchall()[0][0]
              for t in ("swap_rates", "swap_rate_summaries", "minority_rates", "rank_correlations", "concordance_tests")]
    con.close()
    assert counts == [42, 2, 1, 0, 1]


# ---------------------------------------------------------------------------------------------
# MEM (docs/meta-evaluation.md 12)
# ---------------------------------------------------------------------------------------------


def _patterns(N):
    return np.array(list(itertools.product([0.0, 1.0], repeat=N)))


def _cascade_value(pattern, G):
    seen = np.cumsum(pattern) - pattern
    return float(np.sum(pattern * G[np.arange(len(pattern)), (seen + 1).astype(int).clip(max=len(pattern))]))


@pytest.mark.parametrize("discount", ["err", "rbp", "dcg"])
@pytest.mark.parametrize("N", [1, 2, 5, 9])
def test_dp_equals_brute_force_enumeration(discount, N):
    G = gain_table(discount, N, 0.5, 0.8)
    p = np.random.default_rng(N).random(N)
    patterns = _patterns(N)
    weight = np.prod(np.where(patterns == 1, p, 1 - p), axis=1)
    values = np.array([_cascade_value(x, G) for x in patterns])
    assert cascade_expectation(p[None], G, "exact")[0] == pytest.approx(weight @ values, abs=1e-12)
    for R in range(N + 1):
        chosen = patterns.sum(axis=1) == R
        conditional = cascade_expectation(p[None], G, "exact", [R], conditional=True)[0]
        assert conditional == pytest.approx(weight[chosen] @ values[chosen] / weight[chosen].sum(), abs=1e-12)
    # both recursions give the measure's value on a 0/1 list (the "actual" value)
    counts = patterns.sum(axis=1).astype(int)
    assert np.allclose(cascade_expectation(patterns, G, "paper", counts), values, atol=1e-12)
    assert np.allclose(cascade_expectation(patterns, G, "exact"), values, atol=1e-12)


def test_paper_recursion_differs_from_the_expectation_as_flagged():
    G = gain_table("err", 2)
    p = np.array([[0.5, 0.5]])
    # T^2_1 = p2 (T^1_0 + G_2(1)) + (1 - p2) T^1_1 = 0.5 * 0.25 + 0.5 * 0.25: no (1 - p1) factor
    assert cascade_expectation(p, G, "paper", [1])[0] == pytest.approx(0.5 * 0.25 + 0.5 * 0.5 * 0.5)
    assert cascade_expectation(p, G, "exact", [1], conditional=True)[0] == pytest.approx(0.375)


def test_ap_expectation_equals_brute_force():
    N, R = 7, 5
    p = np.random.default_rng(1).random(N)
    patterns = _patterns(N)
    weight = np.prod(np.where(patterns == 1, p, 1 - p), axis=1)
    ranks = np.arange(1, N + 1)
    values = (patterns / ranks * np.cumsum(patterns, axis=1)).sum(axis=1) / R
    assert ap_expectation(p[None], [R])[0] == pytest.approx(weight @ values)


def test_mem_recovers_the_uniform_distribution_and_fixed_cases():
    settings = Settings(depth=8)
    counts, relevant, weights = np.array([3]), np.array([6.0]), np.array([1.0])
    uniform = np.full((1, 1, 8), 3 / 8)
    observed = expectation("ERR", uniform, counts[None], relevant[None], weights[None], settings)[0]
    for solver in ("SLSQP", "trust-constr"):
        solution = solve("ERR", observed, counts, relevant, weights, settings, solver=solver)
        assert solution.converged and np.allclose(solution.p, 3 / 8, atol=1e-5), solver
    none = solve("ERR", 0.0, np.array([0]), relevant, weights, settings)
    full = solve("RBP", expectation("RBP", np.ones((1, 1, 8)), np.array([[8]]), relevant[None], weights[None],
                                    settings)[0], np.array([8]), relevant, weights, settings)
    assert none.converged and not none.p.any() and full.converged and full.p.all()
    top = expectation("ERR", np.array([[[1, 1, 1, 0, 0, 0, 0, 0.0]]]), counts[None], relevant[None], weights[None],
                      settings)[0]
    extreme = solve("ERR", top, counts, relevant, weights, settings)
    assert extreme.status == "extreme" and extreme.p[0, :3].all() and not extreme.p[0, 3:].any()


def test_mem_solution_is_feasible_and_has_maximum_entropy():
    settings = Settings(depth=6)
    counts, relevant, weights = np.array([2, 3]), np.array([4.0, 5.0]), np.array([0.5, 0.5])
    actual = np.array([[[1, 0, 0, 1, 0, 0], [0, 1, 1, 0, 0, 1.0]]])
    observed = expectation("ERR-IA", actual, counts[None], relevant[None], weights[None], settings)[0]
    a = solve("ERR-IA", observed, counts, relevant, weights, settings)
    b = solve("ERR-IA", observed, counts, relevant, weights, settings, solver="trust-constr")
    assert a.converged and a.residual <= 1e-8
    assert np.allclose(a.p.sum(axis=1), counts)
    assert np.allclose(a.p, b.p, atol=1e-4) and a.entropy == pytest.approx(b.entropy, abs=1e-6)
    assert a.entropy >= entropy(actual) and a.entropy <= entropy(np.array([2 / 6] * 6 + [3 / 6] * 6)) + 1e-9


def test_gain_robustness_and_mem_on_the_sample(demo_warehouse):
    from pyeval.resampling import gain_robustness

    con = pyeval.connect(demo_warehouse)
    try:
        result = gain_robustness(con, "web2012-adhoc", ["Q"], profiles=["flat", "steep"])
        assert result.table["profile"].tolist() == ["flat", "steep"]
        assert result.table["variant"].tolist() == ["Q(gain=flat)", "Q(gain=steep)"]
        assert (result.table["tau"] > 0.5).all()
        stored = "select count(*) from {} where {} = $id"  # the session's demo warehouse holds other results too
        assert con.execute(stored.format("gain_robustness", "robustness_id"), {"id": result.robustness_id}).fetchall() == [(2,)]
        with pytest.raises(PyevalError, match="no gain parameter"):
            gain_robustness(con, "web2012-adhoc", ["AP"])
        mem = informativeness(con, "web2012-adhoc", ["ERR"], runs_top=4, topics_top=4)
        assert set(mem.predictions["predicted"]) == {"RBP", "DCG", "AP"}
        assert len(mem.solutions) == 16 and mem.solutions["converged"].all()
        assert con.execute(stored.format("mem_solutions", "mem_id"), {"id": mem.mem_id}).fetchall() == [(16,)]
        assert con.execute(stored.format("mem_predictions", "mem_id"), {"id": mem.mem_id}).fetchall() == [(3,)]
    finally:
        con.close()


@pytest.fixture
def demo_warehouse(demo_build):
    return demo_build.path


def test_demo_concordance_step_runs_on_what_the_registry_has(demo_warehouse):
    from pyeval.demo import CONCORDANCE_MEASURES, demo_concordance, registered

    result, _campaign, missing = demo_concordance(demo_warehouse)
    available = [label for label, spellings in CONCORDANCE_MEASURES.items() if registered(spellings)]
    assert set(missing) >= set(CONCORDANCE_MEASURES) - set(available)
    assert len(result.table) >= 1 and (result.table["list_pairs"] > 0).all()
    matrix = result.matrix(result.gold_sets[0])
    assert list(matrix.index) == list(result.measures[:-1])
