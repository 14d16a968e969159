-- reads: current_inputs, evaluation_inputs, evaluation_measures, evaluations
-- produces: stale_results (evaluation_id, campaign_id, run_id, measure, judgment_set)
-- grain: evaluation_id, campaign_id, run_id, measure
-- params: none
-- stale_results: one row per (evaluation_id, campaign_id, run_id, measure) whose stored values
-- no longer describe the warehouse: since the evaluation, the campaign's qrels, or the run, or
-- the stored gain profile the measure names, was replaced by different content (or removed).
-- Intents and document lengths are recorded for provenance but do not make values stale. The
-- inputs of generated answers (docs/rag.md) do: a changed nugget bank, assignment set or support
-- set (input_kind 'nuggets', 'assignments', 'support') makes the whole evaluation stale, as
-- changed qrels do; a run's changed answers ('answers') make that run's values stale, as a
-- changed run does.
-- A value of an input replaced by identical content (same sha256) stays current.
-- judgment_set: the set the evaluation read; replacing a set's qrels makes stale only the values
-- computed under it (their recorded qrels input is named by the set; docs/judgments.md).
-- Portable SQL (DuckDB and PostgreSQL: `pyeval publish` creates it there from this text).
with recorded_inputs as (
    select
        evaluation_inputs.evaluation_id,
        evaluation_inputs.campaign_id,
        evaluation_inputs.input_kind,
        evaluation_inputs.input_name,
        (
            current_inputs.source_sha256 is null
            or current_inputs.source_sha256 <> evaluation_inputs.source_sha256
        ) as is_changed
    from evaluation_inputs
    left join current_inputs
        on evaluation_inputs.campaign_id = current_inputs.campaign_id
        and evaluation_inputs.input_kind = current_inputs.input_kind
        and evaluation_inputs.input_name = current_inputs.input_name
    where evaluation_inputs.input_kind in ('qrels', 'run', 'gains', 'nuggets', 'assignments', 'support', 'answers')
),

changed_qrels as (
    select evaluation_id
    from recorded_inputs
    where input_kind in ('qrels', 'nuggets', 'assignments', 'support') and is_changed
),

changed_answers as (
    select evaluation_id, input_name as run_id
    from recorded_inputs
    where input_kind = 'answers' and is_changed
),

changed_gains as (
    select evaluation_id, input_name as gain_profile
    from recorded_inputs
    where input_kind = 'gains' and is_changed
),

evaluated_runs as (
    select evaluation_id, campaign_id, input_name as run_id, is_changed
    from recorded_inputs
    where input_kind = 'run'
)

select
    evaluated_runs.evaluation_id,
    evaluated_runs.campaign_id,
    evaluated_runs.run_id,
    evaluation_measures.measure,
    evaluations.judgment_set
from evaluated_runs
inner join evaluation_measures on evaluated_runs.evaluation_id = evaluation_measures.evaluation_id
inner join evaluations on evaluated_runs.evaluation_id = evaluations.evaluation_id
where
    evaluated_runs.is_changed
    or evaluated_runs.evaluation_id in (select changed_qrels.evaluation_id from changed_qrels)
    or exists (
        select 1
        from changed_answers
        where
            changed_answers.evaluation_id = evaluated_runs.evaluation_id
            and changed_answers.run_id = evaluated_runs.run_id
    )
    or exists (
        select 1
        from changed_gains
        where
            changed_gains.evaluation_id = evaluation_measures.evaluation_id
            and changed_gains.gain_profile = evaluation_measures.gain_profile
    )
