"""The TREC Web track's ndeval family: alpha-(n)DCG, (n)ERR-IA, (n)NRBP, AP-IA, P-IA, subtopic recall.

Computed by a Python driver (pyeval/drivers/ndeval.py: numpy over the ranked lists and the
per-intent judgments) rather than a SQL file: alpha-nDCG's ideal list is ndeval's greedy
approximation, which is a loop. Definitions: docs/diversity-measures.md section 7
and docs/ndeval.md. Canonical names are ir_measures'; ndeval's CSV spellings are aliases.

A name of ndeval's gives ndeval's number by default: ``probs=ndeval`` and the run read in its rank
column's order (``ordering='rank'`` of the declaration; an evaluation's explicit ordering
overrides it). Every measure binarises per-intent judgments at ``rel`` (ndeval: judgment > 0).
``probs`` chooses the intent weights: ``given`` uses the campaign's Pr(i|q) for a topic that has rows in
``intents`` and ndeval's uniform 1/N otherwise; a stored variant's name (view intent_weights)
likewise; ``ndeval`` always uses 1/N (N = intents with a relevant document), which is ndeval's
computation on any campaign. ``ndeval_quirks`` keeps
ndeval's two quirks (alpha-DCG@1 and ERR-IA@1 not normalised; nNRBP NaN on a topic without a
relevant document); by default @1 is normalised like every other cutoff and nNRBP is 0 there.
"""
from __future__ import annotations

from .base import MAX_RANK, MeasureDef, Param
from .common import JUDGED_ONLY
from .registry import register

NDEVAL = "ndeval 4.5 (TREC Web track, C. Clarke et al.); ir_measures {}"

REL = Param("rel", int, 1, "minimum per-intent level counted as relevant (ndeval: judgment > 0)", minimum=1)
ALPHA = Param("alpha", float, 0.5, "redundancy penalty: each earlier document relevant to an intent "
              "multiplies its gain by 1 - alpha (ndeval -alpha)", minimum=0, maximum=1)
BETA = Param("beta", float, 0.5, "patience of NRBP: rank r weighs beta^(r-1) (ndeval -beta)", minimum=0,
             maximum=1)
PROBS = Param("probs", str, "ndeval",
              "intent weights: ndeval (always 1/N over the N intents with a relevant document: ndeval's "
              "own values, the default), given (the campaign's Pr(i|q) for a topic that has intents, else "
              "1/N as ndeval) or the name of a stored probability variant (pyeval intents generate|load)",
              normalise=lambda value: _identifier(value))
QUIRKS = Param("ndeval_quirks", bool, False,
               "True: ndeval's own values where it deviates (@1 not normalised; nNRBP NaN on a "
               "topic without relevant documents)")
CUTOFF = Param("cutoff", int, None, "rank cutoff (any k >= 1; ndeval prints 5, 10, 20)", minimum=1,
               maximum=MAX_RANK,
               required=True)


def _identifier(value: str) -> str:
    if not value.isidentifier():
        raise ValueError(f"probs must be given, ndeval or a probability variant's name; got {value!r}")
    return value


def _ndeval(name, description, reference, params, *, at=True, aliases=()):
    return MeasureDef(
        name, "ndeval", description, NDEVAL.format(reference),
        params=(*params, CUTOFF) if at else params, at="cutoff" if at else None,
        aliases=aliases, ordering="rank",  # ndeval reads the run by its rank column
    )


register(
    _ndeval("alpha_DCG", "novelty-biased DCG: sum over r <= k of g(r)/log2(r+1), g(r) = sum over "
            "intents of w_i J_i(r)(1-alpha)^C_i(r); over the same sum for the ideal-ideal list "
            "(every document relevant to every intent)", "alpha_DCG",
            (REL, ALPHA, PROBS, QUIRKS, JUDGED_ONLY), aliases=("alpha-DCG",)),
    _ndeval("alpha_nDCG", "alpha-DCG@k over the alpha-DCG@k of ndeval's greedy ideal list "
            "(0 when the run's alpha-DCG@k is 0)", "alpha_nDCG (Clarke et al., SIGIR 2008)",
            (REL, ALPHA, PROBS, JUDGED_ONLY), aliases=("alpha-nDCG", "α_nDCG")),
    _ndeval("ERR_IA", "intent-aware ERR: sum over r <= k of g(r)/r over the same sum for the "
            "ideal-ideal list", "ERR_IA (Chapelle et al., CIKM 2009)",
            (REL, ALPHA, PROBS, QUIRKS, JUDGED_ONLY)),
    _ndeval("nERR_IA", "ERR-IA@k over the ERR-IA@k of the greedy ideal list (0 when the run's "
            "alpha-DCG@k is 0)", "nERR_IA", (REL, ALPHA, PROBS, JUDGED_ONLY)),
    _ndeval("NRBP", "novelty- and rank-biased precision over the whole list: "
            "(1-(1-alpha)beta) sum over r of beta^(r-1) g(r) (g weighted 1/N or Pr(i|q))",
            "NRBP (Clarke et al., ICTIR 2009)", (REL, ALPHA, BETA, PROBS), at=False),
    _ndeval("nNRBP", "NRBP over the NRBP of the greedy ideal list", "nNRBP",
            (REL, ALPHA, BETA, PROBS, QUIRKS), at=False),
    _ndeval("AP_IA", "intent-aware average precision over the whole list: sum over intents with a "
            "relevant document of w_i AP_i (ndeval MAP-IA)", "AP_IA", (REL, PROBS, JUDGED_ONLY), at=False,
            aliases=("MAP-IA", "MAP_IA")),
    _ndeval("P_IA", "intent-aware precision: sum over r <= k and intents of w_i J_i(r), over k "
            "(short lists padded)", "P_IA", (REL, PROBS, JUDGED_ONLY), aliases=("P-IA",)),
    _ndeval("StRecall", "subtopic recall: intents with a relevant document in the top k over the "
            "intents with a relevant document (unweighted)", "StRecall (Zhai et al., SIGIR 2003)",
            (REL,), aliases=("strec",)),
)
