"""Rendering results for the terminal (pyeval/output.py)."""
import datetime
import json

import pandas as pd
import pytest

from pyeval.output import render, render_rows, whole_counts

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


def test_csv_and_json_keep_full_precision():
    frame = pd.DataFrame({"x": [1 / 3]})
    assert render(frame, "csv") == "x\n0.3333333333333333"
    assert json.loads(render(frame, "json")) == [{"x": 1 / 3}]


MIXED = pd.DataFrame({
    "run_id": ["a", "b"],
    "count": pd.array([3, None], dtype="Int64"),
    "NumRet": [1691.0, None],
    "when": pd.to_datetime(["2024-03-01", None]),
    "p": [0.0, 0.25],
})


def test_integers_nulls_dates_and_p_values_in_every_format():
    table = render(MIXED, "table", integer_columns=["NumRet"], p_resolution=1 / 1000).splitlines()
    assert table[2].split() == ["a", "3", "1691", "2024-03-01", "<", "0.001"]
    assert table[3].split() == ["b", "0.2500"]  # NULLs are blank, not nan/NaT
    assert "nan" not in render(MIXED, "markdown") and "| < 0.001 |" in render(MIXED, "markdown", p_resolution=1e-3)
    assert render(MIXED, "csv", integer_columns=["NumRet"]).splitlines() == [
        "run_id,count,NumRet,when,p", "a,3,1691,2024-03-01,0.0", "b,,,,0.25"]
    assert json.loads(render(MIXED, "json", integer_columns=["NumRet"])) == [
        {"run_id": "a", "count": 3, "NumRet": 1691, "when": "2024-03-01", "p": 0.0},
        {"run_id": "b", "count": None, "NumRet": None, "when": None, "p": 0.25},
    ]


def test_p_values_below_four_decimals_show_their_bound():
    frame = pd.DataFrame({"p_value": [3e-7, 0.5]})
    assert render(frame).splitlines()[2].strip() == "< 0.0001"


def test_timestamps_keep_their_time_and_rows_render_like_frames():
    frame = pd.DataFrame({"at": pd.to_datetime(["2024-03-01 12:30:00"]), "n": [2.0]})
    assert "2024-03-01 12:30:00" in render(frame)
    assert render_rows(["at", "n"], [(datetime.datetime(2024, 3, 1, 12, 30), 2.0)], "csv") == render(frame, "csv")
    assert render_rows(["run_id", "NumQ"], [("a", 50.0)], "table", integer_columns=["NumQ"]).splitlines()[2].split() == ["a", "50"]


def test_frames_render_as_their_rows_do():
    frame = MIXED.assign(runs=[["a", "b"], None], ratio=[float("inf"), 1 / 3], flag=[True, False])
    headers = list(frame.columns)
    rows = list(zip(*[frame[c].astype(object).tolist() for c in headers]))
    rows = [tuple(None if isinstance(v, float) and v != v else v for v in row) for row in rows]
    rows = [tuple(v.date() if hasattr(v, "date") and headers[i] == "when" else v for i, v in enumerate(row))
            for row in rows]
    for fmt in ("csv", "json"):
        assert render(frame, fmt, integer_columns=["NumRet"]) == render_rows(headers, rows, fmt, integer_columns=["NumRet"]), fmt


def test_per_topic_counts_print_as_integers_in_every_format():
    long = pd.DataFrame({"run_id": ["a", "a", "a"], "topic_id": ["1", "1", "2"],
                         "measure": ["AP", "NumRet(rel=1)", "NumRet(rel=1)"], "value": [0.25, 31.0, 7.0]})
    shown = whole_counts(long, ["NumRet(rel=1)"])
    table = render(shown, "table").splitlines()
    assert [line.split()[-1] for line in table[2:]] == ["0.2500", "31", "7"]
    assert render(shown, "csv").splitlines()[1:] == ["a,1,AP,0.25", "a,1,NumRet(rel=1),31", "a,2,NumRet(rel=1),7"]
    assert [row["value"] for row in json.loads(render(shown, "json"))] == [0.25, 31, 7]
    # a count that is not whole (none is, but a frame may say otherwise) is left as it is
    assert whole_counts(long.assign(value=[0.25, 31.5, 7.0]), ["NumRet(rel=1)"])["value"].tolist() == [0.25, 31.5, 7.0]


def test_a_wide_table_of_means_is_turned_to_fit():
    from pyeval.output import fitting_rows

    measures = [f"measure_{i:03d}" for i in range(60)]
    rows = [["run_a", *[0.5] * 59, 12.0], ["run_b", *[0.25] * 59, 7.0]]
    narrow = fitting_rows(["run_id", *measures[:3]], [row[:4] for row in rows], width=100)
    assert narrow.splitlines()[0].split() == ["run_id", "measure_000", "measure_001", "measure_002"]
    turned = fitting_rows(["run_id", *measures], rows, width=100, integer_columns={"measure_059"})
    lines = turned.splitlines()
    assert lines[0].split() == ["measure", "run_a", "run_b"] and len(lines) == 2 + 60
    assert lines[-1].split() == ["measure_059", "12", "7"] and max(map(len, lines)) <= 100
    many = [[f"run_{r:02d}", *[0.5] * 60] for r in range(30)]
    long = fitting_rows(["run_id", *measures], many, width=100).splitlines()
    assert long[0].split() == ["run_id", "measure", "value"] and len(long) == 2 + 30 * 60
    assert fitting_rows(["run_id", *measures], rows, "csv") .count("\n") == 2  # csv is never turned


def test_a_form_whose_headers_are_too_wide_is_not_rendered(monkeypatch):
    """100 runs x 29 measures in 100 columns: neither the wide nor the turned table can fit
    (their headers alone are wider), so only the long form is rendered, as before."""
    from pyeval import output

    measures = [f"P@{k}" for k in range(29)]
    rows = [[f"run{r:04d}", *[0.5] * 29] for r in range(100)]
    expected = output.fitting_rows(["run_id", *measures], rows, width=100)
    rendered = []
    original = output.render_rows
    monkeypatch.setattr(output, "render_rows", lambda headers, *args, **kw: rendered.append(headers) or original(headers, *args, **kw))
    assert output.fitting_rows(["run_id", *measures], rows, width=100) == expected
    assert rendered == [["run_id", "measure", "value"]]
    assert expected.splitlines()[0].split() == ["run_id", "measure", "value"] and len(expected.splitlines()) == 2 + 2900
    rendered.clear()
    output.fitting_rows(["run_id", *measures[:3]], rows[:2], width=100)  # fits: rendered once, wide
    assert rendered == [["run_id", *measures[:3]]]


def _tabulate_simple(headers, rows, align):
    from tabulate import tabulate

    return tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True, colalign=align)


@pytest.mark.parametrize("seed", range(40))
def test_plain_tables_are_laid_out_as_tabulate_lays_them_out(seed):
    """The fast layout of plain cells (output._simple_table) against tabulate itself: random
    widths, empty cells (missing values), empty headers, left and right columns."""
    import random

    from pyeval.output import _plain_cells, _simple_table

    rng = random.Random(seed)
    words = ["", "a", "run0001", "0.1235", "IPrec@0.1", "x" * 30, "< 0.0001", "-0.5000", "NumRet(rel=1)"]
    width = rng.randint(1, 5)
    headers = [rng.choice(["", "p", "run_id", "measure", "a_very_long_header_name"]) for _ in range(width)]
    rows = [[rng.choice(words) for _ in range(width)] for _ in range(rng.randint(1, 12))]
    align = [rng.choice(["left", "right"]) for _ in range(width)]
    assert _plain_cells(headers, rows)
    assert _simple_table(headers, rows, align) == _tabulate_simple(headers, rows, align)


@pytest.mark.parametrize("cell", ["wide 検索", "two\nlines", " padded", "tab\there"])
def test_cells_tabulate_lays_out_otherwise_go_to_tabulate(cell):
    """Wide characters, line breaks and surrounding spaces are tabulate's to lay out (render_rows)."""
    from pyeval.output import _plain_cells

    assert not _plain_cells(["run_id"], [[cell]])
    assert render_rows(["run_id", "n"], [[cell, 1]]) == _tabulate_simple(["run_id", "n"], [[cell, "1"]], ["left", "right"])


@pytest.mark.parametrize("seed", range(30))
def test_rows_of_every_kind_print_as_through_tabulate(seed, monkeypatch):
    """render_rows' own layout of plain cells against tabulate's, through the same cell rules
    (alignment from the values, integer columns, p-value bounds, missing values)."""
    import random

    import numpy as np

    from pyeval import output

    rng = random.Random(seed)
    kinds = [lambda: rng.random(), lambda: rng.randint(-5, 10 ** 6), lambda: None, lambda: float("nan"),
             lambda: rng.choice(["run1", "0001", "", "IPrec@0.5"]), lambda: rng.random() / 10 ** 6,
             lambda: np.float32(rng.random()), lambda: float(rng.randint(0, 50)), lambda: rng.choice([True, False])]
    headers = ["run_id", "p", "NumRet", "value", "n"][:rng.randint(1, 5)]
    columns = [rng.choice(kinds) for _ in headers]
    rows = [[make() for make in columns] for _ in range(rng.randint(1, 8))]
    resolution = rng.choice([None, 0.001])
    fast = render_rows(headers, rows, integer_columns=["NumRet"], p_resolution=resolution)
    monkeypatch.setattr(output, "_plain_cells", lambda headers, cells: False)
    assert fast == render_rows(headers, rows, integer_columns=["NumRet"], p_resolution=resolution)


def test_a_nan_of_another_float_type_is_missing_in_every_format():
    import numpy as np

    rows = [[np.float32("nan"), 1.0]]
    assert render_rows(["x", "y"], rows, "csv") == "x,y\n,1.0"
    assert json.loads(render_rows(["x", "y"], rows, "json")) == [{"x": None, "y": 1.0}]
    assert render_rows(["x", "y"], rows).splitlines()[2].split() == ["1.0000"]


def test_a_table_without_columns_is_empty():
    assert render_rows([], [[]]) == render_rows([], [])
