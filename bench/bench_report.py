"""pyeval report on the demo campaign (issue 43's target: the 20 runs' reports in at most 10 s),
whole processes timed from outside, interleaved with a floor (the same interpreter starting
pyeval and opening the warehouse: ``pyeval sql 'select count(*) from run_means'``):

- ``first``: ``pyeval report -C web2012-adhoc -o DIR`` on a fresh copy of the demo warehouse
  (the curve's IPrec@0.0 ... IPrec@1.0 are evaluated and stored first), into a new folder;
- ``again``: the same command into the folder it wrote (nothing to evaluate; every file replaced);
- ``no-pdf``: ``again`` with ``--no-pdf``.

    python bench/bench_report.py [--demo pyeval-demo.duckdb] [--repeats 5]

Without --demo the demo warehouse is built first (``pyeval demo``, minutes). Prints each
case's median wall and CPU time (the child's user + system), and the ratio to the floor's.
docs/benchmarks.md, "Per-run reports (issue 43)", gives the numbers.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CAMPAIGN = "web2012-adhoc"


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", type=Path, help="an existing `pyeval demo` warehouse (copied, never written)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    pyeval = [sys.executable, "-m", "pyeval.cli"]
    with tempfile.TemporaryDirectory(prefix="bench-report-") as folder:
        folder = Path(folder)
        demo = args.demo
        if demo is None:
            demo = folder / "pyeval-demo.duckdb"
            subprocess.run([*pyeval, "demo", "--out", str(demo)], check=True, stdout=subprocess.DEVNULL)
        times: dict[str, list[tuple[float, float]]] = {"floor": [], "first": [], "again": [], "no-pdf": []}
        for repeat in range(args.repeats):
            db = folder / f"copy{repeat}.duckdb"
            shutil.copyfile(demo, db)
            out = folder / f"reports{repeat}"
            report = [*pyeval, "--db", str(db), "report", "-C", CAMPAIGN, "-o", str(out)]
            times["floor"].append(timed([*pyeval, "--db", str(db), "sql", "select count(*) from run_means"]))
            times["first"].append(timed(report))
            times["again"].append(timed(report))
            times["no-pdf"].append(timed([*report, "--no-pdf"]))
            assert len(list(out.glob("run-*.html"))) == 20
            db.unlink()
        floor = statistics.median(w for w, _ in times["floor"])
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
              f"{args.repeats} repeats (median)")
        print("| case | wall s | CPU s | wall / floor |")
        print("|---|---:|---:|---:|")
        for case, values in times.items():
            wall = statistics.median(w for w, _ in values)
            cpu = statistics.median(c for _, c in values)
            print(f"| {case} | {wall:.2f} | {cpu:.2f} | {wall / floor:.1f} |")


if __name__ == "__main__":
    main()
