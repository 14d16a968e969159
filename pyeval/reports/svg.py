"""The plots of a run's HTML page as inline SVG, written from the numbers (:mod:`.plotdata`):
a page's two plots cost a millisecond, where matplotlib's SVG took a tenth of a second a run,
too slow for a campaign's reports (docs/benchmarks.md, "Per-run reports (issue 43)"). The PDF's
figure is matplotlib's (:mod:`.figures`), drawn from the same numbers.

Left: TREC's appendix bars (the run's value minus the topic's median, the topic's best minus its
median a dash); right: the 11-point interpolated precision-recall curve with the campaign's
median. Each bar and point carries a ``<title>`` (its numbers, shown on hover).
"""
from __future__ import annotations

import html
import math

from .figures import ABOVE, BELOW, BEST, MEDIAN, MAX_TOPIC_LABELS
from .plotdata import LEVELS, PlotData

FONT = 'font-family="system-ui,Helvetica,Arial,sans-serif"'


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round values (1, 2, 2.5 or 5 times a power of ten apart) in [low, high]."""
    span = high - low
    if not span > 0 or not math.isfinite(span):
        return [low]
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    return [round(i * step, 12) for i in range(first, math.floor(high / step + 1e-9) + 1)]


def _number(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:.4f}"


def _text(x: float, y: float, text: str, *, size: int = 10, anchor: str = "middle", extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" {FONT}{extra}>'
            f"{html.escape(text)}</text>")


def bars(plots: PlotData, run_id: str, width: int = 760, height: int = 280) -> str:
    """The per-topic bars of ``run_id``: run minus median, the best minus the median marked."""
    measure = plots.data.main_measure
    left, right, top, bottom = 56, 8, 26, 46
    inner_w, inner_h = width - left - right, height - top - bottom
    count = max(len(plots.topics), 1)
    step = inner_w / count

    def y(value: float) -> float:
        return top + (plots.high - value) / (plots.high - plots.low) * inner_h

    zero = y(0.0)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" role="img" class="bars" aria-label="{html.escape(run_id)}: {html.escape(measure)} '
             'minus the topic median, per topic">',
             _text(left + inner_w / 2, 16, f"{run_id}: {measure} per topic, difference from the topic's median",
                   size=12)]
    for tick in nice_ticks(plots.low, plots.high):
        parts.append(f'<line x1="{left}" x2="{left + inner_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                     'stroke="#e6e6e6" stroke-width="1"/>')
        parts.append(_text(left - 5, y(tick) + 3.5, f"{tick:g}", size=9, anchor="end"))
    differences = plots.differences(run_id)
    for i, (topic, difference, best) in enumerate(zip(plots.topics, differences, plots.best_differences)):
        x = left + i * step + step * 0.1
        shown = 0.0 if math.isnan(difference) else float(difference)
        top_y, low_y = sorted((y(shown), zero))
        value = plots.median[i] + difference
        tip = (f"topic {topic}: {measure} {_number(value)}, median {_number(plots.median[i])}, "
               f"best {_number(plots.best[i])}")
        parts.append(f'<rect x="{x:.1f}" y="{top_y:.1f}" width="{step * 0.8:.1f}" height="{low_y - top_y:.1f}" '
                     f'fill="{ABOVE if shown >= 0 else BELOW}"><title>{html.escape(tip)}</title></rect>')
        if not math.isnan(best):
            parts.append(f'<line x1="{x:.1f}" x2="{x + step * 0.8:.1f}" y1="{y(best):.1f}" y2="{y(best):.1f}" '
                         f'stroke="{BEST}" stroke-width="2"/>')
    parts.append(f'<line x1="{left}" x2="{left + inner_w}" y1="{zero:.1f}" y2="{zero:.1f}" stroke="{MEDIAN}"/>')
    every = max(1, -(-count // MAX_TOPIC_LABELS))
    for i in range(0, len(plots.topics), every):
        x = left + (i + 0.5) * step
        parts.append(_text(x, top + inner_h + 6, plots.topics[i], size=8, anchor="end",
                           extra=f' transform="rotate(-90 {x:.1f} {top + inner_h + 6:.1f})" dominant-baseline="middle"'))
    parts.append(_text(left + inner_w / 2, height - 4, "topic", size=10))
    parts.append(_text(14, top + inner_h / 2, f"{measure} − topic median", size=10,
                       extra=f' transform="rotate(-90 14 {top + inner_h / 2:.1f})"'))
    legend_x = left + inner_w - 190
    parts.append(f'<rect x="{legend_x}" y="{top + 4}" width="10" height="8" fill="{ABOVE}"/>'
                 + _text(legend_x + 14, top + 12, "run − median", size=9, anchor="start")
                 + f'<line x1="{legend_x + 95}" x2="{legend_x + 105}" y1="{top + 8}" y2="{top + 8}" stroke="{BEST}" '
                 'stroke-width="2"/>' + _text(legend_x + 109, top + 12, "best − median", size=9, anchor="start"))
    parts.append(f'<rect x="{left}" y="{top}" width="{inner_w}" height="{inner_h}" fill="none" stroke="#999"/>')
    parts.append("</svg>")
    return "".join(parts)


def curve(plots: PlotData, run_id: str, width: int = 320, height: int = 280) -> str:
    """The run's interpolated precision at the 11 recall levels, the campaign's median dashed."""
    left, right, top, bottom = 46, 10, 26, 40
    inner_w, inner_h = width - left - right, height - top - bottom

    def point(recall: float, precision: float) -> tuple[float, float]:
        return left + recall * inner_w, top + (1 - precision) * inner_h

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" role="img" class="curve" aria-label="{html.escape(run_id)}: interpolated '
             'precision-recall">', _text(left + inner_w / 2, 16, "Interpolated precision-recall (11 points)", size=12)]
    for tick in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
        x, y = point(tick, tick)
        parts.append(f'<line x1="{left}" x2="{left + inner_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e6e6e6"/>')
        parts.append(_text(left - 5, y + 3.5, f"{tick:g}", size=9, anchor="end"))
        parts.append(_text(x, top + inner_h + 14, f"{tick:g}", size=9))
    for values, style in ((plots.curve_median, f'stroke="{MEDIAN}" stroke-dasharray="5 3"'),
                          (plots.curve(run_id), f'stroke="{ABOVE}"')):
        points = [point(r, p) for r, p in zip(LEVELS, values) if not math.isnan(p)]
        parts.append(f'<polyline fill="none" stroke-width="1.6" {style} points="'
                     + " ".join(f"{x:.1f},{y:.1f}" for x, y in points) + '"/>')
    for recall, precision, median in zip(LEVELS, plots.curve(run_id), plots.curve_median):
        if not math.isnan(precision):
            x, y = point(recall, precision)
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.6" fill="{ABOVE}"><title>recall {recall:.1f}: '
                         f"{_number(precision)} (median {_number(median)})</title></circle>")
    parts.append(_text(left + inner_w / 2, height - 6, "recall", size=10))
    parts.append(_text(12, top + inner_h / 2, "interpolated precision", size=10,
                       extra=f' transform="rotate(-90 12 {top + inner_h / 2:.1f})"'))
    legend_x = left + inner_w - 112
    parts.append(f'<line x1="{legend_x}" x2="{legend_x + 14}" y1="{top + 10}" y2="{top + 10}" stroke="{ABOVE}" '
                 'stroke-width="1.6"/>' + _text(legend_x + 18, top + 13, "run", size=9, anchor="start")
                 + f'<line x1="{legend_x}" x2="{legend_x + 14}" y1="{top + 24}" y2="{top + 24}" stroke="{MEDIAN}" '
                 'stroke-dasharray="5 3" stroke-width="1.6"/>'
                 + _text(legend_x + 18, top + 27, "campaign median", size=9, anchor="start"))
    parts.append(f'<rect x="{left}" y="{top}" width="{inner_w}" height="{inner_h}" fill="none" stroke="#999"/>')
    parts.append("</svg>")
    return "".join(parts)


def figure(plots: PlotData, run_id: str) -> str:
    """Both plots of ``run_id``, side by side (wrapping on a narrow screen)."""
    return f'<div class="plots">{bars(plots, run_id)}{curve(plots, run_id)}</div>'
