"""The floor of trec_eval's official measures by DuckDB: every run's values, per topic and
means, computed by hand-written DuckDB statements, over a warehouse's stored tables (the floor
of ``pyeval evaluate -m official`` on a stored campaign; issue 39's target: evaluate within 1.5x
of this) or over two files (the floor of ``pyeval trec_eval QRELS RUN``).

    python bench/floor_official.py WAREHOUSE.duckdb CAMPAIGN [--topics qrels|intersection]
                                   [--out values.json] [--per-topic] [--store VALUES.duckdb] [--record]
    python bench/floor_official.py --files QRELS RUN [--topics intersection|qrels]
                                   [--out values.json] [--per-topic]

It imports only duckdb (and the standard library's argparse).

With ``--files`` it reads both files with DuckDB's CSV reader (fields separated by one space,
as bench_campaign's FLOOR_SQL reads them; one run per file, named by its tag column) into
in-memory tables of the stored tables' shape (``load_files``: the run ranked in trec_eval's
order by a window, score descending then docno descending, as sql/loaders/run_insert.sql sets
``trec_rank``), runs the same statements over them and prints the means as trec_eval prints
them (``print_means``: ``pyeval trec_eval QRELS RUN`` and ``trec_eval QRELS RUN`` print the
same); the topics default to trec_eval's without -c (intersection).

Over a warehouse it opens the file read-only (read-write with ``--store``, writing nothing to
it). ``--store FILE`` also keeps what it computed, as an
evaluation that stores its results must (``pyeval evaluate`` without ``--no-store``): in one
transaction, the per-topic values in long form (run, topic, measure, value: the shape of pyeval's
topic_scores) and the means (run, measure, value) into tables of the DuckDB file FILE (made anew,
on the same disk), which is closed (checkpointed) before the process ends. The floor of the same
work pyeval evaluate does, once: pyeval also keeps the current values (current_scores), a second
copy of the per-topic rows (docs/schema.md). ``--record`` does evaluate's work: it writes into
WAREHOUSE itself (so give it a copy, as it was before the evaluation) the rows ``pyeval evaluate``
stores, in one transaction (``record``): an evaluations row, its measures and inputs,
the per-topic values (topic_scores) and means (evaluation_means), and the archive's copies of
both (current_scores and current_means: the keys' earlier rows replaced); then it closes the file
(a checkpoint). tests/bench/test_floor_official.py checks that it leaves the rows evaluate leaves.

What it reads: run_entries (each run's documents with ``trec_rank``, the rank under trec_eval's
ordering, score descending then docno descending, set once at load by
sql/loaders/run_insert.sql), qrels_by_set (the ad hoc
judgments, intent ''), of the campaign's default judgment set (campaigns.default_judgment_set),
and runs. How (three statements, one pass over run_entries):

1. the list lengths (num_ret) of every (run, topic), and the judged documents retrieved (an
   inner join on the judgments: a small table);
2. per (run, topic), from the judged retrieved documents alone, one window (relevant and
   judged non-relevant documents so far, in trec_rank order) and one group by: every measure
   is a filtered count, sum or max over the relevant documents retrieved;
3. the means: sums for the counts, the geometric mean (values floored at 1e-5) for gm_map,
   the arithmetic mean for the rest.

Conventions are trec_eval's as pyeval's evaluate keeps them (docs/adhoc-measures.md section 2):
relevant is level >= 1, judged non-relevant 0 <= level < 1 (negative levels are pooled but
unjudged); ratios with R = 0 are 0; iprec_at_recall_x at c = lround(x R) is the best precision
at or after the c-th relevant document (the first when c = 0), 0 when fewer are retrieved.
Topics (pyeval evaluate --topics): ``qrels`` (default, trec_eval -c): every judged topic for
every run, a topic the run lacks scoring as an empty list; ``intersection`` (trec_eval without
-c): the judged topics the run retrieved for. Topics without judgments are ignored.

``--out`` writes JSON: {"means": {run: {measure: value}}, "per_topic": {run: {topic: {...}}}
(per_topic with ``--per-topic``)}, measures named as trec_eval names them; STORED_NAMES maps
them to the names pyeval stores (evaluation_means.measure), for comparisons.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import duckdb

P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_POINTS = tuple(i / 10 for i in range(11))
COUNTS = ("num_q", "num_ret", "num_rel", "num_rel_ret")
MEASURES = (*COUNTS, "map", "gm_map", "Rprec", "bpref", "recip_rank",
            *(f"iprec_at_recall_{x:.2f}" for x in RECALL_POINTS), *(f"P_{k}" for k in P_CUTOFFS))
#: trec_eval's name -> the measure name pyeval stores for it (evaluation_means, topic_scores).
STORED_NAMES = {
    "num_q": "NumQ", "num_ret": "NumRet", "num_rel": "NumRel", "num_rel_ret": "NumRet(rel=1)",
    "map": "AP", "gm_map": "GMAP", "Rprec": "Rprec", "bpref": "Bpref", "recip_rank": "RR",
    **{f"iprec_at_recall_{x:.2f}": f"IPrec@{x:.1f}" for x in RECALL_POINTS},
    **{f"P_{k}": f"P@{k}" for k in P_CUTOFFS},
}
#: trec_eval name -> how its per-topic values combine (evaluation_measures.aggregate).
AGGREGATES = {name: "sum" if name in COUNTS else "gmean" if name == "gm_map" else "mean" for name in MEASURES}
GMEAN_FLOOR = 1e-5  # trec_eval m_gm_map.c
TOPIC_POLICIES = ("qrels", "intersection")

# 1. The campaign's ad hoc judgments of its default set, every judged topic's R and N, the
# lists' lengths (of every topic: statement 2 keeps the judged ones) and the judged documents
# they retrieved.
JUDGED_SQL = tuple(statement.strip() for statement in """
create or replace temp table floor_judgments as
select topic_id, doc_id, level
from qrels_by_set
where campaign_id = $campaign and intent_id = ''
    and judgment_set = (select default_judgment_set from campaigns where campaign_id = $campaign);

create or replace temp table floor_topics as
select topic_id, count_if(level >= 1) as num_rel, count_if(level = 0) as num_nonrel
from floor_judgments
group by topic_id;

create or replace temp table floor_lists as
select run_entries.run_id, run_entries.topic_id, count(*) as num_ret
from run_entries
where run_entries.campaign_id = $campaign
group by all;

create or replace temp table floor_judged_retrieved as
select run_entries.run_id, run_entries.topic_id, run_entries.trec_rank as rank, floor_judgments.level
from run_entries
inner join floor_judgments
    on floor_judgments.topic_id = run_entries.topic_id and floor_judgments.doc_id = run_entries.doc_id
where run_entries.campaign_id = $campaign and floor_judgments.level >= 0
""".split(";"))


def _per_topic_sql() -> str:
    """2. One row per (run, topic) scored, every official measure a column."""
    precision = ",\n".join(
        f"    coalesce(relevant.within_{k}, 0) / {k}::double as \"P_{k}\"" for k in P_CUTOFFS)
    within = ",\n".join(f"        count_if(rank <= {k}) as within_{k}" for k in P_CUTOFFS)
    # lround(x R): DuckDB's round() of a double rounds half away from zero, as lround does
    iprec_parts = ",\n".join(
        f"        max(precision) filter (where relevant_so_far >= greatest(round({x!r}::double * num_rel), 1))"
        f" as iprec_{i}" for i, x in enumerate(RECALL_POINTS))
    iprec = ",\n".join(f"    coalesce(relevant.iprec_{i}, 0) as \"iprec_at_recall_{x:.2f}\""
                       for i, x in enumerate(RECALL_POINTS))
    return f"""
create or replace temp table floor_topic_values as
with relevant_ranks as (
    select run_id, topic_id, rank, level,
           count_if(level >= 1) over so_far as relevant_so_far,
           count_if(level = 0) over so_far as nonrelevant_above
    from floor_judged_retrieved
    window so_far as (partition by run_id, topic_id order by rank
                      rows between unbounded preceding and current row)
    qualify level >= 1
),
relevant as (
    select relevant_ranks.run_id, relevant_ranks.topic_id,
        count(*) as num_rel_ret,
        sum(relevant_so_far / rank::double) as precision_sum,
        min(rank) as first_rank,
        count_if(rank <= num_rel) as within_r,
        sum(case when nonrelevant_above > 0
                 then 1.0 - least(nonrelevant_above, num_rel)::double / least(num_nonrel, num_rel)::double
                 else 1.0 end) as bpref_sum,
{within},
{iprec_parts}
    from (select *, relevant_so_far / rank::double as precision from relevant_ranks) as relevant_ranks
    inner join floor_topics using (topic_id)
    group by all
),
pairs as (
    select runs.run_id, floor_topics.topic_id, floor_topics.num_rel, floor_topics.num_nonrel,
           coalesce(floor_lists.num_ret, 0) as num_ret
    from runs
    cross join floor_topics
    left join floor_lists on floor_lists.run_id = runs.run_id and floor_lists.topic_id = floor_topics.topic_id
    where runs.campaign_id = $campaign and ($topic_policy = 'qrels' or floor_lists.run_id is not null)
)
select
    pairs.run_id, pairs.topic_id,
    1 as num_q,
    pairs.num_ret,
    pairs.num_rel,
    coalesce(relevant.num_rel_ret, 0) as num_rel_ret,
    case when pairs.num_rel > 0 then coalesce(relevant.precision_sum, 0) / pairs.num_rel else 0 end as map,
    case when pairs.num_rel > 0 then coalesce(relevant.precision_sum, 0) / pairs.num_rel else 0 end as gm_map,
    case when pairs.num_rel > 0 then coalesce(relevant.within_r, 0) / pairs.num_rel::double else 0 end
        as "Rprec",
    case when pairs.num_rel > 0 then coalesce(relevant.bpref_sum, 0) / pairs.num_rel else 0 end as bpref,
    coalesce(1.0::double / relevant.first_rank, 0) as recip_rank,
{iprec},
{precision}
from pairs
left join relevant on relevant.run_id = pairs.run_id and relevant.topic_id = pairs.topic_id
"""


def _means_sql() -> str:
    """3. One row per run: sums, the geometric mean of gm_map, means."""
    def combine(name: str) -> str:
        column = f'"{name}"'
        if AGGREGATES[name] == "sum":
            return f"sum({column})::double as {column}"
        if AGGREGATES[name] == "gmean":
            return f"exp(avg(ln(greatest({column}, {GMEAN_FLOOR!r})))) as {column}"
        return f"avg({column}) as {column}"
    columns = ",\n    ".join(combine(name) for name in MEASURES)
    return f"""
create or replace temp table floor_means as
select run_id,
    {columns}
from floor_topic_values
group by run_id
"""


def compute(con: duckdb.DuckDBPyConnection, campaign: str, topic_policy: str = "qrels") -> None:
    """Compute every official measure of every run of ``campaign`` into the temp tables
    floor_topic_values (run_id, topic_id, one column per measure) and floor_means (run_id, ...)."""
    if topic_policy not in TOPIC_POLICIES:
        raise ValueError(f"topic policy must be one of {', '.join(TOPIC_POLICIES)}: {topic_policy!r}")
    for statement in JUDGED_SQL:
        con.execute(statement, {"campaign": campaign} if "$campaign" in statement else None)
    con.execute(_per_topic_sql(), {"campaign": campaign, "topic_policy": topic_policy})
    con.execute(_means_sql())


def values(con: duckdb.DuckDBPyConnection, per_topic: bool = False) -> dict:
    """The computed means (and per-topic values) as {"means": {run: {measure: value}},
    "per_topic": {run: {topic: {measure: value}}}}, measures under trec_eval's names."""
    names = ", ".join(f'"{name}"' for name in MEASURES)
    out: dict = {"means": {}}
    for run, *row in con.execute(f"select run_id, {names} from floor_means order by run_id").fetchall():
        out["means"][run] = dict(zip(MEASURES, map(float, row)))
    if per_topic:
        out["per_topic"] = {}
        for run, topic, *row in con.execute(
                f"select run_id, topic_id, {names} from floor_topic_values order by run_id, topic_id").fetchall():
            out["per_topic"].setdefault(run, {})[topic] = dict(zip(MEASURES, map(float, row)))
    return out


def store(con: duckdb.DuckDBPyConnection, path: str) -> None:
    """Keep the computed values in the DuckDB file ``path`` (removed first if it exists), in one
    transaction: floor_scores (run_id, topic_id, measure, value), the per-topic values in long
    form, and floor_run_means (run_id, measure, value); then detach it (a checkpoint)."""
    import os

    for name in (path, path + ".wal"):
        if os.path.exists(name):
            os.remove(name)
    if int(duckdb.__version__.split(".")[0]) >= 2:
        con.execute("attach $path as floor_store (read_write)", {"path": path})
    else:  # DuckDB 1.x binds no parameter in attach: the path as a quoted literal
        con.execute(f"attach '{path.replace(chr(39), chr(39) * 2)}' as floor_store (read_write)")
    names = ", ".join(f'"{name}"' for name in MEASURES)
    con.execute("begin")
    con.execute(f"create table floor_store.floor_scores as unpivot floor_topic_values on {names} "
                "into name measure value value")
    con.execute(f"create table floor_store.floor_run_means as unpivot floor_means on {names} "
                "into name measure value value")
    con.execute("commit")
    con.execute("detach floor_store")


#: What pyeval's catalogue says of each measure besides its stored name (STORED_NAMES) and
#: aggregate (AGGREGATES), as evaluation_measures records it: trec_eval name -> (measure_name,
#: family, parameters).
RECORDED = {
    "num_q": ("NumQ", "counts", "{}"),
    "num_ret": ("NumRet", "counts", '{"rel": null}'),
    "num_rel": ("NumRel", "counts", '{"rel": 1}'),
    "num_rel_ret": ("NumRet", "counts", '{"rel": 1}'),
    "map": ("AP", "average_precision", '{"cutoff": null, "judged_only": false, "rel": 1}'),
    "gm_map": ("GMAP", "average_precision", '{"rel": 1}'),
    "Rprec": ("Rprec", "precision", '{"judged_only": false, "rel": 1}'),
    "bpref": ("Bpref", "average_precision", '{"rel": 1}'),
    "recip_rank": ("RR", "average_precision", '{"cutoff": null, "judged_only": false, "rel": 1}'),
    **{f"iprec_at_recall_{x:.2f}": ("IPrec", "average_precision", f'{{"judged_only": false, "recall": {x}, "rel": 1}}')
       for x in RECALL_POINTS},
    **{f"P_{k}": ("P", "precision", f'{{"cutoff": {k}, "judged_only": false, "rel": 1}}') for k in P_CUTOFFS},
}


def record(con: duckdb.DuckDBPyConnection, campaign: str) -> int:
    """Record the computed values in the open warehouse itself, the rows ``pyeval evaluate`` stores
    for an evaluation of the official set (the floor of that same work; the file is changed, so
    give it a copy; its settings column holds '{}' and its means are plain averages): in one
    transaction an ``evaluations`` row, its measures, inputs (the qrels' and each run's sha256),
    the per-topic values (``topic_scores``) and means (``evaluation_means``), and the archive's
    copies of both for the same keys (``current_scores``, ``current_means``: the keys' rows
    replaced); then committed. Returns the new evaluation id."""
    names = ", ".join(f'"{name}"' for name in MEASURES)
    con.execute("create or replace temp table floor_recorded (trec_name varchar, measure varchar, "
                "measure_name varchar, family varchar, parameters varchar, aggregate varchar)")
    con.executemany("insert into floor_recorded values (?, ?, ?, ?, ?, ?)",
                    [(name, STORED_NAMES[name], *RECORDED[name], AGGREGATES[name]) for name in MEASURES])
    # the long forms, once: what both copies of each are made from
    con.execute(f"create or replace temp table floor_long_scores as select run_id, topic_id, "
                f"floor_recorded.measure, value from (unpivot floor_topic_values on {names} "
                "into name trec_name value value) inner join floor_recorded using (trec_name)")
    con.execute(f"create or replace temp table floor_long_means as select run_id, floor_recorded.measure, value, "
                f"topics from (unpivot floor_means on {names} into name trec_name value value) "
                "inner join floor_recorded using (trec_name) inner join (select run_id, count(*) as topics "
                "from floor_topic_values group by run_id) using (run_id)")
    con.execute("begin")
    try:
        evaluation_id, judgment_set = con.execute(
            "select coalesce((select max(evaluation_id) from evaluations), 0) + 1, default_judgment_set "
            "from campaigns where campaign_id = $c", {"c": campaign}).fetchone()
        keys = {"id": evaluation_id, "c": campaign, "set": judgment_set}
        con.execute("insert into evaluations (evaluation_id, campaign_id, pyeval_version, ordering, settings, "
                    "judgment_set) values ($id, $c, 'floor', 'trec', '{}', $set)", keys)
        con.execute("insert into evaluation_measures (evaluation_id, measure, measure_name, family, parameters, "
                    "aggregate) select $id, measure, measure_name, family, parameters, aggregate "
                    "from floor_recorded", {"id": evaluation_id})
        # the inputs as the warehouse states them now (its view current_inputs): the judgment
        # set's qrels and intents, document lengths and every run (all were evaluated)
        con.execute("insert into evaluation_inputs (evaluation_id, campaign_id, input_kind, input_name, source_file, "
                    "source_sha256) select $id, campaign_id, input_kind, input_name, source_file, source_sha256 "
                    "from current_inputs where campaign_id = $c and (input_kind = 'run' or input_kind = 'doclengths' "
                    "or (input_kind in ('qrels', 'intents') and input_name = $set))", keys)
        con.execute("insert into topic_scores (evaluation_id, campaign_id, run_id, topic_id, measure, value, "
                    "judgment_set) select $id, $c, run_id, topic_id, measure, value, $set from floor_long_scores",
                    keys)
        con.execute("insert into evaluation_means (evaluation_id, campaign_id, run_id, measure, value, topics, "
                    "judgment_set) select $id, $c, run_id, measure, value, topics, $set from floor_long_means", keys)
        # the archive's copies: the rows of the keys recorded now replaced, as pyeval/core/archive.py does
        con.execute("delete from current_scores using floor_long_scores where current_scores.campaign_id = $c "
                    "and current_scores.judgment_set = $set and current_scores.run_id = floor_long_scores.run_id "
                    "and current_scores.topic_id = floor_long_scores.topic_id "
                    "and current_scores.measure = floor_long_scores.measure", {"c": campaign, "set": judgment_set})
        con.execute("insert into current_scores (campaign_id, run_id, topic_id, measure, value, evaluation_id, "
                    "evaluated_at, judgment_set, aggregate, higher_is_better) "
                    "select $c, run_id, topic_id, floor_long_scores.measure, value, $id, "
                    "(select created_at from evaluations where evaluation_id = $id), $set, "
                    "floor_recorded.aggregate, measures.higher_is_better from floor_long_scores "
                    "inner join floor_recorded using (measure) "
                    "left join measures on measures.measure_name = floor_recorded.measure_name", keys)
        con.execute("delete from current_means using floor_long_means where current_means.campaign_id = $c "
                    "and current_means.judgment_set = $set and current_means.run_id = floor_long_means.run_id "
                    "and current_means.measure = floor_long_means.measure", {"c": campaign, "set": judgment_set})
        con.execute("insert into current_means (campaign_id, run_id, system, team, run_date, measure, value, topics, "
                    "evaluation_id, evaluated_at, measure_name, aggregate, higher_is_better, judgment_set) "
                    "select $c, runs.run_id, runs.system, runs.team, runs.run_date, floor_long_means.measure, "
                    "floor_long_means.value, floor_long_means.topics, $id, "
                    "(select created_at from evaluations where evaluation_id = $id), floor_recorded.measure_name, "
                    "floor_recorded.aggregate, measures.higher_is_better, $set from floor_long_means "
                    "inner join runs on runs.campaign_id = $c and runs.run_id = floor_long_means.run_id "
                    "inner join floor_recorded using (measure) "
                    "left join measures on measures.measure_name = floor_recorded.measure_name", keys)
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise
    return evaluation_id


# The two files in tables of the stored tables' shape (of the columns the statements read).
_QRELS_CSV = "{'topic': 'VARCHAR', 'iteration': 'VARCHAR', 'docno': 'VARCHAR', 'level': 'INTEGER'}"
_RUN_CSV = ("{'topic': 'VARCHAR', 'q0': 'VARCHAR', 'docno': 'VARCHAR', 'rank': 'INTEGER', "
            "'score': 'DOUBLE', 'tag': 'VARCHAR'}")
FILES_SQL = tuple(statement.strip() for statement in f"""
create temp table campaigns as select $campaign as campaign_id, 'files' as default_judgment_set;

create temp table qrels_by_set as
select $campaign as campaign_id, 'files' as judgment_set, '' as intent_id,
       topic as topic_id, docno as doc_id, level
from read_csv($qrels, delim = ' ', header = false, columns = {_QRELS_CSV});

create temp table run_entries as
select $campaign as campaign_id, tag as run_id, topic as topic_id, docno as doc_id,
       row_number() over (partition by tag, topic order by score desc, docno desc) as trec_rank
from read_csv($run, delim = ' ', header = false, columns = {_RUN_CSV});

create temp table runs as select distinct campaign_id, run_id from run_entries
""".split(";"))


def load_files(con: duckdb.DuckDBPyConnection, qrels: str, run: str, campaign: str = "files") -> None:
    """Read a qrels file and a run file (one space between fields, one run per file) into
    temp tables campaigns, qrels_by_set, run_entries (ranked in trec_eval's order) and runs, of
    the stored tables' shape, as the campaign ``campaign`` (``compute`` reads them)."""
    parameters = {"campaign": campaign, "qrels": qrels, "run": run}
    for statement in FILES_SQL:
        con.execute(statement, {name: value for name, value in parameters.items() if f"${name}" in statement})


def print_means(con: duckdb.DuckDBPyConnection) -> None:
    """Print each run's computed means as trec_eval prints them (counts whole, the rest to 4
    places), a runid line first."""
    names = ", ".join(f'"{name}"' for name in MEASURES)
    lines = []
    for run, *row in con.execute(f"select run_id, {names} from floor_means order by run_id").fetchall():
        lines.append(f"{'runid':<22}\tall\t{run}")
        lines.extend(f"{name:<22}\tall\t{int(value) if name in COUNTS else f'{value:.4f}'}"
                     for name, value in zip(MEASURES, row))
    print("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("warehouse", nargs="?", help="a pyeval warehouse file (opened read-only)")
    parser.add_argument("campaign", nargs="?")
    parser.add_argument("--files", nargs=2, metavar=("QRELS", "RUN"),
                        help="read a qrels file and a run file instead of a warehouse; print the means")
    parser.add_argument("--topics", choices=TOPIC_POLICIES,
                        help="qrels: every judged topic (trec_eval -c; the default over a warehouse, as "
                             "pyeval evaluate's); intersection: the run's (the default with --files, as trec_eval's)")
    parser.add_argument("--out", help="write the values computed here (JSON)")
    parser.add_argument("--per-topic", action="store_true", help="with --out: the per-topic values too")
    parser.add_argument("--store", metavar="FILE",
                        help="also store the per-topic values and means in this DuckDB file (made anew)")
    parser.add_argument("--record", action="store_true",
                        help="also record the values in WAREHOUSE itself as pyeval evaluate stores an "
                             "evaluation (its tables and the archive's copies; the file is changed: give it a copy)")
    args = parser.parse_args(argv)
    if (args.files is None) == (args.campaign is None):
        parser.error("give either WAREHOUSE CAMPAIGN or --files QRELS RUN")
    if args.files:
        con = duckdb.connect()
        load_files(con, *args.files)
        compute(con, "files", args.topics or "intersection")
        print_means(con)
        if args.out:
            with open(args.out, "w") as f:
                json.dump(values(con, args.per_topic), f)
        return 0
    started = time.perf_counter()
    # read-only, unless the values are stored (a read-only database attaches no file to write)
    con = duckdb.connect(args.warehouse, read_only=not (args.store or args.record))
    if not con.execute("select count(*) from campaigns where campaign_id = $campaign",
                       {"campaign": args.campaign}).fetchone()[0]:
        parser.error(f"no campaign {args.campaign!r} in {args.warehouse}")
    compute(con, args.campaign, args.topics or "qrels")
    runs, topics = con.execute("select count(distinct run_id), count(*) from floor_topic_values").fetchone()
    if args.store:
        store(con, args.store)
    if args.record:
        con.execute("set search_path = 'main,pyeval_internal'")  # as every pyeval connection reads it
        record(con, args.campaign)
    computed = time.perf_counter() - started
    if args.out:
        with open(args.out, "w") as f:
            json.dump(values(con, args.per_topic), f)
    print(f"{runs} runs, {topics} (run, topic) pairs, {len(MEASURES)} measures: computed in {computed:.3f}s")
    con.close()  # a checkpoint, when anything was recorded
    return 0


if __name__ == "__main__":
    sys.exit(main())
