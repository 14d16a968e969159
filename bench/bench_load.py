"""Loading benchmark: pyeval's qrels and run loaders against a bare DuckDB read and pandas.

    python bench/bench_load.py [--lines 10000000] [--quick-lines 1000000] [--repeat 1]
                               [--out bench/results/load.json] [--profile auto|always|never]

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
   - ``pandas_read``      pandas.read_csv(sep=r"\\s+", engine="c"): the usual DataFrame path
   - ``pytrec_pandas``    pandas.read_csv + building pytrec_eval's {qid: {docno: score}}
                          dict (the ir_measures/pytrec_eval style input), if pytrec_eval is
                          installed
   - ``pytrec_parse_run`` pytrec_eval.parse_run (its own pure-Python line parser)

   Wall time is of the operation only (imports and interpreter start-up excluded; opening
   and closing the database included, since DuckDB writes its data at commit/close).
   Files are in the page cache (just written), so these are warm-cache figures.
3. If the pyeval run load takes more than 3x the bare DuckDB read (or with
   ``--profile always``), re-runs the run loader's steps one by one in a subprocess, with the
   same SQL files (pyeval/sqlfiles), and times each step; also times a few alternative SQL
   formulations, as evidence for possible speed-ups. pyeval itself is not modified.
4. Writes JSON (``--out``) and prints markdown tables.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Measure the checkout this script belongs to, not whatever copy of pyeval is installed.
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SEED = 20240607
DOCS_PER_TOPIC = 1000
QRELS_PER_TOPIC = 200
QRELS_RETRIEVED = 150  # of the 200 judged documents per topic, this many are in the run
DOC_SPACE = 99_999_989  # a prime: doc index = (a + j * b) mod p is unique for j < p
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


def _docnos(pc, pa, index):
    """ClueWeb09-style docnos clueweb09-en0000-00-00000 from integer indices < 10**8."""
    def padded(values, width):
        return pc.utf8_lpad(pc.cast(pa.array(values), pa.string()), width, "0")

    return pc.binary_join_element_wise(
        "clueweb09-en",
        padded(index // 10_000_000, 4),
        "-",
        padded(index // 100_000 % 100, 2),
        "-",
        padded(index % 100_000, 5),
        "",
    )


def generate(directory: Path, n_lines: int, seed: int = SEED) -> dict:
    """Write run.txt and qrels.txt for n_lines run lines; return their description."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    started = time.perf_counter()
    n_topics = n_lines // DOCS_PER_TOPIC
    rng = np.random.default_rng(seed)
    offsets = rng.integers(0, DOC_SPACE, n_topics)
    steps = rng.integers(1, DOC_SPACE, n_topics)
    write_options = pacsv.WriteOptions(include_header=False, quoting_style="none")
    run_path, qrels_path = directory / "run.txt", directory / "qrels.txt"
    tied = 0
    block = 1000  # topics per block: a loop over blocks of a million lines, not over lines
    with pa.OSFile(str(run_path), "wb") as run_sink, pa.OSFile(str(qrels_path), "wb") as qrels_sink:
        run_writer = pacsv.CSVWriter(run_sink, pa.schema([("line", pa.string())]), write_options=write_options)
        qrels_writer = pacsv.CSVWriter(qrels_sink, pa.schema([("line", pa.string())]), write_options=write_options)
        for first in range(0, n_topics, block):
            topics = np.arange(first, min(first + block, n_topics))
            t, k = len(topics), DOCS_PER_TOPIC
            j = np.arange(k + QRELS_PER_TOPIC - QRELS_RETRIEVED, dtype=np.int64)
            index = (offsets[topics, None] + j[None, :] * steps[topics, None]) % DOC_SPACE
            # Scores: normal(10, 2) in thousandths, so ~50 tied pairs per topic of 1000.
            milli = np.clip(np.rint(rng.normal(10_000, 2_000, (t, k))), 0, None).astype(np.int64)
            order = np.argsort(-milli, axis=1, kind="stable")
            milli = np.take_along_axis(milli, order, axis=1)
            run_docs = np.take_along_axis(index[:, :k], order, axis=1)
            tied += int((np.diff(milli, axis=1) == 0).sum())
            topic_ids = pc.cast(pa.array(np.repeat(topics + 1, k)), pa.string())
            ranks = pc.cast(pa.array(np.tile(np.arange(1, k + 1), t)), pa.string())
            flat = milli.ravel()
            scores = pc.binary_join_element_wise(
                pc.cast(pa.array(flat // 1000), pa.string()),
                pc.utf8_lpad(pc.cast(pa.array(flat % 1000), pa.string()), 3, "0"),
                ".",
            )
            line = pc.binary_join_element_wise(
                topic_ids, "Q0", _docnos(pc, pa, run_docs.ravel()), ranks, scores, "bench", " "
            )
            run_writer.write_table(pa.table({"line": line}))
            # Qrels: the first 150 generated documents (random ranks, as scores are independent)
            # and 50 documents that the run does not retrieve.
            judged = np.concatenate([index[:, :QRELS_RETRIEVED], index[:, k:]], axis=1)
            grades = rng.choice(4, size=judged.shape, p=[0.55, 0.25, 0.15, 0.05])
            qrels_line = pc.binary_join_element_wise(
                pc.cast(pa.array(np.repeat(topics + 1, QRELS_PER_TOPIC)), pa.string()),
                "0",
                _docnos(pc, pa, judged.ravel()),
                pc.cast(pa.array(grades.ravel()), pa.string()),
                " ",
            )
            qrels_writer.write_table(pa.table({"line": qrels_line}))
        run_writer.close()
        qrels_writer.close()
    return {
        "seed": seed,
        "run_file": str(run_path),
        "qrels_file": str(qrels_path),
        "run_lines": n_topics * DOCS_PER_TOPIC,
        "run_bytes": run_path.stat().st_size,
        "qrels_lines": n_topics * QRELS_PER_TOPIC,
        "qrels_bytes": qrels_path.stat().st_size,
        "topics": n_topics,
        "docs_per_topic": DOCS_PER_TOPIC,
        "tied_adjacent_scores": tied,
        "separator": "space",
        "generation_seconds": round(time.perf_counter() - started, 2),
    }


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
            frame = pd.read_csv(
                run_path, sep=r"\s+", engine="c", header=None, names=RUN_COLUMNS,
                dtype={"query_id": str, "iteration": str, "doc_id": str, "rank": "int64",
                       "score": "float64", "run_tag": str},
            )
            return {"rows": len(frame)}

    elif kind == "pytrec_pandas":
        import pandas as pd
        import pytrec_eval  # noqa: F401  (the consumer of the dict)

        def operation():
            frame = pd.read_csv(
                run_path, sep=r"\s+", engine="c", header=None, names=RUN_COLUMNS,
                dtype={"query_id": str, "iteration": str, "doc_id": str, "rank": "int64",
                       "score": "float64", "run_tag": str},
            )
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


def profile_run_load(run_path: str, db_path: str) -> dict:
    """pyeval.loaders.runs._load_one, step by step, with the same SQL files; plus variants."""
    import duckdb  # noqa: F401
    import pyeval
    from pyeval import sqlfiles
    from pyeval.loaders import staging
    from pyeval.loaders.source import content_sha256, read_lines

    steps: dict[str, float] = {}
    cpu: dict[str, float] = {}
    rss: dict[str, float] = {}

    def step(name, function):
        started, cpu_started = time.perf_counter(), time.process_time()
        result = function()
        steps[name] = time.perf_counter() - started
        cpu[name] = time.process_time() - cpu_started
        rss[name] = _vm_hwm_kb() / 1024
        return result

    total_started = time.perf_counter()
    lines = step("read_lines (pyarrow read + sha256)", lambda: read_lines(run_path))
    step("  of which content_sha256 (re-timed)", lambda: content_sha256(Path(run_path)))
    con = step("connect (open warehouse)", lambda: pyeval.connect(db_path))
    con.begin()

    def split():
        con.register("input_lines", lines.table)
        con.execute(
            "create or replace temp table input_fields as\n" + sqlfiles.read("loaders/split_fields.sql"),
            {"separator": staging.WHITESPACE, "comments": True, "skip_blank": True},
        )
        con.unregister("input_lines")

    step("split_fields -> temp input_fields", split)
    step("count data lines", lambda: con.execute("select count(*) from input_fields where not is_blank").fetchall())
    step("run_rows -> temp run_input", lambda: con.execute(
        "create or replace temp table run_input as\n" + sqlfiles.read("loaders/run_rows.sql")))
    step("run_problems", lambda: con.execute(sqlfiles.read("loaders/run_problems.sql")).fetchall())
    step("run_topic_coverage", lambda: con.execute(
        sqlfiles.read("loaders/run_topic_coverage.sql"), {"campaign_id": "bench"}).fetchall())
    keys = {"campaign_id": "bench", "run_id": "bench-run"}

    def insert_runs_row():
        con.execute("delete from run_entries where campaign_id = $campaign_id and run_id = $run_id", keys)
        con.execute("delete from runs where campaign_id = $campaign_id and run_id = $run_id", keys)
        con.execute(
            "insert into runs (campaign_id, run_id, run_tag, source_file, source_sha256) "
            "values ($campaign_id, $run_id, 'bench', $source_file, $sha256)",
            {**keys, "source_file": lines.source_file, "sha256": lines.sha256},
        )

    step("deletes + runs row", insert_runs_row)
    step("run_insert -> run_entries", lambda: con.execute(sqlfiles.read("loaders/run_insert.sql"), keys))
    step("drop staging", lambda: staging.drop_staging(con, "run_input"))
    step("commit", con.commit)
    step("close", con.close)
    total = time.perf_counter() - total_started
    del lines

    # Variants (in memory, no warehouse, same Arrow table of lines): what each formulation of
    # the parse costs. Wall and CPU seconds of this process (DuckDB's threads included).
    import duckdb

    variants: dict[str, dict[str, float]] = {}
    table = read_lines(run_path).table
    mem = duckdb.connect()
    mem.register("input_lines", table)
    split_sql = sqlfiles.read("loaders/split_fields.sql")
    split_params = {"separator": staging.WHITESPACE, "comments": True, "skip_blank": True}
    rows_sql = sqlfiles.read("loaders/run_rows.sql")

    def timed(name, sql, parameters=None):
        wall, cpu = time.perf_counter(), time.process_time()
        mem.execute(sql, parameters or {}).fetchall()
        variants[name] = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}

    timed("split_fields.sql as shipped (trim, string_split_regex, CASE for blank lines)",
          "create or replace temp table f as " + split_sql, split_params)
    timed("same, without the CASE (fields := string_split_regex(line, $separator))",
          "create or replace temp table f1 as " + split_sql.replace(
              "case when line = '' then [] else string_split_regex(line, $separator) end",
              "string_split_regex(line, $separator)"), split_params)
    timed("string_split_regex(line, '[ \\t]+') alone (no trim, no filter)",
          "create or replace temp table f2 as select line_number, "
          "string_split_regex(line, '[ \t]+') as fields from input_lines")
    timed("string_split(line, ' ') alone (single spaces only: NOT equivalent)",
          "create or replace temp table f3 as select line_number, string_split(line, ' ') as fields "
          "from input_lines")
    timed("one-pass check that string_split(line, ' ') would be exact (no tab, no double/edge space)",
          "select bool_or(contains(line, e'\t') or contains(line, '  ') or starts_with(line, ' ') "
          "or ends_with(line, ' ')) from input_lines")
    timed("run_rows.sql as shipped (reads the materialised fields table)",
          "create or replace temp table r as " + rows_sql.replace("input_fields", "f"))
    timed("split_fields + run_rows fused in one query (no list table materialised)",
          "create or replace temp table r2 as with input_fields as (" + split_sql + ") " + rows_sql,
          split_params)
    timed("run_problems.sql as shipped", sqlfiles.read("loaders/run_problems.sql").replace("run_input", "r"))
    timed("its duplicate check alone (group by topic, doc having count(*) > 1)",
          "select count(*) from (select topic_id, doc_id from r group by all having count(*) > 1)")
    timed("insert the rows into an in-memory table (no disk)",
          "create or replace temp table e as select 'bench' as campaign_id, 'run' as run_id, topic_id, "
          "doc_id, rank_given, score, line_number as file_position from r")
    timed("DuckDB read_csv(delim=' ') of the file into an in-memory table",
          "create or replace temp table c as select * from read_csv($path, delim = ' ', header = false, "
          "columns = {'q': 'VARCHAR', 'i': 'VARCHAR', 'd': 'VARCHAR', 'r': 'BIGINT', 's': 'DOUBLE', "
          "'t': 'VARCHAR'})", {"path": run_path})
    mem.close()
    return {
        "steps_s": steps,
        "steps_cpu_s": cpu,
        "peak_rss_mb_after_step": rss,
        "total_s": total,
        "variants_s": variants,
    }


# --------------------------------------------------------------------------------------------
# Parent: orchestration and reporting
# --------------------------------------------------------------------------------------------


def run_child(kind: str, data: dict, db_path: Path) -> dict:
    command = [sys.executable, os.path.abspath(__file__), "--child", kind,
               "--run-file", data["run_file"], "--qrels-file", data["qrels_file"], "--db", str(db_path)]
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError(f"{kind} failed:\n{completed.stderr}")
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    result["process_wall_s"] = time.perf_counter() - started
    return result


def machine() -> dict:
    import duckdb
    import numpy
    import pandas
    import pyarrow

    model = ""
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_kb = 0
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    versions = {
        "python": platform.python_version(),
        "duckdb": duckdb.__version__,
        "pyarrow": pyarrow.__version__,
        "pandas": pandas.__version__,
        "numpy": numpy.__version__,
    }
    try:
        from importlib.metadata import version

        versions["pytrec_eval_terrier"] = version("pytrec-eval-terrier")
    except Exception:  # noqa: BLE001
        pass
    import pyeval

    versions["pyeval"] = f"{pyeval.__version__} ({Path(pyeval.__file__).parent})"
    return {
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "ram_gb": round(mem_kb / 1024 / 1024, 1),
        "kernel": platform.release(),
        "versions": versions,
    }


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
    out["wall_max_s"] = max(r["wall_s"] for r in reps)
    out["rows"] = reps[0].get("rows")
    out["reps"] = reps
    return out


def bench_size(workdir: Path, n_lines: int, repeat: int, kinds: list[str], log) -> dict:
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
            load_before = os.getloadavg()[0]
            result = run_child(kind, data, db)
            result["loadavg_1min_before_after"] = [load_before, os.getloadavg()[0]]
            result["db_bytes"] = db.stat().st_size if db.exists() else None
            reps[kind].append(result)
            log(f"  [{n_lines:,}] rep {rep + 1} {kind}: {result['wall_s']:.2f} s, "
                f"peak RSS {result['peak_rss_mb']:.0f} MB")
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
    floor = results.get("duckdb_read", {}).get("wall_s")
    peer = results.get("pandas_read", {}).get("wall_s")
    for name, r in results.items():
        r["x_duckdb_read"] = r["wall_s"] / floor if floor else None
        r["x_pandas_read"] = r["wall_s"] / peer if peer else None


def markdown(size: dict) -> str:
    data, results = size["data"], size["results"]
    n = len(results[next(iter(results))].get("reps", [None]))
    head = (f"Median of {n} run(s). Run: {data['run_lines']:,} lines, {data['run_bytes'] / 1e6:,.0f} MB; "
            f"qrels: {data['qrels_lines']:,} lines, {data['qrels_bytes'] / 1e6:,.0f} MB\n\n")
    rows = ["| measurement | wall (s) | wall range (s) | CPU (s) | peak RSS (MB) | RSS over import baseline (MB) | x DuckDB read | x pandas |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    order = ["pyeval_qrels", "pyeval_run", "pyeval_total", "duckdb_read", "pandas_read",
             "pytrec_pandas", "pytrec_parse_run"]
    for name in order:
        if name not in results:
            continue
        r = results[name]
        fmt = lambda v: f"{v:.2f}" if v is not None else "-"  # noqa: E731
        rows.append(
            f"| {LABELS[name]} | {r['wall_s']:.2f} | {r['wall_min_s']:.2f}-{r['wall_max_s']:.2f} | {r['cpu_s']:.2f} | {r['peak_rss_mb']:,.0f} | "
            f"{r['peak_rss_mb'] - r['baseline_rss_mb']:,.0f} | "
            f"{fmt(r['x_duckdb_read']) if name not in ('pyeval_qrels',) else '-'} | "
            f"{fmt(r['x_pandas_read']) if name not in ('pyeval_qrels',) else '-'} |"
        )
    return head + "\n".join(rows) + "\n"


def profile_markdown(profile: dict) -> str:
    rows = ["| step (pyeval run load, same SQL) | wall (s) | share | CPU (s) | peak RSS after (MB) |",
            "|---|---:|---:|---:|---:|"]
    total = profile["total_s"]
    for name, seconds in profile["steps_s"].items():
        share = "" if name.startswith("  ") else f"{100 * seconds / total:.0f}%"
        rows.append(f"| {name} | {seconds:.2f} | {share} | {profile['steps_cpu_s'][name]:.2f} | "
                    f"{profile['peak_rss_mb_after_step'][name]:,.0f} |")
    rows.append(f"| **total** | {total:.2f} | | |")
    rows += ["", "| variant (in-memory DuckDB, same Arrow table of lines) | wall (s) | CPU (s) |",
             "|---|---:|---:|"]
    for name, timing in profile["variants_s"].items():
        rows.append(f"| {name} | {timing['wall_s']:.2f} | {timing['cpu_s']:.2f} |")
    return "\n".join(rows) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000_000, help="run lines (multiple of 1000)")
    parser.add_argument("--quick-lines", type=int, default=1_000_000,
                        help="a second, smaller size for a quick figure (0: skip)")
    parser.add_argument("--repeat", type=int, default=1, help="repetitions per measurement (median reported)")
    parser.add_argument("--quick-repeat", type=int, default=3, help="repetitions at the quick size")
    parser.add_argument("--out", default="bench/results/load.json")
    parser.add_argument("--profile", choices=("auto", "always", "never"), default="auto",
                        help="step-by-step profile of the run load (auto: if > 3x the DuckDB read)")
    parser.add_argument("--workdir", help="where to write data (default: a new temporary directory)")
    parser.add_argument("--keep", action="store_true", help="keep the generated data")
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
    report = {"benchmark": "load", "machine": machine(), "labels": LABELS, "sizes": {},
              "command": " ".join([Path(sys.executable).name, *sys.argv])}
    try:
        sizes = [(args.quick_lines, args.quick_repeat)] if args.quick_lines else []
        sizes.append((args.lines, args.repeat))
        for n_lines, repeat in sizes:
            size = bench_size(workdir, n_lines, repeat, kinds, log)
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

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    m = report["machine"]
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
