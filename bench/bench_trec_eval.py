"""trec_eval drop-in benchmark: ``pyeval trec_eval`` and the warehouse route against
pytrec_eval, ranx, ir_measures, trec_eval's own C program (when on PATH) and a bare DuckDB read.

    python bench/bench_trec_eval.py [--topics 3000,10000] [--docs 1000] [--reps 3]
                                    [--cold-reps 1] [--out bench/results/trec_eval.json]
                                    [--profile] [--tools pyeval,pytrec_eval,...]
                                    [--code head|worktree|PATH] [--keep]

Results and their reading: docs/benchmarks.md, section "trec_eval drop-in and the warehouse
route". With the defaults it takes about 13 minutes on 2 cores.

What it does:

1. Generates, reproducibly (numpy ``default_rng(SEED + topics)``, vectorised in blocks of
   1000 topics, text built with pyarrow.compute: no Python loop per line), in a temporary
   directory outside the repository:

   - ``run.txt``: topics x docs lines ``topic Q0 docno rank score tag`` (single spaces);
     scores are normal(10, 2) rounded to 3 decimals, so about 50 adjacent pairs per topic of
     1000 are tied (trec_eval breaks ties by docno, descending), ranks 1..docs in score order;
   - ``qrels.txt``: 200 judgments per topic ``topic 0 docno level``, levels 0..3
     (p = .55 .25 .15 .05), 150 of them on documents the run retrieves, 50 on others.

2. Times each tool as a separate whole process (interpreter start-up, imports, parsing,
   computing and printing included) under ``/usr/bin/time -f '%e %M %U %S'``: wall time
   (``time.perf_counter`` around the process), peak RSS (``%M``, the child's ru_maxrss: the
   largest resident set of the process; /usr/bin/time is exec'd first, so the benchmark's
   own memory is not inherited) and user+system CPU. Printed output goes to a small file
   (a few dozen lines), used afterwards to cross-check a few values between tools.
   Repetitions are interleaved (rep 1 of every tool, then rep 2, ...) and the median is
   reported; the 1-minute load average is recorded before each measurement.

   Tools (``--tools`` selects; default all):

   - ``pyeval``       ``pyeval trec_eval QRELS RUN`` (trec_eval's default, "official" set)
   - ``trec_eval_c``  ``trec_eval QRELS RUN``: the binary given by ``--trec-eval`` (default: a
                      ``trec_eval`` on PATH; not measured without one). ``--trec-eval-O2``
                      adds ``trec_eval_c_O2``, a second build (e.g. of the same sources with
                      -O2; trec_eval's own Makefile builds with -g and no optimisation).
                      Each one's output must be byte-identical to pyeval's (``outputs``).
   - ``pytrec_eval``  pytrec_eval.parse_qrel / parse_run, RelevanceEvaluator with the
                      official measures, means with pytrec_eval.compute_aggregated_measure
   - ``ranx``         Qrels.from_file / Run.from_file (kind="trec"), evaluate() with the
                      closest set ranx has (RANX_METRICS); numba JIT: ``ranx`` runs with an
                      empty NUMBA_CACHE_DIR (first use: compilation included; ``--cold-reps``
                      times per size, default 1, as each costs about a minute), and the first
                      such run fills the cache that ``ranx_warm`` then uses
   - ``ir_measures``  calc_aggregate(IR_MEASURES, read_trec_qrels, read_trec_run)
   - ``duckdb_read``  duckdb.connect(); create table ... as select * from read_csv(...) for
                      both files, typed columns (the floor)
   - ``route``        the warehouse route, each step a whole process on a new warehouse file:
                      ``pyeval --db W load qrels``, ``load run``, ``evaluate --no-store`` with
                      the 25 measures of ROUTE_MEASURES, then ``evaluate`` storing the scores
   - start-up references (once, not per size): ``python -c pass``,
     ``python -c "import duckdb"``, ``pyeval --version``

3. With ``--profile``: on the largest size, ``python -X importtime`` of the trec_eval command
   and a cProfile of ``pyeval.compat.trec_eval.run(QRELS, RUN, TrecEvalOptions())``, with every
   SQL statement timed (labelled by the sql/ file it came from).

``--code head`` (default) measures a ``git archive`` snapshot of HEAD, first on every child's
PYTHONPATH (children start in the temporary directory, so ``python -c`` cannot pick up the
work tree through the current directory): work-tree edits made during the run do not mix in.

4. Writes JSON (``--out``) and a markdown table (same path, ``.md``) and prints the table.
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
import time
from pathlib import Path

import common
from common import (CHILD_HEAD, CHILD_TAIL, REPO, child_program, code_state, generate, measure,
                    pyeval_exe, python_command, summary_row)

SEED = 20240911

# trec_eval's default ("official") measures, as pytrec_eval names them.
PYTREC_MEASURES = [
    "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
    "num_q", "num_ret", "num_rel", "num_rel_ret",
]
# The closest ranx 0.3.21 has (no gm_map, interpolated precision, num_q/num_ret/num_rel;
# hits@1000 is num_rel_ret per topic, averaged instead of summed).
RANX_METRICS = [
    "map", "mrr", "r-precision", "bpref",
    *[f"precision@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)],
    "recall@1000", "hits@1000",
]
# ir_measures 0.4.3 (no GMAP); built in the child from these names.
IR_MEASURES = (
    "[AP, Rprec, Bpref, RR]"
    " + [IPrec@r for r in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)]"
    " + [P@k for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]"
    " + [NumQ, NumRet, NumRel, NumRet(rel=1)]"
)
# The warehouse route's 25 measures (trec_eval spellings; counted in main()).
ROUTE_MEASURES = [
    "map", "gm_map", "Rprec", "bpref", "recip_rank",  # 5
    "P.5,10,15,20,30,100,200,500,1000",  # 9 -> 14
    "ndcg", "ndcg_cut.5,10,20",  # 4 -> 18
    "recall.100,1000",  # 2 -> 20
    "infAP", "num_rel_ret",  # 2 -> 22
    "success.1,5,10",  # 3 -> 25
]

# The trec_eval binaries timed (tool -> path), from --trec-eval and --trec-eval-O2.
TREC_EVAL_BINARIES: dict[str, str] = {}

LABELS = {
    "pyeval": "pyeval trec_eval (official set)",
    "trec_eval_c": "trec_eval 10 (C program)",
    "trec_eval_c_O2": "trec_eval 10 (C program, -O2 build)",
    "pytrec_eval": "pytrec_eval (parse_qrel/parse_run + RelevanceEvaluator)",
    "ranx": "ranx (cold: empty numba cache, JIT included)",
    "ranx_warm": "ranx (warm: numba cache filled)",
    "ir_measures": "ir_measures.calc_aggregate",
    "duckdb_read": "bare DuckDB read_csv of both files (floor)",
    "route_load_qrels": "route: pyeval load qrels",
    "route_load_run": "route: pyeval load run",
    "route_evaluate": "route: pyeval evaluate, 25 measures, --no-store",
    "route_evaluate_store": "route: pyeval evaluate, 25 measures, stored",
    "route_total": "route: load qrels + load run + evaluate --no-store (sum)",
    **common.STARTUP_LABELS,
}

# --------------------------------------------------------------------------------------------
# Child programs (python -c TEXT QRELS RUN PHASES): each writes its phase times (seconds since
# the interpreter started running the program) and a few values to PHASES as JSON.
# --------------------------------------------------------------------------------------------

CHILD_PYTREC = CHILD_HEAD + r"""
import pytrec_eval
_mark("import")
with open(QRELS) as f:
    qrels = pytrec_eval.parse_qrel(f)
_mark("parse_qrels")
with open(RUN) as f:
    run = pytrec_eval.parse_run(f)
_mark("parse_run")
evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES))
per_topic = evaluator.evaluate(run)
_mark("evaluate")
names = sorted(next(iter(per_topic.values())))
means = {m: pytrec_eval.compute_aggregated_measure(m, [v[m] for v in per_topic.values()]) for m in names}
for m in names:
    print(f"{m:<22s}\tall\t{means[m]:.4f}")
_mark("print")
_values = {"map": means["map"], "P_10": means["P_10"], "bpref": means["bpref"],
           "recip_rank": means["recip_rank"], "Rprec": means["Rprec"], "gm_map": means["gm_map"],
           "num_rel_ret": means["num_rel_ret"]}
""" + CHILD_TAIL

CHILD_RANX = CHILD_HEAD + r"""
from ranx import Qrels, Run, evaluate
_mark("import")
qrels = Qrels.from_file(QRELS, kind="trec")
_mark("parse_qrels")
run = Run.from_file(RUN, kind="trec")
_mark("parse_run")
means = evaluate(qrels, run, METRICS)
_mark("evaluate")
for m, v in means.items():
    print(f"{m:<22s}\tall\t{v:.4f}")
_mark("print")
_values = {"map": float(means["map"]), "P_10": float(means["precision@10"]),
           "bpref": float(means["bpref"]), "recip_rank": float(means["mrr"]),
           "Rprec": float(means["r-precision"]),
           "num_rel_ret": float(means["hits@1000"]) * len(qrels)}
""" + CHILD_TAIL

CHILD_IR_MEASURES = CHILD_HEAD + r"""
import ir_measures
from ir_measures import AP, Rprec, Bpref, RR, IPrec, P, NumQ, NumRet, NumRel
_mark("import")
measures = eval(MEASURES)
means = ir_measures.calc_aggregate(
    measures, ir_measures.read_trec_qrels(QRELS), ir_measures.read_trec_run(RUN)
)
_mark("evaluate")  # parsing is lazy (generators consumed inside calc_aggregate)
for m in measures:
    print(f"{str(m):<22s}\tall\t{means[m]:.4f}")
_mark("print")
_values = {"map": means[AP], "P_10": means[P@10], "bpref": means[Bpref], "recip_rank": means[RR],
           "Rprec": means[Rprec], "num_rel_ret": means[NumRet(rel=1)]}
""" + CHILD_TAIL

CHILD_DUCKDB = CHILD_HEAD + r"""
import duckdb
_mark("import")
con = duckdb.connect()
def lit(path):
    return "'" + path.replace("'", "''") + "'"
con.execute(
    "create table q as select * from read_csv(" + lit(QRELS) + ", delim=' ', header=false, "
    "columns={'topic': 'VARCHAR', 'iter': 'VARCHAR', 'docno': 'VARCHAR', 'rel': 'INTEGER'})"
)
_mark("read_qrels")
con.execute(
    "create table r as select * from read_csv(" + lit(RUN) + ", delim=' ', header=false, "
    "columns={'topic': 'VARCHAR', 'q0': 'VARCHAR', 'docno': 'VARCHAR', 'rank': 'INTEGER', "
    "'score': 'DOUBLE', 'tag': 'VARCHAR'})"
)
_mark("read_run")
n_q, n_r = con.execute("select (select count(*) from q), (select count(*) from r)").fetchone()
print(n_q, n_r)
con.close()
_mark("close")
_values = {"qrels_rows": n_q, "run_rows": n_r}
""" + CHILD_TAIL

# The profile child: cProfile of trec_eval.run, plus every SQL statement timed.
CHILD_PROFILE = r"""
import cProfile, io, json, pstats, sys, time
QRELS, RUN, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
from pyeval import sqlfiles, warehouse
from pyeval.compat import trec_eval
import_s = time.perf_counter() - t0

last_file = ["(inline SQL)"]
_read = sqlfiles.read
def read(name, *a, **k):
    last_file[0] = name
    return _read(name, *a, **k)
sqlfiles.read = read

sql_times = {}
class TimedConnection:
    # Delegates to a DuckDB connection; times execute() and the fetch that follows it.
    def __init__(self, con):
        self._con = con
        self._label = None
    def _add(self, label, seconds):
        entry = sql_times.setdefault(label, [0.0, 0])
        entry[0] += seconds
        entry[1] += 1
    def execute(self, sql, *args, **kwargs):
        text = sql.strip()
        if text.startswith("create or replace temp table"):
            label = "stage " + text.split()[5]
        elif last_file[0] != "(inline SQL)" and _read(last_file[0]).strip() in text:
            label = last_file[0]
        else:
            label = " ".join(text.split())[:70]
        last_file[0] = "(inline SQL)"
        started = time.perf_counter()
        self._con.execute(sql, *args, **kwargs)
        self._add(label, time.perf_counter() - started)
        self._label = label
        return self
    def _fetch(name):
        def fetch(self, *args, **kwargs):
            started = time.perf_counter()
            result = getattr(self._con, name)(*args, **kwargs)
            self._add((self._label or "?") + " [fetch]", time.perf_counter() - started)
            return result
        return fetch
    df = _fetch("df")
    fetchall = _fetch("fetchall")
    fetchone = _fetch("fetchone")
    fetchnumpy = _fetch("fetchnumpy")
    fetchdf = _fetch("fetchdf")
    arrow = _fetch("arrow")
    def __getattr__(self, name):
        return getattr(self._con, name)

_connect = warehouse.connect
warehouse.connect = lambda *a, **k: TimedConnection(_connect(*a, **k))

profiler = cProfile.Profile()
started = time.perf_counter()
profiler.enable()
text = trec_eval.run(QRELS, RUN, trec_eval.TrecEvalOptions())
profiler.disable()
run_s = time.perf_counter() - started

stats = pstats.Stats(profiler)
buffer = io.StringIO()
stats.stream = buffer
stats.sort_stats("cumulative").print_stats(45)
functions = {}
for (filename, line, name), (cc, nc, tt, ct, callers) in stats.stats.items():
    if "pyeval" in filename or name in ("read_csv", "content_sha256"):
        key = filename.split("pyeval/")[-1] + ":" + name
        functions[key] = {"cumulative_s": round(ct, 4), "self_s": round(tt, 4), "calls": nc}
import pyeval
json.dump({
    "pyeval_imported_from": pyeval.__file__,
    "import_s": round(import_s, 4),
    "run_s": round(run_s, 4),
    "output_lines": text.count("\n"),
    "sql": {k: {"seconds": round(v[0], 4), "calls": v[1]}
            for k, v in sorted(sql_times.items(), key=lambda kv: -kv[1][0])},
    "functions": dict(sorted(functions.items(), key=lambda kv: -kv[1]["cumulative_s"])),
    "cprofile_top": buffer.getvalue(),
}, open(OUT, "w"), indent=1)
"""


# --------------------------------------------------------------------------------------------
# Measuring one whole process
# --------------------------------------------------------------------------------------------


def _route_args() -> list[str]:
    return [item for name in ROUTE_MEASURES for item in ("-m", name)]


def run_tool(tool: str, data: dict, work: Path, rep: int, numba_warm: Path) -> dict:
    """One whole-process measurement of ``tool`` (the route: its four steps)."""
    qrels, run = data["qrels_file"], data["run_file"]
    out = work / f"{tool}.out"
    phases = work / f"{tool}.phases.json"
    if phases.exists():
        phases.unlink()
    env = dict(os.environ)
    if tool == "pyeval":
        return measure([pyeval_exe(), "trec_eval", qrels, run], stdout_path=out)
    if tool in TREC_EVAL_BINARIES:
        return measure([TREC_EVAL_BINARIES[tool], qrels, run], stdout_path=out)
    if tool == "pytrec_eval":
        cmd = python_command(child_program(CHILD_PYTREC, MEASURES=repr(PYTREC_MEASURES)), qrels, run, str(phases))
    elif tool in ("ranx", "ranx_warm"):
        if tool == "ranx" and not any(numba_warm.iterdir()):
            cache = numba_warm  # the first cold run fills the cache that ranx_warm uses
        elif tool == "ranx":
            cache = work / f"numba_cold_{rep}"
            shutil.rmtree(cache, ignore_errors=True)
            cache.mkdir()
        else:
            cache = numba_warm
        env["NUMBA_CACHE_DIR"] = str(cache)
        cmd = python_command(child_program(CHILD_RANX, METRICS=repr(RANX_METRICS)), qrels, run, str(phases))
    elif tool == "ir_measures":
        cmd = python_command(child_program(CHILD_IR_MEASURES, MEASURES=repr(IR_MEASURES)), qrels, run, str(phases))
    elif tool == "duckdb_read":
        cmd = python_command(CHILD_DUCKDB, qrels, run, str(phases))
    elif tool == "route":
        return run_route(data, work)
    else:
        raise ValueError(tool)
    result = measure(cmd, env=env, stdout_path=out)
    if tool == "ranx":
        shutil.rmtree(work / f"numba_cold_{rep}", ignore_errors=True)
    if phases.exists():
        child = json.loads(phases.read_text())
        result["phases"] = child["phases"]
        result["values"] = child["values"]
    return result


def run_route(data: dict, work: Path) -> dict:
    """The warehouse route on a new warehouse file: four whole processes."""
    exe = pyeval_exe()
    db = work / "route.duckdb"
    for leftover in (db, Path(str(db) + ".wal")):
        if leftover.exists():
            leftover.unlink()
    base = [exe, "--db", str(db)]
    steps = {
        "route_load_qrels": base + ["load", "qrels", "--campaign", "c", data["qrels_file"]],
        "route_load_run": base + ["load", "run", "--campaign", "c", "--name", "r", data["run_file"]],
        "route_evaluate": base + ["evaluate", "-C", "c", "--no-store", *_route_args()],
        "route_evaluate_store": base + ["evaluate", "-C", "c", *_route_args()],
    }
    results = {}
    for step, cmd in steps.items():
        results[step] = measure(cmd, stdout_path=work / f"{step}.out")
        if results[step]["returncode"]:
            break
    results["warehouse_mb"] = round(db.stat().st_size / 2**20, 1) if db.exists() else None
    for leftover in (db, Path(str(db) + ".wal")):
        if leftover.exists():
            leftover.unlink()
    return results


def _values_from_trec_output(path: Path) -> dict:
    """A few 'all' values of trec_eval-format output (pyeval trec_eval, trec_eval)."""
    wanted = {"map", "P_10", "bpref", "recip_rank", "Rprec", "gm_map", "num_rel_ret", "num_q"}
    values = {}
    if path.exists():
        for line in path.read_text().splitlines():
            fields = line.split()
            if len(fields) == 3 and fields[1] == "all" and fields[0] in wanted:
                values[fields[0]] = float(fields[2])
    return values


def _same_output(expected: Path, actual: Path) -> bool:
    """Whether two printed outputs are byte-identical (pyeval trec_eval against trec_eval)."""
    return expected.exists() and actual.exists() and expected.read_bytes() == actual.read_bytes()


def warm_numba(work: Path, cache: Path) -> dict:
    """Fill the numba cache used by ``ranx_warm`` with a tiny data set (same types)."""
    tiny = work / "tiny"
    tiny.mkdir(exist_ok=True)
    data = generate(tiny, 20, 100, SEED)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    cmd = python_command(child_program(CHILD_RANX, METRICS=repr(RANX_METRICS)), data["qrels_file"], data["run_file"],
                  str(tiny / "phases.json"))
    return measure(cmd, env=env)


# --------------------------------------------------------------------------------------------
# Profile of pyeval trec_eval (largest size)
# --------------------------------------------------------------------------------------------


def profile(data: dict, work: Path) -> dict:
    qrels, run = data["qrels_file"], data["run_file"]
    # 1. import times of the real command (whole process, output discarded)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", pyeval_exe(), "trec_eval", qrels, run],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    imports = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            parts = line[len("import time:"):].split("|")
            try:
                self_us, cumulative_us = int(parts[0]), int(parts[1])
            except ValueError:
                continue
            name = parts[2].rstrip()
            depth = (len(name) - len(name.lstrip())) // 2
            imports.append((name.strip(), depth, self_us, cumulative_us))
    top_level = sorted((i for i in imports if i[1] == 0), key=lambda i: -i[3])
    total_us = sum(i[3] for i in imports if i[1] == 0)
    wanted = ("duckdb", "pandas", "pyarrow", "numpy", "click", "pyarrow.csv", "pyarrow.compute",
              "pyeval", "pyeval.cli", "pyeval.compat.trec_eval", "pyeval.measures", "pyeval.loaders",
              "pyeval.core.evaluation", "pyeval.storage.warehouse")
    named = {}
    for name, depth, _, cumulative in imports:
        if name in wanted and name not in named:
            named[name] = round(cumulative / 1e6, 3)
    # 2. cProfile + SQL timings of trec_eval.run
    out = work / "profile.json"
    done = subprocess.run(python_command(CHILD_PROFILE, qrels, run, str(out)), capture_output=True, text=True)
    if done.returncode:  # (stderr otherwise holds only DuckDB's progress bar)
        raise RuntimeError(f"profile child failed:\n{done.stderr[-3000:]}")
    result = json.loads(out.read_text())
    result["importtime"] = {
        "total_top_level_s": round(total_us / 1e6, 3),
        "top_level": [(n, round(c / 1e6, 3)) for n, _, _, c in top_level[:12]],
        "named_cumulative_s": named,
    }
    return result


# --------------------------------------------------------------------------------------------
# Summaries
# --------------------------------------------------------------------------------------------


def summarise(reps: dict[str, list[dict]]) -> dict:
    summary = {}
    for tool, results in reps.items():
        if tool == "route":
            steps = ("route_load_qrels", "route_load_run", "route_evaluate", "route_evaluate_store")
            for step in steps:
                rows = [r[step] for r in results if step in r]
                summary[step] = summary_row(rows)
            totals = []
            for r in results:
                parts = [r.get(s) for s in steps[:3]]
                if all(p and p.get("returncode") == 0 for p in parts):
                    totals.append({
                        "returncode": 0,
                        "wall_s": sum(p["wall_s"] for p in parts),
                        "peak_rss_mb": max(p["peak_rss_mb"] for p in parts),
                        "cpu_s": sum(p["cpu_s"] for p in parts),
                        "load1": parts[0]["load1"],
                    })
            summary["route_total"] = summary_row(totals)
            summary["route_total"]["warehouse_mb"] = results[0].get("warehouse_mb") if results else None
        else:
            summary[tool] = summary_row(results)
            phases = [r["phases"] for r in results if "phases" in r]
            if phases:
                summary[tool]["phases_median"] = {
                    k: round(statistics.median(p[k] for p in phases if k in p), 3) for k in phases[0]
                }
    return summary


def ratios(summary: dict) -> dict:
    def ratio(a, b, key="wall_s"):
        x, y = summary.get(a, {}).get(key), summary.get(b, {}).get(key)
        return round(x / y, 2) if x and y else None

    out = {}
    for key in ("wall_s", "peak_rss_mb"):
        out[key] = {
            "pytrec_eval/pyeval": ratio("pytrec_eval", "pyeval", key),
            "ranx/pyeval": ratio("ranx", "pyeval", key),
            "ranx_warm/pyeval": ratio("ranx_warm", "pyeval", key),
            "ir_measures/pyeval": ratio("ir_measures", "pyeval", key),
            "trec_eval_c/pyeval": ratio("trec_eval_c", "pyeval", key),
            "trec_eval_c_O2/pyeval": ratio("trec_eval_c_O2", "pyeval", key),
            "pyeval/duckdb_read": ratio("pyeval", "duckdb_read", key),
            "route_total/duckdb_read": ratio("route_total", "duckdb_read", key),
            "route_evaluate/duckdb_read": ratio("route_evaluate", "duckdb_read", key),
            "pytrec_eval/route_total": ratio("pytrec_eval", "route_total", key),
            "ranx/route_total": ratio("ranx", "route_total", key),
            "ranx_warm/route_total": ratio("ranx_warm", "route_total", key),
            "ir_measures/route_total": ratio("ir_measures", "route_total", key),
        }
    return out


def targets(summary: dict, r: dict) -> dict:
    w = r["wall_s"]

    def check(value, op, bound):
        if value is None:
            return None
        return value >= bound if op == ">=" else value <= bound

    return {
        "pyeval >= 2x faster than pytrec_eval": check(w["pytrec_eval/pyeval"], ">=", 2),
        "pyeval >= 10x faster than ranx (cold)": check(w["ranx/pyeval"], ">=", 10),
        "pyeval >= 10x faster than ranx (warm cache)": check(w["ranx_warm/pyeval"], ">=", 10),
        "pyeval within 2.5x of duckdb_read": check(w["pyeval/duckdb_read"], "<=", 2.5),
        "route >= 2x faster than pytrec_eval": check(w["pytrec_eval/route_total"], ">=", 2),
        "route >= 10x faster than ranx (cold)": check(w["ranx/route_total"], ">=", 10),
        "route within 2.5x of duckdb_read": check(w["route_total/duckdb_read"], "<=", 2.5),
        "route evaluate alone within 2.5x of duckdb_read": check(w["route_evaluate/duckdb_read"], "<=", 2.5),
    }


def markdown(report: dict) -> str:
    lines = []
    for size, entry in report["sizes"].items():
        data = entry["data"]
        lines.append(
            f"\n#### {data['topics']:,} topics x {data['docs_per_topic']} docs "
            f"(run {data['run_lines']:,} lines, {data['run_bytes'] / 2**20:.0f} MiB; "
            f"qrels {data['qrels_lines']:,} lines, {data['qrels_bytes'] / 2**20:.0f} MiB)\n"
        )
        lines.append("| tool | wall s (median) | all reps | peak RSS MiB | CPU s | vs pyeval trec_eval |")
        lines.append("| --- | ---: | --- | ---: | ---: | ---: |")
        pyeval_wall = entry["summary"].get("pyeval", {}).get("wall_s")
        for tool in LABELS:
            row = entry["summary"].get(tool)
            if not row or row.get("reps", 0) == 0:
                continue
            if row.get("ok", 0) == 0:
                lines.append(f"| {LABELS[tool]} | failed | | | | |")
                continue
            rel = f"{row['wall_s'] / pyeval_wall:.2f}x" if pyeval_wall and row["wall_s"] else ""
            reps = ", ".join(f"{w:.2f}" for w in row["wall_s_all"] if w is not None)
            lines.append(
                f"| {LABELS[tool]} | {row['wall_s']:.2f} | {reps} | {row['peak_rss_mb']:.0f} | "
                f"{row['cpu_s']:.1f} | {rel} |"
            )
        for tool, same in entry.get("outputs_identical_to_pyeval", {}).items():
            lines.append(f"\n{LABELS[tool]}: output {'byte-identical to' if same else '**differs from**'} "
                         "pyeval trec_eval's.")
        lines.append("")
        lines.append("| ratio (wall time) | value | | ratio (peak RSS) | value |")
        lines.append("| --- | ---: | --- | --- | ---: |")
        for (name, value), (_, rss) in zip(entry["ratios"]["wall_s"].items(), entry["ratios"]["peak_rss_mb"].items()):
            if value is not None:
                lines.append(f"| {name} | {value:.2f} | | {name} | {rss:.2f} |")
        lines.append("")
        lines.append("| target | met |")
        lines.append("| --- | --- |")
        for name, met in entry["targets"].items():
            lines.append(f"| {name} | {'n/a' if met is None else ('yes' if met else '**no**')} |")
    if report.get("startup"):
        lines.append("\n#### Start-up references (no data)\n")
        lines.append("| process | wall s (median) | peak RSS MiB |")
        lines.append("| --- | ---: | ---: |")
        for tool, row in report["startup"].items():
            if row.get("wall_s") is not None:
                lines.append(f"| {LABELS[tool]} | {row['wall_s']:.3f} | {row['peak_rss_mb']:.0f} |")
    return "\n".join(lines) + "\n"


def machine() -> dict:
    return common.machine(
        {name: common.package_version(name) for name in (
            "duckdb", "pyarrow", "pandas", "numpy", "pytrec-eval-terrier", "ranx", "ir-measures",
            "numba", "llvmlite", "click", "pyeval",
        )},
        trec_eval_c=dict(TREC_EVAL_BINARIES),
    )


# --------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", default="3000,10000", help="comma-separated topic counts")
    parser.add_argument("--docs", type=int, default=1000, help="documents per topic in the run")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--cold-reps", type=int, default=1,
                        help="repetitions of ranx with an empty numba cache (JIT compilation, "
                             "about a minute each on 2 cores); at most --reps")
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "trec_eval.json"))
    parser.add_argument("--tools", default="pyeval,trec_eval_c,trec_eval_c_O2,pytrec_eval,ranx,ranx_warm,ir_measures,duckdb_read,route")
    parser.add_argument("--trec-eval", default=shutil.which("trec_eval"),
                        help="trec_eval binary timed as trec_eval_c (default: trec_eval on PATH)")
    parser.add_argument("--trec-eval-O2", dest="trec_eval_O2",
                        help="a second trec_eval build, timed as trec_eval_c_O2")
    parser.add_argument("--profile", action="store_true", help="profile pyeval trec_eval on the largest size")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--code", default="head",
                        help="head: measure a snapshot of the repository's HEAD commit (git archive, "
                             "put first on PYTHONPATH for every child), so that edits made in the "
                             "work tree while the benchmark runs do not mix into it; PATH: the same "
                             "for the HEAD of the git checkout at PATH (or PATH itself, an extracted "
                             "tree holding pyeval/); worktree: whatever pyeval imports")
    args = parser.parse_args(argv)

    out = Path(args.out).resolve()
    tmp = Path(tempfile.mkdtemp(prefix="pyeval-bench-trec-eval-"))
    # Children start here: ``python -c`` puts the working directory first on sys.path, and in
    # the repository that would import the work tree's pyeval.
    os.chdir(tmp)
    code = common.select_code(args.code, tmp)

    from pyeval.measures import Measure  # noqa: F401  (fail early if pyeval is broken)
    from pyeval.measures import parse_measures
    import pyeval

    code["imported_from"] = str(Path(pyeval.__file__).parent)

    route_count = len({str(m) for name in ROUTE_MEASURES for m in parse_measures(name)})
    assert route_count == 25, f"ROUTE_MEASURES expands to {route_count} measures, not 25"

    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    for tool, binary in (("trec_eval_c", args.trec_eval), ("trec_eval_c_O2", args.trec_eval_O2)):
        if binary:
            TREC_EVAL_BINARIES[tool] = str(Path(binary).resolve())
        elif tool in tools:
            print(f"{tool}: no binary given (--trec-eval, --trec-eval-O2): not measured", flush=True)
            tools.remove(tool)
    report = {
        "benchmark": "trec_eval",
        "machine": machine(),
        "code": code,
        "settings": {
            "reps": args.reps, "cold_reps": args.cold_reps, "docs": args.docs, "tools": tools,
            "pytrec_eval_measures": PYTREC_MEASURES, "ranx_metrics": RANX_METRICS,
            "ir_measures": IR_MEASURES, "route_measures": ROUTE_MEASURES,
        },
        "labels": LABELS,
        "sizes": {},
    }
    started = time.perf_counter()
    try:
        numba_warm = tmp / "numba_warm"
        numba_warm.mkdir()
        if "ranx_warm" in tools and "ranx" not in tools:
            report["ranx_warm_up"] = warm_numba(tmp, numba_warm)
            print(f"numba cache filled in {report['ranx_warm_up']['wall_s']:.1f}s", flush=True)
        startup = [common.measure_startup() for _ in range(args.reps)]
        report["startup"] = {k: summary_row([rep[k] for rep in startup]) for k in startup[0]}

        sizes = [int(t) for t in args.topics.split(",")]
        for n_topics in sizes:
            work = tmp / f"t{n_topics}"
            work.mkdir()
            data = generate(work, n_topics, args.docs, SEED + n_topics)
            print(f"generated {n_topics} topics: run {data['run_lines']:,} lines "
                  f"({data['run_bytes'] / 2**20:.0f} MiB), qrels {data['qrels_lines']:,} lines "
                  f"in {data['generation_s']}s", flush=True)
            reps = {tool: [] for tool in tools}
            values = {}
            outputs: dict[str, bool] = {}
            for rep in range(args.reps):
                for tool in tools:
                    if tool == "ranx" and rep >= args.cold_reps:
                        continue
                    result = run_tool(tool, data, work, rep, numba_warm)
                    reps[tool].append(result)
                    if (tool == "pyeval" or tool in TREC_EVAL_BINARIES) and result.get("returncode") == 0:
                        result["values"] = _values_from_trec_output(work / f"{tool}.out")
                        if tool != "pyeval" and "pyeval" in tools:
                            outputs[tool] = _same_output(work / "pyeval.out", work / f"{tool}.out")
                    if "values" in result and tool not in values:
                        values[tool] = result["values"]
                    shown = result.get("route_total") or result
                    if tool == "route":
                        walls = {k: v["wall_s"] for k, v in result.items() if isinstance(v, dict)}
                        print(f"  rep {rep + 1} {tool}: {walls} (load {os.getloadavg()[0]:.2f})", flush=True)
                    else:
                        status = "" if result["returncode"] == 0 else f" FAILED: {result.get('error', '')[-300:]}"
                        print(f"  rep {rep + 1} {tool}: {shown['wall_s']:.2f}s "
                              f"{shown.get('peak_rss_mb', 0):.0f} MiB (load {shown['load1']:.2f}){status}",
                              flush=True)
            summary = summarise(reps)
            entry = {"data": data, "reps": reps, "summary": summary, "values": values,
                     "outputs_identical_to_pyeval": outputs}
            entry["ratios"] = ratios(summary)
            entry["targets"] = targets(summary, entry["ratios"])
            report["sizes"][str(n_topics)] = entry
            if args.profile and n_topics == max(sizes):
                print("profiling pyeval trec_eval ...", flush=True)
                report["profile"] = profile(data, work)
            for name in ("run.txt", "qrels.txt"):
                if not args.keep:
                    (work / name).unlink()
        report["total_s"] = round(time.perf_counter() - started, 1)
        if args.code == "worktree" and code_state() != {k: code[k] for k in ("commit", "uncommitted")}:
            report["code_at_end"] = code_state()
            print("WARNING: pyeval's code changed during the benchmark (see code, code_at_end)")
    finally:
        os.chdir(REPO)
        if args.keep:
            print(f"files kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    table = markdown(report)
    out.with_suffix(".md").write_text(table)
    print(table)
    if "profile" in report:
        p = report["profile"]
        print(f"profile: import {p['import_s']}s, run {p['run_s']}s; importtime {p['importtime']}")
        for label, entry in list(p["sql"].items())[:15]:
            print(f"  {entry['seconds']:8.3f}s {entry['calls']:3d}x  {label}")
    print(f"total {report['total_s']}s; written {out} and {out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
