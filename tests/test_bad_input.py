"""Bad input: one clear error naming file and line, and the warehouse left exactly as it was.

Also the tolerated variants (CRLF line ends, a UTF-8 byte-order mark, no final newline),
which docs/input-files.md section 1 accepts: they must store exactly what the clean file stores.
"""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main

from .conftest import FIXTURES, snapshot

QRELS = "301 0 d1 1\n301 0 d2 0\n302 0 d1 2\n"
RUN = "301 Q0 d1 1 2.5 r\n301 Q0 d3 2 1.5 r\n302 Q0 d1 1 0.5 r\n"
INTENTS = "0001 1 0.5 nav\n0001 2 0.3\n0001 3 0.2 inf\n"
LENGTHS = "d1 100\nd2 2000\n"

# kind, file text, expected message after "FILE:"
BAD_INPUTS = [
    ("qrels", "301 0 d1 1\n301 0 d2\n", "2: expected 4 fields (topic iter docno level), found 3"),
    ("qrels", "301 0 d1 1\n301 0 d2 1 extra\n", "2: expected 4 fields (topic iter docno level), found 5"),
    ("qrels", "301 0 d1 x\n", "1: relevance level 'x' is not an integer"),
    ("qrels", "301 0 d1 1.5\n", "1: relevance level '1.5' is not an integer"),
    ("qrels", "301 0 d1 1\n301 0 d1 0\n", "2: duplicate judgment of document 'd1' for topic '301' (first on line 1)"),
    ("qrels", "1 1 d1 1\n1 2 d1 0\n1 2 d1 1\n", "3: duplicate judgment of document 'd1' for topic '1', intent '2' (first on line 2)"),
    ("qrels", "301 0 d1 1\n\n301 0 d2 0\n", "2: blank line"),
    ("qrels", "0001 d1 L1\n0001 d2 X2\n", "2: relevance level 'X2' is not of the form L<k>"),
    ("qrels", "301 d1\n", "1: cannot tell the qrels format from a line of 2 fields"),
    ("qrels", "", " the file is empty"),
    ("qrels", "# only a comment\n", " no data lines (only comments or blank lines)"),
    ("qrels", b"301 0 d\xff 1\n", "1: not valid UTF-8 text"),
    ("run", "301 Q0 d1 1 2.0\n", "1: expected at least 6 fields (topic iter docno rank score run_tag), found 5"),
    ("run", "301 Q0 d1 1 2.0 r\n301 Q0 d2 2 abc r\n", "2: score 'abc' is not a finite number"),
    ("run", "301 Q0 d1 1 nan r\n", "1: score 'nan' is not a finite number"),
    ("run", "301 Q0 d1 one 2.0 r\n", "1: rank 'one' is not an integer"),
    ("run", "301 Q0 d1 1 2.0 r\n301 Q0 d2 2 1.0 r\n301 Q0 d1 3 0.5 r\n", "3: document 'd1' retrieved twice for topic '301' (first on line 1)"),
    ("run", "", " the file is empty"),
    ("intents", "0001 1 abc\n", "1: probability 'abc' is not a number"),
    ("intents", "0001 1 0.5\n0001 2 1.5\n", "2: probability 1.5 is outside [0, 1]"),
    ("intents", "0001 1\n", "1: expected 3 or 4 fields (topic intent probability [inf|nav]), found 2"),
    ("intents", "0001 1 0.5 web\n", "1: intent type 'web' is neither inf nor nav"),
    ("intents", "0001 1 0.5\n0001 1 0.5\n", "2: intent '1' of topic '0001' listed twice (first on line 1)"),
    ("doclengths", "d1 -5\n", "1: length '-5' is not a non-negative integer"),
    ("doclengths", "d1 5 6\n", "1: expected 2 fields (docno length), found 3"),
    ("doclengths", "d1 12.5\n", "1: length '12.5' is not a non-negative integer"),
]

LOADERS = {
    "qrels": lambda con, path, **kw: pyeval.load_qrels(con, "c", path, **kw),
    "run": lambda con, path, **kw: pyeval.load_run(con, "c", path, **kw),
    "intents": lambda con, path, **kw: pyeval.load_intents(con, "c", path, **kw),
    "doclengths": lambda con, path, **kw: pyeval.load_doclengths(con, "c", path, **kw),
}


@pytest.fixture
def populated(con, write):
    """A warehouse holding one of everything, so an unchanged snapshot means something."""
    pyeval.load_qrels(con, "c", write("good.qrels", QRELS))
    pyeval.load_run(con, "c", write("good.run", RUN))
    pyeval.load_doclengths(con, "c", write("good.len", LENGTHS))
    pyeval.load_qrels(con, "n", FIXTURES / "ntcireval" / "Dtest.Dqrels")
    pyeval.load_intents(con, "n", FIXTURES / "ntcireval" / "Dtest.DINprob")
    return con


@pytest.mark.parametrize("replace", [False, True], ids=["plain", "replace"])
@pytest.mark.parametrize("kind,text,message", BAD_INPUTS, ids=lambda v: None)
def test_bad_input_names_file_and_line_and_changes_nothing(populated, write, kind, text, message, replace):
    path = write(f"bad.{kind}", text)
    before = snapshot(populated)
    with pytest.raises(pyeval.PyevalError) as caught:
        LOADERS[kind](populated, path, replace=replace)
    assert str(caught.value).startswith(f"{path}:{message}")
    assert "\n" not in str(caught.value)
    assert snapshot(populated) == before


def test_missing_file(populated, tmp_path):
    before = snapshot(populated)
    with pytest.raises(pyeval.InputFormatError, match="no such file"):
        pyeval.load_run(populated, "c", tmp_path / "absent.txt")
    assert snapshot(populated) == before


def test_run_for_a_campaign_that_does_not_exist(populated, write):
    path = write("r.txt", RUN)
    before = snapshot(populated)
    with pytest.raises(pyeval.UnknownCampaignError, match=re.escape(f"{path}: campaign 'ghost' does not exist")):
        pyeval.load_run(populated, "ghost", path)
    assert snapshot(populated) == before


def test_rerun_of_a_run_name_is_refused_and_changes_nothing(populated, write):
    before = snapshot(populated)
    with pytest.raises(pyeval.DataIntegrityError, match="already has a run named 'r'"):
        pyeval.load_run(populated, "c", write("again.run", "301 Q0 zz 1 9 r\n"))
    assert snapshot(populated) == before


@pytest.mark.parametrize("kind", ["qrels", "run", "intents", "doclengths"])
@pytest.mark.parametrize(
    "variant",
    [
        lambda text: text.replace("\n", "\r\n").encode(),
        lambda text: b"\xef\xbb\xbf" + text.encode(),
        lambda text: text.rstrip("\n").encode(),
        lambda text: ("\ufeff" + text.rstrip("\n").replace("\n", "\r\n")).encode(),
    ],
    ids=["crlf", "bom", "no-final-newline", "all-three"],
)
def test_tolerated_variants_store_what_the_clean_file_stores(write, kind, variant):
    text = {"qrels": QRELS, "run": RUN, "intents": INTENTS, "doclengths": LENGTHS}[kind]
    stored = []
    for name, content in (("clean", text.encode()), ("variant", variant(text))):
        con = pyeval.connect()
        qrels = QRELS if kind != "intents" else "0001 1 d1 1\n0001 2 d1 0\n"
        pyeval.load_qrels(con, "c", write(f"{name}.base", qrels))
        if kind != "qrels":
            LOADERS[kind](con, write(f"{name}.{kind}", content))
        else:
            pyeval.load_qrels(con, "c", write(f"{name}.{kind}", content), replace=True)
        state = snapshot(con)
        for volatile in ("campaign_inputs", "runs", "campaigns", "schema_migrations", "derived_objects", "judgment_sets"):
            state.pop(volatile)
        stored.append(state)
        con.close()
    assert stored[0] == stored[1]


@pytest.mark.parametrize(
    "command,text,message",
    [
        (["load", "qrels", "--campaign", "c"], "301 0 d1 1\n301 0 d1 1\n", ":2: duplicate judgment"),
        (["load", "run", "--campaign", "c"], "301 Q0 d1 1 x r\n", ":1: score 'x' is not a finite number"),
        (["load", "run", "--campaign", "ghost"], RUN, ": campaign 'ghost' does not exist"),
        (["load", "intents", "--campaign", "c"], "1 1 p\n", ":1: probability 'p' is not a number"),
        (["load", "doclengths", "--campaign", "c"], "d x\n", ":1: length 'x' is not a non-negative integer"),
    ],
)
def test_cli_reports_one_line_and_fails(tmp_path, write, command, text, message):
    db = tmp_path / "w.duckdb"
    runner = CliRunner()
    assert runner.invoke(main, ["--db", str(db), "load", "qrels", "--campaign", "c", str(write("q", QRELS))]).exit_code == 0
    con = pyeval.connect(db)
    before = snapshot(con)
    con.close()
    path = write("input.txt", text)
    result = runner.invoke(main, ["--db", str(db), *command, str(path)])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {path}{message}")
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    con = pyeval.connect(db)
    assert snapshot(con) == before
    con.close()
