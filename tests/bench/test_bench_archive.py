"""bench/bench_archive.py (issues 30 and 40): the copies hold the seed campaign's results and
inputs, in campaign order; a small run writes every measurement it reports, and times snapshot,
export and publish as whole processes (publish after the copies' run entries were deleted when
there are more than it may copy)."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

import pyeval
from pyeval.core import archive

from ..conftest import FIXTURES

BENCH = FIXTURES.parent.parent / "bench"
SMALL = ["--runs", "4", "--topics", "4", "--docs", "20", "--repeats", "1"]


@pytest.fixture(scope="module")
def bench(request):
    sys.path.insert(0, str(BENCH))  # the script imports bench/common.py as `common`
    request.addfinalizer(lambda: sys.path.remove(str(BENCH)))
    spec = importlib.util.spec_from_file_location("bench_archive", BENCH / "bench_archive.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(tmp_path, *arguments: str) -> dict:
    out = tmp_path / "out.json"
    done = subprocess.run([sys.executable, str(BENCH / "bench_archive.py"), *SMALL, *arguments, "--work",
                           str(tmp_path), "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(out.read_text(encoding="utf-8"))


def test_copies_hold_the_seed_campaign_in_campaign_order(tmp_path, bench):
    data = bench.generate_campaign(tmp_path / "seed", 3, 4, 20, seed=1)
    con = pyeval.connect(tmp_path / "w.duckdb")
    bench.seed_campaign(con, data, 3)
    bench.copy_results(con, 2)
    bench.copy_inputs(con, 2)
    con.begin()
    archive.rebuild(con)
    con.commit()
    for table, key in (("run_entries", "campaign_id, run_id, topic_id, doc_id"),
                       ("qrels_by_set", "campaign_id, judgment_set, topic_id, doc_id"), ("topics", "campaign_id, topic_id")):
        seed = con.execute(f"select * exclude (campaign_id) from {table} where campaign_id = 'seed' "
                           f"order by {key}").fetchall()
        assert seed
        for copy in ("c0001", "c0002"):
            assert con.execute(f"select * exclude (campaign_id) from {table} where campaign_id = $c order by {key}",
                               {"c": copy}).fetchall() == seed, (table, copy)
    # one campaign after the other in the file, as loading them would write them
    spans = con.execute("select campaign_id, min(rowid), max(rowid) from run_entries group by all "
                        "order by 2").fetchall()
    assert [c for c, _, _ in spans] == ["seed", "c0001", "c0002"]
    assert all(spans[i][2] < spans[i + 1][1] for i in range(len(spans) - 1))
    # each copy shows the seed's current values under its own evaluations
    seed_scores = con.execute("select run_id, topic_id, measure, value from scores where campaign_id = 'seed' "
                              "order by all").fetchall()
    assert con.execute("select run_id, topic_id, measure, value from scores where campaign_id = 'c0002' "
                       "order by all").fetchall() == seed_scores
    assert con.execute("select count(distinct evaluation_id) from evaluations").fetchone()[0] == 9
    con.close()


@pytest.mark.slow
def test_a_small_run_reports_every_measurement(tmp_path, bench):
    results = _run(tmp_path, "--campaigns", "1", "2", "--no-sharing")
    one, two = results["scales"]
    entries = 4 * 4 * 20
    assert one["rows"]["run_entries"] == entries and two["rows"]["run_entries"] == 2 * entries
    assert two["rows"]["current_scores"] == 2 * one["rows"]["current_scores"]
    assert two["file_mb"] > 0 and "sharing" not in two
    assert set(two["whole_archive"]) == {name for name, *_ in bench.WHOLE_ARCHIVE}
    assert set(two["one_campaign_stored"]) == {"scores of one run", "run_means of one campaign"}
    ratios = results["targets"]["view / stored copy"]
    assert len(ratios) == 8 and all("met (<= 2x)" in r for r in ratios.values())
    assert set(results["targets"]["one campaign, largest / smallest archive"]["scores of one run"]) == {
        "wall 2/1", "cpu 2/1", "stored copy: wall 2/1", "stored copy: cpu 2/1"}
    results_only = _run(tmp_path, "--campaigns", "2", "--no-sharing", "--results-only")["scales"][0]
    assert results_only["rows"]["run_entries"] == entries  # the seed's own only
    assert results_only["rows"]["current_scores"] == two["rows"]["current_scores"]
    refused = subprocess.run([sys.executable, str(BENCH / "bench_archive.py"), "--runs", "3", "--no-sharing"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "--runs: at least 4" in refused.stderr


@pytest.mark.slow
def test_sharing_commands_run_as_whole_processes(tmp_path, postgres_url):
    entries = 4 * 4 * 20
    scale = _run(tmp_path, "--campaigns", "2", "--postgres-url", postgres_url,
                 "--publish-max-run-entries", str(entries))["scales"][0]
    sharing = scale["sharing"]
    assert not [name for name, step in sharing.items() if isinstance(step, dict) and "failed" in step]
    assert sharing["pyeval snapshot"]["output_mb"] > 0 and sharing["pyeval snapshot"]["peak_rss_mb"] > 0
    assert sharing["pyeval export --parquet"]["files"] > 0
    # more run entries than publish may copy: the copy's were deleted first, the seed's kept
    assert "deleted first" in sharing["publish holds"] and sharing["published run entries"] == entries
    assert "(full copy)" in sharing["pyeval publish (first: everything)"]["said"]
    assert "(incremental)" in sharing["pyeval publish (again: nothing new)"]["said"]
    assert sharing["pyeval publish (first: everything)"]["postgres_mb"] > 0
    assert not list(tmp_path.glob("bench_archive_*"))  # the work folder is removed
