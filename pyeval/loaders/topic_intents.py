"""Intents from a TREC Web track topics XML (``<topic number=".."><subtopic number=".."
type="inf|nav">``): the subtopics as a campaign's intents, with generated probabilities (the file
has none), or only their types for intents loaded from an Iprob/DINprob file.

Probabilities: uniform 1/n, or non-uniform 2^(n-j+1) / sum_k 2^k for the j-th of n intents
(Sakai & Song, SIGIR 2011; docs/diversity-measures.md section 1.2).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from pyeval.core.db import first_row, transaction
from ..errors import InputFormatError, PyevalError
from . import staging
from .intents import intent_lines, load_intents

if TYPE_CHECKING:  # pandas and numpy are imported where used: loading runs and qrels needs neither
    import numpy as np
    import pandas as pd

#: How probabilities are generated for intents that have none.
METHODS = ("uniform", "nonuniform")


def intent_order(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows ``topic_id, intent_id, ...`` in intent-number order within each topic (numeric
    when every intent id of the topic is an integer, else byte order)."""
    import pandas as pd

    numeric = pd.to_numeric(frame["intent_id"], errors="coerce")
    keyed = frame.assign(_n=numeric, _s=frame["intent_id"])
    return keyed.sort_values(["topic_id", "_n", "_s"], na_position="last").drop(columns=["_n", "_s"]).reset_index(drop=True)


def intent_probabilities(frame: pd.DataFrame, method: str) -> np.ndarray:
    """Pr(i|q) of each row of ``frame`` (``topic_id``, rows of a topic in intent-number order):
    uniform 1/n, or non-uniform 2^(n-j+1) / sum_{k=1}^{n} 2^k for the j-th of n intents
    (Sakai & Song, SIGIR 2011; docs/diversity-measures.md section 1.2: n = 3 gives 8/14, 4/14, 2/14)."""
    if method not in METHODS:
        raise PyevalError(f"intent probabilities: method must be one of {', '.join(METHODS)}; got {method!r}")
    groups = frame.groupby("topic_id", sort=False)
    n = groups["topic_id"].transform("size").to_numpy()
    j = groups.cumcount().to_numpy() + 1
    if method == "uniform":
        return 1.0 / n
    return 2.0 ** (n - j + 1) / (2.0 ** (n + 1) - 2)  # sum_{k=1}^{n} 2^k = 2^(n+1) - 2


def read_topic_intents(path: str | Path) -> pd.DataFrame:
    """``topic_id, intent_id, intent_type`` of every subtopic of a TREC Web track topics XML
    (``<topic number=".."><subtopic number=".." type="inf|nav">``), in intent-number order; a
    subtopic without a type is informational."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as exc:
        raise InputFormatError(str(path), None, f"cannot read the topics XML: {exc}") from None
    rows = [
        (topic.get("number"), subtopic.get("number"), (subtopic.get("type") or "inf").strip())
        for topic in root.iter("topic")
        for subtopic in topic.iter("subtopic")
    ]
    bad = next((r for r in rows if r[0] is None or r[1] is None or r[2] not in ("inf", "nav")), None)
    if bad is not None:
        raise InputFormatError(str(path), None, f"subtopic {bad[1]!r} of topic {bad[0]!r}: expected a "
                               "number and a type inf or nav")
    import pandas as pd

    frame = pd.DataFrame(rows, columns=["topic_id", "intent_id", "intent_type"])
    return intent_order(frame)


def load_intents_from_topics(con: duckdb.DuckDBPyConnection, campaign_id: str, path: str | Path, *,
                             probs: str = "uniform", replace: bool = False) -> staging.LoadReport:
    """Load a campaign's intents from a TREC topics XML: every subtopic with its type, and
    probabilities generated ``uniform`` or ``nonuniform`` (the file has none)."""
    frame = read_topic_intents(path)
    frame["prob"] = intent_probabilities(frame, probs)
    frame = frame.rename(columns={"topic_id": "query_id"})[["query_id", "intent_id", "prob", "intent_type"]]
    return load_intents(con, campaign_id, intent_lines(frame, path), replace=replace)


def set_intent_types(con: duckdb.DuckDBPyConnection, campaign_id: str, path: str | Path) -> int:
    """Set the types of a campaign's intents from a TREC topics XML (``type="nav"``); returns
    the number of intents whose type the file gives. Probabilities are not touched."""
    frame = read_topic_intents(path)
    with transaction(con):
        staging.require_campaign(con, campaign_id, str(path))
        con.register("topic_types", frame)
        try:
            count = first_row(con, (
                "select count(*) from intents_by_set join topic_types using (topic_id, intent_id) "
                "where intents_by_set.campaign_id = $c"), {"c": campaign_id})[0]
            con.execute(
                "update intents_by_set set intent_type = topic_types.intent_type from topic_types "
                "where intents_by_set.campaign_id = $c and intents_by_set.topic_id = topic_types.topic_id "
                "and intents_by_set.intent_id = topic_types.intent_id",
                {"c": campaign_id},
            )
        finally:
            con.unregister("topic_types")
    return count
