"""The bundled sample campaign (pyeval/sample/): complete, and reproducible from its seed."""
from __future__ import annotations

import gzip

import pytest

from pyeval import sample
from pyeval.sample import generate


def _content(path):
    data = path.read_bytes()
    return gzip.decompress(data).decode() if path.name.endswith(".gz") else data.decode()


def test_generated_files_match_the_committed_ones():
    texts = generate.generated_texts()
    assert len(texts) == 2 + 18 + 1 + 5
    for name, text in texts.items():
        assert _content(sample.path(name)) == text, name


def test_twenty_runs_with_distinct_names():
    names = [sample.run_name(p) for p in sample.run_paths()]
    assert len(names) == 20 and len(set(names)) == 20
    assert names[:2] == ["indri-ql", "indri-rm"]


@pytest.mark.parametrize("name", ["intents.uniform.txt", "intents.nonuniform.txt"])
def test_intent_probabilities_sum_to_one_per_topic(name):
    totals: dict[str, float] = {}
    for line in sample.path(name).read_text().splitlines():
        topic, _, probability, kind = line.split()
        assert kind in ("inf", "nav")
        totals[topic] = totals.get(topic, 0.0) + float(probability)
    assert len(totals) == 50
    assert all(abs(total - 1) < 1e-12 for total in totals.values())


def test_nonuniform_matches_sakai_and_song():
    # n = 3: 8/14, 4/14, 2/14 (docs/diversity-measures.md section 1.2)
    lines = [l.split() for l in sample.path("intents.nonuniform.txt").read_text().splitlines()]
    by_topic: dict[str, list[float]] = {}
    for topic, _, probability, _ in lines:
        by_topic.setdefault(topic, []).append(float(probability))
    three = next(p for p in by_topic.values() if len(p) == 3)
    assert three == pytest.approx([8 / 14, 4 / 14, 2 / 14], abs=1e-15)


def test_the_generated_answer_campaign_loads_beside_the_runs_it_answers_for(tmp_path):
    """rag/ of ``pyeval sample``: the bank, the answers of the simulated runs (the same run ids
    as their ranked lists), a manual and an automatic assignment set and a support set load into
    the campaign of the runs (docs/rag.md)."""
    import pyeval
    from pyeval.loaders import load_answers, load_assignments, load_nuggets, load_support
    from pyeval.loaders.judgment_sets import SetProvenance

    folder = tmp_path / "sample"
    sample.write_sample(folder)
    con = pyeval.connect()
    pyeval.load_qrels(con, "web", folder / "qrels.adhoc.txt")
    pyeval.load_runs(con, "web", [folder / "runs" / "sim01.txt", folder / "runs" / "sim18.txt"])
    load_nuggets(con, "web", folder / "rag" / "nuggets.jsonl", creator="human")
    load_answers(con, "web", folder / "rag" / "answers.jsonl")
    load_assignments(con, "web", folder / "rag" / "assignments.manual.jsonl", judgment_set="manual")
    load_assignments(con, "web", folder / "rag" / "assignments.auto.jsonl", judgment_set="auto",
                     provenance=SetProvenance(kind="llm", judge="simulated"))
    load_support(con, "web", folder / "rag" / "support.tsv", judgment_set="support")
    bank = sorted(generate._subtopic_texts().items())[:generate.RAG_TOPICS]
    assert con.execute("select count(*) from nuggets").fetchall() == [(sum(len(texts) for _, (_, texts) in bank),)]
    assert con.execute("select count(distinct run_id), count(distinct topic_id) from answers").fetchall() == [(18, 10)]
    # the runs loaded from their run files keep them, and their answers join them
    assert con.execute("select count(*) from runs join answers using (campaign_id, run_id) "
                       "where run_id in ('sim01', 'sim18') and runs.source_file like '%.txt'").fetchall()[0][0] > 0
    manual, auto, agree = con.execute(
        "select count(*) filter (where m.label = 'support'), count(*) filter (where a.label = 'support'), "
        "avg((m.label = a.label)::int) from nugget_assignments m join nugget_assignments a "
        "using (campaign_id, bank, run_id, topic_id, nugget_id) "
        "where m.judgment_set = 'manual' and a.judgment_set = 'auto'").fetchone()
    assert manual > 0 and auto > 0 and 0.7 < agree < 0.9  # the automatic set disagrees on about a fifth
    assert con.execute("select count(distinct label) from citation_support").fetchall() == [(3,)]
