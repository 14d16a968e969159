"""Sakai & Dou's U-measure over a trailtext, and its diversity versions D-U and U-IA.

Computed by a Python driver (pyeval/drivers/umeasure.py) from the ranked lists, the judgments
and the campaign's document lengths. The user reads a ``snippet``-character snippet at every
rank and ``F`` of the full text of each relevant document; a relevant document's gain counts at
the end of the text read for it, decayed by max(0, 1 - pos/L). Definitions and the readings of
the points the paper leaves open: docs/diversity-measures.md section 9 and
docs/measures.md ("U-measure family").
"""
from __future__ import annotations

from .base import INTEGER_MAX, MAX_RANK, NTCIREVAL_ORDERING, MeasureDef, Param
from .registry import register

SEED = "Sakai & Dou, SIGIR 2013 (U-measure); Sakai, AIRS 2013 (D-U, U-IA)"

MISSING_CHOICES = ("error", "zero", "mean", "median")


def missing_length(value: str) -> str:
    """'error', 'zero', 'mean', 'median', or a non-negative integer number of characters."""
    if value in MISSING_CHOICES or (value.isascii() and value.isdigit()):
        return value if not value.isdigit() else str(int(value))
    raise ValueError(f"missing_length must be one of {', '.join(MISSING_CHOICES)} or a number of "
                     f"characters such as '5000'; got {value!r}")


SNIPPET = Param("snippet", int, 200, "characters read per rank (the snippet)", minimum=0,
                maximum=INTEGER_MAX)
FRACTION = Param("F", float, 0.2, "fraction of a relevant document's full text that is read", minimum=0,
                 maximum=1)
DECAY = Param("L", int, 132000, "characters after which information is worthless: "
              "D(pos) = max(0, 1 - pos/L)", minimum=1, maximum=INTEGER_MAX)
GAINS = Param("gains", str, "exp_scaled",
              "gain of level x: exp_scaled (2^x - 1)/2^H, exp 2^x - 1, linear x",
              choices=("exp_scaled", "exp", "linear"))
HIGHEST = Param("H", int, None, "highest level for exp_scaled; none: the campaign's highest level",
                minimum=1, maximum=1023)
MISSING = Param("missing_length", str, "error",
                "length of a read document without a row in document_lengths: error (names the "
                "documents), zero, mean or median of the campaign's lengths, or a number such as '5000'",
                normalise=missing_length)
PROBS = Param("probs", str, "given",
              "intent weights: given (the campaign's Pr(i|q) when the topic has intents, else 1/n over "
              "the n intents its qrels list) or the name of a stored probability variant (pyeval intents)",
              normalise=lambda value: _identifier(value))
CUTOFF = Param("cutoff", int, 10, "measurement depth l: the user examines the top l documents", minimum=1,
               maximum=MAX_RANK)


def _identifier(value: str) -> str:
    if not value.isidentifier():
        raise ValueError(f"probs must be given or a probability variant's name; got {value!r}")
    return value


COMMON = (SNIPPET, FRACTION, DECAY, GAINS, HIGHEST, MISSING)

register(
    MeasureDef("U", "umeasure",
               "U-measure of an ad hoc ranked list: sum over relevant d_r, r <= l, of gv(x) "
               "max(0, 1 - pos(r)/L), pos(r) = snippet*r + F * (lengths of the relevant documents "
               "in the top r); needs ad hoc qrels", SEED, params=(*COMMON, CUTOFF), at="cutoff",
               maximum=None, ordering=NTCIREVAL_ORDERING),
    MeasureDef("D_U", "umeasure",
               "D-U: one trailtext reading every document relevant to some intent; the gain at its "
               "end is the global gain sum over i of Pr(i|q) gv(x_i)", SEED,
               params=(*COMMON, PROBS, CUTOFF), at="cutoff", aliases=("D-U",), maximum=None,
               ordering=NTCIREVAL_ORDERING),
    MeasureDef("U_IA", "umeasure",
               "U-IA: sum over intents of Pr(i|q) U_i, U_i on intent i's own trailtext (only "
               "documents relevant to i are read)", SEED,
               params=(*COMMON, PROBS, CUTOFF), at="cutoff", aliases=("U-IA",), maximum=None,
               ordering=NTCIREVAL_ORDERING),
)
