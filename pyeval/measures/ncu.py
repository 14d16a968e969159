"""Normalised cumulative utility NCU (Sakai & Robertson, EVIA 2008) as NTCIREVAL computes it.
Computed by sql/metrics/metric_ncu.sql.

NTCIREVAL prints NCUgu,P and NCUgu,BR (190111; removed in 2020), NCUrb,P, NCUrb,BR, and since
2020 NCUrb,IE and NCUrb,*@l. pyeval computes exactly these: NCU(stop='gu', util='IE') and
NCU(stop='gu')@l do not exist in NTCIREVAL and are refused when the name is read.
"""
from __future__ import annotations

from .base import NTCIREVAL_ORDERING, MeasureDef, Param
from .common import CUTOFF, GAIN
from .qmeasure import BETA, NTCIREVAL
from .registry import register, register_alias



def _ntcireval_variant(values: dict) -> str | None:
    """Only the variants NTCIREVAL has: util=IE and cutoffs come with stop=rb."""
    if values["stop"] == "gu" and values["util"] == "IE":
        return "util=IE needs stop=rb (NTCIREVAL has no NCUgu,IE)"
    if values["stop"] == "gu" and values["cutoff"] is not None:
        return "a cutoff needs stop=rb (NTCIREVAL has no NCUgu,*@l)"
    return None


register(
    MeasureDef("NCU", "ncu",
               "normalised cumulative utility: sum over retrieved documents with gain > 0 of "
               "utility U(r) times stop probability; NCU@l (stop=rb only) sums to l and divides by "
               "min(l, R)",
               NTCIREVAL + " (NCUgu,P, NCUgu,BR, NCUrb,P, NCUrb,BR; NCUrb,IE and NCUrb,*@l of the "
               "2020 version); Sakai & Robertson, EVIA 2008",
               params=(
                   Param("stop", str, "rb", "stop distribution: rb rank-biased, gamma^(C(r)-1) over "
                         "sum_k<R gamma^k; gu graded-uniform, the gain of the level over sum_x R_x "
                         "gain_x (NTCIREVAL's default stop values -s = gains)", choices=("rb", "gu")),
                   Param("util", str, "BR", "utility U(r): P precision C(r)/r, BR blended ratio, IE "
                         "u^r (stop=rb only)", choices=("P", "BR", "IE")),
                   Param("gamma", float, 0.95, "rank-biased stop parameter (NTCIREVAL -gamma)",
                         minimum=0, maximum=1),
                   Param("u", float, 0.99, "utility decay of util=IE (NTCIREVAL -rbup)", minimum=0,
                         maximum=1),
                   BETA, GAIN, CUTOFF),
               at="cutoff", check=_ntcireval_variant, ordering=NTCIREVAL_ORDERING),
)

# pyNTCIREVAL's class names (NTCIREVAL prints NCUgu,P ..., not identifiers)
register_alias("NCUguP", "NCU", stop="gu", util="P", source="pyNTCIREVAL")
register_alias("NCUguBR", "NCU", stop="gu", util="BR", source="pyNTCIREVAL")
register_alias("NCUrbP", "NCU", stop="rb", util="P", source="pyNTCIREVAL")
register_alias("NCUrbBR", "NCU", stop="rb", util="BR", source="pyNTCIREVAL")
register_alias("NCUrbIE", "NCU", stop="rb", util="IE", source="pyNTCIREVAL")
