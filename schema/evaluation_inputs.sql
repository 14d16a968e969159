-- evaluation_inputs: One row per input an evaluation read: the campaign's qrels, intents and
-- document lengths (input_name ''), each evaluated run (input_name = run_id) and each stored
-- gain profile its measures name (input_name = profile), with the sha256 of its content then;
-- the inputs of generated answers (migration 0020): the nugget bank (input_name = bank), the
-- assignment and support sets (input_name = judgment set) and each run's answers (input_name =
-- run_id). Written with the evaluation, never changed: the provenance of every stored value.
create table evaluation_inputs (
    evaluation_id bigint not null,
    campaign_id varchar not null,
    input_kind varchar not null check (
        input_kind in ('qrels', 'intents', 'doclengths', 'run', 'gains', 'nuggets', 'assignments', 'support', 'answers')
    ),
    input_name varchar not null default '',
    source_file varchar,
    source_sha256 varchar not null,
    primary key (evaluation_id, input_kind, input_name)
);
