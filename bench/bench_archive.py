"""Archive queries and sharing as the archive grows: whole-archive aggregates over the views
scores, run_means and monthly_means against the same aggregates over stored copies of the rows
they show, the definitions before migration 0015 (which regrouped the whole history at every
query), scores' rows found in the history without the stored current values (WITHOUT_COPY: what
evaluate's second copy of its per-topic values saves), one-campaign queries, the cost of keeping the stored current values
(pyeval/core/archive.py), the warehouse file's size, and the whole processes ``pyeval snapshot``,
``pyeval export --parquet`` and ``pyeval publish`` (to a local PostgreSQL server).

The archive: one seed campaign made by pyeval itself (bench/common.py generate_campaign: runs of
``--runs`` x ``--topics`` x ``--docs``, loaded with the public loaders and evaluated through
``pyeval.evaluate``: ten measures; again after run0000 was re-loaded with other content, so its
first values are stale; then AP and nDCG@10 again for half of the runs, so that the current
values come from two evaluations), whose stored rows are then copied under new campaign names up
to ``--campaigns`` in all (the seed counts). Each copy holds the seed's results (campaigns,
runs, campaign inputs, judgment sets, evaluations and their inputs, measures, per-topic values,
means) with its own evaluation ids and times, run dates 11 days apart per campaign (so
monthly_means spans years) and systems drawn from 30 names; and, unless ``--results-only``, the
seed's inputs as a real archive keeps them (topics, qrels, run tags and every run entry), copied
one campaign at a time by one INSERT ... SELECT per table, so that the file holds them in
campaign order as loading campaign after campaign would. Each size is built from scratch. The
stored current values are then rebuilt (what the upgrade to migration 0015 does), the file
checkpointed and measured, and the queries timed: median of ``--repeats`` executions, wall and
process CPU time, in one process, each view interleaved with its stored copy. Then, unless
``--no-sharing``, each command runs once as a whole process (wall time, and CPU time and peak RSS
from /usr/bin/time) on the closed file, its output measured and removed: ``cp`` of the file (the
disk's floor for a snapshot), ``pyeval snapshot``, ``pyeval export --parquet``, and ``pyeval
publish`` into a new database of the PostgreSQL server at ``--postgres-url`` (default: a
throwaway server that tests/postgres_server.py starts and stops), then again with nothing new.
Where the archive holds more than ``--publish-max-run-entries`` run entries (what PostgreSQL's
copy and the CSV file it is streamed through would take on disk), ``publish`` is timed after the
copies' run entries were deleted (the seed keeps its own) and the result says so.

    python bench/bench_archive.py --campaigns 1 40 400 --out bench/results/archive_issue40.json
    python bench/bench_archive.py --campaigns 40 400 --runs 50 --docs 100 --results-only --no-sharing
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, generate_campaign

sys.path.insert(0, str(REPO))

import pyeval  # noqa: E402
from pyeval.core import archive  # noqa: E402
from pyeval.core import sqlfiles  # noqa: E402
from pyeval.storage.public import PUBLIC_TABLES  # noqa: E402

MEASURES = ["AP", "nDCG@10", "nDCG", "P@5", "P@10", "P@20", "Rprec", "RR", "Bpref", "R@100"]
SEED = "seed"
#: The tables an evaluation and a load write that the timed views read (copied per campaign).
COPIED = ("campaigns", "runs", "campaign_inputs", "judgment_sets", "evaluations", "evaluation_inputs",
          "evaluation_measures", "topic_scores", "evaluation_means")
#: The campaign's inputs, which no timed view reads but a real archive holds (and snapshot,
#: export and publish copy): copied per campaign unless --results-only.
INPUTS = ("topics", "qrels_by_set", "run_tags", "run_entries")
#: Recomputed from the copies (archive.rebuild), and shared by every campaign.
REBUILT, SHARED = ("current_scores", "current_means"), ("measures",)

#: scores and run_means as defined before migration 0015 (regrouping the history at each query).
OLD_SCORES = ("select campaign_id, run_id, topic_id, measure, value, evaluation_id, evaluated_at, judgment_set "
              "from score_history where is_latest")
OLD_RUN_MEANS = (REPO / "tests" / "test_current_scores.py").read_text(encoding="utf-8").split(
    'OLD_RUN_MEANS = """')[1].split('"""')[0]

#: The rows of scores found without the stored current values (current_scores): in the history,
#: the topic_scores rows of the evaluation current_means names for their key, under each
#: campaign's default judgment set. What a whole-archive query would read were evaluate to write
#: each per-topic value once (the least: a key whose topics came from two evaluations would need
#: stored rows beside it; docs/benchmarks.md, "At `88e01d9` (means in one sort, the floor of
#: evaluate's whole work), every door in one run").
WITHOUT_COPY = """
select topic_scores.campaign_id, topic_scores.run_id, topic_scores.topic_id, topic_scores.measure,
       topic_scores.value, topic_scores.judgment_set
from topic_scores
inner join current_means
    on topic_scores.campaign_id = current_means.campaign_id
    and topic_scores.judgment_set = current_means.judgment_set
    and topic_scores.run_id = current_means.run_id
    and topic_scores.measure = current_means.measure
    and topic_scores.evaluation_id = current_means.evaluation_id
inner join campaigns
    on topic_scores.campaign_id = campaigns.campaign_id
    and topic_scores.judgment_set = campaigns.default_judgment_set
"""

#: (name, aggregate with {rows} for the relation, the relation in the view, its stored copy, before
#: 0015, without the stored current values or None)
WHOLE_ARCHIVE = [
    ("scores: count(*), avg(value)", "select count(*), avg(value) from {rows}",
     "scores", "stored_scores", f"({OLD_SCORES})", f"({WITHOUT_COPY})"),
    ("scores: avg(value) by judgment_set, measure", "select judgment_set, measure, avg(value), count(*) from {rows} "
     "group by all", "scores", "stored_scores", f"({OLD_SCORES})", f"({WITHOUT_COPY})"),
    ("run_means: avg(value) by system, measure", "select system, measure, avg(value), count(*) from {rows} "
     "group by all", "run_means", "stored_run_means", "old_run_means", None),
    ("monthly_means: count(*), avg(mean_value)", "select count(*), avg(mean_value) from ({monthly})",
     "run_means", "stored_run_means", "old_run_means", None),
]

#: Queries about the seed campaign, which every size holds ($campaign is bound to SEED), and the
#: same query over the stored copy of the view's rows (None: no such copy).
ONE_CAMPAIGN = [
    ("leaderboard of one campaign, AP", "select * from leaderboard where campaign_id = $campaign and measure = 'AP'",
     None),
    ("scores of one run", "select * from scores where campaign_id = $campaign and run_id = 'run0003'",
     "select * from stored_scores where campaign_id = $campaign and run_id = 'run0003'"),
    ("run_means of one campaign", "select * from run_means where campaign_id = $campaign",
     "select * from stored_run_means where campaign_id = $campaign"),
]


def summary(walls: list[float], cpus: list[float]) -> dict:
    return {"wall_ms": round(statistics.median(walls) * 1000, 2), "cpu_ms": round(statistics.median(cpus) * 1000, 2)}


def timed(call, repeats: int) -> dict:
    return timed_together({"it": call}, repeats)["it"]


def timed_together(calls: dict, repeats: int) -> dict:
    """Each call timed ``repeats`` times, the calls interleaved (so that load changes reach all alike)."""
    walls, cpus = {name: [] for name in calls}, {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            wall, cpu = time.perf_counter(), time.process_time()
            call()
            walls[name].append(time.perf_counter() - wall)
            cpus[name].append(time.process_time() - cpu)
    return {name: summary(walls[name], cpus[name]) for name in calls}


def same(rows: list[tuple], others: list[tuple]) -> bool:
    """The same rows (in any order), floats equal to 1e-9 relative (sums in another order)."""
    def close(a, b):
        return math.isclose(a, b, rel_tol=1e-9) if isinstance(a, float) and isinstance(b, float) else a == b
    return len(rows) == len(others) and all(
        len(r) == len(o) and all(close(a, b) for a, b in zip(r, o))
        for r, o in zip(sorted(rows, key=repr), sorted(others, key=repr)))


def query(con, sql: str, parameters: dict | None = None):
    return lambda: con.execute(sql, parameters).fetchall()


def seed_campaign(con, data: dict, runs: int) -> dict:
    """Load and evaluate the seed campaign with the public API; how long each step took."""
    names = [Path(f).stem for f in data["run_files"]]
    took = {}
    start = time.perf_counter()
    pyeval.load_qrels(con, SEED, data["qrels_file"])
    pyeval.load_runs(con, SEED, data["run_files"], names=names)
    took["load_s"] = time.perf_counter() - start
    start = time.perf_counter()
    pyeval.evaluate(con, SEED, MEASURES)
    pyeval.load_run(con, SEED, data["run_files"][1], name=names[0], replace=True)  # run0000's values turn stale
    pyeval.evaluate(con, SEED, MEASURES)
    pyeval.evaluate(con, SEED, ["AP", "nDCG@10"], runs=names[: runs // 2])
    took["evaluate_s"] = time.perf_counter() - start
    held = {table for table in PUBLIC_TABLES if con.execute(f"select count(*) from {table}").fetchone()[0]}
    missing = held - set(COPIED + INPUTS + REBUILT + SHARED)
    assert not missing, f"the seed holds rows of tables the copies leave out: {sorted(missing)}"
    return {k: round(v, 2) for k, v in took.items()}


def columns_of(con, table: str) -> list[str]:
    return [c for c, in con.execute(
        "select column_name from duckdb_columns() where table_name = $t and schema_name = 'main' "
        "order by column_index", {"t": table}).fetchall()]


def copy_results(con, copies: int) -> None:
    """Copy the seed campaign's results to campaigns c0001.. (in one transaction)."""
    evaluations = con.execute("select max(evaluation_id) from evaluations").fetchone()[0]
    con.execute("create or replace temp table copies as select k, printf('c%04d', k) as campaign_id "
                "from range(1, $n + 1) as t(k)", {"n": copies})
    con.begin()
    for table in COPIED:  # bench's own constants
        columns = columns_of(con, table)
        chosen = []
        for column in columns:
            if column == "campaign_id":
                chosen.append("copies.campaign_id")
            elif column == "evaluation_id":
                chosen.append(f"t.evaluation_id + copies.k * {evaluations}")
            elif table == "evaluations" and column == "created_at":
                chosen.append("t.created_at + to_minutes(copies.k)")
            elif table == "runs" and column == "run_date":
                chosen.append("date '2012-01-01' + cast(copies.k * 11 + hash(t.run_id) % 9 as integer)")
            elif table == "runs" and column == "system":
                chosen.append("'system' || ((copies.k * 7 + hash(t.run_id)) % 30)")
            elif table == "runs" and column == "team":
                chosen.append("'team' || ((copies.k * 7 + hash(t.run_id)) % 10)")
            else:
                chosen.append(f"t.{column}")
        seed_rows = "where t.campaign_id = $seed" if "campaign_id" in columns else ""  # else all are seed's
        con.execute(f"insert into {table} ({', '.join(columns)}) select {', '.join(chosen)} "
                    f"from {table} as t cross join copies {seed_rows}", {"seed": SEED} if seed_rows else {})
    con.commit()


def copy_inputs(con, copies: int) -> None:
    """Copy the seed campaign's inputs to campaigns c0001.., one campaign per transaction, in
    campaign order (one INSERT ... SELECT per table and campaign)."""
    statements = []
    for table in INPUTS:  # bench's own constants
        columns = columns_of(con, table)
        chosen = ["$campaign" if column == "campaign_id" else f"t.{column}" for column in columns]
        statements.append(f"insert into {table} ({', '.join(columns)}) select {', '.join(chosen)} "
                          f"from {table} as t where t.campaign_id = $seed")
    for k in range(1, copies + 1):
        con.begin()
        for statement in statements:
            con.execute(statement, {"campaign": f"c{k:04d}", "seed": SEED})
        con.commit()


def size_of(path: Path) -> int:
    """Bytes of a file, or of every file under a directory."""
    return path.stat().st_size if path.is_file() else sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def whole_process(argv: list[str], log: Path) -> dict:
    """Run ``argv`` once under /usr/bin/time: its wall time, CPU time (user + system) and peak
    resident memory (a child forked from this process would report this process's memory)."""
    usage = log.with_suffix(".time")
    start = time.perf_counter()
    with open(log, "wb") as output:
        done = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", str(usage), *argv],
                              stdout=output, stderr=subprocess.STDOUT, check=False)
    wall = time.perf_counter() - start
    said = log.read_text(errors="replace").strip()
    user, system, peak_kb = usage.read_text().split()[-3:]  # what time says after "Command exited ..."
    measured = {"wall_s": round(wall, 2), "cpu_s": round(float(user) + float(system), 2),
                "peak_rss_mb": round(int(peak_kb) / 1024, 1), "said": said[-300:]}
    if done.returncode != 0:  # kept in the results: a long run goes on with the next command
        measured["failed"] = f"exit {done.returncode}: {said[-600:]}"
        print(f"{' '.join(argv)}: {measured['failed']}", file=sys.stderr, flush=True)
    return measured


def postgres_database(url: str, name: str, *, drop: bool = False) -> str:
    """Create (or drop) database ``name`` on the server of ``url``; the URL of that database."""
    import sqlalchemy as sa
    from sqlalchemy.engine import make_url

    server = make_url(url)
    engine = sa.create_engine(server.set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT")
    with engine.connect() as pg:
        pg.exec_driver_sql(f'drop database if exists "{name}"')  # the bench's own names
        if not drop:
            pg.exec_driver_sql(f'create database "{name}"')
    engine.dispose()
    return server.set(database=name).render_as_string(hide_password=False)


def postgres_bytes(url: str) -> int:
    import sqlalchemy as sa
    from sqlalchemy.engine import make_url

    engine = sa.create_engine(make_url(url).set(drivername="postgresql+psycopg"))
    with engine.connect() as pg:
        size = pg.exec_driver_sql("select pg_database_size(current_database())").scalar_one()
    engine.dispose()
    return size


def measure_sharing(path: Path, work: Path, campaigns: int, postgres_url: str | None, max_run_entries: int) -> dict:
    """cp, pyeval snapshot, export --parquet and publish (twice) of the closed warehouse ``path``."""
    pyeval_command = shutil.which("pyeval") or sys.exit("the pyeval command is not on PATH (pip install -e .)")
    log = work / "command.log"
    result = {}
    copy = work / "copy.duckdb"
    result["cp (the file copied)"] = whole_process(["cp", str(path), str(copy)], log)
    copy.unlink()
    snapshot = work / "snapshot.duckdb"
    result["pyeval snapshot"] = whole_process([pyeval_command, "--db", str(path), "snapshot", str(snapshot)], log)
    if snapshot.exists():
        result["pyeval snapshot"]["output_mb"] = round(size_of(snapshot) / 1e6, 1)
        snapshot.unlink()
    exported = work / "export"
    result["pyeval export --parquet"] = whole_process(
        [pyeval_command, "--db", str(path), "export", "--parquet", str(exported)], log)
    if exported.exists():
        result["pyeval export --parquet"].update(output_mb=round(size_of(exported) / 1e6, 1),
                                                 files=sum(1 for _ in exported.rglob("*.parquet")))
        shutil.rmtree(exported)
    if postgres_url is None:
        return result
    con = pyeval.connect(path)
    entries, seed_entries = con.execute("select count(*), count(*) filter (where campaign_id = $seed) "
                                        "from run_entries", {"seed": SEED}).fetchone()
    if entries > max_run_entries:
        start = time.perf_counter()
        con.execute("delete from run_entries where campaign_id <> $seed", {"seed": SEED})
        con.execute("checkpoint")
        result["publish holds"] = (f"the copies' run entries deleted first ({entries - seed_entries:,} of {entries:,}"
                                   f" in {time.perf_counter() - start:.0f} s): only the seed's {seed_entries:,}")
        entries = seed_entries
    con.close()
    result["published run entries"] = entries
    database = postgres_database(postgres_url, f"archive_{campaigns}")
    try:
        result["pyeval publish (first: everything)"] = {
            **whole_process([pyeval_command, "--db", str(path), "publish", database], log),
            "postgres_mb": round(postgres_bytes(database) / 1e6, 1)}
        result["pyeval publish (again: nothing new)"] = whole_process(
            [pyeval_command, "--db", str(path), "publish", database], log)
    finally:
        postgres_database(postgres_url, f"archive_{campaigns}", drop=True)
    return result


def measure_scale(work: Path, data: dict, campaigns: int, args, postgres_url: str | None) -> dict:
    path = work / f"archive_{campaigns}.duckdb"
    if path.exists():
        path.unlink()
    con = pyeval.connect(path)
    result: dict = {"campaigns": campaigns, "holds": "results only" if args.results_only else
                    "results and inputs (topics, qrels, run tags, run entries) of every campaign"}
    result["seed"] = seed_campaign(con, data, args.runs)
    start = time.perf_counter()
    copy_results(con, campaigns - 1)
    result["copy_results_s"] = round(time.perf_counter() - start, 2)
    if not args.results_only:
        start = time.perf_counter()
        copy_inputs(con, campaigns - 1)
        result["copy_inputs_s"] = round(time.perf_counter() - start, 2)
    start = time.perf_counter()
    con.begin()
    archive.rebuild(con)  # the upgrade's backfill
    con.commit()
    result["rebuild_s"] = round(time.perf_counter() - start, 2)
    start = time.perf_counter()
    con.execute("checkpoint")
    result["checkpoint_s"] = round(time.perf_counter() - start, 2)
    result["file_mb"] = round(path.stat().st_size / 1e6, 1)
    counts = con.execute(
        "select (select count(*) from topic_scores), (select count(*) from current_scores), "
        "(select count(*) from evaluation_means), (select count(*) from current_means), "
        "(select count(*) from evaluations), (select count(*) from runs), (select count(*) from run_entries), "
        "(select count(*) from qrels_by_set)").fetchone()
    result["rows"] = dict(zip(["topic_scores", "current_scores", "evaluation_means", "current_means",
                               "evaluations", "runs", "run_entries", "qrels_by_set"], counts))
    con.execute("create table stored_scores as select * from scores")
    con.execute("create table stored_run_means as select * from run_means")
    con.execute(f"create temp view old_run_means as {OLD_RUN_MEANS}")
    monthly = sqlfiles.view_sql("monthly_means")
    rows = {}
    for name, aggregate, view, stored, old, without_copy in WHOLE_ARCHIVE:
        def sql(relation: str) -> str:
            if "{monthly}" in aggregate:
                return aggregate.format(monthly=monthly.replace("from run_means\n", f"from {relation} as run_means\n"))
            return aggregate.format(rows=relation)
        if "{monthly}" in aggregate:
            view_sql = aggregate.format(monthly="select * from monthly_means")
        else:
            view_sql = sql(view)
        assert same(con.execute(view_sql).fetchall(), con.execute(sql(stored)).fetchall()), name
        assert same(con.execute(view_sql).fetchall(), con.execute(sql(old)).fetchall()), name
        calls = {"view": query(con, view_sql), "stored": query(con, sql(stored))}
        if without_copy is not None:
            assert same(con.execute(view_sql).fetchall(), con.execute(sql(without_copy)).fetchall()), name
            calls["without_stored_current_values"] = query(con, sql(without_copy))
        con.execute(view_sql).fetchall()  # warm
        rows[name] = timed_together(calls, args.repeats)
        rows[name]["before_0015"] = timed(query(con, sql(old)), 1 if campaigns > 100 else args.repeats)
    result["whole_archive"] = rows
    seed = {"campaign": SEED}
    calls = {}
    for name, sql, stored_sql in ONE_CAMPAIGN:
        calls[name] = query(con, sql, seed)
        if stored_sql:
            calls[f"stored: {name}"] = query(con, stored_sql, seed)
            assert same(con.execute(sql, seed).fetchall(), con.execute(stored_sql, seed).fetchall()), name
    for call in calls.values():
        call()  # warm
    timings = timed_together(calls, args.repeats)
    result["one_campaign"] = {name: timings[name] for name, _, _ in ONE_CAMPAIGN}
    result["one_campaign_stored"] = {name: timings[f"stored: {name}"] for name, _, stored in ONE_CAMPAIGN if stored}
    con.execute("drop table stored_scores")
    con.execute("drop table stored_run_means")
    # keeping the stored values: a campaign recomputed (a re-loaded run), an evaluation recorded
    last = con.execute("select max(evaluation_id) from evaluations where campaign_id = $campaign", seed).fetchone()[0]

    def rolled_back(call):
        def run():
            con.begin()
            call()
            con.rollback()
        return run
    result["maintenance"] = {
        "refresh one campaign (a load that makes values stale)":
            timed(rolled_back(lambda: archive.refresh(con, SEED)), args.repeats),
        "record one evaluation (its keys replaced)":
            timed(rolled_back(lambda: archive.record_evaluation(con, last)), args.repeats),
    }
    names = [f"run{r:04d}" for r in range(2, 4)]
    result["maintenance"]["pyeval.evaluate AP, P@10 of 2 seed runs, stored"] = timed(
        lambda: pyeval.evaluate(con, SEED, ["AP", "P@10"], runs=names), args.repeats)
    kept = archive.record_evaluation
    archive.record_evaluation = lambda con, evaluation_id: None
    try:
        result["maintenance"]["the same without keeping current values"] = timed(
            lambda: pyeval.evaluate(con, SEED, ["AP", "P@10"], runs=names), args.repeats)
    finally:
        archive.record_evaluation = kept
    con.execute("checkpoint")
    con.close()
    if not args.no_sharing:
        result["sharing"] = measure_sharing(path, work, campaigns, postgres_url, args.publish_max_run_entries)
    path.unlink()
    return result


def targets(scales: list[dict]) -> dict:
    """The issue's targets read off the results: each view within 2x of its stored copy (at
    every size, wall and CPU), and one-campaign queries flat (largest size / smallest)."""
    within = {f"{scale['campaigns']}: {name}": {
        f"{clock} ratio": round(times["view"][f"{clock}_ms"] / times["stored"][f"{clock}_ms"], 2)
        for clock in ("wall", "cpu")} for scale in scales for name, times in scale["whole_archive"].items()}
    for ratios in within.values():
        ratios["met (<= 2x)"] = all(ratio <= 2 for ratio in ratios.values())
    first, last = scales[0], scales[-1]
    flat = {name: {f"{clock} {last['campaigns']}/{first['campaigns']}": round(
        last["one_campaign"][name][f"{clock}_ms"] / first["one_campaign"][name][f"{clock}_ms"], 2)
        for clock in ("wall", "cpu")} for name in first["one_campaign"]}
    for name in first.get("one_campaign_stored", {}):
        flat[name].update({f"stored copy: {clock} {last['campaigns']}/{first['campaigns']}": round(
            last["one_campaign_stored"][name][f"{clock}_ms"] / first["one_campaign_stored"][name][f"{clock}_ms"], 2)
            for clock in ("wall", "cpu")})
    without_copy = {f"{scale['campaigns']}: {name}": {
        f"{clock} ratio": round(times["without_stored_current_values"][f"{clock}_ms"] / times["stored"][f"{clock}_ms"], 2)
        for clock in ("wall", "cpu")}
        for scale in scales for name, times in scale["whole_archive"].items() if "without_stored_current_values" in times}
    return {"view / stored copy": within, "one campaign, largest / smallest archive": flat,
            "without the stored current values / stored copy": without_copy}


def postgres(args):
    """The server to publish to: --postgres-url, or a throwaway one (none with --no-sharing)."""
    if args.no_sharing:
        return contextlib.nullcontext(None)
    if args.postgres_url:
        return contextlib.nullcontext(args.postgres_url)
    from tests.postgres_server import postgres_server

    return postgres_server()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--campaigns", type=int, nargs="+", default=[1, 40, 400])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--results-only", action="store_true",
                        help="copy only the results (no topics, qrels, run tags, run entries): the archive "
                        "of the issue 30 benchmark")
    parser.add_argument("--no-sharing", action="store_true", help="time no snapshot, export or publish")
    parser.add_argument("--postgres-url", help="a PostgreSQL server to publish to (a database per size is "
                        "created and dropped there); default: a throwaway server (tests/postgres_server.py)")
    parser.add_argument("--publish-max-run-entries", type=int, default=100_000_000,
                        help="above this many run entries, publish after deleting the copies' run entries")
    parser.add_argument("--work", type=Path, help="the folder for the files (default: a temporary one)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if min(args.campaigns) < 1:
        parser.error("--campaigns: at least 1 (the seed campaign)")
    if args.runs < 4:
        parser.error("--runs: at least 4 (the queries and evaluations timed read run0002 and run0003)")
    results = {"load_average_before": os.getloadavg(), "argv": sys.argv[1:], "cpus": os.cpu_count(),
               "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9, 1),
               "duckdb": __import__("duckdb").__version__, "python": sys.version.split()[0],
               "pyeval_commit": subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                               capture_output=True, text=True).stdout.strip(),
               "scales": []}
    with tempfile.TemporaryDirectory(prefix="bench_archive_", dir=args.work) as tmp, \
            postgres(args) as postgres_url:
        work = Path(tmp)
        start = time.perf_counter()
        data = generate_campaign(work / "seed", args.runs, args.topics, args.docs, seed=30)
        results["generate_s"] = round(time.perf_counter() - start, 2)
        results["seed"] = {"runs": args.runs, "topics": args.topics, "docs": args.docs}
        for campaigns in args.campaigns:
            start = time.perf_counter()
            scale = measure_scale(work, data, campaigns, args, postgres_url)
            scale["total_s"] = round(time.perf_counter() - start, 2)
            scale["load_average"] = os.getloadavg()
            results["scales"].append(scale)
            print(json.dumps({k: v for k, v in scale.items() if k != "seed"}, indent=1), flush=True)
            if args.out:  # after each size: a long run keeps what it measured
                results["targets"] = targets(results["scales"])
                args.out.write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
    results["targets"] = targets(results["scales"])
    print(json.dumps(results["targets"], indent=1))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
