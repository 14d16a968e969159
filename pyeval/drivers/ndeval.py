"""The ndeval family in numpy: alpha-(n)DCG, (n)ERR-IA, (n)NRBP, AP-IA, P-IA and StRecall.

Reads the staged lists (drivers/common.py) and, per (rel, probs) setting, three arrays fetched
with SQL (sql/drivers/ndeval_*.sql): the topics' intents with a relevant document, the (list,
rank, intent) hits of the ranked lists, and the candidates of the ideal lists. Everything else is
vectorised over all lists at once; the greedy ideal list is one loop over ranks, vectorised over
all topics.

The arithmetic repeats ndeval 4.5's (ndeval.c) operation by operation (gains (1 - alpha)^c by
repeated multiplication, sums rank by rank and intent by intent, the "ideal-ideal" normalisers
built the same way), so with uniform weights the values are ndeval's doubles. With the
campaign's probabilities (``probs='given'``) each intent's gain is multiplied by Pr(i|q) and the
normalisers start from 1 instead of N. Definitions: docs/diversity-measures.md section 7, docs/ndeval.md.

P_IA, AP_IA and StRecall are also IA_P, IA_AP and IRec of the per-intent staging
(sql/metrics/metric_intent_average.sql), which composes any ad hoc measure per intent; this
driver is kept for ndeval's own arithmetic (its doubles, 1/N weights, @1 quirks), and
tests/sql/test_one_definition.py checks that the two agree under the campaign's probabilities.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from pyeval.core import sqlfiles
from ..errors import MeasureParamError
from ..measures import Measure
from .common import at_cutoff, group_starts, long_form, positions, running_sums, staged_lists


@dataclass
class Judgments:
    """One (rel, probs) setting's arrays. Lists, topics and intents are numbered from 0."""

    list_topic: np.ndarray  # topic_no of each list
    topic_n: np.ndarray  # N: intents with a relevant document, per topic
    topic_z: np.ndarray  # the normalisers' start: N (uniform) or 1.0 (given weights)
    weight: np.ndarray  # [topic, intent] weight v (1.0 uniform, Pr(i|q) given), 0 beyond N
    relevant: np.ndarray  # [topic, intent] R_s
    hit_list: np.ndarray  # hits, sorted by list, rank, intent
    hit_rank: np.ndarray
    hit_intent: np.ndarray
    cand_topic: np.ndarray  # candidates, sorted by topic, doc_order, intent
    cand_doc: np.ndarray
    cand_intent: np.ndarray

    @property
    def lists(self) -> int:
        return len(self.list_topic)

    @property
    def intents(self) -> int:
        return self.weight.shape[1]


def fetch(con, campaign_id: str, lists: pd.DataFrame, rel: int, probs: str, judgment_set: str = "official"
          ) -> Judgments:
    """The arrays of one (rel, probs) setting, from the staged lists."""
    if probs not in ("given", "ndeval") and not con.execute(
        "select count(*) from intent_weights where campaign_id = $c and probs = $p", {"c": campaign_id, "p": probs}
    ).fetchone()[0]:
        raise MeasureParamError(f"campaign '{campaign_id}' has no probability variant {probs!r} (probs=given, "
                                "ndeval, or a variant stored with pyeval intents)")
    keys = {"campaign_id": campaign_id, "rel": rel, "judgment_set": judgment_set}
    con.execute("create or replace temp table ndeval_intents as\n" + sqlfiles.read("drivers/ndeval_intents.sql"),
                {**keys, "probs": probs})
    try:
        intents = con.execute(
            "select topic_no, intent_no, relevant, coalesce(weight, 1.0) as weight, weight is null as uniform "
            "from ndeval_intents"
        ).fetchnumpy()
        hits = con.execute(sqlfiles.read("drivers/ndeval_hits.sql"), keys).fetchnumpy()
        cands = con.execute(sqlfiles.read("drivers/ndeval_candidates.sql"), keys).fetchnumpy()
    finally:
        con.execute("drop table if exists ndeval_intents")
    topics = int(con.execute("select count(*) from driver_topics").fetchone()[0])
    topic_no = intents["topic_no"].astype(np.int64)
    intent_no = intents["intent_no"].astype(np.int64)
    width = int(intent_no.max()) + 1 if len(intent_no) else 1
    relevant = np.zeros((topics, width), dtype=np.int64)
    relevant[topic_no, intent_no] = intents["relevant"]
    weight = np.zeros((topics, width))
    weight[topic_no, intent_no] = intents["weight"]
    n = np.bincount(topic_no, minlength=topics)
    uniform = np.ones(topics, dtype=bool)
    uniform[topic_no[~intents["uniform"].astype(bool)]] = False
    return Judgments(
        list_topic=lists["topic_no"].to_numpy(dtype=np.int64),
        topic_n=n,
        topic_z=np.where(uniform, n.astype(float), 1.0),
        weight=weight,
        relevant=relevant,
        hit_list=hits["list_no"].astype(np.int64),
        hit_rank=hits["rank"].astype(np.int64),
        hit_intent=hits["intent_no"].astype(np.int64),
        cand_topic=cands["topic_no"].astype(np.int64),
        cand_doc=cands["doc_order"].astype(np.int64),
        cand_intent=cands["intent_no"].astype(np.int64),
    )


def powers(base: float, count: int) -> np.ndarray:
    """1, base, base^2, ... by repeated multiplication (ndeval's ``gain *= (1 - alpha)``)."""
    factors = np.full(max(count, 1), base, dtype=float)
    factors[0] = 1.0
    return np.multiply.accumulate(factors)


@functools.lru_cache(maxsize=8)
def discounts(count: int) -> np.ndarray:
    """ndeval's discount(i) = log(2)/log(i + 2) for ranks i + 1 = 1..count (C's libm log)."""
    table = np.array([math.log(2.0) / math.log(i + 2.0) for i in range(count)], dtype=float)
    table.flags.writeable = False
    return table


def ideal_ideal(z: float, alpha: float, depth: int, dcg: bool) -> np.ndarray:
    """ndeval's "ideal-ideal" normalisers for ranks 1..depth: a list whose every document is
    relevant to every intent, gain z(1 - alpha)^(r-1), cumulated with the DCG discount or 1/r."""
    out = np.zeros(depth)
    gain, total = float(z), 0.0
    for i in range(depth):
        total += gain * (math.log(2.0) / math.log(i + 2.0)) if dcg else gain / (i + 1.0)
        out[i] = total
        gain *= 1.0 - alpha
    return out


class Family:
    """Lazily computed building blocks of one (rel, probs, alpha) setting."""

    def __init__(self, j: Judgments, alpha: float):
        self.j = j
        self.alpha = alpha
        self._normalisers: dict[tuple, np.ndarray] = {}

    # -- the run side --------------------------------------------------------------------
    @cached_property
    def by_intent(self):
        """Hits sorted by list, intent, rank; C = documents of the intent ranked before."""
        j = self.j
        order = np.lexsort((j.hit_rank, j.hit_intent, j.hit_list))
        starts = group_starts(j.hit_list[order], j.hit_intent[order])
        return order, starts, positions(starts)

    @cached_property
    def hit_prefix(self) -> np.ndarray:
        """Running sum of the hits' weights per list (P-IA; hits sorted by list, rank, intent)."""
        j = self.j
        return running_sums(j.weight[j.list_topic[j.hit_list], j.hit_intent], group_starts(j.hit_list))

    @cached_property
    def entries(self):
        """Ranked relevant documents (list, rank) and their novelty gain g(r)."""
        j = self.j
        order, _, before = self.by_intent
        count_before = np.empty(len(order), dtype=np.int64)
        count_before[order] = before
        gain_of = powers(1.0 - self.alpha, int(before.max()) + 1 if len(before) else 1)
        contribution = j.weight[j.list_topic[j.hit_list], j.hit_intent] * gain_of[count_before]
        starts = group_starts(j.hit_list, j.hit_rank)
        entry = np.cumsum(starts) - 1
        gain = np.zeros(int(entry[-1]) + 1 if len(entry) else 0)
        for intent in range(j.intents):  # intent by intent, as ndeval's inner loop
            rows = j.hit_intent == intent
            gain[entry[rows]] += contribution[rows]
        return j.hit_list[starts], j.hit_rank[starts], gain

    def run_prefix(self, kind: str) -> np.ndarray:
        entry_list, entry_rank, gain = self.entries
        if kind == "dcg":
            values = gain * discounts(int(entry_rank.max()) if len(entry_rank) else 0)[entry_rank - 1]
        else:
            values = gain / entry_rank.astype(float)
        return running_sums(values, group_starts(entry_list))

    @cached_property
    def run_dcg(self) -> np.ndarray:
        return self.run_prefix("dcg")

    @cached_property
    def run_err(self) -> np.ndarray:
        return self.run_prefix("err")

    # -- the ideal side ------------------------------------------------------------------
    @cached_property
    def ideal_gains(self) -> np.ndarray:
        """[topic, rank - 1] gains of ndeval's greedy ideal list, up to the last positive one."""
        return greedy_ideal(self.j, self.alpha)

    def normaliser(self, cutoff: int, dcg: bool) -> np.ndarray:
        """Per list, the ideal-ideal normaliser at ``cutoff`` (DCG or ERR kind)."""
        key = (cutoff, dcg)
        if key not in self._normalisers:
            z = self.j.topic_z[self.j.list_topic]
            table = {value: ideal_ideal(value, self.alpha, cutoff, dcg)[cutoff - 1] for value in np.unique(z)}
            self._normalisers[key] = np.array([table[value] for value in z]) if len(z) else np.zeros(0)
        return self._normalisers[key]

    def raw_at(self, kind: str, cutoff: int) -> np.ndarray:
        """Per list, the unnormalised cumulated gain at ``cutoff`` (run side)."""
        entry_list, entry_rank, _ = self.entries
        prefix = self.run_dcg if kind == "dcg" else self.run_err
        return at_cutoff(prefix, entry_list, entry_rank, self.j.lists, cutoff)

    def ideal_raw_at(self, kind: str, cutoff: int) -> np.ndarray:
        """Per list, the ideal list's unnormalised cumulated gain at ``cutoff``."""
        gains = self.ideal_gains[:, :cutoff]
        if kind == "dcg":
            values = gains * discounts(gains.shape[1])[None, :]
        else:
            values = gains / np.arange(1, gains.shape[1] + 1, dtype=float)[None, :]
        cumulated = np.cumsum(values, axis=1)[:, -1] if values.shape[1] else np.zeros(len(gains))
        return cumulated[self.j.list_topic]

    def normalised(self, kind: str, cutoff: int, raw: np.ndarray, quirks: bool) -> np.ndarray:
        """alpha-DCG / ERR-IA: ndeval divides ranks >= 2 by the ideal-ideal list (quirk 1: not
        rank 1)."""
        if cutoff == 1 and quirks:
            return raw.copy()
        with np.errstate(invalid="ignore", divide="ignore"):  # N = 0: set to 0 by the callers
            return raw / self.normaliser(cutoff, kind == "dcg")

    def nrbp(self, beta: float, ideal: bool) -> np.ndarray:
        """NRBP over the whole list (run) or the whole greedy ideal list, per list."""
        j = self.j
        with np.errstate(divide="ignore", invalid="ignore"):  # N = 0: 0 below
            factor = np.where(j.topic_z > 0, (1.0 - (1.0 - self.alpha) * beta) / j.topic_z, 0.0)
        if ideal:
            gains = self.ideal_gains
            decay = powers(beta, gains.shape[1])
            total = np.cumsum(gains * decay[None, :], axis=1)[:, -1] if gains.shape[1] else np.zeros(len(gains))
            per_topic = np.where(j.topic_n > 0, total * factor, 0.0)
            return per_topic[j.list_topic]
        entry_list, entry_rank, gain = self.entries
        decay = powers(beta, int(entry_rank.max()) if len(entry_rank) else 1)
        prefix = running_sums(gain * decay[entry_rank - 1], group_starts(entry_list))
        total = at_cutoff(prefix, entry_list, entry_rank, j.lists, int(entry_rank.max()) if len(entry_rank) else 1)
        return np.where(j.topic_n[j.list_topic] > 0, total * factor[j.list_topic], 0.0)


def greedy_ideal(j: Judgments, alpha: float) -> np.ndarray:
    """ndeval's greedy ideal lists of all topics at once: at each rank the candidate with the
    largest sum of its intents' current weights wins, the larger docno on an exact tie; then each
    intent it covers has its weight multiplied by 1 - alpha. Only relevant documents can score,
    so the loop stops when no topic has a positive score left."""
    topics = len(j.topic_n)
    if len(j.cand_topic) == 0:
        return np.zeros((topics, 0))
    starts = group_starts(j.cand_topic, j.cand_doc)
    doc_index = positions(group_starts(j.cand_topic[starts]))  # per distinct (topic, doc)
    slot = np.empty(len(j.cand_topic), dtype=np.int64)
    slot[:] = doc_index[np.cumsum(starts) - 1]
    width = int(doc_index.max()) + 1
    covers = np.zeros((topics, width, j.intents), dtype=bool)
    covers[j.cand_topic, slot, j.cand_intent] = True
    order = np.full((topics, width), -1, dtype=np.int64)
    order[j.cand_topic[starts], doc_index] = j.cand_doc[starts]
    placed = order < 0
    current = np.ones((topics, j.intents))  # (1 - alpha)^c, by repeated multiplication
    ideal = np.zeros((topics, width))
    alive = np.arange(topics)  # topics that may still have a positive score
    for rank in range(width):
        covered = covers[alive]
        contribution = j.weight[alive] * current[alive]
        score = np.zeros((len(alive), width))
        for intent in range(j.intents):  # intent by intent, as ndeval's inner loop
            score += np.where(covered[:, :, intent], contribution[:, intent][:, None], 0.0)
        score[placed[alive]] = -1.0
        best = score.max(axis=1)
        active = best > 0
        if not active.any():
            return ideal[:, :rank]
        tied = np.where(score == best[:, None], order[alive], -2)
        pick = tied.argmax(axis=1)
        rows = alive[active]
        ideal[rows, rank] = best[active]
        placed[rows, pick[active]] = True
        chosen = covered[active, pick[active]]
        current[rows] = np.where(chosen, current[rows] * (1.0 - alpha), current[rows])
        alive = rows
    return ideal


def compute(con, measures: list[Measure], request) -> pd.DataFrame:
    """Per-topic values of ndeval-family ``measures`` (registry driver of family 'ndeval')."""
    frames = []
    lists = staged_lists(con)  # staged by the plan before this step
    settings = sorted({(m["rel"], m["probs"] if m.has("probs") else "ndeval") for m in measures})
    for rel, probs in settings:
        chosen = [m for m in measures if m["rel"] == rel and (m["probs"] if m.has("probs") else "ndeval") == probs]
        judgments = fetch(con, request.campaign_id, lists, rel, probs, request.judgment_set)
        families: dict[float, Family] = {}
        for measure in chosen:
            alpha = measure["alpha"] if measure.has("alpha") else 0.5
            family = families.setdefault(alpha, Family(judgments, alpha))
            frames.append(long_form(lists, str(measure), value(measure, family)))
    if not frames:
        return pd.DataFrame(columns=["run_id", "topic_id", "measure", "value"])
    return pd.concat(frames, ignore_index=True)



def _intent_aware(kind: str, measure: Measure, family: Family) -> np.ndarray:
    """alpha-DCG@k (``dcg``) or ERR-IA@k (``err``) over the ideal-ideal list's."""
    cutoff = measure["cutoff"]
    values = family.normalised(kind, cutoff, family.raw_at(kind, cutoff), measure["ndeval_quirks"])
    return np.where(family.j.topic_n[family.j.list_topic] > 0, values, 0.0)


def _over_ideal(kind: str, measure: Measure, family: Family) -> np.ndarray:
    """alpha-nDCG@k (``dcg``) or nERR-IA@k (``err``): over the greedy ideal list's; 0 when the
    run's alpha-DCG@k is 0."""
    cutoff = measure["cutoff"]
    run_dcg = family.normalised("dcg", cutoff, family.raw_at("dcg", cutoff), True)
    run = family.normalised(kind, cutoff, family.raw_at(kind, cutoff), True)
    ideal = family.normalised(kind, cutoff, family.ideal_raw_at(kind, cutoff), True)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = run / ideal
    return np.where((family.j.topic_n[family.j.list_topic] > 0) & (run_dcg != 0), ratio, 0.0)


def _nrbp(measure: Measure, family: Family) -> np.ndarray:
    return family.nrbp(measure["beta"], ideal=False)


def _normalised_nrbp(measure: Measure, family: Family) -> np.ndarray:
    run = family.nrbp(measure["beta"], ideal=False)
    ideal = family.nrbp(measure["beta"], ideal=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = run / ideal
    return np.where(family.j.topic_n[family.j.list_topic] > 0, ratio, -math.nan if measure["ndeval_quirks"] else 0.0)


#: The formula of each declaration of the family (its ``kind``, pyeval/measures/ndeval.py), as
#: a SQL family reads ``requested_measures.kind``.
FORMULAS: dict[str, Callable[[Measure, Family], np.ndarray]] = {
    "alpha_DCG": functools.partial(_intent_aware, "dcg"),
    "ERR_IA": functools.partial(_intent_aware, "err"),
    "alpha_nDCG": functools.partial(_over_ideal, "dcg"),
    "nERR_IA": functools.partial(_over_ideal, "err"),
    "NRBP": _nrbp,
    "nNRBP": _normalised_nrbp,
    "AP_IA": lambda measure, family: average_precision(family.j, family),
    "P_IA": lambda measure, family: precision(family.j, family, measure["cutoff"]),
    "StRecall": lambda measure, family: subtopic_recall(family.j, family, measure["cutoff"]),
}


def value(measure: Measure, family: Family) -> np.ndarray:
    """One measure's per-list values: the formula its declaration names (``kind``)."""
    return FORMULAS[measure.kind](measure, family)


def average_precision(j: Judgments, family: Family) -> np.ndarray:
    """MAP-IA: per intent, hits(r)/r summed rank by rank over R_s; intents added in order;
    then divided by N (uniform) or weighted by Pr(i|q)."""
    order, starts, before = family.by_intent
    lists, intents = j.hit_list[order], j.hit_intent[order]
    terms = (before + 1) / j.hit_rank[order].astype(float)
    totals = running_sums(terms, starts)
    ends = np.r_[starts[1:], True] if len(starts) else starts
    group_list, group_intent, group_total = lists[ends], intents[ends], totals[ends]
    topic = j.list_topic[group_list]
    contribution = j.weight[topic, group_intent] * (group_total / j.relevant[topic, group_intent])
    result = np.zeros(j.lists)
    for intent in range(j.intents):
        rows = group_intent == intent
        result[group_list[rows]] += contribution[rows]
    z = j.topic_z[j.list_topic]
    return np.where(j.topic_n[j.list_topic] > 0, result / np.where(z > 0, z, 1.0), 0.0)


def precision(j: Judgments, family: Family, cutoff: int) -> np.ndarray:
    """P-IA@k: (intent, document) hits in the top k, weighted, over k (times N if uniform)."""
    prefix = family.hit_prefix
    # hits are sorted by list, rank, intent: the last hit at rank <= k carries the running sum
    total = at_cutoff(prefix, j.hit_list, j.hit_rank, j.lists, cutoff)
    z = j.topic_z[j.list_topic]
    return np.where(j.topic_n[j.list_topic] > 0, total / (cutoff * np.where(z > 0, z, 1.0)), 0.0)


def subtopic_recall(j: Judgments, family: Family, cutoff: int) -> np.ndarray:
    """strec@k: intents with a relevant document in the top k over N (unweighted)."""
    order, _, before = family.by_intent
    first = order[before == 0]
    first = first[j.hit_rank[first] <= cutoff]
    covered = np.bincount(j.hit_list[first], minlength=j.lists)
    n = j.topic_n[j.list_topic]
    return np.where(n > 0, covered / np.where(n > 0, n, 1), 0.0)
