-- 0003_qrels_unindexed: qrels without its primary-key index. The grain (campaign, topic,
-- intent, document) stays unique, checked by the loaders (as for run_entries); the ART index
-- made a 2-million-judgment load 2.5x slower (3.2 s against 1.3 s).
create table qrels_unindexed (
    campaign_id varchar not null,
    topic_id varchar not null,
    intent_id varchar not null default '',
    doc_id varchar not null,
    level integer not null
);
insert into qrels_unindexed select campaign_id, topic_id, intent_id, doc_id, level from qrels;
drop table qrels;
alter table qrels_unindexed rename to qrels;
