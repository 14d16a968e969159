"""pyeval report (docs/reports.md) on the demo's ad hoc campaign (20 runs, built as `pyeval demo`
builds it, without the demo's other steps): every page's numbers, read back from the HTML (its
cells' data-value and its JSON block), equal the warehouse's scores and run_means; the pages are
self-contained and render in a real headless browser where one is installed; a folder pyeval did
not write is left alone."""
from __future__ import annotations

import html
import json
import re
import shutil
import statistics
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main

CAMPAIGN = "web2012-adhoc"


class PageReader(HTMLParser):
    """The numbers of a report page: each table's rows (their data-* key and the data-value of
    every numeric cell), the JSON block, the links, and every src/href address."""

    def __init__(self):
        super().__init__()
        self.tables: dict[str, list[tuple[dict, list[str]]]] = {}
        self.table: str | None = None
        self.row: tuple[dict, list[str]] | None = None
        self.json_text: list[str] | None = None
        self.data: dict | None = None
        self.addresses: list[str] = []
        self.svgs = 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.addresses += [value for key, value in attrs if key in ("src", "href") and value]
        if tag == "svg":
            self.svgs += 1
        if tag == "table":
            self.table = attributes.get("id")
            self.tables[self.table] = []
        elif tag == "tr" and self.table is not None:
            keys = {k: v for k, v in attributes.items() if k.startswith("data-")}
            self.row = (keys, []) if keys else None  # the header row has none
            if self.row is not None:
                self.tables[self.table].append(self.row)
        elif tag == "td" and self.row is not None and "data-value" in attributes:
            self.row[1].append(attributes["data-value"])
        elif tag == "script" and attributes.get("id") == "pyeval-report-data":
            self.json_text = []

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag == "script" and self.json_text is not None:
            self.data = json.loads("".join(self.json_text))
            self.json_text = None

    def handle_data(self, data):
        if self.json_text is not None:
            self.json_text.append(data)


def read_page(text: str) -> PageReader:
    reader = PageReader()
    reader.feed(text)
    reader.close()
    return reader


def _number(text: str) -> float | None:
    return float(text) if text else None


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    """The demo's ad hoc campaign (pyeval.demo.build_demo: 20 runs, the demo's measures
    stored) and `pyeval report` of it: (warehouse, report folder, the command's result)."""
    from pyeval.demo import build_demo

    folder = tmp_path_factory.mktemp("report")
    db = folder / "demo.duckdb"
    build_demo(db)
    out = folder / "reports"
    result = CliRunner().invoke(main, ["--db", str(db), "report", "-C", CAMPAIGN, "-o", str(out)])
    assert result.exit_code == 0, result.output
    return db, out, result


def _stored(db: Path):
    con = pyeval.connect(db, read_only=True)
    try:
        means = {(run, measure): value for run, measure, value in con.execute(
            "select run_id, measure, value from run_means where campaign_id = $c", {"c": CAMPAIGN}).fetchall()}
        scores = {(run, topic): value for run, topic, value in con.execute(
            "select run_id, topic_id, value from scores where campaign_id = $c and measure = 'AP'",
            {"c": CAMPAIGN}).fetchall()}
        positions = {(run, measure): position for run, measure, position in con.execute(
            "select run_id, measure, position from leaderboard where campaign_id = $c", {"c": CAMPAIGN}).fetchall()}
        runs = [run for run, in con.execute("select run_id from runs where campaign_id = $c order by run_id",
                                            {"c": CAMPAIGN}).fetchall()]
    finally:
        con.close()
    return means, scores, positions, runs


def test_every_page_shows_the_stored_means_scores_medians_bests_and_ranks(reported):
    db, out, result = reported
    means, scores, positions, runs = _stored(db)
    assert "20 run pages (20 PDFs)" in result.stderr and "evaluated and stored 11 measures" in result.stderr
    manifest = json.loads((out / "pyeval-report.json").read_text())
    assert sorted(manifest["runs"]) == runs
    measures = sorted({m for _, m in means})
    assert {f"IPrec@{level / 10:.1f}" for level in range(11)} <= set(measures)  # the curve, evaluated on demand
    for run in runs:
        page = read_page((out / manifest["runs"][run]).read_text(encoding="utf-8"))
        shown = {row["data-measure"]: values for row, values in page.tables["measures"]}
        assert "AP" in shown and "IPrec@0.5" not in shown  # the curve has its own table
        for measure, (value, median, best, rank) in shown.items():
            column = [means[(r, measure)] for r in runs]
            assert float(value) == means[(run, measure)], (run, measure)
            assert float(median) == pytest.approx(statistics.median(column), rel=1e-12, abs=1e-15)
            if measure.startswith("NumRet"):  # a count: no best, no rank
                assert best == "" and rank == ""
            else:
                assert float(best) == max(column) and int(rank) == positions[(run, measure)]
        curve = {row["data-measure"]: values for row, values in page.tables["curve"]}
        assert list(curve) == [f"IPrec@{level / 10:.1f}" for level in range(11)]
        for measure, (value, median) in curve.items():
            assert float(value) == means[(run, measure)]
            assert float(median) == pytest.approx(statistics.median(means[(r, measure)] for r in runs), abs=1e-15)
        topics = {row["data-topic"]: values for row, values in page.tables["topics"]}
        assert len(topics) == 50
        for topic, (value, median, best, difference) in topics.items():
            column = [scores[(r, topic)] for r in runs]
            assert float(value) == scores[(run, topic)]
            assert float(median) == pytest.approx(statistics.median(column), abs=1e-15) and float(best) == max(column)
            assert float(difference) == pytest.approx(float(value) - float(median), abs=1e-15)
        data = page.data
        assert data["run_id"] == run and data["main_measure"] == "AP"
        assert {t["topic_id"]: t["value"] for t in data["topics"]} == {t: scores[(run, t)] for t in topics}
        assert {m["measure"]: m["value"] for m in data["measures"]} == {
            m: means[(run, m)] for m in [*shown, *curve]}
        assert page.svgs >= 1


def test_the_index_is_the_leaderboard_linking_every_page(reported):
    db, out, _ = reported
    means, _, positions, runs = _stored(db)
    index = read_page((out / "index.html").read_text(encoding="utf-8"))
    rows = index.tables["leaderboard"]
    assert sorted(row["data-run"] for row, _ in rows) == runs
    ranks = [int(values[0]) for _, values in rows]
    assert ranks == sorted(ranks) and ranks[0] == 1
    for row, values in rows:
        assert int(values[0]) == positions[(row["data-run"], "AP")]
    measures = index.data["measures"]
    assert measures[0] == "AP"
    for entry in index.data["runs"]:
        assert entry["means"] == {m: means[(entry["run_id"], m)] for m in measures}
        assert (out / entry["page"]).is_file() and entry["page"] in index.addresses


def test_the_significance_is_pyevals_paired_t_test_with_holm(reported):
    from pyeval.resampling import significance

    db, out, _ = reported
    con = pyeval.connect(db, read_only=True)
    try:
        expected = significance(con, CAMPAIGN, "AP", "t", correction="holm", store=False).pairs
    finally:
        con.close()
    p_adjusted = {(a, b): p for a, b, p in zip(expected["run_a"], expected["run_b"], expected["p_adjusted"])}
    page = read_page((out / "run-indri-ql.html").read_text(encoding="utf-8"))
    pairs = page.data["significance"]["pairs"]
    assert page.data["significance"]["test"] == "t" and page.data["significance"]["correction"] == "holm"
    assert len(pairs) == 19
    for pair in pairs:
        key = ("indri-ql", pair["other"]) if ("indri-ql", pair["other"]) in p_adjusted else (pair["other"], "indri-ql")
        assert pair["p_adjusted"] == pytest.approx(p_adjusted[key], rel=1e-12)
    summary = page.tables["significance"]
    assert len(summary) == 19
    text = (out / "run-indri-ql.html").read_text(encoding="utf-8")
    assert "paired t-test, Holm correction" in text


def test_pages_are_self_contained_and_each_has_its_pdf(reported):
    from pyeval.storage.ownership import FIGURE_MARKER

    _, out, _ = reported
    pages = sorted(out.glob("run-*.html"))
    assert len(pages) == 20
    for page in [*pages, out / "index.html"]:
        text = page.read_text(encoding="utf-8")
        reader = read_page(text)
        assert all(not address.startswith(("http:", "https:", "//", "file:")) for address in reader.addresses)
        assert "<script src" not in text and "<link" not in text and "@import" not in text
        assert set(re.findall(r"url\((.)", text)) <= {"#"}  # only the figure's own clip paths
    for page in pages:
        pdf = page.with_suffix(".pdf").read_bytes()
        assert pdf.startswith(b"%PDF-") and FIGURE_MARKER.encode() in pdf and len(pdf) > 5000


def _browser() -> list[str] | None:
    for name in ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return [found, *([] if name == "chromium-headless-shell" else ["--headless"]), "--no-sandbox",
                    "--disable-gpu"]
    return None


#: A page that loads every report page in a frame and, once all are rendered, writes what each
#: shows (the measures' and topics' cells as the browser renders their text, and the figure's size
#: on screen) into its own document, which --dump-dom prints: one browser start for every page.
HARNESS = """<!DOCTYPE html><html><body><pre id="out"></pre>%s<script>
window.addEventListener("load", () => {
  const pages = {};
  for (const frame of document.querySelectorAll("iframe")) {
    const doc = frame.contentDocument;
    doc.querySelectorAll("details").forEach(details => { details.open = true; });  // as a reader unfolds them
    const cells = (selector, key) => Array.from(doc.querySelectorAll(selector)).map(
      row => [row.getAttribute(key), Array.from(row.querySelectorAll("td[data-value]")).map(
        td => [td.innerText, td.getAttribute("data-value")])]);
    const svg = doc.querySelector("svg");
    pages[frame.dataset.run] = {
      measures: cells("#measures tr[data-measure]", "data-measure"),
      topics: cells("#topics tr[data-topic]", "data-topic"),
      figure: svg ? [svg.getBoundingClientRect().width, svg.getBoundingClientRect().height] : null,
    };
  }
  document.getElementById("out").textContent = JSON.stringify(pages);
});
</script></body></html>"""


def test_a_headless_browser_renders_each_page_with_the_stored_numbers(reported, tmp_path):
    from pyeval.output import cell_text

    browser = _browser()
    if browser is None:
        pytest.skip("no headless browser installed (chromium-headless-shell, chromium or google-chrome); "
                    "the pages are read as HTML by the other tests")
    db, out, _ = reported
    means, scores, _, runs = _stored(db)
    manifest = json.loads((out / "pyeval-report.json").read_text())
    frames = "".join(f'<iframe data-run="{run}" src="{(out / manifest["runs"][run]).resolve().as_uri()}" '
                     'width="1100" height="900"></iframe>' for run in runs)
    harness = tmp_path / "harness.html"
    harness.write_text(HARNESS % frames, encoding="utf-8")
    dom = subprocess.run([*browser, "--allow-file-access-from-files", "--dump-dom", harness.as_uri()],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    shown = json.loads(html.unescape(re.search(r'<pre id="out">(.*?)</pre>', dom, re.DOTALL).group(1)))
    assert sorted(shown) == runs
    for run, page in shown.items():
        width, height = page["figure"]
        assert width > 300 and height > 100  # the figure is drawn on the page
        measures = {measure: cells[0] for measure, cells in page["measures"]}
        assert "AP" in measures
        for measure, (text, value) in measures.items():
            integer = measure.startswith("NumRet")
            assert float(value) == means[(run, measure)]
            assert text == cell_text(means[(run, measure)], integer=integer)  # what the reader sees
        topics = {topic: cells[0] for topic, cells in page["topics"]}
        assert len(topics) == 50
        for topic, (text, value) in topics.items():
            assert float(value) == scores[(run, topic)] and text == cell_text(scores[(run, topic)])
    shot = tmp_path / "index.png"
    subprocess.run([*browser, f"--screenshot={shot}", "--window-size=1000,800", (out / "index.html").resolve().as_uri()],
                   capture_output=True, timeout=60, check=True)
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[0] == 800 and np.ptp(pixels[..., :3]) > 0.5  # drawn: text on a white page


def test_a_folder_pyeval_did_not_write_is_left_alone(reported, tmp_path):
    db, out, _ = reported
    runner = CliRunner()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("my notes\n")
    result = runner.invoke(main, ["--db", str(db), "report", "-C", CAMPAIGN, "-o", str(foreign)])
    assert result.exit_code == 1 and "is not a report folder pyeval wrote" in result.output
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    (copy / "run-sim01.html").write_text("edited by hand\n")
    result = runner.invoke(main, ["--db", str(db), "report", "-C", CAMPAIGN, "-o", str(copy), "--runs", "sim02"])
    assert result.exit_code == 1 and "run-sim01.html: not a file pyeval wrote" in result.output
    assert (copy / "run-sim01.html").read_text() == "edited by hand\n"
    (copy / "run-sim01.html").unlink()
    (copy / "extra.html").write_text("<p>mine</p>")
    result = runner.invoke(main, ["--db", str(db), "report", "-C", CAMPAIGN, "-o", str(copy), "--runs", "sim02"])
    assert result.exit_code == 1 and "extra.html: not a file pyeval wrote" in result.output
    (copy / "extra.html").unlink()
    # its own folder: rewritten, the pages of runs no longer reported removed
    result = runner.invoke(main, ["--db", str(db), "report", "-C", CAMPAIGN, "-o", str(copy), "--runs", "sim02",
                                  "--no-pdf", "--no-store"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in copy.iterdir()) == ["index.html", "pyeval-report.json", "run-sim02.html"]
    result = runner.invoke(main, ["--db", str(db), "report", "-C", CAMPAIGN, "-o", str(tmp_path / "no" / "such")])
    assert result.exit_code == 1 and "no such directory" in result.output


def test_missing_measures_are_refused_with_no_store_and_unknown_runs_named(con):
    import pandas as pd

    from pyeval.errors import PyevalError
    from pyeval.reports import write_reports

    pyeval.load_qrels(con, "c", pd.DataFrame([("1", "a", 1), ("2", "b", 1)], columns=["query_id", "doc_id", "relevance"]))
    for name in ("r", "s"):
        pyeval.load_run(con, "c", pd.DataFrame([("1", "a", 2.0), ("1", "b", 1.0), ("2", "b", 1.0)],
                                               columns=["query_id", "doc_id", "score"]), name=name)
    with pytest.raises(PyevalError, match="no stored means of AP, IPrec@0.0"):
        write_reports(con, "c", "unused", store=False)
    with pytest.raises(PyevalError, match="no run named 'x'"):
        write_reports(con, "c", "unused", runs=["x"])
    with pytest.raises(PyevalError, match="RelString@10: values are text"):  # refused before anything is evaluated
        write_reports(con, "c", "unused", measures=["AP", "RelString@10"])
    assert con.execute("select count(*) from evaluations").fetchone()[0] == 0


def test_runs_named_in_any_script_get_their_pages_and_pdfs(con, tmp_path):
    """A run name that is no file name, or not in the PDF core fonts' characters (matplotlib's
    embedded font then), has its page and PDF; missing measures are evaluated and stored."""
    import pandas as pd

    from pyeval.reports import write_reports

    pyeval.load_qrels(con, "c", pd.DataFrame([("1", "a", 1), ("2", "b", 1)], columns=["query_id", "doc_id", "relevance"]))
    for name, order in (("a/b", "ab"), ("Łódź", "ba")):
        pyeval.load_run(con, "c", pd.DataFrame([("1", order[0], 2.0), ("1", order[1], 1.0), ("2", "b", 1.0)],
                                               columns=["query_id", "doc_id", "score"]), name=name)
    written = write_reports(con, "c", tmp_path / "out")
    assert written.data.evaluated[0] == "AP" and written.data.evaluation_id is not None
    for run, page in written.pages.items():
        reader = read_page(page.read_text(encoding="utf-8"))
        assert reader.data["run_id"] == run and page.name.startswith("run-") and "/" not in page.stem[4:]
        assert written.pdfs[run].read_bytes().startswith(b"%PDF-")
    ap = {row["data-measure"]: values[0] for row, values in read_page(
        written.pages["a/b"].read_text(encoding="utf-8")).tables["measures"]}["AP"]
    assert float(ap) == con.execute("select value from run_means where run_id = 'a/b' and measure = 'AP'").fetchone()[0]


def test_page_names_are_safe_and_distinct():
    from pyeval.reports.folder import FILE_NAME, page_name

    taken: set[str] = set()
    names = [page_name(run, taken) for run in ("run1", "Run1", "a/b", "a_b", "../x", "ünï")]
    assert names[0] == "run-run1" and names[3] == "run-a_b"
    assert len({n.lower() for n in names}) == len(names)
    assert all(FILE_NAME.fullmatch(f"{n}.html") for n in names)


@pytest.fixture
def figures(monkeypatch):
    """The figures the --plot options save (then saved as usual)."""
    from pyeval.resampling import store

    saved = []
    original = store.save_figure

    def keep(figure, path, dpi=None):
        saved.append(figure)
        original(figure, path, dpi)

    monkeypatch.setattr(store, "save_figure", keep)
    return saved


def test_evaluate_compare_and_significance_plot(reported, tmp_path, figures):
    from pyeval.storage.ownership import is_pyeval_figure

    db, _, _ = reported
    runner = CliRunner()
    commands = {
        "evaluate.png": ["evaluate", "-m", "AP", "-m", "P@10", "-m", "NumRet(rel=1)", "--no-store"],
        "compare.svg": ["compare", "-m", "AP", "-m", "P@10", "--baseline", "indri-ql", "--test", "t", "--no-store"],
        "significance.pdf": ["significance", "-m", "AP", "--test", "t", "--correction", "holm", "--no-store"],
    }
    for name, command in commands.items():
        result = runner.invoke(main, ["--db", str(db), command[0], "-C", CAMPAIGN, *command[1:], "--plot",
                                      str(tmp_path / name)])
        assert result.exit_code == 0, result.output
        assert f"plotted to {tmp_path / name}" in result.stderr
        assert is_pyeval_figure(tmp_path / name) and (tmp_path / name).stat().st_size > 5000
    evaluate, compare, significance = figures
    assert [ax.get_title() for ax in evaluate.axes] == ["AP (mean, 95% CI)", "P@10 (mean, 95% CI)",
                                                         "NumRet(rel=1) (as aggregated)"]
    assert len(evaluate.axes[0].get_yticklabels()) == 20
    assert "difference from indri-ql" in compare.axes[1].get_title()
    assert len(compare.axes[1].get_yticklabels()) == 19  # every run but the baseline
    image = significance.axes[0].get_images()[0].get_array()
    assert image.shape == (20, 20) and np.allclose(image, image.T)
    # the evaluate command prints the same means with and without --plot
    plain = runner.invoke(main, ["--db", str(db), "evaluate", "-C", CAMPAIGN, "-m", "AP", "-m", "P@10", "-m",
                                 "NumRet(rel=1)", "--no-store"])
    plotted = runner.invoke(main, ["--db", str(db), "evaluate", "-C", CAMPAIGN, "-m", "AP", "-m", "P@10", "-m",
                                   "NumRet(rel=1)", "--no-store", "--plot", str(tmp_path / "evaluate.png")])
    assert plotted.exit_code == 0 and plotted.stdout == plain.stdout


def test_a_report_folder_left_by_a_killed_run_is_taken_back(tmp_path):
    """Half-written copies a killed run left are removed; a file whose old or new content the
    manifest lists (a run killed while swapping) is accepted; anything else is refused."""
    from pyeval.errors import NotOwnedError
    from pyeval.reports.folder import MANIFEST, ReportFolder

    def text(content: str):
        return lambda path: path.write_text(content)

    out = tmp_path / "reports"
    ReportFolder.open(out).write({"index.html": text("one"), "run-a.html": text("a1")}, {"campaign_id": "c"})
    (out / ".run-a.html.4242.0123abcd.tmp.html").write_text("half")  # a write killed before its swap
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["files"]["run-a.html"].append("0" * 64)  # killed while swapping: old and new content listed
    (out / MANIFEST).write_text(json.dumps(manifest))
    folder = ReportFolder.open(out)
    assert [p.name for p in folder.leftovers] == [".run-a.html.4242.0123abcd.tmp.html"]
    folder.write({"index.html": text("two")}, {"campaign_id": "c"})
    assert sorted(p.name for p in out.iterdir()) == ["index.html", MANIFEST]  # run-a's page gone, leftover too
    assert (out / "index.html").read_text() == "two"
    (out / "index.html").write_text("edited")
    with pytest.raises(NotOwnedError, match="index.html: not a file pyeval wrote"):
        ReportFolder.open(out)
    (out / "index.html").unlink()
    (out / "sub").mkdir()
    with pytest.raises(NotOwnedError, match="sub: not a file pyeval wrote"):
        ReportFolder.open(out)
