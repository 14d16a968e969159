-- reads: batch_runs, run_batch
-- writes: run_entries
-- params: $campaign_id, $first_file, $last_file, $order_check_lines
-- run_insert: store the checked lines of every run of a load in one statement.
-- Reads: run_batch (every line of the load's runs, pyeval/loaders/runs.py _stage_batch: file_index,
-- line_number, topic_id, doc_id, run_tag, rank_given, score), batch_runs (file_index, run_id).
-- Parameters: $campaign_id; $first_file, $last_file: the runs stored by this statement (a load
-- stores its runs in slices of about a million lines, so that the window's memory stays bounded);
-- $order_check_lines: the fewest lines of the stored runs (all of them together) for which the
-- statement looks for topics already in trec order (pyeval.loaders.runs.ORDER_CHECK_LINES, the one
-- rule: on fewer lines the check costs what it saves, docs/benchmarks.md; null: never, for runs
-- given in memory, which are never in a file's order).
-- trec_rank is the rank under pyeval's default ordering policy 'trec' (trec_eval 10.0
-- form_res_rels.c): score descending, then docno descending in byte order. It is computed
-- here, once per run, rather than by every evaluation (the view ranked_entries reads it).
-- Ranks from the file's order: most runs are written in that order already. One streamed pass
-- (lag over (), in the load's order) checks each line against the line before it, and a topic
-- whose lines are together, numbered one after another and each after the one before it in the
-- trec order (score lower, or equal with a lower docno) takes its ranks from its line numbers:
-- trec_rank = line_number - first_line + 1. Only the other topics are sorted (the trec_order
-- window). Both give the same rank (a topic's lines in trec order are its sorted lines); the
-- check reads line numbers, never the order rows arrive in, so a pass that saw them in another
-- order only sends more topics to the window (docs/loading.md, "Ranks from the file's order").
-- A run given without ranks (run_batch.rank_given null: a dict, namedtuples or a DataFrame
-- without a rank column, pyeval/interop.py, pyeval/loaders/runs.py) is ranked by its scores
-- wherever it enters: its rank_given is its trec_rank, and its file_position puts each topic's
-- lines in trec order (topics in the order they first appear: the first line's number times
-- 2^31, plus the trec rank), so that every ordering ('rank', 'file' too) reads the scores, never
-- the input order.
-- The select names its columns as run_entries does: the Python API's resident engine reads it
-- as the relation run_entries of one statement (pyeval/interop.py, sqlfiles.insert_select).
insert into run_entries (
    campaign_id, run_id, topic_id, doc_id, rank_given, score, file_position, trec_rank
)
with load_lines as not materialized (
    select
        run_batch.file_index,
        run_batch.line_number,
        run_batch.topic_id,
        run_batch.doc_id,
        run_batch.rank_given,
        run_batch.score
    from run_batch
    where run_batch.file_index between $first_file and $last_file
),

line_steps as (
    select
        file_index,
        topic_id,
        line_number,
        coalesce(lag(file_index) over () = file_index and lag(topic_id) over () = topic_id, false)
            as continues_topic,
        coalesce(
            lag(line_number) over () = line_number - 1
            and (lag(score) over () > score or (lag(score) over () = score and lag(doc_id) over () > doc_id)),
            false
        ) as follows_in_order
    from load_lines
    where (
        select count(*)
        from run_batch
        where run_batch.file_index between $first_file and $last_file
    ) >= $order_check_lines
),

-- the topics in trec order: one block of lines, each after the one before it
ordered_topics as materialized (
    select
        file_index,
        topic_id,
        min(line_number) as first_line
    from line_steps
    group by file_index, topic_id
    having count(*) filter (where not continues_topic) = 1 and bool_and(follows_in_order or not continues_topic)
),

ranked_lines as (
    select
        load_lines.*,
        ordered_topics.first_line,
        load_lines.line_number - ordered_topics.first_line + 1 as trec_rank
    from load_lines
    inner join ordered_topics
        on load_lines.file_index = ordered_topics.file_index and load_lines.topic_id = ordered_topics.topic_id
    union all
    select
        load_lines.*,
        min(load_lines.line_number) over (partition by load_lines.file_index, load_lines.topic_id) as first_line,
        row_number() over (
            partition by load_lines.file_index, load_lines.topic_id
            order by load_lines.score desc, load_lines.doc_id desc
        ) as trec_rank
    from load_lines
    anti join ordered_topics
        on load_lines.file_index = ordered_topics.file_index and load_lines.topic_id = ordered_topics.topic_id
)

select
    $campaign_id as campaign_id,
    batch_runs.run_id,
    ranked_lines.topic_id,
    ranked_lines.doc_id,
    coalesce(ranked_lines.rank_given, ranked_lines.trec_rank) as rank_given,
    ranked_lines.score,
    case
        when ranked_lines.rank_given is null then ranked_lines.first_line * 2147483648 + ranked_lines.trec_rank
        else ranked_lines.line_number
    end as file_position,
    ranked_lines.trec_rank
from ranked_lines
inner join batch_runs on ranked_lines.file_index = batch_runs.file_index
