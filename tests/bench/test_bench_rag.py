"""bench/bench_rag.py generates what it says: files the loaders of generated answers take whole,
and that DuckDB's read_json (its floor) reads line for line."""
from __future__ import annotations

import sys
from pathlib import Path

import duckdb

import pyeval
from pyeval.loaders import load_answers, load_assignments, load_nuggets

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_rag  # noqa: E402


def test_the_generated_files_load_whole_and_the_floor_reads_them(tmp_path):
    paths = bench_rag.generate(tmp_path, runs=3, topics=4, nuggets=5, seed=41)
    con = pyeval.connect()
    load_nuggets(con, "bench", paths["nuggets"])
    load_answers(con, "bench", paths["answers"])
    load_assignments(con, "bench", paths["assignments"])
    assert con.execute("select count(*) from nuggets").fetchall() == [(20,)]
    assert con.execute("select count(*), sum(response_length) from answers").fetchall() == [(12, 12 * 200)]
    assert con.execute("select count(*) from answer_citations").fetchall() == [(12 * 10 * 2,)]
    assert con.execute("select count(*) from nugget_assignments").fetchall() == [(3 * 4 * 5,)]
    floor = duckdb.connect()
    for name, path in paths.items():
        floor.execute(f"create table {name} as select * from read_json(?, format = 'newline_delimited')", [str(path)])
    assert floor.execute("select (select count(*) from nuggets), (select count(*) from answers), "
                         "(select count(*) from assignments)").fetchall() == [(4, 12, 12)]
