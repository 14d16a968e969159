"""trec_eval 10.0's expected outputs used as oracles by the metric-family tests."""
from __future__ import annotations

from ..conftest import FIXTURES

TREC = FIXTURES / "trec_eval"

#: expected output -> (qrels, run, topic policy, max_depth, -l): the commands of trec_eval's
#: test suite (-c: every qrels topic; without it, the topics both files have)
CASES = {
    "out.test.aq": ("qrels.test", "results.test", "intersection", None, 1),
    "out.test.aqc": ("qrels.test", "results.trunc", "qrels", None, 1),
    "out.test.aqcM": ("qrels.test", "results.trunc", "qrels", 100, 1),
    "out.test.aql": ("qrels.rel_level", "results.test", "intersection", None, 2),
}


def trec_eval_values(name: str) -> dict[tuple[str, str], str]:
    """(measure, topic or 'all') -> value text of a trec_eval -q output file."""
    values = {}
    for line in (TREC / name).read_text().splitlines():
        measure, topic, value = line.split("\t")
        values[measure.strip(), topic] = value
    return values
