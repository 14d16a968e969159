"""The C/W/L family of cwl_eval: INST, INSQ, BPM (static and dynamic), SDCG, NERR8-NERR11.
Computed by sql/metrics/metric_cwl.sql (the continuation probabilities C(i) in its header).

Names and parameters are ir_measures' (its cwl_eval provider): a document's gain is its level
scaled from ``min_rel``..``max_rel`` to 0..1; ``cutoff`` is BPM's cost bound K and the depth k of
SDCG, NERR8 and NERR9. ``expected`` chooses which of cwl_eval's five printed quantities is the
value: expected utility per item (the default, ir_measures' value), expected total utility,
expected cost per item, expected total cost, or the expected number of items examined.
The run is read in file order, as cwl_eval reads it (cwl_eval.py adds each line's document to
its topic's ranking and ignores the rank and score columns: ``ordering='file'`` of the
declarations; an evaluation's explicit ordering overrides it).
"""
from __future__ import annotations

from .base import MAX_RANK, MeasureDef, Param
from .registry import register

CWL = "cwl_eval 1.0.12 (Azzopardi, Thomas & Moffat, SIGIR 2019) {}; ir_measures {}"

MIN_REL = Param("min_rel", int, 0, "level scaled to gain 0 (lower levels count as it)", minimum=0)
MAX_REL = Param("max_rel", int, None, "level scaled to gain 1 (higher levels count as it); none: the "
                "campaign's highest level", minimum=1)
EXPECTED = Param("expected", str, "utility",
                 "which cwl_eval quantity: utility (EU, per item), total_utility (ETU), cost (EC, per "
                 "item), total_cost (ETC), items (EI, the expected depth)",
                 choices=("utility", "total_utility", "cost", "total_cost", "items"))
T = Param("T", float, 1.0, "the total gain the user wants", minimum=0, open_minimum=True, maximum=1e6)
REQUIRED_K = Param("cutoff", int, None, "depth k: the user stops after rank k", minimum=1, maximum=MAX_RANK,
                   required=True)
K = Param("cutoff", int, 10, "cost bound K: the user examines fewer than K documents", minimum=1,
          maximum=MAX_RANK)


def _levels(values) -> str | None:
    if values["max_rel"] is not None and values["max_rel"] <= values["min_rel"]:
        return "min_rel must be less than max_rel"
    return None


def _cwl(name, description, reference, params, *, at=None):
    return MeasureDef(name, "cwl", description, reference, params=(*params, MIN_REL, MAX_REL, EXPECTED),
                      at=at, check=_levels, ordering="file")  # cwl_eval reads the run's lines in file order


register(
    _cwl("INST", "INST: the user wants T gain; C(i) = ((i + T + T_i - 1)/(i + T + T_i))^2, T_i = T - cg(i)",
         CWL.format("INST (Moffat et al., ADCS 2015; TOIS 2017)", "INST"), (T,)),
    _cwl("INSQ", "INSQ: C(i) = ((i + 2T - 1)/(i + 2T))^2", CWL.format("INSQ (Moffat et al., TOIS 2017)", "INSQ"),
         (T,)),
    _cwl("BPM", "static Bejewelled Player Model: the user goes on while the gain so far is below T and "
         "fewer than K documents are read", CWL.format("BPM-Static (Zhang et al., SIGIR 2017)", "BPM"),
         (T, K), at="cutoff"),
    _cwl("BPMDynamic", "dynamic BPM: as BPM, with T moved by hb (g(i) - gain_med) after each rank "
         "(cwl_eval moves only T)", CWL.format("BPM-Dynamic (Zhang et al., SIGIR 2017)", "(none)"),
         (T, Param("hb", float, 1.0, "how much a document's gain above gain_med raises T"),
          Param("gain_med", float, 0.5, "the median gain (rel_med)", minimum=0, maximum=1), K), at="cutoff"),
    _cwl("SDCG", "scaled DCG: C(i) = log(i + 1)/log(i + 2) for i < k (DCG@k's weights summing to 1)",
         CWL.format("NDCG-k (Jarvelin & Kekalainen, TOIS 2002)", "SDCG"), (REQUIRED_K,), at="cutoff"),
    _cwl("NERR8", "not-but-nearly ERR, equation 8: C(i) = 1 - g(i) for i < k",
         CWL.format("NERR-EQ8 (Azzopardi, Mackenzie & Moffat, ICTIR 2021)", "NERR8"), (REQUIRED_K,), at="cutoff"),
    _cwl("NERR9", "not-but-nearly ERR, equation 9: C(i) = i/(i + 1) (1 - g(i)) for i < k",
         CWL.format("NERR-EQ9 (Azzopardi, Mackenzie & Moffat, ICTIR 2021)", "NERR9"), (REQUIRED_K,), at="cutoff"),
    _cwl("NERR10", "not-but-nearly ERR, equation 10: C(i) = p (1 - g(i))",
         CWL.format("NERR-EQ10 (Azzopardi, Mackenzie & Moffat, ICTIR 2021)", "NERR10"),
         (Param("p", float, 0.9, "patience phi", minimum=0, maximum=1),)),
    _cwl("NERR11", "not-but-nearly ERR, equation 11: C(i) = ((i + 2T - 1)/(i + 2T))^2 (1 - g(i))",
         CWL.format("NERR-EQ11 (Azzopardi, Mackenzie & Moffat, ICTIR 2021)", "NERR11"), (T,)),
)
