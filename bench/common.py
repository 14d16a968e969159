"""Helpers shared by the benchmark scripts (bench_load.py, bench_trec_eval.py).

The scripts run as ``python bench/<script>.py``, so this directory is on sys.path and they
``from common import ...``. Heavy imports (numpy, pyarrow) happen inside the functions.
"""
from __future__ import annotations

import os
import platform
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

QRELS_PER_TOPIC = 200
QRELS_RETRIEVED = 150  # of the 200 judged documents per topic, this many are in the run
DOC_SPACE = 99_999_989  # a prime: doc index = (a + j * b) mod p is unique for j < p
SNAPSHOT_PATHS = ("pyeval", "sql", "migrations", "schema")  # what a code snapshot holds


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


def git(*args: str) -> str | None:
    """Stdout of ``git -C REPO args`` (not stripped), None if git fails or is missing."""
    try:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def snapshot_code(revision: str, target: Path) -> None:
    """Extract pyeval's code, SQL, migrations and schema at ``revision`` (git archive) into
    ``target`` (created if missing)."""
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, *SNAPSHOT_PATHS],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
