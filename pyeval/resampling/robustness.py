"""Gain-assignment robustness (Sakai, AIRS 2005 section 4.5 and Tables 8-9).

A gain-based measure (nDCG@l, Q, AnDCG@l, ERR, ...) is evaluated under the default gain
assignment (the measure as given; linear gains, Sakai's 3:2:1) and under the built-in profiles
``flat`` (1:1:1), ``steep`` (10:5:1) and ``adjust`` (per-topic, from R(X)/R), or any stored
profile; Kendall's τ (and τ_b, τ_ap with the default as reference) between the system ranking of
each variant and that of the default says how robust the ranking is to the choice of gains.
Variants without stored scores are evaluated first (and stored with ``store``).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import pandas as pd

from ..display import Displayed
from ..errors import MeasureParamError, PyevalError, with_command_line
from pyeval.core.db import check_judgment_set, default_judgment_set, stores_in_one_transaction
from .correlation import correlate_means
from .matrix import campaign_runs, scored_runs
from .store import announce, few_runs, insert_experiment

TABLE = "gain_robustness"
DEFAULT_PROFILES = ("flat", "steep", "adjust")


@dataclass(repr=False)
class Robustness(Displayed):
    """``table``: measure, profile, variant, tau, tau_b, tau_ap, tied_means; ``means``: run x variant."""

    campaign_id: str
    table: pd.DataFrame
    means: pd.DataFrame
    robustness_id: int | None = None

    def df(self) -> pd.DataFrame:
        """``table``: one row per measure and gain profile."""
        return self.table

    def _display_frame(self) -> pd.DataFrame:
        return self.table[["measure", "profile", "variant", "tau", "tau_b", "tau_ap"]]

    def _display_note(self) -> str:
        return (f"stored as robustness experiment {self.robustness_id}" if self.robustness_id is not None else "")


def gain_variants(measure: str, profiles: Sequence[str]) -> dict[str, str]:
    """profile -> canonical name of ``measure`` with that gain profile ('default': as given)."""
    from ..measures import parse_measures
    from ..measures import make

    parsed = parse_measures(measure)
    if len(parsed) != 1:
        raise PyevalError(f"{measure!r} names several measures; give one")
    base = parsed[0]
    params = dict(base.values)
    if "gain" not in params:
        raise MeasureParamError(f"measure {base} has no gain parameter; gain robustness needs a gain-based "
                                "measure such as nDCG@10, Q or ERR")
    variants = {"default": str(base)}
    for profile in profiles:
        variants[profile] = str(make(base.definition, **{**params, "gain": profile}))
    return variants


def _means(con, campaign_id: str, variants: dict[str, str], runs: list[str], store: bool,
           judgment_set: str = "official"):
    """Run x variant means, topic counts and evaluation ids: scores stored under ``judgment_set``,
    or evaluated under it now."""
    from pyeval.core.evaluation import evaluate
    from .matrix import score_matrix

    missing = [name for name in dict.fromkeys(variants.values())
               if not set(runs) <= set(scored_runs(con, campaign_id, name, judgment_set))]
    per_topic = None
    if missing:
        result = evaluate(con, campaign_id, missing, runs=runs, store=store, judgment_set=judgment_set)
        per_topic = result.per_topic
    columns, evaluation_ids, topics = {}, {}, {}
    for name in dict.fromkeys(variants.values()):
        if per_topic is not None and name in missing and not store:
            table = per_topic[per_topic["measure"] == name].pivot(index="topic_id", columns="run_id", values="value")
            table = table.reindex(columns=runs).fillna(0.0)
            columns[name], evaluation_ids[name], topics[name] = table.to_numpy().mean(axis=0), None, len(table)
        else:
            matrix = score_matrix(con, campaign_id, name, runs, judgment_set)
            columns[name] = matrix.values.mean(axis=0)
            evaluation_ids[name], topics[name] = matrix.evaluation_id, len(matrix.topic_ids)
    return pd.DataFrame(columns, index=runs), evaluation_ids, topics


@stores_in_one_transaction
@default_judgment_set()
def gain_robustness(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measures: Sequence[str],
    *,
    profiles: Sequence[str] = DEFAULT_PROFILES,
    runs: Sequence[str] | None = None,
    store: bool = True,
    judgment_set: str | None = None,
) -> Robustness:
    """τ between each measure's ranking under every gain profile and under its default gains,
    from the scores under ``judgment_set`` (variants without them are evaluated under it)."""
    if not measures:
        raise with_command_line(PyevalError("no measure requested (measures=['nDCG@10', 'Q'], say)"),
                                "no measure requested (e.g. -m nDCG@10 -m Q)")
    profiles = list(dict.fromkeys(profiles))
    if not profiles:
        raise PyevalError("give at least one gain profile to compare with the default")
    known = campaign_runs(con, campaign_id)
    check_judgment_set(con, campaign_id, judgment_set)
    chosen = sorted(dict.fromkeys(runs)) if runs else known
    unknown = [r for r in chosen if r not in known]
    if unknown:
        raise PyevalError(f"campaign '{campaign_id}' has no run named {', '.join(map(repr, unknown))}")
    if len(chosen) < 2:
        raise PyevalError(f"gain robustness needs at least 2 runs; campaign '{campaign_id}' has {len(chosen)}")
    rows, frames = [], []
    notes = few_runs(len(chosen))
    for measure in measures:
        variants = gain_variants(measure, profiles)
        means, evaluation_ids, topics = _means(con, campaign_id, variants, chosen, store, judgment_set)
        reference = variants["default"]
        frames.append(means)
        for profile, name in variants.items():
            if profile == "default":
                continue
            corr = correlate_means(means[reference].to_numpy(), means[name].to_numpy(), chosen)
            rows.append({"campaign_id": campaign_id, "measure": reference, "profile": profile, "variant": name,
                         "reference_variant": reference, "evaluation_id": evaluation_ids[name],
                         "reference_evaluation_id": evaluation_ids[reference], "run_ids": list(chosen),
                         "topic_count": topics[name], "tau": corr.tau, "tau_b": corr.tau_b, "tau_ap": corr.tau_ap,
                         "tied_means": corr.tied_means, "warnings": list(notes), "judgment_set": judgment_set})
    table = pd.DataFrame(rows)
    announce(notes)
    means = pd.concat(frames, axis=1)
    means = means.loc[:, ~means.columns.duplicated()]
    result = Robustness(campaign_id, table, means)
    if store:
        stored = table.astype({"evaluation_id": "Int64", "reference_evaluation_id": "Int64", "tau_b": "Float64"})
        result.robustness_id = insert_experiment(con, TABLE, "robustness_id", stored)
    return result


__all__ = ["DEFAULT_PROFILES", "Robustness", "gain_robustness", "gain_variants"]


