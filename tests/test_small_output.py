"""Small output puzzles (issue 38): what a command prints says what it did, in the same words
and number formats as its neighbours."""
from __future__ import annotations

from pyeval import sample

from .reliability.helpers import cli
from .reliability.test_failed_commands import base, db  # noqa: F401 (fixtures: campaign c, sets official and stricter)


def test_judgments_compare_says_what_each_stored_comparison_is(db):
    status, output = cli("--db", db, "judgments", "compare", "-C", "c", "--candidate", "stricter", "-m", "AP",
                         "--test", "t")
    assert status == 0, output
    assert "stored as comparisons 1 (stricter: labels), 2 (stricter: AP)" in output
    status, output = cli("--db", db, "judgments", "compare", "-C", "c", "--candidate", "stricter")
    assert "stored as comparison 3 (stricter: labels)" in output


def test_risk_prints_a_tiny_p_value_as_significance_does(db):
    """TRisk_p printed 0.0000 where significance prints < bound: one p-value format."""
    sim18 = next(p for p in sample.run_paths() if sample.run_name(p) == "sim18")  # far better than indri-ql
    assert cli("--db", db, "load", "run", "-C", "c", "--name", "sim18", "--evaluate", "AP", sim18)[0] == 0
    status, output = cli("--db", db, "risk", "-C", "c", "-m", "AP", "--baseline", "indri-ql", "--no-store")
    assert status == 0, output
    status, csv = cli("--db", db, "risk", "-C", "c", "-m", "AP", "--baseline", "indri-ql", "--no-store",
                      "--format", "csv")
    header, *rows = [line.split(",") for line in csv.splitlines() if line.count(",") > 5]
    tiny = [row[3] for row in rows if float(row[header.index("TRisk_p")]) < 1e-4]
    assert tiny, "the test needs a run whose TRisk p-value is below 0.0001"
    shown = {line.split()[3]: line for line in output.splitlines() if line.startswith("AP ")}
    assert all("< 0.0001" in shown[run] for run in tiny), output


def test_every_p_value_column_has_the_same_format():
    from pyeval.output import render_rows

    for column in ("p", "pvalue", "p_adjusted", "TRisk_p", "sign_test_p"):
        assert render_rows([column], [[1e-9]]).splitlines()[-1].strip() == "< 0.0001"
        assert render_rows([column], [[1e-9]], p_resolution=1e-3).splitlines()[-1].strip() == "< 0.001"
    assert render_rows(["TRisk"], [[1e-9]]).splitlines()[-1].strip() == "0.0000"


def test_load_run_takes_run_names_as_load_campaign_does(tmp_path):
    """--run-names file on load run: runs named by their files (the two Indri runs share the tag
    'indri'), files of one name in two folders by their folders; with --name it is refused."""
    import shutil

    import pyeval

    db = tmp_path / "w.duckdb"
    assert cli("--db", db, "load", "qrels", "-C", "c", sample.path("qrels.adhoc.txt.gz"))[0] == 0
    runs = {sample.run_name(p): p for p in sample.run_paths()}
    for folder, run in (("a", "sim01"), ("b", "sim02")):
        (tmp_path / folder).mkdir()
        shutil.copyfile(runs[run], tmp_path / folder / "run.txt.gz")
    status, output = cli("--db", db, "load", "run", "-C", "c", "--run-names", "file", runs["indri-ql"],
                         runs["indri-rm"], tmp_path / "a" / "run.txt.gz", tmp_path / "b" / "run.txt.gz")
    assert status == 0, output
    con = pyeval.connect(db, read_only=True)
    assert [r[0] for r in con.execute("select run_id from runs order by run_id").fetchall()] == [
        "a", "b", "indri-ql", "indri-rm"]
    con.close()
    status, output = cli("--db", db, "load", "run", "-C", "c", "--run-names", "file", "--name", "x", runs["sim03"])
    assert status == 2 and "--name and --run-names file" in output
    status, output = cli("--db", db, "load", "run", "-C", "c", runs["sim03"], runs["sim04"])
    assert status == 0 and "'sim03'" in output  # tag, the default: unchanged
