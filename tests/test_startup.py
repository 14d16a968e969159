"""Lean commands (issue 30): the commands that print rows (``sql``, ``list``, ``url``) and
``--help`` start without pandas, numpy, scipy or matplotlib, and a read-only open writes nothing
and does not rebuild (or even recompute) the measure catalogue."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyeval.storage import warehouse
from pyeval.cli import main

from .conftest import FIXTURES, IMPORTED_BY_DUCKDB

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("pandas", "numpy", "scipy", "matplotlib")

#: Runs the command in a fresh interpreter and prints which heavy modules it imported.
CHILD = """
import json, sys
from pyeval.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
print(json.dumps({"loaded": sorted(m for m in %r if m in sys.modules),
                  "measures": "pyeval.measures" in sys.modules}), file=sys.stderr)
"""


@pytest.fixture(scope="module")
def loaded_db(tmp_path_factory):
    from click.testing import CliRunner

    db = tmp_path_factory.mktemp("startup") / "w.duckdb"
    runner = CliRunner()
    trec = FIXTURES / "trec_eval"
    for args in (["load", "qrels", "-C", "c", trec / "qrels.test"], ["load", "run", "-C", "c", trec / "results.test"]):
        result = runner.invoke(main, ["--db", str(db), *map(str, args)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    return db


def _child_imports(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", CHILD % (HEAVY,), *args], capture_output=True, text=True,
                          env=env, check=True, cwd=REPO)
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("command", [["sql", "select count(*) from run_entries"], ["list"], ["url"], ["--help"],
                                     ["sql", "--help"], ["sql", "select 1", "--format", "csv"],
                                     ["list", "--format", "json"]])
def test_lean_commands_import_no_heavy_module(loaded_db, command):
    found = _child_imports("--db", str(loaded_db), *command)
    assert set(found["loaded"]) - IMPORTED_BY_DUCKDB == set()  # before DuckDB 2.0, its own numpy and pandas
    if command[-1] != "--help":  # the open checks the catalogue by its seal: no measure registry
        assert not found["measures"]


def test_read_only_open_writes_nothing(loaded_db):
    before = hashlib.sha256(loaded_db.read_bytes()).hexdigest(), os.stat(loaded_db).st_mtime_ns
    wal = Path(str(loaded_db) + ".wal")
    for command in (["sql", "select * from scores"], ["list"]):
        _child_imports("--db", str(loaded_db), *command)
    assert (hashlib.sha256(loaded_db.read_bytes()).hexdigest(), os.stat(loaded_db).st_mtime_ns) == before
    assert not wal.exists()


def test_catalogue_seal_trusted_only_for_its_own_sha256(tmp_path):
    con = warehouse.connect(str(tmp_path / "w.duckdb"))
    try:
        assert warehouse.views_current(con)
        seal = con.execute("select sha256 from derived_objects where object_name = $n",
                           {"n": warehouse.CATALOGUE_SEAL}).fetchall()
        assert len(seal) == 1
        con.execute("update derived_objects set sha256 = 'other' where object_name = 'measures'")
        assert not warehouse.views_current(con)  # the seal no longer matches: recomputed, and stale
        con.execute("update derived_objects set sha256 = $s where object_name = 'measures'",
                    {"s": warehouse._catalogue_checksum()})
        assert warehouse.views_current(con)
        con.execute("delete from derived_objects where object_name = $n", {"n": warehouse.CATALOGUE_SEAL})
        assert warehouse.views_current(con)  # no seal: the full comparison
    finally:
        con.close()
    con = warehouse.connect(str(tmp_path / "w.duckdb"))  # a read-write open seals it again
    try:
        assert con.execute("select count(*) from derived_objects where object_name = $n",
                           {"n": warehouse.CATALOGUE_SEAL}).fetchall() == [(1,)]
    finally:
        con.close()
