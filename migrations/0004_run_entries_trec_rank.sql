-- 0004_run_entries_trec_rank: each entry's rank under the default ordering policy ('trec':
-- score descending, then docno descending in byte order), computed once when the run is
-- loaded (sql/loaders/run_insert.sql) instead of by every evaluation: sorting each list
-- dominated evaluation time. The other policies ('rank', 'file') stay computed by the view
-- ranked_entries.
create table run_entries_ranked (
    campaign_id varchar not null,
    run_id varchar not null,
    topic_id varchar not null,
    doc_id varchar not null,
    rank_given bigint not null,
    score double not null,
    file_position bigint not null,
    trec_rank bigint not null
);
insert into run_entries_ranked
select
    campaign_id,
    run_id,
    topic_id,
    doc_id,
    rank_given,
    score,
    file_position,
    row_number() over (
        partition by campaign_id, run_id, topic_id order by score desc, doc_id desc
    )
from run_entries;
drop table run_entries;
alter table run_entries_ranked rename to run_entries;
