"""pyeval fuse, fusions, export-run and delete-run on the bundled sample's two real runs."""
from __future__ import annotations

import hashlib

from click.testing import CliRunner

from pyeval import sample
from pyeval.cli import main


def _run(runner, *args, ok=True):
    result = runner.invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert (result.exit_code == 0) == ok, result.output
    return result


def _web_campaign(tmp_path):
    """Campaign web (the sample's ad hoc qrels and its two real runs) loaded by the command line."""
    runner = CliRunner()
    db = tmp_path / "w.duckdb"
    _run(runner, "--db", db, "load", "qrels", "-C", "web", sample.path("qrels.adhoc.txt.gz"))
    for name in sample.REAL_RUNS:
        path = next(p for p in sample.run_paths() if sample.run_name(p) == name)
        _run(runner, "--db", db, "load", "run", "-C", "web", "--name", name, path)
    return runner, db


def test_fuse_store_export_list_grid_and_delete(tmp_path):
    runner, db = _web_campaign(tmp_path)
    out = _run(runner, "--db", db, "fuse", "-C", "web", "--method", "rrf", "--k", "60",
               "--runs", *sample.REAL_RUNS, "--name", "hybrid").output
    assert "stored fused run 'hybrid'" in out
    _run(runner, "--db", db, "fuse", "-C", "web", "--method", "gmnz", "--gamma", "2", "--norm", "min-max-inverted",
         "--runs", *sample.REAL_RUNS, "--name", "gmnz")
    recipe = _run(runner, "--db", db, "sql", "select source_file, method, parameters->>'gamma', parameters->>'norm' "
                  "from runs join run_derivations using (campaign_id, run_id) where run_id = 'gmnz'",
                  "--format", "csv").output.splitlines()[-1]
    assert recipe.endswith("combgmnz,2.0,min-max-inverted") and "gamma=2" in recipe
    _run(runner, "--db", db, "fuse", "-C", "web", "--method", "logn_isr", "--sigma", "1.5",
         "--runs", *sample.REAL_RUNS, ok=False)
    listed = _run(runner, "--db", db, "fusions", "--format", "csv").output
    assert "hybrid,rrf" in listed and "False" in listed
    exported = tmp_path / "hybrid.txt"
    said = _run(runner, "--db", db, "export-run", "-C", "web", "hybrid", "-o", exported)
    lines = len(exported.read_text().splitlines())
    assert said.stdout == ""
    assert said.stderr == f"web: run 'hybrid': {lines} lines written to {exported} (format trec)\n"
    printed = _run(runner, "--db", db, "export-run", "-C", "web", "hybrid")  # the file on stdout, the note on stderr
    assert printed.stdout == exported.read_text()
    assert printed.stderr == f"web: run 'hybrid': {lines} lines written to standard output (format trec)\n"
    stored = _run(runner, "--db", db, "sql", "select source_sha256 from runs where run_id = 'hybrid'",
                  "--format", "csv").output.split()[-1]
    assert hashlib.sha256(exported.read_bytes()).hexdigest() == stored
    table = _run(runner, "--db", db, "fuse", "-C", "web", "--method", "combsum", "--runs", *sample.REAL_RUNS,
                 "--name", "sum", "-m", "nDCG@10", "--test", "t", "--format", "latex").output
    assert "\\toprule" in table and "sum" in table
    grid = _run(runner, "--db", db, "fuse", "-C", "web", "--method", "rrf", "--runs", *sample.REAL_RUNS,
                "--grid", "k=10,60", "--folds", "2", "--plot", tmp_path / "grid.png").output
    assert "cross-validated nDCG@10" in grid and (tmp_path / "grid.png").stat().st_size > 0
    refused = _run(runner, "--db", db, "delete-run", "-C", "web", sample.REAL_RUNS[0], ok=False).output
    assert "input of fused run" in refused and len(refused.strip().splitlines()) == 1
    bad = _run(runner, "--db", db, "fuse", "-C", "web", "--method", "wsum", "--weights", "1,2,3",
               "--runs", *sample.REAL_RUNS, ok=False).output
    assert "3 weights for 2 runs" in bad
    _run(runner, "--db", db, "delete-run", "-C", "web", "hybrid")
    assert "hybrid" not in _run(runner, "--db", db, "fusions", "--format", "csv").output


def test_a_cross_validated_grid_prints_what_each_column_means(tmp_path):
    """Under --folds no point has a test mean of its own: the table shows each point's mean over
    all topics and how many folds chose it (no column blank for all points but one), and the
    summary gives the cross-validated estimate apart from the best point's optimistic mean."""
    runner, db = _web_campaign(tmp_path)
    out = _run(runner, "--db", db, "fuse", "-C", "web", "--method", "rrf", "--runs", *sample.REAL_RUNS,
               "--grid", "k=10,20,40,60", "--folds", "5", "--format", "csv").output
    lines = out.splitlines()
    assert lines[0] == "point_id,k,mean_all_topics,folds_chosen"
    rows = [line.split(",") for line in lines[1:5]]
    assert all(row[2] for row in rows) and sum(int(row[3]) for row in rows) == 5
    summary = next(line for line in lines if line.startswith("cross-validated nDCG@10 "))
    assert "5 folds" in summary and "best over all topics: point" in summary and "optimistic" in summary
    stored = _run(runner, "--db", db, "sql", "select count(test_mean), count(train_mean) from fusion_grid_points",
                  "--format", "csv").output.splitlines()[-1]
    assert stored == "1,4"
