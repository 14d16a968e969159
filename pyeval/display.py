"""How a result of the Python API shows itself: ``print(result)`` and ``repr`` give the table
the command line prints (:meth:`Displayed.render`), a notebook shows it as an HTML table
(``_repr_html_``, at most :data:`pyeval.output.HTML_ROWS` rows), and ``df()`` /
``to_pandas()`` give its main table as a DataFrame, every column kept.

A result class inherits :class:`Displayed` and gives ``df()``; it narrows what is shown, as
its command prints it, with ``_display_frame`` (the columns printed), ``_display_note`` (the
summary line the command prints below) and ``_display_options`` (counts printed as integers,
the test's p-value resolution). A dataclass result is declared ``@dataclass(repr=False)`` so
that its ``repr`` is this one.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


class Displayed:
    """A result's text, notebook display and DataFrame, from its ``df()``."""

    def df(self) -> pd.DataFrame:
        """The result's main table, every column."""
        raise NotImplementedError

    def to_pandas(self) -> pd.DataFrame:
        """:meth:`df` (the name pandas-minded libraries use)."""
        return self.df()

    def _display_frame(self) -> pd.DataFrame:
        """The table as its command prints it (default: :meth:`df`)."""
        return self.df()

    def _display_note(self) -> str:
        """The line(s) its command prints below the table (default none)."""
        return ""

    def _display_options(self) -> dict[str, Any]:
        """``integer_columns`` and ``p_resolution`` of :func:`pyeval.output.render`."""
        return {}

    def render(self, fmt: str = "table", *, note: bool = True) -> str:
        """The table as the command prints it on stdout, in one of the output formats (table,
        markdown, csv, json, latex); with ``note``, a table or markdown ends with the summary
        line(s) the command prints on stderr."""
        from .output import render

        text = render(self._display_frame(), fmt, **self._display_options())
        below = self._display_note() if note and fmt in ("table", "markdown") else ""
        return f"{text}\n{below}" if below else text

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        try:
            return self.render()
        except Exception:  # a result too broken to render is still shown as what it is
            return f"<{type(self).__module__}.{type(self).__qualname__} object>"

    def _repr_html_(self) -> str:
        """The table as HTML for a notebook, bounded (:func:`pyeval.output.html_table`)."""
        from .output import html_table

        return html_table(self._display_frame(), note=self._display_note(), **self._display_options())
