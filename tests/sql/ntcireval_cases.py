"""What the NTCIREVAL family tests (qmeasure, ncu, condensed) share: NTCIREVAL 190111's own
outputs as oracles (tests/fixtures/ntcireval, see the fixtures README), the README sample as a
campaign, and generated campaigns for pyNTCIREVAL (a Python port of NTCIREVAL, test oracle).

NTCIREVAL reads runs in file order: every evaluation here uses ``ordering='file'``.
"""
from __future__ import annotations

import random

import pyeval
from pyeval.core.evaluation import evaluate
from pyeval.measures import parse

from ..conftest import FIXTURES

NTCIR = FIXTURES / "ntcireval"


def nev_values() -> dict[tuple[str, str], str]:
    """(topic, NTCIREVAL metric name) -> printed value of TRECRUN.test.nev (NTCIREVAL 190111,
    ``-g 1:2 -cutoffs 10,1000``; test.qrels has one level, L1, so its gain is 1)."""
    values = {}
    for line in (NTCIR / "TRECRUN.test.nev").read_text().splitlines():
        topic, rest = line.split(" ", 1)
        if not rest.startswith("#"):
            name, value = rest.split("=")
            values[topic, name] = value.strip()
    return values


def trecrun_values(measures: list[str]) -> dict[tuple[str, str], float]:
    """(topic, canonical measure) -> pyeval's value for TRECRUN against test.qrels."""
    con = pyeval.connect()
    try:
        pyeval.load_qrels(con, "t", NTCIR / "test.qrels")
        pyeval.load_run(con, "t", NTCIR / "TRECRUN", name="TRECRUN")
        result = evaluate(con, "t", measures, store=False, ordering="file")
    finally:
        con.close()
    return {(t, m): v for t, m, v in result.per_topic[["topic_id", "measure", "value"]].itertuples(index=False)}


def sample_campaign(write, con):
    """NTCIREVAL's README sample as campaign 's', topic '1': sample.rel (ten relevant documents,
    L3 x3, L2 x3, L1 x4, and one L0) and sample.res (L0, L3, unjudged, L2) as run 'sample'."""
    rel = (NTCIR / "sample.rel").read_text().split()
    qrels = "".join(f"1 {doc} {label}\n" for doc, label in zip(rel[::2], rel[1::2]))
    docs = (NTCIR / "sample.res").read_text().split()
    run = "".join(f"1 Q0 {doc} {rank} {100 - rank} sample\n" for rank, doc in enumerate(docs, start=1))
    pyeval.load_qrels(con, "s", write("sample.qrels", qrels))
    pyeval.load_run(con, "s", write("sample.run", run), name="sample")
    return con


def per_topic(con, measures, campaign_id: str, **settings) -> dict[tuple[str, str, str], float]:
    """(run_id, topic_id, canonical measure) -> value, file order unless told otherwise."""
    settings.setdefault("ordering", "file")
    result = evaluate(con, campaign_id, measures, store=False, **settings)
    return {(r.run_id, r.topic_id, r.measure): r.value for r in result.per_topic.itertuples()}


def canonical(name: str) -> str:
    return str(parse(name))


def printed(value: float) -> str:
    """A value as NTCIREVAL prints it (%.4f)."""
    return f"{value:.4f}"


def generated_campaign(write, con, seed: int, *, topics: int = 30, max_level: int = 3,
                       unjudged: bool = True):
    """Campaign 'g': random graded qrels (levels 0..max_level, R >= 1 per topic) and two runs
    holding at least one relevant document per topic (pyNTCIREVAL's P-plus needs one), with
    unjudged documents when asked. Returns {run: {topic: [docs]}} and {topic: {doc: level}}."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, list[str]]] = {"a": {}, "b": {}}
    for number in range(1, topics + 1):
        topic = f"{number:04d}"
        pool = [f"d{n:03d}" for n in range(rng.randint(8, 90))]
        judged = {doc: min(rng.choice([0, 0, 0, 1, 1, 2, 3]), max_level) for doc in pool if rng.random() < 0.7}
        relevant = [doc for doc, level in judged.items() if level > 0]
        if not relevant:
            judged[pool[0]] = 1
            relevant = [pool[0]]
        qrels[topic] = judged
        for run_docs in runs.values():
            candidates = pool if unjudged else list(judged)
            docs = rng.sample(candidates, rng.randint(1, len(candidates)))
            if not any(doc in relevant for doc in docs):
                docs[rng.randrange(len(docs))] = rng.choice(relevant)
                docs = list(dict.fromkeys(docs))
            run_docs[topic] = docs
    lines = "".join(f"{t} 0 {d} {level}\n" for t, docs in qrels.items() for d, level in docs.items())
    pyeval.load_qrels(con, "g", write("g.qrels", lines))
    for name, topics_docs in runs.items():
        text = "".join(
            f"{t} Q0 {d} {rank} {1000 - rank} {name}\n"
            for t, docs in topics_docs.items()
            for rank, d in enumerate(docs, start=1)
        )
        pyeval.load_run(con, "g", write(f"{name}.run", text), name=name)
    return runs, qrels


def pyntcireval_inputs(qrels: dict[str, int], docs: list[str], max_level: int, truncate=None):
    """pyNTCIREVAL's labelled list and per-level judgment counts (xrelnum) for one topic."""
    from pyNTCIREVAL import Labeler

    labeler = Labeler(qrels, truncate=truncate)
    return labeler.label(docs), labeler.compute_per_level_doc_num(max_level + 1)
