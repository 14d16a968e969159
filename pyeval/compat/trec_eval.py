"""``pyeval trec_eval``: trec_eval 10.0's command line and output, byte for byte.

The measures are pyeval's (sql/metrics/); this module only maps trec_eval's measure names and
parameters to them, and prints the values as trec_eval does (docs/formats.md section 10.2):
``"%-22s\\t%s\\t%6.4f"``, integer counts with ``%ld``, per-topic blocks in topic byte order
(``-q``), then the ``all`` block. Where trec_eval 10 and 9 differ, 10 is followed, except that
a qrels topic missing from the run is skipped without ``-c`` (as 9 does; 10 aborts).
"""
from __future__ import annotations

import gzip
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from typing import TYPE_CHECKING

from .. import sqlfiles, warehouse
from ..db import first_row
from ..errors import InputFormatError, PyevalError
from ..evaluation import VALUES_TABLE, compute, compute_into, create_rows, means_into, values_from_frame
from ..loaders import load_qrels, load_run
from ..loaders.prefs import drop_preferences, stage_preferences
from ..loaders.source import is_gzip
from ..loaders.staging import refresh_topics
from ..measures import Measure, lookup, make
from . import ADHOC_EVALUATION, LOADED_TABLES

if TYPE_CHECKING:
    import pandas as pd


class TrecEvalError(PyevalError):
    """A trec_eval usage or input error; ``status`` is trec_eval's exit status."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure: how its parameters read and which pyeval measures it prints."""

    name: str
    kind: str  # 'single' | 'int_cutoffs' | 'float_cutoffs' | 'string'
    default: tuple | str | None
    build: Callable[..., Measure]
    per_topic: bool = True
    summary: bool = True
    integer: bool = False
    judgment_groups: bool = False  # an *_avgjg measure: needs -R qrels_jg
    all_trec: bool = True  # in the all_trec nickname (judgment-group measures never are)
    preferences: bool = False  # a prefs_* measure: needs -R prefs or -R qrels_prefs


def _m(name: str, **params) -> Measure:
    return make(lookup(name), **params)


def _prefs(name: str, pyeval_name: str, pairs: str = "all", integer: bool = False) -> TrecMeasure:
    """A preference measure (m_prefs_*.c): pyeval's preferences family."""
    return TrecMeasure(name, "single", None, lambda o: _m(pyeval_name, pairs=pairs), integer=integer,
                       all_trec=False, preferences=True)


def _utility(text: str, options: "TrecEvalOptions") -> Measure:
    p1, p2, p3, p4 = (float(v) for v in text.split(","))
    return _m("Utility", p1=p1, p2=p2, p3=p3, p4=p4, rel=options.relevance_level,
              collection_size=options.collection_size)


#: trec_eval 10.0's measures in its print order (all_trec lists them all).
TREC_MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("num_q", "single", None, lambda o: _m("NumQ"), per_topic=False, integer=True),
    TrecMeasure("num_ret", "single", None, lambda o: _m("NumRet"), integer=True),
    TrecMeasure("num_rel", "single", None, lambda o: _m("NumRel", rel=o.relevance_level), integer=True),
    TrecMeasure("num_rel_ret", "single", None, lambda o: _m("NumRet", rel=o.relevance_level), integer=True),
    TrecMeasure("map", "single", None, lambda o: _m("AP", rel=o.relevance_level)),
    TrecMeasure("gm_map", "single", None, lambda o: _m("GMAP", rel=o.relevance_level), per_topic=False),
    TrecMeasure("Rprec", "single", None, lambda o: _m("Rprec", rel=o.relevance_level)),
    TrecMeasure("bpref", "single", None, lambda o: _m("Bpref", rel=o.relevance_level)),
    TrecMeasure("recip_rank", "single", None, lambda o: _m("RR", rel=o.relevance_level)),
    TrecMeasure("iprec_at_recall", "float_cutoffs", (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
                lambda o, x: _m("IPrec", rel=o.relevance_level, recall=x)),
    TrecMeasure("P", "int_cutoffs", (5, 10, 15, 20, 30, 100, 200, 500, 1000),
                lambda o, k: _m("P", rel=o.relevance_level, cutoff=k)),
    TrecMeasure("relstring", "string", "10", lambda o, s: _m("RelString", cutoff=int(s)), summary=False),
    TrecMeasure("recall", "int_cutoffs", (5, 10, 15, 20, 30, 100, 200, 500, 1000),
                lambda o, k: _m("R", rel=o.relevance_level, cutoff=k)),
    TrecMeasure("infAP", "single", None, lambda o: _m("infAP", rel=o.relevance_level)),
    TrecMeasure("gm_bpref", "single", None, lambda o: _m("GMBpref", rel=o.relevance_level), per_topic=False),
    TrecMeasure("Rprec_mult", "float_cutoffs", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
                lambda o, x: _m("RprecMult", rel=o.relevance_level, m=x)),
    TrecMeasure("utility", "string", "1,-1,0,0", lambda o, s: _utility(s, o)),
    TrecMeasure("11pt_avg", "string", "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",
                lambda o, s: _m("IPrecAvg", rel=o.relevance_level, points=s)),
    TrecMeasure("binG", "single", None, lambda o: _m("BinG", rel=o.relevance_level)),
    TrecMeasure("G", "string", "", lambda o, s: _m("G", gain=o.gain_profile(s))),
    TrecMeasure("dcg", "string", "", lambda o, s: _m("DCG", gain=o.gain_profile(s)), all_trec=False),
    TrecMeasure("ideal_dcg", "string", "", lambda o, s: _m("IdealDCG", gain=o.gain_profile(s)), all_trec=False),
    TrecMeasure("ndcg", "string", "", lambda o, s: _m("nDCG", gain=o.gain_profile(s))),
    TrecMeasure("ndcg_rel", "string", "", lambda o, s: _m("nDCGRel", gain=o.gain_profile(s))),
    TrecMeasure("Rndcg", "string", "", lambda o, s: _m("RnDCG", gain=o.gain_profile(s), rel=o.relevance_level)),
    TrecMeasure("ndcg_cut", "int_cutoffs", (5, 10, 15, 20, 30, 100, 200, 500, 1000),
                lambda o, k: _m("nDCG", cutoff=k)),
    TrecMeasure("map_cut", "int_cutoffs", (5, 10, 15, 20, 30, 100, 200, 500, 1000),
                lambda o, k: _m("AP", rel=o.relevance_level, cutoff=k)),
    TrecMeasure("relative_P", "int_cutoffs", (5, 10, 15, 20, 30, 100, 200, 500, 1000),
                lambda o, k: _m("RelP", rel=o.relevance_level, cutoff=k)),
    TrecMeasure("success", "int_cutoffs", (1, 5, 10), lambda o, k: _m("Success", rel=o.relevance_level, cutoff=k)),
    TrecMeasure("set_P", "single", None, lambda o: _m("SetP", rel=o.relevance_level)),
    TrecMeasure("set_relative_P", "single", None, lambda o: _m("SetRelP", rel=o.relevance_level)),
    TrecMeasure("set_recall", "single", None, lambda o: _m("SetR", rel=o.relevance_level)),
    TrecMeasure("set_map", "single", None, lambda o: _m("SetAP", rel=o.relevance_level)),
    TrecMeasure("set_F", "string", "1.0", lambda o, s: _m("SetF", rel=o.relevance_level, beta=float(s))),
    TrecMeasure("num_nonrel_judged_ret", "single", None,
                lambda o: _m("NumNonRelJudgedRet", rel=o.relevance_level), integer=True),
    _prefs("prefs_num_prefs_poss", "PrefsPossible", integer=True),
    _prefs("prefs_num_prefs_ful", "PrefsFulfilled", integer=True),
    _prefs("prefs_num_prefs_ful_ret", "PrefsFulfilled", "ret", integer=True),
    _prefs("prefs_simp", "PrefsSimp"),
    _prefs("prefs_pair", "PrefsPair"),
    _prefs("prefs_avgjg", "PrefsAvgJG"),
    _prefs("prefs_avgjg_Rnonrel", "PrefsAvgJGRnonrel"),
    _prefs("prefs_simp_ret", "PrefsSimp", "ret"),
    _prefs("prefs_pair_ret", "PrefsPair", "ret"),
    _prefs("prefs_avgjg_ret", "PrefsAvgJG", "ret"),
    _prefs("prefs_avgjg_Rnonrel_ret", "PrefsAvgJGRnonrel", "ret"),
    _prefs("prefs_simp_imp", "PrefsSimp", "imp"),
    _prefs("prefs_pair_imp", "PrefsPair", "imp"),
    _prefs("prefs_avgjg_imp", "PrefsAvgJG", "imp"),
    TrecMeasure("map_avgjg", "single", None, lambda o: _m("AP", rel=o.relevance_level), judgment_groups=True),
    TrecMeasure("P_avgjg", "int_cutoffs", (5, 10, 15, 20, 30, 100, 200, 500, 1000),
                lambda o, k: _m("P", rel=o.relevance_level, cutoff=k), judgment_groups=True),
    TrecMeasure("Rprec_mult_avgjg", "float_cutoffs", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
                lambda o, x: _m("RprecMult", rel=o.relevance_level, m=x), judgment_groups=True),
    TrecMeasure("yaap", "single", None, lambda o: _m("YAAP", rel=o.relevance_level), all_trec=False),
    TrecMeasure("rbp", "string", "p=0.9", lambda o, s: _m("RBP", p=_rbp_p(s), gain_norm="trec_eval")),
    TrecMeasure("rbp_resid", "string", "p=0.9", lambda o, s: _m("RBPResid", p=_rbp_p(s))),
    TrecMeasure("unj", "int_cutoffs", (5, 10, 20), lambda o, k: _m("Unjudged", cutoff=k)),
)
_BY_NAME = {m.name: m for m in TREC_MEASURES}
_TABLE_ORDER = ("runid", *(m.name for m in TREC_MEASURES))
_ALL_TREC = tuple(
    name for name in _TABLE_ORDER
    if not _BY_NAME.get(name, TREC_MEASURES[0]).judgment_groups and _BY_NAME.get(name, TREC_MEASURES[0]).all_trec
)
NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "all_trec": _ALL_TREC,
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
    "all_prefs": ("runid", "num_q", *(m.name for m in TREC_MEASURES if m.preferences)),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"),
}
#: -R formats of preference judgments (the prefs_* measures).
PREFERENCE_FORMATS = ("prefs", "qrels_prefs")
#: The warehouse relations the command reads (preference and judgment-group evaluations too).
RELATIONS = (*LOADED_TABLES, *ADHOC_EVALUATION)


def _rbp_p(text: str) -> float:
    key, _, value = text.partition("=")
    if key != "p" or not value:
        raise TrecEvalError(f"trec_eval: illegal parameter for rbp: '{text}'")
    return float(value)


@dataclass
class TrecEvalOptions:
    """trec_eval's command-line settings."""

    per_topic: bool = False  # -q
    complete: bool = False  # -c
    no_summary: bool = False  # -n
    max_depth: int | None = None  # -M
    relevance_level: int = 1  # -l
    judged_only: bool = False  # -J
    collection_size: int = 0  # -N
    measures: list[str] = field(default_factory=list)  # -m, in order
    zscores: str | None = None  # -Z: file of "topic measure mean sd" lines
    rel_format: str = "qrels"  # -R: qrels, qrels_jg (judgment groups in the 2nd field), prefs, qrels_prefs
    gain_profiles: dict[str, dict[int, float]] = field(default_factory=dict)

    def gain_profile(self, text: str) -> str:
        """'' -> linear; '1=3,2=9,4=4.5' -> a profile of that name (registered for the load)."""
        if not text:
            return "linear"
        gains = {}
        for pair in text.split(","):
            level, _, gain = pair.partition("=")
            try:
                gains[int(level)] = float(gain)
            except ValueError:
                raise TrecEvalError(f"trec_eval: illegal gain parameter '{text}'") from None
        self.gain_profiles[text] = gains
        return text


def _c_float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise TrecEvalError(f"trec_eval: illegal measure parameter '{text}'") from None


def _c_long(text: str) -> int:
    """C atol: leading digits (23.4 -> 23)."""
    digits = ""
    for char in text.strip():
        if char.isdigit() or (not digits and char in "+-"):
            digits += char
        else:
            break
    try:
        return int(digits)
    except ValueError:
        raise TrecEvalError(f"trec_eval: illegal measure parameter '{text}'") from None


def selected_measures(options: TrecEvalOptions) -> list[tuple[str, str | None]]:
    """(trec_eval measure, parameter text or None) in print order; a later -m of the same
    measure replaces its parameters."""
    chosen: dict[str, str | None] = {}
    for spec in options.measures or ["official"]:
        name, dot, params = spec.partition(".")
        names = NICKNAMES.get(name)
        if names is not None:
            if dot:
                raise TrecEvalError(f"trec_eval: nickname '{name}' takes no parameters")
            for member in names:
                chosen.setdefault(member, None)
            continue
        if name == "runid":
            chosen["runid"] = None
            continue
        if name not in _BY_NAME:
            raise TrecEvalError(f"trec_eval: illegal measure '{spec}'")
        chosen[name] = params if dot else chosen.get(name)
    order = {name: i for i, name in enumerate(_TABLE_ORDER)}
    return sorted(chosen.items(), key=lambda item: order[item[0]])


def expand(name: str, params: str | None, options: TrecEvalOptions) -> list[tuple[str, Measure]]:
    """The printed names and pyeval measures of one trec_eval measure."""
    spec = _BY_NAME[name]
    if spec.kind == "single":
        if params:
            raise TrecEvalError(f"trec_eval: measure '{name}' takes no parameters")
        return [(name, spec.build(options))]
    if spec.kind == "int_cutoffs":
        values = sorted({_c_long(v) for v in params.split(",")}) if params else list(spec.default)
        return [(f"{name}_{k}", spec.build(options, k)) for k in values]
    if spec.kind == "float_cutoffs":
        values = sorted({_c_float(v) for v in params.split(",")}) if params else list(spec.default)
        return [(f"{name}_{x:3.2f}", spec.build(options, x)) for x in values]
    text = params if params else spec.default
    printed = f"{name}_{params}" if params else name
    return [(printed, spec.build(options, text))]


def measures_from_trec_name(text: str, relevance_level: int = 1) -> list[Measure]:
    """trec_eval spellings as aliases: ``map``, ``P.10``, ``P_10``, ``ndcg_cut.5,10``,
    ``recip_rank``, ``set_F``, nicknames (``official``) ... -> canonical measures.

    Raises
    ------
    TrecEvalError
        ``text`` is no trec_eval measure name.
    """
    options = TrecEvalOptions(relevance_level=relevance_level)
    name, dot, params = text.partition(".")
    # output spellings: P_10, ndcg_cut_10, iprec_at_recall_0.10, relstring_20, utility_2,-1,0,0
    for base in sorted(_BY_NAME, key=len, reverse=True):
        if name in _BY_NAME or name in NICKNAMES:
            break
        if text.startswith(base + "_") and _BY_NAME[base].kind != "single" and len(text) > len(base) + 1:
            name, dot, params = base, ".", text[len(base) + 1:]
            break
    options.measures = [f"{name}.{params}" if dot else name]
    found = []
    for trec_name, trec_params in selected_measures(options):
        if trec_name != "runid":
            found.extend(measure for _, measure in expand(trec_name, trec_params, options))
    return found


def _last_run_tag(path: Path) -> str:
    """trec_eval takes the run id from the last line of the run file."""
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
        spec = _BY_NAME[name]
        for label, measure in expand(name, params, options):
            is_text = not measure.definition.storable
            rows.append((label, measure, spec.per_topic, spec.summary, spec.integer, is_text, False))
    measures = list(dict.fromkeys(row[1] for row in rows if row[1] is not None))
    grouped = {name for name, _ in chosen if name in _BY_NAME and _BY_NAME[name].judgment_groups}
    if options.rel_format == "qrels_jg" and set(n for n, _ in chosen) - grouped - {"runid", "num_q"}:
        raise TrecEvalError("trec_eval: with -R qrels_jg only the *_avgjg measures (and num_q) are computed")
    if options.rel_format != "qrels_jg" and grouped:
        raise TrecEvalError("trec_eval: the *_avgjg measures need -R qrels_jg")
    preferring = {name for name, _ in chosen if name in _BY_NAME and _BY_NAME[name].preferences}
    if options.rel_format in PREFERENCE_FORMATS and {n for n, _ in chosen} - preferring - {"runid", "num_q"}:
        raise TrecEvalError(
            f"trec_eval: with -R {options.rel_format} only the prefs_* measures (and num_q) are computed"
        )
    if options.rel_format not in PREFERENCE_FORMATS and preferring:
        raise TrecEvalError("trec_eval: the prefs_* measures need -R prefs or -R qrels_prefs")
    con = warehouse.scratch(RELATIONS)
    try:
        compute_options = dict(
            runs=["run"], max_depth=options.max_depth, judged_only=options.judged_only,
            topics="qrels" if options.complete else "intersection",
        )
        if options.rel_format == "qrels_jg":
            values_from_frame(con, _judgment_group_values(con, qrels, results, measures, compute_options))
        elif options.rel_format in PREFERENCE_FORMATS:
            values_from_frame(con, _preference_values(con, qrels, results, measures, compute_options,
                                                      options.rel_format))
        else:
            load_qrels(con, "trec_eval", qrels, format="trec")
            load_run(con, "trec_eval", results, name="run")
            _register_gain_profiles(con, options)
            compute_into(con, "trec_eval", measures, **compute_options)
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
        _create_printed(con, rows)
        con.execute(f"create temp view evaluation_scores as select * from {VALUES_TABLE}")
        means_into(con, numeric, "trec_summary_values")
        num_rel_all = None
        if options.complete:
            num_rel_all = first_row(
                con, "select count(*) from qrels where campaign_id = 'trec_eval' and level > 0"
            )[0]
        lines = con.execute(
            sqlfiles.read("compat/trec_eval_output.sql"),
            {"per_topic": options.per_topic, "summary": not options.no_summary,
             "run_tag": _last_run_tag(Path(results)), "num_rel_all": num_rel_all},
        ).fetchall()
    finally:
        con.close()
    return "".join(line + "\n" for line, in lines)


def _create_printed(con, rows: list[tuple]) -> None:
    """``trec_printed``: the measures to print, in trec_eval's table order."""
    create_rows(
        con, "trec_printed",
        {"position": "bigint", "label": "varchar", "measure": "varchar", "is_per_topic": "boolean",
         "is_summary": "boolean", "is_integer": "boolean", "is_text": "boolean", "is_runid": "boolean"},
        [(i, label, None if m is None else str(m), *flags) for i, (label, m, *flags) in enumerate(rows)],
    )


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
        "select distinct intent_id from qrels where campaign_id = 'trec_eval' order by 1"
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
        frame = compute(con, campaign, [m for m in measures if m.name != "NumQ"], **compute_options)
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
        return compute(con, campaign, measures, ordering="rank", **compute_options)
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
    _create_printed(con, rows)
    con.register("trec_zscores", reference)
    try:
        con.execute("create temp table zscored_values as\n" + sqlfiles.read("compat/trec_eval_zscores.sql"))
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
