-- reads: din_rank_gains, evaluation_document_gains, evaluation_entries
-- produces: evaluation_ranked_gains (run_id, topic_id, rank, doc_id, gain)
-- grain: run_id, topic_id, rank
-- params: $campaign_id, $ordering, $runs, $din, $probs, $profile, $judgment_set
-- diversity_ranked_gains (temp table evaluation_ranked_gains): the judged documents of every
-- ranked list of a D- or DIN-evaluation with their rank and the gain the system earns there:
-- GG(d) (D-measures) or the DIN global gain GG_DIN(r) (DIN-measures: a navigational intent's
-- part counts at its first relevant document only; din_rank_gains). Every judged document is
-- judged for the measures (-2 spam judgments have gain 0), so judged_only only renumbers: the
-- ranks are evaluation_entries' (with $negative_is_judged); din_rank_gains is matched on the
-- rank in the whole list. Reference: docs/diversity-measures.md sections 3.2 and 4.
with din as (
    select
        run_id,
        topic_id,
        rank,
        din_gain
    from din_rank_gains
    where
        $din
        and campaign_id = $campaign_id
        and judgment_set = $judgment_set
        and probs = $probs
        and profile = $profile
        and ordering = $ordering
        and list_contains($runs, run_id)
)

select
    evaluation_entries.run_id,
    evaluation_entries.topic_id,
    evaluation_entries.rank,
    evaluation_entries.doc_id,
    case when $din then coalesce(din.din_gain, 0.0) else evaluation_document_gains.gain end as gain
from evaluation_entries
inner join evaluation_document_gains
    on
        evaluation_entries.topic_id = evaluation_document_gains.topic_id
        and evaluation_entries.doc_id = evaluation_document_gains.doc_id
left join din
    on
        evaluation_entries.run_id = din.run_id
        and evaluation_entries.topic_id = din.topic_id
        and evaluation_entries.list_rank = din.rank
