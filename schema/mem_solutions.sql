-- mem_solutions: one row per (MEM experiment, target measure, run, topic): the maximum-entropy fit of the
-- relevance probabilities, its convergence, and the inferred precision-recall curve's errors (Ashkan & Clarke 2011).
create table mem_solutions (
    mem_id bigint not null,
    campaign_id varchar not null,
    target varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    depth integer not null,
    alpha double not null,
    beta double not null,
    expectation varchar not null,
    solver varchar not null,
    intents integer not null,
    relevant integer not null,
    relevant_retrieved integer not null,
    observed double not null,
    entropy double,
    iterations integer,
    residual double,
    converged boolean not null,
    status varchar,
    rms double,
    mae double,
    created_at timestamp not null default current_timestamp,
    judgment_set varchar not null default 'official'
);
