"""Campaign tools for diversity evaluation: probability variants, intent types from a topics
XML, 2T conversions (docs/diversity-measures.md sections 1.2 and 10), and the CLI commands."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

import pyeval
from pyeval import sample
from pyeval.cli import main
from pyeval.diversity import campaigns
from pyeval.loaders import topic_intents
from pyeval.errors import DataIntegrityError, InputFormatError, MeasureParamError
from pyeval.core.evaluation import evaluate

from ..conftest import FIXTURES

#: docs/diversity-measures.md section 10: judgments per level of the TREC 2012 diversity qrels' 2T
#: conversions (16,055 judged topic-document pairs)
MAX_LEVELS = {-2: 858, 0: 9638, 1: 3163, 2: 531, 3: 96, 4: 1769}
COUNT_LEVELS = {0: 10496, 1: 3111, 2: 1530, 3: 560, 4: 273, 5: 85}


@pytest.fixture(scope="module")
def web():
    con = pyeval.connect()
    pyeval.load_qrels(con, "web", sample.path("qrels.diversity.txt.gz"))
    topic_intents.load_intents_from_topics(con, "web", sample.path("full-topics.xml"), probs="uniform")
    runs = sample.run_paths()[:3]
    pyeval.load_runs(con, "web", runs, names=[sample.run_name(p) for p in runs])
    yield con
    con.close()


def _levels(con, campaign):
    return dict(con.execute("select level, count(*) from qrels where campaign_id = $c group by level",
                            {"c": campaign}).fetchall())


def test_to_traditional_max_and_count(web):
    assert campaigns.to_traditional(web, "web", "web-max") == 16055
    assert _levels(web, "web-max") == MAX_LEVELS
    campaigns.to_traditional(web, "web", "web-count", method="count", negative_as="nonrelevant")
    assert _levels(web, "web-count") == COUNT_LEVELS
    row = web.execute("select qrels_kind, campaigns.source_campaign_id, derivation, parameters ->> 'method' "
                      "from campaigns join campaign_derivations using (campaign_id) "
                      "where campaign_id = 'web-max'").fetchone()
    assert row == ("adhoc", "web", "to_traditional", "max")
    assert web.execute("select count(*) from runs where campaign_id = 'web-max'").fetchone()[0] == 3
    assert web.execute("select count(*) from intent_levels where campaign_id = 'web-max' and intent_id <> ''"
                       ).fetchone()[0] == 0
    result = evaluate(web, "web-max", ["nDCG@10"], store=False)
    assert len(result.per_topic) == 3 * 50
    with pytest.raises(DataIntegrityError, match="exists already"):
        campaigns.to_traditional(web, "web", "web-max")
    with pytest.raises(DataIntegrityError, match="no diversity qrels"):
        campaigns.to_traditional(web, "web-max", "again")


def test_intents_from_the_topics_xml(web):
    stored = web.execute("select count(*), count(*) filter (where intent_type = 'nav') from intents "
                         "where campaign_id = 'web'").fetchone()
    listed = topic_intents.read_topic_intents(sample.path("full-topics.xml"))
    assert stored == (195, (listed.intent_type == "nav").sum())
    assert stored[1] > 0
    probabilities = web.execute("select sum(probability) from intents where campaign_id = 'web' "
                                "group by topic_id").fetchall()
    assert all(p == pytest.approx(1.0) for (p,) in probabilities)


def test_intent_types_from_the_xml_replace_a_file_s(tmp_path):
    con = pyeval.connect()
    pyeval.load_qrels(con, "w", sample.path("qrels.diversity.txt.gz"))
    frame = topic_intents.read_topic_intents(sample.path("full-topics.xml")).assign(intent_type="inf")
    frame["prob"] = topic_intents.intent_probabilities(frame, "uniform")
    pyeval.load_intents(con, "w", frame.rename(columns={"topic_id": "query_id"}))
    assert topic_intents.set_intent_types(con, "w", sample.path("full-topics.xml")) == 195
    nav = con.execute("select count(*) from intents where campaign_id = 'w' and intent_type = 'nav'").fetchone()[0]
    assert nav == (topic_intents.read_topic_intents(sample.path("full-topics.xml")).intent_type == "nav").sum()


def test_probability_variants(web):
    assert campaigns.generate_intent_variant(web, "web", "nonuniform", "nonuniform") == 195
    rows = web.execute("select intent_id, probability from intent_variants where campaign_id = 'web' "
                       "and variant = 'nonuniform' and topic_id = '151' order by intent_id").fetchall()
    assert [p for _, p in rows] == pytest.approx([32 / 62, 16 / 62, 8 / 62, 4 / 62, 2 / 62])
    given = evaluate(web, "web", ["D_nDCG@10", "IA_nDCG@10"], store=False).per_topic
    nonuniform = evaluate(web, "web", ["D_nDCG(probs=nonuniform)@10"], store=False).per_topic
    assert not given[given.measure == "D_nDCG@10"].value.reset_index(drop=True).equals(
        nonuniform.value.reset_index(drop=True))
    with pytest.raises(MeasureParamError, match="unknown intent probability variant 'nope'"):
        evaluate(web, "web", ["D_nDCG(probs=nope)@10"], store=False)
    with pytest.raises(DataIntegrityError, match="already"):
        campaigns.generate_intent_variant(web, "web", "nonuniform", "uniform")
    campaigns.generate_intent_variant(web, "web", "nonuniform", "uniform", replace=True)
    uniform = evaluate(web, "web", ["D_nDCG(probs=nonuniform)@10"], store=False).per_topic
    assert list(uniform.value) == pytest.approx(list(given[given.measure == "D_nDCG@10"].value))


def test_a_variant_loaded_from_a_file(web, tmp_path):
    path = tmp_path / "x.Iprob"
    path.write_text("151 1 1.0\n151 2 0\n")
    assert campaigns.load_intent_variant(web, "web", "first", path) == 2
    path.write_text("151 9 1.0\n")
    with pytest.raises(InputFormatError, match="intent '9' of topic '151' is not an intent"):
        campaigns.load_intent_variant(web, "web", "bad", path)


def test_dtest_probabilities_are_the_rounded_nonuniform_ones():
    con = pyeval.connect()
    ntcir = FIXTURES / "ntcireval"
    pyeval.load_qrels(con, "d", ntcir / "Dtest.Dqrels")
    pyeval.load_intents(con, "d", ntcir / "Dtest.Iprob")
    campaigns.generate_intent_variant(con, "d", "nu", "nonuniform")
    pairs = con.execute("select intents.probability, v.probability from intents join intent_variants v "
                        "using (campaign_id, topic_id, intent_id)").fetchall()
    assert all(given == round(generated, 4) for given, generated in pairs)


def test_cli(tmp_path):
    runner = CliRunner()
    db = str(tmp_path / "w.duckdb")

    def invoke(*args):
        result = runner.invoke(main, ["--db", db, *map(str, args)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    invoke("load", "qrels", "-C", "web", sample.path("qrels.diversity.txt.gz"))
    assert "195 rows, 50 topics" in invoke("intents", "topics", "-C", "web", sample.path("full-topics.xml"))
    assert "195 intents" in invoke("intents", "generate", "-C", "web", "--method", "nonuniform", "nu")
    out = (
        invoke("intents", "topics", "-C", "web", "--types-only", sample.path("full-topics.xml")))
    assert "types of 195 intents" in out
    invoke("load", "run", "-C", "web", "--name", "ql", sample.path("runs/indri-ql.txt.gz"))
    out = invoke("evaluate", "-C", "web", "-m", "IRec@10", "-m", "D-nDCG@10", "-m", "Dsharp_nDCG@10",
                 "--probs", "nu", "--format", "csv")
    assert out.splitlines()[0] == "run_id,IRec@10,D_nDCG(probs=nu)@10,Dsharp_nDCG(probs=nu)@10"
    assert "judgments converted" in invoke("to-traditional", "web", "web2t", "--method", "count")
    assert "nDCG@10" in invoke("evaluate", "-C", "web2t", "-m", "nDCG@10", "--no-store")
    result = runner.invoke(main, ["--db", db, "evaluate", "-C", "web", "-m", "nDCG@10"])
    assert result.exit_code == 1 and "D_nDCG@10" in result.output


def test_intents_from_topics_record_the_xml_as_their_source(web):
    source = web.execute("select source_file from campaign_inputs where campaign_id = 'web' "
                         "and input_kind = 'intents'").fetchall()
    assert source == [(str(sample.path("full-topics.xml").resolve()),)]
