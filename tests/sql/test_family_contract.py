"""Every metric family's SQL uses exactly the parameters its measures declare.

Like aiosql's declared-parameter check: the family SQL reads its parameters as columns of
``requested_measures``; it must run with the declared columns and fail without any one of them.
Each file also opens with a header naming itself and its reference. Families computed by a
Python driver (registry.register_driver: ndeval, umeasure) have no SQL file; their driver is checked.
"""
from __future__ import annotations

import duckdb
import pytest

import pyeval
from pyeval import sqlfiles, stages
from pyeval.loaders.prefs import stage_preferences
from pyeval.measures import definitions, make, registry

from ..conftest import FIXTURES

#: Families computed by sql/metrics/metric_<family>.sql; the others have a Python driver
#: (registry.register_driver) and are checked by test_every_python_family_has_a_driver.
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
    settings = stages.stage_settings("t", ["r"], [], ordering="trec", max_depth=None, judged_only=False,
                                     topics="qrels")
    stages.run_stages(con, stages.ADHOC_STAGING, {**settings, "profiles": ["linear"]})
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
    assert {"evaluation_pairs", "requested_measures"} <= set(model.reads)
    prose = [line for line in sqlfiles.read(model.path).splitlines() if line.startswith("--")]
    assert any(line.startswith(f"-- metric_{family}:") for line in prose)
    assert any("Reference" in line for line in prose)
