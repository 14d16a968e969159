-- reads: evaluation_intent_judgments, ranked_entries
-- produces: evaluation_ranks (run_id, topic_id, rank, doc_id, level)
-- grain: run_id, topic_id, rank
-- params: $campaign_id, $ordering, $runs, $max_depth, $judged_only
-- per_intent_ranks (temp table evaluation_ranks of the per-intent staging): the judged
-- documents of every ranked list, once per listed intent of its topic, with the intent's level.
-- Parameters: $campaign_id, $ordering, $runs, $max_depth, $judged_only (as evaluation_ranks).
with pooled as (
    select
        ranked_entries.run_id,
        evaluation_intent_judgments.topic_id,
        ranked_entries.rank,
        ranked_entries.doc_id,
        evaluation_intent_judgments.level
    from ranked_entries
    inner join evaluation_intent_judgments
        on
            ranked_entries.topic_id = evaluation_intent_judgments.source_topic_id
            and ranked_entries.doc_id = evaluation_intent_judgments.doc_id
    where
        ranked_entries.campaign_id = $campaign_id
        and ranked_entries.ordering = $ordering
        and list_contains($runs, ranked_entries.run_id)
        and ranked_entries.rank <= $max_depth
)

select
    run_id,
    topic_id,
    case
        when $judged_only then row_number() over (partition by run_id, topic_id order by rank)
        else rank
    end as rank,
    doc_id,
    level
from pooled
