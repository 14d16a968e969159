"""The run insert's design options, measured apart: what storing 5M ranked run lines costs in
DuckDB under each way of storing them (docs/benchmarks.md, "Design options measured").

    python bench/bench_insert_options.py RUNS_DIR [--reps 3] [--out bench/results/insert_options.json]

RUNS_DIR: a folder of TREC run files (bench_campaign.py --keep DIR writes one: DIR/runs_100).
Every option reads the same rows, staged once in a temporary table, and inserts them in one
transaction into a new warehouse file; each is a fresh process (no cache carried over), and
the figure is the CPU time (user + system, both cores) of the insert and its commit, which
other jobs on the machine disturb less than wall time. Options:

- ``strings``: today's run_insert.sql: docno strings, trec_rank by (score desc, docno desc);
- ``integer_keys``: a per-campaign dictionary of docnos (keys in docno order, so ties break
  as trec_eval's do), filled from the batch, and 8-byte keys in the entries;
- ``no_rank``: the same insert without the trec_rank window;
- ``uncompressed``: ``strings`` with DuckDB's compression off (file size reported);
- ``no_insertion_order``: ``strings`` with ``preserve_insertion_order = false``.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OPTIONS = ("strings", "integer_keys", "no_rank", "uncompressed", "no_insertion_order")

STAGE = """create temp table staged as
select * from read_csv($pattern, delim = ' ', header = false, filename = true,
    columns = {'topic': 'varchar', 'q0': 'varchar', 'doc': 'varchar', 'rank': 'bigint',
               'score': 'double', 'tag': 'varchar'})"""

ENTRIES = """create table run_entries (campaign_id varchar, run_id varchar, topic_id varchar,
    doc_id varchar, rank_given bigint, score double, file_position bigint, trec_rank bigint)"""

INSERT_STRINGS = """insert into run_entries
select 'bench', filename, topic, doc, rank, score, 1,
    row_number() over (partition by filename, topic order by score desc, doc desc)
from staged"""

INSERT_NO_RANK = "insert into run_entries select 'bench', filename, topic, doc, rank, score, 1, 0 from staged"

KEYED = [
    "create table documents (campaign_id varchar, doc_key bigint, doc_id varchar)",
    """create table run_entries_keyed (campaign_id varchar, run_id varchar, topic_id varchar,
        doc_key bigint, rank_given bigint, score double, file_position bigint, trec_rank bigint)""",
]
INSERT_KEYED = [
    """insert into documents
    select 'bench', row_number() over (order by doc), doc from (select distinct doc from staged)""",
    """insert into run_entries_keyed
    select 'bench', staged.filename, staged.topic, documents.doc_key, staged.rank, staged.score, 1,
        row_number() over (partition by staged.filename, staged.topic
                           order by staged.score desc, documents.doc_key desc)
    from staged
    inner join documents on documents.campaign_id = 'bench' and documents.doc_id = staged.doc""",
]


def one(option: str, runs: Path, database: Path) -> dict:
    """Measure one option in this process."""
    import duckdb

    con = duckdb.connect(str(database))
    con.execute("set enable_progress_bar = false")
    con.execute(STAGE, {"pattern": str(runs / "*")})
    con.execute(ENTRIES)
    statements = {"strings": [INSERT_STRINGS], "no_rank": [INSERT_NO_RANK], "uncompressed": [INSERT_STRINGS],
                  "no_insertion_order": [INSERT_STRINGS], "integer_keys": INSERT_KEYED}[option]
    if option == "integer_keys":
        for statement in KEYED:
            con.execute(statement)
    if option == "uncompressed":
        con.execute("set force_compression = 'uncompressed'")
    if option == "no_insertion_order":
        con.execute("set preserve_insertion_order = false")
    before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    con.execute("begin")
    for statement in statements:
        con.execute(statement)
    con.execute("commit")
    con.execute("checkpoint")
    after, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - start
    lines = con.execute("select count(*) from staged").fetchone()[0]
    con.close()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"option": option, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "lines": lines,
            "file_mb": round(database.stat().st_size / 1e6, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", type=Path)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", choices=OPTIONS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(one(args.child, args.runs, Path(tmp) / "w.duckdb")))
        return
    results = []
    for rep in range(args.reps):  # interleaved repetitions, each option in a fresh process
        for option in OPTIONS:
            out = subprocess.run([sys.executable, __file__, str(args.runs), "--child", option],
                                 check=True, capture_output=True, text=True).stdout
            results.append({"rep": rep, "load_average": os.getloadavg()[0], **json.loads(out)})
    print("| option | insert CPU (median) | wall (median) | file |")
    print("|---|---:|---:|---:|")
    for option in OPTIONS:
        rows = [r for r in results if r["option"] == option]
        print(f"| {option} | {statistics.median(r['cpu_s'] for r in rows):.2f} s "
              f"| {statistics.median(r['wall_s'] for r in rows):.2f} s | {rows[0]['file_mb']} MB |")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
