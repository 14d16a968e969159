"""`load campaign` on folders as TREC and NTCIR organisers ship them (pyeval/loaders/campaign.py,
docs/loading.md "Loading a campaign folder"): topics beside ad hoc qrels give titles, run files
of one name in different folders take their folders' names, what is not a run is skipped with the
reason, hidden folders are not read, a refused load leaves no warehouse file, and ``--dry-run``
lists what a load would store."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main
from pyeval.loaders.campaign import campaign_folder

from ..conftest import FIXTURES

SAMPLE = FIXTURES.parent.parent / "pyeval" / "sample"
NTCIR = FIXTURES / "ntcireval"


@pytest.fixture
def trec_folder(tmp_path) -> Path:
    """The TREC Web 2012 layout: ad hoc qrels, full-topics.xml, submissions as input.TAG.gz, the
    baselines as runs/ql/results-cata-filtered.txt.gz and runs/rm/..., notes, a hidden folder, a
    FIFO and a dangling link among the runs."""
    folder = tmp_path / "web2012"
    (folder / "runs" / "ql").mkdir(parents=True)
    (folder / "runs" / "rm").mkdir()
    (folder / "runs" / ".svn").mkdir()
    shutil.copy(SAMPLE / "qrels.adhoc.txt.gz", folder / "qrels.adhoc.txt.gz")
    shutil.copy(SAMPLE / "full-topics.xml", folder / "full-topics.xml")
    shutil.copy(SAMPLE / "runs" / "indri-ql.txt.gz", folder / "runs" / "ql" / "results-cata-filtered.txt.gz")
    shutil.copy(SAMPLE / "runs" / "indri-rm.txt.gz", folder / "runs" / "rm" / "results-cata-filtered.txt.gz")
    shutil.copy(SAMPLE / "runs" / "sim01.txt.gz", folder / "runs" / "input.sim01.gz")
    shutil.copy(SAMPLE / "runs" / "sim02.txt.gz", folder / "runs" / ".svn" / "input.sim02.gz")
    (folder / "runs" / "NOTES.md").write_text("# Runs\n\nql and rm are the Indri baselines.\n")
    (folder / "runs" / "gone.gz").symlink_to(folder / "runs" / "no-such-file.gz")
    os.mkfifo(folder / "runs" / "pipe")
    return folder


def test_trec_layout_loads_titles_folder_names_and_skips_what_is_not_a_run(tmp_path, trec_folder):
    con = pyeval.connect(tmp_path / "w.duckdb")
    report = pyeval.load_campaign(con, trec_folder, run_names="file")
    runs = {r.name for r in report.reports if r.kind == "run"}
    assert runs == {"ql", "rm", "sim01"}
    assert con.execute("select count(*) from topic_texts where campaign_id = 'web2012'").fetchone()[0] == 50
    assert con.execute("select title from topic_texts where topic_id = '151'").fetchone() == ("403b",)
    skipped = {entry.path.name: entry.reason for entry in report.skipped}
    assert set(skipped) == {"NOTES.md", "gone.gz", "pipe"}
    assert "not a run" in skipped["NOTES.md"] and "dangling link" in skipped["gone.gz"]
    assert "FIFO" in skipped["pipe"]
    summary = report.summary()
    assert "skipped " + str(trec_folder / "runs" / "NOTES.md") + " (not a run" in summary
    assert ".svn" not in summary and "sim02" not in str(runs)
    assert con.execute("select qrels_kind from campaigns").fetchone() == ("adhoc",)


def test_run_tags_name_runs_and_a_shared_tag_asks_for_file_names(tmp_path, trec_folder):
    con = pyeval.connect(tmp_path / "w.duckdb")
    with pytest.raises(pyeval.DataIntegrityError, match="run_names='file'"):
        pyeval.load_campaign(con, trec_folder)  # ql and rm are both tagged indri
    assert con.execute("select count(*) from campaigns").fetchone() == (0,)


def test_dry_run_lists_what_would_be_loaded_and_writes_nothing(tmp_path, trec_folder):
    db = tmp_path / "w.duckdb"
    result = CliRunner().invoke(main, ["--db", str(db), "load", "campaign", "--dry-run", "--run-names", "file",
                                       str(trec_folder)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"web2012: would load qrels {trec_folder / 'qrels.adhoc.txt.gz'}"
    assert f"web2012: would load topics {trec_folder / 'full-topics.xml'}" in lines
    assert f"web2012: would load run ql from {trec_folder / 'runs' / 'ql' / 'results-cata-filtered.txt.gz'}" in lines
    assert f"web2012: would load run rm from {trec_folder / 'runs' / 'rm' / 'results-cata-filtered.txt.gz'}" in lines
    assert any(line.startswith("web2012: skipped ") and "NOTES.md" in line for line in lines)
    assert not db.exists()
    tags = CliRunner().invoke(main, ["--db", str(db), "load", "campaign", "--dry-run", str(trec_folder)])
    assert "web2012: would load run indri from" in tags.output and "would load run sim01 from" in tags.output


def test_a_refused_load_leaves_no_new_warehouse_behind(tmp_path, trec_folder):
    db = tmp_path / "new.duckdb"
    result = CliRunner().invoke(main, ["--db", str(db), "load", "campaign", str(trec_folder)])
    assert result.exit_code == 1 and "--run-names file" in result.output
    assert not db.exists() and not Path(str(db) + ".wal").exists()
    existing = tmp_path / "old.duckdb"
    pyeval.connect(existing).close()
    result = CliRunner().invoke(main, ["--db", str(existing), "load", "campaign", str(trec_folder)])
    assert result.exit_code == 1 and existing.exists()  # not ours to remove: it was there before


def test_ntcir_layout_loads_dqrels_iprob_and_runs_without_suffix(tmp_path):
    folder = tmp_path / "ntcir-intent"
    (folder / "runs").mkdir(parents=True)
    shutil.copy(NTCIR / "Dtest.Dqrels", folder / "Dtest.Dqrels")
    shutil.copy(NTCIR / "Dtest.Iprob", folder / "Dtest.Iprob")
    shutil.copy(NTCIR / "TRECRUN", folder / "runs" / "TEAM-D-E-1")
    (folder / "runs" / "README").write_text("Runs of the TEAM team.\n")
    con = pyeval.connect(tmp_path / "w.duckdb")
    report = pyeval.load_campaign(con, folder)
    assert [r.kind for r in report.reports] == ["qrels", "intents", "run"]
    assert [(s.path.name, s.reason) for s in report.skipped] == [
        ("README", "not a run: its first line is not 'topic Q0 docno rank score tag'")]
    assert con.execute("select qrels_kind from campaigns").fetchone() == ("diversity",)
    assert con.execute("select run_id from runs").fetchall() == [("TRECRUN",)]


def test_a_folder_of_nothing_but_notes_is_refused_naming_them(tmp_path):
    folder = tmp_path / "c"
    (folder / "runs").mkdir(parents=True)
    shutil.copy(SAMPLE / "qrels.adhoc.txt.gz", folder)
    (folder / "runs" / "NOTES.md").write_text("nothing yet\n")
    with pytest.raises(pyeval.InputFormatError, match="no run file in the runs/ folder; skipped .*NOTES.md"):
        campaign_folder(folder)


def test_sample_writes_no_file_through_a_runs_link(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = tmp_path / "sample"
    target.mkdir()
    (target / "runs").symlink_to(elsewhere)
    result = CliRunner().invoke(main, ["sample", str(target)])
    assert result.exit_code == 1 and "is a link to another folder" in result.output
    assert list(elsewhere.iterdir()) == [] and list(target.iterdir()) == [target / "runs"]


def test_a_run_given_as_qrels_and_diversity_qrels_given_to_trec_eval_are_named_for_what_they_are(tmp_path):
    con = pyeval.connect()
    with pytest.raises(pyeval.InputFormatError, match="6 fields is a run's line .*is this a run file"):
        pyeval.load_qrels(con, "c", NTCIR / "TRECRUN")
    qrels = tmp_path / "qrels.diversity.txt"
    qrels.write_text("1 1 d1 1\n1 2 d1 1\n1 2 d2 0\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n")
    result = CliRunner().invoke(main, ["trec_eval", str(qrels), str(run)])
    assert result.exit_code == 4 and "these are diversity qrels: pyeval ndeval reads them" in result.output
