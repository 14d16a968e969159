"""Loading generated answers, nuggets and their judgments (pyeval/loaders/nuggets.py, answers.py,
assignments.py, rag_files.py; docs/rag.md "Formats" and "Loading")."""
from __future__ import annotations

import gzip
import json

import pytest
from click.testing import CliRunner

import pyeval
from pyeval.cli import main
from pyeval.errors import DataIntegrityError, DuplicateEntryError, InputFormatError, PyevalError
from pyeval.loaders import load_answers, load_assignments, load_nuggets, load_support
from pyeval.loaders.judgment_sets import SetProvenance

from ..conftest import FIXTURES, snapshot


def jsonl(*records) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


NUGGETS = jsonl(
    {"qid": "q1", "query": "what is python", "nuggets": [
        {"text": "Python is a language", "importance": "vital"},
        {"text": "Python was made by Guido", "importance": "okay"},
        {"text": "Python is a language", "importance": "okay"}]},  # the same text twice
    {"qid": "q2", "query": "what is duckdb", "nuggets": [{"text": "DuckDB is a database", "importance": "vital"}]},
)

ANSWERS_2024 = jsonl(
    {"run_id": "r1", "topic_id": "q1", "topic": "what is python", "references": ["d1", "d2", "d3"],
     "response_length": 9, "answer": [{"text": "Python is a language.", "citations": [0, 2]},
                                      {"text": "Guido made it.", "citations": [1]}]},
    {"run_id": "r2", "topic_id": "q1", "topic": "what is python", "references": ["d9"],
     "response_length": 3, "answer": [{"text": "No idea here.", "citations": []}]},
)

ANSWERS_2025 = jsonl(
    {"metadata": {"team_id": "teamA", "run_id": "r3", "type": "automatic", "narrative_id": "q2",
                  "narrative": "what is duckdb"},
     "references": ["d5", "d6"],
     "answer": [{"text": "DuckDB\u00a0is  an in-process\tdatabase.", "citations": [1, 0]},
                {"text": "It is fast.", "citations": ["d5"]}]},
)


def assign_line(run_id, topic_id, labels, *, nuggets=None, answer_text="An answer.", response_length=2):
    texts = nuggets or {"q1": [("Python is a language", "vital"), ("Python was made by Guido", "okay"),
                               ("Python is a language", "okay")],
                        "q2": [("DuckDB is a database", "vital")]}[topic_id]
    return {"query": "q", "qid": topic_id, "answer_text": answer_text, "response_length": response_length,
            "run_id": run_id, "nuggets": [{"text": text, "importance": importance, "assignment": label}
                                          for (text, importance), label in zip(texts, labels)]}


ASSIGNMENTS = jsonl(
    assign_line("r1", "q1", ["support", "partial_support", "not_support"]),
    assign_line("r2", "q1", ["not_support", "not_support", "support"]),
    assign_line("r1", "q2", ["partial_support"]),
)


@pytest.fixture
def rag(con, write):
    """A campaign with a bank and the 2024 and 2025 answers loaded."""
    load_nuggets(con, "rag", write("nuggets.jsonl", NUGGETS))
    load_answers(con, "rag", write("answers24.jsonl", ANSWERS_2024))
    load_answers(con, "rag", write("answers25.jsonl", ANSWERS_2025))
    return con


def rows(con, sql):
    return con.execute(sql).fetchall()


# ------------------------------------------------------------------ nuggets


def test_nuggetizer_create_output_is_a_bank_numbered_in_order(con, write):
    report = load_nuggets(con, "new", write("nuggets.jsonl", NUGGETS), bank="auto", description="by gpt")
    assert (report.rows, report.topics) == (4, 2)
    assert rows(con, "select campaign_id from campaigns") == [("new",)]  # created, as loading qrels does
    assert rows(con, "select topic_id, nugget_id, nugget_number, text, importance, creator from nuggets "
                     "order by topic_id, nugget_number") == [
        ("q1", "1", 1, "Python is a language", "vital", "llm"),
        ("q1", "2", 2, "Python was made by Guido", "okay", "llm"),
        ("q1", "3", 3, "Python is a language", "okay", "llm"),
        ("q2", "1", 1, "DuckDB is a database", "vital", "llm")]
    assert rows(con, "select bank, description, format from nugget_banks") == [("auto", "by gpt", "nuggetizer")]
    assert rows(con, "select topic_id, title from topic_texts order by 1") == [
        ("q1", "what is python"), ("q2", "what is duckdb")]


def test_an_assignment_file_gives_its_bank(con, write):
    """nuggetizer's assign output (TREC RAG 2024's NIST assignments are such a file) lists each
    topic's nuggets on every line of the topic: the bank is each topic's list; its assignments
    then load against it."""
    path = write("nist.jsonl", ASSIGNMENTS)
    load_nuggets(con, "t", path, creator="human")
    assert rows(con, "select topic_id, nugget_id, text, importance from nuggets order by 1, 2") == [
        ("q1", "1", "Python is a language", "vital"), ("q1", "2", "Python was made by Guido", "okay"),
        ("q1", "3", "Python is a language", "okay"), ("q2", "1", "DuckDB is a database", "vital")]
    load_assignments(con, "t", path)
    assert rows(con, "select count(*) from nugget_assignments") == [(7,)]
    differing = jsonl(assign_line("r1", "q1", ["support"] * 3),
                      assign_line("r2", "q1", ["support"], nuggets=[("Python is a language", "vital")]))
    with pytest.raises(InputFormatError, match=r"b\.jsonl:2: the nuggets of topic 'q1' differ from those on line 1"):
        load_nuggets(con, "t", write("b.jsonl", differing), bank="other")


def test_a_nuggets_tsv_gives_its_ids_and_creators(con, write):
    path = write("nuggets.tsv", "topic_id\tnugget_id\timportance\ttext\tcreator\n"
                                "q1\tn7\tvital\tPython is a language\thuman\n"
                                "q2\tn1\tokay\tDuckDB is a database\tllm\n"
                                "q1\tn2\tokay\tGuido made it\thuman\n")
    load_nuggets(con, "t", path, creator="human")
    assert rows(con, "select topic_id, nugget_id, nugget_number, importance, creator, format from nuggets "
                     "join nugget_banks using (campaign_id, bank) order by topic_id, nugget_number") == [
        ("q1", "n7", 1, "vital", "human", "tsv"), ("q1", "n2", 2, "okay", "human", "tsv"),
        ("q2", "n1", 1, "okay", "llm", "tsv")]


def test_a_bank_is_loaded_once_unless_replaced(rag, write):
    with pytest.raises(DataIntegrityError, match="already has nugget bank 'official'"):
        load_nuggets(rag, "rag", write("again.jsonl", NUGGETS))
    load_nuggets(rag, "rag", write("again.jsonl", NUGGETS), replace=True)
    assert rows(rag, "select count(*), min(source_file) like '%again.jsonl' from nugget_banks") == [(1, True)]


def test_a_bank_an_assignment_set_labels_keeps_its_nuggets(rag, write):
    load_assignments(rag, "rag", write("a.jsonl", ASSIGNMENTS))
    smaller = jsonl({"qid": "q1", "query": "x", "nuggets": [{"text": "Python is a language", "importance": "vital"}]})
    before = snapshot(rag)
    with pytest.raises(DataIntegrityError, match=r"judgment set 'official' labels nugget '2' of topic 'q1' .* \(5 such labels\)"):
        load_nuggets(rag, "rag", write("small.jsonl", smaller), replace=True)
    assert snapshot(rag) == before


# ------------------------------------------------------------------ answers


def test_trec_rag_2024_citations_are_the_documents_their_indexes_name(rag):
    assert rows(rag, "select run_id, topic_id, response_length, length_given, file_position from answers "
                     "where run_id in ('r1', 'r2') order by run_id") == [
        ("r1", "q1", 9, True, 1), ("r2", "q1", 3, True, 2)]
    assert rows(rag, "select sentence_number, text from answer_sentences where run_id = 'r1' order by 1") == [
        (1, "Python is a language."), (2, "Guido made it.")]
    assert rows(rag, "select sentence_number, citation_number, doc_id from answer_citations where run_id = 'r1' "
                     "order by 1, 2") == [(1, 1, "d1"), (1, 2, "d3"), (2, 1, "d2")]
    assert rows(rag, "select reference_number, doc_id from answer_references where run_id = 'r1' order by 1") == [
        (1, "d1"), (2, "d2"), (3, "d3")]
    assert rows(rag, "select count(*) from answer_citations where run_id = 'r2'") == [(0,)]


def test_trec_rag_2025_metadata_names_run_topic_and_team_and_the_length_is_counted(rag):
    text = ["DuckDB\u00a0is  an in-process\tdatabase.", "It is fast."]
    assert rows(rag, "select topic_id, response_length, length_given from answers where run_id = 'r3'") == [
        ("q2", sum(len(sentence.split()) for sentence in text), False)]  # Python's str.split(), as ragnarok
    assert rows(rag, "select team, source_file like '%answers25.jsonl' from runs where run_id = 'r3'") == [
        ("teamA", True)]
    assert rows(rag, "select sentence_number, citation_number, doc_id from answer_citations where run_id = 'r3' "
                     "order by 1, 2") == [(1, 1, "d6"), (1, 2, "d5"), (2, 1, "d5")]


def test_topic_texts_of_answers_title_the_topics_without_one(con, write):
    report = pyeval.load_qrels(con, "c", write("q.txt", "q1 0 d1 1\nq2 0 d1 1\n"))
    assert report.rows == 2
    con.execute("insert into topic_texts (campaign_id, topic_id, title, source_file) values ('c', 'q1', 'kept', 'x')")
    load_answers(con, "c", write("a24.jsonl", ANSWERS_2024))
    load_answers(con, "c", write("a25.jsonl", ANSWERS_2025))
    assert rows(con, "select topic_id, title from topic_texts order by 1") == [("q1", "kept"), ("q2", "what is duckdb")]


def test_a_line_longer_than_the_readers_buffer_is_read(con, write):
    """A line over DuckDB's 2 MB line limit (nuggetizer's output with its trace) is read by the
    line reader of the general path."""
    record = json.loads(NUGGETS.splitlines()[0])
    record["trace"] = {"prompt": "x" * 3_000_000}
    bad = {"qid": "q2", "nuggets": [{"text": "x", "importance": "high"}]}
    path = write("n.jsonl", json.dumps(record) + "\n\n  \n" + json.dumps(bad) + "\n")
    with pytest.raises(InputFormatError, match=r"n\.jsonl:4: nugget 1 of topic 'q2': importance 'high'"):
        load_nuggets(con, "t", path)  # the blank lines skipped, and counted
    load_nuggets(con, "t", write("n.jsonl", json.dumps(record) + "\n\n"))
    assert rows(con, "select count(*) from nuggets") == [(3,)]


def test_answers_join_a_run_loaded_from_a_run_file_and_keep_its_entries(con, write):
    pyeval.load_qrels(con, "c", FIXTURES / "trec_eval" / "qrels.test")
    pyeval.load_run(con, "c", FIXTURES / "trec_eval" / "results.test", name="r1")
    before = rows(con, "select * from runs")
    entries = rows(con, "select count(*) from run_entries")
    load_answers(con, "c", write("a.jsonl", ANSWERS_2024))
    assert rows(con, "select * from runs where run_id = 'r1'") == before
    assert rows(con, "select count(*) from run_entries") == entries
    assert rows(con, "select run_id, source_file like '%a.jsonl' from runs order by 1") == [("r1", False), ("r2", True)]


def test_answers_of_a_run_are_loaded_once_unless_replaced(rag, write):
    with pytest.raises(DataIntegrityError, match="already has answers of run 'r1'"):
        load_answers(rag, "rag", write("answers24.jsonl", ANSWERS_2024))
    one = jsonl({"run_id": "r1", "topic_id": "q2", "references": [], "answer": [{"text": "x y", "citations": []}]})
    load_answers(rag, "rag", write("one.jsonl", one), replace=True)
    assert rows(rag, "select topic_id, response_length from answers where run_id = 'r1'") == [("q2", 2)]
    assert rows(rag, "select count(*) from answer_citations where run_id = 'r1'") == [(0,)]
    assert rows(rag, "select count(*) from answers where run_id = 'r2'") == [(1,)]  # another run of that file


def test_an_answers_tsv_gives_sentences_and_its_cited_documents_as_references(con, write):
    load_nuggets(con, "t", write("n.jsonl", NUGGETS))
    path = write("answers.tsv", "run_id\ttopic_id\tsentence_number\ttext\tcitations\n"
                                "r1\tq1\t2\tGuido made it.\td2 d1\n"
                                "r1\tq1\t1\tPython is a language.\td1\n"
                                "r1\tq2\t1\tNothing cited.\t\n")
    load_answers(con, "t", path)
    assert rows(con, "select topic_id, response_length, length_given from answers order by 1") == [
        ("q1", 7, False), ("q2", 2, False)]
    assert rows(con, "select reference_number, doc_id from answer_references order by 1") == [(1, "d1"), (2, "d2")]
    assert rows(con, "select sentence_number, citation_number, doc_id from answer_citations order by 1, 2") == [
        (1, 1, "d1"), (2, 1, "d2"), (2, 2, "d1")]


def test_gzip_crlf_and_blank_lines_keep_the_line_numbers(con, write):
    load_nuggets(con, "t", write("n.jsonl", NUGGETS))
    text = ANSWERS_2024.replace("\n", "\r\n").replace('"r2"', '"r1"')  # line 2 repeats line 1's answer
    path = write("a.jsonl.bin", gzip.compress(("\r\n" + text).encode()))
    with pytest.raises(DuplicateEntryError, match=r"a\.jsonl\.bin:3: the answer of run 'r1' to topic 'q1' "
                                                  r"given again \(first on line 2\)"):
        load_answers(con, "t", path)


# ------------------------------------------------------------------ assignments


def test_nuggetizer_assignments_name_nuggets_by_text_and_bring_their_answers(rag, write):
    load_assignments(rag, "rag", write("a.jsonl", ASSIGNMENTS), judgment_set="llm",
                     provenance=SetProvenance(kind="llm", judge="gpt-4o"))
    assert rows(rag, "select judgment_set, bank, run_id, topic_id, nugget_id, label, assessor "
                     "from nugget_assignments order by run_id, topic_id, nugget_id") == [
        ("llm", "official", "r1", "q1", "1", "support", "gpt-4o"),
        ("llm", "official", "r1", "q1", "2", "partial_support", "gpt-4o"),
        ("llm", "official", "r1", "q1", "3", "not_support", "gpt-4o"),  # the second 'Python is a language'
        ("llm", "official", "r1", "q2", "1", "partial_support", "gpt-4o"),
        ("llm", "official", "r2", "q1", "1", "not_support", "gpt-4o"),
        ("llm", "official", "r2", "q1", "2", "not_support", "gpt-4o"),
        ("llm", "official", "r2", "q1", "3", "support", "gpt-4o")]
    assert rows(rag, "select kind, judge, source_file like '%a.jsonl' from judgment_sets "
                     "where judgment_set = 'llm'") == [("llm", "gpt-4o", True)]
    # (r1, q2) had no answer: the assign output's is stored; (r1, q1) keeps the TREC RAG one
    assert rows(rag, "select topic_id, response_length, source_file like '%a.jsonl' from answers "
                     "where run_id = 'r1' order by 1") == [("q1", 9, False), ("q2", 2, True)]
    assert rows(rag, "select text from answer_sentences where run_id = 'r1' and topic_id = 'q2'") == [
        ("An answer.",)]


def test_a_line_in_another_order_than_the_bank_is_resolved_by_text(rag, write):
    """nuggetizer keeps the bank's order (resolved by place); a line in another order is resolved
    by text, the k-th of a text in the line being the k-th of that text in the bank."""
    reordered = [("Python was made by Guido", "okay"), ("Python is a language", "vital"), ("Python is a language", "okay")]
    load_assignments(rag, "rag", write("a.jsonl", jsonl(
        assign_line("r1", "q1", ["partial_support", "support", "not_support"], nuggets=reordered),
        assign_line("r2", "q1", ["support", "not_support", "partial_support"]))))
    assert rows(rag, "select run_id, nugget_id, label from nugget_assignments order by 1, 2") == [
        ("r1", "1", "support"), ("r1", "2", "partial_support"), ("r1", "3", "not_support"),
        ("r2", "1", "support"), ("r2", "2", "not_support"), ("r2", "3", "partial_support")]


def test_an_empty_answer_of_nuggetizer_is_no_answer(rag, write):
    """nuggetizer's assign script writes a line with an empty answer_text and response_length 0 for a
    topic the run did not answer: its labels are stored, no answer."""
    load_assignments(rag, "rag", write("a.jsonl", jsonl(
        assign_line("r2", "q2", ["not_support"], answer_text="", response_length=0))))
    assert rows(rag, "select count(*) from nugget_assignments where run_id = 'r2' and topic_id = 'q2'") == [(1,)]
    assert rows(rag, "select count(*) from answers where run_id = 'r2' and topic_id = 'q2'") == [(0,)]


def test_assignments_create_the_runs_they_answer_for(con, write):
    load_nuggets(con, "t", write("n.jsonl", NUGGETS))
    load_assignments(con, "t", write("a.jsonl", ASSIGNMENTS))
    assert rows(con, "select run_id from runs order by 1") == [("r1",), ("r2",)]
    assert rows(con, "select count(*), min(judgment_set) from nugget_assignments") == [(7, "official")]
    assert rows(con, "select kind from judgment_sets") == [("human",)]


def test_a_tsv_of_assignments_names_nuggets_by_id_for_stored_runs(rag, write):
    path = write("a.tsv", "run_id\ttopic_id\tnugget_id\tlabel\tassessor\n"
                          "r1\tq1\t2\tsupport\tann\nr3\tq2\t1\tnot_support\t\n")
    load_assignments(rag, "rag", path, judgment_set="manual", provenance=SetProvenance(judge="NIST"))
    assert rows(rag, "select run_id, nugget_id, label, assessor from nugget_assignments order by 1") == [
        ("r1", "2", "support", "ann"), ("r3", "1", "not_support", "NIST")]
    unknown_run = write("b.tsv", "run_id\ttopic_id\tnugget_id\tlabel\nr9\tq1\t1\tsupport\n")
    with pytest.raises(InputFormatError, match=r"b\.tsv:2: run 'r9' is not a run of campaign 'rag'"):
        load_assignments(rag, "rag", unknown_run, judgment_set="other")


def test_the_bank_is_the_campaigns_only_one_else_named(rag, write):
    load_nuggets(rag, "rag", write("n2.jsonl", NUGGETS), bank="second")
    with pytest.raises(DataIntegrityError, match=r"has 2 nugget banks \(official, second\): name one"):
        load_assignments(rag, "rag", write("a.jsonl", ASSIGNMENTS))
    with pytest.raises(DataIntegrityError, match="has no nugget bank 'third'; its banks: official, second"):
        load_assignments(rag, "rag", write("a.jsonl", ASSIGNMENTS), bank="third")
    load_assignments(rag, "rag", write("a.jsonl", ASSIGNMENTS), bank="second")
    assert rows(rag, "select distinct bank from nugget_assignments") == [("second",)]


def test_a_set_labels_one_bank(rag, write):
    load_nuggets(rag, "rag", write("n2.jsonl", NUGGETS), bank="second")
    load_assignments(rag, "rag", write("a.jsonl", ASSIGNMENTS), bank="official")
    before = snapshot(rag)
    with pytest.raises(DataIntegrityError, match="already has nugget assignments in judgment set 'official' "
                                                 r"\(of bank 'official', not 'second'"):
        load_assignments(rag, "rag", write("a.jsonl", ASSIGNMENTS), bank="second")
    assert snapshot(rag) == before
    load_assignments(rag, "rag", write("a.jsonl", ASSIGNMENTS), bank="second", replace=True)
    assert rows(rag, "select distinct bank from nugget_assignments") == [("second",)]


def test_the_default_set_is_the_campaigns_default(rag, write):
    pyeval.load_qrels(rag, "rag", write("q.txt", "q1 0 d1 1\n"))
    pyeval.load_qrels(rag, "rag", write("q2.txt", "q1 0 d1 0\n"), judgment_set="other")
    from pyeval.loaders.judgment_sets import set_default

    set_default(rag, "rag", "other")
    load_assignments(rag, "rag", write("a.jsonl", ASSIGNMENTS))
    assert rows(rag, "select distinct judgment_set from nugget_assignments") == [("other",)]
    assert rows(rag, "select kind, source_file like '%q2.txt' from judgment_sets where judgment_set = 'other'") == [
        ("human", True)]  # a set with qrels keeps its record


# ------------------------------------------------------------------ citation support


def test_support_judges_stored_citations(rag, write):
    path = write("s.tsv", "run_id\ttopic_id\tsentence_number\tdoc_id\tlabel\n"
                          "r1\tq1\t1\td3\tfull\nr1\tq1\t2\td2\tnone\nr3\tq2\t1\td6\tpartial\n")
    report = load_support(rag, "rag", path, judgment_set="support", provenance=SetProvenance(kind="llm"))
    assert report.rows == 3
    assert rows(rag, "select run_id, sentence_number, doc_id, label from citation_support order by 1, 2") == [
        ("r1", 1, "d3", "full"), ("r1", 2, "d2", "none"), ("r3", 1, "d6", "partial")]
    assert rows(rag, "select kind from judgment_sets where judgment_set = 'support'") == [("llm",)]
    with pytest.raises(DataIntegrityError, match="already has citation support judgments in judgment set 'support'"):
        load_support(rag, "rag", path, judgment_set="support")
    with pytest.raises(PyevalError, match="read from TSV files"):
        load_support(rag, "rag", write("s.jsonl", '{"a": 1}\n'), judgment_set="x")


# ------------------------------------------------------------------ bad input: one line, nothing stored

BAD_INPUTS = [
    # (loader, file name, content, error type, message)
    ("assignments", "a.jsonl", jsonl(assign_line("r1", "q1", ["support"]),
                                     assign_line("r1", "q2", ["support"], nuggets=[("No such nugget", "vital")])),
     InputFormatError, r"a\.jsonl:2: nugget 1 \('No such nugget'\) is not a nugget of topic 'q2' in bank 'official'"),
    ("assignments", "a.tsv", "run_id\ttopic_id\tnugget_id\tlabel\nr1\tq1\t1\tsupport\nr1\tq1\t9\tsupport\n",
     InputFormatError, r"a\.tsv:3: nugget '9' is not a nugget of topic 'q1' in bank 'official'"),
    ("assignments", "a.jsonl", jsonl(assign_line("r1", "q1", ["support", "failed", "support"])),
     InputFormatError, r"a\.jsonl:1: nugget '2': label 'failed' is not one of support, partial_support, not_support"),
    ("assignments", "a.jsonl", jsonl(assign_line("r1", "q1", ["support", "support", "support"]),
                                     assign_line("r1", "q1", ["support", "support", "support"])),
     DuplicateEntryError, r"a\.jsonl:2: the assignments of run 'r1' for topic 'q1' given again \(first on line 1\)"),
    ("assignments", "a.tsv", "run_id\ttopic_id\tnugget_id\tlabel\nr1\tq1\t1\tsupport\nr1\tq1\t1\tnot_support\n",
     DuplicateEntryError, r"a\.tsv:3: nugget '1' of topic 'q1' labelled again for run 'r1' \(first on line 2\)"),
    ("assignments", "a.jsonl", jsonl(assign_line("r1", "q1", ["support"], nuggets=[("Python is a language", "okay")])),
     InputFormatError, r"a\.jsonl:1: nugget 1 is okay here but vital in bank 'official'"),
    ("answers", "b.jsonl", jsonl({"run_id": "r8", "topic_id": "q1", "references": ["d1", "d2"],
                                  "answer": [{"text": "a", "citations": [0]}, {"text": "b", "citations": [2]}]}),
     InputFormatError, r"b\.jsonl:1: sentence 2 cites reference 2, but the answer has 2 references \(0 to 1\)"),
    ("answers", "b.jsonl", jsonl({"run_id": "r8", "topic_id": "q1", "references": ["d1"],
                                  "answer": [{"text": "a", "citations": ["d7"]}]}),
     InputFormatError, r"b\.jsonl:1: sentence 1 cites 'd7', which its references do not list"),
    ("answers", "b.jsonl", '{"run_id": "r8", "topic_id": "q1", "answer": []}\n{"run_id": "r8", "topic_id": \n',
     InputFormatError, r"b\.jsonl:2: not a JSON object"),
    ("answers", "b.jsonl", '\n{"topic_id": "q1", "answer": []}\n',
     InputFormatError, r"b\.jsonl:2: no run_id"),
    ("answers", "b.jsonl", '{"run_id": "r8", "topic_id": "q1"}\n',
     InputFormatError, r"b\.jsonl:1: no list of sentences \(answer\)"),
    ("answers", "b.jsonl", '{"run_id": "r8", "topic_id": {"a": 1}, "answer": []}\n',
     InputFormatError, r"b\.jsonl:1: topic_id \(or metadata.narrative_id\) is not a string \(object\)"),
    ("answers", "b.jsonl", '{"run_id": "r8\\u001b[31m", "topic_id": "q1", "answer": []}\n',
     InputFormatError, r'b\.jsonl:1: run_id "r8\\u001B\[31m" holds a control character'),
    ("answers", "b.jsonl", '{"metadata": {"run_id": "r8", "narrative_id": "q1", "team_id": "a\\tb"}, "answer": []}\n',
     InputFormatError, r'b\.jsonl:1: metadata.team_id "a\\tb" holds a control character'),
    ("answers", "b.jsonl", '{"run_id": "r8", "topic_id": "q1", "answer": [], "response_length": -3}\n',
     InputFormatError, r"b\.jsonl:1: response_length -3 is not a non-negative integer"),
    ("answers", "b.tsv", "run_id\ttopic_id\tsentence_number\ttext\nr8\tq1\t1\ta\nr8\tq1\t3\tb\n",
     InputFormatError, r"b\.tsv:2: the answer of run 'r8' to topic 'q1' has 2 sentences numbered up to 3"),
    ("answers", "b.tsv", "run_id\ttopic_id\tsentence_number\ttext\nr8\tq1\tone\ta\n",
     InputFormatError, r"b\.tsv:2: sentence_number 'one' is not a positive integer"),
    ("answers", "b.tsv", "run_id\ttopic\tsentence_number\ttext\n",
     InputFormatError, r"b\.tsv:1: unknown column 'topic' in the header"),
    ("nuggets", "n.jsonl", jsonl({"qid": "q7", "nuggets": [{"text": "x", "importance": "high"}]}),
     InputFormatError, r"n\.jsonl:1: nugget 1 of topic 'q7': importance 'high' is not one of vital, okay"),
    ("nuggets", "n.jsonl", jsonl({"query": "x", "nuggets": []}), InputFormatError, r"n\.jsonl:1: no qid"),
    ("nuggets", "n.jsonl", jsonl({"qid": "q7", "nuggets": [{"importance": "vital"}]}),
     InputFormatError, r"n\.jsonl:1: nugget 1 of topic 'q7' has no text"),
    ("nuggets", "n.jsonl", jsonl({"qid": "q7", "nuggets": []}, {"qid": "q8", "nuggets": []},
                                 {"qid": "q7", "nuggets": [{"text": "x", "importance": "vital"}]}),
     DuplicateEntryError, r"n\.jsonl:3: topic 'q7' given again \(first on line 1\)"),
    ("nuggets", "n.tsv", "topic_id\tnugget_id\ttext\timportance\nq7\ta\tx\tvital\nq7\ta\ty\tokay\n",
     DuplicateEntryError, r"n\.tsv:3: nugget 'a' of topic 'q7' given again \(first on line 2\)"),
    ("nuggets", "n.tsv", "topic_id\ttext\timportance\nq7\tx\n",
     InputFormatError, r"n\.tsv:2: expected 3 fields \(topic_id text importance\), found 2"),
    ("support", "s.tsv", "run_id\ttopic_id\tsentence_number\tdoc_id\tlabel\nr1\tq1\t1\td1\tyes\n",
     InputFormatError, r"s\.tsv:2: label 'yes' is not one of full, partial, none"),
    ("support", "s.tsv", "run_id\ttopic_id\tsentence_number\tdoc_id\tlabel\nr1\tq1\t5\td1\tfull\n",
     InputFormatError, r"s\.tsv:2: campaign 'rag' has no sentence 5 in the answer of run 'r1' to topic 'q1'"),
    ("support", "s.tsv", "run_id\ttopic_id\tsentence_number\tdoc_id\tlabel\nr1\tq1\t1\td1\tfull\nr1\tq1\t1\td1\tnone\n",
     DuplicateEntryError, r"s\.tsv:3: the citation of 'd1' by sentence 1 .* judged again \(first on line 2\)"),
]

LOADERS = {"nuggets": lambda con, path: load_nuggets(con, "rag", path, bank="more"),
           "answers": lambda con, path: load_answers(con, "rag", path),
           "assignments": lambda con, path: load_assignments(con, "rag", path, judgment_set="llm"),
           "support": lambda con, path: load_support(con, "rag", path, judgment_set="llm")}


@pytest.mark.parametrize("kind, name, content, error, message", BAD_INPUTS,
                         ids=[f"{kind}-{index}" for index, (kind, *_rest) in enumerate(BAD_INPUTS)])
def test_a_bad_line_is_named_and_nothing_is_stored(rag, write, kind, name, content, error, message):
    before = snapshot(rag)
    with pytest.raises(error, match=message):
        LOADERS[kind](rag, write(name, content))
    assert snapshot(rag) == before


def test_the_command_line_prints_one_line_and_changes_nothing(tmp_path, write):
    db = str(tmp_path / "w.duckdb")
    runner = CliRunner()
    nuggets = write("n.jsonl", NUGGETS)
    result = runner.invoke(main, ["--db", db, "load", "nuggets", "-C", "rag", str(nuggets)])
    assert result.exit_code == 0 and "loaded nuggets" in result.output and "bank official" in result.output
    result = runner.invoke(main, ["--db", db, "load", "answers", "-C", "rag", str(write("a.jsonl", ANSWERS_2024))])
    assert result.exit_code == 0, result.output
    bad = write("bad.jsonl", jsonl(assign_line("r1", "q1", ["support", "maybe", "support"])))
    result = runner.invoke(main, ["--db", db, "load", "assignments", "-C", "rag", "--kind", "llm", str(bad)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: {bad}:1: nugget '2': label 'maybe' is not one of support, partial_support, not_support"]
    result = runner.invoke(main, ["--db", db, "load", "assignments", "-C", "rag", "--kind", "llm", "--judge", "m",
                                  "--judgments", "auto", str(write("a2.jsonl", ASSIGNMENTS))])
    assert result.exit_code == 0, result.output
    assert "judgment set auto" in result.output
    again = runner.invoke(main, ["--db", db, "load", "assignments", "-C", "rag", "--judgments", "auto",
                                 str(write("a2.jsonl", ASSIGNMENTS))])
    assert again.exit_code == 1 and "use --replace to replace them" in again.output


# ------------------------------------------------------------------ staleness


def test_the_inputs_of_generated_answers_are_current_inputs_and_their_change_makes_values_stale(rag, write):
    load_assignments(rag, "rag", write("a.jsonl", ASSIGNMENTS), judgment_set="llm")
    current = dict(((kind, name), sha) for kind, name, sha in rows(
        rag, "select input_kind, input_name, source_sha256 from current_inputs "
             "where input_kind in ('nuggets', 'assignments', 'answers')"))
    assert set(current) == {("nuggets", "official"), ("assignments", "llm"), ("answers", "r1"),
                            ("answers", "r2"), ("answers", "r3")}
    # an evaluation that read them (as sql/evaluation/record_inputs.sql records an evaluation's inputs)
    rag.execute("insert into evaluations (evaluation_id, campaign_id, judgment_set, pyeval_version, ordering) "
                "values (900, 'rag', 'llm', 'test', 'trec')")
    rag.execute("insert into evaluation_measures (evaluation_id, measure, measure_name, gain_profile) "
                "values (900, 'vital_score', 'vital_score', null)")
    rag.execute("insert into evaluation_inputs (evaluation_id, campaign_id, input_kind, input_name, source_file, "
                "source_sha256) select 900, campaign_id, input_kind, input_name, source_file, source_sha256 "
                "from current_inputs where input_kind in ('nuggets', 'assignments', 'answers') "
                "or (input_kind = 'run' and input_name in ('r1', 'r2'))")
    stale = "select run_id from stale_results where evaluation_id = 900 order by 1"
    assert rows(rag, stale) == []
    load_answers(rag, "rag", write("r2.jsonl", jsonl({"run_id": "r2", "topic_id": "q1", "references": [],
                                                      "answer": [{"text": "new", "citations": []}]})), replace=True)
    assert rows(rag, stale) == [("r2",)]  # that run's answers changed
    load_assignments(rag, "rag", write("a2.jsonl", ASSIGNMENTS.replace("partial_support", "support")),
                     judgment_set="llm", replace=True)
    assert rows(rag, stale) == [("r1",), ("r2",)]  # the assignment set changed: every run


def test_reloading_an_assignment_set_makes_the_scores_computed_under_it_stale_only_when_it_changed(rag, write):
    """The whole chain: an evaluation of a nugget measure records the set's inputs
    (sql/evaluation/record_inputs.sql reads current_inputs); the same labels loaded again change
    nothing, other labels make its values stale (stale_results), other runs' answers too."""
    load_assignments(rag, "rag", write("a.jsonl", ASSIGNMENTS), judgment_set="llm")
    evaluation_id = pyeval.evaluate(rag, "rag", ["vital_score"], judgment_set="llm").evaluation_id
    stale = f"select distinct run_id from stale_results where evaluation_id = {int(evaluation_id)} order by 1"
    load_assignments(rag, "rag", write("a.jsonl", ASSIGNMENTS), judgment_set="llm", replace=True)
    assert rows(rag, stale) == []
    load_assignments(rag, "rag", write("b.jsonl", ASSIGNMENTS.replace('"support"', '"not_support"')),
                     judgment_set="llm", replace=True)
    assert rows(rag, stale) == [("r1",), ("r2",), ("r3",)]
