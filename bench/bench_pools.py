"""Pools at campaign scale (issue 27; docs/pools.md): on bench_campaign's generated campaign (100
runs x 50 topics x 1000 documents, common.generate_campaign), 20 teams of 5 runs, time in one
process the CPU (user + system, all threads: the machine is shared, so wall time says little) of

- ``evaluate``: one evaluation of every run with trec_eval's official measures (not stored), the
  reference;
- ``pool build`` at depth 100 of every run; ``pool coverage`` (every run, topic and k);
- ``pool loo``: leave-one-team-out for the 20 teams over the official measures (20 derived
  judgment sets, each team's runs evaluated under its set, plus the official evaluation).

    python bench/bench_pools.py [--runs 100 --topics 50 --docs 1000 --teams 20] [--keep DIR]
                                [--out bench/results/pools.json]

Imports (pyeval, scipy.stats) happen before the timings. Target: build + coverage + loo within 3x the CPU time of the evaluation. Prints a markdown table
and writes JSON (``--out``).
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

SEED = 20260501


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(label: str, step, rows: list[dict]):
    started_cpu, started = cpu(), time.perf_counter()
    value = step()
    rows.append({"step": label, "cpu_s": cpu() - started_cpu, "wall_s": time.perf_counter() - started})
    print(f"{label}: {rows[-1]['cpu_s']:.1f} s CPU, {rows[-1]['wall_s']:.1f} s wall", flush=True)
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--teams", type=int, default=20)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--keep", type=Path, help="Generate into (or reuse) this folder.")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)

    import scipy.stats  # noqa: F401  (imported before any timing: the leave-out's rank correlations use it)

    import pyeval
    from pyeval import pools, warehouse

    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp) / "campaign"
        if not (folder / "qrels.txt").exists():
            common.generate_campaign(folder, args.runs, args.topics, args.docs, SEED)
        files = sorted((folder / "runs").glob("*.txt"))[: args.runs]
        path = (args.keep or Path(tmp)) / "w.duckdb"
        loaded = path.exists()
        con = warehouse.connect(path)
        rows: list[dict] = []
        if loaded:  # --keep: the warehouse of an earlier call, its pool and leave-out sets dropped
            con.execute("delete from qrels where judgment_set <> 'official'")
            con.execute("delete from judgment_sets where judgment_set <> 'official'")
            con.execute("delete from campaign_inputs where judgment_set <> 'official'")
            for table in ("pool_coverage", "pool_leave_out", "pool_leave_out_rankings", "pool_documents",
                          "pool_runs", "pools"):
                con.execute(f"delete from {table}")
        timed("load qrels and runs", lambda: None if loaded else (pyeval.load_qrels(con, "c", folder / "qrels.txt"),
                                                                  pyeval.load_runs(con, "c", files)), rows)
        names = [r for r, in con.execute("select run_id from runs order by run_id").fetchall()]
        per_team = -(-len(names) // args.teams)
        for i, name in enumerate(names):
            con.execute("update runs set team = $t where run_id = $r", {"t": f"team{i // per_team:02d}", "r": name})
        evaluation = timed("evaluate -m official (reference)",
                           lambda: pyeval.evaluate(con, "c", ["official"], store=False), rows)
        documents = timed(f"pool build, depth {args.depth}", lambda: pools.build(con, "c", "p", depth=args.depth), rows)
        coverage = timed("pool coverage", lambda: pools.coverage(con, "c", "p"), rows)
        result = timed(f"pool loo, {args.teams} teams, official measures",
                       lambda: pools.leave_out(con, "c", "p", ["official"]), rows)
        con.close()
    reference = rows[1]["cpu_s"]
    pooled = sum(r["cpu_s"] for r in rows[2:])
    summary = {"runs": args.runs, "topics": args.topics, "docs": args.docs, "teams": args.teams,
               "depth": args.depth, "pool_documents": documents, "coverage_rows": len(coverage),
               "leave_out_rows": len(result.table), "measures": len(evaluation.means["measure"].unique()),
               "steps": rows, "pool_cpu_over_evaluate_cpu": pooled / reference,
               "target_met": pooled <= 3 * reference,
               "machine": common.machine({}), "code": common.code_state()}
    print("\n| step | CPU s | wall s |\n|---|---:|---:|")
    for row in rows:
        print(f"| {row['step']} | {row['cpu_s']:.1f} | {row['wall_s']:.1f} |")
    print(f"\nbuild + coverage + loo: {pooled:.1f} s CPU = {pooled / reference:.2f} x the evaluation "
          f"({'within' if summary['target_met'] else 'over'} the 3x target)")
    if args.out:
        args.out.write_text(json.dumps(summary, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
