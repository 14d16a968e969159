-- reads: longitudinal_experiments, longitudinal_values
-- produces: longeval_rows (longitudinal_id, campaign_id, team, run, snapshot, qrels_set, query,
--           meta_measure, measure, value)
-- grain: longitudinal_id, run, snapshot, query, meta_measure, measure
-- params: none
-- longeval_rows: the long rows of every `pyeval longitudinal` in the shape of CLEF LongEval's
-- evaluator (clef-longeval/longeval-code, evaluate/core.py: team, run, snapshot, qrels_set, query,
-- meta_measure, measure, value), with the experiment and campaign they belong to
-- (docs/reproducibility.md section 4). query is a topic id for meta_measure 'per-query' and
-- 'all' for the others ('ARP', 'ER', 'DRI', 't-test', 'AP', 'RC').
-- Portable SQL (DuckDB and PostgreSQL).
select
    longitudinal_values.longitudinal_id,
    longitudinal_experiments.campaign_id,
    longitudinal_values.team,
    longitudinal_values.run_id as run,
    longitudinal_values.snapshot,
    longitudinal_values.qrels_set,
    longitudinal_values.query,
    longitudinal_values.meta_measure,
    longitudinal_values.measure,
    longitudinal_values.value
from longitudinal_values
inner join longitudinal_experiments
    on longitudinal_values.longitudinal_id = longitudinal_experiments.longitudinal_id
