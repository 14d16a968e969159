"""The drop-ins start lean: each evaluates in a throw-away warehouse holding only the tables
and views it reads, with no migration history (pyeval.storage.warehouse.scratch; the relations are
declared next to each command, pyeval/compat/)."""
from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from pyeval.storage import warehouse
from pyeval.cli import main

from ..conftest import FIXTURES

LOADED = {"campaigns", "campaign_inputs", "qrels_by_set", "intents_by_set", "topics", "runs", "run_entries", "judgment_sets"}
ADHOC_VIEWS = {"ranked_entries", "topic_levels", "intent_levels", "profile_gains",
               "intent_gain_values", "gain_values", "gain_maxima"}

CASES = {
    "trec_eval": (
        ["trec_eval", "-m", "all_trec", FIXTURES / "trec_eval" / "qrels.test", FIXTURES / "trec_eval" / "results.test"],
        LOADED | {"gain_profiles"}, ADHOC_VIEWS,
    ),
    "trec_eval -R prefs": (
        ["trec_eval", "-m", "all_prefs", "-R", "prefs", FIXTURES / "trec_eval" / "prefs.test",
         FIXTURES / "trec_eval" / "prefs.results.test"],
        LOADED | {"gain_profiles"}, ADHOC_VIEWS,
    ),
    "ntcireval": (
        ["ntcireval", "-r", FIXTURES / "ntcireval" / "test.qrels", "-g", "1:2", FIXTURES / "ntcireval" / "TRECRUN"],
        LOADED | {"gain_profiles"}, ADHOC_VIEWS,
    ),
    "ndeval": (
        ["ndeval", FIXTURES / "ndeval" / "qrels.ndeval", FIXTURES / "ndeval" / "run.trec"],
        LOADED | {"intent_variants"}, {"diversity_judgments", "intent_weights", "ranked_entries"},
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_warehouse_holds_only_what_the_command_reads(monkeypatch, case):
    arguments, tables, views = CASES[case]
    made = []

    def recording_scratch(relations):
        con = real_scratch(relations)
        made.append((
            {r[0] for r in con.execute("select table_name from duckdb_tables()").fetchall()},
            {r[0] for r in con.execute("select view_name from duckdb_views() where not internal").fetchall()},
        ))
        return con

    real_scratch = warehouse.scratch
    monkeypatch.setattr(warehouse, "scratch", recording_scratch)
    monkeypatch.setattr(warehouse, "connect", None)  # the file warehouse (migrations) is not opened
    result = CliRunner().invoke(main, [str(a) for a in arguments])
    assert result.exit_code == 0, result.output
    assert made == [(tables, views)]
    assert "schema_migrations" not in made[0][0]


def test_the_ntcireval_command_imports_no_pandas():
    """Its own modules need no pandas (the loaders' general path, which NTCIR qrels take, may
    import it)."""
    script = "import sys, pyeval.cli, pyeval.compat.ntcireval; print('pandas' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
