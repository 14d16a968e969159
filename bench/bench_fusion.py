"""Benchmark of run fusion (issue 29) against ranx, each side in its own process.

    python bench/bench_fusion.py                      # both tasks, both tools, results/fusion.json
    python bench/bench_fusion.py --repeat 3 --out /tmp/f.json

Tasks (data: numpy default_rng(29); 50 topics, each with a pool of 3000 documents; every run
retrieves 1000 of them, scores normal(10, 2) unrounded; qrels: 200 judged documents per topic
from the pool, levels 0..3):

- fuse10: CombSUM with min-max normalisation of 10 runs, then nDCG@10 of the fused run
  (pyeval: pyeval.fusion.fuse, stored as a derived run, then pyeval.evaluate without storing;
  ranx: fuse(runs, norm="min-max", method="sum") then evaluate(qrels, run, "ndcg@10")).
- grid100: RRF over two runs for k = 1..100, each point evaluated with nDCG@10 (pyeval:
  pyeval.fusion.evaluate_grid, one pass, nothing stored; ranx: 100 fuse + evaluate calls).

Each worker process times with CPU time (user + system of the process, all threads:
resource.getrusage), since the machine may be shared: "task" is the fuse + evaluate part, "process"
the whole worker (imports, reading the files, the task). ranx runs with an empty NUMBA_CACHE_DIR
("cold": its numba compile time included, as a first use pays it) and, with --warm, again with
that cache filled ("warm"). Wall times are reported beside. Figures: docs/benchmarks.md "Run fusion".
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

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TOPICS, POOL, DEPTH, JUDGED, RUNS = 50, 3000, 1000, 200, 10


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def generate(directory: Path) -> None:
    """runs r0..r9 (TREC run files) and qrels.txt in ``directory`` (vectorised, no line loop)."""
    import numpy as np

    rng = np.random.default_rng(29)
    topics = np.repeat(np.arange(TOPICS), DEPTH)
    for run in range(RUNS):
        docs = np.concatenate([rng.choice(POOL, DEPTH, replace=False) for _ in range(TOPICS)])
        scores = rng.normal(10, 2, TOPICS * DEPTH)
        order = np.lexsort((-scores, topics))
        ranks = np.tile(np.arange(1, DEPTH + 1), TOPICS)
        lines = np.char.add(np.char.add(np.char.add(np.char.add(
            topics[order].astype(str), " Q0 d"), docs[order].astype(str)), " "),
            np.char.add(np.char.add(ranks.astype(str), " "), np.char.add(scores[order].astype(str), f" r{run}")))
        (directory / f"r{run}.txt").write_text("\n".join(lines.tolist()) + "\n")
    judged = np.concatenate([rng.choice(POOL, JUDGED, replace=False) for _ in range(TOPICS)])
    levels = rng.choice(4, TOPICS * JUDGED, p=[0.55, 0.25, 0.15, 0.05])
    qtopics = np.repeat(np.arange(TOPICS), JUDGED)
    lines = np.char.add(np.char.add(np.char.add(qtopics.astype(str), " 0 d"), judged.astype(str)),
                        np.char.add(" ", levels.astype(str)))
    (directory / "qrels.txt").write_text("\n".join(lines.tolist()) + "\n")


def worker_pyeval(data: Path, task: str) -> dict:
    sys.path.insert(0, str(REPO))
    import warnings

    import pyeval
    from pyeval import fusion

    con = pyeval.connect()
    pyeval.load_qrels(con, "c", str(data / "qrels.txt"))
    runs = [f"r{i}" for i in range(RUNS if task == "fuse10" else 2)]
    pyeval.load_runs(con, "c", [str(data / f"{r}.txt") for r in runs], names=runs)
    cpu, wall = _cpu(), time.perf_counter()
    if task == "fuse10":
        fusion.fuse(con, "c", runs, "combsum", norm="min-max", name="fused")
        value = float(pyeval.evaluate(con, "c", ["nDCG@10"], runs=["fused"], store=False).means["value"].iloc[0])
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fusion.evaluate_grid(con, "c", fusion.Recipe("rrf", tuple(runs)),
                                          {"k": [float(k) for k in range(1, 101)]}, store=False)
        value = float(result.points["train_mean"].max())
    return {"task_cpu": _cpu() - cpu, "task_wall": time.perf_counter() - wall, "value": value}


def worker_ranx(data: Path, task: str) -> dict:
    import warnings

    warnings.simplefilter("ignore")
    from ranx import Qrels, Run, evaluate, fuse

    qrels = Qrels.from_file(str(data / "qrels.txt"), kind="trec")
    runs = [Run.from_file(str(data / f"r{i}.txt"), kind="trec") for i in range(RUNS if task == "fuse10" else 2)]
    cpu, wall = _cpu(), time.perf_counter()
    if task == "fuse10":
        value = float(evaluate(qrels, fuse(runs, norm="min-max", method="sum"), "ndcg@10"))
    else:
        value = max(float(evaluate(qrels, fuse(runs, method="rrf", params={"k": k}), "ndcg@10"))
                    for k in range(1, 101))
    return {"task_cpu": _cpu() - cpu, "task_wall": time.perf_counter() - wall, "value": value}


def run_worker(tool: str, task: str, data: Path, cache: str | None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    started = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--worker", tool, "--task", task, "--data", str(data)],
                          capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - started
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["process_wall"] = wall
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "fusion.json")
    parser.add_argument("--worker", choices=["pyeval", "ranx"])
    parser.add_argument("--task", choices=["fuse10", "grid100"])
    parser.add_argument("--data", type=Path)
    parser.add_argument("--warm", action="store_true", help="Also time ranx with its numba cache filled.")
    args = parser.parse_args()
    if args.worker:
        result = (worker_pyeval if args.worker == "pyeval" else worker_ranx)(args.data, args.task)
        result["process_cpu"] = _cpu()  # the whole worker since it started: imports, reading, the task
        print(json.dumps(result))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        generate(data)
        warm_cache = Path(tmp) / "numba-warm"
        tools = [("pyeval", None), ("ranx cold", "cold")]
        if args.warm:
            run_worker("ranx", "fuse10", data, str(warm_cache))  # fills the warm cache
            run_worker("ranx", "grid100", data, str(warm_cache))
            tools.append(("ranx warm", str(warm_cache)))
        for task in ("fuse10", "grid100"):
            for tool, cache in tools:
                found = []
                for repeat in range(args.repeat):
                    directory = str(Path(tmp) / f"numba-cold-{task}-{repeat}") if cache == "cold" else cache
                    found.append(run_worker(tool.split()[0], task, data, directory))
                rows.append({
                    "task": task, "tool": tool,
                    **{key: statistics.median(r[key] for r in found)
                       for key in ("task_cpu", "task_wall", "process_cpu", "process_wall")},
                    "value": found[0]["value"],
                })
                print(json.dumps(rows[-1]), flush=True)
    report = {"load_average": os.getloadavg(), "cpus": os.cpu_count(), "python": sys.version.split()[0],
              "data": f"{TOPICS} topics, runs of {DEPTH} documents from a pool of {POOL} per topic, "
                      f"{JUDGED} judged per topic", "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({"load_average": report["load_average"]}))


if __name__ == "__main__":
    main()
