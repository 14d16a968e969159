"""The stored current values (migration 0015, pyeval/core/archive.py): the views scores, run_means,
leaderboard and monthly_means read current_scores and current_means, and show exactly the rows
the definitions before 0015 regrouped from the whole history at every query. Checked after
every step of a history with re-evaluations, a re-loaded run, a replaced gain profile, a fused
run whose parent changed, a deleted run, re-loaded qrels, a run's metadata set after its
evaluation and two judgment sets."""
from __future__ import annotations

import json
import math
import shutil

import pytest

import pyeval
from pyeval import fusion
from pyeval.core import archive
from pyeval.core import sqlfiles
from pyeval.loaders import RunMetadata

from .conftest import ARCHIVE, FIXTURES

QRELS = FIXTURES / "trec_eval" / "qrels.test"
RUN = FIXTURES / "trec_eval" / "results.test"
RUN_TRUNC = FIXTURES / "trec_eval" / "results.trunc"
V10 = ARCHIVE / "v10.duckdb"

#: scores before migration 0015: the latest current value of each key, regrouped from every
#: stored value at each query (score_history_by_set keeps that rule: is_latest).
OLD_SCORES = """
select score_history_by_set.campaign_id, score_history_by_set.run_id, score_history_by_set.topic_id, score_history_by_set.measure,
    score_history_by_set.value, score_history_by_set.evaluation_id, score_history_by_set.evaluated_at, score_history_by_set.judgment_set,
    measures.aggregate, measures.higher_is_better
from score_history_by_set
left join evaluation_measures
    on score_history_by_set.evaluation_id = evaluation_measures.evaluation_id
    and score_history_by_set.measure = evaluation_measures.measure
left join measures on evaluation_measures.measure_name = measures.measure_name
where score_history_by_set.is_latest
"""

#: run_means before migration 0015 (sql/views/run_means.sql at commit 4257248), verbatim.
OLD_RUN_MEANS = """
with current_means as (
    select
        evaluation_means.evaluation_id,
        evaluation_means.campaign_id,
        evaluation_means.judgment_set,
        evaluation_means.run_id,
        evaluation_means.measure,
        evaluation_means.value,
        evaluation_means.topics,
        row_number() over (
            partition by
                evaluation_means.campaign_id, evaluation_means.judgment_set, evaluation_means.run_id,
                evaluation_means.measure
            order by evaluation_means.evaluation_id desc
        ) as recency
    from evaluation_means
    left join stale_results
        on evaluation_means.evaluation_id = stale_results.evaluation_id
        and evaluation_means.run_id = stale_results.run_id
        and evaluation_means.measure = stale_results.measure
    where stale_results.evaluation_id is null
)

select
    current_means.campaign_id,
    current_means.run_id,
    runs.system,
    runs.team,
    runs.run_date,
    current_means.measure,
    current_means.value,
    current_means.topics,
    current_means.evaluation_id,
    evaluations.created_at as evaluated_at,
    evaluation_measures.measure_name,
    measures.aggregate,
    measures.higher_is_better,
    current_means.judgment_set
from current_means
inner join runs on current_means.campaign_id = runs.campaign_id and current_means.run_id = runs.run_id
left join evaluations on current_means.evaluation_id = evaluations.evaluation_id
left join evaluation_measures
    on current_means.evaluation_id = evaluation_measures.evaluation_id
    and current_means.measure = evaluation_measures.measure
left join measures on evaluation_measures.measure_name = measures.measure_name
where current_means.recency = 1
"""


def _rows(con, sql: str) -> list[tuple]:
    rows = con.execute(f"select * from ({sql}) order by all").fetchall()
    return [tuple("nan" if isinstance(v, float) and math.isnan(v) else v for v in row) for row in rows]


def assert_views_as_before(con) -> int:
    """The views' rows equal the pre-0015 definitions' rows (the *_by_set views; those that name no
    set: the default set's rows); returns how many rows scores_by_set has."""
    con.execute(f"create or replace temp view old_run_means as {OLD_RUN_MEANS}")
    assert _rows(con, "select * from scores_by_set") == _rows(con, OLD_SCORES)
    assert _rows(con, "select * from run_means_by_set") == _rows(con, "select * from old_run_means")
    # the views that name no set (0019): the rows of each campaign's default set
    for view in ("scores", "run_means", "leaderboard"):
        assert _rows(con, f"select * from {view}") == _rows(
            con, f"select v.* from {view}_by_set as v join campaigns as c on v.campaign_id = c.campaign_id "
                 "and v.judgment_set = c.default_judgment_set"), view
    con.execute("create or replace temp view old_default_run_means as select m.* from old_run_means as m "
                "join campaigns as c on m.campaign_id = c.campaign_id and m.judgment_set = c.default_judgment_set")
    for view, read, old_view in (("leaderboard_by_set", "run_means_by_set", "old_run_means"),
                                 ("monthly_means", "run_means", "old_default_run_means")):
        # unchanged text but the name of the run_means view read
        old = sqlfiles.view_sql(view).replace(f"from {read}\n", f"from {old_view} as {read}\n")
        old = old.replace(f"join {read} as", f"join {old_view} as")
        assert old_view in old
        assert _rows(con, f"select * from {view}") == _rows(con, old), view
    con.execute("drop view old_default_run_means")
    con.execute("drop view old_run_means")
    return con.execute("select count(*) from scores_by_set").fetchone()[0]


def test_the_views_show_what_the_old_definitions_regrouped(con):
    measures = ["AP", "P@10", "nDCG(gain=graded)@10"]
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a", metadata=RunMetadata(system="s1", run_date="2024-01-05"))
    pyeval.load_run(con, "c", RUN_TRUNC, name="b", metadata=RunMetadata(system="s1", run_date="2024-02-05"))
    pyeval.load_run(con, "c", RUN_TRUNC, name="d", metadata=RunMetadata(system="s2", run_date="2024-02-07"))
    pyeval.load_qrels(con, "other", QRELS)
    pyeval.load_run(con, "other", RUN, name="a", metadata=RunMetadata(system="s1", run_date="2024-01-20"))
    pyeval.define_gain_profile(con, "c", "graded", "1:3:7")
    assert assert_views_as_before(con) == 0

    pyeval.evaluate(con, "c", measures)
    pyeval.evaluate(con, "other", ["AP"])
    first = assert_views_as_before(con)
    assert first > 0
    pyeval.evaluate(con, "c", ["AP"], runs=["a"])  # a re-evaluation: the later one shows
    assert assert_views_as_before(con) == first
    assert con.execute("select count(distinct evaluation_id) from scores where campaign_id = 'c'").fetchone()[0] == 2

    # a run's metadata set after its evaluation: run_means and monthly_means show the new one
    pyeval.annotate_run(con, "c", "a", RunMetadata(system="renamed", team="t", run_date="2025-03-01"))
    assert con.execute("select distinct system from run_means where run_id = 'a' and campaign_id = 'c'"
                       ).fetchall() == [("renamed",)]
    assert_views_as_before(con)

    # a second judgment set: its own rows beside the official ones
    pyeval.load_qrels(con, "c", RUN_TRUNC.parent / "qrels.rel_level", judgment_set="second")
    pyeval.evaluate(con, "c", ["AP", "P@10"], judgment_set="second")
    assert con.execute("select count(distinct judgment_set) from scores_by_set").fetchone()[0] == 2
    assert con.execute("select count(distinct judgment_set) from scores").fetchone()[0] == 1
    assert assert_views_as_before(con) > first

    # run b re-loaded with other content: its values turn stale, until it is evaluated again
    pyeval.load_run(con, "c", RUN, name="b", replace=True)
    assert con.execute("select count(*) from scores where run_id = 'b'").fetchone()[0] == 0
    assert assert_views_as_before(con) > 0
    pyeval.evaluate(con, "c", ["P@10"], runs=["b"])
    assert con.execute("select distinct measure from scores where run_id = 'b'").fetchall() == [("P@10",)]
    assert_views_as_before(con)

    # the gain profile replaced: nDCG's values turn stale, AP's stay
    pyeval.define_gain_profile(con, "c", "graded", "1:2:4", replace=True)
    assert con.execute("select count(*) from scores where measure like 'nDCG%'").fetchone()[0] == 0
    assert_views_as_before(con)

    # a fused run, evaluated, then a parent re-loaded: its values turn stale
    fusion.fuse(con, "c", ["a", "d"], "combsum", name="f")
    pyeval.evaluate(con, "c", ["AP"], runs=["f"])
    assert con.execute("select count(*) from scores where run_id = 'f'").fetchone()[0] > 0
    pyeval.load_run(con, "c", RUN, name="d", replace=True)
    assert con.execute("select count(*) from scores where run_id = 'f'").fetchone()[0] == 0
    assert_views_as_before(con)
    fusion.delete_run(con, "c", "f")
    assert_views_as_before(con)

    # the official qrels replaced: every official value of c turns stale; 'second' and 'other' stay
    pyeval.load_qrels(con, "c", RUN_TRUNC.parent / "qrels.rel_level", replace=True)
    assert con.execute("select distinct judgment_set from scores_by_set where campaign_id = 'c'").fetchall() == [
        ("second",)]
    assert con.execute("select count(*) from scores where campaign_id = 'c'").fetchone()[0] == 0
    assert con.execute("select count(*) from scores where campaign_id = 'other'").fetchone()[0] > 0
    assert_views_as_before(con)

    # and the rows survive a rebuild unchanged (what an upgrade or a change of the views does)
    before = _rows(con, "select * from current_scores"), _rows(con, "select * from current_means")
    archive.rebuild(con)
    assert (_rows(con, "select * from current_scores"), _rows(con, "select * from current_means")) == before


def test_an_evaluation_that_fails_leaves_the_stored_values_as_they_were(con, monkeypatch):
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a")
    pyeval.evaluate(con, "c", ["AP"])
    before = _rows(con, "select * from current_scores")

    def broken(con, evaluation_id):
        raise RuntimeError("disk full")

    monkeypatch.setattr(archive, "record_evaluation", broken)
    with pytest.raises(RuntimeError):
        pyeval.evaluate(con, "c", ["AP", "P@10"])
    assert _rows(con, "select * from current_scores") == before
    assert con.execute("select count(*) from evaluations").fetchone()[0] == 1


def test_an_old_warehouse_is_filled_by_the_upgrade(tmp_path):
    path = tmp_path / "v10.duckdb"
    shutil.copy(V10, path)
    con = pyeval.connect(path)
    try:
        stored = con.execute("select count(*) from current_scores").fetchone()[0]
        assert stored > 0
        assert stored == con.execute("select count(*) from score_history_by_set where is_latest").fetchone()[0]
        assert assert_views_as_before(con) == stored
    finally:
        con.close()


def test_an_export_made_before_0015_is_read_with_its_current_values_recomputed(con, tmp_path):
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a")
    pyeval.load_run(con, "c", RUN_TRUNC, name="b")
    pyeval.evaluate(con, "c", ["AP", "P@10"])
    pyeval.load_run(con, "c", RUN, name="b", replace=True)  # b's values turn stale
    pyeval.evaluate(con, "c", ["AP"], runs=["a"])
    expected = {view: _rows(con, f"select * from {view}") for view in ("scores", "run_means", "leaderboard")}
    pyeval.export_parquet(con, tmp_path / "export")
    manifest_path = tmp_path / "export" / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for table in archive.TABLES:  # what an export of an older warehouse lacks
        del manifest["tables"][table]
        shutil.rmtree(tmp_path / "export" / table)
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    attached = pyeval.attach_export(tmp_path / "export", verify=False)
    try:
        assert {view: _rows(attached, f"select * from {view}") for view in expected} == expected
        assert expected["scores"] and not [row for row in expected["scores"] if row[1] == "b"]
    finally:
        attached.close()
