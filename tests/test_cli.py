"""The pyeval command (pyeval/cli/), through click's CliRunner."""
from __future__ import annotations

import json
import shlex

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
    assert "run 'trunc'" in out and "1 judged topic is missing from it" in out
    out = invoke(runner, "--db", db, "list", "--format", "csv", "--only", "campaigns")
    assert "trec6,adhoc,3,3681,561,0,2,2084,0" in out and "trunc" not in out
    out = invoke(runner, "--db", db, "list", "--format", "csv", "--only", "runs")
    assert "trec6,trunc,STANDARD,2,584," in out and out.count("campaign_id") == 1
    listed = json.loads(invoke(runner, "--db", db, "list", "--format", "json"))
    assert len(listed["campaigns"]) == 1 and len(listed["runs"]) == 2
    refused = runner.invoke(main, ["--db", str(db), "list", "--format", "csv"])
    assert refused.exit_code == 2 and "a CSV stream holds one table" in refused.output
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
    # qrels is a view of the default judgment set (migration 0019): the stored rows are qrels_by_set
    view = runner.invoke(main, ["--db", str(db), "sql", "delete from qrels where topic_id = '303'", "--write"])
    assert view.exit_code == 1 and "write qrels_by_set" in view.output and view.output.count("\n") == 1
    invoke(runner, "--db", db, "sql", "delete from qrels_by_set where topic_id = '303'", "--write")
    assert invoke(runner, "--db", db, "sql", "select count(*) as n from qrels", "--format", "csv") == "n\n2769\n"


def test_reading_a_missing_warehouse_is_an_error(runner, tmp_path):
    db = tmp_path / "typo.duckdb"
    for command in (["list"], ["sql", "select 1"]):
        result = runner.invoke(main, ["--db", str(db), *command])
        assert result.exit_code == 1 and "no such warehouse" in result.output
    assert not db.exists()


def test_a_mistyped_db_leaves_no_empty_warehouse_behind(runner, tmp_path):
    db = tmp_path / "typo.duckdb"
    for command in (["evaluate", "-C", "web", "-m", "AP"], ["intents", "topics", "-C", "web", str(db)],
                    ["gains", "-C", "web", "g", "1:2"], ["swaprate", "-C", "web", "-m", "AP"]):
        result = runner.invoke(main, ["--db", str(db), *command])
        assert result.exit_code == 1 and "no such warehouse" in result.output, command
        assert not db.exists() and not list(tmp_path.iterdir()), command


def test_missing_warehouse_and_runs_say_the_next_step(runner, tmp_path):
    """A first evaluate on a new file says to load qrels, then to load a run, as commands."""
    import pyeval

    db = tmp_path / "fresh.duckdb"
    result = runner.invoke(main, ["--db", str(db), "evaluate", "-C", "c", "-m", "AP"])
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert f"no such warehouse; load qrels first to make it: pyeval --db {shlex.quote(str(db))} load qrels " \
        "--campaign NAME QRELS_FILE" in result.output
    invoke(runner, "--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    for command in (["evaluate", "-C", "c", "-m", "AP"], ["pool", "build", "-C", "c", "--name", "p", "--depth", "5"]):
        result = runner.invoke(main, ["--db", str(db), *command])
        assert result.exit_code == 1 and result.output.count("\n") == 1, command
        assert "campaign 'c' has no runs; load one first: pyeval load run --campaign c RUN_FILE" in result.output
    with pytest.raises(pyeval.errors.PyevalError, match=r"has no runs; load one first \(pyeval.load_run\)"):
        with pyeval.connect(str(db)) as con:
            pyeval.evaluate(con, "c", ["AP"])


@pytest.mark.parametrize("measure,message", [
    ("nDCG@", "cannot parse measure 'nDCG@': write nDCG@K with K a positive integer (e.g. nDCG@10)"),
    ("P@", "write P@K with K a positive integer"),
    ("nDCG@1O", "did you mean nDCG@10?"),
    ("ndcg_cut10", "unknown measure 'ndcg_cut10'; did you mean nDCG@10 (trec_eval ndcg_cut_10)?"),
    ("map_cut10", "did you mean AP@10 (trec_eval map_cut_10)?"),
])
def test_a_measure_that_does_not_parse_names_its_form(runner, tmp_path, measure, message):
    db = tmp_path / "w.duckdb"
    invoke(runner, "--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    invoke(runner, "--db", db, "load", "run", "-C", "c", TREC / "results.test")
    result = runner.invoke(main, ["--db", str(db), "evaluate", "-C", "c", "-m", measure])
    assert result.exit_code == 1 and result.output.count("\n") == 1 and message in result.output


def test_a_misspelled_campaign_gets_a_did_you_mean(runner, tmp_path):
    db = tmp_path / "w.duckdb"
    invoke(runner, "--db", db, "load", "qrels", "-C", "trec6", TREC / "qrels.test")
    result = runner.invoke(main, ["--db", str(db), "evaluate", "-C", "trec5", "-m", "AP"])
    assert result.exit_code == 1 and "campaign 'trec5' does not exist (did you mean 'trec6'?)" in result.output
    result = runner.invoke(main, ["--db", str(db), "load", "run", "-C", "terc6", str(TREC / "results.test")])
    assert "(did you mean 'trec6'?)" in result.output and "pyeval load qrels --campaign terc6" in result.output
    result = runner.invoke(main, ["--db", str(db), "gains", "-C", "zzz", "g", "1:2"])
    assert "campaign 'zzz' does not exist (campaigns: trec6)" in result.output


def test_duplicate_loads_name_replace_as_each_interface_spells_it(runner, tmp_path):
    import pyeval

    db = tmp_path / "w.duckdb"
    invoke(runner, "--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    result = runner.invoke(main, ["--db", str(db), "load", "qrels", "-C", "c", str(TREC / "qrels.test")])
    assert result.exit_code == 1 and "already has qrels; use --replace to replace them" in result.output
    con = pyeval.connect(db)
    try:
        with pytest.raises(pyeval.DataIntegrityError, match="already has qrels") as raised:
            pyeval.load_qrels(con, "c", TREC / "qrels.test")
        assert "--replace" not in str(raised.value) and "replace=True" in str(raised.value)
        with pytest.raises(pyeval.UnknownCampaignError) as raised:
            pyeval.load_run(con, "d", TREC / "results.test")
        assert "pyeval load" not in str(raised.value) and "did you mean 'c'" not in str(raised.value)
    finally:
        con.close()


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


def test_demo(demo_build):
    out = demo_build.output
    assert "web2012 " in out and "web2012-nonuniform" in out and "web2012-adhoc" in out
    assert "Runs (60 in all" in out
    assert "seed 0" not in out.replace("seed 0,", "")  # papers are cited by author and year, never by a seed number
    # the second judgment set (a simulated stricter judge) compared with the official qrels
    assert "Judgment sets of web2012-adhoc" in out
    assert "krippendorff_alpha_ordinal" in out and "kendall_tau_b" in out
    # the generated answers of the simulated runs, beside their retrieval scores (docs/rag.md)
    assert "Generated answers on web2012-adhoc" in out and "vital_manual" in out and "cohen_kappa_binary@2" in out
    # two noisy reproductions of the real runs compared by repro_eval's measures (docs/reproducibility.md)
    assert "Reproducibility on web2012-adhoc" in out and "RBO_ties" in out and "DeltaRI" in out


def test_demo_labels_the_runs_and_shows_the_real_ones_in_every_run_table(demo_build):
    sections = demo_build.output.split("\n\n")
    tables = [s for s in sections if "  rank  run_id    kind" in s]
    assert len(tables) == 4
    for table in tables:
        rows = [line.split() for line in table.splitlines() if line.split()[:1] and line.split()[0].isdigit()]
        assert {"indri-ql", "indri-rm"} <= {row[1] for row in rows}
        assert all(row[2] in ("real", "simulated") for row in rows)
    ad_hoc = next(t for t in tables if "NumRet(rel=1)" in t)
    assert ad_hoc.splitlines()[3].split()[-1].isdigit()  # a count prints as an integer


def test_demo_honours_a_db_given_on_the_command_line(runner, tmp_path, monkeypatch):
    import pyeval.demo

    built = []
    monkeypatch.setattr(pyeval.demo, "run_demo", lambda out, echo: built.append(str(out)))
    monkeypatch.chdir(tmp_path)
    invoke(runner, "--db", "x.duckdb", "demo")
    invoke(runner, "demo")
    invoke(runner, "--db", "x.duckdb", "demo", "--out", "y.duckdb")
    invoke(runner, "demo", env={"PYEVAL_DB": "z.duckdb"})
    assert built == ["x.duckdb", "pyeval-demo.duckdb", "y.duckdb", "pyeval-demo.duckdb"]


def test_demo_refuses_to_overwrite_another_warehouse(runner, tmp_path):
    db = tmp_path / "mine.duckdb"
    invoke(runner, "--db", db, "load", "qrels", "-C", "precious", TREC / "qrels.test")
    result = runner.invoke(main, ["demo", "--out", str(db)])
    assert result.exit_code == 1 and "is not a warehouse pyeval demo built" in result.output
    assert db.exists()


def test_per_topic_counts_print_as_integers(runner, tmp_path):
    db = tmp_path / "w.duckdb"
    invoke(runner, "--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    invoke(runner, "--db", db, "load", "run", "-C", "c", TREC / "results.test")
    out = invoke(runner, "--db", db, "evaluate", "-C", "c", "-m", "NumRet(rel=1)", "-m", "AP", "--per-topic",
                 "--no-store", "--format", "csv")
    rows = [line.split(",") for line in out.splitlines()[1:]]
    counts = [value for _, _, measure, value in rows if measure == "NumRet(rel=1)"]
    assert counts and all(value.isdigit() for value in counts), counts
    assert all("." in value for _, _, measure, value in rows if measure == "AP")


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path):
    """`pyeval list | head -1` (and any command whose reader closes the pipe) prints no
    'Error: Broken pipe' (issue 38)."""
    import subprocess
    import sys

    db = tmp_path / "w.duckdb"
    runner = CliRunner()
    invoke(runner, "--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    invoke(runner, "--db", db, "load", "run", "-C", "c", "--name", "a", TREC / "results.test")
    for command in (["list"], ["sql", "select * from run_entries"]):
        shell = (f"{shlex.quote(sys.executable)} -m pyeval.cli --db {shlex.quote(str(db))} "
                 + " ".join(shlex.quote(word) for word in command) + " | true")
        done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120)
        assert done.stderr == "", (command, done.stderr)


def test_an_empty_query_is_an_error_in_sql_and_attach(tmp_path):
    db = tmp_path / "w.duckdb"
    runner = CliRunner()
    invoke(runner, "--db", db, "load", "qrels", "-C", "c", TREC / "qrels.test")
    invoke(runner, "--db", db, "export", "--parquet", tmp_path / "export")
    for command in (["--db", str(db), "sql", ""], ["attach", str(tmp_path / "export"), ""]):
        result = runner.invoke(main, command)
        assert result.exit_code == 1 and result.output == "Error: no SQL statement given\n", (command, result.output)
    listed = runner.invoke(main, ["attach", str(tmp_path / "export")])
    assert listed.exit_code == 0 and "campaigns" in listed.output
