"""Cascade measures: ERR, nERR, EBR, nEBR, iRBU, niRBU, and nRBP. Computed by
sql/metrics/metric_cascade.sql (formulas in its header; docs/adhoc-measures.md sections 3.3 and 4.5).

A user reading the ranking stops at rank r with probability pi(r), the stop probability of the
document's gain g. ``stop`` chooses the rule for ERR and nERR. Its default is gdeval's, so that
``ERR@k`` means what it means in ir_measures (gdeval: (2^g - 1)/2^4); ``stop=ntcir`` is
NTCIREVAL's g/(gmax + 1) and ``stop=chapelle`` Chapelle et al.'s (2^g - 1)/2^gmax. EBR and
iRBU are NTCIREVAL measures and use NTCIREVAL's rule. RBP with ``gain_norm=gmax`` (NTCIREVAL's
RBP) is in dcg.py.
"""
from __future__ import annotations

from .base import NTCIREVAL_ORDERING, MeasureDef, Param
from .common import CUTOFF, GAIN
from .registry import register

NTCIREVAL = "NTCIREVAL (T. Sakai) {}"

STOP = Param(
    "stop", str, "gdeval",
    "stop probability of a document of gain g: gdeval: (2^g - 1)/16 (gdeval and ir_measures "
    "ERR; gains above 4 are refused); ntcir: g/(gmax + 1) (NTCIREVAL); chapelle: "
    "(2^g - 1)/2^gmax (Chapelle et al.; with linear gains g is the level and gmax the "
    "campaign's highest level)",
    choices=("gdeval", "ntcir", "chapelle"),
)
BETA = Param("beta", float, 1.0, "weight of cumulative gain in the blended ratio (NTCIREVAL -beta)",
             minimum=0)
PERSISTENCE = Param("u", float, 0.99, "patience: weight u^r of rank r (NTCIREVAL -rbup)", minimum=0,
                    maximum=1)

register(
    MeasureDef("ERR", "cascade",
               "expected reciprocal rank: sum over r of pi(r)/r times the probability of reaching r",
               "Chapelle, Metzler, Zhang & Grinspan, CIKM 2009; gdeval (TREC Web 2010) and "
               "ir_measures ERR; NTCIREVAL ERR and ERR@l (stop=ntcir)",
               params=(GAIN, STOP, CUTOFF), at="cutoff"),
    MeasureDef("nERR", "cascade", "ERR@l over the ideal list's ERR@l (same stop rule)",
               "Sakai & Song, SIGIR 2011; NTCIREVAL nERR@l (stop=ntcir)",
               params=(GAIN, STOP, CUTOFF), at="cutoff", ordering=NTCIREVAL_ORDERING),
    MeasureDef("EBR", "cascade",
               "expected blended ratio: sum over r of BR(r) pi(r) times the probability of reaching "
               "r, pi = g/(gmax + 1)",
               NTCIREVAL.format("EBR and EBR@l (2018)"), params=(GAIN, BETA, CUTOFF), at="cutoff",
               ordering=NTCIREVAL_ORDERING),
    MeasureDef("nEBR", "cascade",
               "EBR@l over the ideal list's sum of pi*(r) times its probability of reaching r",
               NTCIREVAL.format("nEBR@l (2020)"), params=(GAIN, BETA, CUTOFF), at="cutoff",
               ordering=NTCIREVAL_ORDERING),
    MeasureDef("iRBU", "cascade",
               "rank-biased utility of one intent: sum over r of u^r pi(r) times the probability "
               "of reaching r, pi = g/(gmax + 1)",
               NTCIREVAL.format("iRBU and iRBU@l (2019); Amigo, Spina & Carrillo-de-Albornoz, "
                                "SIGIR 2018 (RBU)"),
               params=(GAIN, PERSISTENCE, CUTOFF), at="cutoff", ordering=NTCIREVAL_ORDERING),
    MeasureDef("niRBU", "cascade", "iRBU@l over the ideal list's iRBU@l",
               NTCIREVAL.format("niRBU@l (2020)"), params=(GAIN, PERSISTENCE, CUTOFF), at="cutoff",
               ordering=NTCIREVAL_ORDERING),
    MeasureDef("nRBP", "cascade",
               "normalised RBP: sum over r <= l of g(r) p^(r-1) over the same sum on the ideal list",
               NTCIREVAL.format("nRBP@l (2020)"),
               params=(GAIN, Param("p", float, 0.95, "persistence (NTCIREVAL -rbp)", minimum=0,
                                        maximum=1, open_minimum=True, open_maximum=True), CUTOFF),
               at="cutoff", ordering=NTCIREVAL_ORDERING),
)
