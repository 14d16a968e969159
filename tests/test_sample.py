"""The bundled sample campaign (pyeval/sample/): complete, and reproducible from its seed."""
from __future__ import annotations

import gzip

import pytest

from pyeval import sample
from pyeval.sample import generate


def _content(path):
    data = path.read_bytes()
    return gzip.decompress(data).decode() if path.name.endswith(".gz") else data.decode()


def test_generated_files_match_the_committed_ones():
    texts = generate.generated_texts()
    assert len(texts) == 2 + 18 + 1
    for name, text in texts.items():
        assert _content(sample.path(name)) == text, name


def test_twenty_runs_with_distinct_names():
    names = [sample.run_name(p) for p in sample.run_paths()]
    assert len(names) == 20 and len(set(names)) == 20
    assert names[:2] == ["indri-ql", "indri-rm"]


@pytest.mark.parametrize("name", ["intents.uniform.txt", "intents.nonuniform.txt"])
def test_intent_probabilities_sum_to_one_per_topic(name):
    totals: dict[str, float] = {}
    for line in sample.path(name).read_text().splitlines():
        topic, _, probability, kind = line.split()
        assert kind in ("inf", "nav")
        totals[topic] = totals.get(topic, 0.0) + float(probability)
    assert len(totals) == 50
    assert all(abs(total - 1) < 1e-12 for total in totals.values())


def test_nonuniform_matches_sakai_and_song():
    # n = 3: 8/14, 4/14, 2/14 (docs/diversity-measures.md section 1.2)
    lines = [l.split() for l in sample.path("intents.nonuniform.txt").read_text().splitlines()]
    by_topic: dict[str, list[float]] = {}
    for topic, _, probability, _ in lines:
        by_topic.setdefault(topic, []).append(float(probability))
    three = next(p for p in by_topic.values() if len(p) == 3)
    assert three == pytest.approx([8 / 14, 4 / 14, 2 / 14], abs=1e-15)
