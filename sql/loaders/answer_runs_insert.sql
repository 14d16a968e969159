-- reads: answer_input, runs
-- writes: runs
-- params: $campaign_id, $source_file, $sha256
-- answer_runs_insert: a run of an answer file that campaign $campaign_id does not have becomes a
-- run of it (its tag the run id, its team the first team the file gives it, its source the answer
-- file); a run the campaign has (its ranked list loaded from a run file, or its answers from an
-- earlier file) keeps its row.
insert into runs (campaign_id, run_id, run_tag, source_file, source_sha256, team)
select
    $campaign_id,
    run_id,
    run_id,
    $source_file,
    $sha256,
    arg_min(team, line_number) filter (where team is not null)
from answer_input
where run_id not in (select runs.run_id from runs where runs.campaign_id = $campaign_id)
group by run_id
order by min(line_number)
