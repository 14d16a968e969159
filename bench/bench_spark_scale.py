"""Spark against DuckDB at scale (issue 40, item 5): one generated run of N queries x 100
documents evaluated by DuckDB and by ``--engine spark`` on a local Spark session with every core;
fixed and per-row cost of each (least squares), from which docs/engines.md derives the crossover.

    python bench/bench_spark_scale.py --data /tmp/scale40 --sizes 1000,10000,100000,300000,1000000
    python bench/bench_spark_scale.py --report          # fits and the .md from the JSON only

1. **Data**: the files of ``bench/bench_scale.py`` (``--data/q{N}/run.parquet`` and
   ``qrels.parquet``: ``common.generate`` with 10 judgments per query, 8 of them retrieved, seed
   40,000,000 + N). A size without its own folder is the first N queries of the next larger size
   (DuckDB ``copy``, file order kept); with no data at all it is generated here the same way
   (``common.QRELS_PER_TOPIC = 10``, ``QRELS_RETRIEVED = 8``) and loaded as text. Each size is
   loaded once (``pyeval.load_qrels``, ``pyeval.load_run``) into ``--work/w{N}.duckdb``, kept.
2. **One process, one Spark session** (``pyeval.engines.spark.session(cores, memory=...)``, the
   session the engine makes, with ``--driver-memory``; the CLI's session has 2 GB). Sizes in
   ascending order; for each, with the 1-minute load average before every measurement:
   - DuckDB: ``pyeval.core.evaluation.compute`` of AP, nDCG@10, RR (the per-topic values as
     pandas; what ``pyeval evaluate`` computes before storing), ``--duck-reps`` times, median;
   - Spark: ``export_campaign`` (the campaign's rows as Parquet, DuckDB) and
     ``pyeval.engines.spark.compute`` of the same request on those files (``--engine spark``'s
     work before storing), once (twice at the smallest size: the first call in a new JVM
     includes class loading and code generation, reported apart as ``spark_first_call``);
   - wall time, and CPU time: Python's process (DuckDB's threads included) and the Spark JVM's
     (``/proc/<pid>/stat`` of the java child), so figures can be read on a shared machine;
   - the values of both engines compared (largest absolute difference).
3. **Equality** at ``--equal-size`` (10,000 queries): every ad hoc measure Spark supports, with
   the defaults and variants ``tests/engines/test_spark.py`` uses (``every_measure``; the gain
   profile ``graded`` it defines), DuckDB against Spark: per family the values compared, nulls at
   the same places, text values equal, largest absolute difference (target 1e-9). Diversity
   families need intents, which the generated data has none of: tests/engines/test_spark.py
   compares them on the TREC 2012 Web diversity sample.
4. **Fits**: time = fixed + rows x per_row by least squares over the sizes, for each engine, on
   wall and on CPU seconds (DuckDB's and the export's: the Python process's; Spark's: the JVM's and
   Python's), with residuals; the crossover for a Spark cluster of c cores:
   fixed_S + per_row_S x 2 / c x rows < fixed_D + per_row_D x rows (linear scaling of Spark's
   per-row cost with cores; docs/engines.md states the limits).

Results: ``--out`` (JSON, rewritten after every measurement) and the same path with ``.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import common  # noqa: E402
from common import git, machine, package_version  # noqa: E402

SEED = 40_000_000  # bench_scale.py's: seed of size N is SEED + N
DOCS = 100
MEASURES = ["AP", "nDCG@10", "RR"]
CAMPAIGN, RUN = "scale", "r"
CLUSTER_CORES = (2, 16, 64, 256)
LOCAL_CORES = 2


def load1() -> float:
    return round(os.getloadavg()[0], 2)


def jvm_cpu() -> float:
    """User + system CPU seconds of this process's java children (the Spark JVM)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[1] == me and name == "java":
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def timed(function, *args, **kwargs) -> tuple[object, dict]:
    """``function``'s result and {wall_s, python_cpu_s, jvm_cpu_s, cpu_s, load1}."""
    load, cpu, jvm = load1(), time.process_time(), jvm_cpu()
    started = time.perf_counter()
    result = function(*args, **kwargs)
    wall = time.perf_counter() - started
    python_cpu, jvm_used = time.process_time() - cpu, jvm_cpu() - jvm
    return result, {"wall_s": round(wall, 3), "python_cpu_s": round(python_cpu, 3),
                    "jvm_cpu_s": round(jvm_used, 3), "cpu_s": round(python_cpu + jvm_used, 3), "load1": load}


# ------------------------------------------------------------------------------------- data


def sources(data: Path, work: Path, n: int, sizes: list[int]) -> tuple[Path, Path]:
    """(run, qrels) files of size ``n``: bench_scale's, else the first ``n`` queries of a larger
    size's, else generated here (text)."""
    import duckdb

    own = data / f"q{n}"
    if (own / "data.json").exists() and (own / "run.parquet").exists():
        return own / "run.parquet", own / "qrels.parquet"
    larger = sorted(int(p.name[1:]) for p in data.glob("q*") if p.name[1:].isdigit()
                    and int(p.name[1:]) > n and (p / "data.json").exists() and (p / "run.parquet").exists())
    if larger:
        folder = work / f"q{n}_of_q{larger[0]}"
        if not (folder / "qrels.parquet").exists():
            folder.mkdir(parents=True, exist_ok=True)
            con = duckdb.connect()
            con.execute("set preserve_insertion_order = true")
            for name in ("run", "qrels"):
                source = str(data / f"q{larger[0]}" / f"{name}.parquet")
                con.execute("copy (select * from read_parquet($source) where cast(q_id as bigint) <= $n) "
                            "to $target (format parquet)",
                            {"source": source, "n": n, "target": str(folder / f"{name}.tmp")})
                (folder / f"{name}.tmp").rename(folder / f"{name}.parquet")
        return folder / "run.parquet", folder / "qrels.parquet"
    folder = work / f"generated_q{n}"
    if not (folder / "data.json").exists():
        folder.mkdir(parents=True, exist_ok=True)
        common.QRELS_PER_TOPIC, common.QRELS_RETRIEVED = 10, 8
        described = common.generate(folder, n, DOCS, SEED + n)
        (folder / "data.json").write_text(json.dumps(described, indent=1))
    return folder / "run.txt", folder / "qrels.txt"


def warehouse(path: Path, run: Path, qrels: Path) -> dict:
    """Load ``run`` and ``qrels`` into a new warehouse at ``path`` (kept: a second call reads
    what the first wrote in ``path.json``)."""
    import pyeval

    described = path.with_suffix(".json")
    if described.exists() and path.exists():
        return json.loads(described.read_text())
    path.unlink(missing_ok=True)
    started = time.perf_counter()
    con = pyeval.connect(str(path))
    pyeval.load_qrels(con, CAMPAIGN, qrels)
    pyeval.load_run(con, CAMPAIGN, run, name=RUN)
    pyeval.define_gain_profile(con, CAMPAIGN, "graded", "1:3:7:15")  # test_spark's variants use it
    entries, topics = con.execute("select count(*), count(distinct topic_id) from run_entries").fetchone()
    con.close()
    info = {"run": str(run), "qrels": str(qrels), "run_entries": entries, "topics": topics,
            "load_s": round(time.perf_counter() - started, 2), "file_bytes": path.stat().st_size}
    described.write_text(json.dumps(info, indent=1))
    return info


# ---------------------------------------------------------------------------------- measuring


def request_of(measures) -> object:
    from pyeval.core import evaluation as ev
    from pyeval.core.request import EvaluationRequest

    parsed = [m for text in measures for m in (ev.parse_measures(text) if isinstance(text, str) else [text])]
    return EvaluationRequest(CAMPAIGN, tuple(parsed), runs=(RUN,), ordering="trec")


def compare(duck, sparked) -> dict:
    """Per measure family: values compared, nulls alike, text alike, largest |difference|."""
    keys = ["run_id", "topic_id", "measure"]
    merged = duck.merge(sparked, on=keys, how="outer", suffixes=("_duckdb", "_spark"), indicator=True)
    left, right = merged["value_duckdb"].astype(float), merged["value_spark"].astype(float)
    merged["difference"] = (left - right).abs()
    merged["nulls_alike"] = left.isna() == right.isna()
    texts_d = merged.get("value_text_duckdb")
    texts_s = merged.get("value_text_spark")
    if texts_d is not None and texts_s is not None:
        has_text = texts_d.notna() | texts_s.notna()
        merged["text_alike"] = ~has_text | (texts_d == texts_s)
    else:
        merged["text_alike"] = True
    return {"rows_duckdb": len(duck), "rows_spark": len(sparked),
            "unmatched": int((merged["_merge"] != "both").sum()),
            "nulls_alike": bool(merged["nulls_alike"].all()), "text_alike": bool(merged["text_alike"].all()),
            "max_abs_difference": float(merged["difference"].max(skipna=True) if merged["difference"].notna().any()
                                        else 0.0),
            "merged": merged}


def equality(con, session, only: set[str] | None = None) -> dict:
    """Every ad hoc measure Spark supports (test_spark's set) on this warehouse, both engines,
    one family per request (each engine's memory holds one family's lists at a time); ``only``:
    these families only."""
    from pyeval.core import evaluation as ev
    from pyeval.engines import spark
    from tests.engines.test_spark import every_measure

    measures = [m for m in every_measure() if spark.supported(m) is None and m.definition.staging == "adhoc"]
    by_family = {}
    measures = [m for m in measures if only is None or m.family in only]
    for measure in measures:
        by_family.setdefault(measure.family, []).append(measure)
    families, merged_all, duck_time, spark_time = {}, [], {}, {}
    for family, members in sorted(by_family.items()):
        request = request_of(members)
        duck, duck_times = timed(ev.compute, con, request)
        sparked, spark_times = timed(spark.compute, session, con, request)
        checked = compare(duck, sparked)
        rows = checked.pop("merged")
        merged_all.append(rows)
        families[family] = {
            "measures": len(members), "values": len(rows), "unmatched": checked["unmatched"],
            "nulls_alike": checked["nulls_alike"], "text_alike": checked["text_alike"],
            "max_abs_difference": checked["max_abs_difference"],
            "duckdb_wall_s": duck_times["wall_s"], "spark_wall_s": spark_times["wall_s"],
        }
        for total, times in ((duck_time, duck_times), (spark_time, spark_times)):
            for key, value in times.items():
                total[key] = round(total.get(key, 0.0) + value, 3)
        print("  equality", family, families[family], flush=True)
    overall = {
        "rows_duckdb": sum(len(m) for m in merged_all), "unmatched": sum(f["unmatched"] for f in families.values()),
        "nulls_alike": all(f["nulls_alike"] for f in families.values()),
        "text_alike": all(f["text_alike"] for f in families.values()),
        "max_abs_difference": max(f["max_abs_difference"] for f in families.values()),
    }
    return {"measures": len(measures), "duckdb": duck_time, "spark": spark_time, **overall, "families": families}


def merged_checks(earlier: dict, later: dict) -> dict:
    """Two equality checks of one size over different families as one (the later family's rows win)."""
    families = {**earlier["families"], **later["families"]}
    measures = sum(f["measures"] for f in families.values())
    return {"measures": measures,
            "duckdb": {k: round(earlier["duckdb"].get(k, 0) + v, 3) for k, v in later["duckdb"].items()},
            "spark": {k: round(earlier["spark"].get(k, 0) + v, 3) for k, v in later["spark"].items()},
            "rows_duckdb": sum(f["values"] for f in families.values()),
            "unmatched": sum(f["unmatched"] for f in families.values()),
            "nulls_alike": all(f["nulls_alike"] for f in families.values()),
            "text_alike": all(f["text_alike"] for f in families.values()),
            "max_abs_difference": max(f["max_abs_difference"] for f in families.values()),
            "families": families}


def run_size(con, session, info: dict, duck_reps: int, first: bool) -> dict:
    from pyeval.core import evaluation as ev
    from pyeval.engines import spark

    request = request_of(MEASURES)
    result = {"run_entries": info["run_entries"], "topics": info["topics"], "load_s": info["load_s"]}
    duck_times = []
    duck = None
    for _ in range(duck_reps):
        duck, t = timed(ev.compute, con, request)
        duck_times.append(t)
        print("  duckdb", t, flush=True)
    result["duckdb_reps"] = duck_times
    result["duckdb"] = {k: statistics.median(t[k] for t in duck_times) for k in duck_times[0]}
    with tempfile.TemporaryDirectory(prefix="pyeval-spark-scale-") as folder:
        files, result["spark_export"] = timed(spark.export_campaign, con, CAMPAIGN, folder, [RUN])
        print("  export", result["spark_export"], flush=True)
        if first:
            _, result["spark_first_call"] = timed(spark.compute, session, con, request, files)
            print("  spark first call", result["spark_first_call"], flush=True)
        sparked, result["spark"] = timed(spark.compute, session, con, request, files)
        print("  spark", result["spark"], flush=True)
    checked = compare(duck, sparked)
    checked.pop("merged")
    result["values"] = checked
    return result


# ------------------------------------------------------------------------------------ fitting


def fit(points: list[tuple[float, float]]) -> dict:
    """Least squares t = fixed + rows x per_row over (rows, t); residuals per point."""
    import numpy as np

    x = np.array([p[0] for p in points], dtype=float)
    y = np.array([p[1] for p in points], dtype=float)
    design = np.column_stack([np.ones_like(x), x])
    (fixed, per_row), *_ = np.linalg.lstsq(design, y, rcond=None)
    predicted = fixed + per_row * x
    return {"fixed_s": float(fixed), "per_million_rows_s": float(per_row * 1e6),
            "rows_per_s": float(1 / per_row) if per_row > 0 else None,
            "residuals_s": [round(float(r), 3) for r in y - predicted],
            "points": [[int(a), float(b)] for a, b in zip(x, y)]}


def crossover(duck: dict, compute: dict, cores: int, clock: str, export: dict | None = None) -> dict:
    """Rows above which Spark on ``cores`` cores beats DuckDB on this 2-core machine (None: never).

    ``clock`` ``wall_s``: the fits are wall times on the 2 local cores, Spark's per-row cost
    divides by cores / 2. ``cpu_s``: the fits are core-seconds, so on idle machines DuckDB's
    per-row cost divides by the 2 local cores and Spark's by ``cores``. Either way Spark's fixed
    cost is taken whole (serial: the driver plans and schedules), and with ``export`` (the
    campaign written as Parquet by DuckDB first, as ``--engine spark`` does without ``--export``)
    the export's fixed cost and its per-row cost on the local machine are added."""
    local = LOCAL_CORES if clock == "cpu_s" else 1
    a_d, b_d = duck["fixed_s"], duck["per_million_rows_s"] / 1e6 / local
    a_s = compute["fixed_s"]
    b_s = compute["per_million_rows_s"] / 1e6 / (cores if clock == "cpu_s" else cores / LOCAL_CORES)
    if export is not None:
        a_s, b_s = a_s + export["fixed_s"], b_s + export["per_million_rows_s"] / 1e6 / local
    out = {"cores": cores, "duckdb_per_million_s": b_d * 1e6, "spark_fixed_s": a_s,
           "spark_per_million_s": b_s * 1e6, "rows": None}
    if b_s < b_d:
        rows = max(0.0, (a_s - a_d) / (b_d - b_s))
        out.update(rows=rows, queries_x100=rows / DOCS, seconds_at_crossover=a_d + b_d * rows)
    return out


def fits(result: dict) -> dict:
    sizes = sorted(result["sizes"].values(), key=lambda r: r["run_entries"])
    done = [s for s in sizes if "spark" in s]
    out = {}
    for clock in ("wall_s", "cpu_s"):
        # DuckDB's CPU: this process's (the idle JVM beside it has threads of its own)
        local = "python_cpu_s" if clock == "cpu_s" else clock
        duck = fit([(s["run_entries"], s["duckdb"][local]) for s in done])
        compute = fit([(s["run_entries"], s["spark"][clock]) for s in done])
        export = fit([(s["run_entries"], s["spark_export"][local]) for s in done])
        out[clock] = {"duckdb": duck, "spark_compute": compute, "spark_export": export,
                      "crossover_parquet_given": [crossover(duck, compute, c, clock) for c in CLUSTER_CORES],
                      "crossover_export_included": [crossover(duck, compute, c, clock, export)
                                                      for c in CLUSTER_CORES]}
    return out


# ------------------------------------------------------------------------------------ report


def markdown(result: dict) -> str:
    lines = [f"# Spark against DuckDB at scale (issue 40) — git {result.get('git')}", "",
             f"Measures {', '.join(MEASURES)}; Spark local[{result['cores']}], driver memory "
             f"{result['driver_memory']}; session start {result.get('session', {}).get('wall_s')} s wall "
             f"(load {result.get('session', {}).get('load1')}).", "",
             "| queries | run entries | DuckDB wall (CPU) s | Spark export wall s | Spark compute wall (CPU) s "
             "| Spark / DuckDB | load1 DuckDB / Spark | max abs diff |",
             "|---:|---:|---:|---:|---:|---:|---|---:|"]
    for key in sorted(result["sizes"], key=int):
        s = result["sizes"][key]
        if "spark" not in s:
            lines.append(f"| {int(key):,} | {s.get('run_entries', 0):,} | stopped: {s.get('stopped', '')} |||||")
            continue
        total = s["spark"]["wall_s"] + s["spark_export"]["wall_s"]
        lines.append(
            f"| {int(key):,} | {s['run_entries']:,} | {s['duckdb']['wall_s']:.2f} ({s['duckdb']['python_cpu_s']:.2f}) "
            f"| {s['spark_export']['wall_s']:.2f} | {s['spark']['wall_s']:.1f} ({s['spark']['cpu_s']:.1f}) "
            f"| {total / s['duckdb']['wall_s']:.0f}x | {s['duckdb']['load1']} / {s['spark']['load1']} "
            f"| {s['values']['max_abs_difference']:.1e} |")
    if "fits" in result:
        for clock, f in result["fits"].items():
            lines += ["", f"## Fit on {clock} (t = fixed + per_row x rows, least squares)", ""]
            for name in ("duckdb", "spark_compute", "spark_export"):
                g = f[name]
                lines.append(f"- {name}: fixed {g['fixed_s']:.2f} s, {g['per_million_rows_s']:.3f} s per million "
                             f"rows; residuals {g['residuals_s']}")
            for kind in ("crossover_parquet_given", "crossover_export_included"):
                lines += ["", f"{kind}:", ""]
                for c in f[kind]:
                    where = ("never (Spark's per-row cost not below DuckDB's)" if c["rows"] is None else
                             f"{c['rows'] / 1e6:,.0f}M rows ({c['queries_x100'] / 1e6:,.2f}M queries x 100)")
                    lines.append(f"- Spark on {c['cores']} cores (fixed {c['spark_fixed_s']:.1f} s, "
                                 f"{c['spark_per_million_s']:.3f} s/M rows; DuckDB {c['duckdb_per_million_s']:.3f} "
                                 f"s/M rows): {where}")
    if "equality" in result:
        e = result["equality"]
        lines += ["", f"## Equality at {e['queries']:,} queries: {e['measures']} measures, "
                      f"{e['rows_duckdb']:,} values (DuckDB {e['duckdb']['wall_s']} s, Spark {e['spark']['wall_s']} s)",
                  "", "| family | measures | values | nulls alike | text alike | max abs difference |",
                  "|---|---:|---:|---|---|---:|"]
        for family, f in sorted(e["families"].items()):
            lines.append(f"| {family} | {f['measures']} | {f['values']:,} | {f['nulls_alike']} | {f['text_alike']} "
                         f"| {f['max_abs_difference']:.1e} |")
    return "\n".join(lines) + "\n"


def save(result: dict, out: Path) -> None:
    try:
        result["fits"] = fits(result)
    except Exception as exc:  # noqa: BLE001  (fewer than two sizes yet)
        result.pop("fits", None)
        result["fits_error"] = str(exc)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str) + "\n")
    out.with_suffix(".md").write_text(markdown(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("/tmp/scale40"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/spark_scale40"))
    parser.add_argument("--sizes", default="1000,10000,100000,300000,1000000")
    parser.add_argument("--equal-size", type=int, default=10_000, help="0: no equality check")
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--driver-memory", default="8g")
    parser.add_argument("--duck-reps", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "spark_issue40.json")
    parser.add_argument("--equality-only", action="store_true", help="only the equality check at --equal-size")
    parser.add_argument("--families", help="comma-separated families of the equality check (default: all); "
                                           "their results are merged into the stored check of the same size")
    parser.add_argument("--report", action="store_true", help="recompute fits and .md from --out")
    args = parser.parse_args()
    if args.report:
        save(json.loads(args.out.read_text()), args.out)
        print(args.out.with_suffix(".md").read_text())
        return
    sizes = [args.equal_size] if args.equality_only else sorted(int(s) for s in args.sizes.split(","))
    args.work.mkdir(parents=True, exist_ok=True)

    import pyeval
    from pyeval.engines import spark

    result = json.loads(args.out.read_text()) if args.out.exists() else {}
    result.update({"benchmark": "spark_issue40", "measures": MEASURES, "cores": args.cores,
                   "driver_memory": args.driver_memory, "git": (git("rev-parse", "--short", "HEAD") or "").strip(),
                   "machine": machine({p: package_version(p) for p in ("duckdb", "pyspark", "sqlglot", "pandas")})})
    result.setdefault("sizes", {})
    started = "equality_session" if args.equality_only else "session"
    session, result[started] = timed(lambda: spark.session(args.cores, memory=args.driver_memory))
    _, result[f"{started}_first_query"] = timed(lambda: session.sql("select 1").toPandas())
    print("session", result[started], result[f"{started}_first_query"], flush=True)
    save(result, args.out)
    first = True
    for n in sizes:
        run, qrels = sources(args.data, args.work, n, sizes)
        info = warehouse(args.work / f"w{n}.duckdb", run, qrels)
        print(n, info, "load1", load1(), flush=True)
        con = pyeval.connect(str(args.work / f"w{n}.duckdb"))
        try:
            if n == args.equal_size:
                only = set(args.families.split(",")) if args.families else None
                checked = equality(con, session, only)
                earlier = result.get("equality", {})
                if only is not None and earlier.get("queries") == n and "families" in earlier:
                    checked = merged_checks(earlier, checked)
                result["equality"] = {"queries": n, **checked}
                print("equality", {k: v for k, v in checked.items() if k != "families"}, flush=True)
                save(result, args.out)
            if not args.equality_only:
                result["sizes"][str(n)] = run_size(con, session, info, args.duck_reps, first)
            first = False
        except Exception as exc:  # noqa: BLE001  (reported: where and why a size stops)
            stopped = f"{type(exc).__name__}: {str(exc)[:500]}"
            if args.equality_only:
                result["equality"] = {"queries": n, "stopped": stopped}
            else:
                result["sizes"][str(n)] = {**info, "stopped": stopped}
            print("stopped", n, exc, flush=True)
        finally:
            con.close()
        save(result, args.out)
    session.stop()
    print(markdown(result))


if __name__ == "__main__":
    main()
