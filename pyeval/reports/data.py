"""What the per-run reports show, read from the warehouse once for every run: one query per
kind of data (sql/reports/: the runs' metadata, every run's means with the campaign's median,
best and rank, every run's per-topic values of the main measure with each topic's median and
best), the score matrix of the main measure (pyeval/resampling/matrix.py) and one significance
test over every pair of runs (pyeval/resampling/significance.py). Conventions: docs/reports.md.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb

from pyeval.core import sqlfiles
from pyeval.core.db import check_judgment_set, default_judgment_set
from ..errors import PyevalError, require_choice, with_command_line
from ..measures import parse_measures
from ..resampling.matrix import campaign_runs, canonical_measure, score_matrix
from ..resampling.significance import TESTS, test_matrix
from ..vocabulary import CORRECTIONS, names, significance_test

#: The main measure when none is given: the per-topic bars and the significance tests read it.
DEFAULT_MAIN_MEASURE = "AP"
#: The interpolated precision-recall curve: trec_eval's 11 recall levels (iprec_at_recall).
CURVE_MEASURES = tuple(f"IPrec@{level / 10:.1f}" for level in range(11))
#: The default significance test behind each page's comparisons (vocabulary.SIGNIFICANCE_TESTS).
DEFAULT_TEST = "t"
DEFAULT_CORRECTION = "holm"


@dataclass(frozen=True)
class MeasureRow:
    """One run's mean of one measure (run_means_by_set) with the campaign's median and best and
    the run's rank (the leaderboard's position among ``ranked_runs``)."""

    measure: str
    value: float | None
    median: float | None
    best: float | None
    position: int | None
    ranked_runs: int
    higher_is_better: bool | None
    topics: int
    evaluation_id: int


@dataclass(frozen=True)
class TopicRow:
    """One run's stored value of the main measure on one topic, the topic's median and best."""

    topic_id: str
    value: float | None
    median: float | None
    best: float | None


@dataclass(frozen=True)
class Comparison:
    """The run against one other run on the main measure: the test's mean difference (run minus
    other, over the score matrix's topics), p-value, adjusted p-value and verdict."""

    other: str
    mean_diff: float
    pvalue: float
    p_adjusted: float
    verdict: str  # 'better', 'worse' or 'not significant' ('different' for a measure without a direction)


@dataclass
class RunData:
    """Everything one run's page shows."""

    run_id: str
    metadata: dict
    measures: dict[str, MeasureRow] = field(default_factory=dict)
    topics: list[TopicRow] = field(default_factory=list)
    comparisons: list[Comparison] = field(default_factory=list)


@dataclass
class Significance:
    """The test behind the pages' comparisons: its name, label, correction, alpha, B and seed,
    the runs and topics it read and how many matrix cells were filled with 0."""

    test: str
    label: str
    correction: str
    alpha: float
    replicates: int | None
    seed: int | None
    runs: int
    topics: int
    filled: int


@dataclass
class CampaignData:
    """A campaign's runs as its reports show them: ``runs`` in leaderboard order of the main
    measure (every run of the campaign), ``pages`` the runs that get a page, ``measures`` the
    measures of the tables, ``evaluated`` the measures evaluated on demand (and the evaluation
    that stored them)."""

    campaign_id: str
    judgment_set: str
    main_measure: str
    measures: list[str]
    runs: dict[str, RunData]
    pages: list[str]
    significance: Significance | None
    evaluated: list[str]
    evaluation_id: int | None

    @property
    def order(self) -> list[str]:
        """Every run, best first on the main measure (the leaderboard's position; ties by name)."""
        def key(run_id: str):
            row = self.runs[run_id].measures.get(self.main_measure)
            position = row.position if row is not None and row.position is not None else math.inf
            return position, run_id
        return sorted(self.runs, key=key)

    def curve(self, run_id: str) -> list[tuple[float, float | None, float | None]]:
        """(recall level, the run's interpolated precision, the campaign's median) for the 11 levels."""
        rows = self.runs[run_id].measures
        return [(level / 10, rows[name].value if name in rows else None, rows[name].median if name in rows else None)
                for level, name in enumerate(CURVE_MEASURES)]


def _number(value) -> float | None:
    """A stored value as a float, None for NULL and NaN (undefined)."""
    if value is None:
        return None
    number = float(value)
    return None if math.isnan(number) else number


@default_judgment_set()
def collect(con: duckdb.DuckDBPyConnection, campaign_id: str, *, runs: Sequence[str] | None = None,
            measures: Sequence[str] | None = None, judgment_set: str | None = None, test: str = DEFAULT_TEST,
            correction: str = DEFAULT_CORRECTION, alpha: float = 0.05, evaluate_missing: bool = True,
            seed: int = 0) -> CampaignData:
    """Read what the reports of ``campaign_id``'s runs show (pages for ``runs``, default every
    run; the campaign's median, best, ranks and tests always over every run). ``measures``: the
    measures of the tables (default every measure stored for the campaign under
    ``judgment_set``), the first the main one (default AP). Measures (and the curve's
    ``IPrec@x``) that some run lacks are evaluated and stored when ``evaluate_missing``
    (:func:`pyeval.evaluate`), else refused naming the command that stores them."""
    require_choice("test", test, TESTS)
    require_choice("correction", correction, names(CORRECTIONS))
    if not 0 < alpha < 1:
        raise PyevalError(f"alpha must be between 0 and 1; got {alpha}")
    known = campaign_runs(con, campaign_id)  # an unknown campaign is an error here
    check_judgment_set(con, campaign_id, judgment_set)
    if not known:
        raise PyevalError(f"campaign '{campaign_id}' has no runs; load some with `pyeval load run`")
    pages = list(dict.fromkeys(runs)) if runs else list(known)
    unknown = [r for r in pages if r not in known]
    if unknown:
        raise PyevalError(f"campaign '{campaign_id}' has no run named {', '.join(map(repr, unknown))}")
    wanted = list(dict.fromkeys(canonical_measure(m) for m in measures)) if measures else None
    text = [m for m in wanted or () if not parse_measures(m)[0].definition.storable]
    if text:
        raise PyevalError(f"{', '.join(text)}: values are text, not numbers; a report shows numeric measures")
    main = wanted[0] if wanted else DEFAULT_MAIN_MEASURE
    needed = list(dict.fromkeys([*(wanted or [main]), *CURVE_MEASURES]))
    means = _means(con, campaign_id, judgment_set)
    missing = [m for m in needed if any((run_id, m) not in means for run_id in known)]
    evaluation_id = None
    if missing:
        if not evaluate_missing:
            listed = " ".join(f"-m '{m}'" for m in missing)
            option = "" if judgment_set == "official" else f" --judgments {judgment_set}"
            raise with_command_line(
                PyevalError(f"campaign '{campaign_id}' has no stored means of {', '.join(missing)} for every run; "
                            "evaluate them first (pyeval.evaluate) or let the report evaluate them"),
                f"campaign '{campaign_id}' has no stored means of {', '.join(missing)} for every run; run "
                f"`pyeval evaluate -C {campaign_id} {listed}{option}` first, or drop --no-store")
        from pyeval.core.evaluation import evaluate

        evaluation_id = evaluate(con, campaign_id, missing, judgment_set=judgment_set).evaluation_id
        means = _means(con, campaign_id, judgment_set)
    if wanted is None:
        stored = sorted({m for _, m in means} - set(CURVE_MEASURES), key=lambda m: (m != main, m.lower(), m))
        wanted = stored
    data = {run_id: RunData(run_id, metadata) for run_id, metadata in _metadata(con, campaign_id).items()}
    for (run_id, measure), row in means.items():
        if run_id in data and (measure in wanted or measure in CURVE_MEASURES):
            data[run_id].measures[measure] = row
    higher_is_better = next((row.higher_is_better for (_, m), row in means.items() if m == main), None)
    for run_id, topic_id, value, median, best in con.execute(
            sqlfiles.read("reports/report_topics.sql"),
            {"campaign_id": campaign_id, "judgment_set": judgment_set, "measure": main}).fetchall():
        if run_id in data:
            data[run_id].topics.append(TopicRow(topic_id, _number(value), _number(median), _number(best)))
    significance = _compare(con, campaign_id, main, judgment_set, higher_is_better, data, test, correction,
                            alpha, seed) if len(known) > 1 else None
    return CampaignData(campaign_id, judgment_set, main, wanted, data, pages, significance, missing, evaluation_id)


def _means(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str) -> dict[tuple[str, str], MeasureRow]:
    """(run, measure) -> its row of sql/reports/report_means.sql, for every stored measure."""
    rows = con.execute(sqlfiles.read("reports/report_means.sql"),
                       {"campaign_id": campaign_id, "judgment_set": judgment_set, "measures": None}).fetchall()
    return {(run_id, measure): MeasureRow(measure, _number(value), _number(median), _number(best),
                                          position if higher_is_better is not None else None, ranked_runs,
                                          higher_is_better, topics, evaluation_id)
            for run_id, measure, value, position, ranked_runs, higher_is_better, topics, evaluation_id, median, best
            in rows}


def _metadata(con: duckdb.DuckDBPyConnection, campaign_id: str) -> dict[str, dict]:
    """run -> its metadata (sql/reports/report_runs.sql), by column."""
    cursor = con.execute(sqlfiles.read("reports/report_runs.sql"), {"campaign_id": campaign_id})
    columns = [d[0] for d in cursor.description]
    return {row[0]: dict(zip(columns[1:], row[1:])) for row in cursor.fetchall()}


def _compare(con, campaign_id: str, measure: str, judgment_set: str, higher_is_better: bool | None,
             data: dict[str, RunData], test: str, correction: str, alpha: float, seed: int) -> Significance:
    """Test every pair of the campaign's runs on ``measure`` (its score matrix: missing cells 0,
    docs/meta-evaluation.md 0) and give each run its comparisons; nothing is stored."""
    matrix = score_matrix(con, campaign_id, measure, None, judgment_set)
    result = test_matrix(matrix, test, alpha=alpha, correction=correction, seed=seed, store_replicates=False)
    for row in result.pairs.itertuples(index=False):
        for run, other, sign in ((row.run_a, row.run_b, 1.0), (row.run_b, row.run_a, -1.0)):
            if run not in data:
                continue
            difference = sign * float(row.mean_diff)
            if not row.significant:
                verdict = "not significant"
            elif higher_is_better is None:
                verdict = "different"
            else:
                verdict = "better" if (difference > 0) == higher_is_better else "worse"
            data[run].comparisons.append(Comparison(other, difference, float(row.pvalue), float(row.p_adjusted),
                                                    verdict))
    traits = significance_test(test)
    return Significance(test, traits.label, result.correction, alpha, result.replicates, result.seed,
                        len(matrix.run_ids), len(matrix.topic_ids), matrix.filled)
