"""``pyeval ndeval``: the TREC Web track's ndeval 4.5 on diversity qrels and a TREC run.

Reads the two files with ndeval's own rules (qrels ``topic subtopic docno judgment`` with
natural numbers only; run lines of at least 6 fields, topic ``wt09-1`` read as 1), orders each
topic by the rank column (``-traditional``: score descending, then docno descending), cuts at
``-M``, loads the result into an in-memory warehouse and computes pyeval's canonical ndeval
measures (``alpha_nDCG(probs=ndeval)@20`` ...: pyeval/drivers/ndeval.py), then prints ndeval's
CSV (docs/input-files.md section 10.3):

    runid,topic,ERR-IA@5,ERR-IA@10,...,strec@20
    <runid>,<topic %d>,<21 values %.6f>        one row per run topic, in numeric order
    <runid>,amean,<21 means %.6f>

A run topic without judgments gets a row of zeros; the means divide by the number of topics in
both files (``-c``: in the qrels). NaN prints as ``-nan``, as glibc prints x86's 0/0.
Deviations from ndeval: docs/ndeval.md.
"""
from __future__ import annotations

import gzip
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pyeval.storage import warehouse
from ..errors import PyevalError
from pyeval.core.evaluation import compute
from pyeval.core.request import EvaluationRequest
from ..loaders import load_qrels, load_run
from ..loaders.source import is_gzip
from ..measures import Measure, lookup, make
from pyeval.storage.warehouse import LOADED_TABLES

CAMPAIGN = "ndeval"
CUTOFFS = (5, 10, 20)
#: The warehouse relations the command reads: the ndeval family's driver (pyeval/drivers/,
#: sql/drivers/) reads the ranked lists and the intents' weights too.
RELATIONS = (*LOADED_TABLES, "ranked_entries", "intent_weights")


class NdevalError(PyevalError):
    """A usage or input error of ``pyeval ndeval`` (ndeval exits 1 on every error)."""

    status = 1


@dataclass
class NdevalOptions:
    """ndeval's command line (its option names in comments)."""

    alpha: float = 0.5  # -alpha
    beta: float = 0.5  # -beta
    traditional: bool = False  # -traditional
    complete: bool = False  # -c
    depth: int | None = None  # -M
    baseline: str | Path | None = None  # -baseline (TREC Web 2013-14 risk-sensitive mode)
    risk_alpha: str = "0"  # -riskAlpha, as typed (ndeval prints it so in the run column)


def columns(options: NdevalOptions) -> list[tuple[str, Measure]]:
    """(ndeval column, canonical measure) in ndeval's column order."""
    alpha, beta = options.alpha, options.beta

    def m(name: str, **params) -> Measure:
        return make(lookup(name), **params)

    rows = []
    for name, column, extra in (
        ("ERR_IA", "ERR-IA", {"alpha": alpha, "ndeval_quirks": True}),
        ("nERR_IA", "nERR-IA", {"alpha": alpha}),
        ("alpha_DCG", "alpha-DCG", {"alpha": alpha, "ndeval_quirks": True}),
        ("alpha_nDCG", "alpha-nDCG", {"alpha": alpha}),
    ):
        rows += [(f"{column}@{k}", m(name, probs="ndeval", cutoff=k, **extra)) for k in CUTOFFS]
    rows += [
        ("NRBP", m("NRBP", alpha=alpha, beta=beta, probs="ndeval")),
        ("nNRBP", m("nNRBP", alpha=alpha, beta=beta, probs="ndeval", ndeval_quirks=True)),
        ("MAP-IA", m("AP_IA", probs="ndeval")),
    ]
    rows += [(f"P-IA@{k}", m("P_IA", probs="ndeval", cutoff=k)) for k in CUTOFFS]
    rows += [(f"strec@{k}", m("StRecall", cutoff=k)) for k in CUTOFFS]
    return rows


def _lines(path: Path):
    """Lines without their end (ndeval strips one '\\r' before '\\n')."""
    opener = gzip.open if is_gzip(path) else open
    with opener(path, "rb") as handle:
        for raw in handle:
            line = raw.decode("utf-8", "surrogateescape").rstrip("\n")
            yield line[:-1] if line.endswith("\r") else line


def _natural(text: str) -> int | None:
    """ndeval's naturalNumber: ASCII digits only."""
    return int(text) if text.isascii() and text.isdigit() else None


def _topic(text: str) -> int | None:
    """ndeval's parseTopic: digits, or any prefix ending in '-' and then digits (wt09-1)."""
    if text[:1].isdigit():
        return _natural(text)
    _, dash, rest = text.partition("-")
    return _natural(rest) if dash else None


def read_qrels(path: Path) -> pd.DataFrame:
    """``query_id, iteration, doc_id, relevance`` with ndeval's checks (natural numbers; a
    negative judgment is a syntax error); topics and subtopics as printed by %d."""
    rows, seen = [], {}
    for number, line in enumerate(_lines(path), start=1):
        fields = line.split()
        topic = _natural(fields[0]) if len(fields) >= 4 else None
        subtopic = _natural(fields[1]) if len(fields) >= 4 else None
        judgment = _natural(fields[3]) if len(fields) >= 4 else None
        if topic is None or subtopic is None or judgment is None:
            raise NdevalError(f'syntax error in qrel file "{path}" at line {number}')
        key = (topic, subtopic, fields[2])
        if key in seen:
            raise NdevalError(
                f'{path}:{number}: topic {topic} subtopic {subtopic} judges {fields[2]} again (line '
                f"{seen[key]}); ndeval keeps one judgment and counts both, pyeval refuses"
            )
        seen[key] = number
        rows.append((str(topic), str(subtopic), fields[2], min(judgment, 1)))
    if not rows:
        raise NdevalError(f'qrel file "{path}" is empty')
    return pd.DataFrame(rows, columns=["query_id", "iteration", "doc_id", "relevance"])


def read_run(path: Path, options: NdevalOptions) -> tuple[str, pd.DataFrame]:
    """The run id (first line's 6th field) and ``query_id, doc_id, score, rank`` in ndeval's
    order, ranks 1..n per topic, after -M; duplicate ranks and docnos are errors as in ndeval."""
    rows, run_id = [], None
    for number, line in enumerate(_lines(path), start=1):
        fields = line.split()
        topic = _topic(fields[0]) if len(fields) >= 6 else None
        rank = _natural(fields[3]) if len(fields) >= 6 else None
        if topic is None or rank is None:
            raise NdevalError(f'syntax error in run file "{path}" at line {number}')
        run_id = run_id or fields[5]
        try:
            score = float(fields[4])
        except ValueError:
            score = 0.0
        rows.append((topic, fields[2], rank, score))
    if not rows:
        raise NdevalError(f'run file "{path}" is empty')
    frame = pd.DataFrame(rows, columns=["topic", "doc_id", "rank", "score"])
    if options.traditional:  # score descending, then docno descending (byte order)
        frame["key"] = frame["doc_id"].map(lambda d: d.encode("utf-8", "surrogateescape"))
        frame = frame.sort_values(["topic", "score", "key"], ascending=[True, False, False], kind="stable")
        frame["rank"] = frame.groupby("topic").cumcount() + 1
        frame = frame.drop(columns="key")
    else:
        frame = frame.sort_values(["topic", "rank"], kind="stable")
        duplicated = frame.duplicated(["topic", "rank"])
        if duplicated.any():
            first = frame[duplicated].iloc[0]
            raise NdevalError(f'duplicate rank ({first["rank"]}) for topic {first["topic"]} in run file "{path}"')
        frame["rank"] = frame.groupby("topic").cumcount() + 1
    if options.depth is not None:
        frame = frame[frame["rank"] <= options.depth]
    duplicated = frame.duplicated(["topic", "doc_id"])
    if duplicated.any():
        first = frame[duplicated].sort_values(["topic", "doc_id"]).iloc[0]
        raise NdevalError(f'duplicate docno ({first["doc_id"]}) for topic {first["topic"]} in run file "{path}"')
    frame = frame.assign(query_id=frame["topic"].astype(str))
    return run_id, frame[["query_id", "doc_id", "score", "rank", "topic"]]


def _format(value: float) -> str:
    return "-nan" if math.isnan(value) else "%.6f" % value


def check_options(options: NdevalOptions) -> None:
    """ndeval's checks (it prints its usage and exits 1)."""
    for name, value in (("-alpha", options.alpha), ("-beta", options.beta)):
        if not 0.0 <= value <= 1.0:
            raise NdevalError(f"{name} must lie in [0, 1], got {value:g}")
    if options.depth is not None and options.depth <= 0:
        raise NdevalError(f"-M must be a positive number of documents, got {options.depth}")
    if _risk_alpha(options) < 0:
        raise NdevalError(f"-riskAlpha must be a non-negative number, got {options.risk_alpha}")


def _risk_alpha(options: NdevalOptions) -> float:
    try:
        value = float(options.risk_alpha)
    except ValueError:
        raise NdevalError(f"-riskAlpha must be a non-negative number, got {options.risk_alpha!r}") from None
    if not math.isfinite(value):
        raise NdevalError(f"-riskAlpha must be a non-negative number, got {options.risk_alpha!r}")
    return value


def _topic_values(values: pd.DataFrame, topics, printed) -> dict[int, list[float]]:
    """Each topic's printed values (a topic without judgments: zeros, as ndeval prints it)."""
    return {topic: [values.at[str(topic), str(m)] if str(topic) in values.index else 0.0 for _, m in printed]
            for topic in topics}


def run(qrels: str | Path, results: str | Path, options: NdevalOptions) -> str:
    """ndeval's CSV for a diversity qrels file and a TREC run file."""
    check_options(options)
    qrels_frame = read_qrels(Path(qrels))
    run_id, run_frame = read_run(Path(results), options)
    base_id, base_frame = read_run(Path(options.baseline), options) if options.baseline is not None else (None, None)
    printed = columns(options)
    con = warehouse.scratch(RELATIONS)
    try:
        load_qrels(con, CAMPAIGN, qrels_frame, format="trec-diversity")
        load_run(con, CAMPAIGN, run_frame[["query_id", "doc_id", "score", "rank"]], name="run")
        names = ["run"]
        if base_frame is not None:
            load_run(con, CAMPAIGN, base_frame[["query_id", "doc_id", "score", "rank"]], name="baseline")
            names.append("baseline")
        measures = list(dict.fromkeys(m for _, m in printed))
        frame = compute(con, EvaluationRequest(CAMPAIGN, tuple(measures), runs=tuple(names), ordering="rank",
                                               topics="intersection"))
    finally:
        con.close()
    values = frame[frame["run_id"] == "run"].pivot(index="topic_id", columns="measure", values="value")
    qrels_topics = set(qrels_frame["query_id"])
    run_topics = sorted(set(run_frame["topic"]))
    if base_frame is not None:
        return _risk_lines(frame, printed, options, run_id, run_topics, base_id, sorted(set(base_frame["topic"])),
                           len(qrels_topics & set(run_frame["query_id"])), len(qrels_topics))
    header = "runid,topic," + ",".join(column for column, _ in printed)
    lines = [header]
    totals = [0.0] * len(printed)
    for topic, row in _topic_values(values, run_topics, printed).items():
        totals = [total + value for total, value in zip(totals, row)]
        lines.append(f"{run_id},{topic}," + ",".join(_format(value) for value in row))
    divisor = len(qrels_topics) if options.complete else len(qrels_topics & set(run_frame["query_id"]))
    means = [total / divisor if divisor else -math.nan for total in totals]
    lines.append(f"{run_id},amean," + ",".join(_format(value) for value in means))
    return "\n".join(lines) + "\n"


def _risk_lines(frame: pd.DataFrame, printed, options: NdevalOptions, run_id: str, run_topics: list[int],
                base_id: str, base_topics: list[int], judged_run_topics: int, qrels_topic_count: int) -> str:
    """ndeval 4.5's risk-sensitive CSV (trec-web-2014 ``-baseline -riskAlpha``): per topic the
    risk-reward r - b if r >= b else (1 + a)(r - b) of every column, a missing run or baseline
    topic scoring 0; the topics are the run's (-c: the run's and the baseline's); the mean divides
    by the larger of ndeval's usual divisor and the number of rows (docs/ndeval.md)."""
    alpha = _risk_alpha(options)
    run_values = frame[frame["run_id"] == "run"].pivot(index="topic_id", columns="measure", values="value")
    base_values = frame[frame["run_id"] == "baseline"].pivot(index="topic_id", columns="measure", values="value")
    topics = sorted(set(run_topics) | set(base_topics)) if options.complete else run_topics
    zeros = [0.0] * len(printed)
    ours = _topic_values(run_values, run_topics, printed)
    theirs = _topic_values(base_values, base_topics, printed)
    label = f"{run_id} (rel to. {base_id}; rs=1+a; a={options.risk_alpha})"
    lines = ["runid,topic," + ",".join(column for column, _ in printed)]
    totals = [0.0] * len(printed)
    for topic in topics:
        row = [r - b if r >= b else (alpha + 1) * (r - b)
               for r, b in zip(ours.get(topic, zeros), theirs.get(topic, zeros))]
        totals = [total + value for total, value in zip(totals, row)]
        lines.append(f"{label},{topic}," + ",".join(_format(value) for value in row))
    divisor = max(qrels_topic_count if options.complete else judged_run_topics, len(topics))
    means = [total / divisor if divisor else -math.nan for total in totals]
    lines.append(f"{label},amean," + ",".join(_format(value) for value in means))
    return "\n".join(lines) + "\n"
