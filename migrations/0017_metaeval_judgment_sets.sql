-- 0017_metaeval_judgment_sets: every stored meta-evaluation result names the judgment set whose
-- scores (or, for MEM, whose qrels) it read (issue 26; docs/judgments.md). The stage II tables
-- and discriminative_power gain judgment_set; results stored before this migration read the
-- official scores, so they become 'official'. Each row's experiment id (discpower_id,
-- swaprate_id, ...) is new per command run and fixes its set, so the tables' logical keys
-- (docs/schema.md) need no change: results under two sets coexist, each under its own id.
-- significance_tests, pairwise_tests (0011), risk_results, risk_topic_values and
-- topic_set_designs (0012) and fusion_grids (0013) already carry the column.
-- Forward-only: never edit this file once merged.

alter table discriminative_power add column judgment_set varchar not null default 'official';
alter table swap_rates add column judgment_set varchar not null default 'official';
alter table swap_rate_summaries add column judgment_set varchar not null default 'official';
alter table minority_rates add column judgment_set varchar not null default 'official';
alter table rank_correlations add column judgment_set varchar not null default 'official';
alter table concordance_tests add column judgment_set varchar not null default 'official';
alter table gain_robustness add column judgment_set varchar not null default 'official';
alter table mem_solutions add column judgment_set varchar not null default 'official';
alter table mem_predictions add column judgment_set varchar not null default 'official';
