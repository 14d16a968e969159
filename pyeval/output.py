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
    if fmt == "markdown":
        return tabulate(frame, headers="keys", tablefmt="github", showindex=False)
    if fmt == "table":
        return tabulate(frame, headers="keys", tablefmt="simple", showindex=False, floatfmt=".4f")
    raise ValueError(f"output format must be one of {', '.join(OUTPUT_FORMATS)}; got {fmt!r}")
