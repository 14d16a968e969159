"""``pyeval trec_eval``: trec_eval 10.0's command line and output, byte for byte.

The measures are pyeval's (sql/metrics/); this module only maps trec_eval's measure names and
parameters to them, and prints the values as trec_eval does (docs/input-files.md section 10.2):
``"%-22s\\t%s\\t%6.4f"``, integer counts with ``%ld``, per-topic blocks in topic byte order
(``-q``), then the ``all`` block. Where trec_eval 10 and 9 differ, 10 is followed, except that
a qrels topic missing from the run is skipped without ``-c`` (as 9 does; 10 aborts).
"""
from __future__ import annotations

import gzip
import os
import re
import sys
from pathlib import Path

from typing import TYPE_CHECKING

from pyeval.core import sqlfiles
from pyeval.core.plan import Plan, plan, warehouse_reads
from pyeval.core.stages import DefinedRelations, statements_only
from pyeval.storage import warehouse
from pyeval.core.db import first_row
from ..errors import DuplicateEntryError, InputFormatError, TrecEvalError  # noqa: F401  (TrecEvalError: this module's API)
from pyeval.core.evaluation import VALUES_TABLE, compute, compute_into, means_select, values_from_frame
from pyeval.core.request import EvaluationRequest
from ..loaders import load_qrels, load_run, transient
from ..loaders.prefs import drop_preferences, stage_preferences
from ..loaders.source import is_gzip
from ..loaders.staging import refresh_topics
from ..measures.trec_eval_names import (  # noqa: F401  (TrecEvalOptions, measures_from_trec_name: this module's API)
    PREFERENCE_FORMATS,
    TREC_MEASURE_BY_NAME,
    TrecEvalOptions,
    expand,
    measures_from_trec_name,
    selected_measures,
)
from pyeval.storage.warehouse import ADHOC_EVALUATION, LOADED_TABLES

if TYPE_CHECKING:
    import duckdb
    import pandas as pd


#: The warehouse relations the command reads (preference and judgment-group evaluations too).
RELATIONS = (*LOADED_TABLES, *ADHOC_EVALUATION)
#: The campaign the qrels and the run are loaded as.
CAMPAIGN = "trec_eval"



def _last_run_tag(path: Path) -> str:
    """trec_eval takes the run id from the last line of the run file (a Parquet run: its last
    row's run tag, or its file's name without one: pyeval.loaders.columnar.last_run_tag)."""
    from ..loaders.columnar import last_run_tag

    tag = last_run_tag(path)
    if tag is not None:
        return tag
    if is_gzip(path):
        with gzip.open(path, "rb") as handle:
            tail = handle.read()[-65536:].decode("utf-8", "surrogateescape")
    else:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 65536))
            tail = handle.read().decode("utf-8", "surrogateescape")
    for line in reversed(tail.splitlines()):
        fields = line.split()
        if len(fields) >= 6 and not fields[0].startswith("#"):
            return fields[5]
    return ""


def _line(name: str, topic: str, value: float, integer: bool) -> str:
    shown = f"{int(round(value))}" if integer else f"{value:6.4f}"
    return f"{name:<22s}\t{topic}\t{shown}\n"


def run(qrels: str | os.PathLike[str], results: str | os.PathLike[str], options: TrecEvalOptions) -> str:
    """trec_eval's output text for a qrels file and a run file (``-``: the run on standard
    input, as trec_eval 10 reads it)."""
    if str(results) == "-":
        return _run_stdin(qrels, options)
    chosen = selected_measures(options)
    rows = []  # the measures to print, in order
    for name, params in chosen:
        if name == "runid":
            rows.append(("runid", None, False, True, False, False, True))
            continue
        spec = TREC_MEASURE_BY_NAME[name]
        for label, measure in expand(name, params, options):
            is_text = not measure.definition.storable
            rows.append((label, measure, spec.per_topic, spec.summary, spec.integer, is_text, False))
    measures = list(dict.fromkeys(row[1] for row in rows if row[1] is not None))
    grouped = {name for name, _ in chosen if name in TREC_MEASURE_BY_NAME and TREC_MEASURE_BY_NAME[name].judgment_groups}
    if options.rel_format == "qrels_jg" and set(n for n, _ in chosen) - grouped - {"runid", "num_q"}:
        raise TrecEvalError("trec_eval: with -R qrels_jg only the *_avgjg measures (and num_q) are computed")
    if options.rel_format != "qrels_jg" and grouped:
        raise TrecEvalError("trec_eval: the *_avgjg measures need -R qrels_jg")
    preferring = {name for name, _ in chosen if name in TREC_MEASURE_BY_NAME and TREC_MEASURE_BY_NAME[name].preferences}
    if options.rel_format in PREFERENCE_FORMATS and {n for n, _ in chosen} - preferring - {"runid", "num_q"}:
        raise TrecEvalError(
            f"trec_eval: with -R {options.rel_format} only the prefs_* measures (and num_q) are computed"
        )
    if options.rel_format not in PREFERENCE_FORMATS and preferring:
        raise TrecEvalError("trec_eval: the prefs_* measures need -R prefs or -R qrels_prefs")
    compute_options = dict(
        runs=("run",), max_depth=options.max_depth, judged_only=options.judged_only,
        topics="qrels" if options.complete else "intersection",
    )
    defined = None
    if options.rel_format in ("qrels_jg", *PREFERENCE_FORMATS):
        con = warehouse.scratch(RELATIONS)
    else:
        # the scratch campaign holds this one run: no filter by run ($all_runs)
        request = EvaluationRequest(CAMPAIGN, tuple(measures), **compute_options, every_run=True)
        planned = plan(request)
        con, defined = _loaded(qrels, results, planned)
    try:
        if options.rel_format == "qrels_jg":
            values_from_frame(con, _judgment_group_values(con, qrels, results, measures, compute_options))
        elif options.rel_format in PREFERENCE_FORMATS:
            values_from_frame(con, _preference_values(con, qrels, results, measures, compute_options,
                                                      options.rel_format))
        else:
            _register_gain_profiles(con, options)
            compute_into(con, request, defined, planned)
        if not first_row(con, f"select count(*) from {VALUES_TABLE}")[0]:
            raise TrecEvalError("trec_eval: No queries with both results and relevance info", 7)
        numeric = [m for m in measures if m.definition.storable]
        if options.zscores is not None:
            _zscores(con, rows, options.zscores)
            rows = [
                (label if is_text or is_runid else "Z" + label.ljust(22), m, per_topic, summary, False,
                 is_text, is_runid)
                for label, m, per_topic, summary, _, is_text, is_runid in rows
            ]
        num_rel_all = None
        if options.complete:
            num_rel_all = first_row(
                con, "select count(*) from qrels_by_set where campaign_id = 'trec_eval' and level > 0"
            )[0]
        # the measures to print and their means: common table expressions of the statement that prints
        printed, printed_parameters = _printed(rows)
        means, means_parameters = means_select(numeric, VALUES_TABLE, in_topic_order=True)
        lines = con.execute(
            _reading({"trec_printed": printed, "trec_summary_values": means},
                     sqlfiles.read("compat/trec_eval_output.sql")),
            {**printed_parameters, **means_parameters, "per_topic": options.per_topic,
             "summary": not options.no_summary, "run_tag": _last_run_tag(Path(results)),
             "num_rel_all": num_rel_all},
        ).fetchall()
    finally:
        con.close()
    return "".join(line + "\n" for line, in lines)


def _run_defined(planned: Plan, read: set[str]) -> DefinedRelations | None:
    """The run as relations the plan's statements define (pyeval.loaders.transient.run_relations,
    nothing stored) when the DuckDB
    executor runs every pass of ``planned`` as one statement and nothing else the plan reads
    (``read``) is built on them; None: the run is stored."""
    if not statements_only(planned):
        return None
    defined = transient.run_relations(CAMPAIGN)
    tables, views = sqlfiles.with_dependencies(read - set(defined.selects))
    return None if set(defined.selects) & {*tables, *views} else defined


#: Inputs (the qrels and the run together) of fewer bytes are read and evaluated on one DuckDB
#: thread: threads cost more than they save on them (a 50 x 1000 run and its qrels, 2.8 MB:
#: about 20 ms less of 0.3 s on 2 cores), as the resident engine's SMALL_BATCH of run lines.
SMALL_INPUTS = 8 << 20


def _small(*paths) -> bool:
    """Whether the files ``paths`` (a Parquet folder: its files) hold fewer than
    :data:`SMALL_INPUTS` bytes together (a missing one counts nothing: the loaders report it)."""
    sizes = 0
    for path in map(Path, paths):
        files = [path] if path.is_file() else path.rglob("*") if path.is_dir() else []
        sizes += sum(file.stat().st_size for file in files if file.is_file())
    return sizes < SMALL_INPUTS


def _scratch(relations, small: bool):
    """:func:`pyeval.storage.warehouse.scratch` of ``relations``, on one thread when ``small``."""
    con = warehouse.scratch(relations)
    if small:
        con.execute("set threads = 1")
    return con


def _loaded(qrels, results, planned: Plan) -> tuple[duckdb.DuckDBPyConnection, DefinedRelations | None]:
    """A scratch warehouse holding the qrels and the run as ``load_qrels`` and ``load_run`` store
    them, for the evaluation ``planned``, and the relations its evaluation's statements define (or None).
    When both files take the loaders' fast path and pass their checks, the warehouse holds only
    the relations the evaluation reads (:func:`pyeval.loaders.transient.stage_pair`), and the run
    stays staged, read as relations the statements define (:func:`_run_defined`), where they may;
    else every relation the command reads, the files loaded by the loaders, which name a bad
    line."""
    small = _small(qrels, results)
    read = warehouse_reads(planned)
    read = set(RELATIONS) if read is None else read  # a Python driver: whatever the command reads
    defined = _run_defined(planned, read)
    con = _scratch({*transient.TABLES, *read} - set(defined.selects if defined else ()), small)
    try:
        if transient.stage_pair(con, CAMPAIGN, qrels, results, "run", store_run=defined is None):
            return con, defined
    except BaseException:
        con.close()
        raise
    con.close()
    con = _scratch(RELATIONS, small)
    try:
        try:
            load_qrels(con, CAMPAIGN, qrels, format="trec")
        except DuplicateEntryError as exc:  # what the file looks like: diversity qrels?
            raise DuplicateEntryError(exc.source, exc.line, f"{exc.reason} (if the second field numbers "
                                      "subtopics, these are diversity qrels: pyeval ndeval reads them)") from None
        load_run(con, CAMPAIGN, results, name="run")
    except BaseException:
        con.close()
        raise
    return con, None


#: trec_printed's columns (sql/compat/trec_eval_output.sql) and their types
_PRINTED = {"position": "bigint", "label": "varchar", "measure": "varchar", "is_per_topic": "boolean",
            "is_summary": "boolean", "is_integer": "boolean", "is_text": "boolean", "is_runid": "boolean"}


def _printed(rows: list[tuple]) -> tuple[str, dict[str, list]]:
    """``trec_printed``, the measures to print in trec_eval's table order, as a select of bound
    lists (a column each), and its parameters."""
    columns = list(zip(*[(i, label, None if m is None else str(m), *flags)
                         for i, (label, m, *flags) in enumerate(rows)])) or [()] * len(_PRINTED)
    # column names and types are this module's own
    select = "select " + ", ".join(f"unnest($printed_{name}::{kind}[]) as {name}" for name, kind in _PRINTED.items())
    return select, {f"printed_{name}": list(values) for name, values in zip(_PRINTED, columns)}


def _reading(relations: dict[str, str], text: str) -> str:
    """``text`` (a query of sql/compat/) reading each of ``relations`` (name -> select) as a common
    table expression put before its own, so that its ``order by`` stays the statement's."""
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))
    # relation names are this module's own
    defined = ",\n".join(f"{name} as (\n{select}\n)" for name, select in relations.items())
    own = re.match(r"\s*with\s", body, re.IGNORECASE)
    return f"with {defined},\n{body[own.end():]}" if own else f"with {defined}\n{body}"


def _run_stdin(qrels, options: TrecEvalOptions) -> str:
    """The run read from standard input: spooled to a temporary file, which error messages
    call ``-``."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="pyeval-trec_eval-") as directory:
        path = Path(directory) / "stdin"
        with open(path, "wb") as spool:
            shutil.copyfileobj(sys.stdin.buffer, spool)
        try:
            return run(qrels, path, options)
        except InputFormatError as exc:
            if exc.source != str(path):
                raise
            raise type(exc)("-", exc.line, exc.reason) from None


def _judgment_group_values(con, qrels, results, measures, compute_options) -> pd.DataFrame:
    """trec_eval -R qrels_jg: each judgment group (the qrels' second field) judges the topic
    separately; a measure's value for a topic is its mean over the topic's judgment groups
    (trec_eval 10.0 m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c)."""
    import pandas as pd

    load_qrels(con, "trec_eval", qrels, format="trec-diversity")
    groups = [row[0] for row in con.execute(
        "select distinct intent_id from qrels_by_set where campaign_id = 'trec_eval' order by 1"
    ).fetchall()]
    frames = []
    for group in groups:
        campaign = f"judgment group {group}"
        con.execute(
            "insert into campaigns (campaign_id, qrels_kind, qrels_format) values ($c, 'adhoc', 'trec')",
            {"c": campaign},
        )
        con.execute(sqlfiles.read("compat/judgment_group_qrels.sql"), {"campaign_id": campaign, "group": group})
        refresh_topics(con, campaign)
        load_run(con, campaign, results, name="run")
        frame = compute(con, EvaluationRequest(campaign, tuple(m for m in measures if m.name != "NumQ"),
                                               **compute_options))
        frames.append(frame.assign(judgment_group=group))
    con.register("group_values", pd.concat(frames, ignore_index=True))
    try:
        averaged = con.execute(sqlfiles.read("compat/trec_eval_avgjg.sql")).df()
    finally:
        con.unregister("group_values")
    if any(m.name == "NumQ" for m in measures):
        topics = averaged[["run_id", "topic_id"]].drop_duplicates()
        averaged = pd.concat([averaged, topics.assign(measure="NumQ", value=1.0)], ignore_index=True)
    return averaged


def _preference_values(con, prefs, results, measures, compute_options, rel_format) -> pd.DataFrame:
    """trec_eval -R prefs / -R qrels_prefs: the preference file is staged as the temporary
    relation evaluation_preferences (not stored in the warehouse's tables); the campaign's qrels
    get one line per judged document, so that the topics and the retrieved judged documents are
    found as usual; the run is ranked in trec_eval's order for preferences (ties: docno
    ascending, sql/compat/trec_eval_prefs_order.sql)."""
    campaign = "trec_eval"
    stage_preferences(con, prefs, format=rel_format)
    try:
        con.execute(
            "insert into campaigns (campaign_id, qrels_kind, qrels_format) values ($c, 'adhoc', 'trec')",
            {"c": campaign},
        )
        con.execute(sqlfiles.read("compat/trec_eval_prefs_qrels.sql"), {"campaign_id": campaign})
        refresh_topics(con, campaign)
        load_run(con, campaign, results, name="run")
        con.execute(sqlfiles.read("compat/trec_eval_prefs_order.sql"), {"campaign_id": campaign})
        return compute(con, EvaluationRequest(campaign, tuple(measures), ordering="rank", preferences="file",
                                              **compute_options))
    finally:
        drop_preferences(con)


def _zscores(con, rows: list[tuple], path: str) -> None:
    """Per-topic values as z-scores (trec_eval -Z), in place in evaluation_values; the file has
    ``topic measure mean sd`` lines."""
    import pandas as pd

    try:
        reference = pd.read_csv(
            path, sep=r"\s+", header=None, names=["topic_id", "label", "mean", "sd"],
            dtype={"topic_id": str, "label": str, "mean": float, "sd": float}, comment=None,
        )
    except (OSError, ValueError) as exc:
        raise TrecEvalError(f"trec_eval: cannot read z-score file {path}: {exc}", 2) from exc
    printed, parameters = _printed(rows)
    con.register("trec_zscores", reference)
    try:
        con.execute("create temp table zscored_values as\n"
                    + _reading({"trec_printed": printed}, sqlfiles.read("compat/trec_eval_zscores.sql")), parameters)
    finally:
        con.unregister("trec_zscores")
    con.execute(f"create or replace temp table {VALUES_TABLE} as select * from zscored_values")
    con.execute("drop table zscored_values")


def _register_gain_profiles(con, options: TrecEvalOptions) -> None:
    """ndcg.1=3,2=9 parameters become gain profiles named by their text."""
    rows = [
        ("trec_eval", profile, "", level, gain)
        for profile, gains in options.gain_profiles.items()
        for level, gain in gains.items()
    ]
    if rows:
        con.executemany(
            "insert into gain_profiles (campaign_id, profile, topic_id, level, gain) values (?, ?, ?, ?, ?)",
            rows,
        )
