"""The topic x run matrix X of one stored measure (docs/meta-evaluation.md section 0), with the checks a user
needs: campaign, measure, runs, and enough runs."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from pyeval.core import sqlfiles
from pyeval.core.db import check_judgment_set, default_judgment_set, first_row, unknown_campaign
from ..errors import MeasureNameError, PyevalError


@dataclass(frozen=True)
class ScoreMatrix:
    """X[t, j]: the stored value of ``measure`` for topic ``topic_ids[t]`` and run ``run_ids[j]``.

    Topics are every topic that has a stored value for one of the runs, sorted (byte order);
    runs are sorted. ``filled`` cells had no stored value (or a null one) and hold 0 (the fill
    rule of docs/meta-evaluation.md 0). ``evaluation_id``: the latest evaluation that stored the measure for
    one of the runs.
    """

    campaign_id: str
    measure: str
    topic_ids: tuple[str, ...]
    run_ids: tuple[str, ...]
    values: np.ndarray
    filled: int
    evaluation_id: int | None
    judgment_set: str = "official"  # the judgment set the scores were computed under


def canonical_measure(text: str) -> str:
    """The stored name of a measure given by its canonical or trec_eval name (``map`` -> ``AP``)."""
    from ..measures import parse_measures

    measures = parse_measures(text)
    if len(measures) != 1:
        names = ", ".join(str(m) for m in measures)
        raise MeasureNameError(f"{text!r} names several measures ({names}); give one")
    return str(measures[0])


def campaign_runs(con: duckdb.DuckDBPyConnection, campaign_id: str) -> list[str]:
    """The campaign's runs, sorted; an unknown campaign is an error."""
    if first_row(con, "select 1 from campaigns where campaign_id = $c", {"c": campaign_id}) is None:
        raise unknown_campaign(con, campaign_id)
    return [r[0] for r in con.execute(
        "select run_id from runs where campaign_id = $c order by run_id", {"c": campaign_id}
    ).fetchall()]


@default_judgment_set()
def scored_runs(con: duckdb.DuckDBPyConnection, campaign_id: str, measure: str,
                judgment_set: str | None = None) -> list[str]:
    """Runs with at least one stored value of ``measure`` (canonical name) under ``judgment_set``, sorted."""
    return [r[0] for r in con.execute(
        "select distinct run_id from scores_by_set where campaign_id = $c and judgment_set = $s and measure = $m "
        "order by run_id",
        {"c": campaign_id, "s": judgment_set, "m": measure},
    ).fetchall()]


@default_judgment_set()
def score_matrix(
    con: duckdb.DuckDBPyConnection,
    campaign_id: str,
    measure: str,
    runs: Sequence[str] | None = None,
    judgment_set: str | None = None,
) -> ScoreMatrix:
    """X for ``measure`` over ``runs`` (default: every run with stored values of the measure),
    from the scores stored under ``judgment_set`` (docs/judgments.md).

    Raises PyevalError (one line each) for an unknown campaign, an unknown judgment set, an
    unknown measure name, a measure without stored scores, a run without stored scores, and
    fewer than 2 runs.
    """
    known = campaign_runs(con, campaign_id)
    check_judgment_set(con, campaign_id, judgment_set)
    name = canonical_measure(measure)
    rows = con.execute(sqlfiles.read("resampling/score_matrix.sql"),
                       {"campaign_id": campaign_id, "measure": name, "judgment_set": judgment_set}).fetchall()
    if not rows:
        under = "" if judgment_set == "official" else f" under judgment set '{judgment_set}'"
        option = "" if judgment_set == "official" else f" --judgments {judgment_set}"
        raise PyevalError(
            f"campaign '{campaign_id}' has no stored scores for measure '{name}'{under}; "
            f"run `pyeval evaluate -C {campaign_id} -m '{name}'{option}` first"
        )
    stored = sorted({r[0] for r in rows})
    if runs:
        wanted = sorted(dict.fromkeys(runs))
        unknown = [r for r in wanted if r not in known]
        if unknown:
            raise PyevalError(f"campaign '{campaign_id}' has no run named {', '.join(map(repr, unknown))}")
        unscored = [r for r in wanted if r not in stored]
        if unscored:
            under = "" if judgment_set == "official" else f" under judgment set '{judgment_set}'"
            raise PyevalError(
                f"run {', '.join(map(repr, unscored))} of campaign '{campaign_id}' has no stored scores "
                f"for measure '{name}'{under}"
            )
    else:
        wanted = stored
    if len(wanted) < 2:
        raise PyevalError(
            f"significance tests need at least 2 runs with stored scores for '{name}' in campaign "
            f"'{campaign_id}'; found {len(wanted)}"
        )
    frame = pd.DataFrame(rows, columns=["run_id", "topic_id", "value", "evaluation_id"])
    frame = frame[frame["run_id"].isin(wanted)]
    topics = sorted(set(frame["topic_id"]))
    table = frame.pivot(index="topic_id", columns="run_id", values="value").reindex(index=topics, columns=wanted)
    values = table.to_numpy(dtype=float, na_value=np.nan)
    missing = ~np.isfinite(values)
    X = np.where(missing, 0.0, values)
    evaluations = frame["evaluation_id"].dropna()
    return ScoreMatrix(campaign_id, name, tuple(topics), tuple(wanted), X, int(missing.sum()),
                       int(evaluations.max()) if len(evaluations) else None, judgment_set)
