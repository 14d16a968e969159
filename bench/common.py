"""Helpers shared by the benchmark scripts (bench_load.py, bench_trec_eval.py, bench_campaign.py).

The scripts run as ``python bench/<script>.py``, so this directory is on sys.path and they
``from common import ...``. Heavy imports (numpy, pyarrow) happen inside the functions.
"""
from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

QRELS_PER_TOPIC = 200
QRELS_RETRIEVED = 150  # of the 200 judged documents per topic, this many are in the run
DOC_SPACE = 99_999_989  # a prime: doc index = (a + j * b) mod p is unique for j < p
SNAPSHOT_PATHS = ("pyeval", "sql", "migrations", "schema")  # what a code snapshot holds
TIME = "/usr/bin/time"


# --------------------------------------------------------------------------------------------
# Data generation
# --------------------------------------------------------------------------------------------


def docnos(index):
    """ClueWeb09-style docnos clueweb09-en0000-00-00000 from integer indices < 10**8."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def padded(values, width):
        return pc.utf8_lpad(pc.cast(pa.array(values), pa.string()), width, "0")

    return pc.binary_join_element_wise(
        "clueweb09-en", padded(index // 10_000_000, 4), "-", padded(index // 100_000 % 100, 2),
        "-", padded(index % 100_000, 5), "",
    )


def generate(directory: Path, n_topics: int, docs: int, seed: int) -> dict:
    """Write a TREC run (run.txt) and qrels (qrels.txt) into ``directory``; describe them.

    The run has ``docs`` lines per topic ``topic Q0 docno rank score bench`` (single spaces),
    scores normal(10, 2) rounded to 3 decimals (so about 50 adjacent pairs per 1000 tie),
    ranks 1..docs in score order. The qrels have 200 judgments per topic ``topic 0 docno
    level``, levels 0..3 (p = .55 .25 .15 .05), 150 (at most ``docs``) on retrieved documents.
    Reproducible from ``seed`` (numpy ``default_rng``); vectorised in blocks of about a
    million run lines, text built with pyarrow.compute (no Python loop per line).
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    offsets = rng.integers(0, DOC_SPACE, n_topics)
    steps = rng.integers(1, DOC_SPACE, n_topics)
    retrieved_judged = min(QRELS_RETRIEVED, docs)
    unretrieved_judged = QRELS_PER_TOPIC - retrieved_judged
    write_options = pacsv.WriteOptions(include_header=False, quoting_style="none")
    run_path, qrels_path = directory / "run.txt", directory / "qrels.txt"
    tied = 0
    levels = np.zeros(4, dtype=np.int64)
    block = max(1, 1_000_000 // docs)  # topics per block: a loop over blocks, not over lines
    schema = pa.schema([("line", pa.string())])
    with pa.OSFile(str(run_path), "wb") as run_sink, pa.OSFile(str(qrels_path), "wb") as qrels_sink:
        run_writer = pacsv.CSVWriter(run_sink, schema, write_options=write_options)
        qrels_writer = pacsv.CSVWriter(qrels_sink, schema, write_options=write_options)
        for first in range(0, n_topics, block):
            topics = np.arange(first, min(first + block, n_topics))
            t, k = len(topics), docs
            j = np.arange(k + unretrieved_judged, dtype=np.int64)
            index = (offsets[topics, None] + j[None, :] * steps[topics, None]) % DOC_SPACE
            # Scores: normal(10, 2) in thousandths, so ~50 tied adjacent pairs per 1000.
            milli = np.clip(np.rint(rng.normal(10_000, 2_000, (t, k))), 0, None).astype(np.int64)
            order = np.argsort(-milli, axis=1, kind="stable")
            milli = np.take_along_axis(milli, order, axis=1)
            run_docs = np.take_along_axis(index[:, :k], order, axis=1)
            tied += int((np.diff(milli, axis=1) == 0).sum())
            flat = milli.ravel()
            scores = pc.binary_join_element_wise(
                pc.cast(pa.array(flat // 1000), pa.string()),
                pc.utf8_lpad(pc.cast(pa.array(flat % 1000), pa.string()), 3, "0"),
                ".",
            )
            line = pc.binary_join_element_wise(
                pc.cast(pa.array(np.repeat(topics + 1, k)), pa.string()),
                "Q0",
                docnos(run_docs.ravel()),
                pc.cast(pa.array(np.tile(np.arange(1, k + 1), t)), pa.string()),
                scores,
                "bench",
                " ",
            )
            run_writer.write_table(pa.table({"line": line}))
            # Qrels: the first 150 generated documents (at random ranks, as the scores are
            # independent of them) and 50 documents the run does not retrieve.
            judged = np.concatenate([index[:, :retrieved_judged], index[:, k:]], axis=1)
            grades = rng.choice(4, size=judged.shape, p=[0.55, 0.25, 0.15, 0.05])
            levels += np.bincount(grades.ravel(), minlength=4)
            qrels_line = pc.binary_join_element_wise(
                pc.cast(pa.array(np.repeat(topics + 1, judged.shape[1])), pa.string()),
                "0",
                docnos(judged.ravel()),
                pc.cast(pa.array(grades.ravel()), pa.string()),
                " ",
            )
            qrels_writer.write_table(pa.table({"line": qrels_line}))
        run_writer.close()
        qrels_writer.close()
    return {
        "seed": seed,
        "topics": n_topics,
        "docs_per_topic": docs,
        "run_file": str(run_path),
        "run_lines": n_topics * docs,
        "run_bytes": run_path.stat().st_size,
        "qrels_file": str(qrels_path),
        "qrels_lines": n_topics * QRELS_PER_TOPIC,
        "qrels_bytes": qrels_path.stat().st_size,
        "qrels_levels": {str(level): int(count) for level, count in enumerate(levels)},
        "tied_adjacent_scores": tied,
        "generation_s": round(time.perf_counter() - started, 2),
    }


def generate_campaign(directory: Path, n_runs: int, n_topics: int, docs: int, seed: int) -> dict:
    """Write a campaign into ``directory``: ``qrels.txt`` and ``runs/runNNNN.txt``; describe it.

    Every topic has a pool of max(5 * docs, 400) documents (ClueWeb09-style docnos); its
    first 200 are judged (levels 0..3, p = .55 .25 .15 .05). Each run retrieves ``docs`` of
    the pool per topic, the judged ones favoured by a bonus drawn per run (so runs differ in
    quality), lines ``topic Q0 docno rank score runNNNN`` with its own run tag, scores
    normal(10, 2) rounded to 3 decimals (ties), ranks 1..docs in score order. Reproducible
    from ``seed`` (numpy ``default_rng``): the qrels come first and the runs one after the
    other, so the first k runs of a larger campaign are the runs of a k-run one. Vectorised
    per run, text built with pyarrow.compute (no Python loop per line).
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    def text(values):
        return pc.cast(pa.array(values), pa.string())

    def write(lines, path: Path) -> None:
        pacsv.write_csv(pa.table({"line": lines}), str(path), write_options)

    started = time.perf_counter()
    runs_dir = directory / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    write_options = pacsv.WriteOptions(include_header=False, quoting_style="none")
    rng = np.random.default_rng(seed)
    pool = max(5 * docs, 400)
    offsets = rng.integers(0, DOC_SPACE, n_topics)
    steps = rng.integers(1, DOC_SPACE, n_topics)
    index = (offsets[:, None] + np.arange(pool)[None, :] * steps[:, None]) % DOC_SPACE
    judged = index[:, :QRELS_PER_TOPIC]
    grades = rng.choice(4, size=judged.shape, p=[0.55, 0.25, 0.15, 0.05])
    qrels_path = directory / "qrels.txt"
    write(pc.binary_join_element_wise(
        text(np.repeat(np.arange(1, n_topics + 1), QRELS_PER_TOPIC)), "0", docnos(judged.ravel()),
        text(grades.ravel()), " "), qrels_path)
    topic_column = text(np.repeat(np.arange(1, n_topics + 1), docs))
    rank_column = text(np.tile(np.arange(1, docs + 1), n_topics))
    is_judged = np.arange(pool) < QRELS_PER_TOPIC
    run_files = []
    for r in range(n_runs):  # one vectorised step per run file
        keys = rng.random((n_topics, pool)) + is_judged * rng.random() * 0.3
        chosen = np.take_along_axis(index, np.argsort(-keys, axis=1)[:, :docs], axis=1)
        milli = np.clip(np.rint(rng.normal(10_000, 2_000, (n_topics, docs))), 0, None).astype(np.int64)
        milli = -np.sort(-milli, axis=1).ravel()
        scores = pc.binary_join_element_wise(
            text(milli // 1000), pc.utf8_lpad(text(milli % 1000), 3, "0"), ".")
        path = runs_dir / f"run{r:04d}.txt"
        write(pc.binary_join_element_wise(
            topic_column, "Q0", docnos(chosen.ravel()), rank_column, scores, f"run{r:04d}", " "), path)
        run_files.append(str(path))
    return {
        "seed": seed,
        "runs": n_runs,
        "topics": n_topics,
        "docs_per_topic": docs,
        "pool_per_topic": pool,
        "qrels_file": str(qrels_path),
        "qrels_lines": n_topics * QRELS_PER_TOPIC,
        "qrels_levels": {str(level): int(count) for level, count in enumerate(np.bincount(grades.ravel(), minlength=4))},
        "runs_dir": str(runs_dir),
        "run_files": run_files,
        "run_lines": n_runs * n_topics * docs,
        "run_bytes": sum(Path(f).stat().st_size for f in run_files),
        "generation_s": round(time.perf_counter() - started, 2),
    }


# --------------------------------------------------------------------------------------------
# Machine and code description
# --------------------------------------------------------------------------------------------


def cpu_model() -> str:
    """The first 'model name' of /proc/cpuinfo ('' if there is none)."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def ram_gib() -> float:
    """Physical memory in GiB, one decimal."""
    return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)


def package_version(distribution: str) -> str | None:
    """The installed version of a distribution (importlib.metadata), None if not installed."""
    try:
        from importlib.metadata import version

        return version(distribution)
    except Exception:  # noqa: BLE001
        return None


def machine(versions: dict, ram_key: str = "ram_gib", **extra) -> dict:
    """CPUs, CPU model, RAM (under ``ram_key``), kernel, ``extra`` items, then ``versions``
    (after the Python version)."""
    return {
        "nproc": os.cpu_count(),
        "cpu_model": cpu_model(),
        ram_key: ram_gib(),
        "kernel": platform.release(),
        **extra,
        "versions": {"python": platform.python_version(), **versions},
    }


def git(*args: str, repo: Path = REPO) -> str | None:
    """Stdout of ``git -C repo args`` (not stripped), None if git fails or is missing."""
    try:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def snapshot_code(revision: str, target: Path, repo: Path = REPO) -> None:
    """Extract pyeval's code, SQL, migrations and schema at ``revision`` of ``repo`` (git
    archive) into ``target`` (created if missing)."""
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(repo), "archive", revision, *SNAPSHOT_PATHS],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)


def code_state(repo: Path = REPO) -> dict:
    """The commit of ``repo`` and its uncommitted changes under pyeval/ and sql/."""
    commit = git("rev-parse", "--short", "HEAD", repo=repo) or ""
    dirty = git("status", "--short", "pyeval", "sql", repo=repo) or ""
    return {"commit": commit.strip(), "uncommitted": [l for l in dirty.splitlines() if l]}


def select_code(choice: str, tmp: Path) -> dict:
    """Make every child (and this process) import the pyeval that ``choice`` names; describe it.

    ``head``: a ``git archive`` snapshot of this repository's HEAD; a PATH: the snapshot of the
    HEAD of the git checkout at PATH (e.g. the main work tree), or PATH itself when it is an
    extracted tree holding pyeval/; both go first on PYTHONPATH, so edits made while the
    benchmark runs do not mix in. ``worktree``: whatever ``import pyeval`` finds. Children
    must start outside the repository (``python -c`` puts the working directory first).
    """
    if choice == "worktree":
        return code_state()
    if choice == "head":
        repo = REPO
    else:
        repo = Path(choice).resolve()
        if not (repo / ".git").exists():
            if not (repo / "pyeval" / "__init__.py").is_file():
                raise SystemExit(f"--code {choice}: neither a git checkout nor a tree holding pyeval/")
            _put_first_on_path(repo)
            return {"commit": None, "uncommitted": [], "snapshot": f"extracted tree {repo}"}
    snapshot = tmp / "pyeval-code"
    snapshot_code("HEAD", snapshot, repo)
    _put_first_on_path(snapshot)
    return {"commit": code_state(repo)["commit"], "uncommitted": [],
            "snapshot": f"git archive HEAD of {repo}"}


def _put_first_on_path(directory: Path) -> None:
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(directory), *filter(None, [os.environ.get("PYTHONPATH")])])
    sys.path.insert(0, str(directory))


def installed_bytecode(tmp: Path) -> dict:
    """Make every child run pyeval from compiled bytecode, as an installed package does (pip
    compiles modules at install): unset ``PYTHONDONTWRITEBYTECODE`` (this project's machine sets
    it, so each process would compile pyeval's sources again, about 65 ms), point
    ``PYTHONPYCACHEPREFIX`` at ``tmp/pycache`` and compile the imported pyeval there now, so
    no measured process pays for compiling. Returns the setting, for the report."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    prefix = tmp / "pycache"
    os.environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    subprocess.run([sys.executable, "-m", "compileall", "-q", imported_pyeval()], check=True)
    return {"bytecode": "cached", "pycache_prefix": str(prefix)}


def imported_pyeval() -> str:
    """Where a child process imports pyeval from (the code measured)."""
    done = subprocess.run(python_command("import pyeval; print(pyeval.__file__)"),
                          capture_output=True, text=True, check=True)
    return str(Path(done.stdout.strip()).parent)


# --------------------------------------------------------------------------------------------
# Measuring one whole process
# --------------------------------------------------------------------------------------------

# Child programs (``python -c TEXT QRELS RUN PHASES``) start with CHILD_HEAD and end with
# CHILD_TAIL: they write their phase times (seconds since the program started running, set
# by ``_mark``) and a few values (``_values``) to PHASES as JSON.
CHILD_HEAD = r"""
import json, sys, time
_t0 = time.perf_counter()
_phases = {}
def _mark(name):
    _phases[name] = round(time.perf_counter() - _t0, 4)
QRELS, RUN, PHASES = sys.argv[1], sys.argv[2], sys.argv[3]
"""
CHILD_TAIL = r"""
with open(PHASES, "w") as _f:
    json.dump({"phases": _phases, "values": _values}, _f)
"""


def child_program(template: str, **constants) -> str:
    """The child program with its constants (measure lists) bound in front."""
    head = "".join(f"{name} = {value}\n" for name, value in constants.items())
    return head + template


def python_command(program: str, *args: str) -> list[str]:
    """``python -c program args`` with this interpreter."""
    return [sys.executable, "-c", program, *args]


def pyeval_exe() -> str:
    """The console script next to this interpreter (not a pyenv shim, which adds a bash
    wrapper), else whatever ``pyeval`` is on PATH."""
    beside = Path(sys.executable).parent / "pyeval"
    if beside.is_file():
        return str(beside)
    exe = shutil.which("pyeval")
    if exe is None:
        raise SystemExit("pyeval is not on PATH (pip install -e .)")
    return exe


def measure(cmd: list[str], *, env: dict | None = None, stdout_path: Path | None = None) -> dict:
    """Run ``cmd`` under /usr/bin/time: wall time (perf_counter around the process), peak RSS
    (``%M``: the largest resident set of the process or of any child it waited for), user +
    system CPU (children included) and the 1-minute load average before it."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as time_file:
        load = os.getloadavg()[0]
        out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
        try:
            started = time.perf_counter()
            done = subprocess.run(
                [TIME, "-f", "%e %M %U %S", "-o", time_file.name, *cmd],
                stdout=out, stderr=subprocess.PIPE, env=env,
            )
            wall = time.perf_counter() - started
        finally:
            if stdout_path:
                out.close()
        lines = time_file.read().strip().splitlines()
    result = {"wall_s": round(wall, 3), "load1": round(load, 2), "returncode": done.returncode}
    if lines:
        _, max_kb, user, system = lines[-1].split()
        result.update(peak_rss_mb=round(int(max_kb) / 1024, 1), cpu_s=round(float(user) + float(system), 2))
    if done.returncode:
        result["error"] = done.stderr.decode(errors="replace")[-2000:]
    return result


STARTUP_LABELS = {
    "python_startup": "python -c pass",
    "import_duckdb": "python -c 'import duckdb'",
    "pyeval_version": "pyeval --version",
}


def measure_startup() -> dict[str, dict]:
    """One measurement of each start-up reference (no data): STARTUP_LABELS."""
    return {
        "python_startup": measure(python_command("pass")),
        "import_duckdb": measure(python_command("import duckdb")),
        "pyeval_version": measure([pyeval_exe(), "--version"]),
    }


def median(results: list[dict], key: str) -> float | None:
    """The median of ``key`` over the successful measurements (None if there is none)."""
    values = [r[key] for r in results if r.get("returncode") == 0 and r.get(key) is not None]
    return round(statistics.median(values), 3) if values else None


def summary_row(rows: list[dict]) -> dict:
    """Medians of the repetitions of one measurement, with every wall time and load average."""
    ok = [r for r in rows if r.get("returncode") == 0]
    row = {
        "reps": len(rows),
        "ok": len(ok),
        "wall_s": median(rows, "wall_s"),
        "wall_s_all": [r.get("wall_s") for r in rows],
        "peak_rss_mb": median(rows, "peak_rss_mb"),
        "cpu_s": median(rows, "cpu_s"),
        "load1": [r.get("load1") for r in rows],
    }
    errors = [r["error"] for r in rows if "error" in r]
    if errors:
        row["error"] = errors[0]
    return row
