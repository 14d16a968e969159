"""What dashboards read (issue 20; docs/bi.md, docs/schema.md): the measure catalogue, the
descriptions on every public table, view and column, and the dashboard views."""
from __future__ import annotations

import datetime
import json
from pathlib import Path

import duckdb
import pytest

import pyeval
from pyeval import sharing
from pyeval.storage import descriptions
from pyeval.core import sqlfiles
from pyeval.storage import warehouse
from pyeval.measures import registry
from pyeval.resampling.report import compare

from .conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[1]
QRELS = FIXTURES / "trec_eval" / "qrels.test"
RUN = FIXTURES / "trec_eval" / "results.test"
RUN_TRUNC = FIXTURES / "trec_eval" / "results.trunc"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("bi") / "w.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a", metadata=pyeval.RunMetadata(tags=("baseline",), run_date="2024-01-02"))
    pyeval.load_run(con, "c", RUN_TRUNC, name="b", metadata=pyeval.RunMetadata(tags=("production", "neural")))
    pyeval.evaluate(con, "c", ["AP", "P@10", "NumRet(rel=1)", "GMAP"])
    compare(con, "c", ["AP"], test="t")
    con.close()
    return path


def test_the_catalogue_holds_every_registered_measure_and_every_stored_name_joins(built):
    con = pyeval.connect(built, read_only=True)
    names = {name for name, in con.execute("select measure_name from measures").fetchall()}
    assert names == {d.name for d in registry.definitions()}
    assert con.execute("select count(*) from evaluation_measures left join measures using (measure_name) "
                       "where measures.family is null").fetchall() == [(0,)]
    rows = dict(con.execute("select measure_name, aggregate from measures").fetchall())
    assert (rows["NumRet"], rows["GMAP"], rows["AP"]) == ("sum", "gmean", "mean")
    assert con.execute("select higher_is_better, maximum_value from measures where measure_name = 'NumRel'"
                       ).fetchall() == [(None, None)]
    con.close()


def test_means_aggregate_as_the_catalogue_says_as_trec_eval_does(built):
    """NumRet(rel=1) is trec_eval's num_rel_ret: summed over topics (131 for results.test),
    in run_means and in compare alike; GMAP is a geometric mean."""
    con = pyeval.connect(built, read_only=True)
    means = dict(((run, measure), value) for run, measure, value in con.execute(
        "select run_id, measure, value from run_means").fetchall())
    assert means[("a", "NumRet(rel=1)")] == 131.0
    assert con.execute("select aggregate from run_means where measure = 'NumRet(rel=1)' limit 1").fetchall() == [("sum",)]
    report = compare(con, "c", ["NumRet(rel=1)", "GMAP", "AP"], test="t", store=False)
    for run in ("a", "b"):
        for measure in ("NumRet(rel=1)", "GMAP", "AP"):
            assert report.means.loc[run, measure] == pytest.approx(means[(run, measure)], rel=1e-12)
    con.close()


def test_the_descriptions_are_those_of_docs_schema_md():
    page = (ROOT / "docs" / "schema.md").read_text(encoding="utf-8")
    con = pyeval.connect()
    columns = descriptions.described_columns(con)
    con.close()
    assert descriptions.load() == descriptions.fill_columns(descriptions.from_schema_page(page), columns), (
        "sql/descriptions.json differs from docs/schema.md: run python -m pyeval.storage.descriptions docs/schema.md")
    assert set(columns) == set(descriptions.load()), "a public table or view is not described in docs/schema.md"


def test_every_public_table_view_and_column_carries_its_description(built):
    con = pyeval.connect(built, read_only=True)
    public = (*sharing.PUBLIC_TABLES, *sqlfiles.VIEW_ORDER)
    described = descriptions.load()
    relations = dict(con.execute(
        "select table_name, comment from duckdb_tables() where database_name = current_database() "
        "union all select view_name, comment from duckdb_views() where not internal "
        "and database_name = current_database()").fetchall())
    for name in public:
        assert relations[name] == described[name]["description"] and relations[name], name
    for relation, column, comment in con.execute(
        "select table_name, column_name, comment from duckdb_columns() where database_name = current_database() "
        "and schema_name in ('main', 'pyeval_internal')").fetchall():
        if relation in public:
            assert comment and comment == described[relation]["columns"][column], (relation, column)
    # the ownership marker stays the comment of schema_migrations
    assert con.execute("select comment from duckdb_tables() where table_name = 'schema_migrations'"
                       ).fetchall()[0][0].startswith("pyeval")
    con.close()


def test_staleness_is_tracked_in_derived_objects_not_in_comments(tmp_path):
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    con.execute("comment on view scores is 'edited by hand'")
    assert warehouse.views_current(con)  # a comment says nothing about the view's SQL
    con.execute("update derived_objects set sha256 = 'old' where object_name = 'measures'")
    con.execute("delete from measures")
    assert not warehouse.views_current(con)
    con.close()
    con = pyeval.connect(path)  # remade on open
    assert warehouse.views_current(con)
    assert con.execute("select count(*) from measures").fetchall() == [(len(registry.definitions()),)]
    assert con.execute("select comment from duckdb_views() where view_name = 'scores'").fetchall() == [
        (descriptions.load()["scores"]["description"],)]
    con.close()


def test_dashboard_views(built):
    con = pyeval.connect(built, read_only=True)
    assert con.execute("select count(*) from scores where evaluation_id = 1 and evaluated_at is not null"
                       ).fetchall() == con.execute("select count(*) from scores").fetchall()
    board = {(run, measure): rest for run, measure, *rest in con.execute(
        "select run_id, measure, position, tags, baseline_run_id, difference, test, versus_baseline "
        "from leaderboard").fetchall()}
    assert board[("a", "AP")] == [1, "baseline", "a", 0.0, None, None]
    position, tags, baseline, difference, test, verdict = board[("b", "AP")]
    assert (position, tags, baseline, test, verdict) == (2, "neural, production", "a", "t", "not significant")
    assert difference == pytest.approx(0.101565 - 0.178545, abs=1e-6)
    # run b has no date: it is in no month (it used to land in the month it was loaded)
    assert con.execute("select distinct system, month from monthly_means").fetchall() == [("a", datetime.date(2024, 1, 1))]
    assert con.execute("select count(*), count(title) from topic_overview").fetchall() == [(3, 0)]
    con.close()


def test_descriptions_file_is_json_with_text_for_every_column():
    for relation, entry in json.loads(sqlfiles.read("descriptions.json")).items():
        assert entry["description"], relation
        assert all(entry["columns"].values()), relation


def test_a_parquet_export_reads_as_exported_in_pandas_pyarrow_duckdb_and_polars(built, tmp_path):
    """Every table (and the current scores) reads back with its rows and a string campaign_id
    in each reader, without options: no folder name looks like a Hive partition."""
    import duckdb
    import pandas as pd
    import polars as pl
    import pyarrow.dataset as ds

    target = tmp_path / "export"
    con = pyeval.connect(built, read_only=True)
    sharing.export_parquet(con, target)
    for name in (*sharing.PUBLIC_TABLES, "scores"):
        rows = con.execute(f"select count(*) from {name}").fetchall()[0][0]
        folder = target / name
        frame = pd.read_parquet(folder)
        table = ds.dataset(folder, format="parquet").to_table()
        polars_frame = pl.read_parquet(str(folder / "**" / "*.parquet"))
        duck = duckdb.sql("select * from read_parquet($g)", params={"g": str(folder / "**" / "*.parquet")})
        assert len(frame) == table.num_rows == polars_frame.height == len(duck.fetchall()) == rows, name
        if "campaign_id" in frame.columns:
            assert str(table.schema.field("campaign_id").type) == "string", name
            assert polars_frame.schema["campaign_id"] == pl.String, name
            assert set(frame["campaign_id"]) <= {"c"}, name
    assert len(pd.read_parquet(target / "scores")) == con.execute("select count(*) from scores").fetchall()[0][0] > 0
    con.close()


TREC_TOPICS = """<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international criminal activity.

<narr> Narrative:
A relevant document must as a minimum identify the organization.
</top>

<top>
<num> Number: 302
<title> Poliomyelitis and Post-Polio
<desc> Description:
Is the disease of Poliomyelitis (polio) under control in the world?
</top>
"""
WEB_TOPICS = """<webtrack2012>
<topic number="303" type="faceted">
  <query>hubble telescope &amp; achievements</query>
  <description>Identify positive accomplishments of the Hubble telescope.</description>
</topic>
</webtrack2012>
"""


def test_load_topics_gives_topic_overview_its_titles(tmp_path, write):
    from click.testing import CliRunner

    from pyeval.cli import main

    path = tmp_path / "t.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", QRELS)
    con.close()
    runner = CliRunner()
    for name, text in (("topics.301-302", TREC_TOPICS), ("web.xml", WEB_TOPICS), ("titles.tsv", "301\tcrime\n")):
        result = runner.invoke(main, ["--db", str(path), "load", "topics", "-C", "c", str(write(name, text))])
        assert result.exit_code == 0, result.output
    con = pyeval.connect(path, read_only=True)
    assert con.execute("select topic_id, title from topic_overview order by topic_id").fetchall() == [
        ("301", "crime"), ("302", None), ("303", None)]  # each load replaces the campaign's titles
    con.close()
    con = pyeval.connect(path)
    pyeval.load_topics(con, "c", write("again", TREC_TOPICS))
    rows = con.execute("select topic_id, title, description from topic_overview order by topic_id").fetchall()
    assert rows[0] == ("301", "International Organized Crime",
                       "Identify organizations that participate in international criminal activity.")
    assert rows[1][1] == "Poliomyelitis and Post-Polio"
    con.close()
    con = pyeval.connect(path)
    pyeval.load_topics(con, "c", write("web.xml", WEB_TOPICS))
    assert con.execute("select title from topic_texts where topic_id = '303'").fetchall() == [
        ("hubble telescope & achievements",)]
    con.close()


def test_bad_topics_files_are_one_line_errors_naming_file_and_line(tmp_path, write):
    from click.testing import CliRunner

    from pyeval.cli import main
    from tests.conftest import snapshot

    path = tmp_path / "t.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", QRELS)
    before = snapshot(con)
    con.close()
    runner = CliRunner()
    for name, text, message in (
        ("a.tsv", "301\tcrime\nno tab here\n", "a.tsv:2: expected topic_id<TAB>title"),
        ("b.tsv", "301\tcrime\n301\tagain\n", "b.tsv:2: topic 301 again (first on line 1)"),
        ("c.txt", "\n\n", "c.txt: holds no topic"),
    ):
        result = runner.invoke(main, ["--db", str(path), "load", "topics", "-C", "c", str(write(name, text))])
        assert result.exit_code == 1 and message in result.output and result.output.count("\n") == 1, result.output
    result = runner.invoke(main, ["--db", str(path), "load", "topics", "-C", "nope", str(write("d.tsv", "1\tx\n"))])
    assert result.exit_code == 1 and "campaign 'nope' does not exist" in result.output
    con = pyeval.connect(path, read_only=True)
    assert snapshot(con) == before
    con.close()


def test_an_export_by_an_older_pyeval_attaches_with_the_later_tables_empty(built, tmp_path):
    target = tmp_path / "export"
    con = pyeval.connect(built, read_only=True)
    sharing.export_parquet(con, target)
    means = con.execute("select run_id, measure, value from run_means order by all").fetchall()
    con.close()
    con = pyeval.connect(built, read_only=True)
    qrels = con.execute("select * from qrels order by all").fetchall()
    con_rows = con.execute("select * exclude (default_judgment_set) from campaigns order by all").fetchall()
    con.close()
    manifest = json.loads((target / "manifest.json").read_text())
    for table in ("measures", "topic_texts"):
        del manifest["tables"][table]
    # before migration 0019: tables qrels and intents (renamed since), campaigns without its default set
    for old, new in (("qrels", "qrels_by_set"), ("intents", "intents_by_set")):
        manifest["tables"][old] = manifest["tables"].pop(new)
    for entry in manifest["tables"]["campaigns"]["files"]:
        path = target / entry["path"]
        duckdb.execute("copy (select * exclude (default_judgment_set) from read_parquet($p)) to $o (format parquet)",
                       {"p": str(path), "o": str(path) + ".old"})
        (target / (entry["path"] + ".old")).replace(path)
    (target / "manifest.json").write_text(json.dumps(manifest))
    attached = sharing.attach_export(target, verify=False)
    assert attached.execute("select count(*) from measures").fetchall() == [(0,)]
    assert attached.execute("select run_id, measure, value from run_means order by all").fetchall() == means
    assert attached.execute("select * from qrels order by all").fetchall() == qrels
    assert attached.execute("select * exclude (default_judgment_set) from campaigns order by all").fetchall() == con_rows
    assert attached.execute("select distinct default_judgment_set from campaigns").fetchall() == [("official",)]
    attached.close()


def test_scores_carry_the_aggregate_and_direction_so_a_dashboard_sums_a_sum_measure(built):
    """Issue 31: a dashboard averaging `scores` gave NumRet 43.67 where the leaderboard says 131
    (trec_eval's num_rel_ret for results.test); `aggregate` tells it to SUM."""
    con = pyeval.connect(built, read_only=True)
    rows = con.execute(
        "select measure, aggregate, higher_is_better, "
        "case aggregate when 'sum' then sum(value) when 'mean' then avg(value) "
        "when 'gmean' then exp(avg(ln(greatest(value, 1e-5)))) end "
        "from scores where run_id = 'a' group by measure, aggregate, higher_is_better order by measure").fetchall()
    board = dict(con.execute("select measure, value from leaderboard where run_id = 'a'").fetchall())
    assert [(m, a, h) for m, a, h, _ in rows] == [
        ("AP", "mean", True), ("GMAP", "gmean", True), ("NumRet(rel=1)", "sum", None), ("P@10", "mean", True)]
    for measure, _, _, value in rows:
        assert value == pytest.approx(board[measure], rel=1e-12), measure
    assert board["NumRet(rel=1)"] == 131.0
    con.close()


def test_monthly_means_name_their_campaign(tmp_path):
    con = pyeval.connect(tmp_path / "w.duckdb")
    for campaign in ("c1", "c2"):
        pyeval.load_qrels(con, campaign, QRELS)
        pyeval.load_run(con, campaign, RUN, name="a",
                        metadata=pyeval.RunMetadata(system="bm25", run_date="2024-01-02"))
        pyeval.evaluate(con, campaign, ["AP"])
    rows = con.execute("select campaign_id, system, month, runs, campaigns from monthly_means "
                       "order by campaign_id").fetchall()
    assert rows == [("c1", "bm25", datetime.date(2024, 1, 1), 1, 1), ("c2", "bm25", datetime.date(2024, 1, 1), 1, 1)]
    con.close()


def test_a_verdict_from_a_test_older_than_the_evaluation_says_stale(tmp_path):
    con = pyeval.connect(tmp_path / "w.duckdb")
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a", metadata=pyeval.RunMetadata(tags=("baseline",)))
    pyeval.load_run(con, "c", RUN_TRUNC, name="b")
    pyeval.evaluate(con, "c", ["AP"])
    compare(con, "c", ["AP"], test="t")
    verdict = "select versus_baseline, test from leaderboard where run_id = 'b' and measure = 'AP'"
    assert con.execute(verdict).fetchall() == [("not significant", "t")]
    pyeval.evaluate(con, "c", ["AP"])  # newer values than the test read
    assert con.execute(verdict).fetchall() == [("stale", "t")]
    compare(con, "c", ["AP"], test="t")
    assert con.execute(verdict).fetchall() == [("not significant", "t")]
    con.close()


def test_no_column_description_only_points_elsewhere():
    """Issue 31: "as in run_means" said nothing in a BI tool's column list."""
    for relation, entry in descriptions.load().items():
        for column, text in entry["columns"].items():
            assert not text.startswith("as in "), (relation, column, text)
