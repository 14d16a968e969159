"""The PDF beside each run's page (matplotlib, Agg): a first page of the run's tables
(monospaced text) and a second of its plots, one figure for the campaign drawn once and updated
for each run (bar heights and colours, the curve, the title: a run costs two saves, not a new
figure). The HTML page's plots are SVG written from the same numbers (:mod:`.svg`).

Left: TREC's appendix bars, the run's value minus the topic's median for each topic of the main
measure, the topic's best minus its median marked; right: the run's interpolated precision at
trec_eval's 11 recall levels, with the campaign's median curve (docs/reports.md).
"""
from __future__ import annotations


import contextlib
import logging

import numpy as np

from ..output import render_rows
from ..resampling.store import pyplot
from .plotdata import LEVELS, PlotData

ABOVE, BELOW, BEST, MEDIAN = "#4477aa", "#cc6677", "#222222", "#888888"
#: At most this many topic labels under the bars (every k-th beyond it; the page lists every topic).
MAX_TOPIC_LABELS = 15
#: The PDF's own fonts, Helvetica and Courier (nothing embedded: a page is written two to ten
#: times faster), for a text the fonts' character set (Windows-1252) holds; else matplotlib's
#: embedded fonts. Their one weight is "medium"; the minus sign is ASCII's.
CORE_FONTS = {"pdf.use14corefonts": True, "font.family": "sans-serif", "font.sans-serif": ["Helvetica"],
              "font.monospace": ["Courier"], "font.weight": "medium", "axes.unicode_minus": False}


def core_encodable(text: str) -> bool:
    """Whether ``text`` is in the PDF core fonts' character set."""
    try:
        text.encode("cp1252")
    except UnicodeEncodeError:
        return False
    return True


class ReportFigures:
    """The PDFs of every run of one campaign (one figure, updated by :meth:`draw`)."""

    def __init__(self, plots: PlotData):
        self.plt = pyplot()
        self.plots = plots
        data = plots.data
        self.core = core_encodable(" ".join([data.main_measure, *plots.topics, *data.runs]))
        with self._fonts(self.core):
            self._make(plots)

    @contextlib.contextmanager
    def _fonts(self, core: bool):
        """The PDF core fonts (``core``) or matplotlib's; matplotlib's notes that the core fonts
        have no weight "normal" and no TrueType file are silenced (the fonts are chosen on purpose)."""
        if not core:
            yield
            return
        fonts = logging.getLogger("matplotlib.font_manager")
        level = fonts.level
        fonts.setLevel(logging.ERROR)
        try:
            with self.plt.rc_context(CORE_FONTS):
                yield
        finally:
            fonts.setLevel(level)

    def _make(self, plots: PlotData) -> None:
        plt, data = self.plt, plots.data
        dash = "-" if self.core else "−"
        self.figure, (bars, curve) = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [2.4, 1]})
        self.bars_axes = bars
        x = np.arange(len(plots.topics))
        self.bars = bars.bar(x, np.zeros(len(x)), width=0.8, color=ABOVE, label=f"run {dash} median")
        bars.plot(x, plots.best_differences, linestyle="none", marker="_", markersize=7, markeredgewidth=1.6,
                  color=BEST, label=f"best {dash} median")
        bars.axhline(0, color=MEDIAN, linewidth=0.8)
        bars.set_ylim(plots.low, plots.high)
        bars.set_xlim(-0.7, len(x) - 0.3)
        step = max(1, -(-len(x) // MAX_TOPIC_LABELS))
        bars.set_xticks(x[::step], [plots.topics[i] for i in range(0, len(x), step)], rotation=90, fontsize=6)
        bars.set_xlabel("topic")
        bars.set_ylabel(f"{data.main_measure} {dash} topic median")
        bars.legend(loc="upper right", fontsize=7, frameon=False)
        self.curve_line, = curve.plot(LEVELS, np.zeros(11), marker="o", markersize=3.5, color=ABOVE, label="run")
        curve.plot(LEVELS, plots.curve_median, linestyle="--", color=MEDIAN, label="campaign median")
        curve.set_xlim(0, 1)
        curve.set_ylim(0, 1.02)
        curve.set_xlabel("recall")
        curve.set_ylabel("interpolated precision")
        curve.set_title("Interpolated precision-recall (11 points)", fontsize=9)
        curve.legend(loc="upper right", fontsize=7, frameon=False)
        self.figure.subplots_adjust(left=0.07, right=0.985, bottom=0.17, top=0.9, wspace=0.2)  # tight_layout measures every text: slow
        self.page = plt.figure(figsize=(8.27, 11.69))
        self.page_text = self.page.text(0.06, 0.96, "", family="monospace", fontsize=7, va="top", ha="left")

    def draw(self, run_id: str) -> None:
        """Show ``run_id``'s bars and curve."""
        for bar, difference in zip(self.bars, self.plots.differences(run_id)):
            shown = 0.0 if np.isnan(difference) else float(difference)
            bar.set_height(shown)
            bar.set_color(ABOVE if shown >= 0 else BELOW)
        self.curve_line.set_ydata(self.plots.curve(run_id))
        self.bars_axes.set_title(f"{run_id}: {self.plots.data.main_measure} per topic, difference from the "
                                 "topic's median", fontsize=9)

    def pdf(self, path, title: str, tables: list[tuple[str, list[str], list[list]]]) -> None:
        """Write the PDF to ``path`` (a path or a binary file): a page of ``title`` and ``tables``
        (caption, headers, rows; monospaced text), then the figure as it is drawn."""
        from matplotlib.backends.backend_pdf import PdfPages

        from pyeval.storage.ownership import FIGURE_METADATA

        blocks = [title, ""]
        for caption, headers, rows in tables:
            blocks += [caption, render_rows(headers, rows, "table"), ""]
        text = "\n".join(blocks)
        self.page_text.set_text(text)
        core = core_encodable(text)
        with PdfPages(path, metadata=FIGURE_METADATA["pdf"]) as pdf:
            with self._fonts(core):
                self.page_text.set_fontweight("medium" if core else "normal")  # the weights each font has
                pdf.savefig(self.page)
            with self._fonts(self.core):
                pdf.savefig(self.figure)

    def close(self) -> None:
        self.plt.close(self.figure)
        self.plt.close(self.page)
