"""Rendering results for the terminal: text tables, markdown, CSV, JSON.

Every format goes through one set of cell rules (:func:`cell_text`, :func:`json_value`):
integers print as integers (also a float column the caller names as counts), NULL/NaN as
nothing (``null`` in JSON), a DATE as ``YYYY-MM-DD``, a p-value below what can be shown as
``< bound``. Tables and markdown show 4 decimals; CSV and JSON keep full precision (Python's
shortest round-trip repr). Identifiers are text: ``'0001'`` never prints as 1.

Tables and markdown are rendered from plain rows (:func:`render_rows`), so that a command
whose result never was a DataFrame imports no pandas; a DataFrame goes through the same rows.
"""
from __future__ import annotations

import csv
import datetime
import io
import json
import math
import numbers
import sys
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from . import vocabulary
from .vocabulary import names

if TYPE_CHECKING:
    import pandas as pd

OUTPUT_FORMATS = names(vocabulary.OUTPUT_FORMATS)
#: The formats of commands that also print LaTeX (a booktabs tabular, special characters escaped).
REPORT_TABLE_FORMATS = names(vocabulary.REPORT_TABLE_FORMATS)

#: Columns holding p-values: below the bound they print as ``< bound`` in tables (so does a
#: statistic's own p-value named ``STATISTIC_p``, e.g. risk's ``TRisk_p``: :func:`is_p_value`).
P_VALUE_COLUMNS = frozenset({"p", "pvalue", "p_value", "p_adjusted"})


def is_p_value(column: str) -> bool:
    """Whether a column holds p-values (:data:`P_VALUE_COLUMNS`, or a name ending in ``_p``)."""
    return column in P_VALUE_COLUMNS or column.endswith("_p")

#: Decimals of tables and markdown; a p-value below 10^-DECIMALS prints as ``< 0.0001``.
DECIMALS = 4


def _is_missing(value: Any) -> bool:
    """None, a NaN of any number type (numpy's float32 too), and pandas' NA and NaT (only a
    loaded pandas makes those: rows of a command that never had a DataFrame import no pandas here)."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, (str, bool, int)):
        return False
    if isinstance(value, numbers.Real):
        return math.isnan(value)
    if "pandas" not in sys.modules:
        return False
    import pandas as pd

    return value is pd.NA or value is pd.NaT


def _date_or_time(value: datetime.datetime | datetime.date) -> str:
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    return value.isoformat()


def cell_text(value: Any, *, integer: bool = False, p_bound: float | None = None, full: bool = False) -> str:
    """One value as table/markdown text (``full``: as CSV text, every digit kept).

    ``integer``: a whole float prints without decimals (counts); ``p_bound``: a value below it
    prints as ``< bound`` (tables only: CSV keeps the number)."""
    if type(value) is str:  # the commonest cells first: the numbers' ABCs are slow to ask
        return value
    if type(value) is float:
        return _number_text(value, integer, p_bound, full)
    if _is_missing(value):
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return _number_text(float(value), integer, p_bound, full)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return _date_or_time(value)
    if _is_list(value):
        return "[" + ", ".join(cell_text(v, full=full) for v in value) + "]"
    return str(value)


def _number_text(number: float, integer: bool, p_bound: float | None, full: bool) -> str:
    """A float as :func:`cell_text` prints it (NaN: missing, as :func:`_is_missing` says)."""
    if math.isnan(number):  # a float cell skips _is_missing
        return ""
    if not math.isfinite(number):
        return "inf" if number > 0 else "-inf"
    if integer and number.is_integer():
        return str(int(number))
    if full:
        return repr(number)
    if p_bound is not None and number < p_bound:
        return f"< {p_bound:g}"
    return f"{number:.{DECIMALS}f}"


def _is_list(value: Any) -> bool:
    """A list value (DuckDB LIST/ARRAY: a Python list, or a numpy array from a DataFrame)."""
    return isinstance(value, (list, tuple)) or type(value).__name__ == "ndarray"


def json_value(value: Any, *, integer: bool = False) -> Any:
    """One value as JSON: null, an int, a float at full precision, a date's ISO text."""
    if _is_missing(value):
        return None
    if isinstance(value, bool) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "") == "b"):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            return "inf" if number > 0 else "-inf"
        return int(number) if integer and number.is_integer() else number
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if _is_list(value):
        return [json_value(v) for v in value]
    return value if isinstance(value, str) else str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def render_rows(
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    fmt: str = "table",
    *,
    integer_columns: Collection[str] = (),
    p_resolution: float | None = None,
) -> str:
    """Rows under ``headers`` as text (no trailing newline), by the cell rules of this module.

    ``integer_columns``: columns of whole numbers stored as floats (summed counts such as
    NumRet); ``p_resolution``: the smallest p-value the test can give (1/B of a resampled test),
    so that a smaller one prints as ``< 1/B`` in tables (at least ``< 0.0001``, what 4 decimals
    show)."""
    if fmt not in REPORT_TABLE_FORMATS:
        raise ValueError(f"output format must be one of {', '.join(REPORT_TABLE_FORMATS)}; got {fmt!r}")
    headers = [str(h) for h in headers]
    integer = [h in integer_columns for h in headers]
    if fmt == "json":
        return _dump_records([{h: json_value(v, integer=i) for h, v, i in zip(headers, row, integer)} for row in rows])
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(headers)
        writer.writerows([cell_text(v, integer=i, full=True) for v, i in zip(row, integer)] for row in rows)
        return buffer.getvalue().rstrip("\n")
    text = _table_cells(headers, rows, integer, p_resolution)
    align = ["right" if n else "left" for n in _numeric_columns(len(headers), rows)]
    table_format = {"markdown": "github", "latex": "latex_booktabs"}.get(fmt, "simple")
    if rows and headers and table_format == "simple" and _plain_cells(headers, text):
        return _simple_table(headers, text, align)
    from tabulate import tabulate  # 8 ms of imports (wcwidth), for markdown, LaTeX and wide text

    if not rows:
        return tabulate([], headers=headers, tablefmt=table_format, disable_numparse=True)
    return tabulate(text, headers=headers, tablefmt=table_format, disable_numparse=True, colalign=align)


def _plain_cells(headers: Sequence[str], cells: Sequence[Sequence[str]]) -> bool:
    """Whether every header and cell is printable ASCII text without surrounding spaces, whose
    width is its length (what :func:`_simple_table` lays out as tabulate would)."""
    return all(text.isascii() and text.isprintable() and text == text.strip()
               for row in (headers, *cells) for text in row)


def _simple_table(headers: Sequence[str], cells: Sequence[Sequence[str]], align: Sequence[str]) -> str:
    """tabulate's ``simple`` table of plain cells (:func:`_plain_cells`), laid out as tabulate
    0.9 and 0.10 lay it out (a column as wide as its widest cell, or its header and two spaces; two
    spaces between columns; each line's trailing spaces dropped: tests/test_output.py compares
    them), in a tenth of its time: tabulate types every cell (70 ms of ``pyeval evaluate -m
    official``'s 8,700 lines, docs/benchmarks.md)."""
    widths = [max([len(header) + 2, *(len(row[c]) for row in cells)]) for c, header in enumerate(headers)]
    pads = [str.rjust if side == "right" else str.ljust for side in align]

    def line(row: Sequence[str]) -> str:
        return "  ".join(pad(text, width) for pad, text, width in zip(pads, row, widths)).rstrip()

    return "\n".join([line(headers), "  ".join("-" * width for width in widths), *map(line, cells)])


def _table_cells(headers: Sequence[str], rows: Sequence[Sequence[Any]], integer: Sequence[bool],
                 p_resolution: float | None) -> list[list[str]]:
    """The text of every cell of a table or markdown (4 decimals; p-values below the test's
    resolution, at least what 4 decimals show, as ``< bound``)."""
    bound = max(p_resolution or 0.0, 10.0 ** -DECIMALS)
    p_bounds = [bound if is_p_value(h) else None for h in headers]
    return [[cell_text(v, integer=i, p_bound=b) for v, i, b in zip(row, integer, p_bounds)] for row in rows]


def _numeric_columns(width: int, rows: Sequence[Sequence[Any]]) -> list[bool]:
    """Which columns hold numbers only (missing values aside): aligned right."""
    return [all(_is_number(row[c]) or _is_missing(row[c]) for row in rows) and any(_is_number(row[c]) for row in rows)
            for c in range(width)]


#: Rows of a result's HTML table in a notebook (:func:`html_table`); a line counts the others.
HTML_ROWS = 40


def html_table(
    frame: pd.DataFrame,
    *,
    note: str = "",
    integer_columns: Collection[str] = (),
    p_resolution: float | None = None,
    max_rows: int = HTML_ROWS,
) -> str:
    """``frame`` as an HTML table for a notebook (``_repr_html_``), its cells as a table prints
    them (:func:`render_rows`' rules), every text escaped; beyond ``max_rows`` rows a line
    says how many more there are; ``note`` (a result's summary line) below it."""
    import html

    headers, rows = _frame_rows(_typed(frame.head(max_rows), integer_columns))
    integer = [h in integer_columns for h in headers]
    cells = _table_cells(headers, rows, integer, p_resolution)
    right = _numeric_columns(len(headers), rows)

    def cell(tag: str, text: str, numeric: bool) -> str:
        style = ' style="text-align: right"' if numeric else ' style="text-align: left"'
        return f"<{tag}{style}>{html.escape(text)}</{tag}>"

    head = "".join(cell("th", h, r) for h, r in zip(headers, right))
    body = "".join("<tr>" + "".join(cell("td", t, r) for t, r in zip(row, right)) + "</tr>" for row in cells)
    parts = [f'<table class="dataframe pyeval"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>']
    if len(frame) > max_rows:
        parts.append(f"<p>… {len(frame) - max_rows:,} more rows (all {len(frame):,} in <code>.df()</code>)</p>")
    if note:
        parts.append("<p>" + html.escape(note).replace("\n", "<br>") + "</p>")
    return "\n".join(parts)


def _frame_rows(frame: pd.DataFrame) -> tuple[list[str], list[tuple]]:
    """The headers and rows of a frame (:func:`_typed`) as :func:`render_rows` takes them."""
    columns = [frame[name].astype(object).tolist() for name in frame.columns]
    return [str(name) for name in frame.columns], list(zip(*columns)) if columns else []


def render(
    frame: pd.DataFrame,
    fmt: str = "table",
    *,
    integer_columns: Collection[str] = (),
    p_resolution: float | None = None,
) -> str:
    """``frame`` as text in one of :data:`OUTPUT_FORMATS` (no trailing newline), as
    :func:`render_rows` renders its rows; CSV and JSON are made column by column (pandas), with
    the same result. DATE columns (all times midnight, e.g. DuckDB's DATE) print as dates."""
    if fmt not in REPORT_TABLE_FORMATS:
        raise ValueError(f"output format must be one of {', '.join(REPORT_TABLE_FORMATS)}; got {fmt!r}")
    frame = _typed(frame, integer_columns)
    if fmt == "csv":
        return _frame_csv(frame)
    if fmt == "json":
        return _frame_json(frame)
    headers, rows = _frame_rows(frame)
    return render_rows(headers, rows, fmt, integer_columns=integer_columns, p_resolution=p_resolution)


def whole_counts(frame: pd.DataFrame, counts: Collection[str], *, by: str = "measure",
                 column: str = "value") -> pd.DataFrame:
    """A long-form frame (one ``column`` of values, one ``by`` naming each row's measure) whose
    values of the measures ``counts`` (summed counts such as NumRet) are Python ints where
    whole, so that every format prints them as integers; other values are left as they are."""
    if not len(counts) or frame.empty:
        return frame
    counted = frame[by].isin(list(counts)) & frame[column].notna()
    if not counted.any() or not _all_whole(frame.loc[counted, column]):
        return frame
    values = frame[column].astype(object)
    values[counted] = [int(v) for v in frame.loc[counted, column]]
    return frame.assign(**{column: values})


def _typed(frame: pd.DataFrame, integer_columns: Collection[str]) -> pd.DataFrame:
    """The frame with DATE columns as dates and ``integer_columns`` of whole floats as Int64."""
    import pandas as pd

    frame = frame.copy()
    frame.columns = [str(name) for name in frame.columns]
    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_datetime64_any_dtype(column.dtype) and column.dt.tz is None:
            present = column.dropna()
            if len(present) and (present == present.dt.normalize()).all():
                frame[name] = column.dt.date.astype(object).where(column.notna(), None)
        elif name in integer_columns and pd.api.types.is_float_dtype(column.dtype):
            present = column.dropna()
            if _all_whole(present):
                frame[name] = column.astype("Int64")
    return frame


def _all_whole(values) -> bool:
    """Whether every (finite) value is a whole number."""
    import numpy as np

    array = np.asarray(values, dtype=float)
    return bool(np.isfinite(array).all() and (array == np.round(array)).all())


def _list_columns(frame: pd.DataFrame) -> list[str]:
    """Columns of lists (a column's values share one type: its first value tells)."""
    listed = []
    for name in frame.columns:
        present = frame[name].dropna() if frame[name].dtype == object else ()
        if len(present) and _is_list(present.iloc[0]):
            listed.append(name)
    return listed


def _frame_csv(frame: pd.DataFrame) -> str:
    """CSV of the frame, cell for cell as :func:`cell_text` with ``full=True`` (pandas writes
    floats at full precision, NULL as nothing, dates as dates)."""
    import numpy as np

    frame = frame.copy()
    for name in _list_columns(frame):
        frame[name] = frame[name].map(lambda v: cell_text(v, full=True))
    for name in frame.columns:
        column = frame[name]
        if column.dtype.kind == "f" and np.isinf(column).any():
            frame[name] = column.astype(object).where(~np.isinf(column), np.where(column > 0, "inf", "-inf"))
    return frame.to_csv(index=False, lineterminator="\n").rstrip("\n")


def _json_default(value: Any) -> Any:
    converted = json_value(value)
    if converted is value:
        raise TypeError(f"cannot render {type(value).__name__} as JSON")
    return converted


def _frame_json(frame: pd.DataFrame) -> str:
    """JSON records of the frame, value for value as :func:`json_value`."""
    import numpy as np

    objects = frame.astype(object)
    objects = objects.where(frame.notna(), None)
    for name in frame.columns:
        column = frame[name]
        if column.dtype.kind == "f" and np.isinf(column).any():
            objects[name] = objects[name].where(~np.isinf(column), np.where(column > 0, "inf", "-inf"))
    return _dump_records(objects.to_dict("records"))


def _dump_records(records: list[dict]) -> str:
    """A JSON array with one record per line (json's C encoder; ``indent`` would use the slower
    pure-Python one)."""
    if not records:
        return "[]"
    lines = ",\n".join("  " + json.dumps(record, ensure_ascii=False, default=_json_default) for record in records)
    return f"[\n{lines}\n]"


def _narrowest(headers: Sequence[str]) -> int:
    """A lower bound of the width of a table or markdown table under ``headers``: every column
    at least as wide as its header (its ASCII characters counted), two characters between
    columns."""
    names = [str(h) for h in headers]
    return sum(len(name) for name in names if name.isascii()) + 2 * (len(names) - 1)


def fitting_rows(
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    fmt: str = "table",
    *,
    integer_columns: Collection[str] = (),
    width: int | None = None,
) -> str:
    """:func:`render_rows` of a wide result (one row per run, one column per measure), turned
    so that a table or markdown fits ``width`` (default: the terminal's, at least 100 columns):
    as printed when it fits; else one row per measure and one column per run; else one row per
    (run, measure). CSV and JSON are never turned. A form whose headers alone are wider than
    ``width`` is not rendered to be measured."""
    import shutil

    if fmt not in ("table", "markdown"):
        return render_rows(headers, rows, fmt, integer_columns=integer_columns)
    limit = width or max(shutil.get_terminal_size((100, 24)).columns, 100)

    def fitting(text: str) -> bool:
        return max(map(len, text.splitlines()), default=0) <= limit

    if _narrowest(headers) <= limit:
        text = render_rows(headers, rows, fmt, integer_columns=integer_columns)
        if fitting(text):
            return text

    def shown(measure: str, value: Any) -> Any:
        whole = measure in integer_columns and _is_number(value) and float(value).is_integer()
        return int(value) if whole else value

    measures = list(headers[1:])
    runs = ["measure", *(str(row[0]) for row in rows)]
    if _narrowest(runs) <= limit:
        turned = [[m, *(shown(m, row[i + 1]) for row in rows)] for i, m in enumerate(measures)]
        text = render_rows(runs, turned, fmt)
        if fitting(text):
            return text
    long = [[row[0], m, shown(m, row[i + 1])] for row in rows for i, m in enumerate(measures)]
    return render_rows([headers[0], "measure", "value"], long, fmt)

