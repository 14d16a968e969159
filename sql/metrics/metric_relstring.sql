-- reads: evaluation_pairs, evaluation_ranks, requested_measures
-- produces: metric_relstring (run_id, topic_id, measure, value, value_text)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_relstring: RelString@k, the labels of the first min(k, L) documents of each ranked
-- list as text, per (run_id, topic_id, measure). Text valued: value is null, value_text holds
-- the string (trec_eval prints it inside single quotes, per topic only).
-- Reads: evaluation_pairs, evaluation_ranks, requested_measures(measure, kind, cutoff).
-- Reference: trec_eval 10.0 m_relstring.c, labels from form_res_rels.c. One character per
-- document: level 0-9 the digit, level > 9 '>', not in the pool (no qrels line: a rank absent
-- from evaluation_ranks) '-', pooled but unjudged (negative qrels level) '.'. m_relstring.c
-- prints '<' for any other negative label, but form_res_rels.c labels every negative qrels
-- level -2 (pooled but unjudged), so '<' never occurs. With -J (judged_only) the list holds
-- judged documents only and the string has digits and '>' only.
-- trec_eval -c scores a topic the run lacks on a bogus ranking and then clears the string;
-- here such a topic has L = 0 and gets ''.
-- Unpooled documents are not generated: each pooled document within the cutoff contributes the
-- run of '-' since the previous pooled one plus its own label, and '-' pad the string to
-- min(k, L) characters.
with pooled as (
    select
        run_id,
        topic_id,
        rank,
        level,
        lag(rank, 1, 0) over (partition by run_id, topic_id order by rank) as previous_rank
    from evaluation_ranks
    where rank <= (select max(cutoff) from requested_measures)
),

pieces as (
    select
        pooled.run_id,
        pooled.topic_id,
        requested_measures.measure,
        pooled.rank,
        repeat('-', (pooled.rank - pooled.previous_rank - 1)::bigint)
        || case
            when pooled.level > 9 then '>'
            when pooled.level >= 0 then chr((48 + pooled.level)::integer)
            else '.'
        end as piece
    from pooled
    inner join requested_measures on pooled.rank <= requested_measures.cutoff
),

strings as (
    select
        run_id,
        topic_id,
        measure,
        string_agg(piece, '' order by rank) as pooled_prefix,
        max(rank) as last_pooled_rank
    from pieces
    group by run_id, topic_id, measure
)

select
    evaluation_pairs.run_id,
    evaluation_pairs.topic_id,
    requested_measures.measure,
    null::double as value,
    coalesce(strings.pooled_prefix, '')
    || repeat(
        '-',
        (
            least(requested_measures.cutoff, evaluation_pairs.num_ret)
            - coalesce(strings.last_pooled_rank, 0)
        )::bigint
    ) as value_text
from evaluation_pairs
cross join requested_measures
left join strings
    on
        evaluation_pairs.run_id = strings.run_id
        and evaluation_pairs.topic_id = strings.topic_id
        and requested_measures.measure = strings.measure
