"""Per-run reports of a campaign, as TREC sends each participant at the end of a campaign
(``pyeval report``, docs/reports.md): for every run a self-contained HTML page (and a PDF
beside it) with its metadata, its measures against the campaign's median and best, its rank,
the per-topic bars of the main measure against each topic's median with the best marked, the
interpolated precision-recall curve and its significance against every other run; an index
page with the leaderboard.

    from pyeval.reports import write_reports
    written = write_reports(con, "web2012-adhoc", "reports/", measures=["AP", "nDCG@10"])
    written.pages, written.index

The numbers are read once for every run (:mod:`.data`, sql/reports/), the plots' numbers made
once (:mod:`.plotdata`) and drawn as SVG for the pages (:mod:`.svg`) and, for the PDFs, on one
matplotlib figure updated per run (:mod:`.figures`), the pages rendered by :mod:`.pages` into a
folder that must be new, empty or a report folder pyeval wrote (:mod:`.folder`).
"""
from __future__ import annotations

import datetime
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from .data import CURVE_MEASURES, DEFAULT_CORRECTION, DEFAULT_MAIN_MEASURE, DEFAULT_TEST, CampaignData, collect
from .folder import ReportFolder, page_name

__all__ = ["CURVE_MEASURES", "DEFAULT_MAIN_MEASURE", "Reports", "write_reports"]


@dataclass(frozen=True)
class Reports:
    """What :func:`write_reports` wrote: the folder, the index page, each run's page and PDF
    (None where matplotlib is missing), and the data shown."""

    folder: Path
    index: Path
    pages: dict[str, Path]
    pdfs: dict[str, Path | None]
    data: CampaignData

    def summary(self) -> str:
        """One line: what was written where."""
        pdfs = sum(p is not None for p in self.pdfs.values())
        evaluated = (f"; evaluated and stored {len(self.data.evaluated)} measures (evaluation "
                     f"{self.data.evaluation_id})" if self.data.evaluated else "")
        return (f"{self.data.campaign_id}: {len(self.pages)} run pages ({pdfs} PDFs) and the index written to "
                f"{self.folder}{os.sep} (main measure {self.data.main_measure}){evaluated}")


def _matplotlib() -> bool:
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def write_reports(con: duckdb.DuckDBPyConnection, campaign_id: str, out: str | os.PathLike[str], *,
                  runs: Sequence[str] | None = None, measures: Sequence[str] | None = None,
                  judgment_set: str | None = None, test: str = DEFAULT_TEST, correction: str = DEFAULT_CORRECTION,
                  alpha: float = 0.05, store: bool = True, pdf: bool = True) -> Reports:
    """Write the reports of ``campaign_id``'s runs (``runs``, default every run) into the folder
    ``out`` (new, empty, or one pyeval wrote: checked before any work). ``measures``: the
    measures of the tables (default every stored one), the first the main one (default AP);
    ``judgment_set``: whose scores (default the campaign's default set); ``test``,
    ``correction``, ``alpha``: the significance test of every pair of runs on the main measure
    (default a paired t-test, Holm's correction); measures missing for some run are evaluated
    and stored (``store=False``: refused instead); ``pdf``: a PDF beside each page (when
    matplotlib is installed)."""
    folder = ReportFolder.open(out)
    data = collect(con, campaign_id, runs=runs, measures=measures, judgment_set=judgment_set, test=test,
                   correction=correction, alpha=alpha, evaluate_missing=store)
    generated = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()
    taken: set[str] = {"index"}
    names = {run_id: page_name(run_id, taken) for run_id in data.pages}
    from . import pages, svg
    from .plotdata import PlotData

    plots = PlotData(data)
    figures = None
    files = {}
    try:
        if pdf and _matplotlib():
            from .figures import ReportFigures

            figures = ReportFigures(plots)
        for run_id in data.pages:
            pdf_name = f"{names[run_id]}.pdf" if figures is not None else None
            if figures is not None:
                figures.draw(run_id)
                files[pdf_name] = _pdf_writer(figures, data, run_id)
            text = pages.run_page(data, run_id, names, svg.figure(plots, run_id), pdf_name, generated)
            files[f"{names[run_id]}.html"] = _text_writer(text)
        files["index.html"] = _text_writer(pages.index_page(data, names, generated))
        written = folder.write(files, {"campaign_id": campaign_id, "judgment_set": data.judgment_set,
                                       "runs": {run_id: f"{names[run_id]}.html" for run_id in data.pages}})
    finally:
        if figures is not None:
            figures.close()
    by_name = {path.name: path for path in written}
    return Reports(folder.path, by_name["index.html"], {r: by_name[f"{names[r]}.html"] for r in data.pages},
                   {r: by_name.get(f"{names[r]}.pdf") for r in data.pages}, data)


def _text_writer(text: str):
    def write(path: Path) -> None:
        with open(path, "x", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    return write


def _pdf_writer(figures, data: CampaignData, run_id: str):
    """The PDF of ``run_id``, drawn now (the figure moves on to the next run): a function writing it."""
    import io

    buffer = io.BytesIO()
    figures.pdf(buffer, *_pdf_tables(data, run_id))
    content = buffer.getvalue()

    def write(path: Path) -> None:
        with open(path, "xb") as handle:
            handle.write(content)
    return write


def _pdf_tables(data: CampaignData, run_id: str) -> tuple[str, list]:
    """The PDF's text page: a title and the run's tables (metadata, measures, significance)."""
    run = data.runs[run_id]
    meta = run.metadata
    title = f"Run {run_id} — campaign {data.campaign_id} (judgment set {data.judgment_set})"
    fields = [["tag", meta.get("run_tag")], ["team", meta.get("team")], ["system", meta.get("system")],
              ["date", meta.get("run_date")], ["tags", meta.get("tags")], ["file", meta.get("source_file")],
              ["sha256", meta.get("source_sha256")]]
    measures = [[m, r.value, r.median, r.best, "" if r.position is None else f"{r.position} / {r.ranked_runs}"]
                for m in data.measures if (r := run.measures.get(m)) is not None]
    tables = [("Run", ["field", "value"], fields), ("Measures (median and best over the campaign's runs)",
                                                     ["measure", "run", "median", "best", "rank"], measures)]
    if data.significance is not None:
        from .pages import significance_legend

        order = {r: i for i, r in enumerate(data.order)}
        rows = [[c.other, c.mean_diff, c.p_adjusted, c.verdict]
                for c in sorted(run.comparisons, key=lambda c: order.get(c.other, len(order)))]
        tables.append((f"Significance ({significance_legend(data)})", ["other run", "difference", "p adjusted",
                                                                      "verdict"], rows))
    return title, tables
