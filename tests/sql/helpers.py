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


def store_answers(con, campaign_id: str, run_id: str, topics, judgment_set: str = "official") -> None:
    """Answers of ``run_id`` to ``topics`` (topic i+1 of the list: i+1 sentences, each citing
    documents a and b), a bank 'bank' with a vital and an okay nugget per topic, and under
    ``judgment_set`` a support label for the first nugget and a partial support for each
    citation of a: what sql/evaluation/evaluation_nugget_*.sql read (raw rows; the loaders are
    tested in tests/loaders)."""
    for index, topic in enumerate(topics):
        row = {"c": campaign_id, "r": run_id, "t": topic}
        con.execute("insert into answers (campaign_id, run_id, topic_id, response_length, length_given, file_position, "
                    "source_file, source_sha256) values ($c, $r, $t, 7, true, 1, 'f', 'x')", row)
        for number in range(1, index + 2):
            at = {**row, "n": number}
            con.execute("insert into answer_sentences values ($c, $r, $t, $n, 'text')", at)
            con.execute("insert into answer_citations values ($c, $r, $t, $n, 1, 'a'), ($c, $r, $t, $n, 2, 'b')", at)
            con.execute("insert into citation_support values ($c, $j, $r, $t, $n, 'a', 'partial', null, 'f', 'x')",
                        {**at, "j": judgment_set})
        for number, importance in enumerate(("vital", "okay"), 1):
            con.execute("insert into nuggets values ($c, 'bank', $t, $id, $n, 'text', $i, 'human')",
                        {"c": campaign_id, "t": topic, "id": f"n{number}", "n": number, "i": importance})
        con.execute("insert into nugget_assignments values ($c, $j, 'bank', $r, $t, 'n1', 'support', null, 'f', 'x')",
                    {**row, "j": judgment_set})
