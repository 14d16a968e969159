-- 0019_default_judgment_set: a query that names no judgment set reads each campaign's default set
-- (issue 38; docs/judgments.md). Since 0011 the public relations qrels and intents held every set,
-- and the views scores, run_means, leaderboard (and so monthly_means and the overviews) one row
-- per set, so a query written for one set silently summed or compared several. The stored tables
-- become qrels_by_set and intents_by_set (every set, the column judgment_set names it); qrels and
-- intents become views of each campaign's default set, as do scores, run_means and leaderboard,
-- beside scores_by_set, run_means_by_set and leaderboard_by_set (made by the open that applies
-- this migration, which remakes every view). The default set is a campaign setting
-- (campaigns.default_judgment_set, 'official' unless changed by `pyeval judgments default`).
-- The leave-one-group-out sets of a pool analysis (pyeval pool loo) are marked working sets
-- (judgment_sets.working_set): listed by `pyeval judgments list --all` only.
-- Forward-only: never edit this file once merged.

drop view if exists main.leaderboard;
drop view if exists main.monthly_means;
drop view if exists main.run_means;
drop view if exists main.scores;
drop view if exists main.campaign_overview;
drop view if exists main.topic_overview;

alter table qrels rename to qrels_by_set;
alter table intents rename to intents_by_set;

alter table campaigns add column default_judgment_set varchar not null default 'official';

alter table judgment_sets add column working_set boolean not null default false;
update judgment_sets set working_set = true
where derivation = 'minus' and json_extract_string(parameters, '$.pool') is not null;
