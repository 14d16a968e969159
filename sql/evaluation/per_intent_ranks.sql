-- reads: evaluation_entries, evaluation_intent_judgments
-- produces: evaluation_ranks (run_id, topic_id, rank, doc_id, score, level)
-- grain: run_id, topic_id, rank
-- params: none
-- per_intent_ranks (temp table evaluation_ranks of the per-intent staging): the judged
-- documents of every ranked list, once per listed intent of its topic, with the intent's level:
-- the ranks of the ranked-and-cut stage evaluation_entries.
select
    evaluation_entries.run_id,
    evaluation_intent_judgments.topic_id,
    evaluation_entries.rank,
    evaluation_entries.doc_id,
    evaluation_entries.score,
    evaluation_intent_judgments.level
from evaluation_entries
inner join evaluation_intent_judgments
    on
        evaluation_entries.topic_id = evaluation_intent_judgments.source_topic_id
        and evaluation_entries.doc_id = evaluation_intent_judgments.doc_id
