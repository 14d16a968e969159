"""sql/evaluation/means.sql: a mean is the exact mean of the values rounded once (no drift in the
last digits of csv/json; statistics.mean's value), and trec_eval's drop-in adds its values one by
one, as trec_eval does."""
import math

import duckdb

from pyeval.core.evaluation import means_into
from pyeval.measures.names import parse

from .conftest import BEFORE_2, is_exact_mean

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


def test_a_mean_is_the_exact_mean_rounded_once():
    """statistics.mean's value (the mean of the doubles as a fraction, rounded once), where
    math.fsum / n, favg's, is an ulp off for about one run in five: random doubles and the
    fractions of nugget scores (k / 2n), 2,000 runs of 1 to 120 topics."""
    import numpy as np
    import statistics

    rng = np.random.default_rng(41)
    runs = {}
    for run in range(2000):
        topics = int(rng.integers(1, 121))
        if run % 2:
            values = rng.random(topics)
        else:
            nuggets = rng.integers(1, 40, topics)
            values = rng.integers(0, 2 * nuggets + 1) / (2 * nuggets)
        runs[f"r{run}"] = [float(v) for v in values]
    import pandas as pd

    rows = pd.DataFrame([(run, f"{t:04d}", "AP", value) for run, values in runs.items()
                         for t, value in enumerate(values)], columns=["run_id", "topic_id", "measure", "value"])
    con = duckdb.connect()
    con.execute("create temp table evaluation_scores as select * from rows")
    means_into(con, [parse("AP")], "means", in_topic_order=False)
    got = dict(con.execute("select run_id, value from means").fetchall())
    assert [run for run, values in runs.items() if not is_exact_mean(got[run], values)] == []
    if not BEFORE_2:
        assert {run: got[run] for run in runs} == {run: statistics.mean(values) for run, values in runs.items()}
    assert sum(math.fsum(values) / len(values) != statistics.mean(values) for values in runs.values()) > 100


def test_each_aggregate_reads_its_values_in_topic_order_and_skips_missing_ones():
    """Rows stored in any order give the means of the values in topic order: a count's sum, a
    geometric mean (floored at 1e-5), trec_eval's one-by-one sum and the exact mean; a missing
    value (NULL) adds nothing to a sum, is left out of the exact mean's divisor (not of the
    in-order mean's) and counts as a topic; in a geometric mean it is floored as 0 is (DuckDB's
    greatest() skips NULL). A measure asked twice is one row, its values counted once."""
    import random
    import statistics

    values = {"AP": [0.1, None, 0.7, 0.2], "NumRel": [3.0, 1.0, None, 5.0], "GMAP": [0.5, 0.0, 0.25, None]}
    rows = [("r", f"t{t}", measure, value) for measure, column in values.items() for t, value in enumerate(column)]
    random.Random(5).shuffle(rows)
    con = duckdb.connect()
    con.execute("create temp table evaluation_scores (run_id varchar, topic_id varchar, measure varchar, value double)")
    con.executemany("insert into evaluation_scores values (?, ?, ?, ?)", rows)
    measures = [parse(name) for name in values]
    means_into(con, measures, "means", in_topic_order=False)
    got = {measure: (value, topics) for measure, value, topics in
           con.execute("select measure, value, topics from means").fetchall()}
    assert got["AP"] == (statistics.mean([0.1, 0.7, 0.2]), 4)
    assert got["NumRel"] == (9.0, 4)
    assert got["GMAP"][1] == 4
    assert math.isclose(got["GMAP"][0], math.exp((math.log(0.5) + math.log(1e-5) + math.log(0.25) + math.log(1e-5)) / 4), rel_tol=1e-15)
    means_into(con, [*measures, parse("AP")], "twice", in_topic_order=False)
    assert con.execute("select measure, value, topics from twice where measure = 'AP'").fetchall() == [
        ("AP", statistics.mean([0.1, 0.7, 0.2]), 4)]
    means_into(con, measures, "ordered", in_topic_order=True)
    ordered = dict(con.execute("select measure, value from ordered").fetchall())
    assert ordered["AP"] == (0.1 + 0.7 + 0.2) / 4  # trec_eval's sum over the topics, divided by all of them
