"""Every metric family's SQL uses exactly the parameters its measures declare.

Like aiosql's declared-parameter check: the family SQL reads its parameters as columns of
``requested_measures``; it must run with the declared columns and fail without any one of them.
Each file also opens with a header naming itself and its reference. Families computed by a
Python driver (pyeval/drivers/, registered with pyeval.family_drivers: ndeval, umeasure) have no SQL file; their driver is checked.
"""
from __future__ import annotations

from pyeval.core.request import EvaluationRequest

import re

import duckdb
import pytest

import pyeval
from pyeval.core import sqlfiles
from pyeval.core import stages
from pyeval.core.plan import NUGGET_STAGING
from pyeval.loaders.prefs import stage_preferences
from pyeval.measures import definitions, make, registry

from ..conftest import FIXTURES
from .helpers import store_answers

#: Families computed by sql/metrics/metric_<family>.sql; the others have a Python driver
#: (pyeval/drivers/) and are checked by test_every_python_family_has_a_driver.
FAMILIES = registry.sql_families()
PYTHON_FAMILIES = sorted({d.family for d in definitions()} - set(FAMILIES))


def _measure(definition):
    params = {p.name: (0.5 if p.type is float else 10 if p.type is int else p.default)
              for p in definition.params if p.required}
    return make(definition, **params)


@pytest.fixture(scope="module")
def staged():
    con = pyeval.connect()
    pyeval.load_qrels(con, "t", FIXTURES / "trec_eval" / "qrels.test")
    pyeval.load_run(con, "t", FIXTURES / "trec_eval" / "results.test", name="r")
    settings = EvaluationRequest("t", (), runs=tuple(["r"]), ordering="trec", max_depth=None, judged_only=False,
                                     topics="qrels").stage_parameters()
    store_answers(con, "t", "r", ["301", "302", "303"])  # the measures of generated answers (NUGGET_STAGING)
    stages.run_stages(con, stages.ADHOC_STAGING + NUGGET_STAGING, {**settings, "profiles": ["linear"]})
    # the preferences family reads preference judgments its caller stages (trec_eval -R qrels_prefs)
    stage_preferences(con, FIXTURES / "trec_eval" / "qrels.test", format="qrels_prefs")
    yield con
    con.close()


def test_every_sql_family_has_a_file_and_every_file_a_family():
    files = sorted(p.stem.removeprefix("metric_") for p in (sqlfiles.resource_root("sql") / "metrics").glob("*.sql"))
    assert files == FAMILIES


@pytest.mark.parametrize("family", PYTHON_FAMILIES)
def test_every_python_family_has_a_driver_and_no_sql_file(family):
    assert callable(registry.driver(family))
    assert not (sqlfiles.resource_root("sql") / "metrics" / f"metric_{family}.sql").exists()


@pytest.mark.parametrize("family", FAMILIES)
def test_declared_parameters_are_exactly_the_ones_used(staged, family):
    measures = [_measure(d) for d in definitions() if d.family == family]
    requested = stages.requested_frame(family, measures)
    sql = sqlfiles.read(f"metrics/metric_{family}.sql")
    staged.register("requested_measures", requested)
    result = staged.execute(sql).df()
    assert set(result["measure"]) == {str(m) for m in measures}
    assert len(result) == 3 * len(measures)  # every (run, topic) pair for every measure
    for column in requested.columns.drop(["measure", "kind"]):
        staged.register("requested_measures", requested.drop(columns=[column]))
        with pytest.raises(duckdb.BinderException):
            staged.execute(sql)
    staged.unregister("requested_measures")


@pytest.mark.parametrize("family", FAMILIES)
def test_header_names_the_file_and_its_references(family):
    model = sqlfiles.model(f"metrics/metric_{family}.sql")
    assert model.produces == f"metric_{family}"
    pairs = "evaluation_nugget_pairs" if family == "nuggets" else "evaluation_pairs"  # generated answers
    assert {pairs, "requested_measures"} <= set(model.reads)
    prose = [line for line in sqlfiles.read(model.path).splitlines() if line.startswith("--")]
    assert any(line.startswith(f"-- metric_{family}:") for line in prose)
    assert any("Reference" in line for line in prose)


#: A campaign where every ad hoc measure is defined: graded levels 0-3 and a negative one,
#: topics with relevant, non-relevant and unjudged documents retrieved, and topic 3 judged but
#: not retrieved (its value is the measure's declared empty_value).
_QRELS = [("1", "a", 3), ("1", "b", 0), ("1", "c", 1), ("1", "d", 2), ("1", "e", -1),
          ("2", "a", 1), ("2", "f", 0), ("2", "g", 2), ("3", "z", 1), ("3", "y", 0)]
_RUN = [("1", d, 10.0 - i) for i, d in enumerate("axbcuedv")] + [("2", d, 5.0 - i) for i, d in enumerate("fwag")]


@pytest.fixture(scope="module")
def defined():
    import pandas as pd

    con = pyeval.connect()
    pyeval.load_qrels(con, "d", pd.DataFrame(_QRELS, columns=["query_id", "doc_id", "relevance"]))
    pyeval.load_run(con, "d", pd.DataFrame(_RUN, columns=["query_id", "doc_id", "score"]), name="r")
    store_answers(con, "d", "r", ["1", "2"])
    yield con
    con.close()


def _adhoc_sql_measures():
    return [_measure(d) for d in definitions()
            if d.staging == "adhoc" and registry.driver(d.family) is None and d.storable]


def test_every_declared_measure_has_a_value_and_its_empty_value(defined):
    """No silent NULL: every ad hoc SQL measure has a number on every topic of a campaign where
    it is defined, and a judged topic the run does not retrieve scores the declared
    ``empty_value`` (None: a value of the judgments alone, checked not to depend on the run).
    A family whose ``case kind`` has no branch for a measure ends in an error (below), so a
    NULL here is a formula that fails on data where it is defined."""
    from pyeval.core.evaluation import compute

    measures = _adhoc_sql_measures()
    frame = compute(defined, EvaluationRequest("d", tuple(measures), runs=("r",)))
    assert set(frame["measure"]) == {str(m) for m in measures}
    nulls = sorted(set(frame.loc[frame["value"].isna(), "measure"]))
    assert nulls == [], f"NULL values: {nulls}"
    empty = frame[frame["topic_id"] == "3"].set_index("measure")["value"]
    wrong = {str(m): (empty[str(m)], m.definition.empty_value) for m in measures
             if m.definition.empty_value is not None and empty[str(m)] != pytest.approx(m.definition.empty_value)}
    assert wrong == {}, "empty list values differ from the declarations (value, declared)"
    judgments_only = [str(m) for m in measures if m.definition.empty_value is None]
    assert judgments_only
    other = compute(defined, EvaluationRequest("d", tuple(m for m in measures if m.definition.empty_value is None),
                                               runs=("r",), max_depth=1))
    assert other.set_index(["topic_id", "measure"])["value"].to_dict() == frame[
        frame["measure"].isin(judgments_only)].set_index(["topic_id", "measure"])["value"].to_dict()


@pytest.fixture(scope="module")
def diverse():
    """A diversity campaign: the sample's diversity qrels, uniform intent probabilities, one run."""
    from pyeval import sample

    con = pyeval.connect()
    pyeval.load_qrels(con, "d", sample.path("qrels.diversity.txt.gz"))
    pyeval.load_intents(con, "d", sample.path("intents.uniform.txt"))
    pyeval.load_run(con, "d", sample.run_paths()[0], name="r")
    yield con
    con.close()


#: Matches a family SQL that chooses its formula by kind (``case kind``, ``kind = ...``).
DISPATCH = re.compile(r"case (\w+\.)?kind\b|\bkind (=|in|not in) ")


@pytest.mark.parametrize("family", FAMILIES)
def test_a_kind_without_a_formula_is_an_error_naming_family_and_kind(request, family):
    """Every SQL family, no exception: a declared measure of a kind the family's SQL has no
    formula for is refused in one line naming the family and the kind, never stored as NULL nor
    given another kind's formula; a family whose SQL reads no kind (one formula: Compat, NCU,
    RelString, sharp's gamma I-rec + (1 - gamma) X) gives such a kind its one formula. Per-intent
    families run on a diversity campaign."""
    import dataclasses

    from pyeval.errors import MeasureParamError
    from pyeval.core.evaluation import compute

    declared = [d for d in definitions() if d.family == family]
    staging = "adhoc" if any(d.staging == "adhoc" for d in declared) else declared[0].staging
    con = request.getfixturevalue("defined" if staging in ("adhoc", "answers") else "diverse")
    base = next(d for d in declared if d.staging == staging)
    params = {p.name: (0.5 if p.type is float else 10 if p.type is int else p.default)
              for p in base.params if p.required}
    foo = make(dataclasses.replace(base, name="Foo", kind="Foo", aliases=()), **params)
    if DISPATCH.search(sqlfiles.read(f"metrics/metric_{family}.sql")):
        with pytest.raises(MeasureParamError, match=f"metric_{family}: no formula for measure kind Foo"):
            compute(con, EvaluationRequest("d", (foo,), runs=("r",)))
        return
    columns = ["run_id", "topic_id", "value", "value_text"]
    got = compute(con, EvaluationRequest("d", (foo,), runs=("r",)))[columns]
    expected = compute(con, EvaluationRequest("d", (make(base, **params),), runs=("r",)))[columns]
    assert len(got) and got.equals(expected)