-- reads: evaluation_pairs, evaluation_preferences, evaluation_ranks, preference_closure,
--        requested_measures
-- produces: metric_preferences (run_id, topic_id, measure, value)
-- grain: run_id, topic_id, measure
-- params: none
-- metric_preferences: preference measures per (run_id, topic_id, measure): PrefsPossible,
-- PrefsFulfilled, PrefsSimp, PrefsPair, PrefsAvgJG, PrefsAvgJGRnonrel, each with
-- pairs = 'all' | 'ret' | 'imp' (PrefsAvgJGRnonrel: 'all' | 'ret').
-- Reads: evaluation_pairs, evaluation_ranks, requested_measures(measure, kind, pairs),
--        evaluation_preferences(topic_id, jg, jsg, doc_id, rel_level): preference judgments,
--        and preference_closure (sql/evaluation/preference_closure.sql), both staged by the
--        caller (pyeval.loaders.prefs); a preference document must have a qrels line to be
--        seen in evaluation_ranks.
-- Reference: trec_eval 10.0 form_prefs_counts.c, m_prefs_*.c (NIST); get_prefs.c for the model.
--
-- Model. Within a judgment group (JG) of a topic, every sub-group (JSG) prefers each of its
-- documents to the documents of the same JSG with a lower rel_level. A JG with one JSG keeps
-- exactly these preferences (trec_eval's equivalence classes); a JG with several JSGs keeps
-- their transitive closure (trec_eval's preference array; the staged preference_closure).
-- Docid ranks (trec_eval's "docid_rank"): the judged documents the run retrieved, in list
-- order, are 0 .. NJR-1; the judged documents it did not retrieve follow, in docno byte order.
-- A preference A > B falls in one area: A1 both retrieved, A above B (fulfilled); A2 both
-- retrieved, B above A; A3 A retrieved, B not (fulfilled, implied); A4 B retrieved, A not;
-- A5 neither retrieved. pairs = 'all' counts A1..A5 (fulfilled: A1, A3), 'ret' A1, A2
-- (fulfilled: A1), 'imp' A1..A4 (fulfilled: A1, A3).
--   PrefsPossible, PrefsFulfilled: the counts, summed over the JGs.
--   PrefsSimp: fulfilled / possible over all JGs (0 when nothing is possible).
--   PrefsAvgJG: sum over JGs with possible > 0 of fulfilled / possible, divided by the number
--     of JGs of the topic.
--   PrefsPair: each unordered document pair that some JG orders scores, when its higher
--     docid-ranked document is retrieved, the share of the JGs' preferences on it that prefer
--     that document (else 0); mean over pairs. 'ret': pairs of two retrieved documents only;
--     'imp': pairs with at least one retrieved document.
--   PrefsAvgJGRnonrel: as PrefsAvgJG, but each JG's non-relevant documents are set to R
--     (relevant: level > 0; non-relevant: level <= 0 in a one-JSG JG, level = 0 in a
--     several-JSG JG, where a document's level is the one of its last JSG in byte order).
--     R >= N: R*(R-N) fulfilled-or-possible preferences are added (num_rel_ret*(R-N)
--     fulfilled, num_rel*(R-N) possible; 'ret' uses R = num_rel_ret, N = num_nonrel_ret, and
--     still adds num_rel*(R-N) possible, as m_prefs_avgjg_Rnonrel_ret.c does).
--     R < N, one JSG: preferences whose worse document is not at the JG's lowest level, plus
--     the pairs (any JG document, each of the first R documents of the lowest level) -- the
--     JG's lowest-level documents paired with those first R too, as trec_eval's recalculate()
--     does; a pair is fulfilled when its first document is retrieved above the second. 'ret'
--     keeps retrieved documents only and the first num_rel_ret lowest-level documents.
--     R < N, several JSGs: the preferences among the JG's documents left after dropping the
--     non-relevant ones beyond the first R in docid-rank order ('ret': beyond the first R
--     retrieved ones, R still num_rel).
--     A JG with nothing possible makes the topic's value 0 (trec_eval's 0/0 NaN fails its
--     `sum > 0` test).
with judged_docs as (
    select distinct
        topic_id,
        doc_id
    from evaluation_preferences
),

group_shapes as (
    select
        topic_id,
        jg,
        count(distinct jsg) = 1 as single_sub_group,
        min(rel_level) as lowest_level
    from evaluation_preferences
    group by topic_id, jg
),

group_docs as (
    select
        evaluation_preferences.topic_id,
        evaluation_preferences.jg,
        evaluation_preferences.doc_id,
        any_value(group_shapes.single_sub_group) as single_sub_group,
        min(evaluation_preferences.rel_level) = any_value(group_shapes.lowest_level) as at_lowest_level,
        arg_max(evaluation_preferences.rel_level, evaluation_preferences.jsg) as last_level
    from evaluation_preferences
    inner join group_shapes
        on
            evaluation_preferences.topic_id = group_shapes.topic_id
            and evaluation_preferences.jg = group_shapes.jg
    group by evaluation_preferences.topic_id, evaluation_preferences.jg, evaluation_preferences.doc_id
),

classified_docs as (
    select
        *,
        case
            when last_level > 0 then 'rel'
            when single_sub_group or last_level = 0 then 'nonrel'
            else 'none'
        end as relevance
    from group_docs
),

direct_preferences as (
    select
        better.topic_id,
        better.jg,
        better.doc_id as better_doc,
        worse.doc_id as worse_doc
    from evaluation_preferences as better
    inner join evaluation_preferences as worse
        on
            better.topic_id = worse.topic_id
            and better.jg = worse.jg
            and better.jsg = worse.jsg
            and better.rel_level > worse.rel_level
),

preferences as (
    select
        direct_preferences.topic_id,
        direct_preferences.jg,
        direct_preferences.better_doc,
        direct_preferences.worse_doc
    from direct_preferences
    inner join group_shapes
        on
            direct_preferences.topic_id = group_shapes.topic_id
            and direct_preferences.jg = group_shapes.jg
    where group_shapes.single_sub_group
    union all
    select
        topic_id,
        jg,
        better_doc,
        worse_doc
    from preference_closure
    where better_doc <> worse_doc
),

retrieved_docs as (
    select
        evaluation_pairs.run_id,
        evaluation_pairs.topic_id,
        judged_docs.doc_id,
        row_number() over (
            partition by evaluation_pairs.run_id, evaluation_pairs.topic_id
            order by evaluation_ranks.rank
        ) - 1 as docid_rank
    from evaluation_pairs
    inner join evaluation_ranks
        on
            evaluation_pairs.run_id = evaluation_ranks.run_id
            and evaluation_pairs.topic_id = evaluation_ranks.topic_id
    inner join judged_docs
        on
            evaluation_ranks.topic_id = judged_docs.topic_id
            and evaluation_ranks.doc_id = judged_docs.doc_id
),

judged_retrieved as (
    select
        evaluation_pairs.run_id,
        evaluation_pairs.topic_id,
        count(retrieved_docs.doc_id) as njr
    from evaluation_pairs
    left join retrieved_docs
        on
            evaluation_pairs.run_id = retrieved_docs.run_id
            and evaluation_pairs.topic_id = retrieved_docs.topic_id
    group by evaluation_pairs.run_id, evaluation_pairs.topic_id
),

doc_ranks as (
    select
        judged_retrieved.run_id,
        judged_retrieved.topic_id,
        judged_retrieved.njr,
        judged_docs.doc_id,
        retrieved_docs.docid_rank is not null as retrieved,
        coalesce(
            retrieved_docs.docid_rank,
            judged_retrieved.njr - 1 + row_number() over (
                partition by
                    judged_retrieved.run_id, judged_retrieved.topic_id, retrieved_docs.docid_rank is null
                order by judged_docs.doc_id
            )
        ) as docid_rank
    from judged_retrieved
    inner join judged_docs on judged_retrieved.topic_id = judged_docs.topic_id
    left join retrieved_docs
        on
            judged_retrieved.run_id = retrieved_docs.run_id
            and judged_retrieved.topic_id = retrieved_docs.topic_id
            and judged_docs.doc_id = retrieved_docs.doc_id
),

-- every document of every JG, per run: its docid rank and the flags PrefsAvgJGRnonrel needs
group_doc_ranks as (
    select
        doc_ranks.run_id,
        classified_docs.*,
        doc_ranks.docid_rank,
        doc_ranks.retrieved,
        doc_ranks.njr,
        -- JG documents above it
        row_number() over (
            partition by doc_ranks.run_id, classified_docs.topic_id, classified_docs.jg
            order by doc_ranks.docid_rank
        ) - 1 as docs_above,
        -- its position among the JG's lowest-level documents (one-JSG JGs)
        row_number() over (
            partition by
                doc_ranks.run_id, classified_docs.topic_id, classified_docs.jg,
                classified_docs.at_lowest_level
            order by doc_ranks.docid_rank
        ) as lowest_position,
        -- its position among the JG's non-relevant documents, and among the retrieved ones
        row_number() over (
            partition by
                doc_ranks.run_id, classified_docs.topic_id, classified_docs.jg,
                classified_docs.relevance = 'nonrel'
            order by doc_ranks.docid_rank
        ) as nonrel_position,
        row_number() over (
            partition by
                doc_ranks.run_id, classified_docs.topic_id, classified_docs.jg,
                classified_docs.relevance = 'nonrel', doc_ranks.retrieved
            order by doc_ranks.docid_rank
        ) as nonrel_retrieved_position
    from classified_docs
    inner join doc_ranks
        on classified_docs.topic_id = doc_ranks.topic_id and classified_docs.doc_id = doc_ranks.doc_id
),

group_counts as (
    select
        run_id,
        topic_id,
        jg,
        any_value(single_sub_group) as single_sub_group,
        count(*) as group_size,
        count(*) filter (where retrieved) as group_retrieved,
        count(*) filter (where relevance = 'rel') as num_rel,
        count(*) filter (where relevance = 'rel' and retrieved) as num_rel_ret,
        count(*) filter (where relevance = 'nonrel') as num_nonrel,
        count(*) filter (where relevance = 'nonrel' and retrieved) as num_nonrel_ret
    from group_doc_ranks
    group by run_id, topic_id, jg
),

group_docs_flagged as (
    select
        group_doc_ranks.*,
        group_doc_ranks.at_lowest_level and group_doc_ranks.lowest_position <= group_counts.num_rel
            as in_first_r,
        group_doc_ranks.at_lowest_level and group_doc_ranks.retrieved
        and group_doc_ranks.lowest_position <= group_counts.num_rel_ret as in_first_r_retrieved,
        group_doc_ranks.relevance <> 'nonrel' or group_doc_ranks.nonrel_position <= group_counts.num_rel
            as kept,
        group_doc_ranks.relevance <> 'nonrel' or not group_doc_ranks.retrieved
        or group_doc_ranks.nonrel_retrieved_position <= group_counts.num_rel as kept_retrieved
    from group_doc_ranks
    inner join group_counts
        on
            group_doc_ranks.run_id = group_counts.run_id
            and group_doc_ranks.topic_id = group_counts.topic_id
            and group_doc_ranks.jg = group_counts.jg
),

-- each preference with its better document's ranks, per run (materialised: joining both
-- documents at once lets the planner pair every better with every worse document first)
preferences_by_run as materialized (
    select
        better.run_id,
        preferences.topic_id,
        preferences.jg,
        preferences.worse_doc,
        better.docid_rank as better_rank,
        better.retrieved as better_retrieved,
        better.kept as better_kept,
        better.kept_retrieved as better_kept_retrieved
    from preferences
    inner join group_docs_flagged as better
        on
            preferences.topic_id = better.topic_id
            and preferences.jg = better.jg
            and preferences.better_doc = better.doc_id
),

scored_preferences as (
    select
        preferences_by_run.run_id,
        preferences_by_run.topic_id,
        preferences_by_run.jg,
        preferences_by_run.better_rank,
        worse.docid_rank as worse_rank,
        case
            when preferences_by_run.better_retrieved and worse.retrieved
                and preferences_by_run.better_rank < worse.docid_rank then 'A1'
            when preferences_by_run.better_retrieved and worse.retrieved then 'A2'
            when preferences_by_run.better_retrieved then 'A3'
            when worse.retrieved then 'A4'
            else 'A5'
        end as area,
        worse.at_lowest_level as worse_at_lowest_level,
        preferences_by_run.better_kept and worse.kept as kept,
        preferences_by_run.better_kept_retrieved and worse.kept_retrieved as kept_retrieved
    from preferences_by_run
    inner join group_docs_flagged as worse
        on
            preferences_by_run.run_id = worse.run_id
            and preferences_by_run.topic_id = worse.topic_id
            and preferences_by_run.jg = worse.jg
            and preferences_by_run.worse_doc = worse.doc_id
),

area_counts as (
    select
        run_id,
        topic_id,
        jg,
        count(*) filter (where area = 'A1') as a1,
        count(*) filter (where area = 'A2') as a2,
        count(*) filter (where area = 'A3') as a3,
        count(*) filter (where area = 'A4') as a4,
        count(*) filter (where area = 'A5') as a5,
        -- R < N, one JSG: the preferences whose worse document is above the lowest level
        count(*) filter (where not worse_at_lowest_level and area in ('A1', 'A3')) as upper_fulfilled,
        count(*) filter (where not worse_at_lowest_level) as upper_possible,
        count(*) filter (where not worse_at_lowest_level and area = 'A1') as upper_fulfilled_ret,
        count(*) filter (where not worse_at_lowest_level and area in ('A1', 'A2')) as upper_possible_ret,
        -- R < N, several JSGs: the preferences among the kept documents
        count(*) filter (where kept and area in ('A1', 'A3')) as kept_fulfilled,
        count(*) filter (where kept) as kept_possible,
        count(*) filter (where kept_retrieved and area = 'A1') as kept_fulfilled_ret,
        count(*) filter (where kept_retrieved and area in ('A1', 'A2')) as kept_possible_ret
    from scored_preferences
    group by run_id, topic_id, jg
),

-- R < N, one JSG: (any JG document, one of the first R lowest-level documents) pairs
first_r_pairs as (
    select
        run_id,
        topic_id,
        jg,
        sum(least(docs_above, group_retrieved_in_jg)) filter (where in_first_r) as fulfilled,
        count(*) filter (where in_first_r) as targets,
        sum(docs_above) filter (where in_first_r_retrieved) as fulfilled_ret,
        count(*) filter (where in_first_r_retrieved) as targets_ret
    from (
        select
            *,
            count(*) filter (where retrieved) over (partition by run_id, topic_id, jg)
                as group_retrieved_in_jg
        from group_docs_flagged
    )
    group by run_id, topic_id, jg
),

group_values as (
    select
        group_counts.run_id,
        group_counts.topic_id,
        group_counts.jg,
        coalesce(area_counts.a1, 0) as a1,
        coalesce(area_counts.a2, 0) as a2,
        coalesce(area_counts.a3, 0) as a3,
        coalesce(area_counts.a4, 0) as a4,
        coalesce(area_counts.a5, 0) as a5,
        -- PrefsAvgJGRnonrel: (fulfilled, possible) of the JG
        case
            when group_counts.num_rel >= group_counts.num_nonrel
                then coalesce(area_counts.a1 + area_counts.a3, 0)
                + group_counts.num_rel_ret * (group_counts.num_rel - group_counts.num_nonrel)
            when group_counts.single_sub_group
                then coalesce(area_counts.upper_fulfilled, 0) + coalesce(first_r_pairs.fulfilled, 0)
            else coalesce(area_counts.kept_fulfilled, 0)
        end as rnonrel_fulfilled,
        case
            when group_counts.num_rel >= group_counts.num_nonrel
                then coalesce(area_counts.a1 + area_counts.a2 + area_counts.a3 + area_counts.a4 + area_counts.a5, 0)
                + group_counts.num_rel * (group_counts.num_rel - group_counts.num_nonrel)
            when group_counts.single_sub_group
                then coalesce(area_counts.upper_possible, 0)
                + group_counts.group_size * first_r_pairs.targets
            else coalesce(area_counts.kept_possible, 0)
        end as rnonrel_possible,
        case
            when group_counts.num_rel_ret >= group_counts.num_nonrel_ret
                then coalesce(area_counts.a1, 0)
                + group_counts.num_rel_ret * (group_counts.num_rel_ret - group_counts.num_nonrel_ret)
            when group_counts.single_sub_group
                then coalesce(area_counts.upper_fulfilled_ret, 0) + coalesce(first_r_pairs.fulfilled_ret, 0)
            else coalesce(area_counts.kept_fulfilled_ret, 0)
        end as rnonrel_fulfilled_ret,
        case
            when group_counts.num_rel_ret >= group_counts.num_nonrel_ret
                then coalesce(area_counts.a1 + area_counts.a2, 0)
                + group_counts.num_rel * (group_counts.num_rel_ret - group_counts.num_nonrel_ret)
            when group_counts.single_sub_group
                then coalesce(area_counts.upper_possible_ret, 0)
                + group_counts.group_retrieved * first_r_pairs.targets_ret
            else coalesce(area_counts.kept_possible_ret, 0)
        end as rnonrel_possible_ret
    from group_counts
    left join area_counts
        on
            group_counts.run_id = area_counts.run_id
            and group_counts.topic_id = area_counts.topic_id
            and group_counts.jg = area_counts.jg
    left join first_r_pairs
        on
            group_counts.run_id = first_r_pairs.run_id
            and group_counts.topic_id = first_r_pairs.topic_id
            and group_counts.jg = first_r_pairs.jg
),

group_ratios as (
    select
        run_id,
        topic_id,
        jg,
        a1,
        a2,
        a3,
        a4,
        a5,
        a1 + a3 as fulfilled_all,
        a1 + a2 + a3 + a4 + a5 as possible_all,
        a1 as fulfilled_ret,
        a1 + a2 as possible_ret,
        a1 + a3 as fulfilled_imp,
        a1 + a2 + a3 + a4 as possible_imp,
        rnonrel_fulfilled,
        rnonrel_possible,
        rnonrel_fulfilled_ret,
        rnonrel_possible_ret
    from group_values
),

topic_groups as (
    select
        run_id,
        topic_id,
        count(*) as num_jgs,
        sum(fulfilled_all) as fulfilled_all,
        sum(possible_all) as possible_all,
        sum(fulfilled_ret) as fulfilled_ret,
        sum(possible_ret) as possible_ret,
        sum(fulfilled_imp) as fulfilled_imp,
        sum(possible_imp) as possible_imp,
        sum(fulfilled_all::double / possible_all order by jg) filter (where possible_all > 0) as avgjg_all,
        sum(fulfilled_ret::double / possible_ret order by jg) filter (where possible_ret > 0) as avgjg_ret,
        sum(fulfilled_imp::double / possible_imp order by jg) filter (where possible_imp > 0) as avgjg_imp,
        sum(rnonrel_fulfilled::double / rnonrel_possible order by jg) as rnonrel_all,
        bool_or(rnonrel_possible = 0) as rnonrel_all_undefined,
        sum(rnonrel_fulfilled_ret::double / rnonrel_possible_ret order by jg) as rnonrel_ret,
        bool_or(rnonrel_possible_ret = 0) as rnonrel_ret_undefined
    from group_ratios
    group by run_id, topic_id
),

-- unordered document pairs some JG orders: (first, second) by docid rank
document_pairs as (
    select
        scored_preferences.run_id,
        scored_preferences.topic_id,
        least(scored_preferences.better_rank, scored_preferences.worse_rank) as first_rank,
        greatest(scored_preferences.better_rank, scored_preferences.worse_rank) as second_rank,
        count(*) filter (where scored_preferences.better_rank < scored_preferences.worse_rank)::double
        / count(*) as agreement
    from scored_preferences
    group by
        scored_preferences.run_id,
        scored_preferences.topic_id,
        least(scored_preferences.better_rank, scored_preferences.worse_rank),
        greatest(scored_preferences.better_rank, scored_preferences.worse_rank)
),

topic_pairs as (
    select
        document_pairs.run_id,
        document_pairs.topic_id,
        count(*) as pairs_all,
        count(*) filter (where document_pairs.first_rank < judged_retrieved.njr) as pairs_imp,
        count(*) filter (where document_pairs.second_rank < judged_retrieved.njr) as pairs_ret,
        sum(
            document_pairs.agreement
            order by
                document_pairs.second_rank >= judged_retrieved.njr,
                document_pairs.first_rank,
                document_pairs.second_rank
        ) filter (where document_pairs.first_rank < judged_retrieved.njr) as agreement_imp,
        sum(document_pairs.agreement order by document_pairs.first_rank, document_pairs.second_rank)
            filter (where document_pairs.second_rank < judged_retrieved.njr) as agreement_ret
    from document_pairs
    inner join judged_retrieved
        on
            document_pairs.run_id = judged_retrieved.run_id
            and document_pairs.topic_id = judged_retrieved.topic_id
    group by document_pairs.run_id, document_pairs.topic_id
),

measure_inputs as (
    select
        evaluation_pairs.run_id,
        evaluation_pairs.topic_id,
        requested_measures.measure,
        requested_measures.kind,
        requested_measures.pairs,
        topic_groups.*,
        topic_pairs.*
    from evaluation_pairs
    cross join requested_measures
    left join topic_groups
        on
            evaluation_pairs.run_id = topic_groups.run_id
            and evaluation_pairs.topic_id = topic_groups.topic_id
    left join topic_pairs
        on
            evaluation_pairs.run_id = topic_pairs.run_id
            and evaluation_pairs.topic_id = topic_pairs.topic_id
),

chosen as (
    select
        run_id,
        topic_id,
        measure,
        kind,
        case pairs when 'ret' then fulfilled_ret when 'imp' then fulfilled_imp else fulfilled_all end
            as fulfilled,
        case pairs when 'ret' then possible_ret when 'imp' then possible_imp else possible_all end
            as possible,
        case pairs when 'ret' then avgjg_ret when 'imp' then avgjg_imp else avgjg_all end as avgjg_sum,
        case pairs when 'ret' then rnonrel_ret else rnonrel_all end as rnonrel_sum,
        case pairs when 'ret' then rnonrel_ret_undefined else rnonrel_all_undefined end
            as rnonrel_undefined,
        case pairs when 'ret' then pairs_ret when 'imp' then pairs_imp else pairs_all end as pair_count,
        case pairs when 'ret' then agreement_ret else agreement_imp end as pair_sum,
        num_jgs
    from measure_inputs
)

select
    run_id,
    topic_id,
    measure,
    case kind
        when 'PrefsPossible' then coalesce(possible, 0)
        when 'PrefsFulfilled' then coalesce(fulfilled, 0)
        when 'PrefsSimp' then case when possible > 0 then fulfilled::double / possible else 0 end
        when 'PrefsAvgJG' then case when avgjg_sum > 0 then avgjg_sum / num_jgs else 0 end
        when 'PrefsAvgJGRnonrel'
            then case when not rnonrel_undefined and rnonrel_sum > 0 then rnonrel_sum / num_jgs else 0 end
        when 'PrefsPair' then case when pair_count > 0 then coalesce(pair_sum, 0) / pair_count else 0 end
        else error('metric_preferences: no formula for measure kind ' || kind)
    end::double as value
from chosen
