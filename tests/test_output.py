"""Rendering results for the terminal (pyeval/output.py)."""
import pandas as pd
import pytest

from pyeval.output import render

FRAME = pd.DataFrame({"topic_id": ["0001", "12"], "value": [0.123456, 2.0], "n": [3, 40]})


def test_identifiers_keep_leading_zeros_and_numbers_are_formatted():
    lines = render(FRAME, "table").splitlines()
    assert lines[2].split() == ["0001", "0.1235", "3"]
    assert "| 0001 " in render(FRAME, "markdown")


def test_csv_and_json_are_exact():
    assert render(FRAME, "csv") == "topic_id,value,n\n0001,0.123456,3\n12,2.0,40"
    assert '"topic_id":"0001"' in render(FRAME, "json").replace(" ", "")


def test_unknown_format():
    with pytest.raises(ValueError, match="output format must be one of"):
        render(FRAME, "xml")
