-- 0021_run_relations: run relations, ir-metadata and the reproducibility and longitudinal results
-- (issue 42; docs/reproducibility.md).
-- run_relations: a run recorded as a reproduction (same collection) or a replication (another
-- collection) of an original run, in the same campaign or another, with free-form provenance.
-- run_snapshots: a run recorded as one system at one snapshot of a longitudinal campaign (CLEF
-- LongEval): the system, the snapshot's label and date, the judgment set holding that
-- snapshot's qrels, and the pivot system's run at that snapshot.
-- run_metadata: a run's ir-metadata document (ir_metadata YAML as JSON text: VARCHAR, as every
-- published column must be a type PostgreSQL gets), beside the typed columns
-- it sets (runs.team from actor.team, runs.system from tag).
-- repro_experiments, repro_results, repro_topic_values: one `pyeval repro` (repro_eval's
-- measures: KTU, RBO, RMSE, nRMSE, ER, DeltaRI, t-test p-values).
-- longitudinal_experiments, longitudinal_values, longitudinal_rankings: one
-- `pyeval longitudinal` (LongEval's long rows; the stability of the system ranking).
-- Forward-only: never edit this file once merged.

create table run_relations (
    campaign_id varchar not null,
    run_id varchar not null,
    relation varchar not null,
    original_campaign_id varchar not null,
    original_run_id varchar not null,
    provenance varchar,
    recorded_at timestamp not null default current_timestamp,
    primary key (campaign_id, run_id, relation)
);

create table run_snapshots (
    campaign_id varchar not null,
    run_id varchar not null,
    system varchar not null,
    snapshot varchar not null,
    snapshot_date date,
    judgment_set varchar,
    pivot_run_id varchar,
    provenance varchar,
    recorded_at timestamp not null default current_timestamp,
    primary key (campaign_id, run_id),
    unique (campaign_id, system, snapshot)
);

create table run_metadata (
    campaign_id varchar not null,
    run_id varchar not null,
    document varchar not null,
    source_file varchar not null,
    source_sha256 varchar not null,
    loaded_at timestamp not null default current_timestamp,
    primary key (campaign_id, run_id)
);

create table repro_experiments (
    repro_id bigint primary key,
    kind varchar not null,
    campaign_id varchar not null,
    baseline_run_id varchar not null,
    advanced_run_id varchar not null,
    rep_campaign_id varchar not null,
    rep_baseline_run_id varchar not null,
    rep_advanced_run_id varchar not null,
    judgment_set varchar not null,
    rep_judgment_set varchar not null,
    measures varchar[] not null,
    trim_depth integer not null,
    rbo_depth integer not null,
    rbo_p double not null,
    evaluation_ids bigint[] not null,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp
);

create table repro_results (
    repro_id bigint not null,
    pair varchar not null,
    statistic varchar not null,
    measure varchar,
    value double,
    topics integer not null
);

create table repro_topic_values (
    repro_id bigint not null,
    pair varchar not null,
    statistic varchar not null,
    measure varchar,
    topic_id varchar not null,
    value double
);

create table longitudinal_experiments (
    longitudinal_id bigint primary key,
    campaign_id varchar not null,
    pivot_system varchar not null,
    reference_snapshot varchar not null,
    snapshots varchar[] not null,
    systems varchar[] not null,
    measures varchar[] not null,
    evaluation_ids bigint[] not null,
    pyeval_version varchar not null,
    created_at timestamp not null default current_timestamp
);

create table longitudinal_values (
    longitudinal_id bigint not null,
    team varchar,
    system varchar not null,
    run_id varchar not null,
    snapshot varchar not null,
    qrels_set varchar not null,
    query varchar not null,
    meta_measure varchar not null,
    measure varchar not null,
    value double
);

create table longitudinal_rankings (
    longitudinal_id bigint not null,
    measure varchar not null,
    snapshot_1 varchar not null,
    snapshot_2 varchar not null,
    systems integer not null,
    tau double,
    tau_ap double,
    primary key (longitudinal_id, measure, snapshot_1, snapshot_2)
);
