"""Significance tests, discriminative power and reports on stored scores: stored replicates,
reproducibility, the result tables, the CLI, errors, and the demo."""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import pyeval
from pyeval.core import archive
from pyeval.cli import main
from pyeval.demo import DISCPOWER_MEASURES, run_demo
from pyeval.errors import DataIntegrityError, PyevalError, UnknownCampaignError
from pyeval.resampling import compare, discriminative_power, significance
from pyeval.resampling import replicates as rep

from .helpers import grid_matrix, scored_warehouse, store_matrix


@pytest.fixture
def scored():
    con = scored_warehouse()
    yield con
    con.close()


def count(con, table):
    return con.execute(f"select count(*) from {table}").fetchall()[0][0]


def test_results_are_identical_across_repeated_runs_with_one_seed(scored):
    first = significance(scored, "c", "AP", "bootstrap", seed=3)
    second = significance(scored, "c", "AP", "bootstrap", seed=3)
    assert first.pairs.equals(second.pairs) and first.delta == second.delta
    fresh = scored_warehouse()  # a new warehouse draws the same replicates again
    third = significance(fresh, "c", "AP", "bootstrap", seed=3)
    assert third.pairs.equals(first.pairs)
    other = significance(fresh, "c", "AP", "bootstrap", seed=4)
    assert not other.pairs["pvalue"].equals(first.pairs["pvalue"])
    for test in ("tukey", "randomization"):
        assert significance(scored, "c", "AP", test, replicates=2000, seed=1).pairs.equals(
            significance(fresh, "c", "AP", test, replicates=2000, seed=1).pairs)
    fresh.close()


def test_stored_replicates_are_reused_across_measures(scored):
    ap = significance(scored, "c", "AP", "bootstrap", replicates=500, seed=9)
    ndcg = significance(scored, "c", "nDCG@10", "bootstrap", replicates=500, seed=9)
    assert ap.replicate_set_id == ndcg.replicate_set_id is not None
    assert count(scored, "resample_sets") == 1 and count(scored, "resample_replicates") == 500
    stored = scored.execute(
        "select draw from resample_replicates where replicate_set_id = $i order by replicate",
        {"i": ap.replicate_set_id}).fetchall()
    assert np.array([row[0] for row in stored]).tolist() == rep.bootstrap_indices(9, 12, 500).tolist()
    row = scored.execute("select kind, topic_count, replicates, seed, generator, topic_ids from resample_sets").fetchall()[0]
    assert row[:5] == ("bootstrap", 12, 500, 9, "PCG64") and row[5] == [f"{t:03d}" for t in range(12)]
    tukey_ap = significance(scored, "c", "AP", "tukey", replicates=600, seed=9)
    tukey_ndcg = significance(scored, "c", "nDCG@10", "tukey", replicates=600, seed=9)
    assert tukey_ap.replicate_set_id == tukey_ndcg.replicate_set_id
    assert count(scored, "resample_sets") == 2 and count(scored, "resample_replicates") == 500  # not stored


def test_stored_replicates_are_what_the_test_uses(scored):
    result = significance(scored, "c", "AP", "bootstrap", replicates=300, seed=1)
    # tamper with one stored draw: the next test refuses the set (sha256 mismatch)
    scored.execute("update resample_replicates set draw = list_transform(draw, lambda x: 0) where replicate = 1")
    with pytest.raises(DataIntegrityError, match="sha256"):
        significance(scored, "c", "AP", "bootstrap", replicates=300, seed=1)
    scored.execute("update resample_sets set data_sha256 = 'x' where kind = 'bootstrap'")
    significance(scored, "c", "AP", "tukey", replicates=300, seed=1)
    scored.execute("update resample_sets set data_sha256 = 'x' where kind = 'permutation'")
    with pytest.raises(DataIntegrityError, match="sha256"):
        significance(scored, "c", "AP", "tukey", replicates=300, seed=1)
    assert result.test_id == 1


def test_result_tables(scored):
    result = significance(scored, "c", "AP", "bootstrap", replicates=400, seed=2, correction="holm", alpha=0.1)
    header = scored.execute(
        "select campaign_id, measure, test, run_ids, topic_count, evaluation_id, replicates, seed, alpha, correction, "
        "comparison, p_convention, significant_pairs, total_pairs, delta from significance_tests").fetchall()
    assert header == [("c", "AP", "bootstrap", [f"run{j:02d}" for j in range(6)], 12, 1, 400, 2, 0.1, "holm", "ge",
                       "count/B", result.significant_pairs, 15, pytest.approx(result.delta))]
    rows = scored.execute("select run_a, run_b, mean_diff, statistic, p, p_adjusted, significant, delta, "
                          "replicates, seed, evaluation_id from pairwise_tests order by run_a, run_b").df()
    assert len(rows) == 15
    assert np.allclose(rows["p"], result.pairs["pvalue"]) and np.allclose(rows["p_adjusted"], result.pairs["p_adjusted"])
    assert (rows["p_adjusted"] >= rows["p"] - 1e-15).all()
    assert rows["significant"].tolist() == (result.pairs["p_adjusted"] < 0.1).tolist()
    assert set(rows["replicates"]) == {400} and set(rows["evaluation_id"]) == {1}


def test_missing_cells_are_filled_with_zero_and_recorded():
    con = pyeval.connect()
    X = grid_matrix(6, 3, 1)
    store_matrix(con, X, "AP")
    con.execute("delete from topic_scores where run_id = 'run01' and topic_id = '002'")
    archive.refresh(con, "c")  # a hand-written change: the current values follow it (docs/schema.md)
    result = significance(con, "c", "AP", "t")
    assert result.matrix.filled == 1 and result.matrix.values[2, 1] == 0.0
    assert "1 missing cells scored 0" in result.summary()
    assert con.execute("select filled_cells from significance_tests").fetchall() == [(1,)]


def test_runs_sample_is_seeded_and_shared_by_measures(scored):
    power = discriminative_power(scored, "c", ["AP", "nDCG@10"], "bootstrap", runs_sample=4, seed=5, replicates=200)
    runs = {name: r.matrix.run_ids for name, r in power.results.items()}
    assert runs["AP"] == runs["nDCG@10"] and len(runs["AP"]) == 4
    assert list(runs["AP"]) == rep.sample_runs([f"run{j:02d}" for j in range(6)], 4, 5)
    again = discriminative_power(scored, "c", ["AP"], "bootstrap", runs_sample=4, seed=5, replicates=200)
    assert again.results["AP"].matrix.run_ids == runs["AP"]
    with pytest.raises(PyevalError, match="cannot sample 9 runs"):
        discriminative_power(scored, "c", ["AP"], runs_sample=9)


def test_discriminative_power_tables_curves_and_plot(scored, tmp_path):
    power = discriminative_power(scored, "c", ["AP", "nDCG@10"], "tukey", replicates=1000, seed=1)
    assert power.table["total_pairs"].tolist() == [15, 15]
    for name, result in power.results.items():
        row = power.table[power.table["measure"] == name].iloc[0]
        assert row.significant_pairs == int((result.pvalue < 0.05).sum())
    stored = scored.execute("select measure, significant_pairs, share, asl_curve, discpower_id "
                            "from discriminative_power order by measure").fetchall()
    assert [r[0] for r in stored] == ["AP", "nDCG@10"] and {r[4] for r in stored} == {1}
    for measure, significant, share, curve, _ in stored:
        assert curve == sorted(curve) and len(curve) == 15
        assert curve == power.curves[power.curves["measure"] == measure]["asl"].tolist()
        assert share == pytest.approx(significant / 15)
    path = power.plot(tmp_path / "asl.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_tukey_significant_pairs_are_a_subset_of_bootstrap_ones(demo_warehouse):
    # Sakai, JIP 2013 observes this on TREC 2009 data; here on the bundled sample campaign
    con = pyeval.connect(demo_warehouse, read_only=True)
    try:
        for measure in DISCPOWER_MEASURES:
            boot = significance(con, "web2012-adhoc", measure, "bootstrap", store=False)
            tukey = significance(con, "web2012-adhoc", measure, "tukey", store=False)
            pairs = lambda r: set(zip(r.pairs["run_a"][r.pairs["significant"]], r.pairs["run_b"][r.pairs["significant"]]))
            assert pairs(tukey) <= pairs(boot), measure
            assert 0 < len(pairs(tukey)) < len(pairs(boot)) < 190
    finally:
        con.close()


def test_compare_reports_reuse_stored_tests(scored):
    report = compare(scored, "c", ["AP", "nDCG@10"], replicates=300)
    tests = count(scored, "significance_tests")
    assert tests == 2
    again = compare(scored, "c", ["AP", "nDCG@10"], replicates=300)
    assert count(scored, "significance_tests") == 2 and again.test_ids == report.test_ids
    markdown = report.to_markdown()
    assert markdown.splitlines()[0] == "| run | AP | nDCG@10 |"
    best = report.means["AP"].idxmax()
    assert f"**{report.means['AP'].max():.4f}**" in next(line for line in markdown.splitlines() if best in line)
    latex = report.to_latex()
    assert "\\toprule" in latex and "\\midrule" in latex and "\\bottomrule" in latex
    # superscripts name exactly the significant pairs
    wins = report.pairs[(report.pairs["measure"] == "AP") & (report.pairs["p_adjusted"] < 0.05)]
    marks = markdown.count("<sup>")
    assert (marks > 0) == (len(wins) > 0)
    baseline = compare(scored, "c", ["AP"], baseline="run00", replicates=300)
    assert baseline.means.index[0] == "run00" and "than run00" in baseline.to_markdown()
    assert count(scored, "significance_tests") == 2  # reused again


def test_errors_are_one_line(scored):
    with pytest.raises(UnknownCampaignError, match="campaign 'nope' does not exist"):
        significance(scored, "nope", "AP")
    with pytest.raises(PyevalError, match="no stored scores for measure 'P@10'"):
        significance(scored, "c", "P@10")
    with pytest.raises(PyevalError, match="unknown measure"):
        significance(scored, "c", "NotAMeasure")
    with pytest.raises(PyevalError, match="at least 2 runs"):
        significance(scored, "c", "AP", runs=["run00"])
    with pytest.raises(PyevalError, match="no run named 'ghost'"):
        significance(scored, "c", "AP", runs=["run00", "ghost"])
    with pytest.raises(PyevalError, match="alpha must be between"):
        significance(scored, "c", "AP", alpha=1.5)
    with pytest.raises(PyevalError, match="names several measures"):
        significance(scored, "c", "P.5,10")


def test_cli_commands(tmp_path):
    db = tmp_path / "w.duckdb"
    con = pyeval.connect(db)
    store_matrix(con, grid_matrix(12, 5, 3), "AP")
    store_matrix(con, grid_matrix(12, 5, 4), "nDCG@10", evaluation_id=2)
    con.close()
    runner = CliRunner()

    def run(*args):
        return runner.invoke(main, ["--db", str(db), *map(str, args)])

    result = run("significance", "-C", "c", "-m", "map", "--test", "randomization", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].startswith("run_a,run_b,mean_diff,statistic,p,p_adjusted,significant")
    assert len(result.stdout.splitlines()) == 11 and "stored as test 1" in result.stderr
    for test in ("sign", "wilcoxon"):  # counts and rank sums print as whole numbers
        result = run("significance", "-C", "c", "-m", "AP", "--test", test, "--no-store")
        assert result.exit_code == 0, result.output
        header, _, *rows = result.stdout.splitlines()
        at = header.index("statistic")
        statistics = [row[:at + len("statistic")].split()[-1] for row in rows]
        assert statistics and all(s.replace(".5", "").isdigit() for s in statistics), statistics
    plot, curves = tmp_path / "asl.png", tmp_path / "asl.csv"
    result = run("discpower", "-C", "c", "-m", "AP", "-m", "nDCG@10", "--test", "tukey", "-B", "500",
                 "--plot", plot, "--curves", curves)
    assert result.exit_code == 0, result.output
    assert plot.read_bytes()[:4] == b"\x89PNG" and curves.read_text().startswith("measure,rank,asl\n")
    result = run("compare", "-C", "c", "-m", "AP", "--baseline", "run01", "--format", "latex", "-B", "200")
    assert result.exit_code == 0 and "\\begin{tabular}{lr}" in result.stdout
    for args, message in [
        (("significance", "-C", "nope", "-m", "AP"), "Error: campaign 'nope' does not exist"),
        (("significance", "-C", "c", "-m", "P@10"), "Error: campaign 'c' has no stored scores for measure 'P@10'"),
        (("significance", "-C", "c", "-m", "AP", "--runs", "run01"), "Error: significance tests need at least 2 runs"),
        (("discpower", "-C", "c", "-m", "nDGC@10"), "Error: unknown measure 'nDGC'"),
        (("compare", "-C", "c", "-m", "AP", "--baseline", "ghost"), "Error: baseline 'ghost' is not among"),
    ]:
        result = run(*args)
        assert result.exit_code == 1 and result.output.startswith(message), result.output
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    before = count(pyeval.connect(db, read_only=True), "significance_tests")
    assert run("significance", "-C", "c", "-m", "AP", "--test", "t", "--no-store").exit_code == 0
    assert count(pyeval.connect(db, read_only=True), "significance_tests") == before


@pytest.fixture(scope="module")
def demo_warehouse(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "demo.duckdb"
    lines = []
    run_demo(out, echo=lines.append)
    pytest.demo_output = "\n".join(lines)
    return out


def test_demo_computes_discriminative_power_and_saves_the_plot(demo_warehouse):
    assert "Discriminative power on web2012-adhoc" in pytest.demo_output
    plot = demo_warehouse.with_name("demo-asl-curves.png")
    assert plot.read_bytes()[:4] == b"\x89PNG"
    con = pyeval.connect(demo_warehouse, read_only=True)
    rows = con.execute("select measure, total_pairs, replicates from discriminative_power order by measure").fetchall()
    con.close()
    assert rows == sorted((m, 190, 1000) for m in DISCPOWER_MEASURES)
