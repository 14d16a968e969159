"""``pyeval ntcireval``: NTCIREVAL's ``NTCIR-eval``/``compute`` on NTCIR qrels and a TREC run.

NTCIREVAL (T. Sakai) splits the qrels and the run per topic (``NTCIRsplitqrels``,
``TRECsplitruns``: file order, the first 1000 lines of each topic), labels each list and runs
``ntcir_eval compute -r TID.rel -g G1:G2... -out TID`` on it. This module does the same on an
in-memory warehouse: the run is ranked in file order, ``-g`` becomes a stored gain profile, the
values are pyeval's canonical measures (``sql/metrics/``), and ``sql/compat/ntcireval_output.sql``
prints them as ``compute`` does (docs/input-files.md section 10.4):

    TID # syslen=L jrel=R jnonrel=N
    TID # r1=r1 rp=rp
    TID NAME=<padding to 21 characters>%.4f

Topics come in byte order, every topic of the qrels with a relevant document (``compute``
prints nothing for a topic without one, nor, with ``-j``, for one without a judged non-relevant
document). A topic the run lacks is an empty list: every value 0.

The printed names map to canonical measures as in docs/tool-rules.md section 1.4; the metric order
of the 190111 set follows ntcir_eval.c (June 2019 revision of 190111), that of the 2020 set
follows docs/input-files.md section 10.4 (docs/ntcireval.md).
"""
from __future__ import annotations

import gzip
import itertools
import math
import warnings
from dataclasses import dataclass
from pathlib import Path

from pyeval.core import sqlfiles
from pyeval.storage import warehouse
from ..errors import InputWarning, PyevalError
from pyeval.core.db import create_rows
from pyeval.core.evaluation import VALUES_TABLE, compute_into
from pyeval.core.gains import define_gain_profile
from ..loaders import load_qrels, load_run
from ..loaders.source import is_gzip
from ..measures import Measure, lookup, make
from pyeval.core.request import EvaluationRequest
from pyeval.core.stages import run_stages
from pyeval.storage.warehouse import ADHOC_EVALUATION, LOADED_TABLES

CAMPAIGN = "ntcireval"
RUN = "run"
PROFILE = "ntcireval_g"
FORMATS = ("190111", "2020")
#: NTCIREVAL's CUTOFF_NUMMAX is 10 and it refuses the 10th cutoff ("Too many cutoffs").
MAX_CUTOFFS = 9
#: compute's "<name>=<padding>" field (the spaces are literals of its printf formats).
NAME_WIDTH = 21
#: The warehouse relations the command reads (sql/compat/ntcireval_output.sql: levels and ranks).
RELATIONS = (*LOADED_TABLES, *ADHOC_EVALUATION)
#: The stages (pyeval.core.stages) whose ranked list the per-topic header lines describe.
LIST_STAGES = ("evaluation_entries", "evaluation_ranks", "evaluation_lists")


class NtcirevalError(PyevalError):
    """A usage or input error of ``pyeval ntcireval``; ``status`` is the exit status."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


@dataclass
class NtcirevalOptions:
    """compute's command line (the NTCIREVAL option names in comments)."""

    gains: str = ""  # -g G1:G2:...
    cutoffs: str = "1000"  # -cutoffs
    beta: float = 1.0  # -beta
    gamma: float = 0.95  # -gamma
    logb: float = 2.0  # -logb
    rbp: float = 0.95  # -rbp
    rbup: float | None = None  # -rbup (190111: iRBU@l only when given; 2020: default 0.99)
    condensed: bool = False  # -j
    gap: bool = False  # -gap
    format: str = "190111"
    truncate: int = 1000  # TRECsplitruns' depth


def parse_gain_list(text: str) -> list[float]:
    """``-g 1:2:3``: the gains of levels 1, 2, 3 (lowest first); non-decreasing, as compute
    requires ("Bad gain/stop values"), non-negative, the last one positive (it is gmax)."""
    try:
        gains = [float(item) for item in text.split(":")]
    except ValueError:
        raise NtcirevalError(f"-g: gains must be numbers separated by ':', got {text!r}") from None
    if any(not math.isfinite(g) or g < 0 for g in gains):
        raise NtcirevalError(f"-g: gains must be finite and non-negative, got {text!r}")
    if any(a > b for a, b in itertools.pairwise(gains)):
        raise NtcirevalError(f"-g: a higher level needs a gain at least as high (Bad gain/stop values), got {text!r}")
    if gains[-1] <= 0:
        raise NtcirevalError(f"-g: the highest level's gain (gmax) must be positive, got {text!r}")
    return gains


def parse_cutoffs(text: str) -> list[int]:
    """``-cutoffs 10,1000``: positive integers, printed in the order given (duplicates too)."""
    try:
        cutoffs = [int(item) for item in text.split(",")]
    except ValueError:
        raise NtcirevalError(f"--cutoffs: positive integers separated by commas, got {text!r}") from None
    if any(k < 1 for k in cutoffs):
        raise NtcirevalError(f"--cutoffs: a cutoff must be at least 1, got {text!r}")
    if len(cutoffs) > MAX_CUTOFFS:
        raise NtcirevalError(f"--cutoffs: at most {MAX_CUTOFFS} cutoffs (Too many cutoffs), got {len(cutoffs)}")
    return cutoffs


def _logb(value: float) -> int:
    if value != int(value) or value < 0 or value == 1:
        raise NtcirevalError(f"--logb: pyeval takes 0 (natural log) or an integer base >= 2, got {value:g}")
    return int(value)


def _m(name: str, **params) -> Measure:
    definition = lookup(name)
    if definition is None:
        raise NtcirevalError(f"measure {name} is not available in this pyeval")
    return make(definition, **params)


def _label(name: str, cutoff: int | None = None) -> str:
    """``RR=`` + padding; a cutoff prints as %04ld, and the padding assumes four digits."""
    if cutoff is None:
        return f"{name}=".ljust(NAME_WIDTH)
    return f"{name}@%04d=" % cutoff + " " * max(0, NAME_WIDTH - len(f"{name}@0000="))


def printed_measures(options: NtcirevalOptions, gain_zero: bool, depth: int) -> list[tuple[str, Measure]]:
    """(label with padding, canonical measure) in compute's order for the chosen version."""
    g = PROFILE
    beta, gamma, p = options.beta, options.gamma, options.rbp
    b = _logb(options.logb)
    u = 0.99 if options.rbup is None else options.rbup
    new = options.format == "2020"
    # NTCIREVAL's AP skips ranks whose gain is 0 (a level given gain 0 by -g); AP (trec_eval's)
    # counts every level >= 1. APntcir at a cutoff beyond every list and every R is compute's AP.
    ap = _m("APntcir", gain=g, cutoff=depth) if gain_zero else _m("AP")
    rows = [
        (_label("RR"), _m("RR")),
        (_label("O-measure"), _m("OMeasure", gain=g, beta=beta)),
        (_label("P-measure"), _m("PMeasure", gain=g, beta=beta)),
        (_label("P-plus"), _m("PPlus", gain=g, beta=beta)),
        (_label("AP"), ap),
        (_label("Q-measure"), _m("Q", gain=g, beta=beta)),
    ]
    ncu_rb = [
        ("NCUrb,P", {"stop": "rb", "util": "P", "gamma": gamma}),
        ("NCUrb,BR", {"stop": "rb", "util": "BR", "gamma": gamma, "beta": beta}),
    ]
    if new:
        ncu_rb.append(("NCUrb,IE", {"stop": "rb", "util": "IE", "gamma": gamma, "u": u}))
    else:
        rows += [
            (_label("NCUgu,P"), _m("NCU", stop="gu", util="P", gain=g)),
            (_label("NCUgu,BR"), _m("NCU", stop="gu", util="BR", beta=beta, gain=g)),
        ]
    rows += [(_label(name), _m("NCU", gain=g, **params)) for name, params in ncu_rb]
    if options.gap:
        rows.append((_label("GAP"), _m("GAP")))
    rows += [
        (_label("RBP"), _m("RBP", p=p, gain_norm="gmax", gain=g)),
        (_label("ERR"), _m("ERR", stop="ntcir", gain=g)),
        (_label("EBR"), _m("EBR", gain=g, beta=beta)),
    ]
    if new:
        rows.append((_label("iRBU"), _m("iRBU", u=u, gain=g)))
    for k in parse_cutoffs(options.cutoffs):
        rows += [
            (_label("AP", k), _m("APntcir", gain=g, cutoff=k)),
            (_label("Q", k), _m("Q", gain=g, beta=beta, cutoff=k)),
        ]
        if new:
            rows += [(_label(name, k), _m("NCU", gain=g, cutoff=k, **params)) for name, params in ncu_rb]
        if options.gap:
            rows.append((_label("GAP", k), _m("nGAP", cutoff=k)))
        rows += [
            (_label("nDCG", k), _m("JKnDCG", gain=g, b=b, cutoff=k)),
            (_label("MSnDCG", k), _m("nDCG", gain=g, cutoff=k)),
            (_label("Prec" if new else "P", k), _m("P", cutoff=k)),
            (_label("RBP", k), _m("RBP", p=p, gain_norm="gmax", gain=g, cutoff=k)),
        ]
        if new:
            rows.append((_label("nRBP", k), _m("nRBP", p=p, gain=g, cutoff=k)))
        rows += [
            (_label("ERR", k), _m("ERR", stop="ntcir", gain=g, cutoff=k)),
            (_label("nERR", k), _m("nERR", stop="ntcir", gain=g, cutoff=k)),
            (_label("EBR", k), _m("EBR", gain=g, beta=beta, cutoff=k)),
        ]
        if new:
            rows += [
                (_label("nEBR", k), _m("nEBR", gain=g, beta=beta, cutoff=k)),
                (_label("iRBU", k), _m("iRBU", u=u, gain=g, cutoff=k)),
                (_label("niRBU", k), _m("niRBU", u=u, gain=g, cutoff=k)),
            ]
        elif options.rbup:  # 190111 prints iRBU@l only when -rbup is given (> 0)
            rows.append((_label("iRBU", k), _m("iRBU", u=u, gain=g, cutoff=k)))
        rows.append((_label("Hit", k), _m("Success", cutoff=k)))
    if options.condensed:
        rows += [
            (_label("bpref"), _m("Bpref")),
            (_label("bpref_R"), _m("BprefR", gain=g)),
            (_label("bpref_N"), _m("BprefN", gain=g)),
            (_label("bpref_relative"), _m("BprefRelative", gain=g)),
            (_label("rpref_N"), _m("RprefN", gain=g)),
            (_label("rpref_relative"), _m("RprefRelative", gain=g)),
            (_label("rpref_relative2"), _m("RprefRelative2", gain=g)),
        ]
    return rows


def _check_levels(con, qrels: Path, levels: int) -> None:
    """compute refuses a level above the -g list ("max rel level mismatch"); name the line."""
    highest = con.execute(
        "select max(level) from qrels_by_set where campaign_id = $c", {"c": CAMPAIGN}
    ).fetchone()[0]
    if highest is None or highest <= levels:
        return
    opener = gzip.open if is_gzip(qrels) else open
    with opener(qrels, "rt", encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            fields = line.split()
            if len(fields) >= 3 and fields[-1][1:].isdigit() and int(fields[-1][1:]) > levels:
                raise NtcirevalError(
                    f"{qrels}:{number}: level {fields[-1]} is above the {levels} levels of -g", 2
                )
    raise NtcirevalError(f"{qrels}: level L{highest} is above the {levels} levels of -g", 2)


def check_options(options: NtcirevalOptions) -> list[float]:
    """compute's checks of its parameters (and pyeval's own); returns the gains."""
    if options.format not in FORMATS:
        raise NtcirevalError(f"--format must be one of {', '.join(FORMATS)}, got {options.format!r}")
    if not options.gains:
        raise NtcirevalError("-g G1:G2:... is required (the gain of each relevance level)")
    gains = parse_gain_list(options.gains)
    parse_cutoffs(options.cutoffs)
    _logb(options.logb)
    if options.truncate < 1:
        raise NtcirevalError(f"--truncate must be at least 1, got {options.truncate}")
    if options.beta < 0:
        raise NtcirevalError(f"--beta must be at least 0, got {options.beta:g}")
    for name, value in (("--gamma", options.gamma), ("--rbp", options.rbp), ("--rbup", options.rbup)):
        if value is not None and not 0 <= value <= 1:  # compute: "Bad -gamma value" above 1
            raise NtcirevalError(f"{name} must lie in [0, 1], got {value:g}")
    return gains


def _skipped_topics(con, condensed: bool) -> None:
    """compute prints nothing for a topic without a relevant document ("no rel doc") and, with
    -j, for one without a judged non-relevant document ("no judged nonrel"): say so on stderr."""
    rows = con.execute(
        "select topic_id, count(*) filter (where level > 0), count(*) filter (where level = 0) "
        "from qrels_by_set where campaign_id = $c group by topic_id order by topic_id",
        {"c": CAMPAIGN},
    ).fetchall()
    for topic, relevant, nonrelevant in rows:
        if relevant == 0:
            warnings.warn(f"topic {topic}: no relevant document; nothing printed (compute: no rel doc)",
                          InputWarning, stacklevel=3)
        elif condensed and nonrelevant == 0:
            warnings.warn(f"topic {topic}: no judged non-relevant document; nothing printed with -j "
                          "(compute: no judged nonrel)", InputWarning, stacklevel=3)


def run(qrels: str | Path, results: str | Path, options: NtcirevalOptions) -> str:
    """compute's output text for an NTCIR qrels file and a TREC run file."""
    gains = check_options(options)
    con = warehouse.scratch(RELATIONS)
    try:
        load_qrels(con, CAMPAIGN, qrels, format="ntcir")
        _check_levels(con, Path(qrels), len(gains))
        load_run(con, CAMPAIGN, results, name=RUN)
        _skipped_topics(con, options.condensed)
        define_gain_profile(con, CAMPAIGN, PROFILE, {level: gain for level, gain in enumerate(gains, start=1)})
        most_relevant = con.execute(
            "select coalesce(max(judgments), 0) from ("
            "select count(*) as judgments from qrels_by_set where campaign_id = $c and level > 0 group by topic_id)",
            {"c": CAMPAIGN},
        ).fetchone()[0]
        rows = printed_measures(options, gain_zero=min(gains) == 0,
                                depth=max(options.truncate, most_relevant, 1))
        measures = list(dict.fromkeys(measure for _, measure in rows))
        request = EvaluationRequest(CAMPAIGN, tuple(measures), runs=(RUN,), ordering="file",
                                    max_depth=options.truncate, judged_only=options.condensed, topics="qrels")
        compute_into(con, request)
        create_rows(con, "ntcir_printed", {"position": "bigint", "label": "varchar", "measure": "varchar"},
                    [(i, label, str(measure)) for i, (label, measure) in enumerate(rows)])
        con.execute(f"create temp view ntcir_topic_values as select topic_id, measure, value from {VALUES_TABLE}")
        settings = request.stage_parameters()
        run_stages(con, LIST_STAGES, settings)  # the list the header lines describe
        output = sqlfiles.model("compat/ntcireval_output.sql")
        lines = con.execute(sqlfiles.read(output.path), output.bind(settings)).fetchall()
    finally:
        con.close()
    return "".join(line + "\n" for line, in lines)
