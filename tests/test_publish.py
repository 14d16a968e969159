"""`pyeval publish`: the public schema copied into a real PostgreSQL server (tests/postgres_server.py
starts a throwaway one), checked row by row against the warehouse, first whole then incrementally."""
from __future__ import annotations

import math

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

import pyeval
from pyeval import pools, sharing
from pyeval.judgments import derive
from pyeval.cli import main

from .conftest import FIXTURES

QRELS = FIXTURES / "trec_eval" / "qrels.test"
RUN = FIXTURES / "trec_eval" / "results.test"
RUN_TRUNC = FIXTURES / "trec_eval" / "results.trunc"
ODD = "c'; drop table runs; --"



def _normalise(value):
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return value


def _rows(connection, query: str) -> list[tuple]:
    return sorted((tuple(_normalise(v) for v in row) for row in connection.execute(sa.text(query)).fetchall()),
                  key=repr)


def _assert_published_equal(con, url: str) -> None:
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as pg:
        for name in (*sharing.PUBLIC_TABLES, *sharing.MATERIALIZED_VIEWS, *sharing.PORTABLE_VIEWS):
            ours = sorted((tuple(_normalise(v) for v in row) for row in con.execute(f"select * from {name}").fetchall()),
                          key=repr)
            assert _rows(pg, f'select * from "{name}"') == ours, name
        views = set(sa.inspect(pg).get_view_names())
        assert set(sharing.PORTABLE_VIEWS) <= views
    engine.dispose()


def _pg_scalar(url: str, query: str):
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as pg:
        value = pg.execute(sa.text(query)).scalar()
    engine.dispose()
    return value


def test_publish_copies_tables_and_views_then_only_what_changed(tmp_path, postgres_url):
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, ODD, QRELS)
    pyeval.load_run(con, ODD, RUN, name='bm25 "quoted"; --',
                    metadata=pyeval.RunMetadata(system="s'1", team="t", run_date="2024-03-01", tags=("", "a;b")))
    pyeval.load_run(con, ODD, RUN_TRUNC, name="r2")
    pyeval.define_gain_profile(con, ODD, "graded", "1:3")
    pyeval.evaluate(con, ODD, ["AP", "P@10", "nDCG(gain=graded)@10", "GMAP"])
    # meta-evaluation results hold list columns: published as PostgreSQL arrays
    pyeval.discriminative_power(con, ODD, ["AP", "P@10"], "bootstrap", replicates=50, seed=1)
    # a pool: the views unique_relevant and pool_unique_documents have rows to compare
    pools.build(con, ODD, "p", depth=10)
    assert con.execute("select count(*) from unique_relevant where unique_relevant > 0").fetchone()[0] > 0
    con.close()

    runner = CliRunner()
    first = runner.invoke(main, ["--db", str(path), "publish", "--full", postgres_url])
    assert first.exit_code == 0, first.output
    assert "(full copy)" in first.output and "last evaluation 1" in first.output
    con = pyeval.connect(path, read_only=True)
    _assert_published_equal(con, postgres_url)
    con.close()

    # a new evaluation, a replaced run and a new campaign: copied incrementally
    con = pyeval.connect(path)
    pyeval.load_run(con, ODD, RUN, name="r2", replace=True)
    pyeval.load_qrels(con, "plain", QRELS)
    pyeval.load_run(con, "plain", RUN, name="a")
    pyeval.evaluate(con, "plain", ["AP"])
    pyeval.evaluate(con, ODD, ["RR"], runs=["r2"])
    con.close()
    second = runner.invoke(main, ["--db", str(path), "publish", postgres_url])
    assert second.exit_code == 0, second.output
    assert "(incremental)" in second.output and "2 new evaluations" in second.output
    con = pyeval.connect(path, read_only=True)
    report = sharing.publish(con, postgres_url)  # nothing new: only the small tables again
    assert report.new_evaluations == 0 and report.rows["run_entries"] == 0 and report.rows["topic_scores"] == 0
    _assert_published_equal(con, postgres_url)
    con.close()
    assert _pg_scalar(postgres_url, "select count(*) from pyeval_publications") == 3
    # stale values stay in PostgreSQL's history too: r2's first values are no longer current
    assert _pg_scalar(postgres_url, "select count(*) from score_history where not is_current") == 12


def test_publish_after_a_history_change_copies_everything_again(tmp_path, postgres_url):
    con = pyeval.connect(tmp_path / "other.duckdb")
    pyeval.load_qrels(con, "x", QRELS)
    pyeval.load_run(con, "x", RUN, name="a")
    pyeval.evaluate(con, "x", ["P@5"])
    report = sharing.publish(con, postgres_url)  # another warehouse's evaluation 1 is published there
    assert report.full
    _assert_published_equal(con, postgres_url)
    con.close()


def test_a_publication_shows_the_default_set_and_replaces_the_tables_of_an_older_one(tmp_path, postgres_url):
    """qrels, intents, scores, run_means and leaderboard show each campaign's default judgment set
    in PostgreSQL too; a publication made before they were views (tables qrels and intents, pyeval's
    own) is published over."""
    con = pyeval.connect(tmp_path / "sets.duckdb")
    pyeval.load_qrels(con, "x", QRELS)
    pyeval.load_run(con, "x", RUN, name="a")
    pyeval.load_qrels(con, "x", FIXTURES / "trec_eval" / "qrels.rel_level", judgment_set="graded")
    derive(con, "x", "strict", "binarise", ["graded"], threshold=2)
    pyeval.evaluate(con, "x", ["AP", "P@10"])
    pyeval.evaluate(con, "x", ["AP", "P@10"], judgment_set="strict")
    sharing.publish(con, postgres_url, full=True)
    _assert_published_equal(con, postgres_url)
    engine = sa.create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as pg:  # what a publication before migration 0019 left: tables, not views
        pg.exec_driver_sql("drop view qrels cascade")
        pg.exec_driver_sql("create table qrels as select * from qrels_by_set")
    engine.dispose()
    sharing.publish(con, postgres_url)
    _assert_published_equal(con, postgres_url)
    for view in ("qrels", "scores", "run_means", "leaderboard"):
        assert _pg_scalar(postgres_url, f"select count(distinct judgment_set) from {view}") == 1, view
        assert _pg_scalar(postgres_url, f"select min(judgment_set) from {view}") == "official", view
    assert _pg_scalar(postgres_url, "select count(distinct judgment_set) from scores_by_set") == 2
    con.close()


def test_publish_refuses_bad_urls_in_one_line():
    runner = CliRunner()
    for url, message in (
        ("postgresql://nobody@127.0.0.1:1/none", "cannot publish to postgresql+psycopg://nobody@127.0.0.1:1/none"),
        ("mysql://u@h/db", "publish needs a postgresql:// URL"),
        ("not a url", "not a database URL"),
    ):
        with runner.isolated_filesystem():
            pyeval.connect("w.duckdb").close()
            result = runner.invoke(main, ["--db", "w.duckdb", "publish", url])
        assert result.exit_code == 1, result.output
        assert result.output.startswith(f"Error: {message}") and result.output.count("\n") == 1, result.output


def test_publish_accepts_postgres_scheme(tmp_path, postgres_url):
    """``postgres://`` (libpq's and many hosts' spelling) is postgresql://."""
    con = pyeval.connect(tmp_path / "p.duckdb")
    pyeval.load_qrels(con, "x", QRELS)
    report = sharing.publish(con, postgres_url.replace("postgresql://", "postgres://", 1), full=True)
    assert report.url.startswith("postgresql+psycopg://")
    assert _pg_scalar(postgres_url, "select count(*) from qrels") == con.execute("select count(*) from qrels").fetchone()[0]
    con.close()


def test_publish_hides_the_password(tmp_path):
    con = pyeval.connect()
    with pytest.raises(pyeval.PyevalError) as caught:
        sharing.publish(con, "postgresql://u:secret@127.0.0.1:1/db")
    assert "secret" not in str(caught.value) and "***" in str(caught.value)
    con.close()


def test_publish_keeps_grants_and_replaces_views_only_when_changed(tmp_path, postgres_url):
    """A read-only role granted with --grant-select reads every table and view after each later
    publication; views whose SQL did not change are not recreated (same oid)."""
    engine = sa.create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as pg:
        pg.exec_driver_sql("drop role if exists dashboard")
        pg.exec_driver_sql("create role dashboard login password 'dash'")
    con = pyeval.connect(tmp_path / "g.duckdb")
    pyeval.load_qrels(con, "x", QRELS)
    pyeval.load_run(con, "x", RUN, name="a")
    pyeval.evaluate(con, "x", ["P@5"])
    con.close()
    runner = CliRunner()
    first = runner.invoke(main, ["--db", str(tmp_path / "g.duckdb"), "publish", "--full", "--grant-select", "dashboard",
                                 postgres_url])
    assert first.exit_code == 0, first.output
    oids = "select viewname, (quote_ident(viewname))::regclass::oid from pg_views where schemaname = 'public'"
    with engine.connect() as pg:
        before = dict(pg.exec_driver_sql(oids).fetchall())
        assert pg.exec_driver_sql("select obj_description('scores'::regclass)").scalar().startswith("The public")
        # every published table, view and column carries its description (docs/schema.md)
        undescribed = pg.exec_driver_sql(
            "select c.relname, a.attname from pg_class c join pg_namespace n on n.oid = c.relnamespace "
            "join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped "
            "where n.nspname = 'public' and c.relkind in ('r', 'v') and left(c.relname, 7) <> 'pyeval_' "
            "and (col_description(c.oid, a.attnum) is null or obj_description(c.oid) is null)").fetchall()
        assert undescribed == []
    second = runner.invoke(main, ["--db", str(tmp_path / "g.duckdb"), "publish", postgres_url])
    assert second.exit_code == 0, second.output
    with engine.connect() as pg:
        assert dict(pg.exec_driver_sql(oids).fetchall()) == before
    host = sa.engine.make_url(postgres_url.replace("postgresql://", "postgresql+psycopg://", 1))
    reader = sa.create_engine(host.set(username="dashboard", password="dash"))
    with reader.connect() as pg:
        for name in (*sharing.PUBLIC_TABLES, *sharing.PORTABLE_VIEWS):
            pg.execute(sa.text(f'select count(*) from "{name}"')).scalar_one()
        assert pg.execute(sa.text("select count(*) from scores")).scalar_one() == 3
        # the publications, but not the publishing host's path of the warehouse (issue 31)
        assert pg.execute(sa.text("select count(last_evaluation_id) from pyeval_publications")).scalar_one() >= 2
    with reader.connect() as pg, pytest.raises(sa.exc.ProgrammingError, match="permission denied"):
        pg.execute(sa.text("select source from pyeval_publications")).fetchall()
    reader.dispose()
    bad = runner.invoke(main, ["--db", str(tmp_path / "g.duckdb"), "publish", "--grant-select", "nobody", postgres_url])
    assert bad.exit_code == 1 and "no role 'nobody'" in bad.output and bad.output.count("\n") == 1, bad.output
    engine.dispose()
