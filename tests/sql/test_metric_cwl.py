"""The C/W/L family (sql/metrics/metric_cwl.sql): INST, INSQ, BPM, BPMDynamic, SDCG, NERR8-11.

Oracle: cwl_eval 1.0.12 itself (its ruler's metric classes, as ir_measures' cwl_eval provider
calls them: gains scaled from min_rel..max_rel, lists cut or padded to 1000 documents of cost 1),
all five quantities cwl_eval prints (EU, ETU, EC, ETC, EI), to 1e-9, on generated campaigns
and on the TREC 2012 Web track ad hoc qrels with the sample run indri-ql; and
ir_measures' own values (its cwl_eval provider) for its names.
"""
from __future__ import annotations

import random
from importlib import resources

import numpy as np
import pytest

import pyeval
from pyeval.measures import parse

from .helpers import campaign, values

cwl_ranking = pytest.importorskip("cwl.ruler.ranking")
from cwl.ruler.measures.cwl_bpm import BPMCWLMetric, BPMDCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_dcg import NDCGCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_insq import INSQCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_inst import INSTCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_nerr import (  # noqa: E402
    NERReq8CWLMetric,
    NERReq9CWLMetric,
    NERReq10CWLMetric,
    NERReq11CWLMetric,
)

QUANTITIES = ("utility", "total_utility", "cost", "total_cost", "items")  # cwl_eval's print order

#: (pyeval measure without the level range, cwl_eval metric)
CASES = [
    ("INST", lambda: INSTCWLMetric(1.0)), ("INST(T=2.5)", lambda: INSTCWLMetric(2.5)),
    ("INSQ", lambda: INSQCWLMetric(1.0)), ("INSQ(T=3.0)", lambda: INSQCWLMetric(3.0)),
    ("BPM", lambda: BPMCWLMetric(1.0, 10)), ("BPM(T=1.5)@7", lambda: BPMCWLMetric(1.5, 7)),
    ("BPMDynamic(T=1.5, hb=0.7, gain_med=0.3)@12", lambda: BPMDCWLMetric(1.5, 12, 0.7, 1.0, 0.3)),
    ("BPMDynamic", lambda: BPMDCWLMetric(1.0, 10, 1.0, 1.0, 0.5)),
    ("SDCG@10", lambda: NDCGCWLMetric(10)), ("SDCG@1", lambda: NDCGCWLMetric(1)),
    ("NERR8@6", lambda: NERReq8CWLMetric(6)), ("NERR9@6", lambda: NERReq9CWLMetric(6)),
    ("NERR10", lambda: NERReq10CWLMetric(0.9)), ("NERR10(p=0.5)", lambda: NERReq10CWLMetric(0.5)),
    ("NERR11", lambda: NERReq11CWLMetric(1.0)), ("NERR11(T=2.0)", lambda: NERReq11CWLMetric(2.0)),
]


def _with(text: str, **params) -> str:
    """``text`` with more parameters (``BPM(T=1.5)@7`` + min_rel=1 -> ``BPM(T=1.5, min_rel=1)@7``)."""
    head, at, cutoff = text.partition("@")
    name, _, inner = head.partition("(")
    given = [inner.rstrip(")")] if inner else []
    given += [f"{key}={value}" for key, value in params.items()]
    return f"{name}({', '.join(given)})" + (at + cutoff if at else "")


def cwl_eval(metric, ranked_levels: list[int], min_rel: int, max_rel: int) -> list[float]:
    """cwl_eval's five quantities for one ranked list of levels (ir_measures' gain scaling)."""
    gains = np.array([(min(max(max(level, 0), min_rel), max_rel) - min_rel) / (max_rel - min_rel)
                      for level in ranked_levels], dtype=float)
    ranking = cwl_ranking.Ranking("t", gains, np.ones(len(gains)), max_n=1000)
    metric.measure(ranking)
    return metric.get_scores()


def _check(con, ranked: dict[tuple[str, str], list[int]], min_rel: int, max_rel: int, campaign_id="t"):
    """Every case and quantity on every (run, topic) of ``ranked`` (levels in rank order; an
    unjudged document as 0)."""
    names = {(text, quantity): _with(text, min_rel=min_rel, max_rel=max_rel, expected=quantity)
             for text, _ in CASES for quantity in QUANTITIES}
    got = values(con, list(names.values()), campaign_id)
    checked = 0
    for text, make in CASES:
        for (run_id, topic_id), levels in ranked.items():
            expected = cwl_eval(make(), levels, min_rel, max_rel)
            for quantity, value in zip(QUANTITIES, expected):
                ours = got[run_id, topic_id, str(parse(names[text, quantity]))]
                assert ours == pytest.approx(value, abs=1e-9), (text, quantity, run_id, topic_id)
                checked += 1
    return checked


@pytest.mark.parametrize("seed", [1, 2])
def test_generated_campaigns_equal_cwl_eval(write, seed):
    rng = random.Random(seed)
    qrels, runs = {}, {"a": {}, "b": {}}
    for topic in map(str, range(1, 7)):
        docs = [f"d{i:02d}" for i in range(60)]
        qrels[topic] = {doc: rng.choice([-1, 0, 0, 1, 2, 3, 4]) for doc in sorted(rng.sample(docs, 40))}
        for run in runs:
            runs[run][topic] = rng.sample(docs, rng.randint(1, 50))
    con = campaign(write, qrels, runs)
    ranked = {(run, topic): [qrels[topic].get(doc, 0) for doc in docs]
              for run, topics in runs.items() for topic, docs in topics.items()}
    assert _check(con, ranked, 1, 3) == len(CASES) * len(QUANTITIES) * len(ranked)
    assert _check(con, ranked, 0, 4) == len(CASES) * len(QUANTITIES) * len(ranked)
    con.close()


def test_trec_web_2012_equals_cwl_eval():
    """cwl_eval reads a run's lines in file order, and a C/W/L name gives cwl_eval's number with
    no ordering named (issue 32: under trec_eval's order INST and INSQ of topic 156, NERR10 and
    NERR11 of topic 186 differed by 1e-5 to 1e-4)."""
    sample = resources.files("pyeval") / "sample"
    con = pyeval.connect()
    with resources.as_file(sample / "qrels.adhoc.txt.gz") as qrels_path:
        pyeval.load_qrels(con, "web2012", qrels_path)
    for run in ("indri-ql",):
        with resources.as_file(sample / "runs" / f"{run}.txt.gz") as run_path:
            pyeval.load_run(con, "web2012", run_path, name=run)
    levels = dict(((t, d), lvl) for t, d, lvl in con.execute(
        "select topic_id, doc_id, level from qrels where campaign_id = 'web2012'").fetchall())
    ranked = {}
    for run_id, topic_id, docs in con.execute(
        "select run_id, topic_id, list(doc_id order by rank) from ranked_entries "
        "where campaign_id = 'web2012' and ordering = 'file' group by all"
    ).fetchall():
        ranked[run_id, topic_id] = [levels.get((topic_id, doc), 0) for doc in docs]
    assert _check(con, ranked, 0, 4, "web2012") > 0
    con.close()


def test_ir_measures_names_equal_its_cwl_eval_provider(write):
    ir_measures = pytest.importorskip("ir_measures")
    rng = random.Random(3)
    qrels = {t: {f"d{i:02d}": rng.choice([0, 1, 2, 3]) for i in range(30)} for t in map(str, range(1, 6))}
    runs = {"r": {t: rng.sample(sorted(qrels[t]), 20) for t in qrels}}
    con = campaign(write, qrels, runs)
    irm_qrels = [ir_measures.Qrel(t, d, level) for t, docs in qrels.items() for d, level in docs.items()]
    irm_run = [ir_measures.ScoredDoc(t, d, 1000.0 - rank) for t, docs in runs["r"].items()
               for rank, d in enumerate(docs, start=1)]
    for text in ("INST(max_rel=3)", "INSQ(T=2.0, max_rel=3)", "BPM(T=2.0, max_rel=3)@5", "SDCG(max_rel=3)@5",
                 "SDCG(dcg='log2', max_rel=3)@5", "NERR8(max_rel=3)@5", "NERR9(min_rel=1, max_rel=3)@5",
                 "NERR10(p=0.7, max_rel=3)", "NERR11(T=2.0, max_rel=3)"):
        expected = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(text)],
                                                                        irm_qrels, irm_run)}
        got = values(con, [text])
        assert {t: got["r", t, str(parse(text))] for t in expected} == pytest.approx(expected, abs=1e-12), text
    con.close()


def test_levels_must_be_ordered():
    with pytest.raises(pyeval.errors.MeasureParamError, match="min_rel must be less than max_rel"):
        parse("INST(min_rel=3, max_rel=2)")
