"""The Python API (pyeval/interop.py) against ir_measures in one process (issue 30, item 1).

    python bench/bench_api.py [--calls 20] [--topics 50] [--docs 100] [--frame-rows 1000000]
    python bench/bench_api.py --baseline REV [--rounds 3]   # REV's code against HEAD's, in turn

Prints CPU seconds (time.process_time: user + system of this process, so that a loaded machine
moves the figures less than wall time) of:

1. the first ``pyeval.calc_aggregate([AP, nDCG@10, P@10], qrels, run)`` after ``import pyeval``
   (the engine's in-memory warehouse, its views, the qrels and the run loaded, one evaluation);
2. the steady state per call of ``pyeval.calc_aggregate`` and of ``ir_measures.calc_aggregate``
   (its pytrec_eval provider) on the same dicts, calls interleaved, medians; and of pyeval with
   the run as a DataFrame and as ScoredDoc namedtuples, and of ``pyeval.evaluator(...)``;
3. many runs in one statement: ``evaluator.calc_aggregate_many`` of ``--many`` runs (1, 10 and
   100 by default), CPU per run, against ``ir_measures.calc_aggregate`` once per run;
4. loading a ``--frame-rows`` DataFrame run into the engine (Arrow columns, the duplicate
   check, run_insert.sql's ranking) against DuckDB reading the same frame into a table.

With ``--baseline REV`` the script drives itself: it extracts REV's and HEAD's code (git
archive, bench/common.py ``snapshot_code``), then runs, ``--rounds`` times and in turn for each,
this script in a child process (the figures above, as JSON) and a whole process that imports
pyeval and makes ``--calls`` calls (its CPU time from the kernel: ``getrusage`` of the child),
and prints the medians side by side with the load average before and after.

Data: ``--topics`` topics of ``--docs`` scored documents each, qrels of ``--docs`` documents
per topic (levels 0-2), drawn from 300 documents per topic (numpy default_rng(1)).
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


def _cpu(function, calls: int) -> list[float]:
    times = []
    for _ in range(calls):
        started = time.process_time()
        function()
        times.append(time.process_time() - started)
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--frame-rows", type=int, default=1_000_000)
    parser.add_argument("--many", type=lambda text: [int(n) for n in text.split(",")], default=[1, 10, 100],
                        help="numbers of runs evaluated together by calc_aggregate_many (comma-separated; 0: none)")
    parser.add_argument("--many-rounds", type=int, default=3)
    parser.add_argument("--baseline", metavar="REV", help="compare REV's code with HEAD's (child processes)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON line at the end")
    parser.add_argument("--whole-process", action="store_true",
                        help="only import pyeval and make --calls calls (what --baseline times from outside)")
    args = parser.parse_args(argv)
    if args.baseline:
        return _compare(args)

    import numpy as np

    rng = np.random.default_rng(1)
    qrels = {str(q): {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(300, args.docs, replace=False)}
             for q in range(args.topics)}
    run = {str(q): {f"d{d}": float(rng.random()) for d in rng.choice(300, args.docs, replace=False)}
           for q in range(args.topics)}
    if args.whole_process:
        import pyeval
        from ir_measures import AP, P, nDCG

        for _ in range(args.calls):
            pyeval.calc_aggregate([AP, nDCG @ 10, P @ 10], qrels, run)
        return 0
    figures: dict[str, float] = {}

    started = time.process_time()
    import pyeval
    from ir_measures import AP, P, ScoredDoc, nDCG
    measures = [AP, nDCG @ 10, P @ 10]
    imported = time.process_time()
    ours = pyeval.calc_aggregate(measures, qrels, run)
    first = time.process_time() - imported
    print(f"import pyeval (and ir_measures' names): {imported - started:.3f} s CPU; "
          f"first calc_aggregate after it: {first:.3f} s CPU")
    figures["first call s"] = first

    import ir_measures
    theirs = ir_measures.calc_aggregate(measures, qrels, run)
    assert all(abs(ours[m] - theirs[m]) < 1e-12 for m in measures), (ours, theirs)

    import pandas as pd
    frame = pd.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                         columns=["query_id", "doc_id", "score"])
    records = [ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    evaluator = pyeval.evaluator(measures, qrels)
    cases = {
        "ir_measures (pytrec_eval), dicts": lambda: ir_measures.calc_aggregate(measures, qrels, run),
        "pyeval.calc_aggregate, dicts": lambda: pyeval.calc_aggregate(measures, qrels, run),
        "pyeval.calc_aggregate, DataFrame run": lambda: pyeval.calc_aggregate(measures, qrels, frame),
        "pyeval.calc_aggregate, ScoredDoc run": lambda: pyeval.calc_aggregate(measures, qrels, records),
        "pyeval.evaluator(...).calc_aggregate, dicts": lambda: evaluator.calc_aggregate(run),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.calls):  # interleaved
        for name, function in cases.items():
            times[name] += _cpu(function, 1)
    baseline = statistics.median(times["ir_measures (pytrec_eval), dicts"])
    print(f"\nsteady state, {args.topics} topics x {args.docs} docs, [AP, nDCG@10, P@10], "
          f"median of {args.calls} calls (CPU ms; ratio to ir_measures):")
    for name, values in times.items():
        median = statistics.median(values)
        figures[f"{name} ms"] = median * 1000
        print(f"  {name:48s} {median * 1000:8.1f}   {median / baseline:6.1f}x")

    if args.many and args.many != [0] and hasattr(evaluator, "calc_aggregate_many"):
        # many runs in one statement: CPU per run of evaluator.calc_aggregate_many over N runs
        # against ir_measures.calc_aggregate once per run (medians of --many-rounds, interleaved)
        many_runs = [{str(q): {f"d{d}": float(rng.random()) for d in rng.choice(300, args.docs, replace=False)}
                      for q in range(args.topics)} for _ in range(max(args.many))]
        for count in args.many:
            batch = {f"run{i}": r for i, r in enumerate(many_runs[:count])}
            ours_many, theirs_many = [], []
            for _ in range(args.many_rounds):
                ours_many += _cpu(lambda: evaluator.calc_aggregate_many(batch), 1)
                theirs_many += _cpu(lambda: [ir_measures.calc_aggregate(measures, qrels, r) for r in batch.values()], 1)
            per_run, theirs_per_run = statistics.median(ours_many) / count, statistics.median(theirs_many) / count
            figures[f"calc_aggregate_many, {count} runs: per run ms"] = per_run * 1000
            figures[f"ir_measures, {count} runs: per run ms"] = theirs_per_run * 1000
            print(f"  evaluator.calc_aggregate_many, {count:4d} runs: {per_run * 1000:8.1f} ms per run; ir_measures "
                  f"{theirs_per_run * 1000:6.1f} ms per run; {per_run / theirs_per_run:6.1f}x")

    if args.frame_rows:
        from pyeval.interop import engine_for
        n = args.frame_rows
        topics = max(1, n // 1000)
        big = pd.DataFrame({
            "query_id": np.repeat(np.arange(topics), n // topics).astype(str),
            "doc_id": np.char.add("doc", np.arange(n // topics * topics).astype(str)),
            "score": rng.random(n // topics * topics),
        })
        engine, _ = engine_for(qrels)
        import duckdb
        con = duckdb.connect()
        if hasattr(engine, "evaluate_many"):  # runs by name (this code); before it, one run
            load = _cpu(lambda: engine._load({"run": big}, {"run": "<run>"}), 3)
        else:
            load = _cpu(lambda: engine._load(big), 3)
        whole = _cpu(lambda: pyeval.calc_aggregate(measures, qrels, big), 3)
        con.register("big", big)
        duck = _cpu(lambda: con.execute("create or replace table t as select * from big").fetchall(), 3)
        figures.update({"frame load s": statistics.median(load), "frame calc_aggregate s": statistics.median(whole),
                        "DuckDB reading the frame s": statistics.median(duck)})
        print(f"\n{len(big):,}-row DataFrame run: engine load {statistics.median(load):.3f} s CPU, "
              f"calc_aggregate {statistics.median(whole):.3f} s CPU, "
              f"DuckDB reading the frame into a table {statistics.median(duck):.3f} s CPU "
              f"(load {statistics.median(load) / statistics.median(duck):.1f}x, "
              f"calc_aggregate {statistics.median(whole) / statistics.median(duck):.1f}x)")
    if args.json:
        print(json.dumps(figures))
    return 0


def _compare(args) -> int:
    """--baseline: REV's code and HEAD's in turn, each figure's median over the rounds."""
    from common import snapshot_code  # bench/ is on sys.path when run as a script

    loads = [os.getloadavg()]
    figures: dict[str, dict[str, list[float]]] = {"baseline": {}, "head": {}}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"baseline": Path(tmp, "baseline"), "head": Path(tmp, "head")}
        snapshot_code(args.baseline, trees["baseline"])
        snapshot_code("HEAD", trees["head"])
        common = [f"--calls={args.calls}", f"--topics={args.topics}", f"--docs={args.docs}"]
        for _ in range(args.rounds):
            for side, tree in trees.items():
                env = {**os.environ, "PYTHONPATH": str(tree)}
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run([sys.executable, __file__, "--whole-process", *common], env=env, check=True, cwd=tmp)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                figures[side].setdefault(f"whole process, import + {args.calls} calls s", []).append(cpu)
                out = subprocess.run([sys.executable, __file__, "--json", *common, f"--frame-rows={args.frame_rows}",
                                      f"--many={','.join(map(str, args.many))}", f"--many-rounds={args.many_rounds}"],
                                     env=env, check=True, cwd=tmp, stdout=subprocess.PIPE, text=True).stdout
                for name, value in json.loads(out.strip().splitlines()[-1]).items():
                    figures[side].setdefault(name, []).append(value)
    loads.append(os.getloadavg())
    print(f"load average (1, 5, 15 min) before {loads[0]}, after {loads[1]}; medians of {args.rounds} rounds")
    print(f"{'figure':62s} {args.baseline:>12s} {'HEAD':>12s}")
    for name, values in figures["head"].items():
        old = figures["baseline"].get(name)
        old_text = f"{statistics.median(old):12.3f}" if old else f"{'':12s}"
        print(f"{name:62s} {old_text} {statistics.median(values):12.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
