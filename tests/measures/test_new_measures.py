"""Oracle tests of Hits (ranx), the trec-asc ordering (ir_measures' judged and compat providers,
which break score ties by docno ascending) and inline gain profiles.

Accuracy, Compat, Judged without a cutoff, judged_only and ir_measures' nDCG parameters are
checked against ir_measures in test_ir_measures_names.py.
"""
from __future__ import annotations

import random

import pytest

import pyeval
from pyeval.core import evaluation
from pyeval.core.gains import define_gain_profile

ir_measures = pytest.importorskip("ir_measures")


def _campaign(folder, rng, *, tied: bool):
    """Graded qrels and one run over 10 topics; ``tied``: scores with many ties."""
    qrels, run = {}, {}
    for topic in map(str, range(1, 11)):
        docs = [f"d{i:02d}" for i in range(40)]
        qrels[topic] = {doc: rng.choice([0, 0, 1, 2, 3]) for doc in sorted(rng.sample(docs, 20))}
        retrieved = rng.sample(docs, rng.randint(5, 30))
        run[topic] = {doc: (float(rng.randint(1, 4)) if tied else rng.uniform(-2, 5)) for doc in retrieved}
    (folder / "qrels").write_text("".join(f"{t} 0 {d} {level}\n" for t, docs in qrels.items()
                                          for d, level in docs.items()))
    (folder / "run").write_text("".join(f"{t} Q0 {d} 0 {score!r} r\n" for t, docs in run.items()
                                        for d, score in docs.items()))
    con = pyeval.connect()
    pyeval.load_qrels(con, "c", folder / "qrels")
    pyeval.load_run(con, "c", folder / "run", name="r")
    return con, qrels, run


def _per_topic(con, measure, **settings):
    frame = pyeval.evaluate(con, "c", [measure], store=False, **settings).per_topic
    return dict(zip(frame["topic_id"], frame["value"]))


@pytest.mark.engines  # ranx pulls numba: installed with the test-engines extra
@pytest.mark.parametrize("seed", [1])
def test_hits_is_ranx_hits(tmp_path, seed):
    ranx = pytest.importorskip("ranx", reason="ranx is not installed (pip install '.[test-engines]')")
    con, qrels, run = _campaign(tmp_path, random.Random(seed), tied=False)
    ranx_qrels = ranx.Qrels({t: {d: level for d, level in docs.items() if level > 0} for t, docs in qrels.items()})
    ranx_run = ranx.Run(run)
    for ours, theirs in (("Hits@5", "hits@5"), ("Hits@20", "hits@20"), ("Hits", "hits"), ("hits@10", "hits@10")):
        ranx.evaluate(ranx_qrels, ranx_run, theirs, return_mean=False)
        expected = ranx_run.scores[theirs]
        values = _per_topic(con, ours)
        assert values == pytest.approx({t: float(v) for t, v in expected.items()}, abs=1e-12), ours
    con.close()


@pytest.mark.parametrize("seed", [4, 5])
def test_trec_asc_breaks_ties_as_ir_measures_judged_and_compat(tmp_path, seed):
    con, qrels, run = _campaign(tmp_path, random.Random(seed), tied=True)
    irm_qrels = [ir_measures.Qrel(t, d, level) for t, docs in qrels.items() for d, level in docs.items()]
    irm_run = [ir_measures.ScoredDoc(t, d, s) for t, docs in run.items() for d, s in docs.items()]
    for measure in ("Judged@3", "Judged@7", "Compat", "Compat(p=0.7)"):
        expected = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(measure)],
                                                                        irm_qrels, irm_run)}
        values = _per_topic(con, measure, ordering="trec-asc")
        assert values == pytest.approx(expected, abs=1e-12), measure
    # the same lists under trec_eval's tie order give other values somewhere
    assert _per_topic(con, "Judged@3", ordering="trec") != _per_topic(con, "Judged@3", ordering="trec-asc")
    con.close()


def test_trec_asc_is_file_order_of_a_run_sorted_so(tmp_path, write):
    """The Python drivers' ranking (driver_entries) ranks by score descending, then docno
    ascending, as the SQL families' (ranked_entries: the test above)."""
    rng = random.Random(7)
    qrels = "".join(f"1 {i % 3} d{i:02d} {rng.choice([0, 1, 2])}\n" for i in range(30))
    entries = [(f"d{i:02d}", float(rng.randint(1, 3))) for i in rng.sample(range(30), 20)]
    lines = [f"1 Q0 {d} 0 {s} r\n" for d, s in entries]
    sorted_lines = [f"1 Q0 {d} 0 {s} r\n" for d, s in sorted(entries, key=lambda e: (-e[1], e[0]))]
    con = pyeval.connect()
    pyeval.load_qrels(con, "c", write("qrels", qrels), format="trec-diversity")
    pyeval.load_run(con, "c", write("shuffled", "".join(lines)), name="shuffled")
    pyeval.load_run(con, "c", write("sorted", "".join(sorted_lines)), name="sorted")
    measures = ["alpha_nDCG@10", "ERR_IA@5", "P_IA@5", "StRecall@5", "NRBP"]  # the ndeval driver
    asc = pyeval.evaluate(con, "c", measures, runs=["shuffled"], ordering="trec-asc", store=False).per_topic
    files = pyeval.evaluate(con, "c", measures, runs=["sorted"], ordering="file", store=False).per_topic
    assert list(asc["value"]) == list(files["value"])
    con.close()


def test_cli_offers_every_ordering():
    from click.testing import CliRunner

    from pyeval.cli import main

    help_text = CliRunner().invoke(main, ["evaluate", "--help"]).output
    assert all(ordering in help_text for ordering in evaluation.ORDERINGS)


def test_inline_gain_profile_is_stored_with_the_evaluation_that_used_it(tmp_path):
    con, qrels, run = _campaign(tmp_path, random.Random(8), tied=False)
    inline = _per_topic(con, "nDCG(gains={0: 0, 1: 1, 2: 5, 3: 9})@10")
    profiles = "select distinct profile from gain_profiles order by profile"
    assert con.execute(profiles).fetchall() == []  # not stored: the evaluation was not
    define_gain_profile(con, "c", "named", {0: 0, 1: 1, 2: 5, 3: 9})
    assert _per_topic(con, "nDCG(gain=named)@10") == inline
    stored = pyeval.evaluate(con, "c", ["nDCG(gains={0: 0, 1: 1, 2: 5, 3: 9})@10"]).evaluation_id
    assert con.execute(profiles).fetchall() == [("0=0,1=1,2=5,3=9",), ("named",)]
    inputs = con.execute("select input_kind, input_name from evaluation_inputs where evaluation_id = $e "
                         "and input_kind = 'gains'", {"e": stored}).fetchall()
    assert inputs == [("gains", "0=0,1=1,2=5,3=9")]
    with pytest.raises(pyeval.PyevalError):  # a failed evaluation leaves no profile behind
        pyeval.evaluate(con, "c", ["nDCG(gains={1: 2})@10", "nDCG(gain=nosuch)@10"])
    assert con.execute(profiles).fetchall() == [("0=0,1=1,2=5,3=9",), ("named",)]
    con.close()


def test_set_precision_at_k_is_set_precision_of_the_cut_list(tmp_path):
    """SetP@k by hand: C(k')/k' with k' = min(k, L), the relevant documents among the first k'."""
    con, qrels, run = _campaign(tmp_path, random.Random(9), tied=False)
    for k in (1, 5, 20, 1000):
        expected = {}
        for topic, docs in run.items():
            ranked = sorted(docs, key=lambda d: -docs[d])[:k]
            expected[topic] = sum(qrels[topic].get(d, 0) >= 1 for d in ranked) / len(ranked)
        assert _per_topic(con, f"SetP@{k}") == pytest.approx(expected, abs=1e-12)
    assert _per_topic(con, "SetP@1000") == _per_topic(con, "SetP")
    con.close()


def test_a_measures_own_judged_only_on_the_ndeval_driver(tmp_path):
    """alpha_nDCG(judged_only=True)@5 (ir_measures' parameter) is pyndeval on the run without its
    unjudged documents (ir_measures' pyndeval provider filters so, but fails on that path in
    0.4.3); the same evaluation's plain measures keep every document."""
    pyndeval = pytest.importorskip("pyndeval")
    rng = random.Random(5)
    qrels, run = [], []
    for topic in map(str, range(1, 8)):
        docs = [f"d{i:02d}" for i in range(30)]
        for doc in sorted(rng.sample(docs, 15)):
            qrels += [(topic, intent, doc, rng.choice([0, 0, 1])) for intent in ("1", "2", "3")]
        run += [(topic, doc, rng.uniform(0, 10)) for doc in rng.sample(docs, 20)]
    judged = {(t, d) for t, _, d, _ in qrels}
    kept = [entry for entry in run if entry[:2] in judged]
    measures = ["alpha-nDCG@5", "ERR-IA@10", "P-IA@5"]
    expected = {
        "all": pyndeval.ndeval([pyndeval.SubtopicQrel(*q) for q in qrels], [pyndeval.ScoredDoc(*r) for r in run],
                               measures=measures),
        "judged": pyndeval.ndeval([pyndeval.SubtopicQrel(*q) for q in qrels],
                                  [pyndeval.ScoredDoc(*r) for r in kept], measures=measures),
    }
    irm_qrels = [ir_measures.Qrel(t, d, level, intent) for t, intent, d, level in qrels]
    irm_run = [ir_measures.ScoredDoc(*r) for r in run]
    names = {"alpha-nDCG@5": "alpha_nDCG", "ERR-IA@10": "ERR_IA", "P-IA@5": "P_IA"}
    asked = {}
    for column, name in names.items():
        cutoff = column.split("@")[1]
        asked[(column, "all")] = f"{name}@{cutoff}"
        asked[(column, "judged")] = f"{name}(judged_only=True)@{cutoff}"
    got = {(m.query_id, m.measure): m.value
           for m in pyeval.iter_calc(list(asked.values()), irm_qrels, irm_run, ordering="trec-asc")}
    for (column, which), measure in asked.items():
        for topic, values in expected[which].items():
            if topic != "amean":
                assert got[topic, measure] == pytest.approx(values[column], abs=1e-6), (measure, topic)


def test_compat_places_a_score_of_zero_among_the_unretrieved_in_docno_order():
    """A retrieved relevant document of score exactly 0 ties with the unretrieved relevant ones
    (score 0 to Compat's ideal ranking), so docno order decides (issue 32); ir_measures is the
    oracle. Qrels in docno order: ir_measures keeps qrels order for such ties."""
    qrels = [ir_measures.Qrel("1", "a", 1), ir_measures.Qrel("1", "b", 1)]
    run = [ir_measures.ScoredDoc("1", "b", 0.0)]
    expected = ir_measures.calc_aggregate([ir_measures.Compat()], qrels, run)[ir_measures.Compat()]
    assert expected == pytest.approx(0.243590, abs=1e-6)
    assert pyeval.calc_aggregate(["Compat"], qrels, run)["Compat"] == pytest.approx(expected, abs=1e-12)
    rng = random.Random(7)
    qrels, run = [], []
    for topic in map(str, range(1, 21)):
        docs = [f"d{i:02d}" for i in range(12)]
        qrels += [ir_measures.Qrel(topic, doc, rng.choice([0, 1, 1, 2])) for doc in docs[:8]]
        run += [ir_measures.ScoredDoc(topic, doc, rng.choice([0.0, 0.0, 1.0, -1.0, 2.5]))
                for doc in rng.sample(docs, rng.randint(1, 10))]
    for measure in (ir_measures.Compat(), ir_measures.Compat(p=0.7, normalize=False)):
        expected = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        ours = {m.query_id: m.value for m in pyeval.iter_calc([str(measure)], qrels, run, ordering="trec-asc")}
        assert ours == pytest.approx(expected, abs=1e-12), measure
