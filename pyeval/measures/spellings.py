"""Other tools' and papers' names for pyeval's measures (docs/measures.md lists every spelling).

A name means what ir_measures means by it; where ir_measures has no such name, what the tool
or paper that prints it means. Two names have two meanings:

* ``ERR-IA`` (and ``nERR-IA``) is ndeval's column (Clarke et al., ir_measures ``ERR_IA``), not
  the intent-aware ERR of NTCIREVAL and Sakai & Song (SIGIR 2011), which is ``IA_ERR``
  (``ERR-IA@0010`` in NTCIREVAL's zero-padded spelling); parsing ``ERR-IA`` warns and says so.
  Every other ``X-IA`` of the papers is ``IA_X``.
* NTCIREVAL prints ``nDCG``, ``AP``, ``RBP``, ``ERR``, ``nERR`` and ``GAP`` with a
  zero-padded cutoff (``nDCG@0010``) for measures that differ from ir_measures' (or pyeval's)
  measures of those names: with a zero-padded cutoff the name means NTCIREVAL's measure
  (``JKnDCG@10``), with a plain cutoff ir_measures' (``nDCG@10``). NTCIREVAL's cutoffs of 1000
  and above carry no zero (``AP@1000``): they read as ir_measures' (write ``APntcir@1000`` or
  ``AP@01000``).

The registry also folds case where only one measure is meant (``ndcg@10`` is ``nDCG@10``;
``nrbp`` is refused, since ndeval's ``NRBP`` and NTCIREVAL's ``nRBP`` differ).
"""
from __future__ import annotations

from typing import Any

from ..errors import MeasureParamError
from .common import inline_profile
from . import diversity, ndeval  # noqa: F401  (the measures named here are registered first)
from .diversity import IA_BASES, SHARP_BASES
from .registry import register_alias, register_padded, register_rewrite

NTCIREVAL = "NTCIREVAL"
IR_MEASURES = "ir_measures"
NDEVAL = "ndeval"
RANX = "ranx"
SEEDS = "Sakai & Song, SIGIR 2011; Sakai, IPSJ JIP 2013"

#: the names ndeval prints that the papers' X-IA pattern would read otherwise
NDEVAL_IA = {"ERR-IA": "ERR_IA", "nERR-IA": "nERR_IA"}
ERR_IA_NOTE = ("{spelling} is ndeval's {spelling} (ir_measures {canonical}, normalised by the "
               "ideal-ideal list); for the intent-aware {base} of NTCIREVAL and Sakai & Song "
               "(SIGIR 2011) ask for IA_{base}")

for spelling, canonical in NDEVAL_IA.items():
    register_alias(spelling, canonical, source=NDEVAL,
                   note=ERR_IA_NOTE.format(spelling=spelling, canonical=canonical,
                                           base=spelling.removesuffix("-IA")))

# NTCIREVAL's printed names (compute, D-NTCIR-eval), the papers' and ranx's
for spelling, canonical, params, source in (
    ("Q-measure", "Q", {}, NTCIREVAL), ("O-measure", "OMeasure", {}, NTCIREVAL),
    ("P-measure", "PMeasure", {}, NTCIREVAL), ("P-plus", "PPlus", {}, NTCIREVAL),
    ("R-measure", "RMeasure", {}, "Sakai, AIRS 2005"), ("Prec", "P", {}, NTCIREVAL),
    ("NCUgu,P", "NCU", {"stop": "gu", "util": "P"}, NTCIREVAL),
    ("NCUgu,BR", "NCU", {"stop": "gu", "util": "BR"}, NTCIREVAL),
    ("NCUrb,P", "NCU", {"stop": "rb", "util": "P"}, NTCIREVAL),
    ("NCUrb,BR", "NCU", {"stop": "rb", "util": "BR"}, NTCIREVAL),
    ("NCUrb,IE", "NCU", {"stop": "rb", "util": "IE"}, NTCIREVAL),
    ("P+Q", "PplusQ", {}, SEEDS), ("P+Q#", "PplusQsharp", {}, SEEDS), ("Ef-P", "EfP", {}, SEEDS),
    ("α_DCG", "alpha_DCG", {}, IR_MEASURES),
    ("hit_rate", "Success", {}, RANX), ("hits", "Hits", {}, RANX), ("r-precision", "Rprec", {}, RANX),
    ("ndcg_burges", "nDCG", {"gain": "exp"}, RANX), ("dcg_burges", "DCG", {"gain": "exp"}, RANX),
):
    register_alias(spelling, canonical, source=source, **params)

for base in SHARP_BASES:
    for prefix in ("D", "DIN"):
        register_alias(f"{prefix}#-{base}", f"{prefix}sharp_{base}", source=SEEDS)
for base in IA_BASES:
    register_alias(f"IA-{base}", f"IA_{base}", source=NTCIREVAL)
    if f"{base}-IA" not in NDEVAL_IA and base != "P":  # P-IA: ndeval's P_IA, the same measure
        register_alias(f"{base}-IA", f"IA_{base}", source=SEEDS)

# NTCIREVAL's zero-padded cutoff: its own measure where the name means another one
register_padded("nDCG", "JKnDCG")
register_padded("AP", "APntcir")
register_padded("RBP", "RBP", p=0.95, gain_norm="gmax")
register_padded("ERR", "ERR", stop="ntcir")
register_padded("nERR", "nERR", stop="ntcir")
register_padded("GAP", "nGAP")
register_padded("ERR-IA", "IA_ERR")
register_padded("nERR-IA", "IA_nERR")


# ir_measures' parameters that pyeval spells otherwise
def _relative(value: Any, params: dict) -> tuple[str, dict]:
    """ir_measures ``SetP(relative=True)`` (its ``SetRelP``) is trec_eval's set_relative_P,
    pyeval ``SetRelP``; ``relative=False`` is ``SetP``."""
    if not isinstance(value, bool):
        raise MeasureParamError(f"SetP: parameter relative must be bool, got {value!r}")
    return ("SetRelP" if value else "SetP"), params


def _dcg(value: Any, params: dict) -> tuple[str, dict]:
    """ir_measures ``nDCG(dcg='exp-log2')``: gains 2^level - 1 (pyeval ``gain=exp``)."""
    gain = {"log2": "linear", "exp-log2": "exp"}.get(value)
    if gain is None:
        raise MeasureParamError(f"nDCG: parameter dcg must be one of log2, exp-log2; got {value!r}")
    if params.get("gain", gain) != gain:
        raise MeasureParamError(f"nDCG: dcg={value!r} and gain={params['gain']!r} contradict each other")
    if gain == "linear" and "gain" not in params:
        return "nDCG", params
    return "nDCG", {**params, "gain": params.get("gain", gain)}


def _gains(value: Any, params: dict) -> tuple[str, dict]:
    """ir_measures ``nDCG(gains={0: 1, 1: 4})``: an inline gain profile, ``gain='0=1,1=4'``
    (levels the map leaves out keep gain = level, as ir_measures and trec_eval)."""
    if not isinstance(value, dict) or not value:
        raise MeasureParamError(f"nDCG: parameter gains must be a dict {{level: gain, ...}}; got {value!r}")
    if "gain" in params:
        raise MeasureParamError("nDCG: give gains or gain, not both")
    return "nDCG", {**params, "gain": inline_profile(value)}


register_rewrite("SetP", "relative", _relative, source=IR_MEASURES,
                 spelled={"SetRelP": "SetP(relative=True)", "SetP": "SetP(relative=False)"})
register_rewrite("SetRelP", "relative", _relative, source=IR_MEASURES,
                 spelled={"SetRelP": "SetRelP(relative=True)", "SetP": "SetRelP(relative=False)"})
register_rewrite("nDCG", "dcg", _dcg, source=IR_MEASURES,
                 spelled={"nDCG": "nDCG(dcg='log2'|'exp-log2')"})
def _sdcg_dcg(value: Any, params: dict) -> tuple[str, dict]:
    """ir_measures ``SDCG(dcg='log2')``: the only discount cwl_eval's SDCG has."""
    if value != "log2":
        raise MeasureParamError(f"SDCG: parameter dcg must be log2; got {value!r}")
    return "SDCG", params


register_rewrite("SDCG", "dcg", _sdcg_dcg, source=IR_MEASURES, spelled={"SDCG": "SDCG(dcg='log2')"})
register_rewrite("nDCG", "gains", _gains, source=IR_MEASURES, spelled={"nDCG": "nDCG(gains={level: gain, ...})"})
