-- reads: pool_documents, qrels
-- produces: pool_unique_documents (group_name, topic_id, doc_id, level)
-- grain: group_name, topic_id, doc_id
-- params: $campaign_id, $pool_name, $judgment_set, $grouping
-- pool_unique_documents: the judged documents of pool $pool_name that only one group contributed
-- (grouping 'team': one team, as annotate-qrels.pl counts groups; 'run': one run), with the
-- highest level judgment set $judgment_set gives them. Leaving a group out removes all of its
-- unique judged documents, relevant or not, as gloo-eval.pl does (they become unjudged); the
-- relevant ones (level > 0) are its unique relevant documents. docs/pools.md sections 3-4.
with unique_documents as (
    select
        topic_id,
        doc_id,
        case when $grouping = 'run' then runs[1] else teams[1] end as group_name
    from pool_documents
    where
        campaign_id = $campaign_id
        and pool_name = $pool_name
        and (case when $grouping = 'run' then len(runs) else len(teams) end) = 1
)

select
    unique_documents.group_name,
    unique_documents.topic_id,
    unique_documents.doc_id,
    max(qrels.level) as level
from unique_documents
inner join qrels on unique_documents.topic_id = qrels.topic_id and unique_documents.doc_id = qrels.doc_id
where qrels.campaign_id = $campaign_id and qrels.judgment_set = $judgment_set
group by all
