"""The figures of the per-run reports (matplotlib, Agg): one figure of the campaign's plots,
drawn once and updated for each run (bar heights, the curve's values, titles: a run costs two
saves, not a new figure), saved as inline SVG for the HTML page and, with a text page of the
run's tables, as the PDF beside it.

Left: TREC's appendix bars, the run's value minus the topic's median for each topic of the
main measure, the topic's best minus its median marked; right: the run's interpolated
precision at trec_eval's 11 recall levels, with the campaign's median curve (docs/reports.md).
"""
from __future__ import annotations

import io
import os
import re

import numpy as np

from ..output import render_rows
from ..resampling.store import pyplot
from .data import CampaignData, RunData

ABOVE, BELOW, BEST, MEDIAN = "#4477aa", "#cc6677", "#222222", "#888888"
#: Fixed SVG settings: text as text (smaller, selectable), ids and dates that do not change between runs.
SVG_SETTINGS = {"svg.fonttype": "none", "svg.hashsalt": "pyeval-report"}
#: The text page of a PDF in the PDF's own Courier (no font embedded: ten times faster), when its
#: text is in that font's character set (Windows-1252); else in matplotlib's embedded font.
CORE_FONTS = {"pdf.use14corefonts": True, "font.monospace": ["Courier"]}
#: At most this many topic labels under the bars (every k-th beyond it; the page lists every topic).
MAX_TOPIC_LABELS = 15


def topic_order(topic_ids) -> list[str]:
    """Topics as TREC lists them: numbers by value, then names."""
    return sorted(set(topic_ids), key=lambda t: (0, int(t), t) if t.isdigit() else (1, 0, t))


class ReportFigures:
    """The plots of every run of one campaign (one figure, updated by :meth:`draw`)."""

    def __init__(self, data: CampaignData):
        plt = pyplot()
        self.plt = plt
        self.data = data
        rows = {}
        for run in data.runs.values():
            for row in run.topics:
                rows.setdefault(row.topic_id, row)
        self.topics = topic_order(rows)
        self.index = {topic: i for i, topic in enumerate(self.topics)}
        median = np.array([_float(rows[t].median) for t in self.topics])
        best = np.array([_float(rows[t].best) for t in self.topics])
        self.median = median
        self.figure, (bars, curve) = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [2.4, 1]})
        self.bars_axes, self.curve_axes = bars, curve
        x = np.arange(len(self.topics))
        self.bars = bars.bar(x, np.zeros(len(x)), width=0.8, color=ABOVE, label="run − median")
        bars.plot(x, best - median, linestyle="none", marker="_", markersize=7, markeredgewidth=1.6, color=BEST,
                  label="best − median")
        bars.axhline(0, color=MEDIAN, linewidth=0.8)
        differences = [best - median] + [self._differences(run) for run in data.runs.values()]
        finite = np.concatenate([d[np.isfinite(d)] for d in differences]) if differences else np.zeros(0)
        low, high = (float(finite.min()), float(finite.max())) if finite.size else (-1.0, 1.0)
        pad = 0.05 * max(high - low, 1e-9)
        bars.set_ylim(min(low, 0.0) - pad, max(high, 0.0) + pad)
        bars.set_xlim(-0.7, len(x) - 0.3)
        step = max(1, -(-len(x) // MAX_TOPIC_LABELS))
        bars.set_xticks(x[::step], [self.topics[i] for i in range(0, len(x), step)], rotation=90, fontsize=6)
        bars.set_xlabel("topic")
        bars.set_ylabel(f"{data.main_measure} − topic median")
        bars.legend(loc="upper right", fontsize=7, frameon=False)
        levels = np.linspace(0, 1, 11)
        curve_median = np.array([_float(median) for _, _, median in data.curve(next(iter(data.runs)))])
        self.curve_line, = curve.plot(levels, np.zeros(11), marker="o", markersize=3.5, color=ABOVE, label="run")
        curve.plot(levels, curve_median, linestyle="--", color=MEDIAN, label="campaign median")
        curve.set_xlim(0, 1)
        curve.set_ylim(0, 1.02)
        curve.set_xlabel("recall")
        curve.set_ylabel("interpolated precision")
        curve.set_title("Interpolated precision-recall (11 points)", fontsize=9)
        curve.legend(loc="upper right", fontsize=7, frameon=False)
        self.figure.tight_layout()
        self.page = None  # the PDF's text page, made when first needed
        self.page_text = None

    def _differences(self, run: RunData) -> np.ndarray:
        """The run's value minus the topic's median, by topic (NaN where it has no value)."""
        values = np.full(len(self.topics), np.nan)
        for row in run.topics:
            values[self.index[row.topic_id]] = _float(row.value)
        return values - self.median

    def draw(self, run_id: str) -> None:
        """Show ``run_id``'s bars and curve."""
        differences = self._differences(self.data.runs[run_id])
        for bar, difference in zip(self.bars, differences):
            shown = 0.0 if np.isnan(difference) else float(difference)
            bar.set_height(shown)
            bar.set_color(ABOVE if shown >= 0 else BELOW)
        self.curve_line.set_ydata([_float(value) for _, value, _ in self.data.curve(run_id)])
        self.bars_axes.set_title(f"{run_id}: {self.data.main_measure} per topic, difference from the topic's median",
                                 fontsize=9)

    def svg(self) -> str:
        """The figure as it is drawn, as an ``<svg>`` element to put inline in HTML."""
        buffer = io.StringIO()
        with self.plt.rc_context(SVG_SETTINGS):
            self.figure.savefig(buffer, format="svg", metadata={"Date": None})
        text = buffer.getvalue()
        text = text[text.index("<svg"):]
        return re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.DOTALL)

    def pdf(self, path: str | os.PathLike[str], title: str, tables: list[tuple[str, list[str], list[list]]]) -> None:
        """Write the PDF: a page of ``title`` and ``tables`` (caption, headers, rows; monospaced
        text), then the figure as it is drawn."""
        from matplotlib.backends.backend_pdf import PdfPages

        from pyeval.storage.ownership import FIGURE_METADATA

        if self.page is None:
            self.page = self.plt.figure(figsize=(8.27, 11.69))
            self.page_text = self.page.text(0.06, 0.96, "", family="monospace", fontsize=7, va="top", ha="left")
        blocks = [title, ""]
        for caption, headers, rows in tables:
            blocks += [caption, render_rows(headers, rows, "table"), ""]
        text = "\n".join(blocks)
        self.page_text.set_text(text)
        core = _core_encodable(text)
        self.page_text.set_fontweight("medium" if core else "normal")  # the weights each font has
        with PdfPages(path, metadata=FIGURE_METADATA["pdf"]) as pdf:
            with self.plt.rc_context(CORE_FONTS if core else {}):
                pdf.savefig(self.page)
            pdf.savefig(self.figure)

    def close(self) -> None:
        self.plt.close(self.figure)
        if self.page is not None:
            self.plt.close(self.page)


def _core_encodable(text: str) -> bool:
    try:
        text.encode("cp1252")
    except UnicodeEncodeError:
        return False
    return True


def _float(value) -> float:
    return np.nan if value is None else float(value)
