-- reads: fusion_inputs, ranked_entries
-- produces: fusion_entries (input_position, topic_id, doc_id, topic_key, doc_key, rank, score, listed, candidates)
-- grain: input_position, topic_id, doc_id
-- params: $campaign_id, $input_ordering, $input_depth
-- fusion_entries: the ranked lists a fusion reads: each input run (fusion_inputs: input_position,
-- run_id) of campaign $campaign_id ranked under $input_ordering (view ranked_entries: 'trec' is
-- score descending then docno descending, 'trec-asc' docno ascending on ties, as trectools
-- reads a run, 'rank' the rank column, 'file' file order) and cut at rank $input_depth (Python
-- binds a very large number for no cut: ranx reads every document).
-- listed: the length of the input's list for the topic after the cut; candidates: the number of
-- distinct documents of the topic over every input (Borda's points, ranx bordafuse).
-- topic_key, doc_key: the topic's and the document's numbers in byte order (the document's
-- within its topic), so that the later stages group and sort integers; doc_key orders as doc_id.
-- Recipe conventions: docs/fusion.md.
with cut as (
    select
        fusion_inputs.input_position,
        ranked_entries.topic_id,
        ranked_entries.doc_id,
        ranked_entries.rank,
        ranked_entries.score
    from ranked_entries
    inner join fusion_inputs on ranked_entries.run_id = fusion_inputs.run_id
    where
        ranked_entries.campaign_id = $campaign_id
        and ranked_entries.ordering = $input_ordering
        and ranked_entries.rank <= $input_depth
),

topic_candidates as (
    select
        topic_id,
        count(distinct doc_id) as candidates
    from cut
    group by topic_id
)

select
    cut.input_position,
    cut.topic_id,
    cut.doc_id,
    dense_rank() over (order by cut.topic_id) as topic_key,
    dense_rank() over (partition by cut.topic_id order by cut.doc_id) as doc_key,
    cut.rank,
    cut.score,
    count(*) over (partition by cut.input_position, cut.topic_id) as listed,
    topic_candidates.candidates
from cut
inner join topic_candidates on cut.topic_id = topic_candidates.topic_id
