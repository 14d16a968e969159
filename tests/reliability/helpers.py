"""Shared helpers of the reliability tests: small warehouses, file digests, the CLI."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import duckdb
from click.testing import CliRunner

import pyeval
from pyeval.cli import main

from ..conftest import FIXTURES

QRELS = FIXTURES / "trec_eval" / "qrels.test"
RUN = FIXTURES / "trec_eval" / "results.test"


def digest(path: Path) -> str:
    """sha256 of a file, or of every file under a folder (names and contents)."""
    path = Path(path)
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    h = hashlib.sha256()
    for root, dirs, files in sorted(os.walk(path)):
        for name in sorted(files):
            file = Path(root) / name
            h.update(str(file.relative_to(path)).encode() + b"\0" + file.read_bytes())
    return h.hexdigest()


def warehouse(path: Path, evaluate: bool = True) -> Path:
    """A small warehouse: campaign c, one run, AP stored."""
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a")
    if evaluate:
        pyeval.evaluate(con, "c", ["AP"])
    con.close()
    return path


def foreign_duckdb(path: Path, *tables: str) -> Path:
    """A DuckDB file with tables of someone else (each with one row)."""
    con = duckdb.connect(str(path))
    for table in tables or ("notes",):
        con.execute(f"create table {table} (x varchar)")
        con.execute(f"insert into {table} values ('theirs')")
    con.close()
    return path


def cli(*args) -> tuple[int, str]:
    """Run the pyeval command in-process: (exit status, stdout + stderr)."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def one_line_error(output: str) -> str:
    """The ``Error: ...`` line of a failed command (asserting there is one and no traceback)."""
    lines = [line for line in output.splitlines() if line.startswith("Error: ")]
    assert len(lines) == 1 and "Traceback" not in output, output
    return lines[0]
