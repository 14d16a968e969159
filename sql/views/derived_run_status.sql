-- reads: run_derivation_parents, run_derivations, runs
-- produces: derived_run_status (campaign_id, run_id, method, parents, parents_now, is_stale)
-- grain: campaign_id, run_id
-- params: none
-- derived_run_status: one row per fused run (run_derivations): its parents in input order and,
-- is_stale, whether a parent was since replaced by other content or removed (the fused run then
-- no longer follows from its recipe: pyeval fuse --refresh makes it again). parents_now: the
-- parents' current sha256 in input order ('missing' for a removed parent), what current_inputs
-- folds into a stale fused run's sha256 so that every result stored for it turns stale.
-- DuckDB only (string_agg with order by): `pyeval publish` copies current_inputs' rows.
select
    run_derivations.campaign_id,
    run_derivations.run_id,
    run_derivations.method,
    string_agg(run_derivation_parents.parent_run_id, ',' order by run_derivation_parents.input_position)
        as parents,
    string_agg(coalesce(runs.source_sha256, 'missing'), ',' order by run_derivation_parents.input_position)
        as parents_now,
    bool_or(runs.source_sha256 is distinct from run_derivation_parents.parent_sha256) as is_stale
from run_derivations
inner join run_derivation_parents
    on run_derivations.campaign_id = run_derivation_parents.campaign_id
    and run_derivations.run_id = run_derivation_parents.run_id
left join runs
    on run_derivation_parents.campaign_id = runs.campaign_id
    and run_derivation_parents.parent_run_id = runs.run_id
group by run_derivations.campaign_id, run_derivations.run_id, run_derivations.method
