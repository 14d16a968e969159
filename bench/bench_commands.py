"""Start-up of the command groups (issue 30, item 2): ``python -X importtime`` of one command of
each group of pyeval/cli/, and which heavy modules (pandas, numpy, scipy, matplotlib, pyarrow)
each imports.

    python bench/bench_commands.py [--reps 3]

Builds a small warehouse (tests/fixtures/trec_eval: qrels.test, results.test) in a temporary
directory, then runs each command ``--reps`` times in a fresh interpreter under ``-X importtime``
and prints, per command, the median total import time (the sum of every module's own time, in
ms: what the imports cost, the interpreter's own start-up included) and the heavy modules it
imported. The figures are wall times inside the process: on a loaded machine compare them with
each other, not with another day's. The whole-process comparison of ``pyeval sql`` with a bare
DuckDB process is a paired run of both under /usr/bin/time (docs/benchmarks.md).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TREC = REPO / "tests" / "fixtures" / "trec_eval"
HEAVY = ("pandas", "numpy", "scipy", "matplotlib", "pyarrow")


def commands(db: str) -> dict[str, tuple[str, list[str]]]:
    """Command name -> (its group module in pyeval/cli/, argv after ``python -m pyeval.cli``)."""
    qrels, run = str(TREC / "qrels.test"), str(TREC / "results.test")
    return {
        "--help": ("base", ["--help"]),
        "sql 'select 1'": ("evaluating", ["--db", db, "sql", "select 1"]),
        "list": ("evaluating", ["--db", db, "list"]),
        "evaluate -m AP --no-store": ("evaluating", ["--db", db, "evaluate", "-C", "t", "-m", "AP", "--no-store"]),
        "url": ("sharing", ["--db", db, "url"]),
        "load qrels --help": ("loading", ["load", "qrels", "--help"]),
        "load run (replace)": ("loading", ["--db", db, "load", "run", "-C", "t", "--replace", run]),
        "trec_eval": ("dropins", ["trec_eval", qrels, run]),
        "significance --help": ("metaeval", ["significance", "--help"]),
    }


def import_profile(argv: list[str], env: dict) -> tuple[float, list[str]]:
    """Total own import time (ms) of one run and the heavy top-level modules imported."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "pyeval.cli", *argv], capture_output=True,
                          text=True, env=env, cwd=REPO)
    total, heavy = 0, set()
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, _, name = line[len("import time:"):].split("|", 2)
        try:
            total += int(own)
        except ValueError:
            continue
        if name.strip() in HEAVY:
            heavy.add(name.strip())
    return total / 1000, sorted(heavy)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "w.duckdb")
        for setup in (["load", "qrels", "-C", "t", str(TREC / "qrels.test")],
                      ["load", "run", "-C", "t", str(TREC / "results.test")]):
            subprocess.run([sys.executable, "-m", "pyeval.cli", "--db", db, *setup], check=True, env=env,
                           capture_output=True, cwd=REPO)
        print(f"| command | group (pyeval/cli/) | import time, ms (median of {args.reps}) | heavy modules imported |")
        print("|---|---|---:|---|")
        for name, (group, command) in commands(db).items():
            runs = [import_profile(command, env) for _ in range(args.reps)]
            median = statistics.median(total for total, _ in runs)
            print(f"| `pyeval {name}` | {group} | {median:.0f} | {', '.join(runs[0][1]) or 'none'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
