"""Comparison reports: a run x measure table of means with significance marks (like ranx's
report), in Markdown or LaTeX (booktabs), from stored pairwise tests.

Without a baseline every run gets a letter (a, b, c, ... in row order) and each cell carries
the letters of the runs it is significantly better than on that measure. With a baseline, a
cell is marked ▲ (Markdown) / $\\uparrow$ (LaTeX) when the run is significantly better than the
baseline and ▼ / $\\downarrow$ when significantly worse. The best mean of each column is bold.
"""
from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from pyeval.core.db import default_judgment_set, first_row, stores_in_one_transaction
from ..display import Displayed
from ..errors import PyevalError, with_command_line, require_choice
from ..vocabulary import CORRECTIONS, lookup, significance_test
from .matrix import canonical_measure, score_matrix
from .significance import (
    DEFAULT_REPLICATES,
    DEFAULT_SEED,
    TESTS,
    store_result,
    test_matrix,
)
from .. import vocabulary
from ..vocabulary import names

REPORT_FORMATS = names(vocabulary.REPORT_FORMATS)

_FIND = """
select test_id
from significance_tests
where campaign_id = $campaign_id and judgment_set = $judgment_set and measure = $measure and test = $test
  and run_ids = $runs
  and correction = $correction and coalesce(evaluation_id, -1) = $evaluation_id
  and coalesce(replicates, -1) = $replicates and coalesce(seed, -1) = $seed
  and coalesce(comparison, '') = $comparison
order by test_id desc
limit 1
"""


@dataclass(repr=False)
class Comparison(Displayed):
    """``means``: run x measure means (rows in report order); ``pairs``: each measure's stored
    pairwise results (measure, run_a, run_b, mean_a, mean_b, p, p_adjusted); ``test_ids``."""

    campaign_id: str
    test: str
    alpha: float
    correction: str
    baseline: str | None
    means: pd.DataFrame
    pairs: pd.DataFrame
    test_ids: dict[str, int | None]
    replicates: int | None
    seed: int | None
    #: Optional risk columns (``compare --risk-alpha``): runs x "URisk_α(measure)", "GeoRisk_α(measure)".
    risk: pd.DataFrame | None = None
    judgment_set: str = "official"  # the judgment set whose scores were compared

    def df(self) -> pd.DataFrame:
        """The means, run x measure (rows in report order), with the risk columns when asked."""
        return self.means if self.risk is None else self.means.join(self.risk)

    def _repr_html_(self) -> str:
        """The report as an HTML table (the marks of the Markdown one) and its legend."""
        import html

        header = "".join(f"<th>{html.escape(str(h))}</th>" for h in ["run", *self.means.columns, *self._extra_headers()])
        rows = "".join("<tr>" + "".join(f'<td style="text-align: {"left" if i == 0 else "right"}">{cell}</td>'
                                        for i, cell in enumerate(cells)) + "</tr>" for cells in self._cells("html"))
        return (f'<table class="dataframe pyeval"><thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table>\n'
                f"<p>{html.escape(self.legend())}</p>")

    def _better(self, measure: str) -> dict[tuple[str, str], bool]:
        """(winner, loser) -> True for each significant pair of ``measure``."""
        rows = self.pairs[(self.pairs["measure"] == measure) & (self.pairs["p_adjusted"] < self.alpha)]
        wins = {}
        for row in rows.itertuples(index=False):
            if row.mean_a > row.mean_b:
                wins[(row.run_a, row.run_b)] = True
            elif row.mean_b > row.mean_a:
                wins[(row.run_b, row.run_a)] = True
        return wins

    def labels(self) -> dict[str, str]:
        """Run -> its letter (a, b, ..., z, aa, ab, ...)."""
        letters = string.ascii_lowercase
        names = {}
        for i, run in enumerate(self.means.index):
            names[run] = letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26]
        return names

    def _cells(self, fmt: str) -> list[list[str]]:
        labels = self.labels()
        rows = []
        best = {m: self.means[m].max() for m in self.means.columns}
        wins = {m: self._better(m) for m in self.means.columns}
        for run in self.means.index:
            name = _escape(run, fmt)
            cells = [name if self.baseline else f"({labels[run]}) {name}"]
            for measure in self.means.columns:
                value = self.means.at[run, measure]
                text = f"{value:.4f}"
                if value == best[measure]:
                    text = {"markdown": f"**{text}**", "html": f"<b>{text}</b>"}.get(fmt, f"\\textbf{{{text}}}")
                if self.baseline:
                    if run != self.baseline and (run, self.baseline) in wins[measure]:
                        text += " ▲" if fmt != "latex" else "$^{\\uparrow}$"
                    elif run != self.baseline and (self.baseline, run) in wins[measure]:
                        text += " ▼" if fmt != "latex" else "$^{\\downarrow}$"
                else:
                    beaten = "".join(labels[other] for other in self.means.index if (run, other) in wins[measure])
                    if beaten:
                        text += f"<sup>{beaten}</sup>" if fmt != "latex" else f"$^{{{beaten}}}$"
                cells.append(text)
            if self.risk is not None:
                cells += [f"{self.risk.at[run, column]:.4f}" for column in self.risk.columns]
            rows.append(cells)
        return rows

    def _extra_headers(self) -> list[str]:
        return list(self.risk.columns) if self.risk is not None else []

    def legend(self) -> str:
        """What the marks mean: test, B, seed, α, correction."""
        test = significance_test(self.test).label
        details = [f"B = {self.replicates}"] if self.replicates else []
        if self.seed is not None:
            details.append(f"seed {self.seed}")
        if self.correction != "none":
            details.append(f"{lookup(CORRECTIONS, self.correction).meaning} correction")
        what = (f"significantly better (▲) or worse (▼) than {self.baseline}" if self.baseline
                else "superscripts: the runs each run is significantly better than")
        legend = f"{test}{' (' + ', '.join(details) + ')' if details else ''}, p < {self.alpha:g}; {what}"
        if self.risk is not None:
            legend += (f"; URisk against {self.baseline or 'the per-topic mean of the runs'}, GeoRisk against every "
                       "compared run (docs/risk.md)")
        if self.judgment_set != "official":
            legend += f"; scores under judgment set {self.judgment_set}"
        return legend

    def to_markdown(self) -> str:
        header = ["run", *self.means.columns, *self._extra_headers()]
        lines = ["| " + " | ".join(_escape(h, "markdown") for h in header) + " |",
                 "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
        lines += ["| " + " | ".join(cells) + " |" for cells in self._cells("markdown")]
        return "\n".join(lines) + "\n\n" + self.legend()

    def to_latex(self) -> str:
        """A booktabs tabular (needs \\usepackage{booktabs}); the legend as a comment."""
        header = ["Run", *self.means.columns, *self._extra_headers()]
        lines = [f"% {self.legend().replace('▲', 'uparrow').replace('▼', 'downarrow')}",
                 "\\begin{tabular}{l" + "r" * (len(header) - 1) + "}", "\\toprule",
                 " & ".join(_escape(h, "latex") for h in header) + " \\\\", "\\midrule"]
        lines += [" & ".join(cells) + " \\\\" for cells in self._cells("latex")]
        lines += ["\\bottomrule", "\\end{tabular}"]
        return "\n".join(lines)

    def render(self, fmt: str = "markdown") -> str:
        require_choice("report format", fmt, REPORT_FORMATS)
        return self.to_markdown() if fmt == "markdown" else self.to_latex()


_LATEX_SPECIALS = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_",
                   "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}"}


def _escape(text: str, fmt: str) -> str:
    if fmt == "html":
        import html

        return html.escape(str(text))
    if fmt == "latex":
        return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in str(text))
    return str(text).replace("|", "\\|")


@stores_in_one_transaction
@default_judgment_set()
def compare(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[str],
    *,
    baseline: str | None = None,
    test: str = "bootstrap",
    alpha: float = 0.05,
    correction: str = "none",
    runs: Sequence[str] | None = None,
    replicates: int | None = None,
    seed: int = DEFAULT_SEED,
    comparison: str = "ge",
    store: bool = True,
    risk_alpha: float | None = None,
    judgment_set: str | None = None,
) -> Comparison:
    """The comparison report of ``measures`` over ``runs`` (default: every run scored on all of
    them). Each measure's pairwise results come from the latest stored test with the same runs,
    scores (evaluation), test, B, seed and correction; a missing one is computed (and stored
    when ``store``). ``judgment_set``: the scores compared are those stored under that set."""
    require_choice("test", test, TESTS)
    if not measures:
        raise with_command_line(PyevalError("no measure requested (measures=['AP', 'nDCG@10'], say)"),
                                "no measure requested (e.g. -m AP -m nDCG@10)")
    names = list(dict.fromkeys(canonical_measure(m) for m in measures))
    matrices = {name: score_matrix(con, campaign_id, name, runs, judgment_set) for name in names}
    common = sorted(set.intersection(*(set(m.run_ids) for m in matrices.values())))
    if len(common) < 2:
        raise PyevalError(f"fewer than 2 runs of campaign '{campaign_id}' have stored scores for every measure")
    if baseline is not None and baseline not in common:
        raise PyevalError(f"baseline '{baseline}' is not among the compared runs of campaign '{campaign_id}'")
    traits = significance_test(test)
    B = replicates or traits.default_b
    applied = correction if traits.corrected else "none"
    frames, test_ids, used_seed, used_b = [], {}, None, None
    for name in names:
        matrix = matrices[name]
        if list(matrix.run_ids) != common:
            matrix = matrices[name] = score_matrix(con, campaign_id, name, common, judgment_set)
        found = first_row(con, _FIND, {
            "campaign_id": campaign_id, "judgment_set": judgment_set, "measure": name, "test": test, "runs": common,
            "correction": applied,
            "evaluation_id": matrix.evaluation_id if matrix.evaluation_id is not None else -1,
            "replicates": -1 if traits.closed_form else _expected_b(test, B, len(matrix.topic_ids)),
            "seed": -1 if traits.closed_form or _exact(test, B, len(matrix.topic_ids)) else seed,
            "comparison": "" if traits.closed_form else comparison,
        })
        if found is not None:
            test_id = found[0]
            pairs = con.execute(
                "select run_a, run_b, mean_a, mean_b, p, p_adjusted from pairwise_tests where test_id = $id",
                {"id": test_id},
            ).df()
        else:
            result = test_matrix(matrix, test, con=con, replicates=replicates, seed=seed, alpha=alpha,
                                 correction=correction, comparison=comparison, store_replicates=store)
            test_id = store_result(con, result) if store else None
            pairs = result.pairs.rename(columns={"pvalue": "p"})[["run_a", "run_b", "mean_a", "mean_b", "p",
                                                                  "p_adjusted"]]
        row = first_row(con, "select replicates, seed from significance_tests where test_id = $id",
                        {"id": test_id}) if test_id is not None else None
        if row is not None:
            used_b, used_seed = row
        elif test_id is None:
            used_b, used_seed = result.replicates, result.seed
        test_ids[name] = test_id
        pairs.insert(0, "measure", name)
        frames.append(pairs)
    means = _run_means(con, matrices).loc[common]
    order = means.sort_values(names[0], ascending=False, kind="stable").index.tolist()
    if baseline is not None:
        order.remove(baseline)
        order.insert(0, baseline)
    risk = _risk_columns(matrices, baseline, risk_alpha).loc[order] if risk_alpha is not None else None
    return Comparison(campaign_id, test, alpha, applied, baseline, means.loc[order], pd.concat(frames, ignore_index=True),
                      test_ids, used_b, used_seed, risk, judgment_set)


def _risk_columns(matrices: dict, baseline: str | None, risk_alpha: float) -> pd.DataFrame:
    """Runs x URisk_α (against ``baseline``, or the per-topic mean of the compared runs) and
    GeoRisk_α (every compared run as baseline) of each measure (pyeval/resampling/risk.py)."""
    from .risk import MEAN_BASELINE, Baseline, risk_frames

    chosen = Baseline(baseline, (baseline,)) if baseline is not None else Baseline(MEAN_BASELINE, ())
    columns = {}
    for name, matrix in matrices.items():
        table, _, _ = risk_frames(matrix, [chosen], [risk_alpha])
        for measure_kind in ("URisk", "GeoRisk"):
            rows = table[table["risk_measure"] == measure_kind].set_index("run_id")["value"]
            if len(rows):
                columns[f"{measure_kind}@{risk_alpha:g} {name}"] = rows
    return pd.DataFrame(columns)


def _run_means(con: duckdb.DuckDBPyConnection, matrices: dict) -> pd.DataFrame:
    """Each run's value of each measure over the matrix's topics, combined as the measure declares
    (mean, sum for counts, geometric mean for GMAP: the ``measures`` table's ``aggregate``), by
    sql/evaluation/means.sql as ``pyeval evaluate`` combines them. Runs x measures."""
    from pyeval.core.evaluation import means_into, parse_measures

    frames = [
        pd.DataFrame({"run_id": np.repeat(np.asarray(matrix.run_ids, dtype=object), len(matrix.topic_ids)),
                      "topic_id": np.tile(np.asarray(matrix.topic_ids, dtype=object), len(matrix.run_ids)),
                      "measure": name, "value": matrix.values.T.reshape(-1)})
        for name, matrix in matrices.items()
    ]
    measures = [parse_measures(name)[0] for name in matrices]
    con.register("compare_scores", pd.concat(frames, ignore_index=True))
    try:
        means_into(con, measures, "compare_means", scores="compare_scores")
        rows = con.execute("select run_id, measure, value from compare_means").df()
        con.execute("drop table compare_means")
    finally:
        con.unregister("compare_scores")
    table = rows.pivot(index="run_id", columns="measure", values="value")
    return table[list(matrices)]


def _exact(test: str, B: int | None, n: int) -> bool:
    return test == "randomization" and B is not None and 2 ** n <= B


def _expected_b(test: str, B: int | None, n: int) -> int:
    return 2 ** n if _exact(test, B, n) else (B if B is not None else -1)
