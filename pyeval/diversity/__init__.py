"""Diversity evaluation: stage a diversity campaign so that the ad hoc metric families compute
the D-, DIN- and intent-aware measures, then combine the composite ones.

One definition of each formula: a D-measure is its ad hoc measure's family SQL
(``sql/metrics/metric_<family>.sql``) run over a *global* staging of the campaign, in which
every judged document's gain is its global gain GG(d) = sum_i Pr(i|q) g_i(d) (view
global_gains), a document is relevant when GG > 0 (as NTCIREVAL's gcompute has it) and the
ideal list holds every document sorted by GG (global_ideal_gains). The families read levels and
a level -> gain map (evaluation_ranks, evaluation_gains), so the staging gives each distinct
gain of a topic a *level code* (0 for gain 0, then 1, 2, ... by increasing gain:
sql/evaluation/diversity_gain_codes.sql). DIN-measures use the same staging with the DIN global
gain of each ranked document (din_rank_gains: a navigational intent's gain counts at its first
relevant document only) and the same ideal list. Intent-aware measures, I-rec and P+Q compute an
ad hoc measure on every (topic, intent) as a list of its own (the *per-intent* staging: the
intent's levels, gains and ideal list), and a small family averages the per-intent values
(metric_intent_average.sql); D#, DIN# and P+Q# combine I-rec with a D-, DIN-measure or P+Q
(metric_sharp.sql). Stagings: sql/evaluation/diversity_*.sql, per_intent_*.sql.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..db import first_row
from ..errors import DataIntegrityError, MeasureParamError
from ..measures import Measure, registry
from ..stages import compute_into, in_request_order, run_stages, take_values

if TYPE_CHECKING:  # imported inside compute()
    import pandas as pd

#: joins topic and intent into the topic_id of a per-intent list
SEPARATOR = "\x1f"
ADHOC, GLOBAL, DIN, PER_INTENT, INTENTS = "adhoc", "global", "din", "per_intent", "intents"
#: What the global and per-intent stagings share with the ad hoc one: files of sql/evaluation/
_SHARED_STAGES = ("evaluation_entries", "evaluation_pairs", "topic_judgments", "evaluation_ideal_gains",
                  "evaluation_relevant_ranks", "evaluation_intents", "evaluation_intent_ranks",
                  "evaluation_components")
#: The global staging (D- and DIN-measures, composites): every judged document's gain is its
#: global gain, coded as levels.
GLOBAL_STAGING = ("diversity_document_gains", "diversity_ranked_gains", "diversity_gain_codes",
                  "diversity_levels", "diversity_ranks", "evaluation_lists", "diversity_gains",
                  "diversity_gain_maxima", *_SHARED_STAGES)
#: The per-intent staging: each (topic, intent) a list of its own, on the intent's levels.
PER_INTENT_STAGING = ("per_intent_judgments", "per_intent_levels", "per_intent_ranks", "per_intent_lists",
                      "per_intent_gains", "per_intent_gain_maxima", *_SHARED_STAGES)


@dataclass(frozen=True)
class Staging:
    """How :func:`pyeval.stages.compute_into` stages a diversity campaign.

    kind: ``global`` (D-measures, and the composite families), ``din`` or ``per_intent``;
    profile, probs: the gain profile and probability variant of the global gains;
    variants: the probability variants composite families read (evaluation_intents);
    components: rows (measure, role, run_id, topic_id, intent_id, value) for evaluation_components.
    """

    kind: str
    profile: str = "linear"
    probs: str = "given"
    variants: tuple[str, ...] = ("given",)
    components: pd.DataFrame | None = field(default=None, compare=False, hash=False)

    def stage(self, con, settings: Mapping[str, object]) -> list[str]:
        """Create this staging's tables (pyeval.stages.run_stages) from the evaluation's
        ``settings`` and this staging's gain profile and probability variant; their names."""
        if self.kind == PER_INTENT:
            files = PER_INTENT_STAGING
            settings = {**settings, "separator": SEPARATOR}
        else:
            files = GLOBAL_STAGING
            settings = {**settings, "probs": self.probs, "profile": self.profile, "din": self.kind == DIN,
                        "profiles": [self.profile]}
        settings["variants"] = list(self.variants)
        settings["negative_is_judged"] = True  # every document of the qrels is judged (NTCIREVAL)
        tables = run_stages(con, files, settings)
        if self.components is not None and len(self.components):
            con.register("new_components", self.components)
            try:
                con.execute(
                    "insert into evaluation_components (measure, role, run_id, topic_id, intent_id, value) "
                    "select measure, role, run_id, topic_id, intent_id, value from new_components"
                )
            finally:
                con.unregister("new_components")
        return tables



def _staging_of(kind: str, measure: Measure, variants: tuple[str, ...]) -> Staging:
    if kind in (GLOBAL, DIN):
        return Staging(kind, measure["gain"] if measure.has("gain") else "linear", measure["probs"])
    if kind == PER_INTENT:
        return Staging(PER_INTENT)
    return Staging(GLOBAL, variants=variants)  # INTENTS: composites and effective precision


@dataclass
class _Plan:
    variants: tuple[str, ...]
    leaves: dict = field(default_factory=lambda: defaultdict(dict))  # Staging -> {name: Measure}
    composites: dict = field(default_factory=lambda: defaultdict(dict))  # depth -> {name: Measure}
    adhoc: dict = field(default_factory=dict)  # measures computed as in an ad hoc evaluation

    def visit(self, measure: Measure, kind: str) -> int:
        definition = measure.definition
        if definition.components is not None:
            depth = 1 + max(self.visit(part, part_kind) for _, part_kind, part in definition.components(measure))
            self.composites[depth][str(measure)] = measure
            return depth
        if kind == ADHOC:
            self.adhoc[str(measure)] = measure
        else:
            self.leaves[_staging_of(kind, measure, self.variants)][str(measure)] = measure
        return 0


def _probability_variants(measures: Sequence[Measure]) -> tuple[str, ...]:
    wanted = {"given"}
    pending = list(measures)
    while pending:
        measure = pending.pop()
        if measure.has("probs"):
            wanted.add(measure["probs"])
        if measure.definition.components is not None:
            pending.extend(part for _, _, part in measure.definition.components(measure))
    return tuple(sorted(wanted))


def _campaign_iv(con, campaign_id: str, measures: Sequence[Measure], variants: tuple[str, ...]) -> None:
    row = first_row(con, "select qrels_kind from campaigns where campaign_id = $c", {"c": campaign_id})
    names = ", ".join(str(m) for m in measures if m.definition.staging != ADHOC)
    if row is not None and row[0] != "diversity":
        raise DataIntegrityError(
            f"campaign '{campaign_id}' has ad hoc qrels; diversity measures ({names}) need diversity "
            "qrels (topic intent docno level) and intents"
        )
    if first_row(con, "select count(*) from intents where campaign_id = $c", {"c": campaign_id})[0] == 0:
        raise DataIntegrityError(
            f"campaign '{campaign_id}' has no intents; diversity measures ({names}) need intent "
            "probabilities: load them (pyeval load intents) or generate them (pyeval intents generate)"
        )
    stored = {r[0] for r in con.execute(
        "select distinct variant from intent_variants where campaign_id = $c", {"c": campaign_id}
    ).fetchall()}
    unknown = sorted(set(variants) - stored - {"given"})
    if unknown:
        raise MeasureParamError(
            f"unknown intent probability variant {unknown[0]!r} (campaign '{campaign_id}' has: given"
            + "".join(f", {v}" for v in sorted(stored))
            + "); store one with `pyeval intents generate` or `pyeval intents load`"
        )


def _adhoc_iv(measures: Sequence[Measure], campaign_id: str) -> None:
    for measure in measures:
        if registry.driver(measure.family) is None:
            raise DataIntegrityError(
                f"campaign '{campaign_id}' has diversity qrels; the ad hoc measure {measure} needs ad "
                f"hoc qrels: evaluate D_{measure.name} or IA_{measure.name} instead, or a 2T "
                "conversion of the campaign (pyeval to-traditional)"
            )


def _split_intents(frame: pd.DataFrame) -> pd.DataFrame:
    parts = frame["topic_id"].str.split(SEPARATOR, n=1, expand=True)
    return frame.assign(topic_id=parts[0], intent_id=parts[1])


def _computed(con, campaign_id: str, measures: list[Measure], settings: dict, staging: Staging | None = None
              ) -> pd.DataFrame:
    """The long form of ``measures`` over ``staging`` (pyeval.stages.compute_into)."""
    compute_into(con, campaign_id, measures, staging=staging, **settings)
    return take_values(con, measures)


def compute(con, campaign_id: str, measures: Sequence[Measure], *, runs, ordering, max_depth,
            judged_only, topics, judgment_set: str = "official") -> pd.DataFrame:
    """Per-topic values of ``measures`` on a diversity campaign (the long form of
    :func:`pyeval.evaluation.compute`)."""
    import pandas as pd

    settings = {"runs": runs, "ordering": ordering, "max_depth": max_depth,
                "judged_only": judged_only, "topics": topics, "judgment_set": judgment_set}
    variants = _probability_variants(measures)
    _campaign_iv(con, campaign_id, measures, variants)
    plan = _Plan(variants)
    for measure in measures:
        plan.visit(measure, measure.definition.staging)
    _adhoc_iv(list(plan.adhoc.values()), campaign_id)
    values: dict[tuple[Staging, str], pd.DataFrame] = {}
    frames = []
    if plan.adhoc:
        frames.append(_computed(con, campaign_id, list(plan.adhoc.values()), settings))
    for staging, leaves in plan.leaves.items():
        result = _computed(con, campaign_id, list(leaves.values()), settings, staging)
        if staging.kind == PER_INTENT:
            result = _split_intents(result)
        for name, part in result.groupby("measure", sort=False):
            values[staging, name] = part
    for depth in sorted(plan.composites):
        composites = list(plan.composites[depth].values())
        rows = []
        for measure in composites:
            for role, kind, part in measure.definition.components(measure):
                frame = values[_staging_of(kind, part, variants), str(part)]
                rows.append(pd.DataFrame({
                    "measure": str(measure), "role": role, "run_id": frame["run_id"].to_numpy(),
                    "topic_id": frame["topic_id"].to_numpy(),
                    "intent_id": frame["intent_id"].to_numpy() if "intent_id" in frame else "",
                    "value": frame["value"].astype(float).to_numpy(),
                }))
        components = pd.concat(rows, ignore_index=True)
        staging = Staging(GLOBAL, variants=variants, components=components)
        result = _computed(con, campaign_id, composites, settings, staging)
        base = Staging(GLOBAL, variants=variants)
        for name, part in result.groupby("measure", sort=False):
            values[base, name] = part
    for measure in measures:
        if str(measure) in plan.adhoc:
            continue
        key = _staging_of(measure.definition.staging if measure.definition.components is None else INTENTS,
                          measure, variants)
        frames.append(values[key, str(measure)].drop(columns=["intent_id"], errors="ignore"))
    return in_request_order(pd.concat(frames, ignore_index=True), measures)
