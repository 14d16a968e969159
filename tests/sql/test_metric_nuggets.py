"""The measures of generated answers (sql/metrics/metric_nuggets.sql; docs/rag.md "Measures").

Oracles: nuggetizer 0.0.5's own scoring module (``nuggetizer.core.metrics``: the four nugget
scores per answer, ``calculate_nugget_scores``, and per run, ``calculate_global_metrics``) on
10,000 generated (run, topic) assignment lists evaluated in one warehouse; a hand-worked answer
and a small numpy computation for citation support (Thakur et al., arXiv 2504.15205).
"""
from __future__ import annotations

import math
import random
import statistics
import warnings

import numpy as np
import pandas as pd
import pytest

import pyeval
from pyeval.errors import PyevalError, PyevalWarning

from ..conftest import is_exact_mean

metrics = pytest.importorskip("nuggetizer.core.metrics")  # test-only dependency (pyproject.toml: test)

LABELS = ("support", "partial_support", "not_support")
FOUR = ("strict_vital_score", "strict_all_score", "vital_score", "all_score")


def _campaign(con, campaign: str, runs, judgment_set: str | None = None) -> None:
    """A campaign with ``runs`` (no ranked lists: only answers) and an assignment or support set."""
    con.execute("insert into campaigns (campaign_id, qrels_kind) values ($c, 'adhoc')", {"c": campaign})
    con.executemany("insert into runs (campaign_id, run_id, source_file, source_sha256) values (?, ?, 'f', 'x')",
                    [(campaign, run) for run in runs])
    if judgment_set is not None:
        con.execute("insert into judgment_sets (campaign_id, judgment_set, kind) values ($c, $j, 'llm')",
                    {"c": campaign, "j": judgment_set})


def _insert(con, table: str, frame: pd.DataFrame) -> None:
    rows = frame  # noqa: F841  (read by name: DuckDB's replacement scan)
    con.execute(f"insert into {table} by name select * from rows")


def _answers(con, campaign: str, pairs, length=lambda run, topic: 10) -> None:
    _insert(con, "answers", pd.DataFrame(
        [(campaign, run, topic, length(run, topic), True, i + 1, "f", "x") for i, (run, topic) in enumerate(pairs)],
        columns=["campaign_id", "run_id", "topic_id", "response_length", "length_given", "file_position",
                 "source_file", "source_sha256"]))


@pytest.fixture(scope="module")
def generated():
    """100 runs x 100 topics = 10,000 assignment lists (1-30 nuggets, a random mix of vital and
    okay: some topics without a vital nugget), plus 3 runs that leave topics unanswered."""
    rng = random.Random(41)
    topics = [f"T{t:03d}" for t in range(100)]
    runs = [f"R{r:03d}" for r in range(100)]
    partial = ["P1", "P2", "P3"]
    bank = {topic: [("vital" if rng.random() < (0 if t % 17 == 0 else 0.4) else "okay") for _ in range(rng.randint(1, 30))]
            for t, topic in enumerate(topics)}
    con = pyeval.connect()
    _campaign(con, "g", runs + partial, "auto")
    _insert(con, "nuggets", pd.DataFrame(
        [("g", "bank", topic, f"n{i}", i + 1, "text", importance, "llm")
         for topic, importances in bank.items() for i, importance in enumerate(importances)],
        columns=["campaign_id", "bank", "topic_id", "nugget_id", "nugget_number", "text", "importance", "creator"]))
    answered = [(run, topic) for run in runs for topic in topics]
    answered += [(run, topic) for run in partial for topic in topics if rng.random() < 0.7]
    _answers(con, "g", answered)
    records: dict[str, list[dict]] = {}
    rows = []
    for run, topic in answered:
        nuggets = [{"text": f"n{i}", "importance": importance, "assignment": rng.choice(LABELS)}
                   for i, importance in enumerate(bank[topic])]
        records.setdefault(run, []).append({"qid": topic, "nuggets": nuggets})
        rows += [("g", "auto", "bank", run, topic, n["text"], n["assignment"], "gpt", "f", "x") for n in nuggets]
    _insert(con, "nugget_assignments", pd.DataFrame(rows, columns=[
        "campaign_id", "judgment_set", "bank", "run_id", "topic_id", "nugget_id", "label", "assessor",
        "source_file", "source_sha256"]))
    yield con, records, topics, runs, partial
    con.close()


def test_the_four_scores_equal_nuggetizer_on_ten_thousand_answers(generated):
    con, records, topics, runs, partial = generated
    result = pyeval.evaluate(con, "g", list(FOUR), judgment_set="auto", runs=runs)
    names = {str(pyeval.parse_measure(key)): key for key in FOUR}
    got = {(row.run_id, row.topic_id, names[row.measure]): row.value for row in result.per_topic.itertuples()}
    expected = {}
    for run in runs:
        for record in records[run]:
            scores = metrics.calculate_nugget_scores(record["qid"], record["nuggets"])
            expected.update({(run, record["qid"], key): getattr(scores, key) for key in FOUR})
    assert len(expected) == 40_000
    assert got == expected  # exact in binary64
    stored = con.execute("select count(*) from scores_by_set where judgment_set = 'auto'").fetchone()[0]
    assert stored == 40_000


def test_run_means_over_the_answered_topics_are_nuggetizer_global_metrics(generated):
    """``topics='intersection'`` averages over the answered topics, as calculate_global_metrics
    does, exactly: nuggetizer's mean is statistics.mean (the exact mean of the values, rounded
    once), and so is pyeval's (sql/evaluation/means.sql; docs/rag.md "Measures")."""
    con, records, topics, runs, partial = generated
    result = pyeval.evaluate(con, "g", list(FOUR), judgment_set="auto", topics="intersection", store=False)
    names = {str(pyeval.parse_measure(key)): key for key in FOUR}
    means = {(row.run_id, names[row.measure]): row.value for row in result.means.itertuples()}
    per_topic = result.per_topic
    differs = 0
    for run in runs + partial:
        nuggetizer = metrics.calculate_global_metrics(records[run])
        for key in FOUR:
            values = per_topic[(per_topic["run_id"] == run) & (per_topic["measure"] == str(pyeval.parse_measure(key)))]
            assert len(values) == len(records[run])
            assert statistics.mean(values["value"]) == nuggetizer[key]  # the stored values give it exactly
            assert is_exact_mean(means[run, key], values["value"])  # == nuggetizer[key] from DuckDB 2.0 on
            differs += math.fsum(values["value"]) / len(values) != nuggetizer[key]
    assert differs > 0  # where a compensated sum divided by the topics is an ulp off


def test_a_missing_answer_scores_zero_and_is_named(generated):
    con, records, topics, runs, partial = generated
    with pytest.warns(PyevalWarning, match=r"pair\(s\) without an answer scored 0: P1/T") as caught:
        result = pyeval.evaluate(con, "g", ["vital_score", "AllScore"], judgment_set="auto", runs=partial, store=False)
    missing = sum(len(topics) - len(records[run]) for run in partial)
    assert f"{missing} (run, topic) pair(s)" in str(caught[0].message)
    frame = result.per_topic
    assert len(frame) == 2 * len(partial) * len(topics)
    for run in partial:
        answered = {record["qid"] for record in records[run]}
        unanswered = frame[(frame["run_id"] == run) & ~frame["topic_id"].isin(answered)]
        assert len(unanswered) == 2 * (len(topics) - len(answered)) and (unanswered["value"] == 0).all()
        mean = result.means.set_index(["run_id", "measure"]).loc[(run, "VitalScore")]
        assert mean["topics"] == len(topics)  # pyeval's mean counts a missing answer as 0


def test_weighted_score_is_the_four_at_their_weights(generated):
    con, records, topics, runs, partial = generated
    asked = ["WeightedScore(okay_weight=0)", "WeightedScore(okay_weight=1)",
             "WeightedScore(okay_weight=0, partial_weight=0)", "WeightedScore(okay_weight=1, partial_weight=0)",
             "VitalScore", "AllScore", "StrictVitalScore", "StrictAllScore"]
    frame = pyeval.evaluate(con, "g", asked, judgment_set="auto", runs=runs[:5], store=False).per_topic
    wide = frame.pivot_table(index=["run_id", "topic_id"], columns="measure", values="value")
    for weighted, plain in zip(asked[:4], asked[4:]):
        assert (wide[str(pyeval.parse_measure(weighted))] == wide[plain]).all()
    # vital 1, okay 0.5, partial 0.5 (the defaults), by hand for one answer
    record = records[runs[0]][0]
    credit = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
    weights = [1.0 if n["importance"] == "vital" else 0.5 for n in record["nuggets"]]
    by_hand = sum(w * credit[n["assignment"]] for w, n in zip(weights, record["nuggets"])) / sum(weights)
    value = pyeval.evaluate(con, "g", ["WeightedScore"], judgment_set="auto", runs=runs[:1], store=False).per_topic
    assert value.set_index("topic_id").loc[record["qid"], "value"] == pytest.approx(by_hand, rel=1e-15)


def test_names_as_the_tools_print_them():
    for spelling, canonical in (("vital_score", "VitalScore"), ("strict_vital_score", "StrictVitalScore"),
                                ("all_score", "AllScore"), ("strict_all_score", "StrictAllScore"),
                                ("VitalScore", "VitalScore"), ("vitalscore", "VitalScore")):
        assert str(pyeval.parse_measure(spelling)) == canonical


def _support_campaign(con, campaign: str, answers: dict, judgments: dict, judgment_set: str = "support") -> None:
    """answers: (run, topic) -> (response_length, [[cited doc, ...] per sentence]);
    judgments: (run, topic, sentence, doc) -> label."""
    _campaign(con, campaign, sorted({run for run, _ in answers}), judgment_set)
    _answers(con, campaign, list(answers), length=lambda run, topic: answers[run, topic][0])
    sentences, citations = [], []
    for (run, topic), (_, cited) in answers.items():
        for number, docs in enumerate(cited, 1):
            sentences.append((campaign, run, topic, number, "text"))
            citations += [(campaign, run, topic, number, place, doc) for place, doc in enumerate(docs, 1)]
    _insert(con, "answer_sentences", pd.DataFrame(sentences, columns=[
        "campaign_id", "run_id", "topic_id", "sentence_number", "text"]))
    _insert(con, "answer_citations", pd.DataFrame(citations, columns=[
        "campaign_id", "run_id", "topic_id", "sentence_number", "citation_number", "doc_id"]))
    _insert(con, "citation_support", pd.DataFrame(
        [(campaign, judgment_set, run, topic, number, doc, label, "nist", "f", "x")
         for (run, topic, number, doc), label in judgments.items()],
        columns=["campaign_id", "judgment_set", "run_id", "topic_id", "sentence_number", "doc_id", "label",
                 "assessor", "source_file", "source_sha256"]))


SUPPORT_MEASURES = ["CitationPrecision", "CitationPrecision(average=sentence)", "CitationRecall",
                    "CitationPrecision(partial_weight=0)", "CitationRecall(partial_weight=0)",
                    "CitationsPerSentence", "AnswerLength"]


def test_an_unanswered_topic_scores_zero_whatever_its_placeholder_labels():
    """nuggetizer's assign output labels an empty answer for a topic the run did not answer (its
    loader stores the labels and no answer): the topic scores 0 even if a label says support."""
    from .helpers import store_answers

    con = pyeval.connect()
    _campaign(con, "u", ["r"], "auto")
    store_answers(con, "u", "r", ["1", "2"], judgment_set="auto")  # topic 2's first nugget: support
    con.execute("delete from answers where topic_id = '2'")
    with pytest.warns(PyevalWarning, match="r/2"):
        frame = pyeval.evaluate(con, "u", ["VitalScore", "AllScore"], judgment_set="auto", store=False).per_topic
    values = frame.set_index(["topic_id", "measure"])["value"]
    assert values["1", "VitalScore"] == 1.0 and values["1", "AllScore"] == 0.5
    assert values["2", "VitalScore"] == 0.0 and values["2", "AllScore"] == 0.0


def test_citation_support_by_hand():
    """One answer of four sentences: s1 cites d1 (full) and d2 (partial), s2 cites d3 (none)
    and d4 (not judged), s3 cites nothing, s4 cites d2 (partial); a second run does not answer."""
    con = pyeval.connect()
    answers = {("a", "t1"): (42, [["d1", "d2"], ["d3", "d4"], [], ["d2"]]), ("b", "t2"): (5, [["d1"]])}
    judgments = {("a", "t1", 1, "d1"): "full", ("a", "t1", 1, "d2"): "partial", ("a", "t1", 2, "d3"): "none",
                 ("a", "t1", 4, "d2"): "partial", ("b", "t2", 1, "d1"): "full"}
    _support_campaign(con, "s", answers, judgments)
    with pytest.warns(PyevalWarning, match=r"2 \(run, topic\) pair\(s\) without an answer scored 0: a/t2, b/t1"):
        frame = pyeval.evaluate(con, "s", SUPPORT_MEASURES, judgment_set="support", store=False).per_topic
    values = frame[(frame["run_id"] == "a") & (frame["topic_id"] == "t1")].set_index("measure")["value"].to_dict()
    assert values == {
        "CitationPrecision": (1 + 0.5 + 0 + 0 + 0.5) / 5,  # every citation, an unjudged one credited 0
        "CitationPrecision(average=sentence)": (1.5 / 2 + 0 / 2 + 0.5 / 1) / 3,  # the cited sentences
        "CitationRecall": (1 + 0 + 0 + 0.5) / 4,  # each sentence's best citation, over every sentence
        "CitationPrecision(partial_weight=0.0)": 1 / 5,
        "CitationRecall(partial_weight=0.0)": 1 / 4,
        "CitationsPerSentence": 5 / 4,
        "AnswerLength": 42.0,
    }
    unanswered = frame[(frame["run_id"] == "a") & (frame["topic_id"] == "t2")]
    assert len(unanswered) == len(SUPPORT_MEASURES) and (unanswered["value"] == 0).all()


def test_citation_support_equals_an_independent_computation():
    rng = np.random.default_rng(2504)
    answers, judgments = {}, {}
    for run in range(12):
        for topic in range(25):
            if rng.random() < 0.15:
                continue
            cited = [[f"d{d}" for d in rng.choice(8, size=rng.integers(0, 4), replace=False)]
                     for _ in range(rng.integers(0, 7))]
            key = (f"r{run}", f"t{topic}")
            answers[key] = (int(rng.integers(0, 400)), cited)
            for number, docs in enumerate(cited, 1):
                for doc in docs:
                    if rng.random() < 0.9:
                        judgments[(*key, number, doc)] = str(rng.choice(["full", "partial", "none"]))
    con = pyeval.connect()
    _support_campaign(con, "x", answers, judgments)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PyevalWarning)
        frame = pyeval.evaluate(con, "x", SUPPORT_MEASURES, judgment_set="support", topics="intersection",
                                store=False).per_topic
    got = frame.set_index(["run_id", "topic_id", "measure"])["value"].to_dict()
    for (run, topic), (length, cited) in answers.items():
        for weight, suffix in ((0.5, ""), (0.0, "(partial_weight=0)")):
            credit = {"full": 1.0, "partial": weight, "none": 0.0}
            per_sentence = [np.array([credit.get(judgments.get((run, topic, n, d)), 0.0) for d in docs])
                            for n, docs in enumerate(cited, 1)]
            flat = np.concatenate(per_sentence) if per_sentence else np.array([])
            precision = flat.sum() / flat.size if flat.size else 0.0
            recall = sum(s.max() for s in per_sentence if s.size) / len(cited) if cited else 0.0
            assert got[run, topic, str(pyeval.parse_measure("CitationPrecision" + suffix))] == precision
            assert got[run, topic, str(pyeval.parse_measure("CitationRecall" + suffix))] == recall
        credit = {"full": 1.0, "partial": 0.5, "none": 0.0}
        sentence_precisions = [np.mean([credit.get(judgments.get((run, topic, n, d)), 0.0) for d in docs])
                               for n, docs in enumerate(cited, 1) if docs]
        expected = math.fsum(sentence_precisions) / len(sentence_precisions) if sentence_precisions else 0.0
        assert got[run, topic, "CitationPrecision(average=sentence)"] == pytest.approx(expected, rel=1e-15, abs=0)
        citations = sum(len(docs) for docs in cited)
        assert got[run, topic, "CitationsPerSentence"] == (citations / len(cited) if cited else 0.0)
        assert got[run, topic, "AnswerLength"] == length


def test_a_set_without_the_judgments_a_measure_reads_is_one_line():
    con = pyeval.connect()
    _support_campaign(con, "s", {("a", "t1"): (3, [["d1"]])}, {("a", "t1", 1, "d1"): "full"})
    with pytest.raises(PyevalError, match=r"^VitalScore: judgment set 'support' of campaign 's' holds no nugget "
                                          r"assignments \(pyeval load assignments\); name a set that does"):
        pyeval.evaluate(con, "s", ["vital_score"], judgment_set="support")
    with pytest.raises(PyevalError, match=r"^CitationRecall: judgment set 'official' .* no citation support"):
        pyeval.evaluate(con, "s", ["CitationRecall"], judgment_set="official")
    con.execute("insert into runs (campaign_id, run_id, source_file, source_sha256) values ('s', 'silent', 'f', 'x')")
    with pytest.raises(PyevalError, match="no evaluated run of campaign 's' has answers"):
        pyeval.evaluate(con, "s", ["AnswerLength"], runs=["silent"])
    with pytest.warns(PyevalWarning, match="1 run\\(s\\) without answers not scored: silent"):
        result = pyeval.evaluate(con, "s", ["AnswerLength"], store=False)
    assert set(result.per_topic["run_id"]) == {"a"}
    assert con.execute("select count(*) from topic_scores").fetchone()[0] == 0  # nothing stored on an error


def test_the_family_does_not_run_on_spark():
    from pyeval.core.engine import engine

    assert "generated answers" in engine("spark").unsupported("nuggets")


def test_every_stored_value_names_its_set_and_bank(generated):
    """answer_scores_by_set names each value's assignment set and bank and whether the topic was
    answered; scores, run_means and leaderboard show the values when the set is the default."""
    con, records, topics, runs, partial = generated
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PyevalWarning)
        pyeval.evaluate(con, "g", ["vital_score"], judgment_set="auto", runs=runs[:3] + partial)
    rows = con.execute("select run_id, bank, answered, value from answer_scores_by_set "
                       "where judgment_set = 'auto' and measure = 'VitalScore'").df()
    assert set(rows["bank"]) == {"bank"} and len(rows) == len(runs + partial) * len(topics)  # runs: stored above
    assert rows.loc[rows["run_id"].isin(runs), "answered"].all()
    unanswered = rows[~rows["answered"]]
    assert len(unanswered) == sum(len(topics) - len(records[run]) for run in partial)
    assert (unanswered["value"] == 0).all()
    answered = con.execute("select run_id, avg(value) from answer_scores_by_set where judgment_set = 'auto' and "
                           "measure = 'VitalScore' and answered group by run_id").fetchall()
    for run, mean in answered:
        assert mean == pytest.approx(metrics.calculate_global_metrics(records[run])["vital_score"], rel=1e-14)
    assert con.execute("select count(*) from scores where measure = 'VitalScore'").fetchone()[0] == 0  # official
    from pyeval.judgments import set_default

    set_default(con, "g", "auto")
    try:
        for view in ("scores", "run_means", "leaderboard"):
            count = con.execute(f"select count(distinct run_id) from {view} where measure = 'VitalScore'").fetchone()[0]
            assert count == len(runs + partial), view
    finally:
        con.execute("update campaigns set default_judgment_set = 'official' where campaign_id = 'g'")


def test_an_evaluation_records_its_answers_bank_and_set_and_turns_stale_when_they_change():
    from .helpers import store_answers

    con = pyeval.connect()
    _campaign(con, "h", ["r"], "auto")
    store_answers(con, "h", "r", ["1", "2"], judgment_set="auto")
    con.execute("insert into nugget_banks (campaign_id, bank, source_file, source_sha256, format) "
                "values ('h', 'bank', 'f', 'x', 'tsv')")
    evaluation = pyeval.evaluate(con, "h", ["VitalScore", "AnswerLength"], judgment_set="auto").evaluation_id
    recorded = set(con.execute("select input_kind, input_name from evaluation_inputs where evaluation_id = $e",
                               {"e": evaluation}).fetchall())
    assert {("assignments", "auto"), ("nuggets", "bank"), ("answers", "r")} <= recorded
    assert ("support", "auto") in recorded  # the set's citation support, read by no measure here but stored
    stale = "select count(*) from stale_results where evaluation_id = $e"
    assert con.execute(stale, {"e": evaluation}).fetchone()[0] == 0
    con.execute("update nugget_assignments set source_sha256 = 'changed' where judgment_set = 'auto'")
    assert con.execute(stale, {"e": evaluation}).fetchone()[0] == 2  # both measures of run r
    retrieval_only = pyeval.evaluate(con, "h", ["AnswerLength"]).evaluation_id  # under 'official': no set read
    assert ("assignments", "auto") not in set(con.execute(
        "select input_kind, input_name from evaluation_inputs where evaluation_id = $e", {"e": retrieval_only}
    ).fetchall())


def test_the_ir_measures_api_refuses_them_in_one_line():
    with pytest.raises(PyevalError, match=r"^VitalScore: a measure of generated answers scores the answers stored"):
        pyeval.calc_aggregate(["vital_score", "AP"], {"Q0": {"D0": 1}}, {"Q0": {"D0": 1.0}})
