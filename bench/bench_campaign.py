"""Campaign-scale benchmark: pyeval's warehouse on the everyday work of an IR evaluation (many
runs of one test collection) against the tools it replaces, each job a whole process.

    python bench/bench_campaign.py [--jobs campaign,many_small,one_run,big_single,scaling]
                                   [--reps 3] [--code head|worktree|PATH]
                                   [--out bench/results/campaign.json] [--keep DIR] [--quick]
    python bench/bench_campaign.py --render RESULT.json   # rewrite RESULT.md only

What it does:

1. Generates the data reproducibly (common.generate_campaign: numpy ``default_rng``,
   vectorised per run file, text built with pyarrow.compute) into a temporary directory, or
   into ``--keep DIR``, where it is reused by later calls with the same sizes: graded qrels
   (levels 0-3, 200 judgments per topic), ClueWeb09-style docnos, scores rounded to 3
   decimals (ties), every run retrieving from a per-topic pool that holds the judged
   documents, one file per run with its own run tag. The first k runs of a campaign are the
   runs of a k-run campaign (same seed), so one 50 x 1000 campaign serves ``campaign``,
   ``one_run`` and ``scaling`` (hard-linked subsets, one directory per size).

2. Times every tool as whole processes under /usr/bin/time (common.measure: wall time, peak
   RSS of the process and of the children it waited for, user+system CPU, 1-minute load
   average before it). Repetitions are interleaved (rep 1 of every row of a job, then rep
   2, ...); tables show medians. Jobs (``--jobs``):

   - ``campaign`` (100 runs x 50 topics x 1000 docs, 5M run lines): pyeval as three
     processes on a new warehouse file (``load qrels``, ``load run`` with all files in one
     command, ``evaluate -m official`` storing the scores; ``load run DIR`` too when the
     pyeval measured accepts a directory, found out by trying); on the same warehouse file,
     the floor of that evaluate (bench/floor_official.py: a process importing only duckdb that
     computes the official measures of every run, per topic and means, with hand-written
     statements over the stored tables; its means checked against pyeval's stored ones, every
     measure of every run, to 1e-12; issue 39's target: evaluate within 1.5x of it), the same
     storing its values in a file of its own (``--store``), and recording them in a copy of the
     warehouse as it was before evaluate, in the tables evaluate writes (``--record``: the same
     work as evaluate's, by hand); trec_eval
     -O2 and trec_eval
     as its Makefile builds it (-g) once per file in one bash loop; pytrec_eval in one
     process (qrels parsed once, each run parsed and evaluated with trec_eval's official
     measures, means); ranx in one process (numba cache warm; cold once); a bare DuckDB
     ``read_csv`` of all files and the qrels (the floor). Then "everyday use": on the loaded
     warehouse four more ``pyeval evaluate`` processes with the other measure sets of
     EVERYDAY_SETS, against trec_eval -O2 (a loop per set) and pytrec_eval (a process per
     set) doing the same jobs; the official set is each tool's campaign row.
   - ``many_small`` (1000 runs x 50 x 100): the same tools, without the everyday sets.
   - ``one_run`` (run 1 of the campaign: 50 x 1000): ``pyeval trec_eval`` against trec_eval
     -O2, trec_eval -g, pytrec_eval and the DuckDB floor (a process that only imports duckdb,
     reads both files and computes AP and P@10 in one query, FLOOR_SQL); start-up references.
   - ``big_single`` (3000 topics x 1000, bench_trec_eval's 3000-topic data): ``pyeval
     trec_eval`` against pytrec_eval and trec_eval -O2 (bench_trec_eval's tools).
   - ``scaling``: on new warehouses holding 20, 100 and 400 runs of 50 x 1000 (1M, 5M and 20M
     run lines), ``load run`` and ``evaluate -m official --no-store``: seconds per million.

3. Cross-checks AP and P@10 of the first runs between tools (pyeval's stored means, trec_eval,
   pytrec_eval, ranx, the floor) and checks the targets (TARGETS); writes JSON (``--out``) and
   markdown (same path, ``.md``) and prints the markdown.

``--code head`` (default) measures a ``git archive`` snapshot of this repository's HEAD, PATH
that of the git checkout at PATH, first on every child's PYTHONPATH (common.select_code), so
edits made during the run do not mix in. ``--quick``: 10x fewer runs (and topics for
big_single), one repetition: for checking the script, not for numbers. ``--bytecode cached``
(default) runs every child with pyeval's modules compiled beforehand, as an installed package
has them (common.installed_bytecode; this machine sets ``PYTHONDONTWRITEBYTECODE``, under which
each pyeval process would compile its sources again); ``--bytecode env`` keeps the shell's setting.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_trec_eval as single
import common
import floor_official
from common import (CHILD_HEAD, CHILD_TAIL, REPO, child_program, measure, pyeval_exe, python_command,
                    summary_row)

SEED = 20241124
TOOLS_DIR = Path("/root/.cache/pyeval-tools")
JOBS = ("campaign", "many_small", "one_run", "big_single", "scaling")
CHECKED_RUNS = 3  # runs whose AP and P@10 are compared between tools
AGREEMENT = 1e-4  # trec_eval prints 4 decimals
FLOOR_AGREEMENT = 1e-12  # the official floor against pyeval's stored means (both in double)
FLOOR_SCRIPT = Path(__file__).resolve().parent / "floor_official.py"

# (runs, topics, docs per topic); --quick divides the runs by 10.
CAMPAIGN = (100, 50, 1000)
MANY_SMALL = (1000, 50, 100)
SCALING_RUNS = (20, 100, 400)  # of the campaign's 50 x 1000 runs: 1M, 5M, 20M lines
BIG_SINGLE_TOPICS = 3000  # x 1000 docs; --quick: 300

# trec_eval's default measures as pytrec_eval names them (bench_trec_eval's list).
OFFICIAL_PYTREC = single.PYTREC_MEASURES
# trec_eval's official set spelled out, for a pyeval that does not take the nickname.
OFFICIAL_SPELLED = ["map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
                    "num_q", "num_ret", "num_rel", "num_rel_ret"]
# Everyday measure sets, in trec_eval spelling (pyeval evaluate, trec_eval -m and pytrec_eval
# take them as they are; "official" is trec_eval's default set).
EVERYDAY_SETS = {
    "official": ["official"],
    "ndcg_p10": ["ndcg_cut.10,20", "P.10"],
    "ap_rr_bpref": ["map", "recip_rank", "bpref"],
    "ndcg_recall": ["ndcg_cut.5,10,20", "recall.100,1000"],
    "infap_rprec_success": ["infAP", "Rprec", "success.1,5,10"],
}
EXTRA_SETS = [name for name in EVERYDAY_SETS if name != "official"]

_RUN_COLUMNS = ("columns={'topic': 'VARCHAR', 'q0': 'VARCHAR', 'docno': 'VARCHAR', "
                "'rank': 'INTEGER', 'score': 'DOUBLE', 'tag': 'VARCHAR'}")
_QRELS_COLUMNS = "columns={'topic': 'VARCHAR', 'iter': 'VARCHAR', 'docno': 'VARCHAR', 'rel': 'INTEGER'}"

# AP and P@10 of one run as trec_eval computes them (ranks by score desc, docno desc; the
# topics of the qrels that the run retrieves; relevant = level > 0), reading both files.
FLOOR_SQL = f"""
with qrels as (select * from read_csv($qrels, delim=' ', header=false, {_QRELS_COLUMNS})),
run as (select * from read_csv($run, delim=' ', header=false, {_RUN_COLUMNS})),
judged as (select topic, count(*) filter (where rel > 0) as num_rel from qrels group by topic),
ranked as (
    select run.topic, coalesce(qrels.rel, 0) > 0 as is_rel,
           row_number() over (partition by run.topic order by run.score desc, run.docno desc) as rank
    from run left join qrels on qrels.topic = run.topic and qrels.docno = run.docno
),
cumulated as (
    select topic, is_rel, rank,
           sum(is_rel::integer) over (partition by topic order by rank
                                      rows between unbounded preceding and current row) as rel_so_far
    from ranked
),
per_topic as (
    select topic, sum(case when is_rel then rel_so_far / rank else 0 end) as precision_sum,
           count(*) filter (where is_rel and rank <= 10) / 10 as p10
    from cumulated group by topic
)
select avg(case when num_rel > 0 then precision_sum / num_rel else 0 end) as map,
       avg(p10) as p10, count(*) as topics
from per_topic join judged using (topic)
"""

# --------------------------------------------------------------------------------------------
# Child programs: argv QRELS, RUN (a glob of run files), PHASES (common.CHILD_HEAD)
# --------------------------------------------------------------------------------------------

CHILD_PYTREC = CHILD_HEAD + r"""
import glob, os, pytrec_eval
_mark("import")
with open(QRELS) as f:
    qrels = pytrec_eval.parse_qrel(f)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES))
_mark("parse_qrels")
_values = {}
for path in sorted(glob.glob(RUN)):
    with open(path) as f:
        run = pytrec_eval.parse_run(f)
    per_topic = evaluator.evaluate(run)
    names = sorted(next(iter(per_topic.values())))
    means = {m: pytrec_eval.compute_aggregated_measure(m, [v[m] for v in per_topic.values()])
             for m in names}
    tag = os.path.basename(path).rsplit(".", 1)[0]
    for m in names:
        print(f"{m:<22s}\t{tag}\t{means[m]:.4f}")
    if len(_values) < CHECKED_RUNS:
        _values[tag] = {m: means[m] for m in ("map", "P_10") if m in means}
_mark("runs")
""" + CHILD_TAIL

CHILD_RANX = CHILD_HEAD + r"""
import glob, os
from ranx import Qrels, Run, evaluate
_mark("import")
qrels = Qrels.from_file(QRELS, kind="trec")
_mark("parse_qrels")
_values = {}
for path in sorted(glob.glob(RUN)):
    means = evaluate(qrels, Run.from_file(path, kind="trec"), METRICS)
    tag = os.path.basename(path).rsplit(".", 1)[0]
    for m, v in means.items():
        print(f"{m:<22s}\t{tag}\t{v:.4f}")
    if len(_values) < CHECKED_RUNS:
        _values[tag] = {"map": float(means["map"]), "P_10": float(means["precision@10"])}
_mark("runs")
""" + CHILD_TAIL

CHILD_DUCKDB_READ = CHILD_HEAD + r"""
import duckdb
_mark("import")
con = duckdb.connect()
con.execute(f"create table q as select * from read_csv($path, delim=' ', header=false, {QRELS_COLUMNS})",
            {"path": QRELS})
_mark("read_qrels")
con.execute(f"create table r as select * from read_csv($path, delim=' ', header=false, "
            f"filename=true, {RUN_COLUMNS})", {"path": RUN})
_mark("read_runs")
n_q, n_r = con.execute("select (select count(*) from q), (select count(*) from r)").fetchone()
print(n_q, n_r)
_values = {"qrels_rows": n_q, "run_rows": n_r}
""" + CHILD_TAIL

CHILD_FLOOR = CHILD_HEAD + r"""
import duckdb
_mark("import")
ap, p10, topics = duckdb.connect().execute(SQL, {"qrels": QRELS, "run": RUN}).fetchone()
_mark("query")
print(f"map\tall\t{ap:.4f}\nP_10\tall\t{p10:.4f}")
_values = {"map": ap, "P_10": p10, "topics": topics}
""" + CHILD_TAIL

LABELS = {
    "pyeval_load_qrels": "pyeval load qrels",
    "pyeval_load_run": "pyeval load run FILES (all in one command)",
    "pyeval_load_run_dir": "pyeval load run DIR (directory form)",
    "pyeval_evaluate": "pyeval evaluate -m official (stored)",
    "floor_official": "floor official (hand-written DuckDB, stored tables)",
    "floor_official_store": "floor official --store (the same, its per-topic values and means stored in a DuckDB file)",
    "floor_official_record": "floor official --record (the same, recorded in the warehouse's own tables as pyeval evaluate stores it)",
    "pyeval_evaluate_no_store": "pyeval evaluate -m official --no-store (computed and printed, nothing stored)",
    "pyeval_sum": "pyeval: load qrels + load run + evaluate (sum)",
    "trec_eval_O2": "trec_eval -O2, bash loop over the files",
    "trec_eval_g": "trec_eval (its Makefile's -g build), bash loop",
    "pytrec_eval": "pytrec_eval, one process (official measures)",
    "ranx_cold": "ranx, one process (empty numba cache: JIT included)",
    "ranx_warm": "ranx, one process (numba cache warm)",
    "duckdb_read": "bare DuckDB read_csv of all files + qrels (floor)",
    **{f"pyeval_{s}": f"everyday: pyeval evaluate {' '.join(EVERYDAY_SETS[s])} (stored)" for s in EXTRA_SETS},
    **{f"trec_eval_O2_{s}": f"everyday: trec_eval -O2 loop, -m {' -m '.join(EVERYDAY_SETS[s])}"
       for s in EXTRA_SETS},
    **{f"pytrec_eval_{s}": f"everyday: pytrec_eval process, {' '.join(EVERYDAY_SETS[s])}" for s in EXTRA_SETS},
    "pyeval_everyday": "everyday: pyeval, the 5 evaluate processes (sum)",
    "pyeval_everyday_with_load": "everyday: pyeval, load qrels + load run + 5 evaluates (sum)",
    "trec_eval_O2_everyday": "everyday: trec_eval -O2, the 5 loops (sum)",
    "pytrec_eval_everyday": "everyday: pytrec_eval, the 5 processes (sum)",
    # one_run and big_single (bench_trec_eval's tools)
    "pyeval": "pyeval trec_eval QRELS RUN",
    "trec_eval_c_O2": "trec_eval -O2",
    "trec_eval_c": "trec_eval (-g build)",
    "pytrec_eval_single": "pytrec_eval process (parse_qrel/parse_run + RelevanceEvaluator)",
    "duckdb_floor": "DuckDB floor: read both files, AP and P@10 in one query",
    "pyeval_map_p10": "pyeval trec_eval -m map -m P.10 QRELS RUN (the floor's measures)",
    "floor_official_files": "DuckDB floor of the official set: bench/floor_official.py --files QRELS RUN",
    **common.STARTUP_LABELS,
}
SUMS = {  # derived rows: the sum of these rows per repetition (peak RSS: the largest)
    "pyeval_sum": ["pyeval_load_qrels", "pyeval_load_run", "pyeval_evaluate"],
    "pyeval_everyday": ["pyeval_evaluate", *[f"pyeval_{s}" for s in EXTRA_SETS]],
    "pyeval_everyday_with_load": ["pyeval_load_qrels", "pyeval_load_run", "pyeval_evaluate",
                                  *[f"pyeval_{s}" for s in EXTRA_SETS]],
    "trec_eval_O2_everyday": ["trec_eval_O2", *[f"trec_eval_O2_{s}" for s in EXTRA_SETS]],
    "pytrec_eval_everyday": ["pytrec_eval", *[f"pytrec_eval_{s}" for s in EXTRA_SETS]],
}
RATIOS = {  # job -> (name, numerator row, denominator row)
    "campaign": [
        ("pyeval sum / bare read", "pyeval_sum", "duckdb_read"),
        ("pyeval sum / trec_eval -O2 loop", "pyeval_sum", "trec_eval_O2"),
        ("pyeval sum / trec_eval -g loop", "pyeval_sum", "trec_eval_g"),
        ("pytrec_eval / pyeval sum", "pytrec_eval", "pyeval_sum"),
        ("ranx warm / pyeval sum", "ranx_warm", "pyeval_sum"),
        ("pyeval load run / bare read", "pyeval_load_run", "duckdb_read"),
        ("pyeval evaluate / bare read", "pyeval_evaluate", "duckdb_read"),
        ("pyeval evaluate official / floor", "pyeval_evaluate", "floor_official"),
        ("pyeval evaluate official --no-store / floor", "pyeval_evaluate_no_store", "floor_official"),
        ("pyeval evaluate official / floor --store", "pyeval_evaluate", "floor_official_store"),
        ("pyeval evaluate official / floor --record", "pyeval_evaluate", "floor_official_record"),
        ("everyday: pyeval 5 evaluates / trec_eval -O2 5 loops", "pyeval_everyday", "trec_eval_O2_everyday"),
        ("everyday: pyeval load + 5 evaluates / trec_eval -O2 5 loops", "pyeval_everyday_with_load",
         "trec_eval_O2_everyday"),
        ("everyday: pytrec_eval 5 processes / pyeval 5 evaluates", "pytrec_eval_everyday", "pyeval_everyday"),
        ("everyday: pytrec_eval 5 processes / pyeval load + 5 evaluates", "pytrec_eval_everyday",
         "pyeval_everyday_with_load"),
    ],
    "one_run": [
        ("pyeval / pytrec_eval", "pyeval", "pytrec_eval_single"),
        ("pyeval / trec_eval -O2", "pyeval", "trec_eval_c_O2"),
        ("pyeval / DuckDB floor", "pyeval", "duckdb_floor"),
        ("pyeval -m map -m P.10 / DuckDB floor", "pyeval_map_p10", "duckdb_floor"),
        ("pyeval / official floor (files)", "pyeval", "floor_official_files"),
        ("official floor (files) / pytrec_eval", "floor_official_files", "pytrec_eval_single"),
        ("pyeval / pyeval --version", "pyeval", "pyeval_version"),
    ],
    "big_single": [
        ("pyeval / pytrec_eval", "pyeval", "pytrec_eval_single"),
        ("pytrec_eval / pyeval", "pytrec_eval_single", "pyeval"),
        ("pyeval / trec_eval -O2", "pyeval", "trec_eval_c_O2"),
    ],
}
RATIOS["many_small"] = RATIOS["campaign"][:8]
# Targets: (name, job, row or ratio, which statistic, op, bound)
TARGETS = [
    ("campaign: pyeval sum <= 2.5x bare read", "campaign", "pyeval sum / bare read", "ratio", "<=", 2.5),
    ("campaign: pyeval sum <= trec_eval -O2 loop", "campaign", "pyeval sum / trec_eval -O2 loop", "ratio", "<=", 1.0),
    ("campaign: pytrec_eval / pyeval sum >= 1.5", "campaign", "pytrec_eval / pyeval sum", "ratio", ">=", 1.5),
    ("campaign: pyeval evaluate official <= 1.5x floor (stored tables)", "campaign",
     "pyeval evaluate official / floor", "ratio", "<=", 1.5),
    ("campaign: pyeval evaluate official <= 1.5x floor --record (the same rows recorded)", "campaign",
     "pyeval evaluate official / floor --record", "ratio", "<=", 1.5),
    ("campaign: peak RSS <= 1 GB (largest pyeval step)", "campaign", "pyeval_sum", "peak_rss_mb", "<=", 1024),
    ("many_small: pyeval sum <= 3x bare read", "many_small", "pyeval sum / bare read", "ratio", "<=", 3.0),
    ("one_run: pyeval trec_eval within 1.5x pytrec_eval", "one_run", "pyeval / pytrec_eval", "ratio", "<=", 1.5),
    ("one_run: -m map -m P.10 within 1.3x the DuckDB floor process", "one_run",
     "pyeval -m map -m P.10 / DuckDB floor", "ratio", "<=", 1.3),
    ("big_single: pyeval trec_eval at least as fast as pytrec_eval", "big_single", "pyeval / pytrec_eval",
     "ratio", "<=", 1.0),
]

# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


def campaign_data(root: Path, n_runs: int, topics: int, docs: int) -> dict:
    """A generated campaign of at least ``n_runs`` runs under ``root``, reused when a
    description (dataset.json) of the same sizes and seed is there."""
    directory = root / f"campaign_{topics}x{docs}"
    manifest = directory / "dataset.json"
    if manifest.exists():
        data = json.loads(manifest.read_text())
        if (data["runs"] >= n_runs and (data["topics"], data["docs_per_topic"], data["seed"]) == (topics, docs, SEED)
                and all(Path(f).exists() for f in data["run_files"])):
            print(f"reusing {directory} ({data['runs']} runs)", flush=True)
            return data
    shutil.rmtree(directory, ignore_errors=True)
    data = common.generate_campaign(directory, n_runs, topics, docs, SEED)
    manifest.write_text(json.dumps(data, indent=1))
    print(f"generated {n_runs} runs x {topics} topics x {docs} docs "
          f"({data['run_bytes'] / 2**20:.0f} MiB) in {data['generation_s']}s", flush=True)
    return data


def runs_subset(data: dict, n_runs: int) -> dict:
    """The first ``n_runs`` runs of ``data`` in a directory of their own (hard links)."""
    files = data["run_files"][:n_runs]
    if n_runs == data["runs"]:
        directory = Path(data["runs_dir"])
    else:
        directory = Path(data["runs_dir"]).parent / f"runs_{n_runs}"
        if sorted(p.name for p in directory.glob("*")) != [Path(f).name for f in files]:
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir()
            for f in files:
                os.link(f, directory / Path(f).name)
        files = [str(directory / Path(f).name) for f in files]
    per_run = data["topics"] * data["docs_per_topic"]
    return {**data, "runs": n_runs, "runs_dir": str(directory), "run_files": files,
            "run_lines": n_runs * per_run, "run_bytes": sum(Path(f).stat().st_size for f in files)}


def single_run_data(root: Path, topics: int) -> dict:
    """bench_trec_eval's data (common.generate, seed single.SEED + topics), reused from ``root``."""
    directory = root / f"single_{topics}x1000"
    manifest = directory / "dataset.json"
    if manifest.exists():
        data = json.loads(manifest.read_text())
        if Path(data["run_file"]).exists():
            return data
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    data = common.generate(directory, topics, 1000, single.SEED + topics)
    manifest.write_text(json.dumps(data, indent=1))
    print(f"generated one run of {topics} topics x 1000 in {data['generation_s']}s", flush=True)
    return data


def describe(data: dict) -> dict:
    """``data`` without its list of files."""
    return {k: v for k, v in data.items() if k != "run_files"}


# --------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------


class Setup:
    """What the measured processes need: binaries, pyeval's accepted forms, the numba cache."""

    def __init__(self, trec_eval_O2: str, trec_eval_g: str, work: Path):
        self.trec_eval = {"O2": trec_eval_O2, "g": trec_eval_g}
        self.work = work
        self.numba_cache = work / "numba_warm"
        self.numba_cache.mkdir(exist_ok=True)
        self.official = ["official"]
        self.directory_form = False
        self.probes: dict = {}

    def probe(self) -> None:
        """Find out, on a tiny campaign, whether the pyeval measured takes ``load run DIR``
        and ``-m official``, and that it takes every everyday set."""
        data = common.generate_campaign(self.work / "probe", 2, 3, 20, SEED)
        db = self.work / "probe.duckdb"
        base = [pyeval_exe(), "--db", str(db)]

        def attempt(*args: str) -> dict:
            done = subprocess.run([*base, *args], capture_output=True, text=True)
            return {"accepted": done.returncode == 0, "stderr": done.stderr.strip()[-300:]}

        subprocess.run([*base, "load", "qrels", "-C", "c", data["qrels_file"]], capture_output=True, check=True)
        self.probes["load_run_directory"] = attempt("load", "run", "-C", "c", data["runs_dir"] + "/")
        self.directory_form = self.probes["load_run_directory"]["accepted"]
        if not self.directory_form:
            subprocess.run([*base, "load", "run", "-C", "c", *data["run_files"]], capture_output=True, check=True)
        self.probes["official"] = attempt("evaluate", "-C", "c", "--no-store", "-m", "official")
        if not self.probes["official"]["accepted"]:
            self.official = OFFICIAL_SPELLED
        for name in EXTRA_SETS:
            self.probes[name] = attempt("evaluate", "-C", "c", "--no-store", *m_args(EVERYDAY_SETS[name]))
        db.unlink(missing_ok=True)
        shutil.rmtree(self.work / "probe")
        print("probes: " + ", ".join(f"{k} {'yes' if v['accepted'] else 'NO'}" for k, v in self.probes.items()),
              flush=True)

    def pyeval_set(self, name: str) -> list[str] | None:
        """The -m values of an everyday set for pyeval (None if the probe failed)."""
        if name == "official":
            return self.official
        return EVERYDAY_SETS[name] if self.probes.get(name, {}).get("accepted", True) else None


def m_args(specs: list[str]) -> list[str]:
    return [item for spec in specs for item in ("-m", spec)]


def pytrec_measures(name: str) -> list[str]:
    return OFFICIAL_PYTREC if name == "official" else EVERYDAY_SETS[name]


def trec_eval_loop(binary: str, specs: list[str], qrels: str, runs_dir: str) -> list[str]:
    """``bash -c 'for f in DIR/*; do trec_eval [-m ...] QRELS $f; done'``: one process per file."""
    options = " ".join(shlex.quote(a) for a in m_args(specs))
    script = f'for f in "$3"/*; do "$1" {options} "$2" "$f" || exit 1; done'
    return ["bash", "-c", script, "bash", binary, qrels, runs_dir]


def measure_child(template: str, data: dict, phases: Path, out: Path, env: dict | None = None,
                  **constants) -> dict:
    """A child program on the qrels and all run files of ``data``; its phases and values."""
    phases.unlink(missing_ok=True)
    program = child_program(template, CHECKED_RUNS=CHECKED_RUNS, **constants)
    result = measure(python_command(program, data["qrels_file"], str(Path(data["runs_dir"]) / "*"), str(phases)),
                     env=env, stdout_path=out)
    if phases.exists():
        result.update(json.loads(phases.read_text()))
    return result


def remove_warehouse(db: Path) -> None:
    for path in (db, Path(str(db) + ".wal")):
        path.unlink(missing_ok=True)


def stored_values(db: Path, runs: list[str]) -> dict:
    """AP and P@10 of ``runs`` as the first evaluation of the warehouse stored them."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "select run_id, measure, value from evaluation_means"
            " where evaluation_id = (select min(evaluation_id) from evaluations)"
            " and measure in ('AP', 'P@10') and list_contains($runs, run_id)",
            {"runs": runs},
        ).fetchall()
    finally:
        con.close()
    values: dict = {}
    for run, name, value in rows:
        values.setdefault(run, {})["map" if name == "AP" else "P_10"] = value
    return values


def floor_check(db: Path, values_file: Path) -> dict:
    """Every mean the official floor wrote (``values_file``) against the mean pyeval stored in
    the warehouse's first evaluation, measure by measure (floor_official.STORED_NAMES)."""
    import duckdb

    computed = json.loads(values_file.read_text())["means"]
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("select run_id, measure, value from evaluation_means"
                           " where evaluation_id = (select min(evaluation_id) from evaluations)").fetchall()
    finally:
        con.close()
    stored = {(run, name): value for run, name, value in rows}
    pairs = [(stored.get((run, floor_official.STORED_NAMES[name])), value)
             for run, means in computed.items() for name, value in means.items()]
    missing = sum(expected is None for expected, _ in pairs)
    largest = max((abs(expected - value) for expected, value in pairs if expected is not None), default=None)
    return {"runs": len(computed), "means_compared": len(pairs) - missing, "missing_in_pyeval": missing,
            "stored_means": len(rows), "max_difference": largest,
            "agree": bool(pairs) and not missing and len(pairs) == len(rows) and largest <= FLOOR_AGREEMENT}


def floor_checked_values(values_file: Path, runs: list[str]) -> dict:
    """AP and P@10 of ``runs`` as the official floor computed them (for ``agreement``)."""
    means = json.loads(values_file.read_text())["means"]
    return {run: {"map": means[run]["map"], "P_10": means[run]["P_10"]} for run in runs if run in means}


def trec_eval_values(path: Path, runs: list[str]) -> dict:
    """AP and P@10 of ``runs`` from concatenated trec_eval output (each begins with runid)."""
    values: dict = {}
    current = None
    for line in path.read_text().splitlines():
        fields = line.split()
        if len(fields) != 3:
            continue
        if fields[0] == "runid":
            current = fields[2]
        elif current in runs and fields[0] in ("map", "P_10"):
            values.setdefault(current, {})[fields[0]] = float(fields[2])
    return values


# --------------------------------------------------------------------------------------------
# Jobs: one repetition each
# --------------------------------------------------------------------------------------------


def multi_run_rep(setup: Setup, data: dict, work: Path, rep: int, everyday: bool, ranx_cold: bool) -> dict:
    """One repetition of every row of ``campaign`` / ``many_small`` (dict row -> measurement;
    in rep 0 also "values": AP and P@10 of the checked runs per tool)."""
    qrels, runs_dir, files = data["qrels_file"], data["runs_dir"], data["run_files"]
    checked = [Path(f).stem for f in files[:CHECKED_RUNS]]
    results: dict = {}
    values: dict = {}

    def record(row: str, result: dict) -> dict:
        results[row] = result
        status = "" if result["returncode"] == 0 else f" FAILED: {result.get('error', '')[-300:]}"
        print(f"  rep {rep + 1} {row}: {result['wall_s']:.2f}s {result.get('peak_rss_mb', 0):.0f} MiB "
              f"(load {result['load1']:.2f}){status}", flush=True)
        return result

    db = work / "campaign.duckdb"
    remove_warehouse(db)
    base = [pyeval_exe(), "--db", str(db)]
    if record("pyeval_load_qrels", measure([*base, "load", "qrels", "-C", "c", qrels]))["returncode"] == 0:
        if record("pyeval_load_run", measure([*base, "load", "run", "-C", "c", *files]))["returncode"] == 0:
            # the warehouse as evaluate finds it, for the floor that records the same evaluation
            before_evaluate = work / "campaign_before_evaluate.duckdb"
            shutil.copyfile(db, before_evaluate)
            os.sync()  # written out now, not by the timed process's first checkpoint
            record("pyeval_evaluate", measure([*base, "evaluate", "-C", "c", *m_args(setup.official)],
                                              stdout_path=work / "pyeval_evaluate.out"))
            if rep == 0 and results["pyeval_evaluate"]["returncode"] == 0:
                values["pyeval (stored)"] = stored_values(db, checked)
            floor_values = work / "floor_official.json"
            floor_values.unlink(missing_ok=True)
            floor = record("floor_official", measure([sys.executable, str(FLOOR_SCRIPT), str(db), "c",
                                                      "--out", str(floor_values)]))
            if rep == 0 and floor["returncode"] == 0:
                values["floor official"] = floor_checked_values(floor_values, checked)
                if results["pyeval_evaluate"]["returncode"] == 0:
                    results["floor_check"] = floor_check(db, floor_values)
            # the floor doing all of evaluate's work once: computed, and stored in a file beside
            floor_store = work / "floor_official_store.duckdb"
            record("floor_official_store", measure([sys.executable, str(FLOOR_SCRIPT), str(db), "c",
                                                    "--store", str(floor_store)]))
            for name in (floor_store, Path(str(floor_store) + ".wal")):
                name.unlink(missing_ok=True)
            # the floor doing evaluate's very work: the same rows recorded in the same tables
            # (topic_scores, evaluation_means, the archive's current_scores and current_means)
            record("floor_official_record", measure([sys.executable, str(FLOOR_SCRIPT), str(before_evaluate), "c",
                                                     "--record"]))
            for name in (before_evaluate, Path(str(before_evaluate) + ".wal")):
                name.unlink(missing_ok=True)
            # the same work as the floor's (which stores nothing): computed and printed only
            record("pyeval_evaluate_no_store", measure([*base, "evaluate", "-C", "c", "--no-store",
                                                        *m_args(setup.official)]))
            for name in EXTRA_SETS if everyday else []:
                specs = setup.pyeval_set(name)
                if specs is not None:
                    record(f"pyeval_{name}", measure([*base, "evaluate", "-C", "c", *m_args(specs)]))
    results["warehouse_mb"] = round(db.stat().st_size / 2**20, 1) if db.exists() else None
    remove_warehouse(db)
    if setup.directory_form:
        subprocess.run([*base, "load", "qrels", "-C", "c", qrels], capture_output=True, check=True)
        record("pyeval_load_run_dir", measure([*base, "load", "run", "-C", "c", runs_dir + "/"]))
        remove_warehouse(db)

    for build in ("O2", "g"):
        out = work / f"trec_eval_{build}.out"
        record(f"trec_eval_{build}", measure(trec_eval_loop(setup.trec_eval[build], [], qrels, runs_dir),
                                             stdout_path=out))
        if rep == 0 and results[f"trec_eval_{build}"]["returncode"] == 0:
            values[f"trec_eval -{build}"] = trec_eval_values(out, checked)
    for name in EXTRA_SETS if everyday else []:
        record(f"trec_eval_O2_{name}", measure(trec_eval_loop(setup.trec_eval["O2"], EVERYDAY_SETS[name],
                                                              qrels, runs_dir)))

    for name in ["official", *(EXTRA_SETS if everyday else [])]:
        row = "pytrec_eval" if name == "official" else f"pytrec_eval_{name}"
        result = record(row, measure_child(CHILD_PYTREC, data, work / "pytrec.json", work / "pytrec.out",
                                           MEASURES=repr(pytrec_measures(name))))
        if rep == 0 and name == "official" and "values" in result:
            values["pytrec_eval"] = result.pop("values")
        result.pop("values", None)

    for row in ["ranx_cold", "ranx_warm"] if ranx_cold else ["ranx_warm"]:
        cache = work / "numba_cold" if row == "ranx_cold" else setup.numba_cache
        if row == "ranx_cold":
            shutil.rmtree(cache, ignore_errors=True)
            cache.mkdir()
        elif not any(cache.iterdir()):
            results["ranx_warm_up"] = single.warm_numba(work, cache)
        result = record(row, measure_child(CHILD_RANX, data, work / "ranx.json", work / "ranx.out",
                                           env=dict(os.environ, NUMBA_CACHE_DIR=str(cache)),
                                           METRICS=repr(single.RANX_METRICS)))
        if row == "ranx_cold":
            if not any(setup.numba_cache.iterdir()):  # the JIT's work fills the warm cache
                shutil.copytree(cache, setup.numba_cache, dirs_exist_ok=True)
            shutil.rmtree(cache)
        if rep == 0 and row == "ranx_warm" and "values" in result:
            values["ranx"] = result["values"]
        result.pop("values", None)

    result = record("duckdb_read", measure_child(CHILD_DUCKDB_READ, data, work / "duckdb.json", work / "duckdb.out",
                                                 QRELS_COLUMNS=repr(_QRELS_COLUMNS), RUN_COLUMNS=repr(_RUN_COLUMNS)))
    if rep == 0:
        results["values"] = values
        results["rows_read"] = result.get("values")
    return results


def one_run_rep(setup: Setup, data: dict, work: Path, rep: int) -> dict:
    """``pyeval trec_eval`` and the tools it replaces on one run (bench_trec_eval.run_tool),
    the DuckDB floor and the start-up references."""
    results: dict = {}
    for tool in ("pyeval", "trec_eval_c_O2", "trec_eval_c", "pytrec_eval"):
        result = single.run_tool(tool, data, work, rep, setup.numba_cache)
        if tool in ("pyeval", "trec_eval_c_O2", "trec_eval_c") and result["returncode"] == 0:
            result["values"] = single._values_from_trec_output(work / f"{tool}.out")
        results["pytrec_eval_single" if tool == "pytrec_eval" else tool] = result
    # the floor's own work: AP and P@10 only (issue 39: within 1.3x of the floor process)
    results["pyeval_map_p10"] = measure([pyeval_exe(), "trec_eval", "-m", "map", "-m", "P.10",
                                         data["qrels_file"], data["run_file"]], stdout_path=work / "pyeval_map_p10.out")
    phases = work / "floor.json"
    phases.unlink(missing_ok=True)
    floor = measure(python_command(child_program(CHILD_FLOOR, SQL=repr(FLOOR_SQL)), data["qrels_file"],
                                   data["run_file"], str(phases)), stdout_path=work / "floor.out")
    if phases.exists():
        floor.update(json.loads(phases.read_text()))
    results["duckdb_floor"] = floor
    # the floor of the official set (what pytrec_eval computes): hand-written DuckDB, files in
    results["floor_official_files"] = measure([sys.executable, str(FLOOR_SCRIPT), "--files", data["qrels_file"],
                                               data["run_file"]], stdout_path=work / "floor_official_files.out")
    results.update(common.measure_startup())
    if rep == 0:
        results["outputs_identical_to_pyeval"] = {
            tool: single._same_output(work / "pyeval.out", work / f"{tool}.out")
            for tool in ("trec_eval_c_O2", "trec_eval_c")}
    for row, result in results.items():
        if isinstance(result, dict) and "wall_s" in result:
            print(f"  rep {rep + 1} {row}: {result['wall_s']:.2f}s {result.get('peak_rss_mb', 0):.0f} MiB "
                  f"(load {result['load1']:.2f}){'' if result['returncode'] == 0 else ' FAILED'}", flush=True)
    return results


def big_single_rep(setup: Setup, data: dict, work: Path, rep: int) -> dict:
    results: dict = {}
    for tool in ("pyeval", "pytrec_eval", "trec_eval_c_O2"):
        result = single.run_tool(tool, data, work, rep, setup.numba_cache)
        if tool != "pytrec_eval" and result["returncode"] == 0:
            result["values"] = single._values_from_trec_output(work / f"{tool}.out")
        results["pytrec_eval_single" if tool == "pytrec_eval" else tool] = result
        print(f"  rep {rep + 1} {tool}: {result['wall_s']:.2f}s {result.get('peak_rss_mb', 0):.0f} MiB "
              f"(load {result['load1']:.2f}){'' if result['returncode'] == 0 else ' FAILED'}", flush=True)
    if rep == 0:
        results["outputs_identical_to_pyeval"] = {
            "trec_eval_c_O2": single._same_output(work / "pyeval.out", work / "trec_eval_c_O2.out")}
    return results


def scaling_rep(setup: Setup, sizes: dict[int, dict], work: Path, rep: int) -> dict:
    """At each size, on a new warehouse: load qrels (not timed as a row), ``load run`` and
    ``evaluate -m official --no-store``."""
    results: dict = {}
    for n_runs, data in sizes.items():
        db = work / "scaling.duckdb"
        remove_warehouse(db)
        base = [pyeval_exe(), "--db", str(db)]
        subprocess.run([*base, "load", "qrels", "-C", "c", data["qrels_file"]], capture_output=True, check=True)
        load = measure([*base, "load", "run", "-C", "c", *data["run_files"]])
        evaluate = (measure([*base, "evaluate", "-C", "c", "--no-store", *m_args(setup.official)])
                    if load["returncode"] == 0 else {"returncode": None})
        size_mb = round(db.stat().st_size / 2**20, 1) if db.exists() else None
        remove_warehouse(db)
        results[f"load_run_{n_runs}"] = load
        results[f"evaluate_{n_runs}"] = evaluate
        results[f"warehouse_mb_{n_runs}"] = size_mb
        print(f"  rep {rep + 1} {data['run_lines'] / 1e6:g}M lines: load run {load['wall_s']:.2f}s "
              f"{load.get('peak_rss_mb', 0):.0f} MiB, evaluate {evaluate.get('wall_s', 0):.2f}s "
              f"{evaluate.get('peak_rss_mb', 0):.0f} MiB (load {load['load1']:.2f})", flush=True)
    return results


# --------------------------------------------------------------------------------------------
# Summaries
# --------------------------------------------------------------------------------------------


def summed(rep: dict, rows: list[str]) -> dict:
    """The sum of ``rows`` of one repetition (peak RSS: the largest); failed if one is."""
    parts = [rep.get(row) for row in rows]
    if not all(p and p.get("returncode") == 0 for p in parts):
        return {"returncode": 1, "wall_s": None, "load1": None}
    return {"returncode": 0, "wall_s": round(sum(p["wall_s"] for p in parts), 3),
            "peak_rss_mb": max(p["peak_rss_mb"] for p in parts),
            "cpu_s": round(sum(p["cpu_s"] for p in parts), 2), "load1": parts[0]["load1"]}


def summarise(reps: list[dict]) -> dict:
    """Medians per row (summary_row), the SUMS rows included where their parts were measured."""
    measured = {row for r in reps for row, value in r.items() if isinstance(value, dict) and "wall_s" in value}
    summary = {}
    for row in LABELS:  # in LABELS' order
        if row in measured:
            summary[row] = summary_row([r[row] for r in reps if row in r])
        elif row in SUMS and all(part in measured for part in SUMS[row]):
            summary[row] = summary_row([summed(r, SUMS[row]) for r in reps])
    return summary


def ratios(job: str, summary: dict) -> dict:
    out = {}
    for name, top, bottom in RATIOS.get(job, []):
        entry = {}
        for key in ("wall_s", "peak_rss_mb"):
            x, y = summary.get(top, {}).get(key), summary.get(bottom, {}).get(key)
            entry[key] = round(x / y, 2) if x and y else None
        out[name] = entry
    return out


def agreement(values: dict) -> dict:
    """Per checked run and measure: each tool's value and whether they all agree to 1e-4."""
    out = {}
    runs = sorted({run for per_tool in values.values() for run in per_tool})
    for run in runs:
        for name in ("map", "P_10"):
            found = {tool: per_tool[run][name] for tool, per_tool in values.items()
                     if name in per_tool.get(run, {})}
            if found:
                spread = max(found.values()) - min(found.values())
                out[f"{run} {name}"] = {"values": found, "agree": len(found) > 1 and spread <= AGREEMENT}
    return out


def scaling_summary(reps: list[dict], sizes: dict[int, dict]) -> dict:
    out = {}
    for n_runs, data in sizes.items():
        millions = data["run_lines"] / 1e6
        load = summary_row([r[f"load_run_{n_runs}"] for r in reps])
        evaluate = summary_row([r[f"evaluate_{n_runs}"] for r in reps])
        out[str(n_runs)] = {
            "runs": n_runs, "run_lines": data["run_lines"], "run_bytes": data["run_bytes"],
            "load_run": load, "evaluate": evaluate,
            "load_run_s_per_million": round(load["wall_s"] / millions, 3) if load["wall_s"] else None,
            "evaluate_s_per_million": round(evaluate["wall_s"] / millions, 3) if evaluate["wall_s"] else None,
            "warehouse_mb": reps[0].get(f"warehouse_mb_{n_runs}"),
        }
    return out


def check_targets(jobs: dict) -> dict:
    out = {}
    for name, job, key, statistic, op, bound in TARGETS:
        entry = jobs.get(job)
        if entry is None:
            value = None
        elif statistic == "ratio":
            value = entry["ratios"].get(key, {}).get("wall_s")
        else:
            value = entry["summary"].get(key, {}).get(statistic)
        met = None if value is None else (value <= bound if op == "<=" else value >= bound)
        out[name] = {"value": value, "bound": f"{op} {bound}", "met": met}
    return out


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------


def _fmt(value, digits=2) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def load_range(report: dict) -> str:
    """The lowest and highest 1-minute load average recorded before a measurement."""
    loads = [value for entry in report["jobs"].values() for rep in entry["reps"] for result in rep.values()
             if isinstance(result, dict) for value in [result.get("load1")] if value is not None]
    return f"{min(loads):.1f} to {max(loads):.1f}" if loads else "not recorded"


def markdown(report: dict) -> str:
    code = report["code"]
    lines = [f"### Campaign-scale benchmark: pyeval {code.get('commit') or ''} ({code.get('snapshot', 'work tree')})",
             "", f"{report['machine']['nproc']} CPUs ({report['machine']['cpu_model']}), "
             f"{report['settings']['reps']} interleaved repetitions, medians; total {report.get('total_s')}s; "
             f"1-minute load average before the measurements {load_range(report)}.",
             "", "| target | value | bound | met |", "| --- | ---: | --- | --- |"]
    for name, t in report["targets"].items():
        met = "n/a" if t["met"] is None else ("yes" if t["met"] else "**no**")
        lines.append(f"| {name} | {_fmt(t['value'])} | {t['bound']} | {met} |")
    for job, entry in report["jobs"].items():
        lines.append(f"\n#### {job}: {entry['title']}\n")
        if job == "scaling":
            lines.append("| run lines | load run s | per M | CPU s | peak MiB | evaluate s | per M | CPU s | peak MiB "
                         "| warehouse MiB |")
            lines.append("| ---: |" + " ---: |" * 9)
            for size in entry["sizes"].values():
                load, evaluate = size["load_run"], size["evaluate"]
                lines.append(
                    f"| {size['run_lines']:,} | {_fmt(load['wall_s'])} | {_fmt(size['load_run_s_per_million'])} | "
                    f"{_fmt(load['cpu_s'], 1)} | {_fmt(load['peak_rss_mb'], 0)} | {_fmt(evaluate['wall_s'])} | "
                    f"{_fmt(size['evaluate_s_per_million'])} | {_fmt(evaluate['cpu_s'], 1)} | "
                    f"{_fmt(evaluate['peak_rss_mb'], 0)} | {_fmt(size['warehouse_mb'], 0)} |")
            continue
        lines.append("| row | wall s (median) | all reps | peak RSS MiB | CPU s |")
        lines.append("| --- | ---: | --- | ---: | ---: |")
        for row, s in entry["summary"].items():
            if not s.get("ok"):
                lines.append(f"| {LABELS[row]} | failed | | | |")
                continue
            reps = ", ".join(_fmt(w) for w in s["wall_s_all"] if w is not None)
            bold = "**" if row in SUMS else ""
            lines.append(f"| {bold}{LABELS[row]}{bold} | {_fmt(s['wall_s'])} | {reps} | "
                         f"{_fmt(s['peak_rss_mb'], 0)} | {_fmt(s['cpu_s'], 1)} |")
        if entry.get("warehouse_mb"):
            lines.append(f"\nWarehouse file after load + evaluate: {entry['warehouse_mb']:.0f} MiB.")
        check = entry.get("floor_check")
        if check:
            largest = "n/a" if check["max_difference"] is None else f"{check['max_difference']:.1e}"
            lines.append(f"\n{LABELS['floor_official']}: {check['means_compared']} means of {check['runs']} runs "
                         f"against pyeval's {check['stored_means']} stored means, largest difference {largest}: "
                         f"{'agree' if check['agree'] else '**differ**'} (to {FLOOR_AGREEMENT:g}).")
        for tool, same in entry.get("outputs_identical_to_pyeval", {}).items():
            lines.append(f"\n{LABELS[tool]}: output {'byte-identical to' if same else '**differs from**'} "
                         "pyeval trec_eval's.")
        if entry["ratios"]:
            lines += ["", "| ratio | wall time | peak RSS |", "| --- | ---: | ---: |"]
            lines += [f"| {name} | {_fmt(r['wall_s'])} | {_fmt(r['peak_rss_mb'])} |"
                      for name, r in entry["ratios"].items()]
        if entry.get("agreement"):
            tools = sorted({tool for a in entry["agreement"].values() for tool in a["values"]})
            lines += ["", f"| run, measure | {' | '.join(tools)} | agree (1e-4) |",
                      "| --- |" + " ---: |" * len(tools) + " --- |"]
            for key, a in entry["agreement"].items():
                cells = " | ".join(_fmt(a["values"].get(tool), 4) for tool in tools)
                lines.append(f"| {key} | {cells} | {'yes' if a['agree'] else '**no**'} |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", default=",".join(JOBS), help="comma-separated: " + ", ".join(JOBS))
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--code", default="head", help="head, worktree or PATH (see the module docstring)")
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "campaign.json"))
    parser.add_argument("--keep", metavar="DIR", help="generate the data here, keep it and reuse it next time")
    parser.add_argument("--quick", action="store_true", help="10x smaller data and 1 repetition")
    parser.add_argument("--bytecode", choices=("cached", "env"), default="cached",
                        help="cached (default): children run pyeval from compiled bytecode, as an installed "
                             "package does (common.installed_bytecode); env: as this shell's environment says")
    parser.add_argument("--render", metavar="JSON", help="only write the markdown of an earlier result")
    parser.add_argument("--trec-eval-O2", dest="trec_eval_O2", default=str(TOOLS_DIR / "trec_eval-O2" / "trec_eval"))
    parser.add_argument("--trec-eval-g", dest="trec_eval_g",
                        default=str(TOOLS_DIR / "trec_eval" / "trec_eval") if (TOOLS_DIR / "trec_eval").exists()
                        else shutil.which("trec_eval"))
    args = parser.parse_args(argv)
    if args.render:
        source = Path(args.render)
        source.with_suffix(".md").write_text(markdown(json.loads(source.read_text())))
        print(f"written {source.with_suffix('.md')}")
        return 0
    jobs = [j.strip() for j in args.jobs.split(",") if j.strip()]
    unknown = sorted(set(jobs) - set(JOBS))
    if unknown:
        parser.error(f"unknown jobs: {', '.join(unknown)}")
    for binary in (args.trec_eval_O2, args.trec_eval_g):
        if not binary or not os.access(binary, os.X_OK):
            parser.error(f"trec_eval binary not found: {binary} (--trec-eval-O2, --trec-eval-g)")
    reps = 1 if args.quick else args.reps
    scale = 10 if args.quick else 1

    out = Path(args.out).resolve()
    tmp = Path(tempfile.mkdtemp(prefix="pyeval-bench-campaign-"))
    os.chdir(tmp)  # children start outside the repository (common.select_code)
    code = common.select_code(args.code, tmp)
    code["imported_from"] = common.imported_pyeval()
    if args.bytecode == "cached":
        code.update(common.installed_bytecode(tmp))
    print(f"measuring pyeval from {code['imported_from']} ({code.get('snapshot', 'work tree')})", flush=True)
    root = Path(args.keep).resolve() if args.keep else tmp / "data"
    root.mkdir(parents=True, exist_ok=True)
    single.TREC_EVAL_BINARIES.update(trec_eval_c_O2=args.trec_eval_O2, trec_eval_c=args.trec_eval_g)
    setup = Setup(args.trec_eval_O2, args.trec_eval_g, tmp)

    campaign_runs, campaign_topics, campaign_docs = CAMPAIGN
    small_runs, small_topics, small_docs = MANY_SMALL
    scaling_runs = [n // scale for n in SCALING_RUNS]
    report = {
        "benchmark": "campaign",
        "machine": single.machine(),
        "code": code,
        "settings": {"reps": reps, "quick": args.quick, "jobs": jobs, "seed": SEED,
                     "everyday_sets": EVERYDAY_SETS, "pytrec_eval_official": OFFICIAL_PYTREC,
                     "ranx_metrics": single.RANX_METRICS,
                     "trec_eval": {"O2": args.trec_eval_O2, "g": args.trec_eval_g}},
        "labels": LABELS,
        "jobs": {},
    }
    started = time.perf_counter()
    try:
        setup.probe()
        report["probes"] = setup.probes
        report["pyeval_official_measures"] = setup.official
        needed = max([campaign_runs // scale if "campaign" in jobs else 1,
                      *(scaling_runs if "scaling" in jobs else [])])
        base = (campaign_data(root, needed, campaign_topics, campaign_docs)
                if {"campaign", "one_run", "scaling"} & set(jobs) else None)
        for job in jobs:
            work = tmp / job
            work.mkdir()
            print(f"{job}:", flush=True)
            if job in ("campaign", "many_small"):
                if job == "campaign":
                    data = runs_subset(base, campaign_runs // scale)
                else:
                    data = campaign_data(root / "many_small", small_runs // scale, small_topics, small_docs)
                rep_results = [multi_run_rep(setup, data, work, rep, everyday=job == "campaign",
                                             ranx_cold=job == "campaign" and rep == 0) for rep in range(reps)]
                entry = {"title": f"{data['runs']} runs x {data['topics']} topics x {data['docs_per_topic']} docs "
                                  f"({data['run_lines']:,} run lines, {data['run_bytes'] / 2**20:.0f} MiB)",
                         "data": describe(data), "warehouse_mb": rep_results[0].get("warehouse_mb"),
                         "rows_read": rep_results[0].get("rows_read"),
                         "floor_check": rep_results[0].get("floor_check"),
                         "agreement": agreement(rep_results[0].get("values", {}))}
            elif job == "one_run":
                data = {**describe(runs_subset(base, 1)), "run_file": base["run_files"][0]}
                rep_results = [one_run_rep(setup, data, work, rep) for rep in range(reps)]
                first = rep_results[0]
                values = {tool: {"run0000": first[row]["values"]} for tool, row in (
                    ("pyeval trec_eval", "pyeval"), ("trec_eval -O2", "trec_eval_c_O2"),
                    ("pytrec_eval", "pytrec_eval_single"), ("DuckDB floor", "duckdb_floor"))
                    if "values" in first.get(row, {})}
                entry = {"title": f"one run, {data['topics']} topics x {data['docs_per_topic']} docs",
                         "data": data, "agreement": agreement(values),
                         "outputs_identical_to_pyeval": first.get("outputs_identical_to_pyeval", {})}
            elif job == "big_single":
                data = single_run_data(root, BIG_SINGLE_TOPICS // scale)
                rep_results = [big_single_rep(setup, data, work, rep) for rep in range(reps)]
                first = rep_results[0]
                values = {tool: {"run": first[row]["values"]} for tool, row in (
                    ("pyeval trec_eval", "pyeval"), ("trec_eval -O2", "trec_eval_c_O2"),
                    ("pytrec_eval", "pytrec_eval_single")) if "values" in first.get(row, {})}
                entry = {"title": f"one run, {data['topics']} topics x {data['docs_per_topic']} docs "
                                  f"({data['run_lines']:,} lines)", "data": data, "agreement": agreement(values),
                         "outputs_identical_to_pyeval": first.get("outputs_identical_to_pyeval", {})}
            else:  # scaling
                sizes = {n: runs_subset(base, n) for n in scaling_runs}
                rep_results = [scaling_rep(setup, sizes, work, rep) for rep in range(reps)]
                entry = {"title": "load run and evaluate -m official --no-store on a new warehouse, "
                                  f"runs of {campaign_topics} x {campaign_docs}",
                         "sizes": scaling_summary(rep_results, sizes), "summary": {}, "ratios": {}}
            for r in rep_results:
                r.pop("values", None)
            entry["reps"] = rep_results
            if job != "scaling":
                entry["summary"] = summarise(rep_results)
                entry["ratios"] = ratios(job, entry["summary"])
            report["jobs"][job] = entry
            shutil.rmtree(work, ignore_errors=True)
        report["total_s"] = round(time.perf_counter() - started, 1)
    finally:
        os.chdir(REPO)
        shutil.rmtree(tmp, ignore_errors=True)
        if args.keep:
            print(f"data kept in {root}")
    report["targets"] = check_targets(report["jobs"])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    table = markdown(report)
    out.with_suffix(".md").write_text(table)
    print(table)
    print(f"total {report['total_s']}s; written {out} and {out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
