"""Oracle helpers for the ndeval family: pyndeval (ndeval.c in a Python binding) on the same lists.

pyndeval orders each topic by score descending, then docno **ascending** (docs/input-files.md section 4),
neither ndeval's rank column nor its -traditional rule. To compare one pyeval ordering with it,
the run is handed to pyndeval with score = -(rank under that ordering), so both see the same
list. pyndeval numbers subtopics by first appearance in the qrels it is given; the qrels are
handed over sorted by numeric subtopic so that its order of additions is ndeval's (and
pyeval's), which only matters when alpha != 0.5.
"""
from __future__ import annotations

import math

import pandas as pd

CUTOFF_MEASURES = ["ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "P-IA", "strec"]
CANONICAL = {"ERR-IA": "ERR_IA", "nERR-IA": "nERR_IA", "alpha-DCG": "alpha_DCG", "alpha-nDCG": "alpha_nDCG",
             "P-IA": "P_IA", "strec": "StRecall", "NRBP": "NRBP", "nNRBP": "nNRBP", "MAP-IA": "AP_IA"}
QUIRKY = {"ERR-IA", "alpha-DCG", "nNRBP"}  # measures whose ndeval values need ndeval_quirks=True


def measure_pairs(cutoffs=range(1, 21), alpha=0.5, beta=0.5) -> list[tuple[str, str]]:
    """(pyndeval name, pyeval measure in ndeval mode) for every measure at every cutoff."""
    pairs = []
    for name in [f"{m}@{k}" for m in CUTOFF_MEASURES for k in cutoffs] + ["NRBP", "nNRBP", "MAP-IA"]:
        base, _, cutoff = name.partition("@")
        params = {"probs": "ndeval"} if base != "strec" else {}
        if base in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "NRBP", "nNRBP"):
            params["alpha"] = alpha
        if base in ("NRBP", "nNRBP"):
            params["beta"] = beta
        if base in QUIRKY:
            params["ndeval_quirks"] = True
        text = CANONICAL[base] + "(" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")"
        pairs.append((name, text + (f"@{cutoff}" if cutoff else "")))
    return pairs


def pyndeval_values(qrels: pd.DataFrame, ranked: pd.DataFrame, names, alpha=0.5, beta=0.5) -> dict:
    """pyndeval's values {(topic, name): value}: ``qrels`` has topic, subtopic, doc_id, level
    (subtopics numeric strings), ``ranked`` topic, doc_id, rank (the order to evaluate)."""
    import pyndeval

    qrels = qrels.assign(order=qrels["subtopic"].astype(int)).sort_values(["order", "topic", "doc_id"])
    judgments = [(str(t), str(s), str(d), int(level)) for t, s, d, level in
                 qrels[["topic", "subtopic", "doc_id", "level"]].itertuples(index=False)]
    ranked = ranked.sort_values(["topic", "rank"])
    run = [(str(t), str(d), -float(r)) for t, d, r in ranked[["topic", "doc_id", "rank"]].itertuples(index=False)]
    result = pyndeval.ndeval(judgments, run, measures=list(names), alpha=alpha, beta=beta)
    return {(topic, name): value for topic, values in result.items() for name, value in values.items()}


def same(a: float, b: float) -> bool:
    """Equal doubles (NaN equal to NaN)."""
    return a == b or (math.isnan(a) and math.isnan(b))
