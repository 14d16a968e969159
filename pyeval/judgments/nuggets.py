"""Nugget assignment sets as judgment sets: what :func:`pyeval.judgments.compare` compares when
the sets assign nuggets to answers (docs/rag.md "Agreement").

An assignment set is a judgment set (judgment_sets) whose rows are in nugget_assignments, all
of one nugget bank. Its labels are ordered levels, not_support 0, partial_support 1, support 2
(sql/judgments/nugget_label_confusion.sql), so the label coefficients of
pyeval/judgments/agreement.py apply unchanged over the units (run, topic, nugget) both sets
label: binary kappa at threshold 2 is support against the rest, linear and quadratic weighted
kappa and Krippendorff's ordinal alpha read the three ordered labels. Score and ranking
agreement (pyeval/judgments/ranking.py) reads the stored scores of a nugget measure under each
set, as for qrels; two sets over different banks (two nugget banks assigned to the same
answers) share no label unit and are compared by their scores.
"""
from __future__ import annotations

from collections.abc import Sequence

import duckdb

from ..errors import PyevalError

#: The level of each label in the confusion counts (sql/judgments/nugget_label_confusion.sql)
LEVELS = {"not_support": 0, "partial_support": 1, "support": 2}
#: The threshold a comparison of assignment sets reports by default: support against the rest
SUPPORT_THRESHOLD = LEVELS["support"]
QRELS_CONFUSION = "judgments/label_confusion.sql"
NUGGET_CONFUSION = "judgments/nugget_label_confusion.sql"


def banks(con: duckdb.DuckDBPyConnection, campaign_id: str, sets: Sequence[str]) -> dict[str, str]:
    """The nugget bank of each of ``sets`` that is an assignment set (the others are left out)."""
    return dict(con.execute(
        "select judgment_set, min(bank) from nugget_assignments where campaign_id = $c and list_contains($s, "
        "judgment_set) group by judgment_set", {"c": campaign_id, "s": list(sets)}).fetchall())


def confusion_file(con: duckdb.DuckDBPyConnection, campaign_id: str, reference: str, candidate: str) -> str:
    """The SQL file of the two sets' confusion counts: of qrels, or of nugget assignments when
    both are assignment sets; PyevalError when one is and the other is not."""
    found = banks(con, campaign_id, [reference, candidate])
    if not found:
        return QRELS_CONFUSION
    if len(found) == 2:
        return NUGGET_CONFUSION
    assigning, other = (reference, candidate) if reference in found else (candidate, reference)
    raise PyevalError(f"judgment set '{assigning}' of campaign '{campaign_id}' assigns nuggets and '{other}' "
                      "does not: compare assignment sets with assignment sets, qrels with qrels")


def default_threshold(con: duckdb.DuckDBPyConnection, campaign_id: str, reference: str) -> int:
    """The binary threshold summaries show: 2 (support against the rest) for an assignment set,
    1 (relevant: level >= 1) for qrels."""
    return SUPPORT_THRESHOLD if banks(con, campaign_id, [reference]) else 1
