"""Agreement of nugget assignment sets and of nugget banks (pyeval/judgments/nuggets.py; docs/rag.md
"Agreement"), against scikit-learn's cohen_kappa_score, the krippendorff package and scipy's
kendalltau; and the meta-evaluation commands on stored nugget scores."""
from __future__ import annotations

import json
import random
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

import pyeval
from pyeval.errors import PyevalError, PyevalWarning
from pyeval.judgments import compare

LEVEL = {"not_support": 0, "partial_support": 1, "support": 2}
RUNS = [f"r{i}" for i in range(8)]
TOPICS = [f"t{i}" for i in range(12)]


def _insert(con, table: str, frame: pd.DataFrame) -> None:
    rows = frame  # noqa: F841  (read by name: DuckDB's replacement scan)
    con.execute(f"insert into {table} by name select * from rows")


@pytest.fixture(scope="module")
def campaign():
    """Runs r0-r7 answer 12 topics; bank 'manual' (5-12 nuggets a topic) assigned by the sets
    'nist' and 'gpt' (gpt: nist's labels with 30% redrawn, and r7 better than nist says), bank
    'auto' (other nuggets) assigned by 'auto'; 'plain' a judgment set without assignments."""
    con = pyeval.connect()
    _build(con)
    yield con
    con.close()


def _build(con) -> None:
    """The campaign of :func:`campaign` in ``con``."""
    rng = random.Random(7)
    con.execute("insert into campaigns (campaign_id, qrels_kind) values ('c', 'adhoc')")
    con.executemany("insert into runs (campaign_id, run_id, source_file, source_sha256) values ('c', ?, 'f', 'x')",
                    [(run,) for run in RUNS])
    con.executemany("insert into judgment_sets (campaign_id, judgment_set, kind) values ('c', ?, ?)",
                    [("nist", "human"), ("gpt", "llm"), ("auto", "llm"), ("plain", "human")])
    nuggets, assignments = [], []
    for bank, assigned in (("manual", ("nist", "gpt")), ("auto", ("auto",))):
        for topic in TOPICS:
            count = rng.randint(5, 12)
            nuggets += [("c", bank, topic, f"{bank}{i}", i + 1, "text", rng.choice(["vital", "okay"]), "human")
                        for i in range(count)]
            for run_index, run in enumerate(RUNS):
                for i in range(count):
                    label = rng.choices(list(LEVEL), weights=[5, 2, 1 + run_index])[0]
                    for name in assigned:
                        if name == "gpt" and rng.random() < 0.3:
                            label = rng.choice(list(LEVEL))
                        assignments.append(("c", name, bank, run, topic, f"{bank}{i}", label, name, "f", "x"))
    _insert(con, "nuggets", pd.DataFrame(nuggets, columns=[
        "campaign_id", "bank", "topic_id", "nugget_id", "nugget_number", "text", "importance", "creator"]))
    _insert(con, "nugget_assignments", pd.DataFrame(assignments, columns=[
        "campaign_id", "judgment_set", "bank", "run_id", "topic_id", "nugget_id", "label", "assessor",
        "source_file", "source_sha256"]))
    _insert(con, "answers", pd.DataFrame(
        [("c", run, topic, 100, True, 1, "f", "x") for run in RUNS for topic in TOPICS],
        columns=["campaign_id", "run_id", "topic_id", "response_length", "length_given", "file_position",
                 "source_file", "source_sha256"]))


def _labels(con, judgment_set: str) -> pd.DataFrame:
    return con.execute("select run_id, topic_id, nugget_id, label from nugget_assignments "
                       "where judgment_set = $j", {"j": judgment_set}).df()


def test_label_agreement_of_two_assignment_sets_equals_sklearn_and_krippendorff(campaign):
    result = compare(campaign, "c", "nist", ["gpt"], ["VitalScore"], top_k=(5,))
    both = _labels(campaign, "nist").merge(_labels(campaign, "gpt"), on=["run_id", "topic_id", "nugget_id"])
    agreement = result.labels["gpt"].agreement
    for topic, part in [(None, both), ("t3", both[both["topic_id"] == "t3"])]:
        rows = agreement[agreement["topic_id"].isna()] if topic is None else agreement[agreement["topic_id"] == topic]
        value = {(row.coefficient, None if pd.isna(row.threshold) else int(row.threshold)): row.value
                 for row in rows.itertuples()}
        a, b = part["label_x"].map(LEVEL).to_numpy(), part["label_y"].map(LEVEL).to_numpy()
        assert value["cohen_kappa_binary", 2] == pytest.approx(cohen_kappa_score(a >= 2, b >= 2), abs=1e-12)
        assert value["cohen_kappa_linear", None] == pytest.approx(cohen_kappa_score(a, b, weights="linear"), abs=1e-12)
        assert value["cohen_kappa_quadratic", None] == pytest.approx(
            cohen_kappa_score(a, b, weights="quadratic"), abs=1e-12)
        assert value["krippendorff_alpha_ordinal", None] == pytest.approx(
            krippendorff.alpha(reliability_data=np.vstack([a, b]).astype(float), level_of_measurement="ordinal"),
            abs=1e-12)
        assert rows["units"].iloc[0] == len(part)
    summary = result.summary()
    assert "cohen_kappa_binary@2" in summary.columns  # support against the rest, by default
    ranking = result.rankings["gpt", "VitalScore"].table.set_index(["statistic", "top_k"])["value"]
    scores = campaign.execute("select run_id, judgment_set, avg(value) as mean from scores_by_set "
                              "where measure = 'VitalScore' group by all").df()
    means = scores.pivot(index="run_id", columns="judgment_set", values="mean").loc[RUNS]
    assert ranking["kendall_tau_b", pd.NA] == pytest.approx(stats.kendalltau(means["nist"], means["gpt"]).statistic,
                                                            abs=1e-12)
    assert ("tau_ap", pd.NA) in ranking.index and ("kendall_tau_b", 5) in ranking.index
    topics = campaign.execute("select topic_id, run_id, judgment_set, value from scores_by_set "
                              "where measure = 'VitalScore'").df().pivot_table(
        index=["topic_id", "run_id"], columns="judgment_set", values="value")
    per_topic = [stats.kendalltau(part["nist"], part["gpt"]).statistic for _, part in topics.groupby(level=0)
                 if part["nist"].nunique() > 1 and part["gpt"].nunique() > 1]
    assert ranking["kendall_tau_b_topic_mean", pd.NA] == pytest.approx(np.mean(per_topic), abs=1e-12)
    assert ("bland_altman_bias_run_means", pd.NA) in ranking.index
    stored = campaign.execute("select comparison, measure, settings from judgment_comparisons order by comparison_id"
                              ).fetchall()
    assert [(kind, measure) for kind, measure, _ in stored] == [("labels", None), ("scores", "VitalScore")]
    settings = json.loads(stored[0][2])
    assert settings["banks"] == {"nist": "manual", "gpt": "manual"} and settings["levels"]["support"] == 2
    assert settings["threshold"] == 2


def test_two_banks_on_the_same_answers_are_compared_by_their_scores(campaign):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PyevalWarning)
        result = compare(campaign, "c", "nist", ["auto"], ["AllScore"], store=False)
    overall = result.labels["auto"].agreement
    assert (overall["units"] == 0).all()  # no nugget in common: every coefficient of shared units undefined
    shared = overall[~overall["coefficient"].isin(["jaccard_relevant", "overlap_relevant"])]
    assert shared["value"].isna().all() and shared["warning"].str.contains("no unit judged by both").all()
    table = result.rankings["auto", "AllScore"].table.set_index("statistic")
    means = campaign.execute("select run_id, judgment_set, avg(value) as mean from scores_by_set "
                             "where measure = 'AllScore' group by all").df().pivot(
        index="run_id", columns="judgment_set", values="mean").loc[RUNS]
    assert table.loc["kendall_tau_b", "value"] == pytest.approx(
        stats.kendalltau(means["nist"], means["auto"]).statistic, abs=1e-12)


def test_an_assignment_set_and_a_set_without_assignments_are_not_compared(campaign):
    with pytest.raises(PyevalError, match="^judgment set 'nist' of campaign 'c' assigns nuggets and 'plain' does not"):
        compare(campaign, "c", "nist", ["plain"], store=False)


def test_the_meta_evaluation_commands_read_stored_nugget_scores(tmp_path):
    """significance, discpower, compare, risk and design read a nugget measure's stored scores
    under its assignment set like any measure's."""
    from click.testing import CliRunner

    from pyeval.cli import main

    path = tmp_path / "rag.duckdb"
    con = pyeval.connect(str(path))
    _build(con)
    pyeval.evaluate(con, "c", ["AllScore"], judgment_set="nist")
    con.close()
    runner = CliRunner()
    options = ["-C", "c", "-m", "AllScore", "--judgments", "nist"]
    for command in (["significance", *options, "--test", "t"], ["discpower", *options, "--test", "t"],
                    ["compare", *options, "--test", "t"], ["risk", *options, "--baseline", "r0"],
                    ["design", *options]):
        result = runner.invoke(main, ["--db", str(path), *command])
        assert result.exit_code == 0, (command, result.output)
        assert "r7" in result.output or "AllScore" in result.output, (command, result.output)
    con = pyeval.connect(str(path))
    stored = {table: con.execute(f"select count(*) from {table} where judgment_set = 'nist'").fetchone()[0]
              for table in ("significance_tests", "discriminative_power", "risk_results")}
    con.close()
    assert all(stored.values()), stored
