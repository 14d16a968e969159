-- reads: answer_input, answer_sentence_input, answer_citation_input, answer_reference_input
-- produces: answer_problems (line_number, problem, is_duplicate)
-- grain: line_number
-- params: none
-- answer_problems: the first bad answer of an answer file (TREC RAG JSON lines or TSV: the
-- answer_json_*.sql or answer_tsv_*.sql rows), first line first: a bad TSV line, a sentence
-- without text, a citation outside the references, an empty reference, the same (run, topic)
-- answered on two lines, a TSV sentence given twice, or a TSV answer whose sentence numbers are not
-- 1 to its number of sentences. is_duplicate: the error is a duplicate entry. Repeats are found
-- by aggregating first (a file without any costs a hash aggregate, not a sort). On one line, an
-- answer given again is named before what follows from it (its sentences given again).
with sentence_problems as (
    select
        line_number,
        coalesce(
            problem,
            case when text is null then 'sentence ' || sentence_number || ' has no text' end
        ) as problem,
        false as is_duplicate
    from answer_sentence_input
),

citation_problems as (
    select line_number, problem, false as is_duplicate
    from answer_citation_input
    where problem is not null
),

reference_problems as (
    select line_number, 'reference ' || (reference_number - 1) || ' is empty' as problem, false as is_duplicate
    from answer_reference_input
    where coalesce(trim(doc_id), '') = ''
),

repeated_answers as (
    select run_id, topic_id
    from answer_input
    group by run_id, topic_id
    having count(*) > 1
),

answer_repeats as (
    select
        answer_input.line_number,
        'the answer of run ''' || answer_input.run_id || ''' to topic ''' || answer_input.topic_id
        || ''' given again (first on line ' || first_value(answer_input.line_number) over keyed || ')' as problem,
        true as is_duplicate,
        row_number() over keyed as occurrence
    from answer_input
    inner join repeated_answers
        on answer_input.run_id = repeated_answers.run_id and answer_input.topic_id = repeated_answers.topic_id
    window keyed as (partition by answer_input.run_id, answer_input.topic_id order by answer_input.line_number)
),

repeated_sentences as (
    select run_id, topic_id, sentence_number
    from answer_sentence_input
    where problem is null
    group by run_id, topic_id, sentence_number
    having count(*) > 1
),

sentence_repeats as (
    select
        answer_sentence_input.line_number,
        'sentence ' || answer_sentence_input.sentence_number || ' of the answer of run '''
        || answer_sentence_input.run_id || ''' to topic ''' || answer_sentence_input.topic_id
        || ''' given again (first on line ' || first_value(answer_sentence_input.line_number) over keyed || ')'
        as problem,
        true as is_duplicate,
        row_number() over keyed as occurrence
    from answer_sentence_input
    inner join repeated_sentences
        on answer_sentence_input.run_id = repeated_sentences.run_id
        and answer_sentence_input.topic_id = repeated_sentences.topic_id
        and answer_sentence_input.sentence_number = repeated_sentences.sentence_number
    where answer_sentence_input.problem is null
    window keyed as (
        partition by answer_sentence_input.run_id, answer_sentence_input.topic_id, answer_sentence_input.sentence_number
        order by answer_sentence_input.line_number
    )
),

numbering_problems as (
    select
        min(line_number) as line_number,
        'the answer of run ''' || run_id || ''' to topic ''' || topic_id || ''' has ' || count(*)
        || ' sentences numbered up to ' || max(sentence_number) || ': number them 1 to ' || count(*) as problem,
        false as is_duplicate
    from answer_sentence_input
    where problem is null
    group by run_id, topic_id
    having max(sentence_number) <> count(*) and count(distinct sentence_number) = count(*)
)

select line_number, problem, is_duplicate
from (
    select line_number, 0 as priority, problem, is_duplicate from answer_repeats where occurrence > 1
    union all
    select line_number, 1 as priority, problem, is_duplicate from sentence_problems where problem is not null
    union all
    select line_number, 1 as priority, problem, is_duplicate from citation_problems
    union all
    select line_number, 1 as priority, problem, is_duplicate from reference_problems
    union all
    select line_number, 1 as priority, problem, is_duplicate from sentence_repeats where occurrence > 1
    union all
    select line_number, 1 as priority, problem, is_duplicate from numbering_problems
)
order by line_number, priority, problem
limit 1
