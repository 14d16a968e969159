-- 0009_metaeval_warnings: a meta-evaluation result computed on too little data to mean much
-- (fewer than 3 runs, so fewer than 3 run pairs; no comparison reaching the required difference;
-- no disagreement to test) keeps the warnings printed with it (issue 21; docs/resampling.md).
-- Null for results stored before this migration; an empty list when there was nothing to say.
-- Forward-only: never edit this file once merged.

alter table swap_rate_summaries add column warnings varchar[];
alter table rank_correlations add column warnings varchar[];
alter table concordance_tests add column warnings varchar[];
alter table gain_robustness add column warnings varchar[];
alter table discriminative_power add column warnings varchar[];
