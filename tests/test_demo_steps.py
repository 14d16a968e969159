"""What ``pyeval demo`` shows besides its sections (issue 38): each step announced as it starts
when no progress bar can be drawn (a pipe), and no warning about a measure the user did not ask for.
The demo itself runs end to end in the slow tests (tests/test_cli.py)."""
from __future__ import annotations

import io
import warnings

from pyeval.demo import CONCORDANCE_GOLDS, CONCORDANCE_MEASURES, DemoSteps, registered


def test_each_step_is_announced_before_it_runs_when_no_bar_is_drawn():
    stream = io.StringIO()  # not a terminal: tqdm draws no bar
    steps = DemoSteps(["loading the sample", "NTCIR measures"], stream=stream)
    seen = []
    value, elapsed = steps.run(lambda: seen.append(stream.getvalue()) or 7)
    steps.run(lambda: seen.append(stream.getvalue()))
    steps.close()
    assert value == 7 and elapsed >= 0
    assert seen == ["pyeval demo: step 1/2, loading the sample ...\n",
                    "pyeval demo: step 1/2, loading the sample ...\npyeval demo: step 2/2, NTCIR measures ...\n"]


def test_no_step_lines_without_progress():
    stream = io.StringIO()
    steps = DemoSteps(["loading the sample"], stream=stream, progress=False)
    steps.run(lambda: None)
    steps.write(print, "")
    steps.close()
    assert stream.getvalue() == ""


def test_the_concordance_measures_are_chosen_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ERR-IA's note on its meaning was printed by the demo
        chosen = [registered(spellings) for spellings in {**CONCORDANCE_MEASURES, **CONCORDANCE_GOLDS}.values()]
    assert "ERR_IA@10" in chosen and None not in chosen


def test_the_plots_go_beside_the_warehouse_not_in_the_current_folder():
    from pathlib import Path

    from pyeval.demo import asl_plot_path, irec_plot_path

    out = Path("elsewhere") / "web.duckdb"
    assert asl_plot_path(out) == Path("elsewhere") / "web-asl-curves.png"
    assert irec_plot_path(out) == Path("elsewhere") / "web-irec-dndcg.png"


def test_the_generated_answers_step_loads_evaluates_and_compares(tmp_path):
    """The demo's generated-answer step on the ad hoc campaign with its runs (the rest of the demo
    runs in the slow tests): the worked query's table and the assignment sets' comparison."""
    import pyeval
    from pyeval import sample
    from pyeval.demo import RAG_NUGGET_MEASURES, demo_rag

    path = tmp_path / "demo.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "web2012-adhoc", sample.path("qrels.adhoc.txt.gz"))
    pyeval.load_runs(con, "web2012-adhoc", sample.run_paths(), names=[sample.run_name(p) for p in sample.run_paths()])
    pyeval.evaluate(con, "web2012-adhoc", ["nDCG@10"])
    con.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning about runs or topics without answers
        table, comparison, answering, unanswered = demo_rag(path)
    assert answering == 18 and len(table) == 8 and unanswered == ["sim05/156", "sim12/152", "sim17/154"]
    assert list(table.columns) == ["run_id", "nDCG@10", "vital_manual", "vital_auto", "citation_recall"]
    assert table["vital_manual"].is_monotonic_decreasing and table["vital_manual"].between(0, 1).all()
    summary = comparison.summary()
    assert summary["cohen_kappa_binary@2"].iloc[0] > 0 and summary["kendall_tau_b"].iloc[0] is not None
    con = pyeval.connect(path, read_only=True)
    stored = con.execute("select judgment_set, count(distinct measure) from answer_scores_by_set group by all "
                         "order by 1").fetchall()
    con.close()
    assert stored == [("auto", len(RAG_NUGGET_MEASURES)), ("manual", len(RAG_NUGGET_MEASURES)), ("support", 4)]


def test_the_reproducibility_step_records_and_compares_the_reproductions(tmp_path):
    """The demo's reproducibility step on the ad hoc campaign with its two real runs: the noisy
    reproductions are loaded, related to their originals, and compared (stored)."""
    import pyeval
    from pyeval import sample
    from pyeval.demo import REPRO_MEASURES, demo_repro

    path = tmp_path / "demo.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "web2012-adhoc", sample.path("qrels.adhoc.txt.gz"))
    real = [p for p in sample.run_paths() if sample.run_name(p) in sample.REAL_RUNS]
    pyeval.load_runs(con, "web2012-adhoc", real, names=[sample.run_name(p) for p in real])
    con.close()
    result = demo_repro(path)
    table = result.table()
    assert list(table.columns) == ["statistic", "measure", "baseline", "advanced", "effect"]
    ktu = table.set_index("statistic").loc["KTU"]
    assert 0 < ktu["baseline"] < 1 and 0 < ktu["advanced"] < 1  # noise swaps neighbours, not the lists
    assert len(table) == 7 * len(REPRO_MEASURES) + 3
    assert (result.rep_baseline, result.rep_advanced) == ("indri-ql-rep", "indri-rm-rep")  # the recorded ones
    con = pyeval.connect(path, read_only=True)
    assert con.execute("select count(*) from repro_results where repro_id = $i", {"i": result.repro_id}
                       ).fetchall() == [(len(result.results),)]
    # deleted again with their relations: the campaign keeps its runs (the docs' examples count them)
    assert con.execute("select count(*) from runs").fetchall() == [(2,)]
    assert con.execute("select count(*) from run_relations").fetchall() == [(0,)]
    con.close()
