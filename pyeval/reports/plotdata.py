"""The numbers of a report's two plots, made once for the campaign: the topics in TREC's order,
each topic's median and best of the main measure, each run's differences from the medians, the
bars' common value range (the same for every run, so pages compare at a glance), and the
campaign's median precision-recall curve. The HTML's SVG (:mod:`.svg`) and the PDF's figure
(:mod:`.figures`) draw from them."""
from __future__ import annotations

import math

import numpy as np

from .data import CampaignData

#: The recall levels of the interpolated precision-recall curve (trec_eval's 11 points).
LEVELS = tuple(level / 10 for level in range(11))


def topic_order(topic_ids) -> list[str]:
    """Topics as TREC lists them: numbers by value, then names."""
    return sorted(set(topic_ids), key=lambda t: (0, int(t), t) if t.isdigit() else (1, 0, t))


def _float(value) -> float:
    return math.nan if value is None else float(value)


class PlotData:
    """The plots' numbers for every run of ``data``."""

    def __init__(self, data: CampaignData):
        self.data = data
        rows = {}
        for run in data.runs.values():
            for row in run.topics:
                rows.setdefault(row.topic_id, row)
        self.topics = topic_order(rows)
        self.index = {topic: i for i, topic in enumerate(self.topics)}
        self.median = np.array([_float(rows[t].median) for t in self.topics])
        self.best = np.array([_float(rows[t].best) for t in self.topics])
        self.best_differences = self.best - self.median
        spans = [self.best_differences, *(self.differences(run_id) for run_id in data.runs)]
        finite = np.concatenate([d[np.isfinite(d)] for d in spans])
        low, high = (float(finite.min()), float(finite.max())) if finite.size else (-1.0, 1.0)
        pad = 0.05 * max(high - low, 1e-9)
        self.low, self.high = min(low, 0.0) - pad, max(high, 0.0) + pad
        first = next(iter(data.runs), None)
        self.curve_median = [_float(median) for _, _, median in data.curve(first)] if first else [math.nan] * 11

    def differences(self, run_id: str) -> np.ndarray:
        """The run's value minus the topic's median, by topic (NaN where it has no value)."""
        values = np.full(len(self.topics), np.nan)
        for row in self.data.runs[run_id].topics:
            values[self.index[row.topic_id]] = _float(row.value)
        return values - self.median

    def curve(self, run_id: str) -> list[float]:
        """The run's interpolated precision at each of :data:`LEVELS` (NaN where undefined)."""
        return [_float(value) for _, value, _ in self.data.curve(run_id)]
