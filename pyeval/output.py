"""Rendering DataFrames for the terminal: text tables, markdown, CSV, JSON."""
from __future__ import annotations

import pandas as pd
from tabulate import tabulate

OUTPUT_FORMATS = ("table", "csv", "json", "markdown")


def render(frame: pd.DataFrame, fmt: str = "table") -> str:
    """``frame`` as text in one of :data:`OUTPUT_FORMATS` (no trailing newline)."""
    if fmt == "csv":
        return frame.to_csv(index=False, lineterminator="\n").rstrip("\n")
    if fmt == "json":
        return frame.to_json(orient="records", date_format="iso", indent=2)
    # Identifiers are text: '0001' must not print as 1, so only non-text columns parse numbers.
    text_columns = [i for i, dtype in enumerate(frame.dtypes) if not pd.api.types.is_numeric_dtype(dtype)]
    if frame.empty:
        text_columns = True  # tabulate indexes rows to apply a column list
    if fmt == "markdown":
        return tabulate(
            frame, headers="keys", tablefmt="github", showindex=False, disable_numparse=text_columns
        )
    if fmt == "table":
        return tabulate(
            frame,
            headers="keys",
            tablefmt="simple",
            showindex=False,
            floatfmt=".4f",
            disable_numparse=text_columns,
        )
    raise ValueError(f"output format must be one of {', '.join(OUTPUT_FORMATS)}; got {fmt!r}")
