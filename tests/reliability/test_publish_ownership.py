"""``pyeval publish`` leaves a PostgreSQL database alone when it holds tables or views with
pyeval's names that pyeval did not publish (docs/reliability.md, "PostgreSQL")."""
from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa

from .helpers import cli, one_line_error, warehouse



def _database(url: str) -> str:
    """A fresh database on the server; its URL."""
    name = f"rel_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'create database "{name}"')
    admin.dispose()
    return url.rsplit("/", 1)[0] + "/" + name


def test_publish_refuses_a_database_with_foreign_tables_of_pyevals_names(tmp_path, postgres_url):
    db = warehouse(tmp_path / "w.duckdb")
    url = _database(postgres_url)
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as pg:
        pg.exec_driver_sql("create table runs (id integer, note text)")
        pg.exec_driver_sql("insert into runs values (1, 'my marathon')")
        pg.exec_driver_sql("create view scores as select note from runs")
    status, output = cli("--db", db, "publish", url)
    assert status == 1 and "which pyeval did not publish" in one_line_error(output)
    with engine.connect() as pg:
        assert pg.exec_driver_sql("select * from runs").fetchall() == [(1, "my marathon")]
        assert pg.exec_driver_sql("select * from scores").fetchall() == [("my marathon",)]
        assert "pyeval_publications" not in sa.inspect(pg).get_table_names()
        assert "pyeval_public" not in sa.inspect(pg).get_schema_names()
    engine.dispose()
    # an empty database, and then pyeval's own publication, are published to
    fresh = _database(postgres_url)
    assert cli("--db", db, "publish", fresh)[0] == 0
    assert cli("--db", db, "publish", fresh)[0] == 0


def _engine(url: str):
    return sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))


def test_publish_never_cascades_into_objects_pyeval_did_not_create(tmp_path, postgres_url):
    """A column change makes pyeval recreate a published table; the user's views and foreign keys
    on it (directly or through pyeval's views) are listed and kept, nothing is dropped."""
    db = warehouse(tmp_path / "w.duckdb")
    url = _database(postgres_url)
    assert cli("--db", db, "publish", url)[0] == 0
    engine = _engine(url)
    with engine.begin() as pg:
        pg.exec_driver_sql("alter table runs add column extra text")  # columns differ from the warehouse's
        pg.exec_driver_sql("create view my_runs as select run_id from runs")
        pg.exec_driver_sql("create view my_board as select * from leaderboard")  # through pyeval's views
        pg.exec_driver_sql("create table my_notes (campaign_id text, run_id text, note text, "
                           "foreign key (campaign_id, run_id) references runs (campaign_id, run_id))")
        pg.exec_driver_sql("insert into my_notes values ('c', 'a', 'keep me')")
    status, output = cli("--db", db, "publish", url)
    line = one_line_error(output)
    assert status == 1 and "my_runs" in line and "my_notes" in line and "pyeval drops nothing of yours" in line, line
    with engine.connect() as pg:
        views = {name for name, in pg.exec_driver_sql("select viewname from pg_views where schemaname = 'public'")}
        assert {"my_runs", "my_board", "leaderboard"} <= views
        assert pg.exec_driver_sql("select note from my_notes").fetchall() == [("keep me",)]
        assert "extra" in [c["name"] for c in sa.inspect(pg).get_columns("runs")]
    with engine.begin() as pg:  # without them, pyeval recreates its table (and its own views)
        pg.exec_driver_sql("drop view my_runs")
        pg.exec_driver_sql("drop view my_board")
        pg.exec_driver_sql("drop table my_notes")
    status, output = cli("--db", db, "publish", url)
    assert status == 0, output
    with engine.connect() as pg:
        assert "extra" not in [c["name"] for c in sa.inspect(pg).get_columns("runs")]
        assert pg.exec_driver_sql("select count(*) from leaderboard").scalar_one() >= 1
    engine.dispose()


def test_publish_grants_to_the_role_named_and_skips_a_dropped_role(tmp_path, postgres_url):
    db = warehouse(tmp_path / "w.duckdb")
    url = _database(postgres_url)
    engine = _engine(url)
    with engine.begin() as pg:
        for role in ("a%%b", "a%b", "gone"):
            pg.exec_driver_sql(f'drop role if exists "{role.replace("%", "%%")}"')
            pg.exec_driver_sql(f'create role "{role.replace("%", "%%")}"')
    status, output = cli("--db", db, "publish", "--grant-select", "a%%b", "--grant-select", "gone", url)
    assert status == 0, output
    privilege = "select has_table_privilege(%(role)s, 'scores', 'select')"
    with engine.connect() as pg:
        assert pg.exec_driver_sql(privilege, {"role": "a%%b"}).scalar_one() is True
        assert pg.exec_driver_sql(privilege, {"role": "a%b"}).scalar_one() is False
        assert pg.exec_driver_sql("select role_name from pyeval_public.pyeval_grants order by 1").fetchall() == [("a%%b",), ("gone",)]
    with engine.begin() as pg:
        pg.exec_driver_sql("revoke all on all tables in schema public, pyeval_public from gone")
        pg.exec_driver_sql("revoke all on schema public, pyeval_public from gone")
        pg.exec_driver_sql("drop role gone")
    status, output = cli("--db", db, "publish", url)
    assert status == 0, output
    assert "warning: --grant-select: the recorded role 'gone' no longer exists" in output
    engine.dispose()


def test_concurrent_first_publications_to_a_new_database_all_succeed(tmp_path, postgres_url):
    import os
    import subprocess
    import sys
    from pathlib import Path

    db = warehouse(tmp_path / "w.duckdb")
    url = _database(postgres_url)
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    children = [subprocess.Popen([sys.executable, "-m", "pyeval.cli", "--db", str(db), "publish", url],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
                for _ in range(3)]
    results = [(child.wait(timeout=300), child.stdout.read()) for child in children]
    assert [status for status, _ in results] == [0, 0, 0], results
    engine = _engine(url)
    with engine.connect() as pg:
        assert pg.exec_driver_sql("select count(*) from pyeval_public.pyeval_publications").scalar_one() == 3
        assert pg.exec_driver_sql("select count(*) from evaluations").scalar_one() == 1
    engine.dispose()
