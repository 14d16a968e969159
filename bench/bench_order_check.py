"""Ranks from the file's order at scale (issue 40, item 2; docs/benchmarks.md "Ranks from the
file's order"): the ranking window of sql/loaders/run_insert.sql against one streaming pass that
checks whether a run's lines are already in trec_eval's order, over the same stored table, under
a memory limit, interleaved.

    python bench/bench_order_check.py RUN.parquet [--memory-limit 3GB] [--reps 2] [--work DIR]

RUN.parquet: a run with columns q_id, doc_id, score (bench/bench_scale.py writes them). The run
is first copied into a DuckDB table (timed: what the drop-in's staging costs); then each rep
times the window (row_number over topics, score desc, docno desc: a checksum of the ranks) and
the check (lag over (), which DuckDB streams: topic changes, rising scores, tied docnos out of
order: a count), wall and CPU seconds of this process.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import duckdb

WINDOW = """select sum(hash(topic_id, doc_id, k)) from (select topic_id, doc_id,
  row_number() over (partition by file_index, topic_id order by score desc, doc_id desc) as k from staged)"""
CHECK = """select count(*) filter (where breaks_order) from (select
  (lag(topic_id) over () is distinct from topic_id) or (lag(score) over () < score)
  or (lag(score) over () = score and lag(doc_id) over () < doc_id) as breaks_order from staged)"""


def timed(con: duckdb.DuckDBPyConnection, query: str) -> tuple[float, float, object]:
    cpu, wall = time.process_time(), time.perf_counter()
    result = con.execute(query).fetchall()
    return round(time.perf_counter() - wall, 1), round(time.process_time() - cpu, 1), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path)
    parser.add_argument("--memory-limit", default="3GB")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "pyeval-order-check")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(args.work / "staged.duckdb"))
    con.execute("set memory_limit = $limit", {"limit": args.memory_limit})
    con.execute("set temp_directory = $folder", {"folder": tempfile.mkdtemp(prefix="spill-", dir=args.work)})
    con.execute("set preserve_insertion_order = true")
    con.execute("drop table if exists staged")
    wall, cpu = time.perf_counter(), time.process_time()
    con.execute("create table staged as select 0::integer as file_index, q_id::varchar as topic_id, "
                "doc_id::varchar as doc_id, score::double as score from read_parquet($path)", {"path": str(args.run)})
    print(f"staged: wall {time.perf_counter() - wall:.1f} s, cpu {time.process_time() - cpu:.1f} s", flush=True)
    for rep in range(args.reps):
        for name, query in (("window", WINDOW), ("check", CHECK)):
            wall_s, cpu_s, result = timed(con, query)
            print(f"rep {rep} {name}: wall {wall_s} s, cpu {cpu_s} s, result {result[0][0]}, "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
