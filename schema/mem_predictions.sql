-- mem_predictions: one row per (MEM experiment, target measure, predicted measure): how well the inferred
-- distributions predict the runs' means of another measure (Kendall's tau, RMSR, MARE), and the mean PR-curve errors.
create table mem_predictions (
    mem_id bigint not null,
    campaign_id varchar not null,
    target varchar not null,
    predicted varchar not null,
    depth integer not null,
    alpha double not null,
    beta double not null,
    expectation varchar not null,
    solver varchar not null,
    runs integer not null,
    topics integer not null,
    runs_excluded integer not null,
    tau double,
    rmsr double,
    mare double,
    rms double,
    mae double,
    created_at timestamp not null default current_timestamp,
    judgment_set varchar not null default 'official'
);
