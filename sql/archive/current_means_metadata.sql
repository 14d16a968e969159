-- reads: runs
-- writes: current_means
-- params: $campaign_id
-- current_means_metadata: the runs' system, team and date copied to the current means of
-- campaign $campaign_id after they were set (pyeval/loaders/runs.py, annotate_run and a load's
-- metadata): what pyeval/core/archive.py runs_annotated runs in the same transaction.
update current_means
set system = runs.system, team = runs.team, run_date = runs.run_date
from runs
where
    current_means.campaign_id = $campaign_id
    and runs.campaign_id = current_means.campaign_id
    and runs.run_id = current_means.run_id
