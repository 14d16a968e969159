"""The ndeval diversity suite: pyeval (warehouse, Python driver) against pyndeval (ndeval.c).

    python bench/bench_diversity.py [--topics 500] [--runs 10] [--docs 1000] [--subtopics 2-8]
                                    [--judged 300] [--reps 3] [--out bench/results/diversity.json]

Results and their reading: docs/benchmarks.md, section "Diversity: the ndeval suite".

1. Generates, reproducibly (numpy ``default_rng(SEED)``), in a temporary directory: TREC
   diversity qrels (every judged document of a topic listed for each of its 2..8 subtopics;
   ``--judged`` documents per topic, each relevant to each subtopic with probability 0.12, so
   about half are relevant to something) and ``--runs`` runs of ``--docs`` documents per topic
   (a mix of judged documents, ordered by a noisy relevance score, and unjudged ones; ranks
   1..docs; scores with ties).
2. Loads them into an in-memory warehouse (timed: ``load``) and, for pyndeval, reads them into
   the lists of tuples it takes (timed: ``read``).
3. Times the 21 values ndeval prints (ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG, P-IA, strec at
   5, 10, 20; NRBP, nNRBP, MAP-IA) for every run and topic, all runs in one call:
   - pyeval: ``evaluate(con, campaign, SUITE, ordering=ORDERING, store=False)`` and the same
     with the per-topic values stored (``store=True``); ``--ordering trec`` (default: score
     descending, docno descending, ranked once on load) or ``rank`` (the rank column, ndeval's
     default, ranked at every evaluation);
   - pyndeval: ``pyndeval.ndeval(qrels, run, measures)`` per run. pyndeval sorts by score, then
     docno ascending, so the run is handed over in the same order with score = -position:
     both evaluate the same lists (the sort is part of pyndeval's ``read``, not timed).
   Median of ``--reps`` repetitions in this process; the first pyeval call (imports, view
   compilation) is a warm-up and not counted. A sample of values is compared between the two.
4. Writes JSON (``--out``) and prints a markdown table.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import common

SEED = 20120615
SUITE_NAMES = [f"{m}@{k}" for m in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") for k in (5, 10, 20)] + [
    "NRBP", "nNRBP", "MAP-IA"] + [f"{m}@{k}" for m in ("P-IA", "strec") for k in (5, 10, 20)]


def suite() -> list[str]:
    """pyeval's names for ndeval's 21 columns (ndeval's own values: uniform weights, quirks)."""
    from pyeval.compat.ndeval import NdevalOptions, columns

    return [str(measure) for _, measure in columns(NdevalOptions())]


def generate(directory: Path, topics: int, runs: int, docs: int, judged: int, subtopics: tuple[int, int]) -> dict:
    rng = np.random.default_rng(SEED)
    qrels_path = directory / "qrels.txt"
    n_sub = rng.integers(subtopics[0], subtopics[1] + 1, topics)
    relevance = []  # per topic: [judged, subtopics] bool
    lines = []
    for t in range(topics):
        rel = rng.random((judged, n_sub[t])) < 0.12
        relevance.append(rel)
        doc = np.repeat(np.arange(judged), n_sub[t])
        sub = np.tile(np.arange(1, n_sub[t] + 1), judged)
        level = np.where(rel.ravel(), rng.integers(1, 4, rel.size), 0)
        lines.append("\n".join(f"{t + 1} {s} j{t + 1}-{d:05d} {lv}" for d, s, lv in zip(doc, sub, level)))
    qrels_path.write_text("\n".join(lines) + "\n")
    run_paths = []
    for r in range(runs):
        path = directory / f"run{r:02d}.txt"
        quality = 0.5 + r / max(runs, 1)
        out = []
        for t in range(topics):
            covered = relevance[t].sum(axis=1)
            take = rng.choice(judged, size=min(judged, docs // 2), replace=False)
            unjudged = docs - len(take)
            score = np.concatenate([quality * covered[take] + rng.normal(0, 1, len(take)),
                                    rng.normal(-0.5, 1, unjudged)])
            names = np.concatenate([np.array([f"j{t + 1}-{d:05d}" for d in take]),
                                    np.array([f"u{t + 1}-{r:02d}-{i:05d}" for i in range(unjudged)])])
            score = np.round(score, 2)
            order = np.argsort(-score, kind="stable")
            out.append("\n".join(f"{t + 1} Q0 {names[i]} {k + 1} {score[i]:.2f} run{r:02d}"
                                 for k, i in enumerate(order)))
        path.write_text("\n".join(out) + "\n")
        run_paths.append(path)
    return {"qrels": qrels_path, "runs": run_paths,
            "qrels_lines": int(sum(judged * n for n in n_sub)), "run_lines": topics * docs * runs}


def read_for_pyndeval(qrels_path: Path, run_paths: list[Path], ordering: str):
    qrels = []
    with open(qrels_path) as handle:
        for line in handle:
            topic, subtopic, doc, level = line.split()
            qrels.append((topic, subtopic, doc, int(level)))
    runs = []
    for path in run_paths:
        with open(path) as handle:
            lines = [line.split() for line in handle]
        if ordering == "trec":  # score descending, then docno descending (pyeval's default order)
            lines.sort(key=lambda f: f[2], reverse=True)
            lines.sort(key=lambda f: (f[0], -float(f[4])))
        else:  # the rank column
            lines.sort(key=lambda f: (f[0], int(f[3])))
        position, previous, run = 0, None, []
        for fields in lines:  # pyndeval sorts by score: give it -position
            position = position + 1 if fields[0] == previous else 1
            previous = fields[0]
            run.append((fields[0], fields[2], -float(position)))
        runs.append(run)
    return qrels, runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", type=int, default=500)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=300)
    parser.add_argument("--subtopics", default="2-8")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--ordering", choices=["trec", "rank"], default="trec",
                        help="pyeval's ordering (trec: ranked on load; rank: the rank column, as ndeval)")
    parser.add_argument("--out", type=Path, default=common.REPO / "bench" / "results" / "diversity.json")
    args = parser.parse_args()
    sys.path.insert(0, str(common.REPO))
    import pyeval
    import pyndeval
    from pyeval.core.evaluation import evaluate

    low, high = (int(x) for x in args.subtopics.split("-"))
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        data = generate(Path(tmp), args.topics, args.runs, args.docs, args.judged, (low, high))
        generation = time.perf_counter() - started
        started = time.perf_counter()
        con = pyeval.connect()
        pyeval.load_qrels(con, "div", data["qrels"])
        pyeval.load_runs(con, "div", data["runs"], names=[p.stem for p in data["runs"]])
        load = time.perf_counter() - started
        started = time.perf_counter()
        qrels, runs = read_for_pyndeval(data["qrels"], data["runs"], args.ordering)
        read = time.perf_counter() - started
    measures = suite()
    evaluate(con, "div", measures, ordering=args.ordering, store=False)  # warm-up
    timings = {"pyeval": [], "pyeval_store": [], "pyndeval": []}
    result = oracle = None
    for _ in range(args.reps):
        started = time.perf_counter()
        result = evaluate(con, "div", measures, ordering=args.ordering, store=False)
        timings["pyeval"].append(time.perf_counter() - started)
        started = time.perf_counter()
        evaluate(con, "div", measures, ordering=args.ordering, store=True)
        timings["pyeval_store"].append(time.perf_counter() - started)
        started = time.perf_counter()
        oracle = [pyndeval.ndeval(qrels, run, measures=SUITE_NAMES) for run in runs]
        timings["pyndeval"].append(time.perf_counter() - started)
    # cross-check: every value of the first run, as the same double
    ours = result.per_topic[result.per_topic["run_id"] == "run00"]
    lookup = dict(zip(zip(ours["topic_id"], ours["measure"]), ours["value"]))
    mismatches = sum(
        1 for topic, values in oracle[0].items() for name, measure in zip(SUITE_NAMES, measures)
        if not (values[name] == lookup[(topic, measure)] or (values[name] != values[name] and lookup[(topic, measure)] != lookup[(topic, measure)]))
    )
    medians = {tool: statistics.median(times) for tool, times in timings.items()}
    report = {
        "machine": common.machine({name: common.package_version(name) for name in ("duckdb", "numpy", "pyndeval")},
                                  commit=(common.git("rev-parse", "--short", "HEAD") or "").strip(),
                                  load_average=round(__import__("os").getloadavg()[0], 2)),
        "ordering": args.ordering, "topics": args.topics, "runs": args.runs, "docs_per_topic": args.docs, "judged_per_topic": args.judged,
        "subtopics": args.subtopics, "qrels_lines": data["qrels_lines"], "run_lines": data["run_lines"],
        "generation_s": round(generation, 2), "pyeval_load_s": round(load, 2), "pyndeval_read_s": round(read, 2),
        "times_s": {tool: [round(t, 3) for t in times] for tool, times in timings.items()},
        "median_s": {tool: round(t, 3) for tool, t in medians.items()},
        "speedup_pyndeval_over_pyeval": round(medians["pyndeval"] / medians["pyeval"], 2),
        "values_compared": int(len(oracle[0]) * len(SUITE_NAMES)), "mismatches": mismatches,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"| what | median (s) |\n|---|---:|")
    for tool, seconds in medians.items():
        print(f"| {tool} | {seconds:.3f} |")
    print(f"\nload into the warehouse {load:.2f} s; pyndeval's read {read:.2f} s; "
          f"pyndeval / pyeval = {report['speedup_pyndeval_over_pyeval']}; "
          f"{report['values_compared']} values compared, {mismatches} different")


if __name__ == "__main__":
    main()
