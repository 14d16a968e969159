"""The preferences family (sql/metrics/metric_preferences.sql): PrefsPossible, PrefsFulfilled,
PrefsSimp, PrefsPair, PrefsAvgJG, PrefsAvgJGRnonrel.

Oracles: trec_eval 10.0's expected outputs out.test.prefs and out.test.qrels_prefs (byte for
byte in tests/compat/test_trec_eval.py) and the hand-worked topics below, one per counting
path of form_prefs_counts.c and m_prefs_avgjg_Rnonrel*.c. Areas of a preference A > B (docid
ranks: judged retrieved documents in list order, then the unretrieved judged ones in docno
order; NJR judged documents retrieved): A1 both retrieved, A first; A2 both retrieved, B
first; A3 only A retrieved; A4 only B retrieved; A5 neither.
"""
from __future__ import annotations

import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main
from pyeval.errors import DuplicateEntryError, InputFormatError
from pyeval.loaders.prefs import stage_preferences

from ..conftest import FIXTURES
from .helpers import campaign, values

# topic jg jsg docno rel_level
PREFS = """\
# topic 1: one judgment group, one sub-group (equivalence classes); every area
1 g s a 2
1 g s b 1
1 g s c 0
1 g s d 0
1 g s e 0
# topic 2: one group, three sub-groups chained: a > b, b > c, c > d close to a total order
2 g s1 a 3
2 g s1 b 2
2 g s2 b 2
2 g s2 c 1
2 g s3 c 1
2 g s3 d 0
# topic 3: two groups that disagree on x and y
3 g1 s x 1
3 g1 s y 0
3 g2 s y 1
3 g2 s x 0
3 g2 s z 0
# topic 4: one group, two sub-groups, more non-relevant than relevant documents
4 g s1 b 2
4 g s1 a 1
4 g s1 n1 0
4 g s2 a 1
4 g s2 n2 0
4 g s2 n3 0
"""

RUNS = {"r": {
    "1": ["c", "a", "x", "d"],  # x unjudged; b and e not retrieved
    "2": ["b", "a", "d"],  # c not retrieved
    "3": ["x", "y"],  # z not retrieved
    "4": ["n2", "a", "n1"],  # b and n3 not retrieved
}}

MEASURES = [
    "PrefsPossible", "PrefsPossible(pairs=ret)", "PrefsPossible(pairs=imp)",
    "PrefsFulfilled", "PrefsFulfilled(pairs=ret)", "PrefsFulfilled(pairs=imp)",
    "PrefsSimp", "PrefsSimp(pairs=ret)", "PrefsSimp(pairs=imp)",
    "PrefsAvgJG", "PrefsAvgJG(pairs=ret)", "PrefsAvgJG(pairs=imp)",
    "PrefsPair", "PrefsPair(pairs=ret)", "PrefsPair(pairs=imp)",
    "PrefsAvgJGRnonrel", "PrefsAvgJGRnonrel(pairs=ret)",
]

# Topic 1. docid ranks c0 a1 d2 | b3 e4 (NJR 3). Preferences (level order, one sub-group):
# a>b A3, a>c A2, a>d A1, a>e A3, b>c A4, b>d A4, b>e A5: A1..A5 = 1, 1, 2, 2, 1.
# Pairs (first by docid rank; score = share preferring the first, 0 if the first is not
# retrieved): (a,b) 1 imp, (c,a) 0 ret, (a,d) 1 ret, (a,e) 1 imp, (c,b) 0 imp, (d,b) 0 imp,
# (b,e) 0 neither.
# Rnonrel, all: R = 2 (a, b) < N = 3 (c, d, e): preferences whose worse document is above the
# lowest level (a>b: fulfilled) + every group document (5) against each of the first R = 2
# lowest-level documents c, d: fulfilled when retrieved above it (none above c; c, a above d):
# (1 + 2) / (1 + 10). ret: R = 1 (a) < N = 2 (c, d): retrieved documents (3) against the first
# one lowest-level retrieved document c: none above it: 0 / 3.
# Topic 2. Direct: a>b, b>c, c>d; closure adds a>c, a>d, b>d. docid ranks b0 a1 d2 | c3.
# a>b A2, a>c A3, a>d A1, b>c A3, b>d A1, c>d A4: A1..A5 = 2, 1, 2, 1, 0.
# Rnonrel, all: R = 3 >= N = 1: (4 + num_rel_ret 2 * (R-N) 2) / (6 + 3 * 2) = 8/12.
# ret: R = num_rel_ret 2 >= N = num_nonrel_ret 1: (A1 2 + 2 * 1) / (A1+A2 3 + num_rel 3 * 1).
# Topic 3. docid ranks x0 y1 | z2. g1: x>y A1. g2: y>x A2, y>z A3.
# Pairs: (x,y) preferred both ways: 1/2 (ret); (y,z) 1 (imp).
# Rnonrel, all: g1 R = N = 1: 1/1; g2 R = 1 < N = 2: lowest level {x, z}, first R: x; group
# documents above x: none: 0/3. (1 + 0) / 2. ret: g1 1/1; g2 R = 1 >= N = 1: A1 0 / A1+A2 1.
# Topic 4. Closure: b>a, b>n1, a>n1, a>n2, a>n3, b>n2, b>n3. docid ranks n2 0, a1, n1 2 | b3, n3 4.
# b>a A4, b>n1 A4, a>n1 A1, a>n2 A2, a>n3 A3, b>n2 A4, b>n3 A5: A1..A5 = 1, 1, 1, 3, 1.
# Rnonrel, all: R = 2 < N = 3, several sub-groups: keep the first R non-relevant documents by
# docid rank (n2, n1): b>a, b>n1, a>n1, a>n2, b>n2: fulfilled a>n1: 1/5. ret: R = 1 < N = 2:
# keep the first num_rel = 2 retrieved non-relevant documents (n2, n1): a>n1 A1, a>n2 A2: 1/2.
EXPECTED = {
    "1": [7, 2, 6, 3, 1, 3, 3 / 7, 1 / 2, 3 / 6, 3 / 7, 1 / 2, 3 / 6, 3 / 7, 1 / 2, 3 / 6, 3 / 11, 0.0],
    "2": [6, 3, 6, 4, 2, 4, 4 / 6, 2 / 3, 4 / 6, 4 / 6, 2 / 3, 4 / 6, 4 / 6, 2 / 3, 4 / 6, 8 / 12, 4 / 6],
    "3": [3, 2, 3, 2, 1, 2, 2 / 3, 1 / 2, 2 / 3, (1 + 1 / 2) / 2, (1 + 0) / 2, (1 + 1 / 2) / 2,
          (1 / 2 + 1) / 2, 1 / 2, (1 / 2 + 1) / 2, 1 / 2, 1 / 2],
    "4": [7, 2, 6, 2, 1, 2, 2 / 7, 1 / 2, 2 / 6, 2 / 7, 1 / 2, 2 / 6, 2 / 7, 1 / 2, 2 / 6, 1 / 5, 1 / 2],
}


def file_values(con, measures) -> dict[tuple[str, str, str], float]:
    """(run_id, topic_id, measure) -> value, the preferences read from the file staged as
    evaluation_preferences (the request says so: preferences='file', as trec_eval -R prefs does)."""
    from pyeval.core.evaluation import run
    from pyeval.core.request import EvaluationRequest

    result = run(con, EvaluationRequest.build("t", measures, preferences="file"), store=False)
    return {(r.run_id, r.topic_id, r.measure): r.value for r in result.per_topic.itertuples()}


@pytest.fixture
def write(tmp_path):
    def _write(name: str, text: str):
        path = tmp_path / name
        path.write_text(text)
        return path
    return _write


@pytest.fixture
def hand_values(write):
    docs = {}
    for line in PREFS.splitlines():
        if line and not line.startswith("#"):
            topic, _, _, doc, level = line.split()
            docs.setdefault(topic, {})[doc] = 1 if float(level) > 0 else 0
    con = campaign(write, docs, RUNS)
    try:
        stage_preferences(con, write("hand.prefs", PREFS))
        return file_values(con, MEASURES)
    finally:
        con.close()


@pytest.mark.parametrize("topic", sorted(EXPECTED))
def test_hand_worked_topics(hand_values, topic):
    got = [hand_values["r", topic, measure] for measure in MEASURES]
    assert got == pytest.approx(EXPECTED[topic], abs=1e-12)


def test_qrels_as_preferences_are_one_group_per_iter_field(write):
    """qrels_prefs: the 2nd field is the judgment group, every line in sub-group '0'."""
    con = campaign(write, {"1": {"a": 1, "b": 0}}, {"r": {"1": ["b", "a"]}})
    try:
        stage_preferences(con, write("q.txt", "1 0 a 1\n1 0 b 0\n1 7 a 0\n1 7 b 3\n"), format="qrels_prefs")
        rows = con.execute("select topic_id, jg, jsg, doc_id, rel_level from evaluation_preferences "
                           "order by jg, doc_id").fetchall()
        assert rows == [("1", "0", "0", "a", 1.0), ("1", "0", "0", "b", 0.0),
                        ("1", "7", "0", "a", 0.0), ("1", "7", "0", "b", 3.0)]
        got = file_values(con, ["PrefsSimp", "PrefsPair", "PrefsAvgJG"])
        # group 0: a>b fails (b is first); group 7: b>a holds; the pair (b, a): 1/2
        assert [got["r", "1", m] for m in ("PrefsSimp", "PrefsPair", "PrefsAvgJG")] == [0.5, 0.5, 0.5]
    finally:
        con.close()


def test_topic_without_preferences_scores_zero(write):
    con = campaign(write, {"1": {"a": 1}, "2": {"b": 1}}, {"r": {"1": ["a"], "2": ["b"]}})
    try:
        stage_preferences(con, write("p.txt", "1 g s a 1\n"))
        got = file_values(con, ["PrefsSimp", "PrefsPossible", "PrefsAvgJGRnonrel"])
        assert got["r", "2", "PrefsSimp"] == 0 and got["r", "2", "PrefsPossible"] == 0
        # topic 1: one document, no preference; R = 1 >= N = 0 pads 1*(1-0) fulfilled of 1
        assert got["r", "1", "PrefsAvgJGRnonrel"] == 1.0
    finally:
        con.close()


@pytest.mark.parametrize("text,error,message", [
    ("1 g s a\n", InputFormatError, ":1: expected 5 fields (topic jg jsg docno rel_level), found 4"),
    ("1 g s a x\n", InputFormatError, ":1: relevance level 'x' is not a number"),
    ("1 g s a 1\n\n", InputFormatError, ":2: blank line"),
    ("1 g s a 1\n1 g s a 2\n", DuplicateEntryError, ":2: document 'a' judged twice"),
    ("1 g s1 a 1\n1 g s1 b 2\n1 g s2 a 0\n", InputFormatError,
     ":3: document 'a' of topic '1', judgment group 'g' has level 0 (line 3) and a level > 0 (line 1)"),
    ("1 g s1 a 2\n1 g s1 b 1\n1 g s2 b 2\n1 g s2 a 1\n", InputFormatError, "inconsistent preferences"),
])
def test_bad_preference_files(write, text, error, message):
    con = campaign(write, {"1": {"a": 1}}, {"r": {"1": ["a"]}})
    try:
        with pytest.raises(error) as caught:
            stage_preferences(con, write("bad.prefs", text))
        assert message in str(caught.value)
    finally:
        con.close()


def test_drop_in_breaks_score_ties_by_docno_ascending(write):
    """form_prefs_counts.c ranks tied scores by docno ascending (trec_eval's other measures:
    descending): with a and b tied, a is above b, and a > b is fulfilled."""
    prefs = write("tie.prefs", "1 g s a 1\n1 g s b 0\n")
    run = write("tie.run", "1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n")
    result = CliRunner().invoke(main, ["trec_eval", "-m", "prefs_simp", "-R", "prefs", str(prefs), str(run)])
    assert result.exit_code == 0, result.output
    assert result.stdout == "prefs_simp            \tall\t1.0000\n"


def test_evaluate_reads_the_campaign_qrels_as_preferences():
    """Without staged preferences, evaluate() reads the qrels as trec_eval -R qrels_prefs does
    (one judgment group per topic); results.test has no score ties, so the orders agree."""
    con = pyeval.connect()
    pyeval.load_qrels(con, "c", FIXTURES / "trec_eval" / "qrels.test")
    pyeval.load_run(con, "c", FIXTURES / "trec_eval" / "results.test", name="r")
    means = pyeval.evaluate(con, "c", ["PrefsSimp", "PrefsPair"], store=False).means
    printed = CliRunner().invoke(main, [
        "trec_eval", "-m", "prefs_simp", "-m", "prefs_pair", "-R", "qrels_prefs",
        str(FIXTURES / "trec_eval" / "qrels.test"), str(FIXTURES / "trec_eval" / "results.test"),
    ]).stdout
    expected = {line.split()[0]: float(line.split()[2]) for line in printed.splitlines()}
    got = dict(zip(means["measure"], means["value"]))
    assert round(got["PrefsSimp"], 4) == expected["prefs_simp"]
    assert round(got["PrefsPair"], 4) == expected["prefs_pair"]
    assert con.execute(
        "select count(*) from duckdb_tables() where table_name = 'evaluation_preferences'"
    ).fetchall() == [(0,)]
