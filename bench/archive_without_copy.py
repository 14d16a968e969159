"""What the archive's stored current values save whole-archive queries: each aggregate over
``current_scores`` (the stored copy of the current per-topic values, migration 0015) against the
same aggregate over the same rows found without that copy, in the history.

    python bench/archive_without_copy.py WAREHOUSE [--repeats 5]

WAREHOUSE: an archive made by ``bench/bench_archive.py --results-only --keep DIR`` (DIR/archive_N.duckdb).

``pyeval evaluate`` writes each evaluation's per-topic values twice: into the history
(``topic_scores``) and into the current values (``current_scores``, whose rows of the keys it
wrote it replaces; pyeval/core/archive.py). The second copy costs an evaluation about 50 ms and
part of its checkpoint for 145,000 values (docs/benchmarks.md, "At `88e01d9`"). Without it, the
current values would be found in the history: the rows of ``topic_scores`` whose evaluation is
the one ``current_means`` names for their (campaign, judgment set, run, measure), a join on five
columns. That join is the least such a design reads: keys whose topics came from two evaluations
(an ``--topics intersection`` evaluation after a ``qrels`` one) would need stored rows beside it.

Times, in one process, each query both ways (median of ``--repeats``, wall and process CPU
milliseconds), after checking that both ways give the same number of rows and the same mean of
each (judgment set, measure) to 1e-9 (relative): so, on this archive, both read the same rows.
It imports only duckdb.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

import duckdb

#: The current values found in the history, through the evaluation each key's mean names.
WITHOUT_COPY = """
select topic_scores.campaign_id, topic_scores.judgment_set, topic_scores.run_id, topic_scores.topic_id,
       topic_scores.measure, topic_scores.value
from topic_scores
inner join current_means
    on topic_scores.campaign_id = current_means.campaign_id
    and topic_scores.judgment_set = current_means.judgment_set
    and topic_scores.run_id = current_means.run_id
    and topic_scores.measure = current_means.measure
    and topic_scores.evaluation_id = current_means.evaluation_id
"""

#: name -> aggregate over ``{rows}``: those bench_archive.py times over the view scores.
QUERIES = {
    "count(*), avg(value)": "select count(*), avg(value) from {rows}",
    "avg(value) by judgment_set, measure":
        "select judgment_set, measure, avg(value) from {rows} group by judgment_set, measure order by all",
}


def timed(con: duckdb.DuckDBPyConnection, sql: str, repeats: int) -> tuple[float, float]:
    """Median wall and process CPU milliseconds of ``repeats`` executions of ``sql``."""
    wall, cpu = [], []
    for _ in range(repeats):
        started, clock = time.process_time(), time.perf_counter()
        con.execute(sql).fetchall()
        cpu.append(time.process_time() - started)
        wall.append(time.perf_counter() - clock)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("warehouse")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    con = duckdb.connect(args.warehouse, read_only=True)
    stored, found = "current_scores", f"({WITHOUT_COPY}) as found"
    by_group = QUERIES["avg(value) by judgment_set, measure"]
    expected = con.execute(by_group.format(rows=stored)).fetchall()
    got = con.execute(by_group.format(rows=found)).fetchall()
    counts = [con.execute(f"select count(*) from {rows}").fetchone()[0] for rows in (stored, found)]
    same = counts[0] == counts[1] and len(expected) == len(got) and all(
        a[:2] == b[:2] and math.isclose(a[2], b[2], rel_tol=1e-9) for a, b in zip(expected, got))
    history = con.execute("select count(*) from topic_scores").fetchone()[0]
    print(f"{args.warehouse}: {history:,} stored values (topic_scores), {counts[0]:,} current ones "
          f"(current_scores); without the copy the join finds {counts[1]:,}: "
          f"{'the same rows' if same else 'NOT the same rows'}")
    if not same:
        return 1
    print("| query | over current_scores (wall / CPU ms) | over the history, without the copy | ratio (CPU) |")
    print("|---|---:|---:|---:|")
    for name, sql in QUERIES.items():
        copy_wall, copy_cpu = timed(con, sql.format(rows=stored), args.repeats)
        join_wall, join_cpu = timed(con, sql.format(rows=found), args.repeats)
        print(f"| {name} | {copy_wall:.1f} / {copy_cpu:.1f} | {join_wall:.1f} / {join_cpu:.1f} | "
              f"{join_cpu / copy_cpu:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
