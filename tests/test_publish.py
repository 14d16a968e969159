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
    assert _pg_scalar(postgres_url, "select count(*) from pyeval_public.pyeval_publications") == 3
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
        assert pg.execute(sa.text("select count(last_evaluation_id) from pyeval_public.pyeval_publications")).scalar_one() >= 2
    with reader.connect() as pg, pytest.raises(sa.exc.ProgrammingError, match="permission denied"):
        pg.execute(sa.text("select source from pyeval_public.pyeval_publications")).fetchall()
    reader.dispose()
    bad = runner.invoke(main, ["--db", str(tmp_path / "g.duckdb"), "publish", "--grant-select", "nobody", postgres_url])
    assert bad.exit_code == 1 and "no role 'nobody'" in bad.output and bad.output.count("\n") == 1, bad.output
    engine.dispose()


def _new_database(url: str) -> str:
    """A fresh database on the server; its URL."""
    import uuid

    name = f"book_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'create database "{name}"')
    admin.dispose()
    return url.rsplit("/", 1)[0] + "/" + name


def test_bookkeeping_tables_have_a_schema_per_published_schema_and_an_old_layout_moves_there(tmp_path, postgres_url):
    """pyeval_publications, pyeval_published_views and pyeval_grants live in pyeval_<schema>, not
    beside the published tables; a publication made before (the three tables in the published
    schema) is recognised as pyeval's and its tables are moved by the next publication, in its
    transaction; two schemas of one database keep their bookkeeping apart."""
    url = _new_database(postgres_url)
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as pg:
        pg.exec_driver_sql("drop role if exists old_reader")
        pg.exec_driver_sql("create role old_reader login password 'old'")
    path = tmp_path / "b.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "x", QRELS)
    pyeval.load_run(con, "x", RUN, name="a")
    pyeval.evaluate(con, "x", ["P@5"])
    con.close()
    runner = CliRunner()
    first = runner.invoke(main, ["--db", str(path), "publish", "--grant-select", "old_reader", url])
    assert first.exit_code == 0, first.output
    listed = ("select table_schema, table_name from information_schema.tables "
              "where table_name in ('pyeval_publications', 'pyeval_published_views', 'pyeval_grants') order by 2")
    with engine.begin() as pg:
        assert pg.exec_driver_sql(listed).fetchall() == [
            ("pyeval_public", "pyeval_grants"), ("pyeval_public", "pyeval_publications"),
            ("pyeval_public", "pyeval_published_views")]
        # the layout of earlier publications: the same tables (and grants) in the published schema
        for name in ("pyeval_publications", "pyeval_published_views", "pyeval_grants"):
            pg.exec_driver_sql(f"alter table pyeval_public.{name} set schema public")
        pg.exec_driver_sql("drop schema pyeval_public")
    oids = "select viewname, (quote_ident(viewname))::regclass::oid from pg_views where schemaname = 'public'"
    with engine.connect() as pg:
        before = dict(pg.exec_driver_sql(oids).fetchall())
    # a publication that fails leaves the old layout exactly as it was (one transaction)
    failed = runner.invoke(main, ["--db", str(path), "publish", "--grant-select", "nobody", url])
    assert failed.exit_code == 1 and "no role 'nobody'" in failed.output, failed.output
    with engine.connect() as pg:
        assert {schema for schema, _ in pg.exec_driver_sql(listed).fetchall()} == {"public"}
        assert "pyeval_public" not in sa.inspect(pg).get_schema_names()
    second = runner.invoke(main, ["--db", str(path), "publish", url])
    assert second.exit_code == 0, second.output
    assert "(incremental)" in second.output and "0 new evaluations" in second.output
    with engine.connect() as pg:
        assert {schema for schema, _ in pg.exec_driver_sql(listed).fetchall()} == {"pyeval_public"}
        assert pg.exec_driver_sql("select count(*) from pyeval_public.pyeval_publications").scalar_one() == 2
        # the recorded view hashes moved with their table: no view was recreated
        assert dict(pg.exec_driver_sql(oids).fetchall()) == before
        assert pg.exec_driver_sql("select role_name from pyeval_public.pyeval_grants").fetchall() == [("old_reader",)]
    host = sa.engine.make_url(url.replace("postgresql://", "postgresql+psycopg://", 1))
    reader = sa.create_engine(host.set(username="old_reader", password="old"))
    with reader.connect() as pg:
        assert pg.execute(sa.text("select count(*) from scores")).scalar_one() == 3
        assert pg.execute(sa.text("select count(rows_copied) from pyeval_public.pyeval_publications")).scalar_one() == 2
    with reader.connect() as pg, pytest.raises(sa.exc.ProgrammingError, match="permission denied"):
        pg.execute(sa.text("select source from pyeval_public.pyeval_publications")).fetchall()
    reader.dispose()

    # another schema of the same database: its own bookkeeping schema, its own history
    with engine.begin() as pg:
        pg.exec_driver_sql('create schema "Other"')
    other = url + "?options=-csearch_path%3D%22Other%22"
    con = pyeval.connect(path, read_only=True)
    report = sharing.publish(con, other)
    con.close()
    assert (report.schema, report.bookkeeping_schema, report.full) == ("Other", "pyeval_Other", True)
    with engine.connect() as pg:
        assert pg.exec_driver_sql('select count(*) from "pyeval_Other".pyeval_publications').scalar_one() == 1
        assert pg.exec_driver_sql("select count(*) from pyeval_public.pyeval_publications").scalar_one() == 2
        assert pg.exec_driver_sql('select count(*) from "Other".scores').scalar_one() == 3
    # a bookkeeping schema is not a publication target; a bookkeeping table in both places is an error
    into_book = runner.invoke(main, ["--db", str(path), "publish", url + "?options=-csearch_path%3D%22pyeval_Other%22"])
    assert into_book.exit_code == 1 and into_book.output.count("\n") == 1, into_book.output
    assert "schema pyeval_Other holds pyeval's bookkeeping" in into_book.output
    with engine.begin() as pg:
        pg.exec_driver_sql('create table "Other".pyeval_grants (role_name text primary key)')
    both = runner.invoke(main, ["--db", str(path), "publish", other])
    assert both.exit_code == 1 and "pyeval_grants is both in schema Other and in pyeval_Other" in both.output
    with engine.begin() as pg:
        pg.exec_driver_sql('drop table "Other".pyeval_grants')

    # a schema named like the bookkeeping schema but holding someone else's tables: refused
    with engine.begin() as pg:
        pg.exec_driver_sql("create schema third")
        pg.exec_driver_sql("create schema pyeval_third")
        pg.exec_driver_sql("create table pyeval_third.notes (note text)")
    refused = runner.invoke(main, ["--db", str(path), "publish", url + "?options=-csearch_path%3Dthird"])
    assert refused.exit_code == 1 and refused.output.count("\n") == 1, refused.output
    assert "schema pyeval_third" in refused.output and "which pyeval did not make" in refused.output
    with engine.connect() as pg:
        assert sa.inspect(pg).get_table_names(schema="third") == []
        assert sa.inspect(pg).get_table_names(schema="pyeval_third") == ["notes"]
    engine.dispose()


def test_a_publishing_role_that_may_not_create_schemas_is_told_how_to_get_the_bookkeeping_schema(
        tmp_path, postgres_url):
    url = _new_database(postgres_url)
    database = url.rsplit("/", 1)[1]
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as pg:
        pg.exec_driver_sql("drop role if exists publisher")
        pg.exec_driver_sql("create role publisher login password 'pub'")
        pg.exec_driver_sql("grant create, usage on schema public to publisher")
    con = pyeval.connect(tmp_path / "p.duckdb")
    pyeval.load_qrels(con, "x", QRELS)
    con.close()
    host = sa.engine.make_url(url)
    publisher = host.set(username="publisher", password="pub").render_as_string(hide_password=False)
    runner = CliRunner()
    refused = runner.invoke(main, ["--db", str(tmp_path / "p.duckdb"), "publish", publisher])
    assert refused.exit_code == 1 and refused.output.count("\n") == 1, refused.output
    assert (f"cannot create schema pyeval_public for pyeval's bookkeeping (permission denied for database {database})"
            in refused.output and 'create schema "pyeval_public" authorization' in refused.output)
    with engine.begin() as pg:
        assert sa.inspect(pg).get_table_names() == []  # nothing was published
        pg.exec_driver_sql("create schema pyeval_public authorization publisher")
    published = runner.invoke(main, ["--db", str(tmp_path / "p.duckdb"), "publish", publisher])
    assert published.exit_code == 0, published.output
    assert _pg_scalar(url, "select count(*) from pyeval_public.pyeval_publications") == 1
    engine.dispose()


def test_bookkeeping_schema_names_fit_postgresql_identifiers():
    from pyeval.sharing.publish import bookkeeping_schema

    assert bookkeeping_schema("public") == "pyeval_public"
    long_a, long_b = "é" * 31 + "a", "é" * 31 + "b"  # 63 bytes each: pyeval_ + it would be truncated
    names = {bookkeeping_schema(long_a), bookkeeping_schema(long_b)}
    assert len(names) == 2 and all(len(name.encode("utf-8")) <= 63 for name in names)
    assert all(name.startswith("pyeval_é") for name in names)
