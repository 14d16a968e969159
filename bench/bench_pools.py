"""Pools at campaign scale (issue 27; docs/pools.md), every step a whole `pyeval` process: on
bench_campaign's generated campaign (100 runs x 50 topics x 1000 documents,
common.generate_campaign), runs given 20 teams of 5, time under /usr/bin/time (common.measure:
user + system CPU of the process, wall time, 1-minute load average before it)

- ``evaluate -m official`` (stored, as an organiser runs it): the reference;
- ``pool build --depth 100`` of every run; ``pool coverage`` (every run, topic and k);
- ``pool loo -m official``: leave-one-team-out for the 20 teams over the official measures (its
  official values read from the evaluation just stored, each team with unique judged documents
  evaluated under its derived set);
- once per repetition, ``pool loo -m official`` on a copy without a stored evaluation (it then
  evaluates every run officially as well): the fallback, not part of the target.

Each repetition starts from a copy of one loaded warehouse (qrels, runs, teams: made once, not
timed). Target: build + coverage + loo within 3x the evaluation's CPU time, per repetition and
in medians.

    python bench/bench_pools.py [--runs 100 --topics 50 --docs 1000 --teams 20] [--reps 3]
                                [--keep DIR] [--out bench/results/pools.json]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

SEED = 20260501
REPO = Path(__file__).resolve().parent.parent
STEPS = ("evaluate", "build", "coverage", "loo")


def pyeval(db: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "pyeval.cli", "--db", str(db), *args]


def loaded_warehouse(folder: Path, path: Path, runs: int, teams: int, env: dict) -> None:
    """The campaign's qrels and runs loaded by `pyeval load` and each run given its team (not timed)."""
    files = sorted((folder / "runs").glob("*.txt"))[:runs]
    subprocess.run(pyeval(path, "load", "qrels", "-C", "c", str(folder / "qrels.txt")), check=True, env=env,
                   stdout=subprocess.DEVNULL)
    subprocess.run(pyeval(path, "load", "run", "-C", "c", *map(str, files)), check=True, env=env,
                   stdout=subprocess.DEVNULL)
    import duckdb

    con = duckdb.connect(str(path))
    names = [r for r, in con.execute("select run_id from runs order by run_id").fetchall()]
    per_team = -(-len(names) // teams)
    for i, name in enumerate(names):
        con.execute("update runs set team = $t where run_id = $r", {"t": f"team{i // per_team:02d}", "r": name})
    con.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--teams", type=int, default=20)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="Generate into (or reuse) this folder.")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp) / "campaign"
        if not (folder / "qrels.txt").exists():
            common.generate_campaign(folder, args.runs, args.topics, args.docs, SEED)
        base = folder / f"loaded-{args.runs}-{args.teams}.duckdb"
        if not base.exists():
            loaded_warehouse(folder, base, args.runs, args.teams, env)
        work = Path(tmp) / "w.duckdb"
        commands = {
            "evaluate": pyeval(work, "evaluate", "-C", "c", "-m", "official"),
            "build": pyeval(work, "pool", "build", "-C", "c", "--name", "p", "--depth", str(args.depth)),
            "coverage": pyeval(work, "pool", "coverage", "-C", "c"),
            "loo": pyeval(work, "pool", "loo", "-C", "c", "-m", "official"),
        }
        reps: list[dict] = []
        for rep in range(args.reps):
            shutil.copy(base, work)
            row = {step: common.measure(commands[step], env=env) for step in STEPS}
            shutil.copy(base, work)  # the fallback: no stored evaluation to read the official values from
            subprocess.run(commands["build"], check=True, env=env, stdout=subprocess.DEVNULL)
            row["loo_unevaluated"] = common.measure(commands["loo"], env=env)
            failed = {k: v["error"] for k, v in row.items() if v.get("returncode")}
            if failed:
                raise SystemExit(f"a step failed: {failed}")
            pooled = sum(row[s]["cpu_s"] for s in STEPS[1:])
            row["ratio_cpu"] = pooled / row["evaluate"]["cpu_s"]
            row["ratio_wall"] = sum(row[s]["wall_s"] for s in STEPS[1:]) / row["evaluate"]["wall_s"]
            reps.append(row)
            steps = ", ".join(f"{s} {row[s]['cpu_s']:.2f} s cpu" for s in (*STEPS, "loo_unevaluated"))
            print(f"rep {rep + 1}: {steps}; build + coverage + loo = {row['ratio_cpu']:.2f}x the evaluation "
                  f"(load {row['evaluate']['load1']})", flush=True)

    def med(step: str, key: str) -> float:
        return statistics.median(r[step][key] for r in reps)

    summary = {"runs": args.runs, "topics": args.topics, "docs": args.docs, "teams": args.teams, "depth": args.depth,
               "reps": reps,
               "median": {s: {"cpu_s": med(s, "cpu_s"), "wall_s": med(s, "wall_s")}
                          for s in (*STEPS, "loo_unevaluated")},
               "ratio_cpu_median": statistics.median(r["ratio_cpu"] for r in reps),
               "ratio_cpu_range": [min(r["ratio_cpu"] for r in reps), max(r["ratio_cpu"] for r in reps)],
               "ratio_wall_median": statistics.median(r["ratio_wall"] for r in reps),
               "load1": [r[s]["load1"] for r in reps for s in STEPS],
               "machine": common.machine({}), "code": common.code_state()}
    summary["target_met"] = summary["ratio_cpu_range"][1] <= 3
    print("\n| step (one process each) | CPU s | wall s |\n|---|---:|---:|")
    for step in (*STEPS, "loo_unevaluated"):
        print(f"| {step} | {summary['median'][step]['cpu_s']:.2f} | {summary['median'][step]['wall_s']:.1f} |")
    print(f"\nbuild + coverage + loo: {summary['ratio_cpu_median']:.2f}x the evaluation in CPU (per repetition "
          f"{summary['ratio_cpu_range'][0]:.2f}-{summary['ratio_cpu_range'][1]:.2f}), "
          f"{summary['ratio_wall_median']:.2f}x in wall time; load average {min(summary['load1'])}-"
          f"{max(summary['load1'])}")
    if args.out:
        args.out.write_text(json.dumps(summary, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
