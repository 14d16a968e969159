"""sql/evaluation/means.sql: a mean is a compensated sum over the topics (no drift in the last
digits of csv/json), and trec_eval's drop-in adds its values one by one, as trec_eval does."""
import math

import duckdb

from pyeval.core.evaluation import means_into
from pyeval.measures.names import parse

# the per-topic P@10 of the sample's indri-ql run (50 topics; they sum to 13.5)
P10 = [0.7, 0.0, 0.7, 0.0, 0.6, 0.5, 0.0, 0.8, 0.4, 0.0, 0.0, 0.0, 0.1, 0.1, 0.2, 0.4, 0.1, 1.0, 0.1, 0.0,
       0.6, 0.3, 0.7, 0.3, 0.7, 0.0, 0.2, 0.6, 0.0, 0.1, 0.2, 0.2, 0.0, 0.0, 0.1, 0.5, 0.0, 0.0, 0.0, 0.2,
       0.5, 0.4, 0.4, 0.0, 0.1, 0.3, 0.2, 0.2, 0.1, 0.9]


def _mean(in_topic_order: bool) -> float:
    con = duckdb.connect()
    con.execute("create temp table evaluation_scores (run_id varchar, topic_id varchar, measure varchar, value double)")
    con.executemany("insert into evaluation_scores values ('r', ?, 'P@10', ?)",
                    [(f"{151 + i}", value) for i, value in enumerate(P10)])
    means_into(con, [parse("P@10")], "means", in_topic_order=in_topic_order)
    return con.execute("select value from means").fetchone()[0]


def test_a_mean_does_not_drift():
    assert repr(_mean(False)) == "0.27" == repr(math.fsum(P10) / len(P10))


def test_trec_eval_adds_one_by_one():
    total = 0.0
    for value in P10:
        total += value
    assert _mean(True) == total / len(P10) == 0.2699999999999999
