"""Judgment sets (issue 26; migration 0011; docs/judgments.md): several qrels per campaign, the
upgrade of a warehouse made before them, evaluation under a set, and bad input."""
from __future__ import annotations

import shutil

import duckdb
import pandas as pd
import pytest

import pyeval
from pyeval.errors import PyevalError
from pyeval.loaders.judgment_sets import SetProvenance

from .conftest import ARCHIVE, FIXTURES, snapshot

QRELS = FIXTURES / "trec_eval" / "qrels.test"
RUN = FIXTURES / "trec_eval" / "results.test"
RUN_TRUNC = FIXTURES / "trec_eval" / "results.trunc"
V10 = ARCHIVE / "v10.duckdb"

#: the tables 0011 gave a judgment_set column (last), the one it rebuilt with it (intents), and
#: campaigns, to which 0019 appended default_judgment_set ('official')
WITH_SET_COLUMN = ("qrels", "campaign_inputs", "evaluations", "topic_scores", "evaluation_means",
                   "significance_tests", "pairwise_tests", "intents", "campaigns")
#: the stored tables 0019 renamed (the old names are views of each campaign's default set now)
RENAMED = {"qrels": "qrels_by_set", "intents": "intents_by_set"}


def stricter(path=QRELS, threshold: int = 2) -> pd.DataFrame:
    """The qrels at ``path`` binarised at ``threshold``: a stricter judge."""
    frame = pd.read_csv(path, sep=r"\s+", header=None, names=["query_id", "iteration", "doc_id", "relevance"],
                        dtype=str)
    frame["relevance"] = (frame["relevance"].astype(int) >= threshold).astype(int)
    return frame[["query_id", "doc_id", "relevance"]]


@pytest.fixture
def campaign(con):
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a")
    pyeval.load_run(con, "c", RUN_TRUNC, name="b")
    return con


def test_a_warehouse_made_before_judgment_sets_upgrades_with_identical_scores(tmp_path):
    path = tmp_path / "v10.duckdb"
    shutil.copy(V10, path)
    raw = duckdb.connect(str(path), read_only=True)
    assert max(r[0] for r in raw.execute("select version from schema_migrations").fetchall()) == 10
    before = snapshot(raw)
    views_before = {view: sorted(raw.execute(f"select * from {view}").fetchall(), key=repr)
                    for view in ("scores", "run_means", "leaderboard", "score_history")}
    raw.close()
    con = pyeval.connect(path)
    after = snapshot(con)
    for table in before:
        if table in ("schema_migrations", "derived_objects", "evaluation_inputs", "measures"):
            # measures: the catalogue is rebuilt from this pyeval's declarations at every open
            continue
        rows = after[RENAMED.get(table, table)]
        if table in WITH_SET_COLUMN:
            assert {row[-1] for row in rows} <= {"official"}, table
            rows = sorted((row[:-1] for row in rows), key=repr)
        assert rows == before[table], table
    # qrels and intents inputs are named by their judgment set now; nothing else changed
    renamed = [row[:3] + (("official",) if row[2] in ("qrels", "intents") else (row[3],)) + row[4:]
               for row in before["evaluation_inputs"]]
    assert after["evaluation_inputs"] == sorted(renamed, key=repr)
    # every view shows what it showed, with the set's name as its new column; nothing is stale
    assert con.execute("select count(*) from stale_results").fetchone() == (0,)
    for view, rows in views_before.items():
        columns = [c[0] for c in con.execute(f"select * from {view} limit 0").description]
        now = con.execute(f"select * exclude (judgment_set) from {view}").fetchall()
        width = len(rows[0]) if rows else 0  # columns later versions appended (risk, pooled) left out
        assert sorted((row[:width] for row in now), key=repr) == rows, view
        assert "judgment_set" in columns
    assert con.execute("select campaign_id, judgment_set, kind from judgment_sets order by 1").fetchall() == [
        ("c", "official", "human"), ("d", "official", "human")]
    # re-evaluating on the upgraded file gives the stored values again: per-topic values bit for
    # bit; means to the last bit or so, since evaluations now add a mean's topics with a
    # compensated sum (favg, sql/evaluation/means.sql) where v10 added them one by one
    stored = con.execute("select run_id, topic_id, measure, value from topic_scores where evaluation_id = 1 "
                         "order by all").fetchall()
    again = pyeval.evaluate(con, "c", ["AP", "nDCG@10", "P@10"], store=False)
    assert sorted(map(tuple, again.per_topic[["run_id", "topic_id", "measure", "value"]].itertuples(index=False))
                  ) == stored
    means = con.execute("select run_id, measure, value from evaluation_means where evaluation_id = 1 "
                        "order by all").fetchall()
    recomputed = sorted(map(tuple, again.means[["run_id", "measure", "value"]].itertuples(index=False)))
    assert [row[:2] for row in recomputed] == [row[:2] for row in means]
    assert [row[2] for row in recomputed] == pytest.approx([row[2] for row in means], rel=1e-15, abs=0)
    div = con.execute("select run_id, measure, value from run_means where campaign_id = 'd' order by all").fetchall()
    # under the conventions v10 stored them with (trec_eval's order, the given intent weights), not
    # the tool's own defaults the measures' names carry since (docs/measures.md)
    spelled = {"alpha_nDCG(probs=given)@10": "alpha_nDCG@10", "IRec@10": "IRec@10", "D_nDCG@10": "D_nDCG@10"}
    again = pyeval.evaluate(con, "d", list(spelled), ordering="trec", store=False).means
    again["measure"] = again["measure"].map(lambda name: spelled.get(name, name))
    assert sorted(map(tuple, again[["run_id", "measure", "value"]].itertuples(index=False))) == div
    con.close()


def test_a_second_set_is_evaluated_apart_and_recorded_everywhere(campaign):
    official = pyeval.evaluate(campaign, "c", ["AP", "P@10"])
    pyeval.load_qrels(campaign, "c", stricter(), judgment_set="strict",
                      provenance=SetProvenance(kind="derived", judge="binarised at 2"))
    strict = pyeval.evaluate(campaign, "c", ["AP", "P@10"], judgment_set="strict")
    # the official values did not move, and equal a campaign that holds only the stricter qrels
    again = pyeval.evaluate(campaign, "c", ["AP", "P@10"], store=False)
    pd.testing.assert_frame_equal(again.per_topic, official.per_topic)
    alone = pyeval.connect()
    pyeval.load_qrels(alone, "s", stricter())
    pyeval.load_run(alone, "s", RUN, name="a")
    pyeval.load_run(alone, "s", RUN_TRUNC, name="b")
    pd.testing.assert_frame_equal(pyeval.evaluate(alone, "s", ["AP", "P@10"]).per_topic, strict.per_topic)
    assert not strict.means["value"].equals(official.means["value"])
    con = campaign
    assert con.execute("select judgment_set from evaluations order by evaluation_id").fetchall() == [
        ("official",), ("strict",)]
    assert con.execute("select judgment_set, count(*) from scores_by_set group by 1 order by 1").fetchall() == [
        ("official", len(official.per_topic)), ("strict", len(strict.per_topic))]
    # a query that names no set reads the campaign's default set only
    assert con.execute("select judgment_set, count(*) from scores group by 1").fetchall() == [
        ("official", len(official.per_topic))]
    assert con.execute("select distinct judgment_set from evaluation_means where evaluation_id = 2").fetchall() == [
        ("strict",)]
    assert con.execute("select input_name from evaluation_inputs where evaluation_id = 2 and input_kind = 'qrels'"
                       ).fetchall() == [("strict",)]
    # the leaderboard ranks the runs within each set
    rows = con.execute("select judgment_set, run_id, position, ranked_runs from leaderboard_by_set "
                       "where measure = 'AP' order by all").fetchall()
    assert [r[0] for r in rows] == ["official", "official", "strict", "strict"]
    assert all(r[3] == 2 for r in rows)
    assert con.execute("select judgment_set, run_id, position, ranked_runs from leaderboard where measure = 'AP' "
                       "order by all").fetchall() == [r for r in rows if r[0] == "official"]
    # significance under a set records it
    result = pyeval.significance(con, "c", "AP", test="t", judgment_set="strict")
    assert con.execute("select judgment_set from significance_tests where test_id = $t", {"t": result.test_id}
                       ).fetchall() == [("strict",)]
    assert con.execute("select distinct judgment_set from pairwise_tests").fetchall() == [("strict",)]


def test_staleness_is_per_set(campaign):
    pyeval.load_qrels(campaign, "c", stricter(), judgment_set="strict")
    pyeval.evaluate(campaign, "c", ["AP"])
    pyeval.evaluate(campaign, "c", ["AP"], judgment_set="strict")
    pyeval.load_qrels(campaign, "c", stricter(threshold=1), judgment_set="strict", replace=True)
    stale = campaign.execute("select distinct evaluation_id from stale_results").fetchall()
    assert stale == [(2,)]  # only the evaluation under the replaced set
    assert campaign.execute("select distinct judgment_set from scores").fetchall() == [("official",)]


def test_bad_judgment_set_input_changes_nothing(campaign, tmp_path):
    pyeval.load_qrels(campaign, "c", stricter(), judgment_set="strict")
    pyeval.load_qrels(campaign, "other", QRELS)
    pyeval.load_qrels(campaign, "other", stricter(), judgment_set="only_other")
    before = snapshot(campaign)
    with pytest.raises(PyevalError, match="campaign 'c' has no judgment set 'nope'; its sets: official, strict"):
        pyeval.evaluate(campaign, "c", ["AP"], judgment_set="nope")
    with pytest.raises(PyevalError, match="it is a set of campaign 'other'"):
        pyeval.evaluate(campaign, "c", ["AP"], judgment_set="only_other")
    foreign = stricter()
    foreign.loc[0, "query_id"] = "999"
    with pytest.raises(PyevalError, match="judges topic '999'"):
        pyeval.load_qrels(campaign, "c", foreign, judgment_set="foreign")
    with pytest.raises(PyevalError, match="already has judgment set 'strict'"):
        pyeval.load_qrels(campaign, "c", stricter(), judgment_set="strict")
    with pytest.raises(PyevalError, match="has no official qrels yet"):
        pyeval.load_qrels(campaign, "new", stricter(), judgment_set="strict")
    with pytest.raises(PyevalError, match="judgment set name"):
        pyeval.load_qrels(campaign, "c", stricter(), judgment_set="bad name; drop table qrels")
    assert snapshot(campaign) == before


def test_the_command_line_loads_compares_derives_and_refuses_in_one_line(tmp_path):
    from click.testing import CliRunner

    from pyeval.cli import main

    db = str(tmp_path / "w.duckdb")
    strict = tmp_path / "strict.qrels"
    frame = stricter()
    frame.insert(1, "iteration", "0")
    frame.to_csv(strict, sep=" ", header=False, index=False)
    guideline = tmp_path / "prompt.txt"
    guideline.write_text("judge strictly\n")

    def run(*args):
        return CliRunner().invoke(main, ["--db", db, *map(str, args)])

    assert run("load", "qrels", "-C", "c", QRELS).exit_code == 0
    for name, path in (("a", RUN), ("b", RUN_TRUNC)):
        assert run("load", "run", "-C", "c", "--name", name, path).exit_code == 0
    loaded = run("load", "qrels", "-C", "c", "--judgments", "strict", "--kind", "llm", "--judge", "m-1",
                 "--guideline", guideline, strict)
    assert loaded.exit_code == 0 and "judgment set strict" in loaded.output
    assert run("evaluate", "-C", "c", "-m", "AP", "--judgments", "strict").exit_code == 0
    derived = run("judgments", "derive", "-C", "c", "bin1", "--from", "official", "--how", "binarise",
                  "--threshold", "1")
    assert derived.exit_code == 0, derived.output
    listed = run("judgments", "list", "-C", "c", "--format", "csv")
    assert listed.exit_code == 0
    assert [line.split(",")[1] for line in listed.output.splitlines()[1:]] == ["bin1", "official", "strict"]
    compared = run("judgments", "compare", "-C", "c", "--candidate", "strict", "--candidate", "bin1", "-m", "AP",
                   "--format", "csv")
    assert compared.exit_code == 0, compared.output
    rows = [line.split(",") for line in compared.output.splitlines() if line and not line.startswith("stored")]
    assert rows[0][:2] == ["candidate_set", "measure"] and [r[0] for r in rows[1:]] == ["strict", "bin1"]
    rank = rows[0].index("reference_best_run_rank")
    assert all(row[rank].isdigit() for row in rows[1:])  # a rank prints as a whole number, not 1.000
    import hashlib

    con = pyeval.connect(db, read_only=True)
    assert con.execute("select kind, judge, guideline_sha256 from judgment_sets where judgment_set = 'strict'"
                       ).fetchone() == ("llm", "m-1", hashlib.sha256(b"judge strictly\n").hexdigest())
    con.close()
    for args, message in (
        (("evaluate", "-C", "c", "-m", "AP", "--judgments", "nope"), "has no judgment set 'nope'"),
        (("judgments", "compare", "-C", "c", "--candidate", "nope"), "has no judgment set 'nope'"),
    ):
        result = run(*args)
        assert result.exit_code != 0 and message in result.output
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
