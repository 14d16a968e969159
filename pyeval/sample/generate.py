"""Regenerate the synthetic parts of the sample campaign (``python -m pyeval.sample.generate``).

The sample campaign is the TREC 2012 Web track diversity collection (NIST qrels and topics)
with two real Indri runs. What NIST does not publish is made here, reproducibly from fixed
seeds, and committed; tests/test_sample.py checks that regenerating gives the same content:

* ``intents.uniform.txt`` and ``intents.nonuniform.txt`` (DINprob layout: topic, intent,
  Pr(i|q), inf|nav): the 195 subtopics of ``full-topics.xml`` with their types; uniform
  Pr = 1/n, and Sakai & Song's (SIGIR 2011) non-uniform Pr(j) = 2^(n-j+1) / sum_k 2^k for the
  j-th subtopic in number order (docs/diversity-measures.md section 1.2).
* ``runs/sim01.txt.gz`` ... ``runs/sim18.txt.gz``: simulated systems. Each has a quality q
  and a diversity preference; per topic, a document's score is q times its intent-weighted
  relevance plus Gaussian noise, over the judged pool and the documents the Indri runs
  retrieved (so unjudged documents appear too). Scores are rounded to 3 decimals, so ties
  occur; ranks follow trec_eval's order (score descending, docno descending). Some systems
  skip a few topics, to exercise missing-topic conventions.
* ``doclengths.txt.gz``: a length in characters for every judged or retrieved document,
  drawn from a log-normal (median about 5,000 characters). Synthetic: the ClueWeb09 lengths
  used in the U-measure papers are not public.
* ``rag/``: a generated-answer campaign over the same topics and runs (docs/rag.md), for the
  first :data:`RAG_TOPICS` topics and the simulated runs: ``nuggets.jsonl`` (nuggetizer's create
  output: each topic's subtopics of ``full-topics.xml`` as its nuggets, the first two vital);
  ``answers.jsonl.gz`` (TREC RAG 2024 answer files of the runs: its references the run's top
  :data:`RAG_REFERENCES` documents, an opening sentence, then a sentence per nugget it states,
  citing the references the diversity qrels judge relevant to that subtopic; a nugget with such a
  reference is stated with probability 0.85, one without with 0.15, so the answers' completeness
  follows the runs' retrieval); ``assignments.manual.jsonl.gz`` (nuggetizer's assign output: a
  stated nugget with a relevant citation is support, one without partial_support, the others
  not_support); ``assignments.auto.jsonl.gz`` (the same labels, each replaced by another at
  random with probability 0.2: an automatic assessor); ``support.tsv.gz`` (each citation: full when
  the cited document is relevant to the sentence's subtopic, partial when relevant to the topic
  only, none otherwise).
"""
from __future__ import annotations

import gzip
import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import numpy as np
import pandas as pd

from ..loaders.topic_intents import intent_probabilities, read_topic_intents

HERE = Path(__file__).resolve().parent
SEED = 20120151  # TREC 2012, first topic 151
SYSTEMS = 18
DEPTH = 100
RAG_TOPICS = 10  # the generated-answer campaign's topics: the first ten (151-160)
RAG_REFERENCES = 5  # an answer's references: its run's top five documents


def subtopics() -> pd.DataFrame:
    """topic_id, intent_id, intent_type of every subtopic in full-topics.xml, in number order."""
    return read_topic_intents(HERE / "full-topics.xml")


def intent_files() -> dict[str, str]:
    """The uniform and non-uniform DINprob texts."""
    frame = subtopics()
    texts = {}
    for name in ("uniform", "nonuniform"):
        probability = intent_probabilities(frame, name)
        lines = [
            f"{t} {i} {repr(float(p))} {kind}"
            for t, i, p, kind in zip(frame.topic_id, frame.intent_id, probability, frame.intent_type)
        ]
        texts[f"intents.{name}.txt"] = "\n".join(lines) + "\n"
    return texts


def _read(path: Path, names: list[str]) -> pd.DataFrame:
    return pd.read_csv(path, sep=r"\s+", header=None, names=names, dtype=str, engine="python")


def simulated_runs() -> dict[str, str]:
    """sim01..sim18 as TREC run texts."""
    qrels = _read(HERE / "qrels.diversity.txt.gz", ["topic_id", "intent_id", "doc_id", "level"])
    qrels["level"] = qrels.level.astype(int).clip(lower=0)
    retrieved = pd.concat(
        _read(path, ["topic_id", "q0", "doc_id", "rank", "score", "tag"])[["topic_id", "doc_id"]]
        for path in sorted((HERE / "runs").glob("indri-*.txt.gz"))
    )
    pool = (
        pd.concat([qrels[["topic_id", "doc_id"]], retrieved])
        .drop_duplicates()
        .sort_values(["topic_id", "doc_id"])
        .reset_index(drop=True)
    )
    gains = qrels.pivot_table(index=["topic_id", "doc_id"], columns="intent_id", values="level", fill_value=0)
    rng = np.random.default_rng(SEED)
    qualities = np.linspace(0.15, 1.2, SYSTEMS)
    concentration = rng.choice([0.2, 1.0, 5.0], size=SYSTEMS)
    texts = {}
    for s in range(SYSTEMS):
        tag = f"sim{s + 1:02d}"
        skipped = set(rng.choice(sorted(pool.topic_id.unique()), size=rng.integers(0, 3), replace=False))
        parts = []
        for topic_id, docs in pool.groupby("topic_id", sort=True):
            topic_quality = qualities[s] + rng.normal(0, 0.3)
            if topic_id in skipped:
                continue
            topic_gains = gains.loc[topic_id].reindex(docs.doc_id).fillna(0)
            topic_gains = topic_gains.loc[:, (topic_gains.sum(axis=0) > 0).to_numpy()]
            weights = rng.dirichlet(np.full(max(topic_gains.shape[1], 1), concentration[s]))
            relevance = topic_gains.to_numpy() @ weights[: topic_gains.shape[1]]
            score = np.round(topic_quality * relevance + rng.normal(0, 1.0, len(docs)), 3)
            ranked = pd.DataFrame({"doc_id": docs.doc_id.to_numpy(), "score": score})
            ranked = ranked.sort_values(["score", "doc_id"], ascending=False).head(DEPTH)
            parts.extend(
                f"{topic_id} Q0 {doc} {rank} {value:.3f} {tag}"
                for rank, (doc, value) in enumerate(zip(ranked.doc_id, ranked.score), start=1)
            )
        texts[f"runs/{tag}.txt.gz"] = "\n".join(parts) + "\n"
    return texts


def document_lengths(runs: dict[str, str]) -> str:
    """A synthetic length for every judged or retrieved document."""
    qrels = _read(HERE / "qrels.diversity.txt.gz", ["topic_id", "intent_id", "doc_id", "level"])
    docs = set(qrels.doc_id)
    for path in sorted((HERE / "runs").glob("indri-*.txt.gz")):
        docs.update(_read(path, ["t", "q", "doc_id", "r", "s", "g"]).doc_id)
    for text in runs.values():
        docs.update(line.split()[2] for line in text.splitlines())
    ordered = sorted(docs)
    rng = np.random.default_rng(SEED + 1)
    lengths = np.maximum(rng.lognormal(mean=8.5, sigma=1.0, size=len(ordered)).astype(np.int64), 50)
    lines = ["# synthetic document lengths in characters (pyeval.sample.generate; not ClueWeb09's)"]
    lines += [f"{doc} {length}" for doc, length in zip(ordered, lengths)]
    return "\n".join(lines) + "\n"


def _subtopic_texts() -> dict[str, tuple[str, list[str]]]:
    """topic -> (its query, its subtopics' texts in number order), from full-topics.xml."""
    root = ElementTree.parse(HERE / "full-topics.xml").getroot()
    return {topic.get("number"): (" ".join(topic.findtext("query").split()),
                                  [" ".join(sub.text.split()) for sub in
                                   sorted(topic.findall("subtopic"), key=lambda sub: int(sub.get("number")))])
            for topic in root.findall("topic")}


def _jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def rag_texts(runs: dict[str, str]) -> dict[str, str]:
    """The generated-answer campaign of the sample (``rag/``; see the module's docstring)."""
    topics = dict(sorted(_subtopic_texts().items())[:RAG_TOPICS])
    qrels = _read(HERE / "qrels.diversity.txt.gz", ["topic_id", "intent_id", "doc_id", "level"])
    qrels["level"] = qrels.level.astype(int)
    relevant = qrels[qrels.level > 0]
    relevant_to = {(t, i): set(group.doc_id) for (t, i), group in relevant.groupby(["topic_id", "intent_id"])}
    relevant_topic = {t: set(group.doc_id) for t, group in relevant.groupby("topic_id")}
    rng = np.random.default_rng(SEED + 41)
    nuggets = [{"qid": topic, "query": query, "nuggets": [
        {"text": text, "importance": "vital" if number <= 2 else "okay"} for number, text in enumerate(texts, 1)]}
        for topic, (query, texts) in topics.items()]
    labels = ("support", "partial_support", "not_support")
    answers, manual, automatic, support = [], [], [], ["run_id\ttopic_id\tsentence_number\tdoc_id\tlabel"]
    for name in sorted(runs):
        run_id = name.removeprefix("runs/").removesuffix(".txt.gz")
        top: dict[str, list[str]] = {}
        for line in runs[name].splitlines():
            topic_id, _, doc_id, rank, *_ = line.split()
            if topic_id in topics and int(rank) <= RAG_REFERENCES:
                top.setdefault(topic_id, []).append(doc_id)
        for topic_id, (query, texts) in topics.items():
            if topic_id not in top:
                continue  # the run skipped the topic: no answer
            references = top[topic_id]
            sentences = [{"text": f"This answer is about {query}.", "citations": []}]
            truth = []
            for number, text in enumerate(texts, 1):
                grounded = [i for i, doc in enumerate(references) if doc in relevant_to.get((topic_id, str(number)), ())]
                if rng.random() >= (0.85 if grounded else 0.15):
                    truth.append("not_support")
                    continue
                cited = grounded[:2] if grounded else [int(rng.integers(len(references)))]
                sentences.append({"text": f"As to the question {text!r}, the cited pages answer it.",
                                  "citations": cited})
                truth.append("support" if grounded else "partial_support")
                for doc in (references[i] for i in cited):
                    label = ("full" if doc in relevant_to.get((topic_id, str(number)), ()) else
                             "partial" if doc in relevant_topic.get(topic_id, ()) else "none")
                    support.append(f"{run_id}\t{topic_id}\t{len(sentences)}\t{doc}\t{label}")
            length = sum(len(sentence["text"].split()) for sentence in sentences)
            answers.append({"run_id": run_id, "topic_id": topic_id, "topic": query, "references": references,
                            "response_length": length, "answer": sentences})
            noisy = [label if rng.random() >= 0.2 else str(rng.choice([other for other in labels if other != label]))
                     for label in truth]
            for target, assigned in ((manual, truth), (automatic, noisy)):
                target.append({"query": query, "qid": topic_id,
                               "answer_text": " ".join(sentence["text"] for sentence in sentences),
                               "response_length": length, "run_id": run_id,
                               "nuggets": [{"text": text, "importance": "vital" if number <= 2 else "okay",
                                            "assignment": label}
                                           for number, (text, label) in enumerate(zip(texts, assigned), 1)]})
    return {"rag/nuggets.jsonl": _jsonl(nuggets), "rag/answers.jsonl.gz": _jsonl(answers),
            "rag/assignments.manual.jsonl.gz": _jsonl(manual), "rag/assignments.auto.jsonl.gz": _jsonl(automatic),
            "rag/support.tsv.gz": "\n".join(support) + "\n"}


def generated_texts() -> dict[str, str]:
    """Every generated file of the sample, by path relative to this folder."""
    texts = intent_files()
    runs = simulated_runs()
    texts.update(runs)
    texts["doclengths.txt.gz"] = document_lengths(runs)
    texts.update(rag_texts(runs))
    return texts


def write(texts: dict[str, str]) -> None:
    for name, text in texts.items():
        path = HERE / name
        path.parent.mkdir(exist_ok=True)
        data = text.encode("utf-8")
        path.write_bytes(gzip.compress(data, compresslevel=9, mtime=0) if name.endswith(".gz") else data)


if __name__ == "__main__":
    write(generated_texts())
