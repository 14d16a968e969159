-- reads: pool_documents, pools, qrels_by_set
-- produces: pool_judgment_counts (pool_name, created_at, pool_documents, judged_pool_documents, judgments_outside_pool)
-- grain: pool_name
-- params: $campaign_id, $judgment_set, $pool_name
-- pool_judgment_counts: how judgment set $judgment_set judges each pool of campaign
-- $campaign_id ($pool_name null: every pool; else that one): the pool's documents, those the set
-- judges, and the set's judged documents outside the pool, latest pool first. A set that
-- judges exactly one pool's documents is that pool's judged export (pyeval/pools/judged.py
-- link_judgments; docs/pools.md section 2). The set's judged documents are read once.
with
judged as (
    select distinct topic_id, doc_id
    from qrels_by_set
    where campaign_id = $campaign_id and judgment_set = $judgment_set
),

pooled as (
    select
        pools.pool_name,
        pools.created_at,
        pool_documents.topic_id,
        pool_documents.doc_id,
        judged.doc_id is not null as is_judged
    from pools
    left join pool_documents
        on pools.campaign_id = pool_documents.campaign_id and pools.pool_name = pool_documents.pool_name
    left join judged
        on pool_documents.topic_id = judged.topic_id and pool_documents.doc_id = judged.doc_id
    where pools.campaign_id = $campaign_id and ($pool_name is null or pools.pool_name = $pool_name)
),

counted as (
    select
        pool_name,
        any_value(created_at) as created_at,
        count(doc_id) as pool_documents,
        count(*) filter (where is_judged) as judged_pool_documents
    from pooled
    group by pool_name
)

select
    counted.pool_name,
    counted.created_at,
    counted.pool_documents,
    counted.judged_pool_documents,
    (select count(*) from judged) - counted.judged_pool_documents as judgments_outside_pool
from counted
order by counted.created_at desc, counted.pool_name
