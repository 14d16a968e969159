"""Loading relevance judgments: TREC, TREC diversity, NTCIR and NTCIR diversity qrels.

Formats and conventions: docs/input-files.md sections 2, 5 and 6 (summarised in
docs/loading.md). Ad hoc judgments are stored with ``intent_id = ''``.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from .. import vocabulary
from ..vocabulary import names
from pyeval.core.db import first_row, transaction
from pyeval.core import sqlfiles
from ..errors import InputFormatError, already_stored, require_printable
from . import columnar, judgment_sets, staging
from .judgment_sets import DEFAULT_SET, SetProvenance
from .source import Lines, StagedFile, frame_lines, in_memory_frame, pick_column

if TYPE_CHECKING:
    import pandas as pd

#: The fields of a TREC qrels line as the fast path reads them (sql/loaders/qrels_fast_rows.sql).
TREC_QRELS_FIELDS = ("topic_id", "iter", "doc_id", "level_text")

#: The formats whose files may take the fast path: 4 whitespace-separated fields.
_FAST_FORMATS = ("auto", "trec", "trec-diversity")


def read(
    sources: Sequence[staging.Source], format: str, relations: staging.TemporaryRelations
) -> list[Lines | StagedFile]:
    """Qrels inputs: the TREC qrels files that fit the fast path staged by DuckDB in one scan,
    the others as raw lines."""
    if format in _FAST_FORMATS:
        return relations.read_all(sources, _frame_lines, (TREC_QRELS_FIELDS, "qrels_fast_rows", "staged_qrels_files"),
                                  columnar_kind=columnar.QRELS)
    given = next((s for s in sources if not isinstance(s, (Lines, StagedFile)) and columnar.is_columnar(s)), None)
    if given is not None:
        raise InputFormatError(columnar.ARROW_LABEL if columnar.is_arrow(given) else str(given), None,
                               f"Parquet and Arrow qrels hold integer relevance, in no {format} layout: load them "
                               f"with format {', '.join(_FAST_FORMATS)}")
    return relations.read_all(sources, _frame_lines)


def read_one(
    source: staging.Source, format: str, relations: staging.TemporaryRelations
) -> Lines | StagedFile:
    """One qrels input, as :func:`read` reads it."""
    return read([source], format, relations)[0]


def _trec_flavour(second_field_values: int) -> str:
    """TREC ad hoc qrels carry a constant iteration in their second field; TREC diversity
    qrels the subtopic, which varies."""
    return "trec" if second_field_values == 1 else "trec-diversity"


@dataclass(frozen=True)
class QrelsLayout:
    """Where each value sits on a line of one qrels format (1-based fields)."""

    field_count: int
    topic_field: int
    intent_field: int  # 0: ad hoc, no intent
    doc_field: int
    level_field: int
    level_prefix: str  # '' (integer) or 'L' (NTCIR L<k>)
    field_names: str
    kind: str  # 'adhoc' or 'diversity'

    @property
    def level_form(self) -> str:
        return "of the form L<k>" if self.level_prefix == "L" else "an integer"


QRELS_LAYOUTS: dict[str, QrelsLayout] = {
    "trec": QrelsLayout(4, 1, 0, 3, 4, "", "topic iter docno level", "adhoc"),
    "trec-diversity": QrelsLayout(4, 1, 2, 3, 4, "", "topic subtopic docno level", "diversity"),
    "ntcir": QrelsLayout(3, 1, 0, 2, 3, "L", "topic docno L<k>", "adhoc"),
    "ntcir-diversity": QrelsLayout(4, 1, 2, 3, 4, "L", "topic intent docno L<k>", "diversity"),
}
QRELS_FORMATS = names(vocabulary.QRELS_FORMATS)  # "auto" and every layout (tests/test_vocabulary.py)

_NTCIR_LEVEL = re.compile(r"L[0-9]+")


def _frame_lines(frame: pd.DataFrame) -> Lines:
    """ir_measures / ir_datasets columns (query_id, doc_id, relevance[, iteration]),
    PyTerrier's (qid, docno, label), ranx's (q_id, doc_id, score) or the warehouse's own
    (topic_id, doc_id, level[, intent_id]): columnar.QRELS_COLUMNS; ``iteration`` (or
    ``subtopic_id``, ``intent_id``) holds the intent."""
    topic, doc, level, intent = (pick_column(frame, c.names, c.what, c.required) for c in columnar.QRELS_COLUMNS)
    return frame_lines(frame, [topic, "0" if intent is None else intent, doc, level])


def _detect_format(con: duckdb.DuckDBPyConnection, lines: Lines) -> str:
    """NTCIR by its L<k> levels; TREC diversity when the second field varies (a frame's
    ``iteration`` column plays the second field)."""
    line_number, field_count, last_field, second_values = first_row(con, 
        sqlfiles.read("loaders/qrels_format_evidence.sql")
    )
    if _NTCIR_LEVEL.fullmatch(last_field or ""):
        if field_count == 3:
            return "ntcir"
        if field_count == 4:
            return "ntcir-diversity"
    if field_count == 4:
        return _trec_flavour(second_values)
    looks_like = ("; 6 fields is a run's line (topic Q0 docno rank score tag): is this a run file?"
                  if field_count == 6 else "")
    raise InputFormatError(
        lines.label,
        int(line_number),
        f"cannot tell the qrels format from a line of {field_count} fields; "
        f"give the format ({', '.join(QRELS_LAYOUTS)}){looks_like}",
    )


def load_qrels(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    source: staging.Source | Sequence[staging.Source],
    *,
    format: str = "auto",
    replace: bool = False,
    description: str | None = None,
    judgment_set: str = DEFAULT_SET,
    provenance: SetProvenance | None = None,
    on_stored: Callable[[duckdb.DuckDBPyConnection], object] | None = None,
) -> staging.LoadReport:
    """Load a qrels file (or DataFrame) into ``campaign_id``, creating the campaign if needed.

    Parameters
    ----------
    con
        An open warehouse (:func:`pyeval.connect`).
    campaign_id
        The campaign (test collection) the judgments belong to.
    source
        A path (``.gz`` accepted) or a DataFrame with ``query_id, doc_id, relevance`` and,
        for diversity qrels, ``iteration`` (the subtopic, as ir_measures); a Parquet file, a
        Parquet folder or an Arrow table with those columns (ranx's ``q_id, doc_id, score``
        too: :data:`columnar.QRELS_COLUMNS`, docs/loading.md); a ranx ``Qrels``, a mapping
        ``{query_id: {doc_id: relevance}}`` or ir_datasets' qrels (``dataset.qrels_iter()``,
        records with ``query_id, doc_id, relevance[, iteration]``): :func:`in_memory_frame`;
        or a list of them (folders and
        glob patterns too), whose judgments together are the campaign's qrels: read in one
        scan, of one format, and no judgment in two of them.
    format
        ``auto`` (default: NTCIR by its ``L<k>`` levels; TREC diversity when the second
        field varies), ``trec``, ``trec-diversity``, ``ntcir`` or ``ntcir-diversity``.
    replace
        Replace the campaign's qrels (of this judgment set) instead of refusing to load them twice.
    judgment_set
        The named judgment set the file is (docs/judgments.md): ``official`` (default) makes or
        replaces the campaign's qrels; another name adds a set to a campaign that has its
        official qrels, of the same kind, judging only the campaign's topics.
    provenance
        Who made the set (kind human, llm, merged or derived; judge; guideline or prompt sha256;
        description); default kind ``human``.
    on_stored
        Called with ``con`` after the judgments are stored, inside the load's transaction (the
        files are read before it opens): what it writes is kept with them, or nothing is
        (``pyeval load qrels --from-pool`` links the set to its pool so).

    Raises
    ------
    InputFormatError
        A bad line (wrong field count, non-integer level, duplicate judgment, a relevant
        judgment for an intent the campaign's intents do not list), naming file and line;
        files of different formats.
    DataIntegrityError
        The campaign already has qrels and ``replace`` is false.
    """
    if format not in QRELS_FORMATS:
        raise ValueError(f"format must be one of {', '.join(QRELS_FORMATS)}; got {format!r}")
    judgment_sets.check_name(judgment_set)
    provenance = provenance or SetProvenance(description=None if judgment_set == DEFAULT_SET else description)
    judgment_sets.check_provenance(provenance)
    sources = staging.input_list(in_memory_frame(source, "relevance"), "qrels")
    with staging.TemporaryRelations(con) as relations:
        inputs = read(sources, format, relations)
        with transaction(con):
            chosen = check(con, relations, campaign_id, inputs, format, judgment_set)
            report = store(con, campaign_id, inputs, chosen, replace, description, judgment_set, provenance)
            if on_stored is not None:
                on_stored(con)
            return report


def check(
    con: duckdb.DuckDBPyConnection,
    relations: staging.TemporaryRelations,
    campaign_id: str,
    inputs: list[Lines | StagedFile],
    format: str,
    judgment_set: str = DEFAULT_SET,
) -> str:
    """The loaders' protocol (read -> check -> store), step 2: stage and check each qrels input
    :func:`read` gave (its own lines' problems, then judgments given by two of them:
    InputFormatError naming file and line); returns the format they are in. Several inputs are
    gathered in ``qrels_batch`` (sql/loaders/batch_repeats.sql checks them)."""
    formats: list[str] = []

    def stage_one(lines: Lines | StagedFile) -> None:
        if lines.typed:
            chosen = _stage_fast_rows(con, relations, lines, format)
        else:
            chosen = _stage_general_rows(con, lines, format)
        if formats and chosen != formats[0]:
            raise InputFormatError(lines.label, None, f"its format is {chosen}, and {inputs[0].label}'s "
                                   f"is {formats[0]}; load files of one format together (or give --format)")
        formats.append(chosen)
        layout = QRELS_LAYOUTS[chosen]
        staging.raise_first_problem(
            con,
            lines.label,
            "qrels_problems",
            {
                "field_count": layout.field_count,
                "layout": layout.field_names,
                "level_form": layout.level_form,
                "campaign_id": campaign_id,
                "judgment_set": judgment_set,
            },
        )

    staging.stage_each(
        con, relations, inputs, stage_one, "qrels_input",
        "select file_index, line_number, row(topic_id, intent_id, doc_id) as batch_key, null as batch_value "
        "from qrels_batch where not is_blank",
        "judgment given already by",
    )
    return formats[0]


def store(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    inputs: list[Lines | StagedFile],
    chosen: str,
    replace: bool,
    description: str | None,
    judgment_set: str = DEFAULT_SET,
    provenance: SetProvenance | None = None,
) -> staging.LoadReport:
    """The loaders' protocol, step 3: store the union of the inputs :func:`check` staged (in
    format ``chosen``) as ``judgment_set`` of ``campaign_id``, inside the caller's transaction."""
    layout = QRELS_LAYOUTS[chosen]
    label = staging.batch_label(inputs)
    if judgment_set == DEFAULT_SET:
        _store(con, campaign_id, layout.kind, chosen, replace, description, label)
    else:
        _store_other_set(con, campaign_id, judgment_set, layout.kind, replace, label)
    con.execute(sqlfiles.read("loaders/qrels_insert.sql"), {"campaign_id": campaign_id, "judgment_set": judgment_set})
    rows, topics = first_row(con,
        "select count(*), count(distinct topic_id) from qrels_input where not is_blank"
    )
    source = staging.combined_provenance(inputs)
    staging.record_input(con, campaign_id, "qrels", source, rows, judgment_set)
    judgment_sets.record_set(con, campaign_id, judgment_set, provenance or SetProvenance(),
                             source.source_file, source.sha256)
    notes = [f"format {chosen}"]
    if judgment_set == DEFAULT_SET:
        staging.refresh_topics(con, campaign_id)
    else:
        notes.append(f"judgment set {judgment_set}")
    return staging.LoadReport(
        "qrels", campaign_id, source.source_file, source.sha256, rows, topics, notes=notes
    )


def _store_other_set(con, campaign_id: str, judgment_set: str, kind: str, replace: bool, label: str) -> None:
    """Make room for a judgment set other than the official one (pyeval/loaders/judgment_sets.py
    checks it belongs to the campaign)."""
    judgment_sets.check_new_set(con, campaign_id, judgment_set, kind, label, "qrels_input")
    keys = {"c": campaign_id, "s": judgment_set}
    if first_row(con, "select count(*) from qrels_by_set where campaign_id = $c and judgment_set = $s", keys)[0]:
        if not replace:
            raise already_stored(f"{label}: campaign '{campaign_id}' already has judgment set '{judgment_set}'",
                                 them=True)
        con.execute("delete from qrels_by_set where campaign_id = $c and judgment_set = $s", keys)


def _stage_general_rows(con: duckdb.DuckDBPyConnection, lines: Lines, format: str) -> str:
    """Stage the lines of a qrels file or frame as ``qrels_input`` (sql/loaders/qrels_rows.sql);
    return its format (auto: :func:`_detect_format`)."""
    separator = staging.detect_separator(lines)
    staging.stage_lines(con, lines, separator=separator, comments=True, skip_blank=False)
    chosen = _detect_format(con, lines) if format == "auto" else format
    layout = QRELS_LAYOUTS[chosen]
    staging.stage_rows(
        con,
        "qrels_input",
        "qrels_rows",
        {
            "topic_field": layout.topic_field,
            "intent_field": layout.intent_field,
            "doc_field": layout.doc_field,
            "level_field": layout.level_field,
            "level_prefix": layout.level_prefix,
            "intent_zero_is_none": chosen == "ntcir-diversity",
        },
    )
    return chosen


def _stage_fast_rows(
    con: duckdb.DuckDBPyConnection, relations: staging.TemporaryRelations, staged: StagedFile, format: str
) -> str:
    """Stage a fast-path TREC qrels file as ``qrels_input``; return its format (auto: TREC
    diversity when the second field varies, as :func:`_detect_format` decides on the general
    path; an NTCIR file never fits the fast path, its L<k> levels are not integers)."""
    relations.expose(staged)
    if format == "auto":
        format = _trec_flavour(first_row(con, sqlfiles.read("loaders/qrels_fast_second_field.sql"))[0])
    intent_field = QRELS_LAYOUTS[format].intent_field
    staging.stage_rows(con, "qrels_input", "qrels_fast_input", {"intent_field": intent_field})
    return format


def _store(con, campaign_id, kind, chosen, replace, description, label) -> None:
    existing = first_row(con, 
        "select (select count(*) from qrels_by_set where campaign_id = $c and judgment_set = 'official'), "
        "(select count(*) from campaigns where campaign_id = $c)",
        {"c": campaign_id},
    )
    if existing[0] and not replace:
        raise already_stored(f"{label}: campaign '{campaign_id}' already has qrels", them=True)
    con.execute("delete from qrels_by_set where campaign_id = $c and judgment_set = 'official'", {"c": campaign_id})
    # Scores computed against the replaced judgments stay in the archive; the view scores hides
    # them when the new qrels differ (sql/views/stale_results.sql).
    if existing[1]:
        con.execute(
            "update campaigns set qrels_kind = $kind, qrels_format = $format, "
            "description = coalesce($description, description) where campaign_id = $c",
            {"c": campaign_id, "kind": kind, "format": chosen, "description": description},
        )
    else:  # the door every load that creates a campaign goes through (load qrels, load campaign)
        require_printable("campaign name", campaign_id)
        con.execute(
            "insert into campaigns (campaign_id, description, qrels_kind, qrels_format) "
            "values ($c, $description, $kind, $format)",
            {"c": campaign_id, "kind": kind, "format": chosen, "description": description},
        )
