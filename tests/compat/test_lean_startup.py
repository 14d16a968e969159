"""The drop-ins start lean: each evaluates in a throw-away warehouse holding only the tables
and views it reads, with no migration history (pyeval.storage.warehouse.scratch; the relations are
declared next to each command, pyeval/compat/; ``pyeval trec_eval`` on files that take the
loaders' fast path: the judgments and what its measures' plan reads, pyeval.loaders.transient;
its run stays staged, run_entries and ranked_entries being relations its statement defines)."""
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
#: pyeval trec_eval's fast route: the tables pyeval.loaders.transient writes and checks (the run
#: is read as relations the evaluation's statement defines: no run_entries, no ranked_entries)
TRANSIENT = {"qrels_by_set", "intents_by_set"}

CASES = {
    "trec_eval": (
        ["trec_eval", "-m", "all_trec", FIXTURES / "trec_eval" / "qrels.test", FIXTURES / "trec_eval" / "results.test"],
        TRANSIENT | {"gain_profiles"}, ADHOC_VIEWS - {"ranked_entries"},
    ),
    "trec_eval official": (  # no nDCG: no gain views
        ["trec_eval", FIXTURES / "trec_eval" / "qrels.test", FIXTURES / "trec_eval" / "results.test"],
        TRANSIENT, {"topic_levels"},
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


def test_trec_eval_loads_what_the_fast_path_refuses_with_the_loaders(monkeypatch):
    """results.trunc has more than 6 fields on a line: the loaders' general path reads it, in a
    warehouse of every relation the command reads (the first, lean one is closed unused)."""
    made = []

    def recording_scratch(relations):
        made.append(set(relations))
        return real_scratch(relations)

    real_scratch = warehouse.scratch
    monkeypatch.setattr(warehouse, "scratch", recording_scratch)
    trec = FIXTURES / "trec_eval"
    result = CliRunner().invoke(main, ["trec_eval", "-q", "-c", "-m", "all_trec", str(trec / "qrels.test"),
                                       str(trec / "results.trunc")])
    assert result.exit_code == 0, result.output
    assert result.stdout == (trec / "out.test.aqc").read_text()
    assert len(made) == 2 and LOADED <= made[1] and not LOADED <= made[0]


def test_trec_eval_warns_of_several_run_tags_as_the_loader_does(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 u\n")
    result = CliRunner().invoke(main, ["trec_eval", "-m", "map", str(tmp_path / "q"), str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "carries 2 different run tags" in result.stderr
    assert result.stdout == "map                   \tall\t1.0000\n"


def test_each_command_is_found_in_its_module():
    """pyeval.cli.COMMANDS names the module of every command the modules register."""
    import pyeval.cli

    registered = {name: command.callback.__module__ for name, command in main.commands.items()}
    declared = {name: f"pyeval.cli.{module}" for module, names in pyeval.cli.COMMANDS.items() for name in names}
    assert registered == declared


def test_a_drop_in_imports_no_other_command_module():
    script = ("import sys\nfrom pyeval.cli import main\nassert main.get_command(None, 'trec_eval') is not None\n"
              "print(sorted(m for m in sys.modules if m.startswith('pyeval.cli.')))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['pyeval.cli.base', 'pyeval.cli.dropins']"


def test_the_ntcireval_command_imports_no_pandas():
    """Its own modules need no pandas (the loaders' general path, which NTCIR qrels take, may
    import it)."""
    script = "import sys, pyeval.cli, pyeval.compat.ntcireval; print('pandas' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
