"""Loading benchmark: pyeval's qrels and run loaders against a bare DuckDB read and pandas.

    python bench/bench_load.py [--lines 10000000] [--quick-lines 1000000] [--repeat 2]
                               [--out bench/results/load.json] [--profile auto|always|never]
                               [--code HEAD|<revision>|worktree] [--idle-wait 3]

What it does:

1. Generates, reproducibly (numpy ``default_rng(seed)``, vectorised; text built with
   pyarrow.compute, no Python loop per line), a TREC run of N lines (N/1000 topics x 1000
   documents, ClueWeb09-style docnos, scores rounded to 3 decimals so that ties occur,
   space separated) and a matching qrels file (200 judgments per topic, 150 of them on
   retrieved documents, graded 0-3), in a temporary directory outside the repository.
2. Times each of these in a fresh Python subprocess, so that the peak RSS
   (VmHWM of that process, see ``_vm_hwm_kb``) belongs to one measurement only:

   - ``pyeval_qrels``     pyeval.load_qrels into a new warehouse file
   - ``pyeval_run``       pyeval.load_run into a copy of that warehouse (qrels already in it)
   - ``duckdb_read``      bare DuckDB: ``create table as select * from read_csv(...)`` into a
                          new database file (typed columns, space delimiter): the floor
   - ``pandas_read``      pandas.read_csv(sep=r"\s+", engine="c"): the usual DataFrame path
   - ``pytrec_pandas``    pandas.read_csv + building pytrec_eval's {qid: {docno: score}}
                          dict (the ir_measures/pytrec_eval style input), if pytrec_eval is
                          installed
   - ``pytrec_parse_run`` pytrec_eval.parse_run (its own pure-Python line parser)

   Wall time is of the operation only (imports and interpreter start-up excluded; opening
   and closing the database included, since DuckDB writes its data at commit/close).
   Files are in the page cache (just written), so these are warm-cache figures. The
   measurements are interleaved (each repetition runs every kind once); before each one the
   script waits up to --idle-wait seconds for the machine to be idle, and records how much
   CPU other processes used meanwhile (the machine may be shared).
3. pyeval is measured from a snapshot of a commit (``git archive``, default HEAD), so that a
   checkout that changes during the run cannot mix versions; ``--code worktree`` measures the
   checkout as is.
4. If the pyeval run load takes more than 3x the bare DuckDB read (or with
   ``--profile always``), profiles one more run load in a subprocess, instrumented from the
   outside: every SQL statement on the connection (labelled by its sql/loaders file) and every
   function of pyeval.loaders gets its own (exclusive) time; then times alternative
   formulations of the costly steps in an in-memory DuckDB, as evidence for possible
   speed-ups. pyeval itself is not modified.
5. Writes JSON (``--out``) and prints markdown tables.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common
from common import REPO

# Measure the checkout this script belongs to (or the snapshot of it that the parent made, see
# --code), not whatever copy of pyeval is installed.
CODE_ENV = "PYEVAL_BENCH_CODE"
sys.path.insert(0, os.environ.get(CODE_ENV) or str(REPO))

SEED = 20240607
DOCS_PER_TOPIC = 1000
RUN_COLUMNS = ["query_id", "iteration", "doc_id", "rank", "score", "run_tag"]

LABELS = {
    "pyeval_qrels": "pyeval load_qrels (new warehouse file)",
    "pyeval_run": "pyeval load_run (into that warehouse)",
    "pyeval_total": "pyeval qrels + run (sum)",
    "duckdb_read": "bare DuckDB read_csv -> table (floor)",
    "pandas_read": "pandas.read_csv (sep=\\s+, engine=c)",
    "pytrec_pandas": "pytrec_eval input: pandas.read_csv + dict build",
    "pytrec_parse_run": "pytrec_eval input: pytrec_eval.parse_run",
}


# --------------------------------------------------------------------------------------------
# Data generation (parent process, not timed as part of any measurement)
# --------------------------------------------------------------------------------------------


def generate(directory: Path, n_lines: int, seed: int = SEED) -> dict:
    """Write run.txt and qrels.txt for n_lines run lines; return their description."""
    data = common.generate(directory, n_lines // DOCS_PER_TOPIC, DOCS_PER_TOPIC, seed)
    keys = ("seed", "run_file", "qrels_file", "run_lines", "run_bytes", "qrels_lines", "qrels_bytes",
            "topics", "docs_per_topic", "tied_adjacent_scores")
    return {**{key: data[key] for key in keys}, "separator": "space",
            "generation_seconds": data["generation_s"]}


# --------------------------------------------------------------------------------------------
# Child processes: one measurement each
# --------------------------------------------------------------------------------------------


def _vm_hwm_kb() -> int:
    """Peak RSS of this process so far (VmHWM), in kB.

    Not ``getrusage().ru_maxrss``: Linux carries the parent's high-water mark across
    fork + exec into it, so a child of a big parent would report at least the parent's RSS.
    VmHWM belongs to the process's own address space, which exec starts afresh.
    """
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


def _measure(operation) -> dict:
    baseline_kb = _vm_hwm_kb()
    usage0 = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    extra = operation() or {}
    wall = time.perf_counter() - started
    usage1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (usage1.ru_utime - usage0.ru_utime) + (usage1.ru_stime - usage0.ru_stime)
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "peak_rss_mb": _vm_hwm_kb() / 1024,
        "baseline_rss_mb": baseline_kb / 1024,  # peak after imports, before the operation
        **extra,
    }


def _read_run_frame(pd, run_path: str):
    """The run file as a pandas DataFrame (whitespace separated, C engine, typed columns)."""
    return pd.read_csv(
        run_path, sep=r"\s+", engine="c", header=None, names=RUN_COLUMNS,
        dtype={"query_id": str, "iteration": str, "doc_id": str, "rank": "int64",
               "score": "float64", "run_tag": str},
    )


def child_main(kind: str, run_path: str, qrels_path: str, db_path: str) -> dict:
    if kind == "pyeval_qrels":
        import pyeval

        def operation():
            con = pyeval.connect(db_path)
            report = pyeval.load_qrels(con, "bench", qrels_path)
            con.close()
            return {"rows": report.rows}

    elif kind == "pyeval_run":
        import pyeval

        def operation():
            con = pyeval.connect(db_path)
            report = pyeval.load_run(con, "bench", run_path, name="bench-run")
            con.close()
            return {"rows": report.rows}

    elif kind == "duckdb_read":
        import duckdb

        def operation():
            con = duckdb.connect(db_path)
            con.execute(
                "create table run as select * from read_csv($path, delim = ' ', header = false, "
                "columns = {'query_id': 'VARCHAR', 'iteration': 'VARCHAR', 'doc_id': 'VARCHAR', "
                "'rank': 'BIGINT', 'score': 'DOUBLE', 'run_tag': 'VARCHAR'})",
                {"path": run_path},
            )
            rows = con.execute("select count(*) from run").fetchone()[0]
            con.close()
            return {"rows": rows}

    elif kind == "pandas_read":
        import pandas as pd

        def operation():
            frame = _read_run_frame(pd, run_path)
            return {"rows": len(frame)}

    elif kind == "pytrec_pandas":
        import pandas as pd
        import pytrec_eval  # noqa: F401  (the consumer of the dict)

        def operation():
            frame = _read_run_frame(pd, run_path)
            run = {
                query_id: dict(zip(group["doc_id"].tolist(), group["score"].tolist()))
                for query_id, group in frame.groupby("query_id", sort=False)
            }
            return {"rows": sum(map(len, run.values()))}

    elif kind == "pytrec_parse_run":
        import pytrec_eval

        def operation():
            with open(run_path) as handle:
                run = pytrec_eval.parse_run(handle)
            return {"rows": sum(map(len, run.values()))}

    elif kind == "profile":
        return profile_run_load(run_path, db_path)
    else:
        raise ValueError(kind)
    return _measure(operation)


#: The SQL field split that pyeval used before commit a3d4ef7 (a3d4ef7^:sql/loaders/split_fields.sql,
#: replaced by Arrow compute in pyeval.loaders.staging.split_fields); kept to compare.
LEGACY_SPLIT_SQL = """
with trimmed as (
    select line_number, trim(line, e' \\t') as line
    from input_lines
)
select
    line_number,
    line = '' as is_blank,
    case when line = '' then [] else string_split_regex(line, '[ \\t]+') end as fields
from trimmed
where not starts_with(line, '#') and line <> ''
"""


class _Timings:
    """Exclusive (self) wall and CPU time per label, with a stack so that nested timed calls
    are not counted twice: the labels partition the time of the outermost call."""

    def __init__(self):
        import threading

        self.rows: dict[str, dict[str, float]] = {}
        self.local = threading.local()  # per thread: the stack of open calls
        self.lock = threading.Lock()
        self.main = threading.get_ident()

    def run(self, label, function, *args, count=True, **kwargs):
        import threading

        stack = self.local.__dict__.setdefault("stack", [])  # per open call: [child wall, cpu]
        stack.append([0.0, 0.0])
        # process_time() counts every thread; in a worker thread only wall time is meaningful.
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            child_wall, child_cpu = stack.pop()
            if stack:
                stack[-1][0] += wall
                stack[-1][1] += cpu
            if threading.get_ident() != self.main:
                label += " [worker thread, overlaps the above]"
            with self.lock:
                row = self.rows.setdefault(label, {"calls": 0, "wall_s": 0.0, "cpu_s": 0.0,
                                                   "peak_rss_mb": 0.0})
                row["calls"] += count
                row["wall_s"] += wall - child_wall
                row["cpu_s"] += cpu - child_cpu
                row["peak_rss_mb"] = max(row["peak_rss_mb"], _vm_hwm_kb() / 1024)


class _TimedConnection:
    """A DuckDB connection whose SQL calls are timed, each labelled by the pyeval SQL file it
    runs (matched by content) or by its first words."""

    def __init__(self, con, timings: _Timings, sql_files: dict[str, str]):
        self._con, self._timings, self._sql_files = con, timings, sql_files
        self._last = "sql: ?"

    def _label(self, query: str) -> str:
        for name, text in self._sql_files.items():
            if text and text in query:
                return f"sql: {name}"
        return "sql: " + " ".join(query.split())[:70]

    def execute(self, query, *args, **kwargs):
        self._last = self._label(query)
        self._timings.run(self._last, self._con.execute, query, *args, **kwargs)
        return self

    def sql(self, query, *args, **kwargs):
        self._last = self._label(query)
        return self._timings.run(self._last, self._con.sql, query, *args, **kwargs)

    def __getattr__(self, name):
        attribute = getattr(self._con, name)
        if not callable(attribute):
            return attribute
        if name.startswith("fetch"):  # the rest of the last statement
            return lambda *a, **k: self._timings.run(self._last, attribute, *a, count=False, **k)
        return lambda *a, **k: self._timings.run(f"duckdb: {name}()", attribute, *a, **k)


def _instrument_loaders(timings: _Timings) -> None:
    """Wrap every function of pyeval.loaders.* (and pyeval.core.db) so that its own time, outside
    the SQL it runs and the other functions it calls, is recorded under its name."""
    import functools
    import importlib
    import inspect
    import pkgutil

    import pyeval.core.db
    import pyeval.loaders

    modules = [pyeval.core.db] + [importlib.import_module(f"pyeval.loaders.{m.name}")
                             for m in pkgutil.iter_modules(pyeval.loaders.__path__)]
    wrapped = {}
    for module in modules:
        for name, function in vars(module).items():
            if (inspect.isfunction(function) and function.__module__.startswith("pyeval.")
                    and not inspect.isgeneratorfunction(function)
                    and function.__name__ != "transaction"):
                if function not in wrapped:
                    label = f"python: {function.__module__.rsplit('.', 1)[-1]}.{function.__name__}"

                    def make(function=function, label=label):
                        @functools.wraps(function)
                        def timed(*args, **kwargs):
                            return timings.run(label, function, *args, **kwargs)
                        return timed

                    wrapped[function] = make()
                setattr(module, name, wrapped[function])


def profile_run_load(run_path: str, db_path: str) -> dict:
    """pyeval.load_run, instrumented from the outside (pyeval is not modified): every SQL
    statement on the connection and every function of pyeval.loaders is timed, each with its
    own (exclusive) time, so the rows add up to the whole load. Then variants of costly steps."""
    import duckdb
    import pyeval
    from pyeval.core import sqlfiles
    from pyeval.loaders import staging
    from pyeval.loaders.source import read_lines

    loader_sql = sqlfiles.resource_root("sql") / "loaders"
    sql_files = {f"loaders/{p.name}": "\n".join(
        line for line in p.read_text().splitlines() if not line.startswith("--")).strip()
        for p in sorted(loader_sql.glob("*.sql"))}
    timings = _Timings()
    _instrument_loaders(timings)
    from pyeval.loaders import runs

    def load():
        con = _TimedConnection(timings.run("pyeval.connect", pyeval.connect, db_path), timings, sql_files)
        report = runs.load_run(con, "bench", run_path, name="bench-run")  # the wrapped one
        con.close()
        return report

    started = time.perf_counter()
    report = timings.run("python: the rest (load_run, load_runs' own lines)", load)
    total = time.perf_counter() - started
    # a copy: the variants below call the same (still wrapped) functions
    steps = {label: dict(row) for label, row in
             sorted(timings.rows.items(), key=lambda item: -item[1]["wall_s"])}

    # Variants (in memory, no warehouse, same Arrow table of lines): what each formulation of
    # the parse costs. Wall and CPU seconds of this process (DuckDB's threads included).
    variants: dict[str, dict[str, float]] = {}
    lines = read_lines(run_path)  # the general path's input: one string per line
    mem = duckdb.connect()
    mem.execute(sqlfiles.read("loaders/macros.sql"))  # the typing rules run_rows.sql calls
    mem.register("input_lines", lines.table)
    rows_sql = sqlfiles.read("loaders/run_rows.sql")

    def timed(name, function, keep_result=False):
        wall, cpu_started = time.perf_counter(), time.process_time()
        result = function()
        variants[name] = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu_started}
        if keep_result:
            variants[name]["result"] = result[0][0]

    def sql(text, parameters=None):
        return lambda: mem.execute(text, parameters or {}).fetchall()

    def drop(*tables):
        for table in tables:
            mem.execute(f"drop table if exists {table}")

    timed("split: SQL trim + string_split_regex (pyeval before a3d4ef7)",
          sql("create or replace temp table legacy as " + LEGACY_SPLIT_SQL))
    drop("legacy")
    if hasattr(staging, "split_fields"):
        def arrow_split():
            fields = staging.split_fields(lines, separator=staging.WHITESPACE, comments=True, skip_blank=True)
            mem.register("input_fields", fields)
            mem.execute("create or replace temp table f as select * from input_fields").fetchall()
            mem.unregister("input_fields")

        timed("split: Arrow ascii_split_whitespace (current), materialised in DuckDB", arrow_split)
    else:
        sql("create or replace temp table f as " + LEGACY_SPLIT_SQL)()
    timed("split: SQL string_split(line, ' ') alone (exact only for single-space lines)",
          sql("create or replace temp table f3 as select line_number, string_split(line, ' ') as fields "
              "from input_lines"))
    drop("f3")
    timed("run_rows.sql as shipped (from the split table)",
          sql("create or replace temp table r as " + rows_sql.replace("input_fields", "f")))
    timed("run_rows without its two regexp_full_match guards (try_cast only; NOT equivalent)",
          sql("create or replace temp table r1 as select line_number, len(fields) as field_count, "
              "fields[1] as topic_id, fields[3] as doc_id, fields[4] as rank_text, fields[5] as score_text, "
              "fields[6] as run_tag, try_cast(fields[4] as bigint) as rank_given, "
              "try_cast(fields[5] as double) as score from f"))
    drop("r1")
    timed("run_problems.sql as shipped", sql(sqlfiles.read("loaders/run_problems.sql").replace("run_input", "r")))
    timed("  its duplicate check alone (group by topic, doc having count(*) > 1)",
          sql("select count(*) from (select topic_id, doc_id from r group by all having count(*) > 1)"))
    timed("  rows minus count(distinct hash(topic_id, doc_id)): DuckDB hash collisions (no duplicates here)",
          sql("select count(*) - count(distinct hash(topic_id, doc_id)) from r"), keep_result=True)
    timed("  rows minus count(distinct (topic_id, doc_id)): exact, no hash",
          sql("select count(*) - count(distinct (topic_id, doc_id)) from r"), keep_result=True)
    timed("insert the rows into an in-memory table (no disk)",
          sql("create or replace temp table e as select 'bench' as campaign_id, 'run' as run_id, topic_id, "
              "doc_id, rank_given, score, line_number as file_position from r"))
    drop("e")
    timed("DuckDB read_csv(delim=' ') of the file into an in-memory table",
          sql("create or replace temp table c as select * from read_csv($path, delim = ' ', header = false, "
              "columns = {'q': 'VARCHAR', 'i': 'VARCHAR', 'd': 'VARCHAR', 'r': 'BIGINT', 's': 'DOUBLE', "
              "'t': 'VARCHAR'})", {"path": run_path}))
    mem.close()
    return {
        "rows": report.rows,
        "steps": steps,
        "total_s": total,
        "variants_s": variants,
    }


# --------------------------------------------------------------------------------------------
# Parent: orchestration and reporting
# --------------------------------------------------------------------------------------------


def _busy_cpu_seconds() -> float:
    """CPU seconds spent by the whole machine so far (all CPUs, /proc/stat, not idle/iowait)."""
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wait_for_idle(max_wait: float, threshold: float = 0.3) -> float:
    """Wait up to max_wait seconds until other processes use < threshold CPUs over 0.5 s;
    return the CPUs they used in the last interval."""
    deadline = time.monotonic() + max_wait
    while True:
        busy = _busy_cpu_seconds()
        time.sleep(0.5)
        others = (_busy_cpu_seconds() - busy) / 0.5
        if others < threshold or time.monotonic() >= deadline:
            return others


def run_child(kind: str, data: dict, db_path: Path) -> dict:
    """One measurement in a fresh interpreter; also how much CPU other processes took meanwhile."""
    command = [sys.executable, os.path.abspath(__file__), "--child", kind,
               "--run-file", data["run_file"], "--qrels-file", data["qrels_file"], "--db", str(db_path)]
    busy, children = _busy_cpu_seconds(), _children_cpu_seconds()
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        raise RuntimeError(f"{kind} failed:\n{completed.stderr}")
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    result["process_wall_s"] = wall
    own = _children_cpu_seconds() - children
    # Rounded clock ticks make this approximate (+-0.1 CPU on short runs).
    result["other_processes_cpus"] = max(0.0, (_busy_cpu_seconds() - busy - own) / wall)
    return result


def machine() -> dict:
    import duckdb
    import numpy
    import pandas
    import pyarrow
    import pyeval

    versions = {
        "duckdb": duckdb.__version__,
        "pyarrow": pyarrow.__version__,
        "pandas": pandas.__version__,
        "numpy": numpy.__version__,
    }
    pytrec = common.package_version("pytrec-eval-terrier")
    if pytrec is not None:
        versions["pytrec_eval_terrier"] = pytrec
    versions["pyeval"] = f"{pyeval.__version__} ({Path(pyeval.__file__).parent})"
    return common.machine(versions, ram_key="ram_gb")


def code_state() -> dict:
    """The commit measured, and whether pyeval's code or SQL differ from it."""
    def git(*args):
        out = common.git(*args)
        return None if out is None else out.strip()

    return {"commit": git("rev-parse", "HEAD"),
            "pyeval_sql_changes": git("status", "--porcelain", "--", "pyeval", "sql", "migrations")}


def have_pytrec_eval() -> bool:
    try:
        import pytrec_eval  # noqa: F401
    except ImportError:
        return False
    return True


def summarise(reps: list[dict]) -> dict:
    keys = ("wall_s", "cpu_s", "peak_rss_mb", "baseline_rss_mb")
    out = {key: statistics.median(r[key] for r in reps) for key in keys}
    out["wall_min_s"] = min(r["wall_s"] for r in reps)
    out["other_processes_cpus"] = statistics.median(r["other_processes_cpus"] for r in reps)
    out["other_processes_cpus_fastest"] = min(reps, key=lambda r: r["wall_s"])["other_processes_cpus"]
    out["wall_max_s"] = max(r["wall_s"] for r in reps)
    out["rows"] = reps[0].get("rows")
    out["reps"] = reps
    return out


def bench_size(workdir: Path, n_lines: int, repeat: int, kinds: list[str], log, idle_wait: float) -> dict:
    sizedir = workdir / f"n{n_lines}"
    sizedir.mkdir(parents=True, exist_ok=True)
    data = generate(sizedir, n_lines)
    log(f"generated {data['run_lines']:,} run lines ({data['run_bytes']:,} bytes), "
        f"{data['qrels_lines']:,} qrels lines in {data['generation_seconds']} s")
    reps: dict[str, list[dict]] = {kind: [] for kind in kinds}
    for rep in range(repeat):
        for kind in kinds:
            db = sizedir / f"{kind}.duckdb"
            for stale in sizedir.glob(f"{kind}.duckdb*"):
                stale.unlink()
            if kind == "pyeval_run":
                # A warehouse with the qrels loaded, made by the pyeval_qrels measurement.
                shutil.copyfile(sizedir / "pyeval_qrels.duckdb", db)
            before = wait_for_idle(idle_wait)
            result = run_child(kind, data, db)
            result["other_processes_cpus_before"] = before
            result["db_bytes"] = db.stat().st_size if db.exists() else None
            reps[kind].append(result)
            log(f"  [{n_lines:,}] rep {rep + 1} {kind}: {result['wall_s']:.2f} s, "
                f"peak RSS {result['peak_rss_mb']:.0f} MB, other processes "
                f"{result['other_processes_cpus']:.1f} CPUs")
    results = {kind: summarise(r) for kind, r in reps.items()}
    if "pyeval_qrels" in results and "pyeval_run" in results:
        q, r = results["pyeval_qrels"], results["pyeval_run"]
        results["pyeval_total"] = {
            "wall_s": q["wall_s"] + r["wall_s"],
            "cpu_s": q["cpu_s"] + r["cpu_s"],
            "peak_rss_mb": max(q["peak_rss_mb"], r["peak_rss_mb"]),
            "baseline_rss_mb": q["baseline_rss_mb"],
            "rows": (q["rows"] or 0) + (r["rows"] or 0),
            "wall_min_s": q["wall_min_s"] + r["wall_min_s"],
            "wall_max_s": q["wall_max_s"] + r["wall_max_s"],
        }
    return {"data": data, "results": results, "sizedir": str(sizedir)}


def ratios(results: dict) -> None:
    """Ratios of the fastest repetitions (the least disturbed by other load on the machine)."""
    floor = results.get("duckdb_read", {}).get("wall_min_s")
    peer = results.get("pandas_read", {}).get("wall_min_s")
    for r in results.values():
        r["x_duckdb_read"] = r["wall_min_s"] / floor if floor else None
        r["x_pandas_read"] = r["wall_min_s"] / peer if peer else None


def markdown(size: dict) -> str:
    data, results = size["data"], size["results"]
    n = len(results[next(iter(results))].get("reps", [None]))
    head = (f"{n} run(s) each. Run: {data['run_lines']:,} lines, {data['run_bytes'] / 1e6:,.0f} MB; "
            f"qrels: {data['qrels_lines']:,} lines, {data['qrels_bytes'] / 1e6:,.0f} MB. "
            f"Ratios use the fastest run. 'Other load': CPUs used by other processes during "
            f"the fastest run (of {os.cpu_count()}).\n\n")
    rows = ["| measurement | wall, fastest (s) | wall, median (s) | CPU, median (s) | peak RSS (MB) "
            "| RSS over import baseline (MB) | x DuckDB read | x pandas | other load |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    order = ["pyeval_qrels", "pyeval_run", "pyeval_total", "duckdb_read", "pandas_read",
             "pytrec_pandas", "pytrec_parse_run"]
    for name in order:
        if name not in results:
            continue
        r = results[name]
        if name == "pyeval_qrels":  # the other rows all read the run file
            vs_duckdb = vs_pandas = "-"
        else:
            vs_duckdb, vs_pandas = f"{r['x_duckdb_read']:.2f}", f"{r['x_pandas_read']:.2f}"
        other = f"{r['other_processes_cpus_fastest']:.1f}" if "other_processes_cpus_fastest" in r else "-"
        rows.append(
            f"| {LABELS[name]} | {r['wall_min_s']:.2f} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} | "
            f"{r['peak_rss_mb']:,.0f} | {r['peak_rss_mb'] - r['baseline_rss_mb']:,.0f} | "
            f"{vs_duckdb} | {vs_pandas} | {other} |"
        )
    return head + "\n".join(rows) + "\n"


def profile_markdown(profile: dict) -> str:
    total = profile["total_s"]
    rows = [f"pyeval.load_run of {profile['rows']:,} lines, {total:.2f} s in all. Each row is the "
            "time spent in that SQL statement or in that pyeval function itself (not in the SQL or "
            "the functions it calls), so the rows add up to the total, except those run in a worker "
            "thread, which overlap the others (their CPU column is the whole process's).", "",
            "| where (SQL file run, or pyeval function) | calls | wall (s) | share | CPU (s) "
            "| peak RSS by then (MB) |",
            "|---|---:|---:|---:|---:|---:|"]
    for name, row in profile["steps"].items():
        if row["wall_s"] < 0.005 * total:
            continue
        rows.append(f"| {name} | {row['calls']} | {row['wall_s']:.2f} | {100 * row['wall_s'] / total:.0f}% "
                    f"| {row['cpu_s']:.2f} | {row['peak_rss_mb']:,.0f} |")
    small = [row for name, row in profile["steps"].items()
             if row["wall_s"] < 0.005 * total and "worker thread" not in name]
    if small:
        rows.append(f"| {len(small)} others, each < 0.5% | {sum(r['calls'] for r in small)} | "
                    f"{sum(r['wall_s'] for r in small):.2f} | | {sum(r['cpu_s'] for r in small):.2f} | |")
    rows += ["", "| variant (in-memory DuckDB, same Arrow table of lines) | wall (s) | CPU (s) |",
             "|---|---:|---:|"]
    for name, timing in profile["variants_s"].items():
        result = f" -> {timing['result']:,}" if "result" in timing else ""
        rows.append(f"| {name}{result} | {timing['wall_s']:.2f} | {timing['cpu_s']:.2f} |")
    return "\n".join(rows) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000_000, help="run lines (multiple of 1000)")
    parser.add_argument("--quick-lines", type=int, default=1_000_000,
                        help="a second, smaller size for a quick figure (0: skip)")
    parser.add_argument("--repeat", type=int, default=2, help="repetitions per measurement (median reported)")
    parser.add_argument("--quick-repeat", type=int, default=3, help="repetitions at the quick size")
    parser.add_argument("--out", default="bench/results/load.json")
    parser.add_argument("--profile", choices=("auto", "always", "never"), default="auto",
                        help="step-by-step profile of the run load (auto: if > 3x the DuckDB read)")
    parser.add_argument("--idle-wait", type=float, default=3,
                        help="before each measurement, wait up to this many seconds for other "
                             "processes to use < 0.3 CPU (the machine may be shared)")
    parser.add_argument("--workdir", help="where to write data (default: a new temporary directory)")
    parser.add_argument("--keep", action="store_true", help="keep the generated data")
    parser.add_argument("--code", default="HEAD",
                        help="a git revision: measure a snapshot of pyeval at that commit (git archive; "
                             "default HEAD, stable even if the checkout changes meanwhile); or "
                             "'worktree': the checkout as is")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--run-file", help=argparse.SUPPRESS)
    parser.add_argument("--qrels-file", help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        print(json.dumps(child_main(args.child, args.run_file, args.qrels_file, args.db)))
        return 0

    for n in (args.lines, args.quick_lines):
        if n and n % DOCS_PER_TOPIC:
            parser.error(f"line counts must be multiples of {DOCS_PER_TOPIC}")

    def log(message):
        print(message, file=sys.stderr, flush=True)

    kinds = ["pyeval_qrels", "pyeval_run", "duckdb_read", "pandas_read"]
    if have_pytrec_eval():
        kinds += ["pytrec_pandas", "pytrec_parse_run"]
    else:
        log("pytrec_eval not installed: skipping the pytrec_eval measurements")

    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="pyeval-bench-load-"))
    started = time.perf_counter()
    code = code_state()
    if args.code != "worktree":
        code["commit"] = subprocess.run(["git", "-C", str(REPO), "rev-parse", args.code],
                                        capture_output=True, text=True, check=True).stdout.strip()
        snapshot = workdir / "code"
        common.snapshot_code(code["commit"], snapshot)
        os.environ[CODE_ENV] = str(snapshot)  # the children import pyeval from here
        sys.path.insert(0, str(snapshot))
        code = {"commit": code["commit"], "measured": "git archive of the commit (local changes excluded)"}
    else:
        code["measured"] = "working tree"
    report = {"benchmark": "load", "machine": machine(), "labels": LABELS, "sizes": {},
              "command": " ".join([Path(sys.executable).name, *sys.argv]),
              "code_at_start": code}
    try:
        sizes = [(args.quick_lines, args.quick_repeat)] if args.quick_lines else []
        sizes.append((args.lines, args.repeat))
        for n_lines, repeat in sizes:
            size = bench_size(workdir, n_lines, repeat, kinds, log, args.idle_wait)
            ratios(size["results"])
            report["sizes"][str(n_lines)] = size
        big = report["sizes"][str(args.lines)]
        ratio = big["results"]["pyeval_run"]["x_duckdb_read"]
        if args.profile == "always" or (args.profile == "auto" and ratio and ratio > 3):
            log(f"profiling the run load (pyeval_run is {ratio:.1f}x the DuckDB read)")
            db = Path(big["sizedir"]) / "profile.duckdb"
            for stale in db.parent.glob("profile.duckdb*"):
                stale.unlink()
            shutil.copyfile(Path(big["sizedir"]) / "pyeval_qrels.duckdb", db)
            report["profile"] = run_child("profile", big["data"], db)
            report["profile"]["lines"] = args.lines
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    report["total_benchmark_seconds"] = round(time.perf_counter() - started, 1)
    if args.code == "worktree":
        report["code_at_end"] = code_state()
        if report["code_at_end"]["commit"] != code["commit"] or (
                report["code_at_end"]["pyeval_sql_changes"] != code["pyeval_sql_changes"]):
            log("WARNING: pyeval's code changed during the benchmark; the figures mix versions")

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    m = report["machine"]
    print(f"pyeval commit {code['commit']} ({code['measured']}"
          + (", with local changes" if code.get("pyeval_sql_changes") else "") + ")\n")
    print(f"Machine: {m['nproc']} CPUs, {m['cpu_model']}, {m['ram_gb']} GB RAM; "
          + ", ".join(f"{k} {v}" for k, v in m["versions"].items()) + "\n")
    for n_lines, size in report["sizes"].items():
        print(f"### {int(n_lines):,} run lines\n")
        print(markdown(size))
    if "profile" in report:
        print(f"### Profile of the pyeval run load ({args.lines:,} lines)\n")
        print(profile_markdown(report["profile"]))
    print(f"Results: {out}  (benchmark took {report['total_benchmark_seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
