"""Meta-evaluation under judgment sets (issue 26; migration 0017; docs/judgments.md): every
command that reads stored scores (or, MEM, qrels) reads those of the set it is given, stores the
set with its rows, keeps the rows of two sets side by side, and refuses an unknown set in one
line without changing the warehouse. Oracle: a result under the set ``stricter`` equals the same
command's result under ``official`` in a warehouse whose official qrels are the stricter ones."""
from __future__ import annotations

import shutil

import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner

import pyeval
from pyeval import sample
from pyeval.cli import main
from pyeval.errors import PyevalError
from pyeval.loaders.judgment_sets import SetProvenance
from pyeval.resampling import (
    compare,
    concordance,
    correlate,
    discriminative_power,
    gain_robustness,
    informativeness,
    stability,
    swap_rate,
)
from pyeval.resampling.design import topic_set_design
from pyeval.resampling.risk import risk

from ..conftest import ARCHIVE, FIXTURES, snapshot

RUNS = ("indri-ql", "indri-rm", "sim01", "sim02", "sim03")
MEASURES = ["AP", "nDCG@10", "P@10"]
V10 = ARCHIVE / "v10.duckdb"

#: every table 0017 gave a judgment_set column
TABLES_0017 = ("discriminative_power", "swap_rates", "swap_rate_summaries", "minority_rates", "rank_correlations",
               "concordance_tests", "gain_robustness", "mem_solutions", "mem_predictions")

#: (table, id column, the Python call under a judgment set)
COMMANDS = {
    "discpower": ("discriminative_power", "discpower_id", lambda con, c, s: discriminative_power(
        con, c, ["AP", "nDCG@10"], "t", judgment_set=s).discpower_id),
    "swaprate": ("swap_rate_summaries", "swaprate_id", lambda con, c, s: swap_rate(
        con, c, ["AP", "nDCG@10"], trials=60, judgment_set=s).swaprate_id),
    "stability": ("minority_rates", "stability_id", lambda con, c, s: stability(
        con, c, ["AP"], trials=60, fuzziness=[0.05], judgment_set=s).stability_id),
    "correlate": ("rank_correlations", "correlation_id", lambda con, c, s: correlate(
        con, c, ["AP", "nDCG@10"], test="t", judgment_set=s).correlation_id),
    "concordance": ("concordance_tests", "concordance_id", lambda con, c, s: concordance(
        con, c, ["AP", "nDCG@10"], "P@10", judgment_set=s).concordance_id),
    "robustness": ("gain_robustness", "robustness_id", lambda con, c, s: gain_robustness(
        con, c, ["nDCG@10"], profiles=["flat"], judgment_set=s).robustness_id),
    "mem": ("mem_predictions", "mem_id", lambda con, c, s: informativeness(
        con, c, ["ERR"], depth=5, topics_top=4, judgment_set=s).mem_id),
    "risk": ("risk_results", "risk_id", lambda con, c, s: risk(
        con, c, ["AP"], ["indri-ql"], [0, 1], judgments=s).risk_id),
    "design": ("topic_set_designs", "design_id", lambda con, c, s: topic_set_design(
        con, c, ["AP"], judgments=s).design_id),
}

#: columns that differ between two runs of one command for reasons other than the scores
VOLATILE = {"created_at", "pyeval_version", "evaluation_id", "evaluation_ids", "reference_evaluation_id",
            "test_id", "test_id_a", "test_id_b", "replicate_set_id", "judgment_set"}


def _load(con, campaign: str, official_qrels) -> None:
    pyeval.load_qrels(con, campaign, official_qrels)
    for run_path in sample.run_paths():
        if sample.run_name(run_path) in RUNS:
            pyeval.load_run(con, campaign, run_path, name=sample.run_name(run_path))


@pytest.fixture(scope="module")
def two_sets(tmp_path_factory):
    """A file warehouse: campaign 'w' (five sample runs) evaluated under 'official' and under the
    sample's simulated stricter judge 'stricter'; campaign 's' whose official qrels are the
    stricter ones (the oracle)."""
    path = tmp_path_factory.mktemp("sets") / "w.duckdb"
    con = pyeval.connect(path)
    _load(con, "w", sample.path("qrels.adhoc.txt.gz"))
    pyeval.load_qrels(con, "w", sample.stricter_qrels(), judgment_set="stricter",
                      provenance=SetProvenance(kind="derived", judge="simulated"))
    pyeval.evaluate(con, "w", MEASURES)
    pyeval.evaluate(con, "w", MEASURES, judgment_set="stricter")
    _load(con, "s", sample.stricter_qrels())
    pyeval.evaluate(con, "s", MEASURES)
    con.close()
    return path


@pytest.fixture
def warehouse(two_sets, tmp_path):
    path = tmp_path / "w.duckdb"
    shutil.copy(two_sets, path)
    con = pyeval.connect(path)
    yield con
    con.close()


def _rows(con, table: str, id_column: str, experiment: int) -> pd.DataFrame:
    frame = con.execute(f"select * from {table} where {id_column} = $id", {"id": experiment}).df()
    campaign = {"campaign_id", "campaign_ids"}  # the oracle's campaign is another
    return frame.drop(columns=[id_column, *(c for c in frame.columns if c in VOLATILE | campaign)])


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_reads_and_records_the_set_it_is_given(warehouse, command):
    table, id_column, call = COMMANDS[command]
    con = warehouse
    official = call(con, "w", "official")
    stricter = call(con, "w", "stricter")
    oracle = call(con, "s", "official")
    sets = con.execute(f"select {id_column}, list(distinct judgment_set) from {table} group by 1 order by 1").fetchall()
    assert sets == [(official, ["official"]), (stricter, ["stricter"]), (oracle, ["official"])]
    under_official = _rows(con, table, id_column, official)
    under_stricter = _rows(con, table, id_column, stricter)
    # the rows differ (the stricter judge moves the scores) and both are kept
    assert not under_official.equals(under_stricter)
    # the stricter set's result is what the same command computes where those qrels are official
    pd.testing.assert_frame_equal(under_stricter, _rows(con, table, id_column, oracle), check_exact=False, rtol=1e-12)


def test_compare_reads_the_set_and_reuses_only_its_tests(warehouse):
    con = warehouse
    official = compare(con, "w", ["AP", "nDCG@10"], test="t")
    stricter = compare(con, "w", ["AP", "nDCG@10"], test="t", judgment_set="stricter")
    oracle = compare(con, "s", ["AP", "nDCG@10"], test="t")
    assert set(official.test_ids.values()).isdisjoint(stricter.test_ids.values())
    tests = dict(con.execute("select test_id, judgment_set from significance_tests").fetchall())
    assert {tests[t] for t in stricter.test_ids.values()} == {"stricter"}
    pd.testing.assert_frame_equal(stricter.means, oracle.means)
    assert not stricter.means.equals(official.means)
    assert "judgment set stricter" in stricter.render("markdown") and "judgment set" not in official.render()
    again = compare(con, "w", ["AP", "nDCG@10"], test="t", judgment_set="stricter")
    assert again.test_ids == stricter.test_ids  # stored tests of the same set are reused


def test_an_unknown_set_is_one_line_and_changes_nothing(warehouse):
    con = warehouse
    pyeval.load_qrels(con, "other", sample.stricter_qrels())
    pyeval.load_qrels(con, "other", sample.stricter_qrels(), judgment_set="elsewhere")
    before = snapshot(con)
    for _, _, call in COMMANDS.values():
        with pytest.raises(PyevalError, match=r"campaign 'w' has no judgment set 'nope'; its sets: official, stricter"):
            call(con, "w", "nope")
        with pytest.raises(PyevalError, match=r"it is a set of campaign 'other'"):
            call(con, "w", "elsewhere")
    with pytest.raises(PyevalError, match="has no judgment set 'nope'"):
        compare(con, "w", ["AP"], judgment_set="nope")
    assert snapshot(con) == before


def test_the_command_line_takes_judgments_everywhere(two_sets, tmp_path):
    path = tmp_path / "w.duckdb"
    shutil.copy(two_sets, path)

    def run(*args):
        return CliRunner().invoke(main, ["--db", str(path), *map(str, args)])

    commands = {
        "discpower": ["discpower", "-C", "w", "-m", "AP", "--test", "t"],
        "swaprate": ["swaprate", "-C", "w", "-m", "AP", "--trials", "20"],
        "stability": ["stability", "-C", "w", "-m", "AP", "--trials", "20", "--fuzziness", "0.05"],
        "correlate": ["correlate", "-C", "w", "-m", "AP", "-m", "nDCG@10", "--test", "none"],
        "concordance": ["concordance", "-C", "w", "-m", "AP", "-m", "nDCG@10", "--gold", "P@10"],
        "robustness": ["robustness", "-C", "w", "-m", "nDCG@10", "--profile", "flat"],
        "mem": ["mem", "-C", "w", "-m", "ERR", "--depth", "3", "--topics-top", "2", "--runs-top", "2"],
        "risk": ["risk", "-C", "w", "-m", "AP", "--baseline", "indri-ql"],
        "design": ["design", "-C", "w", "-m", "AP"],
        "compare": ["compare", "-C", "w", "-m", "AP", "--test", "t"],
        "significance": ["significance", "-C", "w", "-m", "AP", "--test", "t"],
    }
    con = duckdb.connect(str(path), read_only=True)
    before = snapshot(con)
    con.close()
    for name, args in commands.items():
        refused = run(*args, "--judgments", "nope")
        assert refused.exit_code != 0, name
        assert refused.output.strip().splitlines() == [
            "Error: campaign 'w' has no judgment set 'nope'; its sets: official, stricter"], name
    con = duckdb.connect(str(path), read_only=True)
    assert snapshot(con) == before
    con.close()
    for name, args in commands.items():
        done = run(*args, "--judgments", "stricter")
        assert done.exit_code == 0, (name, done.output)
    con = duckdb.connect(str(path), read_only=True)
    for table in (*TABLES_0017, "significance_tests", "risk_results", "topic_set_designs"):
        assert con.execute(f"select distinct judgment_set from {table}").fetchall() == [("stricter",)], table
    con.close()


def test_meta_evaluation_rows_of_an_old_warehouse_become_official(tmp_path):
    path = tmp_path / "v10.duckdb"
    shutil.copy(V10, path)
    raw = duckdb.connect(str(path))
    raw.execute("insert into discriminative_power (discpower_id, test_id, campaign_id, measure, test, alpha, "
                "significant_pairs, total_pairs, share, asl_curve) values (1, 1, 'c', 'AP', 't', 0.05, 1, 1, 1.0, "
                "[0.01])")
    raw.execute("insert into rank_correlations (correlation_id, campaign_id, measure_a, measure_b, evaluation_ids, "
                "run_ids, topic_count, tied_means) values (1, 'c', 'AP', 'P@10', [1, 1], ['a', 'b'], 3, false)")
    before = {t: raw.execute(f"select * from {t}").fetchall() for t in TABLES_0017}
    raw.close()
    con = pyeval.connect(path)
    for table in TABLES_0017:
        rows = con.execute(f"select * from {table}").fetchall()
        assert [row[:-1] for row in rows] == before[table], table
        assert {row[-1] for row in rows} <= {"official"}, table
    assert con.execute("select count(*) from discriminative_power").fetchone() == (1,)
    con.close()


def test_a_fusion_grid_is_evaluated_under_the_set_it_is_given(warehouse):
    from pyeval import fusion

    con = warehouse
    recipe = fusion.Recipe("rrf", ("indri-ql", "indri-rm"))
    grids = {(campaign, judgment_set): fusion.evaluate_grid(con, campaign, recipe, ["k=10,60"], measure="AP",
                                                            train_topics=[str(t) for t in range(151, 176)],
                                                            judgment_set=judgment_set)
             for campaign, judgment_set in (("w", "official"), ("w", "stricter"), ("s", "official"))}
    stricter, oracle = grids[("w", "stricter")], grids[("s", "official")]
    pd.testing.assert_frame_equal(stricter.points, oracle.points)
    assert not stricter.points.equals(grids[("w", "official")].points)
    assert con.execute("select judgment_set from fusion_grids where grid_id = $g", {"g": stricter.grid_id}
                       ).fetchall() == [("stricter",)]
    with pytest.raises(PyevalError, match="has no judgment set 'nope'"):
        fusion.evaluate_grid(con, "w", recipe, ["k=10,60"], measure="AP", judgment_set="nope")


def test_staleness_is_per_set_for_meta_evaluation_results(warehouse):
    con = warehouse
    official = swap_rate(con, "w", ["AP"], trials=20).swaprate_id
    stricter = swap_rate(con, "w", ["AP"], trials=20, judgment_set="stricter").swaprate_id
    replaced = sample.stricter_qrels()
    replaced["relevance"] = (replaced["relevance"] > 0).astype(int)
    pyeval.load_qrels(con, "w", replaced, judgment_set="stricter", replace=True)
    stale = """
        select distinct s.swaprate_id, stale.judgment_set
        from swap_rate_summaries as s
        inner join stale_results as stale
            on s.evaluation_id = stale.evaluation_id and s.campaign_id = stale.campaign_id
        order by 1
    """
    assert con.execute(stale).fetchall() == [(stricter, "stricter")]
    assert con.execute("select distinct judgment_set from stale_results").fetchall() == [("stricter",)]
    assert official not in [row[0] for row in con.execute(stale).fetchall()]


def test_design_over_campaigns_reads_each_campaigns_default_set(warehouse):
    """design pools several campaigns' scores under one set: with no set named, each campaign's
    default set, refused (one line, nothing stored) when those defaults differ."""
    from pyeval.judgments import set_default

    pooled = topic_set_design(warehouse, ["w", "s"], ["AP"], store=False)
    assert pooled.judgment_set == "official"
    set_default(warehouse, "w", "stricter")
    before = warehouse.execute("select count(*) from topic_set_designs").fetchone()
    with pytest.raises(PyevalError, match=r"default judgment sets differ \('w' reads 'stricter', 's' reads "
                                          r"'official'\): name the set to pool with --judgments"):
        topic_set_design(warehouse, ["w", "s"], ["AP"])
    assert warehouse.execute("select count(*) from topic_set_designs").fetchone() == before
    named = topic_set_design(warehouse, ["w", "s"], ["AP"], judgments="official", store=False)
    assert named.table["variance"].tolist() == pooled.table["variance"].tolist()
    alone = topic_set_design(warehouse, "w", ["AP"], store=False)  # one campaign: its default
    assert alone.judgment_set == "stricter"
