"""Every name ir_measures parses means the same measure in pyeval (ir_measures 0.4.3 as oracle).

Walks ir_measures' measure registry: each name with its cutoff and each parameter set away from
its default. Where one of ir_measures' providers computes a spelling, pyeval parses it and
computes the same per-topic values on a generated campaign (graded levels 0-3, unique scores,
so that every tie-breaking rule ranks alike). The names pyeval lacks are listed, and the list
is checked.
"""
from __future__ import annotations

import random

import pytest

import pyeval
from pyeval.errors import UnknownMeasureError
from pyeval.measures import parse

ir_measures = pytest.importorskip("ir_measures")

#: ir_measures names pyeval does not compute
MISSING: set[str] = set()
#: a value away from the default for each parameter ir_measures declares
VALUES = {"rel": 2, "judged_only": True, "p": 0.5, "beta": 2.0, "alpha": 0.3, "dcg": "exp-log2",
          "gains": {0: 0, 1: 1, 2: 5, 3: 9}, "relative": True, "normalize": False, "T": 2.0,
          "min_rel": 1, "max_rel": 3}
#: ndeval's patience must lie in [0, 1]
VALUES_OF = {("NRBP", "beta"): 0.3, ("nNRBP", "beta"): 0.3}
#: values that differ by design, as (measure name, topic): a topic the run lacks counts 0 in
#: ir_measures' NumQ and NumRel (its evaluator fills 0) and 1 and R in pyeval (trec_eval -c)
UNRETRIEVED_TOPIC = "12"
COUNTED_WHEN_UNRETRIEVED = {"NumQ", "NumRel"}
#: gdeval prints 5 decimals (ir_measures' ERR and nDCG(dcg='exp-log2') come from gdeval)
GDEVAL_DECIMALS = 5e-6
#: measures whose values need diversity qrels (ndeval's; tests/drivers compare them with pyndeval)
DIVERSITY = {"AP_IA", "ERR_IA", "NRBP", "P_IA", "StRecall", "alpha_DCG", "alpha_nDCG", "nERR_IA",
             "nNRBP", "MAP_IA", "α_DCG", "α_nDCG"}


def _spellings(name, measure) -> list[str]:
    params = measure.SUPPORTED_PARAMS
    at = "@5" if "cutoff" in params else "@0.5" if "recall" in params else ""
    found = [name + at] + ([name] if at == "@5" else [])
    for key in params:
        if key in VALUES:
            found.append(f"{name}({key}={VALUES_OF.get((name, key), VALUES[key])!r}){at}")
    return found


SPELLINGS = [(name, text) for name, measure in sorted(ir_measures.measures.registry.items())
             for text in _spellings(name, measure)]


def test_the_names_pyeval_lacks_are_the_listed_ones():
    lacking = set()
    for name, measure in ir_measures.measures.registry.items():
        try:
            parse(_spellings(name, measure)[0])
        except UnknownMeasureError:
            lacking.add(name)
    assert lacking == MISSING


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    rng = random.Random(19)
    qrels, run = [], []
    for topic in range(1, 13):
        docs = [f"d{i:02d}" for i in range(40)]
        for doc in sorted(rng.sample(docs, 20)):
            qrels.append(ir_measures.Qrel(str(topic), doc, rng.choice([0, 0, 0, 1, 1, 2, 3])))
        depth = 0 if topic == 12 else rng.randint(3, 30)  # topic 12: judged, not retrieved
        scores = rng.sample(range(1, 1000), depth)
        run += [ir_measures.ScoredDoc(str(topic), doc, score / 7) for doc, score in zip(rng.sample(docs, depth), scores)]
    folder = tmp_path_factory.mktemp("names")
    (folder / "qrels").write_text("".join(f"{q.query_id} 0 {q.doc_id} {q.relevance}\n" for q in qrels))
    # a run file as systems write it: each topic by score, ranks 1, 2, ... (cwl_eval and ndeval
    # read the lines' order and the rank column, ir_measures' providers the scores: all agree)
    ranked = sorted(run, key=lambda d: (int(d.query_id), -d.score))
    ranks = [sum(1 for e in ranked[:i] if e.query_id == d.query_id) + 1 for i, d in enumerate(ranked)]
    (folder / "run").write_text("".join(f"{d.query_id} Q0 {d.doc_id} {rank} {d.score!r} r\n"
                                        for d, rank in zip(ranked, ranks)))
    con = pyeval.connect()
    pyeval.load_qrels(con, "c", folder / "qrels")
    pyeval.load_run(con, "c", folder / "run", name="r")
    yield con, qrels, run
    con.close()


@pytest.mark.parametrize("name,text", [s for s in SPELLINGS if s[0] not in MISSING], ids=lambda v: str(v))
def test_same_meaning_as_ir_measures(campaign, name, text):
    con, qrels, run = campaign
    their_measure = ir_measures.parse_measure(text)
    try:
        theirs = {m.query_id: m.value for m in ir_measures.iter_calc([their_measure], qrels, run)}
    except Exception:  # noqa: BLE001  (no provider computes this spelling: it has no meaning to agree with)
        theirs = None
    cut_without_cutoff = "cutoff" in their_measure.SUPPORTED_PARAMS and "@" not in text
    if name in DIVERSITY:  # pyndeval computes nothing without a cutoff (ir_measures fills 0)
        if not cut_without_cutoff:
            assert str(parse(text)) == str(parse(str(their_measure)))
        return
    if theirs is None:
        return
    ours = parse(text)
    frame = pyeval.evaluate(con, "c", [ours], store=False).per_topic
    values = dict(zip(frame["topic_id"], frame["value"]))
    tolerance = GDEVAL_DECIMALS if ours.name in ("ERR", "nDCG") and ours["gain"] == "exp" or ours.name == "ERR" else 1e-9
    if ours.name in COUNTED_WHEN_UNRETRIEVED:
        theirs.pop(UNRETRIEVED_TOPIC)
        values.pop(UNRETRIEVED_TOPIC)
    if ours.name == "Accuracy":  # ir_measures reports no value without a relevant document retrieved
        assert all(values[topic] == 0 for topic in set(values) - set(theirs))
        values = {topic: value for topic, value in values.items() if topic in theirs}
    assert set(values) == set(theirs)
    for topic, value in theirs.items():
        assert values[topic] == pytest.approx(value, abs=tolerance), (text, str(ours), topic)
