"""Start-up of the drop-ins: where the time of a small ``pyeval trec_eval`` goes.

    python bench/bench_startup.py [--reps 5] [--topics 50] [--docs 1000] [--bytecode env|cached]
                                  [--code worktree,REVISION,...] [--trec-eval PATH]
                                  [--out bench/results/startup.json]

Results and their reading: docs/benchmarks.md, section "Start-up of the drop-ins". With the
defaults it takes about two minutes per code version on 2 cores.

1. Whole processes, each timed under ``/usr/bin/time`` (wall time, user + system CPU, peak
   RSS), ``--reps`` repetitions interleaved (every command, then again), medians and the
   fastest wall time reported: ``python -c pass``, ``import duckdb``, ``import duckdb`` and one
   connection, pytrec_eval (the child program of bench_trec_eval.py: parse both files,
   RelevanceEvaluator with trec_eval's official measures, print the means), trec_eval's C
   program (``--trec-eval`` or PATH; pyeval's output must equal its output byte for byte) and,
   for each code version, ``import pyeval.cli``, ``pyeval trec_eval`` (official measures) on a
   generated run of ``--topics`` x ``--docs`` lines and its qrels (bench/common.py generate:
   200 judgments per topic), ``pyeval ntcireval`` on NTCIREVAL's test files
   (tests/fixtures/ntcireval: 1,423 qrels, 2,993 run lines, ``-g 1:2 --cutoffs 10,1000``) and
   ``pyeval ndeval`` on the TREC 2012 Web diversity qrels with the sample run indri-ql.
2. ``python -X importtime`` of ``pyeval trec_eval``, each module's own time attributed to the
   nearest of: duckdb, click, a pyeval module ("pyeval code"), what a pyeval module imports
   first ("others pyeval imports": the standard library, ...), what site-packages' .pth files
   import (".pth files": certifi; the environment's), the rest of the interpreter's start-up
   ("interpreter"); medians over the repetitions, and the pyeval modules that cost most.
3. Phases inside one ``pyeval trec_eval`` process (medians): imports (``pyeval.cli`` and
   ``pyeval.compat.trec_eval``), the command line and measures, the warehouse, load qrels, load
   run, compute, output (means, the output query, closing the warehouse), print. The whole
   process's median minus their sum is the interpreter's own start-up and exit.

``--bytecode env`` runs the children with the environment as it is (with
``PYTHONDONTWRITEBYTECODE=1``, as on this project's machine, every pyeval module is compiled
at every start); ``cached`` lets them write and read bytecode in a temporary
``PYTHONPYCACHEPREFIX`` (warmed once), as an installed package runs. ``--code`` takes
``worktree`` (the repository's working tree) and git revisions (each a git archive put first on
PYTHONPATH), measured interleaved, e.g. ``--code worktree,HEAD~3`` for before and after.
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
from pathlib import Path

import common
from bench_trec_eval import CHILD_PYTREC, PYTREC_MEASURES, _child, _pyeval_exe, measure
from common import REPO, generate

SEED = 20240911
FIXTURES = REPO / "tests" / "fixtures"

#: In-process phases of ``pyeval trec_eval``: the functions the command calls are wrapped in
#: place, each records its start and end (seconds since the program started).
CHILD_PHASES = r"""
import json, sys, time
_t0 = time.perf_counter()
QRELS, RUN, PHASES = sys.argv[1], sys.argv[2], sys.argv[3]
import pyeval.cli
import pyeval.compat.trec_eval as command
from pyeval import warehouse
marks = {"imports": (0.0, time.perf_counter() - _t0)}

def _wrap(module, name, phase):
    function = getattr(module, name)
    def timed(*args, **kwargs):
        started = time.perf_counter() - _t0
        try:
            return function(*args, **kwargs)
        finally:
            marks[phase] = (started, time.perf_counter() - _t0)
    setattr(module, name, timed)

opener = "scratch" if hasattr(warehouse, "scratch") else "connect"
_wrap(warehouse, opener, "warehouse")
_wrap(command, "load_qrels", "load_qrels")
_wrap(command, "load_run", "load_run")
_wrap(command, "compute_into", "compute")
_wrap(command, "run", "run")
started = time.perf_counter() - _t0
try:
    pyeval.cli.main(["trec_eval", QRELS, RUN], standalone_mode=False)
finally:
    ended = time.perf_counter() - _t0
phases = {
    "imports": marks["imports"][1],
    "command line, measures": marks["warehouse"][0] - started,
    "warehouse": marks["warehouse"][1] - marks["warehouse"][0],
    "load qrels": marks["load_qrels"][1] - marks["load_qrels"][0],
    "load run": marks["load_run"][1] - marks["load_run"][0],
    "compute": marks["compute"][1] - marks["compute"][0],
    "output (means, output query)": marks["run"][1] - marks["compute"][1],
    "print": ended - marks["run"][1],
    "in process": ended,
}
with open(PHASES, "w") as handle:
    json.dump({k: round(v, 4) for k, v in phases.items()}, handle)
"""

#: Buckets of -X importtime, in the order printed.
BUCKETS = ("interpreter", ".pth files", "duckdb", "click", "pyeval code", "others pyeval imports")


def parse_importtime(text: str) -> list[tuple[str, int, int]]:
    """``(module, depth, own microseconds)`` of each -X importtime line, in printed order
    (children before their parent)."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, _, name = line[len("import time:"):].split("|", 2)
        try:
            microseconds = int(own)
        except ValueError:
            continue  # the header
        depth = (len(name) - len(name.lstrip()) - 1) // 2
        rows.append((name.strip(), depth, microseconds))
    return rows


def _bucket_of(name: str) -> str | None:
    top = name.split(".")[0]
    if top in ("duckdb", "_duckdb"):
        return "duckdb"
    if top == "click":
        return "click"
    if top == "pyeval":
        return "pyeval code"
    if top in ("certifi", "_distutils_hack"):  # what site-packages' .pth files import
        return ".pth files"
    return None


def bucket_times(rows: list[tuple[str, int, int]]) -> tuple[dict[str, float], dict[str, float]]:
    """Milliseconds per bucket (BUCKETS) and per pyeval module (own time). A module counts in
    the bucket of its nearest classified ancestor (itself included; under a pyeval module:
    "others pyeval imports"); an unclassified one imported at the top level before the program's
    first import (the interpreter's start-up) is "interpreter", after it "others pyeval imports"
    (a standard module imported inside a function)."""
    parent: dict[int, int] = {}
    pending: list[int] = []  # rows whose parent is not printed yet
    for index, (_, depth, _) in enumerate(rows):
        while pending and rows[pending[-1]][1] > depth:
            child = pending.pop()
            if rows[child][1] == depth + 1:
                parent[child] = index
        pending.append(index)
    first_program = next((i for i, (name, _, _) in enumerate(rows)
                          if _bucket_of(name) not in (None, ".pth files")), len(rows))
    buckets = dict.fromkeys(BUCKETS, 0.0)
    modules: dict[str, float] = {}
    for index, (name, _, own) in enumerate(rows):
        found, at = _bucket_of(name), index
        while found is None and at in parent:
            at = parent[at]
            found = _bucket_of(rows[at][0])
            if found == "pyeval code":
                found = "others pyeval imports"
        if found is None:
            found = "interpreter" if index < first_program else "others pyeval imports"
        buckets[found] += own / 1000
        if _bucket_of(name) == "pyeval code":
            modules[name] = modules.get(name, 0.0) + own / 1000
    return buckets, modules


def tools(data: dict, exe: str, trec_eval: str | None, work: Path) -> dict[str, tuple[bool, list[str]]]:
    """The whole-process commands by name: (whether it runs pyeval's code, argv)."""
    python = sys.executable
    qrels, run = data["qrels_file"], data["run_file"]
    ntcir = FIXTURES / "ntcireval"
    commands = {
        "python -c pass": (False, [python, "-c", "pass"]),
        "import duckdb": (False, [python, "-c", "import duckdb"]),
        "import duckdb + connect": (False, [python, "-c", "import duckdb; duckdb.connect().execute('select 1').fetchall()"]),
        "pytrec_eval": (False, [python, "-c", _child(CHILD_PYTREC, MEASURES=repr(PYTREC_MEASURES)), qrels, run,
                                str(work / "pytrec_eval.phases.json")]),
        "import pyeval.cli": (True, [python, "-c", "import pyeval.cli"]),
        "pyeval trec_eval": (True, [exe, "trec_eval", qrels, run]),
        "pyeval ntcireval": (True, [exe, "ntcireval", "-r", str(ntcir / "test.qrels"), "-g", "1:2",
                                    "--cutoffs", "10,1000", str(ntcir / "TRECRUN")]),
        "pyeval ndeval": (True, [exe, "ndeval", str(FIXTURES / "ndeval" / "qrels-for-ndeval.txt.gz"),
                                 str(REPO / "pyeval" / "sample" / "runs" / "indri-ql.txt.gz")]),
    }
    if trec_eval:
        commands["trec_eval (C)"] = (False, [trec_eval, qrels, run])
    return commands


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 4) if values else float("nan")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--bytecode", choices=("env", "cached"), default="env")
    parser.add_argument("--code", default="worktree",
                        help="comma-separated: worktree, or git revisions to snapshot; measured interleaved")
    parser.add_argument("--trec-eval", default=shutil.which("trec_eval"),
                        help="trec_eval binary (default: trec_eval on PATH)")
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "startup.json"))
    args = parser.parse_args(argv)

    out = Path(args.out).resolve()
    tmp = Path(tempfile.mkdtemp(prefix="pyeval-bench-startup-"))
    os.chdir(tmp)  # children start here: `python -c` must not import the repository through '.'
    base = dict(os.environ)
    if args.bytecode == "cached":
        base.pop("PYTHONDONTWRITEBYTECODE", None)
        base["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    envs: dict[str, dict] = {}  # code label -> the environment of its children
    for code in args.code.split(","):
        if code == "worktree":
            label, path = worktree_label(), REPO
        else:
            label, path = code, tmp / f"code-{code}"
            common.snapshot_code(code, path)
        envs[label] = dict(base, PYTHONPATH=os.pathsep.join([str(path), base.get("PYTHONPATH", "")]))
    first = next(iter(envs.values()))
    (tmp / "data").mkdir()
    data = generate(tmp / "data", args.topics, args.docs, SEED)
    exe = _pyeval_exe()
    runs = []  # (name, env, argv, output file)
    for tool, (uses_code, command) in tools(data, exe, args.trec_eval, tmp).items():
        for label, env in envs.items() if uses_code else [("", first)]:
            name = f"{tool} [{label}]" if uses_code and len(envs) > 1 else tool
            runs.append((name, env, command, tmp / (name.replace(" ", "_").replace("/", "_") + ".out")))
    for _, env, command, _ in runs:  # warm the page cache (and the bytecode cache)
        subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    whole: dict[str, list[dict]] = {name: [] for name, _, _, _ in runs}
    inside = {label: {"buckets": [], "modules": [], "phases": []} for label in envs}
    for _ in range(args.reps):
        for name, env, command, output in runs:
            whole[name].append(measure(command, env=env, stdout_path=output))
        for label, env in envs.items():
            done = subprocess.run([sys.executable, "-X", "importtime", exe, "trec_eval", data["qrels_file"],
                                   data["run_file"]], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True)
            spent, own = bucket_times(parse_importtime(done.stderr))
            inside[label]["buckets"].append(spent)
            inside[label]["modules"].append(own)
            phase_file = tmp / "phases.json"
            subprocess.run([sys.executable, "-c", CHILD_PHASES, data["qrels_file"], data["run_file"], str(phase_file)],
                           env=env, stdout=subprocess.DEVNULL, check=True)
            inside[label]["phases"].append(json.loads(phase_file.read_text()))

    failed = {name: r[0].get("error", "")[-500:] for name, r in whole.items() if any(x["returncode"] for x in r)}
    identical = None
    if args.trec_eval:  # every pyeval trec_eval output against the C program's
        expected = (tmp / "trec_eval_(C).out").read_bytes()
        identical = all(output.read_bytes() == expected for name, _, _, output in runs
                        if name.startswith("pyeval trec_eval"))
    result = {
        "settings": {**vars(args), "lines": {"run": data["run_lines"], "qrels": data["qrels_lines"]}},
        "machine": common.machine({"duckdb": common.package_version("duckdb"),
                                   "click": common.package_version("click")}),
        "whole_process": {
            name: {"wall_s": _median([r["wall_s"] for r in results if not r["returncode"]]),
                   "wall_s_min": min((r["wall_s"] for r in results if not r["returncode"]), default=None),
                   "cpu_s": _median([r["cpu_s"] for r in results if not r["returncode"]]),
                   "peak_rss_mb": _median([r["peak_rss_mb"] for r in results if not r["returncode"]]),
                   "load1": _median([r["load1"] for r in results])}
            for name, results in whole.items()
        },
        "codes": {
            label: {
                "importtime_ms": {b: round(statistics.median(s[b] for s in got["buckets"]), 1) for b in BUCKETS},
                "pyeval_modules_ms": dict(sorted(
                    ((m, round(statistics.median(o.get(m, 0.0) for o in got["modules"]), 1))
                     for m in set().union(*got["modules"])), key=lambda item: -item[1])[:15]),
                "phases_s": {k: _median([p[k] for p in got["phases"]]) for k in got["phases"][0]},
            }
            for label, got in inside.items()
        },
        "trec_eval_output_identical": identical,
        "failed": failed,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    out.with_suffix(".md").write_text(report(result) + "\n")
    print(report(result))
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed or identical is False else 0


def worktree_label() -> str:
    """The working tree's commit, with ``+`` when pyeval/, sql/ or schema/ have changes."""
    head = (common.git("rev-parse", "--short", "HEAD") or "").strip()
    return head + ("+" if common.git("status", "--porcelain", "pyeval", "sql", "schema") else "")


def report(result: dict) -> str:
    settings = result["settings"]
    lines = [f"bytecode {settings['bytecode']}, {settings['topics']} topics x {settings['docs']} docs, "
             f"median (and min) of {settings['reps']}", "",
             "| process | wall s | min s | CPU s | peak RSS MB | load |", "|---|---:|---:|---:|---:|---:|"]
    for name, row in result["whole_process"].items():
        lines.append(f"| {name} | {row['wall_s']:.3f} | {row['wall_s_min']:.3f} | {row['cpu_s']:.2f} | "
                     f"{row['peak_rss_mb']:.0f} | {row['load1']:.1f} |")
    labels = list(result["codes"])
    header = "| {} | " + " | ".join(labels) + " |"
    rule = "|---|" + "---:|" * len(labels)
    codes = result["codes"]
    lines += ["", header.format("-X importtime of pyeval trec_eval, ms"), rule]
    lines += [f"| {b} | " + " | ".join(f"{codes[c]['importtime_ms'][b]:.1f}" for c in labels) + " |" for b in BUCKETS]
    lines.append("| total | " + " | ".join(f"{sum(codes[c]['importtime_ms'].values()):.1f}" for c in labels) + " |")
    lines += ["", header.format("phase in process, ms"), rule]
    lines += [f"| {k} | " + " | ".join(f"{1000 * codes[c]['phases_s'][k]:.1f}" for c in labels) + " |"
              for k in codes[labels[0]]["phases_s"]]
    for label in labels:
        lines.append(f"\npyeval modules at {label} (own ms): "
                     + ", ".join(f"{m} {ms}" for m, ms in codes[label]["pyeval_modules_ms"].items()))
    if result["trec_eval_output_identical"] is not None:
        lines.append(f"\noutput identical to trec_eval's: {result['trec_eval_output_identical']}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
