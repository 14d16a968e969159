"""Campaign tools for diversity evaluation (Sakai & Song, SIGIR 2011; issue 5):

* intent probability variants: a campaign keeps the probabilities it was loaded with (``given``)
  and any number of named variants (table intent_variants), loaded from an Iprob/DINprob file or
  generated uniform (1/n) or non-uniform (the j-th of n intents gets 2^(n-j+1)/sum_k 2^k);
  measures choose one with ``probs=`` (``D_nDCG(probs=nonuniform)@10``);
* intent types (``inf``/``nav``) from a DINprob 4th field (the intents loader) or from a TREC
  topics XML (``<subtopic number=".." type="nav">``);
* "2T" conversions: a traditional (ad hoc) campaign made from a diversity one, by the maximum
  level across intents or by the number of intents a document covers, stored as a new campaign
  whose ``source_campaign_id`` names its source (with the source's runs and document lengths).
Definitions: docs/diversity-measures.md sections 1.2 and 10.
"""
from __future__ import annotations

import hashlib
import json
import re

import duckdb
import pandas as pd

from pyeval.core import sqlfiles
from pyeval.core.db import first_row, transaction, unknown_campaign
from ..errors import DataIntegrityError, InputFormatError, PyevalError, already_stored, require_choice, require_printable
from ..loaders import intents as intent_loader
from ..loaders import judgment_sets, staging
from ..loaders.topic_intents import intent_order, intent_probabilities

TRADITIONAL_METHODS = ("max", "count")
NEGATIVE_AS = ("unjudged", "nonrelevant")
_VARIANT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _variant_iv(con, campaign_id: str, variant: str, replace: bool) -> None:
    if not _VARIANT_NAME.fullmatch(variant) or variant == "given":
        raise PyevalError(f"a probability variant needs a name made of letters, digits and '_', other than "
                          f"'given' (the intents as loaded); got {variant!r}")
    if first_row(con, "select count(*) from campaigns where campaign_id = $c", {"c": campaign_id})[0] == 0:
        raise unknown_campaign(con, campaign_id)
    exists = first_row(con, "select count(*) from intent_variants where campaign_id = $c and variant = $v",
                       {"c": campaign_id, "v": variant})[0]
    if exists and not replace:
        raise already_stored(f"campaign '{campaign_id}' has a probability variant '{variant}' already")


def _store_variant(con, campaign_id: str, variant: str, frame: pd.DataFrame, label: str) -> int:
    con.register("new_variant", frame[["topic_id", "intent_id", "probability"]])
    try:
        unknown = first_row(con, sqlfiles.read("diversity/intent_variant_problems.sql"), {"campaign_id": campaign_id})
        if unknown is not None:
            raise InputFormatError(label, None, f"intent '{unknown[1]}' of topic '{unknown[0]}' is not an intent "
                                   f"of campaign '{campaign_id}' (load the intents first)")
        keys = {"c": campaign_id, "v": variant}
        con.execute("delete from intent_variants where campaign_id = $c and variant = $v", keys)
        con.execute(
            "insert into intent_variants (campaign_id, variant, topic_id, intent_id, probability) "
            "select $c, $v, topic_id, intent_id, probability from new_variant", keys,
        )
    finally:
        con.unregister("new_variant")
    return len(frame)


def generate_intent_variant(con: duckdb.DuckDBPyConnection, campaign_id: str, variant: str, method: str, *,
                            replace: bool = False) -> int:
    """Store probabilities ``method`` ('uniform' or 'nonuniform') of the campaign's listed
    intents as the variant ``variant``; returns the rows stored."""
    intent_probabilities(pd.DataFrame({"topic_id": []}), method)  # checks the method
    with transaction(con):
        _variant_iv(con, campaign_id, variant, replace)
        frame = con.execute("select topic_id, intent_id from intents_by_set where campaign_id = $c and judgment_set = 'official'",
                            {"c": campaign_id}).df()
        if frame.empty:
            raise DataIntegrityError(f"campaign '{campaign_id}' has no intents to give probabilities to")
        frame = intent_order(frame)
        frame["probability"] = intent_probabilities(frame, method)
        return _store_variant(con, campaign_id, variant, frame, f"{method} probabilities")


def load_intent_variant(con: duckdb.DuckDBPyConnection, campaign_id: str, variant: str, source: staging.Source, *,
                        replace: bool = False) -> int:
    """Store the probabilities of an Iprob/DINprob file (or a frame ``query_id, intent_id,
    prob``) as the variant ``variant``; the file's types, if any, are ignored (a variant
    changes probabilities only). Returns the rows stored."""
    lines = staging.lines_of(source, intent_loader._frame_lines)
    with transaction(con):
        _variant_iv(con, campaign_id, variant, replace)
        separator = staging.detect_separator(lines)
        staging.stage_lines(con, lines, separator=separator, comments=True, skip_blank=False)
        staging.stage_rows(con, "intent_input", "intent_rows", {})
        staging.raise_first_problem(con, lines.label, "intent_problems")
        frame = con.execute("select topic_id, intent_id, probability from intent_input where not is_blank").df()
        staging.drop_staging(con, "intent_input")
        return _store_variant(con, campaign_id, variant, frame, lines.label)


def to_traditional(con: duckdb.DuckDBPyConnection, source: str, target: str, *, method: str = "max",
                   negative_as: str = "unjudged", description: str | None = None) -> int:
    """Store the "2T" conversion of diversity campaign ``source`` as the new ad hoc campaign
    ``target`` (``campaigns.source_campaign_id`` = source; ``campaign_derivations`` the method), with a
    copy of the source's runs, run tags and document lengths; returns the judgments stored.

    method: ``max`` (the highest level over the intents, TR09DIV+gr2T) or ``count`` (the number
    of intents the document is relevant to, TR09DIV2T); negative_as: a document judged negative
    (spam) for all its intents keeps that level (``unjudged``) or gets 0 (``nonrelevant``).
    """
    require_choice("method", method, TRADITIONAL_METHODS)
    require_choice("negative_as", negative_as, NEGATIVE_AS)
    require_printable("campaign name", target)
    with transaction(con):
        row = first_row(con, "select qrels_kind from campaigns where campaign_id = $c", {"c": source})
        if row is None:
            raise unknown_campaign(con, source)
        if row[0] != "diversity":
            raise DataIntegrityError(f"campaign '{source}' has no diversity qrels to convert")
        if first_row(con, "select count(*) from campaigns where campaign_id = $c", {"c": target})[0]:
            raise DataIntegrityError(f"campaign '{target}' exists already; choose a new name")
        derivation = f"to_traditional(method={method}, negative_as={negative_as})"
        con.execute(
            "insert into campaigns (campaign_id, description, qrels_kind, qrels_format, source_campaign_id) "
            "values ($t, $d, 'adhoc', null, $s)",
            {"t": target, "s": source, "d": description or f"{source} converted to ad hoc qrels ({method})"},
        )
        con.execute(
            "insert into campaign_derivations (campaign_id, source_campaign_id, derivation, parameters) "
            "values ($t, $s, 'to_traditional', $p)",
            {"t": target, "s": source, "p": json.dumps({"method": method, "negative_as": negative_as})},
        )
        converted = con.execute(sqlfiles.read("diversity/to_traditional.sql"),
                                {"source": source, "method": method, "negative_as": negative_as}).df()
        con.register("converted_qrels", converted)
        try:
            con.execute("insert into qrels_by_set (campaign_id, topic_id, intent_id, doc_id, level) "
                        "select $t, topic_id, '', doc_id, level from converted_qrels", {"t": target})
        finally:
            con.unregister("converted_qrels")
        judgment_sets.record_set(con, target, judgment_sets.DEFAULT_SET, judgment_sets.SetProvenance(
            kind="derived", derivation="to_traditional", parent_sets=(judgment_sets.DEFAULT_SET,),
            parameters={"source_campaign_id": source, "method": method, "negative_as": negative_as}))
        text = "".join(f"{t} 0 {d} {lv}\n" for t, d, lv in converted.sort_values(["topic_id", "doc_id"]).itertuples(index=False))
        con.execute(
            "insert into campaign_inputs (campaign_id, input_kind, source_file, source_sha256, row_count) "
            "values ($t, 'qrels', $file, $sha, $rows)",
            {"t": target, "file": f"<{derivation} of {source}>",
             "sha": hashlib.sha256(text.encode("utf-8")).hexdigest(), "rows": len(converted)},
        )
        for table in ("runs", "run_entries", "run_tags", "document_lengths"):
            # table names are constants; the copies keep every column but the campaign
            con.execute(f"insert into {table} select * replace ($t as campaign_id) from {table} "
                        "where campaign_id = $s", {"t": target, "s": source})
        con.execute(
            "insert into campaign_inputs (campaign_id, input_kind, source_file, source_sha256, row_count) "
            "select $t, input_kind, source_file, source_sha256, row_count from campaign_inputs "
            "where campaign_id = $s and input_kind = 'doclengths'", {"t": target, "s": source},
        )
        staging.refresh_topics(con, target)
    return len(converted)
