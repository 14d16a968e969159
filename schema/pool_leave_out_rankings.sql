-- pool_leave_out_rankings: One row per (campaign, pool, grouping, measure): Kendall's tau, tau-b and tau_ap
-- of the leave-out leaderboard against the official one, and the largest rank change.
create table pool_leave_out_rankings (
    campaign_id varchar not null,
    pool_name varchar not null,
    grouping varchar not null,
    measure varchar not null,
    runs integer not null,
    kendall_tau double,
    kendall_tau_b double,
    tau_ap double,
    max_rank_change integer,
    created_at timestamp not null default current_timestamp,
    primary key (campaign_id, pool_name, grouping, measure)
);
