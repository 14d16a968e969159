"""docs/queries.md: its setup commands build the example warehouse, and each of its ten queries
prints exactly the table the page shows."""
from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main
from pyeval.output import render
from pyeval.query import run_sql

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "queries.md").read_text(encoding="utf-8")
SETUP = re.search(r"```sh\n(.*?)```", PAGE, re.DOTALL).group(1).splitlines()
# each query: its sql block, then the markdown table printed after it
QUERIES = re.findall(r"```sql\n(.*?)\n```\n\n((?:\|[^\n]*\n)+)", PAGE, re.DOTALL)


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    path = tmp_path_factory.mktemp("queries") / "archive.duckdb"
    runner = CliRunner()
    here = os.getcwd()
    os.chdir(ROOT)  # the commands name files relative to the repository
    try:
        for line in SETUP:
            words = shlex.split(line)
            assert words[:3] == ["pyeval", "--db", "archive.duckdb"], line
            result = runner.invoke(main, ["--db", str(path), *words[3:]])
            assert result.exit_code == 0, (line, result.output)
    finally:
        os.chdir(here)
    con = pyeval.connect(path, read_only=True)
    yield con
    con.close()


def test_the_page_has_ten_queries():
    assert len(QUERIES) == 10


@pytest.mark.parametrize("number", range(1, 11))
def test_each_query_prints_the_table_shown(archive, number):
    query, table = QUERIES[number - 1]
    assert render(run_sql(archive, query), "markdown") == table.rstrip("\n")


@pytest.fixture(scope="module")
def published(archive, postgres_url):
    """The example warehouse published to a throwaway PostgreSQL server (docs/bi.md)."""
    import sqlalchemy as sa

    from pyeval.sharing import publish

    publish(archive, postgres_url)
    engine = sa.create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://", 1))
    yield engine
    engine.dispose()


def _comparable(rows) -> list[tuple]:
    """Rows as values both databases spell alike (DuckDB and psycopg both return Decimal for
    numeric, str, int, bool, date), sorted: the order of equal keys may differ by collation."""
    return sorted((tuple(row) for row in rows), key=repr)


@pytest.mark.parametrize("number", range(1, 11))
def test_each_query_gives_the_same_rows_on_postgresql(archive, published, number):
    """The page's queries are written for both DuckDB and PostgreSQL: on the published copy of
    the example warehouse each returns DuckDB's rows."""
    import sqlalchemy as sa

    query, _ = QUERIES[number - 1]
    with published.connect() as pg:
        theirs = pg.execute(sa.text(query.replace(":", r"\:"))).fetchall()
    assert _comparable(theirs) == _comparable(archive.execute(query).fetchall())
