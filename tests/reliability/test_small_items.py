"""Smaller guarantees of the command line (docs/reliability.md, "Smaller guarantees"): empty
campaign names, ``evaluate --no-store`` without write access, no empty warehouse left by a
mistyped ``--db``, and upgrades on read-only opens said on stderr."""
from __future__ import annotations

import subprocess
import sys

import duckdb
import pytest

from .helpers import QRELS, RUN, cli, digest, one_line_error, warehouse


@pytest.mark.parametrize("args", [
    ["load", "qrels", "-C", "", QRELS],
    ["load", "run", "-C", " ", RUN],
    ["evaluate", "-C", "", "-m", "AP"],
    ["gains", "-C", "", "g", "1:2"],
])
def test_an_empty_campaign_name_is_refused(tmp_path, args):
    db = tmp_path / "w.duckdb"
    status, output = cli("--db", db, *args)
    assert status == 2 and "must not be empty" in output
    assert not db.exists()


@pytest.mark.parametrize("args", [
    ["evaluate", "-C", "c", "-m", "AP"],
    ["evaluate", "-C", "c", "-m", "AP", "--no-store"],
    ["gains", "-C", "c", "g", "1:2"],
    ["annotate", "-C", "c", "--team", "t", "a"],
    ["significance", "-C", "c", "-m", "AP"],
    ["to-traditional", "c", "d"],
])
def test_a_mistyped_db_leaves_no_file_behind(tmp_path, args):
    warehouse(tmp_path / "w.duckdb")
    typo = tmp_path / "w.dukdb"
    status, output = cli("--db", typo, *args)
    assert status == 1 and "no such warehouse" in one_line_error(output)
    assert not typo.exists()


HOLD_READ_ONLY = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
print("holding", flush=True)
time.sleep(60)
"""


def test_evaluate_no_store_needs_no_write_access(tmp_path):
    db = warehouse(tmp_path / "w.duckdb")
    before = digest(db)
    # another process reads the file: nobody may write it meanwhile
    holder = subprocess.Popen([sys.executable, "-c", HOLD_READ_ONLY, str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        status, output = cli("--db", db, "evaluate", "-C", "c", "-m", "AP", "-m", "P@10", "--no-store")
        assert status == 0, output
        assert "0.1785" in output
        status, output = cli("--db", db, "evaluate", "-C", "c", "-m", "AP")
        assert status == 1 and "lock" in one_line_error(output).lower()
    finally:
        holder.kill()
        holder.wait()
    assert digest(db) == before


def test_an_upgrade_on_a_read_only_open_is_said_on_stderr(tmp_path):
    db = warehouse(tmp_path / "w.duckdb")
    con = duckdb.connect(str(db))
    # as if made by a pyeval with other views (derived_objects records what each was made from)
    con.execute("update pyeval_internal.derived_objects set sha256 = 'other' where object_name = 'scores'")
    con.close()
    status, output = cli("--db", db, "list")
    assert status == 0
    assert "warning:" in output and "made by an older pyeval; upgrading it (its views)" in output
    status, output = cli("--db", db, "list")
    assert "warning:" not in output  # upgraded once


def test_a_nul_byte_is_refused_with_its_line_in_files_and_frames(tmp_path):
    import pandas as pd

    import pyeval

    run = tmp_path / "run.txt"
    run.write_bytes(b"301 Q0 d1 1 2.5 A\n301 Q0 d\x002 2 1.5 A\n")
    con = pyeval.connect()
    pyeval.load_qrels(con, "c", QRELS)
    before = con.execute("select count(*) from run_entries").fetchall()
    with pytest.raises(pyeval.InputFormatError, match=rf"^{run}:2: holds a NUL byte"):
        pyeval.load_run(con, "c", run)
    frame = pd.DataFrame({"query_id": ["301", "301"], "doc_id": ["d1", "d\x002"], "score": [2.0, 1.0]})
    with pytest.raises(pyeval.InputFormatError, match=r"^<DataFrame>:2: holds a NUL byte"):
        pyeval.load_run(con, "c", frame)
    assert con.execute("select count(*) from run_entries").fetchall() == before


def test_a_line_longer_than_the_read_block_keeps_its_line_number(tmp_path):
    import pyeval

    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"301 0 d1 1\n301 0 d2 0\n" + b"x" * (40 << 20) + b"\n302 0 d1 1\n")
    con = pyeval.connect()
    with pytest.raises(pyeval.InputFormatError, match=rf"^{qrels}:3: expected 4 fields"):
        pyeval.load_qrels(con, "c", qrels)
    assert con.execute("select count(*) from qrels").fetchall() == [(0,)]
