"""Run relations (``run_relations``, ``run_snapshots``) and ir-metadata documents
(``run_metadata``): what `pyeval relate` records (docs/reproducibility.md section 1)."""
from __future__ import annotations

import datetime
import hashlib
import json
from pathlib import Path

import duckdb

from pyeval.core.db import check_judgment_set, first_row, transaction
from ..errors import PyevalError
from .scores import require_runs

#: ``run_relations.relation``: the same experiment on the same collection (reproducibility) or on
#: another collection (replicability), as repro_eval's RpdEvaluator and RplEvaluator.
RELATIONS = ("reproduces", "replicates")

#: The sections of the ir_metadata schema (ir-metadata.org) a run's document may hold; others are
#: kept too (LongEval's files add ``method``).
IR_METADATA_SECTIONS = ("tag", "actor", "research goal", "platform", "implementation", "method", "data")


def record_relation(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str, relation: str,
                    original_run_id: str, *, original_campaign_id: str | None = None,
                    provenance: str | None = None) -> None:
    """Record that ``run_id`` of ``campaign_id`` ``relation`` (reproduces, replicates) the run
    ``original_run_id`` of ``original_campaign_id`` (default: the same campaign); recorded again,
    the relation is replaced."""
    if relation not in RELATIONS:
        raise PyevalError(f"relation must be one of {', '.join(RELATIONS)}; got {relation!r}")
    original_campaign_id = original_campaign_id or campaign_id
    require_runs(con, campaign_id, [run_id])
    require_runs(con, original_campaign_id, [original_run_id])
    if (campaign_id, run_id) == (original_campaign_id, original_run_id):
        raise PyevalError(f"run '{run_id}' cannot {relation[:-1]} itself")
    with transaction(con):
        con.execute(
            "insert or replace into run_relations (campaign_id, run_id, relation, original_campaign_id, "
            "original_run_id, provenance) values ($c, $r, $relation, $oc, $or, $provenance)",
            {"c": campaign_id, "r": run_id, "relation": relation, "oc": original_campaign_id,
             "or": original_run_id, "provenance": provenance})


def record_snapshot(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str, system: str, snapshot: str, *,
                    snapshot_date: datetime.date | None = None, judgment_set: str | None = None,
                    pivot_run_id: str | None = None, provenance: str | None = None) -> None:
    """Record that ``run_id`` is ``system`` at ``snapshot`` of the longitudinal campaign
    ``campaign_id``, that snapshot's qrels being ``judgment_set`` (None: the campaign's default
    set) and ``pivot_run_id`` the pivot system's run at that snapshot; recorded again, replaced."""
    for what, value in (("system", system), ("snapshot", snapshot)):
        if not value or not value.strip():
            raise PyevalError(f"the {what} of a snapshot run must not be empty")
    require_runs(con, campaign_id, [run_id] + ([pivot_run_id] if pivot_run_id else []))
    if judgment_set is not None:
        check_judgment_set(con, campaign_id, judgment_set)
    clash = first_row(con, "select run_id from run_snapshots where campaign_id = $c and system = $s "
                      "and snapshot = $snap and run_id <> $r",
                      {"c": campaign_id, "s": system, "snap": snapshot, "r": run_id})
    if clash:
        raise PyevalError(f"campaign '{campaign_id}': system '{system}' already has run '{clash[0]}' at snapshot "
                          f"'{snapshot}'")
    with transaction(con):
        con.execute("delete from run_snapshots where campaign_id = $c and run_id = $r", {"c": campaign_id, "r": run_id})
        con.execute(
            "insert into run_snapshots (campaign_id, run_id, system, snapshot, snapshot_date, "
            "judgment_set, pivot_run_id, provenance) values ($c, $r, $system, $snapshot, $date, $set, $pivot, "
            "$provenance)",
            {"c": campaign_id, "r": run_id, "system": system, "snapshot": snapshot, "date": snapshot_date,
             "set": judgment_set, "pivot": pivot_run_id, "provenance": provenance})


def read_ir_metadata(path: str | Path) -> dict:
    """An ir-metadata YAML file as a mapping; a one-line error naming the file (and line) when it
    is missing, not YAML or not a mapping of the ir_metadata sections."""
    import yaml

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PyevalError(f"{path}: cannot read the ir-metadata file ({exc.__class__.__name__})") from None
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise PyevalError(f"{path}{where}: not an ir-metadata file ({problem})") from None
    if not isinstance(document, dict) or not any(key in document for key in IR_METADATA_SECTIONS):
        raise PyevalError(f"{path}: not an ir-metadata file (a YAML mapping with sections such as "
                          f"{', '.join(IR_METADATA_SECTIONS[:4])})")
    return document


def _text(document: dict, *keys: str) -> str | None:
    """``document[keys[0]][keys[1]]...`` as text, or None when absent, empty or not a scalar."""
    value = document
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    return text or None


def load_ir_metadata(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str, path: str | Path) -> dict:
    """Store the ir-metadata document ``path`` of a stored run (``run_metadata``, as JSON) and set
    the run's typed columns from it: ``runs.team`` from ``actor.team`` and ``runs.system`` from
    ``tag`` (LongEval's reading). Returns ``{"team", "system"}`` as read (None when absent)."""
    from ..loaders import RunMetadata, annotate_run

    document = read_ir_metadata(path)
    require_runs(con, campaign_id, [run_id])
    data = Path(path).read_bytes()
    typed = {"team": _text(document, "actor", "team"), "system": _text(document, "tag")}
    with transaction(con):
        con.execute(
            "insert or replace into run_metadata (campaign_id, run_id, document, source_file, source_sha256) "
            "values ($c, $r, $document, $file, $sha)",
            {"c": campaign_id, "r": run_id, "document": json.dumps(document, default=str, sort_keys=True),
             "file": str(Path(path).resolve()), "sha": hashlib.sha256(data).hexdigest()})
        annotate_run(con, campaign_id, run_id, RunMetadata(system=typed["system"], team=typed["team"]))
    return typed


def recorded_reproduction(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str,
                          rep_campaign_id: str | None = None) -> tuple[str, str, str]:
    """The run recorded (``run_relations``) as reproducing or replicating ``run_id`` of
    ``campaign_id``, in ``rep_campaign_id`` when given: ``(campaign, run, relation)``; a one-line
    error when there is none or more than one."""
    rows = con.execute(
        "select campaign_id, run_id, relation from run_relations where original_campaign_id = $c "
        "and original_run_id = $r and ($rc is null or campaign_id = $rc) order by campaign_id, run_id",
        {"c": campaign_id, "r": run_id, "rc": rep_campaign_id}).fetchall()
    if len(rows) != 1:
        found = "no run" if not rows else f"{len(rows)} runs ({', '.join(f'{c}/{r}' for c, r, _ in rows)})"
        raise PyevalError(f"{found} recorded as reproducing run '{run_id}' of campaign '{campaign_id}'"
                          + (f" in campaign '{rep_campaign_id}'" if rep_campaign_id else "")
                          + "; name the reproduction or record one: pyeval relate RUN --reproduces ORIGINAL")
    return rows[0]
