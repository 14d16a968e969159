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
    engine.dispose()
    # an empty database, and then pyeval's own publication, are published to
    fresh = _database(postgres_url)
    assert cli("--db", db, "publish", fresh)[0] == 0
    assert cli("--db", db, "publish", fresh)[0] == 0
