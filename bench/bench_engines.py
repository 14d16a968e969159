"""DuckDB vs local Spark (``evaluate --engine spark``) vs Ray (``discpower --engine ray``) on one
generated campaign (issue 10). Figures and the crossover estimate: docs/benchmarks.md.

    python bench/bench_engines.py                        # 100 topics x 40 runs x 1000 docs
    python bench/bench_engines.py --topics 20 --runs 5 --docs 100 --out /tmp/e.json   # a quick look

Data (numpy default_rng(20240607)): per topic 200 judged documents (levels 0-3, p = .55 .25 .15
.05); each run retrieves ``docs`` documents per topic, scores normal(quality + 2 x relevance,
1), so runs differ in quality. Loaded with pyeval.load_run (DataFrames) into one warehouse file.

Rows (wall time, one repeat each: the Spark run is minutes long):
- evaluate, DuckDB: pyeval.evaluate(store=False) of MEASURES;
- evaluate, Spark: the same measures on a local Spark session (local[cores]); session start,
  Parquet export of the campaign and the computation reported separately;
- discpower, numpy vs Ray: bootstrap (B = 1000) over every run pair of 8 stored measures, in
  one process vs one Ray task per shard on a local Ray cluster (``--workers``, default cores);
  cluster start reported separately. Results are checked identical.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from common import git, machine, package_version  # noqa: E402

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "ERR@20", "Q", "Bpref", "Rprec"]


def build(path: Path, topics: int, runs: int, docs: int, seed: int = 20240607) -> dict:
    import numpy as np
    import pandas as pd

    import pyeval

    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    con = pyeval.connect(str(path))
    judged = 200
    levels = rng.choice(4, size=(topics, judged), p=[0.55, 0.25, 0.15, 0.05])
    with tempfile.TemporaryDirectory() as folder:
        qrels = Path(folder) / "qrels.txt"
        with open(qrels, "w") as out:
            for t in range(topics):
                out.writelines(f"{t + 1} 0 d{t + 1}-{j} {levels[t, j]}\n" for j in range(judged))
        pyeval.load_qrels(con, "bench", qrels)
    pool = judged * 10
    for r in range(runs):
        quality = rng.uniform(0.2, 1.5)
        chosen = np.argsort(rng.random((topics, pool)), axis=1)[:, :docs]
        relevance = np.where(chosen < judged, np.take_along_axis(
            np.pad(levels, ((0, 0), (0, pool - judged))), chosen, axis=1), 0)
        scores = rng.normal(quality * relevance, 1.0)
        topic_ids = np.repeat(np.arange(1, topics + 1), docs).astype(str)
        frame = pd.DataFrame({"query_id": topic_ids,
                              "doc_id": [f"d{t}-{j}" for t, j in zip(topic_ids, chosen.ravel())],
                              "score": np.round(scores.ravel(), 4)})
        pyeval.load_run(con, "bench", frame, name=f"run{r:03d}")
    entries = con.sql("select count(*) from run_entries").fetchall()[0][0]
    con.close()
    return {"topics": topics, "runs": runs, "docs": docs, "run_entries": entries,
            "build_seconds": round(time.perf_counter() - started, 2)}


def timed(function, *args, **kwargs):
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return result, round(time.perf_counter() - started, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--skip", default="", help="comma-separated: spark, ray")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "engines.json")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))

    import numpy as np

    import pyeval
    from pyeval.resampling import discriminative_power

    rows = {}
    with tempfile.TemporaryDirectory(prefix="pyeval-bench-engines-") as folder:
        path = Path(folder) / "bench.duckdb"
        data = build(path, args.topics, args.runs, args.docs)
        print("data", data, flush=True)
        con = pyeval.connect(str(path))
        duck, rows["evaluate_duckdb"] = timed(pyeval.evaluate, con, "bench", MEASURES, store=False)
        print("duckdb evaluate", rows["evaluate_duckdb"], flush=True)
        if "spark" not in skip:
            from pyeval.engines import spark

            session, rows["spark_session_start"] = timed(spark.session, args.cores, memory="8g")
            export = Path(folder) / "campaign"
            _, rows["spark_parquet_export"] = timed(spark.export_campaign, con, "bench", export)
            files = {t: [str(p) for p in sorted((export / t).glob("*.parquet"))] for t in spark.TABLES}
            frame, rows["evaluate_spark"] = timed(
                spark.compute, session, con, "bench", [m for t in MEASURES for m in pyeval.core.evaluation.parse_measures(t)],
                runs=sorted(duck.per_topic["run_id"].unique()), files=files)
            merged = duck.per_topic.merge(frame, on=["run_id", "topic_id", "measure"])
            rows["spark_max_difference"] = float((merged["value_x"] - merged["value_y"]).abs().max())
            rows["spark_rows_compared"] = len(merged)
            print("spark", {k: v for k, v in rows.items() if "spark" in k}, flush=True)
            session.stop()
        if "ray" not in skip:
            from pyeval.engines import ray_engine

            pyeval.evaluate(con, "bench", MEASURES)
            single, rows["discpower_numpy"] = timed(discriminative_power, con, "bench", MEASURES, "bootstrap",
                                                    replicates=args.replicates, seed=0, store=False)
            _, rows["ray_cluster_start"] = timed(ray_engine.init, args.workers or args.cores)
            sharded, rows["discpower_ray"] = timed(ray_engine.discriminative_power, con, "bench", MEASURES,
                                                   "bootstrap", replicates=args.replicates, seed=0, store=False,
                                                   workers=args.workers or args.cores)
            rows["ray_identical"] = all(
                single.results[m].pairs.equals(sharded.results[m].pairs) for m in single.results)
            rows["pairs_per_measure"] = int(single.table["total_pairs"].iloc[0])
            print("ray", rows["discpower_numpy"], rows["discpower_ray"], rows["ray_identical"], flush=True)
        con.close()
    versions = {p: package_version(p) for p in ("duckdb", "pyspark", "ray", "sqlglot", "numpy")}
    result = {"benchmark": "engines", "data": data, "measures": MEASURES, "cores": args.cores,
              "replicates": args.replicates, "rows": rows, "machine": machine(versions),
              "git": (git("rev-parse", "--short", "HEAD") or "").strip()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
