-- judgment_sets: One row per (campaign, judgment set): a named set of qrels (and intents) and its
-- provenance (docs/judgments.md). kind: human | llm | merged | derived; judge: who or which model;
-- guideline_sha256: the sha256 of the prompt or assessment guidelines; parent_sets and derivation
-- (a file of sql/judgments/) with its parameters (JSON) for sets made from others; source_file and
-- source_sha256 for a loaded set. 'official' is every campaign's default set unless
-- campaigns.default_judgment_set names another. working_set: a leave-one-group-out set made by a
-- pool analysis (pyeval pool loo; migration 0019), working data listed by `judgments list --all` only.
create table judgment_sets (
    campaign_id varchar not null,
    judgment_set varchar not null,
    kind varchar not null check (kind in ('human', 'llm', 'merged', 'derived')),
    judge varchar,
    guideline_sha256 varchar,
    description varchar,
    parent_sets varchar[] not null default [],
    derivation varchar,
    parameters varchar,
    source_file varchar,
    source_sha256 varchar,
    created_at timestamp not null default current_timestamp,
    working_set boolean not null default false,
    primary key (campaign_id, judgment_set)
);
