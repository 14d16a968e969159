"""Benchmarks at scale (issue 40): 100k, 300k and 1M queries x 100 documents, as text and as
Parquet, through ``pyeval trec_eval`` and the warehouse route against ranx, pytrec_eval,
ir_measures, trec_eval -O2 and a bare DuckDB statement (the floor).

    python bench/bench_scale.py --keep /tmp/scale40 [--sizes 100000,300000,1000000]
                                [--reps 3] [--memory-limit 3GB] [--tools ...]
                                [--out bench/results/scale_issue40.json] [--generate-only]

Results and their reading: docs/benchmarks.md, "A million queries (issue 40)".

1. **Data**, generated once per size into ``--keep/q{N}/`` (reused when its ``data.json`` is
   there): ``run.txt`` and ``qrels.txt`` by ``common.generate`` (100 documents per query, scores
   normal(10, 2) to 3 decimals so ties occur, ranks in score order), with 10 judgments per query,
   8 of them on retrieved documents (MS MARCO-like sets judge few documents per query; set
   through ``common.QRELS_PER_TOPIC`` / ``QRELS_RETRIEVED``); then ``run.parquet`` (``q_id,
   doc_id, score, rank, run_tag``) and ``qrels.parquet`` (``q_id, doc_id, score``, the relevance
   as ranx's ``Qrels.save`` writes it) by DuckDB ``copy (select ...) to ... (format parquet)``, in
   the text's order. Both tools read the **same** Parquet files: ranx's ``from_parquet`` reads
   ``q_id, doc_id, score`` and pyeval's loader accepts ranx's column names (docs/loading.md,
   "Parquet and Arrow inputs"). ``sample10000_of_q{N}/`` holds the first 10,000 queries of the
   smallest size, for the value check.

2. **Tools**, each a whole process under ``/usr/bin/time`` (``common.measure``: wall time, peak
   RSS, CPU), with its address space capped by ``prlimit --as`` (``--as-limit``, default 18 GB,
   on a 24 GB machine without swap) so that a tool that runs out of memory fails alone ("stops:
   out of memory") instead of waking the kernel's OOM killer; and with a time cap
   (``--timeout``) after which it is reported as stopped. Three measures: AP, nDCG@10, RR.

   - ``pyeval_{text,parquet}``: ``pyeval --memory-limit L trec_eval -m map -m ndcg_cut.10
     -m recip_rank QRELS RUN``; ``pyeval_default_*`` the same without ``--memory-limit``
     (pyeval's default, half the machine), once per size;
   - ``route_{text,parquet}``: the warehouse route on a new warehouse file, each step a whole
     process: ``pyeval --memory-limit L load qrels``, ``load run``, ``evaluate --no-store -m AP
     -m nDCG@10 -m RR --format json``;
   - ``ranx_parquet`` (warm numba cache) and ``ranx_parquet_cold`` (empty cache: JIT compilation
     included): ``Qrels.from_parquet`` + ``Run.from_parquet`` + ``evaluate(["map", "ndcg@10",
     "mrr"])``; its load and its evaluate are reported apart (phases). With pandas 3 the child sets
     ``pandas.options.future.infer_string = False``: ranx 0.3.21 asserts object-typed identifier
     columns, which pandas 3 no longer reads by default;
   - ``pytrec_eval_text``: parse_qrel / parse_run + RelevanceEvaluator({map, ndcg_cut.10,
     recip_rank}), means by compute_aggregated_measure;
   - ``ir_measures_text``: calc_aggregate([AP, nDCG@10, RR], read_trec_qrels, read_trec_run);
   - ``trec_eval_O2_text``: ``trec_eval -m map -m ndcg_cut.10 -m recip_rank`` (a -O2 build);
   - ``duckdb_{text,parquet}``: the floor, a process importing duckdb that reads both files and
     computes the three means in one hand-written statement (FLOOR_SQL).

   Repetitions are interleaved and the median reported; the 1-minute load average is recorded
   before each measurement.

3. **Values**: on ``sample10k`` pyeval's means (the Python API, full doubles) against
   pytrec_eval's, to 1e-9; at each size every tool's means against the route's (full doubles
   from ``--format json``): the largest absolute difference (the drop-in and trec_eval print
   4 decimals, so theirs is at most 5e-5 when equal).

4. Writes ``--out`` (JSON) and the same path with ``.md``: per size and format, wall, peak RSS,
   CPU, the ratios pyeval / each tool and pyeval / floor, the targets at the largest size, the
   load averages and the machine (``common.machine``).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import common
from common import CHILD_HEAD, CHILD_TAIL, REPO, child_program, measure, pyeval_exe, python_command, summary_row

SEED = 40_000_000
DOCS = 100
JUDGED_PER_QUERY = 10
JUDGED_RETRIEVED = 8
SAMPLE_QUERIES = 10_000
TREC_EVAL_O2 = "/root/.cache/pyeval-tools/trec_eval-O2/trec_eval"

# The three measures in each tool's names.
TREC_MEASURES = ["map", "ndcg_cut.10", "recip_rank"]  # trec_eval, pyeval trec_eval, pytrec_eval
PYEVAL_MEASURES = ["AP", "nDCG@10", "RR"]  # pyeval evaluate (and ir_measures)
RANX_METRICS = ["map", "ndcg@10", "mrr"]
# Each tool's name of a measure -> the common key used in the report.
KEYS = {
    "map": "AP", "ndcg_cut_10": "nDCG@10", "ndcg_cut.10": "nDCG@10", "recip_rank": "RR",
    "AP": "AP", "nDCG@10": "nDCG@10", "RR": "RR", "ndcg@10": "nDCG@10", "mrr": "RR",
}


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------

# COPY ... TO is not a prepared statement: the paths are spliced in as quoted literals (the
# benchmark's own files, never user input).
PARQUET_SQL = """
copy (select topic as q_id, docno as doc_id, score, rank, tag as run_tag
      from read_csv('RUN_TXT', delim=' ', header=false, columns={'topic': 'VARCHAR', 'q0': 'VARCHAR',
           'docno': 'VARCHAR', 'rank': 'BIGINT', 'score': 'DOUBLE', 'tag': 'VARCHAR'}))
to 'RUN_PARQUET' (format parquet, compression zstd);
copy (select topic as q_id, docno as doc_id, rel as score
      from read_csv('QRELS_TXT', delim=' ', header=false, columns={'topic': 'VARCHAR',
           'iter': 'VARCHAR', 'docno': 'VARCHAR', 'rel': 'BIGINT'}))
to 'QRELS_PARQUET' (format parquet, compression zstd);
"""


def _quoted(path: Path) -> str:
    """A file path as an SQL string literal (COPY ... TO takes no parameter)."""
    return str(path).replace("'", "''")


def write_parquet(directory: Path) -> float:
    """run.parquet and qrels.parquet from the text files of ``directory``, in their order."""
    import duckdb

    started = time.perf_counter()
    con = duckdb.connect(config={"memory_limit": "4GB", "preserve_insertion_order": True,
                                 "temp_directory": str(directory / "duckdb_tmp")})
    sql = PARQUET_SQL
    for token, name in (("RUN_TXT", "run.txt"), ("QRELS_TXT", "qrels.txt"),
                        ("RUN_PARQUET", "run.parquet"), ("QRELS_PARQUET", "qrels.parquet")):
        sql = sql.replace(token, _quoted(directory / name))
    con.execute(sql)
    con.close()
    shutil.rmtree(directory / "duckdb_tmp", ignore_errors=True)
    return round(time.perf_counter() - started, 2)


def write_sample(source: Path, directory: Path, queries: int) -> None:
    """The first ``queries`` queries of ``source``'s text files (runs of 100 lines, qrels of
    JUDGED_PER_QUERY lines per query, as generated) into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, per_query in (("run.txt", DOCS), ("qrels.txt", JUDGED_PER_QUERY)):
        with open(source / name) as full, open(directory / name, "w") as part:
            for _, line in zip(range(queries * per_query), full):
                part.write(line)


def prepare(keep: Path, n_queries: int) -> dict:
    """The generated data of one size (made now unless ``data.json`` says it is there)."""
    directory = keep / f"q{n_queries}"
    described = directory / "data.json"
    if described.exists():
        return json.loads(described.read_text())
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    judged = common.QRELS_PER_TOPIC, common.QRELS_RETRIEVED
    common.QRELS_PER_TOPIC, common.QRELS_RETRIEVED = JUDGED_PER_QUERY, JUDGED_RETRIEVED
    try:
        data = common.generate(directory, n_queries, DOCS, SEED + n_queries)
    finally:  # common's defaults serve the other benchmarks (and tests) in this process
        common.QRELS_PER_TOPIC, common.QRELS_RETRIEVED = judged
    data["parquet_s"] = write_parquet(directory)
    for name in ("run", "qrels"):
        data[f"{name}_parquet"] = str(directory / f"{name}.parquet")
        data[f"{name}_parquet_bytes"] = (directory / f"{name}.parquet").stat().st_size
    described.write_text(json.dumps(data, indent=1) + "\n")
    return data


# --------------------------------------------------------------------------------------------
# Child programs (python -c TEXT QRELS RUN PHASES; common.CHILD_HEAD/CHILD_TAIL): each writes
# its phase times and its means (``_values``, full doubles) to PHASES as JSON.
# --------------------------------------------------------------------------------------------

_RANX_CHILD = CHILD_HEAD + r"""{setup}
from ranx import Qrels, Run, evaluate
_mark("import")
qrels = Qrels.{reader}
_mark("load_qrels")
run = Run.{run_reader}
_mark("load_run")
means = evaluate(qrels, run, METRICS)
_mark("evaluate")
_values = {m: float(v) for m, v in means.items()}
print(_values)
""" + CHILD_TAIL

#: ranx on the Parquet files (its own reader) and on the text files: the same child but its readers.
CHILD_RANX_PARQUET = _RANX_CHILD.replace("{setup}", """
import pandas
if hasattr(pandas.options, "future") and hasattr(pandas.options.future, "infer_string"):
    pandas.options.future.infer_string = False  # ranx 0.3.21 asserts object-typed id columns""").replace(
    "{reader}", "from_parquet(QRELS)").replace("{run_reader}", "from_parquet(RUN)")
CHILD_RANX_TEXT = _RANX_CHILD.replace("{setup}", "").replace("{reader}", 'from_file(QRELS, kind="trec")').replace(
    "{run_reader}", 'from_file(RUN, kind="trec")')

CHILD_PYTREC = CHILD_HEAD + r"""
import pytrec_eval
_mark("import")
with open(QRELS) as f:
    qrels = pytrec_eval.parse_qrel(f)
_mark("load_qrels")
with open(RUN) as f:
    run = pytrec_eval.parse_run(f)
_mark("load_run")
per_topic = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
_mark("evaluate")
names = sorted(next(iter(per_topic.values())))
_values = {m: pytrec_eval.compute_aggregated_measure(m, [v[m] for v in per_topic.values()]) for m in names}
print(_values)
""" + CHILD_TAIL

CHILD_IR_MEASURES = CHILD_HEAD + r"""
import ir_measures
from ir_measures import AP, nDCG, RR
_mark("import")
measures = [AP, nDCG@10, RR]
means = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(QRELS), ir_measures.read_trec_run(RUN))
_mark("evaluate")  # parsing is lazy (generators consumed inside calc_aggregate)
_values = {str(m): float(means[m]) for m in measures}
print(_values)
""" + CHILD_TAIL

# pyeval's Python API and pytrec_eval on one (sample) data set: full doubles, per measure.
CHILD_SAMPLE_CHECK = CHILD_HEAD + r"""
import pyeval, pytrec_eval
pyeval_means = pyeval.calc_aggregate(MEASURES_PYEVAL, QRELS, RUN)
_mark("pyeval")
with open(QRELS) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(RUN) as f:
    run = pytrec_eval.parse_run(f)
per_topic = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES_TREC)).evaluate(run)
_mark("pytrec_eval")
pytrec_means = {m: pytrec_eval.compute_aggregated_measure(m, [v[m] for v in per_topic.values()])
                for m in sorted(next(iter(per_topic.values())))}
_values = {"pyeval": {str(k): float(v) for k, v in pyeval_means.items()}, "pytrec_eval": pytrec_means,
           "topics": len(per_topic)}
""" + CHILD_TAIL

# The floor: one hand-written statement over both files computing the three means, trec_eval's
# way (ranked by score desc, docno desc; every qrels topic averaged; AP over all relevant
# documents, nDCG@10 with the levels as gains, RR of the first relevant document; level > 0
# relevant). RUN_SOURCE and QRELS_SOURCE become read_csv or read_parquet of the files.
FLOOR_SQL = """
with run as (select q_id, doc_id, score from RUN_SOURCE),
qrels as (select q_id, doc_id, rel from QRELS_SOURCE),
ranked as (select q_id, doc_id, row_number() over (partition by q_id order by score desc, doc_id desc) as k
           from run),
hits as (select r.q_id, r.k, j.rel,
                row_number() over (partition by r.q_id order by r.k) as n
         from ranked r join qrels j on r.q_id = j.q_id and r.doc_id = j.doc_id where j.rel > 0),
found as (select q_id, sum(n / k) as precision_sum, min(k) as first,
                 sum(case when k <= 10 then rel / log2(k + 1) else 0 end) as dcg
          from hits group by q_id),
ideal as (select q_id, count(*) as relevant, sum(case when i <= 10 then rel / log2(i + 1) else 0 end) as idcg
          from (select q_id, rel, row_number() over (partition by q_id order by rel desc) as i
                from qrels where rel > 0) group by q_id),
topics as (select distinct q_id from qrels)
select avg(coalesce(precision_sum / relevant, 0)) as "AP",
       avg(coalesce(dcg / idcg, 0)) as "nDCG@10",
       avg(coalesce(1.0 / first, 0)) as "RR"
from topics left join found using (q_id) left join ideal using (q_id)
"""
FLOOR_SOURCES = {
    "text": (
        "read_csv(RUN_PATH, delim=' ', header=false, columns={'q_id': 'VARCHAR', 'q0': 'VARCHAR', "
        "'doc_id': 'VARCHAR', 'rank': 'BIGINT', 'score': 'DOUBLE', 'tag': 'VARCHAR'})",
        "(select q_id, doc_id, level as rel from read_csv(QRELS_PATH, delim=' ', header=false, "
        "columns={'q_id': 'VARCHAR', 'iter': 'VARCHAR', 'doc_id': 'VARCHAR', 'level': 'INTEGER'}))",
    ),
    "parquet": (
        "read_parquet(RUN_PATH)",
        "(select q_id, doc_id, score as rel from read_parquet(QRELS_PATH))",
    ),
}

CHILD_FLOOR = CHILD_HEAD + r"""
import duckdb, tempfile
_mark("import")
spill = tempfile.mkdtemp(prefix="floor-spill-")
con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT, "temp_directory": spill})
def lit(path):
    return "'" + path.replace("'", "''") + "'"
sql = SQL.replace("RUN_SOURCE", RUN_SOURCE).replace("QRELS_SOURCE", QRELS_SOURCE)
sql = sql.replace("RUN_PATH", lit(RUN)).replace("QRELS_PATH", lit(QRELS))
row = con.execute(sql).fetchone()
_mark("evaluate")
con.close()
import shutil; shutil.rmtree(spill, ignore_errors=True)
_values = {"AP": row[0], "nDCG@10": row[1], "RR": row[2]}
print(_values)
""" + CHILD_TAIL


# --------------------------------------------------------------------------------------------
# Measuring one whole process, capped in memory and time
# --------------------------------------------------------------------------------------------

MEMORY_WORDS = ("MemoryError", "bad_alloc", "Out of Memory", "out of memory", "Cannot allocate memory",
                "cannot allocate memory",
                "std::length_error")


def capped(cmd: list[str], as_limit_gb: float, timeout_s: int) -> list[str]:
    """``cmd`` with its address space capped (prlimit --as) and killed after ``timeout_s``."""
    return ["timeout", "-s", "KILL", str(timeout_s),
            "prlimit", f"--as={int(as_limit_gb * 2**30)}", "--", *cmd]


def classify(result: dict, timeout_s: int) -> dict:
    """Name why a process failed: over the time cap, out of memory within the cap (an allocation
    refused), killed by the kernel when the machine ran out of memory (SIGKILL before the time
    cap: the machine is shared, so this can come before the cap), or else."""
    if result["returncode"] == 0:
        return result
    error = result.get("error", "")
    killed = result["returncode"] in (137, -9)
    if killed and result["wall_s"] >= timeout_s - 1:
        result["stopped"] = f"over the time cap of {timeout_s} s"
    elif killed:
        result["stopped"] = (f"out of memory: killed by the kernel at {result.get('peak_rss_mb', 0):,.0f} MiB "
                             "(the shared machine ran out of memory)")
    elif any(word in error for word in MEMORY_WORDS) or result["returncode"] in (-6, 134):
        result["stopped"] = "out of memory (an allocation refused within the address-space cap)"
    else:
        result["stopped"] = "failed"
    return result


def trec_values(text: str) -> dict:
    """The 'all' values of trec_eval-format output, by common key."""
    values = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] == "all" and fields[0] in KEYS:
            values[KEYS[fields[0]]] = float(fields[2])
    return values


def keyed(values: dict) -> dict:
    """A child's means under the common keys (AP, nDCG@10, RR)."""
    return {KEYS[k]: v for k, v in values.items() if k in KEYS}


class Runner:
    """Runs each tool on one size's files as capped whole processes."""

    def __init__(self, work: Path, memory_limit: str, as_limit_gb: float, timeout_s: int) -> None:
        self.work, self.memory_limit = work, memory_limit
        self.as_limit_gb, self.timeout_s = as_limit_gb, timeout_s
        self.numba_warm = work / "numba_warm"
        self.numba_warm.mkdir(parents=True, exist_ok=True)
        self.spill = work / "spill"
        self.spill.mkdir(parents=True, exist_ok=True)

    def _measure(self, cmd: list[str], out: Path, env: dict | None = None) -> dict:
        result = measure(capped(cmd, self.as_limit_gb, self.timeout_s), env=env, stdout_path=out)
        return classify(result, self.timeout_s)

    def _child(self, tool: str, program: str, qrels: str, run: str, env: dict | None = None) -> dict:
        phases = self.work / f"{tool}.phases.json"
        phases.unlink(missing_ok=True)
        result = self._measure(python_command(program, qrels, run, str(phases)), self.work / f"{tool}.out", env)
        if result["returncode"] == 0 and phases.exists():
            child = json.loads(phases.read_text())
            result["phases"] = child["phases"]
            result["values"] = keyed(child["values"])
        return result

    def _pyeval(self, limit: str | None) -> list[str]:
        return [pyeval_exe(), *(["--memory-limit", limit] if limit else []), "--spill-dir", str(self.spill)]

    def run(self, tool: str, data: dict) -> dict:
        name, _, fmt = tool.rpartition("_")
        qrels, run = (data["qrels_file"], data["run_file"]) if fmt == "text" else \
            (data["qrels_parquet"], data["run_parquet"])
        out = self.work / f"{tool}.out"
        if name in ("pyeval", "pyeval_default"):
            limit = self.memory_limit if name == "pyeval" else None
            cmd = [*self._pyeval(limit), "trec_eval", *[a for m in TREC_MEASURES for a in ("-m", m)], qrels, run]
            result = self._measure(cmd, out)
            if result["returncode"] == 0:
                result["values"] = trec_values(out.read_text())
            return result
        if name == "route":
            return self.route(tool, qrels, run)
        if name == "trec_eval_O2":
            cmd = [TREC_EVAL_O2, *[a for m in TREC_MEASURES for a in ("-m", m)], qrels, run]
            result = self._measure(cmd, out)
            if result["returncode"] == 0:
                result["values"] = trec_values(out.read_text())
            return result
        if name in ("ranx", "ranx_cold"):
            cache = self.numba_warm if name == "ranx" else self.work / "numba_cold"
            if name == "ranx_cold":
                shutil.rmtree(cache, ignore_errors=True)
                cache.mkdir()
            template = CHILD_RANX_PARQUET if fmt == "parquet" else CHILD_RANX_TEXT
            env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
            result = self._child(tool, child_program(template, METRICS=repr(RANX_METRICS)), qrels, run, env)
            if name == "ranx_cold":
                shutil.rmtree(cache, ignore_errors=True)
            return result
        if name == "pytrec_eval":
            return self._child(tool, child_program(CHILD_PYTREC, MEASURES=repr(TREC_MEASURES)), qrels, run)
        if name == "ir_measures":
            return self._child(tool, CHILD_IR_MEASURES, qrels, run)
        if name == "duckdb":
            run_source, qrels_source = FLOOR_SOURCES[fmt]
            program = child_program(CHILD_FLOOR, SQL=repr(FLOOR_SQL), RUN_SOURCE=repr(run_source),
                                    QRELS_SOURCE=repr(qrels_source), MEMORY_LIMIT=repr(self.memory_limit))
            return self._child(tool, program, qrels, run)
        raise ValueError(f"unknown tool {tool}")

    def route(self, tool: str, qrels: str, run: str) -> dict:
        """The warehouse route on a new warehouse file: three whole processes, summed."""
        db = self.work / f"{tool}.duckdb"
        for leftover in (db, Path(f"{db}.wal")):
            leftover.unlink(missing_ok=True)
        base = [*self._pyeval(self.memory_limit), "--db", str(db)]
        steps = {
            "load_qrels": base + ["load", "qrels", "--campaign", "c", qrels],
            "load_run": base + ["load", "run", "--campaign", "c", "--name", "r", run],
            "evaluate": base + ["evaluate", "-C", "c", "--no-store",
                                *[a for m in PYEVAL_MEASURES for a in ("-m", m)], "--format", "json"],
        }
        result = {"steps": {}}
        for step, cmd in steps.items():
            done = self._measure(cmd, self.work / f"{tool}.{step}.out")
            result["steps"][step] = done
            if done["returncode"]:
                result.update(returncode=done["returncode"], error=f"{step}: {done.get('error', '')}",
                              stopped=done.get("stopped"), wall_s=done["wall_s"], load1=done["load1"])
                break
        else:
            parts = result["steps"].values()
            result.update(
                returncode=0, wall_s=round(sum(p["wall_s"] for p in parts), 3),
                peak_rss_mb=max(p["peak_rss_mb"] for p in parts), cpu_s=round(sum(p["cpu_s"] for p in parts), 2),
                load1=result["steps"]["load_qrels"]["load1"],
                phases={step: p["wall_s"] for step, p in result["steps"].items()},
                warehouse_mb=round(db.stat().st_size / 2**20, 1),
            )
            means = json.loads((self.work / f"{tool}.evaluate.out").read_text())[0]
            result["values"] = keyed({k: v for k, v in means.items() if k != "run_id"})
        for leftover in (db, Path(f"{db}.wal")):
            leftover.unlink(missing_ok=True)
        return result


# --------------------------------------------------------------------------------------------
# Summaries
# --------------------------------------------------------------------------------------------

TOOLS = ("pyeval_text,pyeval_parquet,route_text,route_parquet,duckdb_text,duckdb_parquet,trec_eval_O2_text,"
         "ranx_parquet,ranx_cold_parquet,pytrec_eval_text,ir_measures_text,pyeval_default_text,"
         "pyeval_default_parquet")
ONCE = ("ranx_cold", "pyeval_default")  # measured once per size (a cold JIT costs about a minute)
OURS = ("pyeval_text", "pyeval_parquet", "route_text", "route_parquet", "route_text.evaluate",
        "route_parquet.evaluate")
LABELS = {
    "pyeval": "pyeval trec_eval (--memory-limit)",
    "pyeval_default": "pyeval trec_eval (default limit)",
    "route": "route: load qrels + load run + evaluate",
    "route.load_qrels": "route: load qrels",
    "route.load_run": "route: load run",
    "route.evaluate": "route: evaluate --no-store",
    "duckdb": "bare DuckDB, one statement (floor)",
    "trec_eval_O2": "trec_eval 10 -O2",
    "ranx": "ranx, warm numba cache (load included)",
    "ranx_cold": "ranx, cold numba cache (load included)",
    "pytrec_eval": "pytrec_eval",
    "ir_measures": "ir_measures",
}


def label(tool: str) -> str:
    base, _, rest = tool.partition(".")
    name, _, fmt = base.rpartition("_")
    return f"{LABELS[name + ('.' + rest if rest else '')]}, {fmt}"


def summarise(reps: dict[str, list[dict]]) -> dict:
    """Medians per tool; the route's steps as tools of their own (``route_text.evaluate``)."""
    summary = {}
    for tool, results in reps.items():
        row = summary_row(results)
        stopped = [r["stopped"] for r in results if r.get("stopped")]
        if stopped:
            row["stopped"] = stopped[0]
        phases = [r["phases"] for r in results if r.get("returncode") == 0 and "phases" in r]
        if phases:
            row["phases_median"] = {k: round(statistics.median(p[k] for p in phases if k in p), 3)
                                    for k in phases[0]}
        summary[tool] = row
        if tool.startswith("route_"):
            for step in ("load_qrels", "load_run", "evaluate"):
                summary[f"{tool}.{step}"] = summary_row([r["steps"][step] for r in results
                                                         if step in r.get("steps", {})])
    return summary


def value_differences(values: dict[str, dict]) -> dict:
    """Each tool's largest absolute difference from the route's means (full doubles)."""
    reference = next((values[t] for t in ("route_parquet", "route_text") if t in values), None)
    if not reference:
        return {}
    return {tool: round(max(abs(v[k] - reference[k]) for k in reference if k in v), 12)
            for tool, v in values.items() if v}


def ratio_table(summary: dict, key: str = "wall_s") -> dict:
    """pyeval (each of OURS) / each other tool, on ``key``."""
    table = {}
    for ours in OURS:
        mine = summary.get(ours, {}).get(key)
        if not mine:
            continue
        table[ours] = {tool: round(mine / row[key], 3) for tool, row in summary.items()
                       if tool not in OURS and "." not in tool and not tool.startswith("pyeval_default")
                       and row.get(key)}
    return table


def targets(summary: dict, sample: dict | None) -> dict:
    """Issue 40's targets on this size's measurements (None where not measured)."""
    def wall(tool):
        return summary.get(tool, {}).get("wall_s")

    ranx = wall("ranx_parquet")
    pytrec = wall("pytrec_eval_text")
    out = {}
    for ours in ("pyeval_text", "pyeval_parquet", "route_text.evaluate", "route_parquet.evaluate",
                 "route_text", "route_parquet"):
        mine = wall(ours)
        out[f"{ours} faster than ranx (warm, load included)"] = (mine < ranx) if mine and ranx else None
        out[f"{ours} >= 3x faster than pytrec_eval"] = (pytrec / mine >= 3) if mine and pytrec else None
        peak = summary.get(ours, {}).get("peak_rss_mb")
        out[f"{ours} peak RSS <= 4 GB"] = (peak <= 4096) if peak else None
    if sample:
        out["values equal to pytrec_eval on 10,000 queries (1e-9)"] = sample["max_abs_diff"] <= 1e-9
    return out


def markdown(report: dict) -> str:
    lines = [f"Machine: {report['machine']['nproc']} CPUs, {report['machine']['cpu_model']}, "
             f"{report['machine']['ram_gib']} GiB, shared with other jobs (load averages per row)."]
    sample = report.get("sample_check")
    if sample:
        lines.append(f"\nValues on {sample['topics']:,} queries: pyeval (Python API) against pytrec_eval, "
                     f"largest absolute difference {sample['max_abs_diff']:.1e}.")
    for size, entry in sorted(report["sizes"].items(), key=lambda kv: int(kv[0])):
        data = entry["data"]
        lines.append(
            f"\n#### {int(size):,} queries x {data['docs_per_topic']} documents (run {data['run_lines']:,} lines: "
            f"text {data['run_bytes'] / 2**20:,.0f} MiB, Parquet {data['run_parquet_bytes'] / 2**20:,.0f} MiB; "
            f"qrels {data['qrels_lines']:,} lines)\n")
        for invocation in entry.get("invocations", []):
            lines.append(f"pyeval {invocation['commit']}, --memory-limit {invocation['memory_limit']}, address space "
                         f"capped at {invocation['as_limit_gb']} GB, time at {invocation['timeout_s']} s, "
                         f"{invocation['reps']} rep(s): {', '.join(invocation['tools'])}\n")
        lines.append("| tool | wall s (median) | all reps | peak RSS MiB | CPU s | load (1 min) | "
                     "max abs diff from route | phases |")
        lines.append("| --- | ---: | --- | ---: | ---: | --- | ---: | --- |")
        diffs = entry.get("value_diff_from_route", {})
        for tool, row in entry["summary"].items():
            if row.get("reps", 0) == 0:
                continue
            loads = ", ".join(f"{x:.1f}" for x in row["load1"] if x is not None)
            if row.get("ok", 0) == 0:
                why = row.get("stopped") or "failed"
                error = (row.get("error") or "").strip().splitlines()
                lines.append(f"| {label(tool)} | **stops: {why}** | "
                             f"{', '.join(f'{w:.0f}' for w in row['wall_s_all'] if w)} | | | {loads} | | "
                             f"{error[-1][:120] if error else ''} |")
                continue
            walls = ", ".join(f"{w:.1f}" for w in row["wall_s_all"] if w is not None)
            phases = ", ".join(f"{k} {v:.1f}" for k, v in row.get("phases_median", {}).items())
            diff = diffs.get(tool)
            lines.append(f"| {label(tool)} | {row['wall_s']:.1f} | {walls} | {row['peak_rss_mb']:,.0f} | "
                         f"{row['cpu_s']:.1f} | {loads} | {'' if diff is None else f'{diff:.1e}'} | {phases} |")
        table = entry["ratios_wall"]
        others = sorted({t for row in table.values() for t in row})
        if table:
            lines.append("\nWall-time ratios, pyeval / tool (below 1: pyeval faster):\n")
            lines.append("| pyeval | " + " | ".join(label(t) for t in others) + " |")
            lines.append("| --- |" + " ---: |" * len(others))
            for ours, row in table.items():
                lines.append(f"| {label(ours)} | " + " | ".join(
                    f"{row[t]:.2f}" if t in row else "" for t in others) + " |")
        met = {k: v for k, v in entry["targets"].items() if v is not None}
        if met:
            lines.append("\n| target | met |\n| --- | --- |")
            lines.extend(f"| {k} | {'yes' if v else '**no**'} |" for k, v in met.items())
    return "\n".join(lines) + "\n"


def sample_check(keep: Path, source: Path, as_limit_gb: float) -> dict:
    """pyeval's Python API against pytrec_eval on the first SAMPLE_QUERIES queries."""
    directory = keep / f"sample{SAMPLE_QUERIES}_of_{source.name}"
    if not (directory / "qrels.txt").exists():
        write_sample(source, directory, SAMPLE_QUERIES)
    phases = directory / "check.json"
    program = child_program(CHILD_SAMPLE_CHECK, MEASURES_PYEVAL=repr(PYEVAL_MEASURES),
                            MEASURES_TREC=repr(TREC_MEASURES))
    result = measure(capped(python_command(program, str(directory / "qrels.txt"), str(directory / "run.txt"),
                                           str(phases)), as_limit_gb, 3600))
    if result["returncode"]:
        raise RuntimeError(f"sample check failed: {result.get('error')}")
    values = json.loads(phases.read_text())["values"]
    ours, theirs = keyed(values["pyeval"]), keyed(values["pytrec_eval"])
    return {"topics": values["topics"], "pyeval": ours, "pytrec_eval": theirs,
            "max_abs_diff": max(abs(ours[k] - theirs[k]) for k in ours)}


def machine() -> dict:
    return common.machine(
        {name: common.package_version(name) for name in (
            "duckdb", "pyarrow", "pandas", "numpy", "pytrec-eval-terrier", "ranx", "ir-measures",
            "numba", "click", "pyeval")},
        trec_eval_O2=TREC_EVAL_O2)


def record(report: dict, n: int, data: dict, reps: dict[str, list[dict]], out: Path) -> None:
    """Summarise one size's measurements so far into ``report`` (keeping the tools an earlier
    invocation measured at this size and this one did not) and write ``out`` and its .md."""
    current = {t for t, r in reps.items() if r}
    earlier = report["sizes"].get(str(n), {}).get("reps", {})
    reps = {**{t: r for t, r in earlier.items() if t not in current}, **{t: r for t, r in reps.items() if r}}
    summary = summarise(reps)
    values = {t: next((r["values"] for r in rs if r.get("values")), None) for t, rs in reps.items()}
    entry = {"data": data, "reps": reps, "summary": summary, "values": values,
             "value_diff_from_route": value_differences(values),
             "ratios_wall": ratio_table(summary), "ratios_peak_rss": ratio_table(summary, "peak_rss_mb"),
             "load_average_at_end": os.getloadavg()}
    entry["targets"] = targets(summary, report.get("sample_check"))
    # each invocation that measured tools at this size: its commit, caps and tools (one entry
    # per invocation, told by its temporary folder, updated as its tools finish)
    invocation = {"id": report["code"].get("pycache_prefix"), "commit": report["code"]["commit"],
                  **report["settings"], "tools": sorted(current)}
    entry["invocations"] = [*(i for i in report["sizes"].get(str(n), {}).get("invocations", [])
                              if i.get("id") != invocation["id"]), invocation]
    report["sizes"][str(n)] = entry
    out.write_text(json.dumps(report, indent=1) + "\n")
    out.with_suffix(".md").write_text(markdown(report))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", required=True, help="folder holding the generated data (reused)")
    parser.add_argument("--sizes", default="100000,300000,1000000", help="comma-separated query counts")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--tools", default=TOOLS)
    parser.add_argument("--memory-limit", default="3GB", help="pyeval's --memory-limit (and the floor's)")
    parser.add_argument("--as-limit-gb", type=float, default=18.0, help="address-space cap of every process")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds after which a process is stopped")
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "scale_issue40.json"),
                        help="results (JSON; .md beside it); a size measured before keeps the tools not "
                             "measured again")
    parser.add_argument("--code", default="head", help="as bench_trec_eval.py --code (head, worktree, PATH)")
    parser.add_argument("--generate-only", action="store_true")
    parser.add_argument("--no-sample-check", action="store_true")
    args = parser.parse_args(argv)
    keep = Path(args.keep).resolve()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.generate_only:
        for n in sizes:
            print(json.dumps(prepare(keep, n)), flush=True)
        return 0
    if not Path(TREC_EVAL_O2).exists():
        raise SystemExit(f"no trec_eval -O2 build at {TREC_EVAL_O2} (../shared/tools/build-trec-eval -O2)")

    out = Path(args.out).resolve()
    tmp = Path(tempfile.mkdtemp(prefix="pyeval-bench-scale-", dir=keep))
    os.chdir(tmp)  # children must not import the work tree's pyeval through the working directory
    code = common.select_code(args.code, tmp)
    code.update(common.installed_bytecode(tmp))
    report = json.loads(out.read_text()) if out.exists() else {"benchmark": "scale_issue40", "sizes": {}}
    report.update(machine=machine(), code=code, settings={
        "reps": args.reps, "memory_limit": args.memory_limit, "as_limit_gb": args.as_limit_gb,
        "timeout_s": args.timeout, "docs": DOCS, "judged_per_query": JUDGED_PER_QUERY,
        "judged_retrieved": JUDGED_RETRIEVED, "measures": {"trec_eval": TREC_MEASURES, "pyeval": PYEVAL_MEASURES,
                                                           "ranx": RANX_METRICS}})
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    try:
        runner = Runner(tmp, args.memory_limit, args.as_limit_gb, args.timeout)
        if any(t.startswith("ranx_") and not t.startswith("ranx_cold") for t in tools):
            tiny = prepare(keep, 1000)  # fill the warm numba cache (types as at every size)
            warm = runner.run("ranx_parquet", tiny)
            print(f"numba cache filled: {warm['wall_s']:.1f}s rc {warm['returncode']}", flush=True)
        if not args.no_sample_check:
            report["sample_check"] = sample_check(keep, Path(prepare(keep, min(sizes))["run_file"]).parent,
                                                  args.as_limit_gb)
            print(f"sample check: {report['sample_check']}", flush=True)
        for n in sizes:
            data = prepare(keep, n)
            print(f"{n:,} queries: run {data['run_lines']:,} lines", flush=True)
            reps: dict[str, list[dict]] = {tool: [] for tool in tools}
            stopped: set[str] = set()
            for rep in range(args.reps):
                for tool in tools:
                    if tool in stopped or (rep and tool.rpartition("_")[0] in ONCE):
                        continue
                    result = runner.run(tool, data)
                    reps[tool].append(result)
                    if result.get("stopped"):
                        stopped.add(tool)  # it will not do better on a second try
                    status = f" STOPPED ({result['stopped']}): {result.get('error', '')[-300:]}" \
                        if result.get("stopped") else ""
                    print(f"  rep {rep + 1} {tool}: {result['wall_s']:.1f}s "
                          f"{result.get('peak_rss_mb', 0):,.0f} MiB (load {result['load1']:.2f}){status}",
                          flush=True)
                    record(report, n, data, reps, out)  # what is measured survives a later failure
    finally:
        os.chdir(REPO)
        shutil.rmtree(tmp, ignore_errors=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    table = markdown(report)
    out.with_suffix(".md").write_text(table)
    print(table)
    print(f"written {out} and {out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
