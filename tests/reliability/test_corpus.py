"""A corpus of malformed qrels, run, intents and lengths files (tests/reliability/corpus/, one
fault each) loaded through the command line: exit status 1, the one-line message listed in
corpus/expected_messages.tsv (``FILE:LINE: message`` where a line is at fault), and the
warehouse unchanged."""
from __future__ import annotations

from pathlib import Path

import pytest

import pyeval

from ..conftest import snapshot
from .helpers import QRELS, RUN, cli, one_line_error

CORPUS = Path(__file__).resolve().parent / "corpus"
EXPECTED_FILE = CORPUS / "expected_messages.tsv"


def _expected() -> dict[str, str]:
    rows = [line.split("\t") for line in EXPECTED_FILE.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]
    return {name: message for name, message in rows}


EXPECTED = _expected()


def test_every_corpus_file_has_an_expected_message():
    files = {p.name for p in CORPUS.iterdir() if not p.name.startswith(".") and p != EXPECTED_FILE}
    assert files == set(EXPECTED)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "w.duckdb"
    con = pyeval.connect(path)
    pyeval.load_qrels(con, "c", QRELS)
    pyeval.load_run(con, "c", RUN, name="a")
    pyeval.evaluate(con, "c", ["AP"])
    state = snapshot(con)
    con.close()
    return path, state


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_malformed_file_is_refused_with_its_message_and_the_warehouse_unchanged(built, name):
    path, before = built
    kind = name.split(".")[0]
    source = CORPUS / name
    # qrels go to a new campaign (which must then not exist); the rest to the campaign c
    campaign = "new" if kind == "qrels" else "c"
    status, output = cli("--db", path, "load", kind, "-C", campaign, source)
    assert status == 1, output
    line = one_line_error(output)
    assert line.startswith(f"Error: {source.parent}/{EXPECTED[name]}"), line
    con = pyeval.connect(path, read_only=True)
    try:
        assert snapshot(con) == before
    finally:
        con.close()
