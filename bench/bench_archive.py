"""Archive queries as the archive grows: whole-archive aggregates over the views scores, run_means
and monthly_means against the same aggregates over stored copies of the rows they show, the
definitions before migration 0015 (which regrouped the whole history at every query), one-campaign
queries, and the cost of keeping the stored current values (pyeval/core/archive.py).

The archive: one seed campaign made by pyeval itself (bench/common.py generate_campaign: runs of
``--runs`` x ``--topics`` x ``--docs``, loaded with the public loaders and evaluated three times
through ``pyeval.evaluate``: ten measures; again after run0000 was re-loaded with other content,
so its first values are stale; AP and nDCG@10 again for half of the runs), whose stored rows
(campaigns, runs, campaign inputs, judgment sets, evaluations and their inputs, measures,
per-topic values, means) are then copied under new campaign names up to ``--campaigns``: each
copy with its own evaluation ids and times, run dates 11 days apart per campaign (so
monthly_means spans years) and systems drawn from 30 names. Run entries and qrels are not copied:
no view timed here reads them. The stored current values are then rebuilt (what the upgrade to
migration 0015 does) and the queries timed: median of ``--repeats`` executions, wall and process
CPU time, in one process.

    python bench/bench_archive.py --campaigns 40 400 --out bench/results/archive.json
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, generate_campaign

sys.path.insert(0, str(REPO))

import pyeval  # noqa: E402
from pyeval.core import archive  # noqa: E402
from pyeval.core import sqlfiles

MEASURES = ["AP", "nDCG@10", "nDCG", "P@5", "P@10", "P@20", "Rprec", "RR", "Bpref", "R@100"]
SEED = "seed"
#: The tables an evaluation and a load write that the timed views read (copied per campaign).
COPIED = ("campaigns", "runs", "campaign_inputs", "judgment_sets", "evaluations", "evaluation_inputs",
          "evaluation_measures", "topic_scores", "evaluation_means")

#: scores and run_means as defined before migration 0015 (regrouping the history at each query).
OLD_SCORES = ("select campaign_id, run_id, topic_id, measure, value, evaluation_id, evaluated_at, judgment_set "
              "from score_history where is_latest")
OLD_RUN_MEANS = (REPO / "tests" / "test_current_scores.py").read_text(encoding="utf-8").split(
    'OLD_RUN_MEANS = """')[1].split('"""')[0]

#: (name, aggregate with {rows} for the relation, the relation in the view, its stored copy, before 0015)
WHOLE_ARCHIVE = [
    ("scores: count(*), avg(value)", "select count(*), avg(value) from {rows}",
     "scores", "stored_scores", f"({OLD_SCORES})"),
    ("scores: avg(value) by judgment_set, measure", "select judgment_set, measure, avg(value), count(*) from {rows} "
     "group by all", "scores", "stored_scores", f"({OLD_SCORES})"),
    ("run_means: avg(value) by system, measure", "select system, measure, avg(value), count(*) from {rows} "
     "group by all", "run_means", "stored_run_means", "old_run_means"),
    ("monthly_means: count(*), avg(mean_value)", "select count(*), avg(mean_value) from ({monthly})",
     "run_means", "stored_run_means", "old_run_means"),
]

ONE_CAMPAIGN = [
    ("leaderboard of one campaign, AP",
     "select * from leaderboard where campaign_id = 'c0001' and measure = 'AP'"),
    ("scores of one run", "select * from scores where campaign_id = 'c0001' and run_id = 'run0003'"),
    ("run_means of one campaign", "select * from run_means where campaign_id = 'c0001'"),
]


def timed(call, repeats: int) -> dict:
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return {"wall_ms": round(statistics.median(walls) * 1000, 2), "cpu_ms": round(statistics.median(cpus) * 1000, 2)}


def same(rows: list[tuple], others: list[tuple]) -> bool:
    """The same rows (in any order), floats equal to 1e-9 relative (sums in another order)."""
    def close(a, b):
        return math.isclose(a, b, rel_tol=1e-9) if isinstance(a, float) and isinstance(b, float) else a == b
    return len(rows) == len(others) and all(
        len(r) == len(o) and all(close(a, b) for a, b in zip(r, o))
        for r, o in zip(sorted(rows, key=repr), sorted(others, key=repr)))


def query(con, sql: str):
    return lambda: con.execute(sql).fetchall()


def seed_campaign(con, work: Path, runs: int, topics: int, docs: int) -> dict:
    """Load and evaluate the seed campaign with the public API; how long each step took."""
    data = generate_campaign(work / "seed", runs, topics, docs, seed=30)
    names = [Path(f).stem for f in data["run_files"]]
    took = {}
    start = time.perf_counter()
    pyeval.load_qrels(con, SEED, data["qrels_file"])
    pyeval.load_runs(con, SEED, data["run_files"], names=names)
    took["load_s"] = time.perf_counter() - start
    start = time.perf_counter()
    pyeval.evaluate(con, SEED, MEASURES)
    pyeval.load_run(con, SEED, data["run_files"][1], name=names[0], replace=True)  # run0000's values turn stale
    pyeval.evaluate(con, SEED, MEASURES)
    pyeval.evaluate(con, SEED, ["AP", "nDCG@10"], runs=names[: runs // 2])
    took["evaluate_s"] = time.perf_counter() - start
    return {**{k: round(v, 2) for k, v in took.items()}, "runs": runs, "topics": topics, "docs": docs,
            "files": data}


def copy_campaigns(con, campaigns: int) -> None:
    """Copy the seed campaign's stored rows to campaigns c0001.. (in one transaction)."""
    evaluations = con.execute("select max(evaluation_id) from evaluations").fetchone()[0]
    con.execute("create or replace temp table copies as select k, printf('c%04d', k) as campaign_id "
                "from range(1, $n + 1) as t(k)", {"n": campaigns})
    con.begin()
    for table in COPIED:  # bench's own constants
        columns = [c for c, in con.execute(
            "select column_name from duckdb_columns() where table_name = $t and schema_name = 'main' "
            "order by column_index", {"t": table}).fetchall()]
        chosen = []
        for column in columns:
            if column == "campaign_id":
                chosen.append("copies.campaign_id")
            elif column == "evaluation_id":
                chosen.append(f"t.evaluation_id + copies.k * {evaluations}")
            elif table == "evaluations" and column == "created_at":
                chosen.append("t.created_at + to_minutes(copies.k)")
            elif table == "runs" and column == "run_date":
                chosen.append("date '2012-01-01' + cast(copies.k * 11 + hash(t.run_id) % 9 as integer)")
            elif table == "runs" and column == "system":
                chosen.append("'system' || ((copies.k * 7 + hash(t.run_id)) % 30)")
            elif table == "runs" and column == "team":
                chosen.append("'team' || ((copies.k * 7 + hash(t.run_id)) % 10)")
            else:
                chosen.append(f"t.{column}")
        seed_rows = f"where t.campaign_id = '{SEED}'" if "campaign_id" in columns else ""  # else all are seed's
        con.execute(f"insert into {table} ({', '.join(columns)}) select {', '.join(chosen)} "
                    f"from {table} as t cross join copies {seed_rows}")
    con.commit()
    con.execute("checkpoint")


def measure_scale(work: Path, campaigns: int, args) -> dict:
    path = work / f"archive_{campaigns}.duckdb"
    if path.exists():
        path.unlink()
    con = pyeval.connect(path)
    result: dict = {"campaigns": campaigns}
    result["seed"] = seed_campaign(con, work, args.runs, args.topics, args.docs)
    start = time.perf_counter()
    copy_campaigns(con, campaigns - 1)
    result["copy_s"] = round(time.perf_counter() - start, 2)
    start = time.perf_counter()
    con.begin()
    archive.rebuild(con)  # the upgrade's backfill
    con.commit()
    result["rebuild_s"] = round(time.perf_counter() - start, 2)
    counts = con.execute(
        "select (select count(*) from topic_scores), (select count(*) from current_scores), "
        "(select count(*) from evaluation_means), (select count(*) from current_means), "
        "(select count(*) from evaluations), (select count(*) from runs)").fetchone()
    result["rows"] = dict(zip(["topic_scores", "current_scores", "evaluation_means", "current_means",
                               "evaluations", "runs"], counts))
    con.execute("create table stored_scores as select * from scores")
    con.execute("create table stored_run_means as select * from run_means")
    con.execute(f"create temp view old_run_means as {OLD_RUN_MEANS}")
    monthly = sqlfiles.view_sql("monthly_means")
    rows = {}
    for name, aggregate, view, stored, old in WHOLE_ARCHIVE:
        def sql(relation: str) -> str:
            if "{monthly}" in aggregate:
                return aggregate.format(monthly=monthly.replace("from run_means\n", f"from {relation} as run_means\n"))
            return aggregate.format(rows=relation)
        if "{monthly}" in aggregate:
            view_sql = aggregate.format(monthly="select * from monthly_means")
        else:
            view_sql = sql(view)
        assert same(con.execute(view_sql).fetchall(), con.execute(sql(stored)).fetchall()), name
        assert same(con.execute(view_sql).fetchall(), con.execute(sql(old)).fetchall()), name
        con.execute(view_sql).fetchall()  # warm
        rows[name] = {
            "view": timed(query(con, view_sql), args.repeats),
            "stored": timed(query(con, sql(stored)), args.repeats),
            "before_0015": timed(query(con, sql(old)), 1 if campaigns > 100 else args.repeats),
        }
    result["whole_archive"] = rows
    result["one_campaign"] = {name: timed(query(con, sql), args.repeats) for name, sql in ONE_CAMPAIGN}
    # keeping the stored values: a campaign recomputed (a re-loaded run), an evaluation recorded
    last = con.execute("select max(evaluation_id) from evaluations where campaign_id = 'c0001'").fetchone()[0]

    def rolled_back(call):
        def run():
            con.begin()
            call()
            con.rollback()
        return run
    result["maintenance"] = {
        "refresh one campaign (a load that makes values stale)":
            timed(rolled_back(lambda: archive.refresh(con, "c0001")), args.repeats),
        "record one evaluation (its keys replaced)":
            timed(rolled_back(lambda: archive.record_evaluation(con, last)), args.repeats),
    }
    names = [f"run{r:04d}" for r in range(2, 4)]
    result["maintenance"]["pyeval.evaluate AP, P@10 of 2 seed runs, stored"] = timed(
        lambda: pyeval.evaluate(con, SEED, ["AP", "P@10"], runs=names), args.repeats)
    kept = archive.record_evaluation
    archive.record_evaluation = lambda con, evaluation_id: None
    try:
        result["maintenance"]["the same without keeping current values"] = timed(
            lambda: pyeval.evaluate(con, SEED, ["AP", "P@10"], runs=names), args.repeats)
    finally:
        archive.record_evaluation = kept
    con.close()
    result["file_mb"] = round(path.stat().st_size / 1e6, 1)
    path.unlink()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--campaigns", type=int, nargs="+", default=[40, 400])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = {"load_average_before": os.getloadavg(), "scales": []}
    with tempfile.TemporaryDirectory(prefix="bench_archive_") as tmp:
        for campaigns in args.campaigns:
            scale = measure_scale(Path(tmp), campaigns, args)
            scale["load_average"] = os.getloadavg()
            results["scales"].append(scale)
            print(json.dumps({k: v for k, v in scale.items() if k != "seed"}, indent=1), flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
