"""The pyeval command (pyeval/cli.py), through click's CliRunner."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pyeval.cli import main

from .conftest import FIXTURES

TREC = FIXTURES / "trec_eval"


@pytest.fixture
def runner():
    return CliRunner()


def invoke(runner, *args, env=None):
    result = runner.invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_load_list_and_sql(runner, tmp_path):
    db = tmp_path / "w.duckdb"
    out = invoke(runner, "--db", db, "load", "qrels", "--campaign", "trec6", TREC / "qrels.test")
    assert "trec6: loaded qrels" in out and "3681 rows, 3 topics; format trec" in out
    out = invoke(runner, "--db", db, "load", "run", "-C", "trec6", TREC / "results.test")
    assert "run 'STANDARD'" in out and "1500 rows, 3 topics" in out
    out = invoke(runner, "--db", db, "load", "run", "-C", "trec6", "--name", "trunc", TREC / "results.trunc")
    assert "run 'trunc'" in out and "1 judged topics are missing from it" in out
    out = invoke(runner, "--db", db, "list", "--format", "csv")
    assert "trec6,adhoc,3,3681,561,0,2,2084,0" in out
    assert "trec6,trunc,STANDARD,2,584," in out
    out = invoke(runner, "--db", db, "sql", "select run_id, count(*) as n from run_entries group by 1 order by 1",
                 "--format", "json")
    assert json.loads(out) == [{"run_id": "STANDARD", "n": 1500}, {"run_id": "trunc", "n": 584}]


def test_sql_formats(runner, tmp_path):
    db = tmp_path / "w.duckdb"
    invoke(runner, "--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    query = "select topic_id, count(*) as judgments from qrels group by 1 order by 1"
    assert invoke(runner, "--db", db, "sql", query, "--format", "csv") == "topic_id,judgments\n301,1708\n302,1061\n303,912\n"
    assert json.loads(invoke(runner, "--db", db, "sql", query, "--format", "json"))[0] == {"topic_id": "301", "judgments": 1708}
    markdown = invoke(runner, "--db", db, "sql", query, "--format", "markdown").splitlines()
    assert markdown[0].startswith("| topic_id") and markdown[1].startswith("|--")
    table = invoke(runner, "--db", db, "sql", query).splitlines()
    assert table[0].split() == ["topic_id", "judgments"] and table[2].split() == ["301", "1708"]


def test_sql_write_and_read_only(runner, tmp_path):
    db = tmp_path / "w.duckdb"
    invoke(runner, "--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    refused = runner.invoke(main, ["--db", str(db), "sql", "delete from qrels"])
    assert refused.exit_code == 1 and "read-only" in refused.output
    invoke(runner, "--db", db, "sql", "delete from qrels where topic_id = '303'", "--write")
    assert invoke(runner, "--db", db, "sql", "select count(*) as n from qrels", "--format", "csv") == "n\n2769\n"


def test_reading_a_missing_warehouse_is_an_error(runner, tmp_path):
    db = tmp_path / "typo.duckdb"
    for command in (["list"], ["sql", "select 1"]):
        result = runner.invoke(main, ["--db", str(db), *command])
        assert result.exit_code == 1 and "no such warehouse" in result.output
    assert not db.exists()


def test_empty_results_print(runner, tmp_path):
    db = tmp_path / "w.duckdb"
    invoke(runner, "--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    assert invoke(runner, "--db", db, "sql", "select campaign_id, run_id, topic_id, measure, value from scores"
                  ).split() == [
        "campaign_id", "run_id", "topic_id", "measure", "value", "-------------", "--------",
        "----------", "---------", "-------"
    ]


def test_sql_error_is_one_line(runner, tmp_path):
    db = tmp_path / "w.duckdb"
    invoke(runner, "--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    result = runner.invoke(main, ["--db", str(db), "sql", "select * from nowhere"])
    assert result.exit_code == 1
    assert result.output.startswith("Error: Catalog Error") and result.output.count("\n") == 1


def test_database_from_environment(runner, tmp_path):
    db = tmp_path / "env.duckdb"
    invoke(runner, "load", "qrels", "-C", "c", TREC / "qrels.test", env={"PYEVAL_DB": str(db)})
    assert db.exists()
    out = invoke(runner, "--db", db, "sql", "select count(*) as n from qrels", "--format", "csv")
    assert out == "n\n3681\n"


def test_name_only_with_one_file(runner, tmp_path):
    db = tmp_path / "w.duckdb"
    invoke(runner, "--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    result = runner.invoke(main, ["--db", str(db), "load", "run", "-C", "c", "--name", "x",
                                  str(TREC / "results.test"), str(TREC / "results.trunc")])
    assert result.exit_code == 2 and "--name applies to one FILE" in result.output


def test_unknown_option_is_a_usage_error(runner):
    result = runner.invoke(main, ["load", "qrels", "--bogus"])
    assert result.exit_code == 2


def test_demo(runner, tmp_path):
    out_path = tmp_path / "demo.duckdb"
    out = invoke(runner, "demo", "--out", out_path)
    assert "web2012 " in out and "web2012-nonuniform" in out and "web2012-adhoc" in out
    assert "Runs (60 in all" in out
    # a second run rebuilds the same file
    assert "Campaigns:" in invoke(runner, "demo", "--out", out_path)


def test_demo_refuses_to_overwrite_another_warehouse(runner, tmp_path):
    db = tmp_path / "mine.duckdb"
    invoke(runner, "--db", db, "load", "qrels", "-C", "precious", TREC / "qrels.test")
    result = runner.invoke(main, ["demo", "--out", str(db)])
    assert result.exit_code == 1 and "is not a warehouse pyeval demo built" in result.output
    assert db.exists()
