"""The Python API (pyeval/interop.py) against ir_measures in one process (issue 30, item 1).

    python bench/bench_api.py [--calls 20] [--topics 50] [--docs 100] [--frame-rows 1000000]
    python bench/bench_api.py --baseline REV [--rounds 3]   # REV's code against HEAD's, in turn

Prints CPU seconds (time.process_time: user + system of this process, so that a loaded machine
moves the figures less than wall time) of:

1. the first ``pyeval.calc_aggregate([AP, nDCG@10, P@10], qrels, run)`` after ``import pyeval``
   (the engine's in-memory warehouse, its views, the qrels and the run loaded, one evaluation);
2. the steady state per call of ``pyeval.calc_aggregate`` and of ``ir_measures.calc_aggregate``
   (its pytrec_eval provider) on the same dicts, calls interleaved, medians; and of pyeval with
   the run as a DataFrame and as ScoredDoc namedtuples, and of ``pyeval.evaluator(...)``;
3. many runs in one statement: ``evaluator.calc_aggregate_many`` of ``--many`` runs (1, 10 and
   100 by default), CPU per run, against ``ir_measures.calc_aggregate`` once per run;
4. loading a ``--frame-rows`` DataFrame run into the engine (Arrow columns, the duplicate
   check, run_insert.sql's ranking) against DuckDB reading the same frame into a table;
5. with ``--plan-reuse``, where one call's statement spends its time (DuckDB's profiler: binding,
   optimizer and physical planner against the operators' CPU, the floor a reused plan would
   still cost), and whether DuckDB reuses a plan at ``EXECUTE``: a ``PREPARE``d statement that
   reads a table against one that reads none (its optimizer time at ``EXECUTE``: zero when the
   plan is reused);
6. with ``--rank-options``, the ways of ranking the ``--frame-rows`` frame in trec_eval's order
   (score descending, docno descending, per topic) that DuckDB offers, each as an insert of
   the frame into a table, against the same insert without a rank;
7. with ``--first-calls N``, only item 1, in N fresh processes: wall and CPU seconds of the
   first call after ``import pyeval``, least, median and most, and how many took at most 0.5 s
   wall (the issue's target).

With ``--baseline REV`` the script drives itself: it extracts REV's and HEAD's code (git
archive, bench/common.py ``snapshot_code``), then runs, ``--rounds`` times and in turn for each,
this script in a child process (the figures above, as JSON) and a whole process that imports
pyeval and makes ``--calls`` calls (its CPU time from the kernel: ``getrusage`` of the child),
and prints the medians side by side with the load average before and after.

Data: ``--topics`` topics of ``--docs`` scored documents each, qrels of ``--docs`` documents
per topic (levels 0-2), drawn from 300 documents per topic (numpy default_rng(1)).
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


def _cpu(function, calls: int) -> list[float]:
    times = []
    for _ in range(calls):
        started = time.process_time()
        function()
        times.append(time.process_time() - started)
    return times


#: The floor: the same three means written by hand in one DuckDB statement over the dicts (as
#: Arrow-free object arrays): trec_eval's order (score desc, docno desc), AP, nDCG@10 (gain =
#: level, log2 discount, ideal from the qrels) and P@10 over the judged topics.
FLOOR_SQL = """
with ranked as (
    select r.q, r.d, row_number() over (partition by r.q order by r.s desc, r.d desc) as rank,
           coalesce(j.rel, 0) as rel
    from floor_run as r left join floor_qrels as j on r.q = j.q and r.d = j.d
),
running as (
    select *, count(*) filter (where rel > 0) over (partition by q order by rank) as found from ranked
),
relevant as (select q, count(*) filter (where rel > 0) as n from floor_qrels group by q),
ideal as (
    select q, sum(rel / log2(rank + 1)) as idcg
    from (select q, rel, row_number() over (partition by q order by rel desc) as rank
          from floor_qrels where rel > 0)
    where rank <= 10 group by q
),
per_topic as (
    select relevant.q,
           coalesce(sum(found / rank) filter (where rel > 0), 0) / relevant.n as ap,
           coalesce(sum(rel / log2(rank + 1)) filter (where rank <= 10 and rel > 0), 0) / any_value(ideal.idcg)
               as ndcg,
           count(*) filter (where rank <= 10 and rel > 0) / 10 as p10
    from relevant
    left join running on running.q = relevant.q
    left join ideal on ideal.q = relevant.q
    where relevant.n > 0
    group by relevant.q, relevant.n
)
select avg(ap), avg(ndcg), avg(p10) from per_topic
"""


def _floor(con, qrels: dict, run: dict) -> tuple[float, float, float]:
    """AP, nDCG@10 and P@10 of ``run`` by :data:`FLOOR_SQL`: the dicts to column arrays, one statement."""
    import numpy as np

    def columns(nested, value):
        keys = [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]
        q, d, v = zip(*keys)
        return {"q": np.array(q, dtype=object), "d": np.array(d, dtype=object), value: np.array(v)}

    con.register("floor_qrels", columns(qrels, "rel"))
    con.register("floor_run", columns(run, "s"))
    try:
        return con.execute(FLOOR_SQL).fetchall()[0]
    finally:
        con.unregister("floor_qrels")
        con.unregister("floor_run")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--frame-rows", type=int, default=1_000_000)
    parser.add_argument("--many", type=lambda text: [int(n) for n in text.split(",")], default=[1, 10, 100],
                        help="numbers of runs evaluated together by calc_aggregate_many (comma-separated; 0: none)")
    parser.add_argument("--many-rounds", type=int, default=3)
    parser.add_argument("--baseline", metavar="REV", help="compare REV's code with HEAD's (child processes)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON line at the end")
    parser.add_argument("--first-calls", type=int, metavar="N", help="only the first call, in N processes (item 7)")
    parser.add_argument("--first-call-only", action="store_true", help=argparse.SUPPRESS)  # one of those processes
    parser.add_argument("--rank-options", action="store_true",
                        help="time DuckDB's ways of ranking the --frame-rows frame in trec_eval's order (item 6)")
    parser.add_argument("--plan-reuse", action="store_true",
                        help="profile one call's statement and DuckDB's reuse of prepared plans (item 5)")
    parser.add_argument("--whole-process", action="store_true",
                        help="only import pyeval and make --calls calls (what --baseline times from outside)")
    args = parser.parse_args(argv)
    if args.baseline:
        return _compare(args)
    if args.first_calls:
        return _first_calls(args)

    import numpy as np

    rng = np.random.default_rng(1)
    qrels = {str(q): {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(300, args.docs, replace=False)}
             for q in range(args.topics)}
    run = {str(q): {f"d{d}": float(rng.random()) for d in rng.choice(300, args.docs, replace=False)}
           for q in range(args.topics)}
    if args.whole_process:
        import pyeval
        from ir_measures import AP, P, nDCG

        for _ in range(args.calls):
            pyeval.calc_aggregate([AP, nDCG @ 10, P @ 10], qrels, run)
        return 0
    figures: dict[str, float] = {}

    started = time.process_time()
    import pyeval
    from ir_measures import AP, P, ScoredDoc, nDCG
    measures = [AP, nDCG @ 10, P @ 10]
    imported, clock = time.process_time(), time.perf_counter()
    ours = pyeval.calc_aggregate(measures, qrels, run)
    first = time.process_time() - imported
    if args.first_call_only:
        print(json.dumps({"cpu": first, "wall": time.perf_counter() - clock}))
        return 0
    print(f"import pyeval (and ir_measures' names): {imported - started:.3f} s CPU; "
          f"first calc_aggregate after it: {first:.3f} s CPU")
    figures["first call s"] = first

    import ir_measures
    theirs = ir_measures.calc_aggregate(measures, qrels, run)
    assert all(abs(ours[m] - theirs[m]) < 1e-12 for m in measures), (ours, theirs)

    import duckdb
    floor_con = duckdb.connect()
    floor_one_thread = duckdb.connect(config={"threads": 1})
    floor = _floor(floor_con, qrels, run)
    assert all(abs(a - ours[m]) < 1e-12 for a, m in zip(floor, measures)), (floor, ours)  # the same work

    import pandas as pd
    frame = pd.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                         columns=["query_id", "doc_id", "score"])
    records = [ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    evaluator = pyeval.evaluator(measures, qrels)
    try:  # ranx 0.3 (numba): the same three means, its Qrels and Run made from the dicts at each call
        import ranx

        def ranx_call():
            return ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["map", "ndcg@10", "precision@10"])

        from importlib.metadata import version

        ranx_values = ranx_call()  # compiles (numba cache) before the timing
        assert abs(ranx_values["map"] - ours[measures[0]]) < 1e-9
        assert abs(ranx_values["precision@10"] - ours[measures[2]]) < 1e-9
        ranx_label = f"ranx {version('ranx')} (numba warm), dicts"
    except ImportError:  # pip install ranx
        ranx_call = None
    cases = {
        "ir_measures (pytrec_eval), dicts": lambda: ir_measures.calc_aggregate(measures, qrels, run),
        "DuckDB floor: one hand-written statement, dicts": lambda: _floor(floor_con, qrels, run),
        "DuckDB floor on one thread": lambda: _floor(floor_one_thread, qrels, run),
        "pyeval.calc_aggregate, dicts": lambda: pyeval.calc_aggregate(measures, qrels, run),
        "pyeval.calc_aggregate, DataFrame run": lambda: pyeval.calc_aggregate(measures, qrels, frame),
        "pyeval.calc_aggregate, ScoredDoc run": lambda: pyeval.calc_aggregate(measures, qrels, records),
        "pyeval.evaluator(...).calc_aggregate, dicts": lambda: evaluator.calc_aggregate(run),
    }
    if ranx_call is not None:
        cases[ranx_label] = ranx_call
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.calls):  # interleaved
        for name, function in cases.items():
            times[name] += _cpu(function, 1)
    baseline = statistics.median(times["ir_measures (pytrec_eval), dicts"])
    floor_ms = statistics.median(times["DuckDB floor: one hand-written statement, dicts"])
    print(f"\nsteady state, {args.topics} topics x {args.docs} docs, [AP, nDCG@10, P@10], "
          f"median of {args.calls} calls (CPU ms; ratio to ir_measures; ratio to the DuckDB floor):")
    for name, values in times.items():
        median = statistics.median(values)
        figures[f"{name} ms"] = median * 1000
        print(f"  {name:48s} {median * 1000:8.1f}   {median / baseline:6.1f}x   {median / floor_ms:6.2f}x")

    if args.many and args.many != [0] and hasattr(evaluator, "calc_aggregate_many"):
        # many runs in one statement: CPU per run of evaluator.calc_aggregate_many over N runs
        # against ir_measures.calc_aggregate once per run (medians of --many-rounds, interleaved)
        many_runs = [{str(q): {f"d{d}": float(rng.random()) for d in rng.choice(300, args.docs, replace=False)}
                      for q in range(args.topics)} for _ in range(max(args.many))]
        for count in args.many:
            batch = {f"run{i}": r for i, r in enumerate(many_runs[:count])}
            ours_many, theirs_many = [], []
            for _ in range(args.many_rounds):
                ours_many += _cpu(lambda: evaluator.calc_aggregate_many(batch), 1)
                theirs_many += _cpu(lambda: [ir_measures.calc_aggregate(measures, qrels, r) for r in batch.values()], 1)
            per_run, theirs_per_run = statistics.median(ours_many) / count, statistics.median(theirs_many) / count
            figures[f"calc_aggregate_many, {count} runs: per run ms"] = per_run * 1000
            figures[f"ir_measures, {count} runs: per run ms"] = theirs_per_run * 1000
            print(f"  evaluator.calc_aggregate_many, {count:4d} runs: {per_run * 1000:8.1f} ms per run; ir_measures "
                  f"{theirs_per_run * 1000:6.1f} ms per run; {per_run / theirs_per_run:6.1f}x")

    if args.frame_rows:
        from pyeval.interop import engine_for
        n = args.frame_rows
        topics = max(1, n // 1000)
        big = pd.DataFrame({
            "query_id": np.repeat(np.arange(topics), n // topics).astype(str),
            "doc_id": np.char.add("doc", np.arange(n // topics * topics).astype(str)),
            "score": rng.random(n // topics * topics),
        })
        engine, _ = engine_for(qrels)
        import duckdb
        con = duckdb.connect()
        if hasattr(pyeval.interop, "resident_engine"):  # runs shaped before the engine (this code)
            load = _cpu(lambda: engine._load({"run": pyeval.interop.run_table(big)}, {"run": "<run>"}), 3)
        elif hasattr(engine, "evaluate_many"):  # runs by name; before it, one run
            load = _cpu(lambda: engine._load({"run": big}, {"run": "<run>"}), 3)
        else:
            load = _cpu(lambda: engine._load(big), 3)
        whole = _cpu(lambda: pyeval.calc_aggregate(measures, qrels, big), 3)
        con.register("big", big)
        duck = _cpu(lambda: con.execute("create or replace table t as select * from big").fetchall(), 3)
        figures.update({"frame load s": statistics.median(load), "frame calc_aggregate s": statistics.median(whole),
                        "DuckDB reading the frame s": statistics.median(duck)})
        print(f"\n{len(big):,}-row DataFrame run: engine load {statistics.median(load):.3f} s CPU, "
              f"calc_aggregate {statistics.median(whole):.3f} s CPU, "
              f"DuckDB reading the frame into a table {statistics.median(duck):.3f} s CPU "
              f"(load {statistics.median(load) / statistics.median(duck):.1f}x, "
              f"calc_aggregate {statistics.median(whole) / statistics.median(duck):.1f}x)")
        if args.rank_options:
            figures.update(_rank_options(con))
    if args.plan_reuse:
        figures.update(_plan_reuse(measures, qrels, run))
    if args.json:
        print(json.dumps(figures))
    return 0


#: Item 6: inserts of the registered frame ``big`` (query_id, doc_id, score) into ``ranked``,
#: each ranking it in trec_eval's order another way (the script's own constant SQL).
RANK_OPTIONS = {
    "no rank": "select query_id, doc_id, score, 0 from big",
    "row_number window (run_insert.sql's)": "select query_id, doc_id, score, row_number() over "
        "(partition by query_id order by score desc, doc_id desc) from big",
    "sorted first, then the window": "select query_id, doc_id, score, row_number() over (partition by query_id "
        "order by score desc, doc_id desc) from (select * from big order by query_id, score desc, doc_id desc)",
    "list aggregate, unnested with positions": "select query_id, entry.doc_id, entry.score, position from ("
        "select query_id, list({'doc_id': doc_id, 'score': score} order by score desc, doc_id desc) as entries "
        "from big group by query_id), unnest(entries) with ordinality as listed(entry, position)",
    "integer docno key (dense_rank), then the window": "select query_id, doc_id, score, row_number() over "
        "(partition by query_id order by score desc, doc_key desc) from (select *, dense_rank() over "
        "(order by doc_id) as doc_key from big)",
}


def _rank_options(con, repeats: int = 3) -> dict[str, float]:
    """Item 6 of the module's docstring: CPU and wall seconds, medians of ``repeats``."""
    figures = {}
    print("\nranking the frame in trec_eval's order in DuckDB (insert into a table; CPU / wall s, medians):")
    for name, sql in RANK_OPTIONS.items():
        cpu, wall = [], []
        for _ in range(repeats):
            con.execute("create or replace table ranked (query_id varchar, doc_id varchar, score double, r bigint)")
            started, clock = time.process_time(), time.perf_counter()
            con.execute(f"insert into ranked {sql}")
            cpu.append(time.process_time() - started)
            wall.append(time.perf_counter() - clock)
        figures[f"rank option {name}: CPU s"] = statistics.median(cpu)
        print(f"  {name:50s} {statistics.median(cpu):6.3f} / {statistics.median(wall):6.3f}")
    return figures


def _profiled(con, sql: str, params=None) -> dict:
    """DuckDB's JSON profile of one execution of ``sql`` on ``con`` (profiling off after)."""
    with tempfile.TemporaryDirectory() as tmp:
        output = Path(tmp, "profile.json")
        con.execute("pragma enable_profiling = 'json'")
        con.execute("pragma profiling_output = $path", {"path": str(output)})
        try:
            con.execute(sql, params).fetchall()
        finally:
            con.execute("pragma disable_profiling")
        return json.loads(output.read_text())


def _phases(profile: dict) -> tuple[float, float, float, float]:
    """Seconds of binding, optimising and physical planning, and the operators' CPU, of a profile
    (a phase DuckDB skipped is missing from it: 0)."""
    return (profile["planner"].get("binding_time", 0.0), profile["optimizer"].get("total_time", 0.0),
            profile["physical_planner"].get("total_time", 0.0), profile["query"]["cpu_time"])


def _plan_reuse(measures, qrels, run, repeats: int = 5) -> dict[str, float]:
    """Item 5 of the module's docstring: medians of ``repeats`` profiles."""
    import duckdb
    from pyeval.interop import RUN, _measures, engine_for
    from pyeval import interop

    run_table = getattr(interop, "run_table", None) if hasattr(interop, "resident_engine") else None

    engine, _ = engine_for(qrels)
    ours = [measure for _, measure in _measures(measures)]
    shaped = run_table(run) if run_table is not None else run
    engine.evaluate(ours, shaped, None)  # the plan prepared
    engine._load({RUN: shaped}, {RUN: "<run>"})  # the run stored: the statement over stored runs
    plan = engine._plan(ours, None)  # that plan, as each call takes it
    from pyeval.core import compile

    used = compile.parameters(plan.sql)  # the statement's own parameters, as each call binds them
    params = {name: value for name, value in {**plan.params, "runs": [RUN], "first_file": 0, "last_file": 0}.items()
              if name in used}
    phases = [_phases(_profiled(engine.con, plan.sql, params)) for _ in range(repeats)]
    binding, optimizer, physical, operators = (statistics.median(values) * 1000 for values in zip(*phases))
    (threads,) = engine.con.execute("select current_setting('threads')").fetchone()
    engine.con.execute("set threads = 1")
    try:
        one_thread = statistics.median(_phases(_profiled(engine.con, plan.sql, params))[3] for _ in range(repeats)) * 1000
    finally:
        engine.con.execute("set threads = $threads", {"threads": threads})
    print(f"\none call's statement ({len(plan.sql.splitlines())} lines of SQL), DuckDB's profiler, medians of "
          f"{repeats}: binding {binding:.1f} ms, optimizer {optimizer:.1f} ms, physical planner {physical:.1f} ms; "
          f"operators {operators:.1f} ms CPU, {one_thread:.1f} ms on one thread (what a reused plan would still cost)")
    con = duckdb.connect()
    con.execute("create table numbers as select range as n, range % 50 as topic from range(5000)")
    grouped = " union all ".join(f"select topic, sum(n * {i}) from numbers group by topic" for i in range(40))
    constants = " union all ".join(f"select {i} as topic, {i} * 2 as n" for i in range(400))
    reuse = {}
    for name, statement, sql in (("reads a table", "grouped", grouped), ("reads no table", "constants", constants)):
        con.execute(f"prepare {statement} as {sql}")  # the script's own constant SQL
        con.execute(f"execute {statement}").fetchall()  # a first execution, not measured
        optimised = statistics.median(_phases(_profiled(con, f"execute {statement}"))[1]
                                      for _ in range(repeats)) * 1000
        reuse[f"EXECUTE optimizer ms, statement that {name}"] = optimised
        print(f"PREPARE once, EXECUTE: a statement that {name}: optimizer {optimised:.2f} ms at each EXECUTE "
              f"({'planned again' if optimised > 0 else 'plan reused'}; DuckDB {duckdb.__version__})")
    return {"call binding ms": binding, "call optimizer ms": optimizer, "call physical planner ms": physical,
            "call operators CPU ms": operators, "call operators CPU ms, one thread": one_thread, **reuse}


def _first_calls(args) -> int:
    """--first-calls N: the first call in N fresh processes (item 7)."""
    loads = [os.getloadavg()]
    common = [f"--topics={args.topics}", f"--docs={args.docs}", "--first-call-only"]
    figures = [json.loads(subprocess.run([sys.executable, __file__, *common], check=True, stdout=subprocess.PIPE,
                                         text=True).stdout.strip().splitlines()[-1]) for _ in range(args.first_calls)]
    loads.append(os.getloadavg())
    for kind in ("wall", "cpu"):
        values = sorted(figure[kind] for figure in figures)
        print(f"first call, {kind} s: least {values[0]:.3f}, median {statistics.median(values):.3f}, "
              f"most {values[-1]:.3f}; at most 0.5 s: {sum(value <= 0.5 for value in values)} of {len(values)}")
    print(f"load average (1, 5, 15 min) before {loads[0]}, after {loads[1]}")
    return 0


def _compare(args) -> int:
    """--baseline: REV's code and HEAD's in turn, each figure's median over the rounds."""
    from common import snapshot_code  # bench/ is on sys.path when run as a script

    loads = [os.getloadavg()]
    figures: dict[str, dict[str, list[float]]] = {"baseline": {}, "head": {}}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"baseline": Path(tmp, "baseline"), "head": Path(tmp, "head")}
        snapshot_code(args.baseline, trees["baseline"])
        snapshot_code("HEAD", trees["head"])
        common = [f"--calls={args.calls}", f"--topics={args.topics}", f"--docs={args.docs}"]
        for _ in range(args.rounds):
            for side, tree in trees.items():
                env = {**os.environ, "PYTHONPATH": str(tree)}
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run([sys.executable, __file__, "--whole-process", *common], env=env, check=True, cwd=tmp)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                figures[side].setdefault(f"whole process, import + {args.calls} calls s", []).append(cpu)
                out = subprocess.run([sys.executable, __file__, "--json", *common, f"--frame-rows={args.frame_rows}",
                                      f"--many={','.join(map(str, args.many))}", f"--many-rounds={args.many_rounds}"],
                                     env=env, check=True, cwd=tmp, stdout=subprocess.PIPE, text=True).stdout
                for name, value in json.loads(out.strip().splitlines()[-1]).items():
                    figures[side].setdefault(name, []).append(value)
    loads.append(os.getloadavg())
    print(f"load average (1, 5, 15 min) before {loads[0]}, after {loads[1]}; medians of {args.rounds} rounds")
    print(f"{'figure':62s} {args.baseline:>12s} {'HEAD':>12s}")
    for name, values in figures["head"].items():
        old = figures["baseline"].get(name)
        old_text = f"{statistics.median(old):12.3f}" if old else f"{'':12s}"
        print(f"{name:62s} {old_text} {statistics.median(values):12.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
