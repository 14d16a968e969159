"""`pyeval relate`, `repro` and `longitudinal` on the command line (pyeval/cli/repro.py): printed
figures, stored rows, formats, and one-line errors."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

import pyeval
from pyeval import sample
from pyeval.cli import main
from pyeval.loaders import load_qrels, load_runs


@pytest.fixture()
def warehouse(tmp_path):
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    load_qrels(con, "web", sample.path("qrels.adhoc.txt.gz"))
    paths = [p for p in sample.run_paths() if sample.run_name(p) in ("indri-ql", "indri-rm", "sim01", "sim02")]
    load_runs(con, "web", paths, names=[sample.run_name(p) for p in paths])
    con.close()
    return str(path)


def _run(db, *args):
    result = CliRunner().invoke(main, ["--db", db, *args], catch_exceptions=False)
    return result


def test_repro_prints_and_stores_every_statistic(warehouse):
    result = _run(warehouse, "repro", "-C", "web", "--baseline", "indri-ql", "--advanced", "indri-rm",
                  "--rep-baseline", "sim01", "--rep-advanced", "sim02", "-m", "AP", "-m", "P@10", "--format", "csv")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "statistic,measure,baseline,advanced,effect"
    assert len(lines) == 1 + 2 * 7 + 3  # per measure 7 statistics, 3 document-order ones
    statistics = {line.split(",")[0] for line in lines[1:]}
    assert statistics == {"ARP_original", "ARP_reproduced", "RMSE", "nRMSE", "p_value", "ER", "DeltaRI", "KTU", "RBO",
                          "RBO_ties"}
    assert "stored as repro experiment 1" in result.stderr
    con = pyeval.connect(warehouse, read_only=True)
    assert con.execute("select count(*) from repro_results where repro_id = 1").fetchall() == [(30,)]
    assert con.execute("select count(distinct topic_id) from repro_topic_values where statistic = 'KTU'"
                       ).fetchall()[0][0] > 40
    con.close()


def test_repro_latex_and_no_store(warehouse):
    result = _run(warehouse, "repro", "-C", "web", "--baseline", "indri-ql", "--advanced", "indri-rm",
                  "--rep-baseline", "sim01", "--rep-advanced", "sim02", "-m", "nDCG@10", "--format", "latex",
                  "--no-store", "--rbo-p", "0.9", "--trim", "100")
    assert result.exit_code == 0, result.output
    assert "\\toprule" in result.stdout and "stored as" not in result.stderr


@pytest.mark.parametrize("args, message", [
    (["--rep-baseline", "nope"], "campaign 'web' has no run named 'nope'"),
    (["--rbo-p", "1.5"], "1.5 is not in the range"),
    (["-m", "nosuchmeasure"], "nosuchmeasure"),
    (["--rep-campaign", "other"], "campaign 'other' does not exist"),
])
def test_repro_user_mistakes_are_one_line(warehouse, args, message):
    base = {"--baseline": "indri-ql", "--advanced": "indri-rm", "--rep-baseline": "sim01", "--rep-advanced": "sim02"}
    given = dict(zip(args[::2], args[1::2]))
    argv = [item for key, value in {**base, **given}.items() if key != "-m" for item in (key, value)]
    argv += ["-m", given.get("-m", "AP")]
    result = _run(warehouse, "repro", "-C", "web", *argv)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_relate_records_relations_snapshots_and_ir_metadata(warehouse, tmp_path):
    meta = tmp_path / "ir-metadata.yml"
    meta.write_text("tag: bm25-repro\nactor:\n  team: repro-team\nplatform:\n  software:\n    libraries: [x]\n")
    result = _run(warehouse, "relate", "-C", "web", "sim01", "--reproduces", "indri-ql", "--provenance", "rerun",
                  "--ir-metadata", str(meta))
    assert result.exit_code == 0, result.output
    assert "team repro-team, system bm25-repro" in result.stdout
    result = _run(warehouse, "relate", "-C", "web", "sim02", "--system", "rm", "--snapshot", "t1",
                  "--snapshot-date", "2024-01-01", "--pivot-run", "sim01")
    assert result.exit_code == 0, result.output
    result = _run(warehouse, "relate", "-C", "web", "indri-rm", "--snapshot", "t2", "--ir-metadata", str(meta))
    assert result.exit_code == 0 and "is system 'bm25-repro' at snapshot 't2'" in result.stdout, result.output
    con = pyeval.connect(warehouse, read_only=True)
    assert con.execute("select relation, original_run_id, provenance from run_relations").fetchall() == [
        ("reproduces", "indri-ql", "rerun")]
    assert con.execute("select team, system from runs where run_id = 'sim01'").fetchall() == [("repro-team", "bm25-repro")]
    assert con.execute("select system, snapshot, pivot_run_id from run_snapshots order by snapshot").fetchall() == [
        ("rm", "t1", "sim01"), ("bm25-repro", "t2", None)]
    con.close()
    for argv, message in ((["--reproduces", "a", "--replicates", "b"], "choose one"),
                          (["--snapshot", "t1"], "--snapshot needs --system"),
                          (["--system", "x"], "--system names the system at a --snapshot"),
                          ([], "give --reproduces"),
                          (["--reproduces", "ghost"], "no run named 'ghost'")):
        result = _run(warehouse, "relate", "-C", "web", "sim01", *argv)
        assert result.exit_code != 0 and message in result.output, (argv, result.output)


def test_longitudinal_command_prints_summary_rankings_and_plots(warehouse, tmp_path):
    for run, system, snapshot in (("indri-ql", "ql", "s1"), ("indri-rm", "rm", "s1"), ("sim01", "ql", "s2"),
                                  ("sim02", "rm", "s2")):
        assert _run(warehouse, "relate", "-C", "web", run, "--system", system, "--snapshot", snapshot).exit_code == 0
    plot = tmp_path / "arp.png"
    result = _run(warehouse, "longitudinal", "-C", "web", "--pivot", "ql", "-m", "AP", "--plot", str(plot),
                  "--format", "markdown")
    assert result.exit_code == 0, result.output
    assert "| system" in result.stdout and "tau_ap" in result.stdout
    assert plot.exists() and "stored as longitudinal experiment 1" in result.stderr
    con = pyeval.connect(warehouse, read_only=True)
    assert con.execute("select distinct meta_measure from longeval_rows order by 1").fetchall() == [
        ("AP",), ("ARP",), ("DRI",), ("ER",), ("RC",), ("per-query",), ("t-test",)]
    con.close()
    result = _run(warehouse, "longitudinal", "-C", "web", "--pivot", "bm25", "-m", "AP")
    assert result.exit_code != 0 and "no system 'bm25'" in result.output


def test_repro_defaults_to_the_recorded_reproductions(warehouse):
    for run, original in (("sim01", "indri-ql"), ("sim02", "indri-rm")):
        assert _run(warehouse, "relate", "-C", "web", run, "--replicates", original).exit_code == 0
    result = _run(warehouse, "repro", "-C", "web", "--baseline", "indri-ql", "--advanced", "indri-rm", "-m", "AP",
                  "--format", "csv", "--no-store")
    assert result.exit_code == 0, result.output
    assert "replicability: web (indri-ql, indri-rm) against web (sim01, sim02)" in result.stderr
    assert "KTU" not in result.stdout  # a replication (the recorded relation): no document orders
    result = _run(warehouse, "repro", "-C", "web", "--baseline", "indri-ql", "--advanced", "sim01", "-m", "AP")
    assert result.exit_code != 0 and "no run recorded as reproducing run 'sim01'" in result.output
