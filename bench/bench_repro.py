"""Benchmark of `pyeval repro` (issue 42) against repro_eval 0.5.0 on the same files, whole processes.

    python bench/bench_repro.py                  # 5 interleaved repetitions, results/repro.json
    python bench/bench_repro.py --repeat 3 --out /tmp/r.json

Data: bench/common.py's generate_campaign (seed 42): 4 runs of 50 topics x 1000 documents (scores on
a 0.001 grid: ties), qrels of 200 judged documents a topic. run0000/run0001 are the original
baseline and advanced runs, run0002/run0003 their "reproductions".

- pyeval: ``pyeval --db W repro -C c --baseline run0000 --advanced run0001 --rep-baseline run0002
  --rep-advanced run0003 -m AP -m nDCG@10 -m P@10``, on a fresh copy W of a warehouse holding the
  qrels and the four runs, not evaluated (so the process evaluates the three measures, reads the
  ranked lists, computes and stores every figure).
- repro_eval: one process: RpdEvaluator on the files with the same three measures, trim(),
  evaluate(), ktu(), rbo(), rmse(), nrmse(), er(), dri(), ttest() (what its README does).
- floor: ``pyeval --version`` (a process that imports pyeval's command line and exits).

Each repetition runs the three processes in turn (interleaved); medians of wall and CPU time are
reported with their ratios. Children run from compiled bytecode (common.installed_bytecode).
Figures: docs/benchmarks.md, "Reproducibility (issue 42)".
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import (generate_campaign, installed_bytecode, machine, measure, median, package_version,  # noqa: E402
                    pyeval_exe, python_command)

MEASURES = ["AP", "nDCG@10", "P@10"]

REPRO_EVAL = r"""
import sys
import ir_measures
from repro_eval.Evaluator import RpdEvaluator
qrels, b, a, b2, a2 = sys.argv[1:6]
rpd = RpdEvaluator(qrels_orig_path=qrels, run_b_orig_path=b, run_a_orig_path=a, run_b_rep_path=b2,
                   run_a_rep_path=a2)
rpd.measures = [ir_measures.parse_measure(m) for m in MEASURES]
rpd.trim()
rpd.evaluate()
figures = [rpd.ktu(), rpd.rbo(), rpd.rmse(), rpd.nrmse(), rpd.er(), rpd.dri(), rpd.ttest()]
print(figures[1])
"""


def template(directory: Path, data: dict) -> Path:
    """A warehouse holding the qrels and the four runs (not evaluated)."""
    import pyeval
    from pyeval.loaders import load_qrels, load_runs

    path = directory / "template.duckdb"
    con = pyeval.connect(path)
    load_qrels(con, "c", data["qrels_file"])
    load_runs(con, "c", data["run_files"], names=[Path(f).stem for f in data["run_files"]])
    con.close()
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "repro.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        bytecode = installed_bytecode(tmp)
        data = generate_campaign(tmp / "data", n_runs=4, n_topics=50, docs=1000, seed=42)
        warehouse = template(tmp, data)
        runs = data["run_files"]
        repro_args = ["repro", "-C", "c", "--baseline", "run0000", "--advanced", "run0001", "--rep-baseline",
                      "run0002", "--rep-advanced", "run0003"] + [x for m in MEASURES for x in ("-m", m)]
        program = f"MEASURES = {MEASURES!r}\n" + REPRO_EVAL
        results: dict[str, list[dict]] = {"pyeval": [], "repro_eval": [], "floor": []}
        for _ in range(args.repeat):
            work = tmp / "work.duckdb"
            shutil.copyfile(warehouse, work)
            results["pyeval"].append(measure([pyeval_exe(), "--db", str(work), *repro_args]))
            work.unlink()
            results["repro_eval"].append(measure(python_command(program, data["qrels_file"], *runs)))
            results["floor"].append(measure([pyeval_exe(), "--version"]))
    failed = {tool: r["error"] for tool, rows in results.items() for r in rows if r.get("error")}
    if failed:
        raise SystemExit(f"a process failed: {failed}")
    summary = {tool: {"wall_s": median(rows, "wall_s"), "cpu_s": median(rows, "cpu_s"),
                      "peak_rss_mb": median(rows, "peak_rss_mb")} for tool, rows in results.items()}
    summary["ratio_wall_pyeval_to_repro_eval"] = round(summary["pyeval"]["wall_s"] / summary["repro_eval"]["wall_s"], 3)
    summary["ratio_cpu_pyeval_to_repro_eval"] = round(summary["pyeval"]["cpu_s"] / summary["repro_eval"]["cpu_s"], 3)
    report = {
        "task": "pyeval repro vs repro_eval RpdEvaluator, 4 runs of 50 topics x 1000 documents, measures "
                + ", ".join(MEASURES),
        "data": {k: data[k] for k in ("seed", "runs", "topics", "docs_per_topic", "qrels_lines", "run_lines")},
        "machine": machine({"repro_eval": package_version("repro-eval"), "duckdb": package_version("duckdb"),
                            "pytrec_eval": package_version("pytrec-eval-terrier")}),
        "bytecode": bytecode["bytecode"],
        "repeat": args.repeat,
        "summary": summary,
        "runs": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
