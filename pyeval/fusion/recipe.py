"""A fusion recipe: the method and every convention, as explicit values (docs/fusion.md).

Defaults follow ranx 0.3.21 (Bassani & Romelli, CIKM 2022): scores normalised per topic by
min-max before weighting, a document an input did not retrieve contributes nothing (Borda: the
unranked points ranx gives it), every document of every input read, no cut of the fused list.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import PyevalError, require_choice
from .. import vocabulary
from ..vocabulary import names

#: Methods whose contribution is a function of the score (normalised as the recipe says).
SCORE_METHODS = ("combsum", "wsum", "combmnz", "combgmnz", "combanz", "combmax", "combmin", "combmed")
#: Methods whose contribution is a function of the rank in the input (scores are not read).
RANK_METHODS = ("rrf", "isr", "log-isr", "logn-isr", "borda", "rbp")
METHODS = SCORE_METHODS + RANK_METHODS
#: Other spellings (ranx's fusion_switch names, trectools' combos strategies).
METHOD_ALIASES = {"sum": "combsum", "mnz": "combmnz", "anz": "combanz", "max": "combmax", "min": "combmin",
                  "med": "combmed", "log_isr": "log-isr", "bordafuse": "borda", "weighted-sum": "wsum",
                  "gmnz": "combgmnz", "logn_isr": "logn-isr", "rbc": "rbp", "w_bordafuse": "borda"}
NORMS = ("none", "min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
NORM_ALIASES = {"min_max": "min-max", "min_max_inverted": "min-max-inverted", "z-score": "zmuv", "zscore": "zmuv",
                "z": "zmuv"}
NORM_STAGES = names(vocabulary.NORM_STAGES)
ABSENT = names(vocabulary.ABSENT_SCORES)
INPUT_ORDERINGS = ("trec", "trec-asc", "rank", "file")
TIE_ORDERS = names(vocabulary.TIE_ORDERS)


@dataclass(frozen=True)
class Recipe:
    """How a fused run is made from stored runs of one campaign (docs/fusion.md).

    method: combsum, wsum (combsum with weights), combmnz, combgmnz, combanz, combmax, combmin,
    combmed, rrf, isr, log-isr, logn-isr, borda or rbp (ranx's rbc). weights: one per run
    (default 1 each; wsum needs them). norm: none, min-max, min-max-inverted, max, sum, zmuv
    (z-score), rank or borda (ranx's; absent then defaults to shared), per input and topic. norm_stage:
    normalise the scores 'before' weighting them (ranx) or the weighted scores 'after'. absent:
    what a document an input did not retrieve contributes: none, zero, min (the input's lowest
    contribution for the topic) or shared (borda: ranx's unranked points); default none (borda:
    shared). k: RRF's constant; p: RBP fusion's persistence (RBC's phi); gamma: CombGMNZ's
    exponent; sigma: logn-isr's smoothing. input_depth: ranks read from each
    input; output_depth: ranks kept in the fused list (None: all). input_ordering: how each
    input is ranked (trec, trec-asc, rank, file; ranked_entries). tie_order: docno-desc
    (trec_eval's order) or docno-asc (trectools) among equal fused scores.
    """

    method: str
    runs: tuple[str, ...]
    weights: tuple[float, ...] | None = None
    norm: str = "min-max"
    norm_stage: str = "before"
    absent: str | None = None
    k: float = 60.0
    p: float = 0.8
    gamma: float = 1.0
    sigma: float = 0.01
    input_depth: int | None = None
    output_depth: int | None = None
    input_ordering: str = "trec"
    tie_order: str = "docno-desc"

    def checked(self) -> Recipe:
        """The recipe with aliases resolved and the default ``absent`` chosen; PyevalError (one
        line) for anything that is not a recipe."""
        method = METHOD_ALIASES.get(self.method, self.method)
        require_choice("fusion method", method, METHODS)
        runs = tuple(self.runs)
        if len(runs) < 2:
            raise PyevalError(f"fusion needs at least two runs; got {len(runs)}")
        repeated = sorted({run for run in runs if runs.count(run) > 1})
        if repeated:
            raise PyevalError(f"run {repeated[0]!r} is given twice")
        norm = NORM_ALIASES.get(self.norm, self.norm)
        require_choice("normalisation", norm, NORMS)
        require_choice("normalisation stage", self.norm_stage, NORM_STAGES)
        borda_norm = norm == "borda" and method in SCORE_METHODS
        absent = self.absent if self.absent is not None else ("shared" if method == "borda" or borda_norm else "none")
        require_choice("absent-document rule", absent, ABSENT)
        if absent == "shared" and method != "borda" and not borda_norm:
            raise PyevalError("absent 'shared' (ranx's unranked points) is the rule of Borda fusion and of the "
                              "borda normalisation only")
        require_choice("input ordering", self.input_ordering, INPUT_ORDERINGS)
        require_choice("tie order", self.tie_order, TIE_ORDERS)
        weights = self.weights
        if weights is not None:
            weights = check_weights(weights, len(runs))
        elif method == "wsum":
            raise PyevalError("wsum needs weights, one per run")
        check_k(self.k)
        check_p(self.p)
        if not isinstance(self.gamma, (int, float)) or not math.isfinite(self.gamma) or self.gamma < 0:
            raise PyevalError(f"CombGMNZ's gamma must be a finite number >= 0; got {self.gamma}")
        if not isinstance(self.sigma, (int, float)) or not 0 <= self.sigma <= 1:
            raise PyevalError(f"logn-isr's sigma must be between 0 and 1; got {self.sigma}")
        for label, depth in (("input depth", self.input_depth), ("output depth", self.output_depth)):
            if depth is not None and (int(depth) != depth or depth < 1):
                raise PyevalError(f"{label} must be a positive integer; got {depth}")
        return dataclasses.replace(self, method=method, runs=runs, weights=weights, norm=norm, absent=absent,
                                   k=float(self.k), p=float(self.p), gamma=float(self.gamma),
                                   sigma=float(self.sigma))

    def weight_list(self) -> tuple[float, ...]:
        return self.weights if self.weights is not None else (1.0,) * len(self.runs)

    def parameters(self) -> dict:
        """Every convention of the recipe (runs aside), as stored in run_derivations.parameters."""
        values = dataclasses.asdict(self)
        values.pop("runs")
        values["weights"] = list(self.weight_list())
        return values

    def describe(self) -> str:
        """``rrf(k=60) of bm25, dense``: what the source_file of a fused run says."""
        extra = {"rrf": f"k={self.k:g}", "rbp": f"p={self.p:g}", "logn-isr": f"sigma={self.sigma:g}"}.get(self.method)
        if self.method in SCORE_METHODS:
            extra = f"norm={self.norm}" + (f", gamma={self.gamma:g}" if self.method == "combgmnz" else "")
        return f"fusion {self.method}({extra or ''}) of {', '.join(self.runs)}"

    @classmethod
    def from_parameters(cls, runs: Sequence[str], parameters: dict) -> Recipe:
        known = {field.name for field in dataclasses.fields(cls)}
        values = {key: value for key, value in parameters.items() if key in known}
        if values.get("weights") is not None:
            values["weights"] = tuple(values["weights"])
        return cls(runs=tuple(runs), **values)


def check_weights(weights: Sequence[float], runs: int) -> tuple[float, ...]:
    """``weights`` as floats: one per run, each a finite number >= 0, not all 0 (a negative
    weight would rank an input's best documents last; all 0 leaves nothing to rank by)."""
    weights = tuple(float(w) for w in weights)
    if len(weights) != runs:
        raise PyevalError(f"{len(weights)} weights for {runs} runs: give one weight per run")
    if not all(math.isfinite(w) and w >= 0 for w in weights):
        raise PyevalError(f"weights must be finite numbers >= 0; got {', '.join(f'{w:g}' for w in weights)}")
    if not any(weights):
        raise PyevalError("weights are all 0: at least one run must weigh more than 0")
    return weights


def check_k(k: float) -> None:
    if not isinstance(k, (int, float)) or not math.isfinite(k) or k <= 0:
        raise PyevalError(f"RRF's k must be a positive number; got {k}")


def check_p(p: float) -> None:
    if not isinstance(p, (int, float)) or not 0 < p < 1:
        raise PyevalError(f"RBP's p must be between 0 and 1; got {p}")
