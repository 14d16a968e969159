"""The HTML of the per-run reports: self-contained pages (inline CSS, the plots as inline SVG, no
script that runs, no external address) in the manner of TREC's appendix pages, and the index page with the
leaderboard. Every number shown is also in the page as data: a table cell carries its value at
full precision in ``data-value`` (its row's ``data-measure`` / ``data-topic`` / ``data-run``),
and ``<script type="application/json" id="pyeval-report-data">`` holds the page's numbers as
JSON (docs/reports.md says where each comes from).
"""
from __future__ import annotations

import html
import json
from collections.abc import Sequence

from ..output import cell_text, json_value
from .data import CURVE_MEASURES, CampaignData, RunData

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:1.5em auto;max-width:1100px;
color:#222;padding:0 1em;line-height:1.35}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.9em;margin:.3em 0}
th,td{padding:.15em .6em;border-bottom:1px solid #eee;text-align:left;vertical-align:top;white-space:nowrap}
.wide{overflow-x:auto}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
table.meta th{color:#555;font-weight:normal}
td.code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em;word-break:break-all;white-space:normal}
tr.main td{font-weight:600}tr.self td{background:#f3f6fb}
.better{color:#1b6e2a}.worse{color:#a61b29}.nav{font-size:.9em}.note{color:#555;font-size:.88em}
figure{margin:.5em 0}.plots{display:flex;flex-wrap:wrap;gap:.5em}.plots svg{max-width:100%;height:auto}
details{margin:.4em 0}summary{cursor:pointer;color:#335}
"""
#: The id of the JSON block of each page's numbers.
DATA_ID = "pyeval-report-data"


def _text(value) -> str:
    return html.escape("" if value is None else str(value))


def _number_cell(value, *, integer: bool = False, p_value: bool = False, classes: str = "n") -> str:
    """A numeric cell: 4 decimals shown (a count as an integer, a tiny p-value as ``< 0.0001``),
    the full value in ``data-value``."""
    shown = cell_text(value, integer=integer, p_bound=1e-4 if p_value else None)
    full = "" if value is None else repr(float(value))
    return f'<td class="{classes}" data-value="{full}">{html.escape(shown)}</td>'


def _table(headers: Sequence[str], rows: Sequence[str], *, table_id: str, numeric: Sequence[bool]) -> str:
    head = "".join(f'<th class="{"n" if n else ""}">{_text(h)}</th>' for h, n in zip(headers, numeric))
    return (f'<div class="wide"><table id="{table_id}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody>'
            "</table></div>")


def _page(title: str, body: str, data: dict) -> str:
    payload = json.dumps(data, ensure_ascii=False, sort_keys=False).replace("</", "<\\/")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"generator\" content=\"pyeval report\">\n"
            f"<title>{_text(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}\n"
            f"<script type=\"application/json\" id=\"{DATA_ID}\">{payload}</script>\n</body>\n</html>\n")


def significance_legend(data: CampaignData) -> str:
    """The test behind the comparisons, as a legend: test, correction, alpha, B, topics."""
    test = data.significance
    if test is None:
        return "no significance test: the campaign has one run"
    details = [test.label]
    if test.replicates:
        details.append(f"B = {test.replicates}" + (f", seed {test.seed}" if test.seed is not None else ""))
    details.append("no correction" if test.correction == "none" else f"{_correction(test.correction)} correction "
                   "over every pair of the campaign's runs")
    details.append(f"alpha {test.alpha:g}")
    details.append(f"{test.topics} topics, {test.runs} runs")
    if test.filled:
        details.append(f"{test.filled} missing run-topic values taken as 0")
    return f"{data.main_measure}: " + ", ".join(details)


def _correction(name: str) -> str:
    from ..vocabulary import CORRECTIONS, lookup

    return lookup(CORRECTIONS, name).meaning


def _summed(data: CampaignData) -> set[str]:
    from pyeval.core.evaluation import summed_measures

    return set(summed_measures(data.measures))


def run_page(data: CampaignData, run_id: str, names: dict[str, str], svg: str | None, pdf: str | None,
             generated: str) -> str:
    """The page of ``run_id``: metadata, measures with the campaign's median and best and the
    run's rank, per-topic bars, the precision-recall curve, the significance against every
    other run. ``names``: each run's page stem (links); ``svg``: the figure; ``pdf``: the PDF's
    file name."""
    run = data.runs[run_id]
    summed = _summed(data)
    main = run.measures.get(data.main_measure)
    parts = [f'<p class="nav"><a href="index.html">{_text(data.campaign_id)}: every run</a>'
             + (f' · <a href="{_text(pdf)}">PDF</a>' if pdf else "") + "</p>",
             f'<h1>Run <span id="run-id">{_text(run_id)}</span></h1>',
             f'<p class="note">campaign {_text(data.campaign_id)}, judgment set {_text(data.judgment_set)}'
             f"; report made {_text(generated)}</p>"]
    if main is not None and main.position is not None:
        parts.append(f'<p id="rank" data-measure="{_text(data.main_measure)}" data-value="{main.position}">'
                     f"Rank <b>{main.position}</b> of {main.ranked_runs} runs on {_text(data.main_measure)}"
                     f" ({cell_text(main.value)}; median {cell_text(main.median)}, best {cell_text(main.best)})</p>")
    meta = run.metadata
    fields = [("tag", meta.get("run_tag")), ("team", meta.get("team")), ("system", meta.get("system")),
              ("date", cell_text(meta.get("run_date"))), ("tags", meta.get("tags")), ("file", meta.get("source_file")),
              ("sha256", meta.get("source_sha256")), ("loaded", cell_text(meta.get("loaded_at")))]
    rows = "".join(f'<tr data-field="{name}"><th>{name}</th><td class="{"code" if name in ("file", "sha256") else ""}">'
                   f"{_text(value)}</td></tr>" for name, value in fields)
    parts += ['<h2>Run</h2>', f'<table class="meta" id="metadata">{rows}</table>']
    parts += ["<h2>Measures</h2>", _measures_table(data, run, summed),
              '<p class="note">run: its mean as stored (run_means); median and best: over the campaign\'s '
              f"{main.ranked_runs if main else len(data.runs)} runs' means (best: the highest, the lowest where lower "
              "is better, none for a count); rank: the leaderboard's position (1 = best).</p>"]
    parts.append(f"<h2>Per topic: {_text(data.main_measure)} against the topic's median</h2>")
    if svg:
        parts.append(f'<figure id="figure">{svg}<figcaption class="note">Left: each topic\'s bar is the run\'s '
                     f"{_text(data.main_measure)} minus the median over the campaign's runs on that topic; "
                     "the dash marks the topic's best minus its median. Right: interpolated precision at trec_eval's "
                     "11 recall levels (IPrec@0.0 … IPrec@1.0), the dashed line the campaign's median."
                     "</figcaption></figure>")
    parts.append(_topics_table(data, run))
    parts.append("<h2>Interpolated precision-recall</h2>")
    parts.append(_curve_table(data, run_id))
    parts.append(f"<h2>Significance on {_text(data.main_measure)}</h2>")
    parts.append(_significance_section(data, run, names))
    parts.append(f'<p class="note">Made by pyeval report from the warehouse views run_means_by_set and '
                 f"scores_by_set (judgment set {_text(data.judgment_set)}).</p>")
    return _page(f"{run_id} — {data.campaign_id}", "\n".join(parts), page_data(data, run_id))


def _measures_table(data: CampaignData, run: RunData, summed: set[str]) -> str:
    rows = []
    for measure in data.measures:
        row = run.measures.get(measure)
        if row is None:
            continue
        integer = measure in summed
        classes = ' class="main"' if measure == data.main_measure else ""
        rank = "" if row.position is None else f"{row.position} / {row.ranked_runs}"
        rows.append(f'<tr data-measure="{_text(measure)}"{classes}><td>{_text(measure)}</td>'
                    + _number_cell(row.value, integer=integer) + _number_cell(row.median, integer=integer)
                    + _number_cell(row.best, integer=integer)
                    + f'<td class="n" data-value="{"" if row.position is None else row.position}">{rank}</td>'
                    + f'<td class="n">{row.topics}</td></tr>')
    return _table(["measure", "run", "median", "best", "rank", "topics"], rows, table_id="measures",
                  numeric=[False, True, True, True, True, True])


def _topics_table(data: CampaignData, run: RunData) -> str:
    from .plotdata import topic_order

    by_topic = {row.topic_id: row for row in run.topics}
    rows = []
    for topic in topic_order(by_topic):
        row = by_topic[topic]
        difference = None if row.value is None or row.median is None else row.value - row.median
        rows.append(f'<tr data-topic="{_text(topic)}"><td>{_text(topic)}</td>' + _number_cell(row.value)
                    + _number_cell(row.median) + _number_cell(row.best) + _number_cell(difference) + "</tr>")
    table = _table(["topic", "run", "median", "best", "run − median"], rows, table_id="topics",
                   numeric=[False, True, True, True, True])
    return (f"<details><summary>Per-topic {_text(data.main_measure)} ({len(rows)} topics: the stored scores)</summary>"
            f"{table}</details>")


def _curve_table(data: CampaignData, run_id: str) -> str:
    rows = []
    for (level, value, median), measure in zip(data.curve(run_id), CURVE_MEASURES):
        rows.append(f'<tr data-measure="{measure}"><td>{level:.1f}</td>' + _number_cell(value)
                    + _number_cell(median) + "</tr>")
    return _table(["recall", "interpolated precision", "campaign median"], rows, table_id="curve",
                  numeric=[True, True, True])


def _significance_section(data: CampaignData, run: RunData, names: dict[str, str]) -> str:
    if data.significance is None:
        return f'<p class="note">{_text(significance_legend(data))}</p>'
    order = {run_id: i for i, run_id in enumerate(data.order)}
    better = sum(c.verdict == "better" for c in run.comparisons)
    worse = sum(c.verdict == "worse" for c in run.comparisons)
    different = sum(c.verdict == "different" for c in run.comparisons)
    verdicts = f"significantly better than <b>{better}</b> and worse than <b>{worse}</b>"
    if different:
        verdicts = f"significantly different from <b>{different}</b>"
    summary = (f'<p id="significance-summary" data-better="{better}" data-worse="{worse}">{_text(run.run_id)} is '
               f"{verdicts} of the other {len(run.comparisons)} runs.</p>"
               f'<p class="note">{_text(significance_legend(data))}. Difference: the run\'s mean minus the other\'s '
               "over the test's topics.</p>")
    corrected = data.significance.correction != "none"
    rows = []
    for comparison in sorted(run.comparisons, key=lambda c: order.get(c.other, len(order))):
        link = (f'<a href="{names[comparison.other]}.html">{_text(comparison.other)}</a>'
                if comparison.other in names else _text(comparison.other))
        other = data.runs[comparison.other].measures.get(data.main_measure)
        verdict_class = comparison.verdict if comparison.verdict in ("better", "worse") else ""
        rows.append(f'<tr data-run="{_text(comparison.other)}"><td>{link}</td>'
                    + _number_cell(other.value if other else None) + _number_cell(comparison.mean_diff)
                    + _number_cell(comparison.pvalue, p_value=True)
                    + (_number_cell(comparison.p_adjusted, p_value=True) if corrected else "")
                    + f'<td class="{verdict_class}">{_text(comparison.verdict)}</td></tr>')
    headers = ["other run", data.main_measure, "difference", "p", *(["p adjusted"] if corrected else []), "verdict"]
    return summary + _table(headers, rows, table_id="significance",
                            numeric=[False, True, True, True, *([True] if corrected else []), False])


def index_page(data: CampaignData, names: dict[str, str], generated: str) -> str:
    """The campaign's leaderboard: every run, best first on the main measure, with its means of
    the measures; the runs with a page link to it."""
    summed = _summed(data)
    rows = []
    for run_id in data.order:
        run = data.runs[run_id]
        main = run.measures.get(data.main_measure)
        link = f'<a href="{names[run_id]}.html">{_text(run_id)}</a>' if run_id in names else _text(run_id)
        position = "" if main is None or main.position is None else str(main.position)
        cells = "".join(_number_cell(run.measures[m].value if m in run.measures else None, integer=m in summed)
                        for m in data.measures)
        rows.append(f'<tr data-run="{_text(run_id)}"><td class="n" data-value="{position}">{position}</td>'
                    f"<td>{link}</td><td>{_text(run.metadata.get('team'))}</td>"
                    f"<td>{_text(run.metadata.get('system'))}</td>{cells}</tr>")
    headers = ["rank", "run", "team", "system", *data.measures]
    table = _table(headers, rows, table_id="leaderboard", numeric=[True, False, False, False,
                                                                    *([True] * len(data.measures))])
    evaluated = (f"<p class=\"note\">Evaluated for these reports and stored (evaluation {data.evaluation_id}): "
                 f"{_text(', '.join(data.evaluated))}.</p>") if data.evaluated else ""
    body = (f"<h1>Campaign {_text(data.campaign_id)}: runs</h1>"
            f'<p class="note">judgment set {_text(data.judgment_set)}; {len(data.runs)} runs, ranked on '
            f"{_text(data.main_measure)} (rank 1 = best); {len(names)} run pages; made {_text(generated)}.</p>"
            f"{table}{evaluated}<p class=\"note\">Significance on each run's page: {_text(significance_legend(data))}."
            "</p><p class=\"note\">Made by pyeval report from the warehouse view run_means_by_set.</p>")
    return _page(f"{data.campaign_id}: runs", body, index_data(data, names))


def page_data(data: CampaignData, run_id: str) -> dict:
    """The numbers of ``run_id``'s page, as JSON values (NaN and NULL as null)."""
    run = data.runs[run_id]
    return {
        "campaign_id": data.campaign_id, "judgment_set": data.judgment_set, "run_id": run_id,
        "main_measure": data.main_measure,
        "metadata": {key: json_value(value) for key, value in run.metadata.items()},
        "measures": [{"measure": row.measure, "value": json_value(row.value), "median": json_value(row.median),
                      "best": json_value(row.best), "rank": row.position, "ranked_runs": row.ranked_runs,
                      "topics": row.topics, "evaluation_id": row.evaluation_id}
                     for row in run.measures.values()],
        "topics": [{"topic_id": row.topic_id, "value": json_value(row.value), "median": json_value(row.median),
                    "best": json_value(row.best)} for row in run.topics],
        "significance": None if data.significance is None else {
            "measure": data.main_measure, "test": data.significance.test, "correction": data.significance.correction,
            "alpha": data.significance.alpha, "replicates": data.significance.replicates,
            "pairs": [{"other": c.other, "mean_diff": json_value(c.mean_diff), "p": json_value(c.pvalue),
                       "p_adjusted": json_value(c.p_adjusted), "verdict": c.verdict} for c in run.comparisons]},
    }


def index_data(data: CampaignData, names: dict[str, str]) -> dict:
    """The numbers of the index page."""
    return {
        "campaign_id": data.campaign_id, "judgment_set": data.judgment_set, "main_measure": data.main_measure,
        "measures": data.measures,
        "runs": [{"run_id": run_id, "page": f"{names[run_id]}.html" if run_id in names else None,
                  "means": {m: json_value(data.runs[run_id].measures[m].value)
                            for m in data.measures if m in data.runs[run_id].measures}}
                 for run_id in data.order],
    }
