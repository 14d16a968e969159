"""What the metric-family tests share: trec_eval 10.0's expected outputs as oracles, and
small campaigns written by the tests."""
from __future__ import annotations

import pyeval
from pyeval.core.evaluation import evaluate

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


def qrels_text(qrels: dict[str, dict[str, int]]) -> str:
    """TREC qrels lines for {topic: {doc: level}}."""
    return "".join(
        f"{topic} 0 {doc} {level}\n" for topic, docs in qrels.items() for doc, level in docs.items()
    )


def campaign(write, qrels: dict[str, dict[str, int]], runs: dict[str, dict[str, list[str]]]):
    """A warehouse with one campaign 't': qrels {topic: {doc: level}}, runs {name: {topic:
    [docs in rank order]}} (scores strictly decreasing, so every ordering agrees)."""
    con = pyeval.connect()
    pyeval.load_qrels(con, "t", write("qrels.txt", qrels_text(qrels)))
    for name, topics in runs.items():
        lines = [
            f"{topic} Q0 {doc} {rank} {1000 - rank} {name}"
            for topic, docs in topics.items()
            for rank, doc in enumerate(docs, start=1)
        ]
        pyeval.load_run(con, "t", write(f"{name}.txt", "\n".join(lines) + "\n"), name=name)
    return con


def values(con, measures, campaign_id="t", **settings) -> dict[tuple[str, str, str], float]:
    """(run_id, topic_id, measure) -> value of an evaluation that stores nothing."""
    result = evaluate(con, campaign_id, measures, store=False, **settings)
    return {(r.run_id, r.topic_id, r.measure): r.value for r in result.per_topic.itertuples()}
