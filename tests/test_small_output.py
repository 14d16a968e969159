"""Small output puzzles (issue 38): what a command prints says what it did, in the same words
and number formats as its neighbours."""
from __future__ import annotations

from .reliability.helpers import cli
from .reliability.test_failed_commands import base, db  # noqa: F401 (fixtures: campaign c, sets official and stricter)


def test_judgments_compare_says_what_each_stored_comparison_is(db):
    status, output = cli("--db", db, "judgments", "compare", "-C", "c", "--candidate", "stricter", "-m", "AP",
                         "--test", "t")
    assert status == 0, output
    assert "stored as comparisons 1 (stricter: labels), 2 (stricter: AP)" in output
    status, output = cli("--db", db, "judgments", "compare", "-C", "c", "--candidate", "stricter")
    assert "stored as comparison 3 (stricter: labels)" in output
