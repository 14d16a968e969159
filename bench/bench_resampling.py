"""Benchmark of resampling stage I (issue 7): the speed targets of docs/benchmarks.md.

    python bench/bench_resampling.py                 # all rows, 5 repeats, results/resampling.json
    python bench/bench_resampling.py --repeat 3 --out /tmp/r.json

Rows (score matrices: per-topic values on a 0.01 grid, runs of different mean quality,
numpy default_rng(20240607)):

- bootstrap: paired bootstrap test, B = 1000, 20 runs (190 pairs) x 50 topics; target < 1 s.
  "kernel" = the test on a matrix with the index matrix drawn (pyeval.resampling.stats);
  "warehouse" = pyeval.resampling.significance on stored scores, replicates and results stored.
- tukey: randomised Tukey HSD, B = 5000, 100 runs x 50 topics; target < 5 s. Permutations are
  generated inside the timing (they are regenerated from the seed on every run).
- randomization (B = 100,000 sign flips), t, sign, Wilcoxon over 190 pairs x 50 topics.

Each figure is the median wall time of --repeat runs in this process (the first import of
scipy is excluded by a warm-up call).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from common import git, machine, package_version


def matrix(n: int, m: int, seed: int = 20240607):
    import numpy as np

    rng = np.random.default_rng(seed)
    quality = rng.uniform(0.1, 0.5, m)
    topic = rng.normal(0, 0.15, (n, 1))
    values = np.clip(quality[None, :] + topic + rng.normal(0, 0.15, (n, m)), 0, 1)
    return np.round(values, 2)


def timed(function, repeat: int) -> dict:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return {"median_s": round(statistics.median(times), 4), "min_s": round(min(times), 4),
            "runs_s": [round(t, 4) for t in times]}


def warehouse(n: int, m: int):
    """An in-memory warehouse holding the matrix as stored AP scores of campaign 'bench'."""
    import pandas as pd

    import pyeval

    con = pyeval.connect()
    X = matrix(n, m)
    con.execute("insert into campaigns (campaign_id, qrels_kind) values ('bench', 'adhoc')")
    runs = [f"r{j:03d}" for j in range(m)]
    topics = [f"{t:03d}" for t in range(n)]
    con.execute("insert into runs (campaign_id, run_id, source_file, source_sha256) "
                "select 'bench', unnest($runs), '<bench>', ''", {"runs": runs})
    con.execute("insert into evaluations (evaluation_id, campaign_id, pyeval_version, ordering) "
                "values (1, 'bench', 'bench', 'trec')")
    frame = pd.DataFrame({"run_id": [r for r in runs for _ in topics], "topic_id": topics * m,
                          "value": X.T.ravel()})
    con.register("bench_scores", frame)
    con.execute("insert into topic_scores select 1, 'bench', run_id, topic_id, 'AP', value from bench_scores")
    con.unregister("bench_scores")
    return con


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "resampling.json")
    args = parser.parse_args()

    import numpy as np

    from pyeval.resampling import replicates as rep
    from pyeval.resampling import significance, stats

    rows = {}
    X20 = matrix(50, 20)
    X100 = matrix(50, 100)
    stats.t_test(X20)  # warm-up: imports scipy.stats

    def bootstrap_kernel():
        stats.bootstrap_test(X20, rep.bootstrap_indices(0, 50, 1000))

    def tukey_kernel():
        stats.tukey_hsd(X100, rep.permutation_chunks(0, 50, 100, 5000))

    rows["bootstrap B=1000, 190 pairs x 50 topics (kernel)"] = timed(bootstrap_kernel, args.repeat)
    rows["tukey B=5000, 100 runs x 50 topics (kernel)"] = timed(tukey_kernel, args.repeat)

    def route(m, test, B, store):
        con = warehouse(50, m)

        def call():
            significance(con, "bench", "AP", test, replicates=B, store=store)

        call()  # replicates drawn and stored once; later calls reuse them
        result = timed(call, args.repeat)
        con.close()
        return result

    first = warehouse(50, 20)
    started = time.perf_counter()
    significance(first, "bench", "AP", "bootstrap", replicates=1000)
    rows["bootstrap B=1000, 190 pairs (warehouse, first call: draws and stores the replicates)"] = {
        "median_s": round(time.perf_counter() - started, 4)}
    first.close()
    rows["bootstrap B=1000, 190 pairs (warehouse, stored replicates reused, results stored)"] = route(
        20, "bootstrap", 1000, True)
    rows["tukey B=5000, 100 runs (warehouse, results stored: 4950 pairs)"] = route(100, "tukey", 5000, True)
    rows["randomization B=100000, 190 pairs x 50 topics (kernel)"] = timed(
        lambda: stats.randomisation_test(X20, rep.signflip_draws(0, 50, 100_000)), args.repeat)
    rows["t-test, 190 pairs (kernel)"] = timed(lambda: stats.t_test(X20), args.repeat)
    rows["sign test, 190 pairs (kernel)"] = timed(lambda: stats.sign_test(X20), args.repeat)
    rows["wilcoxon, 190 pairs (kernel)"] = timed(lambda: stats.wilcoxon_test(X20), args.repeat)

    result = {
        "machine": machine({"numpy": np.__version__, "scipy": package_version("scipy"),
                            "duckdb": package_version("duckdb")}),
        "code": (git("rev-parse", "--short", "HEAD") or "").strip() + " + working tree",
        "repeat": args.repeat,
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    width = max(map(len, rows))
    for name, row in rows.items():
        print(f"{name:<{width}}  {row['median_s']:.3f} s" + (f" (min {row['min_s']:.3f})" if "min_s" in row else ""))


if __name__ == "__main__":
    main()
