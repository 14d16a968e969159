"""Judgment sets of a campaign and how far they agree (docs/judgments.md).

- :func:`list_sets`: the sets and their provenance;
- :func:`derive` / :func:`holes` (pyeval/judgments/derive.py): sets made in SQL from stored sets;
- :func:`compare`: label agreement (pyeval/judgments/agreement.py) and, for each measure, score
  and ranking agreement (pyeval/judgments/ranking.py) of one or more candidate sets against a
  reference set, stored (tables judgment_comparisons, judgment_agreement, judgment_confusion,
  judgment_ranking_agreement) and returned as DataFrames, with tables for papers and plots.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
import pandas as pd

from pyeval.core.db import create_rows, first_row, judgment_set_or_default, transaction
from ..display import Displayed
from ..errors import PyevalError, require_choice, with_command_line
from ..loaders import judgment_sets
from .agreement import COEFFICIENTS, LabelAgreement, label_agreement
from . import nuggets
from .derive import DERIVATIONS, derive, holes
from .ranking import ON_MISSING, RankingAgreement, ranking_agreement

__all__ = ["COEFFICIENTS", "DERIVATIONS", "ON_MISSING", "Comparison", "LabelAgreement", "RankingAgreement",
           "compare", "default_set", "derive", "holes", "label_agreement", "list_sets", "ranking_agreement",
           "set_default"]

#: The label coefficients and ranking statistics of :meth:`Comparison.summary`, in order.
SUMMARY_LABELS = (("cohen_kappa_binary", "threshold"), ("cohen_kappa_linear", None), ("cohen_kappa_quadratic", None),
                  ("krippendorff_alpha_ordinal", None), ("raw_agreement", None), ("jaccard_relevant", "threshold"))
SUMMARY_RANKING = ("kendall_tau_b", "tau_ap", "spearman_rho", "pearson_r", "reference_best_run_rank",
                   "significant_pairs_kept", "bland_altman_bias_run_means")
#: The summary's columns that hold whole numbers.
SUMMARY_COUNTS = ("reference_best_run_rank",)


def list_sets(con: duckdb.DuckDBPyConnection, campaign_id: str | None = None, *,
              working: bool = False) -> pd.DataFrame:
    """The judgment sets (of ``campaign_id``, or of every campaign), with judgment and topic counts
    and which is each campaign's default; the leave-one-group-out working sets of pool analyses
    only with ``working``."""
    return judgment_sets.sets_frame(con, campaign_id, working=working)


def default_set(con: duckdb.DuckDBPyConnection, campaign_id: str) -> str:
    """The campaign's default judgment set (campaigns.default_judgment_set; ``official`` for a
    campaign not stored yet): what every relation that names no set shows."""
    return judgment_set_or_default(con, campaign_id, None)


def set_default(con: duckdb.DuckDBPyConnection, campaign_id: str, judgment_set: str) -> None:
    """Make ``judgment_set`` the campaign's default set (docs/judgments.md)."""
    judgment_sets.set_default(con, campaign_id, judgment_set)


@dataclass(repr=False)
class Comparison(Displayed):
    """The result of :func:`compare`: for each candidate, its :class:`LabelAgreement` and, for
    each measure, its :class:`RankingAgreement`; the stored comparison ids (one per candidate's
    labels and one per candidate and measure) and, in ``stored``, what each id compared."""

    campaign_id: str
    reference: str
    labels: dict[str, LabelAgreement] = field(default_factory=dict)
    rankings: dict[tuple[str, str], RankingAgreement] = field(default_factory=dict)
    comparison_ids: list[int] = field(default_factory=list)
    stored: dict[int, tuple[str, str | None]] = field(default_factory=dict)  # id -> (candidate, measure or None)

    def df(self) -> pd.DataFrame:
        """:meth:`summary`: one row per candidate set and measure."""
        return self.summary()

    def _display_note(self) -> str:
        return f"stored as {self.stored_text()}" if self.comparison_ids else ""

    def stored_text(self) -> str:
        """``comparison 1 (stricter: labels), 2 (stricter: AP)``: each stored id and what it compared."""
        parts = [f"{i} ({candidate}: {measure or 'labels'})" for i, (candidate, measure) in self.stored.items()]
        return f"comparison{'s' if len(parts) > 1 else ''} {', '.join(parts)}"

    def agreement(self) -> pd.DataFrame:
        """Every label-agreement row, with the candidate's name."""
        return pd.concat([part.agreement.assign(candidate_set=name) for name, part in self.labels.items()],
                         ignore_index=True)

    def ranking(self) -> pd.DataFrame:
        """Every ranking-agreement row, with the candidate's name and the measure."""
        if not self.rankings:
            return pd.DataFrame(columns=["candidate_set", "measure", "statistic", "top_k", "value", "runs",
                                         "topics", "warning"])
        return pd.concat([part.table.assign(candidate_set=name, measure=measure)
                          for (name, measure), part in self.rankings.items()], ignore_index=True)

    def summary(self) -> pd.DataFrame:
        """One row per (candidate, measure): the overall label coefficients and the ranking
        statistics over all runs, columns named by their coefficient."""
        rows = []
        for name, labels in self.labels.items():
            overall = labels.agreement[labels.agreement["topic_id"].isna()]
            row: dict[str, object] = {"candidate_set": name}
            for coefficient, at in SUMMARY_LABELS:
                part = overall[overall["coefficient"] == coefficient]
                if at == "threshold":
                    part = part[part["threshold"] == labels.threshold]
                    coefficient = f"{coefficient}@{labels.threshold}"
                row[coefficient] = part["value"].iloc[0] if len(part) else None
            measures = [m for (n, m) in self.rankings if n == name] or [None]
            for measure in measures:
                full = dict(row, measure=measure)
                if measure is not None:
                    table = self.rankings[name, measure].table
                    for statistic in SUMMARY_RANKING:
                        part = table[(table["statistic"] == statistic) & table["top_k"].isna()]
                        full[statistic] = part["value"].iloc[0] if len(part) else None
                rows.append(full)
        frame = pd.DataFrame(rows)
        for column in SUMMARY_COUNTS:  # a rank is a whole number: printed as one
            if column in frame:
                frame[column] = frame[column].astype("Int64")
        return frame[["candidate_set", "measure", *[c for c in frame.columns if c not in ("candidate_set", "measure")]]]

    def table(self, fmt: str = "markdown", digits: int = 3) -> str:
        """:meth:`summary` as a markdown or LaTeX (booktabs) table to paste into a paper."""
        from ..resampling.report import REPORT_FORMATS, _escape

        require_choice("table format", fmt, REPORT_FORMATS)
        frame = self.summary()
        header = [_escape(str(column), fmt) for column in frame.columns]

        def cell(value) -> str:
            if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
                return "--" if fmt == "latex" else "–"
            if isinstance(value, float):
                return f"{value:.{digits}f}"
            return _escape(str(value), fmt)

        cells = [[cell(value) for value in row] for row in frame.itertuples(index=False)]
        if fmt == "markdown":
            lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---", "---"] + ["---:"] * (len(header) - 2)) + "|"]
            lines += ["| " + " | ".join(row) + " |" for row in cells]
            return "\n".join(lines)
        lines = [f"% judgment sets of {self.campaign_id} against {self.reference} (docs/judgments.md)",
                 "\\begin{tabular}{ll" + "r" * (len(header) - 2) + "}", "\\toprule",
                 " & ".join(header) + " \\\\", "\\midrule"]
        lines += [" & ".join(row) + " \\\\" for row in cells]
        lines += ["\\bottomrule", "\\end{tabular}"]
        return "\n".join(lines)

    def plot_means(self, path, candidate: str, measure: str):
        """Each run's mean under the reference (x) and the candidate (y), with the line y = x."""
        from ..resampling.store import pyplot, save_figure

        part = self.rankings[candidate, canonical(measure)]
        plt = pyplot()
        figure, axes = plt.subplots(figsize=(4.8, 4.4), dpi=120)
        axes.scatter(part.means["reference"], part.means["candidate"], s=14)
        low = float(min(part.means["reference"].min(), part.means["candidate"].min()))
        high = float(max(part.means["reference"].max(), part.means["candidate"].max()))
        axes.plot([low, high], [low, high], color="grey", linewidth=1, linestyle="--", label="y = x")
        tau = part.table[(part.table["statistic"] == "kendall_tau_b") & part.table["top_k"].isna()]["value"].iloc[0]
        axes.set_xlabel(f"{part.measure} under {self.reference}")
        axes.set_ylabel(f"{part.measure} under {candidate}")
        axes.set_title(f"{self.campaign_id}: {len(part.means)} runs (Kendall's tau-b "
                       f"{'n/a' if pd.isna(tau) else f'{tau:.3f}'})", fontsize=9)
        axes.legend(fontsize=8)
        axes.grid(alpha=0.3)
        save_figure(figure, path)
        return path

    def plot_bland_altman(self, path, candidate: str, measure: str, scope: str = "run_means"):
        """Bland-Altman plot (Bland & Altman 1986) of the run means (``scope`` run_means) or of
        the per-topic scores (topic_scores): mean of the two sets (x) against candidate −
        reference (y), with the bias and the limits of agreement."""
        from ..resampling.store import pyplot, save_figure

        part = self.rankings[candidate, canonical(measure)]
        pairs = part.means if scope == "run_means" else part.differences
        average = (pairs["reference"] + pairs["candidate"]) / 2
        difference = pairs["candidate"] - pairs["reference"]
        values = {row.statistic: row.value for row in part.table.itertuples(index=False)}
        plt = pyplot()
        figure, axes = plt.subplots(figsize=(5.6, 4.0), dpi=120)
        axes.scatter(average, difference, s=10 if scope == "run_means" else 4, alpha=0.8)
        for key, style in (("bias", "-"), ("lower", "--"), ("upper", "--")):
            value = values.get(f"bland_altman_{key}_{scope}")
            if value is not None and not pd.isna(value):
                axes.axhline(value, color="grey", linestyle=style, linewidth=1)
                axes.annotate(f"{key} {value:+.3f}", (1.0, value), xycoords=("axes fraction", "data"),
                              fontsize=7, ha="right", va="bottom")
        axes.set_xlabel(f"mean of {self.reference} and {candidate} ({part.measure})")
        axes.set_ylabel(f"{candidate} − {self.reference}")
        axes.set_title(f"Bland-Altman: {part.measure}, {'run means' if scope == 'run_means' else 'per-topic scores'}",
                       fontsize=9)
        axes.grid(alpha=0.3)
        save_figure(figure, path)
        return path


def canonical(measure: str) -> str:
    from ..resampling.matrix import canonical_measure

    return canonical_measure(measure)


def compare(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    reference: str,
    candidates: Sequence[str],
    measures: Sequence[str] = (),
    *,
    threshold: int | None = None,
    top_k: Sequence[int] = (10,),
    test: str = "t",
    alpha: float = 0.05,
    on_missing: str = "error",
    runs: Sequence[str] | None = None,
    store: bool = True,
) -> Comparison:
    """Compare each of ``candidates`` with the judgment set ``reference`` of ``campaign_id``:
    label agreement, and for each of ``measures`` (evaluated under a set first when it has no
    stored scores there) score and ranking agreement. ``threshold``: the binary relevance
    threshold of the chosen kappa, Jaccard and overlap (None: 1; 2, support against the rest, for
    nugget assignment sets, pyeval/judgments/nuggets.py); ``top_k``: the reference's best k runs,
    whose rank correlations are added; ``test`` and ``alpha``: the significance test of the
    significant-pair agreement; ``on_missing``: runs or topics scored under one set only are an
    error, a stored warning, or left out quietly. Stored with ``store``."""
    if not candidates:
        raise with_command_line(PyevalError("name at least one candidate judgment set (candidates=[NAME])"),
                                "name at least one candidate judgment set (--candidate NAME)")
    if threshold is not None and threshold < 1:
        raise PyevalError(f"the relevance threshold must be at least 1; got {threshold}")
    require_choice("on_missing", on_missing, ON_MISSING)
    candidates = list(dict.fromkeys(candidates))
    for name in [reference, *candidates]:
        judgment_sets.require_set(con, campaign_id, name)
    if threshold is None:
        threshold = nuggets.default_threshold(con, campaign_id, reference)
    if reference in candidates:
        raise PyevalError(f"the reference set '{reference}' is also a candidate")
    result = Comparison(campaign_id, reference)
    for candidate in candidates:
        result.labels[candidate] = label_agreement(con, campaign_id, reference, candidate, threshold=threshold)
        for measure in measures:
            part = ranking_agreement(con, campaign_id, reference, candidate, measure, runs=runs, top_k=top_k,
                                     test=test, alpha=alpha, on_missing=on_missing)
            result.rankings[candidate, part.measure] = part
    if store:
        settings = {"threshold": threshold, "top_k": list(top_k), "test": test, "alpha": alpha,
                    "on_missing": on_missing, "runs": list(runs) if runs else None}
        assigned = nuggets.banks(con, campaign_id, [reference, *candidates])
        if assigned:  # nugget assignment sets: their banks, and what the levels of the labels are
            settings.update(banks=assigned, levels=nuggets.LEVELS)
        result.stored = _store(con, result, settings)
        result.comparison_ids = list(result.stored)
    return result


def _store(con: duckdb.DuckDBPyConnection, result: Comparison, settings: dict) -> dict[int, tuple[str, str | None]]:
    """Insert the comparison's rows, all or nothing; returns each new comparison id with its
    candidate and measure (None: the labels)."""
    from .. import __version__

    ids: dict[int, tuple[str, str | None]] = {}
    keys = {"c": result.campaign_id, "r": result.reference, "v": __version__}
    with transaction(con):
        next_id = first_row(con, "select coalesce(max(comparison_id), 0) + 1 from judgment_comparisons")[0]
        for candidate, labels in result.labels.items():
            entries = [("labels", None, labels, None)] + [
                ("scores", measure, None, part) for (name, measure), part in result.rankings.items()
                if name == candidate]
            for comparison, measure, label_part, ranking_part in entries:
                notes = ranking_part.warnings if ranking_part is not None else []
                con.execute(
                    "insert into judgment_comparisons (comparison_id, campaign_id, reference_set, candidate_set, "
                    "comparison, measure, settings, warnings, pyeval_version) values ($id, $c, $r, $s, $kind, $m, "
                    "$settings, $warnings, $v)",
                    {**keys, "id": next_id, "s": candidate, "kind": comparison, "m": measure,
                     "settings": json.dumps(settings), "warnings": "; ".join(notes) or None},
                )
                ids[next_id] = (candidate, measure)
                row_keys = {**keys, "id": next_id, "s": candidate}
                if label_part is not None:
                    _insert(con, "judgment_agreement", label_part.agreement, row_keys,
                            ["topic_id", "coefficient", "threshold", "value", "units", "reference_only",
                             "candidate_only", "warning"])
                    _insert(con, "judgment_confusion", label_part.confusion, row_keys,
                            ["topic_id", "reference_level", "candidate_level", "documents"])
                else:
                    _insert(con, "judgment_ranking_agreement", ranking_part.table.assign(measure=measure), row_keys,
                            ["measure", "statistic", "top_k", "value", "runs", "topics", "warning"])
                next_id += 1
    return ids


_TYPES = {"topic_id": "varchar", "coefficient": "varchar", "threshold": "integer", "value": "double",
          "units": "bigint", "reference_only": "bigint", "candidate_only": "bigint", "warning": "varchar",
          "reference_level": "integer", "candidate_level": "integer", "documents": "bigint",
          "measure": "varchar", "statistic": "varchar", "top_k": "integer", "runs": "integer", "topics": "integer"}


def _insert(con, table: str, frame: pd.DataFrame, keys: dict, columns: list[str]) -> None:
    """Insert ``frame``'s ``columns`` into ``table`` (a constant of this module) with the
    comparison's keys."""
    rows = [tuple(None if pd.isna(v) else (v.item() if hasattr(v, "item") else v) for v in row)
            for row in frame[columns].itertuples(index=False)]
    create_rows(con, "new_comparison_rows", {c: _TYPES[c] for c in columns}, rows)
    try:
        names = ", ".join(columns)
        con.execute(
            f"insert into {table} (comparison_id, campaign_id, reference_set, candidate_set, {names}) "
            f"select $id, $c, $r, $s, {names} from new_comparison_rows",
            {k: keys[k] for k in ("id", "c", "r", "s")},
        )
    finally:
        con.execute("drop table if exists new_comparison_rows")
