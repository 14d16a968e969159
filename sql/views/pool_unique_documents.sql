-- reads: pool_documents, qrels_by_set
-- produces: pool_unique_documents (campaign_id, pool_name, judgment_set, grouped_by, group_name, topic_id, doc_id,
--           level)
-- grain: campaign_id, pool_name, judgment_set, grouped_by, group_name, topic_id, doc_id
-- params: none
-- pool_unique_documents: the judged documents of each pool that only one group contributed
-- (grouped_by 'team': one team, as annotate-qrels.pl counts groups, a run without a team being a
-- group of its own; 'run': one run), with the highest level each judgment set of the campaign
-- gives them. Leaving a group out removes all of its unique judged documents, relevant or not,
-- as gloo-eval.pl does (they become unjudged); the relevant ones (level > 0) are its unique
-- relevant documents (view unique_relevant). docs/pools.md sections 3-4.
-- Portable SQL (DuckDB and PostgreSQL).
with unique_documents as (
    select
        campaign_id,
        pool_name,
        'team' as grouped_by,
        teams[1] as group_name,
        topic_id,
        doc_id
    from pool_documents
    where array_length(teams, 1) = 1
    union all
    select
        campaign_id,
        pool_name,
        'run' as grouped_by,
        runs[1] as group_name,
        topic_id,
        doc_id
    from pool_documents
    where array_length(runs, 1) = 1
)

select
    unique_documents.campaign_id,
    unique_documents.pool_name,
    qrels_by_set.judgment_set,
    unique_documents.grouped_by,
    unique_documents.group_name,
    unique_documents.topic_id,
    unique_documents.doc_id,
    max(qrels_by_set.level) as level
from unique_documents
inner join qrels_by_set
    on
        unique_documents.campaign_id = qrels_by_set.campaign_id
        and unique_documents.topic_id = qrels_by_set.topic_id
        and unique_documents.doc_id = qrels_by_set.doc_id
group by
    unique_documents.campaign_id,
    unique_documents.pool_name,
    qrels_by_set.judgment_set,
    unique_documents.grouped_by,
    unique_documents.group_name,
    unique_documents.topic_id,
    unique_documents.doc_id
