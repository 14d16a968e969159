-- evaluation_ranks: the pooled documents (those with a qrels line) of every ranked list of one
-- evaluation, with their rank, level and the run's score. Materialised once per evaluation; every metric family
-- reads it (a list's unpooled documents only occupy ranks, which `rank` keeps).
-- Reads: rank_gains. Parameters:
--   $campaign_id, $ordering ('trec' | 'trec-asc' | 'rank' | 'file'), $runs (list of run ids),
--   $max_depth (trec_eval -M: ranks beyond it are dropped, after ordering),
--   $judged_only (trec_eval -J: keep judged documents only, ranks renumbered 1..n in order)
-- Reference: trec_eval 10.0 form_res_rels.c (depth cut, then -J).
with pooled as (
    select
        run_id,
        topic_id,
        rank,
        doc_id,
        score,
        level
    from rank_gains
    where
        campaign_id = $campaign_id
        and ordering = $ordering
        and list_contains($runs, run_id)
        and rank <= $max_depth
        and level is not null
)

select
    run_id,
    topic_id,
    case
        when $judged_only
            then row_number() over (partition by run_id, topic_id order by rank)
        else rank
    end as rank,
    doc_id,
    score,
    level
from pooled
where not $judged_only or level >= 0
