-- reads: current_inputs, nugget_assignments
-- writes: evaluation_inputs
-- params: $id, $campaign_id, $runs, $profiles, $judgment_set, $answers
-- record_inputs: the provenance of one evaluation, written with it (evaluation_inputs): the
-- campaign's current qrels and intents of the judgment set $judgment_set, document lengths, each evaluated run, and each stored
-- gain profile its measures name, with their sha256 now.
-- Reads: current_inputs. Parameters: $id (evaluation_id), $campaign_id, $runs (the evaluated
-- run names), $profiles (the gain profiles named by its measures; built-in ones have no row),
-- $answers (it computed measures of generated answers, docs/rag.md: then also the nugget bank
-- the set $judgment_set assigns, the set's assignments and citation support, and each evaluated
-- run's answers, so that stale_results turns their values stale when one changes).
insert into evaluation_inputs (
    evaluation_id, campaign_id, input_kind, input_name, source_file, source_sha256
)
select
    $id,
    campaign_id,
    input_kind,
    input_name,
    source_file,
    source_sha256
from current_inputs
where
    campaign_id = $campaign_id
    and (
        (input_kind in ('qrels', 'intents') and input_name = $judgment_set)
        or input_kind = 'doclengths'
        or (input_kind = 'run' and list_contains($runs, input_name))
        or (input_kind = 'gains' and list_contains($profiles, input_name))
        or ($answers and input_kind in ('assignments', 'support') and input_name = $judgment_set)
        or ($answers and input_kind = 'answers' and list_contains($runs, input_name))
        or (
            $answers and input_kind = 'nuggets' and input_name in (
                select nugget_assignments.bank
                from nugget_assignments
                where nugget_assignments.campaign_id = $campaign_id and nugget_assignments.judgment_set = $judgment_set
            )
        )
    )
