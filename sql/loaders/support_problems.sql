-- reads: answer_citations, answer_sentences, support_input
-- produces: support_problems (line_number, problem, is_duplicate)
-- grain: line_number
-- params: $campaign_id, $labels
-- support_problems: the first bad line of a citation support file (support_tsv_input.sql), first
-- line first: the line's own problem, a label not in $labels (full, partial, none), a sentence
-- campaign $campaign_id does not store, a document that sentence does not cite, the same citation
-- judged twice. is_duplicate: the error is a duplicate entry.
with checked as (
    select
        support_input.line_number,
        case
            when support_input.problem is not null then support_input.problem
            when not list_contains($labels, support_input.label)
                then 'label ''' || support_input.label || ''' is not one of ' || array_to_string($labels, ', ')
            when not exists (
                select 1
                from answer_sentences
                where
                    answer_sentences.campaign_id = $campaign_id
                    and answer_sentences.run_id = support_input.run_id
                    and answer_sentences.topic_id = support_input.topic_id
                    and answer_sentences.sentence_number = support_input.sentence_number
            )
                then 'campaign ''' || $campaign_id || ''' has no sentence ' || support_input.sentence_number
                || ' in the answer of run ''' || support_input.run_id || ''' to topic ''' || support_input.topic_id
                || ''''
            when not exists (
                select 1
                from answer_citations
                where
                    answer_citations.campaign_id = $campaign_id
                    and answer_citations.run_id = support_input.run_id
                    and answer_citations.topic_id = support_input.topic_id
                    and answer_citations.sentence_number = support_input.sentence_number
                    and answer_citations.doc_id = support_input.doc_id
            )
                then 'sentence ' || support_input.sentence_number || ' of the answer of run ''' || support_input.run_id
                || ''' to topic ''' || support_input.topic_id || ''' does not cite ''' || support_input.doc_id || ''''
        end as problem,
        false as is_duplicate
    from support_input
),

repeats as (
    select
        line_number,
        'the citation of ''' || doc_id || ''' by sentence ' || sentence_number || ' of the answer of run '''
        || run_id || ''' to topic ''' || topic_id || ''' judged again (first on line '
        || first_value(line_number) over (partition by run_id, topic_id, sentence_number, doc_id order by line_number)
        || ')' as problem,
        true as is_duplicate,
        row_number() over (partition by run_id, topic_id, sentence_number, doc_id order by line_number) as occurrence
    from support_input
    where problem is null
)

select line_number, problem, is_duplicate from checked where problem is not null
union all
select line_number, problem, is_duplicate from repeats where occurrence > 1
order by line_number, problem
limit 1
