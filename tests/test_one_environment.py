"""One virtual environment holding pyeval and the tools that pin DuckDB below 2 (Ibis 12,
JupySQL): pyeval allows their DuckDB, and each client reads a warehouse pyeval wrote with the
installed DuckDB. The install itself (docs/bi.md, "One environment") needs the network, which
tests do not use: these tests check what the current environment holds, and skip a client it
lacks (run them in the environment the recipe makes, as docs/bi.md says)."""
from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import duckdb
import pytest
from packaging.requirements import Requirement

import pyeval

from .conftest import FIXTURES

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def _duckdb_requirement() -> Requirement:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    return next(r for r in map(Requirement, dependencies) if r.name == "duckdb")


def test_pyeval_allows_the_duckdb_ibis_and_jupysql_pin():
    allowed = _duckdb_requirement().specifier
    assert {"1.4.5", "1.5.6", "2.0.1"} <= set(allowed.filter(["1.3.2", "1.4.5", "1.5.6", "2.0.1", "2.1.0"]))
    assert duckdb.__version__ in allowed


@pytest.fixture
def warehouse(tmp_path) -> tuple[Path, dict[str, float]]:
    """A warehouse written by pyeval on the installed DuckDB, with AP and P@10 of two runs, and
    the mean AP per run as pyeval reads it."""
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", FIXTURES / "trec_eval" / "qrels.test")
    pyeval.load_run(con, "c", FIXTURES / "trec_eval" / "results.test", name="a")
    pyeval.load_run(con, "c", FIXTURES / "trec_eval" / "results.trunc", name="b")
    pyeval.evaluate(con, "c", ["AP", "P@10"])
    means = dict(con.execute("select run_id, value from run_means where measure = 'AP'").fetchall())
    con.close()
    return path, means


def test_ibis_reads_the_warehouse(warehouse):
    ibis = pytest.importorskip("ibis")
    path, means = warehouse
    con = ibis.duckdb.connect(str(path), read_only=True)
    try:
        assert {"run_means", "scores", "topic_scores"} <= set(con.list_tables())
        run_means = con.table("run_means")
        found = run_means.filter(run_means.measure == "AP").select("run_id", "value").to_pandas()
    finally:
        con.disconnect()
    assert dict(zip(found["run_id"], found["value"])) == means


def test_jupysql_reads_the_warehouse(warehouse):
    pytest.importorskip("sql.magic")
    interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
    path, means = warehouse
    shell = interactiveshell.InteractiveShell.instance()
    shell.user_ns["path"] = str(path)
    cells = ["%load_ext sql",  # as docs/bi.md writes them in a notebook
             "import pyeval, sqlalchemy as sa\nengine = sa.create_engine(pyeval.sqlalchemy_url(path))",
             "%sql engine",
             "found = %sql select run_id, value from run_means where measure = 'AP'",
             "tables = %sqlcmd tables"]
    try:
        for cell in cells:
            assert shell.run_cell(cell).success, cell
        found = shell.user_ns["found"].DataFrame()
        tables = str(shell.user_ns["tables"])
    finally:  # now, not at exit, when JupySQL would show its closing line after IPython's history closed
        sys.modules["sql.connection"].ConnectionManager.close_all()
    assert dict(zip(found["run_id"], found["value"])) == means
    assert "topic_scores" in tables
