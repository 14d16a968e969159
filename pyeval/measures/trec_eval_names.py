"""trec_eval 10.0's measure names: its measure table, nicknames and parameter syntax, and the
pyeval measures each name stands for (``map`` -> ``AP``, ``P.5,10`` -> ``P@5``, ``P@10``).

The ``pyeval trec_eval`` drop-in (pyeval/compat/trec_eval.py) prints these names; the measure
parser (:func:`pyeval.measures.names.parse_measures`) accepts them. Names and print order follow
trec_eval 10.0 (NIST), docs/trec_eval.md.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import MeasureNameError, MeasureParamError, TrecEvalError, UnknownMeasureError
from .base import Measure
from .common import GAIN
from .names import make, parse, suggestions
from .registry import lookup

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


def _floats(name: str, text: str, count: int) -> list[float]:
    """The ``count`` comma-separated numbers of a measure's parameter text (TrecEvalError, one
    line, for any other count or a value that is no number)."""
    values = text.split(",")
    if len(values) != count:
        raise TrecEvalError(f"trec_eval: measure '{name}' takes {count} parameter value"
                            f"{'s' if count > 1 else ''}; got '{text}'")
    return [_c_float(value) for value in values]


def _c_floats(text: str) -> list[float]:
    """A float parameter list (get_float_params): every value a number; trec_eval's set_F
    reads the first (m_set_F.c: x = params[0])."""
    return [_c_float(value) for value in text.split(",")]


def _utility(text: str, options: "TrecEvalOptions") -> Measure:
    p1, p2, p3, p4 = _floats("utility", text, 4)
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
    TrecMeasure("set_F", "string", "1.0", lambda o, s: _m("SetF", rel=o.relevance_level, beta=_c_floats(s)[0])),
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
TREC_MEASURE_BY_NAME = {m.name: m for m in TREC_MEASURES}
_TABLE_ORDER = ("runid", *(m.name for m in TREC_MEASURES))
_ALL_TREC = tuple(
    name for name in _TABLE_ORDER
    if not TREC_MEASURE_BY_NAME.get(name, TREC_MEASURES[0]).judgment_groups and TREC_MEASURE_BY_NAME.get(name, TREC_MEASURES[0]).all_trec
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


def _rbp_p(text: str) -> float:
    key, _, value = text.partition("=")
    if key != "p" or not value:
        raise TrecEvalError(f"trec_eval: illegal parameter for rbp: '{text}'")
    return _c_float(value)


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
        name = GAIN.normalise(text)  # the measure's name for these gains
        self.gain_profiles[name] = gains
        return name


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
        if name not in TREC_MEASURE_BY_NAME:
            raise TrecEvalError(f"trec_eval: illegal measure '{spec}'")
        chosen[name] = params if dot else chosen.get(name)
    order = {name: i for i, name in enumerate(_TABLE_ORDER)}
    return sorted(chosen.items(), key=lambda item: order[item[0]])


def expand(name: str, params: str | None, options: TrecEvalOptions) -> list[tuple[str, Measure]]:
    """The printed names and pyeval measures of one trec_eval measure."""
    spec = TREC_MEASURE_BY_NAME[name]
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
    for base in sorted(TREC_MEASURE_BY_NAME, key=len, reverse=True):
        if name in TREC_MEASURE_BY_NAME or name in NICKNAMES:
            break
        if text.startswith(base + "_") and TREC_MEASURE_BY_NAME[base].kind != "single" and len(text) > len(base) + 1:
            name, dot, params = base, ".", text[len(base) + 1:]
            break
    if name == "set_F" and dot and "," in params:
        # ir_measures' parse_trec_measure: one SetF per value (trec_eval itself reads the first)
        return [_m("SetF", rel=relevance_level, beta=beta) for beta in _c_floats(params)]
    options.measures = [f"{name}.{params}" if dot else name]
    found = []
    for trec_name, trec_params in selected_measures(options):
        if trec_name != "runid":
            found.extend(measure for _, measure in expand(trec_name, trec_params, options))
    return found


def parse_measures(text: str) -> list[Measure]:
    """A measure in any spelling :func:`~pyeval.measures.names.parse` accepts, or a trec_eval
    spelling, which may stand for several (``ndcg_cut.5,10``).

    Raises
    ------
    MeasureNameError, MeasureParamError
        ``text`` is neither; TrecEvalError where it is no pyeval name but a trec_eval measure's
        with parameters that measure does not take (``utility.1,2``).
    """
    try:
        return [parse(text)]
    except (MeasureNameError, MeasureParamError) as first:
        return _trec_measures(text, first)


def parse_measure(text: str) -> Measure:
    """One measure in any spelling :func:`parse_measures` accepts (``'nDCG@10'``, ``'P_10'``,
    ``'map'``): the Python API's ``pyeval.parse_measure``. A trec_eval spelling that stands for
    several measures (``P.5,10``, ``official``) is refused: :func:`parse_measures` takes it.

    Raises
    ------
    MeasureNameError, MeasureParamError, TrecEvalError
    """
    try:
        return parse(text)
    except (MeasureNameError, MeasureParamError) as first:
        found = _trec_measures(text, first)
        if len(found) == 1:
            return found[0]
        if not isinstance(first, UnknownMeasureError):  # a pyeval name, wrongly used: 'P' (no cutoff)
            raise first from None
        raise MeasureNameError(
            f"{text!r} stands for {len(found)} measures ({', '.join(map(str, found[:4]))}"
            f"{', ...' if len(found) > 4 else ''}); name one, or use pyeval.measures.parse_measures"
        ) from None


def _trec_measures(text: str, first: MeasureNameError | MeasureParamError) -> list[Measure]:
    """The measures of the trec_eval spelling ``text``, else ``first`` (what pyeval's own parser
    said) or, for no pyeval name but a trec_eval measure's, trec_eval's complaint."""
    try:
        return measures_from_trec_name(text)
    except TrecEvalError:
        if not isinstance(first, UnknownMeasureError):
            raise first from None
        close = trec_suggestions(text)
        if close and text.partition(".")[0] not in TREC_MEASURE_BY_NAME:  # ndcg_cut10, not ndcg.x
            close.update((name, "") for name in suggestions(text) if name not in close)
            named = [f"{name} (trec_eval {spelled})" if spelled else name for name, spelled in close.items()]
            raise UnknownMeasureError(f"unknown measure {text!r}; did you mean {', '.join(named[:3])}?") from None
        if _names_trec_measure(text):
            raise
        spelled = difflib.get_close_matches(text, [*TREC_MEASURE_BY_NAME, *NICKNAMES], n=3, cutoff=0.75)
        if spelled and "did you mean" not in str(first):  # recip_rnk: close to trec_eval's names only
            raise UnknownMeasureError(f"unknown measure {text!r}; did you mean trec_eval's "
                                      f"{', '.join(spelled)}?") from None
        raise first from None


#: a name with a number at its end, glued on or after ``_`` or ``.`` (``ndcg_cut10``, ``P_10``)
_NUMBERED = re.compile(r"(.*?)[_.]?(\d+(?:\.\d+)?)")


def trec_suggestions(text: str) -> dict[str, str]:
    """The measures of the trec_eval spellings close to ``text`` that has a cutoff at its end,
    each with that spelling (``ndcg_cut10`` and ``ndcg_ct_10`` -> ``{'nDCG@10': 'ndcg_cut_10'}``)."""
    numbered = _NUMBERED.fullmatch(text)
    if numbered is None:
        return {}
    base, number = numbered.groups()
    cutoffs = [m.name for m in TREC_MEASURES if m.kind in ("int_cutoffs", "float_cutoffs")]
    close = [base] if base in cutoffs else difflib.get_close_matches(base, cutoffs, n=3, cutoff=0.75)
    found = {}
    for name in close:
        try:
            measures = measures_from_trec_name(f"{name}.{number}")
        except (TrecEvalError, MeasureNameError, MeasureParamError):
            continue
        found[", ".join(map(str, measures))] = f"{name}_{number}"
    return found


def _names_trec_measure(text: str) -> bool:
    """Whether ``text`` starts with a trec_eval measure's name and a parameter separator."""
    name, dot, _ = text.partition(".")
    return bool(dot and name in TREC_MEASURE_BY_NAME) or any(
        text.startswith(base + "_") and TREC_MEASURE_BY_NAME[base].kind != "single" for base in TREC_MEASURE_BY_NAME
    )
