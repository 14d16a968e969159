"""Coverage and leave-out tables as markdown or LaTeX (booktabs) for a paper (docs/pools.md)."""
from __future__ import annotations

import pandas as pd

from ..errors import PyevalError, require_choice
from .. import vocabulary
from ..vocabulary import names

TABLE_FORMATS = names(vocabulary.REPORT_FORMATS)


def paper_table(frame: pd.DataFrame, fmt: str = "markdown", digits: int = 4, caption: str | None = None) -> str:
    """``frame`` as a markdown table or a LaTeX tabular (numbers right-aligned, ``digits``
    decimals; missing values as a dash)."""
    from ..resampling.report import _escape

    require_choice("table format", fmt, TABLE_FORMATS)
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
               for c in frame.columns]

    def cell(value) -> str:
        if value is None or (not isinstance(value, (list, tuple)) and pd.isna(value)):
            return "--" if fmt == "latex" else "–"
        if isinstance(value, float):
            return f"{value:.{digits}f}"
        return _escape(str(value), fmt)

    header = [_escape(str(c), fmt) for c in frame.columns]
    cells = [[cell(v) for v in row] for row in frame.itertuples(index=False)]
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in cells]
        return "\n".join(lines)
    lines = [f"% {caption}" if caption else "% pyeval pool (docs/pools.md)",
             "\\begin{tabular}{" + "".join("r" if n else "l" for n in numeric) + "}", "\\toprule",
             " & ".join(header) + " \\\\", "\\midrule"]
    lines += [" & ".join(row) + " \\\\" for row in cells]
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines)
