"""Rendering results for the terminal: text tables, markdown, CSV, JSON.

Tables and markdown are rendered from plain rows (:func:`render_rows`), so that a command
whose result never was a DataFrame imports no pandas; a DataFrame goes through the same rows.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tabulate import tabulate

if TYPE_CHECKING:
    import pandas as pd

OUTPUT_FORMATS = ("table", "csv", "json", "markdown")


def render(frame: pd.DataFrame, fmt: str = "table") -> str:
    """``frame`` as text in one of :data:`OUTPUT_FORMATS` (no trailing newline)."""
    import pandas as pd

    if fmt == "csv":
        return frame.to_csv(index=False, lineterminator="\n").rstrip("\n")
    if fmt == "json":
        return frame.to_json(orient="records", date_format="iso", indent=2)
    # Identifiers are text: '0001' must not print as 1, so only non-text columns parse numbers.
    text_columns = [i for i, dtype in enumerate(frame.dtypes) if not pd.api.types.is_numeric_dtype(dtype)]
    return _tabulate(frame, "keys", fmt, text_columns)


def render_rows(headers: Sequence[str], rows: Sequence[tuple], fmt: str = "table") -> str:
    """Rows under ``headers`` as :func:`render` renders the DataFrame of them; text columns are
    those holding a string. CSV and JSON go through pandas, which defines them."""
    if fmt in ("csv", "json"):
        import pandas as pd

        return render(pd.DataFrame(list(rows), columns=list(headers)), fmt)
    text_columns = [i for i in range(len(headers)) if any(isinstance(row[i], str) for row in rows)]
    return _tabulate(list(rows), list(headers), fmt, text_columns)


def _tabulate(data, headers, fmt: str, text_columns: list[int]) -> str:
    empty = len(data) == 0
    disable = True if empty else text_columns  # tabulate indexes rows to apply a column list
    if fmt == "markdown":
        return tabulate(data, headers=headers, tablefmt="github", showindex=False, disable_numparse=disable)
    if fmt == "table":
        return tabulate(data, headers=headers, tablefmt="simple", showindex=False, floatfmt=".4f",
                        disable_numparse=disable)
    raise ValueError(f"output format must be one of {', '.join(OUTPUT_FORMATS)}; got {fmt!r}")
