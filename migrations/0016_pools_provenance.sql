-- 0016_pools_provenance: where a leave-out's official values come from (issue 27; docs/pools.md
-- section 4). pool_leave_out.official_evaluation_id: the stored evaluation whose mean was read
-- as the run's official value (null: evaluated by the leave-out itself).
-- Forward-only: never edit this file once merged.

alter table pool_leave_out add column official_evaluation_id bigint;
