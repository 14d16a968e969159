-- reads: din_rank_gains, evaluation_document_gains, ranked_entries
-- produces: evaluation_ranked_gains (run_id, topic_id, rank, doc_id, gain)
-- grain: run_id, topic_id, rank
-- params: $campaign_id, $ordering, $runs, $max_depth, $din, $probs, $profile, $judged_only
-- diversity_ranked_gains (temp table evaluation_ranked_gains): the judged documents of every
-- ranked list of a D- or DIN-evaluation with their rank and the gain the system earns there:
-- GG(d) (D-measures) or the DIN global gain GG_DIN(r) (DIN-measures: a navigational intent's
-- part counts at its first relevant document only; din_rank_gains). Every judged document is
-- judged for the measures (-2 spam judgments have gain 0), so judged_only only renumbers.
-- Parameters: $campaign_id, $ordering, $runs, $max_depth, $judged_only, $din (bool), $probs,
-- $profile. Reference: metrics-diversity.md sections 3.2 and 4.
with pooled as (
    select
        ranked_entries.run_id,
        ranked_entries.topic_id,
        ranked_entries.rank,
        ranked_entries.doc_id,
        evaluation_document_gains.gain
    from ranked_entries
    inner join evaluation_document_gains
        on
            ranked_entries.topic_id = evaluation_document_gains.topic_id
            and ranked_entries.doc_id = evaluation_document_gains.doc_id
    where
        ranked_entries.campaign_id = $campaign_id
        and ranked_entries.ordering = $ordering
        and list_contains($runs, ranked_entries.run_id)
        and ranked_entries.rank <= $max_depth
),

din as (
    select
        run_id,
        topic_id,
        rank,
        din_gain
    from din_rank_gains
    where
        $din
        and campaign_id = $campaign_id
        and probs = $probs
        and profile = $profile
        and ordering = $ordering
        and list_contains($runs, run_id)
        and rank <= $max_depth
)

select
    pooled.run_id,
    pooled.topic_id,
    case
        when $judged_only
            then row_number() over (partition by pooled.run_id, pooled.topic_id order by pooled.rank)
        else pooled.rank
    end as rank,
    pooled.doc_id,
    case when $din then coalesce(din.din_gain, 0.0) else pooled.gain end as gain
from pooled
left join din
    on pooled.run_id = din.run_id and pooled.topic_id = din.topic_id and pooled.rank = din.rank
