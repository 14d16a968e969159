-- reads: answer_input
-- writes: runs
-- params: $campaign_id
-- answer_runs_team: a run of campaign $campaign_id without a team gets the first team its answer
-- file gives it (TREC RAG 2025's metadata.team_id); a team set before (`pyeval annotate`, `load
-- run --team`) is kept.
update runs
set team = given.team
from (
    select run_id, arg_min(team, line_number) as team
    from answer_input
    where team is not null
    group by run_id
) as given
where runs.campaign_id = $campaign_id and runs.run_id = given.run_id and runs.team is null
