"""A query that names no judgment set reads each campaign's default set (issue 38; migration 0019;
docs/schema.md "Judgment sets: what a query that names none reads").

Every query of README.md, docs/queries.md, docs/bi.md and docs/schema.md, and the demo's closing
query, is run on a
warehouse that holds several judgment sets (a derived stricter set evaluated and tested like the
official one, a second loaded set, a pool's leave-one-group-out sets) and on a copy of it from
which every row of another set was deleted: the official-set answer. The two must agree."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

import pyeval
from pyeval import pools
from pyeval.fusion import fuse
from pyeval.resampling.risk import risk
from pyeval.cli import main
from pyeval.demo import EXAMPLE_QUERY
from pyeval.errors import PyevalError, PyevalWarning
from pyeval.judgments import default_set, derive, list_sets, set_default
from pyeval.query import run_sql

from .conftest import FIXTURES
from .sql.helpers import store_answers

ROOT = Path(__file__).resolve().parents[1]
QUERIES_PAGE = (ROOT / "docs" / "queries.md").read_text(encoding="utf-8")
SETUP = re.search(r"```sh\n(.*?)```", QUERIES_PAGE, re.DOTALL).group(1).splitlines()
MEASURES = ["AP", "nDCG@10", "P@10"]


def page_queries(page: str) -> list[str]:
    """The SQL a page shows: its ```sql blocks that read (select or with) and its inline
    `select ...` spans."""
    text = (ROOT / page).read_text(encoding="utf-8")
    blocks = [block.strip() for block in re.findall(r"```sql\n(.*?)```", text, re.DOTALL)]
    spans = re.findall(r"`(select [^`]+)`", text, re.IGNORECASE)
    found = [q for q in blocks + spans if re.match(r"(--[^\n]*\n)*\s*(select|with)\b", q, re.IGNORECASE)]
    assert found, page
    return found


#: docs/bi.md's chart recipes (Superset, Metabase) as the SQL a BI tool sends for them
BI_CHARTS = [
    "select run_id, versus_baseline, max(value) from leaderboard where measure = 'NumRet(rel=1)' "
    "group by run_id, versus_baseline",
    "select run_id, max(value) from leaderboard where measure = 'AP' group by run_id",
    "select run_id, avg(value) from scores where measure = 'AP' group by run_id",
    "select month, system, max(mean_value) from monthly_means where measure = 'nDCG@10' group by month, system",
    "select * from campaign_overview",
    "select * from topic_overview",
    "select * from qrels",
    "select * from intents",
]


def official_only(path: Path, copy: Path) -> Path:
    """A copy of the warehouse ``path`` (whose campaigns' default set is ``official``) without any
    row of another set: what it would answer had no other set been loaded, derived or evaluated."""
    shutil.copyfile(path, copy)
    con = pyeval.connect(copy)
    tables = [r[0] for r in con.execute(
        "select table_name from duckdb_columns() where column_name = 'judgment_set' and schema_name = 'main' "
        "and database_name = current_database() and table_name in (select table_name from duckdb_tables())"
    ).fetchall()]
    assert {"qrels_by_set", "current_scores", "current_means", "pairwise_tests", "risk_results"} <= set(tables)
    assert con.execute("select distinct default_judgment_set from campaigns").fetchall() == [("official",)]
    for table in tables:  # pyeval's own table names, from the catalogue
        con.execute(f"delete from {table} where judgment_set <> 'official'")
    con.close()
    return copy


def assert_same_answers(path: Path, tmp_path: Path, queries: list[str]) -> int:
    """Each query gives the same rows on the warehouse and on its official-only copy; returns
    how many queries ran."""
    full = pyeval.connect(path, read_only=True)
    assert full.execute("select count(distinct judgment_set) from scores_by_set").fetchone()[0] > 1
    assert full.execute("select count(distinct judgment_set) from qrels_by_set").fetchone()[0] > 1
    alone = pyeval.connect(official_only(path, tmp_path / "official-only.duckdb"), read_only=True)
    try:
        for query in queries:
            expected = run_sql(alone, query).astype(str).values.tolist()
            got = run_sql(full, query).astype(str).values.tolist()
            if re.search(r"\bfrom evaluations\b", query):
                # a list of the stored evaluations: one under another set is another evaluation
                # (evaluations.judgment_set names its set), listed beside the official ones
                assert [row for row in got if row in expected] == expected, query
            elif re.search(r"\border by [^()]*$", query.strip(), re.IGNORECASE):  # ordered: the same order
                assert got == expected, query
            else:
                assert sorted(got) == sorted(expected), query
    finally:
        full.close()
        alone.close()
    return len(queries)


def add_judgment_sets(con, campaign_id: str, qrels_file: Path | None = None) -> None:
    """A loaded set; a stricter set derived from a graded one, evaluated and tested like the
    official one; a pool's leave-one-group-out sets (working sets); a fused run evaluated under
    both sets, and risk under both: every feature that stores rows of a judgment set."""
    graded = "official"
    if qrels_file is not None:
        pyeval.load_qrels(con, campaign_id, qrels_file, judgment_set="second")
        pyeval.evaluate(con, campaign_id, ["AP"], judgment_set="second")
        graded = "second"
    derive(con, campaign_id, "stricter", "binarise", [graded], threshold=2)
    runs = [r[0] for r in con.execute("select run_id from runs where campaign_id = $c order by 1",
                                      {"c": campaign_id}).fetchall()]
    pyeval.evaluate(con, campaign_id, MEASURES, judgment_set="stricter")
    pyeval.compare(con, campaign_id, ["AP"], test="t", judgment_set="stricter")
    pools.build(con, campaign_id, "p10", depth=10, runs=runs)
    pools.leave_out(con, campaign_id, "p10", ["AP"], grouping="run")
    fuse(con, campaign_id, runs[:2], "rrf", name="fused-rrf")
    for judgment_set in (None, "stricter"):
        pyeval.evaluate(con, campaign_id, MEASURES, runs=["fused-rrf"], judgment_set=judgment_set)
        risk(con, campaign_id, ["AP"], [runs[0]], judgments=judgment_set)
    # a run's answers, scored under a nugget assignment (and citation support) set (docs/rag.md)
    topics = [r[0] for r in con.execute("select topic_id from topics where campaign_id = $c order by 1 limit 3",
                                        {"c": campaign_id}).fetchall()]
    con.execute("insert into judgment_sets (campaign_id, judgment_set, kind) values ($c, 'nuggets', 'human')",
                {"c": campaign_id})
    store_answers(con, campaign_id, runs[0], topics, judgment_set="nuggets")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PyevalWarning)  # the runs without answers are not scored
        pyeval.evaluate(con, campaign_id, ["VitalScore", "CitationRecall", "AnswerLength"], judgment_set="nuggets")


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    """docs/queries.md's example warehouse, plus other judgment sets."""
    path = tmp_path_factory.mktemp("sets") / "archive.duckdb"
    runner = CliRunner()
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for line in SETUP:
            words = shlex.split(line)
            result = runner.invoke(main, ["--db", str(path), *words[3:]])
            assert result.exit_code == 0, (line, result.output)
    finally:
        os.chdir(here)
    con = pyeval.connect(path)
    pyeval.compare(con, "web2012", ["AP"], test="t")  # the official set's tests, beside the stricter set's
    add_judgment_sets(con, "web2012")
    add_judgment_sets(con, "trec6", FIXTURES / "trec_eval" / "qrels.rel_level")
    con.close()
    return path


def test_every_query_of_the_queries_page_and_bi_page_reads_the_official_set(archive, tmp_path):
    queries = page_queries("docs/queries.md") + page_queries("docs/bi.md") + BI_CHARTS
    assert assert_same_answers(archive, tmp_path, queries) >= 10 + len(BI_CHARTS)


def test_the_readme_and_demo_queries_read_the_official_set(demo_build, tmp_path):
    """On the demo warehouse (official, stricter and leave-one-run-out sets of web2012-adhoc):
    the README's example query printed P@10 = 2.28 for sim18 and the demo's query 160 wins on 50
    topics before migration 0019."""
    queries = (page_queries("README.md") + page_queries("docs/bi.md") + page_queries("docs/schema.md") + BI_CHARTS
               + [EXAMPLE_QUERY])
    assert assert_same_answers(demo_build.path, tmp_path, queries) == len(queries)
    con = pyeval.connect(demo_build.path, read_only=True)
    readme_query = page_queries("README.md")[0]
    p_at_10 = dict(run_sql(con, readme_query).itertuples(index=False))
    stored = dict(con.execute("select run_id, value from run_means where campaign_id = 'web2012-adhoc' "
                              "and measure = 'P@10'").fetchall())
    assert p_at_10 == pytest.approx(stored, abs=1e-12)
    wins = run_sql(con, EXAMPLE_QUERY)
    assert (wins["wins"] + wins["losses"] <= 50).all()
    con.close()


def test_the_default_set_is_a_setting_of_the_campaign(tmp_path):
    path = tmp_path / "w.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", FIXTURES / "trec_eval" / "qrels.test")
    pyeval.load_run(con, "c", FIXTURES / "trec_eval" / "results.test", name="a")
    pyeval.load_run(con, "c", FIXTURES / "trec_eval" / "results.trunc", name="b")
    pyeval.load_qrels(con, "c", FIXTURES / "trec_eval" / "qrels.rel_level", judgment_set="graded")
    derive(con, "c", "strict", "binarise", ["graded"], threshold=2)
    pyeval.evaluate(con, "c", ["AP"])
    pyeval.evaluate(con, "c", ["AP"], judgment_set="strict")
    pools.build(con, "c", "p", depth=5)
    pools.leave_out(con, "c", "p", ["AP"], grouping="run")

    def shown(view: str) -> set[str]:
        return {r[0] for r in con.execute(f"select distinct judgment_set from {view}").fetchall()}

    assert default_set(con, "c") == "official"
    assert all(shown(view) == {"official"} for view in ("qrels", "scores", "run_means", "leaderboard"))
    strict_means = con.execute("select run_id, value from run_means_by_set where judgment_set = 'strict' "
                               "order by 1").fetchall()
    set_default(con, "c", "strict")
    assert all(shown(view) == {"strict"} for view in ("qrels", "scores", "run_means", "leaderboard"))
    assert con.execute("select run_id, value from run_means order by 1").fetchall() == strict_means
    assert con.execute("select count(*) from qrels").fetchone()[0] == con.execute(
        "select count(*) from qrels_by_set where judgment_set = 'strict'").fetchone()[0]
    assert con.execute("select default_judgment_set from campaign_overview").fetchall() == [("strict",)]
    # the leave-one-run-out sets are working data: not listed by default, never the default
    listed = list_sets(con, "c")
    assert list(listed["judgment_set"]) == ["graded", "official", "strict"]
    assert list(listed["default"]) == [False, False, True]
    working = list_sets(con, "c", working=True)
    loo = working.loc[working["working_set"], "judgment_set"].tolist()
    assert loo and all(name.startswith("p.without-run.") for name in loo)
    with pytest.raises(PyevalError, match="working set of a pool analysis"):
        set_default(con, "c", loo[0])
    with pytest.raises(PyevalError, match="no judgment set 'nosuch'"):
        set_default(con, "c", "nosuch")
    assert default_set(con, "c") == "strict"
    # what names no set reads the default set: an evaluation, a test, a pool's coverage
    evaluation = pyeval.evaluate(con, "c", ["P@10"])
    assert con.execute("select judgment_set from evaluations where evaluation_id = $e",
                       {"e": evaluation.evaluation_id}).fetchall() == [("strict",)]
    assert shown("scores") == {"strict"} and con.execute(
        "select count(*) from scores where measure = 'P@10'").fetchone()[0] > 0
    tested = pyeval.significance(con, "c", "AP", test="t")
    assert con.execute("select judgment_set from significance_tests where test_id = $t",
                       {"t": tested.test_id}).fetchall() == [("strict",)]
    con.close()

    runner = CliRunner()
    db = ["--db", str(path)]
    assert runner.invoke(main, [*db, "judgments", "default", "-C", "c"]).output == "strict\n"
    changed = runner.invoke(main, [*db, "judgments", "default", "-C", "c", "official"])
    assert changed.exit_code == 0 and changed.output == "campaign 'c': default judgment set 'official' (was 'strict')\n"
    evaluated = runner.invoke(main, [*db, "evaluate", "-C", "c", "-m", "RR"])
    assert evaluated.exit_code == 0, evaluated.output
    check = pyeval.connect(path, read_only=True)
    assert check.execute("select judgment_set from evaluations order by evaluation_id desc limit 1").fetchall() == [
        ("official",)]
    check.close()
    runner.invoke(main, [*db, "judgments", "default", "-C", "c", "strict"])
    risk = runner.invoke(main, [*db, "risk", "-C", "c", "-m", "AP", "--baseline", "a"])
    assert risk.exit_code == 0, risk.output
    check = pyeval.connect(path, read_only=True)
    assert check.execute("select distinct judgment_set from risk_results").fetchall() == [("strict",)]
    check.close()
    runner.invoke(main, [*db, "judgments", "default", "-C", "c", "official"])
    refused = runner.invoke(main, [*db, "judgments", "default", "-C", "c", loo[0]])
    assert refused.exit_code == 1 and refused.output.startswith("Error: ") and refused.output.count("\n") == 1
    listing = runner.invoke(main, [*db, "judgments", "list", "-C", "c", "--format", "csv"]).output
    assert loo[0] not in listing and "strict" in listing
    assert loo[0] in runner.invoke(main, [*db, "judgments", "list", "-C", "c", "--all", "--format", "csv"]).output
