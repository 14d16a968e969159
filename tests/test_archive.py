"""The longitudinal archive: evaluation records, history, staleness, run metadata, trend views
(migration 0006, sql/views/current_inputs, stale_results, score_history, scores, run_means,
monthly_means), and the upgrade of a warehouse file made by the first schema version."""
from __future__ import annotations

import datetime
import hashlib
import json
import shutil

import duckdb
import pytest

import pyeval
from pyeval.core import sqlfiles
from pyeval.errors import PyevalError

from .conftest import ARCHIVE, FIXTURES, snapshot

QRELS = FIXTURES / "trec_eval" / "qrels.test"
RUN = FIXTURES / "trec_eval" / "results.test"
RUN_TRUNC = FIXTURES / "trec_eval" / "results.trunc"
V1 = ARCHIVE / "v1.duckdb"


@pytest.fixture
def campaign(con):
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a")
    pyeval.load_run(con, "c", RUN_TRUNC, name="b")
    return con


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_evaluation_records_its_inputs_measures_and_means(campaign):
    pyeval.define_gain_profile(campaign, "c", "graded", "1:3:7")
    result = pyeval.evaluate(campaign, "c", ["AP", "nDCG(gain=graded)@10", "NumRet(rel=1)"], runs=["a"])
    inputs = campaign.execute(
        "select input_kind, input_name, source_sha256 from evaluation_inputs where evaluation_id = $e order by all",
        {"e": result.evaluation_id},
    ).fetchall()
    graded = campaign.execute("select source_sha256 from current_inputs where input_kind = 'gains'").fetchall()
    assert inputs == sorted([("gains", "graded", graded[0][0]), ("qrels", "official", _sha256(QRELS)), ("run", "a", _sha256(RUN))])
    measures = campaign.execute(
        "select measure, measure_name, family, parameters, aggregate, gain_profile from evaluation_measures "
        "order by measure"
    ).fetchall()
    assert [(m, json.loads(p), a, g) for m, _, _, p, a, g in measures] == [
        ("AP", {"cutoff": None, "judged_only": False, "rel": 1}, "mean", None),
        ("NumRet(rel=1)", {"rel": 1}, "sum", None),
        ("nDCG(gain=graded)@10", {"cutoff": 10, "gain": "graded", "judged_only": False}, "mean", "graded"),
    ]
    stored = campaign.execute("select run_id, measure, value, topics from evaluation_means order by all").df()
    printed = result.means.sort_values(["run_id", "measure"]).reset_index(drop=True)
    assert stored["value"].tolist() == printed["value"].tolist()
    assert stored["topics"].tolist() == printed["topics"].tolist()
    assert campaign.execute("select pyeval_version, ordering from evaluations").fetchall() == [
        (pyeval.__version__, "trec")
    ]


def test_re_evaluating_keeps_history_and_scores_shows_the_latest(campaign):
    first = pyeval.evaluate(campaign, "c", ["AP"], runs=["a"])
    before = campaign.execute("select * from topic_scores order by all").fetchall()
    second = pyeval.evaluate(campaign, "c", ["AP"], runs=["a"], max_depth=5)
    assert campaign.execute(
        "select * from topic_scores where evaluation_id = $e order by all", {"e": first.evaluation_id}
    ).fetchall() == before
    history = campaign.execute(
        "select evaluation_id, topic_id, value, is_current, is_latest from score_history order by all"
    ).fetchall()
    assert len(history) == 6 and all(current for _, _, _, current, _ in history)
    assert [(e, latest) for e, _, _, _, latest in history] == [(1, False)] * 3 + [(2, True)] * 3
    shown = campaign.execute("select topic_id, value from scores order by topic_id").fetchall()
    assert shown == [(t, v) for e, t, v, _, latest in history if latest]
    assert shown == sorted(second.per_topic[["topic_id", "value"]].itertuples(index=False, name=None))


def test_replacing_inputs_hides_their_values_from_scores_but_keeps_them(campaign, write):
    pyeval.evaluate(campaign, "c", ["AP", "P@10"])
    all_values = campaign.execute("select * from topic_scores order by all").fetchall()
    # the same content under another file name: nothing is stale
    copy = write("same.txt", RUN.read_bytes())
    pyeval.load_run(campaign, "c", copy, name="a", replace=True)
    assert campaign.execute("select count(*) from scores").fetchall() == [(12,)]
    # different content: run a's values leave scores, run b's stay
    pyeval.load_run(campaign, "c", RUN_TRUNC, name="a", replace=True)
    assert campaign.execute("select distinct run_id from scores").fetchall() == [("b",)]
    assert campaign.execute(
        "select count(*) from score_history where run_id = 'a' and not is_current"
    ).fetchall() == [(6,)]
    assert campaign.execute("select count(*) from stale_results").fetchall() == [(2,)]
    # the first content again: its values are current again
    pyeval.load_run(campaign, "c", RUN, name="a", replace=True)
    assert campaign.execute("select count(*) from scores").fetchall() == [(12,)]
    # new qrels: every value of the campaign is stale, none is deleted
    qrels = write("qrels.txt", QRELS.read_text().replace(" 1\n", " 2\n", 1))
    pyeval.load_qrels(campaign, "c", qrels, replace=True)
    assert campaign.execute("select count(*) from scores").fetchall() == [(0,)]
    assert campaign.execute("select * from topic_scores order by all").fetchall() == all_values


def test_redefining_a_gain_profile_hides_only_the_measures_naming_it(campaign):
    pyeval.define_gain_profile(campaign, "c", "graded", "1:3:7")
    pyeval.evaluate(campaign, "c", ["nDCG(gain=graded)@10", "nDCG@10"], runs=["a"])
    pyeval.define_gain_profile(campaign, "c", "graded", "1:2:3", replace=True)
    assert campaign.execute("select distinct measure from scores").fetchall() == [("nDCG@10",)]
    pyeval.define_gain_profile(campaign, "c", "graded", "1:3:7", replace=True)
    assert campaign.execute("select count(distinct measure) from scores").fetchall() == [(2,)]


def test_run_metadata_tags_and_trend_views(campaign):
    meta = pyeval.RunMetadata(system="bm25 'prod'", team="ir; lab", run_date="2024-03-15", tags=("prod", "x"))
    pyeval.load_run(campaign, "c", RUN, name="a2", metadata=meta)
    shown = pyeval.annotate_run(campaign, "c", "a2", pyeval.RunMetadata(team=None, tags=("y",)))
    assert shown == {"system": "bm25 'prod'", "team": "ir; lab", "run_date": datetime.date(2024, 3, 15),
                     "tags": ["prod", "x", "y"]}
    pyeval.annotate_run(campaign, "c", "b", pyeval.RunMetadata(system="bm25 'prod'", run_date="2024-04-02"))
    # replacing a run keeps its metadata and tags
    pyeval.load_run(campaign, "c", RUN, name="a2", replace=True)
    assert campaign.execute("select system, team, run_date from runs where run_id = 'a2'").fetchall() == [
        ("bm25 'prod'", "ir; lab", datetime.date(2024, 3, 15))
    ]
    assert campaign.execute("select count(*) from run_tags where run_id = 'a2'").fetchall() == [(3,)]
    result = pyeval.evaluate(campaign, "c", ["AP", "GMAP"])
    means = {(r.run_id, r.measure): r.value for r in result.means.itertuples()}
    rows = campaign.execute("select run_id, measure, value, system from run_means order by all").fetchall()
    assert {(r, m): v for r, m, v, _ in rows} == means
    monthly = campaign.execute(
        "select month, mean_value, runs from monthly_means where system = 'bm25 ''prod''' and measure = 'GMAP' "
        "order by month"
    ).fetchall()
    assert monthly == [(datetime.date(2024, 3, 1), means[("a2", "GMAP")], 1),
                       (datetime.date(2024, 4, 1), means[("b", "GMAP")], 1)]
    with pytest.raises(PyevalError, match="YYYY-MM-DD"):
        pyeval.annotate_run(campaign, "c", "b", pyeval.RunMetadata(run_date="March"))
    with pytest.raises(PyevalError, match="no run named 'nope'"):
        pyeval.annotate_run(campaign, "c", "nope", pyeval.RunMetadata(team="t"))


def test_first_schema_version_file_upgrades_and_keeps_every_value(tmp_path):
    path = tmp_path / "v1.duckdb"
    shutil.copy(V1, path)
    raw = duckdb.connect(str(path), read_only=True)
    assert raw.execute("select version from schema_migrations").fetchall() == [(1,)]
    before = snapshot(raw)
    raw.close()
    con = pyeval.connect(path)
    after = snapshot(con)
    # columns added since: run_entries.trec_rank (0004), runs.system, team, run_date (0006)
    after["run_entries"] = sorted((row[:-1] for row in after["run_entries"]), key=repr)
    after["runs"] = sorted((row[:-3] for row in after["runs"]), key=repr)
    # judgment_set, the last column of these tables, was added by 0011 (every row: 'official');
    # 0019 renamed qrels qrels_by_set and added campaigns.default_judgment_set ('official')
    after["qrels"] = after.pop("qrels_by_set")
    after["intents"] = after.pop("intents_by_set")
    for table in ("qrels", "campaign_inputs", "evaluations", "topic_scores", "campaigns"):
        assert {row[-1] for row in after[table]} == {"official"}, table
        after[table] = sorted((row[:-1] for row in after[table]), key=repr)
    for table in before:
        if table != "schema_migrations":
            assert after[table] == before[table], table
    assert sorted(r[0] for r in after["schema_migrations"]) == [v for v, _, _ in sqlfiles.migration_files()]
    # scores: the latest value of each key (evaluation 2 re-evaluated bm25's AP)
    assert con.execute("select value from scores where run_id = 'bm25' and topic_id = '401' and measure = 'AP'"
                       ).fetchall() == [(0.25,)]
    assert con.execute("select count(*) from scores").fetchall() == [(8,)]
    assert con.execute("select count(*), count(*) filter (where is_current) from score_history").fetchall() == [(10, 10)]
    # 0006 recorded the inputs of the old evaluations from what the warehouse held (0011 named the
    # qrels by their judgment set)
    assert con.execute(
        "select evaluation_id, input_kind, input_name from evaluation_inputs order by all"
    ).fetchall() == [(1, "qrels", "official"), (1, "run", "bm25"), (1, "run", "neural; drop table runs"),
                     (2, "qrels", "official"), (2, "run", "bm25")]
    # a new evaluation on the upgraded file, and the old values stay
    result = pyeval.evaluate(con, "news'21", ["AP"], runs=["neural; drop table runs"])
    assert result.evaluation_id == 3
    assert con.execute("select count(*) from topic_scores").fetchall() == [(12,)]
    con.close()


def test_upgraded_v1_file_opens_read_only_afterwards(tmp_path):
    path = tmp_path / "v1.duckdb"
    shutil.copy(V1, path)
    with pytest.warns(pyeval.PyevalWarning, match="upgrading it"):
        con = pyeval.connect(path, read_only=True)  # upgrades once, says so, then serves read-only
    assert con.execute("select count(*) from scores").fetchall() == [(8,)]
    con.close()
