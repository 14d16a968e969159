-- longitudinal_rankings: tau and tau_ap between the system rankings of two snapshots (migration 0021).
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
